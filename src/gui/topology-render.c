/* topology-render.c — see topology-render.h. */
#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "topology-render.h"

#define TITLE_HEIGHT   44.0
#define LEGEND_HEIGHT  60.0
#define SIDE_MARGIN    64.0
#define LABEL_GAP      10.0
#define WRAP_BULGE     12.0
#define MIN_LINE_CELL  3.0   /* cells thinner than this many pixels get no border lines */

/* Background = the colour of zero cells. */
static const double background[3] = { 1.0, 1.0, 1.0 };

struct _TopoScene
{
  TopoGrid        *grid;
  char            *message;
  TopoSettings     settings;
  KubusColorScale  scale;
  double           low_max_abs;
  gboolean         low_signed;
  double           insignificant;
  char            *title;
  char            *subtitle;
  char            *caption;
  TopoFormatFunc   format;
  gpointer         format_data;
  char            *font;
  GArray          *selection;      /* gint64 cells */
  gint64           hover;

  /* caches */
  gboolean         colours_valid;
  guint32         *argb;           /* per cell, premultiplied; 0 = empty */
  TopoStats        stats;
  TopoColourRange  range;
  gboolean         planes_valid;   /* shown planes, plane images, axis texts */
  gint64           nu, nv, n_grid_planes;
  GArray          *shown;          /* gint64 grid plane per shown position */
  gint64          *shown_pos;      /* per grid plane: its shown position or -1 */
  gboolean        *plane_empty;    /* per grid plane: has empty cells */
  cairo_surface_t **images;        /* per grid plane, NULL until drawn */
  char            *axis_text[3];   /* per layout axis (NULL: no dimension) */
  gboolean         axis_periodic[3];
  char            *slice_text;
  cairo_pattern_t *hatch;
  cairo_surface_t *line_tile;      /* one cell's border lines, at the cell's screen size */
  int              line_tile_w, line_tile_h;
  TopoLineStyle    line_tile_style;
  double           canvas_width;   /* of the render in progress */
  double           canvas_height;
  GArray          *label_boxes;    /* TopoRect of every text the last render drew */
};

void
topo_settings_init_default (TopoSettings *settings,
                            guint         n_planes)
{
  memset (settings, 0, sizeof *settings);
  topo_camera_init_default (&settings->camera, n_planes);
  settings->stacking = TOPO_STACK_Z;
  settings->lines = TOPO_LINES_GREY;
  settings->hide_empty = FALSE;
  settings->high_resolution = FALSE;
}

TopoScene *
topo_scene_new (void)
{
  TopoScene *scene = g_new0 (TopoScene, 1);

  topo_settings_init_default (&scene->settings, 1);
  scene->scale = KUBUS_SCALE_RAINBOW;
  scene->insignificant = 0.01;
  scene->font = g_strdup ("Sans 9");
  scene->selection = g_array_new (FALSE, FALSE, sizeof (gint64));
  scene->shown = g_array_new (FALSE, FALSE, sizeof (gint64));
  scene->hover = -1;
  return scene;
}

static void
drop_planes (TopoScene *scene)
{
  if (scene->images != NULL)
    for (gint64 i = 0; i < scene->n_grid_planes; i++)
      g_clear_pointer (&scene->images[i], cairo_surface_destroy);
  g_clear_pointer (&scene->images, g_free);
  g_clear_pointer (&scene->shown_pos, g_free);
  g_clear_pointer (&scene->plane_empty, g_free);
  for (int a = 0; a < 3; a++)
    g_clear_pointer (&scene->axis_text[a], g_free);
  g_clear_pointer (&scene->slice_text, g_free);
  g_array_set_size (scene->shown, 0);
  scene->planes_valid = FALSE;
}

void
topo_scene_free (TopoScene *scene)
{
  if (scene == NULL)
    return;
  drop_planes (scene);
  g_free (scene->argb);
  g_free (scene->message);
  g_free (scene->title);
  g_free (scene->subtitle);
  g_free (scene->caption);
  g_free (scene->font);
  g_array_unref (scene->selection);
  g_array_unref (scene->shown);
  g_clear_pointer (&scene->hatch, cairo_pattern_destroy);
  g_clear_pointer (&scene->line_tile, cairo_surface_destroy);
  g_free (scene);
}

void
topo_scene_set_grid (TopoScene *scene,
                     TopoGrid  *grid)
{
  drop_planes (scene);
  g_clear_pointer (&scene->argb, g_free);
  scene->grid = grid;
  scene->colours_valid = FALSE;
  g_array_set_size (scene->selection, 0);
  scene->hover = -1;
}

TopoGrid *
topo_scene_get_grid (TopoScene *scene)
{
  return scene->grid;
}

void
topo_scene_set_message (TopoScene  *scene,
                        const char *message)
{
  g_free (scene->message);
  scene->message = g_strdup (message);
}

void
topo_scene_set_settings (TopoScene          *scene,
                         const TopoSettings *settings)
{
  gboolean planes = settings->stacking != scene->settings.stacking
                    || settings->hide_empty != scene->settings.hide_empty;
  gboolean colours = settings->high_resolution != scene->settings.high_resolution;

  scene->settings = *settings;
  scene->settings.camera.pitch = CLAMP (scene->settings.camera.pitch, -90.0, 90.0);
  scene->settings.camera.distance = CLAMP (scene->settings.camera.distance, 0.0, 4.0);
  if (!(scene->settings.camera.zoom > 0))
    scene->settings.camera.zoom = 1.0;
  if ((guint) scene->settings.lines >= TOPO_N_LINE_STYLES)
    scene->settings.lines = TOPO_LINES_GREY;
  if ((guint) scene->settings.stacking >= TOPO_N_STACKINGS)
    scene->settings.stacking = TOPO_STACK_Z;
  if (planes)
    drop_planes (scene);
  if (colours)
    {
      scene->colours_valid = FALSE;
      drop_planes (scene);
    }
}

const TopoSettings *
topo_scene_get_settings (TopoScene *scene)
{
  return &scene->settings;
}

void
topo_scene_set_scale (TopoScene       *scene,
                      KubusColorScale  scale,
                      double           max_abs,
                      gboolean         is_signed,
                      double           insignificant)
{
  scene->scale = scale;
  scene->low_max_abs = max_abs;
  scene->low_signed = is_signed;
  scene->insignificant = insignificant;
  scene->colours_valid = FALSE;
  drop_planes (scene);
}

void
topo_scene_values_changed (TopoScene *scene)
{
  scene->colours_valid = FALSE;
  drop_planes (scene);
}

void
topo_scene_set_texts (TopoScene      *scene,
                      const char     *title,
                      const char     *subtitle,
                      const char     *caption,
                      TopoFormatFunc  format,
                      gpointer        format_data)
{
  g_free (scene->title);
  g_free (scene->subtitle);
  g_free (scene->caption);
  scene->title = g_strdup (title);
  scene->subtitle = g_strdup (subtitle);
  scene->caption = g_strdup (caption);
  scene->format = format;
  scene->format_data = format_data;
}

const char *
topo_scene_get_title (const TopoScene *scene)
{
  return scene->title;
}

void
topo_scene_set_font (TopoScene  *scene,
                     const char *font)
{
  g_free (scene->font);
  scene->font = g_strdup (font != NULL ? font : "Sans 9");
}

void
topo_scene_set_selection (TopoScene    *scene,
                          const gint64 *cells,
                          guint         n_cells)
{
  g_array_set_size (scene->selection, 0);
  if (n_cells > 0)
    g_array_append_vals (scene->selection, cells, n_cells);
}

void
topo_scene_set_hover (TopoScene *scene,
                      gint64     cell)
{
  scene->hover = cell;
}

/* ---- caches ------------------------------------------------------------------------------ */

static guint32
pack_rgb (double r,
          double g,
          double b)
{
  return 0xff000000u | ((guint32) lround (r * 255) << 16) | ((guint32) lround (g * 255) << 8)
         | (guint32) lround (b * 255);
}

static void
ensure_colours (TopoScene *scene)
{
  TopoGrid *grid = scene->grid;
  gboolean is_signed;

  if (scene->colours_valid || grid == NULL)
    return;
  topo_stats_compute (grid->values, grid->has_location, grid->n_cells, &scene->stats);
  is_signed = scene->low_signed || scene->stats.min < 0;
  if (scene->settings.high_resolution)
    topo_colour_range_high (&scene->range, &scene->stats, is_signed);
  else
    topo_colour_range_low (&scene->range, scene->low_max_abs, scene->low_signed,
                           scene->insignificant);
  g_free (scene->argb);
  scene->argb = g_new (guint32, MAX (grid->n_cells, 1));
  for (gint64 c = 0; c < grid->n_cells; c++)
    {
      double f;
      gboolean lighten;
      GdkRGBA rgba;

      switch (topo_colour_classify (&scene->range, grid->has_location[c], grid->values[c], &f, &lighten))
        {
        case TOPO_CELL_EMPTY:
          scene->argb[c] = 0;
          break;
        case TOPO_CELL_ZERO:
          scene->argb[c] = pack_rgb (background[0], background[1], background[2]);
          break;
        case TOPO_CELL_VALUE:
        default:
          if (!kubus_severity_color (scene->scale, scene->range.is_signed, f, lighten, &rgba))
            rgba.red = background[0], rgba.green = background[1], rgba.blue = background[2];
          scene->argb[c] = pack_rgb (rgba.red, rgba.green, rgba.blue);
          break;
        }
    }
  scene->colours_valid = TRUE;
}

/* "x: name (size)" or "x: name (size, periodic)"; a folded axis "x: a × b × c (2 × 2 × 16)"
 * and its periodic dimensions after it. @wraps: the axis's outermost dimension is periodic,
 * i.e. its last block continues with its first. */
static char *
axis_text (TopoScene *scene,
           TopoAxis   axis,
           gboolean  *wraps)
{
  TopoGrid *grid = scene->grid;
  g_autofree guint *dims = g_new (guint, MAX (grid->layout->ndims, 1));
  g_autoptr (GString) periodic = g_string_new (NULL);
  guint n;
  GString *s;

  *wraps = FALSE;
  n = topo_layout_axis_dims (grid->layout, axis, dims);
  if (n == 0)
    return NULL;
  s = g_string_new (NULL);
  g_string_append_printf (s, "%c: ", "xyz"[axis]);
  if (n == 1)
    {
      const CubeCartDim *dim = &grid->cart->dims[dims[0]];
      g_autofree char *name = topo_grid_dim_name (grid, dims[0]);

      if (dim->periodic)
        /* TRANSLATORS: a dimension of a Cartesian topology: name (size, periodic) */
        g_string_append_printf (s, _("%s (%lld, periodic)"), name, (long long) dim->size);
      else
        g_string_append_printf (s, "%s (%lld)", name, (long long) dim->size);
      *wraps = dim->periodic;
      return g_string_free (s, FALSE);
    }
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = topo_grid_dim_name (grid, dims[i]);
      g_string_append_printf (s, "%s%s", i > 0 ? " × " : "", name);
      if (grid->cart->dims[dims[i]].periodic)
        g_string_append_printf (periodic, "%s%s", periodic->len > 0 ? ", " : "", name);
    }
  g_string_append (s, " (");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%lld", i > 0 ? "×" : "", (long long) grid->cart->dims[dims[i]].size);
  g_string_append_c (s, ')');
  if (periodic->len > 0)
    /* TRANSLATORS: after a folded axis: which of its dimensions are periodic */
    g_string_append_printf (s, _("; periodic: %s"), periodic->str);
  *wraps = grid->cart->dims[dims[0]].periodic;
  return g_string_free (s, FALSE);
}

static void
ensure_planes (TopoScene *scene)
{
  TopoGrid *grid = scene->grid;
  TopoStacking st = scene->settings.stacking;
  guint stack_axis = st == TOPO_STACK_Z ? 2 : st == TOPO_STACK_Y ? 1 : 0;

  if (scene->planes_valid || grid == NULL)
    return;
  drop_planes (scene);
  topo_stacking_plane_size (st, grid->layout->extent, &scene->nu, &scene->nv, &scene->n_grid_planes);
  scene->shown_pos = g_new (gint64, scene->n_grid_planes);
  scene->plane_empty = g_new0 (gboolean, scene->n_grid_planes);
  scene->images = g_new0 (cairo_surface_t *, scene->n_grid_planes);
  for (gint64 p = 0; p < scene->n_grid_planes; p++)
    {
      gint64 count = topo_grid_plane_count (grid, stack_axis, p);
      scene->plane_empty[p] = count < scene->nu * scene->nv;
      scene->shown_pos[p] = -1;
      if (count > 0 || !scene->settings.hide_empty)
        {
          scene->shown_pos[p] = scene->shown->len;
          g_array_append_val (scene->shown, p);
        }
    }
  if (scene->shown->len == 0)
    for (gint64 p = 0; p < scene->n_grid_planes; p++)
      {
        scene->shown_pos[p] = p;   /* nothing located at all: show the empty grid */
        g_array_append_val (scene->shown, p);
      }
  for (int a = 0; a < 3; a++)
    scene->axis_text[a] = axis_text (scene, (TopoAxis) a, &scene->axis_periodic[a]);
  {
    GString *s = g_string_new (NULL);
    for (guint d = 0; d < grid->layout->ndims; d++)
      if (grid->layout->axis[d] == TOPO_AXIS_SLICE)
        {
          g_autofree char *name = topo_grid_dim_name (grid, d);
          g_string_append_printf (s, "%s%s = %lld", s->len > 0 ? ", " : "", name,
                                  (long long) grid->layout->slice[d]);
        }
    scene->slice_text = g_string_free (s, s->len == 0);
  }
  scene->planes_valid = TRUE;
}

static cairo_surface_t *
plane_image (TopoScene *scene,
             gint64     plane)
{
  cairo_surface_t *img = scene->images[plane];
  guchar *data;
  int stride;

  if (img != NULL)
    return img;
  img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) scene->nu, (int) scene->nv);
  cairo_surface_flush (img);
  data = cairo_image_surface_get_data (img);
  stride = cairo_image_surface_get_stride (img);
  for (gint64 v = 0; v < scene->nv; v++)
    {
      guint32 *row = (guint32 *) (data + v * stride);
      for (gint64 u = 0; u < scene->nu; u++)
        {
          gint64 xyz[3];
          topo_stacking_to_xyz (scene->settings.stacking, u, v, plane, xyz);
          row[u] = scene->argb[topo_layout_cell_index (scene->grid->layout, xyz)];
        }
    }
  cairo_surface_mark_dirty (img);
  scene->images[plane] = img;
  return img;
}

static cairo_pattern_t *
hatch_pattern (TopoScene *scene)
{
  if (scene->hatch == NULL)
    {
      cairo_surface_t *tile = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 6, 6);
      cairo_t *cr = cairo_create (tile);

      cairo_set_source_rgb (cr, 0.90, 0.90, 0.90);
      cairo_paint (cr);
      cairo_set_source_rgb (cr, 0.62, 0.62, 0.62);
      cairo_set_line_width (cr, 1.0);
      cairo_move_to (cr, -1, 7);
      cairo_line_to (cr, 7, -1);
      cairo_move_to (cr, -1, 1);
      cairo_line_to (cr, 1, -1);
      cairo_move_to (cr, 5, 7);
      cairo_line_to (cr, 7, 5);
      cairo_stroke (cr);
      cairo_destroy (cr);
      scene->hatch = cairo_pattern_create_for_surface (tile);
      cairo_pattern_set_extend (scene->hatch, CAIRO_EXTEND_REPEAT);
      cairo_surface_destroy (tile);
    }
  return scene->hatch;
}

/* ---- geometry ---------------------------------------------------------------------------- */

typedef struct
{
  double x, y, width, height;
} Rect;

static PangoLayout *new_layout (TopoScene *scene, cairo_t *cr, const char *text, gboolean bold);

/* A scratch context to measure text with, as rendering will draw it (96 dpi). */
static cairo_t *
measure_context (void)
{
  cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_A8, 1, 1);
  cairo_t *cr = cairo_create (scratch);

  cairo_surface_destroy (scratch);
  return cr;
}

/* @text's size in pixels, wrapped at @wrap_width (≤ 0: not wrapped). */
static void
text_size (TopoScene  *scene,
           cairo_t    *cr,
           const char *text,
           gboolean    bold,
           double      wrap_width,
           int        *w,
           int        *h)
{
  PangoLayout *layout = new_layout (scene, cr, text != NULL ? text : "", bold);

  if (wrap_width > 0)
    {
      pango_layout_set_width (layout, (int) (wrap_width * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
    }
  pango_layout_get_pixel_size (layout, w, h);
  g_object_unref (layout);
}

/* "y: B × E × HWThrd (2×2×4)" as two lines, "y: B × E × HWThrd" and "(2×2×4)": axis labels
 * in a side margin. New string. */
static char *
two_lines (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, " (", 2);

  return parts[1] != NULL ? g_strdup_printf ("%s\n(%s", parts[0], parts[1]) : g_strdup (text);
}

static char *second_title_line (TopoScene *scene);

static void
axis_roles (TopoScene *scene,
            TopoAxis  *u,
            TopoAxis  *v,
            TopoAxis  *p)
{
  static const TopoAxis u_axis[TOPO_N_STACKINGS] = { TOPO_AXIS_X, TOPO_AXIS_X, TOPO_AXIS_Y };
  static const TopoAxis v_axis[TOPO_N_STACKINGS] = { TOPO_AXIS_Y, TOPO_AXIS_Z, TOPO_AXIS_Z };
  static const TopoAxis p_axis[TOPO_N_STACKINGS] = { TOPO_AXIS_Z, TOPO_AXIS_Y, TOPO_AXIS_X };

  *u = u_axis[scene->settings.stacking];
  *v = v_axis[scene->settings.stacking];
  *p = p_axis[scene->settings.stacking];
}

/* Where everything goes (issue 24, item 8): the title band on top (its lines wrapped, never
 * cut), the legend band at the bottom, the y label in a left margin, the x label in a bottom
 * margin, the stacking axis in a right margin, and the planes in what is left. The planes are
 * clipped to their rectangle, zoomed or not, so nothing is drawn over a label. */
void
topo_scene_get_layout (TopoScene  *scene,
                       double      width,
                       double      height,
                       TopoViewLayout *l)
{
  cairo_t *cr = measure_context ();
  TopoAxis u, v, p;
  int w1 = 0, h1 = 0, w2 = 0, h2 = 0, w = 0, h = 0;
  double avail = MAX (width - 16, 40), left, right, bottom, legend;
  g_autofree char *second = NULL;

  memset (l, 0, sizeof *l);
  ensure_planes (scene);
  axis_roles (scene, &u, &v, &p);
  /* title: the title and the subtitle on one line if they fit, the slice line below; wrapped */
  text_size (scene, cr, scene->title, TRUE, avail, &w1, &h1);
  text_size (scene, cr, scene->subtitle, FALSE, 0, &w2, &h2);
  if (scene->subtitle != NULL && w1 + 12 + w2 > avail)
    {
      text_size (scene, cr, scene->subtitle, FALSE, avail, &w2, &h2);
      h1 += h2;
    }
  second = second_title_line (scene);
  if (second != NULL)
    {
      text_size (scene, cr, second, FALSE, avail, &w, &h);
      h1 += h + 2;
    }
  l->title = (TopoRect) { 0, 0, width, MIN (6 + h1 + 6, height / 3) };
  legend = MIN (LEGEND_HEIGHT, height / 4);
  l->legend = (TopoRect) { 0, height - legend, width, legend };
  /* the y label left of the planes, two lines, at most a quarter of the width */
  left = 8;
  if (scene->grid != NULL && scene->axis_text[v] != NULL)
    {
      g_autofree char *text = two_lines (scene->axis_text[v]);
      text_size (scene, cr, text, FALSE, width / 4, &w, &h);
      left = MIN (w, width / 4) + 12 + (scene->axis_periodic[v] ? WRAP_BULGE : 0);
    }
  /* the stacking axis right of them: its name and the plane indices ("z=10") */
  right = 8;
  if (scene->grid != NULL && scene->axis_text[p] != NULL)
    {
      g_autofree char *index = g_strdup_printf ("%c=%lld", "xyz"[p], (long long) MAX (scene->n_grid_planes - 1, 0));
      int wi = 0, hi = 0;

      text_size (scene, cr, scene->axis_text[p], FALSE, width / 5, &w, &h);
      text_size (scene, cr, index, FALSE, 0, &wi, &hi);
      right = MIN (MAX (w, wi + 10), width / 5) + 12 + (scene->axis_periodic[p] ? WRAP_BULGE : 0);
      l->right_title_height = h;
    }
  /* the x label below them, on up to two lines */
  bottom = 8;
  if (scene->grid != NULL && scene->axis_text[u] != NULL)
    {
      text_size (scene, cr, scene->axis_text[u], FALSE, MAX (width - left - right, 40), &w, &h);
      bottom = h + 10 + (scene->axis_periodic[u] ? WRAP_BULGE : 0);
    }
  l->grid.x = left;
  l->grid.y = l->title.height + 4;
  l->grid.width = MAX (width - left - right, 1);
  l->grid.height = MAX (height - l->title.height - 4 - bottom - legend, 1);
  l->left = (TopoRect) { 0, l->grid.y, left, l->grid.height + bottom };
  l->bottom = (TopoRect) { left, l->grid.y + l->grid.height, l->grid.width, bottom };
  l->right = (TopoRect) { left + l->grid.width, l->grid.y, right, l->grid.height + bottom };
  cairo_destroy (cr);
}

/* The planes' area inside the grid rectangle: a little room for the wrap-around marks. */
static void
plane_area (TopoScene *scene,
            double     width,
            double     height,
            Rect      *area)
{
  TopoViewLayout l;
  double inset;

  topo_scene_get_layout (scene, width, height, &l);
  inset = MIN (WRAP_BULGE + 4, MIN (l.grid.width, l.grid.height) / 8);
  area->x = l.grid.x + inset;
  area->y = l.grid.y + inset;
  area->width = MAX (l.grid.width - 2 * inset, 1);
  area->height = MAX (l.grid.height - 2 * inset, 1);
}

void
topo_scene_get_projection (TopoScene      *scene,
                           double          width,
                           double          height,
                           TopoProjection *proj)
{
  Rect area;

  ensure_planes (scene);
  plane_area (scene, width, height, &area);
  topo_projection_init (proj, scene->nu, scene->nv, MAX (scene->shown->len, 1),
                        &scene->settings.camera, area.x, area.y, area.width, area.height);
}

void
topo_scene_zoom_at (TopoScene *scene,
                    double     width,
                    double     height,
                    double     x,
                    double     y,
                    double     factor)
{
  TopoCamera *cam = &scene->settings.camera;
  double zoom = CLAMP (cam->zoom * factor, 0.05, 200.0);
  Rect area;
  double cx, cy;

  plane_area (scene, width, height, &area);
  cx = area.x + area.width / 2;
  cy = area.y + area.height / 2;
  factor = zoom / cam->zoom;
  /* screen = centre + pan + zoom · m: keep (x, y) where it is. */
  cam->pan_x = x - cx - factor * (x - cx - cam->pan_x);
  cam->pan_y = y - cy - factor * (y - cy - cam->pan_y);
  cam->zoom = zoom;
}

static gboolean
cell_plane_uv (TopoScene *scene,
               gint64     cell,
               gint64    *u,
               gint64    *v,
               gint64    *pos)
{
  gint64 xyz[3], plane;

  if (scene->grid == NULL || cell < 0 || cell >= scene->grid->n_cells)
    return FALSE;
  topo_layout_cell_xyz (scene->grid->layout, cell, xyz);
  topo_stacking_from_xyz (scene->settings.stacking, xyz, u, v, &plane);
  *pos = scene->shown_pos[plane];
  return *pos >= 0;
}

gboolean
topo_scene_pick (TopoScene *scene,
                 double     width,
                 double     height,
                 double     x,
                 double     y,
                 gint64    *cell)
{
  TopoProjection proj;
  gint64 u, v, xyz[3];
  guint pos;

  if (scene->grid == NULL || scene->message != NULL)
    return FALSE;
  {
    /* what the margins cover is not picked: the planes are drawn only inside their rectangle */
    TopoViewLayout l;
    topo_scene_get_layout (scene, width, height, &l);
    if (x < l.grid.x || y < l.grid.y || x >= l.grid.x + l.grid.width || y >= l.grid.y + l.grid.height)
      return FALSE;
  }
  topo_scene_get_projection (scene, width, height, &proj);
  if (!topo_projection_pick (&proj, x, y, &u, &v, &pos))
    return FALSE;
  topo_stacking_to_xyz (scene->settings.stacking, u, v,
                        g_array_index (scene->shown, gint64, pos), xyz);
  *cell = topo_layout_cell_index (scene->grid->layout, xyz);
  return TRUE;
}

gboolean
topo_scene_cell_center (TopoScene *scene,
                        double     width,
                        double     height,
                        gint64     cell,
                        double    *x,
                        double    *y)
{
  TopoProjection proj;
  gint64 u, v, pos;

  topo_scene_get_projection (scene, width, height, &proj);
  if (!cell_plane_uv (scene, cell, &u, &v, &pos))
    return FALSE;
  topo_projection_point (&proj, u + 0.5, v + 0.5, pos, x, y);
  return TRUE;
}

const TopoStats *
topo_scene_get_stats (TopoScene *scene)
{
  ensure_colours (scene);
  return &scene->stats;
}

TopoCellClass
topo_scene_cell_color (TopoScene *scene,
                       gint64     cell,
                       double     rgb[3])
{
  guint32 p;

  ensure_colours (scene);
  rgb[0] = rgb[1] = rgb[2] = 0;
  if (scene->grid == NULL || cell < 0 || cell >= scene->grid->n_cells)
    return TOPO_CELL_EMPTY;
  p = scene->argb[cell];
  rgb[0] = ((p >> 16) & 0xff) / 255.0;
  rgb[1] = ((p >> 8) & 0xff) / 255.0;
  rgb[2] = (p & 0xff) / 255.0;
  if (!scene->grid->has_location[cell])
    return TOPO_CELL_EMPTY;
  if (scene->grid->values[cell] == 0.0 || isnan (scene->grid->values[cell]))
    return TOPO_CELL_ZERO;
  return TOPO_CELL_VALUE;
}

guint
topo_scene_get_shown_planes (TopoScene     *scene,
                             const gint64 **planes)
{
  ensure_planes (scene);
  *planes = (const gint64 *) scene->shown->data;
  return scene->shown->len;
}

/* ---- drawing ----------------------------------------------------------------------------- */

static void
quad_path (cairo_t              *cr,
           const TopoProjection *proj,
           double                u0,
           double                v0,
           double                u1,
           double                v1,
           double                p)
{
  double x, y;

  topo_projection_point (proj, u0, v0, p, &x, &y);
  cairo_move_to (cr, x, y);
  topo_projection_point (proj, u1, v0, p, &x, &y);
  cairo_line_to (cr, x, y);
  topo_projection_point (proj, u1, v1, p, &x, &y);
  cairo_line_to (cr, x, y);
  topo_projection_point (proj, u0, v1, p, &x, &y);
  cairo_line_to (cr, x, y);
  cairo_close_path (cr);
}

static gboolean
is_vector (cairo_t *cr)
{
  switch (cairo_surface_get_type (cairo_get_target (cr)))
    {
    case CAIRO_SURFACE_TYPE_PDF:
    case CAIRO_SURFACE_TYPE_PS:
    case CAIRO_SURFACE_TYPE_SVG:
      return TRUE;
    default:
      return FALSE;
    }
}

static void
set_argb (cairo_t *cr,
          guint32  p)
{
  cairo_set_source_rgb (cr, ((p >> 16) & 0xff) / 255.0, ((p >> 8) & 0xff) / 255.0,
                        (p & 0xff) / 255.0);
}

/* Vector output: cells as polygons, runs of one colour along a row merged. */
static void
draw_cells_vector (TopoScene            *scene,
                   cairo_t              *cr,
                   const TopoProjection *proj,
                   gint64                plane,
                   guint                 pos)
{
  for (gint64 v = 0; v < scene->nv; v++)
    {
      gint64 u = 0;
      while (u < scene->nu)
        {
          gint64 xyz[3], start = u;
          guint32 p;

          topo_stacking_to_xyz (scene->settings.stacking, u, v, plane, xyz);
          p = scene->argb[topo_layout_cell_index (scene->grid->layout, xyz)];
          for (u++; u < scene->nu; u++)
            {
              topo_stacking_to_xyz (scene->settings.stacking, u, v, plane, xyz);
              if (scene->argb[topo_layout_cell_index (scene->grid->layout, xyz)] != p)
                break;
            }
          if (p == 0)
            continue;
          quad_path (cr, proj, start, v, u, v + 1, pos);
          set_argb (cr, p);
          cairo_fill (cr);
        }
    }
}

static double
cell_thickness (const TopoProjection *proj)
{
  double det = fabs (proj->eu[0] * proj->ev[1] - proj->eu[1] * proj->ev[0]);
  double lu = hypot (proj->eu[0], proj->eu[1]), lv = hypot (proj->ev[0], proj->ev[1]);

  if (lu == 0 || lv == 0)
    return 0;
  return MIN (det / lu, det / lv);
}

/* What of a plane the viewer sees, in the plane's cell coordinates. Planes are opaque translates
 * of one parallelogram along a line, so whatever of a plane any nearer plane covers, the next
 * nearer one covers already (convexity). In cell coordinates that one is the rectangle
 * [0, nu] × [0, nv] moved by (−a, −b): what stays visible is a strip along u and one along v.
 * With many close planes this avoids nearly all overdraw and needs no clipping. */
typedef struct
{
  gboolean full;            /* nothing in front: everything */
  double   cover_u0, cover_u1, cover_v0, cover_v1;   /* the covered rectangle (clamped) */
} Visible;

static void
visible_part (const TopoProjection *proj,
              guint                 pos,
              guint                 n_shown,
              Visible              *vis)
{
  int next = proj->upper_nearer ? (int) pos + 1 : (int) pos - 1;
  double det = proj->eu[0] * proj->ev[1] - proj->eu[1] * proj->ev[0];
  double k, px, py, a, b;

  vis->full = TRUE;
  if (next < 0 || next >= (int) n_shown || fabs (det) < 1e-9 * proj->scale * proj->scale)
    return;
  /* Cell (u, v) of this plane lies at cell (u + a, v + b) of the next one. */
  k = (double) pos - next;
  px = k * proj->ep[0], py = k * proj->ep[1];
  a = (px * proj->ev[1] - py * proj->ev[0]) / det;
  b = (proj->eu[0] * py - proj->eu[1] * px) / det;
  vis->full = FALSE;
  vis->cover_u0 = CLAMP (-a, 0, proj->nu), vis->cover_u1 = CLAMP (proj->nu - a, 0, proj->nu);
  vis->cover_v0 = CLAMP (-b, 0, proj->nv), vis->cover_v1 = CLAMP (proj->nv - b, 0, proj->nv);
  if (vis->cover_u1 <= vis->cover_u0 || vis->cover_v1 <= vis->cover_v0)
    vis->full = TRUE;   /* not covered at all */
}

/* The visible region as up to four disjoint rectangles in cell coordinates (x, y, w, h);
 * returns how many. Each is filled on its own: cairo clears a mask of a fill's extents, and
 * the extents of an L-shaped path would be the whole plane. */
static int
visible_rects (const TopoProjection *proj,
               const Visible        *vis,
               double                rects[4][4])
{
  double nu = proj->nu, nv = proj->nv;
  int n = 0;

  if (vis->full)
    {
      rects[0][0] = 0, rects[0][1] = 0, rects[0][2] = nu, rects[0][3] = nv;
      return 1;
    }
  /* Columns outside the covered ones, whole; rows outside the covered ones, over the covered
   * columns only. */
  if (vis->cover_u0 > 0)
    rects[n][0] = 0, rects[n][1] = 0, rects[n][2] = vis->cover_u0, rects[n][3] = nv, n++;
  if (vis->cover_u1 < nu)
    rects[n][0] = vis->cover_u1, rects[n][1] = 0, rects[n][2] = nu - vis->cover_u1, rects[n][3] = nv, n++;
  if (vis->cover_v0 > 0)
    rects[n][0] = vis->cover_u0, rects[n][1] = 0, rects[n][2] = vis->cover_u1 - vis->cover_u0,
    rects[n][3] = vis->cover_v0, n++;
  if (vis->cover_v1 < nv)
    rects[n][0] = vis->cover_u0, rects[n][1] = vis->cover_v1, rects[n][2] = vis->cover_u1 - vis->cover_u0,
    rects[n][3] = nv - vis->cover_v1, n++;
  return n;
}

/* Fills the visible region of the plane with matrix @m with @source (in user space). */
static void
fill_visible (cairo_t              *cr,
              const TopoProjection *proj,
              const Visible        *vis,
              const cairo_matrix_t *m,
              cairo_pattern_t      *source)
{
  double rects[4][4];
  int n = visible_rects (proj, vis, rects);

  cairo_save (cr);
  cairo_set_source (cr, source);
  /* No antialiasing: the plane's outline covers its edges, and without it cairo composites
   * the rotated rectangles directly instead of through a mask of their bounding box (most of
   * a frame's time went into clearing those masks). */
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (int i = 0; i < n; i++)
    {
      cairo_save (cr);
      cairo_transform (cr, m);
      cairo_rectangle (cr, rects[i][0], rects[i][1], rects[i][2], rects[i][3]);
      cairo_restore (cr);
      cairo_fill (cr);
    }
  cairo_restore (cr);
}

/* Adds the visible pieces of the segment (u0, v0) → (u1, v1) of plane @pos, a line of constant
 * u or constant v. */
static void
visible_segment (cairo_t              *cr,
                 const TopoProjection *proj,
                 const Visible        *vis,
                 guint                 pos,
                 double                u0,
                 double                v0,
                 double                u1,
                 double                v1)
{
  double x, y;
  gboolean along_v = u0 == u1;
  double fixed = along_v ? u0 : v0;
  double lo = along_v ? v0 : u0, hi = along_v ? v1 : u1;
  double c_lo = along_v ? vis->cover_v0 : vis->cover_u0, c_hi = along_v ? vis->cover_v1 : vis->cover_u1;
  double f_lo = along_v ? vis->cover_u0 : vis->cover_v0, f_hi = along_v ? vis->cover_u1 : vis->cover_v1;
  double piece[2][2];
  int n = 0;

  if (vis->full || fixed < f_lo || fixed > f_hi || c_hi <= lo || c_lo >= hi)
    piece[n][0] = lo, piece[n][1] = hi, n++;
  else
    {
      if (c_lo > lo)
        piece[n][0] = lo, piece[n][1] = c_lo, n++;
      if (c_hi < hi)
        piece[n][0] = c_hi, piece[n][1] = hi, n++;
    }
  for (int i = 0; i < n; i++)
    {
      if (along_v)
        topo_projection_point (proj, fixed, piece[i][0], pos, &x, &y);
      else
        topo_projection_point (proj, piece[i][0], fixed, pos, &x, &y);
      cairo_move_to (cr, x, y);
      if (along_v)
        topo_projection_point (proj, fixed, piece[i][1], pos, &x, &y);
      else
        topo_projection_point (proj, piece[i][1], fixed, pos, &x, &y);
      cairo_line_to (cr, x, y);
    }
}

static void
plane_matrix (const TopoProjection *proj,
              guint                 pos,
              cairo_matrix_t       *m)
{
  cairo_matrix_init (m, proj->eu[0], proj->eu[1], proj->ev[0], proj->ev[1],
                     proj->origin[0] + pos * proj->ep[0], proj->origin[1] + pos * proj->ep[1]);
}

/* Cell borders on screen: a pattern of one cell's left and top border, about as many pixels as
 * the cell is thick on screen so that the lines come out one pixel wide, repeated over the
 * plane with the plane's transformation. One fill per plane instead of a stroke per line: the
 * stroker's cost per segment made borders the most expensive part of a frame. */
static cairo_pattern_t *
line_pattern (TopoScene            *scene,
              const TopoProjection *proj,
              const cairo_matrix_t *plane)
{
  static const double grey[TOPO_N_LINE_STYLES] = { 0.0, 0.55, 1.0, 0.0 };
  double det = fabs (proj->eu[0] * proj->ev[1] - proj->eu[1] * proj->ev[0]);
  int w = (int) CLAMP (lround (det / MAX (hypot (proj->ev[0], proj->ev[1]), 1e-9)), 3, 256);
  int h = (int) CLAMP (lround (det / MAX (hypot (proj->eu[0], proj->eu[1]), 1e-9)), 3, 256);
  TopoLineStyle style = scene->settings.lines;
  cairo_pattern_t *pattern;
  cairo_matrix_t m;

  if (scene->line_tile == NULL || scene->line_tile_w != w || scene->line_tile_h != h
      || scene->line_tile_style != style)
    {
      cairo_t *cr;

      g_clear_pointer (&scene->line_tile, cairo_surface_destroy);
      scene->line_tile = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
      cr = cairo_create (scene->line_tile);
      cairo_set_source_rgb (cr, grey[style], grey[style], grey[style]);
      cairo_rectangle (cr, 0, 0, w, 1);
      cairo_rectangle (cr, 0, 0, 1, h);
      cairo_fill (cr);
      cairo_destroy (cr);
      scene->line_tile_w = w, scene->line_tile_h = h, scene->line_tile_style = style;
    }
  pattern = cairo_pattern_create_for_surface (scene->line_tile);
  cairo_pattern_set_extend (pattern, CAIRO_EXTEND_REPEAT);
  cairo_pattern_set_filter (pattern, CAIRO_FILTER_BILINEAR);
  /* Pattern space is tile pixels: cell (u, v) → (u · w, v · h), then the plane's matrix. */
  m = *plane;
  cairo_matrix_scale (&m, 1.0 / w, 1.0 / h);
  cairo_matrix_invert (&m);
  cairo_pattern_set_matrix (pattern, &m);
  return pattern;
}

static void
draw_plane (TopoScene            *scene,
            cairo_t              *cr,
            const TopoProjection *proj,
            guint                 pos,
            gboolean              vector)
{
  gint64 plane = g_array_index (scene->shown, gint64, pos);
  TopoLineStyle lines = scene->settings.lines;
  double nu = scene->nu, nv = scene->nv;
  cairo_matrix_t m;
  Visible vis;

  /* Vector output is not drawn against a frame budget: every plane whole. */
  if (vector)
    vis.full = TRUE;
  else
    visible_part (proj, pos, scene->shown->len, &vis);
  plane_matrix (proj, pos, &m);
  if (scene->plane_empty[plane])
    fill_visible (cr, proj, &vis, &m, hatch_pattern (scene));
  if (vector)
    draw_cells_vector (scene, cr, proj, plane, pos);
  else
    {
      cairo_pattern_t *pattern = cairo_pattern_create_for_surface (plane_image (scene, plane));
      cairo_matrix_t inv = m;

      /* Pattern space is cell coordinates. */
      cairo_matrix_invert (&inv);
      cairo_pattern_set_matrix (pattern, &inv);
      cairo_pattern_set_filter (pattern, CAIRO_FILTER_NEAREST);
      cairo_pattern_set_extend (pattern, CAIRO_EXTEND_PAD);
      fill_visible (cr, proj, &vis, &m, pattern);
      cairo_pattern_destroy (pattern);
    }

  if (lines != TOPO_LINES_NONE && cell_thickness (proj) >= MIN_LINE_CELL && !vector)
    {
      cairo_pattern_t *pattern = line_pattern (scene, proj, &m);

      fill_visible (cr, proj, &vis, &m, pattern);
      cairo_pattern_destroy (pattern);
    }
  else if (lines != TOPO_LINES_NONE && cell_thickness (proj) >= MIN_LINE_CELL)
    {
      static const double grey[TOPO_N_LINE_STYLES] = { 0.0, 0.55, 1.0, 0.0 };

      for (gint64 u = 1; u < scene->nu; u++)
        visible_segment (cr, proj, &vis, pos, u, 0, u, nv);
      for (gint64 v = 1; v < scene->nv; v++)
        visible_segment (cr, proj, &vis, pos, 0, v, nu, v);
      cairo_set_source_rgb (cr, grey[lines], grey[lines], grey[lines]);
      cairo_set_line_width (cr, 1.0);
      cairo_stroke (cr);
    }
  visible_segment (cr, proj, &vis, pos, 0, 0, nu, 0);
  visible_segment (cr, proj, &vis, pos, nu, 0, nu, nv);
  visible_segment (cr, proj, &vis, pos, 0, nv, nu, nv);
  visible_segment (cr, proj, &vis, pos, 0, 0, 0, nv);
  cairo_set_source_rgb (cr, 0.25, 0.25, 0.25);
  cairo_set_line_width (cr, 1.0);
  cairo_stroke (cr);
}

static void
draw_outline (TopoScene            *scene,
              cairo_t              *cr,
              const TopoProjection *proj,
              gint64                cell,
              gboolean              strong)
{
  gint64 u, v, pos;

  if (!cell_plane_uv (scene, cell, &u, &v, &pos))
    return;
  quad_path (cr, proj, u, v, u + 1, v + 1, pos);
  if (strong)
    {
      cairo_set_source_rgb (cr, 0, 0, 0);
      cairo_set_line_width (cr, 3.5);
      cairo_stroke_preserve (cr);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
      if (cell_thickness (proj) < 6)
        {
          /* Tiny cells: a ring around the cell keeps the selection findable. */
          double x, y;
          topo_projection_point (proj, u + 0.5, v + 0.5, pos, &x, &y);
          cairo_new_sub_path (cr);
          cairo_arc (cr, x, y, 7, 0, 2 * G_PI);
          cairo_set_source_rgb (cr, 0, 0, 0);
          cairo_set_line_width (cr, 2.0);
          cairo_stroke (cr);
        }
    }
  else
    {
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      cairo_set_line_width (cr, 2.0);
      cairo_stroke (cr);
    }
}

static PangoLayout *
new_layout (TopoScene  *scene,
            cairo_t    *cr,
            const char *text,
            gboolean    bold)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (scene->font);

  if (bold)
    pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

static void
arrow_head (cairo_t *cr,
            double   x,
            double   y,
            double   dx,
            double   dy)
{
  double l = hypot (dx, dy);

  if (l == 0)
    return;
  dx /= l, dy /= l;
  cairo_move_to (cr, x, y);
  cairo_line_to (cr, x - 6 * dx + 3.5 * dy, y - 6 * dy - 3.5 * dx);
  cairo_line_to (cr, x - 6 * dx - 3.5 * dy, y - 6 * dy + 3.5 * dx);
  cairo_close_path (cr);
  cairo_fill (cr);
}

/* The wrap-around mark of a periodic axis: a dashed arc outside the edge from its end back to
 * its start, with arrow heads at both ends. */
static void
draw_wrap_mark (cairo_t *cr,
                double   x0,
                double   y0,
                double   x1,
                double   y1,
                double   nx,
                double   ny)
{
  double b = WRAP_BULGE * 1.33;
  static const double dash[] = { 4.0, 3.0 };

  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.15, 0.35, 0.75);
  cairo_set_line_width (cr, 1.5);
  cairo_set_dash (cr, dash, 2, 0);
  cairo_move_to (cr, x1 + nx * 3, y1 + ny * 3);
  cairo_curve_to (cr, x1 + nx * b, y1 + ny * b, x0 + nx * b, y0 + ny * b, x0 + nx * 3, y0 + ny * 3);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  /* The arc leaves and enters the edge at right angles: arrows point back to the edge. */
  arrow_head (cr, x0 + nx * 2, y0 + ny * 2, -nx, -ny);
  arrow_head (cr, x1 + nx * 2, y1 + ny * 2, -nx, -ny);
  cairo_restore (cr);
}

static void
normalize (double *x,
           double *y,
           double  fx,
           double  fy)
{
  double l = hypot (*x, *y);

  if (l < 1e-6)
    *x = fx, *y = fy;
  else
    *x /= l, *y /= l;
}

static void
record_box (TopoScene *scene,
            double     x,
            double     y,
            double     w,
            double     h)
{
  TopoRect r = { x, y, w, h };

  if (scene->label_boxes != NULL)
    g_array_append_val (scene->label_boxes, r);
}

/* @text (wrapped at @wrap_width when > 0) with its top left corner at (@x, @y); its box is
 * recorded. */
static void
draw_text_box (TopoScene  *scene,
               cairo_t    *cr,
               const char *text,
               double      x,
               double      y,
               double      wrap_width,
               gboolean    bold,
               PangoAlignment align,
               int        *w_out,
               int        *h_out)
{
  PangoLayout *layout = new_layout (scene, cr, text, bold);
  int w, h;

  if (wrap_width > 0)
    {
      pango_layout_set_width (layout, (int) (wrap_width * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
      pango_layout_set_alignment (layout, align);
    }
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x, y);
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  pango_cairo_show_layout (cr, layout);
  /* the ink of a wrapped, aligned layout lies inside its width */
  if (wrap_width > 0 && align == PANGO_ALIGN_RIGHT)
    record_box (scene, x + wrap_width - w, y, w, h);
  else if (wrap_width > 0 && align == PANGO_ALIGN_CENTER)
    record_box (scene, x + (wrap_width - w) / 2, y, w, h);
  else
    record_box (scene, x, y, w, h);
  if (w_out != NULL)
    *w_out = w;
  if (h_out != NULL)
    *h_out = h;
  g_object_unref (layout);
}

/* Of the edges (@a0 → @a1) and (@b0 → @b1) of plane 0 the one lower on the screen (ties: the
 * left one), and the normal pointing away from the plane. */
static void
outer_edge (const TopoProjection *proj,
            const double          a[4],
            const double          b[4],
            double                edge[4],
            double               *nx,
            double               *ny)
{
  double ax0, ay0, ax1, ay1, bx0, by0, bx1, by1, cx, cy, mx, my;

  topo_projection_point (proj, a[0], a[1], 0, &ax0, &ay0);
  topo_projection_point (proj, a[2], a[3], 0, &ax1, &ay1);
  topo_projection_point (proj, b[0], b[1], 0, &bx0, &by0);
  topo_projection_point (proj, b[2], b[3], 0, &bx1, &by1);
  topo_projection_point (proj, proj->nu / 2.0, proj->nv / 2.0, 0, &cx, &cy);
  if ((by0 + by1) / 2 > (ay0 + ay1) / 2 + 1
      || (fabs ((by0 + by1) - (ay0 + ay1)) <= 2 && (bx0 + bx1) < (ax0 + ax1)))
    edge[0] = bx0, edge[1] = by0, edge[2] = bx1, edge[3] = by1;
  else
    edge[0] = ax0, edge[1] = ay0, edge[2] = ax1, edge[3] = ay1;
  mx = (edge[0] + edge[2]) / 2, my = (edge[1] + edge[3]) / 2;
  *nx = -(edge[3] - edge[1]), *ny = edge[2] - edge[0];
  normalize (nx, ny, 0, 1);
  if (*nx * (mx - cx) + *ny * (my - cy) < 0)
    *nx = -*nx, *ny = -*ny;
}

/* The parts of the axes drawn with the planes (inside the grid's clip): the wrap-around marks
 * of periodic axes and the stacking axis' dashed line. */
static void
draw_axis_marks (TopoScene            *scene,
                 cairo_t              *cr,
                 const TopoProjection *proj)
{
  TopoAxis u, v, p;
  double nu = proj->nu, nv = proj->nv, edge[4], nx, ny;
  guint n = scene->shown->len;

  axis_roles (scene, &u, &v, &p);
  if (scene->axis_text[u] != NULL && scene->axis_periodic[u])
    {
      const double a[4] = { 0, 0, nu, 0 }, b[4] = { 0, nv, nu, nv };
      outer_edge (proj, a, b, edge, &nx, &ny);
      draw_wrap_mark (cr, edge[0], edge[1], edge[2], edge[3], nx, ny);
    }
  if (scene->axis_text[v] != NULL && scene->axis_periodic[v])
    {
      const double a[4] = { nu, 0, nu, nv }, b[4] = { 0, 0, 0, nv };
      outer_edge (proj, a, b, edge, &nx, &ny);
      draw_wrap_mark (cr, edge[0], edge[1], edge[2], edge[3], nx, ny);
    }
  if (scene->axis_text[p] != NULL)
    {
      const double corner[4][2] = { { 0, 0 }, { nu, 0 }, { 0, nv }, { nu, nv } };
      double bx = -INFINITY, by = 0, tx, ty, cu = 0, cv = 0;
      static const double dash[] = { 2.0, 2.0 };

      for (int i = 0; i < 4; i++)
        {
          double x, y;
          topo_projection_point (proj, corner[i][0], corner[i][1], 0, &x, &y);
          if (x > bx + 0.5)
            bx = x, by = y, cu = corner[i][0], cv = corner[i][1];
        }
      topo_projection_point (proj, cu, cv, n - 1, &tx, &ty);
      cairo_save (cr);
      cairo_set_source_rgb (cr, 0.45, 0.45, 0.45);
      cairo_set_line_width (cr, 1.0);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, bx + 4, by);
      cairo_line_to (cr, tx + 4, ty);
      cairo_stroke (cr);
      cairo_restore (cr);
      if (scene->axis_periodic[p] && n > 1)
        draw_wrap_mark (cr, bx + 4, by, tx + 4, ty, 1, 0);
    }
}

/* The axis labels, each in its own margin (issue 24, item 8): x below the planes, y left of
 * them, the stacking axis right of them; placed next to the edge or plane they name as far as
 * the margin allows, never over the planes, the title or the legend, nor over each other. */
static void
draw_axis_labels (TopoScene            *scene,
                  cairo_t              *cr,
                  const TopoProjection *proj,
                  const TopoViewLayout *l)
{
  TopoAxis u, v, p;
  double nu = proj->nu, nv = proj->nv, edge[4], nx, ny;
  guint n = scene->shown->len;
  int w, h;

  axis_roles (scene, &u, &v, &p);
  if (scene->axis_text[u] != NULL && l->bottom.width > 8)
    {
      const double a[4] = { 0, 0, nu, 0 }, b[4] = { 0, nv, nu, nv };
      double wrap = l->bottom.width, mid;

      outer_edge (proj, a, b, edge, &nx, &ny);
      text_size (scene, cr, scene->axis_text[u], FALSE, wrap, &w, &h);
      mid = CLAMP ((edge[0] + edge[2]) / 2, l->bottom.x + w / 2.0, l->bottom.x + l->bottom.width - w / 2.0);
      draw_text_box (scene, cr, scene->axis_text[u], mid - w / 2.0,
                     l->bottom.y + 4 + (scene->axis_periodic[u] ? WRAP_BULGE / 2 : 0), w + 1, FALSE,
                     PANGO_ALIGN_CENTER, NULL, NULL);
    }
  if (scene->axis_text[v] != NULL && l->left.width > 16)
    {
      const double a[4] = { nu, 0, nu, nv }, b[4] = { 0, 0, 0, nv };
      g_autofree char *text = two_lines (scene->axis_text[v]);
      double wrap = l->left.width - 12, mid;

      outer_edge (proj, a, b, edge, &nx, &ny);
      text_size (scene, cr, text, FALSE, wrap, &w, &h);
      mid = CLAMP ((edge[1] + edge[3]) / 2, l->grid.y + h / 2.0, l->grid.y + l->grid.height - h / 2.0);
      draw_text_box (scene, cr, text, 4, mid - h / 2.0, wrap, FALSE, PANGO_ALIGN_RIGHT, NULL, NULL);
    }
  if (scene->axis_text[p] != NULL && l->right.width > 16)
    {
      const double corner[4][2] = { { 0, 0 }, { nu, 0 }, { 0, nv }, { nu, nv } };
      double bx = -INFINITY, cu = 0, cv = 0, last = -INFINITY, x = l->right.x + 6;
      double top = l->right.y + l->right_title_height + 6, lowest = l->grid.y + l->grid.height;

      draw_text_box (scene, cr, scene->axis_text[p], x, l->right.y, l->right.width - 8, FALSE, PANGO_ALIGN_LEFT,
                     NULL, NULL);
      for (int i = 0; i < 4; i++)
        {
          double cx, cy;
          topo_projection_point (proj, corner[i][0], corner[i][1], 0, &cx, &cy);
          if (cx > bx + 0.5)
            bx = cx, cu = corner[i][0], cv = corner[i][1];
        }
      /* plane indices at the height of their plane, where there is room: 14 px apart */
      for (guint i = 0; i < n; i++)
        {
          gint64 plane = g_array_index (scene->shown, gint64, i);
          g_autofree char *text = g_strdup_printf ("%c=%lld", "xyz"[p], (long long) plane);
          double px, py;

          topo_projection_point (proj, cu, cv, i, &px, &py);
          text_size (scene, cr, text, FALSE, 0, &w, &h);
          if (py - h / 2.0 < top || py + h / 2.0 > lowest || fabs (py - last) < MAX (14, h))
            continue;
          last = py;
          draw_text_box (scene, cr, text, x + (scene->axis_periodic[p] ? WRAP_BULGE : 0), py - h / 2.0, 0, FALSE,
                         PANGO_ALIGN_LEFT, NULL, NULL);
        }
    }
}

static char *
format_value (TopoScene *scene,
              double     v)
{
  if (scene->format != NULL)
    return scene->format (v, scene->format_data);
  return g_strdup_printf ("%g", v);
}

static void
show_text_at (TopoScene  *scene,
              cairo_t    *cr,
              const char *text,
              double      x,
              double      y,
              gboolean    bold,
              double      align,   /* 0 left, 0.5 centre, 1 right */
              int        *width)
{
  PangoLayout *layout = new_layout (scene, cr, text, bold);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - align * w, y);
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  pango_cairo_show_layout (cr, layout);
  if (width != NULL)
    *width = w;
  g_object_unref (layout);
}

/* "Slice: dimension 9 = 0, … · 1 location in other slices", or NULL. New string. */
static char *
second_title_line (TopoScene *scene)
{
  GString *second = g_string_new (NULL);

  if (scene->slice_text != NULL)
    /* TRANSLATORS: the fixed indices of the dimensions shown as a slice */
    g_string_append_printf (second, _("Slice: %s"), scene->slice_text);
  if (scene->grid != NULL && (scene->grid->n_elsewhere > 0 || scene->grid->n_invalid > 0))
    {
      if (second->len > 0)
        g_string_append (second, " · ");
      g_string_append_printf (second, ngettext ("%u location in other slices",
                                                "%u locations in other slices",
                                                scene->grid->n_elsewhere),
                              scene->grid->n_elsewhere);
      if (scene->grid->n_invalid > 0)
        g_string_append_printf (second, " · %s",
                                _("some coordinates lie outside the dimensions"));
    }
  if (second->len == 0)
    {
      g_string_free (second, TRUE);
      return NULL;
    }
  return g_string_free (second, FALSE);
}

/* The title, the subtitle beside it when it fits (else below), the slice line: wrapped to the
 * width, never cut (the 14-D slice line lost "… locations in other slices"). */
static void
draw_title (TopoScene *scene,
            cairo_t   *cr,
            double     width)
{
  double avail = MAX (width - 16, 40), y = 6;
  int w = 0, h = 0, sw = 0, sh = 0;
  g_autofree char *second = second_title_line (scene);

  draw_text_box (scene, cr, scene->title != NULL ? scene->title : "", 8, y, avail, TRUE, PANGO_ALIGN_LEFT, &w, &h);
  if (scene->subtitle != NULL)
    {
      text_size (scene, cr, scene->subtitle, FALSE, 0, &sw, &sh);
      if (w + 12 + sw <= avail)
        draw_text_box (scene, cr, scene->subtitle, 8 + w + 12, y, 0, FALSE, PANGO_ALIGN_LEFT, NULL, NULL);
      else
        {
          draw_text_box (scene, cr, scene->subtitle, 8, y + h, avail, FALSE, PANGO_ALIGN_LEFT, NULL, &sh);
          h += sh;
        }
    }
  if (second != NULL)
    draw_text_box (scene, cr, second, 8, y + h + 2, avail, FALSE, PANGO_ALIGN_LEFT, NULL, NULL);
}

static void
draw_swatch (TopoScene       *scene,
             cairo_t         *cr,
             double           x,
             double           y,
             cairo_pattern_t *pattern,
             const char      *text,
             int             *w)
{
  cairo_rectangle (cr, x + 0.5, y + 0.5, 12, 12);
  if (pattern != NULL)
    cairo_set_source (cr, pattern);
  else
    cairo_set_source_rgb (cr, background[0], background[1], background[2]);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  show_text_at (scene, cr, text, x + 17, y - 1, FALSE, 0, w);
}

static void
draw_legend (TopoScene *scene,
             cairo_t   *cr,
             double     width,
             double     height)
{
  const TopoColourRange *r = &scene->range;
  double y = height - LEGEND_HEIGHT + 8, x = 8;
  double bar_w = CLAMP (width * 0.3, 80, 260), bar_h = 12;
  double lo = r->high ? r->lo : (r->is_signed ? -r->hi : 0), hi = r->hi;
  g_autofree char *lo_text = format_value (scene, lo);
  g_autofree char *hi_text = format_value (scene, hi);
  const int steps = 64;
  int w = 0;

  show_text_at (scene, cr,
                r->high ? _("High resolution: minimum … maximum of this grid")
                        : _("Low resolution: the system tree’s scale"),
                x, y - 4, TRUE, 0, NULL);
  y += 14;
  for (int i = 0; i < steps; i++)
    {
      /* The bar shows what a value at this point of lo … hi gets. */
      double v = lo + (hi - lo) * (i + 0.5) / steps, f;
      gboolean lighten;
      GdkRGBA rgba = { background[0], background[1], background[2], 1 };
      if (topo_colour_classify (r, TRUE, v, &f, &lighten) == TOPO_CELL_VALUE)
        kubus_severity_color (scene->scale, r->is_signed, f, FALSE, &rgba);
      cairo_rectangle (cr, x + bar_w * i / steps, y, bar_w / steps + 0.6, bar_h);
      cairo_set_source_rgb (cr, rgba.red, rgba.green, rgba.blue);
      cairo_fill (cr);
    }
  cairo_rectangle (cr, x + 0.5, y + 0.5, bar_w - 1, bar_h - 1);
  cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  if (r->high && scene->stats.n > 0 && hi > lo)
    {
      /* The mean and ± one standard deviation on the bar. */
      double mx = x + bar_w * (scene->stats.mean - lo) / (hi - lo);
      double sx0 = x + bar_w * CLAMP ((scene->stats.mean - scene->stats.stddev - lo) / (hi - lo), 0, 1);
      double sx1 = x + bar_w * CLAMP ((scene->stats.mean + scene->stats.stddev - lo) / (hi - lo), 0, 1);
      cairo_set_source_rgb (cr, 0, 0, 0);
      cairo_set_line_width (cr, 2);
      cairo_move_to (cr, mx, y - 3);
      cairo_line_to (cr, mx, y + bar_h + 3);
      cairo_stroke (cr);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, sx0, y + bar_h + 2);
      cairo_line_to (cr, sx1, y + bar_h + 2);
      cairo_move_to (cr, sx0, y + bar_h);
      cairo_line_to (cr, sx0, y + bar_h + 4);
      cairo_move_to (cr, sx1, y + bar_h);
      cairo_line_to (cr, sx1, y + bar_h + 4);
      cairo_stroke (cr);
    }
  show_text_at (scene, cr, lo_text, x, y + bar_h + 3, FALSE, 0, NULL);
  show_text_at (scene, cr, hi_text, x + bar_w, y + bar_h + 3, FALSE, 1, NULL);
  x += bar_w + 10;
  if (scene->caption != NULL && scene->caption[0] != '\0')
    {
      show_text_at (scene, cr, scene->caption, x, y - 2, FALSE, 0, &w);
      x += w + 14;
    }
  if (r->high && scene->stats.n > 0)
    {
      g_autofree char *mean = format_value (scene, scene->stats.mean);
      g_autofree char *sd = format_value (scene, scene->stats.stddev);
      /* TRANSLATORS: statistics of the topology's cells: mean and standard deviation */
      g_autofree char *text = g_strdup_printf (_("mean %s  σ %s"), mean, sd);
      show_text_at (scene, cr, text, x, y - 2, FALSE, 0, &w);
      x += w + 14;
    }
  if (x + 220 > width)
    x = 8 + bar_w + 10, y += 18;
  draw_swatch (scene, cr, x, y, NULL, _("value 0"), &w);
  x += 17 + w + 12;
  draw_swatch (scene, cr, x, y, hatch_pattern (scene), _("no location"), &w);
}

void
topo_scene_render (TopoScene *scene,
                   cairo_t   *cr,
                   double     width,
                   double     height)
{
  TopoProjection proj;
  TopoViewLayout layout;
  gboolean vector = is_vector (cr);

  if (scene->label_boxes == NULL)
    scene->label_boxes = g_array_new (FALSE, FALSE, sizeof (TopoRect));
  g_array_set_size (scene->label_boxes, 0);
  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_clip (cr);
  cairo_set_source_rgb (cr, background[0], background[1], background[2]);
  cairo_paint (cr);
  if (scene->grid == NULL || scene->message != NULL)
    {
      PangoLayout *layout = new_layout (scene, cr, scene->message != NULL ? scene->message : "", FALSE);
      int w, h;

      pango_layout_set_width (layout, (int) MAX (width - 40, 40) * PANGO_SCALE);
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD);
      pango_layout_set_alignment (layout, PANGO_ALIGN_CENTER);
      pango_layout_get_pixel_size (layout, &w, &h);
      if (scene->title != NULL)
        draw_title (scene, cr, width);
      cairo_move_to (cr, 20, (height - h) / 2);
      cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
      pango_cairo_show_layout (cr, layout);
      g_object_unref (layout);
      cairo_restore (cr);
      return;
    }
  ensure_colours (scene);
  ensure_planes (scene);
  scene->canvas_width = width;
  scene->canvas_height = height;
  topo_scene_get_layout (scene, width, height, &layout);
  topo_scene_get_projection (scene, width, height, &proj);
  /* the planes only inside their rectangle, however far they are zoomed or moved */
  cairo_save (cr);
  cairo_rectangle (cr, layout.grid.x, layout.grid.y, layout.grid.width, layout.grid.height);
  cairo_clip (cr);
  for (guint i = 0; i < scene->shown->len; i++)
    draw_plane (scene, cr, &proj, topo_projection_paint_order (&proj, i), vector);
  if (scene->hover >= 0)
    draw_outline (scene, cr, &proj, scene->hover, FALSE);
  for (guint i = 0; i < scene->selection->len; i++)
    draw_outline (scene, cr, &proj, g_array_index (scene->selection, gint64, i), TRUE);
  draw_axis_marks (scene, cr, &proj);
  cairo_restore (cr);
  draw_axis_labels (scene, cr, &proj, &layout);
  draw_title (scene, cr, width);
  draw_legend (scene, cr, width, height);
  cairo_restore (cr);
}

const GArray *
topo_scene_get_label_boxes (TopoScene *scene)
{
  return scene->label_boxes;
}
