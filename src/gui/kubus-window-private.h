/* kubus-window-private.h — shared by kubus-window.c and kubus-window-actions.c. */
#pragma once

#include "kubus-loader.h"
#include "kubus-pane-view.h"
#include "kubus-window.h"

G_BEGIN_DECLS

struct _KubusWindow
{
  GtkApplicationWindow parent_instance;

  /* template */
  GtkWidget     *stack;
  GtkWidget     *search_bar;
  GtkWidget     *search_entry;
  GtkWidget     *search_label;
  GtkWidget     *find_button;
  GtkWidget     *progress;
  GtkWidget     *loading_label;
  GtkWidget     *cancel_button;
  GtkWidget     *compare_bar;   /* what A and B of a difference are; a warning if unrelated */
  GtkWidget     *compare_label;
  GtkWidget     *outer_paned;
  GtkWidget     *inner_paned;
  KubusPaneView *panes[KUBUS_N_PANES];
  GMenu         *recent_section;
  GMenuModel    *row_menu;

  KubusBrowser  *browser;
  GFile         *file;          /* what is shown (A for a difference) */
  GFile         *file_b;        /* B of a difference */
  GFile         *loading;       /* what the running load reads: becomes file on success, so a */
  GFile         *loading_b;     /* failed open leaves the shown report (and its title) alone */
  GFileMonitor  *monitor_b;
  GFile         *external;      /* report of the external percent mode, re-read on reload */
  GFileMonitor  *monitor;
  guint          reload_id;
  GCancellable  *cancellable;
  GTask         *task;          /* running load, for progress */
  guint          progress_id;
  KubusPaneKind  active_pane;
  /* View › Sort and the Hide items act on the active tree (issue 24, item 6): each tree keeps
   * its own, in the window (they carry over to the next report and a reload). */
  KubusSortKind  pane_sort[KUBUS_N_PANES];
  gboolean       pane_hide_zero[KUBUS_N_PANES];
  gboolean       pane_hide_below[KUBUS_N_PANES];
  gboolean       batch;
  gboolean       reloading;
  char          *keep_metric;   /* reselect after reload */
  GSettings     *settings;      /* may be NULL when the schema is not installed */
  GtkWidget     *system_notebook; /* system pane + topology tabs (kubus-window-topology.c) */
  GPtrArray     *export_views;  /* of KubusExportView (kubus-export-dialog.c) */
  GtkWidget     *sim_panel;     /* what a simulation predicts (kubus-window-sim.c) */
};

void kubus_window_add_actions      (KubusWindow *self);
void kubus_window_set_active_pane  (KubusWindow  *self,
                                    KubusPaneKind kind,
                                    gboolean      focus);
void kubus_window_reload           (KubusWindow *self);
void kubus_window_update_actions   (KubusWindow *self);
void kubus_window_apply_settings   (KubusWindow *self);
void kubus_window_error_dialog     (KubusWindow *self,
                                    const char  *primary,
                                    const char  *secondary);
/* @close_window: the window goes when the message is dismissed. */
void kubus_window_error_dialog_full (KubusWindow *self,
                                     const char  *primary,
                                     const char  *secondary,
                                     gboolean     close_window);

/* Open Recent lists the reports Kubus opened (this recent-files group). */
#define KUBUS_RECENT_GROUP "kubus-reports"

void kubus_window_init_export_views (KubusWindow *self);

G_END_DECLS
