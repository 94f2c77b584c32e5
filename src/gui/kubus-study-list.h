/* kubus-study-list.h — the recent studies on a window's start screen: per study the experiment,
 * its hypothesis, and buttons that open its report or its comparison (app.open-uri and
 * app.compare, the actions a menu would run). Hidden while there are none. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-window.h"

G_BEGIN_DECLS

GtkWidget *kubus_study_list_new    (void);
/* Adds the list below the start screen's text of @window. */
void       kubus_study_list_attach (KubusWindow *window);
/* The list box of @window's list (rows: one per study), or NULL. */
GtkListBox *kubus_study_list_get_rows (KubusWindow *window);

G_END_DECLS
