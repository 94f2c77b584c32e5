/* collect-abort: rank 1 calls MPI_Abort (error code 3) while the others
 * wait for a message that never comes.  4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int v = rank, w = 0;
  for (int i = 0; i < 20; i++)
    MPI_Sendrecv (&v, 1, MPI_INT, next, 4, &w, 1, MPI_INT, prev, 4, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 1)
    {
      printf ("collect-abort: rank 1 aborts\n");
      fflush (stdout);
      MPI_Abort (MPI_COMM_WORLD, 3);
    }
  else
    MPI_Recv (&w, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize ();
  return 0;
}
