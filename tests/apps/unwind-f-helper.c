/* unwind-f-helper: the C side of unwind-f.f90 (a Fortran program calling MPI through C). */
#include <mpi.h>

__attribute__ ((noinline)) void
c_allreduce (double *x)
{
  double y = 0;
  MPI_Allreduce (x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *x = y;
}

void
c_init (void)
{
  MPI_Init (NULL, NULL);
}

void
c_finalize (void)
{
  MPI_Finalize ();
}
