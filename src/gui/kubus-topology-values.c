/* kubus-topology-values.c — see kubus-topology-values.h. */
#include <glib/gi18n.h>
#include <math.h>

#include "kubus-node.h"
#include "kubus-pane-model-private.h"
#include "kubus-topology-values.h"

TopoLayout *
kubus_topology_default_layout (const CubeCart *cart)
{
  g_autofree gint64 *sizes = g_new (gint64, MAX (cart->ndims, 1));
  const gint64 *first = NULL;

  for (guint d = 0; d < cart->ndims; d++)
    sizes[d] = cart->dims[d].size;
  /* Slices start where the first location sits, so that something shows. */
  if (cart->coords->len > 0)
    first = ((const CubeCartCoord *) g_ptr_array_index (cart->coords, 0))->coord;
  return topo_layout_new (cart->ndims, sizes, first);
}

TopoGrid *
kubus_topology_grid_new (KubusBrowser *browser,
                         guint         topology,
                         TopoLayout   *layout,
                         GError      **error)
{
  CubeReport *report = kubus_browser_get_report (browser);
  const CubeCart *cart;

  g_return_val_if_fail (topology < report->topologies->len, NULL);
  cart = g_ptr_array_index (report->topologies, topology);
  if (layout == NULL)
    layout = kubus_topology_default_layout (cart);
  return topo_grid_new (report, cart, layout, error);
}

static char *
format_number (double   value,
               gpointer data)
{
  return kubus_pane_model_format_number (data, value);
}

/* Name of the first selected row of @pane, "…" appended when there are more. */
static char *
selected_name (KubusPaneModel *pane)
{
  GtkSelectionModel *model = kubus_pane_model_get_selection (pane);
  g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (model);
  g_autoptr (GtkTreeListRow) row = NULL;
  g_autoptr (KubusNodeRow) item = NULL;

  if (gtk_bitset_is_empty (set))
    return NULL;
  row = g_list_model_get_item (G_LIST_MODEL (model), gtk_bitset_get_minimum (set));
  if (row == NULL)
    return NULL;
  item = gtk_tree_list_row_get_item (row);
  return g_strdup_printf ("%s%s", kubus_node_name (kubus_node_row_get_kind (item),
                                                   kubus_node_row_get_node (item)),
                          gtk_bitset_get_size (set) > 1 ? " …" : "");
}

char *
kubus_topology_caption (KubusBrowser *browser)
{
  KubusPaneModel *system = kubus_browser_get_pane (browser, KUBUS_PANE_SYSTEM);
  KubusLegendInfo legend = { 0 };
  char *caption;

  if (!kubus_pane_model_mode_available (system, kubus_pane_model_get_mode (system))
      || kubus_pane_model_get_mode (system) == KUBUS_MODE_ABSOLUTE)
    return g_strdup (kubus_pane_model_get_unit (system));
  kubus_pane_model_get_legend (system, &legend);
  caption = g_steal_pointer (&legend.caption);
  kubus_legend_info_clear (&legend);
  return caption;
}

void
kubus_topology_values_apply (KubusBrowser *browser,
                             guint         topology,
                             TopoGrid     *grid,
                             TopoScene    *scene)
{
  CubeReport *report = kubus_browser_get_report (browser);
  KubusPaneModel *system = kubus_browser_get_pane (browser, KUBUS_PANE_SYSTEM);
  g_autofree double *values = g_new0 (double, MAX (report->sysnodes->len, 1));
  g_autofree gboolean *level = g_new0 (gboolean, 64);
  g_autofree char *title = topo_cart_title (report, topology);
  g_autofree char *metric = selected_name (kubus_browser_get_pane (browser, KUBUS_PANE_METRIC));
  g_autofree char *call = selected_name (kubus_browser_get_pane (browser, KUBUS_PANE_CALL));
  g_autofree char *subtitle = NULL;
  g_autofree char *caption = kubus_topology_caption (browser);
  double max_abs = 0;
  guint n_levels = 64;

  for (guint i = 0; i < report->sysnodes->len; i++)
    values[i] = kubus_pane_model_node_value (system, KUBUS_NODE_SYSNODE,
                                             g_ptr_array_index (report->sysnodes, i), FALSE);
  topo_grid_set_values (grid, values);

  /* Low resolution: the tree's scale at the depth of the grid's nodes, over the whole
   * report — the tree's own range also holds the machine totals, which would leave every
   * location near the cold end. */
  for (gint64 c = 0; c < grid->n_cells; c++)
    if (grid->cell_node[c] >= 0)
      {
        guint depth = ((CubeSysNode *) g_ptr_array_index (report->sysnodes, grid->cell_node[c]))->depth;
        if (depth >= n_levels)
          {
            level = g_renew (gboolean, level, depth + 1);
            for (guint d = n_levels; d <= depth; d++)
              level[d] = FALSE;
            n_levels = depth + 1;
          }
        level[depth] = TRUE;
      }
  for (guint i = 0; i < report->sysnodes->len; i++)
    {
      CubeSysNode *n = g_ptr_array_index (report->sysnodes, i);
      if (n->depth < n_levels && level[n->depth] && !isnan (values[i]))
        max_abs = MAX (max_abs, fabs (values[i]));
    }
  topo_scene_set_scale (scene, system->scale, max_abs, system->is_signed, system->insignificant);

  if (metric != NULL && call != NULL)
    /* TRANSLATORS: what the topology shows: metric, call path, value mode */
    subtitle = g_strdup_printf (_("%s · %s · %s"), metric, call,
                                kubus_value_mode_label (kubus_pane_model_get_mode (system)));
  topo_scene_set_texts (scene, title, subtitle, caption, format_number, system);
  topo_scene_values_changed (scene);
}

void
kubus_topology_selected_cells (KubusBrowser *browser,
                               TopoGrid     *grid,
                               GArray       *cells)
{
  CubeReport *report = kubus_browser_get_report (browser);
  KubusPaneModel *system = kubus_browser_get_pane (browser, KUBUS_PANE_SYSTEM);
  GtkSelectionModel *model = kubus_pane_model_get_selection (system);
  g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (model);
  g_autoptr (GHashTable) inner = NULL;   /* selected nodes without a cell of their own */
  GtkBitsetIter iter;
  guint pos;

  if (gtk_bitset_iter_init_first (&iter, set, &pos))
    do
      {
        g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (model), pos);
        g_autoptr (KubusNodeRow) item = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;
        const CubeSysNode *node;

        if (item == NULL || kubus_node_row_get_kind (item) != KUBUS_NODE_SYSNODE)
          continue;
        node = kubus_node_row_get_node (item);
        if (node->index < grid->n_sysnodes && grid->node_cell[node->index] >= 0)
          g_array_append_val (cells, grid->node_cell[node->index]);
        else
          {
            if (inner == NULL)
              inner = g_hash_table_new (NULL, NULL);
            g_hash_table_add (inner, (gpointer) node);
          }
      }
    while (gtk_bitset_iter_next (&iter, &pos));

  if (inner == NULL)
    return;
  for (gint64 c = 0; c < grid->n_cells; c++)
    if (grid->cell_node[c] >= 0)
      for (const CubeSysNode *n = g_ptr_array_index (report->sysnodes, grid->cell_node[c]);
           n != NULL; n = n->parent)
        if (g_hash_table_contains (inner, n))
          {
            g_array_append_val (cells, c);
            break;
          }
}
