/* topology-test-report.h — reports with a Cartesian grid whose values are known by
 * construction (topology view tests, the synthetic screenshot, bench/gui).
 *
 *   metric   time (sec);  call tree: main
 *   system   machine › node › one process per rank › one thread each
 *   topology "Synthetic grid", dimensions x (periodic), y, z of @dims; rank r sits at
 *            x = r mod nx, y = (r / nx) mod ny, z = r / (nx · ny)
 *   values   time of rank r = lo + (hi − lo) · r / (n − 1)   (n = nx · ny · nz ranks) */
#pragma once

#include "cube.h"

typedef enum
{
  TOPOLOGY_TEST_PLAIN     = 0,
  TOPOLOGY_TEST_ZERO_RANK = 1 << 0,   /* rank 1 has time 0 */
  TOPOLOGY_TEST_HOLE      = 1 << 1,   /* the last rank has no coordinate */
} TopologyTestFlags;

CubeReport *topology_test_report_new (const gint64      dims[3],
                                      double            lo,
                                      double            hi,
                                      TopologyTestFlags flags);
/* The time of rank @rank as topology_test_report_new sets it. */
double      topology_test_value      (const gint64      dims[3],
                                      double            lo,
                                      double            hi,
                                      TopologyTestFlags flags,
                                      gint64            rank);
