/* kubus-node-row.h — the tiny GObject a tree row wraps around a plain C node.
 *
 * Created on demand by KubusNodeList only for rows GTK asks for (children of expanded rows),
 * never one per node up front (the Sysprof pattern). */
#pragma once

#include <gio/gio.h>

#include "kubus-types.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_NODE_ROW (kubus_node_row_get_type ())
G_DECLARE_FINAL_TYPE (KubusNodeRow, kubus_node_row, KUBUS, NODE_ROW, GObject)

/* Returns a new row for @node (not owned: the report or profile outlives the row). */
KubusNodeRow  *kubus_node_row_new      (KubusNodeKind kind,
                                        gpointer      node);
KubusNodeKind  kubus_node_row_get_kind (KubusNodeRow *self);
gpointer       kubus_node_row_get_node (KubusNodeRow *self);

G_END_DECLS
