/* cube-path.c — see cube-path.h. */
#include <string.h>

#include "cube-path.h"

static const char *
cnode_name (const CubeCnode *cnode)
{
  return cnode->callee != NULL && cnode->callee->name != NULL ? cnode->callee->name : "";
}

/* A call path among @candidates (and below) that @rest names, parts separated by @sep. */
static CubeCnode *
find_below (GPtrArray  *candidates,
            const char *rest,
            const char *sep)
{
  size_t sep_len = strlen (sep);

  for (guint i = 0; candidates != NULL && i < candidates->len; i++)
    {
      CubeCnode *c = g_ptr_array_index (candidates, i);
      const char *name = cnode_name (c);
      size_t len = strlen (name);

      if (len == 0 || strncmp (rest, name, len) != 0)
        continue;
      if (rest[len] == '\0')
        return c;
      if (strncmp (rest + len, sep, sep_len) == 0)
        {
          CubeCnode *found = find_below (c->children, rest + len + sep_len, sep);
          if (found != NULL)
            return found;
        }
    }
  return NULL;
}

CubeCnode *
cube_report_find_cnode_path (const CubeReport *report,
                             const char       *path)
{
  g_return_val_if_fail (report != NULL, NULL);
  if (path == NULL || path[0] == '\0')
    return NULL;
  /* A leading "/" reads as "from the root" too. */
  if (path[0] == '/')
    path++;
  return find_below (report->cnode_roots, path, "/");
}

CubeCnode *
cube_report_find_cnode_path_sep (const CubeReport *report,
                                 const char       *path,
                                 const char       *separator)
{
  g_return_val_if_fail (report != NULL && separator != NULL && separator[0] != '\0', NULL);
  if (path == NULL || path[0] == '\0')
    return NULL;
  return find_below (report->cnode_roots, path, separator);
}

char *
cube_cnode_path (const CubeCnode *cnode)
{
  GPtrArray *names = g_ptr_array_new ();
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (cnode != NULL, NULL);
  for (const CubeCnode *c = cnode; c != NULL; c = c->parent)
    g_ptr_array_add (names, (gpointer) cnode_name (c));
  for (guint i = names->len; i-- > 0;)
    {
      g_string_append (s, g_ptr_array_index (names, i));
      if (i > 0)
        g_string_append_c (s, '/');
    }
  g_ptr_array_unref (names);
  return g_string_free (s, FALSE);
}
