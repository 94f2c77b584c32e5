/* test-gui-browser.c — issue 16 on a display (Xvfb): the browser defects a new user hit and the
 * CubeGUI extras (source view, statistics, export). Each test drives the real widgets the way a
 * user does (tests/gui/gui-test-ui.h) and would have caught its defect.
 * Run under tests/gui/xvfb-wrap.sh; exits 77 without a display. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <gdk/x11/gdkx.h>

#include "gui-test-report.h"
#include "gui-test-ui.h"
#include "kubus-source-view.h"
#include "kubus-statistics.h"
#include "kubus-row-cell.h"

/* ---- 1. expanders next to the pane divider ----------------------------------------------------- */

static gboolean
has_size (gpointer data)
{
  return gtk_widget_get_width (data) > 0 && gtk_widget_get_height (data) > 0;
}

/* The expander arrow of the row cell @cell (the GtkTreeExpander's "expander" child). */
static GtkWidget *
arrow_of (GtkWidget *cell)
{
  GtkWidget *expander = gtk_widget_get_parent (cell);
  GtkWidget *arrow;

  g_assert_true (GTK_IS_TREE_EXPANDER (expander));
  for (arrow = gtk_widget_get_first_child (expander); arrow != NULL; arrow = gtk_widget_get_next_sibling (arrow))
    if (g_str_equal (gtk_widget_get_css_name (arrow), "expander"))
      break;
  g_assert_nonnull (arrow);
  g_assert_true (spin_until (has_size, arrow, WAIT_MS));
  return arrow;
}

/* Clicks (@n times, button 1) at the centre of @widget with real X events (xdotool), as a user's
 * mouse does: the press goes through GTK's whole event path, the paned's drag gesture included.
 * FALSE if xdotool is not installed. */
static gboolean
xdotool_click (GtkWidget *widget,
               guint      n)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GdkSurface *surface = gtk_native_get_surface (native);
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  g_autofree char *xid = NULL, *x = NULL, *y = NULL, *repeat = NULL;
  g_autoptr (GError) error = NULL;
  graphene_point_t p;
  double sx, sy;
  int status;

  if (xdotool == NULL)
    return FALSE;
  /* xdotool sleeps 60 ms between the clicks of a double click, but on a busy machine it may be
   * scheduled so late that the X server stamps them further apart than GTK's 400 ms: allow 5 s
   * (the only repeated clicks of these tests are on one spot) */
  if (n > 1)
    g_object_set (gtk_widget_get_settings (widget), "gtk-double-click-time", 5000, NULL);
  g_assert_true (GDK_IS_X11_SURFACE (surface));
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native),
                                           &GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0,
                                                                 gtk_widget_get_height (widget) / 2.0),
                                           &p));
  gtk_native_get_surface_transform (native, &sx, &sy);
  xid = g_strdup_printf ("%lu", (unsigned long) gdk_x11_surface_get_xid (surface));
  x = g_strdup_printf ("%d", (int) (p.x + sx));
  y = g_strdup_printf ("%d", (int) (p.y + sy));
  repeat = g_strdup_printf ("%u", n);
  {
    const char *argv[] = { xdotool, "mousemove", "--sync", "--window", xid, x, y,
                           "click", "--repeat", repeat, "--delay", "60", "1", NULL };
    /* …and then away, to a corner no window covers: a pointer resting on a row makes its
     * tooltip, which later tests' short-lived windows do not need. */
    const char *away[] = { xdotool, "mousemove", "--sync", "1919", "1199", NULL };

    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error)
        || !g_spawn_check_wait_status (status, &error))
      g_error ("xdotool: %s", error->message);
    spin (150);   /* the clicks arrive */
    if (!g_spawn_sync (NULL, (char **) away, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error)
        || !g_spawn_check_wait_status (status, &error))
      g_error ("xdotool: %s", error->message);
  }
  return TRUE;
}

/* A click on the expander of a pane's top row opens it. Before, the divider's grab area (the
 * theme's 8 px overhang of a thin GtkPaned handle) covered it: the press moved the divider. */
static void
test_expander_clickable (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("expander.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  if (!xdotool_click (arrow_of (row_cell (window, KUBUS_PANE_CALL, "main", 0)), 1))
    {
      close_window (window, &ev);
      g_test_skip ("xdotool is not installed (scripts/deps)");
      return;
    }
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");
  xdotool_click (arrow_of (row_cell (window, KUBUS_PANE_SYSTEM, "M", 0)), 1);
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 2.00 [+]\n");
  /* A double click on a row's name opens it too. */
  {
    GtkWidget *cell = row_cell (window, KUBUS_PANE_CALL, "foo", 0);
    GtkWidget *name = gtk_widget_get_last_child (cell);

    xdotool_click (name, 2);
    assert_pane (window, KUBUS_PANE_CALL,
                 "main 2.00 [-]\n"
                 "  foo 6.00 [-] *\n"
                 "    MPI_Send 4.00\n"
                 "  bar 4.00 [+]\n");
  }
  close_window (window, &ev);
}

/* A double click on a row (GtkListView::activate) opens it, another closes it. */
static void
test_double_click (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("double.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *list = kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_CALL));

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  g_signal_emit_by_name (list, "activate", 0u);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");
  g_signal_emit_by_name (list, "activate", 0u);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  close_window (window, &ev);
}

/* ---- 4. Collapse All keeps the selection ------------------------------------------------------- */

static void
test_collapse_keeps_selection (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("collapse.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  /* System pane: expand all, select rank 1, Collapse All: M is selected, not nothing. */
  gtk_widget_grab_focus (kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_SYSTEM)));
  activate (window, "expand-all", NULL);
  select_row (window, KUBUS_PANE_SYSTEM, "rank 1", 0);
  activate (window, "collapse-all", NULL);
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 16.00 [+] *\n");
  /* Children come back collapsed. */
  toggle_row (window, KUBUS_PANE_SYSTEM, "M");
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-] *\n"
               "  N 16.00 [+]\n");

  /* Call pane: a click on the expander of foo hides the selected foo/MPI_Send: foo is selected
   * and the system pane shows foo's values, not the whole program's. */
  toggle_row (window, KUBUS_PANE_CALL, "main");
  toggle_row (window, KUBUS_PANE_CALL, "foo");
  select_row (window, KUBUS_PANE_CALL, "MPI_Send", 0);
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-] *\n"
               "  N 4.00 [+]\n");
  toggle_row (window, KUBUS_PANE_CALL, "foo");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+] *\n"
               "  bar 4.00 [+]\n");
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-] *\n"
               "  N 10.00 [+]\n");
  close_window (window, &ev);
}

/* ---- 6. comparing ------------------------------------------------------------------------------ */

/* A report of another program: the same metrics and system, other call paths. */
static GFile *
other_program_file (const char *name)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (CubeReport) r = cube_report_new ();
  g_autoptr (GError) error = NULL;
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeCnode *root = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "solver", "s.f", 1, 9), -1, NULL);
  CubeSysNode *m = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  CubeSysNode *n = cube_report_add_sysnode (r, m, CUBE_SYS_NODE, "N", -1);

  for (int l = 0; l < 2; l++)
    {
      g_autofree char *rank = g_strdup_printf ("rank %d", l);
      cube_report_add_sysnode (r, cube_report_add_sysnode (r, n, CUBE_SYS_PROCESS, rank, l),
                               CUBE_SYS_THREAD, "thread", 0);
      cube_report_set_value (r, time, root, l, 5.0);
    }
  g_assert_true (cube_report_write (r, path, &error));
  return g_file_new_for_path (path);
}

static gboolean
is_info_bar (GtkWidget *w,
             gpointer   data)
{
  (void) data;
  return GTK_IS_INFO_BAR (w);
}

static const char *
compare_bar_text (KubusWindow *window,
                  GtkMessageType *type)
{
  GtkWidget *bar = find_widget (GTK_WIDGET (window), is_info_bar, NULL);
  GtkWidget *label;

  g_assert_nonnull (bar);
  if (!gtk_widget_get_visible (bar))
    return NULL;
  *type = gtk_info_bar_get_message_type (GTK_INFO_BAR (bar));
  label = window->compare_label;
  return gtk_label_get_text (GTK_LABEL (label));
}

/* Defect 6: the window says which report is A and which B, that values are A − B, warns when
 * the reports share no call path, and the call and system panes share one colour scale. */
static void
test_compare_explained (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) a = report_file ("cmp-a.cube", 1.0);
  g_autoptr (GFile) b = report_file ("cmp-b.cube", 1.5);
  g_autoptr (GFile) other = other_program_file ("other.cube");
  g_autofree char *path_a = g_file_get_parse_name (a), *path_b = g_file_get_parse_name (b);
  KubusWindow *window = new_window (&ev);
  GtkMessageType type = GTK_MESSAGE_OTHER;
  const char *text;

  kubus_window_compare (window, a, b);
  wait_events (&ev, 1, 0);
  text = compare_bar_text (window, &type);
  g_assert_nonnull (text);
  g_assert_cmpint (type, ==, GTK_MESSAGE_INFO);
  g_assert_nonnull (strstr (text, "A − B"));
  g_assert_nonnull (strstr (text, path_a));
  g_assert_nonnull (strstr (text, path_b));
  g_assert_null (strstr (text, "in common"));
  /* One scale: the system pane's legend is the call pane's, not its own smaller range. */
  activate (window, "mode", g_variant_new_string ("absolute"));
  gtk_widget_grab_focus (kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_SYSTEM)));
  activate (window, "mode", g_variant_new_string ("absolute"));
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "bar", 0);
  assert_pane (window, KUBUS_PANE_SYSTEM, "M -2.00 [+] neg\n");
  assert_legend (window, KUBUS_PANE_CALL, "−8.00|+8.00|sec");
  assert_legend (window, KUBUS_PANE_SYSTEM, "−8.00|+8.00|sec");
  close_window (window, &ev);

  window = new_window (&ev);
  kubus_window_compare (window, a, other);
  wait_events (&ev, 2, 0);   /* the counts go on across windows */
  text = compare_bar_text (window, &type);
  g_assert_nonnull (text);
  g_assert_cmpint (type, ==, GTK_MESSAGE_WARNING);
  g_assert_nonnull (strstr (text, "no call path in common"));
  close_window (window, &ev);

  /* A plain report: no bar. */
  window = new_window (&ev);
  kubus_window_open (window, a);
  wait_events (&ev, 3, 0);
  g_assert_null (compare_bar_text (window, &type));
  close_window (window, &ev);
}

/* ---- 7. which pane the menu acts on ------------------------------------------------------------------ */

static char *
mode_state (KubusWindow *window)
{
  g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window), "mode");

  return g_variant_dup_string (state, NULL);
}

static char *
active_panes (KubusWindow *window)
{
  GString *s = g_string_new (NULL);

  for (KubusPaneKind k = 0; k < KUBUS_N_PANES; k++)
    if (gtk_widget_has_css_class (GTK_WIDGET (pane_view (window, k)), "kubus-active"))
      g_string_append_printf (s, "%s%d", s->len > 0 ? "," : "", k);
  return g_string_free (s, FALSE);
}

static char *
dropdown_items (KubusWindow  *window,
                KubusPaneKind kind)
{
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (pane_view (window, kind)));
  GtkWidget *dropdown = NULL;
  GListModel *items;
  GString *s = g_string_new (NULL);

  find_widget (header, is_drop_down, &dropdown);
  items = gtk_drop_down_get_model (GTK_DROP_DOWN (dropdown));
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    g_string_append_printf (s, "%s%s", i > 0 ? "|" : "",
                            gtk_string_list_get_string (GTK_STRING_LIST (items), i));
  return g_string_free (s, FALSE);
}

static gboolean
chooser_shown (gpointer data)
{
  return (*(GtkWidget **) data = shown_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG)) != NULL;
}

/* Defect 7: the active pane is marked, the menu's mode radio follows the active pane (also
 * when its drop-down changed the mode), a mode the active pane lacks moves the mark to the
 * pane that got it, and External percent without an external report asks for one. */
static void
test_active_pane (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("active.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL, *f = NULL, *items = NULL;
  GtkWidget *chooser = NULL;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_assert_cmpstr ((a = active_panes (window)), ==, "1");
  gtk_widget_grab_focus (kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_SYSTEM)));
  g_assert_cmpstr ((b = active_panes (window)), ==, "2");
  choose_mode (window, KUBUS_PANE_SYSTEM, "Percent of selection");
  g_assert_cmpstr ((c = mode_state (window)), ==, "percent-of-selection");
  /* Back in the call pane, still absolute there: the radio follows. */
  gtk_widget_grab_focus (kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_CALL)));
  g_assert_cmpstr ((d = mode_state (window)), ==, "absolute");
  /* Peer percent from the menu while the call pane is active: the system pane gets it and
   * is marked. */
  activate (window, "mode", g_variant_new_string ("peer-percent"));
  g_assert_cmpstr ((e = active_panes (window)), ==, "2");
  g_assert_cmpstr ((f = mode_state (window)), ==, "peer-percent");

  /* No external report: the drop-downs offer "External percent…", which asks for one. */
  items = dropdown_items (window, KUBUS_PANE_METRIC);
  g_assert_cmpstr (items, ==, "Absolute|Percent of total|External percent…");
  activate (window, "mode", g_variant_new_string ("external-percent"));
  g_assert_true (spin_until (chooser_shown, &chooser, WAIT_MS));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (chooser)), ==, "Open External Report");
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  spin (50);
  g_assert_cmpint (kubus_pane_model_get_mode (kubus_pane_view_get_model (pane_view (window, KUBUS_PANE_METRIC))),
                   ==, KUBUS_MODE_ABSOLUTE);
  close_window (window, &ev);
}

/* ---- 8. windows, recent files, remembered sizes ----------------------------------------------- */

static guint
n_windows (void)
{
  return g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
}

static gboolean
is_message_dialog (gpointer data)
{
  return (*(GtkWidget **) data = shown_toplevel (GTK_TYPE_MESSAGE_DIALOG)) != NULL;
}

static gboolean
windows_are (gpointer data)
{
  return n_windows () == GPOINTER_TO_UINT (data);
}

/* Defect 8: a window opened for a report that fails goes away with the message when another
 * window remains; the window size and pane widths of the last window closed come back. */
static void
test_windows_and_sizes (void)
{
  Events ev = { 0 }, ev2 = { 0 };
  g_autoptr (GFile) good = report_file ("sizes.cube", 1.0);
  g_autoptr (GFile) bad = bad_file ("broken.cube", "<?xml version=\"1.0\"?>\n<cube version=\"3.0\"><metrics>");
  KubusWindow *window = new_window (&ev), *second;
  GtkWidget *dialog = NULL;
  int width, height;

  kubus_window_open (window, good);
  wait_events (&ev, 1, 0);
  second = new_window (&ev2);
  g_assert_cmpuint (n_windows (), ==, 2);
  kubus_window_open (second, bad);
  wait_events (&ev2, 0, 1);
  g_assert_true (spin_until (is_message_dialog, &dialog, WAIT_MS));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  g_assert_true (spin_until (windows_are, GUINT_TO_POINTER (1), WAIT_MS));

  /* Size and pane widths: this window's, remembered when it closes. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 650);
  spin (200);
  gtk_paned_set_position (GTK_PANED (window->outer_paned), 333);
  spin (100);   /* the inner paned takes its new width */
  gtk_paned_set_position (GTK_PANED (window->inner_paned), 444);
  spin (100);
  g_signal_handlers_disconnect_by_data (window, &ev);
  gtk_window_close (GTK_WINDOW (window));
  spin (50);
  window = KUBUS_WINDOW (kubus_window_new (GTK_APPLICATION (app)));
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 1100);
  g_assert_cmpint (height, ==, 650);
  g_assert_cmpint (gtk_paned_get_position (GTK_PANED (window->outer_paned)), ==, 333);
  g_assert_cmpint (gtk_paned_get_position (GTK_PANED (window->inner_paned)), ==, 444);
  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
  g_free (ev.message);
  g_free (ev2.message);
}

/* ---- 9. keyboard --------------------------------------------------------------------------------- */

static gboolean
send_key (GtkWidget      *widget,
          guint           keyval,
          GdkModifierType state)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && !handled; i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_KEY (c))
        g_signal_emit_by_name (c, "key-pressed", keyval, 0, state, &handled);
    }
  return handled;
}

/* The focus is on the call tree's row 2 (its selected row, "bar"). */
static gboolean
focus_on_row_2 (gpointer data)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (data));
  GtkWidget *cell = NULL;

  for (GtkWidget *w = focus != NULL ? gtk_widget_get_first_child (focus) : NULL; w != NULL && cell == NULL;
       w = gtk_widget_get_first_child (w))
    if (GTK_IS_TREE_EXPANDER (w))
      cell = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (w));
  return cell != NULL && gtk_list_item_get_position (g_object_get_data (G_OBJECT (cell), "kubus-list-item")) == 2;
}

/* Tab as GTK handles it: the list view's own controller first (it may take the key), else
 * the window's focus chain. */
static void
press_tab (KubusWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *list = focus;

  while (list != NULL && !GTK_IS_LIST_VIEW (list))
    list = gtk_widget_get_parent (list);
  if (list == NULL || !send_key (list, GDK_KEY_Tab, 0))
    gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD);
}

/* Defect 9: Tab visits each tree once, on a visible row (the selected one); F6 moves to the
 * next tree; Escape in a tree closes the find bar; the find button is off without a report. */
static void
test_keyboard (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("keys.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *list_call = kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_CALL));
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  guint lists = 0, stops = 0;

  g_assert_false (gtk_widget_get_sensitive (window->find_button));
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_assert_true (gtk_widget_get_sensitive (window->find_button));
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "bar", 0);
  spin (100);
  gtk_widget_grab_focus (window->find_button);
  /* Around the window once: every stop shown, each tree once, on its selected row. */
  for (guint i = 0; i < 30; i++)
    {
      GtkWidget *focus, *list;
      graphene_rect_t b;

      press_tab (window);
      spin (20);
      focus = gtk_root_get_focus (GTK_ROOT (window));
      g_assert_nonnull (focus);
      if (focus == window->find_button)
        break;
      stops++;
      g_assert_true (gtk_widget_get_mapped (focus));
      g_assert_true (gtk_widget_compute_bounds (focus, GTK_WIDGET (window), &b));
      g_assert_cmpfloat (b.size.width, >, 4);
      g_assert_cmpfloat (b.size.height, >, 4);
      for (list = focus; list != NULL && !GTK_IS_LIST_VIEW (list); list = gtk_widget_get_parent (list))
        ;
      if (list != NULL)
        {
          g_assert_false (g_hash_table_contains (seen, list));
          g_hash_table_add (seen, list);
          lists++;
          if (list == list_call && !spin_until (focus_on_row_2, window, WAIT_MS))
            g_error ("Tab into the call tree does not land on its selected row");
        }
    }
  g_assert_cmpuint (lists, ==, 3);
  /* Open, menu, then per pane its drop-downs and its tree: 2 + 2 + 3 + 2, and the system
   * pane's notebook tab (system tree and topologies). */
  g_assert_cmpuint (stops, ==, 10);

  /* F6: the next tree has the keyboard and is the active pane. */
  kubus_window_set_active_pane (window, KUBUS_PANE_CALL, TRUE);
  activate (window, "next-pane", NULL);
  g_assert_cmpint (window->active_pane, ==, KUBUS_PANE_SYSTEM);
  g_assert_true (gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (window)),
                                         kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_SYSTEM)))
                 || gtk_root_get_focus (GTK_ROOT (window)) == kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_SYSTEM)));
  activate (window, "previous-pane", NULL);
  g_assert_cmpint (window->active_pane, ==, KUBUS_PANE_CALL);
  {
    g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.next-pane");
    g_assert_cmpstr (accels[0], ==, "F6");
  }

  /* Escape with the focus in a tree closes the find bar. */
  activate (window, "find", NULL);
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (window->search_bar)));
  gtk_widget_grab_focus (list_call);
  g_assert_true (send_key (GTK_WIDGET (window), GDK_KEY_Escape, 0));
  g_assert_false (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (window->search_bar)));
  close_window (window, &ev);
}

static gboolean
preferences_shown (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  *(GtkWidget **) data = NULL;
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (GTK_IS_WINDOW (w) && g_strcmp0 (gtk_window_get_title (GTK_WINDOW (w)), "Preferences") == 0
          && gtk_widget_get_visible (w))
        *(GtkWidget **) data = w;
    }
  return *(GtkWidget **) data != NULL;
}

static gboolean
preferences_gone (gpointer data)
{
  GtkWidget *w;

  (void) data;
  return !preferences_shown (&w);
}

static GtkWidget *
open_preferences (KubusWindow *window)
{
  GtkWidget *prefs = NULL;

  gtk_window_present (GTK_WINDOW (window));
  g_action_group_activate_action (G_ACTION_GROUP (app), "preferences", NULL);
  g_assert_true (spin_until (preferences_shown, &prefs, WAIT_MS));
  return prefs;
}

/* Preferences close with Escape and with Ctrl+W (real key presses), and keep their width
 * whatever the drop-downs show. */
static void
test_preferences_keys (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  GtkWidget *prefs = open_preferences (window);
  g_autoptr (GSettings) settings = g_settings_new ("org.kubus.Kubus");
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  int width;

  g_assert_true (spin_until (has_size, prefs, WAIT_MS));
  spin (100);
  width = gtk_widget_get_width (prefs);
  for (const char *const *f = (const char *const[]) { "scientific", "common-exponent", "readable", NULL }; *f; f++)
    {
      g_settings_set_string (settings, "number-format", *f);
      g_settings_set_string (settings, "color-scale", g_str_equal (*f, "scientific") ? "gray" : "rainbow");
      spin (100);
      g_assert_cmpint (gtk_widget_get_width (prefs), ==, width);
    }
  if (xdotool == NULL)
    {
      gtk_window_destroy (GTK_WINDOW (prefs));
      close_window (window, &ev);
      g_test_skip ("xdotool is not installed (scripts/deps)");
      return;
    }
  for (const char *const *key = (const char *const[]) { "Escape", "ctrl+w", NULL }; *key; key++)
    {
      GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (prefs));
      g_autofree char *xid = g_strdup_printf ("%lu", (unsigned long) gdk_x11_surface_get_xid (surface));
      const char *argv[] = { xdotool, "windowfocus", "--sync", xid, "key", "--clearmodifiers", *key, NULL };
      int status;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                                   &status, NULL));
      if (!spin_until (preferences_gone, NULL, WAIT_MS))
        g_error ("%s did not close the preferences", *key);
      if (key[1] != NULL)
        prefs = open_preferences (window);
    }
  close_window (window, &ev);
}

/* ---- 10. visual ------------------------------------------------------------------------------------ */

/* Twelve processes "Process 0" … "Process 11" under one node, and a call tree 40 levels deep. */
static GFile *
naming_file (const char *name)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (CubeReport) r = cube_report_new ();
  g_autoptr (GError) error = NULL;
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeSysNode *m = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  CubeSysNode *n = cube_report_add_sysnode (r, m, CUBE_SYS_NODE, "N", -1);
  CubeCnode *c = NULL;

  for (int l = 0; l < 12; l++)
    {
      g_autofree char *proc = g_strdup_printf ("Process %d", l);
      cube_report_add_sysnode (r, cube_report_add_sysnode (r, n, CUBE_SYS_PROCESS, proc, l), CUBE_SYS_THREAD, "t", 0);
    }
  for (int d = 0; d < 40; d++)
    {
      g_autofree char *fn = g_strdup_printf ("level_%02d", d);
      c = cube_report_add_cnode (r, c, cube_report_add_region (r, fn, "deep.c", 10 * d + 1, 10 * d + 9), 10 * d + 5, "deep.c");
      for (int l = 0; l < 12; l++)
        cube_report_set_value (r, time, c, l, 1.0);
    }
  g_assert_true (cube_report_write (r, path, &error));
  return g_file_new_for_path (path);
}

static gboolean
row_is_mapped (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_width (data) > 0;
}

static gboolean
is_deepest_cell (GtkWidget *w,
                 gpointer   data)
{
  GtkWidget *name = KUBUS_IS_ROW_CELL (w) ? gtk_widget_get_last_child (w) : NULL;

  (void) data;
  return name != NULL && gtk_widget_get_mapped (name) && gtk_widget_get_width (name) > 0
         && g_str_equal (label_text (name), "level_39");
}

/* The 40th row's cell on screen; scrolled to again every 200 ms: on a loaded machine one
 * scroll, made after a fixed wait, could come before the list had laid out the expanded rows,
 * and the row never showed. */
static gboolean
deepest_row_shown (gpointer data)
{
  KubusWindow *window = data;
  static gint64 last;
  GtkWidget *list = kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_CALL));

  if (find_widget (list, is_deepest_cell, NULL) != NULL)
    return TRUE;
  if (g_get_monotonic_time () - last > 200000)
    {
      last = g_get_monotonic_time ();
      kubus_pane_view_scroll_to (pane_view (window, KUBUS_PANE_CALL), 39);
    }
  return FALSE;
}

static gboolean
window_allocated (gpointer data)
{
  return gtk_widget_get_width (data) > 0;
}

/* Defect 10: natural order by name, the pane title of the flat view, rows 40 levels deep
 * still on screen, check marks apart from the text, and one page of shortcuts. */
static void
test_visual (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = naming_file ("naming.cube");
  KubusWindow *window = new_window (&ev);
  g_autofree char *text = NULL;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  /* Laid out before the deep rows are scrolled to: a scroll made before the window's first
   * allocation, on a loaded machine, left the rows unallocated (width 0) for seconds. */
  if (!spin_until (window_allocated, window, WAIT_MS))
    g_error ("the window was never laid out");
  kubus_window_set_active_pane (window, KUBUS_PANE_SYSTEM, FALSE);
  activate (window, "sort", g_variant_new_string ("name"));
  toggle_row (window, KUBUS_PANE_SYSTEM, "M");
  toggle_row (window, KUBUS_PANE_SYSTEM, "N");
  text = pane_text (window, KUBUS_PANE_SYSTEM);
  {
    const char *p2 = strstr (text, "Process 2 "), *p10 = strstr (text, "Process 10 ");
    g_assert_nonnull (p2);
    g_assert_nonnull (p10);
    if (p2 > p10)
      g_error ("by name, Process 10 comes before Process 2:\n%s", text);
  }

  /* The deepest call path: its name still inside the pane. */
  kubus_window_set_active_pane (window, KUBUS_PANE_CALL, TRUE);
  activate (window, "expand-all", NULL);
  kubus_browser_select_position (kubus_window_get_browser (window), KUBUS_PANE_CALL, 39);
  if (!spin_until (deepest_row_shown, window, WAIT_MS))
    g_error ("the call tree does not show level_39 after Expand All");
  {
    GtkWidget *cell = row_cell (window, KUBUS_PANE_CALL, "level_39", 0);
    GtkWidget *name = gtk_widget_get_last_child (cell);
    GtkWidget *list = kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_CALL));
    graphene_rect_t b;

    if (!spin_until (row_is_mapped, name, WAIT_MS))
      g_error ("row level_39: name %s mapped %d width %d, cell width %d, text %s", G_OBJECT_TYPE_NAME (name),
               gtk_widget_get_mapped (name), gtk_widget_get_width (name), gtk_widget_get_width (cell),
               GTK_IS_LABEL (name) ? gtk_label_get_text (GTK_LABEL (name)) : "?");
    g_assert_true (gtk_widget_compute_bounds (name, list, &b));
    if (b.origin.x + 30 > gtk_widget_get_width (list))
      g_error ("the name of a row 40 levels deep starts at %.0f of a %d px pane", b.origin.x,
               gtk_widget_get_width (list));
  }

  activate (window, "call-view", g_variant_new_string ("flat"));
  {
    GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (pane_view (window, KUBUS_PANE_CALL)));
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_widget_get_first_child (header))), ==, "Flat profile");
  }
  activate (window, "call-view", g_variant_new_string ("module"));
  {
    GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (pane_view (window, KUBUS_PANE_CALL)));
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_widget_get_first_child (header))), ==, "Modules");
  }
  close_window (window, &ev);
}

static gboolean
is_image (GtkWidget *w,
          gpointer   data)
{
  (void) data;
  return GTK_IS_IMAGE (w) && gtk_widget_get_mapped (w) && gtk_widget_get_opacity (w) > 0
         && gtk_widget_get_child_visible (w);
}

static gboolean
popover_row_shown (gpointer data)
{
  return find_widget (data, is_image, NULL) != NULL;
}

/* The check mark of a drop-down's list keeps a gap from the label of its row. */
static void
test_dropdown_check (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("check.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *header, *dropdown = NULL, *popover, *image, *label;
  graphene_rect_t bi, bl;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  header = gtk_widget_get_first_child (GTK_WIDGET (pane_view (window, KUBUS_PANE_SYSTEM)));
  find_widget (header, is_drop_down, &dropdown);
  g_signal_emit_by_name (dropdown, "activate");
  for (popover = gtk_widget_get_first_child (dropdown); popover != NULL && !GTK_IS_POPOVER (popover);
       popover = gtk_widget_get_next_sibling (popover))
    ;
  g_assert_nonnull (popover);
  g_assert_true (spin_until (popover_row_shown, popover, WAIT_MS));
  spin (100);
  image = find_widget (popover, is_image, NULL);
  label = gtk_widget_get_prev_sibling (image);
  g_assert_true (GTK_IS_LABEL (label));
  g_assert_true (gtk_widget_compute_bounds (image, popover, &bi));
  g_assert_true (gtk_widget_compute_bounds (label, popover, &bl));
  if (bi.origin.x - (bl.origin.x + bl.size.width) < 8)
    g_error ("the check mark is %.0f px from its label", bi.origin.x - (bl.origin.x + bl.size.width));
  gtk_popover_popdown (GTK_POPOVER (popover));
  close_window (window, &ev);
}

static gboolean
is_stack_switcher (GtkWidget *w,
                   gpointer   data)
{
  (void) data;
  return GTK_IS_STACK_SWITCHER (w);
}

static gboolean
shortcuts_shown (gpointer data)
{
  return (*(GtkWidget **) data = shown_toplevel (GTK_TYPE_SHORTCUTS_WINDOW)) != NULL;
}

/* The shortcuts window is one page (its page switcher has a single page), and lists the
 * commands added with issue 16. */
static void
test_shortcuts_one_page (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  GtkWidget *shortcuts = NULL, *switcher;
  GtkStack *stack;
  g_autoptr (GListModel) pages = NULL;

  activate (window, "show-help-overlay", NULL);
  g_assert_true (spin_until (shortcuts_shown, &shortcuts, WAIT_MS));
  spin (100);
  switcher = find_widget (shortcuts, is_stack_switcher, NULL);
  g_assert_nonnull (switcher);
  stack = gtk_stack_switcher_get_stack (GTK_STACK_SWITCHER (switcher));
  pages = G_LIST_MODEL (gtk_stack_get_pages (stack));
  g_assert_cmpuint (g_list_model_get_n_items (pages), ==, 1);
  gtk_window_close (GTK_WINDOW (shortcuts));
  spin (50);
  close_window (window, &ev);
}

static gboolean
is_label (GtkWidget *w,
          gpointer   data)
{
  (void) data;
  return GTK_IS_LABEL (w);
}

/* The metric's Info scrolls when long, shows its documentation address as text, and says so
 * (putting the address on the clipboard) when no program opens the link. */
static void
test_info_link (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("link.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  KubusPaneView *metric = pane_view (window, KUBUS_PANE_METRIC);
  GtkWidget *label = NULL;

  /* No program for https here (an empty XDG data folder and no session): the launch fails. */
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  gtk_widget_grab_focus (kubus_pane_view_get_list_view (metric));
  activate (window, "info", NULL);
  spin (200);
  for (GtkWidget *w = gtk_widget_get_last_child (GTK_WIDGET (metric)); w != NULL && label == NULL;
       w = gtk_widget_get_prev_sibling (w))
    if (GTK_IS_POPOVER (w) && !GTK_IS_POPOVER_MENU (w))
      {
        GtkWidget *box = gtk_popover_get_child (GTK_POPOVER (w));
        g_assert_true (GTK_IS_SCROLLED_WINDOW (gtk_widget_get_first_child (box)));
        label = find_widget (box, is_label, NULL);
      }
  g_assert_nonnull (label);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "https://example.org/time.html"));
  /* Following the link: with no program for it (none here), the popover says so and the
   * address goes to the clipboard. */
  {
    gboolean handled = FALSE;
    GtkWidget *note = gtk_widget_get_last_child (gtk_widget_get_parent (gtk_widget_get_parent (gtk_widget_get_parent (label))));

    g_signal_emit_by_name (label, "activate-link", "https://example.org/time.html", &handled);
    g_assert_true (handled);
    if (spin_until ((Condition) gtk_widget_get_visible, note, 5000))
      {
        g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (note)), "https://example.org/time.html"));
        g_assert_true (gdk_content_formats_contain_gtype (gdk_clipboard_get_formats (gtk_widget_get_clipboard (label)),
                                                          G_TYPE_STRING));
      }
    else
      g_test_message ("a program opened the link: the failure note is not tested here");
    gtk_popover_popdown (GTK_POPOVER (gtk_widget_get_ancestor (label, GTK_TYPE_POPOVER)));
    spin (100);
  }
  close_window (window, &ev);
}

/* ---- CubeGUI's extras ---------------------------------------------------------------------------- */

static GtkWidget *shown_window_titled (const char *prefix);

static gboolean
titled_shown (gpointer data)
{
  const char **prefix = data;

  return shown_window_titled (*prefix) != NULL;
}

static GtkWidget *
shown_window_titled (const char *prefix)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (GTK_IS_WINDOW (w) && gtk_widget_get_visible (w) && gtk_window_get_title (GTK_WINDOW (w)) != NULL
          && g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (w)), prefix))
        return w;
    }
  return NULL;
}

static GtkWidget *
wait_window (const char *prefix)
{
  if (!spin_until (titled_shown, &prefix, WAIT_MS))
    g_error ("no window “%s…” shown", prefix);
  return shown_window_titled (prefix);
}

/* Show Source: the lines around the call site of foo (app.c, line 12) when app.c lies next to
 * the report; a clear message when it does not, or when the call path has no file. */
static void
test_source_view (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("source.cube", 1.0);
  g_autofree char *app_c = g_build_filename (tmpdir, "app.c", NULL);
  GString *code = g_string_new (NULL);
  KubusWindow *window = new_window (&ev);
  GtkWidget *view;
  const char *text;

  for (int i = 1; i <= 30; i++)
    g_string_append_printf (code, "int line_%d;\n", i);
  g_assert_true (g_file_set_contents (app_c, code->str, -1, NULL));
  g_string_free (code, TRUE);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  activate (window, "source", NULL);
  view = wait_window ("foo — Source");
  g_assert_cmpint (kubus_source_view_line (view), ==, 12);
  text = kubus_source_view_text (view);
  g_assert_nonnull (strstr (text, "    12  int line_12;\n"));
  g_assert_nonnull (strstr (text, "    30  int line_30;\n"));
  gtk_window_destroy (GTK_WINDOW (view));

  /* bar is called in app.c too (line 20); without app.c: the message names the file and
   * where it was looked for. */
  g_unlink (app_c);
  select_row (window, KUBUS_PANE_CALL, "bar", 0);
  activate (window, "source", NULL);
  view = wait_window ("bar — Source");
  text = kubus_source_view_text (view);
  g_assert_cmpint (kubus_source_view_line (view), ==, 0);
  if (strstr (text, "“app.c”") == NULL || strstr (text, app_c) == NULL)
    g_error ("the message does not say which file was looked for where:\n%s", text);
  gtk_window_destroy (GTK_WINDOW (view));

  /* bar/MPI_Send has a call site (lib.c:7) but MPI_Send on its own (flat profile: the region)
   * has no line, only "MPI": said so. */
  activate (window, "call-view", g_variant_new_string ("flat"));
  select_row (window, KUBUS_PANE_CALL, "MPI_Send", 0);
  activate (window, "source", NULL);
  view = wait_window ("MPI_Send — Source");
  g_assert_nonnull (strstr (kubus_source_view_text (view), "no source location"));
  gtk_window_destroy (GTK_WINDOW (view));
  close_window (window, &ev);
}

/* Statistics across locations: the selected metric and call path over the two ranks, and the
 * box plot offered for export while the window is open. */
static void
test_statistics (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("stats.cube", 1.0);
  g_autofree char *svg = g_build_filename (tmpdir, "boxplot.svg", NULL);
  g_autofree char *text = NULL, *text2 = NULL, *contents = NULL;
  g_autoptr (GPtrArray) views = NULL;
  g_autoptr (GError) error = NULL;
  KubusWindow *window = new_window (&ev);
  GtkWidget *stats;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);   /* Time at foo (collapsed): [5 5] */
  kubus_browser_flush (kubus_window_get_browser (window));
  activate (window, "statistics", NULL);
  stats = wait_window ("Statistics");
  text = kubus_statistics_text (stats);
  g_assert_cmpstr (text, ==,
                   "Time at main/foo\n"
                   "Locations: 2\nMinimum: 5\nLower quartile: 5\nMedian: 5\nMean: 5\n"
                   "Upper quartile: 5\nMaximum: 5\nStandard deviation: 0\nOutliers (beyond 1.5 × IQR): 0\n");
  /* It follows the selection: bar [1 3]. */
  select_row (window, KUBUS_PANE_CALL, "bar", 0);
  kubus_browser_flush (kubus_window_get_browser (window));
  text2 = kubus_statistics_text (stats);
  g_assert_cmpstr (text2, ==,
                   "Time at main/bar\n"
                   "Locations: 2\nMinimum: 1\nLower quartile: 1.5\nMedian: 2\nMean: 2\n"
                   "Upper quartile: 2.5\nMaximum: 3\nStandard deviation: 1\nOutliers (beyond 1.5 × IQR): 0\n");
  views = kubus_window_list_export_views (window);
  g_assert_cmpuint (views->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (views, 2), ==, "statistics");
  g_assert_true (kubus_window_export_view (window, "statistics", svg, KUBUS_EXPORT_SVG, 400, 200, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "width=\"400pt\" height=\"200pt\""));
  gtk_window_destroy (GTK_WINDOW (stats));
  spin (50);
  g_clear_pointer (&views, g_ptr_array_unref);
  views = kubus_window_list_export_views (window);
  g_assert_cmpuint (views->len, ==, 2);
  close_window (window, &ev);
}

static void
render_test_view (cairo_t  *cr,
                  int       width,
                  int       height,
                  gpointer  user_data)
{
  (void) user_data;
  cairo_set_source_rgb (cr, 0, 0.5, 0);
  cairo_rectangle (cr, 0, 0, width, height / 2.0);
  cairo_fill (cr);
}

/* File › Export View: the registry (what a topology view uses), the three formats at a size
 * of the user's choosing, and the dialog listing the registered views. */
static void
test_export_view (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("export.cube", 1.0);
  g_autofree char *png = g_build_filename (tmpdir, "panes.png", NULL);
  g_autofree char *pdf = g_build_filename (tmpdir, "panes.pdf", NULL);
  g_autofree char *own = g_build_filename (tmpdir, "own.png", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  KubusWindow *window = new_window (&ev);
  GtkWidget *dialog, *dropdown = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  spin (100);
  g_assert_true (kubus_window_export_view (window, "panes", png, KUBUS_EXPORT_PNG, 640, 400, &error));
  g_assert_no_error (error);
  pixbuf = gdk_pixbuf_new_from_file (png, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_pixbuf_get_width (pixbuf), ==, 640);
  g_assert_cmpint (gdk_pixbuf_get_height (pixbuf), ==, 400);
  g_clear_object (&pixbuf);
  g_assert_true (kubus_window_export_view (window, "window", pdf, KUBUS_EXPORT_PDF, 800, 500, &error));
  g_assert_true (g_file_get_contents (pdf, &contents, &len, NULL));
  g_assert_true (g_str_has_prefix (contents, "%PDF-"));
  /* Any other view registers a render function: it gets the size asked. */
  kubus_window_add_export_view (window, "test", "Test view", NULL, render_test_view, NULL, NULL);
  g_assert_true (kubus_window_export_view (window, "test", own, KUBUS_EXPORT_PNG, 50, 40, &error));
  pixbuf = gdk_pixbuf_new_from_file (own, &error);
  g_assert_cmpint (gdk_pixbuf_get_width (pixbuf), ==, 50);
  {
    guchar *px = gdk_pixbuf_get_pixels (pixbuf);
    int stride = gdk_pixbuf_get_rowstride (pixbuf);
    g_assert_cmpint (px[1], ==, 128);                 /* green at the top */
    g_assert_cmpint (px[35 * stride + 1], !=, 128);   /* not at the bottom */
  }
  /* A bad size and an unknown view fail cleanly, naming the file, and leave nothing. */
  g_clear_error (&error);
  g_assert_false (kubus_window_export_view (window, "test", own, KUBUS_EXPORT_PNG, 0, 40, &error));
  g_assert_nonnull (strstr (error->message, own));
  g_clear_error (&error);
  g_assert_false (kubus_window_export_view (window, "nope", png, KUBUS_EXPORT_PNG, 10, 10, &error));
  g_clear_error (&error);

  activate (window, "export-view", NULL);
  dialog = wait_window ("Export View");
  find_widget (dialog, is_drop_down, &dropdown);   /* the last: the format */
  {
    GtkWidget *views = gtk_widget_get_first_child (gtk_widget_get_first_child (gtk_widget_get_first_child (dialog)));
    GListModel *items = NULL;

    for (GtkWidget *w = views; w != NULL; w = gtk_widget_get_next_sibling (w))
      if (GTK_IS_DROP_DOWN (w) && items == NULL)
        items = gtk_drop_down_get_model (GTK_DROP_DOWN (w));
    g_assert_nonnull (items);
    g_assert_cmpuint (g_list_model_get_n_items (items), ==, 3);
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), 0), ==, "The three trees");
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), 2), ==, "Test view");
  }
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (dropdown))), ==, 3);
  gtk_window_destroy (GTK_WINDOW (dialog));
  kubus_window_remove_export_view (window, "test");
  close_window (window, &ev);
}

/* ---- 5. command-line options act in the normal window ------------------------------------------ */

typedef struct
{
  const char  *expected_call;
  const char  *expected_metric;
  KubusWindow *window;
  char        *call;
  char        *metric;
  gboolean     done;
  guint        timeout_id;
} OptionRun;

static gboolean
check_option_window (gpointer data)
{
  OptionRun *run = data;

  g_free (run->call);
  g_free (run->metric);
  run->call = pane_text (run->window, KUBUS_PANE_CALL);
  run->metric = pane_text (run->window, KUBUS_PANE_METRIC);
  if ((g_str_equal (run->call, run->expected_call) && g_str_equal (run->metric, run->expected_metric))
      || g_get_monotonic_time () > (gint64) GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (run->window), "deadline")))
    {
      run->done = TRUE;
      run->timeout_id = 0;
      gtk_window_destroy (GTK_WINDOW (run->window));   /* the last window: g_application_run returns */
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
on_option_window_loaded (KubusWindow *window,
                         OptionRun   *run)
{
  (void) window;
  if (run->timeout_id == 0 && !run->done)
    run->timeout_id = g_timeout_add (20, check_option_window, run);
}

static void
on_option_window_added (GtkApplication *application,
                        GtkWindow      *window,
                        OptionRun      *run)
{
  (void) application;
  run->window = KUBUS_WINDOW (window);
  g_object_set_data (G_OBJECT (window), "deadline",
                     GSIZE_TO_POINTER ((gsize) (g_get_monotonic_time () + WAIT_MS * (gint64) 1000)));
  /* After the application's own handler, which applies the options. */
  g_signal_connect_after (window, "loaded", G_CALLBACK (on_option_window_loaded), run);
}

/* kubus --metric=mpi --cnode=main/bar/MPI_Send --mode="Percent of total" FILE: without
 * --screenshot the options were silently ignored. Here a second KubusApplication runs that
 * command line in this process and the panes it shows are read back. */
static void
test_options_normal_window (void)
{
  g_autoptr (GFile) file = report_file ("options.cube", 1.0);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (KubusApplication) other = kubus_application_new ();
  char *argv[] = { "kubus", "--metric=mpi", "--cnode=main/bar/MPI_Send", "--mode=Percent of total",
                   path, NULL };
  OptionRun run = { 0 };
  int status;

  /* MPI: foo/MPI_Send [3 1], bar/MPI_Send [0 2], in percent of the metric root Time (16). */
  run.expected_call = "main 0 [-]\n"
                      "  foo 25.00 [+]\n"
                      "  bar 0 [-]\n"
                      "    MPI_Send 12.50 *\n";
  run.expected_metric = "Time 62.50 [-]\n"
                        "  MPI 37.50 *\n"
                        "Visits 100.00\n";
  g_signal_connect (other, "window-added", G_CALLBACK (on_option_window_added), &run);
  status = g_application_run (G_APPLICATION (other), G_N_ELEMENTS (argv) - 1, argv);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (run.done);
  g_assert_cmpstr (run.call, ==, run.expected_call);
  g_assert_cmpstr (run.metric, ==, run.expected_metric);
  g_free (run.call);
  g_free (run.metric);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if ((status = gui_test_ui_init (&argc, &argv, "gui-browser")) != 0)
    return status;
  g_test_add_func ("/gui/browser/expander-clickable", test_expander_clickable);
  g_test_add_func ("/gui/browser/double-click", test_double_click);
  g_test_add_func ("/gui/browser/collapse-keeps-selection", test_collapse_keeps_selection);
  g_test_add_func ("/gui/browser/options-normal-window", test_options_normal_window);
  g_test_add_func ("/gui/browser/compare-explained", test_compare_explained);
  g_test_add_func ("/gui/browser/active-pane", test_active_pane);
  g_test_add_func ("/gui/browser/windows-and-sizes", test_windows_and_sizes);
  g_test_add_func ("/gui/browser/keyboard", test_keyboard);
  g_test_add_func ("/gui/browser/preferences-keys", test_preferences_keys);
  g_test_add_func ("/gui/browser/visual", test_visual);
  g_test_add_func ("/gui/browser/dropdown-check", test_dropdown_check);
  g_test_add_func ("/gui/browser/shortcuts-one-page", test_shortcuts_one_page);
  g_test_add_func ("/gui/browser/info-link", test_info_link);
  g_test_add_func ("/gui/browser/source-view", test_source_view);
  g_test_add_func ("/gui/browser/statistics", test_statistics);
  g_test_add_func ("/gui/browser/export-view", test_export_view);
  status = g_test_run ();
  gui_test_ui_finish ();
  return status;
}
