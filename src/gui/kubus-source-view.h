/* kubus-source-view.h — the source code around a call path's line (CubeGUI's source view):
 * where the report says it is, found on this machine if readable, else a clear message. */
#pragma once

#include <gtk/gtk.h>

#include "cube.h"
#include "kubus-types.h"

G_BEGIN_DECLS

/* File and line of a call pane row: a call path's call site (its module and line), else its
 * region's definition; a flat or module row's region. FALSE when the report gives no file
 * and line. @file is borrowed from the report. */
gboolean   kubus_source_location  (KubusNodeKind  kind,
                                   gconstpointer  node,
                                   const char   **file,
                                   gint64        *line);
/* The readable file @file names: as given (absolute, or relative to the current folder),
 * then its last one to four path parts relative to the folder of @report_path and up to
 * three folders above it. NULL with @error naming @file and every place looked at. */
char      *kubus_source_find      (const char    *report_path,
                                   const char    *file,
                                   GError       **error);
/* Opens a window showing @path around @line (highlighted, scrolled to), or, with @path NULL,
 * the @message saying why there is no source. Returns it (owned by GTK). */
GtkWidget *kubus_source_view_show (GtkWindow     *parent,
                                   const char    *title,
                                   const char    *path,
                                   gint64         line,
                                   const char    *message);
/* The text shown (tests): the message, or the file's lines as shown. Borrowed. */
const char *kubus_source_view_text (GtkWidget    *view);
/* The highlighted line (1-based), 0 for none. */
gint64     kubus_source_view_line (GtkWidget     *view);

G_END_DECLS
