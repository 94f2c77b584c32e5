/* kubus-experiment.h — the Experiment menu: application actions that run the toolchain
 * (measure, analyze, simulate, compare; parameters in kubus-experiment-tools.h), the queue of
 * runs they feed, the run panel in every window and the recent studies on the start screen.
 *
 * Each menu item activates its action with an empty parameter, which opens the dialog; the
 * dialog activates the same action with the parameter filled in. `gapplication action
 * org.kubus.Kubus NAME PARAMETER` and the tests run exactly that code. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-run-queue.h"

G_BEGIN_DECLS

/* Adds the actions to @app and follows its windows (call from GApplication::startup). */
void           kubus_experiment_install     (GtkApplication *app);
/* The application's run queue (owned by @app). */
KubusRunQueue *kubus_experiment_get_queue   (GtkApplication *app);
/* Shows an error dialog for a failed run or a refused request, transient for the active
 * window. @details (may be NULL) goes into a scrollable monospace view: the tool's last lines. */
void           kubus_experiment_error       (GtkApplication *app,
                                             const char     *primary,
                                             const char     *secondary,
                                             const char     *details);
G_END_DECLS
