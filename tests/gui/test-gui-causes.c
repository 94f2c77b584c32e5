/* test-gui-causes.c — Show Its Causes and Verify Causes by Simulation (issue 22), on a display
 * (xvfb-wrap.sh).
 *
 *   show-causes   a report whose Late Sender is caused (delay costs) by foo on rank 0 and,
 *                 less, by bar: on Late Sender (and on its wrong-order part) the action selects
 *                 both Late Sender delay costs, opens the call path foo and the system tree
 *                 shows rank 0's share; on Time it says to select a wait state
 *   verify-causes the Score-P Late Sender chain of the shared data, analysed by the real
 *                 kubus-analyze: the row menu's entry runs kubus-analyze --verify-causes through
 *                 the run queue, writes REPORT-causes/verify.json and shows the table naming
 *                 foo and its rule (skipped without the shared data)
 *
 * Environment (tests/gui/meson.build): KUBUS_ANALYZE_PROGRAM, KUBUS_SHARED_DATA. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "gui-test-ui.h"
#include "kubus-window-causes.h"

/* Late Sender at main/MPI_Recv on rank 1 (4 s, 1 s of it wrong order); its delay costs: 3 s
 * short- and 1 s long-term in main/foo on rank 0, 0.5 s short-term in main/bar on rank 0. */
static GFile *
causes_report (const char *name,
               gboolean    with_delays)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (CubeReport) r = cube_report_new ();
  g_autoptr (GError) error = NULL;
  CubeMetric *time, *ls, *wo, *ds = NULL, *dl = NULL;
  CubeRegion *rm, *rf, *rb, *rr;
  CubeCnode *cm, *cf, *cb, *cr;
  CubeSysNode *n, *p0, *p1;

  time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, "Time");
  ls = cube_report_add_metric (r, NULL, "mpi_latesender", "Late Sender", CUBE_DTYPE_DOUBLE, "sec", NULL, "LS");
  wo = cube_report_add_metric (r, ls, "mpi_latesender_wo", "Messages in Wrong Order", CUBE_DTYPE_DOUBLE, "sec",
                               NULL, "WO");
  if (with_delays)
    {
      ds = cube_report_add_metric (r, NULL, "delay_latesender", "MPI short-term Late Sender delay costs",
                                   CUBE_DTYPE_DOUBLE, "sec", NULL, "short");
      dl = cube_report_add_metric (r, NULL, "delay_latesender_longterm", "MPI long-term Late Sender delay costs",
                                   CUBE_DTYPE_DOUBLE, "sec", NULL, "long");
    }
  rm = cube_report_add_region (r, "main", "app.c", 1, 9);
  rf = cube_report_add_region (r, "foo", "app.c", 10, 19);
  rb = cube_report_add_region (r, "bar", "app.c", 20, 29);
  rr = cube_report_add_region (r, "MPI_Recv", "MPI", -1, -1);
  cm = cube_report_add_cnode (r, NULL, rm, -1, NULL);
  cf = cube_report_add_cnode (r, cm, rf, 3, "app.c");
  cb = cube_report_add_cnode (r, cm, rb, 4, "app.c");
  cr = cube_report_add_cnode (r, cm, rr, 5, "app.c");
  n = cube_report_add_sysnode (r, cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1), CUBE_SYS_NODE, "N", -1);
  p0 = cube_report_add_sysnode (r, n, CUBE_SYS_PROCESS, "rank 0", 0);
  cube_report_add_sysnode (r, p0, CUBE_SYS_THREAD, "thread 0", 0);
  p1 = cube_report_add_sysnode (r, n, CUBE_SYS_PROCESS, "rank 1", 1);
  cube_report_add_sysnode (r, p1, CUBE_SYS_THREAD, "thread 1", 0);
  cube_report_set_value (r, time, cf, 0, 8);
  cube_report_set_value (r, time, cf, 1, 4);
  cube_report_set_value (r, time, cb, 0, 2);
  cube_report_set_value (r, time, cr, 1, 5);
  cube_report_set_value (r, ls, cr, 1, 4);
  cube_report_set_value (r, wo, cr, 1, 1);
  if (with_delays)
    {
      cube_report_set_value (r, ds, cf, 0, 3);
      cube_report_set_value (r, dl, cf, 0, 1);
      cube_report_set_value (r, ds, cb, 0, 0.5);
    }
  g_assert_true (cube_report_write (r, path, &error));
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

/* A pane's rows without their values (their formatting is the browser's business; the values
 * are checked through the browser's own numbers). */
static char *
pane_names (KubusWindow  *window,
            KubusPaneKind kind)
{
  g_autofree char *text = pane_text (window, kind);
  g_autoptr (GRegex) num = g_regex_new (" -?[0-9][0-9.,eE+-]*( [a-zA-Zµ]+)?(?= |$)", G_REGEX_MULTILINE, 0, NULL);
  return g_regex_replace_literal (num, text, -1, 0, "", 0, NULL);
}

static void
assert_names (KubusWindow  *window,
              KubusPaneKind kind,
              const char   *expected)
{
  g_autofree char *got = NULL;
  for (guint k = 0; k < 100; k++)
    {
      g_free (got);
      got = pane_names (window, kind);
      if (g_str_equal (got, expected))
        return;
      spin (50);
    }
  g_assert_cmpstr (got, ==, expected);
}

static gboolean
is_enabled (KubusWindow *window,
            const char  *name)
{
  return g_action_get_enabled (g_action_map_lookup_action (G_ACTION_MAP (window), name));
}

/* The shown dialog whose text starts with @primary, or NULL. */
static GtkWidget *
message_dialog (const char *primary)
{
  GtkWidget *d = shown_toplevel (GTK_TYPE_MESSAGE_DIALOG);
  g_autofree char *text = NULL;
  if (d == NULL)
    return NULL;
  g_object_get (d, "text", &text, NULL);
  return text != NULL && g_str_has_prefix (text, primary) ? d : NULL;
}

static gboolean
dialog_shown (gpointer primary)
{
  return message_dialog (primary) != NULL;
}

static void
test_show_causes (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = causes_report ("causes.cube", TRUE);
  g_autoptr (GFile) plain = causes_report ("plain.cube", FALSE);
  KubusWindow *window = new_window (&ev);
  g_autofree char *metrics = NULL, *calls = NULL;
  GtkWidget *d;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_assert_true (is_enabled (window, "show-causes"));
  g_assert_true (is_enabled (window, "verify-causes"));

  /* on Late Sender: both delay costs, foo opened and selected, rank 0 holds them */
  select_row (window, KUBUS_PANE_METRIC, "Late Sender", 0);
  kubus_browser_flush (kubus_window_get_browser (window));
  activate (window, "show-causes", NULL);
  kubus_browser_flush (kubus_window_get_browser (window));
  assert_names (window, KUBUS_PANE_METRIC,
                "Time\n"
                "Late Sender [+]\n"
                "MPI short-term Late Sender delay costs *\n"
                "MPI long-term Late Sender delay costs *\n");
  assert_names (window, KUBUS_PANE_CALL,
                "main [-]\n"
                "  foo *\n"
                "  bar\n"
                "  MPI_Recv\n");
  {
    /* foo's costs of both kinds, all on rank 0 */
    guint n = 0;
    const double *v = kubus_browser_get_location_values (kubus_window_get_browser (window), &n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpfloat_with_epsilon (v[0], 4.0, 1e-12);
    g_assert_cmpfloat_with_epsilon (v[1], 0.0, 1e-12);
  }

  /* the wrong-order part of Late Sender has the same causes */
  toggle_row (window, KUBUS_PANE_METRIC, "Late Sender");
  select_row (window, KUBUS_PANE_METRIC, "Messages in Wrong Order", 0);
  activate (window, "show-causes", NULL);
  kubus_browser_flush (kubus_window_get_browser (window));
  metrics = pane_names (window, KUBUS_PANE_METRIC);
  g_assert_nonnull (strstr (metrics, "MPI short-term Late Sender delay costs *"));
  g_assert_nonnull (strstr (metrics, "MPI long-term Late Sender delay costs *"));
  calls = pane_names (window, KUBUS_PANE_CALL);
  g_assert_nonnull (strstr (calls, "foo *"));

  /* on Time: nothing to show, and it says what to select */
  select_row (window, KUBUS_PANE_METRIC, "Time", 0);
  activate (window, "show-causes", NULL);
  g_assert_true (spin_until (dialog_shown, (gpointer) "No causes to show", WAIT_MS));
  d = message_dialog ("No causes to show");
  gtk_window_destroy (GTK_WINDOW (d));
  spin (50);

  /* a report without delay costs: the actions are off */
  kubus_window_open (window, plain);
  wait_events (&ev, 2, 0);
  g_assert_false (is_enabled (window, "show-causes"));
  g_assert_false (is_enabled (window, "verify-causes"));
  close_window (window, &ev);
}

typedef struct
{
  const char *path;
} FileWait;

static gboolean
file_exists (gpointer data)
{
  return g_file_test (((FileWait *) data)->path, G_FILE_TEST_IS_REGULAR);
}

static void
copy_tree (const char *from,
           const char *to)
{
  g_autoptr (GDir) d = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  g_assert_cmpint (g_mkdir_with_parents (to, 0755), ==, 0);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *a = g_build_filename (from, name, NULL);
      g_autofree char *b = g_build_filename (to, name, NULL);
      if (g_file_test (a, G_FILE_TEST_IS_DIR))
        copy_tree (a, b);
      else
        {
          g_autofree char *contents = NULL;
          gsize len;
          g_assert_true (g_file_get_contents (a, &contents, &len, NULL));
          g_assert_true (g_file_set_contents (b, contents, len, NULL));
        }
    }
}

static void
test_verify_causes (void)
{
  const char *shared = g_getenv ("KUBUS_SHARED_DATA");
  const char *analyze = g_getenv ("KUBUS_ANALYZE_PROGRAM");
  g_autofree char *trace = shared ? g_build_filename (shared, "otf2", "casita_4_mpi_ls_barr", NULL) : NULL;
  g_autofree char *exp = g_build_filename (tmpdir, "an experiment (copy)", NULL);
  g_autofree char *report = g_build_filename (exp, "analysis.cube", NULL);
  g_autofree char *json = g_build_filename (exp, "analysis-causes", "verify.json", NULL);
  g_autofree char *contents = NULL, *text = NULL, *secondary = NULL;
  g_autoptr (GFile) file = NULL;
  const char *argv[] = { analyze, exp, "--serial", "-q", NULL };
  Events ev = { 0 };
  KubusWindow *window;
  FileWait fw = { json };
  GtkWidget *d;
  int status = 0;

  if (trace == NULL || !g_file_test (trace, G_FILE_TEST_IS_DIR) || analyze == NULL)
    {
      g_test_skip ("no shared data or no kubus-analyze");
      return;
    }
  copy_tree (trace, exp);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
  file = g_file_new_for_path (report);
  window = new_window (&ev);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_assert_true (is_enabled (window, "verify-causes"));
  activate (window, "verify-causes", NULL);
  g_assert_true (spin_until (dialog_shown, (gpointer) "Causes verified by simulation", 120000));
  g_assert_true (spin_until (file_exists, &fw, WAIT_MS));
  d = message_dialog ("Causes verified by simulation");
  g_object_get (d, "secondary-text", &secondary, NULL);
  g_assert_nonnull (strstr (secondary, "main/late_sender/foo"));
  g_assert_nonnull (strstr (secondary, "balance region foo"));
  g_assert_true (g_file_get_contents (json, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"hypothesis\": \"balance region foo\""));
  g_assert_nonnull (strstr (contents, "\"runtime_saved_s\": "));
  gtk_window_destroy (GTK_WINDOW (d));
  spin (50);
  close_window (window, &ev);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if ((status = gui_test_ui_init (&argc, &argv, "gui-causes")) != 0)
    return status;
  g_test_add_func ("/gui/causes/show", test_show_causes);
  g_test_add_func ("/gui/causes/verify", test_verify_causes);
  status = g_test_run ();
  gui_test_ui_finish ();
  return status;
}
