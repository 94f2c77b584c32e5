/* kubus-run-panel.h — the bar at the bottom of every window that shows the application's runs:
 * what runs, its progress (from the tool's progress lines; a pulse when it prints none), Cancel,
 * how many wait, and on request the log (streamed live, the last 5000 lines) and the list of
 * runs of the queue. It appears when a run is queued and stays after the last one has ended
 * until it is closed. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-run-queue.h"
#include "kubus-window.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_RUN_PANEL (kubus_run_panel_get_type ())
G_DECLARE_FINAL_TYPE (KubusRunPanel, kubus_run_panel, KUBUS, RUN_PANEL, GtkWidget)

GtkWidget     *kubus_run_panel_new           (KubusRunQueue *queue);
/* Adds a panel for @queue below @window's content. */
void           kubus_run_panel_attach        (KubusWindow   *window,
                                              KubusRunQueue *queue);
/* The panel of @window, or NULL. */
KubusRunPanel *kubus_run_panel_get           (KubusWindow   *window);

/* The run whose progress and log the panel shows (the running one unless the user picked
 * another in the list), or NULL. */
KubusRunner   *kubus_run_panel_get_shown     (KubusRunPanel *self);
gboolean       kubus_run_panel_is_revealed   (KubusRunPanel *self);
GtkTextBuffer *kubus_run_panel_get_log       (KubusRunPanel *self);
GtkWidget     *kubus_run_panel_get_cancel_button (KubusRunPanel *self);
GtkWidget     *kubus_run_panel_get_progress_bar  (KubusRunPanel *self);
/* Shows or hides the log and run list (the Log toggle). */
void           kubus_run_panel_set_log_visible (KubusRunPanel *self,
                                                gboolean       visible);

G_END_DECLS
