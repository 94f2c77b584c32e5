/* kct-ring.c — a 1-D ring for the compressed-trace tests: every rank passes a token to its
 * right neighbour and receives one from its left (non-blocking, Waitall), computes 1 ms, and
 * every 5 steps the ranks agree on a value (Allreduce).  Each rank's sequence is the same
 * except for the peers it names, which are the same relative to the rank.
 * usage: kct-ring [STEPS] */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

int
main (int argc, char **argv)
{
  int steps = argc > 1 ? atoi (argv[1]) : 20;
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  double token = rank, in = 0, sum = 0;
  for (int s = 0; s < steps; s++)
    {
      MPI_Request req[2];
      MPI_Irecv (&in, 1, MPI_DOUBLE, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &req[0]);
      MPI_Isend (&token, 1, MPI_DOUBLE, (rank + 1) % size, 7, MPI_COMM_WORLD, &req[1]);
      MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
      struct timespec ms = { 0, 1000000 };
      nanosleep (&ms, NULL);
      token = in + 1;
      if (s % 5 == 4)
        MPI_Allreduce (&token, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  MPI_Finalize ();
  return sum < 0;
}
