/* kubus-preferences.h — the Preferences window: the GSettings keys of org.kubus.Kubus
 * (colour scale, thresholds, number format), bound so that every window follows at once. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Shows the preferences next to @parent. Without the installed schema, explains that in an
 * error dialog instead. */
void kubus_preferences_show (GtkWindow *parent);

G_END_DECLS
