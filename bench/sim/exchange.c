/* exchange.c — the machine's own variability for large messages (docs/benchmarks.md, issue 21):
 * two ranks exchange two messages of BYTES each way (Irecv, Irecv, Isend, Isend, Testall until
 * done, as HPCC's bandwidth test and the replay do) ITERS times, and rank 0 prints the mean,
 * fastest and slowest exchange in ms. Run it several times (exchange-modes.sh): on the CI machine
 * of 2026-11-29 whole runs of plain MPI fall into a mode 4x slower than the others.
 * Usage: mpirun -n 2 exchange [ITERS [BYTES]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int
main (int    argc,
      char **argv)
{
  int rank, size, iters, n;
  char *s, *d;
  double sum = 0, lo = 1e30, hi = 0;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  iters = argc > 1 ? atoi (argv[1]) : 300;
  n = argc > 2 ? atoi (argv[2]) : 2000000;
  if (size != 2 || iters <= 0 || n <= 0)
    {
      if (rank == 0)
        fprintf (stderr, "usage: mpirun -n 2 exchange [ITERS [BYTES]]\n");
      MPI_Finalize ();
      return 2;
    }
  s = malloc (2 * (size_t) n);
  d = malloc (2 * (size_t) n);
  if (!s || !d)
    MPI_Abort (MPI_COMM_WORLD, 1);
  memset (s, 1, 2 * (size_t) n);
  memset (d, 0, 2 * (size_t) n);
  for (int i = 0; i < iters; i++)
    {
      MPI_Request q[4];
      int done = 0;
      double t0 = now_ms (), t;
      MPI_Irecv (d, n, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, &q[0]);
      MPI_Irecv (d + n, n, MPI_BYTE, 1 - rank, 2, MPI_COMM_WORLD, &q[1]);
      MPI_Isend (s, n, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, &q[2]);
      MPI_Isend (s + n, n, MPI_BYTE, 1 - rank, 2, MPI_COMM_WORLD, &q[3]);
      while (!done)
        MPI_Testall (4, q, &done, MPI_STATUSES_IGNORE);
      t = now_ms () - t0;
      sum += t;
      lo = t < lo ? t : lo;
      hi = t > hi ? t : hi;
    }
  if (rank == 0)
    printf ("mean %.3f ms, fastest %.3f, slowest %.3f (%d exchanges of 2 x %d bytes each way)\n", sum / iters, lo,
            hi, iters, n);
  free (s);
  free (d);
  MPI_Finalize ();
  return 0;
}
