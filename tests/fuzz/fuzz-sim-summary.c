/* fuzz-sim-summary — bytes read as the summary.json of kubus-sim, the way the browser's
 * simulation result panel reads it (src/gui/kubus-sim-summary.c): every field is checked for
 * its type before use, and a failure says why. */
#include <math.h>
#include <stdlib.h>

#include "kubus-sim-summary.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusSimSummary) s = kubus_sim_summary_parse ((const char *) data, size, "fuzz.json", &error);
  g_autofree char *rules = NULL;

  if (s == NULL)
    {
      if (error == NULL || error->message == NULL)
        abort (); /* failure must say why */
      return 0;
    }
  /* what the panel relies on */
  if (isnan (s->original_s) || isnan (s->predicted_s) || s->rules == NULL || s->gains == NULL
      || s->losses == NULL || s->approximations == NULL)
    abort ();
  for (guint i = 0; i < s->gains->len; i++)
    {
      const KubusSimChange *c = g_ptr_array_index (s->gains, i);
      if (c->metric == NULL || c->call_path == NULL || isnan (c->seconds)
          || !g_utf8_validate (c->call_path, -1, NULL))
        abort ();
    }
  rules = kubus_sim_summary_rules_text (s);
  if (!g_utf8_validate (rules, -1, NULL))
    abort ();
  return 0;
}
