/* cube-write-bench — times writing a report in the format its name asks for.
 *
 *   cube-write-bench IN OUT
 *
 * Opens IN eagerly (every value in memory, so reading IN costs the same whatever OUT is), then
 * writes OUT with cube_report_write (.cubex: Cube 4 archive; .cube: CUBE 3 XML). Prints one
 * line "load_s=… write_s=… bytes=…". bench/cube/write-bench compares the two formats. */
#include "cube.h"

#include <glib/gstdio.h>
#include <stdio.h>

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) report = NULL;
  GStatBuf st;
  gint64   t0, t1, t2;

  if (argc != 3)
    {
      fprintf (stderr, "usage: cube-write-bench IN OUT\n");
      return 2;
    }
  t0 = g_get_monotonic_time ();
  report = cube_report_load (argv[1], CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  if (report == NULL)
    {
      fprintf (stderr, "cube-write-bench: %s\n", error->message);
      return 1;
    }
  t1 = g_get_monotonic_time ();
  if (!cube_report_write (report, argv[2], &error))
    {
      fprintf (stderr, "cube-write-bench: %s\n", error->message);
      return 1;
    }
  t2 = g_get_monotonic_time ();
  if (g_stat (argv[2], &st) != 0)
    return 1;
  printf ("load_s=%.3f write_s=%.3f bytes=%lld\n", (t1 - t0) / 1e6, (t2 - t1) / 1e6,
          (long long) st.st_size);
  return 0;
}
