/* prof-reduce.c — the profile's minima are reduced across ranks with one reduction at
 * MPI_Finalize, not per call (tests/collect/profile-test.py, case reduce).
 *
 * The program defines PMPI_Allreduce itself (linked with -rdynamic, so the preloaded collector's
 * calls of PMPI_Allreduce come here first) and counts the MIN reductions of at least 1000
 * values: the profile's table of minima (estimated functions × size classes).  It makes
 * argv[1] rounds of point-to-point and collective calls in 21 size classes before. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int minima_reductions;

int
PMPI_Allreduce (const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  static int (*real) (const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
  if (real == NULL)
    real = (int (*) (const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm)) dlsym (
        RTLD_NEXT, "PMPI_Allreduce");
  if (op == MPI_MIN && count >= 1000)
    minima_reductions++;
  return real (in, out, count, type, op, comm);
}

int
main (int argc, char **argv)
{
  static char sbuf[1 << 20], rbuf[1 << 20];
  int         rank, size, rounds = argc > 1 ? atoi (argv[1]) : 10;
  double      x = 1, y;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k <= 20; k++)
      {
        int n = k == 0 ? 0 : 1 << (k - 1);
        MPI_Sendrecv (sbuf, n, MPI_CHAR, (rank + 1) % size, k, rbuf, n, MPI_CHAR,
                      (rank + size - 1) % size, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Bcast (sbuf, n, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      }
  MPI_Finalize ();
  printf ("prof-reduce: rank %d: %d minima reductions\n", rank, minima_reductions);
  return 0;
}
