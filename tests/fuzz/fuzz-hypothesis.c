/* fuzz-hypothesis — kubus-sim's hypothesis parser (src/core/sim-hypothesis.c): any bytes are
 * parsed; a parsed hypothesis is resolved against a small fake trace (region lookup, "did you
 * mean" suggestions). Errors are fine; a failure without a message, crashes, leaks and hangs
 * are not. */
#include "sim-private.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static TraceDefs *
fake_defs (void)
{
  static const char *names[] = { "main", "foo", "bar", "my region", "MPI_Send", "MPI_Allreduce", "solve" };
  TraceDefs *d = g_new0 (TraceDefs, 1);
  d->regions = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      TraceRegion *r = g_new0 (TraceRegion, 1);
      r->name = (char *) names[i];
      r->klass = g_str_has_prefix (names[i], "MPI_") ? RC_MPI_P2P : RC_USER;
      g_hash_table_insert (d->regions, GUINT_TO_POINTER (i), r);
    }
  return d;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static TraceDefs *defs;
  g_autoptr (GError) error = NULL;
  Hypothesis *h;

  if (!defs)
    defs = fake_defs ();
  h = sim_hypothesis_parse ("fuzz.hyp", (const char *) data, size, &error);
  if (!h)
    {
      if (!error)
        abort ();   /* a refusal must say why */
      return 0;
    }
  if (!sim_hypothesis_resolve (h, defs, &error) && !error)
    abort ();
  sim_hypothesis_free (h);
  return 0;
}
