/* gui-test-report.c — see gui-test-report.h. */
#include "gui-test-report.h"

CubeReport *
gui_test_report_new (double scale)
{
  CubeReport *r = cube_report_new ();
  CubeMetric *time, *mpi, *visits;
  CubeRegion *main_r, *foo_r, *bar_r, *send_r;
  CubeCnode *c_main, *c_foo, *c_fsend, *c_bar, *c_bsend;
  CubeSysNode *machine, *node, *p0, *p1;
  const double t[5][2] = { { 1, 1 }, { 2, 4 }, { 3, 1 }, { 1, 1 }, { 0, 2 } };
  const double v[5] = { 1, 1, 10, 1, 5 };
  CubeCnode *cn[5];

  time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec",
                                 "https://example.org/time.html", "Total time");
  mpi = cube_report_add_metric (r, time, "mpi", "MPI", CUBE_DTYPE_DOUBLE, "sec", NULL, "Time in MPI");
  visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_UINT64, "occ", NULL, NULL);

  main_r = cube_report_add_region (r, "main", "app.c", 10, 40);
  foo_r = cube_report_add_region (r, "foo", "app.c", 50, 60);
  bar_r = cube_report_add_region (r, "bar", "lib.c", 5, 9);
  send_r = cube_report_add_region (r, "MPI_Send", "MPI", -1, -1);

  c_main = cube_report_add_cnode (r, NULL, main_r, -1, NULL);
  c_foo = cube_report_add_cnode (r, c_main, foo_r, 12, "app.c");
  c_fsend = cube_report_add_cnode (r, c_foo, send_r, 55, "app.c");
  c_bar = cube_report_add_cnode (r, c_main, bar_r, 20, "app.c");
  c_bsend = cube_report_add_cnode (r, c_bar, send_r, 7, "lib.c");
  cn[0] = c_main, cn[1] = c_foo, cn[2] = c_fsend, cn[3] = c_bar, cn[4] = c_bsend;

  machine = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  node = cube_report_add_sysnode (r, machine, CUBE_SYS_NODE, "N", -1);
  p0 = cube_report_add_sysnode (r, node, CUBE_SYS_PROCESS, "rank 0", 0);
  cube_report_add_sysnode (r, p0, CUBE_SYS_THREAD, "thread 0", 0);
  p1 = cube_report_add_sysnode (r, node, CUBE_SYS_PROCESS, "rank 1", 1);
  cube_report_add_sysnode (r, p1, CUBE_SYS_THREAD, "thread 1", 0);

  for (guint c = 0; c < 5; c++)
    for (guint l = 0; l < 2; l++)
      {
        cube_report_set_value (r, time, cn[c], l, scale * t[c][l]);
        cube_report_set_value (r, visits, cn[c], l, v[c]);
      }
  for (guint l = 0; l < 2; l++)
    {
      cube_report_set_value (r, mpi, c_fsend, l, scale * t[2][l]);
      cube_report_set_value (r, mpi, c_bsend, l, scale * t[4][l]);
    }
  return r;
}
