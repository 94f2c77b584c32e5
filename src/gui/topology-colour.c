/* topology-colour.c — see topology-colour.h. */
#include <math.h>

#include "topology-colour.h"

/* The smallest fraction kubus_severity_color() still colours: the bottom of the scale. */
#define BOTTOM 1e-9

void
topo_stats_compute (const double   *values,
                    const gboolean *has_location,
                    gsize           n,
                    TopoStats      *stats)
{
  double sum = 0, sum_sq = 0;
  guint count = 0;

  stats->min = INFINITY;
  stats->max = -INFINITY;
  for (gsize i = 0; i < n; i++)
    {
      double v = values[i];
      if (!has_location[i] || isnan (v))
        continue;
      count++;
      sum += v;
      stats->min = MIN (stats->min, v);
      stats->max = MAX (stats->max, v);
    }
  stats->n = count;
  if (count == 0)
    {
      stats->min = stats->max = stats->mean = stats->stddev = 0;
      return;
    }
  stats->mean = sum / count;
  /* Second pass about the mean: no cancellation for values in a narrow band far from 0. */
  for (gsize i = 0; i < n; i++)
    if (has_location[i] && !isnan (values[i]))
      sum_sq += (values[i] - stats->mean) * (values[i] - stats->mean);
  stats->stddev = sqrt (sum_sq / count);
}

void
topo_colour_range_low (TopoColourRange *range,
                       double           max_abs,
                       gboolean         is_signed,
                       double           insignificant)
{
  range->high = FALSE;
  range->is_signed = is_signed;
  range->lo = 0;
  range->hi = isnan (max_abs) ? 0 : fabs (max_abs);
  range->insignificant = insignificant;
}

void
topo_colour_range_high (TopoColourRange *range,
                        const TopoStats *stats,
                        gboolean         is_signed)
{
  range->high = TRUE;
  range->is_signed = is_signed;
  range->lo = stats->min;
  range->hi = stats->max;
  range->insignificant = 0;
}

TopoCellClass
topo_colour_classify (const TopoColourRange *range,
                      gboolean               has_location,
                      double                 value,
                      double                *fraction,
                      gboolean              *lighten)
{
  double f;

  *fraction = 0;
  *lighten = FALSE;
  if (!has_location)
    return TOPO_CELL_EMPTY;
  if (value == 0.0 || isnan (value))
    return TOPO_CELL_ZERO;

  if (range->is_signed)
    {
      /* Diverging: keep the sign's meaning, stretch by the largest magnitude. */
      double m = range->high ? MAX (fabs (range->lo), fabs (range->hi)) : range->hi;
      f = m > 0 ? value / m : (value > 0 ? 1.0 : -1.0);
      f = CLAMP (f, -1.0, 1.0);
      if (fabs (f) < BOTTOM)
        f = value > 0 ? BOTTOM : -BOTTOM;
    }
  else if (range->high)
    {
      double span = range->hi - range->lo;
      f = span > 0 ? (value - range->lo) / span : 1.0;
      f = CLAMP (f, BOTTOM, 1.0);
    }
  else
    {
      f = range->hi > 0 ? value / range->hi : 1.0;
      f = CLAMP (f, -1.0, 1.0);
      if (fabs (f) < BOTTOM)
        f = value > 0 ? BOTTOM : -BOTTOM;
    }
  *fraction = f;
  *lighten = !range->high && fabs (f) < range->insignificant;
  return TOPO_CELL_VALUE;
}
