/* kubus-screenshot.h — render a widget once into a PNG, SVG or PDF file (kubus --screenshot,
 * tests and documentation). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* TRUE if @path ends in .png, .svg or .pdf. */
gboolean kubus_screenshot_format_known (const char *path);
/* Renders @widget (realized, laid out) at its size in the format @path's extension names and
 * writes @path atomically (temporary file + rename). */
gboolean kubus_screenshot_save         (GtkWidget  *widget,
                                        const char *path,
                                        GError    **error);

G_END_DECLS
