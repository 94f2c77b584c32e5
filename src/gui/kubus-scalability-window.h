/* kubus-scalability-window.h — File › Scalability…: pick experiments (or folders of them), run
 * `kubus-cube scaling` on them in the background, show the callsites ranked by Spearman's rho
 * and a log-log plot of the selected callsites' shares against the task count; export the plot
 * (PNG/SVG/PDF) or open the result as a report. The numbers come from kubus-cube's report. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-scalability-result.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_SCALABILITY_WINDOW (kubus_scalability_window_get_type ())
G_DECLARE_FINAL_TYPE (KubusScalabilityWindow, kubus_scalability_window, KUBUS,
                      SCALABILITY_WINDOW, GtkWindow)

/* A new window for @app (may be NULL in tests; then "Open as Report" is off). */
KubusScalabilityWindow   *kubus_scalability_window_new (GtkApplication *app);

/* Shows a new Scalability window next to @parent (may be NULL). */
void                      kubus_scalability_show (GtkWindow *parent, GtkApplication *app);

/* The program that computes the statistics: $KUBUS_CUBE_PROGRAM, kubus-cube next to this
 * program (installed, or in the build tree), else on PATH. NULL if none. Free with g_free. */
char                     *kubus_scalability_find_tool (void);

/* For tests and scripting; the buttons do the same. */
void                      kubus_scalability_window_add_input (KubusScalabilityWindow *self,
                                                              const char             *path);
void                      kubus_scalability_window_set_metric (KubusScalabilityWindow *self,
                                                               const char             *metric);
void                      kubus_scalability_window_compute (KubusScalabilityWindow *self);
void                      kubus_scalability_window_cancel (KubusScalabilityWindow *self);
gboolean                  kubus_scalability_window_is_busy (KubusScalabilityWindow *self);
const char               *kubus_scalability_window_get_status (KubusScalabilityWindow *self);
const KubusScalingResult *kubus_scalability_window_get_result (KubusScalabilityWindow *self);
/* Selects result rows @rows (ranking positions) for the plot. */
void                      kubus_scalability_window_select (KubusScalabilityWindow *self,
                                                           const guint            *rows,
                                                           guint                   n_rows);
/* The selected ranking positions, in order; owned by the window. */
const guint              *kubus_scalability_window_get_selected (KubusScalabilityWindow *self,
                                                                 guint                  *n_rows);
const char               *kubus_scalability_window_get_report_path (KubusScalabilityWindow *self);

G_END_DECLS
