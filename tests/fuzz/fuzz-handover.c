/* fuzz-handover — kubus-run's readers of the collector's hand-over files (.kubus-clock,
 * .kubus-span-RANK, .kubus-threads; src/collect/kubus-run-handover.c) on arbitrary bytes. */
#include "kubus-run-handover.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr (GString) json = g_string_new (NULL);
  KubusRunSpan span;

  kubus_run_clock_json (json, text);
  /* an object on one line or nothing */
  if (json->len > 0 && (!g_str_has_prefix (json->str, "  \"clock\": {")
                        || !g_str_has_suffix (json->str, "},\n")
                        || strchr (json->str, '\n') != json->str + json->len - 1))
    abort ();
  if (kubus_run_parse_span (text, &span) && span.time[1] <= span.time[0])
    abort ();
  /* (rank, count) pairs, ranks ascending, counts > 0, a known level */
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  int level = -1;
  if (kubus_run_parse_threads (text, &level, counts))
    {
      if (level < 0 || level > 3 || counts->len % 2 != 0)
        abort ();
      for (guint i = 0; i < counts->len; i += 2)
        if (g_array_index (counts, guint64, i + 1) == 0
            || g_array_index (counts, guint64, i) > G_MAXINT
            || (i > 0 && g_array_index (counts, guint64, i) <= g_array_index (counts, guint64, i - 2)))
          abort ();
    }
  return 0;
}
