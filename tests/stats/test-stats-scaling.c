/* test-stats-scaling.c — the scalability statistics on the hand-made experiments of
 * scaling-fixture.h (2, 4, 4 and 8 tasks), whose shares, correlations and per-run figures are
 * worked out there and in the comments here. C(P) = P + 2 + P² (+ 0.08 at 8) is the
 * communication time. */
#include "cube-private.h"
#include "scaling-fixture.h"
#include "stats-scaling.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define EPS 1e-12

typedef struct
{
  char      *dir;
  GPtrArray *inputs;   /* char*: the four experiment folders */
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  (void) data;

  f->dir = g_dir_make_tmp ("kubus-scaling-XXXXXX", &error);
  g_assert_no_error (error);
  f->inputs = g_ptr_array_new_with_free_func (g_free);
  static const struct
  {
    const char *name;
    guint       tasks;
  } runs[] = { { "run-2", 2 }, { "run-4a", 4 }, { "run-4b", 4 }, { "run-8", 8 } };

  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    g_ptr_array_add (f->inputs,
                     scaling_fixture_write (f->dir, runs[i].name, "analysis.cube",
                                            scaling_fixture_report (runs[i].tasks,
                                                                    &scaling_shape_plain)));
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d != NULL)
    while ((name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (path, name, NULL);
        remove_tree (p);
      }
  g_remove (path);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  (void) data;
  remove_tree (f->dir);
  g_free (f->dir);
  g_ptr_array_unref (f->inputs);
}

static StatsScaling *
compute (GPtrArray *inputs, const char *metric, GError **error)
{
  return stats_scaling_compute ((const char *const *) inputs->pdata, inputs->len, metric, NULL,
                                error);
}

static const StatsScalingCallsite *
callsite (const StatsScaling *s, guint rank, const char *name)
{
  const StatsScalingCallsite *c;

  g_assert_cmpuint (rank, <, s->callsites->len);
  c = g_ptr_array_index (s->callsites, rank);
  g_assert_cmpstr (c->name, ==, name);
  return c;
}

static void
test_time (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = compute (f->inputs, NULL, &error);
  const StatsScalingCallsite *c;
  const double C2 = 8, C4 = 22, C8 = 74.08;
  (void) data;

  g_assert_no_error (error);
  g_assert_nonnull (s);
  g_assert_cmpstr (s->metric, ==, "time");
  g_assert_true (s->of_communication);
  g_assert_cmpuint (s->n_counts, ==, 3);
  g_assert_cmpuint (s->counts[0], ==, 2);
  g_assert_cmpuint (s->counts[1], ==, 4);
  g_assert_cmpuint (s->counts[2], ==, 8);
  g_assert_cmpuint (s->callsites->len, ==, 5);

  /* Allreduce: shares 4/8, 16/22, 16/22, 64/74.08 rise strictly (ties at 4 like the task
   * counts): rho = 1; exact p = 1/6 (test-stats-spearman.c, the same rank pattern) */
  c = callsite (s, 0, "main/solve/MPI_Allreduce");
  g_assert_true (c->defined);
  g_assert_cmpfloat_with_epsilon (c->rho, 1, EPS);
  g_assert_cmpfloat_with_epsilon (c->p_value, 1.0 / 6, EPS);
  g_assert_cmpint (c->p_method, ==, STATS_P_EXACT);
  g_assert_cmpfloat_with_epsilon (c->share[0], 4 / C2, EPS);
  g_assert_cmpfloat_with_epsilon (c->share[1], 16 / C4, EPS);
  g_assert_cmpfloat_with_epsilon (c->share[3], 64 / C8, EPS);
  g_assert_cmpfloat_with_epsilon (c->share_at[1], 16 / C4, EPS);
  g_assert_cmpfloat_with_epsilon (c->value[3], 64, EPS);

  /* Bcast only at 8 tasks: shares 0, 0, 0, 0.08/74.08: rho = √(2/3), p = 1/2; below 1 % at
   * every task count, so ranked after every callsite that takes a real share (issue 24) */
  c = callsite (s, 3, "main/solve/MPI_Bcast");
  g_assert_true (c->negligible);
  g_assert_cmpfloat_with_epsilon (c->rho, sqrt (2.0 / 3), EPS);
  g_assert_cmpfloat_with_epsilon (c->p_value, 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (c->share_at[2], 0.08 / C8, EPS);
  g_assert_cmpfloat (c->share_at[0], ==, 0);

  /* both receives fall (rho = −1); the first has the larger mean share, so it ranks first */
  c = callsite (s, 1, "main/solve/MPI_Recv");
  g_assert_false (c->negligible);
  g_assert_cmpfloat_with_epsilon (c->rho, -1, EPS);
  g_assert_cmpfloat_with_epsilon (c->share[0], 2 / C2, EPS);
  g_assert_cmpfloat_with_epsilon (c->share[3], 8 / C8, EPS);
  c = callsite (s, 2, "main/solve/MPI_Recv#2");
  g_assert_cmpfloat_with_epsilon (c->rho, -1, EPS);
  g_assert_cmpfloat_with_epsilon (c->share_at[0], 2 / C2, EPS);
  g_assert_cmpfloat_with_epsilon (c->share_at[2], 2 / C8, EPS);

  /* MPI_Comm_rank: always 0, rho undefined, ranked last */
  c = callsite (s, 4, "main/MPI_Comm_rank");
  g_assert_true (c->negligible);
  /* runs at 2, 4, 4, 8 tasks: the best a share can do is rise with every run, tied at 4
   * (rho = 0.9487, exact p = 4/24); a significant rho needs runs at 5 task counts (2/5!) */
  g_assert_cmpfloat_with_epsilon (s->smallest_p, 4.0 / 24, EPS);
  g_assert_cmpuint (s->runs_for_significance, ==, 5);
  g_assert_false (c->defined);
  g_assert_true (isnan (c->p_value));
  g_assert_cmpint (c->p_method, ==, STATS_P_NONE);

  /* per run: aggregate = P·(1 + .5 + 2 + .25) + C(P); elapsed = 3.75 + 1 + 2/P + P (+ .01);
   * speedup against the run at 2 tasks (elapsed 7.75), efficiency = speedup · 2 / P */
  {
    const StatsScalingRun *r2 = g_ptr_array_index (s->runs, 0);
    const StatsScalingRun *r4 = g_ptr_array_index (s->runs, 1);
    const StatsScalingRun *r8 = g_ptr_array_index (s->runs, 3);

    g_assert_cmpuint (r2->tasks, ==, 2);
    g_assert_cmpfloat_with_epsilon (r2->aggregate, 7.5 + C2, EPS);
    g_assert_cmpfloat_with_epsilon (r2->communication, C2, EPS);
    g_assert_cmpfloat_with_epsilon (r2->setup, 1.5, EPS);
    g_assert_cmpfloat_with_epsilon (r2->computation, 6, EPS);
    g_assert_cmpfloat_with_epsilon (r2->elapsed, 7.75, EPS);
    g_assert_cmpfloat_with_epsilon (r2->speedup, 1, EPS);
    g_assert_cmpfloat_with_epsilon (r2->efficiency, 1, EPS);
    g_assert_cmpfloat_with_epsilon (r4->elapsed, 9.25, EPS);
    g_assert_cmpfloat_with_epsilon (r4->speedup, 7.75 / 9.25, EPS);
    g_assert_cmpfloat_with_epsilon (r4->efficiency, 7.75 / 9.25 / 2, EPS);
    g_assert_cmpuint (r8->tasks, ==, 8);
    g_assert_cmpfloat_with_epsilon (r8->aggregate, 30 + C8, EPS);
    g_assert_cmpfloat_with_epsilon (r8->elapsed, 3.75 + 1 + 0.25 + 8 + 0.01, EPS);
    g_assert_cmpfloat_with_epsilon (r8->efficiency, 7.75 / 13.01 / 4, EPS);
    g_assert_true (g_str_has_suffix (r8->report_path, "run-8/analysis.cube"));
  }
}

/* A wait-state metric in seconds: shares of the communication time. MPI_Recv's Late Sender is
 * 0.5·P: shares 1/8, 2/22, 2/22, 4/74.08 fall: rho = −1. */
static void
test_wait_metric (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = compute (f->inputs, "mpi_latesender", &error);
  const StatsScalingCallsite *c;
  (void) data;

  g_assert_no_error (error);
  g_assert_true (s->of_communication);
  g_assert_cmpstr (s->metric_display, ==, "Late Sender");
  c = callsite (s, 0, "main/solve/MPI_Recv");
  g_assert_cmpfloat_with_epsilon (c->share[0], 1.0 / 8, EPS);
  g_assert_cmpfloat_with_epsilon (c->share[3], 4 / 74.08, EPS);
  g_assert_cmpfloat_with_epsilon (c->rho, -1, EPS);
  /* the rest never wait: undefined */
  for (guint i = 1; i < s->callsites->len; i++)
    g_assert_false (((StatsScalingCallsite *) g_ptr_array_index (s->callsites, i))->defined);
}

/* A count: shares of the metric's total over the callsites. Visits per location: 10 + 10 + 1,
 * so every share is constant (10/21, 10/21, 1/21): all undefined. */
static void
test_count_metric (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = compute (f->inputs, "visits", &error);
  (void) data;

  g_assert_no_error (error);
  g_assert_false (s->of_communication);
  for (guint i = 0; i < s->callsites->len; i++)
    {
      const StatsScalingCallsite *c = g_ptr_array_index (s->callsites, i);
      g_assert_false (c->defined);
      if (strcmp (c->name, "main/solve/MPI_Allreduce") == 0)
        g_assert_cmpfloat_with_epsilon (c->share[2], 1.0 / 21, EPS);
    }
}

/* profile.cube wins over analysis.cube; a folder of experiments expands in name order */
static void
test_inputs (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = NULL;
  g_autoptr (GPtrArray) one = g_ptr_array_new ();
  ScalingShape no_time = scaling_shape_plain;
  g_autofree char *exp = NULL;
  (void) data;

  /* an analysis.cube without time next to the profile: reading it would fail */
  no_time.with_time = FALSE;
  g_free (scaling_fixture_write (f->dir, "run-4a", "profile.cube",
                                 scaling_fixture_report (4, &scaling_shape_plain)));
  exp = scaling_fixture_write (f->dir, "run-4a", "analysis.cube", scaling_fixture_report (4, &no_time));
  g_ptr_array_add (one, f->dir);
  s = compute (one, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (s->runs->len, ==, 4);
  g_assert_true (g_str_has_suffix (((StatsScalingRun *) g_ptr_array_index (s->runs, 1))->report_path,
                                   "run-4a/profile.cube"));
  g_assert_true (g_str_has_suffix (((StatsScalingRun *) g_ptr_array_index (s->runs, 3))->input,
                                   "run-8"));
}

/* threads are not tasks: 2 processes × 2 threads is 2 tasks */
static void
test_threads (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = NULL;
  ScalingShape threads = scaling_shape_plain;
  (void) data;

  threads.threads = TRUE;
  g_free (scaling_fixture_write (f->dir, "run-2", "analysis.cube", scaling_fixture_report (2, &threads)));
  s = compute (f->inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (((StatsScalingRun *) g_ptr_array_index (s->runs, 0))->tasks, ==, 2);
  g_assert_cmpfloat_with_epsilon (callsite (s, 0, "main/solve/MPI_Allreduce")->share[0], 0.5, EPS);
}

static void
expect_error (GPtrArray *inputs, const char *metric, GQuark domain, int code, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = compute (inputs, metric, &error);

  g_assert_null (s);
  g_assert_error (error, domain, code);
  if (strstr (error->message, needle) == NULL)
    g_error ("message “%s” does not contain “%s”", error->message, needle);
}

static void
test_errors (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) two = g_ptr_array_new ();
  ScalingShape other = scaling_shape_plain, no_time = scaling_shape_plain;
  ScalingShape no_mpi = scaling_shape_plain, idle = scaling_shape_plain;
  g_autofree char *empty = g_build_filename (f->dir, "empty", NULL);
  (void) data;

  /* two task counts only: the message lists them and the reports */
  g_ptr_array_add (two, g_ptr_array_index (f->inputs, 0));
  g_ptr_array_add (two, g_ptr_array_index (f->inputs, 1));
  g_ptr_array_add (two, g_ptr_array_index (f->inputs, 2));
  expect_error (two, NULL, STATS_ERROR, STATS_ERROR_DATA, "three or more different task counts");
  expect_error (two, NULL, STATS_ERROR, STATS_ERROR_DATA, "run-4b/analysis.cube");
  g_ptr_array_set_size (two, 0);
  expect_error (two, NULL, STATS_ERROR, STATS_ERROR_DATA, "no report was given");

  /* unknown or unusable metrics */
  expect_error (f->inputs, "nope", STATS_ERROR, STATS_ERROR_METRIC, "“nope”");

  /* a folder without reports */
  g_assert_cmpint (g_mkdir (empty, 0755), ==, 0);
  g_ptr_array_add (two, empty);
  expect_error (two, NULL, STATS_ERROR, STATS_ERROR_INPUT, "empty: this folder has no");
  /* a file that does not exist: the reader's error */
  g_ptr_array_set_size (two, 0);
  g_ptr_array_add (two, "/nonexistent/x.cube");
  expect_error (two, NULL, CUBE_ERROR, CUBE_ERROR_IO, "/nonexistent/x.cube");

  /* another program: its root is called differently, so no callsite is in every report */
  other.main_name = "other";
  g_free (scaling_fixture_write (f->dir, "run-8", "analysis.cube", scaling_fixture_report (8, &other)));
  expect_error (f->inputs, NULL, STATS_ERROR, STATS_ERROR_DATA, "different programs");
  expect_error (f->inputs, NULL, STATS_ERROR, STATS_ERROR_DATA, "only 0%");

  no_time.with_time = FALSE;
  g_free (scaling_fixture_write (f->dir, "run-8", "analysis.cube", scaling_fixture_report (8, &no_time)));
  expect_error (f->inputs, NULL, STATS_ERROR, STATS_ERROR_DATA, "no metric “time”");

  no_mpi.no_mpi = TRUE;
  g_free (scaling_fixture_write (f->dir, "run-8", "analysis.cube", scaling_fixture_report (8, &no_mpi)));
  expect_error (f->inputs, NULL, STATS_ERROR, STATS_ERROR_DATA,
                "run-8/analysis.cube: the call tree has no MPI calls besides MPI_Init");

  idle.idle = TRUE;
  g_free (scaling_fixture_write (f->dir, "run-8", "analysis.cube", scaling_fixture_report (8, &idle)));
  expect_error (f->inputs, NULL, STATS_ERROR, STATS_ERROR_DATA, "run-8/analysis.cube: its MPI calls took no time");
}

/* The result as a report, written and read back */
static void
test_report (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = compute (f->inputs, NULL, &error);
  g_autoptr (CubeReport) out = NULL;
  g_autoptr (CubeReport) back = NULL;
  g_autofree char *path = g_build_filename (f->dir, "scaling.cube", NULL);
  g_autofree double *row = NULL;
  GString *tree = g_string_new (NULL);
  CubeMetric *rho, *p, *share2, *share8;
  (void) data;

  g_assert_no_error (error);
  out = stats_scaling_to_report (s);
  g_assert_true (cube_report_write (out, path, &error));
  g_assert_no_error (error);
  back = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (cube_report_get_attr (back, STATS_SCALING_ATTR_METRIC), ==, "time");
  g_assert_cmpstr (cube_report_get_attr (back, STATS_SCALING_ATTR_COUNTS), ==, "2,4,8");
  g_assert_cmpstr (cube_report_get_attr (back, STATS_SCALING_ATTR_RUNS), ==, "4");
  g_assert_cmpuint (back->locations->len, ==, 1);
  g_assert_cmpuint (back->metrics->len, ==, 5);
  rho = cube_report_find_metric (back, "scaling_rho");
  p = cube_report_find_metric (back, "scaling_p");
  share2 = cube_report_find_metric (back, "scaling_share_2");
  share8 = cube_report_find_metric (back, "scaling_share_8");
  g_assert_nonnull (rho);
  g_assert_nonnull (p);
  g_assert_nonnull (share2);
  g_assert_nonnull (share8);
  g_assert_nonnull (cube_report_find_metric (back, "scaling_share_4"));

  /* the call tree: the callsites' paths in ranking order, repeated siblings kept apart */
  for (guint i = 0; i < back->cnodes->len; i++)
    {
      const CubeCnode *c = g_ptr_array_index (back->cnodes, i);
      g_string_append_printf (tree, "%*s%s\n", 2 * (int) c->depth, "", c->callee->name);
    }
  g_assert_cmpstr (tree->str, ==,
                   "main\n"
                   "  solve\n"
                   "    MPI_Allreduce\n"
                   "    MPI_Recv\n"
                   "    MPI_Recv#2\n"
                   "    MPI_Bcast\n"
                   "  MPI_Comm_rank\n");
  g_string_free (tree, TRUE);

  row = g_new0 (double, 1);
  {
    const CubeCnode *allreduce = g_ptr_array_index (back->cnodes, 2);
    const CubeCnode *recv2 = g_ptr_array_index (back->cnodes, 4);
    const CubeCnode *comm_rank = g_ptr_array_index (back->cnodes, 6);
    g_autofree char *undefined = g_strdup_printf ("%" G_GINT64_FORMAT, comm_rank->file_id);

    g_assert_true (cube_report_get_row (back, rho, allreduce, row, &error));
    g_assert_cmpfloat_with_epsilon (row[0], 1, 1e-9);
    g_assert_true (cube_report_get_row (back, p, allreduce, row, &error));
    g_assert_cmpfloat_with_epsilon (row[0], 1.0 / 6, 1e-9);
    g_assert_true (cube_report_get_row (back, share2, allreduce, row, &error));
    g_assert_cmpfloat_with_epsilon (row[0], 0.5, 1e-9);
    g_assert_true (cube_report_get_row (back, share8, recv2, row, &error));
    g_assert_cmpfloat_with_epsilon (row[0], 2 / 74.08, 1e-9);
    g_assert_true (cube_report_get_row (back, rho, recv2, row, &error));
    g_assert_cmpfloat_with_epsilon (row[0], -1, 1e-9);
    /* undefined rho: no value (no stored row) with p = 1, and listed */
    g_assert_true (cube_report_get_row (back, p, comm_rank, row, &error));
    g_assert_cmpfloat (row[0], ==, 1);
    g_assert_null (rho->data->rows == NULL || comm_rank->index >= rho->data->n_rows
                       ? NULL
                       : rho->data->rows[comm_rank->index]);
    g_assert_cmpstr (cube_report_get_attr (back, STATS_SCALING_ATTR_UNDEFINED), ==, undefined);
    /* ranking: Allreduce, Recv, Recv#2, Bcast, Comm_rank: pre-order positions 2 3 4 5 6 */
    {
      g_autofree char *want = g_strdup_printf (
          "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
          " %" G_GINT64_FORMAT,
          ((CubeCnode *) g_ptr_array_index (back->cnodes, 2))->file_id,
          ((CubeCnode *) g_ptr_array_index (back->cnodes, 3))->file_id, recv2->file_id,
          ((CubeCnode *) g_ptr_array_index (back->cnodes, 5))->file_id, comm_rank->file_id);
      g_assert_cmpstr (cube_report_get_attr (back, STATS_SCALING_ATTR_RANKING), ==, want);
      g_assert_cmpstr (cube_report_get_attr (back, STATS_SCALING_ATTR_RUNS_NEEDED), ==, "5");
      g_assert_cmpstr (cube_report_get_attr (back, STATS_SCALING_ATTR_SMALLEST_P), ==, "0.166667");
    }
  }
}

/* The call pane's value of @metric at the call path at pre-order position @c: collapsed (its
 * subtree) or expanded (its own). */
static double
cnode_value (CubeReport *r, CubeMetric *metric, guint c, gboolean expanded)
{
  g_autoptr (GError) error = NULL;
  g_autofree double *incl = g_new (double, r->cnodes->len);
  g_autofree double *excl = g_new (double, r->cnodes->len);
  CubeMetricSel sel = { metric, FALSE };

  g_assert_true (cube_values_cnodes (r, &sel, 1, NULL, 0, incl, excl, &error));
  g_assert_no_error (error);
  return expanded ? excl[c] : incl[c];
}

/* Inner call paths of the -o report (issue 25 §6): rho is the largest rho below (not a sum of
 * correlations), p the smallest p-value, shares add up; an undefined rho never wins; inner
 * call paths have no value of their own; the descriptions say so. */
static void
test_report_aggregates (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = compute (f->inputs, NULL, &error);
  g_autoptr (CubeReport) out = NULL;
  g_autoptr (CubeReport) back = NULL;
  g_autofree char *path = g_build_filename (f->dir, "scaling.cubex", NULL);
  CubeMetric *rho, *p, *share8;
  double total;
  (void) data;

  g_assert_no_error (error);
  /* positions in the tree: 0 main, 1 solve, 2 Allreduce (rho 1), 3 Bcast (0.816), 4 Recv (−1),
   * 5 Recv#2 (−1), 6 Comm_rank (undefined) */
  out = stats_scaling_to_report (s);
  rho = cube_report_find_metric (out, "scaling_rho");
  p = cube_report_find_metric (out, "scaling_p");
  share8 = cube_report_find_metric (out, "scaling_share_8");
  g_assert_cmpint (rho->dtype, ==, CUBE_DTYPE_MAXDOUBLE);
  g_assert_cmpint (p->dtype, ==, CUBE_DTYPE_MINDOUBLE);
  g_assert_cmpint (share8->dtype, ==, CUBE_DTYPE_DOUBLE);
  g_assert_nonnull (strstr (rho->descr, "shows the largest rho among them"));
  g_assert_nonnull (strstr (p->descr, "shows the smallest p-value among them"));
  g_assert_nonnull (strstr (share8->descr, "shows the sum of their shares"));

  g_assert_cmpfloat_with_epsilon (cnode_value (out, rho, 1, FALSE), 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (cnode_value (out, rho, 0, FALSE), 1, 1e-12);
  g_assert_cmpfloat (cnode_value (out, rho, 0, TRUE), ==, 0);  /* nothing of its own */
  g_assert_cmpfloat (cnode_value (out, rho, 1, TRUE), ==, 0);
  g_assert_cmpfloat_with_epsilon (cnode_value (out, p, 1, FALSE), 1.0 / 6, 1e-12);
  g_assert_cmpfloat_with_epsilon (cnode_value (out, p, 0, FALSE), 1.0 / 6, 1e-12);
  g_assert_cmpfloat_with_epsilon (cnode_value (out, share8, 1, FALSE),
                                  (64 + 0.08 + 8 + 2) / 74.08, 1e-12);
  g_assert_true (cube_values_metric_total (out, rho, FALSE, &total, &error));
  g_assert_cmpfloat_with_epsilon (total, 1, 1e-12);

  /* the same with Allreduce and Bcast undefined: what is left below solve and main is −1, and
   * an undefined rho (no value) must not make it 0 */
  for (guint i = 0; i < s->callsites->len; i++)
    {
      StatsScalingCallsite *cs = g_ptr_array_index (s->callsites, i);

      if (g_str_has_suffix (cs->name, "MPI_Allreduce") || g_str_has_suffix (cs->name, "MPI_Bcast"))
        cs->defined = FALSE;
    }
  g_clear_pointer (&out, cube_report_free);
  out = stats_scaling_to_report (s);
  g_assert_true (cube_report_write (out, path, &error));
  g_assert_no_error (error);
  back = cube_report_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  rho = cube_report_find_metric (back, "scaling_rho");
  p = cube_report_find_metric (back, "scaling_p");
  g_assert_cmpint (rho->dtype, ==, CUBE_DTYPE_MAXDOUBLE);
  g_assert_cmpfloat_with_epsilon (cnode_value (back, rho, 1, FALSE), -1, 1e-12);
  g_assert_cmpfloat_with_epsilon (cnode_value (back, rho, 0, FALSE), -1, 1e-12);
  g_assert_cmpfloat_with_epsilon (cnode_value (back, p, 1, FALSE), 1.0 / 6, 1e-12);
  g_assert_true (cube_values_metric_total (back, rho, FALSE, &total, &error));
  g_assert_cmpfloat_with_epsilon (total, -1, 1e-12);
}

/* Printed output: CSV exactly; the text's ranking lines */
static void
test_print (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) s = compute (f->inputs, NULL, &error);
  char   *buf = NULL;
  size_t  len = 0;
  FILE   *mem;
  (void) data;

  g_assert_no_error (error);
  mem = open_memstream (&buf, &len);
  g_assert_true (stats_scaling_print_csv (s, mem));
  fclose (mem);
  g_assert_cmpstr (buf, ==,
                   "callsite,rho,p_value,p_method,share_2,share_4,share_8\n"
                   "main/solve/MPI_Allreduce,1,0.1666666667,exact,0.5,0.7272727273,0.8639308855\n"
                   "main/solve/MPI_Recv,-1,0.1666666667,exact,0.25,0.1818181818,0.1079913607\n"
                   "main/solve/MPI_Recv#2,-1,0.1666666667,exact,0.25,0.09090909091,0.02699784017\n"
                   "main/solve/MPI_Bcast,0.8164965809,0.5,exact,0,0,0.001079913607\n"
                   "main/MPI_Comm_rank,,,,0,0,0\n");
  free (buf);

  mem = open_memstream (&buf, &len);
  g_assert_true (stats_scaling_print_text (s, mem));
  fclose (mem);
  g_assert_nonnull (strstr (buf, "   1  +1.000     0.167    0.5000    0.7273    0.8639  main/solve/MPI_Allreduce\n"));
  g_assert_nonnull (strstr (buf, "   5 undefined            0.0000    0.0000    0.0000  main/MPI_Comm_rank\n"));
  g_assert_nonnull (strstr (buf, "     2    15.500000       8.000000       1.500000     6.000000    1.000      1.000  "));
  g_assert_nonnull (strstr (buf, "With 4 runs no rho can be significant: the smallest p-value any rho can reach is 0.167. "
                                 "A significant rho (p < 0.05) needs runs at 5 or more different task counts.\n"));
  free (buf);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/scaling/time", test_time);
  ADD ("/scaling/wait-metric", test_wait_metric);
  ADD ("/scaling/count-metric", test_count_metric);
  ADD ("/scaling/inputs", test_inputs);
  ADD ("/scaling/threads", test_threads);
  ADD ("/scaling/errors", test_errors);
  ADD ("/scaling/report", test_report);
  ADD ("/scaling/report-aggregates", test_report_aggregates);
  ADD ("/scaling/print", test_print);
  return g_test_run ();
}
