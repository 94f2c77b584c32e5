/* test-stats-spearman.c — Spearman's rho and its p-value against values worked out by hand. */
#include "stats-spearman.h"

#include <math.h>

#define EPS 1e-12

static void
test_ranks (void)
{
  const double v[] = { 3.0, 1.0, 3.0, 2.0, 3.0, 0.5 };
  /* sorted: 0.5 (1), 1 (2), 2 (3), 3 3 3 (4, 5, 6 → 5 each) */
  const double want[] = { 5, 2, 5, 3, 5, 1 };
  double       r[6];

  stats_rank_average (v, 6, r);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat_with_epsilon (r[i], want[i], EPS);
}

static void
test_no_ties (void)
{
  /* d = 1, −1, 1, −1, 0: Σd² = 4, rho = 1 − 6·4/(5·24) = 0.8. Two-sided exact p: of the 120
   * orderings, 8 have Σd² ≤ 4 (identity; 4 adjacent swaps; 3 pairs of disjoint adjacent swaps)
   * and 8 mirror them with Σd² ≥ 36, so p = 16/120. */
  const double x[] = { 1, 2, 3, 4, 5 };
  const double y[] = { 20, 10, 40, 30, 50 };
  StatsPMethod m;
  double       rho;

  g_assert_true (stats_spearman (x, y, 5, &rho));
  g_assert_cmpfloat_with_epsilon (rho, 0.8, EPS);
  g_assert_cmpfloat_with_epsilon (stats_spearman_p (x, y, 5, &m), 16.0 / 120, EPS);
  g_assert_cmpint (m, ==, STATS_P_EXACT);
  /* reversed y: rho −0.8, same two-sided p */
  {
    const double yr[] = { 50, 30, 40, 10, 20 };
    g_assert_true (stats_spearman (x, yr, 5, &rho));
    g_assert_cmpfloat_with_epsilon (rho, -0.8, EPS);
    g_assert_cmpfloat_with_epsilon (stats_spearman_p (x, yr, 5, NULL), 16.0 / 120, EPS);
  }
}

static void
test_ties (void)
{
  /* x ranks 1, 2.5, 2.5, 4 (centred −1.5, 0, 0, 1.5; Σ² = 4.5), y ranks 1 … 4 (centred −1.5,
   * −.5, .5, 1.5; Σ² = 5): rho = 4.5 / √(4.5·5) = 3/√10. The 1 − 6Σd² shortcut would give
   * 1 − 6·0.5/60 = 0.95 instead. Exact p: |1.5·(y₄ − y₁)| ≥ 4.5 needs the extreme y ranks at both
   * ends: 2 · 2 of the 24 orderings, p = 1/6. */
  const double x[] = { 10, 20, 20, 30 };
  const double y[] = { 1, 2, 3, 4 };
  double       rho;

  g_assert_true (stats_spearman (x, y, 4, &rho));
  g_assert_cmpfloat_with_epsilon (rho, 3 / sqrt (10), EPS);
  g_assert_cmpfloat_with_epsilon (stats_spearman_p (x, y, 4, NULL), 1.0 / 6, EPS);

  /* ties in both: y ranks 2, 2, 2, 4 (centred −.5 ×3, 1.5; Σ² = 3), Σxy = .75 + 2.25 = 3:
   * rho = 3/√13.5 = √(2/3); p: |1.5·(y₄ − y₁)| ≥ 3 holds in 12 of 24 orderings. */
  {
    const double xs[] = { 2, 4, 4, 8 };
    const double ys[] = { 0, 0, 0, 0.25 };
    g_assert_true (stats_spearman (xs, ys, 4, &rho));
    g_assert_cmpfloat_with_epsilon (rho, sqrt (2.0 / 3), EPS);
    g_assert_cmpfloat_with_epsilon (stats_spearman_p (xs, ys, 4, NULL), 0.5, EPS);
  }
}

static void
test_constant (void)
{
  const double x[] = { 2, 4, 8 };
  const double y[] = { 0.25, 0.25, 0.25 };
  StatsPMethod m = STATS_P_EXACT;
  double       rho = 5;

  /* a constant share has no ranking: rho is undefined, and so is p */
  g_assert_false (stats_spearman (x, y, 3, &rho));
  g_assert_cmpfloat (rho, ==, 0);
  g_assert_true (isnan (stats_spearman_p (x, y, 3, &m)));
  g_assert_cmpint (m, ==, STATS_P_NONE);
  /* constant task count too */
  g_assert_false (stats_spearman (y, x, 3, &rho));
  /* one point */
  g_assert_false (stats_spearman (x, y, 1, &rho));
}

static void
test_two_points (void)
{
  /* two points always correlate perfectly; both orderings are as extreme: p = 1 */
  const double x[] = { 2, 4 };
  const double up[] = { 0.1, 0.3 }, down[] = { 0.3, 0.1 };
  double       rho;

  g_assert_true (stats_spearman (x, up, 2, &rho));
  g_assert_cmpfloat_with_epsilon (rho, 1, EPS);
  g_assert_cmpfloat_with_epsilon (stats_spearman_p (x, up, 2, NULL), 1, EPS);
  g_assert_true (stats_spearman (x, down, 2, &rho));
  g_assert_cmpfloat_with_epsilon (rho, -1, EPS);
}

static void
test_student_t (void)
{
  /* closed forms: df = 1 (Cauchy) P(|T| ≥ t) = 1 − 2·atan(t)/π; df = 2: 1 − t/√(2 + t²) */
  for (double t = 0; t < 20; t += 0.37)
    {
      g_assert_cmpfloat_with_epsilon (stats_student_t_p2 (t, 1), 1 - 2 * atan (t) / G_PI, 1e-12);
      g_assert_cmpfloat_with_epsilon (stats_student_t_p2 (-t, 2), 1 - t / sqrt (2 + t * t),
                                      1e-12);
    }
  /* table value: t(0.975, 8) = 2.306004 */
  g_assert_cmpfloat_with_epsilon (stats_student_t_p2 (2.306004, 8), 0.05, 1e-6);
  g_assert_cmpfloat (stats_student_t_p2 (INFINITY, 8), ==, 0);
  /* I_x(1, 1) = x; I_x(a, b) = 1 − I_{1−x}(b, a); I_x(2, 1) = x² */
  g_assert_cmpfloat_with_epsilon (stats_incomplete_beta (1, 1, 0.3), 0.3, 1e-14);
  g_assert_cmpfloat_with_epsilon (stats_incomplete_beta (2, 1, 0.7), 0.49, 1e-14);
  g_assert_cmpfloat_with_epsilon (stats_incomplete_beta (2.5, 4, 0.2)
                                      + stats_incomplete_beta (4, 2.5, 0.8),
                                  1, 1e-14);
}

static void
test_t_approximation (void)
{
  /* n = 10 > STATS_EXACT_MAX_N: y swaps two neighbours twice, Σd² = 4,
   * rho = 1 − 24/990 = 161/165, t = rho·√(8/(1 − rho²)), p from Student's t with 8 df
   * (t ≈ 12.67: far beyond 2.306, so p is far below 0.05). */
  const double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
  const double y[] = { 2, 1, 3, 4, 5, 7, 6, 8, 9, 10 };
  double       rho = 161.0 / 165, t = rho * sqrt (8 / (1 - rho * rho)), got;
  StatsPMethod m;

  g_assert_true (stats_spearman (x, y, 10, &got));
  g_assert_cmpfloat_with_epsilon (got, rho, EPS);
  got = stats_spearman_p (x, y, 10, &m);
  g_assert_cmpint (m, ==, STATS_P_T_APPROX);
  g_assert_cmpfloat_with_epsilon (got, stats_student_t_p2 (t, 8), 1e-15);
  g_assert_cmpfloat (got, <, 1e-5);
  g_assert_cmpfloat (got, >, 0);
  /* perfect correlation: p = 0 under the approximation */
  g_assert_cmpfloat (stats_spearman_p (x, x, 10, NULL), ==, 0);
  g_assert_cmpstr (stats_p_method_to_string (STATS_P_T_APPROX), ==, "t");
  g_assert_cmpstr (stats_p_method_to_string (STATS_P_EXACT), ==, "exact");
}

/* The best p-value a given set of runs allows (issue 24: with 3 runs nothing is significant). */
static void
test_smallest_p (void)
{
  const double three[] = { 2, 4, 6 }, four[] = { 8, 2, 16, 4 }, constant[] = { 4, 4, 4 };

  g_assert_cmpfloat_with_epsilon (stats_spearman_smallest_p (three, 3), 2.0 / 6, 1e-12);
  g_assert_cmpfloat_with_epsilon (stats_spearman_smallest_p (four, 4), 2.0 / 24, 1e-12);
  g_assert_true (isnan (stats_spearman_smallest_p (constant, 3)));
  g_assert_true (isnan (stats_spearman_smallest_p (three, 1)));
  g_assert_cmpuint (stats_spearman_runs_for (0.05), ==, 5);
  g_assert_cmpuint (stats_spearman_runs_for (0.01), ==, 6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stats/ranks", test_ranks);
  g_test_add_func ("/stats/spearman/no-ties", test_no_ties);
  g_test_add_func ("/stats/spearman/ties", test_ties);
  g_test_add_func ("/stats/spearman/constant", test_constant);
  g_test_add_func ("/stats/spearman/two-points", test_two_points);
  g_test_add_func ("/stats/student-t", test_student_t);
  g_test_add_func ("/stats/spearman/t-approximation", test_t_approximation);
  g_test_add_func ("/spearman/smallest-p", test_smallest_p);
  return g_test_run ();
}
