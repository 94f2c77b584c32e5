/* sim-zero.c — needless zero-size messages (tests/sim): each iteration every rank computes for a
 * time that depends on the rank and the iteration, then passes a zero-byte token around the
 * ring (MPI_Irecv from the left, MPI_Isend to the right, MPI_Waitall) — a synchronisation nobody
 * needs. A final MPI_Allreduce carries the one real message. With the argument "nozero" the ring
 * is left out: `remove messages with size == 0` on a trace of the first predicts a run of the
 * second. */
#include "ws-common.h"
#include "sim-common.h"

#define ITERATIONS 12

int
main (int    argc,
      char **argv)
{
  int rank, size, nozero;
  double v = 1.0, sum = 0.0;

  MPI_Init (&argc, &argv);
  sim_app_precise ();
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  nozero = argc > 1 && strcmp (argv[1], "nozero") == 0;
  for (int it = 0; it < ITERATIONS; it++)
    {
      ws_sleep_ms (20.0 + 40.0 * ((rank * 3 + it) % size) / (size > 1 ? size - 1 : 1));
      if (!nozero)
        {
          MPI_Request r[2];
          MPI_Irecv (NULL, 0, MPI_BYTE, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &r[0]);
          MPI_Isend (NULL, 0, MPI_BYTE, (rank + 1) % size, 5, MPI_COMM_WORLD, &r[1]);
          MPI_Waitall (2, r, MPI_STATUSES_IGNORE);
        }
    }
  MPI_Allreduce (&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
