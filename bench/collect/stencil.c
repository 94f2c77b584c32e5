/* stencil: 2-D Jacobi sweeps on a row-decomposed grid with halo exchange
 * (MPI_Sendrecv) every iteration and an MPI_Allreduce of the residual every
 * 10 iterations.  argv: rows per rank (default 512), columns (512),
 * iterations (400).  Prints "stencil_seconds X" (rank 0) and "stencil_cpu_seconds Y", the
 * loop's user + system CPU time on rank 0 (measurable on a busy machine). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double
cpu_seconds (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int     rows = argc > 1 ? atoi (argv[1]) : 512;
  int     cols = argc > 2 ? atoi (argv[2]) : 512;
  int     iters = argc > 3 ? atoi (argv[3]) : 400;
  double *a = calloc ((size_t)(rows + 2) * (size_t)cols, sizeof *a);
  double *b = calloc ((size_t)(rows + 2) * (size_t)cols, sizeof *b);
  for (int j = 0; j < cols; j++)
    a[j] = b[j] = rank == 0 ? 1.0 : 0.0;
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime (), c0 = cpu_seconds ();
  double res = 0;
  for (int it = 0; it < iters; it++)
    {
      MPI_Sendrecv (a + cols, cols, MPI_DOUBLE, up, 1, a + (size_t)(rows + 1) * cols, cols,
                    MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv (a + (size_t)rows * cols, cols, MPI_DOUBLE, down, 2, a, cols, MPI_DOUBLE, up, 2,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double local = 0;
      for (int i = 1; i <= rows; i++)
        for (int j = 1; j < cols - 1; j++)
          {
            size_t k = (size_t)i * cols + j;
            b[k] = 0.25 * (a[k - cols] + a[k + cols] + a[k - 1] + a[k + 1]);
            double d = b[k] - a[k];
            local += d * d;
          }
      double *t = a;
      a = b;
      b = t;
      if (it % 10 == 0)
        MPI_Allreduce (&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  double t1 = MPI_Wtime (), c1 = cpu_seconds ();
  if (rank == 0)
    printf ("stencil_seconds %.4f residual %.3e\nstencil_cpu_seconds %.4f\n", t1 - t0, res,
            c1 - c0);
  free (a);
  free (b);
  MPI_Finalize ();
  return 0;
}
