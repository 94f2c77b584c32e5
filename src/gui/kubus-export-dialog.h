/* kubus-export-dialog.h — File › Export View…: which view, format (PNG, SVG, PDF) and size,
 * then where. The views come from the window's export registry (kubus_window_add_export_view,
 * kubus-window.h). */
#pragma once

#include "kubus-window.h"

G_BEGIN_DECLS

/* Shows the dialog for @window (transient, modal); returns it (owned by GTK). */
GtkWidget *kubus_export_dialog_show (KubusWindow *window);

G_END_DECLS
