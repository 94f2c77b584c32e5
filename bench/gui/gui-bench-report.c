/* gui-bench-report.c — see gui-bench-report.h. */
#include "gui-bench-report.h"

#include <stdlib.h>

typedef struct
{
  CubeReport *report;
  CubeMetric *time, *comp, *mpi, *visits;
  guint64     lcg;
} Builder;

static double
next_value (Builder *b)
{
  b->lcg = b->lcg * 6364136223846793005ull + 1442695040888963407ull;
  return (double)((b->lcg >> 20) % 10000000ull) / 1e3; /* 0 … 9999.999 */
}

static void
builder_init (Builder *b, guint n_locations)
{
  CubeReport  *r = cube_report_new ();
  CubeSysNode *machine;
  CubeSysNode *node = NULL;

  b->report = r;
  b->lcg = 88172645463325252ull;
  b->time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", "", "");
  b->comp = cube_report_add_metric (r, b->time, "comp", "Computation", CUBE_DTYPE_DOUBLE, "sec", "",
                                    "");
  b->mpi = cube_report_add_metric (r, b->time, "mpi", "MPI", CUBE_DTYPE_DOUBLE, "sec", "", "");
  b->visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_INT64, "occ", "", "");
  machine = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "bench", -1);
  for (guint l = 0; l < n_locations; l++)
    {
      g_autofree char *pname = g_strdup_printf ("rank %u", l);
      CubeSysNode     *process;

      if (l % 64 == 0)
        {
          g_autofree char *nname = g_strdup_printf ("node%03u", l / 64);
          node = cube_report_add_sysnode (r, machine, CUBE_SYS_NODE, nname, -1);
        }
      process = cube_report_add_sysnode (r, node, CUBE_SYS_PROCESS, pname, l);
      cube_report_add_sysnode (r, process, CUBE_SYS_THREAD, "thread 0", 0);
    }
}

/* Dense values for every location of @cnode: time = comp + mpi (metric-inclusive). */
static void
fill_cnode (Builder *b, CubeCnode *cnode)
{
  guint n = b->report->locations->len;

  for (guint l = 0; l < n; l++)
    {
      double comp = next_value (b), mpi = next_value (b) / 4;
      cube_report_set_value (b->report, b->comp, cnode, l, comp);
      cube_report_set_value (b->report, b->mpi, cnode, l, mpi);
      cube_report_set_value (b->report, b->time, cnode, l, comp + mpi);
      cube_report_set_value (b->report, b->visits, cnode, l, 1 + (b->lcg >> 60));
    }
}

static CubeCnode *
add_cnode (Builder *b, CubeCnode *parent, guint id)
{
  g_autofree char *name = id == 0 ? g_strdup ("main") : g_strdup_printf ("region_%u", id);
  CubeRegion      *region = cube_report_add_region (b->report, name, "bench.c", 10 + id, 20 + id);
  CubeCnode       *c = cube_report_add_cnode (b->report, parent, region, 10 + id, "bench.c");

  return c;
}

static void
add_subtree (Builder *b, CubeCnode *parent, guint id, guint n_cnodes, guint fanout)
{
  CubeCnode *c = add_cnode (b, parent, id);

  for (guint k = 1; k <= fanout; k++)
    {
      guint64 child = (guint64)id * fanout + k;
      if (child < n_cnodes)
        add_subtree (b, c, (guint)child, n_cnodes, fanout);
    }
}

static void
fill_all (Builder *b)
{
  for (guint c = 0; c < b->report->cnodes->len; c++)
    fill_cnode (b, g_ptr_array_index (b->report->cnodes, c));
}

CubeReport *
gui_bench_report_tree (guint n_cnodes, guint fanout, guint n_locations)
{
  Builder b = { 0 };

  builder_init (&b, n_locations);
  add_subtree (&b, NULL, 0, MAX (n_cnodes, 1), MAX (fanout, 1));
  fill_all (&b);
  return b.report;
}

CubeReport *
gui_bench_report_wide (guint n_children, guint n_locations)
{
  Builder    b = { 0 };
  CubeCnode *main_node, *wide;

  builder_init (&b, n_locations);
  main_node = add_cnode (&b, NULL, 0);
  wide = add_cnode (&b, main_node, 1);
  for (guint i = 0; i < n_children; i++)
    add_cnode (&b, wide, 2 + i);
  add_cnode (&b, main_node, 2 + n_children);
  fill_all (&b);
  return b.report;
}

double
gui_bench_now (void)
{
  return g_get_monotonic_time () / 1e6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double
gui_bench_median (double *v, guint n)
{
  if (n == 0)
    return 0;
  qsort (v, n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
gui_bench_max (const double *v, guint n)
{
  double m = 0;

  for (guint i = 0; i < n; i++)
    m = MAX (m, v[i]);
  return m;
}
