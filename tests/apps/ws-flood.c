/* ws-flood.c — many events for the analyzer benchmark: a ring exchange with MPI_Isend,
 * MPI_Irecv, MPI_Waitall inside a user region, plus an MPI_Allreduce every 64 iterations.
 * About 12 events per iteration and rank. usage: ws-flood [ITERATIONS] */
#include "ws-common.h"

static void __attribute__ ((noinline))
step (int rank, int size, int i)
{
  double out = i, in;
  MPI_Request req[2];
  MPI_Irecv (&in, 1, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Isend (&out, 1, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall (2, req, MPI_STATUSES_IGNORE);
}

int
main (int argc, char **argv)
{
  int rank, size;
  long n = argc > 1 ? atol (argv[1]) : 1000;
  double x = 1, y;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  for (long i = 0; i < n; i++)
    {
      step (rank, size, (int) i);
      if (i % 64 == 63)
        MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  MPI_Finalize ();
  return 0;
}
