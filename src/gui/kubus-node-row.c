/* kubus-node-row.c — see kubus-node-row.h. */
#include "kubus-node-row.h"

struct _KubusNodeRow
{
  GObject       parent_instance;
  KubusNodeKind kind;
  gpointer      node;
};

G_DEFINE_FINAL_TYPE (KubusNodeRow, kubus_node_row, G_TYPE_OBJECT)

static void
kubus_node_row_class_init (KubusNodeRowClass *klass)
{
  (void) klass;
}

static void
kubus_node_row_init (KubusNodeRow *self)
{
  (void) self;
}

KubusNodeRow *
kubus_node_row_new (KubusNodeKind kind,
                    gpointer      node)
{
  KubusNodeRow *self = g_object_new (KUBUS_TYPE_NODE_ROW, NULL);

  self->kind = kind;
  self->node = node;
  return self;
}

KubusNodeKind
kubus_node_row_get_kind (KubusNodeRow *self)
{
  g_return_val_if_fail (KUBUS_IS_NODE_ROW (self), KUBUS_NODE_METRIC);
  return self->kind;
}

gpointer
kubus_node_row_get_node (KubusNodeRow *self)
{
  g_return_val_if_fail (KUBUS_IS_NODE_ROW (self), NULL);
  return self->node;
}
