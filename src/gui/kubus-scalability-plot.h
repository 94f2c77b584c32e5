/* kubus-scalability-plot.h — the Scalability window's plot, drawn with cairo alone: each
 * selected callsite's share against the task count, both axes logarithmic, one line per
 * callsite. The same drawing goes to the screen and to PNG, SVG and PDF files. */
#pragma once

#include <cairo.h>

#include "kubus-scalability-result.h"

G_BEGIN_DECLS

typedef enum
{
  KUBUS_PLOT_PNG,
  KUBUS_PLOT_SVG,
  KUBUS_PLOT_PDF,
} KubusPlotFormat;

/* The frame of the data area, in device units, and the log ranges it shows. */
typedef struct
{
  double left, top, right, bottom;   /* data area */
  double x_lo, x_hi;                 /* task counts */
  double y_lo, y_hi;                 /* shares: whole decades around the selected data */
  double y_title_left, y_title_right; /* the band the rotated y-axis title takes */
  double ticks_left;                 /* where the widest y tick label starts */
} KubusPlotFrame;

/* A y tick label: the share @share as a percentage ("0.01 %", "100 %"). New string. */
char    *kubus_scalability_plot_tick_label (double share);

/* Lays out a plot of @width × @height for @sites (indices into result->sites). Returns FALSE
 * when there is nothing to plot (no selection, or no positive share). */
gboolean kubus_scalability_plot_frame (const KubusScalingResult *result,
                                       const guint              *sites,
                                       guint                     n_sites,
                                       double                    width,
                                       double                    height,
                                       KubusPlotFrame           *frame);

/* Where @value lands between @p0 (at @lo) and @p1 (at @hi) on a log scale. */
double   kubus_plot_log_position (double value, double lo, double hi, double p0, double p1);

/* The colour of the @i-th selected line (a fixed palette, repeated). */
void     kubus_scalability_plot_color (guint i, double rgb[3]);

/* Draws the plot (background, axes, ticks, lines, legend) onto @cr. */
void     kubus_scalability_plot_draw (cairo_t                  *cr,
                                      double                    width,
                                      double                    height,
                                      const KubusScalingResult *result,
                                      const guint              *sites,
                                      guint                     n_sites);

/* Format from the file name's extension (.png, .svg, .pdf; case-insensitive). FALSE if none. */
gboolean kubus_plot_format_from_name (const char *path, KubusPlotFormat *format);

/* Writes the plot to @path atomically (temporary file in the same folder, then rename). */
gboolean kubus_scalability_plot_export (const char               *path,
                                        KubusPlotFormat           format,
                                        int                       width,
                                        int                       height,
                                        const KubusScalingResult *result,
                                        const guint              *sites,
                                        guint                     n_sites,
                                        GError                  **error);

G_END_DECLS
