/* kubus-runner-progress.h — the one place that reads the progress lines of Kubus's tools.
 *
 * kubus-analyze and kubus-sim print, on standard error of their first rank,
 *
 *   kubus-analyze: [ 42%] reading the traces
 *   kubus-sim: [100%] writing the report
 *
 * ("PROGRAM: [%3d%%] PHASE", src/core/kubus-analyze.c and analyze-run.c). kubus-run prints no
 * progress: its run is as long as the program's. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when @line (without its newline) is a progress line of a Kubus tool: *@fraction gets the
 * share done (0…1) and *@phase (newly allocated, may be NULL if not wanted) what it is doing. */
gboolean kubus_runner_progress_parse (const char *line,
                                      double     *fraction,
                                      char      **phase);

G_END_DECLS
