/* kubus-runner-progress.c — see kubus-runner-progress.h. */
#include "kubus-runner-progress.h"

#include <string.h>

gboolean
kubus_runner_progress_parse (const char *line,
                             double     *fraction,
                             char      **phase)
{
  const char *p = line, *colon;
  int pct = 0, digits = 0;

  g_return_val_if_fail (line != NULL, FALSE);

  /* "kubus-" and a lower-case tool name */
  if (!g_str_has_prefix (p, "kubus-"))
    return FALSE;
  colon = strchr (p, ':');
  if (colon == NULL || colon == p + 6)
    return FALSE;
  for (const char *c = p + 6; c < colon; c++)
    if (!g_ascii_islower (*c) && *c != '-')
      return FALSE;
  p = colon + 1;
  if (*p++ != ' ' || *p++ != '[')
    return FALSE;
  while (*p == ' ')
    p++;
  while (g_ascii_isdigit (*p) && digits < 4)
    {
      pct = pct * 10 + (*p++ - '0');
      digits++;
    }
  if (digits == 0 || digits > 3 || pct > 100 || *p++ != '%' || *p++ != ']')
    return FALSE;
  if (*p == ' ')
    p++;
  if (fraction != NULL)
    *fraction = pct / 100.0;
  if (phase != NULL)
    *phase = g_strdup (p);
  return TRUE;
}
