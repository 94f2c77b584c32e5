/* kubus-experiment-dialogs.h — the dialogs of the Experiment menu. Each ends by activating its
 * application action with the parameter it collected (kubus-experiment-tools.h), so a dialog
 * holds no logic a test would miss. */
#pragma once

#include <gtk/gtk.h>

#include "cube.h"

G_BEGIN_DECLS

/* Measure: executable, arguments, ranks, extra launcher options, experiment folder. */
GtkWindow *kubus_measure_dialog_show   (GtkWindow      *parent,
                                        GtkApplication *app);
/* Simulate: the hypothesis editor for @experiment. @report (may be NULL) is the open analysis:
 * its call tree's regions are offered (copied: the dialog does not keep @report). */
GtkWindow *kubus_simulate_dialog_show  (GtkWindow      *parent,
                                        GtkApplication *app,
                                        const char     *experiment,
                                        CubeReport     *report);
/* Compare: original and simulated report, prefilled with @original and @simulated (may be
 * NULL). */
GtkWindow *kubus_compare_dialog_show   (GtkWindow      *parent,
                                        GtkApplication *app,
                                        const char     *original,
                                        const char     *simulated);
/* A folder chooser whose answer activates app.analyze. */
void       kubus_analyze_dialog_show   (GtkWindow      *parent,
                                        GtkApplication *app);
/* After a measurement: "Analyze the trace now?"; Analyze activates app.analyze(@folder);
 * Open Profile (response KUBUS_OFFER_RESPONSE_PROFILE, when @folder has profile.cube) opens
 * the profile kubus-run wrote in a window of its own. */
#define KUBUS_OFFER_RESPONSE_PROFILE 1
void       kubus_offer_analyze         (GtkWindow      *parent,
                                        GtkApplication *app,
                                        const char     *folder);

G_END_DECLS
