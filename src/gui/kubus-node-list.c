/* kubus-node-list.c — see kubus-node-list.h. */
#include "kubus-node-list.h"

struct _KubusNodeList
{
  GObject        parent_instance;
  KubusNodeKind  kind;
  guint          n_nodes;
  gpointer      *nodes;
  KubusNodeRow **items;   /* lazily filled, same length */
};

static GType
kubus_node_list_get_item_type (GListModel *model)
{
  (void) model;
  return KUBUS_TYPE_NODE_ROW;
}

static guint
kubus_node_list_get_n_items (GListModel *model)
{
  return KUBUS_NODE_LIST (model)->n_nodes;
}

static gpointer
kubus_node_list_get_item (GListModel *model,
                          guint       position)
{
  KubusNodeList *self = KUBUS_NODE_LIST (model);

  if (position >= self->n_nodes)
    return NULL;
  if (self->items[position] == NULL)
    self->items[position] = kubus_node_row_new (self->kind, self->nodes[position]);
  return g_object_ref (self->items[position]);
}

static void
kubus_node_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = kubus_node_list_get_item_type;
  iface->get_n_items = kubus_node_list_get_n_items;
  iface->get_item = kubus_node_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (KubusNodeList, kubus_node_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      kubus_node_list_model_init))

static void
kubus_node_list_finalize (GObject *object)
{
  KubusNodeList *self = KUBUS_NODE_LIST (object);

  for (guint i = 0; i < self->n_nodes; i++)
    g_clear_object (&self->items[i]);
  g_free (self->items);
  g_free (self->nodes);
  G_OBJECT_CLASS (kubus_node_list_parent_class)->finalize (object);
}

static void
kubus_node_list_class_init (KubusNodeListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = kubus_node_list_finalize;
}

static void
kubus_node_list_init (KubusNodeList *self)
{
  (void) self;
}

KubusNodeList *
kubus_node_list_new (KubusNodeKind   kind,
                     gpointer const *nodes,
                     guint           n_nodes)
{
  KubusNodeList *self = g_object_new (KUBUS_TYPE_NODE_LIST, NULL);

  self->kind = kind;
  self->n_nodes = n_nodes;
  self->nodes = g_memdup2 (nodes, sizeof (gpointer) * MAX (n_nodes, 1));
  self->items = g_new0 (KubusNodeRow *, MAX (n_nodes, 1));
  return self;
}

guint
kubus_node_list_find (KubusNodeList *self,
                      gconstpointer  node)
{
  for (guint i = 0; i < self->n_nodes; i++)
    if (self->nodes[i] == node)
      return i;
  return G_MAXUINT;
}
