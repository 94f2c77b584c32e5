/* topology-geometry.c — see topology-geometry.h. */
#include <math.h>

#include "topology-geometry.h"

void
topo_camera_init_default (TopoCamera *camera,
                          guint       n_planes)
{
  camera->zoom = 1.0;
  camera->pan_x = camera->pan_y = 0.0;
  if (n_planes <= 1)
    {
      /* One plane reads best as a flat grid, row 0 at the top. */
      camera->yaw = 0.0;
      camera->pitch = 90.0;
      camera->distance = 0.85;
      return;
    }
  /* Planes just clear of each other at this angle; many planes move closer so that the
   * stack stays about four planes high. */
  camera->yaw = -30.0;
  camera->pitch = 30.0;
  camera->distance = MIN (0.85, 4.0 / (n_planes - 1));
}

void
topo_stacking_plane_size (TopoStacking  stacking,
                          const gint64  extent[3],
                          gint64       *nu,
                          gint64       *nv,
                          gint64       *n_planes)
{
  switch (stacking)
    {
    case TOPO_STACK_Y:
      *nu = extent[0], *nv = extent[2], *n_planes = extent[1];
      break;
    case TOPO_STACK_X:
      *nu = extent[1], *nv = extent[2], *n_planes = extent[0];
      break;
    case TOPO_STACK_Z:
    case TOPO_N_STACKINGS:
    default:
      *nu = extent[0], *nv = extent[1], *n_planes = extent[2];
      break;
    }
}

void
topo_stacking_to_xyz (TopoStacking stacking,
                      gint64       u,
                      gint64       v,
                      gint64       plane,
                      gint64       xyz[3])
{
  switch (stacking)
    {
    case TOPO_STACK_Y:
      xyz[0] = u, xyz[1] = plane, xyz[2] = v;
      break;
    case TOPO_STACK_X:
      xyz[0] = plane, xyz[1] = u, xyz[2] = v;
      break;
    case TOPO_STACK_Z:
    case TOPO_N_STACKINGS:
    default:
      xyz[0] = u, xyz[1] = v, xyz[2] = plane;
      break;
    }
}

void
topo_stacking_from_xyz (TopoStacking  stacking,
                        const gint64  xyz[3],
                        gint64       *u,
                        gint64       *v,
                        gint64       *plane)
{
  switch (stacking)
    {
    case TOPO_STACK_Y:
      *u = xyz[0], *v = xyz[2], *plane = xyz[1];
      break;
    case TOPO_STACK_X:
      *u = xyz[1], *v = xyz[2], *plane = xyz[0];
      break;
    case TOPO_STACK_Z:
    case TOPO_N_STACKINGS:
    default:
      *u = xyz[0], *v = xyz[1], *plane = xyz[2];
      break;
    }
}

/* Unit-scale projection (one cell = 1) with the model centred on the origin. */
static void
unit_projection (TopoProjection   *proj,
                 const TopoCamera *camera)
{
  double yaw = camera->yaw * G_PI / 180.0;
  double pitch = CLAMP (camera->pitch, -90.0, 90.0) * G_PI / 180.0;
  double c = cos (yaw), s = sin (yaw), sp = sin (pitch), cp = cos (pitch);
  double gap = CLAMP (camera->distance, 0.0, 4.0) * ((double) proj->nu + (double) proj->nv) / 2;
  double x0 = -(double) proj->nu / 2, y0 = -(double) proj->nv / 2;
  double z0 = -((double) proj->n_planes - 1) / 2 * gap;

  proj->eu[0] = c, proj->eu[1] = s * sp;
  proj->ev[0] = -s, proj->ev[1] = c * sp;
  proj->ep[0] = 0, proj->ep[1] = -gap * cp;
  proj->origin[0] = x0 * c - y0 * s;
  proj->origin[1] = (x0 * s + y0 * c) * sp - z0 * cp;
  proj->upper_nearer = sp > 0;
  proj->depth_u = s * cp;
  proj->depth_v = c * cp;
}

void
topo_projection_init (TopoProjection   *proj,
                      gint64            nu,
                      gint64            nv,
                      guint             n_planes,
                      const TopoCamera *camera,
                      double            x,
                      double            y,
                      double            width,
                      double            height)
{
  double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
  double k, cx, cy;

  proj->nu = MAX (nu, 1);
  proj->nv = MAX (nv, 1);
  proj->n_planes = MAX (n_planes, 1);
  unit_projection (proj, camera);

  /* Bounding box of the corners of the bottom and the top plane. */
  for (int corner = 0; corner < 8; corner++)
    {
      double u = (corner & 1) ? proj->nu : 0;
      double v = (corner & 2) ? proj->nv : 0;
      double p = (corner & 4) ? proj->n_planes - 1 : 0;
      double px = proj->origin[0] + u * proj->eu[0] + v * proj->ev[0] + p * proj->ep[0];
      double py = proj->origin[1] + u * proj->eu[1] + v * proj->ev[1] + p * proj->ep[1];
      lo[0] = MIN (lo[0], px), hi[0] = MAX (hi[0], px);
      lo[1] = MIN (lo[1], py), hi[1] = MAX (hi[1], py);
    }
  k = MIN (width / MAX (hi[0] - lo[0], 1e-9), height / MAX (hi[1] - lo[1], 1e-9));
  k *= camera->zoom > 0 ? camera->zoom : 1.0;
  proj->scale = k;
  cx = (lo[0] + hi[0]) / 2, cy = (lo[1] + hi[1]) / 2;
  for (int i = 0; i < 2; i++)
    {
      proj->eu[i] *= k;
      proj->ev[i] *= k;
      proj->ep[i] *= k;
    }
  proj->origin[0] = x + width / 2 + camera->pan_x + (proj->origin[0] - cx) * k;
  proj->origin[1] = y + height / 2 + camera->pan_y + (proj->origin[1] - cy) * k;
}

void
topo_projection_point (const TopoProjection *proj,
                       double                u,
                       double                v,
                       double                p,
                       double               *sx,
                       double               *sy)
{
  *sx = proj->origin[0] + u * proj->eu[0] + v * proj->ev[0] + p * proj->ep[0];
  *sy = proj->origin[1] + u * proj->eu[1] + v * proj->ev[1] + p * proj->ep[1];
}

guint
topo_projection_paint_order (const TopoProjection *proj,
                             guint                 i)
{
  return proj->upper_nearer ? i : proj->n_planes - 1 - i;
}

gboolean
topo_projection_pick (const TopoProjection *proj,
                      double                sx,
                      double                sy,
                      gint64               *u,
                      gint64               *v,
                      guint                *plane)
{
  double det = proj->eu[0] * proj->ev[1] - proj->eu[1] * proj->ev[0];

  /* Seen edge-on a plane covers no area. */
  if (fabs (det) < 1e-9 * proj->scale * proj->scale)
    return FALSE;
  for (guint i = proj->n_planes; i-- > 0;)
    {
      guint p = topo_projection_paint_order (proj, i);   /* front first */
      double qx = sx - proj->origin[0] - p * proj->ep[0];
      double qy = sy - proj->origin[1] - p * proj->ep[1];
      double fu = (qx * proj->ev[1] - qy * proj->ev[0]) / det;
      double fv = (proj->eu[0] * qy - proj->eu[1] * qx) / det;

      if (fu >= 0 && fv >= 0 && fu < (double) proj->nu && fv < (double) proj->nv)
        {
          *u = (gint64) fu;
          *v = (gint64) fv;
          *plane = p;
          return TRUE;
        }
    }
  return FALSE;
}
