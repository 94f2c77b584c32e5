/* test-gui-experiment.c — the browser drives the toolchain (issue #12), with the real kubus-run,
 * kubus-analyze (and kubus-sim when built) on real MPI programs, on a display and a private
 * session bus (run under tests/gui/dbus-wrap.sh and xvfb-wrap.sh).
 *
 * This process is the primary instance of org.kubus.Kubus on the bus, so `gapplication action`
 * and a second `kubus` reach it over D-Bus and the test can look at what they opened. Every
 * file and folder name holds spaces and shell metacharacters. Checked: the Measure dialog →
 * kubus-run → kubus-analyze → the opened report's Late Sender time against the program's own
 * truth (sleeps; CLOCK_MONOTONIC) and its message counts exactly; the offer to analyze;
 * analyze over D-Bus; a report opened by a second `kubus` in this instance; failures (program
 * not found, a rank that crashes, no trace) in error dialogs with the tool's last lines;
 * Cancel of a measurement and of an analysis (no process left in the run's session per pgrep,
 * no experiment or report written, no temporary folder left); notifications; the comparison's
 * values next to both reports; the recent studies; the simulate dialog's regions and rules; a real
 * simulation cancelled while its ranks re-enact the run.
 *
 * Environment (tests/gui/meson.build): KUBUS, KUBUS_RUN_PROGRAM, KUBUS_ANALYZE_PROGRAM,
 * KUBUS_SIM_PROGRAM (optional), WS_LATESENDER, WS_DEMO, COLLECT_CRASH. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "gui-test-report.h"
#include "kubus-application.h"
#include "kubus-experiment-dialogs.h"
#include "kubus-experiment-study.h"
#include "kubus-experiment-tools.h"
#include "kubus-experiment.h"
#include "kubus-run-panel.h"
#include "kubus-study-list.h"
#include "kubus-window-private.h"

#define WAIT_MS 120000

static char *tmpdir;
static GtkApplication *app;
static GSettings *settings;
static guint n_notified;
static char *last_notification;

/* ---- a notification server on the private bus ------------------------------------------------- */

static const char notify_xml[] =
  "<node><interface name='org.freedesktop.Notifications'>"
  "<method name='Notify'><arg type='s' direction='in'/><arg type='u' direction='in'/>"
  "<arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='s' direction='in'/>"
  "<arg type='as' direction='in'/><arg type='a{sv}' direction='in'/><arg type='i' direction='in'/>"
  "<arg type='u' direction='out'/></method>"
  "<method name='CloseNotification'><arg type='u' direction='in'/></method>"
  "<method name='GetCapabilities'><arg type='as' direction='out'/></method>"
  "<method name='GetServerInformation'><arg type='s' direction='out'/><arg type='s' direction='out'/>"
  "<arg type='s' direction='out'/><arg type='s' direction='out'/></method>"
  "</interface></node>";

static void
notify_call (GDBusConnection       *c,
             const char            *sender,
             const char            *path,
             const char            *iface,
             const char            *method,
             GVariant              *params,
             GDBusMethodInvocation *inv,
             gpointer               data)
{
  (void) c, (void) sender, (void) path, (void) iface, (void) data;
  if (g_str_equal (method, "Notify"))
    {
      const char *summary;
      g_variant_get_child (params, 3, "&s", &summary);
      g_free (last_notification);
      last_notification = g_strdup (summary);
      n_notified++;
      g_dbus_method_invocation_return_value (inv, g_variant_new ("(u)", n_notified));
    }
  else if (g_str_equal (method, "GetCapabilities"))
    g_dbus_method_invocation_return_value (inv, g_variant_new_parsed ("(@as ['body', 'actions'],)"));
  else if (g_str_equal (method, "GetServerInformation"))
    g_dbus_method_invocation_return_value (inv, g_variant_new ("(ssss)", "test", "kubus", "1", "1.2"));
  else
    g_dbus_method_invocation_return_value (inv, NULL);
}

static void
start_notification_server (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, &error);
  GDBusConnection *c;
  g_autoptr (GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (notify_xml, &error);
  static const GDBusInterfaceVTable vtable = { notify_call, NULL, NULL, { 0 } };
  g_autoptr (GVariant) reply = NULL;

  g_assert_no_error (error);
  c = g_dbus_connection_new_for_address_sync (address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                                       | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                              NULL, NULL, &error);
  g_assert_no_error (error);
  g_dbus_connection_register_object (c, "/org/freedesktop/Notifications", info->interfaces[0], &vtable, NULL,
                                     NULL, &error);
  g_assert_no_error (error);
  reply = g_dbus_connection_call_sync (c, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "RequestName", g_variant_new ("(su)", "org.freedesktop.Notifications", 4),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  /* kept for the process lifetime */
}

/* ---- helpers ------------------------------------------------------------------------------------- */

static gboolean
timeout_fail (gpointer data)
{
  g_error ("timed out: %s", (const char *) data);
  return G_SOURCE_REMOVE;
}

#define WAIT_UNTIL(cond, what)                                                    \
  G_STMT_START {                                                                  \
    guint wid_ = g_timeout_add (WAIT_MS, timeout_fail, (gpointer) (what));        \
    while (!(cond))                                                               \
      g_main_context_iteration (NULL, TRUE);                                      \
    g_source_remove (wid_);                                                       \
  } G_STMT_END

static gboolean
tick (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;
  guint id = g_timeout_add (20, tick, NULL);

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (id);
}

static KubusRunQueue *
queue (void)
{
  return kubus_experiment_get_queue (app);
}

static gboolean
queue_idle (void)
{
  return kubus_run_queue_get_n_active (queue ()) == 0;
}

/* The last run of the queue (new ref), or NULL. */
static KubusRunner *
last_run (void)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (queue ()));
  return n > 0 ? g_list_model_get_item (G_LIST_MODEL (queue ()), n - 1) : NULL;
}

static KubusWindow *
window_for (const char *path,
            const char *path_b)
{
  g_autoptr (GFile) a = g_file_new_for_path (path);
  g_autoptr (GFile) b = path_b ? g_file_new_for_path (path_b) : NULL;

  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    {
      KubusWindow *w = l->data;
      if (!KUBUS_IS_WINDOW (w) || w->file == NULL || !g_file_equal (w->file, a))
        continue;
      if ((b == NULL) != (w->file_b == NULL) || (b != NULL && !g_file_equal (b, w->file_b)))
        continue;
      if (kubus_window_get_browser (w) != NULL && !kubus_window_is_busy (w))
        return w;
    }
  return NULL;
}

static guint
count_windows_for (const char *path)
{
  g_autoptr (GFile) a = g_file_new_for_path (path);
  guint n = 0;

  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    if (KUBUS_IS_WINDOW (l->data) && KUBUS_WINDOW (l->data)->file != NULL
        && KUBUS_WINDOW (l->data)->file_b == NULL && g_file_equal (KUBUS_WINDOW (l->data)->file, a))
      n++;
  return n;
}

/* The first toplevel that has object data @key (a dialog's control), or NULL. */
static GtkWindow *
find_toplevel_with (const char *key)
{
  GListModel *tops = gtk_window_get_toplevels ();   /* not owned */

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWindow) w = g_list_model_get_item (tops, i);
      if (g_object_get_data (G_OBJECT (w), key) != NULL && gtk_widget_get_visible (GTK_WIDGET (w)))
        return w;
    }
  return NULL;
}

static GtkWindow *
find_css (const char *css_class)
{
  GListModel *tops = gtk_window_get_toplevels ();   /* not owned */

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWindow) w = g_list_model_get_item (tops, i);
      if (gtk_widget_has_css_class (GTK_WIDGET (w), css_class) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return w;
    }
  return NULL;
}

/* The error dialog's texts; closes it. */
static void
take_error (char **primary,
            char **secondary,
            char **details)
{
  GtkWindow *d = NULL;
  GtkWidget *view;

  WAIT_UNTIL ((d = find_css ("kubus-run-error")) != NULL, "an error dialog");
  g_object_get (d, "text", primary, "secondary-text", secondary, NULL);
  view = g_object_get_data (G_OBJECT (d), "kubus-details-view");
  if (details != NULL)
    {
      *details = NULL;
      if (view != NULL)
        {
          GtkTextBuffer *b = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
          GtkTextIter s, e;
          gtk_text_buffer_get_bounds (b, &s, &e);
          *details = gtk_text_buffer_get_text (b, &s, &e, FALSE);
        }
    }
  gtk_dialog_response (GTK_DIALOG (d), GTK_RESPONSE_CLOSE);
  spin (50);
}

static double
metric_total (CubeReport *report,
              const char *uniq)
{
  CubeMetric *m = cube_report_find_metric (report, uniq);
  g_autofree double *incl = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_nonnull (m);
  incl = g_new0 (double, report->metrics->len);
  g_assert_true (cube_values_metrics (report, incl, NULL, &error));
  return incl[m->index];
}

/* The truth file a ws-* program writes: "metric value" lines. */
static double
truth (const char *path,
       const char *metric)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], " ", 2);
      if (f[0] != NULL && g_str_equal (f[0], metric) && f[1] != NULL)
        return g_ascii_strtod (f[1], NULL);
    }
  g_error ("%s: no %s", path, metric);
  return 0;
}

/* No ".NAME.kubus-partial-…" folder left in @dir. */
static void
assert_no_partial (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *n;

  while (d != NULL && (n = g_dir_read_name (d)) != NULL)
    if (strstr (n, ".kubus-partial-") != NULL)
      g_error ("left behind: %s/%s", dir, n);
}

static guint
pgrep_session (GPid sid)
{
  g_autofree char *arg = g_strdup_printf ("%d", (int) sid);
  const char *argv[] = { "pgrep", "-s", arg, NULL };
  g_autofree char *out = NULL;
  int status = 0;
  guint n = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, NULL));
  for (const char *p = out; p && *p; p++)
    n += *p == '\n';
  return n;
}

static void
activate (const char *action,
          GVariant   *parameter)
{
  g_action_group_activate_action (G_ACTION_GROUP (app), action, parameter);
}

static void
click (GtkWidget *button)
{
  g_signal_emit_by_name (button, "clicked");
}

static char *experiments;     /* the experiments folder */
static char *latesender;      /* ws-latesender copied to a weird name */
static char *exp_one;         /* measured and analysed by the first test */

/* ---- measure (dialog) → analyze → report ------------------------------------------------------------ */

static void
test_measure_dialog (void)
{
  g_autofree char *truth_file = g_build_filename (tmpdir, "truth of 'late' sender.txt", NULL);
  g_autofree char *quoted = g_shell_quote (truth_file);
  g_autofree char *report = NULL;
  GtkWindow *dialog = NULL;
  KubusWindow *window = NULL;
  g_autoptr (KubusRunner) run = NULL;
  CubeReport *rep;
  KubusRunPanel *panel;
  double want, got;
  exp_one = g_build_filename (experiments, "exp one;& $(x) 'q'", NULL);
  report = g_build_filename (exp_one, "analysis.cube", NULL);

  /* Experiment › Measure… with its dialog, as a user fills it */
  activate ("measure", g_variant_new_parsed ("@a{sv} {}"));
  WAIT_UNTIL ((dialog = find_toplevel_with ("executable")) != NULL, "the measure dialog");
  gtk_editable_set_text (g_object_get_data (G_OBJECT (dialog), "executable"), latesender);
  /* the default folder follows the program: kubus_PROGRAM_RANKS in the experiments folder */
  gtk_spin_button_set_value (g_object_get_data (G_OBJECT (dialog), "ranks"), 2);
  {
    g_autofree char *base = g_path_get_basename (latesender);
    g_autofree char *name = g_strdup_printf ("kubus_%s_2", base);
    g_autofree char *want_folder = g_build_filename (experiments, name, NULL);
    g_assert_cmpstr (gtk_editable_get_text (g_object_get_data (G_OBJECT (dialog), "folder")), ==, want_folder);
  }
  gtk_editable_set_text (g_object_get_data (G_OBJECT (dialog), "arguments"), quoted);
  gtk_editable_set_text (g_object_get_data (G_OBJECT (dialog), "folder"), exp_one);
  gtk_check_button_set_active (g_object_get_data (G_OBJECT (dialog), "analyze"), TRUE);
  click (g_object_get_data (G_OBJECT (dialog), "run"));
  g_assert_null (find_toplevel_with ("executable"));

  WAIT_UNTIL ((window = window_for (report, NULL)) != NULL, "the analysis report");
  WAIT_UNTIL (queue_idle (), "the queue");
  rep = kubus_browser_get_report (kubus_window_get_browser (window));
  want = truth (truth_file, "mpi_latesender");
  got = metric_total (rep, "mpi_latesender");
  g_test_message ("Late Sender: truth %.6f s, report %.6f s", want, got);
  g_assert_cmpfloat (want, >, 0.05);
  g_assert_cmpfloat (fabs (got - want), <=, MAX (0.005, 0.05 * want));
  g_assert_cmpfloat (metric_total (rep, "comms_send"), ==, truth (truth_file, "comms_send"));
  g_assert_cmpfloat (metric_total (rep, "bytes_sent"), ==, truth (truth_file, "bytes_sent"));

  /* the experiment is in place, nothing half-made beside it */
  {
    g_autofree char *anchor = g_build_filename (exp_one, "traces.otf2", NULL);
    g_assert_true (g_file_test (anchor, G_FILE_TEST_IS_REGULAR));
  }
  assert_no_partial (experiments);

  /* the run panel shows the analysis, done, at 100 % */
  run = last_run ();
  g_assert_cmpint (kubus_runner_get_state (run), ==, KUBUS_RUNNER_SUCCEEDED);
  g_assert_true (g_str_has_prefix (kubus_runner_get_title (run), "Analyze exp one;& $(x) 'q'"));
  g_assert_cmpfloat (kubus_runner_get_progress (run), ==, 1.0);
  panel = kubus_run_panel_get (window);
  g_assert_nonnull (panel);
  g_assert_true (kubus_run_panel_is_revealed (panel));
  g_assert_true (kubus_run_panel_get_shown (panel) == run);
  {
    GtkTextIter s, e;
    g_autofree char *log = NULL;
    gtk_text_buffer_get_bounds (kubus_run_panel_get_log (panel), &s, &e);
    log = gtk_text_buffer_get_text (kubus_run_panel_get_log (panel), &s, &e, FALSE);
    g_assert_nonnull (strstr (log, "kubus-analyze: [100%] done\n"));
  }
  g_assert_cmpfloat (gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (kubus_run_panel_get_progress_bar (panel))), ==, 1.0);

  /* notify-after is 0 here: each run that ended with no window active said so */
  /* the study is remembered */
  {
    g_autoptr (GPtrArray) recent = kubus_study_recent ();
    g_assert_cmpuint (recent->len, >=, 1);
    g_assert_cmpstr (((KubusStudy *) recent->pdata[0])->experiment, ==, exp_one);
  }
}

/* ---- measure without analysis → the offer; analyze over D-Bus; kubus FILE in this instance --------- */

static void
test_analyze_dbus (void)
{
  g_autofree char *exp = g_build_filename (experiments, "exp two \"dq\" |*", NULL);
  g_autofree char *report = g_build_filename (exp, "analysis.cube", NULL);
  g_autofree char *truth_file = g_build_filename (tmpdir, "truth two.txt", NULL);
  g_autofree char *param = NULL;
  GVariantBuilder b;
  GtkWindow *offer = NULL;
  KubusWindow *window = NULL;
  const char *kubus = g_getenv ("KUBUS");
  int status = -1;
  g_autoptr (GError) error = NULL;
  guint before;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "executable", g_variant_new_string (latesender));
  g_variant_builder_add (&b, "{sv}", "arguments", g_variant_new_strv ((const char *const[]) { truth_file }, 1));
  g_variant_builder_add (&b, "{sv}", "ranks", g_variant_new_int32 (2));
  g_variant_builder_add (&b, "{sv}", "folder", g_variant_new_string (exp));
  activate ("measure", g_variant_builder_end (&b));
  WAIT_UNTIL ((offer = find_css ("kubus-offer-analyze")) != NULL, "the offer to analyze");
  g_assert_true (queue_idle ());
  g_assert_null (window_for (report, NULL));
  /* Open Profile: kubus-run's profile in a window of its own, no analysis */
  {
    g_autofree char *profile = g_build_filename (exp, "profile.cube", NULL);
    KubusWindow *pw = NULL;
    CubeReport *rep;
    double want;

    g_assert_nonnull (gtk_dialog_get_widget_for_response (GTK_DIALOG (offer), KUBUS_OFFER_RESPONSE_PROFILE));
    gtk_dialog_response (GTK_DIALOG (offer), KUBUS_OFFER_RESPONSE_PROFILE);
    WAIT_UNTIL ((pw = window_for (profile, NULL)) != NULL, "the profile's window");
    rep = kubus_browser_get_report (kubus_window_get_browser (pw));
    /* the profile measures the late sender's wait inside MPI_Recv: at least the truth's */
    want = truth (truth_file, "mpi_latesender");
    g_assert_cmpfloat (metric_total (rep, "time"), >=, want);
    gtk_window_destroy (GTK_WINDOW (pw));
  }
  spin (50);
  g_assert_false (g_file_test (report, G_FILE_TEST_EXISTS));
  g_assert_true (queue_idle ());

  /* gapplication action org.kubus.Kubus analyze 'FOLDER' — over the bus, into this process */
  {
    g_autoptr (GVariant) v = g_variant_ref_sink (g_variant_new_string (exp));
    g_autofree char *text = g_variant_print (v, FALSE);
    const char *argv[] = { "gapplication", "action", "org.kubus.Kubus", "analyze", text, NULL };
    g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_NONE, &error);
    g_assert_no_error (error);
    /* it waits for the reply, which this main loop sends */
    WAIT_UNTIL (g_subprocess_get_identifier (p) == NULL, "gapplication");
    g_subprocess_wait (p, NULL, NULL);
    g_assert_true (g_subprocess_get_successful (p));
  }
  WAIT_UNTIL ((window = window_for (report, NULL)) != NULL, "the report analysed over D-Bus");
  {
    CubeReport *rep = kubus_browser_get_report (kubus_window_get_browser (window));
    double want = truth (truth_file, "mpi_latesender"), got = metric_total (rep, "mpi_latesender");
    g_assert_cmpfloat (fabs (got - want), <=, MAX (0.005, 0.05 * want));
  }

  /* a second `kubus FILE` opens the report in this instance and ends */
  before = count_windows_for (report);
  {
    const char *argv[] = { kubus, report, NULL };
    g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_NONE, &error);
    g_assert_no_error (error);
    WAIT_UNTIL (g_subprocess_get_identifier (p) == NULL, "the second kubus");
    g_subprocess_wait (p, NULL, NULL);
    status = g_subprocess_get_exit_status (p);
  }
  g_assert_cmpint (status, ==, 0);
  WAIT_UNTIL (count_windows_for (report) == before + 1, "the forwarded report's window");
  (void) param;
}

/* ---- a compressed-only experiment and a .kct file (issue 15) ---------------------------------------- */

static void cancel_and_check (KubusRunner *run, guint min_processes);

/* A launcher that takes its time: "sh SCRIPT" where SCRIPT is "sleep 120 & wait" (kubus-analyze
 * and kubus-sim append -n N and their command, which the script ignores). Not "sh -c …": the
 * tools read -c N as a rank count, as some launchers mean it. */
static void
set_slow_launcher (void)
{
  g_autofree char *script = g_build_filename (tmpdir, "slow-launcher.sh", NULL);
  g_autofree char *quoted = g_shell_quote (script);
  g_autofree char *line = g_strdup_printf ("sh %s", quoted);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (script, "sleep 120 & wait\n", -1, &error));
  g_settings_set_string (settings, "mpirun-command", line);
}

static void
test_analyze_compressed (void)
{
  g_autofree char *exp = g_build_filename (experiments, "exp kct 'c'", NULL);
  g_autofree char *report = g_build_filename (exp, "analysis.cube", NULL);
  g_autofree char *truth_file = g_build_filename (tmpdir, "truth kct.txt", NULL);
  g_autofree char *kct = g_build_filename (tmpdir, "copy of 'run'.kct", NULL);
  g_autofree char *kct_report = g_build_filename (tmpdir, "copy of 'run'.cube", NULL);
  g_autofree char *anchor = g_build_filename (exp, "traces.otf2", NULL);
  g_autofree char *traces = g_build_filename (exp, "traces.kct", NULL);
  g_autoptr (GError) error = NULL;
  KubusWindow *window = NULL;
  double want, got;

  {
    const char *argv[] = { g_getenv ("KUBUS_RUN_PROGRAM"), "-o", exp, "--trace-format", "compressed", "--",
                           "mpirun", "-n", "2", "--oversubscribe", latesender, truth_file, NULL };
    g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE, &error);
    g_assert_no_error (error);
    /* it needs nothing from this main loop */
    g_assert_true (g_subprocess_wait (p, NULL, &error));
    g_assert_true (g_subprocess_get_successful (p));
  }
  g_assert_true (g_file_test (traces, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (anchor, G_FILE_TEST_EXISTS));

  /* Experiment › Analyze on the folder: kubus-analyze expands it to a temporary OTF2 archive.
   * The expansion lays each call out with its histogram block's mean time; this program waits
   * the same in every iteration, so the means are the waits and the truth holds within 5 %
   * (a wavefront's waits differ between instances: tests/kct/kct-test.py, case analyze). */
  activate ("analyze", g_variant_new_string (exp));
  WAIT_UNTIL ((window = window_for (report, NULL)) != NULL, "the analysis of the compressed trace");
  WAIT_UNTIL (queue_idle (), "the queue");
  want = truth (truth_file, "mpi_latesender");
  got = metric_total (kubus_browser_get_report (kubus_window_get_browser (window)), "mpi_latesender");
  g_test_message ("Late Sender from the compressed trace: truth %.6f s, report %.6f s", want, got);
  g_assert_cmpfloat (want, >, 0.05);
  g_assert_cmpfloat (fabs (got - want), <=, MAX (0.005, 0.05 * want));
  g_assert_cmpfloat (metric_total (kubus_browser_get_report (kubus_window_get_browser (window)), "comms_send"),
                     ==, truth (truth_file, "comms_send"));
  {
    /* nothing but the report beside the compressed trace: the expansion is gone */
    g_autoptr (GDir) d = g_dir_open (exp, 0, NULL);
    const char *n;
    while ((n = g_dir_read_name (d)) != NULL)
      if (g_str_has_prefix (n, "."))
        g_error ("left behind in the experiment: %s", n);
    g_assert_false (g_file_test (anchor, G_FILE_TEST_EXISTS));
  }

  /* a .kct file on its own: the report goes next to it */
  {
    g_autofree char *data = NULL;
    gsize len;
    g_assert_true (g_file_get_contents (traces, &data, &len, &error));
    g_assert_true (g_file_set_contents (kct, data, (gssize) len, &error));
  }
  activate ("analyze", g_variant_new_string (kct));
  WAIT_UNTIL ((window = window_for (kct_report, NULL)) != NULL, "the analysis of the .kct file");
  WAIT_UNTIL (queue_idle (), "the queue");
  g_assert_cmpfloat (fabs (metric_total (kubus_browser_get_report (kubus_window_get_browser (window)),
                                         "mpi_latesender") - got), <=, 1e-6);

  /* cancelled while the launcher runs (the expansion exists by then): it is removed too */
  {
    g_autofree char *stats = g_build_filename (exp, "analysis.stats.json", NULL);
    g_autoptr (KubusRunner) run = NULL;
    g_autoptr (GDir) d = NULL;
    const char *n;
    g_assert_cmpint (g_unlink (report), ==, 0);
    g_assert_cmpint (g_unlink (stats), ==, 0);
    set_slow_launcher ();
    /* kubus-analyze would replay this small trace in its own process: the launcher runs only
     * for the parallel replay */
    g_setenv ("KUBUS_ANALYZE_MODE", "parallel", TRUE);
    activate ("analyze", g_variant_new_string (exp));
    run = last_run ();
    cancel_and_check (run, 3);   /* kubus-analyze, sh, sleep */
    g_unsetenv ("KUBUS_ANALYZE_MODE");
    g_settings_reset (settings, "mpirun-command");
    d = g_dir_open (exp, 0, NULL);
    while ((n = g_dir_read_name (d)) != NULL)
      if (g_str_has_prefix (n, ".") || g_str_has_prefix (n, "analysis"))
        g_error ("left behind in the compressed experiment: %s", n);
  }
}

/* ---- failures ---------------------------------------------------------------------------------------- */

static void
test_failures (void)
{
  g_autofree char *primary = NULL, *secondary = NULL, *details = NULL;
  g_autofree char *missing_exp = g_build_filename (experiments, "never made", NULL);
  g_autofree char *crash_exp = g_build_filename (experiments, "crash ;exp", NULL);
  GVariantBuilder b;

  /* a program that is not there: kubus-run says so, with its exit status */
  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "executable", g_variant_new_string ("/nonexistent/my prog"));
  g_variant_builder_add (&b, "{sv}", "ranks", g_variant_new_int32 (2));
  g_variant_builder_add (&b, "{sv}", "folder", g_variant_new_string (missing_exp));
  activate ("measure", g_variant_builder_end (&b));
  take_error (&primary, &secondary, &details);
  g_assert_cmpstr (primary, ==, "The measurement failed");
  g_assert_cmpstr (secondary, ==, "kubus-run exited with status 127.");
  g_assert_nonnull (strstr (details, "kubus-run: program '/nonexistent/my prog' not found or not executable"));
  g_assert_false (g_file_test (missing_exp, G_FILE_TEST_EXISTS));
  assert_no_partial (experiments);
  g_clear_pointer (&primary, g_free);
  g_clear_pointer (&secondary, g_free);
  g_clear_pointer (&details, g_free);

  /* a rank that crashes (SIGSEGV on rank 2 of 4): the error names the signal; what the ranks
   * wrote before is kept as the experiment */
  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "executable", g_variant_new_string (g_getenv ("COLLECT_CRASH")));
  g_variant_builder_add (&b, "{sv}", "ranks", g_variant_new_int32 (4));
  g_variant_builder_add (&b, "{sv}", "folder", g_variant_new_string (crash_exp));
  activate ("measure", g_variant_builder_end (&b));
  take_error (&primary, &secondary, &details);
  g_test_message ("crash: %s\n%s", secondary, details);
  g_assert_cmpstr (primary, ==, "The measurement failed");
  g_assert_nonnull (strstr (secondary, "\nThe trace written before the end is kept in "));
  if (g_getenv ("KUBUS_SANITIZED") == NULL)
    {
      g_assert_true (g_str_has_prefix (secondary, "kubus-run exited with status 139: a process it ran was killed by "
                                                  "signal 11 (Segmentation fault).\n"));
      g_assert_nonnull (strstr (details, "signal 11"));
    }
  else   /* the sanitizer catches the SEGV and exits with 1 */
    g_assert_true (g_str_has_prefix (secondary, "kubus-run exited with status "));
  {
    g_autofree char *anchor = g_build_filename (crash_exp, "traces.otf2", NULL);
    g_assert_true (g_file_test (anchor, G_FILE_TEST_IS_REGULAR));
  }
  assert_no_partial (experiments);
  g_clear_pointer (&primary, g_free);
  g_clear_pointer (&secondary, g_free);
  g_clear_pointer (&details, g_free);

  /* analyze a folder without a trace: refused before anything runs */
  activate ("analyze", g_variant_new_string (tmpdir));
  take_error (&primary, &secondary, NULL);
  g_assert_cmpstr (primary, ==, "Cannot analyze");
  g_assert_true (g_str_has_suffix (secondary, "is not an experiment folder: it has neither traces.otf2 nor traces.kct."));
  g_clear_pointer (&primary, g_free);
  g_clear_pointer (&secondary, g_free);

  /* an experiment without a trace (kubus-run --no-trace): the error says what the folder holds
   * (a compressed-only experiment is analysed: /experiment/analyze-compressed) */
  {
    g_autofree char *prof = g_build_filename (experiments, "profile only 'p'", NULL);
    g_autofree char *want_prof = g_strconcat (prof, " was measured without a trace: open its profile (profile.cube) "
                                              "instead.", NULL);
    const char *names[] = { "kubus.json", "profile.cube", NULL };

    g_mkdir_with_parents (prof, 0755);
    for (guint i = 0; names[i] != NULL; i++)
      {
        g_autofree char *a = g_build_filename (prof, names[i], NULL);
        g_assert_true (g_file_set_contents (a, "", 0, NULL));
      }
    activate ("analyze", g_variant_new_string (prof));
    take_error (&primary, &secondary, NULL);
    g_assert_cmpstr (primary, ==, "Cannot analyze");
    g_assert_cmpstr (secondary, ==, want_prof);
    g_clear_pointer (&primary, g_free);
    g_clear_pointer (&secondary, g_free);
    g_assert_true (queue_idle ());
  }

  /* a measurement into a folder that exists, without "replace" */
  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "executable", g_variant_new_string (latesender));
  g_variant_builder_add (&b, "{sv}", "folder", g_variant_new_string (exp_one));
  activate ("measure", g_variant_builder_end (&b));
  take_error (&primary, &secondary, NULL);
  g_assert_cmpstr (primary, ==, "Cannot measure");
  g_assert_true (g_str_has_suffix (secondary, "exists already: choose another folder or replace it."));
  g_assert_true (queue_idle ());
}

/* ---- cancel ------------------------------------------------------------------------------------------ */

static void
cancel_and_check (KubusRunner *run,
                  guint        min_processes)
{
  GPid sid = kubus_runner_get_session (run);
  KubusWindow *window = KUBUS_WINDOW (gtk_application_get_windows (app)->data);
  KubusRunPanel *panel = kubus_run_panel_get (window);

  g_assert_cmpint (sid, >, 0);
  WAIT_UNTIL (pgrep_session (sid) >= min_processes, "the run's processes");
  g_assert_true (kubus_run_panel_get_shown (panel) == run);
  g_assert_true (gtk_widget_get_sensitive (kubus_run_panel_get_cancel_button (panel)));
  click (kubus_run_panel_get_cancel_button (panel));
  WAIT_UNTIL (kubus_runner_is_finished (run), "the cancelled run");
  g_assert_cmpint (kubus_runner_get_state (run), ==, KUBUS_RUNNER_CANCELLED);
  g_assert_cmpuint (pgrep_session (sid), ==, 0);
  g_assert_null (find_css ("kubus-run-error"));
}

static void
test_cancel_measure (void)
{
  g_autofree char *exp = g_build_filename (experiments, "cancelled 'run' $HOME", NULL);
  g_autoptr (KubusRunner) run = NULL;
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "executable", g_variant_new_string (g_getenv ("WS_DEMO")));
  g_variant_builder_add (&b, "{sv}", "arguments", g_variant_new_strv ((const char *const[]) { "500" }, 1));
  g_variant_builder_add (&b, "{sv}", "ranks", g_variant_new_int32 (4));
  g_variant_builder_add (&b, "{sv}", "folder", g_variant_new_string (exp));
  g_variant_builder_add (&b, "{sv}", "analyze", g_variant_new_boolean (TRUE));
  activate ("measure", g_variant_builder_end (&b));
  run = last_run ();
  /* kubus-run, mpirun and the 4 ranks */
  cancel_and_check (run, 6);
  WAIT_UNTIL (queue_idle (), "the queue");
  g_assert_false (g_file_test (exp, G_FILE_TEST_EXISTS));
  assert_no_partial (experiments);
  /* the analysis it would have chained never ran */
  {
    g_autoptr (KubusRunner) last = last_run ();
    g_assert_true (last == run);
  }
}

static void
test_cancel_analyze (void)
{
  g_autofree char *report = g_build_filename (exp_one, "analysis.cube", NULL);
  g_autoptr (KubusRunner) run = NULL;
  g_autoptr (GDir) d = NULL;
  const char *n;

  /* a launcher that takes its time: the analysis is cancelled while it runs */
  g_assert_cmpint (g_unlink (report), ==, 0);
  {
    g_autofree char *stats = g_build_filename (exp_one, "analysis.stats.json", NULL);
    g_assert_cmpint (g_unlink (stats), ==, 0);
  }
  set_slow_launcher ();
  g_setenv ("KUBUS_ANALYZE_MODE", "parallel", TRUE);   /* the launcher: parallel replay only */
  activate ("analyze", g_variant_new_string (exp_one));
  run = last_run ();
  g_assert_true (g_str_has_prefix (kubus_runner_get_title (run), "Analyze "));
  /* kubus-analyze, sh, sleep */
  cancel_and_check (run, 3);
  g_unsetenv ("KUBUS_ANALYZE_MODE");
  g_settings_reset (settings, "mpirun-command");
  /* no report and no half-written one */
  g_assert_false (g_file_test (report, G_FILE_TEST_EXISTS));
  d = g_dir_open (exp_one, 0, NULL);
  while ((n = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (n, ".") || g_str_has_prefix (n, "analysis"))
      g_error ("left behind in the experiment: %s", n);
}

/* ---- notifications -------------------------------------------------------------------------------- */

static void
test_notification (void)
{
  g_autofree char *exp = g_build_filename (experiments, "exp two \"dq\" |*", NULL);
  g_autofree char *report = g_build_filename (exp, "analysis.cube", NULL);
  GList *windows = g_list_copy (gtk_application_get_windows (app));
  guint before = n_notified;
  KubusWindow *w;

  /* no window to look at (notify-after is 0 here): the desktop says it */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_widget_set_visible (l->data, FALSE);
  activate ("analyze", g_variant_new_string (exp));
  WAIT_UNTIL (queue_idle (), "the analysis");
  WAIT_UNTIL (n_notified == before + 1, "the notification");
  g_assert_cmpstr (last_notification, ==, "Finished: Analyze exp two \"dq\" |*");
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_widget_set_visible (l->data, TRUE);
  g_list_free (windows);

  /* with a window in front, no notification (the report opens after the run: wait for it) */
  WAIT_UNTIL ((w = window_for (report, NULL)) != NULL, "the report's window");
  gtk_window_present (GTK_WINDOW (w));
  spin (300);
  if (!gtk_window_is_active (GTK_WINDOW (w)))
    {
      g_test_message ("no window becomes active on this display: the second half is not checked");
      return;
    }
  activate ("analyze", g_variant_new_string (exp));
  WAIT_UNTIL (queue_idle (), "the analysis");
  spin (300);
  g_assert_cmpuint (n_notified, ==, before + 1);
}

/* ---- the log panel under a flood ---------------------------------------------------------------------- */

static void
test_panel_flood (void)
{
  const char *argv[] = { "/bin/sh", "-c", "seq 1 20000; echo 'kubus-sim: [ 40%] flooding'; sleep 0.3", NULL };
  g_autoptr (KubusRunner) r = kubus_runner_new ("flood", argv);
  KubusWindow *window = KUBUS_WINDOW (gtk_application_get_windows (app)->data);
  KubusRunPanel *panel = kubus_run_panel_get (window);
  GtkTextBuffer *log = kubus_run_panel_get_log (panel);
  GtkProgressBar *bar = GTK_PROGRESS_BAR (kubus_run_panel_get_progress_bar (panel));
  GtkTextIter a, b;
  g_autofree char *first = NULL, *last = NULL;

  kubus_run_queue_add (queue (), r);
  g_assert_true (kubus_run_panel_get_shown (panel) == r);
  /* the progress line moves the bar while the run goes on */
  WAIT_UNTIL (kubus_runner_get_progress (r) == 0.4 || kubus_runner_is_finished (r), "the progress line");
  spin (150);
  if (!kubus_runner_is_finished (r))
    {
      g_assert_cmpfloat (gtk_progress_bar_get_fraction (bar), ==, 0.4);
      g_assert_cmpstr (gtk_progress_bar_get_text (bar), ==, "40 %");
    }
  WAIT_UNTIL (kubus_runner_is_finished (r), "the flood");
  spin (150);
  /* the last 5000 lines, the oldest gone */
  g_assert_cmpint (gtk_text_buffer_get_line_count (log), ==, 5001);
  gtk_text_buffer_get_iter_at_line (log, &a, 0);
  gtk_text_buffer_get_iter_at_line (log, &b, 1);
  first = gtk_text_buffer_get_text (log, &a, &b, FALSE);
  g_assert_cmpstr (first, ==, "15002\n");
  gtk_text_buffer_get_iter_at_line (log, &a, 4999);
  gtk_text_buffer_get_end_iter (log, &b);
  last = gtk_text_buffer_get_text (log, &a, &b, FALSE);
  g_assert_cmpstr (last, ==, "kubus-sim: [ 40%] flooding\n");
  g_assert_cmpstr (gtk_progress_bar_get_text (bar), ==, "done");
  g_assert_cmpfloat (gtk_progress_bar_get_fraction (bar), ==, 1.0);
}

/* ---- compare ------------------------------------------------------------------------------------------ */

static void
write_report (const char *path,
              double      scale)
{
  g_autoptr (CubeReport) r = gui_test_report_new (scale);
  g_autoptr (GError) error = NULL;

  g_assert_true (cube_report_write (r, path, &error));
  g_assert_no_error (error);
}

static void
assert_call_pane (KubusWindow *window,
                  const char  *want)
{
  g_autofree char *got = kubus_pane_model_to_string (kubus_browser_get_pane (kubus_window_get_browser (window),
                                                                             KUBUS_PANE_CALL));
  g_assert_cmpstr (got, ==, want);
}

static void
test_compare (void)
{
  g_autofree char *exp = g_build_filename (experiments, "study \"x\" $(y)", NULL);
  g_autofree char *sim = g_build_filename (exp, "sim-half 'it'", NULL);
  g_autofree char *a = g_build_filename (exp, "analysis.cube", NULL);
  g_autofree char *bb = g_build_filename (sim, "analysis.cube", NULL);
  KubusWindow *diff = NULL, *wa = NULL, *wb = NULL;
  GtkListBox *rows;

  g_mkdir_with_parents (sim, 0755);
  write_report (a, 1.0);
  write_report (bb, 0.5);
  {
    g_autofree char *anchor = g_build_filename (exp, "traces.otf2", NULL);
    g_autofree char *dc = g_build_filename (sim, "difference.cube", NULL);
    g_assert_true (g_file_set_contents (anchor, "", 0, NULL));
    write_report (dc, 0.5);
  }
  activate ("compare", g_variant_new ("(ss)", exp, sim));
  WAIT_UNTIL ((diff = window_for (a, bb)) != NULL, "the comparison");
  WAIT_UNTIL ((wa = window_for (a, NULL)) != NULL && (wb = window_for (bb, NULL)) != NULL, "both reports");
  g_assert_true (kubus_browser_is_difference (kubus_window_get_browser (diff)));
  /* A − B in percent of A's total: B is half of A, so every call path keeps half its share */
  assert_call_pane (diff, "main 50.00 [+] *\n");
  assert_call_pane (wa, "main 16.00 [+] *\n");
  assert_call_pane (wb, "main 8.00 [+] *\n");

  /* comparing again presents the same windows */
  {
    guint n = g_list_length (gtk_application_get_windows (app));
    activate ("compare", g_variant_new ("(ss)", a, bb));
    spin (100);
    g_assert_cmpuint (g_list_length (gtk_application_get_windows (app)), ==, n);
  }

  /* the study is the first of the recent studies, on a new window's start screen */
  {
    KubusWindow *fresh = kubus_window_new (app);
    GtkWidget *row;
    gtk_window_present (GTK_WINDOW (fresh));
    rows = kubus_study_list_get_rows (fresh);
    g_assert_nonnull (rows);
    row = GTK_WIDGET (gtk_list_box_get_row_at_index (rows, 0));
    g_assert_nonnull (row);
    g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (GTK_WIDGET (rows))));
    {
      g_autoptr (GPtrArray) recent = kubus_study_recent ();
      KubusStudy *s = recent->pdata[0];
      g_assert_cmpstr (s->experiment, ==, exp);
      g_assert_cmpstr (s->simulation, ==, sim);
    }
    gtk_window_destroy (GTK_WINDOW (fresh));
  }
}

/* ---- simulate ---------------------------------------------------------------------------------------- */

static gboolean
model_has (GListModel *model,
           const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (GtkStringObject) s = g_list_model_get_item (model, i);
      if (g_str_equal (gtk_string_object_get_string (s), name))
        return TRUE;
    }
  return FALSE;
}

static void
select_string (GtkDropDown *dd,
               const char  *name)
{
  GListModel *model = gtk_drop_down_get_model (dd);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (GtkStringObject) s = g_list_model_get_item (model, i);
      if (g_str_equal (gtk_string_object_get_string (s), name))
        {
          gtk_drop_down_set_selected (dd, i);
          return;
        }
    }
  g_error ("no %s in the drop-down", name);
}

static void
test_simulate (void)
{
  g_autofree char *report = g_build_filename (exp_one, "analysis.cube", NULL);
  g_autofree char *hyp = g_build_filename (exp_one, "half late;sender.hyp", NULL);
  g_autofree char *contents = NULL;
  const char *sim_tool = g_getenv ("KUBUS_SIM_PROGRAM");
  gboolean have_sim = sim_tool != NULL && g_file_test (sim_tool, G_FILE_TEST_IS_EXECUTABLE);
  GtkWindow *dialog = NULL;
  GtkDropDown *region;
  GtkTextBuffer *text;
  g_autofree char *program = g_path_get_basename (latesender);

  /* the analysis again (the cancel test removed it) and its window */
  activate ("analyze", g_variant_new_string (exp_one));
  WAIT_UNTIL (queue_idle () && window_for (report, NULL) != NULL, "the analysis");

  activate ("simulate", g_variant_new ("(sss)", exp_one, "", ""));
  WAIT_UNTIL ((dialog = find_toplevel_with ("region")) != NULL, "the simulate dialog");
  region = g_object_get_data (G_OBJECT (dialog), "region");
  text = gtk_text_view_get_buffer (g_object_get_data (G_OBJECT (dialog), "text"));
  /* regions from the report's call tree: the program's own for balance and scale (the program
   * is not instrumented: its region is the program, named as the file) … */
  g_assert_true (model_has (gtk_drop_down_get_model (region), program));
  g_assert_false (model_has (gtk_drop_down_get_model (region), "MPI_Recv"));
  gtk_text_buffer_set_text (text, "# halve the senders' delay", -1);
  gtk_drop_down_set_selected (g_object_get_data (G_OBJECT (dialog), "kind"), 2);   /* scale */
  select_string (region, program);
  gtk_spin_button_set_value (g_object_get_data (G_OBJECT (dialog), "factor"), 0.5);
  click (g_object_get_data (G_OBJECT (dialog), "add"));
  /* … and the MPI functions too for "remove messages in region" */
  gtk_drop_down_set_selected (g_object_get_data (G_OBJECT (dialog), "kind"), 5);
  g_assert_true (model_has (gtk_drop_down_get_model (region), "MPI_Recv"));
  gtk_drop_down_set_selected (g_object_get_data (G_OBJECT (dialog), "kind"), 4);   /* by tag */
  gtk_drop_down_set_selected (g_object_get_data (G_OBJECT (dialog), "op"), 2);     /* == */
  gtk_spin_button_set_value (g_object_get_data (G_OBJECT (dialog), "number"), 77);
  click (g_object_get_data (G_OBJECT (dialog), "add"));
  gtk_editable_set_text (g_object_get_data (G_OBJECT (dialog), "name"), "half late;sender");
  click (g_object_get_data (G_OBJECT (dialog), "run"));

  /* saved with the experiment, exactly as shown */
  g_assert_true (g_file_get_contents (hyp, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "# halve the senders' delay\nscale region \"late 'sender' \\\"x\\\"\" by 0.5\n"
                                 "remove messages with tag == 77\n");
  if (!have_sim)
    {
      g_autofree char *primary = NULL, *secondary = NULL;
      take_error (&primary, &secondary, NULL);
      g_assert_cmpstr (primary, ==, "Cannot simulate");
      g_assert_nonnull (strstr (secondary, "KUBUS_SIM_PROGRAM"));
      g_test_message ("kubus-sim is not built: the simulation itself is not run");
      return;
    }
  {
    g_autofree char *sim = g_build_filename (exp_one, "sim-half late;sender", NULL);
    g_autofree char *sim_report = g_build_filename (sim, "analysis.cube", NULL);
    KubusWindow *diff = NULL;

    WAIT_UNTIL ((diff = window_for (report, sim_report)) != NULL, "the simulation's comparison");
    g_assert_true (kubus_browser_is_difference (kubus_window_get_browser (diff)));
    WAIT_UNTIL (window_for (sim_report, NULL) != NULL, "the simulated report's window");
    assert_no_partial (exp_one);

    /* a simulation cancelled while its launcher starts: no simulation folder, nothing left */
    {
      g_autofree char *other = g_build_filename (exp_one, "sim-cancelled 'one'", NULL);
      g_autoptr (KubusRunner) run = NULL;
      set_slow_launcher ();
      activate ("simulate", g_variant_new ("(sss)", exp_one, hyp, other));
      run = last_run ();
      g_assert_true (g_str_has_prefix (kubus_runner_get_title (run), "Simulate "));
      cancel_and_check (run, 3);
      g_settings_reset (settings, "mpirun-command");
      g_assert_false (g_file_test (other, G_FILE_TEST_EXISTS));
      {
        g_autoptr (GDir) d = g_dir_open (exp_one, 0, NULL);
        const char *n;
        while ((n = g_dir_read_name (d)) != NULL)
          if (g_str_has_prefix (n, "."))
            g_error ("left behind in the experiment: %s", n);
      }
    }

    /* a real simulation cancelled while its ranks re-enact the run: the program's own time
     * scaled by 20 makes the re-enactment long; Cancel goes once kubus-sim says it has begun
     * (a progress line, not a fixed delay) */
    {
      g_autofree char *other = g_build_filename (exp_one, "sim-stopped \"r\" $(z)", NULL);
      g_autofree char *slow = g_build_filename (exp_one, "slow down.hyp", NULL);
      g_autoptr (KubusRunner) run = NULL;

      g_assert_true (g_file_set_contents (slow, "scale region \"late 'sender' \\\"x\\\"\" by 20\n", -1, NULL));
      activate ("simulate", g_variant_new ("(sss)", exp_one, slow, other));
      run = last_run ();
      WAIT_UNTIL (kubus_runner_is_finished (run)
                  || strstr (kubus_runner_get_phase (run) ? kubus_runner_get_phase (run) : "", "re-enacting") != NULL,
                  "the re-enactment");
      g_assert_false (kubus_runner_is_finished (run));
      /* kubus-sim, mpirun and its ranks */
      cancel_and_check (run, 3);
      g_assert_false (g_file_test (other, G_FILE_TEST_EXISTS));
      {
        g_autoptr (GDir) d = g_dir_open (exp_one, 0, NULL);
        const char *n;
        while ((n = g_dir_read_name (d)) != NULL)
          if (g_str_has_prefix (n, "."))
            g_error ("left behind in the experiment: %s", n);
      }
    }
  }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *bindir = NULL;
  static const char *const need[] = { "KUBUS", "KUBUS_RUN_PROGRAM", "KUBUS_ANALYZE_PROGRAM", "WS_LATESENDER",
                                      "WS_DEMO", "COLLECT_CRASH" };
  int status;

  if (g_getenv ("DISPLAY") == NULL || g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_print ("1..0 # SKIP needs a display and a session bus (tests/gui/dbus-wrap.sh, xvfb-wrap.sh)\n");
      return 77;
    }
  for (guint i = 0; i < G_N_ELEMENTS (need); i++)
    if (g_getenv (need[i]) == NULL || !g_file_test (g_getenv (need[i]), G_FILE_TEST_IS_EXECUTABLE))
      {
        g_print ("1..0 # SKIP %s is not built\n", need[i]);
        return 77;
      }
  tmpdir = g_dir_make_tmp ("kubus experiment 'q' \"d\" $(x);&|*-XXXXXX", &error);
  g_assert_no_error (error);
  {
    g_autofree char *data_home = g_build_filename (tmpdir, "data-home", NULL);
    g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  }
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);

  gtk_test_init (&argc, &argv, NULL);
  start_notification_server ();
  settings = g_settings_new ("org.kubus.Kubus");
  experiments = g_build_filename (tmpdir, "my experiments $(x)", NULL);
  g_settings_set_string (settings, "experiments-folder", experiments);
  g_settings_set_uint (settings, "notify-after", 0);
  g_mkdir_with_parents (experiments, 0755);
  /* the program under a name no shell would survive */
  bindir = g_build_filename (tmpdir, "bin dir;& $(x)", NULL);
  g_mkdir_with_parents (bindir, 0755);
  latesender = g_build_filename (bindir, "late 'sender' \"x\"", NULL);
  {
    g_autoptr (GFile) from = g_file_new_for_path (g_getenv ("WS_LATESENDER"));
    g_autoptr (GFile) to = g_file_new_for_path (latesender);
    g_assert_true (g_file_copy (from, to, G_FILE_COPY_NONE, NULL, NULL, NULL, &error));
    g_chmod (latesender, 0755);
  }

  /* the session's single instance, as `kubus` is */
  app = GTK_APPLICATION (kubus_application_new ());
  g_application_set_flags (G_APPLICATION (app), g_application_get_flags (G_APPLICATION (app)) & ~G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("cannot register the application: %s", error->message);
  g_assert_false (g_application_get_is_remote (G_APPLICATION (app)));
  g_application_hold (G_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (kubus_window_new (app)));

  g_test_add_func ("/experiment/measure-dialog-analyze", test_measure_dialog);
  g_test_add_func ("/experiment/analyze-over-dbus", test_analyze_dbus);
  g_test_add_func ("/experiment/analyze-compressed", test_analyze_compressed);
  g_test_add_func ("/experiment/failures", test_failures);
  g_test_add_func ("/experiment/cancel-measure", test_cancel_measure);
  g_test_add_func ("/experiment/cancel-analyze", test_cancel_analyze);
  g_test_add_func ("/experiment/notification", test_notification);
  g_test_add_func ("/experiment/panel-flood", test_panel_flood);
  g_test_add_func ("/experiment/compare", test_compare);
  g_test_add_func ("/experiment/simulate", test_simulate);
  status = g_test_run ();

  g_application_release (G_APPLICATION (app));
  g_application_quit (G_APPLICATION (app));
  kubus_tool_remove_tree (tmpdir, NULL);
  return status;
}
