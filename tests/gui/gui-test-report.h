/* gui-test-report.h — the small hand-made report the GUI tests share.
 *
 *   metrics  Time (sec) › MPI (sec);  Visits (occ, integer)
 *   calls    main › foo › MPI_Send;   main › bar › MPI_Send
 *   system   machine M › node N › rank 0 › thread 0;  rank 1 › thread 1
 *
 * Time per call path and location (exclusive along the call tree, inclusive of MPI):
 *   main [1 1]  foo [2 4]  foo/MPI_Send [3 1]  bar [1 1]  bar/MPI_Send [0 2]   total 16
 * MPI:  foo/MPI_Send [3 1]  bar/MPI_Send [0 2]                                 total 6
 * @scale multiplies every Time value (to make a second report for differences). */
#pragma once

#include "cube.h"

CubeReport *gui_test_report_new (double scale);
