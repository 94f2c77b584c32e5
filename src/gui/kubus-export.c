/* kubus-export.c — see kubus-export.h. */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>

#include "kubus-export.h"

gboolean
kubus_export_format_from_path (const char        *path,
                               KubusExportFormat *format)
{
  g_autofree char *lower = path != NULL ? g_ascii_strdown (path, -1) : NULL;

  if (lower == NULL)
    return FALSE;
  if (g_str_has_suffix (lower, ".png"))
    *format = KUBUS_EXPORT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = KUBUS_EXPORT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = KUBUS_EXPORT_PDF;
  else
    return FALSE;
  return TRUE;
}

static gboolean
surface_failed (cairo_surface_t *surface,
                const char      *path,
                GError         **error)
{
  cairo_status_t status = cairo_surface_status (surface);

  if (status == CAIRO_STATUS_SUCCESS)
    return FALSE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write %s: %s"), path,
               cairo_status_to_string (status));
  return TRUE;
}

gboolean
kubus_export_to_file (const char            *path,
                      KubusExportFormat      format,
                      int                    width,
                      int                    height,
                      KubusExportRenderFunc  render,
                      gpointer               user_data,
                      GError               **error)
{
  g_autofree char *tmp = NULL;
  cairo_surface_t *surface;
  cairo_t *cr;
  gboolean failed;

  g_return_val_if_fail (path != NULL && render != NULL, FALSE);
  if (width <= 0 || height <= 0 || width > 20000 || height > 20000)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot write %s: a size of %d × %d is not possible"), path, width, height);
      return FALSE;
    }
  /* Next to the target, so that the rename stays on one file system. */
  tmp = g_strdup_printf ("%s.tmp-%d", path, (int) getpid ());
  switch (format)
    {
    case KUBUS_EXPORT_SVG:
      surface = cairo_svg_surface_create (tmp, width, height);
      break;
    case KUBUS_EXPORT_PDF:
      surface = cairo_pdf_surface_create (tmp, width, height);
      break;
    case KUBUS_EXPORT_PNG:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
      break;
    }
  if (surface_failed (surface, path, error))
    {
      cairo_surface_destroy (surface);
      g_unlink (tmp);
      return FALSE;
    }
  cr = cairo_create (surface);
  render (cr, width, height, user_data);
  cairo_destroy (cr);
  if (format == KUBUS_EXPORT_PNG)
    {
      cairo_status_t status = cairo_surface_write_to_png (surface, tmp);
      failed = status != CAIRO_STATUS_SUCCESS;
      if (failed)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write %s: %s"), path,
                     cairo_status_to_string (status));
    }
  else
    {
      cairo_surface_finish (surface);   /* writes the rest of the file */
      failed = surface_failed (surface, path, error);
    }
  cairo_surface_destroy (surface);
  if (failed)
    {
      g_unlink (tmp);
      return FALSE;
    }
  if (g_rename (tmp, path) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"),
                   path, g_strerror (saved));
      g_unlink (tmp);
      return FALSE;
    }
  return TRUE;
}

/* ---- render nodes as vectors ------------------------------------------------------------------ */

/* gsk_render_node_draw handles a whole tree, but a few node kinds (the shadows of windows and
 * buttons, the colour matrix of symbolic icons) make cairo's SVG and PDF surfaces fall back to
 * one 300 dpi image of the whole page. Walking the tree ourselves keeps containers, transforms,
 * clips, text, colours, borders and gradients as vectors and turns only those nodes into small
 * images of their own bounds. */
static void draw_node (cairo_t *cr, GskRenderNode *node);

static void
rounded_rect_path (cairo_t              *cr,
                   const GskRoundedRect *r)
{
  const graphene_rect_t *b = &r->bounds;
  /* corners: top-left, top-right, bottom-right, bottom-left */
  const graphene_point_t c[4] = { { b->origin.x, b->origin.y },
                                  { b->origin.x + b->size.width, b->origin.y },
                                  { b->origin.x + b->size.width, b->origin.y + b->size.height },
                                  { b->origin.x, b->origin.y + b->size.height } };
  const double start[4] = { G_PI, 1.5 * G_PI, 0, 0.5 * G_PI };
  const int sx[4] = { 1, -1, -1, 1 }, sy[4] = { 1, 1, -1, -1 };

  cairo_new_sub_path (cr);
  for (int i = 0; i < 4; i++)
    {
      double w = r->corner[i].width, h = r->corner[i].height;

      if (w <= 0 || h <= 0)
        {
          cairo_line_to (cr, c[i].x, c[i].y);
          continue;
        }
      cairo_save (cr);
      cairo_translate (cr, c[i].x + sx[i] * w, c[i].y + sy[i] * h);
      cairo_scale (cr, w, h);
      cairo_arc (cr, 0, 0, 1, start[i], start[i] + 0.5 * G_PI);
      cairo_restore (cr);
    }
  cairo_close_path (cr);
}

/* A border whose sides differ in colour: GSK draws it with a mesh pattern, which cairo's SVG
 * surface cannot express. With square corners (the trees' severity squares) the four sides
 * are four trapezoids. FALSE for rounded corners. */
static gboolean
draw_border (cairo_t       *cr,
             GskRenderNode *node)
{
  const GskRoundedRect *outline = gsk_border_node_get_outline (node);
  const float *w = gsk_border_node_get_widths (node);       /* top, right, bottom, left */
  const GdkRGBA *c = gsk_border_node_get_colors (node);
  const graphene_rect_t *b = &outline->bounds;
  double x0 = b->origin.x, y0 = b->origin.y, x1 = x0 + b->size.width, y1 = y0 + b->size.height;
  double ix0 = x0 + w[3], iy0 = y0 + w[0], ix1 = x1 - w[1], iy1 = y1 - w[2];
  const double side[4][8] = {
    { x0, y0, x1, y0, ix1, iy0, ix0, iy0 },
    { x1, y0, x1, y1, ix1, iy1, ix1, iy0 },
    { x1, y1, x0, y1, ix0, iy1, ix1, iy1 },
    { x0, y1, x0, y0, ix0, iy0, ix0, iy1 },
  };

  if (gdk_rgba_equal (&c[0], &c[1]) && gdk_rgba_equal (&c[0], &c[2]) && gdk_rgba_equal (&c[0], &c[3]))
    {
      gsk_render_node_draw (node, cr);   /* one colour: an even-odd path, a vector */
      return TRUE;
    }
  for (int i = 0; i < 4; i++)
    if (outline->corner[i].width > 0 || outline->corner[i].height > 0)
      return FALSE;
  cairo_save (cr);
  for (int i = 0; i < 4; i++)
    {
      if (w[i] <= 0 || c[i].alpha <= 0)
        continue;
      gdk_cairo_set_source_rgba (cr, &c[i]);
      cairo_move_to (cr, side[i][0], side[i][1]);
      for (int k = 2; k < 8; k += 2)
        cairo_line_to (cr, side[i][k], side[i][k + 1]);
      cairo_close_path (cr);
      cairo_fill (cr);
    }
  cairo_restore (cr);
  return TRUE;
}

/* @node drawn into an image of its bounds at the surface's resolution, then painted. */
static void
draw_as_image (cairo_t       *cr,
               GskRenderNode *node)
{
  graphene_rect_t b;
  double sx = 1, sy = 1;
  int w, h;
  cairo_surface_t *image;
  cairo_t *icr;

  gsk_render_node_get_bounds (node, &b);
  cairo_user_to_device_distance (cr, &sx, &sy);
  sx = CLAMP (fabs (sx), 1, 4);   /* at least the pixels of the screen, at most 4 × */
  sy = CLAMP (fabs (sy), 1, 4);
  w = (int) ceil (b.size.width * sx);
  h = (int) ceil (b.size.height * sy);
  if (w <= 0 || h <= 0 || w > 8192 || h > 8192)
    return;
  image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  icr = cairo_create (image);
  cairo_scale (icr, sx, sy);
  cairo_translate (icr, -b.origin.x, -b.origin.y);
  gsk_render_node_draw (node, icr);
  cairo_destroy (icr);
  cairo_save (cr);
  cairo_translate (cr, b.origin.x, b.origin.y);
  cairo_scale (cr, 1 / sx, 1 / sy);
  cairo_set_source_surface (cr, image, 0, 0);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (image);
}

static void
draw_node (cairo_t       *cr,
           GskRenderNode *node)
{
  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        draw_node (cr, gsk_container_node_get_child (node, i));
      return;
    case GSK_DEBUG_NODE:
      draw_node (cr, gsk_debug_node_get_child (node));
      return;
    case GSK_TRANSFORM_NODE:
      {
        GskTransform *t = gsk_transform_node_get_transform (node);
        float xx, yx, xy, yy, dx, dy;
        cairo_matrix_t m;

        if (gsk_transform_get_category (t) < GSK_TRANSFORM_CATEGORY_2D)
          break;
        gsk_transform_to_2d (t, &xx, &yx, &xy, &yy, &dx, &dy);
        cairo_matrix_init (&m, xx, yx, xy, yy, dx, dy);
        cairo_save (cr);
        cairo_transform (cr, &m);
        draw_node (cr, gsk_transform_node_get_child (node));
        cairo_restore (cr);
        return;
      }
    case GSK_CLIP_NODE:
      {
        const graphene_rect_t *clip = gsk_clip_node_get_clip (node);

        cairo_save (cr);
        cairo_rectangle (cr, clip->origin.x, clip->origin.y, clip->size.width, clip->size.height);
        cairo_clip (cr);
        draw_node (cr, gsk_clip_node_get_child (node));
        cairo_restore (cr);
        return;
      }
    case GSK_ROUNDED_CLIP_NODE:
      cairo_save (cr);
      rounded_rect_path (cr, gsk_rounded_clip_node_get_clip (node));
      cairo_clip (cr);
      draw_node (cr, gsk_rounded_clip_node_get_child (node));
      cairo_restore (cr);
      return;
    case GSK_OPACITY_NODE:
      cairo_push_group (cr);
      draw_node (cr, gsk_opacity_node_get_child (node));
      cairo_pop_group_to_source (cr);
      cairo_paint_with_alpha (cr, gsk_opacity_node_get_opacity (node));
      return;
    case GSK_BORDER_NODE:
      if (draw_border (cr, node))
        return;
      break;
    case GSK_OUTSET_SHADOW_NODE:
    case GSK_INSET_SHADOW_NODE:
      {
        graphene_rect_t b;

        /* The window's drop shadow and its inner highlight: window-sized images for barely
         * visible decorations. Small shadows (buttons) stay. */
        gsk_render_node_get_bounds (node, &b);
        if (b.size.width * b.size.height > 300 * 300)
          return;
        break;
      }
    case GSK_COLOR_NODE:
    case GSK_LINEAR_GRADIENT_NODE:
    case GSK_TEXT_NODE:
    case GSK_TEXTURE_NODE:
    case GSK_CAIRO_NODE:
      gsk_render_node_draw (node, cr);
      return;
    default:
      break;
    }
  draw_as_image (cr, node);
}

void
kubus_export_render_widget (cairo_t  *cr,
                            int       width,
                            int       height,
                            gpointer  user_data)
{
  GtkWidget *widget = user_data;
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GtkSnapshot) snapshot = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  double scale;
  GdkRGBA background = { 1, 1, 1, 1 };

  cairo_save (cr);
  /* The window's own background colour: a pane alone has none and would come out
   * transparent (a black PNG in some viewers). */
  {
    GtkStyleContext *context = gtk_widget_get_style_context (GTK_WIDGET (gtk_widget_get_root (widget)));
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GdkRGBA bg;
    if (gtk_style_context_lookup_color (context, "theme_bg_color", &bg) && bg.alpha > 0)
      background = bg;
    G_GNUC_END_IGNORE_DEPRECATIONS
  }
  gdk_cairo_set_source_rgba (cr, &background);
  cairo_paint (cr);
  if (w <= 0 || h <= 0)
    {
      cairo_restore (cr);
      return;
    }
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  scale = MIN ((double) width / w, (double) height / h);
  cairo_translate (cr, (width - w * scale) / 2, (height - h * scale) / 2);
  cairo_scale (cr, scale, scale);
  cairo_rectangle (cr, 0, 0, w, h);
  cairo_clip (cr);
  /* Pixels need no care for vectors: GSK's own cairo drawing, shadows and all. */
  if (node != NULL && cairo_surface_get_type (cairo_get_target (cr)) == CAIRO_SURFACE_TYPE_IMAGE)
    gsk_render_node_draw (node, cr);
  else if (node != NULL)
    draw_node (cr, node);
  cairo_restore (cr);
}
