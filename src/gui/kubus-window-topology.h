/* kubus-window-topology.h — the window's Topology tabs beside the system tree (one per
 * different Cartesian topology of the report, the same ones shown once; beyond a handful one tab
 * with a drop-down list; one disabled "Topology" tab when it has none) and the
 * minimal File › Export View… for a topology. Part of KubusWindow (see kubus-window-private.h). */
#pragma once

#include "kubus-topology-view.h"
#include "kubus-window.h"

G_BEGIN_DECLS

/* Puts the system pane into a notebook (from kubus_window_init). */
void               kubus_window_topology_init   (KubusWindow *self);
/* New topology tabs for the report now shown (from show_browser). */
void               kubus_window_topology_update (KubusWindow *self);
/* Shows topology @topology's tab (the one of its group), or the system tree for -1. FALSE if
 * there is no such topology. */
gboolean           kubus_window_show_topology   (KubusWindow *self,
                                                 int          topology);
/* The topology shown (the first of its group), -1 for the system tree. */
int                kubus_window_get_shown_topology (KubusWindow *self);
/* The view of topology @topology (of its group of the same topologies: topo_groups_new), or
 * NULL; with the drop-down list, only while it shows that group. */
KubusTopologyView *kubus_window_get_topology_view (KubusWindow *self,
                                                   guint        topology);
/* The drop-down list of topologies, when there are more different ones than tabs (else NULL). */
GtkDropDown       *kubus_window_get_topology_chooser (KubusWindow *self);
/* Ctrl+T: from the system tree to the first topology and back. */
void               kubus_window_toggle_topology (KubusWindow *self);
/* The window's main menu (the header bar's primary menu button's model); borrowed. */
GMenuModel        *kubus_window_get_primary_menu (KubusWindow *self);
/* File › Export View…: the shown topology to PNG, SVG or PDF at a chosen size. */

G_END_DECLS
