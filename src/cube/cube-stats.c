/* cube-stats.c — see cube-stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cube-stats.h"

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

double
cube_stats_quantile (const double *sorted,
                     guint         n,
                     double        p)
{
  double pos, frac;
  guint i;

  g_return_val_if_fail (sorted != NULL && n > 0, NAN);
  p = CLAMP (p, 0.0, 1.0);
  pos = p * (n - 1);
  i = (guint) floor (pos);
  frac = pos - i;
  if (i + 1 >= n)
    return sorted[n - 1];
  /* Written so that equal neighbours give exactly their value. */
  return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

gboolean
cube_stats_compute (const double *values,
                    guint         n,
                    CubeStats    *stats)
{
  g_autofree double *v = NULL;
  double sum = 0, sq = 0, iqr, lo_fence, hi_fence;
  guint m = 0;

  g_return_val_if_fail (stats != NULL, FALSE);
  memset (stats, 0, sizeof *stats);
  if (values == NULL || n == 0)
    return FALSE;
  v = g_new (double, n);
  for (guint i = 0; i < n; i++)
    if (isfinite (values[i]))
      v[m++] = values[i];
  if (m == 0)
    return FALSE;
  qsort (v, m, sizeof (double), compare_doubles);

  stats->n = m;
  stats->min = v[0];
  stats->max = v[m - 1];
  for (guint i = 0; i < m; i++)
    sum += v[i];
  stats->mean = sum / m;
  /* Two passes: the deviations from the mean, not E[x²] − E[x]², which cancels badly when
   * the values lie close together (64 ranks between 10.80 and 13.45 s). */
  for (guint i = 0; i < m; i++)
    sq += (v[i] - stats->mean) * (v[i] - stats->mean);
  stats->stddev = sqrt (sq / m);
  /* All values equal: the mean is that value, not a sum rounded and divided. */
  if (stats->min == stats->max)
    stats->mean = stats->min, stats->stddev = 0;
  stats->q1 = cube_stats_quantile (v, m, 0.25);
  stats->median = cube_stats_quantile (v, m, 0.5);
  stats->q3 = cube_stats_quantile (v, m, 0.75);

  iqr = stats->q3 - stats->q1;
  lo_fence = stats->q1 - 1.5 * iqr;
  hi_fence = stats->q3 + 1.5 * iqr;
  stats->whisker_low = stats->q1;
  stats->whisker_high = stats->q3;
  for (guint i = 0; i < m; i++)
    {
      if (v[i] < lo_fence || v[i] > hi_fence)
        {
          stats->n_outliers++;
          continue;
        }
      stats->whisker_low = MIN (stats->whisker_low, v[i]);
      stats->whisker_high = MAX (stats->whisker_high, v[i]);
    }
  return TRUE;
}
