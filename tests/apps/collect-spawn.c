/* collect-spawn: the ranks mpirun started spawn two more processes of this program
 * (MPI_Comm_spawn), wait for them in a barrier of their own and disconnect.  Under kubus-run
 * only the first ones are measured (collect-state.c); the spawned ones used to write their
 * trace over theirs.  Usage: collect-spawn [talk] (the spawned ones get "child" [talk]);
 * with talk, rank 0 broadcasts a number to the spawned ones over the inter-communicator
 * (MPI_ROOT), whose processes the trace cannot name.  Prints "collect-spawn: done" from rank 0
 * of the first ones. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void
nap (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep (&ts, NULL);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank = 0;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm_get_parent (&parent);
  if (argc > 1 && strcmp (argv[1], "child") == 0 && parent != MPI_COMM_NULL)
    {
      nap (20);
      if (argc > 2)
        {
          int v = 0;
          MPI_Bcast (&v, 1, MPI_INT, 0, parent);
        }
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Comm_disconnect (&parent);
      MPI_Finalize ();
      return 0;
    }
  int      talk = argc > 1 && strcmp (argv[1], "talk") == 0;
  char    *child_argv[] = { "child", talk ? "talk" : NULL, NULL };
  MPI_Comm kids = MPI_COMM_NULL;
  int      errs[2] = { 0, 0 };
  MPI_Comm_spawn (argv[0], child_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, errs);
  nap (10);
  if (talk)
    {
      int v = 7;
      MPI_Bcast (&v, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, kids);
    }
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Comm_disconnect (&kids);
  if (rank == 0)
    printf ("collect-spawn: done\n");
  MPI_Finalize ();
  return kids == MPI_COMM_NULL && errs[0] == MPI_SUCCESS && errs[1] == MPI_SUCCESS ? 0 : 1;
}
