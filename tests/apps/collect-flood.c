/* collect-flood: many small messages (argv[1], default 30000) from rank 0
 * to rank 1, enough to fill a small trace buffer several times.
 * Starts with MPI_Init_thread to cover that wrapper.  With "irecv" (argv[2]) rank 1 receives
 * with MPI_Irecv + MPI_Wait: the Wait writes the receive's event after the call, so a buffer
 * flush that happens as its Enter is written is followed by a later-stamped event. */
#include <string.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  int provided;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  int n = argc > 1 ? atoi (argv[1]) : 30000;
  int v = 0, irecv = argc > 2 && strcmp (argv[2], "irecv") == 0;
  for (int i = 0; i < n; i++)
    {
      if (rank == 0)
        MPI_Send (&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      else if (rank == 1 && irecv)
        {
          MPI_Request r;
          MPI_Irecv (&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
          MPI_Wait (&r, MPI_STATUS_IGNORE);
        }
      else if (rank == 1)
        MPI_Recv (&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    printf ("collect-flood: %d messages\n", n);
  MPI_Finalize ();
  return 0;
}
