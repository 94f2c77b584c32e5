/* test-algebra.c — report difference, merge and mean (src/cube/cube-algebra.c).
 *
 * Hand-made reports with different metric, call and system trees give exact expected values;
 * real files ($KUBUS_SHARED_DATA/cube, skipped when absent) check diff A A = 0, mean A A = A,
 * mean (A, 3A) = 2A, and that diff of two different real reports conserves every per-metric,
 * per-location total. */
#include "cube-private.h"

#include <math.h>
#include <string.h>

static char *shared_cube_dir;

/* ---- building hand-made reports ------------------------------------------------------------ */

static CubeSysNode *
add_rank (CubeReport *r, CubeSysNode *node, gint64 rank)
{
  g_autofree char *name = g_strdup_printf ("rank %" G_GINT64_FORMAT, rank);
  CubeSysNode     *p = cube_report_add_sysnode (r, node, CUBE_SYS_PROCESS, name, rank);

  return cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, "thread 0", 0);
}

static void
set_row (CubeReport *r, CubeMetric *m, CubeCnode *c, const double *v)
{
  for (guint l = 0; l < r->locations->len; l++)
    if (v[l] != 0.0)
      cube_report_set_value (r, m, c, l, v[l]);
}

/* A: time > mpi, visits; main > { foo > baz, bar }; ranks 0, 1. */
static CubeReport *
make_a (void)
{
  CubeReport  *r = cube_report_new ();
  CubeMetric  *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec",
                                              "", "");
  CubeMetric  *mpi = cube_report_add_metric (r, time, "mpi", "MPI", CUBE_DTYPE_DOUBLE, "sec", "",
                                             "");
  CubeMetric  *visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_INT64,
                                                "occ", "", "");
  CubeCnode   *main_ = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c",
                                                                               1, 9), 1, "a.c");
  CubeCnode   *foo = cube_report_add_cnode (r, main_, cube_report_add_region (r, "foo", "a.c", 10,
                                                                              19), 5, "a.c");
  CubeCnode   *baz = cube_report_add_cnode (r, foo, cube_report_add_region (r, "baz", "a.c", 20,
                                                                            29), 12, "a.c");
  CubeCnode   *bar = cube_report_add_cnode (r, main_, cube_report_add_region (r, "bar", "a.c", 30,
                                                                              39), 6, "a.c");
  CubeSysNode *mach = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "cluster", -1);
  CubeSysNode *node = cube_report_add_sysnode (r, mach, CUBE_SYS_NODE, "node0", -1);
  gint64       size[1] = { 2 };
  gboolean     periodic[1] = { FALSE };
  CubeCart    *cart;

  add_rank (r, node, 0);
  add_rank (r, node, 1);
  cart = cube_report_add_cart (r, "ring", 1, size, periodic);
  for (guint l = 0; l < 2; l++)
    {
      gint64 c[1] = { l };
      cube_cart_set_coord (cart, g_ptr_array_index (r->locations, l), c);
    }

  set_row (r, time, main_, (double[]){ 10, 20 });
  set_row (r, time, foo, (double[]){ 1, 2 });
  set_row (r, time, baz, (double[]){ 3, 4 });
  set_row (r, time, bar, (double[]){ 5, 6 });
  set_row (r, mpi, bar, (double[]){ 1, 1 });
  set_row (r, visits, main_, (double[]){ 1, 1 });
  set_row (r, visits, foo, (double[]){ 2, 2 });
  set_row (r, visits, baz, (double[]){ 3, 3 });
  set_row (r, visits, bar, (double[]){ 4, 4 });
  return r;
}

/* B: visits, time > io; main > { foo (line 10), foo (line 20), qux }; ranks 2, 1, 0. */
static CubeReport *
make_b (void)
{
  CubeReport  *r = cube_report_new ();
  CubeMetric  *visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_INT64,
                                                "occ", "", "");
  CubeMetric  *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec",
                                              "", "");
  CubeMetric  *io = cube_report_add_metric (r, time, "io", "I/O", CUBE_DTYPE_DOUBLE, "sec", "", "");
  CubeRegion  *foo_r = cube_report_add_region (r, "foo", "b.c", 1, 2);
  CubeCnode   *main_ = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "b.c",
                                                                               3, 4), -1, NULL);
  CubeCnode   *foo1 = cube_report_add_cnode (r, main_, foo_r, 10, NULL);
  CubeCnode   *foo2 = cube_report_add_cnode (r, main_, foo_r, 20, NULL);
  CubeCnode   *qux = cube_report_add_cnode (r, main_, cube_report_add_region (r, "qux", "b.c", 5,
                                                                              6), -1, NULL);
  CubeSysNode *mach = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "other", -1);
  CubeSysNode *node = cube_report_add_sysnode (r, mach, CUBE_SYS_NODE, "n1", -1);

  /* ranks in another order than A: matching is by rank, not by position */
  add_rank (r, node, 2);
  add_rank (r, node, 1);
  add_rank (r, node, 0);

  /* locations here: 0 = rank 2, 1 = rank 1, 2 = rank 0 */
  set_row (r, time, main_, (double[]){ 1, 1, 1 });
  set_row (r, time, foo1, (double[]){ 0.25, 0.25, 0.25 });
  set_row (r, time, foo2, (double[]){ 0.25, 0.25, 0.25 });
  set_row (r, time, qux, (double[]){ 2, 2, 2 });
  set_row (r, io, qux, (double[]){ 1, 1, 1 });
  set_row (r, visits, main_, (double[]){ 1, 1, 1 });
  return r;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static CubeCnode *
find_path (CubeReport *r, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  GPtrArray *level = r->cnode_roots;
  CubeCnode *found = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      found = NULL;
      for (guint k = 0; k < level->len && found == NULL; k++)
        {
          CubeCnode *c = g_ptr_array_index (level, k);
          if (strcmp (c->callee->name, parts[i]) == 0)
            found = c;
        }
      if (found == NULL)
        return NULL;
      level = found->children;
    }
  return found;
}

static void
assert_row (CubeReport *r, const char *metric, const char *path, const double *want)
{
  CubeMetric        *m = cube_report_find_metric (r, metric);
  CubeCnode         *c = find_path (r, path);
  g_autofree double *row = g_new0 (double, r->locations->len);
  g_autoptr (GError) error = NULL;

  if (m == NULL || c == NULL)
    g_error ("result lacks metric %s or call path %s", metric, path);
  g_assert_true (cube_report_get_row (r, m, c, row, &error));
  g_assert_no_error (error);
  for (guint l = 0; l < r->locations->len; l++)
    if (row[l] != want[l])
      g_error ("%s at %s, location %u: got %.17g, want %.17g", metric, path, l, row[l], want[l]);
}

static guint
count_rows (CubeReport *r)
{
  guint n = 0;

  for (guint i = 0; i < r->metrics->len; i++)
    {
      CubeMetricData *d = ((CubeMetric *) g_ptr_array_index (r->metrics, i))->data;
      for (guint c = 0; c < d->n_rows; c++)
        n += d->rows[c] != NULL;
    }
  return n;
}

/* ---- hand-made ----------------------------------------------------------------------------- */

static void
test_diff_union (void)
{
  g_autoptr (CubeReport) a = make_a ();
  g_autoptr (CubeReport) b = make_b ();
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) d = cube_algebra_diff (a, b, &error);

  g_assert_no_error (error);
  g_assert_nonnull (d);
  g_assert_cmpint (d->format, ==, CUBE_FORMAT_MEMORY);

  /* metrics: union by unique name, first report's tree first */
  g_assert_cmpuint (d->metrics->len, ==, 4);
  g_assert_cmpstr (((CubeMetric *) g_ptr_array_index (d->metrics, 0))->uniq_name, ==, "time");
  g_assert_cmpstr (((CubeMetric *) g_ptr_array_index (d->metrics, 1))->uniq_name, ==, "mpi");
  g_assert_cmpstr (((CubeMetric *) g_ptr_array_index (d->metrics, 2))->uniq_name, ==, "io");
  g_assert_cmpstr (((CubeMetric *) g_ptr_array_index (d->metrics, 3))->uniq_name, ==, "visits");
  g_assert_true (cube_report_find_metric (d, "io")->parent == cube_report_find_metric (d, "time"));

  /* call paths: union by region names; B's second foo call site is a call path of its own */
  g_assert_cmpuint (d->cnodes->len, ==, 6);
  g_assert_nonnull (find_path (d, "main/foo/baz"));
  g_assert_nonnull (find_path (d, "main/qux"));
  {
    CubeCnode *main_ = find_path (d, "main");
    CubeCnode *foo2 = g_ptr_array_index (main_->children, 2);
    double     row[3];

    g_assert_cmpuint (main_->children->len, ==, 4); /* foo, bar, foo#1, qux */
    g_assert_cmpstr (foo2->callee->name, ==, "foo");
    g_assert_cmpuint (foo2->children->len, ==, 0);
    g_assert_true (cube_report_get_row (d, cube_report_find_metric (d, "time"), foo2, row, NULL));
    g_assert_cmpfloat (row[0], ==, -0.25);
    g_assert_cmpfloat (row[1], ==, -0.25);
    g_assert_cmpfloat (row[2], ==, -0.25);
  }

  /* ids: A's call paths and metrics keep theirs, B-only ones get fresh ones above A's */
  {
    gint64 max_a = 0;

    for (guint i = 0; i < a->cnodes->len; i++)
      {
        const CubeCnode *c = g_ptr_array_index (a->cnodes, i);
        max_a = MAX (max_a, c->file_id);
      }
    g_assert_cmpint (find_path (d, "main/foo/baz")->file_id, ==,
                     find_path (a, "main/foo/baz")->file_id);
    g_assert_cmpint (find_path (d, "main/bar")->file_id, ==, find_path (a, "main/bar")->file_id);
    g_assert_cmpint (find_path (d, "main/qux")->file_id, >, max_a);
    g_assert_cmpint (cube_report_find_metric (d, "visits")->file_id, ==,
                     cube_report_find_metric (a, "visits")->file_id);
  }

  /* system: union by rank; A's ranks 0, 1 keep their places, rank 2 comes from B */
  g_assert_cmpuint (d->locations->len, ==, 3);
  g_assert_cmpuint (d->topologies->len, ==, 1);
  for (guint l = 0; l < 3; l++)
    {
      CubeSysNode *t = g_ptr_array_index (d->locations, l);
      g_assert_cmpint (t->parent->rank, ==, l);
    }

  assert_row (d, "time", "main", (double[]){ 9, 19, -1 });
  assert_row (d, "time", "main/foo", (double[]){ 0.75, 1.75, -0.25 });
  assert_row (d, "time", "main/foo/baz", (double[]){ 3, 4, 0 });
  assert_row (d, "time", "main/bar", (double[]){ 5, 6, 0 });
  assert_row (d, "time", "main/qux", (double[]){ -2, -2, -2 });
  assert_row (d, "mpi", "main/bar", (double[]){ 1, 1, 0 });
  assert_row (d, "mpi", "main", (double[]){ 0, 0, 0 });
  assert_row (d, "io", "main/qux", (double[]){ -1, -1, -1 });
  assert_row (d, "visits", "main", (double[]){ 0, 0, -1 });
  assert_row (d, "visits", "main/foo", (double[]){ 2, 2, 0 });
  assert_row (d, "visits", "main/foo/baz", (double[]){ 3, 3, 0 });
  assert_row (d, "visits", "main/bar", (double[]){ 4, 4, 0 });
  assert_row (d, "visits", "main/qux", (double[]){ 0, 0, 0 });
  g_assert_cmpint (cube_report_find_metric (d, "visits")->dtype, ==, CUBE_DTYPE_INT64);

  /* and the other way round: b − a */
  {
    g_autoptr (CubeReport) e = cube_algebra_diff (b, a, &error);

    g_assert_no_error (error);
    /* B's locations first now: rank 2, rank 1, rank 0 */
    assert_row (e, "time", "main", (double[]){ 1, -19, -9 });
    assert_row (e, "time", "main/qux", (double[]){ 2, 2, 2 });
    assert_row (e, "visits", "main/foo/baz", (double[]){ 0, -3, -3 });
  }
}

static void
test_merge (void)
{
  g_autoptr (CubeReport) a = make_a ();
  g_autoptr (CubeReport) b = make_b ();
  CubeReport *in[2] = { a, b };
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) m = cube_algebra_merge (in, 2, &error);

  g_assert_no_error (error);
  /* time and visits come from A (the first that has them), io from B */
  assert_row (m, "time", "main", (double[]){ 10, 20, 0 });
  assert_row (m, "time", "main/qux", (double[]){ 0, 0, 0 });
  assert_row (m, "visits", "main/foo/baz", (double[]){ 3, 3, 0 });
  assert_row (m, "io", "main/qux", (double[]){ 1, 1, 1 });
  assert_row (m, "mpi", "main/bar", (double[]){ 1, 1, 0 });
}

static void
test_mean_handmade (void)
{
  g_autoptr (CubeReport) a = make_a ();
  g_autoptr (CubeReport) b = make_b ();
  CubeReport *in[3] = { a, b, a };
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) m = cube_algebra_mean (in, 3, &error);

  g_assert_no_error (error);
  assert_row (m, "time", "main/qux", (double[]){ 2.0 / 3, 2.0 / 3, 2.0 / 3 });
  assert_row (m, "time", "main", (double[]){ 7, 41.0 / 3, 1.0 / 3 });
  assert_row (m, "visits", "main/bar", (double[]){ 8.0 / 3, 8.0 / 3, 0 });
  g_assert_cmpint (cube_report_find_metric (m, "visits")->dtype, ==, CUBE_DTYPE_DOUBLE);
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_null (cube_algebra_mean (NULL, 0, &error));
  g_assert_error (error, CUBE_ERROR, CUBE_ERROR_USAGE);
}

/* ---- real files ---------------------------------------------------------------------------- */

static CubeReport *
load_real (const char *file)
{
  g_autofree char *path = g_build_filename (shared_cube_dir, file, NULL);
  g_autoptr (GError) error = NULL;
  CubeReport *r = cube_report_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  return r;
}

/* f(a_value, b_value) must hold for every (metric, cnode, location) of @a, where @b is a result
 * with the same trees (matched by unique name, call path position and location position). */
typedef gboolean (*CellCheck) (double a, double r);

static void
check_cells (CubeReport *a, CubeReport *r, CellCheck check, const char *what)
{
  guint              nl = a->locations->len;
  g_autofree double *ra = g_new (double, MAX (nl, 1));
  g_autofree double *rr = g_new (double, MAX (nl, 1));
  guint              n = 0;

  g_assert_cmpuint (a->cnodes->len, ==, r->cnodes->len);
  g_assert_cmpuint (nl, ==, r->locations->len);
  for (guint i = 0; i < a->metrics->len; i++)
    {
      CubeMetric *ma = g_ptr_array_index (a->metrics, i);
      CubeMetric *mr = cube_report_find_metric (r, ma->uniq_name);

      if (!cube_metric_has_data (ma) || ma->cubepl != NULL)
        continue;
      g_assert_nonnull (mr);
      for (guint c = 0; c < a->cnodes->len; c++)
        {
          g_assert_true (cube_report_get_row (a, ma, g_ptr_array_index (a->cnodes, c), ra, NULL));
          g_assert_true (cube_report_get_row (r, mr, g_ptr_array_index (r->cnodes, c), rr, NULL));
          for (guint l = 0; l < nl; l++, n++)
            if (!check (ra[l], rr[l]))
              g_error ("%s: %s, metric %s, cnode %u, location %u: input %.17g, result %.17g",
                       a->path, what, ma->uniq_name, c, l, ra[l], rr[l]);
        }
    }
  g_assert_cmpuint (n, >, 0);
}

static gboolean
is_zero (double a, double r)
{
  (void) a;
  return r == 0.0;
}

static gboolean
is_same (double a, double r)
{
  return a == r;
}

static gboolean
is_double (double a, double r)
{
  return fabs (r - 2 * a) <= 1e-12 * fabs (a);
}

static const char *const real_files[] = {
  "scalasca2_summary_64ranks.cubex",
  "scorep9_time_p4_profile.cubex",
  "scalasca14_ctest-pomp.cube",
};

static void
test_real_identities (gconstpointer data)
{
  g_autoptr (CubeReport) a = load_real (data);
  g_autoptr (GError) error = NULL;

  {
    g_autoptr (CubeReport) d = cube_algebra_diff (a, a, &error);
    g_assert_no_error (error);
    check_cells (a, d, is_zero, "diff A A");
    g_assert_cmpuint (count_rows (d), ==, 0); /* and nothing stored */
  }
  {
    CubeReport *in[2] = { a, a };
    g_autoptr (CubeReport) m = cube_algebra_mean (in, 2, &error);
    g_assert_no_error (error);
    check_cells (a, m, is_same, "mean A A");
  }
  {
    /* 3A: a copy (merge of one report) with every value tripled */
    CubeReport *one[1] = { a };
    g_autoptr (CubeReport) a3 = cube_algebra_merge (one, 1, &error);
    g_autoptr (CubeReport) m = NULL;
    CubeReport        *in[2];
    guint              nl = a3->locations->len;
    g_autofree double *row = g_new (double, MAX (nl, 1));

    g_assert_no_error (error);
    check_cells (a, a3, is_same, "merge A");
    for (guint i = 0; i < a3->metrics->len; i++)
      for (guint c = 0; c < a3->cnodes->len; c++)
        {
          CubeMetric *mm = g_ptr_array_index (a3->metrics, i);
          CubeCnode  *cn = g_ptr_array_index (a3->cnodes, c);

          g_assert_true (cube_report_get_row (a3, mm, cn, row, NULL));
          for (guint l = 0; l < nl; l++)
            if (row[l] != 0.0)
              cube_report_set_value (a3, mm, cn, l, 3 * row[l]);
        }
    in[0] = a;
    in[1] = a3;
    m = cube_algebra_mean (in, 2, &error);
    g_assert_no_error (error);
    check_cells (a, m, is_double, "mean A 3A");
  }
}

/* Totals per (metric, location) of the result equal the inputs' totals subtracted. */
static void
test_real_diff_different (void)
{
  g_autoptr (CubeReport) a = load_real ("scorep14_kripke_p8_bigendian.cubex");
  g_autoptr (CubeReport) b = load_real ("scorep9_time_p4_profile.cubex");
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) d = cube_algebra_diff (a, b, &error);
  CubeReport *in[3] = { a, b, d };
  double      sign[3] = { 1, -1, -1 };
  guint       checked = 0;

  g_assert_no_error (error);
  /* 8 ranks ∪ 4 ranks (the same ranks 0..3, thread 0) */
  g_assert_cmpuint (d->locations->len, ==, 8);
  /* the roots differ (PARALLEL vs bg_time): the call trees are disjoint, both kept whole */
  g_assert_cmpuint (d->cnode_roots->len, ==, 2);
  g_assert_cmpuint (d->cnodes->len, ==, a->cnodes->len + b->cnodes->len);

  for (guint i = 0; i < d->metrics->len; i++)
    {
      CubeMetric *md = g_ptr_array_index (d->metrics, i);
      double      total[3][8] = { { 0 } };
      gboolean    any = FALSE;

      if (cube_dtype_is_minmax (md->dtype))
        continue;
      for (guint k = 0; k < 3; k++)
        {
          CubeReport        *r = in[k];
          CubeMetric        *m = cube_report_find_metric (r, md->uniq_name);
          g_autofree double *row = g_new (double, r->locations->len);

          if (m == NULL)
            continue;
          for (guint c = 0; c < r->cnodes->len; c++)
            {
              g_assert_true (cube_report_get_row (r, m, g_ptr_array_index (r->cnodes, c), row,
                                                  NULL));
              for (guint l = 0; l < r->locations->len; l++)
                {
                  CubeSysNode *t = g_ptr_array_index (r->locations, l);
                  gint64       rank = t->parent->rank;

                  g_assert_cmpint (rank, >=, 0);
                  g_assert_cmpint (rank, <, 8);
                  total[k][rank] += row[l];
                  any = any || row[l] != 0;
                }
            }
        }
      for (guint rank = 0; rank < 8; rank++)
        {
          double want = sign[0] * total[0][rank] + sign[1] * total[1][rank];
          if (fabs (total[2][rank] - want) > 1e-9 * MAX (1.0, fabs (total[0][rank])))
            g_error ("metric %s rank %u: diff total %.17g, want %.17g", md->uniq_name, rank,
                     total[2][rank], want);
        }
      checked += any;
    }
  g_assert_cmpuint (checked, >=, 4);
}

/* A minimum/maximum metric that only one of the two reports has (a profile's min_time against
 * a trace analysis): the difference keeps the metric without values, not −min; time is still
 * subtracted. Both reports with it: the difference of the minima. */
static CubeReport *
minmax_report (double t, double mn, gboolean with_min)
{
  CubeReport *r = cube_report_new ();
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", "", "");
  CubeMetric *min_time = with_min ? cube_report_add_metric (r, NULL, "min_time", "Min", CUBE_DTYPE_MINDOUBLE, "sec", "", "") : NULL;
  CubeCnode *main_ = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 2), -1, NULL);
  CubeSysNode *m = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "m", -1);
  CubeSysNode *nd = cube_report_add_sysnode (r, m, CUBE_SYS_NODE, "n", -1);
  CubeSysNode *p = cube_report_add_sysnode (r, nd, CUBE_SYS_PROCESS, "p", 0);

  cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, "t", 0);
  cube_report_set_value (r, time, main_, 0, t);
  if (min_time != NULL)
    cube_report_set_value (r, min_time, main_, 0, mn);
  return r;
}

static void
test_diff_min_one_side (void)
{
  g_autoptr (CubeReport) analysis = minmax_report (3.0, 0, FALSE);
  g_autoptr (CubeReport) profile = minmax_report (2.5, 0.5, TRUE);
  g_autoptr (CubeReport) profile2 = minmax_report (2.0, 0.125, TRUE);
  g_autoptr (GError) error = NULL;
  double row[1];

  for (guint order = 0; order < 2; order++)
    {
      g_autoptr (CubeReport) d = order == 0 ? cube_algebra_diff (analysis, profile, &error)
                                            : cube_algebra_diff (profile, analysis, &error);
      CubeCnode *main_;

      g_assert_no_error (error);
      main_ = find_path (d, "main");
      g_assert_nonnull (cube_report_find_metric (d, "min_time"));
      g_assert_true (cube_report_get_row (d, cube_report_find_metric (d, "min_time"), main_, row, NULL));
      g_assert_cmpfloat (row[0], ==, 0.0);
      g_assert_true (cube_report_get_row (d, cube_report_find_metric (d, "time"), main_, row, NULL));
      g_assert_cmpfloat (row[0], ==, order == 0 ? 0.5 : -0.5);
    }
  {
    g_autoptr (CubeReport) d = cube_algebra_diff (profile, profile2, &error);

    g_assert_no_error (error);
    g_assert_true (cube_report_get_row (d, cube_report_find_metric (d, "min_time"), find_path (d, "main"), row, NULL));
    g_assert_cmpfloat (row[0], ==, 0.375);
  }
}

/* Issue 25 §4, the semantics kubus-cube(1) documents, with exact values. Two runs of one
 * program: main > { send, recv }, ranks 0 and 1 (B also rank 2), metrics time (a sum),
 * min_time (MINDOUBLE) and max_time (MAXDOUBLE). A never entered recv on rank 1: no minimum or
 * maximum there (an absent value, not 0). */
static CubeReport *
run_report (gboolean b)
{
  CubeReport  *r = cube_report_new ();
  CubeMetric  *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", "", "");
  CubeMetric  *mn = cube_report_add_metric (r, NULL, "min_time", "Shortest call", CUBE_DTYPE_MINDOUBLE, "sec", "", "");
  CubeMetric  *mx = cube_report_add_metric (r, NULL, "max_time", "Longest call", CUBE_DTYPE_MAXDOUBLE, "sec", "", "");
  CubeCnode   *main_ = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "m.c", 1, 9), -1, NULL);
  CubeCnode   *send = cube_report_add_cnode (r, main_, cube_report_add_region (r, "MPI_Send", "MPI", -1, -1), 4, "m.c");
  CubeCnode   *recv = cube_report_add_cnode (r, main_, cube_report_add_region (r, "MPI_Recv", "MPI", -1, -1), 5, "m.c");
  CubeSysNode *mach = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, b ? "other" : "cluster", -1);
  CubeSysNode *node = cube_report_add_sysnode (r, mach, CUBE_SYS_NODE, b ? "n7" : "n0", -1);

  add_rank (r, node, 0);
  add_rank (r, node, 1);
  if (b)
    add_rank (r, node, 2);
  set_row (r, time, main_, b ? (double[]){ 1, 1, 1 } : (double[]){ 2, 2 });
  set_row (r, time, send, b ? (double[]){ 0.5, 0.5, 0.5 } : (double[]){ 1, 1 });
  set_row (r, time, recv, b ? (double[]){ 0.25, 0.25, 0.25 } : (double[]){ 0.5, 0 });
  if (!b)
    {
      set_row (r, mn, send, (double[]){ 0.004, 0.006 });
      set_row (r, mn, recv, (double[]){ 0.010, 0 });
      cube_report_set_value (r, mn, recv, 1, G_MAXDOUBLE); /* rank 1 never received */
      set_row (r, mx, send, (double[]){ 0.04, 0.06 });
      set_row (r, mx, recv, (double[]){ 0.1, 0 });
      cube_report_set_value (r, mx, recv, 1, -G_MAXDOUBLE);
    }
  else
    {
      set_row (r, mn, send, (double[]){ 0.001, 0.002, 0.003 });
      set_row (r, mn, recv, (double[]){ 0.003, 0.004, 0.005 });
      set_row (r, mx, send, (double[]){ 0.05, 0.05, 0.05 });
      set_row (r, mx, recv, (double[]){ 0.02, 0.03, 0.04 });
    }
  return r;
}

static double
total_of (CubeReport *r, const char *metric)
{
  g_autoptr (GError) error = NULL;
  double v;

  g_assert_true (cube_values_metric_total (r, cube_report_find_metric (r, metric), FALSE, &v, &error));
  g_assert_no_error (error);
  return v;
}

static void
test_minmax_semantics (void)
{
  g_autoptr (CubeReport) a = run_report (FALSE);
  g_autoptr (CubeReport) b = run_report (TRUE);
  g_autoptr (GError) error = NULL;
  const double none = G_MAXDOUBLE;

  /* diff: A − B where both have a value; no value where either has none (A's recv on rank 1,
   * B's rank 2, which A lacks). cubelib's cube_diff "adds" −B with the min/max rule instead:
   * min (A, −B) = −B (−0.001 at send, rank 0), max (A, −B) = A. */
  {
    g_autoptr (CubeReport) d = cube_algebra_diff (a, b, &error);

    g_assert_no_error (error);
    g_assert_cmpint (cube_report_find_metric (d, "min_time")->dtype, ==, CUBE_DTYPE_MINDOUBLE);
    assert_row (d, "min_time", "main/MPI_Send", (double[]){ 0.004 - 0.001, 0.006 - 0.002, none });
    assert_row (d, "min_time", "main/MPI_Recv", (double[]){ 0.010 - 0.003, none, none });
    assert_row (d, "max_time", "main/MPI_Send", (double[]){ 0.04 - 0.05, 0.06 - 0.05, -none });
    assert_row (d, "max_time", "main/MPI_Recv", (double[]){ 0.1 - 0.02, -none, -none });
    /* a collapsed node, or the whole report, shows the smallest change of a minimum and the
     * largest change of a maximum */
    g_assert_cmpfloat (total_of (d, "min_time"), ==, 0.004 - 0.001);
    g_assert_cmpfloat (total_of (d, "max_time"), ==, 0.1 - 0.02);
    /* sums: a location only one run has is zero in the other */
    assert_row (d, "time", "main/MPI_Recv", (double[]){ 0.25, -0.25, -0.25 });
    g_assert_cmpfloat (total_of (d, "time"), ==, 1.25);
  }
  /* mean: of the runs that have a value (cubelib: min (a/n, b/n)) */
  {
    CubeReport *in[2] = { a, b };
    g_autoptr (CubeReport) m = cube_algebra_mean (in, 2, &error);

    g_assert_no_error (error);
    assert_row (m, "min_time", "main/MPI_Send", (double[]){ (0.004 + 0.001) / 2, (0.006 + 0.002) / 2, 0.003 });
    assert_row (m, "min_time", "main/MPI_Recv", (double[]){ (0.010 + 0.003) / 2, 0.004, 0.005 });
    assert_row (m, "max_time", "main/MPI_Recv", (double[]){ (0.1 + 0.02) / 2, 0.03, 0.04 });
    g_assert_cmpfloat (total_of (m, "min_time"), ==, (0.004 + 0.001) / 2);
    g_assert_cmpfloat (total_of (m, "max_time"), ==, (0.1 + 0.02) / 2);
    /* sums: (a + b) / n, a missing location being 0 */
    assert_row (m, "time", "main/MPI_Send", (double[]){ 0.75, 0.75, 0.25 });
  }
  /* merge: a metric both have comes whole from the first input (cubelib: from the last, cell by
   * cell: A's values would stay only where B has no cell) */
  {
    CubeReport *in[2] = { a, b };
    g_autoptr (CubeReport) m = cube_algebra_merge (in, 2, &error);

    g_assert_no_error (error);
    assert_row (m, "time", "main/MPI_Send", (double[]){ 1, 1, 0 });
    assert_row (m, "min_time", "main/MPI_Recv", (double[]){ 0.010, none, none });
    in[0] = b;
    in[1] = a;
    g_clear_pointer (&m, cube_report_free);
    m = cube_algebra_merge (in, 2, &error);
    g_assert_no_error (error);
    /* B's locations first now: ranks 0, 1, 2 */
    assert_row (m, "time", "main/MPI_Send", (double[]){ 0.5, 0.5, 0.5 });
  }
}

int
main (int argc, char **argv)
{
  const char *shared = g_getenv ("KUBUS_SHARED_DATA");
  int         rc;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/algebra/diff-union", test_diff_union);
  g_test_add_func ("/algebra/diff-min-one-side", test_diff_min_one_side);
  g_test_add_func ("/algebra/merge", test_merge);
  g_test_add_func ("/algebra/minmax-semantics", test_minmax_semantics);
  g_test_add_func ("/algebra/mean", test_mean_handmade);
  g_test_add_func ("/algebra/errors", test_errors);

  if (shared != NULL)
    {
      shared_cube_dir = g_build_filename (shared, "cube", NULL);
      if (g_file_test (shared_cube_dir, G_FILE_TEST_IS_DIR))
        {
          for (guint i = 0; i < G_N_ELEMENTS (real_files); i++)
            {
              g_autofree char *name = g_strdup_printf ("/algebra/real/%s", real_files[i]);
              g_test_add_data_func (name, real_files[i], test_real_identities);
            }
          g_test_add_func ("/algebra/real/diff-different", test_real_diff_different);
        }
    }
  rc = g_test_run ();
  g_free (shared_cube_dir);
  return rc;
}
