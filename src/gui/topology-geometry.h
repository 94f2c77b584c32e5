/* topology-geometry.h — the 3-D projection of the topology view's stacked planes, and picking
 * (plain C: GLib and libm only; tested without a display).
 *
 * The grid (x, y, z) is drawn as planes: the stacking axis picks which grid axis runs across
 * the planes, the other two run along each plane's columns (u) and rows (v). In the model,
 * column u runs to the right, row v towards the viewer and plane p upwards, all centred on
 * the origin; a plane is `distance` × its mean side ((columns + rows) / 2) above the one below. The camera turns
 * by `yaw` about the vertical axis, then looks down at `pitch` degrees (90: from straight
 * above) in an orthographic projection. Each plane is therefore an affine image of its cell
 * grid: screen = origin + u · eu + v · ev + p · ep. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  TOPO_STACK_Z,   /* planes are z indices, cells x (columns) × y (rows) */
  TOPO_STACK_Y,   /* planes are y indices, cells x × z */
  TOPO_STACK_X,   /* planes are x indices, cells y × z */
  TOPO_N_STACKINGS
} TopoStacking;

typedef struct
{
  double yaw;        /* degrees, any */
  double pitch;      /* degrees, clamped to [-90, 90] */
  double zoom;       /* relative to "fit" (1 = the planes fill the area) */
  double distance;   /* plane gap in units of the plane's mean side, [0, 4] */
  double pan_x;      /* screen offset in pixels */
  double pan_y;
} TopoCamera;

typedef struct
{
  gint64 nu, nv;     /* columns and rows of a plane */
  guint  n_planes;   /* planes shown (hidden planes are not counted) */
  double scale;      /* pixels per cell */
  double origin[2];  /* screen position of cell corner (0, 0) of plane 0 */
  double eu[2];      /* screen step of one column */
  double ev[2];      /* screen step of one row */
  double ep[2];      /* screen step of one plane */
  gboolean upper_nearer;   /* the viewer sees higher planes in front (pitch > 0) */
  double depth_u, depth_v; /* how far towards the viewer one column / row step goes */
} TopoProjection;

void     topo_camera_init_default (TopoCamera *camera,
                                   guint       n_planes);
/* Plane cell counts for a grid of @extent (x, y, z) under @stacking. */
void     topo_stacking_plane_size (TopoStacking  stacking,
                                   const gint64  extent[3],
                                   gint64       *nu,
                                   gint64       *nv,
                                   gint64       *n_planes);
/* Grid position of cell (@u, @v) of plane @plane (a grid index along the stacking axis). */
void     topo_stacking_to_xyz     (TopoStacking  stacking,
                                   gint64        u,
                                   gint64        v,
                                   gint64        plane,
                                   gint64        xyz[3]);
void     topo_stacking_from_xyz   (TopoStacking  stacking,
                                   const gint64  xyz[3],
                                   gint64       *u,
                                   gint64       *v,
                                   gint64       *plane);

/* Projects @n_planes planes of @nu × @nv cells into the rectangle (@x, @y, @width, @height),
 * fitted with @camera->zoom = 1 and centred, then zoomed about the centre and panned. */
void     topo_projection_init     (TopoProjection   *proj,
                                   gint64            nu,
                                   gint64            nv,
                                   guint             n_planes,
                                   const TopoCamera *camera,
                                   double            x,
                                   double            y,
                                   double            width,
                                   double            height);
void     topo_projection_point    (const TopoProjection *proj,
                                   double                u,
                                   double                v,
                                   double                p,
                                   double               *sx,
                                   double               *sy);
/* The shown plane (0 … n_planes − 1) and cell under screen point (@sx, @sy), the nearest to
 * the viewer when planes overlap. FALSE when the point is on no plane. */
gboolean topo_projection_pick     (const TopoProjection *proj,
                                   double                sx,
                                   double                sy,
                                   gint64               *u,
                                   gint64               *v,
                                   guint                *plane);
/* The i-th shown plane to paint (back to front). */
guint    topo_projection_paint_order (const TopoProjection *proj,
                                      guint                 i);

G_END_DECLS
