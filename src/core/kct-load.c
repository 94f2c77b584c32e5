/* kct-load.c: .kct files in and out, with errors that name the file. */
#include "kct.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

G_DEFINE_QUARK (kubus-kct-error-quark, kct_error)

KctTrace *
kct_load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize            len = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &data, &len, &local))
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot read %s: %s"), path,
                   local->message);
      return NULL;
    }
  KctTrace *t = NULL;
  char      why[512];
  if (kct_decode ((const uint8_t *)data, len, &t, why, sizeof why) != 0)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_CORRUPT,
                   _ ("%s is not a valid compressed trace: %s"), path, why);
      return NULL;
    }
  if (t->h.flags & KCT_FILE_PARTIAL)
    {
      kct_trace_free (t);
      g_set_error (error, KCT_ERROR, KCT_ERROR_CORRUPT,
                   _ ("%s holds only part of a run's ranks (an unfinished merge)"), path);
      return NULL;
    }
  return t;
}

gboolean
kct_save (const KctTrace *t, const char *path, GError **error)
{
  uint8_t *buf = NULL;
  size_t   len = 0;
  if (kct_encode (t, &buf, &len) != 0)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot write %s: out of memory"), path);
      return FALSE;
    }
  g_autoptr (GError) local = NULL;
  /* g_file_set_contents writes a temporary file and renames it */
  gboolean ok = g_file_set_contents (path, (const char *)buf, (gssize)len, &local);
  free (buf);
  if (!ok)
    g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot write %s: %s"), path,
                 local->message);
  return ok;
}

gboolean
kct_parse_time_settings (const char *s, KctTimeSettings *ts)
{
  return kct_parse_time_error (s, &ts->abs_seconds, &ts->bits) == 0;
}
