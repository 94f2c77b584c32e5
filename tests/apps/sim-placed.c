/* sim-placed.c — a run whose ranks the scheduler did not spread evenly over the cores: every
 * rank but the last binds itself to the first CPU it may use, the last to the second (with 4
 * ranks on 2 cores: three on one CPU, one on the other, as Linux placed LAMMPS's ranks for part
 * of some runs). The ranks compute for CPU time (busy loops of a fixed amount of work), exchange
 * 1 KB with both ring neighbours and meet in MPI_Allreduce every fourth iteration, so that each
 * iteration takes as long as the crowded CPU needs for its ranks' work.
 *
 * A re-enactment that leaves its ranks to the scheduler runs them two and two, and faster; one
 * that runs each rank on the CPU the collector's samples place it on brings the original's
 * sharing back (tests/sim, mode placed; docs/decisions/2026-11-30-pinned-replay.md).
 * The binding happens after MPI_Init: kubus-run's own start-up is not affected. Needs 2 CPUs;
 * with fewer the program runs unbound. */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>

#define ITERATIONS 120
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

/* binds the calling thread to the @nth CPU (0-based) it may use; FALSE if there is none */
static int
bind_nth (int nth)
{
  cpu_set_t mine, one;
  CPU_ZERO (&mine);
  if (sched_getaffinity (0, sizeof mine, &mine) != 0)
    return 0;
  for (int c = 0, seen = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET (c, &mine) && seen++ == nth)
      {
        CPU_ZERO (&one);
        CPU_SET (c, &one);
        return sched_setaffinity (0, sizeof one, &one) == 0;
      }
  return 0;
}

int
main (int    argc,
      char **argv)
{
  int rank, size;
  static char out[1024], in[1024];
  double v = 1.0, all;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (!bind_nth (rank == size - 1 ? 1 : 0) && rank == 0)
    fprintf (stderr, "sim-placed: fewer than 2 CPUs: the ranks run unbound\n");
  MPI_Barrier (MPI_COMM_WORLD);
  for (int it = 0; it < ITERATIONS; it++)
    {
      int right = (rank + 1) % size, left = (rank + size - 1) % size;
      compute (WORK + WORK / 4 * ((rank + it) % 3));
      MPI_Sendrecv (out, sizeof out, MPI_BYTE, right, 1, in, sizeof in, MPI_BYTE, left, 1, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
      MPI_Sendrecv (out, sizeof out, MPI_BYTE, left, 2, in, sizeof in, MPI_BYTE, right, 2, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
      if (it % 4 == 3)
        MPI_Allreduce (&v, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
