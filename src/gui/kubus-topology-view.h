/* kubus-topology-view.h — one Cartesian topology of the report as stacked 3-D planes: a small
 * toolbar (resolution, view settings, axis assignment, zoom) over a canvas that draws a
 * TopoScene. Rotate by dragging or with the arrow keys, pan with Shift+drag, zoom with the
 * wheel, a pinch or Ctrl+plus/minus, Ctrl+0 fits. Hovering a cell shows its coordinates,
 * location and value; a click selects the location in the system tree (Ctrl+click adds), and
 * the system tree's selection is outlined. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-browser.h"
#include "topology-render.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_TOPOLOGY_VIEW (kubus_topology_view_get_type ())
G_DECLARE_FINAL_TYPE (KubusTopologyView, kubus_topology_view, KUBUS, TOPOLOGY_VIEW, GtkWidget)

GtkWidget    *kubus_topology_view_new          (void);
/* Shows topology @topology of @browser's report (@browser NULL: nothing). Settings are
 * remembered for @report_path (NULL: not remembered). */
void          kubus_topology_view_set_browser  (KubusTopologyView *self,
                                                KubusBrowser      *browser,
                                                guint              topology,
                                                const char        *report_path);
guint         kubus_topology_view_get_topology (KubusTopologyView *self);
/* Draws what the canvas shows into @cr at @width × @height (export, screenshots). */
void          kubus_topology_view_render       (KubusTopologyView *self,
                                                cairo_t           *cr,
                                                int                width,
                                                int                height);
void          kubus_topology_view_set_settings (KubusTopologyView  *self,
                                                const TopoSettings *settings);
const TopoSettings *kubus_topology_view_get_settings (KubusTopologyView *self);
/* Applies a layout string (topo_layout_to_string); FALSE if it does not fit. */
gboolean      kubus_topology_view_set_layout   (KubusTopologyView *self,
                                                const char        *layout);
/* Brings values and outlines up to date now (normally done when drawn). */
void          kubus_topology_view_flush        (KubusTopologyView *self);
/* For tests and benchmarks. */
TopoScene    *kubus_topology_view_get_scene    (KubusTopologyView *self);
GtkWidget    *kubus_topology_view_get_canvas   (KubusTopologyView *self);
/* Selects the location of @cell in the system tree (@add: keep the other selected rows). */
gboolean      kubus_topology_view_select_cell  (KubusTopologyView *self,
                                                gint64             cell,
                                                gboolean           add);
/* Tooltip text (Pango markup) for @cell; new string. */
char         *kubus_topology_view_cell_markup  (KubusTopologyView *self,
                                                gint64             cell);

G_END_DECLS
