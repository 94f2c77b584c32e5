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
 * before each iteration's first MPI_Sendrecv).
 *
 * `sim-busy placed`: a run whose ranks the scheduler did not spread evenly over the cores.
 * After MPI_Init every rank but the last binds itself to the first CPU it may use, the last to
 * the second (4 ranks on 2 cores: three on one CPU, one on the other, as Linux placed LAMMPS's
 * ranks for part of some runs), and the run has half the iterations. A re-enactment that leaves
 * its ranks to the scheduler runs them two and two, and faster; one that runs each rank on the
 * CPU the collector's samples place it on brings the original's sharing back (tests/sim, mode
 * placed; docs/decisions/2026-11-30-pinned-replay.md). With fewer than 2 CPUs the ranks run
 * unbound.
 *
 * `sim-busy spread`: the same, but rank r binds itself to the (r mod CPUs)th CPU it may use: as
 * evenly as the CPUs allow (two and two), as the scheduler left LAMMPS's ranks in some runs.
 * The samples say the ranks are bound, and the offline model shares each CPU among the ranks
 * on it; ranks merely left two and two share the host evenly
 * (docs/decisions/2026-12-01-bound-ranks.md).
 *
 * `sim-busy phased`: bound as `placed` for the first third of the iterations, then as `spread`
 * (one rank moves): a run with a three-on-one phase and a two-and-two phase, as LAMMPS's ranks
 * at 4 ranks on 2 cores had in some runs. The offline model shares the host per CPU in the
 * first phase only (docs/decisions/2026-12-01-placement-phases.md). */
#include <math.h>
#include <mpi.h>
#include <sched.h>
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

/* binds the calling thread to the @nth CPU (0-based) of @mine (those it could use at the start);
 * 0 if there is none */
static int
bind_nth (const cpu_set_t *mine,
          int              nth)
{
  cpu_set_t one;
  for (int c = 0, seen = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET (c, mine) && seen++ == nth)
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
  cpu_set_t mine;
  int cpus;
  int balanced = argc > 1 && strcmp (argv[1], "balanced") == 0;
  int placed = argc > 1 && strcmp (argv[1], "placed") == 0;
  int spread = argc > 1 && strcmp (argv[1], "spread") == 0;
  int phased = argc > 1 && strcmp (argv[1], "phased") == 0;
  int iterations = placed || spread || phased ? ITERATIONS / 2 : ITERATIONS;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  CPU_ZERO (&mine);
  cpus = sched_getaffinity (0, sizeof mine, &mine) == 0 ? CPU_COUNT (&mine) : 0;
  if ((placed || phased) && !bind_nth (&mine, rank == size - 1 ? 1 : 0) && rank == 0)
    fprintf (stderr, "sim-busy: fewer than 2 CPUs: the ranks run unbound\n");
  if (spread && (cpus < 2 || !bind_nth (&mine, rank % cpus)) && rank == 0)
    fprintf (stderr, "sim-busy: fewer than 2 CPUs: the ranks run unbound\n");
  MPI_Barrier (MPI_COMM_WORLD);
  for (int it = 0; it < iterations; it++)
    {
      int right = (rank + 1) % size, left = (rank + size - 1) % size;
      if (phased && it == iterations / 3 && cpus >= 2)
        bind_nth (&mine, rank % cpus);
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
