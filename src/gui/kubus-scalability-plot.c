/* kubus-scalability-plot.c — see kubus-scalability-plot.h. Cairo only (no GTK), so the screen,
 * the exported files and the tests draw exactly the same thing. */
#include "kubus-scalability-plot.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define EDGE          8.0    /* from the left edge to the y title, and the gaps */
#define MARGIN_RIGHT  28.0
#define MARGIN_TOP    40.0
#define MARGIN_BOTTOM 52.0
#define LEGEND_LINE   18.0
#define FONT_SIZE     12.0

/* Okabe & Ito's palette: told apart with every common colour vision deficiency */
static const double palette[][3] = {
  { 0.000, 0.447, 0.698 }, /* blue */
  { 0.835, 0.369, 0.000 }, /* vermillion */
  { 0.000, 0.620, 0.451 }, /* bluish green */
  { 0.800, 0.475, 0.655 }, /* reddish purple */
  { 0.902, 0.624, 0.000 }, /* orange */
  { 0.337, 0.706, 0.914 }, /* sky blue */
  { 0.941, 0.894, 0.259 }, /* yellow */
  { 0.000, 0.000, 0.000 }, /* black */
};

void
kubus_scalability_plot_color (guint i, double rgb[3])
{
  memcpy (rgb, palette[i % G_N_ELEMENTS (palette)], sizeof palette[0]);
}

double
kubus_plot_log_position (double value, double lo, double hi, double p0, double p1)
{
  return p0 + (log (value) - log (lo)) / (log (hi) - log (lo)) * (p1 - p0);
}

gboolean
kubus_scalability_plot_frame (const KubusScalingResult *r,
                              const guint              *sites,
                              guint                     n_sites,
                              double                    width,
                              double                    height,
                              KubusPlotFrame           *f)
{
  double lo = INFINITY, hi = 0;

  memset (f, 0, sizeof *f);
  if (r == NULL || r->n_counts == 0)
    return FALSE;
  for (guint i = 0; i < n_sites; i++)
    {
      const KubusScalingSite *s;

      if (sites[i] >= r->sites->len)
        continue;
      s = g_ptr_array_index (r->sites, sites[i]);
      for (guint k = 0; k < r->n_counts; k++)
        if (s->share[k] > 0 && isfinite (s->share[k]))
          {
            lo = MIN (lo, s->share[k]);
            hi = MAX (hi, s->share[k]);
          }
    }
  if (!(hi > 0))
    return FALSE;
  /* whole decades, so the grid lines fall on 0.01, 0.1, 1 */
  f->y_lo = pow (10, floor (log10 (lo)));
  f->y_hi = pow (10, ceil (log10 (hi)));
  if (f->y_hi <= f->y_lo)
    f->y_hi = f->y_lo * 10;
  /* a little room left and right of the first and last task count */
  f->x_lo = r->counts[0] / 1.12;
  f->x_hi = r->counts[r->n_counts - 1] * 1.12;
  /* the y axis: its title, a gap, the widest tick label, a gap; nothing overlaps (the title
   * used to sit on "0.0001") */
  {
    cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_A8, 1, 1);
    cairo_t *cr = cairo_create (scratch);
    double widest = 0;

    cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size (cr, FONT_SIZE);
    for (double d = f->y_lo; d <= f->y_hi * 1.0001; d *= 10)
      {
        g_autofree char *label = kubus_scalability_plot_tick_label (d);
        cairo_text_extents_t e;

        cairo_text_extents (cr, label, &e);
        widest = MAX (widest, e.x_advance);
      }
    cairo_destroy (cr);
    cairo_surface_destroy (scratch);
    f->y_title_left = EDGE;
    f->y_title_right = EDGE + FONT_SIZE * 1.25;
    f->ticks_left = f->y_title_right + EDGE;
    f->left = f->ticks_left + widest + EDGE;
  }
  f->right = MAX (width - MARGIN_RIGHT, f->left + 1);
  f->top = MARGIN_TOP;
  f->bottom = MAX (height - MARGIN_BOTTOM - LEGEND_LINE * n_sites, f->top + 1);
  return TRUE;
}

char *
kubus_scalability_plot_tick_label (double share)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup_printf ("%s %%", g_ascii_formatd (buf, sizeof buf, "%g", share * 100));
}

static void
text_at (cairo_t *cr, const char *text, double x, double y, double align_x, double align_y)
{
  cairo_text_extents_t e;

  cairo_text_extents (cr, text, &e);
  cairo_move_to (cr, x - e.x_advance * align_x, y + e.height * align_y);
  cairo_show_text (cr, text);
}

static void
draw_axes (cairo_t *cr, const KubusScalingResult *r, const KubusPlotFrame *f)
{
  char label[32];

  cairo_set_line_width (cr, 1);
  /* y: grid and labels at every decade, short ticks at 2…9 × 10^k */
  for (double d = f->y_lo; d <= f->y_hi * 1.0001; d *= 10)
    {
      double y = kubus_plot_log_position (d, f->y_lo, f->y_hi, f->bottom, f->top);

      cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
      cairo_move_to (cr, f->left, y);
      cairo_line_to (cr, f->right, y);
      cairo_stroke (cr);
      cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
      {
        g_autofree char *tick = kubus_scalability_plot_tick_label (d);
        text_at (cr, tick, f->left - EDGE, y, 1, 0.5);
      }
      for (int m = 2; m <= 9 && d * m < f->y_hi; m++)
        {
          double ym = kubus_plot_log_position (d * m, f->y_lo, f->y_hi, f->bottom, f->top);
          cairo_move_to (cr, f->left - 4, ym);
          cairo_line_to (cr, f->left, ym);
          cairo_stroke (cr);
        }
    }
  /* x: a grid line and a label at every task count that was run */
  for (guint k = 0; k < r->n_counts; k++)
    {
      double x = kubus_plot_log_position (r->counts[k], f->x_lo, f->x_hi, f->left, f->right);

      cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
      cairo_move_to (cr, x, f->top);
      cairo_line_to (cr, x, f->bottom);
      cairo_stroke (cr);
      cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
      g_snprintf (label, sizeof label, "%u", r->counts[k]);
      text_at (cr, label, x, f->bottom + 8, 0.5, 1);
    }
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_rectangle (cr, f->left, f->top, f->right - f->left, f->bottom - f->top);
  cairo_stroke (cr);
  text_at (cr, _ ("tasks (log scale)"), (f->left + f->right) / 2, f->bottom + 30, 0.5, 1);
  cairo_save (cr);
  /* rotated a quarter turn: the text's height runs along x, from y_title_left */
  cairo_translate (cr, f->y_title_left, (f->top + f->bottom) / 2);
  cairo_rotate (cr, -G_PI / 2);
  /* xgettext:no-c-format */
  text_at (cr, _ ("share in % (log scale)"), 0, 0, 0.5, 1);
  cairo_restore (cr);
}

static void
draw_site (cairo_t *cr, const KubusScalingResult *r, const KubusScalingSite *s,
           const KubusPlotFrame *f, const double rgb[3])
{
  gboolean pen_down = FALSE;

  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, 2);
  /* a share of 0 has no place on a log axis: the line breaks there */
  for (guint k = 0; k < r->n_counts; k++)
    {
      double x, y;

      if (!(s->share[k] > 0))
        {
          pen_down = FALSE;
          continue;
        }
      x = kubus_plot_log_position (r->counts[k], f->x_lo, f->x_hi, f->left, f->right);
      y = kubus_plot_log_position (s->share[k], f->y_lo, f->y_hi, f->bottom, f->top);
      if (pen_down)
        cairo_line_to (cr, x, y);
      else
        cairo_move_to (cr, x, y);
      pen_down = TRUE;
    }
  cairo_stroke (cr);
  for (guint k = 0; k < r->n_counts; k++)
    if (s->share[k] > 0)
      {
        double x = kubus_plot_log_position (r->counts[k], f->x_lo, f->x_hi, f->left, f->right);
        double y = kubus_plot_log_position (s->share[k], f->y_lo, f->y_hi, f->bottom, f->top);
        cairo_new_sub_path (cr);
        cairo_arc (cr, x, y, 4, 0, 2 * G_PI);
      }
  cairo_fill (cr);
}

void
kubus_scalability_plot_draw (cairo_t                  *cr,
                             double                    width,
                             double                    height,
                             const KubusScalingResult *r,
                             const guint              *sites,
                             guint                     n_sites)
{
  KubusPlotFrame f;

  cairo_save (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, FONT_SIZE);
  if (!kubus_scalability_plot_frame (r, sites, n_sites, width, height, &f))
    {
      cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
      text_at (cr, r == NULL ? _ ("No result yet") : _ ("Select callsites with a share above 0"),
               width / 2, height / 2, 0.5, 0.5);
      cairo_restore (cr);
      return;
    }
  {
    g_autofree char *title = g_strdup_printf (_ ("Share of “%s” by task count"), r->metric);
    cairo_set_source_rgb (cr, 0, 0, 0);
    text_at (cr, title, (f.left + f.right) / 2, 12, 0.5, 1);
  }
  draw_axes (cr, r, &f);

  cairo_save (cr);
  cairo_rectangle (cr, f.left, f.top, f.right - f.left, f.bottom - f.top);
  cairo_clip (cr);
  for (guint i = 0; i < n_sites; i++)
    {
      double rgb[3];

      if (sites[i] >= r->sites->len)
        continue;
      kubus_scalability_plot_color (i, rgb);
      draw_site (cr, r, g_ptr_array_index (r->sites, sites[i]), &f, rgb);
    }
  cairo_restore (cr);

  /* legend under the axis label: swatch, rho, callsite */
  for (guint i = 0; i < n_sites; i++)
    {
      const KubusScalingSite *s;
      double rgb[3], y = f.bottom + MARGIN_BOTTOM + LEGEND_LINE * i;
      g_autofree char *line = NULL;

      if (sites[i] >= r->sites->len)
        continue;
      s = g_ptr_array_index (r->sites, sites[i]);
      kubus_scalability_plot_color (i, rgb);
      cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
      cairo_rectangle (cr, f.left, y, 24, 4);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0, 0, 0);
      if (s->defined)
        line = g_strdup_printf ("ρ = %+.2f   %s", s->rho, s->name);
      else
        line = g_strdup_printf (_ ("ρ undefined   %s"), s->name);
      text_at (cr, line, f.left + 32, y + 2, 0, 0.5);
    }
  cairo_restore (cr);
}

gboolean
kubus_plot_format_from_name (const char *path, KubusPlotFormat *format)
{
  static const struct
  {
    const char     *ext;
    KubusPlotFormat format;
  } map[] = { { ".png", KUBUS_PLOT_PNG }, { ".svg", KUBUS_PLOT_SVG }, { ".pdf", KUBUS_PLOT_PDF } };
  g_autofree char *lower = g_ascii_strdown (path, -1);

  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (g_str_has_suffix (lower, map[i].ext))
      {
        *format = map[i].format;
        return TRUE;
      }
  return FALSE;
}

gboolean
kubus_scalability_plot_export (const char               *path,
                               KubusPlotFormat           format,
                               int                       width,
                               int                       height,
                               const KubusScalingResult *r,
                               const guint              *sites,
                               guint                     n_sites,
                               GError                  **error)
{
  g_autofree char *tmp = g_strdup_printf ("%s.XXXXXX", path);
  cairo_surface_t *surface;
  cairo_status_t   status;
  cairo_t         *cr;
  int              fd;

  g_return_val_if_fail (width > 0 && height > 0, FALSE);
  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      int err = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
                   _ ("%s: cannot write the plot: %s"), path, g_strerror (err));
      return FALSE;
    }
  close (fd);
  switch (format)
    {
    case KUBUS_PLOT_SVG:
      surface = cairo_svg_surface_create (tmp, width, height);
      break;
    case KUBUS_PLOT_PDF:
      surface = cairo_pdf_surface_create (tmp, width, height);
      break;
    case KUBUS_PLOT_PNG:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
      break;
    }
  cr = cairo_create (surface);
  kubus_scalability_plot_draw (cr, width, height, r, sites, n_sites);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == KUBUS_PLOT_PNG)
    status = cairo_surface_write_to_png (surface, tmp);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_unlink (tmp);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _ ("%s: cannot write the plot: %s"),
                   path, cairo_status_to_string (status));
      return FALSE;
    }
  if (g_rename (tmp, path) != 0)
    {
      int err = errno;
      g_unlink (tmp);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
                   _ ("%s: cannot write the plot: %s"), path, g_strerror (err));
      return FALSE;
    }
  return TRUE;
}
