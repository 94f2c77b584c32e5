/* gen-topology-report — writes the synthetic grid report of topology-test-report.h.
 * usage: gen-topology-report NX NY NZ LO HI OUT.cube
 * e.g. the 4×4×4 grid with values in 90…100: gen-topology-report 4 4 4 90 100 grid.cube */
#include <stdlib.h>

#include "topology-test-report.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) report = NULL;
  gint64 dims[3];
  double lo, hi;

  if (argc != 7)
    {
      g_printerr ("usage: gen-topology-report NX NY NZ LO HI OUT.cube\n");
      return 2;
    }
  for (int i = 0; i < 3; i++)
    {
      guint64 v;
      if (!g_ascii_string_to_unsigned (argv[1 + i], 10, 1, 1024, &v, &error))
        {
          g_printerr ("gen-topology-report: %s\n", error->message);
          return 2;
        }
      dims[i] = (gint64) v;
    }
  lo = g_ascii_strtod (argv[4], NULL);
  hi = g_ascii_strtod (argv[5], NULL);
  report = topology_test_report_new (dims, lo, hi, TOPOLOGY_TEST_PLAIN);
  if (!cube_report_write (report, argv[6], &error))
    {
      g_printerr ("gen-topology-report: %s\n", error->message);
      return 1;
    }
  return 0;
}
