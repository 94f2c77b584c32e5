/* collect-crash: rank 2 dies of SIGSEGV (or, with argument "exit", calls
 * exit(5) without MPI_Finalize; with "mpierror", sends to a rank that does
 * not exist, and the MPI library's MPI_ERRORS_ARE_FATAL ends the job) while
 * the others wait for it.  4 ranks.
 * With argument "finalize" the others wait inside MPI_Finalize, and rank 2
 * crashes 300 ms after them. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int v = rank, w = 0;
  for (int i = 0; i < 10; i++)
    MPI_Sendrecv (&v, 1, MPI_INT, next, 4, &w, 1, MPI_INT, prev, 4, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  MPI_Barrier (MPI_COMM_WORLD);
  int in_finalize = argc > 1 && strcmp (argv[1], "finalize") == 0;
  if (rank == 2)
    {
      if (in_finalize)
        {
          struct timespec late = { 0, 300000000 };
          nanosleep (&late, NULL);
        }
      printf ("collect-crash: rank 2 crashes\n");
      fflush (stdout);
      if (argc > 1 && strcmp (argv[1], "exit") == 0)
        exit (5);
      if (argc > 1 && strcmp (argv[1], "mpierror") == 0)
        MPI_Send (&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
      /* a real SIGSEGV; a NULL store would be caught by UBSan first */
      raise (SIGSEGV);
    }
  else if (!in_finalize)
    MPI_Recv (&w, 1, MPI_INT, 2, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize ();
  return 0;
}
