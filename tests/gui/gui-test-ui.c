/* gui-test-ui.c — see gui-test-ui.h. */
#include <glib/gstdio.h>

#include "gui-test-report.h"
#include "gui-test-ui.h"
#include "kubus-legend.h"
#include "kubus-row-cell.h"

KubusApplication *app;
char *tmpdir;

/* ---- files ------------------------------------------------------------------------------- */

/* Writes gui_test_report_new (@scale) as @name in the test folder. */
GFile *
report_file (const char *name,
             double      scale)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (CubeReport) report = gui_test_report_new (scale);
  g_autoptr (GError) error = NULL;

  g_assert_true (cube_report_write (report, path, &error));
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

GFile *
bad_file (const char *name,
          const char *contents)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, contents, -1, &error));
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

/* ---- main loop ------------------------------------------------------------------------------ */

static gboolean
keep_awake (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}


/* Spins the main loop until @cond holds or @ms pass; returns whether it holds. */
gboolean
spin_until (Condition cond,
            gpointer  data,
            guint     ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;
  guint awake = g_timeout_add (10, keep_awake, NULL);
  gboolean ok;

  while (!(ok = cond (data)) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (awake);
  return ok;
}

gboolean
never (gpointer data)
{
  (void) data;
  return FALSE;
}

void
spin (guint ms)
{
  spin_until (never, NULL, ms);
}


void
on_loaded (KubusWindow *window,
           Events      *ev)
{
  (void) window;
  ev->loaded++;
}

void
on_failed (KubusWindow *window,
           const char  *message,
           Events      *ev)
{
  (void) window;
  ev->failed++;
  g_free (ev->message);
  ev->message = g_strdup (message);
}

typedef struct
{
  Events *ev;
  guint   loaded;
  guint   failed;
} Expect;

static gboolean
events_reached (gpointer data)
{
  Expect *e = data;

  return e->ev->loaded >= e->loaded && e->ev->failed >= e->failed;
}

void
wait_events (Events *ev,
             guint   loaded,
             guint   failed)
{
  Expect e = { ev, loaded, failed };

  if (!spin_until (events_reached, &e, WAIT_MS))
    g_error ("timed out: loaded %u/%u, failed %u/%u", ev->loaded, loaded, ev->failed, failed);
  g_assert_cmpuint (ev->loaded, ==, loaded);
  g_assert_cmpuint (ev->failed, ==, failed);
}

/* ---- window ------------------------------------------------------------------------------- */

KubusWindow *
new_window (Events *ev)
{
  KubusWindow *window = kubus_window_new (GTK_APPLICATION (app));

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  g_signal_connect (window, "loaded", G_CALLBACK (on_loaded), ev);
  g_signal_connect (window, "failed", G_CALLBACK (on_failed), ev);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

void
close_window (KubusWindow *window,
              Events      *ev)
{
  g_signal_handlers_disconnect_by_data (window, ev);
  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_clear_pointer (&ev->message, g_free);
}

void
activate (KubusWindow *window,
          const char  *action,
          GVariant    *param)
{
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), action));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), action));
  g_action_group_activate_action (G_ACTION_GROUP (window), action, param);
}

GtkWidget *
find_widget (GtkWidget *root,
             gboolean (*match) (GtkWidget *w, gpointer data),
             gpointer   data)
{
  if (match (root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, match, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
is_pane_of_kind (GtkWidget *w,
                 gpointer   data)
{
  return KUBUS_IS_PANE_VIEW (w) && kubus_pane_view_get_kind (KUBUS_PANE_VIEW (w)) == GPOINTER_TO_UINT (data);
}

KubusPaneView *
pane_view (KubusWindow  *window,
           KubusPaneKind kind)
{
  GtkWidget *w = find_widget (GTK_WIDGET (window), is_pane_of_kind, GUINT_TO_POINTER (kind));

  g_assert_nonnull (w);
  return KUBUS_PANE_VIEW (w);
}

/* ---- rows as text ----------------------------------------------------------------------------- */

typedef struct
{
  guint  position;
  char  *line;
} Line;

static void
line_clear (gpointer data)
{
  g_free (((Line *) data)->line);
}

static int
line_cmp (gconstpointer a,
          gconstpointer b)
{
  guint pa = ((const Line *) a)->position, pb = ((const Line *) b)->position;

  return pa < pb ? -1 : pa > pb;
}

const char *
label_text (GtkWidget *w)
{
  g_assert_true (GTK_IS_LABEL (w));
  return gtk_label_get_text (GTK_LABEL (w));
}

static void
collect_rows (GtkWidget *w,
              GArray    *lines)
{
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkListItem *item;
      GtkWidget *expander, *value, *name;
      GtkTreeListRow *row;
      GString *s;
      Line line;

      if (!KUBUS_IS_ROW_CELL (c))
        {
          collect_rows (c, lines);
          continue;
        }
      item = g_object_get_data (G_OBJECT (c), "kubus-list-item");
      expander = gtk_widget_get_parent (c);
      if (item == NULL || gtk_list_item_get_item (item) == NULL || !gtk_widget_get_mapped (c)
          || !GTK_IS_TREE_EXPANDER (expander))
        continue;
      row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (expander));
      if (row == NULL)
        continue;
      /* The cell: value label and name label (the cell draws the severity square itself). */
      value = gtk_widget_get_first_child (c);
      name = gtk_widget_get_next_sibling (value);
      s = g_string_new (NULL);
      g_string_append_printf (s, "%*s%s %s", (int) (2 * gtk_tree_list_row_get_depth (row)), "",
                              label_text (name), label_text (value));
      if (gtk_tree_list_row_is_expandable (row))
        g_string_append (s, gtk_tree_list_row_get_expanded (row) ? " [-]" : " [+]");
      if (gtk_list_item_get_selected (item))
        g_string_append (s, " *");
      if (gtk_widget_has_css_class (value, "kubus-negative"))
        g_string_append (s, " neg");
      line.position = gtk_list_item_get_position (item);
      line.line = g_string_free (s, FALSE);
      g_array_append_val (lines, line);
    }
}

char *
pane_text (KubusWindow  *window,
           KubusPaneKind kind)
{
  g_autoptr (GArray) lines = g_array_new (FALSE, FALSE, sizeof (Line));
  GString *s = g_string_new (NULL);

  g_array_set_clear_func (lines, line_clear);
  collect_rows (kubus_pane_view_get_list_view (pane_view (window, kind)), lines);
  g_array_sort (lines, line_cmp);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (s, "%s\n", g_array_index (lines, Line, i).line);
  return g_string_free (s, FALSE);
}


gboolean
pane_part_shows (gpointer data)
{
  ShownCheck *c = data;

  g_free (c->got);
  c->got = c->text (c->window, c->kind);
  return g_str_equal (c->got, c->expected);
}

void
assert_pane_at (KubusWindow  *window,
                KubusPaneKind kind,
                const char   *expected,
                const char   *file,
                int           line)
{
  ShownCheck c = { window, kind, expected, NULL, pane_text };

  if (!spin_until (pane_part_shows, &c, WAIT_MS))
    {
      g_printerr ("%s:%d: pane %d:\n--- expected\n%s--- shown\n%s---\n", file, line, kind, expected, c.got);
      g_assert_cmpstr (c.got, ==, expected);
    }
  g_free (c.got);
}


/* ---- acting on rows like a user -------------------------------------------------------------- */

typedef struct
{
  const char *name;
  guint       skip;
} CellQuery;

static gboolean
is_cell_named (GtkWidget *w,
               gpointer   data)
{
  CellQuery *q = data;
  GtkWidget *name;
  GtkListItem *item;

  if (!KUBUS_IS_ROW_CELL (w) || !gtk_widget_get_mapped (w))
    return FALSE;
  item = g_object_get_data (G_OBJECT (w), "kubus-list-item");
  if (item == NULL || gtk_list_item_get_item (item) == NULL)
    return FALSE;
  name = gtk_widget_get_next_sibling (gtk_widget_get_first_child (w));   /* value, name */
  if (!g_str_equal (label_text (name), q->name))
    return FALSE;
  return q->skip-- == 0;
}

typedef struct
{
  CellQuery  query;
  GtkWidget *list_view;
  GtkWidget *cell;
} CellFind;

static gboolean
cell_found (gpointer data)
{
  CellFind *f = data;
  CellQuery q = f->query;

  f->cell = find_widget (f->list_view, is_cell_named, &q);
  return f->cell != NULL;
}

/* The @nth (0-based, in widget order) shown row cell named @name. */
GtkWidget *
row_cell (KubusWindow  *window,
          KubusPaneKind kind,
          const char   *name,
          guint         nth)
{
  CellFind f = { { name, nth }, kubus_pane_view_get_list_view (pane_view (window, kind)), NULL };

  /* Rows of a report just shown or a row just expanded appear with the next layout. */
  if (!spin_until (cell_found, &f, WAIT_MS))
    {
      g_autofree char *shown = pane_text (window, kind);
      g_error ("pane %d shows no row “%s” (#%u); it shows:\n%s", kind, name, nth, shown);
    }
  return f.cell;
}

/* Clicks the expander triangle of the row: the action the GtkTreeExpander's click runs. */
void
toggle_row (KubusWindow  *window,
            KubusPaneKind kind,
            const char   *name)
{
  GtkWidget *expander = gtk_widget_get_parent (row_cell (window, kind, name, 0));

  g_assert_true (GTK_IS_TREE_EXPANDER (expander));
  g_assert_true (gtk_widget_activate_action (expander, "listitem.toggle-expand", NULL));
}

/* Selects only the row (what a click on it does). */
void
select_row (KubusWindow  *window,
            KubusPaneKind kind,
            const char   *name,
            guint         nth)
{
  GtkWidget *cell = row_cell (window, kind, name, nth);
  GtkListItem *item = g_object_get_data (G_OBJECT (cell), "kubus-list-item");
  GtkWidget *cv = kubus_pane_view_get_list_view (pane_view (window, kind));

  g_assert_true (gtk_selection_model_select_item (gtk_list_view_get_model (GTK_LIST_VIEW (cv)),
                                                  gtk_list_item_get_position (item), TRUE));
}

gboolean
is_drop_down (GtkWidget *w,
              gpointer   data)
{
  GtkWidget **last = data;

  if (GTK_IS_DROP_DOWN (w))
    *last = w;
  return FALSE;
}

/* Picks @label in the pane's value mode drop-down (the last drop-down of its header). */
void
choose_mode (KubusWindow  *window,
             KubusPaneKind kind,
             const char   *label)
{
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (pane_view (window, kind)));
  GtkWidget *dropdown = NULL;
  GListModel *items;
  GString *offered = g_string_new (NULL);

  find_widget (header, is_drop_down, &dropdown);
  g_assert_nonnull (dropdown);
  items = gtk_drop_down_get_model (GTK_DROP_DOWN (dropdown));
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      const char *s = gtk_string_list_get_string (GTK_STRING_LIST (items), i);
      if (g_str_equal (s, label))
        {
          gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), i);
          g_string_free (offered, TRUE);
          return;
        }
      g_string_append_printf (offered, " “%s”", s);
    }
  g_error ("pane %d offers no mode “%s”, only%s", kind, label, offered->str);
}


gboolean
is_legend (GtkWidget *w,
           gpointer   data)
{
  (void) data;
  return KUBUS_IS_LEGEND (w);
}

/* The legend's labels (low end, high end, caption) joined by "|". */
char *
legend_text (KubusWindow  *window,
             KubusPaneKind kind)
{
  GtkWidget *legend = find_widget (GTK_WIDGET (pane_view (window, kind)), is_legend, NULL);
  GString *s = g_string_new (NULL);

  g_assert_nonnull (legend);
  for (GtkWidget *c = gtk_widget_get_first_child (legend); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_LABEL (c))
      g_string_append_printf (s, "%s%s", s->len > 0 ? "|" : "", gtk_label_get_text (GTK_LABEL (c)));
  return g_string_free (s, FALSE);
}

void
assert_legend (KubusWindow  *window,
               KubusPaneKind kind,
               const char   *expected)
{
  ShownCheck c = { window, kind, expected, NULL, legend_text };

  if (!spin_until (pane_part_shows, &c, WAIT_MS))
    g_assert_cmpstr (c.got, ==, expected);
  g_free (c.got);
}

/* Removes @path and, for a folder, everything below it (the test's reports and the XDG data
 * folder GTK's recent files went to). */
void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

int
gui_test_ui_init (int    *argc,
                  char ***argv,
                  const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *data_home = NULL;
  g_autofree char *tmpl = g_strdup_printf ("kubus-%s-XXXXXX", name);

  if (g_getenv ("DISPLAY") == NULL || g_getenv ("DISPLAY")[0] == '\0')
    {
      g_print ("1..0 # SKIP no display (run under tests/gui/xvfb-wrap.sh)\n");
      return 77;
    }
  tmpdir = g_dir_make_tmp (tmpl, &error);
  g_assert_no_error (error);
  /* Keep the tester's recent files and settings out of it. */
  data_home = g_build_filename (tmpdir, "data-home", NULL);
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);

  gtk_test_init (argc, argv, NULL);
  app = kubus_application_new ();
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("cannot register the application: %s", error->message);
  /* The application's windows keep it alive; the test holds it like a running main loop. */
  g_application_hold (G_APPLICATION (app));
  return 0;
}

void
gui_test_ui_finish (void)
{
  g_application_release (G_APPLICATION (app));
  g_clear_object (&app);
  remove_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

GtkWidget *
shown_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();   /* not owned */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type) && gtk_widget_get_visible (w))
        return w;   /* the list keeps its reference */
    }
  return NULL;
}
