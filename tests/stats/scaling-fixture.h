/* scaling-fixture.h — hand-made experiments for the scalability tests (tests/stats and
 * tests/gui): every share is known by construction.
 *
 * An experiment at P tasks (P processes with one thread each; every location alike):
 *   main                         1      computation
 *     MPI_Init                   0.5    set-up
 *     solve                      2      computation
 *       MPI_Recv                 1      aggregate P          (share falls)
 *       MPI_Recv  (2nd sibling)  2/P    aggregate 2          (share falls)
 *       MPI_Allreduce            P      aggregate P²         (share grows)
 *       MPI_Bcast                0.01   only in the run at 8 tasks
 *     MPI_Comm_rank              0      a callsite that never takes time
 *     MPI_Finalize               0.25   set-up
 * Metrics: time (sec) with child mpi_latesender (sec; 0.5 per location on MPI_Recv), visits (occ;
 * 10 per location on each MPI_Recv, 1 on MPI_Allreduce).
 * Communication time C(P) = P + 2 + P² (+ 0.08 at 8): C(2) = 8, C(4) = 22, C(8) = 74.08.
 * Runs: 2, 4, 4, 8 tasks. */
#pragma once

#include "cube.h"

typedef struct
{
  const char *main_name;       /* "main"; another program calls it something else */
  gboolean    with_time;
  gboolean    threads;         /* two threads per process */
  gboolean    no_mpi;          /* only MPI_Init/Finalize */
  gboolean    idle;            /* callsites take no time */
} ScalingShape;

extern const ScalingShape scaling_shape_plain;

/* The experiment at @P tasks described above; owned by the caller. */
CubeReport *scaling_fixture_report (guint P, const ScalingShape *shape);

/* Writes @report (consumed) as DIR/NAME/FILE; returns DIR/NAME (g_free). */
char       *scaling_fixture_write (const char *dir, const char *name, const char *file,
                                   CubeReport *report);
