/* stats-scaling-print.c — the scalability result as text (per-run table, then the callsite
 * ranking) or as CSV (the ranking; machine-readable, C locale numbers). */
#include "stats-scaling.h"
#include "kubus-text.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

static void
csv_number (FILE *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  fputc (',', out);
  if (isfinite (v))
    fputs (g_ascii_formatd (buf, sizeof buf, "%.10g", v), out);
}

gboolean
stats_scaling_print_csv (const StatsScaling *s, FILE *out)
{
  fputs ("callsite,rho,p_value,p_method", out);
  for (guint k = 0; k < s->n_counts; k++)
    fprintf (out, ",share_%u", s->counts[k]);
  fputc ('\n', out);
  for (guint c = 0; c < s->callsites->len; c++)
    {
      const StatsScalingCallsite *cs = g_ptr_array_index (s->callsites, c);

      kubus_text_csv (cs->name, kubus_text_to_file, out);
      csv_number (out, cs->defined ? cs->rho : NAN);
      csv_number (out, cs->defined ? cs->p_value : NAN);
      fprintf (out, ",%s", stats_p_method_to_string (cs->p_method));
      for (guint k = 0; k < s->n_counts; k++)
        csv_number (out, cs->share_at[k]);
      fputc ('\n', out);
    }
  return fflush (out) == 0 && !ferror (out);
}

static void
pad (FILE *out, const char *text, int width)
{
  int len = (int) g_utf8_strlen (text, -1);

  fputs (text, out);
  for (; len < width; len++)
    fputc (' ', out);
}

gboolean
stats_scaling_print_text (const StatsScaling *s, FILE *out)
{
  g_autoptr (GString) counts = g_string_new (NULL);
  StatsPMethod method = STATS_P_NONE;

  for (guint k = 0; k < s->n_counts; k++)
    g_string_append_printf (counts, "%s%u", k ? ", " : "", s->counts[k]);
  fprintf (out, _ ("Scalability of the MPI callsites: metric “%s” (%s)\n"), s->metric,
           s->metric_display);
  fprintf (out,
           ngettext ("%u run at the task counts %s\n", "%u runs at the task counts %s\n",
                     s->runs->len),
           s->runs->len, counts->str);
  fputc ('\n', out);

  /* the paper's first table */
  fprintf (out, "%6s %12s %14s %14s %12s %8s %10s  %s\n", _ ("tasks"), _ ("aggregate"),
           _ ("communication"), _ ("init/finalize"), _ ("computation"), _ ("speedup"),
           _ ("efficiency"), _ ("report"));
  for (guint r = 0; r < s->runs->len; r++)
    {
      const StatsScalingRun *run = g_ptr_array_index (s->runs, r);

      fprintf (out, "%6u %12.6f %14.6f %14.6f %12.6f %8.3f %10.3f  %s\n", run->tasks,
               run->aggregate, run->communication, run->setup, run->computation, run->speedup,
               run->efficiency, run->report_path);
    }
  fprintf (out,
           _ ("Times in seconds, summed over tasks. Speedup: how much shorter the run is than "
              "the runs at %u tasks (the longest-running task counts); efficiency: speedup × "
              "%u / tasks.\n"),
           s->counts[0], s->counts[0]);
  fputc ('\n', out);

  fprintf (out, "%4s %7s %9s", _ ("rank"), _ ("rho"), _ ("p-value"));
  for (guint k = 0; k < s->n_counts; k++)
    {
      g_autofree char *head = g_strdup_printf (_ ("share@%u"), s->counts[k]);
      fprintf (out, " %9s", head);
    }
  fprintf (out, "  %s\n", _ ("callsite"));
  for (guint c = 0; c < s->callsites->len; c++)
    {
      const StatsScalingCallsite *cs = g_ptr_array_index (s->callsites, c);
      char rho[32], p[32];

      if (cs->defined)
        {
          g_snprintf (rho, sizeof rho, "%+.3f", cs->rho);
          g_snprintf (p, sizeof p, cs->p_value < 0.001 ? "<0.001" : "%.3f", cs->p_value);
          method = cs->p_method;
        }
      fprintf (out, "%4u ", c + 1);
      if (cs->defined)
        fprintf (out, "%7s %9s", rho, p);
      else
        pad (out, _ ("undefined"), 17);
      for (guint k = 0; k < s->n_counts; k++)
        fprintf (out, " %9.4f", cs->share_at[k]);
      fprintf (out, "  %s\n", cs->name);
    }
  fputc ('\n', out);
  if (s->of_communication)
    fprintf (out, _ ("share@N: the callsite's mean share of the communication time at N tasks "
                     "(the time of all MPI calls but MPI_Init and MPI_Finalize).\n"));
  else
    fprintf (out, _ ("share@N: the callsite's mean share of the total “%s” of all MPI callsites "
                     "at N tasks.\n"),
             s->metric);
  fprintf (out, _ ("rho: Spearman's rank correlation of the share with the task count over all "
                   "runs; “undefined”: the share is the same in every run.\n"));
  {
    gboolean any_negligible = FALSE;

    for (guint c = 0; c < s->callsites->len; c++)
      any_negligible |= ((const StatsScalingCallsite *) g_ptr_array_index (s->callsites, c))->negligible;
    if (any_negligible)
      fprintf (out, _ ("Callsites whose share stays below %g %% at every task count are ranked last.\n"),
               100 * STATS_SCALING_NEGLIGIBLE);
  }
  if (!(s->smallest_p < STATS_SCALING_ALPHA))
    fprintf (out, ngettext ("With %u run no rho can be significant: the smallest p-value any rho can reach is "
                            "%.3g. A significant rho (p < %g) needs runs at %u or more different task counts.\n",
                            "With %u runs no rho can be significant: the smallest p-value any rho can reach is "
                            "%.3g. A significant rho (p < %g) needs runs at %u or more different task counts.\n",
                            s->runs->len),
             s->runs->len, s->smallest_p, STATS_SCALING_ALPHA, s->runs_for_significance);
  if (method == STATS_P_EXACT)
    fprintf (out, _ ("p-value: two-sided, exact permutation test.\n"));
  else if (method == STATS_P_T_APPROX)
    fprintf (out, _ ("p-value: two-sided, Student's t approximation with %u degrees of "
                     "freedom.\n"),
             s->runs->len - 2);
  return fflush (out) == 0 && !ferror (out);
}
