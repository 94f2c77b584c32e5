/* collect-sleep: a run to be stopped (kubus-run's signal forwarding, collect-stopped). After
 * MPI_Init and a barrier, rank 0 says "collect-sleep: ranks started"; then every rank sleeps
 * (nanosleep, 100 ms at a time) for up to 120 s, far longer than the test waits, and finalizes.
 * The test stops kubus-run meanwhile and looks for processes of this program by its path. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int
main (int argc, char **argv)
{
  int rank;
  struct timespec step = { 0, 100000000L };

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    {
      printf ("collect-sleep: ranks started\n");
      fflush (stdout);
    }
  for (int i = 0; i < 1200; i++)
    nanosleep (&step, NULL);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
