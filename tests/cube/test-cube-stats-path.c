/* test-cube-stats-path.c — statistics across locations (cube-stats.c) and call paths by name
 * (cube-path.c), with values known by construction. */
#include <math.h>

#include "cube.h"
#include "cube-path.h"
#include "cube-stats.h"

static void
test_quartiles (void)
{
  /* 1..8: positions p·7 → q1 at 1.75 (2.75), median at 3.5 (4.5), q3 at 5.25 (6.25). */
  const double v[] = { 8, 3, 1, 6, 2, 7, 5, 4 };
  CubeStats s;

  g_assert_true (cube_stats_compute (v, G_N_ELEMENTS (v), &s));
  g_assert_cmpuint (s.n, ==, 8);
  g_assert_cmpfloat (s.min, ==, 1);
  g_assert_cmpfloat (s.max, ==, 8);
  g_assert_cmpfloat (s.mean, ==, 4.5);
  g_assert_cmpfloat (s.q1, ==, 2.75);
  g_assert_cmpfloat (s.median, ==, 4.5);
  g_assert_cmpfloat (s.q3, ==, 6.25);
  /* Population standard deviation of 1..8: sqrt (63 / 12) = sqrt (5.25). */
  g_assert_cmpfloat_with_epsilon (s.stddev, sqrt (5.25), 1e-15);
  /* No value beyond 1.5 IQR (3.5) of the box: the whiskers reach min and max. */
  g_assert_cmpfloat (s.whisker_low, ==, 1);
  g_assert_cmpfloat (s.whisker_high, ==, 8);
  g_assert_cmpuint (s.n_outliers, ==, 0);
}

static void
test_odd_and_outliers (void)
{
  /* 10, 11, 12, 13, 14 and one far value 100: sorted 10 11 12 13 14 100, n 6. */
  const double v[] = { 12, 100, 10, 14, 11, 13 };
  CubeStats s;

  g_assert_true (cube_stats_compute (v, G_N_ELEMENTS (v), &s));
  g_assert_cmpfloat (s.median, ==, 12.5);          /* position 2.5 */
  g_assert_cmpfloat (s.q1, ==, 11.25);             /* position 1.25 */
  g_assert_cmpfloat (s.q3, ==, 13.75);             /* position 3.75 */
  /* IQR 2.5: fences 7.5 and 17.5; 100 is an outlier, the upper whisker ends at 14. */
  g_assert_cmpfloat (s.whisker_low, ==, 10);
  g_assert_cmpfloat (s.whisker_high, ==, 14);
  g_assert_cmpuint (s.n_outliers, ==, 1);
  g_assert_cmpfloat (s.max, ==, 100);

  {
    const double three[] = { 3, 1, 2 };
    g_assert_true (cube_stats_compute (three, 3, &s));
    g_assert_cmpfloat (s.median, ==, 2);
    g_assert_cmpfloat (s.q1, ==, 1.5);
    g_assert_cmpfloat (s.q3, ==, 2.5);
  }
}

static void
test_degenerate (void)
{
  const double same[] = { 0.1, 0.1, 0.1 };
  const double one[] = { -2.5 };
  const double none[] = { NAN, INFINITY, -INFINITY };
  const double some[] = { NAN, 4, INFINITY, 2 };
  CubeStats s;

  /* Equal values: every figure is that value exactly (no rounding of a sum). */
  g_assert_true (cube_stats_compute (same, 3, &s));
  g_assert_cmpfloat (s.mean, ==, 0.1);
  g_assert_cmpfloat (s.stddev, ==, 0);
  g_assert_cmpfloat (s.q1, ==, 0.1);
  g_assert_cmpfloat (s.q3, ==, 0.1);
  g_assert_true (cube_stats_compute (one, 1, &s));
  g_assert_cmpfloat (s.min, ==, -2.5);
  g_assert_cmpfloat (s.median, ==, -2.5);
  g_assert_cmpfloat (s.q3, ==, -2.5);
  /* "No value" (NaN, ±∞) is left out, and nothing left is no statistics. */
  g_assert_false (cube_stats_compute (none, 3, &s));
  g_assert_cmpuint (s.n, ==, 0);
  g_assert_false (cube_stats_compute (NULL, 0, &s));
  g_assert_true (cube_stats_compute (some, 4, &s));
  g_assert_cmpuint (s.n, ==, 2);
  g_assert_cmpfloat (s.mean, ==, 3);
}

/* main › { solve › MPI_Recv (line 10), solve › MPI_Recv (line 20), a/b › x }; root2 › MPI_Recv */
static void
test_paths (void)
{
  g_autoptr (CubeReport) r = cube_report_new ();
  CubeRegion *main_r = cube_report_add_region (r, "main", "app.c", 1, 50);
  CubeRegion *solve = cube_report_add_region (r, "solve", "app.c", 60, 90);
  CubeRegion *recv = cube_report_add_region (r, "MPI_Recv", "MPI", -1, -1);
  CubeRegion *ab = cube_report_add_region (r, "a/b", "app.c", 100, 110);
  CubeRegion *x = cube_report_add_region (r, "x", "app.c", 120, 130);
  CubeRegion *root2 = cube_report_add_region (r, "root2", "app.c", 200, 210);
  CubeCnode *m = cube_report_add_cnode (r, NULL, main_r, 1, "app.c");
  CubeCnode *s = cube_report_add_cnode (r, m, solve, 5, "app.c");
  CubeCnode *r10 = cube_report_add_cnode (r, s, recv, 10, "app.c");
  CubeCnode *r20 = cube_report_add_cnode (r, s, recv, 20, "app.c");
  CubeCnode *abn = cube_report_add_cnode (r, m, ab, 30, "app.c");
  CubeCnode *xn = cube_report_add_cnode (r, abn, x, 31, "app.c");
  CubeCnode *r2 = cube_report_add_cnode (r, NULL, root2, 200, "app.c");
  CubeCnode *r2recv = cube_report_add_cnode (r, r2, recv, 201, "app.c");
  g_autofree char *p = cube_cnode_path (xn);

  (void) r20;
  g_assert_true (cube_report_find_cnode_path (r, "main") == m);
  g_assert_true (cube_report_find_cnode_path (r, "/main") == m);
  g_assert_true (cube_report_find_cnode_path (r, "main/solve") == s);
  /* Two call paths of the same name: the first in depth-first order. */
  g_assert_true (cube_report_find_cnode_path (r, "main/solve/MPI_Recv") == r10);
  /* A region name with a slash. */
  g_assert_true (cube_report_find_cnode_path (r, "main/a/b/x") == xn);
  g_assert_true (cube_report_find_cnode_path (r, "main/a/b") == abn);
  g_assert_true (cube_report_find_cnode_path (r, "root2/MPI_Recv") == r2recv);
  g_assert_null (cube_report_find_cnode_path (r, "main/MPI_Recv"));
  g_assert_null (cube_report_find_cnode_path (r, "main/solv"));
  g_assert_null (cube_report_find_cnode_path (r, "main/"));
  g_assert_null (cube_report_find_cnode_path (r, ""));
  g_assert_null (cube_report_find_cnode_path (r, "solve"));
  g_assert_cmpstr (p, ==, "main/a/b/x");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cube/stats/quartiles", test_quartiles);
  g_test_add_func ("/cube/stats/odd-and-outliers", test_odd_and_outliers);
  g_test_add_func ("/cube/stats/degenerate", test_degenerate);
  g_test_add_func ("/cube/path/find", test_paths);
  return g_test_run ();
}
