/* fuzz-scaling-report — CUBE 3 XML bytes read as the report of `kubus-cube scaling -o`, the way
 * the browser's Scalability window reads it (src/gui/kubus-scalability-result.c): its
 * attributes (task counts, ranking, undefined call paths) and metrics are checked before use. */
#include "fuzz-common.h"
#include "kubus-scalability-result.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = cube_xml_parse_memory ((const char *) data, size, "fuzz.cube",
                                                    CUBE_XML_CUBE3, &error);
  g_autoptr (KubusScalingResult) result = NULL;

  if (r == NULL)
    return 0;
  result = kubus_scaling_result_new (r, &error);
  if (result == NULL)
    {
      if (error == NULL)
        abort (); /* failure must say why */
      return 0;
    }
  /* what the window relies on */
  if (result->n_counts == 0 || result->metric == NULL)
    abort ();
  for (guint k = 1; k < result->n_counts; k++)
    if (result->counts[k] <= result->counts[k - 1])
      abort ();
  for (guint i = 0; i < result->sites->len; i++)
    {
      const KubusScalingSite *s = g_ptr_array_index (result->sites, i);
      volatile double sum = s->rho + s->p_value;

      if (s->name == NULL || s->share == NULL)
        abort ();
      for (guint k = 0; k < result->n_counts; k++)
        sum += s->share[k];
      (void) sum;
    }
  return 0;
}
