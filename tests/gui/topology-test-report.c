/* topology-test-report.c — see topology-test-report.h. */
#include "topology-test-report.h"

double
topology_test_value (const gint64      dims[3],
                     double            lo,
                     double            hi,
                     TopologyTestFlags flags,
                     gint64            rank)
{
  gint64 n = dims[0] * dims[1] * dims[2];

  if ((flags & TOPOLOGY_TEST_ZERO_RANK) && rank == 1)
    return 0;
  return n > 1 ? lo + (hi - lo) * (double) rank / (double) (n - 1) : hi;
}

CubeReport *
topology_test_report_new (const gint64      dims[3],
                          double            lo,
                          double            hi,
                          TopologyTestFlags flags)
{
  CubeReport *r = cube_report_new ();
  gint64 n = dims[0] * dims[1] * dims[2];
  const gboolean periodic[3] = { TRUE, FALSE, FALSE };
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec",
                                             NULL, "Total time");
  CubeRegion *main_r = cube_report_add_region (r, "main", "grid.c", 1, 99);
  CubeCnode *c_main = cube_report_add_cnode (r, NULL, main_r, -1, NULL);
  CubeSysNode *machine = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "machine", -1);
  CubeSysNode *node = cube_report_add_sysnode (r, machine, CUBE_SYS_NODE, "node", -1);
  CubeCart *cart = cube_report_add_cart (r, "Synthetic grid", 3, dims, periodic);
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();

  cube_cart_set_dim_name (cart, 0, "x");
  cube_cart_set_dim_name (cart, 1, "y");
  cube_cart_set_dim_name (cart, 2, "z");
  for (gint64 rank = 0; rank < n; rank++)
    {
      g_autofree char *name = g_strdup_printf ("rank %" G_GINT64_FORMAT, rank);
      CubeSysNode *p = cube_report_add_sysnode (r, node, CUBE_SYS_PROCESS, name, rank);
      CubeSysNode *t = cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, "thread 0", 0);
      gint64 coord[3] = { rank % dims[0], (rank / dims[0]) % dims[1], rank / (dims[0] * dims[1]) };

      g_ptr_array_add (threads, t);
      if (!((flags & TOPOLOGY_TEST_HOLE) && rank == n - 1))
        cube_cart_set_coord (cart, t, coord);
    }
  for (gint64 rank = 0; rank < n; rank++)
    {
      CubeSysNode *t = g_ptr_array_index (threads, rank);
      cube_report_set_value (r, time, c_main, (guint) t->location,
                             topology_test_value (dims, lo, hi, flags, rank));
    }
  return r;
}
