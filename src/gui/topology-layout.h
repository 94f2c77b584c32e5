/* topology-layout.h — how the dimensions of a Cartesian topology map onto the three axes the
 * topology view draws (plain C: GLib only, no GTK; tested without a display).
 *
 * Every dimension has a role: one of the axes x, y, z, or a slice (a fixed index). Several
 * dimensions on one axis are folded into it: positions combine in mixed radix with the
 * lower-numbered dimension outermost (x = i_a · size_b + i_b for dimensions a < b on x).
 * An axis with no dimension has extent 1. Cell index = x + nx · (y + ny · z). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  TOPO_AXIS_X,
  TOPO_AXIS_Y,
  TOPO_AXIS_Z,
  TOPO_AXIS_SLICE,
} TopoAxis;

/* The default layout folds dimensions while the grid stays at most this many cells; further
 * dimensions become slices. */
#define TOPO_DEFAULT_MAX_CELLS 32768
/* The view refuses to draw more cells than this (it asks for a slice instead). */
#define TOPO_MAX_CELLS (1 << 20)

typedef struct
{
  guint     ndims;
  gint64   *sizes;      /* per dimension, ≥ 1 */
  TopoAxis *axis;       /* per dimension */
  gint64   *slice;      /* per dimension: the index shown when axis is TOPO_AXIS_SLICE */
  /* derived by topo_layout_update */
  gint64   *stride;     /* per dimension: weight of its index within its axis (0 for slices) */
  gint64    extent[3];  /* cells along x, y, z (saturates at G_MAXINT64 / 2) */
} TopoLayout;

/* The default layout of a grid: dimensions 0, 1, 2 on x, y, z; each further dimension folded
 * into the smaller of x and y while the grid keeps at most TOPO_DEFAULT_MAX_CELLS cells,
 * else a slice at @first_coord's index (NULL: 0). Sizes < 1 count as 1. Free with
 * topo_layout_free. */
TopoLayout *topo_layout_new        (guint         ndims,
                                    const gint64 *sizes,
                                    const gint64 *first_coord);
TopoLayout *topo_layout_copy       (const TopoLayout *layout);
void        topo_layout_free       (TopoLayout *layout);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TopoLayout, topo_layout_free)

/* Sets @dim's role (and, for a slice, its index, clamped to the dimension). */
void        topo_layout_set_role   (TopoLayout *layout,
                                    guint       dim,
                                    TopoAxis    axis,
                                    gint64      slice);
/* Cells of the grid (product of the extents, saturating). */
gint64      topo_layout_n_cells    (const TopoLayout *layout);
/* Position of @coord (ndims entries). FALSE when it lies outside the shown slice or outside
 * the dimensions. */
gboolean    topo_layout_map        (const TopoLayout *layout,
                                    const gint64     *coord,
                                    gint64            xyz[3]);
/* The topology coordinate at @xyz (@coord: ndims entries; slices give their index). */
void        topo_layout_unmap      (const TopoLayout *layout,
                                    const gint64      xyz[3],
                                    gint64           *coord);
gint64      topo_layout_cell_index (const TopoLayout *layout,
                                    const gint64      xyz[3]);
void        topo_layout_cell_xyz   (const TopoLayout *layout,
                                    gint64            cell,
                                    gint64            xyz[3]);
/* Dimensions on @axis in folding order (outermost first); returns how many (≤ ndims). */
guint       topo_layout_axis_dims  (const TopoLayout *layout,
                                    TopoAxis          axis,
                                    guint            *dims);

/* "x y z s3 …": one word per dimension (x, y, z, or s and the slice index). */
char       *topo_layout_to_string  (const TopoLayout *layout);
/* Applies a string of topo_layout_to_string; FALSE (layout unchanged) if it does not fit
 * this layout's dimensions. */
gboolean    topo_layout_from_string (TopoLayout *layout,
                                     const char *text);

G_END_DECLS
