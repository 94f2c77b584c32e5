/* kubus-topology-cli.h — `kubus --view=topology:N [--high-resolution] --screenshot=OUT FILE`:
 * renders one topology headlessly (no display: no GTK window, only the browser's models, cairo
 * and Pango) into PNG, SVG or PDF, chosen by OUT's extension. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Parses "topology:N"; FALSE if @view is not of that form. */
gboolean kubus_topology_parse_view     (const char *view,
                                        guint      *topology);
/* Runs the headless screenshot for the parsed command-line @options (the application's
 * option dictionary: files, --view, --screenshot, --size, --metric, --cnode, --mode,
 * --calltree, --expand-largest, --external, --compare, --high-resolution).
 * Returns the exit status: 0 done, 1 failed (message on stderr), 2 usage error. */
int      kubus_topology_screenshot_run (GVariantDict *options);

G_END_DECLS
