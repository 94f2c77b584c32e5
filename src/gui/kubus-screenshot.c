/* kubus-screenshot.c — see kubus-screenshot.h. */
#include <glib/gi18n.h>

#include "kubus-export.h"
#include "kubus-screenshot.h"

gboolean
kubus_screenshot_format_known (const char *path)
{
  KubusExportFormat format;

  return kubus_export_format_from_path (path, &format);
}

gboolean
kubus_screenshot_save (GtkWidget  *widget,
                       const char *path,
                       GError    **error)
{
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  KubusExportFormat format;

  if (!gtk_widget_get_realized (widget) || width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Cannot take a screenshot for %s: the window was not shown"), path);
      return FALSE;
    }
  if (!kubus_export_format_from_path (path, &format))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot write %s: the name must end in .png, .svg or .pdf"), path);
      return FALSE;
    }
  return kubus_export_to_file (path, format, width, height, kubus_export_render_widget, widget, error);
}
