/* topology-render.h — draws a topology grid as stacked planes with cairo and Pango, onto any
 * cairo surface (the widget's snapshot, PNG, SVG, PDF) at a given size. No GTK widgets: the
 * headless screenshot, the export and the benchmarks use it directly.
 *
 * A TopoScene keeps what does not change while the user rotates or zooms: cell colours, one
 * small image per plane (one pixel per cell, drawn with an affine transform), the grid
 * statistics and the axis texts. Setters mark only what they change as stale. */
#pragma once

#include <cairo.h>

#include "kubus-severity.h"
#include "topology-colour.h"
#include "topology-geometry.h"
#include "topology-grid.h"

G_BEGIN_DECLS

typedef enum
{
  TOPO_LINES_BLACK,
  TOPO_LINES_GREY,
  TOPO_LINES_WHITE,
  TOPO_LINES_NONE,
  TOPO_N_LINE_STYLES
} TopoLineStyle;

/* What the user sets in the view (remembered per report and topology). */
typedef struct
{
  TopoCamera    camera;
  TopoStacking  stacking;
  TopoLineStyle lines;
  gboolean      hide_empty;       /* hide planes that hold no location */
  gboolean      high_resolution;
} TopoSettings;

/* Returns a new string for @value as the system tree writes it. */
typedef char *(*TopoFormatFunc) (double   value,
                                 gpointer user_data);

typedef struct _TopoScene TopoScene;

void         topo_settings_init_default  (TopoSettings *settings,
                                          guint         n_planes);

TopoScene   *topo_scene_new              (void);
void         topo_scene_free             (TopoScene *scene);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TopoScene, topo_scene_free)

/* @grid is borrowed and may be NULL; values are read on the next render after
 * topo_scene_values_changed(). Clears the selection and hover. */
void         topo_scene_set_grid         (TopoScene *scene,
                                          TopoGrid  *grid);
TopoGrid    *topo_scene_get_grid         (TopoScene *scene);
/* Shown instead of the grid when not NULL (e.g. too many cells). */
void         topo_scene_set_message      (TopoScene  *scene,
                                          const char *message);
void         topo_scene_set_settings     (TopoScene          *scene,
                                          const TopoSettings *settings);
const TopoSettings *topo_scene_get_settings (TopoScene *scene);
/* The system tree's colour scale: @max_abs its range at the grid's level, @is_signed for a
 * diverging scale, @insignificant a fraction (0.01 = 1 %). */
void         topo_scene_set_scale        (TopoScene       *scene,
                                          KubusColorScale  scale,
                                          double           max_abs,
                                          gboolean         is_signed,
                                          double           insignificant);
/* The grid's values changed (topo_grid_set_values): colours and statistics again. */
void         topo_scene_values_changed   (TopoScene *scene);
/* The title set last (topo_scene_set_texts), or NULL. */
const char *topo_scene_get_title         (const TopoScene *scene);
/* @title: the topology's name; @subtitle: what is shown (metric, call path, mode); @caption:
 * the unit as the legend writes it. @format may be NULL (printf %g). */
void         topo_scene_set_texts        (TopoScene      *scene,
                                          const char     *title,
                                          const char     *subtitle,
                                          const char     *caption,
                                          TopoFormatFunc  format,
                                          gpointer        format_data);
/* Pango font description for every text (default "Sans 9"). */
void         topo_scene_set_font         (TopoScene  *scene,
                                          const char *font);
/* Outlined cells (copied). */
void         topo_scene_set_selection    (TopoScene    *scene,
                                          const gint64 *cells,
                                          guint         n_cells);
void         topo_scene_set_hover        (TopoScene *scene,
                                          gint64     cell);   /* -1: none */

typedef struct
{
  double x, y, width, height;
} TopoRect;

/* Where a view of @width × @height puts its parts: disjoint bands for the title (top), the
 * legend (bottom), the y label (left), the x label (below the planes) and the stacking axis
 * (right); the planes are drawn only inside @grid, however far they are zoomed. */
typedef struct
{
  TopoRect title, legend, left, bottom, right, grid;
  double   right_title_height;   /* the stacking axis' name at the top of @right */
} TopoViewLayout;

void         topo_scene_get_layout       (TopoScene  *scene,
                                          double      width,
                                          double      height,
                                          TopoViewLayout *layout);
/* The boxes of the texts the last topo_scene_render drew (TopoRect each), for tests. */
const GArray *topo_scene_get_label_boxes (TopoScene *scene);

/* Draws the whole view into the rectangle (0, 0, @width, @height) of @cr. */
void         topo_scene_render           (TopoScene *scene,
                                          cairo_t   *cr,
                                          double     width,
                                          double     height);
/* The cell under (@x, @y) in a view of @width × @height (as topo_scene_render draws it). */
gboolean     topo_scene_pick             (TopoScene *scene,
                                          double     width,
                                          double     height,
                                          double     x,
                                          double     y,
                                          gint64    *cell);
/* The projection of the planes in a view of @width × @height. */
void         topo_scene_get_projection   (TopoScene      *scene,
                                          double          width,
                                          double          height,
                                          TopoProjection *proj);
/* Screen centre of @cell in a view of @width × @height; FALSE if its plane is hidden. */
gboolean     topo_scene_cell_center      (TopoScene *scene,
                                          double     width,
                                          double     height,
                                          gint64     cell,
                                          double    *x,
                                          double    *y);
/* Zooms by @factor about (@x, @y) of a view of @width × @height: the point under it stays. */
void         topo_scene_zoom_at          (TopoScene *scene,
                                          double     width,
                                          double     height,
                                          double     x,
                                          double     y,
                                          double     factor);
/* Statistics of the shown cells and the colour of @cell (@rgb: 0 … 1) as drawn. */
const TopoStats *topo_scene_get_stats    (TopoScene *scene);
TopoCellClass topo_scene_cell_color      (TopoScene *scene,
                                          gint64     cell,
                                          double     rgb[3]);
/* Grid planes shown along the stacking axis, in order (hidden empty planes left out). */
guint        topo_scene_get_shown_planes (TopoScene     *scene,
                                          const gint64 **planes);

G_END_DECLS
