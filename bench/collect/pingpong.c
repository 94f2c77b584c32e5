/* pingpong: N round trips of 0-byte messages between ranks 0 and 1
 * (argv[1], default 1000000), then N MPI_Iprobe calls on each rank, which
 * cost little in MPI itself and so show the wrapper's own overhead.
 * Prints "pingpong_ns_per_roundtrip X" and "iprobe_ns_per_call Y" (rank 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  char b = 0;
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  for (long i = 0; i < n; i++)
    {
      if (rank == 0)
        {
          MPI_Send (&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
          MPI_Recv (&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
      else if (rank == 1)
        {
          MPI_Recv (&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send (&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
  double t1 = MPI_Wtime ();
  MPI_Barrier (MPI_COMM_WORLD);
  int    flag;
  double t2 = MPI_Wtime ();
  for (long i = 0; i < n; i++)
    MPI_Iprobe (MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  double t3 = MPI_Wtime ();
  if (rank == 0)
    printf ("pingpong_ns_per_roundtrip %.1f\niprobe_ns_per_call %.1f\n",
            (t1 - t0) / (double)n * 1e9, (t3 - t2) / (double)n * 1e9);
  MPI_Finalize ();
  return 0;
}
