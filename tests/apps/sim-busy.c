/* sim-busy.c — the contention test program of the simulator (tests/sim, issue 21): ranks that
 * compute (busy loops of a fixed amount of work, not sleeps), so that with more ranks than
 * cores they share them and a run takes as long as the cores need for all the work.
 *
 * Each of ITERATIONS iterations: every rank computes WORK units (about 2 ms of one core;
 * rank-dependent, so ranks wait for each other too), exchanges 1 KB with both ring neighbours
 * (MPI_Sendrecv), and every fourth iteration all meet in MPI_Allreduce. Run with 1× to 3× as
 * many ranks as cores. Never under SCHED_RR: the point is the normal scheduler's sharing.
 *
 * `sim-busy balanced`: every rank computes, each iteration, the mean over the ranks of that
 * iteration's work: the run `balance region main` predicts (its phases are the computation
 * before each iteration's first MPI_Sendrecv). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITERATIONS 240
#define WORK 2000000L

static volatile double sink;

static void __attribute__ ((noinline))
compute (long units)
{
  double x = 1.0;
  for (long i = 0; i < units; i++)
    x = x * 1.0000001 + 1e-9;
  sink = x;
}

int
main (int    argc,
      char **argv)
{
  int rank, size;
  static char out[1024], in[1024];
  double v = 1.0, all;
  int balanced = argc > 1 && strcmp (argv[1], "balanced") == 0;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPI_Barrier (MPI_COMM_WORLD);
  for (int it = 0; it < ITERATIONS; it++)
    {
      int right = (rank + 1) % size, left = (rank + size - 1) % size;
      if (balanced)
        {
          long sum = 0;
          for (int r = 0; r < size; r++)
            sum += WORK / 4 * ((r + it) % 3);
          compute (WORK + sum / size);
        }
      else
        compute (WORK + WORK / 4 * ((rank + it) % 3));
      MPI_Sendrecv (out, sizeof out, MPI_BYTE, right, 1, in, sizeof in, MPI_BYTE, left, 1, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
      MPI_Sendrecv (out, sizeof out, MPI_BYTE, left, 2, in, sizeof in, MPI_BYTE, right, 2, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
      if (it % 4 == 3)
        MPI_Allreduce (&v, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  MPI_Finalize ();
  return 0;
}
