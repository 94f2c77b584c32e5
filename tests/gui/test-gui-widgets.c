/* test-gui-widgets.c — the browser window on a display (Xvfb): open, select, expand, switch
 * modes and views, external percent, compare, bad reports.
 *
 * The test drives a real KubusWindow the way a user does: row expanders
 * ("listitem.toggle-expand"), selection of the list view's model, the mode drop-downs in the
 * pane headers and the window's GActions (each has a menu item and an accelerator). It reads
 * back what the rows SHOW: the labels of the KubusRowCell widgets bound in each pane, one line
 * per visible row, "<indent><name> <value>[ [+]| [-]][ *][ neg]" — [+] collapsed with children,
 * [-] expanded, * selected, "neg" when the value label has the negative style.
 *
 * Rows appear after layout (a frame later), so every check waits (spinning the main loop) until
 * the rows show the expected text, failing with the last text seen after a generous timeout.
 * Run under tests/gui/xvfb-wrap.sh; exits 77 without a display. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "gui-test-report.h"
#include "kubus-application.h"
#include "kubus-legend.h"
#include "kubus-loader.h"
#include "kubus-pane-view.h"
#include "kubus-row-cell.h"
#include "kubus-window-private.h"   /* the Cancel button and the Open Recent menu section */

#define WAIT_MS 20000   /* rows normally show within a frame or two; ASan builds are slow */

static KubusApplication *app;
static char *tmpdir;

/* ---- files ------------------------------------------------------------------------------- */

/* Writes gui_test_report_new (@scale) as @name in the test folder. */
static GFile *
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

static GFile *
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

typedef gboolean (*Condition) (gpointer data);

/* Spins the main loop until @cond holds or @ms pass; returns whether it holds. */
static gboolean
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

static gboolean
never (gpointer data)
{
  (void) data;
  return FALSE;
}

static void
spin (guint ms)
{
  spin_until (never, NULL, ms);
}

typedef struct
{
  guint  loaded;
  guint  failed;
  char  *message;
} Events;

static void
on_loaded (KubusWindow *window,
           Events      *ev)
{
  (void) window;
  ev->loaded++;
}

static void
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

static void
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

static KubusWindow *
new_window (Events *ev)
{
  KubusWindow *window = kubus_window_new (GTK_APPLICATION (app));

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  g_signal_connect (window, "loaded", G_CALLBACK (on_loaded), ev);
  g_signal_connect (window, "failed", G_CALLBACK (on_failed), ev);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
close_window (KubusWindow *window,
              Events      *ev)
{
  g_signal_handlers_disconnect_by_data (window, ev);
  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_clear_pointer (&ev->message, g_free);
}

static void
activate (KubusWindow *window,
          const char  *action,
          GVariant    *param)
{
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), action));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), action));
  g_action_group_activate_action (G_ACTION_GROUP (window), action, param);
}

static GtkWidget *
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

static KubusPaneView *
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

static const char *
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

static char *
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

/* Waits for a pane (its rows, its legend, …) to show a text: @text renders what is shown. */
typedef struct
{
  KubusWindow  *window;
  KubusPaneKind kind;
  const char   *expected;
  char         *got;
  char       *(*text) (KubusWindow *window, KubusPaneKind kind);
} ShownCheck;

static gboolean
pane_part_shows (gpointer data)
{
  ShownCheck *c = data;

  g_free (c->got);
  c->got = c->text (c->window, c->kind);
  return g_str_equal (c->got, c->expected);
}

static void
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

#define assert_pane(w, k, e) assert_pane_at ((w), (k), (e), __FILE__, __LINE__)

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
static GtkWidget *
row_cell (KubusWindow  *window,
          KubusPaneKind kind,
          const char   *name,
          guint         nth)
{
  CellFind f = { { name, nth }, kubus_pane_view_get_list_view (pane_view (window, kind)), NULL };

  /* Rows of a report just shown or a row just expanded appear with the next layout. */
  if (!spin_until (cell_found, &f, WAIT_MS))
    g_error ("pane %d shows no row “%s” (#%u)", kind, name, nth);
  return f.cell;
}

/* Clicks the expander triangle of the row: the action the GtkTreeExpander's click runs. */
static void
toggle_row (KubusWindow  *window,
            KubusPaneKind kind,
            const char   *name)
{
  GtkWidget *expander = gtk_widget_get_parent (row_cell (window, kind, name, 0));

  g_assert_true (GTK_IS_TREE_EXPANDER (expander));
  g_assert_true (gtk_widget_activate_action (expander, "listitem.toggle-expand", NULL));
}

/* Selects only the row (what a click on it does). */
static void
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

static gboolean
is_drop_down (GtkWidget *w,
              gpointer   data)
{
  GtkWidget **last = data;

  if (GTK_IS_DROP_DOWN (w))
    *last = w;
  return FALSE;
}

/* Picks @label in the pane's value mode drop-down (the last drop-down of its header). */
static void
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

/* ---- tests ------------------------------------------------------------------------------------ */

static void
test_open (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("open.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "open.cube — Kubus");
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 16 [+] *\n"
               "Visits 36\n");
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 16.00 [+]\n");
  /* Without a topology in the report the Topology command stays off. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "topology"));
  close_window (window, &ev);
}

/* Expanding shows exclusive values; selections flow to the right. */
static void
test_select_expand (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("select.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 2.00 [+]\n");

  toggle_row (window, KUBUS_PANE_SYSTEM, "M");
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 2.00 [+]\n");
  toggle_row (window, KUBUS_PANE_SYSTEM, "N");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 5.00 [+]\n"
               "    rank 1 5.00 [+]\n");

  /* Metric MPI (under Time): the call pane shows where MPI time is. */
  toggle_row (window, KUBUS_PANE_METRIC, "Time");
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 10 [-] *\n"
               "  MPI 6\n"
               "Visits 36\n");
  select_row (window, KUBUS_PANE_METRIC, "MPI", 0);
  toggle_row (window, KUBUS_PANE_CALL, "foo");
  toggle_row (window, KUBUS_PANE_CALL, "bar");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 0.00 [-]\n"
               "  foo 0.00 [-] *\n"
               "    MPI_Send 4.00\n"
               "  bar 0.00 [-]\n"
               "    MPI_Send 2.00\n");
  select_row (window, KUBUS_PANE_CALL, "MPI_Send", 1);   /* bar's: [0 2] */
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 0.00 [+]\n"
               "    rank 1 2.00 [+]\n");

  /* Collapse all / expand largest / expand all act on the call pane (the active one). */
  activate (window, "collapse-all", NULL);
  assert_pane (window, KUBUS_PANE_CALL, "main 6.00 [+]\n");
  activate (window, "expand-largest", NULL);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 0.00 [-]\n"
               "  foo 0.00 [-]\n"
               "    MPI_Send 4.00 *\n"
               "  bar 2.00 [+]\n");
  activate (window, "expand-all", NULL);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 0.00 [-]\n"
               "  foo 0.00 [-]\n"
               "    MPI_Send 4.00 *\n"
               "  bar 0.00 [-]\n"
               "    MPI_Send 2.00\n");
  close_window (window, &ev);
}

static void
test_modes (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("modes.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  g_autoptr (GVariant) state = NULL;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  toggle_row (window, KUBUS_PANE_SYSTEM, "M");
  toggle_row (window, KUBUS_PANE_SYSTEM, "N");
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 5.00 [+]\n"
               "    rank 1 5.00 [+]\n");

  /* The View › Value Mode menu (win.mode) sets the active pane: the call pane. */
  activate (window, "mode", g_variant_new_string ("percent"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 12.50 [-]\n"
               "  foo 62.50 [+] *\n"
               "  bar 25.00 [+]\n");
  state = g_action_group_get_action_state (G_ACTION_GROUP (window), "mode");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "percent");
  /* … and only the call pane. */
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 5.00 [+]\n"
               "    rank 1 5.00 [+]\n");

  /* The system pane's own drop-down: percent of the selection to the left sums to 100. */
  choose_mode (window, KUBUS_PANE_SYSTEM, kubus_value_mode_label (KUBUS_MODE_RELATIVE));
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 50.00 [+]\n"
               "    rank 1 50.00 [+]\n");
  select_row (window, KUBUS_PANE_CALL, "bar", 0);   /* bar: [1 3] */
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 25.00 [+]\n"
               "    rank 1 75.00 [+]\n");
  choose_mode (window, KUBUS_PANE_SYSTEM, kubus_value_mode_label (KUBUS_MODE_PEER_PERCENT));
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 33.33 [+]\n"
               "    rank 1 100.00 [+]\n");
  choose_mode (window, KUBUS_PANE_SYSTEM, kubus_value_mode_label (KUBUS_MODE_ABSOLUTE));
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 1.00 [+]\n"
               "    rank 1 3.00 [+]\n");
  /* Back to absolute in the call pane through its drop-down. */
  choose_mode (window, KUBUS_PANE_CALL, kubus_value_mode_label (KUBUS_MODE_ABSOLUTE));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+] *\n");
  close_window (window, &ev);
}

/* File › Open External: percent of another report's total, in every pane. */
static void
test_external (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("ext-a.cube", 1.0);
  g_autoptr (GFile) external = report_file ("ext-b.cube", 2.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  kubus_window_open_external (window, external);
  wait_events (&ev, 2, 0);
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 50.00 [+] *\n"
               "Visits 100.00\n");
  assert_pane (window, KUBUS_PANE_CALL, "main 50.00 [+] *\n");
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 6.25 [-] *\n"
               "  foo 31.25 [+]\n"
               "  bar 12.50 [+]\n");
  close_window (window, &ev);
}

/* kubus --compare A B: A − B, signed, percent of A by default, losses marked negative. */
static void
test_compare (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) a = report_file ("cmp-a.cube", 1.0);
  g_autoptr (GFile) b = report_file ("cmp-b.cube", 1.5);
  KubusWindow *window = new_window (&ev);

  kubus_window_compare (window, a, b);
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "cmp-a.cube − cmp-b.cube — Kubus");
  assert_pane (window, KUBUS_PANE_CALL, "main -50.00 [+] * neg\n");
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main -6.25 [-] * neg\n"
               "  foo -31.25 [+] neg\n"
               "  bar -12.50 [+] neg\n");
  /* A difference cannot be compared again. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "compare"));
  close_window (window, &ev);

  /* B − A: gains, not marked negative. */
  window = new_window (&ev);
  kubus_window_compare (window, b, a);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 4.17 [-] *\n"
               "  foo 20.83 [+]\n"
               "  bar 8.33 [+]\n");
  close_window (window, &ev);
}

static void
test_call_views (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("views.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  activate (window, "call-view", g_variant_new_string ("flat"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 16.00 [+] *\n"
               "foo 10.00 [+]\n"
               "MPI_Send 6.00\n"
               "bar 4.00 [+]\n");
  toggle_row (window, KUBUS_PANE_CALL, "foo");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 16.00 [+]\n"
               "foo 6.00 [-] *\n"
               "  MPI_Send 4.00\n"
               "MPI_Send 6.00\n"
               "bar 4.00 [+]\n");
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 6.00 [+]\n");
  activate (window, "call-view", g_variant_new_string ("module"));
  toggle_row (window, KUBUS_PANE_CALL, "app.c");
  assert_pane (window, KUBUS_PANE_CALL,
               "app.c 0.00 [-] *\n"
               "  main 2.00\n"
               "  foo 6.00\n"
               "MPI 6.00 [+]\n"
               "lib.c 2.00 [+]\n");
  activate (window, "call-view", g_variant_new_string ("tree"));
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  close_window (window, &ev);
}

static gboolean
is_search_label (GtkWidget *w,
                 gpointer   data)
{
  (void) data;
  return GTK_IS_LABEL (w) && g_str_has_suffix (gtk_label_get_text (GTK_LABEL (w)), "matches");
}

static gboolean
is_search_entry (GtkWidget *w,
                 gpointer   data)
{
  (void) data;
  return GTK_IS_SEARCH_ENTRY (w);
}

static gboolean
has_match_label (gpointer data)
{
  return find_widget (data, is_search_label, NULL) != NULL;
}

static void
test_find (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("find.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *entry, *label;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  activate (window, "find", NULL);
  entry = find_widget (GTK_WIDGET (window), is_search_entry, NULL);
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), "^mpi_s");
  /* The search entry reports changes after a short delay. */
  g_assert_true (spin_until (has_match_label, window, WAIT_MS));
  label = find_widget (GTK_WIDGET (window), is_search_label, NULL);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "2 matches");
  activate (window, "find-next", NULL);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00 *\n"
               "  bar 4.00 [+]\n");
  activate (window, "find-next", NULL);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00 *\n");
  close_window (window, &ev);
}

/* ---- legend, popovers, accelerators ------------------------------------------------------------ */

static gboolean
is_legend (GtkWidget *w,
           gpointer   data)
{
  (void) data;
  return KUBUS_IS_LEGEND (w);
}

/* The legend's labels (low end, high end, caption) joined by "|". */
static char *
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

static void
assert_legend (KubusWindow  *window,
               KubusPaneKind kind,
               const char   *expected)
{
  ShownCheck c = { window, kind, expected, NULL, legend_text };

  if (!spin_until (pane_part_shows, &c, WAIT_MS))
    g_assert_cmpstr (c.got, ==, expected);
  g_free (c.got);
}

static void
test_legend (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("legend.cube", 1.0);
  g_autoptr (GFile) a = report_file ("legend-a.cube", 1.0);
  g_autoptr (GFile) b = report_file ("legend-b.cube", 1.5);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_legend (window, KUBUS_PANE_CALL, "0|16.00|sec");
  activate (window, "mode", g_variant_new_string ("percent"));
  assert_legend (window, KUBUS_PANE_CALL, "0|100.00|% of total");
  close_window (window, &ev);

  /* A difference: a signed range, both ends labelled. */
  window = new_window (&ev);
  kubus_window_compare (window, a, b);
  wait_events (&ev, 1, 0);
  assert_legend (window, KUBUS_PANE_CALL, "−50.00|+50.00|% of total");
  close_window (window, &ev);
}

/* Several selected call paths add up in the system pane. */
static void
test_multiple_selection (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("multi.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *cv;
  GtkListItem *item;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  /* Ctrl+click on bar: add to the selection. */
  item = g_object_get_data (G_OBJECT (row_cell (window, KUBUS_PANE_CALL, "bar", 0)), "kubus-list-item");
  cv = kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_CALL));
  gtk_selection_model_select_item (gtk_list_view_get_model (GTK_LIST_VIEW (cv)),
                                   gtk_list_item_get_position (item), FALSE);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+] *\n"
               "  bar 4.00 [+] *\n");
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 14.00 [+]\n");
  close_window (window, &ev);
}

static void
test_sort (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("sort.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  activate (window, "expand-all", NULL);
  activate (window, "sort", g_variant_new_string ("name"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n");
  activate (window, "sort", g_variant_new_string ("value"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00\n");
  /* The sort belongs to the window: the metric pane is sorted too (Time 16 before Visits 36
   * by name; by value Visits first). */
  assert_pane (window, KUBUS_PANE_METRIC,
               "Visits 36\n"
               "Time 16 [+] *\n");
  activate (window, "sort", g_variant_new_string ("none"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00\n");
  close_window (window, &ev);
}

static gboolean
is_open_info (GtkWidget *w,
              gpointer   data)
{
  (void) data;
  return GTK_IS_POPOVER (w) && !GTK_IS_POPOVER_MENU (w) && gtk_widget_get_visible (w);
}

static gboolean
info_shown (gpointer data)
{
  return find_widget (data, is_open_info, NULL) != NULL;
}

static gboolean
is_label (GtkWidget *w,
          gpointer   data)
{
  (void) data;
  return GTK_IS_LABEL (w);
}

/* Info (Ctrl+I) on a call path: its path with file and line. */
static void
test_info (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("info.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *pane, *popover, *label;
  const char *text;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  activate (window, "info", NULL);
  pane = GTK_WIDGET (pane_view (window, KUBUS_PANE_CALL));
  g_assert_true (spin_until (info_shown, pane, WAIT_MS));
  popover = find_widget (pane, is_open_info, NULL);
  label = find_widget (popover, is_label, NULL);
  g_assert_nonnull (label);
  text = gtk_label_get_text (GTK_LABEL (label));
  if (strstr (text, "main") == NULL || strstr (text, "foo") == NULL || strstr (text, "app.c:12") == NULL)
    g_error ("info popover does not show the call path main › foo at app.c:12:\n%s", text);
  gtk_popover_popdown (GTK_POPOVER (popover));
  close_window (window, &ev);
}

/* Every command has an accelerator (issue #3: "every command is a GAction with an accelerator"). */
static void
test_accelerators (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  g_auto (GStrv) described = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  /* Not commands: a menu's target (Open Recent items) and the empty Recent placeholder.
   * About has no shortcut in GNOME applications (HIG) and none here. */
  const char *const exempt[] = { "app.open-uri", "win.no-recent", "app.about", NULL };
  struct { GActionGroup *group; const char *prefix; } groups[] = {
    { G_ACTION_GROUP (window), "win" },
    { G_ACTION_GROUP (app), "app" },
  };
  GString *missing = g_string_new (NULL);

  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    {
      g_auto (GStrv) names = g_action_group_list_actions (groups[g].group);

      for (guint i = 0; names[i] != NULL; i++)
        {
          g_autofree char *full = g_strdup_printf ("%s.%s", groups[g].prefix, names[i]);
          g_autofree char *detailed = g_strdup_printf ("%s::", full);
          g_autofree char *with_target = g_strdup_printf ("%s(", full);   /* app.compare(('', '')) */
          gboolean found = g_strv_contains (exempt, full);

          for (guint k = 0; !found && described[k] != NULL; k++)
            if (g_str_equal (described[k], full) || g_str_has_prefix (described[k], detailed)
                || g_str_has_prefix (described[k], with_target))
              {
                g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), described[k]);
                found = accels[0] != NULL;
              }
          if (!found)
            g_string_append_printf (missing, " %s", full);
        }
    }
  if (missing->len > 0)
    g_error ("commands without an accelerator:%s", missing->str);
  g_string_free (missing, TRUE);
  close_window (window, &ev);
}

/* The Topology command is on exactly for reports with a Cartesian topology. */
static void
test_topology_enabled (void)
{
  const char *shared = g_getenv ("KUBUS_SHARED_DATA");
  g_autofree char *path = shared != NULL
    ? g_build_filename (shared, "cube", "cubelib_test32_example_multitopo.cube", NULL) : NULL;
  g_autoptr (GFile) file = NULL;
  Events ev = { 0 };
  KubusWindow *window;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("needs KUBUS_SHARED_DATA/cube/cubelib_test32_example_multitopo.cube");
      return;
    }
  file = g_file_new_for_path (path);
  window = new_window (&ev);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "topology"));
  assert_pane (window, KUBUS_PANE_METRIC, "Time 6827.10 [+] *\n");
  close_window (window, &ev);
}

/* ---- bad reports -------------------------------------------------------------------------------- */

static GtkWidget *
error_dialog_of (KubusWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (GTK_IS_MESSAGE_DIALOG (w) && gtk_window_get_transient_for (GTK_WINDOW (w)) == GTK_WINDOW (window)
          && gtk_widget_get_visible (w))
        return w;
    }
  return NULL;
}

static gboolean
dialog_gone (gpointer data)
{
  return error_dialog_of (data) == NULL;
}

/* The dialog names the file and the problem; closing it leaves a working window. */
static void
check_error_dialog (KubusWindow *window,
                    const char  *basename,
                    const char  *problem)
{
  GtkWidget *dialog = error_dialog_of (window);
  g_autofree char *text = NULL, *secondary = NULL;

  g_assert_nonnull (dialog);
  g_object_get (dialog, "text", &text, "secondary-text", &secondary, NULL);
  if (strstr (text, basename) == NULL || strstr (secondary, problem) == NULL)
    g_error ("error dialog “%s” / “%s” does not name %s and “%s”", text, secondary, basename, problem);
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  g_assert_true (spin_until (dialog_gone, window, WAIT_MS));
}

static void
test_bad_report (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) bad = bad_file ("broken.cube", "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n<metrics>\n<oops");
  g_autoptr (GFile) missing = g_file_new_build_filename (tmpdir, "missing.cube", NULL);
  g_autoptr (GFile) good = report_file ("good.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, bad);
  wait_events (&ev, 0, 1);
  g_assert_nonnull (strstr (ev.message, "broken.cube"));
  check_error_dialog (window, "broken.cube", "broken.cube");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Kubus");
  g_assert_null (kubus_window_get_browser (window));

  /* The same window opens a good report afterwards … */
  kubus_window_open (window, good);
  wait_events (&ev, 1, 1);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");

  /* … and a failing open keeps the report shown. */
  kubus_window_open (window, missing);
  wait_events (&ev, 1, 2);
  g_assert_nonnull (strstr (ev.message, "missing.cube"));
  check_error_dialog (window, "missing.cube", "missing.cube");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "good.cube — Kubus");
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");

  /* A bad B of a comparison is named too. */
  kubus_window_compare (window, good, bad);
  wait_events (&ev, 1, 3);
  check_error_dialog (window, "good.cube", "broken.cube");
  close_window (window, &ev);
}

/* Reports named on the command line are read ahead (kubus_load_prefetch, from the
 * application's handle-local-options): they load like any other, a bad one is named in the
 * error dialog, and Cancel works on a read-ahead load and on an ordinary one alike, leaving the
 * report shown before (and the window) working. */
static void
test_prefetch_cancel (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) good = report_file ("pre-good.cube", 1.0);
  g_autoptr (GFile) other = report_file ("pre-other.cube", 2.0);
  g_autoptr (GFile) bad = bad_file ("pre-bad.cube", "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n<metrics><oops");
  g_autofree char *good_path = g_file_get_path (good);
  g_autofree char *other_path = g_file_get_path (other);
  g_autofree char *bad_path = g_file_get_path (bad);
  KubusWindow *window = new_window (&ev);

  kubus_load_prefetch (good_path);
  kubus_window_open (window, good);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");

  kubus_load_prefetch (bad_path);
  kubus_window_open (window, bad);
  wait_events (&ev, 1, 1);
  g_assert_nonnull (strstr (ev.message, "pre-bad.cube"));
  check_error_dialog (window, "pre-bad.cube", "pre-bad.cube");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "pre-good.cube — Kubus");

  /* Cancel while a read-ahead load runs: no error dialog, the shown report stays. */
  kubus_load_prefetch (other_path);
  kubus_window_open (window, other);
  g_assert_true (gtk_widget_get_sensitive (window->cancel_button));
  g_signal_emit_by_name (window->cancel_button, "clicked");
  wait_events (&ev, 1, 2);
  g_assert_nonnull (strstr (ev.message, "cancelled"));
  g_assert_null (error_dialog_of (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "pre-good.cube — Kubus");
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");

  /* The same with an ordinary load. */
  kubus_window_open (window, other);
  g_signal_emit_by_name (window->cancel_button, "clicked");
  wait_events (&ev, 1, 3);
  g_assert_nonnull (strstr (ev.message, "cancelled"));
  g_assert_null (error_dialog_of (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "pre-good.cube — Kubus");

  /* And the window still opens reports. */
  kubus_window_open (window, other);
  wait_events (&ev, 2, 3);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "pre-other.cube — Kubus");
  assert_pane (window, KUBUS_PANE_CALL, "main 32.00 [+] *\n");
  close_window (window, &ev);
}

typedef struct
{
  KubusWindow *window;
  const char  *uri;
  char        *label;
} RecentFind;

static gboolean
recent_listed (gpointer data)
{
  RecentFind *f = data;
  GMenuModel *section = G_MENU_MODEL (f->window->recent_section);

  for (int i = 0; i < g_menu_model_get_n_items (section); i++)
    {
      g_autoptr (GVariant) target = g_menu_model_get_item_attribute_value (section, i, G_MENU_ATTRIBUTE_TARGET,
                                                                          G_VARIANT_TYPE_STRING);
      g_autofree char *action = NULL;

      if (target == NULL || !g_str_equal (g_variant_get_string (target, NULL), f->uri)
          || !g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action)
          || !g_str_equal (action, "app.open-uri"))
        continue;
      g_free (f->label);
      g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_LABEL, "s", &f->label);
      return TRUE;
    }
  return FALSE;
}

typedef struct
{
  const char  *title;
  KubusWindow *other_than;
  KubusWindow *found;
} TitleFind;

static gboolean
window_titled (gpointer data)
{
  TitleFind *f = data;

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (KUBUS_IS_WINDOW (l->data) && l->data != f->other_than && kubus_window_get_browser (l->data) != NULL
        && g_strcmp0 (gtk_window_get_title (l->data), f->title) == 0)
      {
        f->found = l->data;
        return TRUE;
      }
  return FALSE;
}

/* An opened report is listed under File › Open Recent (underscores doubled: they are menu
 * mnemonics), and the item opens it again, in a new window since this one shows a report. */
static void
test_recent (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("recent_run.cube", 1.0);
  g_autofree char *uri = g_file_get_uri (file);
  RecentFind rf = { NULL, uri, NULL };
  TitleFind tf = { "recent_run.cube — Kubus", NULL, NULL };
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  rf.window = window;
  if (!spin_until (recent_listed, &rf, WAIT_MS))
    g_error ("%s is not in the Open Recent menu", uri);
  g_assert_cmpstr (rf.label, ==, "recent__run.cube");
  g_free (rf.label);

  tf.other_than = window;
  g_action_group_activate_action (G_ACTION_GROUP (app), "open-uri", g_variant_new_string (uri));
  g_assert_true (spin_until (window_titled, &tf, WAIT_MS));
  gtk_window_destroy (GTK_WINDOW (tf.found));
  close_window (window, &ev);
}

static GtkDropTarget *
drop_target_of (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_DROP_TARGET (c))
        return GTK_DROP_TARGET (c);
    }
  return NULL;
}

static gboolean
drop_files (KubusWindow *window,
            GFile      **files,
            guint        n)
{
  GtkDropTarget *target = drop_target_of (GTK_WIDGET (window));
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;

  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_array (files, n));
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);
  return handled;
}

/* Dropping a report on an empty window opens it there; dropping one on a window that shows a
 * report opens a new window. */
static void
test_drop (void)
{
  Events ev = { 0 };
  GFile *files[1];
  g_autoptr (GFile) first = report_file ("drop_a.cube", 1.0);
  g_autoptr (GFile) second = report_file ("drop_b.cube", 2.0);
  TitleFind tf = { "drop_b.cube — Kubus", NULL, NULL };
  KubusWindow *window = new_window (&ev);

  files[0] = first;
  g_assert_true (drop_files (window, files, 1));
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "drop_a.cube — Kubus");

  files[0] = second;
  tf.other_than = window;
  g_assert_true (drop_files (window, files, 1));
  g_assert_true (spin_until (window_titled, &tf, WAIT_MS));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "drop_a.cube — Kubus");
  gtk_window_destroy (GTK_WINDOW (tf.found));
  close_window (window, &ev);
}

static char *
clipboard_text (KubusWindow *window)
{
  GdkContentProvider *content = gdk_clipboard_get_content (gtk_widget_get_clipboard (GTK_WIDGET (window)));
  GValue value = G_VALUE_INIT;
  g_autoptr (GError) error = NULL;
  char *text;

  g_assert_nonnull (content);
  g_value_init (&value, G_TYPE_STRING);
  if (!gdk_content_provider_get_value (content, &value, &error))
    g_error ("clipboard: %s", error->message);
  text = g_value_dup_string (&value);
  g_value_unset (&value);
  return text;
}

/* Copy value and name of the selected row of the active pane (the call pane by default), hide
 * zero rows (selected rows stay) and show them again. */
static void
test_copy_hide_zero (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("copy.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  g_autofree char *value = NULL, *name = NULL;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  activate (window, "copy-value", NULL);
  value = clipboard_text (window);
  g_assert_cmpstr (value, ==, "16");
  activate (window, "copy-name", NULL);
  name = clipboard_text (window);
  g_assert_cmpstr (name, ==, "main");

  /* MPI at bar's MPI_Send: rank 0 spent nothing there. */
  toggle_row (window, KUBUS_PANE_METRIC, "Time");
  select_row (window, KUBUS_PANE_METRIC, "MPI", 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  toggle_row (window, KUBUS_PANE_CALL, "bar");
  select_row (window, KUBUS_PANE_CALL, "MPI_Send", 0);
  toggle_row (window, KUBUS_PANE_SYSTEM, "M");
  toggle_row (window, KUBUS_PANE_SYSTEM, "N");
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 0.00 [+]\n"
               "    rank 1 2.00 [+]\n");
  activate (window, "hide-zero", NULL);
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 1 2.00 [+]\n");
  activate (window, "hide-zero", NULL);
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 0.00 [+]\n"
               "    rank 1 2.00 [+]\n");
  close_window (window, &ev);
}

static gboolean
press_key (KubusWindow  *window,
           KubusPaneKind kind,
           guint         keyval)
{
  GtkWidget *list = kubus_pane_view_get_list_view (pane_view (window, kind));
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (list);
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_KEY (c))
        {
          g_signal_emit_by_name (c, "key-pressed", keyval, 0, (GdkModifierType) 0, &handled);
          return handled;
        }
    }
  g_error ("the pane's list view has no key controller");
  return FALSE;
}

/* Right / Left expand and collapse the selected row; Left on a collapsed row goes to its
 * parent; * expands the subtree. */
static void
test_keyboard_expand (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("keys.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  g_assert_true (press_key (window, KUBUS_PANE_CALL, GDK_KEY_Right));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");
  select_row (window, KUBUS_PANE_CALL, "bar", 0);
  g_assert_true (press_key (window, KUBUS_PANE_CALL, GDK_KEY_asterisk));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 2.00 [-] *\n"
               "    MPI_Send 2.00\n");
  select_row (window, KUBUS_PANE_CALL, "MPI_Send", 0);
  /* A leaf: Right does nothing (and leaves the key to others), Left goes to the parent. */
  g_assert_false (press_key (window, KUBUS_PANE_CALL, GDK_KEY_Right));
  g_assert_true (press_key (window, KUBUS_PANE_CALL, GDK_KEY_Left));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 2.00 [-] *\n"
               "    MPI_Send 2.00\n");
  g_assert_true (press_key (window, KUBUS_PANE_CALL, GDK_KEY_minus));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+] *\n");
  close_window (window, &ev);
}

static gboolean
shortcuts_window_shown (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (GTK_IS_SHORTCUTS_WINDOW (w) && gtk_widget_get_visible (w))
        {
          *(GtkWidget **) data = w;
          return TRUE;
        }
    }
  return FALSE;
}

/* Ctrl+? shows the shortcuts window: gtk/help-overlay.ui parses and lays out without
 * warnings (they are fatal here; style.css works around GTK 4.8's theme, whose page switcher
 * labels measured -4 px). */
static void
test_shortcuts_window (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  GtkWidget *shortcuts = NULL;
  g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.show-help-overlay");

  g_assert_nonnull (accels);
  g_assert_cmpstr (accels[0], ==, "<Control>question");
  activate (window, "show-help-overlay", NULL);
  g_assert_true (spin_until (shortcuts_window_shown, &shortcuts, WAIT_MS));
  spin (100);
  gtk_window_close (GTK_WINDOW (shortcuts));
  spin (50);
  close_window (window, &ev);
}

static gboolean
file_chooser_shown (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (GTK_IS_FILE_CHOOSER_DIALOG (w) && gtk_widget_get_visible (w))
        {
          *(GtkWidget **) data = w;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
file_chooser_gone (gpointer data)
{
  GtkWidget *w = NULL;

  (void) data;
  return !file_chooser_shown (&w);
}

/* File › Open (Ctrl+O) offers CUBE reports by name and MIME type, and all files; Cancel
 * leaves everything as it was. (Without a portal, as here, GtkFileChooserNative shows GTK's
 * own dialog.) */
static void
test_open_dialog_filters (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  GtkWidget *dialog = NULL;
  g_autoptr (GListModel) filters = NULL;
  g_autoptr (GtkFileFilter) reports = NULL, all = NULL;
  g_autoptr (GVariant) spec = NULL;
  g_autofree char *text = NULL;

  g_action_group_activate_action (G_ACTION_GROUP (app), "open", NULL);
  g_assert_true (spin_until (file_chooser_shown, &dialog, WAIT_MS));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Open Report");
  filters = gtk_file_chooser_get_filters (GTK_FILE_CHOOSER (dialog));
  g_assert_cmpuint (g_list_model_get_n_items (filters), ==, 2);
  reports = g_list_model_get_item (filters, 0);
  all = g_list_model_get_item (filters, 1);
  g_assert_cmpstr (gtk_file_filter_get_name (reports), ==, "CUBE reports (.cube, .cube.gz, .cubex)");
  g_assert_cmpstr (gtk_file_filter_get_name (all), ==, "All files");
  spec = g_variant_ref_sink (gtk_file_filter_to_gvariant (reports));
  text = g_variant_print (spec, FALSE);
  g_assert_cmpstr (text, ==, "('CUBE reports (.cube, .cube.gz, .cubex)', [(0, '*.cube'), (0, '*.cube.gz'), "
                             "(0, '*.cubex'), (1, 'application/x-cube'), (1, 'application/x-cube-compressed'), "
                             "(1, 'application/x-cubex')])");
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_assert_true (spin_until (file_chooser_gone, NULL, WAIT_MS));
  g_assert_null (kubus_window_get_browser (window));
  g_assert_cmpuint (ev.loaded + ev.failed, ==, 0);
  close_window (window, &ev);
}

/* Rewriting the shown file reloads it, keeping the selected metric. */
static void
test_reload (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("reload.cube", 1.0);
  g_autoptr (GFile) again = NULL;
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  select_row (window, KUBUS_PANE_METRIC, "Visits", 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 36 [+] *\n");
  again = report_file ("reload.cube", 2.0);   /* written atomically: temp file + rename */
  wait_events (&ev, 2, 0);
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 32 [+]\n"
               "Visits 36 *\n");
  activate (window, "reload", NULL);
  wait_events (&ev, 3, 0);
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 32 [+]\n"
               "Visits 36 *\n");
  close_window (window, &ev);
}

/* Removes @path and, for a folder, everything below it (the test's reports and the XDG data
 * folder GTK's recent files went to). */
static void
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
main (int   argc,
      char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autofree char *data_home = NULL;
  int status;

  if (g_getenv ("DISPLAY") == NULL || g_getenv ("DISPLAY")[0] == '\0')
    {
      g_print ("1..0 # SKIP no display (run under tests/gui/xvfb-wrap.sh)\n");
      return 77;
    }
  tmpdir = g_dir_make_tmp ("kubus-gui-widgets-XXXXXX", &error);
  g_assert_no_error (error);
  /* Keep the tester's recent files and settings out of it. */
  data_home = g_build_filename (tmpdir, "data-home", NULL);
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);

  gtk_test_init (&argc, &argv, NULL);
  app = kubus_application_new ();
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("cannot register the application: %s", error->message);
  /* The application's windows keep it alive; the test holds it like a running main loop. */
  g_application_hold (G_APPLICATION (app));

  g_test_add_func ("/gui/widgets/open", test_open);
  g_test_add_func ("/gui/widgets/select-expand", test_select_expand);
  g_test_add_func ("/gui/widgets/modes", test_modes);
  g_test_add_func ("/gui/widgets/external", test_external);
  g_test_add_func ("/gui/widgets/compare", test_compare);
  g_test_add_func ("/gui/widgets/call-views", test_call_views);
  g_test_add_func ("/gui/widgets/find", test_find);
  g_test_add_func ("/gui/widgets/bad-report", test_bad_report);
  g_test_add_func ("/gui/widgets/reload", test_reload);
  g_test_add_func ("/gui/widgets/legend", test_legend);
  g_test_add_func ("/gui/widgets/multiple-selection", test_multiple_selection);
  g_test_add_func ("/gui/widgets/sort", test_sort);
  g_test_add_func ("/gui/widgets/info", test_info);
  g_test_add_func ("/gui/widgets/accelerators", test_accelerators);
  g_test_add_func ("/gui/widgets/topology-enabled", test_topology_enabled);
  g_test_add_func ("/gui/widgets/prefetch-cancel", test_prefetch_cancel);
  g_test_add_func ("/gui/widgets/recent", test_recent);
  g_test_add_func ("/gui/widgets/drop", test_drop);
  g_test_add_func ("/gui/widgets/copy-hide-zero", test_copy_hide_zero);
  g_test_add_func ("/gui/widgets/keyboard-expand", test_keyboard_expand);
  g_test_add_func ("/gui/widgets/shortcuts-window", test_shortcuts_window);
  g_test_add_func ("/gui/widgets/open-dialog-filters", test_open_dialog_filters);
  status = g_test_run ();

  g_application_release (G_APPLICATION (app));
  g_clear_object (&app);
  remove_tree (tmpdir);
  g_free (tmpdir);
  return status;
}
