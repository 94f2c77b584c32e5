/* symbols-report.c — frame regions of a report (a profile written by the collector) get their
 * names: name, mangled name, source file and line. */
#include "symbols.h"

guint
symbols_name_report (CubeReport *report, SymbolsResolver *r)
{
  guint n = 0;
  for (guint i = 0; i < report->regions->len; i++)
    {
      CubeRegion  *reg = g_ptr_array_index (report->regions, i);
      SymbolsFrame f;
      if (reg->name == NULL || !symbols_resolve_key (r, reg->name, &f))
        continue;
      n++;
      g_free (reg->name);
      reg->name = g_steal_pointer (&f.name);
      g_free (reg->mangled_name);
      reg->mangled_name = g_steal_pointer (&f.mangled);
      if (f.file != NULL)
        {
          g_free (reg->mod);
          reg->mod = g_steal_pointer (&f.file);
          reg->begin_line = f.line;
          reg->end_line = -1;
        }
      symbols_frame_clear (&f);
    }
  return n;
}
