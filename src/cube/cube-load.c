/* cube-load.c — cube_report_load: picks the reader by the file's content, not its name. */
#include "cube-private.h"

#include <glib/gi18n.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

char *
cube_report_in_folder (const char *path)
{
  static const char *const names[] = { "analysis.cube", "analysis.cubex", "analysis.cube.gz", "trace.cubex",
                                       "scout.cubex", "summary.cubex", "profile.cube", "profile.cubex",
                                       "profile.cube.gz", NULL };

  g_return_val_if_fail (path != NULL, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return g_strdup (path);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *child = g_build_filename (path, names[i], NULL);

      if (g_file_test (child, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&child);
    }
  return g_strdup (path);
}

static int
by_name (gconstpointer a,
         gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* A folder given for a report (an experiment folder, say): the reports in it, so that the user
 * can name one. */
static void
folder_error (const char *path,
              GError    **error)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  g_autoptr (GPtrArray) reports = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".cube") || g_str_has_suffix (name, ".cube.gz") || g_str_has_suffix (name, ".cubex"))
      g_ptr_array_add (reports, g_strdup (name));
  if (reports->len == 0)
    {
      cube_set_error (error, CUBE_ERROR_IO, path, _ ("a folder, not a report, and no report (.cube, .cube.gz, .cubex) is in it"));
      return;
    }
  g_ptr_array_sort (reports, by_name);
  g_ptr_array_add (reports, NULL);
  {
    g_autofree char *list = g_strjoinv (", ", (char **) reports->pdata);
    cube_set_error (error, CUBE_ERROR_IO, path, _ ("a folder, not a report; the reports in it: %s"), list);
  }
}

CubeReport *
cube_report_load (const char      *path,
                  CubeLoadFlags    flags,
                  GCancellable    *cancellable,
                  CubeProgressFunc progress,
                  gpointer         progress_data,
                  GError         **error)
{
  unsigned char head[512];
  gssize        n;
  int           fd;
  gsize         skip = 0;

  g_return_val_if_fail (path != NULL, NULL);

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      cube_set_error (error, CUBE_ERROR_IO, path, _ ("cannot open: %s"), g_strerror (errno));
      return NULL;
    }
  do
    n = pread (fd, head, sizeof head, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    {
      int saved = errno;
      close (fd);
      if (saved == EISDIR)
        folder_error (path, error);
      else
        cube_set_error (error, CUBE_ERROR_IO, path, _ ("cannot read: %s"), g_strerror (saved));
      return NULL;
    }
  close (fd);

  if (n == 0)
    {
      cube_set_error (error, CUBE_ERROR_FORMAT, path, _ ("the file is empty"));
      return NULL;
    }
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    return cube_xml_load_file (path, CUBE_XML_CUBE3, cancellable, progress, progress_data, error);
  if (n >= 262 && memcmp (head + 257, "ustar", 5) == 0)
    return cube_cubex_load (path, flags, cancellable, progress, progress_data, error);

  /* XML, possibly after a UTF-8 byte order mark and blank space. */
  if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
    skip = 3;
  while (skip < (gsize)n && g_ascii_isspace (head[skip]))
    skip++;
  if ((gsize)n - skip >= 5 && memcmp (head + skip, "<?xml", 5) == 0)
    return cube_xml_load_file (path, CUBE_XML_CUBE3, cancellable, progress, progress_data, error);
  if ((gsize)n - skip >= 5 && memcmp (head + skip, "<cube", 5) == 0)
    return cube_xml_load_file (path, CUBE_XML_CUBE3, cancellable, progress, progress_data, error);

  cube_set_error (
      error, CUBE_ERROR_FORMAT, path,
      _ ("not a CUBE report: neither CUBE XML, gzip-compressed XML nor a .cubex tar archive"));
  return NULL;
}
