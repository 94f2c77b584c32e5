/* kubus-window-sim.h — a window that shows a simulation (SIM/analysis.cube, SIM/difference.cube)
 * or the comparison original − simulated: its result panel, the saved/added colours, and the
 * titles that tell the original, a second run and the simulated run apart (issue 24, items 2
 * and 10). */
#pragma once

#include "kubus-sim-panel.h"
#include "kubus-window.h"

G_BEGIN_DECLS

void           kubus_window_sim_init       (KubusWindow *self);
/* After a report (or a difference) is shown: the panel, and the panes' saved/added scale. */
void           kubus_window_sim_update     (KubusWindow *self);
KubusSimPanel *kubus_window_get_sim_panel  (KubusWindow *self);

/* How a window title names @file: the experiment's folder ("kubus_demo_4"), with "profile" for
 * its profile.cube and "simulated: RULES" for a simulation's report; other files by their
 * own name. New string. */
char          *kubus_window_report_label   (GFile *file);

G_END_DECLS
