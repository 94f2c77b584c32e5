/* scaling-fixture.c — see scaling-fixture.h. */
#include "scaling-fixture.h"

#include <glib/gstdio.h>

const ScalingShape scaling_shape_plain = { "main", TRUE, FALSE, FALSE, FALSE };

CubeReport *
scaling_fixture_report (guint P, const ScalingShape *shape)
{
  CubeReport *r = cube_report_new ();
  CubeMetric *time = NULL, *ls = NULL, *visits;
  CubeCnode  *main_c, *solve, *init, *fin, *recv1 = NULL, *recv2 = NULL, *allred = NULL;
  CubeCnode  *bcast = NULL;
  CubeSysNode *machine, *node;
  guint       nloc = shape->threads ? 2 * P : P;
  double      idle = shape->idle ? 0 : 1;

  if (shape->with_time)
    {
      time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", "", "");
      ls = cube_report_add_metric (r, time, "mpi_latesender", "Late Sender", CUBE_DTYPE_DOUBLE,
                                   "sec", "", "");
    }
  visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_INT64, "occ", "", "");

  main_c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, shape->main_name, "", -1, -1),
                                  -1, NULL);
  init = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "MPI_Init", "MPI", -1, -1),
                                -1, NULL);
  solve = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "solve", "", -1, -1), -1,
                                 NULL);
  if (!shape->no_mpi)
    {
      CubeRegion *recv = cube_report_add_region (r, "MPI_Recv", "MPI", -1, -1);

      recv1 = cube_report_add_cnode (r, solve, recv, 10, NULL);
      recv2 = cube_report_add_cnode (r, solve, recv, 20, NULL);
      allred = cube_report_add_cnode (r, solve,
                                      cube_report_add_region (r, "MPI_Allreduce", "MPI", -1, -1),
                                      -1, NULL);
      if (P == 8)
        bcast = cube_report_add_cnode (r, solve,
                                       cube_report_add_region (r, "MPI_Bcast", "MPI", -1, -1),
                                       -1, NULL);
      cube_report_add_cnode (r, main_c, cube_report_add_region (r, "MPI_Comm_rank", "MPI", -1, -1),
                             -1, NULL);
    }
  fin = cube_report_add_cnode (r, main_c,
                               cube_report_add_region (r, "MPI_Finalize", "MPI", -1, -1), -1,
                               NULL);

  machine = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "m", -1);
  node = cube_report_add_sysnode (r, machine, CUBE_SYS_NODE, "n", -1);
  for (guint p = 0; p < P; p++)
    {
      CubeSysNode *proc = cube_report_add_sysnode (r, node, CUBE_SYS_PROCESS, "rank", p);
      cube_report_add_sysnode (r, proc, CUBE_SYS_THREAD, "t", 0);
      if (shape->threads)
        cube_report_add_sysnode (r, proc, CUBE_SYS_THREAD, "t", 1);
    }

  for (guint l = 0; l < nloc; l++)
    {
      /* with threads, the second thread of a process holds nothing */
      double w = shape->threads && l % 2 == 1 ? 0 : 1;

      if (time != NULL)
        {
          cube_report_set_value (r, time, main_c, l, w * 1.0);
          cube_report_set_value (r, time, init, l, w * 0.5);
          cube_report_set_value (r, time, solve, l, w * 2.0);
          cube_report_set_value (r, time, fin, l, w * 0.25);
          if (!shape->no_mpi)
            {
              cube_report_set_value (r, time, recv1, l, w * idle * 1.0);
              cube_report_set_value (r, time, recv2, l, w * idle * 2.0 / P);
              cube_report_set_value (r, time, allred, l, w * idle * P);
              if (bcast != NULL)
                cube_report_set_value (r, time, bcast, l, w * idle * 0.01);
              cube_report_set_value (r, ls, recv1, l, w * idle * 0.5);
            }
        }
      if (!shape->no_mpi)
        {
          cube_report_set_value (r, visits, recv1, l, w * 10);
          cube_report_set_value (r, visits, recv2, l, w * 10);
          cube_report_set_value (r, visits, allred, l, w * 1);
        }
    }
  return r;
}

char *
scaling_fixture_write (const char *dir, const char *name, const char *file, CubeReport *r)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) owned = r;
  char *exp = g_build_filename (dir, name, NULL);
  g_autofree char *path = g_build_filename (exp, file, NULL);

  g_assert_cmpint (g_mkdir_with_parents (exp, 0755), ==, 0);
  g_assert_true (cube_report_write (owned, path, &error));
  g_assert_no_error (error);
  return exp;
}

