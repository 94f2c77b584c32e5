/* A C library whose functions are named as MPI's Fortran bindings are without an underscore,
 * as R's Rmpi package names its C functions (mpi_allreduce, mpi_barrier, …).  A call into it
 * from another object goes through the PLT: a preloaded collector that exported those names
 * took the call and read its C arguments as Fortran ones (Rmpi: a segmentation fault). */
#include <mpi.h>

double
mpi_allreduce (double x)
{
  double sum = 0.0;
  MPI_Allreduce (&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

int
mpi_barrier (int times)
{
  for (int i = 0; i < times; i++)
    MPI_Barrier (MPI_COMM_WORLD);
  return times;
}
