/* gui-bench-report.h — synthetic reports built in memory for the browser benchmarks.
 *
 * Metrics: Time (sec) › { Computation, MPI } and Visits (occ, INT64), all stored, so a metric
 * change exercises collapsed (inclusive) and expanded (exclusive) metric selections.
 * System tree: machine › node n › process (rank) › thread, 64 processes per node.
 * Values are deterministic (a small LCG) and dense: every (metric, call path, location). */
#pragma once

#include "cube.h"

/* Call tree of @n_cnodes call paths with fan-out @fanout (cnode i > 0 under (i − 1) / fanout,
 * created depth-first like a reader would), @n_locations locations. */
CubeReport *gui_bench_report_tree (guint n_cnodes, guint fanout, guint n_locations);

/* main › { wide › @n_children leaf call paths, other }, @n_locations locations: the call
 * tree node with many children for the expand-and-scroll benchmark. "wide" has file id 1. */
CubeReport *gui_bench_report_wide (guint n_children, guint n_locations);

/* Monotonic seconds. */
double gui_bench_now (void);

/* Median and maximum of @n values (sorts @v). */
double gui_bench_median (double *v, guint n);
double gui_bench_max (const double *v, guint n);
