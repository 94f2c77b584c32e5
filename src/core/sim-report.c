/* sim-report.c — what the simulation predicts, in three forms: difference.cube (original −
 * simulated analysis, by the report algebra), summary.json, and the printed summary (run times,
 * the largest predicted gains and losses by metric and call path). A gain is time the hypothesis
 * saves: a positive value in the difference report. */
#include "sim-private.h"
#include "kubus-text-gstring.h"
#include "cube.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#define TOP_CHANGES 5

typedef struct
{
  const CubeMetric *metric;
  const CubeCnode  *cnode;
  double            value;
} Change;

static int
change_cmp_desc (gconstpointer a,
                 gconstpointer b)
{
  double x = ((const Change *) a)->value, y = ((const Change *) b)->value;
  return x > y ? -1 : x < y;
}

/* "main > f > MPI_Send"; @brief: C++ parameter lists left out (kubus_text_short_function), for
 * the lines people read (summary.json keeps the names whole) */
static char *
call_path (const CubeCnode *c,
           gboolean         brief)
{
  GPtrArray *parts = g_ptr_array_new ();
  GString *s = g_string_new (NULL);
  for (; c; c = c->parent)
    g_ptr_array_add (parts, c->callee && c->callee->name ? c->callee->name : "?");
  for (guint i = parts->len; i-- > 0;)
    {
      char *shown = brief ? kubus_text_short_function (parts->pdata[i]) : NULL;
      g_string_append (s, shown ? shown : parts->pdata[i]);
      free (shown);
      if (i > 0)
        g_string_append (s, " > ");
    }
  g_ptr_array_unref (parts);
  return g_string_free (s, FALSE);
}

/* a JSON string, or null for NULL */
static void
json_string (GString    *s,
             const char *v)
{
  if (v)
    kubus_text_append_json (s, v);
  else
    g_string_append (s, "null");
}

/* @fmt: "%.9g", or "%.17g" for a figure also written in the identity cache (sim-identity.c), so
 * that one read back from there is the same number in the summary */
static void
json_double (GString    *s,
             double      v,
             const char *fmt)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  if (!isfinite (v))
    g_string_append (s, "null");
  else
    g_string_append (s, g_ascii_formatd (b, sizeof b, fmt, v));
}

static void
json_number (GString *s,
             double   v)
{
  json_double (s, v, "%.9g");
}

static void
json_exact (GString *s,
            double   v)
{
  json_double (s, v, "%.17g");
}

static void
json_counts (GString    *s,
             GHashTable *h)
{
  g_autoptr (GList) keys = h ? g_hash_table_get_keys (h) : NULL;
  gboolean first = TRUE;
  keys = g_list_sort (keys, (GCompareFunc) strcmp);
  g_string_append_c (s, '{');
  for (GList *l = keys; l; l = l->next)
    {
      if (!first)
        g_string_append (s, ", ");
      first = FALSE;
      kubus_text_append_json (s, l->data);
      g_string_append_printf (s, ": %" G_GSIZE_FORMAT, GPOINTER_TO_SIZE (g_hash_table_lookup (h, l->data)));
    }
  g_string_append_c (s, '}');
}

/* Every (metric, call path) pair's own share (exclusive in both trees) of a time metric,
 * summed over all locations. */
static gboolean
collect_changes (CubeReport *diff,
                 GArray     *out,
                 GError    **error)
{
  g_autofree double *incl = g_new0 (double, MAX (diff->cnodes->len, 1));
  g_autofree double *excl = g_new0 (double, MAX (diff->cnodes->len, 1));

  for (guint m = 0; m < diff->metrics->len; m++)
    {
      CubeMetric *met = diff->metrics->pdata[m];
      CubeMetricSel sel = { met, TRUE };
      const CubeMetric *root = met;
      while (root->parent)
        root = root->parent;
      /* time the run spends: the tree under "time" (delay costs and the critical path's
       * impacts are shares of that time, counted again) */
      if (!cube_metric_has_data (met) || !met->uom || strcmp (met->uom, "sec") != 0
          || strcmp (root->uniq_name, "time") != 0)
        continue;
      if (!cube_values_cnodes (diff, &sel, 1, NULL, 0, incl, excl, error))
        return FALSE;
      for (guint c = 0; c < diff->cnodes->len; c++)
        if (fabs (excl[c]) > 1e-9)
          {
            Change ch = { met, diff->cnodes->pdata[c], excl[c] };
            g_array_append_val (out, ch);
          }
    }
  g_array_sort (out, change_cmp_desc);
  return TRUE;
}

static void
json_changes (GString *s,
              GArray  *changes,
              gboolean gains)
{
  guint shown = 0;
  g_string_append_c (s, '[');
  for (guint i = 0; i < changes->len && shown < TOP_CHANGES; i++)
    {
      Change *c = &g_array_index (changes, Change, gains ? i : changes->len - 1 - i);
      g_autofree char *path = NULL;
      if (gains ? c->value <= 0 : c->value >= 0)
        break;
      path = call_path (c->cnode, FALSE);
      if (shown++)
        g_string_append (s, ", ");
      g_string_append (s, "{\"metric\": ");
      kubus_text_append_json (s, c->metric->uniq_name);
      g_string_append (s, ", \"metric_name\": ");
      kubus_text_append_json (s, c->metric->disp_name);
      g_string_append (s, ", \"call_path\": ");
      kubus_text_append_json (s, path);
      g_string_append (s, ", \"seconds\": ");
      json_number (s, c->value);
      g_string_append_c (s, '}');
    }
  g_string_append_c (s, ']');
}

static void
print_changes (GString    *out,
               GArray     *changes,
               gboolean    gains)
{
  guint shown = 0;
  for (guint i = 0; i < changes->len && shown < TOP_CHANGES; i++)
    {
      Change *c = &g_array_index (changes, Change, gains ? i : changes->len - 1 - i);
      g_autofree char *path = NULL;
      if (gains ? c->value <= 0 : c->value >= 0)
        break;
      path = call_path (c->cnode, TRUE);
      /* gains as time saved, losses as time added: both positive */
      g_string_append_printf (out, "  %10.6f s  %-28s %s\n", fabs (c->value),
                              c->metric->disp_name ? c->metric->disp_name : c->metric->uniq_name, path);
      shown++;
    }
  if (shown == 0)
    g_string_append_printf (out, "  %s\n", _("(none)"));
}

/* "−33.6 %": a real minus sign for what people read */
char *
sim_signed_figure (double      v,
                   int         decimals,
                   const char *unit)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *fmt = g_strdup_printf ("%%.%df", decimals);
  g_snprintf (b, sizeof b, fmt, fabs (v));
  if (strspn (b, "0.") == strlen (b))
    return g_strdup_printf ("%s%s", b, unit);   /* no sign on a zero */
  return g_strdup_printf ("%s%s%s", v < 0 ? "−" : "+", b, unit);
}

void
sim_report_headline (GString *out,
                     double   original_s,
                     double   predicted_s,
                     double   change_pct,
                     gboolean after_init,
                     gboolean have_identity,
                     double   identity_pct,
                     int      significant)
{
  g_autofree char *pct = sim_signed_figure (change_pct, 1, " %");
  g_autofree char *ie = sim_signed_figure (identity_pct, 1, " %");
  double change = predicted_s - original_s;

  g_string_append_printf (out, after_init ? _("Run time after MPI_Init: original %.3f s, predicted %.3f s (%s)")
                                          : _("Run time: original %.3f s, predicted %.3f s (%s)"),
                          original_s, predicted_s, pct);
  if (have_identity)
    g_string_append_printf (out, _("; identity error of this trace %s"), ie);
  g_string_append_c (out, '\n');
  if (change < 0)
    g_string_append_printf (out, _("Time saved: %.6f s"), -change);
  else if (change > 0)
    g_string_append_printf (out, _("Time added: %.6f s"), change);
  else
    g_string_append (out, _("No change"));
  if (significant == 0)
    g_string_append (out, _(" — not significant: smaller than the identity error of this trace"));
  g_string_append_c (out, '\n');
}

gboolean
sim_report_write (const char  *orig_cube,
                  const char  *sim_cube,
                  const char  *diff_cube,
                  const char  *summary_json,
                  SimSummary  *s,
                  GString     *out,
                  GError     **error)
{
  g_autoptr (CubeReport) orig = cube_report_load (orig_cube, 0, NULL, NULL, NULL, error);
  g_autoptr (CubeReport) sim = NULL;
  g_autoptr (CubeReport) diff = NULL;
  g_autoptr (GArray) changes = g_array_new (FALSE, FALSE, sizeof (Change));
  g_autoptr (GString) js = g_string_new (NULL);
  g_autoptr (GError) local = NULL;
  /* the headline: run time after MPI_Init (the launch is not the program's), else the whole run */
  gboolean by_init = s->orig_after_init > 0 && s->sim_after_init >= 0;
  double base = by_init ? s->orig_after_init : s->orig_runtime;
  double change = (by_init ? s->sim_after_init : s->sim_runtime) - base;
  double change_pct = base > 0 ? 100.0 * change / base : 0;
  int significant = sim_hypothesis_is_identity (s->hyp) ? -1
                    : sim_significance (change_pct, s->have_identity, s->identity_error);

  if (!orig)
    return FALSE;
  sim = cube_report_load (sim_cube, 0, NULL, NULL, NULL, error);
  if (!sim)
    return FALSE;
  diff = cube_algebra_diff (orig, sim, error);
  if (!diff)
    return FALSE;
  cube_report_set_attr (diff, "KUBUS_SIM_HYPOTHESIS", s->hyp->path);
  if (!cube_report_write (diff, diff_cube, error) || !collect_changes (diff, changes, error))
    return FALSE;

  g_string_append (js, "{\n  \"hypothesis\": ");
  kubus_text_append_json (js, s->hyp->path);
  g_string_append (js, ",\n  \"rules\": [");
  for (guint i = 0; i < s->hyp->rules->len; i++)
    {
      if (i)
        g_string_append (js, ", ");
      kubus_text_append_json (js, ((Rule *) s->hyp->rules->pdata[i])->text);
    }
  g_string_append (js, "],\n  \"mode\": ");
  kubus_text_append_json (js, s->offline ? "offline" : "real-time");
  g_string_append (js, ",\n  \"original_runtime_s\": ");
  json_number (js, s->orig_runtime);
  g_string_append (js, ",\n  \"predicted_runtime_s\": ");
  json_number (js, s->sim_runtime);
  g_string_append (js, ",\n  \"original_runtime_after_init_s\": ");
  json_number (js, s->orig_after_init);
  g_string_append (js, ",\n  \"predicted_runtime_after_init_s\": ");
  json_number (js, s->sim_after_init);
  g_string_append (js, ",\n  \"change_s\": ");
  json_number (js, change);
  g_string_append (js, ",\n  \"change_percent\": ");
  json_number (js, change_pct);
  g_string_append (js, ",\n  \"change_basis\": ");
  kubus_text_append_json (js, by_init ? "after_init" : "whole_run");
  g_string_append (js, ",\n  \"identity_error_percent\": ");
  json_exact (js, s->have_identity ? s->identity_error : NAN);   /* null without one */
  g_string_append (js, ",\n  \"identity_mode\": ");
  kubus_text_append_json (js, s->offline ? "offline" : "real-time");
  g_string_append_printf (js, ",\n  \"identity_cached\": %s", s->identity_cached ? "true" : "false");
  g_string_append (js, ",\n  \"identity_goal_percent\": ");
  json_number (js, sim_identity_goal (&s->hosts));
  /* the other mode's identity error on this trace: cached, or measured now (offline) */
  g_string_append (js, ",\n  \"identity_other_mode_error_percent\": ");
  json_exact (js, s->have_other_identity ? s->other_identity_error : NAN);
  g_string_append (js, ",\n  \"identity_advice\": ");
  json_string (js, s->identity_advice);
  g_string_append_printf (js, ",\n  \"significant\": %s",
                          significant < 0 ? "null" : significant ? "true" : "false");
  /* how the original shared its cores, and whether the re-enactment brought that back */
  g_string_append_printf (js, ",\n  \"cores\": {\"hosts\": %u, \"max_ranks_per_host\": %u, \"host_cpus\": ",
                          s->hosts.n_hosts, s->hosts.max_ranks_per_host);
  if (s->hosts.cpus_known)
    g_string_append_printf (js, "%u", s->hosts.min_cpus);
  else
    g_string_append (js, "null");
  g_string_append_printf (js, ", \"oversubscribed\": %s, \"cpu_samples\": %u, \"contention_reenacted\": %s",
                          s->hosts.oversubscribed ? "true" : "false", s->cpu.samples,
                          s->contention ? "true" : "false");
  if (s->cpu.gap_wall > 0)
    {
      g_string_append (js, ", \"computation_cpu_share\": ");
      json_number (js, s->cpu.gap_cpu / s->cpu.gap_wall);
      g_string_append (js, ", \"computation_wait_share\": ");
      json_number (js, s->cpu.gap_wait / s->cpu.gap_wall);
      g_string_append (js, ", \"computation_sleep_share\": ");
      json_number (js, s->cpu.gap_sleep / s->cpu.gap_wall);
    }
  if (s->cpu.call_span > 0)
    {
      /* the ranks' MPI calls per scheduler time slice (sim_call_rate, sim_fine_grain_advice) */
      g_string_append (js, ", \"mpi_calls_per_slice\": ");
      json_number (js, sim_calls_per_slice (&s->hosts, &s->cpu));
      g_string_append (js, ", \"scheduler_slice_ms\": ");
      json_number (js, sim_sched_slice_ns (s->hosts.min_cpus) / 1e6);
    }
  if (s->cpu.call_wall > 0)
    {
      /* the sampled (long) MPI calls: the share of their time they waited, runnable, for a CPU */
      g_string_append (js, ", \"mpi_wait_share\": ");
      json_number (js, s->cpu.call_wait / s->cpu.call_wall);
    }
  if (sim_outside_load (&s->hosts, &s->cpu) >= 0)
    {
      /* what other programs took: the run's own sharing of the cores does not count */
      g_string_append (js, ", \"outside_wait_share\": ");
      json_number (js, sim_outside_load (&s->hosts, &s->cpu));
    }
  if (s->cpu.shortfall >= 0)
    {
      /* offline: the CPU time the sampled computation did not get of what sharing the cores
       * among the ranks gives it (sim_cores_shortfall) */
      g_string_append (js, ", \"cpu_shortfall\": ");
      json_number (js, s->cpu.shortfall);
    }
  if (s->cpu.poll_share >= 0)
    {
      /* offline, oversubscribed: the share of the ranks' time in polls that found nothing
       * (sim_poll_share; above SIM_POLL_SHARE the model does not share the cores) */
      g_string_append (js, ", \"poll_share\": ");
      json_number (js, s->cpu.poll_share);
    }
  if (s->hosts.other_known)
    {
      /* what other programs took of the CPU time the ranks could have had (collector's
       * /proc/stat readings, every traced run): the load note without samples */
      g_string_append (js, ", \"outside_cpu_share\": ");
      json_number (js, s->hosts.other_share);
    }
  g_string_append_c (js, '}');
  g_string_append (js, ",\n  \"mode_advice\": ");
  json_string (js, s->mode_advice);
  g_string_append_printf (js, ",\n  \"events\": %" G_GUINT64_FORMAT, s->n_events);
  g_string_append_printf (js, ",\n  \"messages\": %" G_GUINT64_FORMAT, s->tstats.messages);
  g_string_append_printf (js, ",\n  \"removed_messages\": %" G_GUINT64_FORMAT, s->tstats.removed_messages);
  g_string_append_printf (js, ",\n  \"removed_calls\": %" G_GUINT64_FORMAT, s->tstats.removed_calls);
  g_string_append_printf (js, ",\n  \"unreceived_messages\": %" G_GUINT64_FORMAT, s->tstats.unreceived);
  g_string_append (js, ",\n  \"removed_call_time_s\": ");
  json_number (js, s->tstats.removed_time / 1e9);
  g_string_append (js, ",\n  \"computation_change_s\": ");
  json_number (js, s->tstats.added_time / 1e9);
  if (s->clock_repaired)
    {
      g_string_append_printf (js, ",\n  \"clock_repair\": {\"violations\": %" G_GUINT64_FORMAT
                              ", \"corrections\": %" G_GUINT64_FORMAT ", \"largest_correction_s\": ",
                              s->clock_violations, s->clock_corrections);
      json_number (js, s->clock_largest);
      g_string_append_c (js, '}');
    }
  else
    g_string_append (js, ",\n  \"clock_repair\": null");
  g_string_append (js, ",\n  \"approximated\": ");
  json_counts (js, s->notes ? s->notes->approximated : NULL);
  g_string_append (js, ",\n  \"substitutions\": ");
  json_counts (js, s->notes ? s->notes->notes : NULL);
  g_string_append (js, ",\n  \"dropped_events\": ");
  json_counts (js, s->dropped);
  if (s->offline)
    {
      g_string_append (js, ",\n  \"model\": ");
      g_string_append (js, s->model_json ? s->model_json : "null");
    }
  else
    {
      g_string_append_printf (js, ",\n  \"replay\": {\"events\": %" G_GUINT64_FORMAT ", \"mpi_calls\": %" G_GUINT64_FORMAT
                              ", \"polls\": %" G_GUINT64_FORMAT ", \"late_events\": %" G_GUINT64_FORMAT ", \"late_s\": ",
                              s->rstats.events, s->rstats.calls, s->rstats.polls, s->rstats.late_events);
      json_number (js, s->rstats.late_ns / 1e9);
      g_string_append (js, ", \"caught_up_s\": ");
      json_number (js, s->rstats.caught_up_ns / 1e9);
      g_string_append_printf (js, ", \"sleep_margin_ns\": %" G_GINT64_FORMAT ", \"clock_read_ns\": %" G_GINT64_FORMAT
                              ", \"realtime_waits\": %s, \"realtime_budget_used\": %" G_GUINT64_FORMAT
                              ", \"hosts\": %u, \"contention\": %s",
                              s->rstats.cal.sleep_margin, s->rstats.cal.clock_cost,
                              s->rstats.cal.realtime ? "true" : "false", s->rstats.rt_demotions, s->rstats.hosts,
                              s->rstats.contention ? "true" : "false");
      if (s->rstats.contention)
        g_string_append_printf (js, ", \"cpus\": %u, \"pinned\": %s", s->rstats.cpus_used,
                                s->rstats.pinned ? "true" : "false");
      /* blocking calls of large messages: re-enactment against original, before any floor */
      g_string_append_printf (js, ", \"large_messages\": {\"min_bytes\": %u, \"calls\": %" G_GUINT64_FORMAT
                              ", \"replay_over_original\": ", SIM_LARGE_BYTES, s->rstats.large_calls);
      if (s->rstats.large_calls > 0 && s->rstats.large_orig_ns > 0)
        json_number (js, (double) s->rstats.large_replay_ns / (double) s->rstats.large_orig_ns);
      else
        g_string_append (js, "null");
      g_string_append (js, "}}");
    }
  g_string_append (js, ",\n  \"gains\": ");
  json_changes (js, changes, TRUE);
  g_string_append (js, ",\n  \"losses\": ");
  json_changes (js, changes, FALSE);
  g_string_append (js, "\n}\n");
  if (!g_file_set_contents (summary_json, js->str, js->len, &local))
    {
      g_set_error (error, G_FILE_ERROR, local->code, "%s", local->message);
      return FALSE;
    }

  {
    g_autofree char *rules = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u rule", "%u rules",
                                                           s->hyp->rules->len), s->hyp->rules->len);
    g_string_append_printf (out, _("Hypothesis: %s (%s, %s)\n"), s->hyp->path, rules,
                            s->offline ? _("offline model") : _("real-time re-enactment"));
  }
  sim_report_headline (out, base, base + change, change_pct, by_init, s->have_identity, s->identity_error,
                       significant);
  if (by_init)
    g_string_append_printf (out, _("Whole run with the launch: %.6f s original, %.6f s predicted\n"), s->orig_runtime,
                            s->sim_runtime);
  if (s->mode_advice)
    g_string_append_printf (out, "%s\n", s->mode_advice);
  if (s->identity_advice)
    g_string_append_printf (out, "%s\n", s->identity_advice);
  if (s->clock_corrections)
    g_string_append_printf (out, _("Clock repair: %llu events moved (largest %.6f s) before the simulation\n"),
                            (unsigned long long) s->clock_corrections, s->clock_largest);
  if (s->tstats.removed_messages)
    g_string_append_printf (out, _("Removed messages: %llu of %llu (%llu MPI calls)\n"),
                            (unsigned long long) s->tstats.removed_messages,
                            (unsigned long long) s->tstats.messages, (unsigned long long) s->tstats.removed_calls);
  if (s->tstats.unreceived)
    g_string_append_printf (out, _("Messages sent and never received (left in flight when the program ended): %llu, "
                                   "left out of the simulation; their calls keep their recorded time\n"),
                            (unsigned long long) s->tstats.unreceived);
  g_string_append (out, _("Largest predicted gains (time saved):\n"));
  print_changes (out, changes, TRUE);
  g_string_append (out, _("Largest predicted losses (time added):\n"));
  print_changes (out, changes, FALSE);
  return TRUE;
}
