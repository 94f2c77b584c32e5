/* kubus-window-sim.c — see kubus-window-sim.h. */
#include <glib/gi18n.h>

#include "cube-path.h"
#include "kubus-window-private.h"
#include "kubus-window-sim.h"

static gboolean
is_one_of (const char        *name,
           const char *const *names)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_equal (name, names[i]))
      return TRUE;
  return FALSE;
}

/* Whether @folder holds an experiment (kubus-run's or kubus-analyze's files). */
static gboolean
holds_experiment (GFile *folder)
{
  static const char *const marks[] = { "kubus.json", "traces.otf2", "traces.kct", "analysis.cube",
                                       "analysis.cubex", "profile.cube", NULL };

  for (guint i = 0; folder != NULL && marks[i] != NULL; i++)
    {
      g_autoptr (GFile) child = g_file_get_child (folder, marks[i]);
      if (g_file_query_exists (child, NULL))
        return TRUE;
    }
  return FALSE;
}

char *
kubus_window_report_label (GFile *file)
{
  /* Kubus's wait-state analysis, or Scalasca's (its trace analysis as square and scout write it) */
  static const char *const analysis[] = { "analysis.cube", "analysis.cube.gz", "analysis.cubex", "trace.cubex",
                                          "scout.cubex", NULL };
  static const char *const summary[] = { "summary.cubex", NULL };
  static const char *const profile[] = { "profile.cube", "profile.cube.gz", "profile.cubex", NULL };
  static const char *const difference[] = { "difference.cube", "difference.cube.gz", "difference.cubex", NULL };
  g_autoptr (KubusSimSummary) sim = kubus_sim_summary_for_report (file);
  g_autoptr (GFile) folder = g_file_get_parent (file);
  g_autofree char *base = g_file_get_basename (file);
  g_autofree char *dir = folder != NULL ? g_file_get_basename (folder) : NULL;

  if (dir == NULL || g_str_equal (dir, "/") || g_str_equal (dir, "."))
    return g_steal_pointer (&base);
  if (sim != NULL)
    {
      /* SIM in the experiment's folder (EXP/sim-NAME, the browser's and kubus-sim's default):
       * the experiment names the run; elsewhere (kubus-sim -o lb-sim) its own folder does */
      g_autoptr (GFile) exp = g_file_get_parent (folder);
      g_autofree char *exp_name = exp != NULL ? g_file_get_basename (exp) : NULL;
      g_autofree char *rules = kubus_sim_summary_rules_text (sim);
      const char *run = exp_name != NULL && !g_str_equal (exp_name, "/") && holds_experiment (exp) ? exp_name : dir;

      if (is_one_of (base, difference))
        /* TRANSLATORS: window title part: experiment, then the hypothesis' rules */
        return g_strdup_printf (_("%s · original − simulated: %s"), run, rules);
      /* TRANSLATORS: window title part: experiment, then the hypothesis' rules */
      return g_strdup_printf (_("%s · simulated: %s"), run, rules);
    }
  if (is_one_of (base, analysis))
    return g_steal_pointer (&dir);
  if (is_one_of (base, profile))
    /* TRANSLATORS: window title part: the experiment's lightweight profile */
    return g_strdup_printf (_("%s · profile"), dir);
  if (is_one_of (base, summary))
    /* TRANSLATORS: window title part: a Scalasca experiment's summary report */
    return g_strdup_printf (_("%s · summary"), dir);
  /* any other report has a name of its own */
  return g_steal_pointer (&base);
}

KubusSimPanel *
kubus_window_get_sim_panel (KubusWindow *self)
{
  return KUBUS_SIM_PANEL (self->sim_panel);
}

/* A gain or loss clicked: its metric in the metric tree, its call path in the call tree. */
static void
on_change_activated (KubusSimPanel *panel,
                     const char    *metric,
                     const char    *call_path,
                     gpointer       user_data)
{
  KubusWindow *self = user_data;
  CubeReport *report;
  CubeCnode *cnode;

  (void) panel;
  if (self->browser == NULL)
    return;
  report = kubus_browser_get_report (self->browser);
  if (kubus_browser_get_call_view (self->browser) != KUBUS_CALL_VIEW_TREE)
    kubus_window_set_call_view (self, KUBUS_CALL_VIEW_TREE);
  kubus_browser_select_metric (self->browser, metric);
  cnode = cube_report_find_cnode_path_sep (report, call_path, " > ");
  if (cnode != NULL && kubus_browser_select_cnode (self->browser, cnode->file_id))
    {
      guint pos = kubus_pane_view_get_selected (self->panes[KUBUS_PANE_CALL]);
      kubus_pane_view_scroll_to (self->panes[KUBUS_PANE_CALL], pos);
    }
}

void
kubus_window_sim_init (KubusWindow *self)
{
  GtkWidget *box = gtk_widget_get_parent (self->compare_bar);

  self->sim_panel = kubus_sim_panel_new ();
  gtk_box_insert_child_after (GTK_BOX (box), self->sim_panel, self->compare_bar);
  g_signal_connect (self->sim_panel, "change-activated", G_CALLBACK (on_change_activated), self);
}

void
kubus_window_sim_update (KubusWindow *self)
{
  KubusSimSummary *summary = NULL;
  gboolean saved_added = FALSE;

  if (self->file_b != NULL)
    {
      /* original − simulated: a positive value is time the hypothesis saves */
      summary = kubus_sim_summary_for_report (self->file_b);
      saved_added = summary != NULL;
      if (summary == NULL)
        summary = kubus_sim_summary_for_report (self->file);
    }
  else if (self->file != NULL)
    {
      summary = kubus_sim_summary_for_report (self->file);
      /* SIM/difference.cube is original − simulated too */
      saved_added = summary != NULL && self->browser != NULL
                    && !cube_report_is_plain (kubus_browser_get_report (self->browser));
    }
  kubus_sim_panel_set_summary (KUBUS_SIM_PANEL (self->sim_panel), summary);
  if (self->browser != NULL)
    for (guint i = 0; i < KUBUS_N_PANES; i++)
      kubus_pane_model_set_saved_added (kubus_browser_get_pane (self->browser, i), saved_added);
}
