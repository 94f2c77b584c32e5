/* topology-grid.c — see topology-grid.h. */
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

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

/* ---- groups of the same topologies ----------------------------------------------------------- */

static void
topo_group_free (gpointer data)
{
  TopoGroup *g = data;

  g_array_unref (g->members);
  g_free (g->label);
  g_free (g->title);
  g_free (g->tooltip);
  g_free (g);
}

/* "2×2×1" */
static char *
dims_text (const CubeCart *cart)
{
  GString *s = g_string_new (NULL);

  for (guint d = 0; d < cart->ndims; d++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d > 0 ? "×" : "", cart->dims[d].size);
  return g_string_free (s, FALSE);
}

/* The rank a coordinate's node stands for: a thread's process, or the node's own. */
static gint64
node_rank (const CubeSysNode *node)
{
  if (node->kind == CUBE_SYS_THREAD && node->parent != NULL)
    return node->parent->rank;
  return node->rank;
}

/* "ranks 0, 1" for a topology of at most @max coordinates (by coordinate order), else NULL. */
static char *
ranks_text (const CubeCart *cart,
            guint           max)
{
  GString *s;

  if (cart->coords->len == 0 || cart->coords->len > max)
    return NULL;
  s = g_string_new (NULL);
  for (guint i = 0; i < cart->coords->len; i++)
    {
      const CubeCartCoord *c = g_ptr_array_index (cart->coords, i);
      g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", node_rank (c->node));
    }
  /* TRANSLATORS: tells a topology from others of the same name and size, %s is a list of
   * MPI ranks such as "0, 1" */
  {
    g_autofree char *list = g_string_free (s, FALSE);
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "rank %s", "ranks %s", cart->coords->len), list);
  }
}

/* "0-5, 8, 11, …" (at most @max items). */
static char *
members_text (GArray *members,
              guint   max)
{
  GString *s = g_string_new (NULL);
  guint listed = 0;

  for (guint i = 0; i < members->len; i++)
    {
      guint first = g_array_index (members, guint, i), last = first;
      while (i + 1 < members->len && g_array_index (members, guint, i + 1) == last + 1)
        last = g_array_index (members, guint, ++i);
      if (listed++ == max)
        {
          g_string_append (s, ", …");
          break;
        }
      g_string_append_printf (s, listed > 1 ? ", %u" : "%u", first);
      if (last > first)
        g_string_append_printf (s, "–%u", last);
    }
  return g_string_free (s, FALSE);
}

GPtrArray *
topo_groups_new (const CubeReport *report)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func (topo_group_free);
  g_autofree guint *classes = cube_report_cart_classes (report);
  g_autofree int *group_of = g_new0 (int, MAX (report->topologies->len, 1));
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  for (guint t = 0; t < report->topologies->len; t++)
    {
      TopoGroup *g;
      if (classes[t] != t)
        {
          g = g_ptr_array_index (groups, group_of[classes[t]]);
          g_array_append_val (g->members, t);
          continue;
        }
      g = g_new0 (TopoGroup, 1);
      g->first = t;
      g->members = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_val (g->members, t);
      group_of[t] = (int) groups->len;
      g_ptr_array_add (groups, g);
      g_ptr_array_add (names, topo_cart_display_name (g_ptr_array_index (report->topologies, t), t));
    }
  /* labels: the name; where others share it, with the dimensions; where others still share
   * that, with the ranks of a small topology or a number */
  for (guint i = 0; i < groups->len; i++)
    {
      TopoGroup *g = g_ptr_array_index (groups, i);
      const CubeCart *cart = g_ptr_array_index (report->topologies, g->first);
      g_autofree char *dims = dims_text (cart);
      g_autofree char *label = g_strdup (g_ptr_array_index (names, i));
      guint same_name = 0, same_dims = 0, nth = 0;

      for (guint k = 0; k < groups->len; k++)
        {
          const TopoGroup *o = g_ptr_array_index (groups, k);
          const CubeCart *oc = g_ptr_array_index (report->topologies, o->first);
          g_autofree char *odims = NULL;
          if (g_strcmp0 (g_ptr_array_index (names, k), g_ptr_array_index (names, i)) != 0)
            continue;
          same_name++;
          odims = dims_text (oc);
          if (g_strcmp0 (odims, dims) == 0)
            {
              same_dims++;
              nth += k <= i;
            }
        }
      if (same_name > 1)
        {
          char *t = g_strdup_printf ("%s %s", label, dims);
          g_free (label);
          label = t;
        }
      if (same_dims > 1)
        {
          g_autofree char *ranks = ranks_text (cart, 4);
          char *t = ranks != NULL ? g_strdup_printf ("%s (%s)", label, ranks)
                                  : g_strdup_printf ("%s #%u", label, nth);
          g_free (label);
          label = t;
        }
      if (g->members->len > 1)
        /* TRANSLATORS: a topology's name and how many topologies of the report are the same
         * as it, e.g. "MPI_Cart_create 2×2 ×21" */
        g->label = g_strdup_printf (_("%s ×%u"), label, g->members->len);
      else
        g->label = g_strdup (label);
      g->title = g_steal_pointer (&label);
      {
        GString *tip = g_string_new (g_ptr_array_index (names, i));
        g_autofree char *list = members_text (g->members, 12);
        g_string_append_printf (tip, "\n%s", dims);
        for (guint d = 0; d < cart->ndims; d++)
          if (cart->dims[d].periodic)
            {
              g_string_append (tip, _(", periodic"));
              break;
            }
        g_string_append_printf (tip, "\n");
        g_string_append_printf (tip, g_dngettext (GETTEXT_PACKAGE, "%u location", "%u locations",
                                                  cart->coords->len), cart->coords->len);
        g_string_append (tip, "\n");
        if (g->members->len > 1)
          /* TRANSLATORS: %u is a count, %s a list of indices such as "0–5, 8, 11, …" */
          g_string_append_printf (tip, _("%u identical topologies: %s"), g->members->len, list);
        else
          g_string_append_printf (tip, _("topology %s"), list);
        g->tooltip = g_string_free (tip, FALSE);
      }
    }
  return groups;
}

char *
topo_cart_title (const CubeReport *report,
                 guint             topology)
{
  g_autofree char *name = topo_cart_display_name (g_ptr_array_index (report->topologies, topology), topology);
  g_autoptr (GPtrArray) groups = NULL;
  int g;

  gboolean shared = FALSE;

  /* the plain name where no other topology has it: no groups to build on every repaint */
  for (guint t = 0; t < report->topologies->len && !shared; t++)
    if (t != topology)
      {
        g_autofree char *other = topo_cart_display_name (g_ptr_array_index (report->topologies, t), t);
        shared = strcmp (other, name) == 0;
      }
  if (!shared)
    return g_steal_pointer (&name);
  groups = topo_groups_new (report);
  g = topo_groups_find (groups, topology);
  if (g < 0)
    return g_steal_pointer (&name);
  return g_strdup (((const TopoGroup *) g_ptr_array_index (groups, g))->title);
}

int
topo_groups_find (GPtrArray *groups,
                  guint      topology)
{
  for (guint i = 0; i < groups->len; i++)
    {
      const TopoGroup *g = g_ptr_array_index (groups, i);
      for (guint k = 0; k < g->members->len; k++)
        if (g_array_index (g->members, guint, k) == topology)
          return (int) i;
    }
  return -1;
}
