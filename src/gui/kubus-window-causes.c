/* kubus-window-causes.c — the root causes of a wait state in the browser (issue 22).
 *
 *   win.show-causes    on a wait state (Late Sender, Late Receiver, Wait at Barrier, Wait at
 *                      N x N, Late Broadcast, Early Reduce, or a part of one): selects that
 *                      wait's short- and long-term delay costs in the metric tree, so the call
 *                      tree and the system tree show where its causes are, and opens the call
 *                      path with the largest cost
 *   win.verify-causes  runs kubus-analyze --verify-causes on the report's trace through the
 *                      application's run queue and shows its table: what simulating the
 *                      removal of the largest delays saves against their costs
 *
 * Both are in the row menu of the trees (and enabled only for a report with delay costs). The
 * delay metrics are ordinary metrics of the report: nothing here computes a value. */
#include <glib/gi18n.h>

#include "kubus-window-causes.h"
#include "kubus-browser.h"
#include "kubus-experiment.h"
#include "kubus-experiment-tools.h"
#include "kubus-node-row.h"
#include "kubus-run-queue.h"
#include "kubus-runner.h"
#include "kubus-window-private.h"

#include <string.h>

/* Which delay costs explain which wait state (scout's pairs). */
static const struct
{
  const char *wait;
  const char *delay;
  const char *delay_longterm;
} cause_of[] = {
  { "mpi_latesender", "delay_latesender", "delay_latesender_longterm" },
  { "mpi_latereceiver", "delay_latereceiver", "delay_latereceiver_longterm" },
  { "mpi_barrier_wait", "delay_barrier", "delay_barrier_longterm" },
  { "mpi_wait_nxn", "delay_n2n", "delay_n2n_longterm" },
  { "mpi_latebroadcast", "delay_12n", "delay_12n_longterm" },
  { "mpi_earlyreduce", "delay_n21", "delay_n21_longterm" },
};

#define VERIFY_N "3"

/* The delay pair of @metric or of its nearest ancestor that has one, -1 if none. */
static int
cause_index (const CubeMetric *metric)
{
  for (const CubeMetric *m = metric; m != NULL; m = m->parent)
    for (guint k = 0; k < G_N_ELEMENTS (cause_of); k++)
      if (g_str_equal (m->uniq_name, cause_of[k].wait))
        return (int) k;
  return -1;
}

/* The metric selected in the metric tree, or NULL. */
static CubeMetric *
selected_metric (KubusWindow *self)
{
  KubusPaneModel *pane;
  guint pos;
  g_autoptr (KubusNodeRow) row = NULL;

  if (self->browser == NULL)
    return NULL;
  pane = kubus_browser_get_pane (self->browser, KUBUS_PANE_METRIC);
  pos = kubus_pane_view_get_selected (self->panes[KUBUS_PANE_METRIC]);
  if (pos == G_MAXUINT)
    return NULL;
  row = kubus_pane_model_get_row (pane, pos, NULL);
  if (row == NULL || kubus_node_row_get_kind (row) != KUBUS_NODE_METRIC)
    return NULL;
  return kubus_node_row_get_node (row);
}

static gboolean
has_delays (KubusWindow *self)
{
  CubeReport *report = self->browser != NULL ? kubus_browser_get_report (self->browser) : NULL;
  return report != NULL && cube_report_find_metric (report, "delay_latesender") != NULL;
}

static void
info_dialog (KubusWindow *self,
             const char  *primary,
             const char  *secondary,
             gboolean     monospace)
{
  GtkWidget *d = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_DESTROY_WITH_PARENT | GTK_DIALOG_MODAL,
                                         GTK_MESSAGE_INFO, GTK_BUTTONS_CLOSE, "%s", primary);
  if (secondary != NULL)
    {
      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (d), "%s", secondary);
      if (monospace)
        {
          /* the table's columns line up only in a fixed-width font */
          GtkWidget *area = gtk_message_dialog_get_message_area (GTK_MESSAGE_DIALOG (d));
          for (GtkWidget *c = gtk_widget_get_first_child (area); c != NULL; c = gtk_widget_get_next_sibling (c))
            if (GTK_IS_LABEL (c) && c != gtk_widget_get_first_child (area))
              {
                gtk_widget_add_css_class (c, "monospace");
                gtk_label_set_selectable (GTK_LABEL (c), TRUE);
              }
        }
    }
  g_object_set_data (G_OBJECT (self), "kubus-causes-dialog", d);
  g_signal_connect (d, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (d));
}

/* ---- Show Its Causes ------------------------------------------------------------------------- */

void
kubus_window_show_causes (KubusWindow *self)
{
  CubeMetric *metric = selected_metric (self);
  CubeReport *report;
  KubusPaneModel *mpane, *cpane;
  CubeMetric *shrt, *lng;
  guint ps, pl, pos;
  int k;

  if (self->browser == NULL)
    return;
  report = kubus_browser_get_report (self->browser);
  k = metric != NULL ? cause_index (metric) : -1;
  if (k < 0)
    {
      info_dialog (self, _("No causes to show"),
                   _("Select a wait state in the metric tree (Late Sender, Late Receiver, Wait at "
                     "Barrier, Wait at N x N, Late Broadcast or Early Reduce): its causes are the "
                     "delay costs of that wait."), FALSE);
      return;
    }
  shrt = cube_report_find_metric (report, cause_of[k].delay);
  lng = cube_report_find_metric (report, cause_of[k].delay_longterm);
  if (shrt == NULL)
    {
      info_dialog (self, _("This report has no delay costs"),
                   _("Analyze the trace again with kubus-analyze (without --no-root-cause): it adds "
                     "the delay costs that say which computation caused each wait."), FALSE);
      return;
    }
  /* both delay costs of this wait: their sum per call path and rank is what it cost */
  mpane = kubus_browser_get_pane (self->browser, KUBUS_PANE_METRIC);
  ps = kubus_pane_model_reveal (mpane, KUBUS_NODE_METRIC, shrt);
  if (ps == G_MAXUINT)
    return;
  gtk_selection_model_select_item (kubus_pane_model_get_selection (mpane), ps, TRUE);
  pl = lng != NULL ? kubus_pane_model_reveal (mpane, KUBUS_NODE_METRIC, lng) : G_MAXUINT;
  if (pl != G_MAXUINT)
    gtk_selection_model_select_item (kubus_pane_model_get_selection (mpane), pl, FALSE);
  kubus_pane_view_scroll_to (self->panes[KUBUS_PANE_METRIC], ps);
  kubus_browser_flush (self->browser);
  /* the call path that caused most of it, opened */
  cpane = kubus_browser_get_pane (self->browser, KUBUS_PANE_CALL);
  pos = kubus_pane_model_expand_largest (cpane, G_MAXUINT);
  if (pos != G_MAXUINT)
    {
      gtk_selection_model_select_item (kubus_pane_model_get_selection (cpane), pos, TRUE);
      kubus_pane_view_scroll_to (self->panes[KUBUS_PANE_CALL], pos);
    }
  kubus_window_set_active_pane (self, KUBUS_PANE_CALL, TRUE);
}

static void
action_show_causes (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_window_show_causes (user_data);
}

/* ---- Verify Causes --------------------------------------------------------------------------- */

typedef struct
{
  GWeakRef window;
  char    *report;
} VerifyJob;

static void
verify_job_free (gpointer data)
{
  VerifyJob *job = data;
  g_weak_ref_clear (&job->window);
  g_free (job->report);
  g_free (job);
}

/* The verification table from kubus-analyze's log: from "Verifying" on. */
static char *
table_from_log (KubusRunner *runner)
{
  g_autofree char *log = kubus_runner_dup_log (runner);
  const char *at = log != NULL ? strstr (log, "Verifying") : NULL;
  if (at == NULL && log != NULL)
    at = strstr (log, "kubus-analyze: ") ? log : NULL;
  return g_strdup (at != NULL ? at : "");
}

static void
on_verify_finished (KubusRunner *runner,
                    VerifyJob   *job)
{
  g_autoptr (KubusWindow) self = g_weak_ref_get (&job->window);
  KubusRunnerState state = kubus_runner_get_state (runner);
  g_autofree char *table = table_from_log (runner);

  if (self == NULL)
    return;
  if (state == KUBUS_RUNNER_SUCCEEDED)
    info_dialog (self, _("Causes verified by simulation"), g_strstrip (table), TRUE);
  else if (state == KUBUS_RUNNER_FAILED)
    {
      g_autofree char *tail = kubus_runner_dup_tail (runner, 15);
      g_autofree char *text = g_strdup_printf ("%s\n\n%s", kubus_runner_get_message (runner), tail);
      kubus_window_error_dialog (self, _("The verification failed"), text);
    }
}

/* What kubus-analyze reads for the open report: its experiment folder, else the trace it
 * names. NULL with @error when neither is there. */
static char *
report_input (KubusWindow *self,
              GError     **error)
{
  CubeReport *report = kubus_browser_get_report (self->browser);
  const char *trace = cube_report_get_attr (report, "kubus::trace");
  g_autofree char *path = self->file != NULL ? g_file_get_path (self->file) : NULL;
  g_autofree char *dir = path != NULL ? g_path_get_dirname (path) : NULL;

  if (dir != NULL && kubus_experiment_has_trace (dir))
    return g_steal_pointer (&dir);
  if (trace != NULL && g_file_test (trace, G_FILE_TEST_IS_REGULAR) && g_str_has_suffix (trace, ".otf2"))
    return g_strdup (trace);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("The trace of this report is not beside it (%s): the simulation needs it."),
               trace != NULL ? trace : _("unknown"));
  return NULL;
}

void
kubus_window_verify_causes (KubusWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr (GError) error = NULL;
  g_autofree char *tool = NULL, *input = NULL, *base = NULL, *title = NULL;
  g_autoptr (KubusRunner) runner = NULL;
  VerifyJob *job;

  if (self->browser == NULL || app == NULL)
    return;
  if (!has_delays (self))
    {
      info_dialog (self, _("This report has no delay costs"),
                   _("Analyze the trace again with kubus-analyze (without --no-root-cause) first."), FALSE);
      return;
    }
  if ((input = report_input (self, &error)) == NULL || (tool = kubus_tool_find ("kubus-analyze", &error)) == NULL)
    {
      kubus_window_error_dialog (self, _("Cannot verify the causes"), error->message);
      return;
    }
  {
    /* the analysis again (it writes the report this window shows, with the same values), then
     * the simulations; the report stays where it is */
    g_autofree char *report = self->file != NULL ? g_file_get_path (self->file) : NULL;
    const char *argv[] = { tool, input, "--verify-causes", VERIFY_N, report ? "-o" : NULL, report, NULL };
    base = g_path_get_basename (input);
    title = g_strdup_printf (_("Verify the causes in %s"), base);
    runner = kubus_runner_new (title, argv);
    job = g_new0 (VerifyJob, 1);
    g_weak_ref_init (&job->window, self);
    job->report = g_steal_pointer (&report);
  }
  g_object_set_data_full (G_OBJECT (runner), "kubus-causes-job", job, verify_job_free);
  g_signal_connect (runner, "finished", G_CALLBACK (on_verify_finished), job);
  kubus_run_queue_add (kubus_experiment_get_queue (app), runner);
}

static void
action_verify_causes (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_window_verify_causes (user_data);
}

/* ---- setup ------------------------------------------------------------------------------------ */

static const GActionEntry causes_entries[] = {
  { "show-causes", action_show_causes, NULL, NULL, NULL, { 0 } },
  { "verify-causes", action_verify_causes, NULL, NULL, NULL, { 0 } },
};

void
kubus_window_causes_init (KubusWindow *self)
{
  g_autoptr (GMenu) section = g_menu_new ();

  g_action_map_add_action_entries (G_ACTION_MAP (self), causes_entries, G_N_ELEMENTS (causes_entries), self);
  g_menu_append (section, _("Show Its _Causes"), "win.show-causes");
  g_menu_append (section, _("_Verify Causes by Simulation…"), "win.verify-causes");
  if (G_IS_MENU (self->row_menu))
    g_menu_append_section (G_MENU (self->row_menu), NULL, G_MENU_MODEL (section));
  kubus_window_causes_update (self);
}

void
kubus_window_causes_update (KubusWindow *self)
{
  gboolean on = self->task == NULL && has_delays (self);
  for (guint k = 0; k < G_N_ELEMENTS (causes_entries); k++)
    {
      GAction *a = g_action_map_lookup_action (G_ACTION_MAP (self), causes_entries[k].name);
      if (a != NULL)
        g_simple_action_set_enabled (G_SIMPLE_ACTION (a), on);
    }
}
