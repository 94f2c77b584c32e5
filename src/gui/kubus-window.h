/* kubus-window.h — one browser window showing one report (or a difference of two). */
#pragma once

#include <gtk/gtk.h>

#include "kubus-browser.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_WINDOW (kubus_window_get_type ())
G_DECLARE_FINAL_TYPE (KubusWindow, kubus_window, KUBUS, WINDOW, GtkApplicationWindow)

KubusWindow  *kubus_window_new          (GtkApplication *app);
/* Loads @file in a worker thread; emits "loaded" or "failed" (after the error dialog unless
 * the window is in batch mode). */
void          kubus_window_open         (KubusWindow *self,
                                         GFile       *file);
/* Loads @a and @b and shows a − b. */
void          kubus_window_compare      (KubusWindow *self,
                                         GFile       *a,
                                         GFile       *b);
void          kubus_window_open_external (KubusWindow *self,
                                          GFile       *file);
KubusBrowser *kubus_window_get_browser  (KubusWindow *self);
gboolean      kubus_window_is_busy      (KubusWindow *self);
/* Batch (screenshot) mode: errors go to "failed" only, no dialog. */
void          kubus_window_set_batch    (KubusWindow *self,
                                         gboolean     batch);
void          kubus_window_set_call_view (KubusWindow  *self,
                                          KubusCallView view);
/* Applies @mode to every pane offering it; FALSE if no pane does. */
gboolean      kubus_window_set_mode     (KubusWindow   *self,
                                         KubusValueMode mode);

/* "run-a/analysis.cube": the file's name after its folder's (new string). */
char         *kubus_window_file_label   (GFile *file);

G_END_DECLS
