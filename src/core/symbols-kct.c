/* symbols-kct.c — frame regions of a compressed trace (.kct) get their names, after the run:
 * name, canonical (mangled) name and source file (the format keeps no line). */
#include "symbols.h"

#include "kct.h"

gboolean
symbols_name_kct (const char *path, SymbolsResolver *r, guint *named, guint *frames,
                  GError **error)
{
  *named = *frames = 0;
  KctTrace *t = kct_load (path, error);
  if (t == NULL)
    return FALSE;
  for (uint32_t i = 0; i < t->n_regions; i++)
    {
      KctRegion   *reg = &t->regions[i];
      SymbolsFrame f;
      if (reg->canonical == NULL || !symbols_resolve_key (r, reg->canonical, &f))
        continue;
      (*frames)++;
      if (f.mangled[0] != '\0')
        (*named)++;
      kct_set_string (&reg->name, f.name);
      kct_set_string (&reg->canonical, f.mangled[0] != '\0' ? f.mangled : f.name);
      if (f.file != NULL)
        kct_set_string (&reg->file, f.file);
      symbols_frame_clear (&f);
    }
  gboolean ok = *frames == 0 || kct_save (t, path, error);
  kct_trace_free (t);
  return ok;
}
