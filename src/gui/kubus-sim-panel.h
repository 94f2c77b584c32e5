/* kubus-sim-panel.h — what a simulation predicts, above the trees of its report or of the
 * comparison original − simulated (issue 24, item 2): the hypothesis, original → predicted run
 * time in words, whether the change exceeds the simulator's identity error, the largest gains
 * and losses (a click selects them in the trees) and the approximations the simulator made. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-sim-summary.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_SIM_PANEL (kubus_sim_panel_get_type ())
G_DECLARE_FINAL_TYPE (KubusSimPanel, kubus_sim_panel, KUBUS, SIM_PANEL, GtkWidget)

GtkWidget             *kubus_sim_panel_new         (void);
/* Takes @summary (NULL empties the panel). */
void                   kubus_sim_panel_set_summary (KubusSimPanel   *self,
                                                    KubusSimSummary *summary);
const KubusSimSummary *kubus_sim_panel_get_summary (KubusSimPanel   *self);
/* Every text the panel shows, one label a line (tests, accessibility checks). New string. */
char                  *kubus_sim_panel_get_text    (KubusSimPanel   *self);

/* Signal "change-activated" (const char *metric, const char *call_path): a gain or loss was
 * clicked; call_path uses " > " between region names. */

G_END_DECLS
