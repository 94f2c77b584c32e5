/* topology-colour.h — where a cell's value sits on the colour scale, in the topology view's two
 * resolutions, and the statistics of a grid (plain C: GLib and libm; tested without a display).
 *
 * Low resolution uses the system tree's scale: zero to the largest magnitude the tree shows at
 * the level of the grid's locations (all of the report's locations, not only this grid's), so
 * the same value has the same colour in the tree and in every topology. High resolution
 * stretches the whole scale over the minimum … maximum of the cells shown. The fraction this
 * returns is what kubus_severity_color() turns into a colour. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  TOPO_CELL_EMPTY,   /* no location at this position: drawn empty (hatched) */
  TOPO_CELL_ZERO,    /* a location whose value is exactly 0 (or undefined): background colour */
  TOPO_CELL_VALUE,   /* coloured */
} TopoCellClass;

typedef struct
{
  guint  n;          /* located cells with a defined value */
  double min, max;   /* 0 when n == 0 */
  double mean;
  double stddev;     /* population standard deviation */
} TopoStats;

typedef struct
{
  gboolean high;          /* high resolution */
  gboolean is_signed;     /* diverging scale (differences) */
  double   lo, hi;        /* low: 0 … max |value|; high: min … max of the grid */
  double   insignificant; /* low resolution: |fraction| below this is drawn lightened */
} TopoColourRange;

/* Statistics over the cells with a location (@has_location[i]) and a defined (non-NaN)
 * value. */
void          topo_stats_compute       (const double   *values,
                                        const gboolean *has_location,
                                        gsize           n,
                                        TopoStats      *stats);
/* @max_abs: the system tree's range at the grid's level; @is_signed: the tree's scale is
 * diverging; @insignificant: fraction (0.01 = 1 %). */
void          topo_colour_range_low    (TopoColourRange *range,
                                        double           max_abs,
                                        gboolean         is_signed,
                                        double           insignificant);
void          topo_colour_range_high   (TopoColourRange *range,
                                        const TopoStats *stats,
                                        gboolean         is_signed);
/* Class of a cell, and for TOPO_CELL_VALUE its position on the scale: a fraction in (0, 1]
 * for unsigned scales, in [-1, 1] without 0 for diverging ones, and whether it is drawn
 * lightened. */
TopoCellClass topo_colour_classify     (const TopoColourRange *range,
                                        gboolean               has_location,
                                        double                 value,
                                        double                *fraction,
                                        gboolean              *lighten);

G_END_DECLS
