/* kubus-pane-view.h — one tree pane: mode (and view) switchers, the GtkListView over a
 * KubusPaneModel, and the colour legend. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-pane-model.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_PANE_VIEW (kubus_pane_view_get_type ())
G_DECLARE_FINAL_TYPE (KubusPaneView, kubus_pane_view, KUBUS, PANE_VIEW, GtkWidget)

GtkWidget      *kubus_pane_view_new             (KubusPaneKind kind);
KubusPaneKind   kubus_pane_view_get_kind        (KubusPaneView  *self);
/* @model may be NULL (no report). */
void            kubus_pane_view_set_model       (KubusPaneView  *self,
                                                 KubusPaneModel *model);
KubusPaneModel *kubus_pane_view_get_model       (KubusPaneView  *self);
/* Expand All of @position (G_MAXUINT: every root) as the user asks for it: on screen, in parts
 * over the next frames (issue 25 §6: no frame over 100 ms), the rows on screen first;
 * kubus_pane_model_expand_all_pending tells whether parts are still due. Off screen at once. */
void            kubus_pane_view_expand_all      (KubusPaneView  *self,
                                                 guint           position);
/* Re-reads the mode, refreshes visible rows and the legend. */
void            kubus_pane_view_refresh         (KubusPaneView  *self);
/* Scrolls @position into view (4.8 stand-in for gtk_list_view_scroll_to) and focuses it. */
void            kubus_pane_view_scroll_to       (KubusPaneView  *self,
                                                 guint           position);
/* First selected position or G_MAXUINT. */
guint           kubus_pane_view_get_selected    (KubusPaneView  *self);
/* Shows @markup in a popover next to the pane's selected row. */
void            kubus_pane_view_show_info       (KubusPaneView  *self,
                                                 const char     *markup);
/* The GtkListView showing the rows (tests and benchmarks drive it). */
GtkWidget      *kubus_pane_view_get_list_view   (KubusPaneView  *self);
/* Shows @view in the call pane's view switcher (does not activate anything). */
void            kubus_pane_view_set_call_view   (KubusPaneView  *self,
                                                 KubusCallView   view);
/* Context menu for right clicks on rows. */
void            kubus_pane_view_set_row_menu    (KubusPaneView  *self,
                                                 GMenuModel     *menu);

G_END_DECLS
