/* topology-grid.h — a Cartesian topology of a report laid out as cells, with one value per cell
 * (plain C over src/cube: no GTK; tested without a display).
 *
 * A cell holds the system-tree node whose coordinate maps to it under the layout (usually a
 * location; CUBE 3 may give coordinates to processes or machines, which then show their
 * aggregated value). Cells without a node are empty. */
#pragma once

#include "cube.h"
#include "topology-layout.h"

G_BEGIN_DECLS

typedef struct
{
  const CubeCart *cart;        /* borrowed: the report outlives the grid */
  TopoLayout     *layout;      /* owned */
  gint64          n_cells;
  gint           *cell_node;   /* per cell: index into report->sysnodes, -1 for none */
  gboolean       *has_location;/* per cell: cell_node >= 0 */
  double         *values;      /* per cell: the node's value (NaN for empty cells) */
  gint64         *node_cell;   /* per system-tree node: its cell, -1 if none (or not shown) */
  guint           n_sysnodes;
  guint           n_placed;    /* coordinates that landed on a cell */
  guint           n_elsewhere; /* coordinates in other slices */
  guint           n_invalid;   /* coordinates outside the dimensions */
  guint           n_shared;    /* coordinates that a second node also has (the later wins) */
} TopoGrid;

/* Lays out @cart (a topology of @report) with @layout (taken). NULL with @error when the
 * layout has more than TOPO_MAX_CELLS cells. */
TopoGrid *topo_grid_new            (const CubeReport *report,
                                    const CubeCart   *cart,
                                    TopoLayout       *layout,
                                    GError          **error);
void      topo_grid_free           (TopoGrid *grid);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TopoGrid, topo_grid_free)

/* values[c] = per_sysnode[cell_node[c]] (report->sysnodes->len entries) or NaN. */
void      topo_grid_set_values     (TopoGrid     *grid,
                                    const double *per_sysnode);
/* Located cells of grid plane @plane (an index along @stacking_axis: 0 = x, 1 = y, 2 = z). */
gint64    topo_grid_plane_count    (const TopoGrid *grid,
                                    guint           stacking_axis,
                                    gint64          plane);
/* Name of dimension @dim ("dimension N" when unnamed); new string. */
char     *topo_grid_dim_name       (const TopoGrid *grid,
                                    guint           dim);
/* The topology's name ("Topology N" with @index when unnamed); new string. */
char     *topo_cart_display_name   (const CubeCart *cart,
                                    guint           index);

/* The topologies of a report that are the same (cube_cart_same) shown as one: a code that
 * creates its communicators again and again defines the same grid many times (CP2K: 103
 * topologies, 6 different). */
typedef struct
{
  guint  first;    /* index of its first topology in report->topologies */
  GArray *members; /* of guint: every topology of the group, ascending (first included) */
  char  *label;    /* the name, then what tells it from groups of the same name (dimensions
                    * "2×2", then the ranks or "#2"), then "×N" for N topologies */
  char  *title;    /* the label without "×N": the grid's title */
  char  *tooltip;  /* the label's parts spelled out: dimensions, periodicity, which topologies */
} TopoGroup;

/* The groups of @report's topologies, in the order of their first topologies; of TopoGroup*,
 * freed with the array. */
GPtrArray *topo_groups_new          (const CubeReport *report);
/* The title of topology @topology of @report: its name, told apart from the other topologies
 * of the same name as its group's label is (without the count); new string. */
char      *topo_cart_title          (const CubeReport *report,
                                     guint             topology);
/* The index in @groups of the group holding topology @topology, or -1. */
int        topo_groups_find         (GPtrArray        *groups,
                                     guint             topology);

G_END_DECLS
