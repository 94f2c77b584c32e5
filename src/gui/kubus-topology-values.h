/* kubus-topology-values.h — what the topology view shows, taken from the browser's system pane
 * (no widgets: the view, the headless screenshot and the tests share it).
 *
 * The cells show exactly the values the system tree shows for the current metric and call
 * path selection and value mode (collapsed values: a location's own value, a process or
 * machine with a coordinate its aggregate), in the tree's number format, colour scale and
 * insignificance threshold. */
#pragma once

#include "kubus-browser.h"
#include "topology-render.h"

G_BEGIN_DECLS

/* Sets @grid's values and @scene's colour scale and texts from @browser (both borrowed; the
 * scene keeps a pointer to the browser's system pane for number formatting). */
void     kubus_topology_values_apply   (KubusBrowser *browser,
                                        guint         topology,
                                        TopoGrid     *grid,
                                        TopoScene    *scene);
/* Cells of the system-tree nodes selected in @browser (a selected process or machine stands
 * for its descendants' cells), appended to @cells (gint64). */
void     kubus_topology_selected_cells (KubusBrowser *browser,
                                        TopoGrid     *grid,
                                        GArray       *cells);
/* A new grid for topology @topology of @browser's report with @layout (taken; NULL for the
 * default layout). NULL with @error if it has too many cells. */
TopoGrid *kubus_topology_grid_new      (KubusBrowser *browser,
                                        guint         topology,
                                        TopoLayout   *layout,
                                        GError      **error);
/* What the numbers of kubus_pane_model_format_number() are in, for the system pane: the unit
 * in the absolute mode, else the mode's caption ("% of total", …); new string. */
char     *kubus_topology_caption      (KubusBrowser *browser);
/* The default layout of topology @topology. */
TopoLayout *kubus_topology_default_layout (const CubeCart *cart);

G_END_DECLS
