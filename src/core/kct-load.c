/* kct-load.c: .kct files in and out, with errors that name the file. */
#include "kct.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
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
kct_parse_time_error (const char *s, KctTimeSettings *ts)
{
  g_auto (GStrv) parts = g_strsplit (s, ",", -1);
  guint n = g_strv_length (parts);
  if (n == 0 || n > 2)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_strstrip (parts[i]);
      char  *end = NULL;
      double v = g_ascii_strtod (parts[i], &end);
      if (end == parts[i] || !(v > 0) || v > 1e6)
        return FALSE;
      if (strcmp (end, "%") == 0)
        {
          /* the coarsest grid whose relative step is at most v %: 2^(1 - bits) <= v / 100 */
          guint32 bits = KCT_TIME_BITS_MIN;
          while (bits < KCT_TIME_BITS_MAX && ldexp (1.0, 1 - (int)bits) > v / 100 * (1 + 1e-9))
            bits++;
          if (ldexp (1.0, 1 - (int)bits) > v / 100 * (1 + 1e-9))
            return FALSE;
          ts->bits = bits;
          continue;
        }
      static const struct
      {
        const char *unit;
        double      seconds;
      } units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ms", 1e-3 }, { "s", 1 } };
      gboolean found = FALSE;
      for (guint u = 0; u < G_N_ELEMENTS (units) && !found; u++)
        {
          if (strcmp (end, units[u].unit) == 0)
            {
              ts->abs_seconds = v * units[u].seconds;
              found = TRUE;
            }
        }
      if (!found || ts->abs_seconds > 1)
        return FALSE;
    }
  return TRUE;
}
