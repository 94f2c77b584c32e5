/* kubus-export.h — drawing a view into a PNG, SVG or PDF file with cairo (File › Export View…,
 * kubus --screenshot), and the hook by which a view offers itself for export.
 *
 * A view that can be exported registers a render function with its window
 * (kubus_window_add_export_view in kubus-window.h); the export dialog lists every registered
 * view, asks for format and size and calls the function with a cairo_t on an image, SVG or PDF
 * surface of exactly that size. The three-pane browser is registered by the window itself, with
 * kubus_export_render_widget as its function. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  KUBUS_EXPORT_PNG,
  KUBUS_EXPORT_SVG,
  KUBUS_EXPORT_PDF,
} KubusExportFormat;

/* Draws the view into @cr, which covers @width × @height (user units: pixels, or points for
 * PDF). Must draw everything itself, background included, and leave @cr's state as found. */
typedef void (*KubusExportRenderFunc) (cairo_t  *cr,
                                       int       width,
                                       int       height,
                                       gpointer  user_data);

/* The format named by @path's extension (.png, .svg, .pdf, any case); FALSE if none. */
gboolean kubus_export_format_from_path (const char        *path,
                                        KubusExportFormat *format);
/* Renders @render at @width × @height into @path in @format, atomically (temporary file +
 * rename): on error (naming @path) nothing is left behind. */
gboolean kubus_export_to_file          (const char            *path,
                                        KubusExportFormat      format,
                                        int                    width,
                                        int                    height,
                                        KubusExportRenderFunc  render,
                                        gpointer               user_data,
                                        GError               **error);
/* A KubusExportRenderFunc for a shown widget (@user_data): its current look (GTK's render
 * nodes drawn with cairo, so text and lines stay vectors in SVG and PDF), scaled to fit and
 * centred on a background of the window's colour. */
void     kubus_export_render_widget    (cairo_t  *cr,
                                        int       width,
                                        int       height,
                                        gpointer  widget);

G_END_DECLS
