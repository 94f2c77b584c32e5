/* kubus-experiment-actions.c — the Experiment actions (see kubus-experiment.h): each turns its
 * parameter into a run of a Kubus tool on the application's queue, and when the run ends opens
 * what it wrote, offers the next step, or says what went wrong.
 *
 * Outputs appear whole or not at all. kubus-analyze and kubus-sim write atomically themselves;
 * kubus-run writes into the experiment folder as the program runs, so a measurement goes to a
 * hidden sibling folder (.NAME.kubus-partial-XXXXXX) that is moved into place when kubus-run
 * is done, and removed when the run is cancelled. */
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "kubus-experiment.h"
#include "kubus-experiment-dialogs.h"
#include "kubus-experiment-study.h"
#include "kubus-experiment-tools.h"
#include "kubus-run-panel.h"
#include "kubus-study-list.h"
#include "kubus-window-private.h"
#include "../core/experiment-files.h"

#include <errno.h>
#include <string.h>

#define ERROR_TAIL_LINES 15

typedef struct
{
  GtkApplication *app;       /* not owned: the application owns this */
  KubusRunQueue  *queue;
  gboolean        held;
} Experiment;

typedef enum { JOB_MEASURE, JOB_ANALYZE, JOB_SIMULATE } JobKind;

typedef struct
{
  JobKind         kind;
  GtkApplication *app;
  char           *folder;      /* measure: the experiment folder; analyze: the input */
  char           *tmp;         /* measure: where kubus-run writes */
  gboolean        replace;
  gboolean        analyze_after;
  gboolean        kept;        /* measure: a failed run's trace was moved into place */
  char           *report;      /* analyze: what it writes */
  gboolean        open_report;
  char           *experiment;  /* simulate */
  char           *hypothesis;
  char           *output;
} Job;

static void
job_free (gpointer data)
{
  Job *job = data;

  g_free (job->folder);
  g_free (job->tmp);
  g_free (job->report);
  g_free (job->experiment);
  g_free (job->hypothesis);
  g_free (job->output);
  g_free (job);
}

static Experiment *
experiment_get (GtkApplication *app)
{
  return g_object_get_data (G_OBJECT (app), "kubus-experiment");
}

KubusRunQueue *
kubus_experiment_get_queue (GtkApplication *app)
{
  Experiment *exp = experiment_get (app);

  g_return_val_if_fail (exp != NULL, NULL);
  return exp->queue;
}

/* ---- windows ------------------------------------------------------------------------------------- */

static KubusWindow *
window_showing (GtkApplication *app,
                GFile          *a,
                GFile          *b)
{
  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    {
      KubusWindow *w;

      if (!KUBUS_IS_WINDOW (l->data))
        continue;
      w = l->data;
      if (w->file != NULL && g_file_equal (w->file, a)
          && ((b == NULL && w->file_b == NULL) || (b != NULL && w->file_b != NULL && g_file_equal (w->file_b, b))))
        return w;
    }
  return NULL;
}

/* A window without a report (the start screen) that is not loading one. */
static KubusWindow *
empty_window (GtkApplication *app)
{
  GtkWindow *active = gtk_application_get_active_window (app);

  if (active != NULL && KUBUS_IS_WINDOW (active) && kubus_window_get_browser (KUBUS_WINDOW (active)) == NULL
      && !kubus_window_is_busy (KUBUS_WINDOW (active)))
    return KUBUS_WINDOW (active);
  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    if (KUBUS_IS_WINDOW (l->data) && kubus_window_get_browser (l->data) == NULL && !kubus_window_is_busy (l->data))
      return l->data;
  return NULL;
}

static void
open_report (GtkApplication *app,
             const char     *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  KubusWindow *window = window_showing (app, file, NULL);

  if (window != NULL)
    {
      /* its file monitor reloads a report that was written again */
      gtk_window_present (GTK_WINDOW (window));
      return;
    }
  window = empty_window (app);
  if (window == NULL)
    window = kubus_window_new (app);
  kubus_window_open (window, file);
  gtk_window_present (GTK_WINDOW (window));
}

/* Runs show in the windows' run panels: make sure there is a window to show them. */
static void
ensure_window (GtkApplication *app)
{
  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    if (KUBUS_IS_WINDOW (l->data))
      return;
  gtk_window_present (GTK_WINDOW (kubus_window_new (app)));
}

void
kubus_experiment_error (GtkApplication *app,
                        const char     *primary,
                        const char     *secondary,
                        const char     *details)
{
  GtkWindow *parent;

  /* a refusal over D-Bus may come while no window is open: the message needs one */
  ensure_window (app);
  parent = gtk_application_get_active_window (app);
  GtkWidget *dialog = gtk_message_dialog_new (parent, GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_ERROR,
                                              GTK_BUTTONS_CLOSE, "%s", primary);

  if (secondary != NULL)
    gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", secondary);
  if (details != NULL && *details != '\0')
    {
      GtkWidget *area = gtk_message_dialog_get_message_area (GTK_MESSAGE_DIALOG (dialog));
      GtkWidget *label = gtk_label_new (_("Last lines of the output:"));
      GtkWidget *scrolled = gtk_scrolled_window_new ();
      GtkWidget *view = gtk_text_view_new ();

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
      gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
      gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
      gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), details, -1);
      gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
      gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 160);
      gtk_scrolled_window_set_min_content_width (GTK_SCROLLED_WINDOW (scrolled), 520);
      gtk_box_append (GTK_BOX (area), label);
      gtk_box_append (GTK_BOX (area), scrolled);
      g_object_set_data (G_OBJECT (dialog), "kubus-details-view", view);
    }
  gtk_widget_add_css_class (dialog, "kubus-run-error");
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
refused (GtkApplication *app,
         const char     *primary,
         const GError   *error)
{
  kubus_experiment_error (app, primary, error->message, NULL);
}

/* ---- notifications -------------------------------------------------------------------------------- */

static gboolean
any_window_active (GtkApplication *app)
{
  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    if (gtk_window_is_active (l->data))
      return TRUE;
  return FALSE;
}

static guint
notify_after (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = source != NULL
    ? g_settings_schema_source_lookup (source, "org.kubus.Kubus", TRUE) : NULL;
  g_autoptr (GSettings) settings = NULL;

  if (schema == NULL || !g_settings_schema_has_key (schema, "notify-after"))
    return 10;
  settings = g_settings_new ("org.kubus.Kubus");
  return g_settings_get_uint (settings, "notify-after");
}

/* A long run that ends while the user looks elsewhere: say so on the desktop. @action and
 * @target (may be NULL) is what clicking the notification does. */
static void
maybe_notify (GtkApplication *app,
              KubusRunner    *runner,
              const char     *action,
              GVariant       *target)
{
  g_autoptr (GNotification) n = NULL;
  g_autofree char *title = NULL;
  g_autoptr (GVariant) sink = target != NULL ? g_variant_ref_sink (target) : NULL;
  KubusRunnerState state = kubus_runner_get_state (runner);

  if (state == KUBUS_RUNNER_CANCELLED || any_window_active (app)
      || kubus_runner_get_duration (runner) < notify_after ())
    return;
  title = g_strdup_printf (state == KUBUS_RUNNER_SUCCEEDED ? _("Finished: %s") : _("Failed: %s"),
                           kubus_runner_get_title (runner));
  n = g_notification_new (title);
  if (state == KUBUS_RUNNER_SUCCEEDED)
    {
      g_autofree char *body = g_strdup_printf (_("After %.0f s."), kubus_runner_get_duration (runner));
      g_notification_set_body (n, body);
    }
  else
    g_notification_set_body (n, kubus_runner_get_message (runner));
  if (action != NULL)
    g_notification_set_default_action_and_target_value (n, action, sink);
  g_application_send_notification (G_APPLICATION (app), "kubus-run", n);
}

/* ---- measure ------------------------------------------------------------------------------------- */

static void
measure_done (KubusRunner     *runner,
              KubusRunnerState outcome,
              gpointer         data)
{
  Job *job = data;
  g_autoptr (GError) error = NULL;
  gboolean have_trace = kubus_experiment_has_trace (job->tmp);

  if (outcome == KUBUS_RUNNER_CANCELLED || !have_trace)
    {
      if (!kubus_tool_remove_tree (job->tmp, &error))
        g_warning ("%s", error->message);
      if (outcome == KUBUS_RUNNER_SUCCEEDED)
        kubus_runner_fail (runner, _("kubus-run ended without writing a trace (did the program call MPI_Init?)."));
      return;
    }
  /* A failed run with a trace (a rank that crashed: kubus-run keeps what the ranks wrote)
   * is kept too: its trace shows what happened before the end. */
  if (!kubus_tool_move_folder (job->tmp, job->folder, job->replace, &error))
    {
      g_autoptr (GError) rm_error = NULL;
      kubus_tool_remove_tree (job->tmp, &rm_error);
      kubus_runner_fail (runner, error->message);
    }
  else
    job->kept = outcome == KUBUS_RUNNER_FAILED;
}

static void
on_measure_finished (KubusRunner *runner,
                     Job         *job)
{
  GtkApplication *app = job->app;
  KubusRunnerState state = kubus_runner_get_state (runner);

  if (state == KUBUS_RUNNER_SUCCEEDED)
    {
      g_autoptr (KubusStudy) study = kubus_study_new (job->folder, NULL, NULL);
      kubus_study_remember (study);
      maybe_notify (app, runner, "app.analyze", g_variant_new_string (job->folder));
      if (job->analyze_after)
        g_action_group_activate_action (G_ACTION_GROUP (app), "analyze", g_variant_new_string (job->folder));
      else
        kubus_offer_analyze (gtk_application_get_active_window (app), app, job->folder);
    }
  else if (state == KUBUS_RUNNER_FAILED)
    {
      g_autofree char *tail = kubus_runner_dup_tail (runner, ERROR_TAIL_LINES);
      g_autofree char *secondary = NULL;

      if (job->kept)
        secondary = g_strdup_printf (_("%s\nThe trace written before the end is kept in %s."),
                                     kubus_runner_get_message (runner), job->folder);
      maybe_notify (app, runner, NULL, NULL);
      kubus_experiment_error (app, _("The measurement failed"),
                              secondary ? secondary : kubus_runner_get_message (runner), tail);
    }
}

static void
action_measure (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GtkApplication *app = user_data;
  KubusMeasureParams params;
  KubusToolPrefs prefs;
  g_autoptr (GError) error = NULL;
  g_autofree char *tool = NULL, *folder = NULL, *parent = NULL, *base = NULL, *tmpl = NULL, *title = NULL;
  g_auto (GStrv) argv = NULL;
  g_autoptr (KubusRunner) runner = NULL;
  Job *job;
  int ranks;

  (void) action;
  if (g_variant_n_children (parameter) == 0)
    {
      kubus_measure_dialog_show (gtk_application_get_active_window (app), app);
      return;
    }
  if (!kubus_measure_params_parse (parameter, &params, &error))
    {
      refused (app, _("Cannot measure"), error);
      return;
    }
  kubus_tool_prefs_load (&prefs);
  ranks = params.ranks > 0 ? params.ranks : prefs.default_ranks;
  if (params.folder != NULL && *params.folder != '\0')
    folder = g_canonicalize_filename (params.folder, NULL);
  else
    {
      g_mkdir_with_parents (prefs.experiments_folder, 0755);
      folder = kubus_measure_default_folder (prefs.experiments_folder, params.executable, ranks);
    }
  parent = g_path_get_dirname (folder);
  base = g_path_get_basename (folder);

  if (g_file_test (folder, G_FILE_TEST_EXISTS) && !(params.replace && g_file_test (folder, G_FILE_TEST_IS_DIR)))
    g_set_error (&error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                 _("%s exists already: choose another folder or replace it."), folder);
  else if (g_mkdir_with_parents (parent, 0755) != 0)
    g_set_error (&error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot create the folder %s: %s"), parent,
                 g_strerror (errno));
  else if ((tool = kubus_tool_find ("kubus-run", &error)) != NULL)
    {
      tmpl = g_strdup_printf ("%s/.%s.kubus-partial-XXXXXX", parent, base);
      if (g_mkdtemp_full (tmpl, 0755) == NULL)
        g_set_error (&error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write in the folder %s: %s"), parent,
                     g_strerror (errno));
      else if ((argv = kubus_measure_argv (tool, &prefs, &params, ranks, tmpl, &error)) == NULL)
        g_rmdir (tmpl);
    }
  if (error != NULL)
    {
      refused (app, _("Cannot measure"), error);
      kubus_measure_params_clear (&params);
      kubus_tool_prefs_clear (&prefs);
      return;
    }

  title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Measure %s (%d rank)", "Measure %s (%d ranks)", ranks),
                           base, ranks);
  runner = kubus_runner_new (title, (const char *const *) argv);
  if (params.working_folder != NULL && *params.working_folder != '\0')
    kubus_runner_set_cwd (runner, params.working_folder);
  else
    {
      /* the program's folder (where its input files usually are), else the experiment's */
      g_autofree char *dir = g_path_get_dirname (params.executable);
      kubus_runner_set_cwd (runner, g_path_is_absolute (dir) && g_file_test (dir, G_FILE_TEST_IS_DIR) ? dir : parent);
    }
  job = g_new0 (Job, 1);
  job->kind = JOB_MEASURE;
  job->app = app;
  job->folder = g_steal_pointer (&folder);
  job->tmp = g_strdup (tmpl);
  job->replace = params.replace;
  job->analyze_after = params.analyze;
  kubus_runner_set_done_func (runner, measure_done, job, NULL);
  g_object_set_data_full (G_OBJECT (runner), "kubus-job", job, job_free);
  g_signal_connect (runner, "finished", G_CALLBACK (on_measure_finished), job);
  ensure_window (app);
  kubus_run_queue_add (kubus_experiment_get_queue (app), runner);
  kubus_measure_params_clear (&params);
  kubus_tool_prefs_clear (&prefs);
}

/* ---- analyze ------------------------------------------------------------------------------------- */

static void
analyze_done (KubusRunner     *runner,
              KubusRunnerState outcome,
              gpointer         data)
{
  Job *job = data;

  if (outcome == KUBUS_RUNNER_SUCCEEDED && !g_file_test (job->report, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *msg = g_strdup_printf (_("kubus-analyze ended without writing %s."), job->report);
      kubus_runner_fail (runner, msg);
    }
}

static void
on_analyze_finished (KubusRunner *runner,
                     Job         *job)
{
  GtkApplication *app = job->app;
  KubusRunnerState state = kubus_runner_get_state (runner);

  if (state == KUBUS_RUNNER_SUCCEEDED)
    {
      g_autoptr (KubusStudy) study = kubus_study_for_report (job->report);
      g_autofree char *uri = g_filename_to_uri (job->report, NULL, NULL);

      if (study != NULL && study->simulation == NULL)
        kubus_study_remember (study);
      maybe_notify (app, runner, "app.open-uri", uri ? g_variant_new_string (uri) : NULL);
      if (job->open_report)
        open_report (app, job->report);
    }
  else if (state == KUBUS_RUNNER_FAILED)
    {
      g_autofree char *tail = kubus_runner_dup_tail (runner, ERROR_TAIL_LINES);
      maybe_notify (app, runner, NULL, NULL);
      kubus_experiment_error (app, _("The analysis failed"), kubus_runner_get_message (runner), tail);
    }
}

/* Queues an analysis of @input; FALSE (and @error) when it cannot run. */
static gboolean
queue_analyze (GtkApplication *app,
               const char     *input,
               gboolean        open,
               GError        **error)
{
  KubusToolPrefs prefs;
  g_autofree char *tool = NULL, *path = NULL, *base = NULL, *title = NULL;
  g_auto (GStrv) argv = NULL;
  g_autoptr (KubusRunner) runner = NULL;
  Job *job;

  path = g_canonicalize_filename (input, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *profile = g_build_filename (path, "profile.cube", NULL);
      g_autofree char *why = NULL;
      if (!kubus_experiment_has_trace (path) && (why = kubus_experiment_why_no_traces (path)) != NULL)
        {
          /* TRANSLATORS: the second %s is a reason, e.g. "the run wrote no trace traces.kct: …" */
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("%s has no trace to open: %s."), path, why);
          return FALSE;
        }
      if (!kubus_experiment_has_trace (path))
        {
          /* kubus-run --no-trace writes experiments without a trace: say what the folder holds
           * and what can be done with it */
          if (g_file_test (profile, G_FILE_TEST_IS_REGULAR))
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                         _("%s was measured without a trace: open its profile (profile.cube) instead."), path);
          else
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                         _("%s is not an experiment folder: it has neither traces.otf2 nor traces.kct."), path);
          return FALSE;
        }
    }
  else if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)
           || !(g_str_has_suffix (path, ".otf2") || g_str_has_suffix (path, ".kct")))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s is neither an experiment folder nor a trace (.otf2, or compressed .kct)."), path);
      return FALSE;
    }
  if ((tool = kubus_tool_find ("kubus-analyze", error)) == NULL)
    return FALSE;
  kubus_tool_prefs_load (&prefs);
  argv = kubus_analyze_argv (tool, &prefs, path, error);
  kubus_tool_prefs_clear (&prefs);
  if (argv == NULL)
    return FALSE;

  base = g_path_get_basename (path);
  title = g_strdup_printf (_("Analyze %s"), base);
  runner = kubus_runner_new (title, (const char *const *) argv);
  job = g_new0 (Job, 1);
  job->kind = JOB_ANALYZE;
  job->app = app;
  job->folder = g_strdup (path);
  job->report = kubus_analyze_report_path (path);
  job->open_report = open;
  kubus_runner_set_done_func (runner, analyze_done, job, NULL);
  g_object_set_data_full (G_OBJECT (runner), "kubus-job", job, job_free);
  g_signal_connect (runner, "finished", G_CALLBACK (on_analyze_finished), job);
  ensure_window (app);
  kubus_run_queue_add (kubus_experiment_get_queue (app), runner);
  return TRUE;
}

static void
action_analyze (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GtkApplication *app = user_data;
  const char *input = g_variant_get_string (parameter, NULL);
  g_autoptr (GError) error = NULL;

  (void) action;
  if (*input == '\0')
    {
      kubus_analyze_dialog_show (gtk_application_get_active_window (app), app);
      return;
    }
  if (!queue_analyze (app, input, TRUE, &error))
    refused (app, _("Cannot analyze"), error);
}

/* ---- simulate ------------------------------------------------------------------------------------ */

static void
simulate_done (KubusRunner     *runner,
               KubusRunnerState outcome,
               gpointer         data)
{
  Job *job = data;

  if (outcome == KUBUS_RUNNER_SUCCEEDED && !kubus_study_is_simulation (job->output))
    {
      g_autofree char *msg = g_strdup_printf (_("kubus-sim ended without writing %s."), job->output);
      kubus_runner_fail (runner, msg);
    }
}

static void
on_simulate_finished (KubusRunner *runner,
                      Job         *job)
{
  GtkApplication *app = job->app;
  KubusRunnerState state = kubus_runner_get_state (runner);

  if (state == KUBUS_RUNNER_SUCCEEDED)
    {
      g_autoptr (KubusStudy) study = kubus_study_new (job->experiment, job->output, job->hypothesis);
      GVariant *target = g_variant_new ("(ss)", job->experiment, job->output);

      kubus_study_remember (study);
      maybe_notify (app, runner, "app.compare", target);
      g_action_group_activate_action (G_ACTION_GROUP (app), "compare",
                                      g_variant_new ("(ss)", job->experiment, job->output));
    }
  else if (state == KUBUS_RUNNER_FAILED)
    {
      g_autofree char *tail = kubus_runner_dup_tail (runner, ERROR_TAIL_LINES);
      maybe_notify (app, runner, NULL, NULL);
      kubus_experiment_error (app, _("The simulation failed"), kubus_runner_get_message (runner), tail);
    }
}

/* The experiment of the active window's report, and that report (NULL if none). */
static char *
active_experiment (GtkApplication *app,
                   CubeReport    **report)
{
  GtkWindow *active = gtk_application_get_active_window (app);
  KubusWindow *w;
  g_autofree char *path = NULL;
  g_autoptr (KubusStudy) study = NULL;

  *report = NULL;
  if (active == NULL || !KUBUS_IS_WINDOW (active))
    return NULL;
  w = KUBUS_WINDOW (active);
  if (w->file == NULL || (path = g_file_get_path (w->file)) == NULL
      || (study = kubus_study_for_report (path)) == NULL)
    return NULL;
  if (kubus_window_get_browser (w) != NULL && w->file_b == NULL)
    *report = kubus_browser_get_report (kubus_window_get_browser (w));
  return g_strdup (study->experiment);
}

/* The report of a window showing @experiment's analysis, or NULL. */
static CubeReport *
report_of_experiment (GtkApplication *app,
                      const char     *experiment)
{
  g_autofree char *path = g_build_filename (experiment, "analysis.cube", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  KubusWindow *w = window_showing (app, file, NULL);

  return w != NULL && kubus_window_get_browser (w) != NULL ? kubus_browser_get_report (kubus_window_get_browser (w))
                                                           : NULL;
}

static void
action_simulate (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkApplication *app = user_data;
  const char *exp_arg, *hyp_arg, *out_arg;
  g_autofree char *experiment = NULL, *hypothesis = NULL, *output = NULL, *tool = NULL;
  g_autofree char *analysis = NULL, *title = NULL, *base = NULL, *parent = NULL;
  g_auto (GStrv) argv = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusRunner) runner = NULL;
  KubusToolPrefs prefs;
  Job *job;

  (void) action;
  g_variant_get (parameter, "(&s&s&s)", &exp_arg, &hyp_arg, &out_arg);
  if (*hyp_arg == '\0')
    {
      CubeReport *report = NULL;
      g_autofree char *active = *exp_arg != '\0' ? g_canonicalize_filename (exp_arg, NULL)
                                                 : active_experiment (app, &report);

      if (active == NULL)
        {
          kubus_experiment_error (app, _("No analysis to simulate"),
                                  _("Open the analysis report of an experiment (its analysis.cube) first, or "
                                    "measure a program with Experiment › Measure."), NULL);
          return;
        }
      if (report == NULL)
        report = report_of_experiment (app, active);
      kubus_simulate_dialog_show (gtk_application_get_active_window (app), app, active, report);
      return;
    }

  experiment = g_canonicalize_filename (exp_arg, NULL);
  hypothesis = g_canonicalize_filename (hyp_arg, NULL);
  output = *out_arg != '\0' ? g_canonicalize_filename (out_arg, NULL)
                            : kubus_simulate_default_output (experiment, hypothesis);
  parent = g_path_get_dirname (output);
  if (!kubus_experiment_has_trace (experiment))
    g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _("%s is not an experiment folder: it has neither traces.otf2 nor traces.kct."), experiment);
  else if (!g_file_test (hypothesis, G_FILE_TEST_IS_REGULAR))
    g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("The hypothesis file %s does not exist."), hypothesis);
  else if (!g_file_test (parent, G_FILE_TEST_IS_DIR))
    g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("The folder %s does not exist."), parent);
  else if ((tool = kubus_tool_find ("kubus-sim", &error)) != NULL)
    {
      kubus_tool_prefs_load (&prefs);
      argv = kubus_simulate_argv (tool, &prefs, experiment, hypothesis, output, &error);
      kubus_tool_prefs_clear (&prefs);
    }
  if (error != NULL)
    {
      refused (app, _("Cannot simulate"), error);
      return;
    }

  /* The comparison needs the original's analysis: make it first when it is missing. */
  analysis = g_build_filename (experiment, "analysis.cube", NULL);
  if (!g_file_test (analysis, G_FILE_TEST_IS_REGULAR) && !queue_analyze (app, experiment, FALSE, &error))
    {
      refused (app, _("Cannot simulate"), error);
      return;
    }

  base = g_path_get_basename (hypothesis);
  title = g_strdup_printf (_("Simulate %s"), base);
  runner = kubus_runner_new (title, (const char *const *) argv);
  job = g_new0 (Job, 1);
  job->kind = JOB_SIMULATE;
  job->app = app;
  job->experiment = g_steal_pointer (&experiment);
  job->hypothesis = g_steal_pointer (&hypothesis);
  job->output = g_steal_pointer (&output);
  kubus_runner_set_done_func (runner, simulate_done, job, NULL);
  g_object_set_data_full (G_OBJECT (runner), "kubus-job", job, job_free);
  g_signal_connect (runner, "finished", G_CALLBACK (on_simulate_finished), job);
  ensure_window (app);
  kubus_run_queue_add (kubus_experiment_get_queue (app), runner);
}

/* ---- compare ------------------------------------------------------------------------------------- */

static void
action_compare (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GtkApplication *app = user_data;
  const char *a_arg, *b_arg;
  g_autofree char *a = NULL, *b = NULL;
  g_autoptr (GFile) fa = NULL, fb = NULL;
  g_autoptr (KubusStudy) study = NULL;
  KubusWindow *window;

  (void) action;
  g_variant_get (parameter, "(&s&s)", &a_arg, &b_arg);
  if (*a_arg == '\0' || *b_arg == '\0')
    {
      CubeReport *report = NULL;
      g_autofree char *experiment = active_experiment (app, &report);
      g_autofree char *original = NULL, *simulated = NULL;

      if (experiment != NULL)
        {
          g_auto (GStrv) sims = kubus_study_simulations (experiment);
          original = g_build_filename (experiment, "analysis.cube", NULL);
          if (sims[0] != NULL)
            simulated = g_build_filename (sims[0], "analysis.cube", NULL);
        }
      kubus_compare_dialog_show (gtk_application_get_active_window (app), app,
                                 *a_arg ? a_arg : original, *b_arg ? b_arg : simulated);
      return;
    }

  a = kubus_compare_report_path (a_arg);
  b = kubus_compare_report_path (b_arg);
  for (guint i = 0; i < 2; i++)
    {
      const char *p = i == 0 ? a : b;
      if (!g_file_test (p, G_FILE_TEST_IS_REGULAR))
        {
          g_autofree char *msg = g_strdup_printf (_("%s does not exist (analyze the experiment first)."), p);
          kubus_experiment_error (app, _("Cannot compare"), msg, NULL);
          return;
        }
    }
  fa = g_file_new_for_path (a);
  fb = g_file_new_for_path (b);

  /* Both reports next to their difference: open the ones no window shows yet. */
  for (guint i = 0; i < 2; i++)
    if (window_showing (app, i == 0 ? fa : fb, NULL) == NULL)
      {
        KubusWindow *w = empty_window (app);
        if (w == NULL)
          w = kubus_window_new (app);
        kubus_window_open (w, i == 0 ? fa : fb);
        gtk_window_present (GTK_WINDOW (w));
      }
  window = window_showing (app, fa, fb);
  if (window == NULL)
    {
      window = kubus_window_new (app);
      kubus_window_compare (window, fa, fb);
    }
  gtk_window_present (GTK_WINDOW (window));

  study = kubus_study_for_report (b);
  if (study != NULL && study->simulation != NULL)
    kubus_study_remember (study);
}

/* ---- installation -------------------------------------------------------------------------------- */

static const GActionEntry entries[] = {
  { "measure", action_measure, "a{sv}", NULL, NULL, { 0 } },
  { "analyze", action_analyze, "s", NULL, NULL, { 0 } },
  { "simulate", action_simulate, "(sss)", NULL, NULL, { 0 } },
  { "compare", action_compare, "(ss)", NULL, NULL, { 0 } },
};

static const struct
{
  const char *action;
  const char *accel;
} accels[] = {
  { "app.measure(@a{sv} {})", "<Control><Shift>m" },
  { "app.analyze::", "<Control><Shift>a" },
  { "app.simulate(('', '', ''))", "<Control><Shift>y" },
  { "app.compare(('', ''))", "<Control><Shift>d" },
};

static void
on_busy_changed (KubusRunQueue *queue,
                 gboolean       busy,
                 Experiment    *exp)
{
  (void) queue;
  /* A run keeps the application alive (e.g. one started with `gapplication action` while no
   * window is open) until it ends. */
  if (busy && !exp->held)
    g_application_hold (G_APPLICATION (exp->app));
  else if (!busy && exp->held)
    g_application_release (G_APPLICATION (exp->app));
  exp->held = busy;
}

static void
on_window_added (GtkApplication *app,
                 GtkWindow      *window,
                 Experiment     *exp)
{
  (void) app;
  if (KUBUS_IS_WINDOW (window))
    {
      kubus_run_panel_attach (KUBUS_WINDOW (window), exp->queue);
      kubus_study_list_attach (KUBUS_WINDOW (window));
    }
}

static void
on_window_removed (GtkApplication *app,
                   GtkWindow      *window,
                   Experiment     *exp)
{
  (void) window;
  /* Closing the last window ends the runs: nothing would show them or their results. */
  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    if (KUBUS_IS_WINDOW (l->data))
      return;
  kubus_run_queue_cancel_all (exp->queue);
}

static void
on_shutdown (GApplication *app,
             Experiment   *exp)
{
  (void) app;
  kubus_run_queue_kill_all (exp->queue);
}

static void
experiment_free (gpointer data)
{
  Experiment *exp = data;

  g_clear_object (&exp->queue);
  g_free (exp);
}

void
kubus_experiment_install (GtkApplication *app)
{
  Experiment *exp = g_new0 (Experiment, 1);

  exp->app = app;
  exp->queue = kubus_run_queue_new ();
  g_object_set_data_full (G_OBJECT (app), "kubus-experiment", exp, experiment_free);
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  /* the menu items' targets: the empty parameter opens the dialog */
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (app, accels[i].action, (const char *const[]) { accels[i].accel, NULL });
  g_signal_connect (exp->queue, "busy-changed", G_CALLBACK (on_busy_changed), exp);
  g_signal_connect (app, "window-added", G_CALLBACK (on_window_added), exp);
  g_signal_connect (app, "window-removed", G_CALLBACK (on_window_removed), exp);
  g_signal_connect (app, "shutdown", G_CALLBACK (on_shutdown), exp);
}
