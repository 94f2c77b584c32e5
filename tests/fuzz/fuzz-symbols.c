/* fuzz-symbols — naming frames after the run (src/core/symbols-resolve.c) on untrusted bytes:
 * the bytes are a module (ELF, DWARF, symbol tables: libdwfl reads whatever the file holds) and
 * the offsets looked up in it come from the input too; a frame key built from the input as a
 * string (the canonical name of a region in a trace) goes through the key parser, and the
 * input's first line through the demanglers. */
#include "symbols.h"

#include <glib/gstdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int         LLVMFuzzerTestOneInput (const guint8 *data, size_t size);
const char *__lsan_default_suppressions (void);

/* libdw itself loses a few bytes on some corrupt line tables (dwarf_getsrc_die's error
 * paths); a leak of ours still shows */
const char *
__lsan_default_suppressions (void)
{
  return "leak:libdw.so\n";
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  /* the key parser and the demanglers on the raw bytes */
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autofree char *line = g_strndup (text, strcspn (text, "\n"));
  g_autofree char *dm = symbols_demangle (line);
  (void)dm;
  SymbolsResolver *r = symbols_resolver_new ();
  SymbolsFrame     f;
  if (symbols_resolve_key (r, line, &f))
    {
      if (f.name == NULL || f.mangled == NULL)
        abort ();
      symbols_frame_clear (&f);
    }
  /* the bytes as a module: a memory file named by its descriptor, so that the key (and every
   * comparison libFuzzer traces on it) is the same from run to run — a random temporary name
   * made two runs with the same seed diverge (scripts/test fuzzes with a fixed seed) */
  int fd = memfd_create ("fuzz-symbols", 0);
  if (fd >= 0)
    {
      gboolean ok = write (fd, data, size) == (ssize_t)size;
      char     path[64];
      g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
      guint64 offsets[4] = { 0, 0x40, size / 2, 0 };
      if (size >= 8)
        memcpy (&offsets[3], data + size - 8, 8);
      for (int i = 0; ok && i < 4; i++)
        {
          g_autofree char *key = g_strdup_printf ("kubus-frame:-:%s+0x%" G_GINT64_MODIFIER "x%s",
                                                  path, offsets[i], i == 2 ? ";main" : "");
          if (!symbols_resolve_key (r, key, &f) || f.name == NULL || f.name[0] == '\0')
            abort ();
          symbols_frame_clear (&f);
        }
      close (fd);
    }
  symbols_resolver_free (r);
  return 0;
}
