/* kubus-boxplot.h — a horizontal box plot drawn with cairo: the statistics window and its
 * export (any cairo surface, any size). */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cube-stats.h"

G_BEGIN_DECLS

/* Draws @stats of @values (@n, for the outliers) into @width × @height: an axis from the
 * smallest to the largest value with round ticks, the box from the lower to the upper
 * quartile, the median as a line, the mean as a diamond, whiskers and outliers. @unit labels
 * the axis. Draws only the background when @stats->n is 0. */
void kubus_boxplot_draw (cairo_t         *cr,
                         int              width,
                         int              height,
                         const CubeStats *stats,
                         const double    *values,
                         guint            n,
                         const char      *unit);

/* Round tick positions for [@lo, @hi]: a step of 1, 2 or 5 × 10^k giving 4–10 ticks; the
 * first tick and the step (exposed for the tests). */
void kubus_boxplot_ticks (double  lo,
                          double  hi,
                          double *first,
                          double *step);

G_END_DECLS
