/* kubus-node.h — generic access to the nodes behind tree rows (metric, call path, system node,
 * flat-profile region, module). */
#pragma once

#include "cube.h"
#include "kubus-profile.h"
#include "kubus-types.h"

G_BEGIN_DECLS

/* Name shown in a row; never NULL, owned by the node. */
const char *kubus_node_name        (KubusNodeKind kind, gconstpointer node);
/* Children of @node as shown in the view, as a new array of node pointers (kind in @child_kind),
 * or NULL for a leaf. Ghost metrics are left out. */
GPtrArray  *kubus_node_children    (KubusNodeKind kind, gconstpointer node, KubusNodeKind *child_kind);
/* Depth in its tree (0 for roots). */
guint       kubus_node_depth       (KubusNodeKind kind, gconstpointer node);
/* Pango markup describing the node for the info popover (new string). */
char       *kubus_node_info_markup (CubeReport *report, KubusNodeKind kind, gconstpointer node);

G_END_DECLS
