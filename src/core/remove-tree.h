/* remove-tree.h — removing a folder and all it holds (scratch and temporary folders of the
 * simulator, the trace expander and the symbol rewriter). A symbolic link is removed, never
 * followed; a path that does not exist counts as removed. */
#pragma once

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>

static inline gboolean
kubus_remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK) || !g_file_test (path, G_FILE_TEST_IS_DIR))
    return g_unlink (path) == 0 || errno == ENOENT;
  gboolean ok = TRUE;
  GDir    *d = g_dir_open (path, 0, NULL);
  if (d != NULL)
    {
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          char *child = g_build_filename (path, name, NULL);
          ok &= kubus_remove_tree (child);
          g_free (child);
        }
      g_dir_close (d);
    }
  return g_rmdir (path) == 0 && ok;
}
