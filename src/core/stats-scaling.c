/* stats-scaling.c — per-callsite shares of the communication time across runs at several task
 * counts, and their Spearman correlation with the task count (Vetter & McCracken, PPoPP 2001).
 *
 * Definitions (docs/decisions/2026-11-25-scaling-statistics.md):
 *  - a callsite is an MPI call path: a call path whose region is an MPI function (paradigm "mpi"
 *    or a name starting with "MPI_") and that has no MPI call path above it; MPI_Init,
 *    MPI_Init_thread and MPI_Finalize (with everything below them) are set-up, not callsites;
 *  - a callsite's value in a run is its metric, inclusive along the call tree, summed over all
 *    locations; the communication time of a run is the `time` of all its callsites;
 *  - share = value / communication time for metrics in seconds, value / (the metric summed over
 *    all callsites) for other metrics (visits, bytes);
 *  - call paths match across reports by their region names from the root, like the algebra
 *    (cube-algebra.c); a repeated sibling call of the same region is told apart by its order. */
#include "stats-scaling.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (stats-error-quark, stats_error)

/* Reports with less than this share of their communication time in callsites that every report
 * has are taken to be of another program. */
#define COMMON_SHARE_MIN 0.5

typedef struct
{
  StatsScalingCallsite pub;    /* first: the public part */
  double              *time;   /* per run: `time` summed over locations */
  gboolean            *present;
} Callsite;

typedef struct
{
  const char   *metric;
  guint         n_runs;
  GPtrArray    *runs;          /* StatsScalingRun* */
  GPtrArray    *callsites;     /* Callsite*, order of first appearance */
  GHashTable   *by_name;       /* name → Callsite* */
  gboolean      of_communication;
  char         *metric_display;
} Ctx;

static void
step_free (StatsScalingStep *s)
{
  g_free (s->region);
  g_free (s->mod);
  g_free (s);
}

static void
callsite_free (Callsite *c)
{
  g_free (c->pub.name);
  g_clear_pointer (&c->pub.path, g_ptr_array_unref);
  g_free (c->pub.value);
  g_free (c->pub.share);
  g_free (c->pub.share_at);
  g_free (c->time);
  g_free (c->present);
  g_free (c);
}

static void
run_free (StatsScalingRun *r)
{
  g_free (r->input);
  g_free (r->report_path);
  g_free (r);
}

void
stats_scaling_free (StatsScaling *s)
{
  if (s == NULL)
    return;
  g_free (s->metric);
  g_free (s->metric_display);
  g_clear_pointer (&s->runs, g_ptr_array_unref);
  g_free (s->counts);
  g_clear_pointer (&s->callsites, g_ptr_array_unref);
  g_free (s);
}

/* ---- inputs ----------------------------------------------------------------------------------- */

static char *
experiment_report (const char *dir)
{
  static const char *const names[] = { "profile.cube", "analysis.cube" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      char *p = g_build_filename (dir, names[i], NULL);
      if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
        return p;
      g_free (p);
    }
  return NULL;
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
add_run (GPtrArray *runs, const char *input, char *report_path)
{
  StatsScalingRun *r = g_new0 (StatsScalingRun, 1);

  r->input = g_strdup (input);
  r->report_path = report_path;
  g_ptr_array_add (runs, r);
}

/* A report file, an experiment folder, or a folder of experiment folders (in name order). */
static gboolean
resolve_input (const char *input, GPtrArray *runs, GError **error)
{
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GPtrArray) subs = NULL;
  g_autoptr (GError) local = NULL;
  const char *name;
  char       *report;
  guint       before = runs->len;

  if (!g_file_test (input, G_FILE_TEST_IS_DIR))
    {
      add_run (runs, input, g_strdup (input)); /* the reader says what is wrong with it */
      return TRUE;
    }
  if ((report = experiment_report (input)) != NULL)
    {
      add_run (runs, input, report);
      return TRUE;
    }
  dir = g_dir_open (input, 0, &local);
  if (dir == NULL)
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_INPUT, _ ("%s: cannot list the folder: %s"),
                   input, local->message);
      return FALSE;
    }
  subs = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      char *sub = g_build_filename (input, name, NULL);
      if (g_file_test (sub, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (subs, sub);
      else
        g_free (sub);
    }
  g_ptr_array_sort (subs, compare_strings);
  for (guint i = 0; i < subs->len; i++)
    if ((report = experiment_report (g_ptr_array_index (subs, i))) != NULL)
      add_run (runs, g_ptr_array_index (subs, i), report);
  if (runs->len == before)
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_INPUT,
                   _ ("%s: this folder has no profile.cube or analysis.cube, and no experiment "
                      "folders with one inside"),
                   input);
      return FALSE;
    }
  return TRUE;
}

/* ---- one report ----------------------------------------------------------------------------- */

static gboolean
region_is_mpi (const CubeRegion *r)
{
  if (r == NULL || r->name == NULL)
    return FALSE;
  return (r->paradigm != NULL && g_ascii_strcasecmp (r->paradigm, "mpi") == 0)
         || g_str_has_prefix (r->name, "MPI_");
}

static gboolean
region_is_setup (const CubeRegion *r)
{
  return strcmp (r->name, "MPI_Init") == 0 || strcmp (r->name, "MPI_Init_thread") == 0
         || strcmp (r->name, "MPI_Finalize") == 0;
}

static const char *
region_name (const CubeCnode *c)
{
  return c->callee != NULL && c->callee->name != NULL ? c->callee->name : "";
}

/* For every call path, how many earlier siblings call the same region. */
static guint *
sibling_ordinals (const CubeReport *report)
{
  guint *ord = g_new0 (guint, MAX (report->cnodes->len, 1));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i <= report->cnodes->len; i++)
    {
      GPtrArray *kids = i < report->cnodes->len
                            ? ((CubeCnode *) g_ptr_array_index (report->cnodes, i))->children
                            : report->cnode_roots;

      if (kids->len < 2)
        continue;
      g_hash_table_remove_all (seen);
      for (guint k = 0; k < kids->len; k++)
        {
          const CubeCnode *c = g_ptr_array_index (kids, k);
          guint n = GPOINTER_TO_UINT (g_hash_table_lookup (seen, region_name (c)));

          ord[c->index] = n;
          g_hash_table_insert (seen, (gpointer) region_name (c), GUINT_TO_POINTER (n + 1));
        }
    }
  return ord;
}

static GPtrArray *
callsite_path (const CubeCnode *c, const guint *ordinals)
{
  GPtrArray *path = g_ptr_array_new_with_free_func ((GDestroyNotify) step_free);

  for (; c != NULL; c = c->parent)
    {
      StatsScalingStep *s = g_new0 (StatsScalingStep, 1);

      s->region = g_strdup (region_name (c));
      s->mod = c->callee != NULL ? g_strdup (c->callee->mod) : NULL;
      s->ordinal = ordinals[c->index];
      g_ptr_array_insert (path, 0, s);
    }
  return path;
}

static char *
path_name (GPtrArray *path)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < path->len; i++)
    {
      const StatsScalingStep *step = g_ptr_array_index (path, i);
      if (i > 0)
        g_string_append_c (s, '/');
      g_string_append (s, step->region);
      if (step->ordinal > 0)
        g_string_append_printf (s, "#%u", step->ordinal + 1);
    }
  return g_string_free (s, FALSE);
}

static guint
task_count (const CubeReport *report)
{
  guint processes = 0;

  for (guint i = 0; i < report->sysnodes->len; i++)
    if (((const CubeSysNode *) g_ptr_array_index (report->sysnodes, i))->kind == CUBE_SYS_PROCESS)
      processes++;
  return processes > 0 ? processes : report->locations->len;
}

static gboolean
metric_usable (const char *path, const CubeMetric *m, const char *name, GError **error)
{
  if (m == NULL)
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_METRIC,
                   _ ("%s: there is no metric with the unique name “%s”"), path, name);
      return FALSE;
    }
  if (!cube_metric_has_data (m))
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_METRIC,
                   _ ("%s: metric “%s” stores no values (it is derived or of an unsupported "
                      "type), so it cannot be summed over tasks"),
                   path, name);
      return FALSE;
    }
  if (m->dtype == CUBE_DTYPE_MINDOUBLE || m->dtype == CUBE_DTYPE_MAXDOUBLE)
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_METRIC,
                   _ ("%s: metric “%s” holds minima or maxima, which do not add up over "
                      "tasks; choose another metric"),
                   path, name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
unit_is_seconds (const CubeMetric *m)
{
  return m->uom != NULL
         && (strcmp (m->uom, "sec") == 0 || strcmp (m->uom, "s") == 0
             || strcmp (m->uom, "seconds") == 0);
}

static Callsite *
callsite_get (Ctx *ctx, const CubeCnode *c, const guint *ordinals)
{
  g_autoptr (GPtrArray) path = callsite_path (c, ordinals);
  g_autofree char *name = path_name (path);
  Callsite *cs = g_hash_table_lookup (ctx->by_name, name);

  if (cs != NULL)
    return cs;
  cs = g_new0 (Callsite, 1);
  cs->pub.name = g_steal_pointer (&name);
  cs->pub.path = g_steal_pointer (&path);
  cs->pub.value = g_new0 (double, ctx->n_runs);
  cs->pub.share = g_new0 (double, ctx->n_runs);
  cs->time = g_new0 (double, ctx->n_runs);
  cs->present = g_new0 (gboolean, ctx->n_runs);
  g_ptr_array_add (ctx->callsites, cs);
  g_hash_table_insert (ctx->by_name, cs->pub.name, cs);
  return cs;
}

static gboolean
read_run (Ctx *ctx, guint ri, GCancellable *cancellable, GError **error)
{
  StatsScalingRun *run = g_ptr_array_index (ctx->runs, ri);
  g_autoptr (CubeReport) report = NULL;
  g_autofree double *time_incl = NULL;
  g_autofree double *metric_incl = NULL;
  g_autofree double *per_location = NULL;
  g_autofree CubeCnodeSel *roots = NULL;
  g_autofree gboolean *below_mpi = NULL;
  g_autofree guint *ordinals = NULL;
  CubeMetric *time, *metric;
  CubeMetricSel sel;
  guint n_callsites = 0;

  report = cube_report_load (run->report_path, CUBE_LOAD_DEFAULT, cancellable, NULL, NULL, error);
  if (report == NULL)
    return FALSE;
  time = cube_report_find_metric (report, "time");
  if (time == NULL)
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_DATA,
                   _ ("%s: there is no metric “time”: the scalability statistics need the time "
                      "of every call path"),
                   run->report_path);
      return FALSE;
    }
  if (!metric_usable (run->report_path, time, "time", error))
    return FALSE;
  metric = cube_report_find_metric (report, ctx->metric);
  if (!metric_usable (run->report_path, metric, ctx->metric, error))
    return FALSE;
  if (ri == 0)
    {
      ctx->of_communication = unit_is_seconds (metric);
      ctx->metric_display = g_strdup (metric->disp_name ? metric->disp_name : metric->uniq_name);
    }

  run->tasks = task_count (report);
  if (run->tasks == 0)
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_DATA,
                   _ ("%s: the report has no processes or locations"), run->report_path);
      return FALSE;
    }

  time_incl = g_new0 (double, MAX (report->cnodes->len, 1));
  metric_incl = g_new0 (double, MAX (report->cnodes->len, 1));
  sel = (CubeMetricSel){ time, FALSE };
  if (!cube_values_cnodes (report, &sel, 1, NULL, 0, time_incl, NULL, error))
    return FALSE;
  sel = (CubeMetricSel){ metric, FALSE };
  if (!cube_values_cnodes (report, &sel, 1, NULL, 0, metric_incl, NULL, error))
    return FALSE;

  /* the run's length: the longest-running location (every location's time covers its run) */
  roots = g_new0 (CubeCnodeSel, MAX (report->cnode_roots->len, 1));
  for (guint i = 0; i < report->cnode_roots->len; i++)
    {
      roots[i] = (CubeCnodeSel){ g_ptr_array_index (report->cnode_roots, i), FALSE };
      run->aggregate += time_incl[roots[i].cnode->index];
    }
  per_location = g_new0 (double, MAX (report->locations->len, 1));
  sel = (CubeMetricSel){ time, FALSE };
  if (!cube_values_locations (report, &sel, 1, roots, report->cnode_roots->len, per_location,
                              error))
    return FALSE;
  for (guint l = 0; l < report->locations->len; l++)
    run->elapsed = MAX (run->elapsed, per_location[l]);

  ordinals = sibling_ordinals (report);
  below_mpi = g_new0 (gboolean, MAX (report->cnodes->len, 1));
  /* pre-order: a parent comes before its children */
  for (guint i = 0; i < report->cnodes->len; i++)
    {
      const CubeCnode *c = g_ptr_array_index (report->cnodes, i);
      Callsite *cs;

      if (c->parent != NULL)
        below_mpi[i] = below_mpi[c->parent->index] || region_is_mpi (c->parent->callee);
      if (below_mpi[i] || !region_is_mpi (c->callee))
        continue;
      if (region_is_setup (c->callee))
        {
          run->setup += time_incl[i];
          continue;
        }
      cs = callsite_get (ctx, c, ordinals);
      /* a name can repeat only through odd reports (a region named "X#2"); add up */
      cs->present[ri] = TRUE;
      cs->time[ri] += time_incl[i];
      cs->pub.value[ri] += metric_incl[i];
      run->communication += time_incl[i];
      n_callsites++;
    }
  run->computation = run->aggregate - run->communication - run->setup;
  if (n_callsites == 0)
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_DATA,
                   _ ("%s: the call tree has no MPI calls besides MPI_Init and MPI_Finalize: "
                      "there is no communication to compare"),
                   run->report_path);
      return FALSE;
    }
  if (!(run->communication > 0))
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_DATA,
                   _ ("%s: its MPI calls took no time: there is no communication time to "
                      "share out"),
                   run->report_path);
      return FALSE;
    }
  return TRUE;
}

/* ---- across runs ------------------------------------------------------------------------------ */

static gint
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

static gboolean
find_counts (Ctx *ctx, StatsScaling *s, GError **error)
{
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < ctx->runs->len; i++)
    {
      const StatsScalingRun *r = g_ptr_array_index (ctx->runs, i);
      gboolean seen = FALSE;

      for (guint k = 0; k < counts->len && !seen; k++)
        seen = g_array_index (counts, guint, k) == r->tasks;
      if (!seen)
        g_array_append_val (counts, r->tasks);
    }
  g_array_sort (counts, compare_guint);
  if (counts->len < 3)
    {
      GString *have = g_string_new (NULL);

      for (guint k = 0; k < counts->len; k++)
        {
          guint n = g_array_index (counts, guint, k);

          if (k > 0)
            g_string_append (have, "; ");
          g_string_append_printf (have, ngettext ("%u task:", "%u tasks:", n), n);
          for (guint i = 0, first = TRUE; i < ctx->runs->len; i++)
            {
              const StatsScalingRun *r = g_ptr_array_index (ctx->runs, i);
              if (r->tasks != n)
                continue;
              g_string_append_printf (have, "%s %s", first ? "" : ",", r->report_path);
              first = FALSE;
            }
        }
      g_set_error (error, STATS_ERROR, STATS_ERROR_DATA,
                   _ ("the scalability statistics need runs at three or more different task "
                      "counts; these reports have %u (%s)"),
                   counts->len, have->str);
      g_string_free (have, TRUE);
      return FALSE;
    }
  s->n_counts = counts->len;
  s->counts = (guint *) g_array_free (g_steal_pointer (&counts), FALSE);
  return TRUE;
}

/* Different programs share (almost) no callsites: every run must spend at least
 * COMMON_SHARE_MIN of its communication time in callsites that every run has. */
static gboolean
check_same_program (Ctx *ctx, GError **error)
{
  guint  n = ctx->runs->len, worst = 0, other = 0;
  double worst_share = 2, pair_share = 2;

  for (guint r = 0; r < n; r++)
    {
      const StatsScalingRun *run = g_ptr_array_index (ctx->runs, r);
      double common = 0;

      for (guint c = 0; c < ctx->callsites->len; c++)
        {
          const Callsite *cs = g_ptr_array_index (ctx->callsites, c);
          gboolean everywhere = TRUE;

          for (guint k = 0; k < n && everywhere; k++)
            everywhere = cs->present[k];
          if (everywhere)
            common += cs->time[r];
        }
      if (common / run->communication < worst_share)
        {
          worst_share = common / run->communication;
          worst = r;
        }
    }
  if (worst_share >= COMMON_SHARE_MIN)
    return TRUE;
  /* name the run that shares least with the worst one */
  for (guint k = 0; k < n; k++)
    {
      const StatsScalingRun *run = g_ptr_array_index (ctx->runs, worst);
      double both = 0;

      if (k == worst)
        continue;
      for (guint c = 0; c < ctx->callsites->len; c++)
        {
          const Callsite *cs = g_ptr_array_index (ctx->callsites, c);
          if (cs->present[worst] && cs->present[k])
            both += cs->time[worst];
        }
      if (both / run->communication < pair_share)
        {
          pair_share = both / run->communication;
          other = k;
        }
    }
  g_set_error (error, STATS_ERROR, STATS_ERROR_DATA,
               _ ("%s and %s seem to come from different programs: only %.0f%% of the "
                  "communication time of %s is spent in MPI callsites (call paths) that every "
                  "report has, at least %.0f%% is needed; choose reports of one program"),
               ((StatsScalingRun *) g_ptr_array_index (ctx->runs, worst))->report_path,
               ((StatsScalingRun *) g_ptr_array_index (ctx->runs, other))->report_path,
               100 * worst_share,
               ((StatsScalingRun *) g_ptr_array_index (ctx->runs, worst))->report_path,
               100 * COMMON_SHARE_MIN);
  return FALSE;
}

static void
compute_shares (Ctx *ctx, StatsScaling *s)
{
  guint n = ctx->runs->len;
  g_autofree double *x = g_new (double, n);
  g_autofree double *denominator = g_new0 (double, n);

  for (guint r = 0; r < n; r++)
    {
      const StatsScalingRun *run = g_ptr_array_index (ctx->runs, r);

      x[r] = run->tasks;
      if (ctx->of_communication)
        denominator[r] = run->communication;
      else
        for (guint c = 0; c < ctx->callsites->len; c++)
          denominator[r] += ((Callsite *) g_ptr_array_index (ctx->callsites, c))->pub.value[r];
    }
  for (guint c = 0; c < ctx->callsites->len; c++)
    {
      StatsScalingCallsite *cs = g_ptr_array_index (ctx->callsites, c);

      cs->share_at = g_new0 (double, s->n_counts);
      for (guint r = 0; r < n; r++)
        cs->share[r] = denominator[r] > 0 ? cs->value[r] / denominator[r] : 0;
      for (guint k = 0; k < s->n_counts; k++)
        {
          guint runs_at = 0;

          for (guint r = 0; r < n; r++)
            if (((StatsScalingRun *) g_ptr_array_index (ctx->runs, r))->tasks == s->counts[k])
              {
                cs->share_at[k] += cs->share[r];
                runs_at++;
              }
          cs->share_at[k] /= runs_at;
        }
      cs->defined = stats_spearman (x, cs->share, n, &cs->rho);
      cs->p_value = stats_spearman_p (x, cs->share, n, &cs->p_method);
      cs->negligible = TRUE;
      for (guint k = 0; k < s->n_counts; k++)
        cs->negligible &= cs->share_at[k] < STATS_SCALING_NEGLIGIBLE;
    }
  s->smallest_p = stats_spearman_smallest_p (x, n);
  s->runs_for_significance = stats_spearman_runs_for (STATS_SCALING_ALPHA);
}

static double
mean_share (const StatsScalingCallsite *c, guint n_counts)
{
  double sum = 0;

  for (guint k = 0; k < n_counts; k++)
    sum += c->share_at[k];
  return sum / n_counts;
}

static gint
compare_ranked (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const StatsScalingCallsite *a = *(StatsScalingCallsite *const *) pa;
  const StatsScalingCallsite *b = *(StatsScalingCallsite *const *) pb;
  guint n_counts = GPOINTER_TO_UINT (data);
  double ma, mb;

  /* what matters first: a callsite that never takes a real share of the time cannot be the
   * one that stops scaling, however well its share correlates (issue 24, item 9) */
  if (a->negligible != b->negligible)
    return a->negligible ? 1 : -1;
  if (a->defined != b->defined)
    return a->defined ? -1 : 1;
  if (a->defined && a->rho != b->rho)
    return a->rho > b->rho ? -1 : 1;
  ma = mean_share (a, n_counts);
  mb = mean_share (b, n_counts);
  if (ma != mb)
    return ma > mb ? -1 : 1;
  return strcmp (a->name, b->name);
}

static void
compute_speedup (StatsScaling *s)
{
  double base = 0;
  guint  at_min = 0;

  for (guint r = 0; r < s->runs->len; r++)
    {
      const StatsScalingRun *run = g_ptr_array_index (s->runs, r);
      if (run->tasks == s->counts[0])
        {
          base += run->elapsed;
          at_min++;
        }
    }
  base /= at_min;
  for (guint r = 0; r < s->runs->len; r++)
    {
      StatsScalingRun *run = g_ptr_array_index (s->runs, r);

      run->speedup = run->elapsed > 0 ? base / run->elapsed : 0;
      run->efficiency = run->speedup * s->counts[0] / run->tasks;
    }
}

StatsScaling *
stats_scaling_compute (const char *const *inputs,
                       guint              n_inputs,
                       const char        *metric,
                       GCancellable      *cancellable,
                       GError           **error)
{
  g_autoptr (StatsScaling) s = g_new0 (StatsScaling, 1);
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  Ctx ctx = { 0 };
  gboolean ok = TRUE;

  g_return_val_if_fail (inputs != NULL || n_inputs == 0, NULL);
  s->metric = g_strdup (metric != NULL ? metric : "time");
  s->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) run_free);
  s->callsites = g_ptr_array_new_with_free_func ((GDestroyNotify) callsite_free);
  for (guint i = 0; i < n_inputs; i++)
    if (!resolve_input (inputs[i], s->runs, error))
      return NULL;
  if (s->runs->len == 0)
    {
      g_set_error (error, STATS_ERROR, STATS_ERROR_DATA,
                   _ ("the scalability statistics need runs at three or more different task "
                      "counts; no report was given"));
      return NULL;
    }

  ctx.metric = s->metric;
  ctx.runs = s->runs;
  ctx.n_runs = s->runs->len;
  ctx.callsites = s->callsites;
  ctx.by_name = by_name;
  for (guint r = 0; r < s->runs->len && ok; r++)
    ok = !g_cancellable_set_error_if_cancelled (cancellable, error)
         && read_run (&ctx, r, cancellable, error);
  s->metric_display = g_steal_pointer (&ctx.metric_display);
  s->of_communication = ctx.of_communication;
  if (!ok || !find_counts (&ctx, s, error) || !check_same_program (&ctx, error))
    return NULL;
  compute_shares (&ctx, s);
  g_ptr_array_sort_with_data (s->callsites, compare_ranked, GUINT_TO_POINTER (s->n_counts));
  compute_speedup (s);
  return g_steal_pointer (&s);
}
