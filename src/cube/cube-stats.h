/* cube-stats.h — summary statistics of one value per location (the browser's statistics and
 * box plot: the selected metric and call path across the system tree's locations). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint  n;             /* finite values counted (NaN and ±∞ — "no value" — are left out) */
  double min;
  double max;
  double mean;
  double stddev;        /* population standard deviation */
  double q1;            /* quartiles: linear interpolation between the sorted values */
  double median;        /* (position p·(n−1), as R's default and Excel's QUARTILE.INC) */
  double q3;
  double whisker_low;   /* Tukey's box plot: the most extreme values within 1.5 × (q3 − q1) */
  double whisker_high;  /* of the box */
  guint  n_outliers;    /* values beyond the whiskers */
} CubeStats;

/* Statistics of the @n values; FALSE (and @stats zeroed) when none of them is finite. */
gboolean cube_stats_compute  (const double *values,
                              guint         n,
                              CubeStats    *stats);
/* The @p-quantile (0 ≤ p ≤ 1) of @sorted (ascending, @n > 0), interpolated as above. */
double   cube_stats_quantile (const double *sorted,
                              guint         n,
                              double        p);

G_END_DECLS
