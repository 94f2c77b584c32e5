/* kubus-screenshot.h — render a widget once into a PNG (tests and documentation). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Renders @widget (realized, laid out) with its native's renderer and writes @path atomically
 * (temporary file + rename). */
gboolean kubus_screenshot_save (GtkWidget  *widget,
                                const char *path,
                                GError    **error);

G_END_DECLS
