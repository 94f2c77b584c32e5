/* collect-cnames: calls C functions named mpi_allreduce and mpi_barrier in a library of its
 * own (collect-cnames-lib.c); they make one MPI_Allreduce and two MPI_Barrier calls.  Rank 0
 * prints "collect-cnames: SUM BARRIERS" (SUM: 1 + 2 + … + ranks). */
#include <mpi.h>
#include <stdio.h>

double mpi_allreduce (double x);
int    mpi_barrier (int times);

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank = 0;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  double sum = mpi_allreduce (rank + 1.0);
  int    n = mpi_barrier (2);
  if (rank == 0)
    printf ("collect-cnames: %g %d\n", sum, n);
  MPI_Finalize ();
  return 0;
}
