/* test-gui-browser.c — issue 16 on a display (Xvfb): the browser defects a new user hit and the
 * CubeGUI extras (source view, statistics, export). Each test drives the real widgets the way a
 * user does (tests/gui/gui-test-ui.h) and would have caught its defect.
 * Run under tests/gui/xvfb-wrap.sh; exits 77 without a display. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <gdk/x11/gdkx.h>

#include "gui-test-report.h"
#include "gui-test-ui.h"

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
    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error)
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
  status = g_test_run ();
  gui_test_ui_finish ();
  return status;
}
