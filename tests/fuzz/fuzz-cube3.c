/* fuzz-cube3 — CUBE 3 XML bytes through the in-memory XML entry point. */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = cube_xml_parse_memory ((const char *) data, size, "fuzz.cube",
                                                    CUBE_XML_CUBE3, &error);

  if (r == NULL && error == NULL)
    abort (); /* failure must say why */
  if (r != NULL)
    fuzz_exercise (r);
  return 0;
}
