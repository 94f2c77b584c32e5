/* prof-paths.c — call paths by the hundred thousand, and deep recursion, for the profile's
 * bounds (tests/collect/profile-test.py).  Built with -finstrument-functions.
 *
 * wide: for every code 0 … N-1 (argv[1], default 100000) the chain f_d0 → f_d1 → … → f_d4 of
 *   its five decimal digits, lowest first: 100000 distinct call paths
 *   main/wide/f_a/f_b/f_c/f_d/f_e, 111110 below wide in all.  argv[2] (default 1): how many
 *   times wide runs (the same call paths again: the run's length, not its call paths).
 * deep: rec (1500) recursing 1500 levels, MPI_Barrier at the bottom: the collector records
 *   1024 levels of user functions (main, deep and 1022 rec), the barrier beneath the deepest. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*Step) (int level, int code);
static Step steps[10];
static volatile long leaves;

#define STEP(n)                                                                                   \
  static void f_##n (int level, int code)                                                        \
  {                                                                                              \
    if (level == 0)                                                                              \
      {                                                                                          \
        leaves++;                                                                                \
        return;                                                                                  \
      }                                                                                          \
    steps[code % 10](level - 1, code / 10);                                                      \
  }
STEP (0)
STEP (1)
STEP (2)
STEP (3)
STEP (4)
STEP (5)
STEP (6)
STEP (7)
STEP (8)
STEP (9)

static void
wide (int n)
{
  for (int code = 0; code < n; code++)
    steps[code % 10](4, code / 10);
}

static void
rec (int n)
{
  if (n > 1)
    rec (n - 1);
  else
    MPI_Barrier (MPI_COMM_WORLD);
}

static void
deep (void)
{
  rec (1500);
}

int
main (int argc, char **argv)
{
  Step all[10] = { f_0, f_1, f_2, f_3, f_4, f_5, f_6, f_7, f_8, f_9 };
  for (int i = 0; i < 10; i++)
    steps[i] = all[i];
  MPI_Init (&argc, &argv);
  for (int r = argc > 2 ? atoi (argv[2]) : 1; r > 0; r--)
    wide (argc > 1 ? atoi (argv[1]) : 100000);
  deep ();
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf ("prof-paths: %ld leaves\n", leaves);
  MPI_Finalize ();
  return 0;
}
