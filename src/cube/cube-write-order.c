/* cube-write-order.c — the ids a report is written with: 0..n-1 in the order the file lists
 * the nodes of each tree (cube-write-private.h). A report read from a file with ids that have
 * gaps, or built by the algebra from two reports (call paths of B appended after A's), would
 * otherwise be written with ids cubelib cannot index (it sizes its arrays by the count). */
#include "cube-write-private.h"

/* Depth-first pre-order of the trees under @roots into @out, without recursion; nodes for which
 * @skip says so are left out with their subtrees. */
static void
pre_order (const GPtrArray *roots,
           GPtrArray      *(*children) (gconstpointer node),
           gboolean        (*skip) (gconstpointer node),
           GPtrArray       *out)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();

  for (guint i = roots->len; i-- > 0;)
    g_ptr_array_add (stack, g_ptr_array_index (roots, i));
  while (stack->len > 0)
    {
      gpointer   n = g_ptr_array_steal_index (stack, stack->len - 1);
      GPtrArray *kids;

      if (skip != NULL && skip (n))
        continue;
      g_ptr_array_add (out, n);
      kids = children (n);
      for (guint i = kids->len; i-- > 0;)
        g_ptr_array_add (stack, g_ptr_array_index (kids, i));
    }
}

static GPtrArray *
metric_children (gconstpointer m)
{
  return ((const CubeMetric *)m)->children;
}

static GPtrArray *
cnode_children (gconstpointer c)
{
  return ((const CubeCnode *)c)->children;
}

void
cube_write_order_init (CubeWriteOrder   *order,
                       const CubeReport *report,
                       gboolean        (*skip_metric) (gconstpointer metric))
{
  order->metrics = g_ptr_array_new ();
  order->cnodes = g_ptr_array_new ();
  order->metric_id = g_new (gint64, MAX (report->metrics->len, 1));
  order->cnode_id = g_new (gint64, MAX (report->cnodes->len, 1));
  order->region_id = g_new (gint64, MAX (report->regions->len, 1));

  for (guint i = 0; i < report->metrics->len; i++)
    order->metric_id[i] = -1;
  pre_order (report->metric_roots, metric_children, skip_metric, order->metrics);
  for (guint i = 0; i < order->metrics->len; i++)
    order->metric_id[((CubeMetric *)g_ptr_array_index (order->metrics, i))->index] = i;

  pre_order (report->cnode_roots, cnode_children, NULL, order->cnodes);
  for (guint i = 0; i < order->cnodes->len; i++)
    order->cnode_id[((CubeCnode *)g_ptr_array_index (order->cnodes, i))->index] = i;

  for (guint i = 0; i < report->regions->len; i++)
    order->region_id[((CubeRegion *)g_ptr_array_index (report->regions, i))->index] = i;
}

void
cube_write_order_clear (CubeWriteOrder *order)
{
  g_clear_pointer (&order->metrics, g_ptr_array_unref);
  g_clear_pointer (&order->cnodes, g_ptr_array_unref);
  g_clear_pointer (&order->metric_id, g_free);
  g_clear_pointer (&order->cnode_id, g_free);
  g_clear_pointer (&order->region_id, g_free);
}
