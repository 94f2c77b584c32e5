/* kubus-node-list.h — a GListModel of KubusNodeRow over an array of plain C nodes.
 *
 * Row objects are created the first time GTK asks for an item and kept while the list lives
 * (the list itself lives only while its parent row is expanded). */
#pragma once

#include <gio/gio.h>

#include "kubus-node-row.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_NODE_LIST (kubus_node_list_get_type ())
G_DECLARE_FINAL_TYPE (KubusNodeList, kubus_node_list, KUBUS, NODE_LIST, GObject)

/* Copies the @n_nodes pointers (not the nodes). */
KubusNodeList *kubus_node_list_new      (KubusNodeKind   kind,
                                         gpointer const *nodes,
                                         guint           n_nodes);
/* Position of @node in the list, or G_MAXUINT. */
guint          kubus_node_list_find     (KubusNodeList  *self,
                                         gconstpointer   node);

G_END_DECLS
