/* kubus-run-handover.c: reading the clock hand-over files of the collector, and removing them
 * (see the header).
 * They come from our own library, but they lie in a folder anyone can write to: every field
 * is checked and nothing is trusted. */
#include "kubus-run-handover.h"
#include "kubus-text-gstring.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

/* A JSON number, exactly: -?digits(.digits)?. */
static gboolean
is_number (const char *v)
{
  const char *p = v;
  if (*p == '-')
    p++;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  if (*p == '.')
    {
      p++;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      while (g_ascii_isdigit (*p))
        p++;
    }
  return *p == '\0' && p - v < 40;
}

void
kubus_run_clock_json (GString *json, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GString) body = g_string_new (NULL);
  int k = 0;
  for (int i = 0; lines[i]; i++)
    {
      char *sp = strchr (lines[i], ' ');
      if (sp == NULL || sp == lines[i] || !g_utf8_validate (lines[i], -1, NULL))
        continue;
      *sp = '\0';
      const char *value = sp + 1;
      g_string_append (body, k++ ? ", " : "");
      kubus_text_append_json (body, lines[i]);
      g_string_append (body, ": ");
      if (is_number (value))
        g_string_append (body, value);
      else
        kubus_text_append_json (body, value);
    }
  if (k > 0)
    g_string_append_printf (json, "  \"clock\": {%s},\n", body->str);
}

gboolean
kubus_run_parse_span (const char *text, KubusRunSpan *span)
{
  g_auto (GStrv) f = g_strsplit_set (text, " \n", -1);
  guint64 u[6];
  int n = 0;
  for (int i = 0; f[i] && n < 6; i++)
    {
      char *end = NULL;
      if (f[i][0] == '\0')
        continue;
      if (n == 3 || n == 5)
        u[n] = (guint64)g_ascii_strtoll (f[i], &end, 10);
      else if (f[i][0] != '-')
        u[n] = g_ascii_strtoull (f[i], &end, 10);
      if (end == NULL || *end != '\0' || end == f[i])
        return FALSE;
      n++;
    }
  if (n != 6 || u[4] <= u[2])
    return FALSE;
  span->first = u[0];
  span->last = u[1];
  span->time[0] = u[2];
  span->offset[0] = (gint64)u[3];
  span->time[1] = u[4];
  span->offset[1] = (gint64)u[5];
  return TRUE;
}

static gboolean
parse_u64 (const char *s, guint64 max, guint64 *out)
{
  char *end = NULL;
  if (!g_ascii_isdigit (s[0]))
    return FALSE;
  errno = 0;
  guint64 v = g_ascii_strtoull (s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v > max)
    return FALSE;
  *out = v;
  return TRUE;
}

gboolean
kubus_run_parse_threads (const char *text, int *level, GArray *counts)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean have_level = FALSE;
  for (int i = 0; lines[i]; i++)
    {
      if (lines[i][0] == '\0' && lines[i + 1] == NULL)
        break; /* the last line's newline */
      g_auto (GStrv) f = g_strsplit (lines[i], " ", -1);
      guint64 a, b;
      if (g_strv_length (f) != 2)
        return FALSE;
      if (!have_level && i == 0 && strcmp (f[0], "level") == 0)
        {
          static const char *names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
          for (int k = 0; k < 4; k++)
            if (strcmp (f[1], names[k]) == 0)
              *level = k;
          if (*level < 0)
            return FALSE;
          have_level = TRUE;
          continue;
        }
      if (!parse_u64 (f[0], G_MAXINT, &a) || !parse_u64 (f[1], G_MAXUINT64, &b) || b == 0)
        return FALSE;
      if (counts->len > 0 && g_array_index (counts, guint64, counts->len - 2) >= a)
        return FALSE;
      g_array_append_val (counts, a);
      g_array_append_val (counts, b);
    }
  return have_level;
}

void
kubus_run_remove_prefixed (const char *dir,
                           const char *prefix)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix))
      {
        g_autofree char *p = g_build_filename (dir, name, NULL);
        g_remove (p);
      }
}
