/* fuzz-cubegz — .cube.gz files through cube_report_load. Inputs that start with the gzip magic
 * are loaded as they are (corrupt streams, bad CRCs, truncation); any other input is treated
 * as XML, gzip-compressed here, and loaded (the streaming gz reader with fuzzed XML). */
#include "fuzz-common.h"

#include <zlib.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = NULL;
  g_autofree guint8 *gz = NULL;
  const char        *path;

  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
    path = fuzz_file (data, size);
  else
    {
      z_stream zs = { 0 };
      gsize    cap = deflateBound (&zs, size) + 64;

      gz = g_malloc (cap);
      if (deflateInit2 (&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort ();
      zs.next_in = (Bytef *) data;
      zs.avail_in = (uInt) size;
      zs.next_out = gz;
      zs.avail_out = (uInt) cap;
      if (deflate (&zs, Z_FINISH) != Z_STREAM_END)
        abort ();
      path = fuzz_file (gz, zs.total_out);
      deflateEnd (&zs);
    }

  r = cube_report_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, &error);
  if (r == NULL && error == NULL)
    abort ();
  if (r != NULL)
    fuzz_exercise (r);
  return 0;
}
