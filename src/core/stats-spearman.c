/* stats-spearman.c — Spearman's rank correlation with average ranks for ties, and its p-value
 * (exact permutation test for small n, Student's t approximation beyond). */
#include "stats-spearman.h"

#include <math.h>
#include <stdlib.h>

typedef struct
{
  double value;
  guint  index;
} Ranked;

static int
compare_ranked (const void *a, const void *b)
{
  const Ranked *x = a, *y = b;

  if (x->value < y->value)
    return -1;
  if (x->value > y->value)
    return 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

void
stats_rank_average (const double *values, guint n, double *ranks)
{
  g_autofree Ranked *r = g_new (Ranked, MAX (n, 1));

  g_return_if_fail (n == 0 || (values != NULL && ranks != NULL));
  for (guint i = 0; i < n; i++)
    r[i] = (Ranked){ values[i], i };
  qsort (r, n, sizeof *r, compare_ranked);
  for (guint i = 0; i < n;)
    {
      guint j = i + 1;

      while (j < n && r[j].value == r[i].value)
        j++;
      /* positions i … j−1 hold equal values: each gets the mean of ranks i+1 … j */
      for (guint k = i; k < j; k++)
        ranks[r[k].index] = (i + 1 + j) / 2.0;
      i = j;
    }
}

/* Centred ranks of @v into @dev; returns Σ dev². */
static double
centred_ranks (const double *v, guint n, double *dev)
{
  double ss = 0;

  stats_rank_average (v, n, dev);
  for (guint i = 0; i < n; i++)
    {
      /* the ranks always average to (n + 1) / 2 */
      dev[i] -= (n + 1) / 2.0;
      ss += dev[i] * dev[i];
    }
  return ss;
}

gboolean
stats_spearman (const double *x, const double *y, guint n, double *rho)
{
  g_autofree double *dx = g_new (double, MAX (n, 1));
  g_autofree double *dy = g_new (double, MAX (n, 1));
  double             sxx, syy, sxy = 0;

  g_return_val_if_fail (rho != NULL, FALSE);
  *rho = 0;
  if (n < 2)
    return FALSE;
  sxx = centred_ranks (x, n, dx);
  syy = centred_ranks (y, n, dy);
  /* a constant series has all ranks equal: every deviation is exactly 0 */
  if (sxx == 0 || syy == 0)
    return FALSE;
  for (guint i = 0; i < n; i++)
    sxy += dx[i] * dy[i];
  *rho = CLAMP (sxy / sqrt (sxx * syy), -1.0, 1.0);
  return TRUE;
}

/* Exact test: rho of a reordering depends only on Σ dx[i]·dy[π(i)], so count the orderings
 * (Heap's algorithm, all n! of them, equal values counted as distinct) whose |Σ| reaches the
 * observed one. */
static double
exact_p (const double *dx, double *dy, guint n, double observed)
{
  guint  c[STATS_EXACT_MAX_N] = { 0 };
  double limit = fabs (observed) * (1 - 1e-9) - 1e-12;
  guint  total = 0, extreme = 0;
  guint  i = 1;

  for (;;)
    {
      double s = 0;

      for (guint k = 0; k < n; k++)
        s += dx[k] * dy[k];
      total++;
      if (fabs (s) >= limit)
        extreme++;
      /* next ordering */
      while (i < n && c[i] >= i)
        c[i++] = 0;
      if (i >= n)
        break;
      {
        guint  j = (i % 2 == 0) ? 0 : c[i];
        double t = dy[j];

        dy[j] = dy[i];
        dy[i] = t;
      }
      c[i]++;
      i = 1;
    }
  return (double) extreme / total;
}

double
stats_spearman_p (const double *x, const double *y, guint n, StatsPMethod *method)
{
  double rho;

  if (method != NULL)
    *method = STATS_P_NONE;
  if (!stats_spearman (x, y, n, &rho))
    return NAN;
  if (n <= STATS_EXACT_MAX_N)
    {
      double dx[STATS_EXACT_MAX_N], dy[STATS_EXACT_MAX_N], sxy = 0;

      centred_ranks (x, n, dx);
      centred_ranks (y, n, dy);
      for (guint k = 0; k < n; k++)
        sxy += dx[k] * dy[k];
      if (method != NULL)
        *method = STATS_P_EXACT;
      return exact_p (dx, dy, n, sxy);
    }
  if (method != NULL)
    *method = STATS_P_T_APPROX;
  if (fabs (rho) >= 1.0)
    return 0.0;
  return stats_student_t_p2 (rho * sqrt ((n - 2) / (1 - rho * rho)), n - 2);
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

double
stats_spearman_smallest_p (const double *x, guint n)
{
  g_autofree double *sorted = NULL;
  g_autofree double *y = NULL;

  if (n < 2)
    return NAN;
  /* y takes the rank of each x among the sorted x (the first of equal x values first) */
  sorted = g_memdup2 (x, sizeof (double) * n);
  y = g_new (double, n);
  qsort (sorted, n, sizeof (double), compare_double);
  for (guint i = 0; i < n; i++)
    {
      guint rank = 0, before = 0;

      while (rank < n && sorted[rank] < x[i])
        rank++;
      for (guint j = 0; j < i; j++)
        before += x[j] == x[i];
      y[i] = rank + before;
    }
  return stats_spearman_p (x, y, n, NULL);
}

guint
stats_spearman_runs_for (double alpha)
{
  for (guint n = 2; n <= 64; n++)
    {
      g_autofree double *x = g_new (double, n);

      for (guint i = 0; i < n; i++)
        x[i] = i + 1;
      if (stats_spearman_smallest_p (x, n) < alpha)
        return n;
    }
  return 64;
}

/* Continued fraction of I_x(a, b) (modified Lentz), valid and fast for x < (a + 1)/(a + b + 2). */
static double
incomplete_beta_cf (double a, double b, double x)
{
  const double tiny = 1e-300;
  double       c = 1, d = 1 - (a + b) * x / (a + 1), h;

  if (fabs (d) < tiny)
    d = tiny;
  d = 1 / d;
  h = d;
  for (int m = 1; m <= 300; m++)
    {
      double num, delta;

      /* even step: m(b − m)x / ((a + 2m − 1)(a + 2m)) */
      num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      d = 1 + num * d;
      c = 1 + num / c;
      d = 1 / (fabs (d) < tiny ? tiny : d);
      c = fabs (c) < tiny ? tiny : c;
      h *= d * c;
      /* odd step: −(a + m)(a + b + m)x / ((a + 2m)(a + 2m + 1)) */
      num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + num * d;
      c = 1 + num / c;
      d = 1 / (fabs (d) < tiny ? tiny : d);
      c = fabs (c) < tiny ? tiny : c;
      delta = d * c;
      h *= delta;
      if (fabs (delta - 1) < 1e-15)
        break;
    }
  return h;
}

double
stats_incomplete_beta (double a, double b, double x)
{
  double front;

  g_return_val_if_fail (a > 0 && b > 0, NAN);
  if (!(x > 0))
    return 0;
  if (x >= 1)
    return 1;
  front = exp (lgamma (a + b) - lgamma (a) - lgamma (b) + a * log (x) + b * log1p (-x));
  if (x < (a + 1) / (a + b + 2))
    return front * incomplete_beta_cf (a, b, x) / a;
  return 1 - front * incomplete_beta_cf (b, a, 1 - x) / b;
}

double
stats_student_t_p2 (double t, double df)
{
  g_return_val_if_fail (df > 0, NAN);
  if (isinf (t))
    return 0;
  /* P(|T| ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2) */
  return stats_incomplete_beta (df / 2, 0.5, df / (df + t * t));
}

const char *
stats_p_method_to_string (StatsPMethod method)
{
  switch (method)
    {
    case STATS_P_EXACT:
      return "exact";
    case STATS_P_T_APPROX:
      return "t";
    case STATS_P_NONE:
    default:
      return "";
    }
}
