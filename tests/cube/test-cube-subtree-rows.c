/* test-cube-subtree-rows.c — the value cache's per-subtree rows give exactly what summing the
 * rows gives.
 *
 * cube-values.c keeps, for the call paths with the largest subtrees, per-location inclusive rows
 * and uses them for collapsed call-path selections in the system pane (cube_values_locations,
 * cube_value). The small reports of test-cube-model.c only make the root such a "big" node; here a
 * random call tree of 300 call paths (so about 9 big nodes, at various depths) with integer
 * values, sparse rows and a MAXDOUBLE metric is checked against a plain walk over the rows, for
 * every call path collapsed and expanded, every metric collapsed and expanded, several
 * selections at once, CUBE_CT_AGGR = MAX with two roots, and after a value changes. Integer
 * values make every sum exact in any order, so the comparison is for equality. */
#include <string.h>

#include "cube.h"

#define N_CNODES 300
#define N_LOCS 5

typedef struct
{
  CubeReport *r;
  CubeMetric *time, *mpi, *peak;
} Fixture;

static guint64 lcg = 12345;

static guint
next (guint n)
{
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  return (guint)((lcg >> 33) % n);
}

static void
fixture_init (Fixture *f, guint n_roots)
{
  CubeSysNode *machine, *node;
  GPtrArray   *made = g_ptr_array_new ();

  f->r = cube_report_new ();
  f->time = cube_report_add_metric (f->r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", "", "");
  f->mpi = cube_report_add_metric (f->r, f->time, "mpi", "MPI", CUBE_DTYPE_DOUBLE, "sec", "", "");
  f->peak = cube_report_add_metric (f->r, NULL, "peak", "Peak", CUBE_DTYPE_MAXDOUBLE, "B", "", "");
  machine = cube_report_add_sysnode (f->r, NULL, CUBE_SYS_MACHINE, "m", -1);
  node = cube_report_add_sysnode (f->r, machine, CUBE_SYS_NODE, "n", -1);
  for (guint l = 0; l < N_LOCS; l++)
    {
      CubeSysNode *p = cube_report_add_sysnode (f->r, node, CUBE_SYS_PROCESS, "p", l);
      cube_report_add_sysnode (f->r, p, CUBE_SYS_THREAD, "t", 0);
    }
  /* A random recursive tree: each new call path hangs under any earlier one (children are
   * added to earlier nodes later, so the builder reorders to pre-order as it goes). */
  for (guint i = 0; i < N_CNODES; i++)
    {
      CubeRegion *region = cube_report_add_region (f->r, "r", "m.c", i, i);
      CubeCnode  *parent = i < n_roots ? NULL : g_ptr_array_index (made, next (i));
      g_ptr_array_add (made, cube_report_add_cnode (f->r, parent, region, i, "m.c"));
    }
  for (guint i = 0; i < N_CNODES; i++)
    {
      CubeCnode *c = g_ptr_array_index (made, i);
      gboolean   has_time = next (4) != 0; /* a quarter of the rows are absent */
      for (guint l = 0; l < N_LOCS; l++)
        {
          double mpi = next (50);
          if (has_time)
            {
              cube_report_set_value (f->r, f->time, c, l, mpi + next (100));
              cube_report_set_value (f->r, f->mpi, c, l, mpi);
            }
          cube_report_set_value (f->r, f->peak, c, l, 1 + next (1000));
        }
    }
  g_ptr_array_unref (made);
}

static void
fixture_clear (Fixture *f)
{
  cube_report_free (f->r);
}

/* Plain walk: add (or max) the rows of @c and, when @subtree, of everything below it. */
static void
naive (CubeReport *r, CubeMetric *m, const CubeCnode *c, gboolean subtree, double coef, double *out)
{
  double row[N_LOCS];

  g_assert_true (cube_report_get_row (r, m, c, row, NULL));
  for (guint l = 0; l < N_LOCS; l++)
    out[l] = m->dtype == CUBE_DTYPE_MAXDOUBLE ? MAX (out[l], row[l]) : out[l] + coef * row[l];
  if (subtree)
    for (guint k = 0; k < c->children->len; k++)
      naive (r, m, g_ptr_array_index (c->children, k), TRUE, coef, out);
}

static void
expect (Fixture *f, CubeMetric *m, gboolean mexp, const CubeCnode *c, gboolean cexp)
{
  CubeMetricSel ms = { m, mexp };
  CubeCnodeSel  cs = { c, cexp };
  double        want[N_LOCS] = { 0 }, got[N_LOCS];

  naive (f->r, m, c, !cexp, 1, want);
  if (mexp && m->dtype != CUBE_DTYPE_MAXDOUBLE)
    for (guint k = 0; k < m->children->len; k++)
      naive (f->r, g_ptr_array_index (m->children, k), c, !cexp, -1, want);
  g_assert_true (cube_values_locations (f->r, &ms, 1, &cs, 1, got, NULL));
  for (guint l = 0; l < N_LOCS; l++)
    if (got[l] != want[l])
      g_error ("metric %s%s, call path %u%s, location %u: got %.17g, want %.17g", m->uniq_name,
               mexp ? " expanded" : "", c->index, cexp ? " expanded" : "", l, got[l], want[l]);
}

static void
expect_all (Fixture *f)
{
  CubeMetric *metrics[] = { f->time, f->mpi, f->peak };

  for (guint c = 0; c < f->r->cnodes->len; c++)
    for (guint m = 0; m < G_N_ELEMENTS (metrics); m++)
      for (int mexp = 0; mexp < 2; mexp++)
        for (int cexp = 0; cexp < 2; cexp++)
          expect (f, metrics[m], mexp, g_ptr_array_index (f->r->cnodes, c), cexp);
}

static void
test_every_selection (void)
{
  Fixture f;

  fixture_init (&f, 1);
  expect_all (&f);
  fixture_clear (&f);
}

static void
test_several_selected (void)
{
  Fixture          f;
  const CubeCnode *root, *inner;
  double           want[N_LOCS] = { 0 }, got[N_LOCS];
  CubeMetricSel    ms = { NULL, FALSE };

  fixture_init (&f, 1);
  ms.metric = f.time;
  root = g_ptr_array_index (f.r->cnode_roots, 0);
  inner = g_ptr_array_index (root->children, 0);
  {
    /* a subtree selected together with one of its own call paths counts that one twice */
    CubeCnodeSel cs[] = { { root, FALSE }, { inner, FALSE }, { inner, TRUE } };
    naive (f.r, f.time, root, TRUE, 1, want);
    naive (f.r, f.time, inner, TRUE, 1, want);
    naive (f.r, f.time, inner, FALSE, 1, want);
    g_assert_true (cube_values_locations (f.r, &ms, 1, cs, G_N_ELEMENTS (cs), got, NULL));
    for (guint l = 0; l < N_LOCS; l++)
      g_assert_cmpfloat (got[l], ==, want[l]);
  }
  /* no call path selected = the whole tree */
  g_assert_true (cube_values_locations (f.r, &ms, 1, NULL, 0, got, NULL));
  memset (want, 0, sizeof want);
  naive (f.r, f.time, root, TRUE, 1, want);
  for (guint l = 0; l < N_LOCS; l++)
    g_assert_cmpfloat (got[l], ==, want[l]);
  fixture_clear (&f);
}

static void
test_ct_aggr_max_roots (void)
{
  Fixture       f;
  CubeMetricSel ms = { NULL, FALSE };
  double        got[N_LOCS], part[2][N_LOCS] = { { 0 } };
  double        total[2] = { 0, 0 };

  fixture_init (&f, 2);
  cube_report_set_attr (f.r, "CUBE_CT_AGGR", "MAX");
  ms.metric = f.time;
  for (guint r = 0; r < 2; r++)
    naive (f.r, f.time, g_ptr_array_index (f.r->cnode_roots, r), TRUE, 1, part[r]);
  g_assert_true (cube_values_locations (f.r, &ms, 1, NULL, 0, got, NULL));
  for (guint l = 0; l < N_LOCS; l++)
    {
      g_assert_cmpfloat (got[l], ==, MAX (part[0][l], part[1][l]));
      total[0] += part[0][l];
      total[1] += part[1][l];
    }
  g_assert_cmpfloat (cube_value (f.r, &ms, 1, NULL, 0, NULL, 0), ==, MAX (total[0], total[1]));
  fixture_clear (&f);
}

static void
test_value_change (void)
{
  Fixture    f;
  CubeCnode *leaf;

  fixture_init (&f, 1);
  expect_all (&f); /* fills the cache */
  leaf = g_ptr_array_index (f.r->cnodes, f.r->cnodes->len - 1);
  cube_report_add_value (f.r, f.time, leaf, 2, 1000);
  cube_report_set_value (f.r, f.peak, leaf, 3, 5000);
  expect_all (&f); /* the cache was dropped and rebuilt */
  fixture_clear (&f);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cube/subtree-rows/every-selection", test_every_selection);
  g_test_add_func ("/cube/subtree-rows/several-selected", test_several_selected);
  g_test_add_func ("/cube/subtree-rows/ct-aggr-max", test_ct_aggr_max_roots);
  g_test_add_func ("/cube/subtree-rows/value-change", test_value_change);
  return g_test_run ();
}
