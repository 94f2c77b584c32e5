/* kubus-run-callsites.c: source file and line of the MPI call sites in profile.cube.
 *
 * The collector records the call sites of each MPI call path as a module (build id and path)
 * and the return address's offset in it (report attributes kubus::module::N and
 * kubus::site::CNODE = "N+0xOFFSET …", see collect-profile-write.c).  After the run, not
 * inside the application, elfutils' libdwfl maps them to file:line: the first becomes the call
 * path's `mod` and `line`; when they name several lines, kubus::sources::CNODE lists them all
 * ("FILE:LINE; FILE:LINE").  A module whose
 * build id no longer matches (rebuilt since the run) is left alone. */
#include "kubus-run-callsites.h"
#include "symbols.h"

#include <glib/gi18n.h>
#include <string.h>

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <unistd.h>

typedef struct
{
  Dwfl        *dwfl;
  Dwfl_Module *mod; /* NULL: cannot be used */
} Module;

static const Dwfl_Callbacks offline_callbacks = {
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

static gboolean
build_id_matches (Dwfl_Module *mod, const char *want)
{
  const unsigned char *bits = NULL;
  GElf_Addr            vaddr = 0;
  int                  len = dwfl_module_build_id (mod, &bits, &vaddr);
  if (g_strcmp0 (want, "-") == 0)
    return len <= 0; /* no build id then, none now */
  if (len <= 0 || strlen (want) != (size_t)len * 2)
    return FALSE;
  for (int i = 0; i < len; i++)
    {
      char hex[3];
      g_snprintf (hex, sizeof hex, "%02x", bits[i]);
      if (want[2 * i] != hex[0] || want[2 * i + 1] != hex[1])
        return FALSE;
    }
  return TRUE;
}

/* "BUILD-ID PATH" → a module reported at load bias 0, so that addresses are the link-time ones
 * the collector recorded (offset from the module's load bias). */
static Module
module_open (const char *spec, GPtrArray *stale)
{
  Module      m = { NULL, NULL };
  const char *space = strchr (spec, ' ');
  if (space == NULL)
    return m;
  g_autofree char *id = g_strndup (spec, (gsize)(space - spec));
  const char      *path = space + 1;
  m.dwfl = dwfl_begin (&offline_callbacks);
  if (m.dwfl == NULL)
    return m;
  m.mod = dwfl_report_elf (m.dwfl, path, path, -1, 0, false);
  dwfl_report_end (m.dwfl, NULL, NULL);
  if (m.mod != NULL && !build_id_matches (m.mod, id))
    {
      g_ptr_array_add (stale, g_strdup (path));
      m.mod = NULL;
    }
  return m;
}

void
kubus_run_map_callsites (CubeReport *report, guint *mapped, guint *sites)
{
  *mapped = *sites = 0;
  g_autoptr (GHashTable) modules = g_hash_table_new (g_str_hash, g_str_equal); /* number → Module* */
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) stale = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < report->attrs->len; i++)
    {
      const CubeAttr *a = g_ptr_array_index (report->attrs, i);
      if (!g_str_has_prefix (a->key, "kubus::module::"))
        continue;
      Module *m = g_new0 (Module, 1);
      *m = module_open (a->value, stale);
      g_ptr_array_add (owned, m);
      g_hash_table_insert (modules, (gpointer)(a->key + strlen ("kubus::module::")), m);
    }
  /* new attributes go in after the walk over the old ones */
  g_autoptr (GPtrArray) more = g_ptr_array_new_with_free_func (g_free); /* key, value, … */
  for (guint i = 0; i < report->attrs->len; i++)
    {
      const CubeAttr *a = g_ptr_array_index (report->attrs, i);
      if (!g_str_has_prefix (a->key, "kubus::site::"))
        continue;
      (*sites)++;
      gint64     id = g_ascii_strtoll (a->key + strlen ("kubus::site::"), NULL, 10);
      CubeCnode *c = cube_report_cnode_by_file_id (report, id);
      if (c == NULL)
        continue;
      /* "MODULE+0xOFFSET MODULE+0xOFFSET …": the distinct file:line of each, in order */
      g_auto (GStrv) list = g_strsplit (a->value, " ", -1);
      g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
      char            *first_file = NULL;
      int              first_line = 0;
      for (int k = 0; list[k] != NULL; k++)
        {
          const char      *plus = strchr (list[k], '+');
          g_autofree char *num = plus ? g_strndup (list[k], (gsize)(plus - list[k])) : NULL;
          Module          *m = num ? g_hash_table_lookup (modules, num) : NULL;
          if (m == NULL || m->mod == NULL)
            continue;
          guint64    offset = g_ascii_strtoull (plus + 1, NULL, 16);
          Dwarf_Addr bias = 0;
          dwfl_module_getdwarf (m->mod, &bias);
          /* a return address: the call is the instruction before it */
          Dwfl_Line  *line = dwfl_module_getsrc (m->mod, bias + offset - 1);
          int         lineno = 0;
          const char *file = line ? dwfl_lineinfo (line, NULL, &lineno, NULL, NULL, NULL) : NULL;
          if (file == NULL || lineno <= 0)
            continue;
          /* a name relative to the compilation folder becomes absolute */
          const char *dir = g_path_is_absolute (file) ? NULL : dwfl_line_comp_dir (line);
          char       *full = dir != NULL ? symbols_source_path (file, dir) : g_strdup (file);
          char       *at = g_strdup_printf ("%s:%d", full, lineno);
          gboolean    seen = FALSE;
          for (guint j = 0; j < lines->len && !seen; j++)
            seen = g_str_equal (g_ptr_array_index (lines, j), at);
          if (seen)
            g_free (at);
          else
            g_ptr_array_add (lines, at);
          if (first_file == NULL)
            {
              first_file = full;
              first_line = lineno;
            }
          else
            g_free (full);
        }
      if (first_file == NULL)
        continue;
      /* the call path's own line is its first call site's; all of them in an attribute when
       * the compiler or the program calls from several lines */
      cube_cnode_set_source (c, first_line, first_file);
      g_free (first_file);
      if (lines->len > 1)
        {
          g_ptr_array_add (lines, NULL);
          g_ptr_array_add (more, g_strdup_printf ("kubus::sources::%" G_GINT64_FORMAT, id));
          g_ptr_array_add (more, g_strjoinv ("; ", (char **)lines->pdata));
        }
      (*mapped)++;
    }
  for (guint i = 0; i + 1 < more->len; i += 2)
    cube_report_set_attr (report, g_ptr_array_index (more, i), g_ptr_array_index (more, i + 1));
  for (guint i = 0; i < owned->len; i++)
    dwfl_end (((Module *)g_ptr_array_index (owned, i))->dwfl);
  for (guint i = 0; i < stale->len; i++)
    g_printerr (_ ("kubus-run: %s changed since the run; its MPI call sites keep no source "
                   "line\n"),
                (const char *)g_ptr_array_index (stale, i));
}

struct KubusRunSiteKeys
{
  GHashTable *modules; /* spec → Module* */
  GHashTable *lines;   /* "spec\nfile:line" → first offset (guint64*) */
  GPtrArray  *stale;
};

static void
module_free (gpointer p)
{
  Module *m = p;
  if (m->dwfl != NULL)
    dwfl_end (m->dwfl);
  g_free (m);
}

KubusRunSiteKeys *
kubus_run_site_keys_new (void)
{
  KubusRunSiteKeys *k = g_new0 (KubusRunSiteKeys, 1);
  k->modules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, module_free);
  k->lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  k->stale = g_ptr_array_new_with_free_func (g_free);
  return k;
}

void
kubus_run_site_keys_free (KubusRunSiteKeys *k)
{
  if (k == NULL)
    return;
  g_hash_table_unref (k->modules);
  g_hash_table_unref (k->lines);
  g_ptr_array_unref (k->stale);
  g_free (k);
}

guint64
kubus_run_site_key (void *data, const char *module, guint64 offset)
{
  KubusRunSiteKeys *k = data;
  Module           *m = g_hash_table_lookup (k->modules, module);
  if (m == NULL)
    {
      m = g_new0 (Module, 1);
      *m = module_open (module, k->stale);
      g_hash_table_insert (k->modules, g_strdup (module), m);
    }
  if (m->mod == NULL)
    return offset;
  Dwarf_Addr bias = 0;
  dwfl_module_getdwarf (m->mod, &bias);
  Dwfl_Line  *line = dwfl_module_getsrc (m->mod, bias + offset - 1);
  int         lineno = 0;
  const char *file = line ? dwfl_lineinfo (line, NULL, &lineno, NULL, NULL, NULL) : NULL;
  if (file == NULL || lineno <= 0)
    return offset;
  g_autofree char *key = g_strdup_printf ("%s\n%s:%d", module, file, lineno);
  guint64         *first = g_hash_table_lookup (k->lines, key);
  if (first != NULL)
    return *first;
  first = g_new (guint64, 1);
  *first = offset;
  g_hash_table_insert (k->lines, g_steal_pointer (&key), first);
  return offset;
}

#else

void
kubus_run_map_callsites (CubeReport *report, guint *mapped, guint *sites)
{
  (void)report;
  *mapped = *sites = 0; /* built without libdw: call sites keep module and offset only */
}

KubusRunSiteKeys *
kubus_run_site_keys_new (void)
{
  return NULL;
}

void
kubus_run_site_keys_free (KubusRunSiteKeys *k)
{
  (void)k;
}

guint64
kubus_run_site_key (void *data, const char *module, guint64 offset)
{
  (void)data;
  (void)module;
  return offset;
}

#endif
