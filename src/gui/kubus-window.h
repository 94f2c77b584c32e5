/* kubus-window.h — one browser window showing one report (or a difference of two). */
#pragma once

#include <gtk/gtk.h>

#include "kubus-browser.h"
#include "kubus-export.h"

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

/* ---- views offered by File › Export View… (PNG, SVG, PDF) ------------------------------------
 *
 * The hook for views that can be exported. A view registers itself once it exists:
 *
 *   kubus_window_add_export_view (window, "topology", _("Topology"), topology_widget,
 *                                 topology_render, topology, NULL);
 *
 * @render draws the view into any cairo_t at @width × @height (image, SVG or PDF surface;
 * see KubusExportRenderFunc in kubus-export.h); @widget gives the size the dialog proposes
 * (its current size) and is the view the dialog preselects when it is the one on screen.
 * The window registers "panes" (the three trees) and "window" (the whole window) itself.
 * Adding an @id again replaces it; @destroy frees @user_data when the view is removed or the
 * window goes. */
void          kubus_window_add_export_view    (KubusWindow           *self,
                                               const char            *id,
                                               const char            *label,
                                               GtkWidget             *widget,
                                               KubusExportRenderFunc  render,
                                               gpointer               user_data,
                                               GDestroyNotify         destroy);
void          kubus_window_remove_export_view (KubusWindow *self,
                                               const char  *id);
/* The registered ids, in order (new array of borrowed strings). */
GPtrArray    *kubus_window_list_export_views  (KubusWindow *self);
const char   *kubus_window_export_view_label  (KubusWindow *self,
                                               const char  *id);
/* The size of the view's widget now (1 × 1 if it has none). */
void          kubus_window_export_view_size   (KubusWindow *self,
                                               const char  *id,
                                               int         *width,
                                               int         *height);
/* Writes view @id at @width × @height to @path in @format (atomically). */
gboolean      kubus_window_export_view        (KubusWindow       *self,
                                               const char        *id,
                                               const char        *path,
                                               KubusExportFormat  format,
                                               int                width,
                                               int                height,
                                               GError           **error);

/* "run-a/analysis.cube": the file's name after its folder's (new string). */
char         *kubus_window_file_label   (GFile *file);

G_END_DECLS
