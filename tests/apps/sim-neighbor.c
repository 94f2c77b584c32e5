/* sim-neighbor.c — a program whose communication the trace does not hold as messages: a ring
 * (a periodic one-dimensional Cartesian topology) exchanging with MPI_Neighbor_alltoall, which
 * the collector records as a call without communication events (OTF2 has no neighbourhood
 * collectives). Computation is nanosleep, uneven between the ranks and the rounds, so that each
 * call waits for a neighbour. Run with more ranks than cores (tests/sim, mode neighbor): the
 * offline model of the cores then has the calls inside its computation intervals, and must leave
 * them their length rather than share the CPUs out over them (they were in MPI, wanting none). */
#include "ws-common.h"
#include "sim-common.h"

#define ROUNDS 200
#define COUNT 700   /* doubles to each neighbour: 5600 bytes, above shared memory's eager limit */

int
main (int    argc,
      char **argv)
{
  int rank, size, dims[1] = { 0 }, periods[1] = { 1 };
  MPI_Comm ring;
  static double out[2 * COUNT], in[2 * COUNT];

  MPI_Init (&argc, &argv);
  sim_app_precise ();
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  dims[0] = size;
  MPI_Cart_create (MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  for (int i = 0; i < ROUNDS; i++)
    {
      ws_sleep_ms (0.3 + 0.3 * ((rank + i) % 2));
      MPI_Neighbor_alltoall (out, COUNT, MPI_DOUBLE, in, COUNT, MPI_DOUBLE, ring);
    }
  MPI_Comm_free (&ring);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
