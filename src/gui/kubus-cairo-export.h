/* kubus-cairo-export.h — writes a drawing to PNG, SVG or PDF (chosen by the file name's
 * extension), atomically: a temporary file in the same folder, renamed when complete. */
#pragma once

#include <cairo.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/* Draws into a surface of @width × @height (pixels for PNG, points for SVG/PDF). */
typedef void (*KubusCairoDrawFunc) (cairo_t  *cr,
                                    int       width,
                                    int       height,
                                    gpointer  user_data);

typedef enum
{
  KUBUS_CAIRO_PNG,
  KUBUS_CAIRO_SVG,
  KUBUS_CAIRO_PDF,
} KubusCairoFormat;

/* The format @path's extension names (case-insensitive); FALSE with @error otherwise. */
gboolean kubus_cairo_format_from_path (const char         *path,
                                        KubusCairoFormat  *format,
                                        GError            **error);
gboolean kubus_cairo_export            (const char         *path,
                                        int                 width,
                                        int                 height,
                                        KubusCairoDrawFunc  draw,
                                        gpointer            user_data,
                                        GError            **error);

G_END_DECLS
