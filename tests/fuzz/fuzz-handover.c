/* fuzz-handover — kubus-run's readers of the collector's clock hand-over files (.kubus-clock,
 * .kubus-span-RANK; src/collect/kubus-run-handover.c) on arbitrary bytes. */
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
  return 0;
}
