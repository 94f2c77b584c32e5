/* topology-grid.c — see topology-grid.h. */
#include <glib/gi18n.h>
#include <math.h>

#include "topology-grid.h"

TopoGrid *
topo_grid_new (const CubeReport *report,
               const CubeCart   *cart,
               TopoLayout       *layout,
               GError          **error)
{
  g_autoptr (TopoLayout) owned = layout;
  gint64 n = topo_layout_n_cells (layout);
  TopoGrid *grid;

  g_return_val_if_fail (cart->ndims == layout->ndims, NULL);
  if (n > TOPO_MAX_CELLS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("This layout has %lld cells, more than the %d the view draws: "
                     "show a dimension as a slice instead of folding it into an axis."),
                   (long long) n, TOPO_MAX_CELLS);
      return NULL;
    }
  grid = g_new0 (TopoGrid, 1);
  grid->cart = cart;
  grid->layout = g_steal_pointer (&owned);
  grid->n_cells = n;
  grid->cell_node = g_new (gint, n);
  grid->has_location = g_new0 (gboolean, n);
  grid->values = g_new (double, n);
  grid->n_sysnodes = report->sysnodes->len;
  grid->node_cell = g_new (gint64, MAX (grid->n_sysnodes, 1));
  for (gint64 c = 0; c < n; c++)
    {
      grid->cell_node[c] = -1;
      grid->values[c] = NAN;
    }
  for (guint i = 0; i < grid->n_sysnodes; i++)
    grid->node_cell[i] = -1;

  for (guint i = 0; i < cart->coords->len; i++)
    {
      const CubeCartCoord *cc = g_ptr_array_index (cart->coords, i);
      gint64 xyz[3], cell;
      gboolean inside = TRUE;

      if (cc->node == NULL || cc->node->index >= grid->n_sysnodes)
        continue;
      for (guint d = 0; d < cart->ndims; d++)
        if (cc->coord[d] < 0 || cc->coord[d] >= layout->sizes[d])
          inside = FALSE;
      if (!inside)
        {
          grid->n_invalid++;
          continue;
        }
      if (!topo_layout_map (grid->layout, cc->coord, xyz))
        {
          grid->n_elsewhere++;
          continue;
        }
      cell = topo_layout_cell_index (grid->layout, xyz);
      if (grid->cell_node[cell] >= 0)
        {
          grid->n_shared++;
          grid->node_cell[grid->cell_node[cell]] = -1;
        }
      else
        grid->n_placed++;
      grid->cell_node[cell] = (gint) cc->node->index;
      grid->has_location[cell] = TRUE;
      grid->node_cell[cc->node->index] = cell;
    }
  return grid;
}

void
topo_grid_free (TopoGrid *grid)
{
  if (grid == NULL)
    return;
  topo_layout_free (grid->layout);
  g_free (grid->cell_node);
  g_free (grid->has_location);
  g_free (grid->values);
  g_free (grid->node_cell);
  g_free (grid);
}

void
topo_grid_set_values (TopoGrid     *grid,
                      const double *per_sysnode)
{
  for (gint64 c = 0; c < grid->n_cells; c++)
    grid->values[c] = grid->cell_node[c] >= 0 ? per_sysnode[grid->cell_node[c]] : NAN;
}

gint64
topo_grid_plane_count (const TopoGrid *grid,
                       guint           stacking_axis,
                       gint64          plane)
{
  const gint64 *e = grid->layout->extent;
  gint64 count = 0, xyz[3];

  g_return_val_if_fail (stacking_axis < 3, 0);
  if (plane < 0 || plane >= e[stacking_axis])
    return 0;
  for (gint64 a = 0; a < e[(stacking_axis + 1) % 3]; a++)
    for (gint64 b = 0; b < e[(stacking_axis + 2) % 3]; b++)
      {
        xyz[stacking_axis] = plane;
        xyz[(stacking_axis + 1) % 3] = a;
        xyz[(stacking_axis + 2) % 3] = b;
        count += grid->has_location[topo_layout_cell_index (grid->layout, xyz)] ? 1 : 0;
      }
  return count;
}

char *
topo_grid_dim_name (const TopoGrid *grid,
                    guint           dim)
{
  const char *name = dim < grid->cart->ndims ? grid->cart->dims[dim].name : NULL;

  if (name != NULL && name[0] != '\0')
    return g_strdup (name);
  return g_strdup_printf (_("dimension %u"), dim);
}

char *
topo_cart_display_name (const CubeCart *cart,
                        guint           index)
{
  if (cart->name != NULL && cart->name[0] != '\0')
    return g_strdup (cart->name);
  return g_strdup_printf (_("Topology %u"), index);
}
