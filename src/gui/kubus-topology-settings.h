/* kubus-topology-settings.h — the topology view's settings, remembered per report and topology.
 *
 * One key file, $XDG_STATE_HOME/kubus/topology-views.ini (g_get_user_state_dir), one group per
 * (report path, topology index), the most recently used TOPO_SETTINGS_KEEP groups kept. Saved
 * atomically (g_key_file_save_to_file), re-read before each save so that windows do not undo
 * each other's changes. */
#pragma once

#include "topology-render.h"

G_BEGIN_DECLS

#define TOPO_SETTINGS_KEEP 200

/* Fills @settings and @layout (the layout string of topo_layout_to_string; new string, or
 * NULL) from what was remembered for @report_path's topology @topology. FALSE (nothing
 * changed) when nothing was. */
gboolean kubus_topology_settings_load (const char    *report_path,
                                       guint          topology,
                                       TopoSettings  *settings,
                                       char         **layout);
gboolean kubus_topology_settings_save (const char         *report_path,
                                       guint               topology,
                                       const TopoSettings *settings,
                                       const char         *layout,
                                       GError            **error);
/* The file used (new string). */
char    *kubus_topology_settings_path (void);

G_END_DECLS
