/* pattern-wavefront.c — pipeline refills of 2-D wavefront (SWEEP3D-style) codes.
 *
 * Dimension 0 of the Cartesian topology runs west → east, dimension 1 north → south.
 * A rank's receives fall into bursts (no send in between): in a sweep a rank receives from its
 * upstream neighbours, computes, and sends downstream. The set of directions of a burst is
 * remembered (the per-rank FIFO of recent incoming directions); a burst whose directions differ
 * from the previous burst's starts a new wavefront: its Late Sender time is a refill, charged to
 * the corner the wavefront comes from. A rank that receives along one axis only lies on the
 * origin's edge along the other axis, so that component is its own side of the grid. */
#include "analyze-private.h"

enum
{
  DIR_W = 1 << 0,
  DIR_E = 1 << 1,
  DIR_N = 1 << 2,
  DIR_S = 1 << 3,
};

struct _Wavefront
{
  const TraceCart *cart;
  int              me[2];
  int              size[2];
  gboolean         periodic[2];
};

Wavefront *
wavefront_new (const TraceDefs *defs,
               int              rank)
{
  TraceCart *cart = trace_defs_wavefront_cart (defs);
  Wavefront *wf;

  if (!cart || cart->coords[(gsize) rank * 2] < 0 || cart->coords[(gsize) rank * 2 + 1] < 0)
    return NULL;
  wf = g_new0 (Wavefront, 1);
  wf->cart = cart;
  for (int d = 0; d < 2; d++)
    {
      TraceCartDim *dim = g_hash_table_lookup (defs->cart_dims, GUINT_TO_POINTER (cart->dims[d]));
      wf->me[d] = cart->coords[(gsize) rank * 2 + d];
      wf->size[d] = dim ? (int) dim->size : 0;
      wf->periodic[d] = dim ? dim->periodic : FALSE;
    }
  return wf;
}

void
wavefront_free (Wavefront *wf)
{
  g_free (wf);
}

/* Offset along one dimension: -1 (from lower coordinate), +1 (higher) or 0 (not a neighbour). */
static int
step (Wavefront *wf,
      int        d,
      int        from)
{
  int delta = from - wf->me[d];
  if (delta == -1 || delta == 1)
    return delta;
  if (wf->periodic[d] && wf->size[d] > 2 && (delta == wf->size[d] - 1 || delta == 1 - wf->size[d]))
    return delta > 0 ? -1 : 1;
  return 0;
}

static guint
direction (Wavefront *wf,
           int        src)
{
  int cx, cy, sx, sy;

  if (src < 0)
    return 0;
  cx = wf->cart->coords[(gsize) src * 2];
  cy = wf->cart->coords[(gsize) src * 2 + 1];
  if (cx < 0 || cy < 0)
    return 0;
  sx = cx == wf->me[0] ? 0 : step (wf, 0, cx);
  sy = cy == wf->me[1] ? 0 : step (wf, 1, cy);
  if ((sx != 0) == (sy != 0))
    return 0;  /* not an edge neighbour */
  if (sx)
    return sx < 0 ? DIR_W : DIR_E;
  return sy < 0 ? DIR_N : DIR_S;
}

static int
corner (Wavefront *wf,
        guint      dirs)
{
  gboolean west, north;

  if (dirs & (DIR_W | DIR_E))
    west = (dirs & DIR_W) != 0;
  else
    west = wf->me[0] * 2 < wf->size[0];
  if (dirs & (DIR_N | DIR_S))
    north = (dirs & DIR_N) != 0;
  else
    north = wf->me[1] * 2 < wf->size[1];
  if (north)
    return west ? M_LS_WF_NW : M_LS_WF_NE;
  return west ? M_LS_WF_SW : M_LS_WF_SE;
}

void
wavefront_classify (Wavefront     *wf,
                    guint          n,
                    const gint32  *src,
                    const guint32 *burst,
                    int           *metric)
{
  guint prev_dirs = 0;

  for (guint i = 0; i < n;)
    {
      guint end = i;
      guint dirs = 0;

      while (end < n && burst[end] == burst[i])
        dirs |= direction (wf, src[end++]);
      if (dirs && dirs != prev_dirs)
        {
          int m = corner (wf, dirs);
          for (guint k = i; k < end; k++)
            metric[k] = direction (wf, src[k]) ? m : -1;
        }
      if (dirs)
        prev_dirs = dirs;
      i = end;
    }
}
