/* experiment-files.c — see experiment-files.h.  kubus.json is kubus-run's own output (one key a
 * line, strings JSON-escaped): looked up by key, not parsed as a whole. */
#include "experiment-files.h"

#include <glib/gi18n.h>
#include <string.h>

/* The text of the JSON string after @p (spaces, then '"'), escapes undone; NULL when none. */
static char *
json_string_at (const char *p)
{
  GString *s;

  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (*p != '"')
    return NULL;
  s = g_string_new (NULL);
  for (p++; *p != '\0' && *p != '"'; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        p++;
      g_string_append_c (s, *p);
    }
  if (*p != '"')
    {
      g_string_free (s, TRUE);
      return NULL;
    }
  return g_string_free (s, FALSE);
}

/* The value after "KEY": (after @from), as a pointer to its first character; NULL when absent. */
static const char *
json_value (const char *from,
            const char *key)
{
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", key);
  const char *p = strstr (from, quoted);

  if (p == NULL)
    return NULL;
  p += strlen (quoted);
  while (*p == ' ' || *p == '\t')
    p++;
  return *p == ':' ? p + 1 : NULL;
}

char *
kubus_experiment_why_no_trace (const char *expdir,
                               const char *file)
{
  g_autofree char *json_path = g_build_filename (expdir, "kubus.json", NULL);
  g_autofree char *path = g_build_filename (expdir, file, NULL);
  g_autofree char *json = NULL;
  const char *p;

  if (g_file_test (path, G_FILE_TEST_EXISTS) || !g_file_get_contents (json_path, &json, NULL, NULL))
    return NULL;
  p = json_value (json, "not_written");
  if (p != NULL && (p = strchr (p, '{')) != NULL)
    {
      const char *end = strchr (p, '}');
      const char *v = json_value (p, file);
      g_autofree char *reason = v != NULL && (end == NULL || v < end) ? json_string_at (v) : NULL;

      if (reason != NULL && strcmp (reason, "collector-incomplete") == 0)
        /* TRANSLATORS: %s is a file name, traces.kct or traces.otf2 */
        return g_strdup_printf (_("the run wrote no trace %s: the collector could not complete it "
                                  "(kubus-run said why when the run ended; kubus.json, "
                                  "\"not_written\")"), file);
      if (reason != NULL)
        return g_strdup_printf (_("the run wrote no trace %s: no rank wrote one (kubus.json, "
                                  "\"not_written\")"), file);
    }
  /* an experiment of an older kubus-run: kubus.json named the trace before it was written */
  for (const char *key = "trace"; key != NULL; key = strcmp (key, "trace") == 0 ? "compressed_trace" : NULL)
    {
      const char *v = json_value (json, key);
      g_autofree char *named = v != NULL ? json_string_at (v) : NULL;

      if (named != NULL && strcmp (named, file) == 0)
        return g_strdup_printf (_("kubus.json names the trace %s, but it is not in the folder (the "
                                  "collector could not complete it, or it was removed)"), file);
    }
  return NULL;
}

char *
kubus_experiment_why_no_traces (const char *expdir)
{
  static const char *const files[] = { "traces.otf2", "traces.kct" };
  char *why = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (expdir, files[i], NULL);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        return NULL;
    }
  for (guint i = 0; i < G_N_ELEMENTS (files) && why == NULL; i++)
    why = kubus_experiment_why_no_trace (expdir, files[i]);
  return why;
}
