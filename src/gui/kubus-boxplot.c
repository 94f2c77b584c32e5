/* kubus-boxplot.c — see kubus-boxplot.h. */
#include <math.h>
#include <pango/pangocairo.h>

#include "kubus-boxplot.h"

void
kubus_boxplot_ticks (double  lo,
                     double  hi,
                     double *first,
                     double *step)
{
  double range = hi - lo, raw, mag;

  if (!(range > 0) || !isfinite (range))
    {
      *first = lo;
      *step = 1;
      return;
    }
  raw = range / 6;
  mag = pow (10, floor (log10 (raw)));
  if (raw / mag < 1.5)
    *step = mag;
  else if (raw / mag < 3.5)
    *step = 2 * mag;
  else if (raw / mag < 7.5)
    *step = 5 * mag;
  else
    *step = 10 * mag;
  *first = ceil (lo / *step) * *step;
}

static void
text_at (cairo_t    *cr,
         const char *text,
         double      x,
         double      y,
         double      xalign,
         double      size)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");
  int w, h;

  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - xalign * w, y);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_free (font);
  g_object_unref (layout);
}

void
kubus_boxplot_draw (cairo_t         *cr,
                    int              width,
                    int              height,
                    const CubeStats *stats,
                    const double    *values,
                    guint            n,
                    const char      *unit)
{
  double margin = MAX (16, width * 0.05), left = margin, right = width - margin;
  double size = CLAMP (height * 0.07, 9, 16);
  double mid = height * 0.42, half = MIN (height * 0.16, 40);
  double axis_y = mid + half + size * 1.6;
  double lo, hi, first, step;

  cairo_save (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  if (stats == NULL || stats->n == 0 || width < 40 || height < 40)
    {
      cairo_restore (cr);
      return;
    }
  lo = stats->min;
  hi = stats->max;
  if (hi == lo)
    {
      /* One value (or all equal): a narrow range around it. */
      double pad = lo != 0 ? fabs (lo) * 0.05 : 1;
      lo -= pad;
      hi += pad;
    }
#define X(v) (left + ((v) - lo) / (hi - lo) * (right - left))

  /* Axis with round ticks. */
  cairo_set_line_width (cr, 1);
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  cairo_move_to (cr, left, axis_y);
  cairo_line_to (cr, right, axis_y);
  cairo_stroke (cr);
  kubus_boxplot_ticks (lo, hi, &first, &step);
  for (double t = first; t <= hi + step * 1e-9; t += step)
    {
      char label[32];
      double x = X (t);

      g_snprintf (label, sizeof label, "%g", fabs (t) < step * 1e-9 ? 0.0 : t);
      cairo_move_to (cr, x, axis_y);
      cairo_line_to (cr, x, axis_y + 4);
      cairo_stroke (cr);
      text_at (cr, label, x, axis_y + 6, 0.5, size);
    }
  if (unit != NULL && unit[0] != '\0')
    text_at (cr, unit, right, axis_y + 8 + size * 1.4, 1.0, size);

  /* Whiskers. */
  cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, X (stats->whisker_low), mid);
  cairo_line_to (cr, X (stats->q1), mid);
  cairo_move_to (cr, X (stats->q3), mid);
  cairo_line_to (cr, X (stats->whisker_high), mid);
  cairo_move_to (cr, X (stats->whisker_low), mid - half / 2);
  cairo_line_to (cr, X (stats->whisker_low), mid + half / 2);
  cairo_move_to (cr, X (stats->whisker_high), mid - half / 2);
  cairo_line_to (cr, X (stats->whisker_high), mid + half / 2);
  cairo_stroke (cr);

  /* Box (at least a hairline when the quartiles coincide) and median. */
  cairo_rectangle (cr, X (stats->q1), mid - half, MAX (X (stats->q3) - X (stats->q1), 1), 2 * half);
  cairo_set_source_rgb (cr, 0.55, 0.75, 0.95);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 0.1, 0.25, 0.5);
  cairo_stroke (cr);
  cairo_set_line_width (cr, 3);
  cairo_move_to (cr, X (stats->median), mid - half);
  cairo_line_to (cr, X (stats->median), mid + half);
  cairo_stroke (cr);

  /* Mean: a diamond. */
  cairo_set_source_rgb (cr, 0.8, 0.1, 0.1);
  cairo_move_to (cr, X (stats->mean), mid - 6);
  cairo_line_to (cr, X (stats->mean) + 6, mid);
  cairo_line_to (cr, X (stats->mean), mid + 6);
  cairo_line_to (cr, X (stats->mean) - 6, mid);
  cairo_close_path (cr);
  cairo_fill (cr);

  /* Outliers: open circles. */
  cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
  cairo_set_line_width (cr, 1.2);
  for (guint i = 0; values != NULL && i < n; i++)
    if (isfinite (values[i]) && (values[i] < stats->whisker_low || values[i] > stats->whisker_high))
      {
        cairo_new_sub_path (cr);
        cairo_arc (cr, X (values[i]), mid, 3.5, 0, 2 * G_PI);
        cairo_stroke (cr);
      }
#undef X
  cairo_restore (cr);
}
