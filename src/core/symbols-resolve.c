/* symbols-resolve.c — a frame key to a name, file and line (libdwfl, libiberty).
 *
 * Each module is opened once, at load bias 0, so that the offsets the collector recorded
 * (entry minus the module's load bias) are the link-time addresses DWARF and the symbol tables
 * use.  A module whose build id differs from the recorded one is not used: its addresses
 * would name the wrong functions. */
#include "symbols.h"

#include "kubus-text.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  Dwfl        *dwfl;
  Dwfl_Module *mod; /* NULL: cannot be used */
} Module;

struct _SymbolsResolver
{
  GHashTable *modules; /* "BUILDID:PATH" → Module* */
  GPtrArray  *stale;
};

static const Dwfl_Callbacks offline_callbacks = {
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

static void
module_free (gpointer p)
{
  Module *m = p;
  if (m->dwfl != NULL)
    dwfl_end (m->dwfl);
  g_free (m);
}

SymbolsResolver *
symbols_resolver_new (void)
{
  SymbolsResolver *r = g_new0 (SymbolsResolver, 1);
  r->modules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, module_free);
  r->stale = g_ptr_array_new_with_free_func (g_free);
  return r;
}

void
symbols_resolver_free (SymbolsResolver *r)
{
  if (r == NULL)
    return;
  g_hash_table_unref (r->modules);
  g_ptr_array_unref (r->stale);
  g_free (r);
}

GPtrArray *
symbols_resolver_stale (SymbolsResolver *r)
{
  return r->stale;
}

void
symbols_frame_clear (SymbolsFrame *f)
{
  g_clear_pointer (&f->name, g_free);
  g_clear_pointer (&f->mangled, g_free);
  g_clear_pointer (&f->file, g_free);
  f->line = -1;
}

static gboolean
build_id_matches (Dwfl_Module *mod, const char *want)
{
  const unsigned char *bits = NULL;
  GElf_Addr            vaddr = 0;
  int                  len = dwfl_module_build_id (mod, &bits, &vaddr);
  if (g_strcmp0 (want, "-") == 0)
    return len <= 0;
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

static Module *
module_get (SymbolsResolver *r, const char *id, const char *path)
{
  g_autofree char *key = g_strdup_printf ("%s:%s", id, path);
  Module          *m = g_hash_table_lookup (r->modules, key);
  if (m != NULL)
    return m;
  m = g_new0 (Module, 1);
  g_hash_table_insert (r->modules, g_steal_pointer (&key), m);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return m;
  m->dwfl = dwfl_begin (&offline_callbacks);
  if (m->dwfl == NULL)
    return m;
  m->mod = dwfl_report_elf (m->dwfl, path, path, -1, 0, false);
  dwfl_report_end (m->dwfl, NULL, NULL);
  if (m->mod != NULL && !build_id_matches (m->mod, id))
    {
      g_ptr_array_add (r->stale, g_strdup (path));
      m->mod = NULL;
    }
  return m;
}

char *
symbols_demangle (const char *sym)
{
  if (sym == NULL || sym[0] == '\0')
    return NULL;
  if (g_str_has_prefix (sym, "_Z"))
    {
      char *d = cplus_demangle (sym, DMGL_PARAMS | DMGL_ANSI);
      if (d != NULL)
        {
          char *out = g_strdup (d);
          free (d);
          return out;
        }
      return NULL;
    }
  /* gfortran: __MODULE_MOD_PROCEDURE */
  const char *mod = strstr (sym, "_MOD_");
  if (g_str_has_prefix (sym, "__") && mod != NULL && mod > sym + 2 && mod[5] != '\0')
    return g_strdup_printf ("%.*s::%s", (int)(mod - sym - 2), sym + 2, mod + 5);
  return NULL;
}

/* name of a subprogram DIE: its linkage name demangled, else its name */
static void
die_names (Dwarf_Die *die, char **name, char **mangled)
{
  Dwarf_Attribute attr;
  const char     *link = NULL;
  if (dwarf_attr_integrate (die, DW_AT_linkage_name, &attr) != NULL
      || dwarf_attr_integrate (die, DW_AT_MIPS_linkage_name, &attr) != NULL)
    link = dwarf_formstring (&attr);
  /* an empty string names nothing (a corrupt or hand-made DWARF has them) */
  if (link != NULL && link[0] != '\0')
    {
      *mangled = g_strdup (link);
      *name = symbols_demangle (link);
    }
  if (*name != NULL && (*name)[0] == '\0')
    g_clear_pointer (name, g_free);
  if (*name == NULL)
    {
      const char *n = dwarf_diename (die);
      if ((n == NULL || n[0] == '\0') && dwarf_attr_integrate (die, DW_AT_name, &attr) != NULL)
        n = dwarf_formstring (&attr);
      if (n != NULL && n[0] != '\0')
        *name = g_strdup (n);
    }
}

char *
symbols_source_path (const char *file,
                     const char *dir)
{
  if (file == NULL)
    return NULL;
  if (g_path_is_absolute (file) || dir == NULL || dir[0] == '\0' || strcmp (dir, ".") == 0)
    return g_strdup (file);
  if (g_path_is_absolute (dir))
    return g_canonicalize_filename (file, dir);
  return g_build_filename (dir, file, NULL);
}

static char *
absolute (const char *file, Dwarf_Die *cu)
{
  if (file == NULL)
    return NULL;
  if (g_path_is_absolute (file))
    return g_strdup (file);
  Dwarf_Attribute attr;
  const char     *dir = NULL;
  if (cu != NULL && dwarf_attr (cu, DW_AT_comp_dir, &attr) != NULL)
    dir = dwarf_formstring (&attr);
  return dir != NULL ? symbols_source_path (file, dir) : g_strdup (file);
}

/* The subprogram at @addr (link-time), from DWARF. */
static gboolean
from_dwarf (Dwfl_Module *mod, Dwarf_Addr addr, SymbolsFrame *out)
{
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu = dwfl_module_addrdie (mod, addr, &bias);
  if (cu == NULL)
    return FALSE;
  Dwarf_Die *scopes = NULL;
  int        n = dwarf_getscopes (cu, addr - bias, &scopes);
  gboolean   found = FALSE;
  for (int i = 0; i < n && !found; i++)
    if (dwarf_tag (&scopes[i]) == DW_TAG_subprogram)
      {
        char *name = NULL, *mangled = NULL;
        die_names (&scopes[i], &name, &mangled);
        if (name == NULL)
          {
            g_free (mangled);
            continue;
          }
        out->name = name;
        out->mangled = mangled;
        int         line = 0;
        const char *file = dwarf_decl_file (&scopes[i]);
        if (file != NULL && dwarf_decl_line (&scopes[i], &line) == 0 && line > 0)
          {
            out->file = absolute (file, cu);
            out->line = line;
          }
        found = TRUE;
      }
  free (scopes);
  return found;
}

/* No declaration line (or no subprogram DIE that dwarf_getscopes finds, as for Fortran module
 * procedures): the line of the entry from the line table. */
static void
entry_line (Dwfl_Module *mod, Dwarf_Addr addr, SymbolsFrame *out)
{
  Dwfl_Line  *l = dwfl_module_getsrc (mod, addr);
  int         lineno = 0;
  const char *file = l ? dwfl_lineinfo (l, NULL, &lineno, NULL, NULL, NULL) : NULL;
  if (file != NULL && lineno > 0)
    {
      const char *dir = g_path_is_absolute (file) ? NULL : dwfl_line_comp_dir (l);
      out->file = dir != NULL ? symbols_source_path (file, dir) : g_strdup (file);
      out->line = lineno;
    }
}

char *
symbols_frame_path (const char *s, gsize len)
{
  GString *p = g_string_sized_new (len);
  for (gsize i = 0; i < len; i++)
    {
      int hi, lo;
      if (s[i] == '%' && i + 2 < len && (hi = g_ascii_xdigit_value (s[i + 1])) >= 0
          && (lo = g_ascii_xdigit_value (s[i + 2])) >= 0 && (hi | lo) != 0)
        {
          g_string_append_c (p, (char)(hi * 16 + lo));
          i += 2;
        }
      else
        g_string_append_c (p, s[i]);
    }
  return g_string_free (p, FALSE);
}

/* Replaces *@s by its valid UTF-8 form (kubus-text.h) where it is not. */
static void
valid_utf8 (char **s)
{
  if (*s != NULL && !kubus_utf8_valid (*s, strlen (*s)))
    {
      char *v = kubus_text_utf8 (*s);
      g_free (*s);
      *s = g_strdup (v);
      free (v);
    }
}

gboolean
symbols_resolve_key (SymbolsResolver *r, const char *key, SymbolsFrame *out)
{
  memset (out, 0, sizeof *out);
  out->line = -1;
  if (key == NULL || !g_str_has_prefix (key, SYMBOLS_FRAME_PREFIX))
    return FALSE;
  const char *p = key + strlen (SYMBOLS_FRAME_PREFIX);
  const char *colon = strchr (p, ':');
  const char *plus = strrchr (p, '+');
  if (colon == NULL || plus == NULL || plus < colon || !g_str_has_prefix (plus, "+0x"))
    return FALSE;
  g_autofree char *id = g_strndup (p, (gsize)(colon - p));
  g_autofree char *path = symbols_frame_path (colon + 1, (gsize)(plus - colon - 1));
  guint64          offset = g_ascii_strtoull (plus + 3, NULL, 16);
  g_autofree char *base = g_path_get_basename (path);
  Module          *m = module_get (r, id, path);
  if (m->mod != NULL)
    {
      GElf_Addr addr = (GElf_Addr)offset;
      if (!from_dwarf (m->mod, addr, out))
        {
          GElf_Off    off = 0;
          GElf_Sym    sym;
          const char *s = dwfl_module_addrinfo (m->mod, addr, &off, &sym, NULL, NULL, NULL);
          if (s != NULL && s[0] != '\0')
            {
              out->mangled = g_strdup (s);
              out->name = symbols_demangle (s);
              if (out->name == NULL)
                out->name = g_strdup (s);
            }
        }
      if (out->file == NULL)
        entry_line (m->mod, addr, out);
    }
  if (out->name != NULL && out->name[0] == '\0')
    g_clear_pointer (&out->name, g_free);
  if (out->name == NULL)
    out->name = g_str_has_suffix (key, ";main")
                    ? g_strdup ("main")
                    : g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", base, offset);
  if (out->mangled == NULL)
    out->mangled = g_strdup ("");
  /* symbols and paths are any bytes: the trace, the kct and the reports get valid UTF-8 */
  valid_utf8 (&out->name);
  valid_utf8 (&out->mangled);
  valid_utf8 (&out->file);
  return TRUE;
}
