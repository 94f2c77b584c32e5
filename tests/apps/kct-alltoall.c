/* kct-alltoall.c — an all-to-all code for the compressed-trace tests: every step each rank
 * exchanges 64 doubles with every other rank (MPI_Alltoall), computes 1 ms, and reduces a
 * norm (MPI_Allreduce).  The byte counts of the all-to-all grow with the rank count.
 * usage: kct-alltoall [STEPS] */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

int
main (int argc, char **argv)
{
  int steps = argc > 1 ? atoi (argv[1]) : 20;
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  double *out = calloc ((size_t)size * 64, sizeof *out), *in = calloc ((size_t)size * 64, sizeof *in);
  double  norm = 0, all = 0;
  for (int s = 0; s < steps; s++)
    {
      for (int i = 0; i < size * 64; i++)
        out[i] = rank + s + i;
      MPI_Alltoall (out, 64, MPI_DOUBLE, in, 64, MPI_DOUBLE, MPI_COMM_WORLD);
      struct timespec ms = { 0, 1000000 };
      nanosleep (&ms, NULL);
      norm = in[0];
      MPI_Allreduce (&norm, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
  free (out);
  free (in);
  MPI_Finalize ();
  return all < 0;
}
