/* selfloop.c — the collector's cost per MPI call without waiting for another process: one
 * rank posts a receive from itself, sends to itself and waits, N times (3 MPI calls per
 * iteration, a request each time), then N MPI_Iprobe calls that find nothing.  Prints
 *   selfloop_ns_per_iteration X
 *   iprobe_ns_per_call Y
 * usage: kct-bench-selfloop [N] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  MPI_Init (&argc, &argv);
  int  rank, x = 0, y = 0, flag;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  for (int warm = 0; warm < 2; warm++)
    {
      double t0 = now ();
      for (long i = 0; i < n; i++)
        {
          MPI_Request r;
          MPI_Irecv (&y, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &r);
          MPI_Send (&x, 1, MPI_INT, rank, 1, MPI_COMM_WORLD);
          MPI_Wait (&r, MPI_STATUS_IGNORE);
        }
      double t1 = now ();
      for (long i = 0; i < n; i++)
        MPI_Iprobe (rank, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      double t2 = now ();
      if (warm == 1 && rank == 0)
        {
          printf ("selfloop_ns_per_iteration %.1f\n", (t1 - t0) / n);
          printf ("iprobe_ns_per_call %.1f\n", (t2 - t1) / n);
        }
    }
  MPI_Finalize ();
  return 0;
}
