/* fuzz-symbols — naming frames after the run (src/core/symbols-resolve.c) on untrusted bytes:
 * the bytes are a module (ELF, DWARF, symbol tables: libdwfl reads whatever the file holds) and
 * the offsets looked up in it come from the input too; a frame key built from the input as a
 * string (the canonical name of a region in a trace) goes through the key parser, and the
 * input's first line through the demanglers. */
#include "symbols.h"

#include <glib/gstdio.h>
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
  SymbolsResolver *r = symbols_resolver_new ();
  SymbolsFrame     f;
  if (symbols_resolve_key (r, line, &f))
    {
      if (f.name == NULL || f.mangled == NULL)
        abort ();
      symbols_frame_clear (&f);
    }
  /* the bytes as a module */
  char path[] = "/tmp/fuzz-symbols-XXXXXX";
  int  fd = g_mkstemp (path);
  if (fd >= 0)
    {
      gboolean ok = write (fd, data, size) == (ssize_t)size;
      close (fd);
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
      g_unlink (path);
    }
  symbols_resolver_free (r);
  return 0;
}
