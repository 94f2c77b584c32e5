/* fuzz-cubex — .cubex tar archives through cube_cubex_load, lazily (every row read afterwards)
 * and eagerly, and through the generic cube_report_load. */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  const char *path = fuzz_file (data, size);

  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CubeReport) r = cube_cubex_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, &error);

    if (r == NULL && error == NULL)
      abort ();
    if (r != NULL)
      fuzz_exercise (r);
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CubeReport) r = cube_cubex_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);

    if (r == NULL && error == NULL)
      abort ();
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CubeReport) r = cube_report_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL,
                                                 &error);
    if (r == NULL && error == NULL)
      abort ();
  }
  return 0;
}
