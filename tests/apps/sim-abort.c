/* sim-abort: a run that rank 1 ends with MPI_Abort (error code 3) after every message has been
 * received and every collective completed, so that the trace is consistent and only ends early:
 * kubus-sim must refuse it for being aborted, not for an unmatched message (sim-aborted). Ten
 * ring exchanges and a barrier; then every other rank sends rank 1 one message and sleeps
 * (nanosleep, up to 60 s, far longer than the abort takes); rank 1 receives them all and aborts.
 * At least 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int
main (int argc, char **argv)
{
  int rank, size, v, w = 0;
  struct timespec step = { 0, 100000000L };

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size < 2)
    MPI_Abort (MPI_COMM_WORLD, 2);
  v = rank;
  for (int i = 0; i < 10; i++)
    MPI_Sendrecv (&v, 1, MPI_INT, (rank + 1) % size, 4, &w, 1, MPI_INT, (rank + size - 1) % size, 4,
                  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 1)
    {
      for (int r = 0; r < size; r++)
        if (r != 1)
          MPI_Recv (&w, 1, MPI_INT, r, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf ("sim-abort: rank 1 aborts\n");
      fflush (stdout);
      MPI_Abort (MPI_COMM_WORLD, 3);
    }
  MPI_Send (&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
  for (int i = 0; i < 600; i++)
    nanosleep (&step, NULL);
  MPI_Finalize ();
  return 0;
}
