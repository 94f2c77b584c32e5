/* kubus-cairo-export.c — see kubus-cairo-export.h. */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kubus-cairo-export.h"

/* mkstemp creates 0600; the result should get the mode any new file gets. */
static mode_t
current_umask (void)
{
  mode_t mask = umask (022);

  umask (mask);
  return mask;
}

gboolean
kubus_cairo_format_from_path (const char         *path,
                               KubusCairoFormat  *format,
                               GError            **error)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".png"))
    *format = KUBUS_CAIRO_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = KUBUS_CAIRO_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = KUBUS_CAIRO_PDF;
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot write %s: the name must end in .png, .svg or .pdf"), path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
cairo_failed (cairo_status_t   status,
              const char      *path,
              GError         **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return FALSE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write %s: %s"), path,
               cairo_status_to_string (status));
  return TRUE;
}

gboolean
kubus_cairo_export (const char         *path,
                    int                 width,
                    int                 height,
                    KubusCairoDrawFunc  draw,
                    gpointer            user_data,
                    GError            **error)
{
  g_autofree char *tmp = NULL;
  KubusCairoFormat format;
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  int fd;

  if (!kubus_cairo_format_from_path (path, &format, error))
    return FALSE;
  if (width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot write %s: the size %d×%d is empty"), path, width, height);
      return FALSE;
    }
  /* The temporary file sits next to the target so that the rename stays in one file system. */
  {
    g_autofree char *dir = g_path_get_dirname (path);
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *tmpl = g_strdup_printf (".%s.XXXXXX", base);
    tmp = g_build_filename (dir, tmpl, NULL);
  }
  fd = g_mkstemp (tmp);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"),
                   path, g_strerror (saved));
      return FALSE;
    }
  close (fd);

  switch (format)
    {
    case KUBUS_CAIRO_SVG:
      surface = cairo_svg_surface_create (tmp, width, height);
      break;
    case KUBUS_CAIRO_PDF:
      surface = cairo_pdf_surface_create (tmp, width, height);
      break;
    case KUBUS_CAIRO_PNG:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
      break;
    }
  cr = cairo_create (surface);
  draw (cr, width, height, user_data);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == KUBUS_CAIRO_PNG)
    status = cairo_surface_write_to_png (surface, tmp);
  cairo_surface_finish (surface);   /* SVG/PDF: writes the file now */
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (cairo_failed (status, path, error))
    {
      g_unlink (tmp);
      return FALSE;
    }
  if (g_chmod (tmp, 0666 & ~current_umask ()) != 0 || g_rename (tmp, path) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot write %s: %s"),
                   path, g_strerror (saved));
      g_unlink (tmp);
      return FALSE;
    }
  return TRUE;
}
