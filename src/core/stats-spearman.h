/* stats-spearman.h — Spearman's rank correlation with ties, and its p-value.
 *
 * Used by the scalability statistics (stats-scaling.c); plain numbers in, plain numbers out. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  STATS_P_NONE,        /* no p-value: rho is undefined */
  STATS_P_EXACT,       /* exact permutation test: every ordering of the y values counted */
  STATS_P_T_APPROX,    /* Student's t with n − 2 degrees of freedom */
} StatsPMethod;

/* Largest n for which stats_spearman_p enumerates all n! orderings (8! = 40320). */
#define STATS_EXACT_MAX_N 8

/* Fills @ranks (n doubles) with the ranks (1 … n) of @values; equal values share the average of
 * the ranks they occupy (1, 2.5, 2.5, 4). */
void         stats_rank_average (const double *values, guint n, double *ranks);

/* Spearman's rho of (x, y): the Pearson correlation of their average ranks, which handles ties
 * exactly (the 1 − 6Σd²/(n(n²−1)) shortcut does not). Returns FALSE (rho undefined, *rho = 0)
 * when n < 2 or either series is constant. */
gboolean     stats_spearman (const double *x, const double *y, guint n, double *rho);

/* Two-sided p-value of rho for (x, y) under "no association". n ≤ STATS_EXACT_MAX_N: exact
 * permutation test (the share of all n! orderings of y whose |rho| is at least as large);
 * larger n: t = rho·√((n−2)/(1−rho²)) against Student's t with n − 2 degrees of freedom.
 * Returns NaN and STATS_P_NONE when rho is undefined. @method may be NULL. */
double       stats_spearman_p (const double *x, const double *y, guint n, StatsPMethod *method);

/* The smallest two-sided p-value any y series can reach against @x (n values): that of a y
 * which orders its values exactly as @x does (ties of @x kept apart). NaN when n < 2 or @x is
 * constant. With 3 distinct task counts it is 1/3: no rho can be significant. */
double       stats_spearman_smallest_p (const double *x, guint n);

/* The fewest runs, at distinct task counts, whose smallest p-value is below @alpha (5 for
 * 0.05: 2/5! = 0.0167, while 4 runs reach 2/4! = 0.083 at best). At most 64. */
guint        stats_spearman_runs_for (double alpha);

/* Two-sided tail probability P(|T| ≥ |t|) of Student's t with @df degrees of freedom. */
double       stats_student_t_p2 (double t, double df);

/* The regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1, a, b > 0. */
double       stats_incomplete_beta (double a, double b, double x);

const char  *stats_p_method_to_string (StatsPMethod method);   /* "exact", "t", "" */

G_END_DECLS
