/* kubus-experiment-prefs.h — the Experiment preferences (MPI launcher and its options, default
 * rank count, experiments folder, notifications) as rows of the Preferences window. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Adds a heading and the rows to @grid from row @row on, bound to @settings (org.kubus.Kubus);
 * returns the next free row. Nothing when the installed schema lacks the keys. */
int kubus_experiment_preferences_add (GtkGrid   *grid,
                                      GSettings *settings,
                                      int        row);

G_END_DECLS
