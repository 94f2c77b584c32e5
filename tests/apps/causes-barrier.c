/* causes-barrier.c — a barrier after imbalanced work.
 *
 * Every iteration every rank runs imbalanced_work: 20 ms, and 120 ms more on the last rank;
 * then MPI_Barrier. The other ranks wait at the barrier for the last one.
 *
 * By construction: the short-term barrier delay costs are the barrier waits of all ranks, on
 * the last rank's imbalanced_work; nothing propagates. "nocause": imbalanced_work takes on
 * every rank the mean over the ranks (what `balance region imbalanced_work` predicts).
 *
 * The truth it writes: rank j's wait at the barrier of iteration i is the last rank's enter
 * minus its own, W[j][i]; the imbalance caused min (W[j][i], D[last][i] − D[j][i]) of it, D
 * being the measured durations of imbalanced_work: "short" is the sum over ranks and
 * iterations. */
#include "causes-common.h"

#define ITERATIONS 4

static int rank, size;
static double dur[ITERATIONS], entered[ITERATIONS];

static double
work_ms (int r)
{
  return 20.0 + (r == size - 1 ? 120.0 : 0.0);
}

static void __attribute__ ((noinline))
imbalanced_work (int balanced,
                 int it)
{
  double ms = work_ms (rank), t = ws_now ();
  if (balanced)
    {
      ms = 0;
      for (int r = 0; r < size; r++)
        ms += work_ms (r);
      ms /= size;
    }
  ws_sleep_ms (ms);
  dur[it] = ws_now () - t;
}

static void __attribute__ ((noinline))
warm_up (void)
{
  MPI_Barrier (MPI_COMM_WORLD);
}

int
main (int    argc,
      char **argv)
{
  int nocause = argc > 2 && strcmp (argv[2], "nocause") == 0;
  char truth[256] = "";
  double *all_dur = NULL, *all_in = NULL;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  causes_begin ();
  for (int it = 0; it < ITERATIONS; it++)
    {
      imbalanced_work (nocause, it);
      entered[it] = ws_now ();
      MPI_Barrier (MPI_COMM_WORLD);
    }
  if (rank == 0)
    {
      all_dur = malloc (sizeof (double) * ITERATIONS * size);
      all_in = malloc (sizeof (double) * ITERATIONS * size);
    }
  MPI_Gather (dur, ITERATIONS, MPI_DOUBLE, all_dur, ITERATIONS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather (entered, ITERATIONS, MPI_DOUBLE, all_in, ITERATIONS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0 && !nocause)
    {
      double caused = 0;
      int last = size - 1;
      for (int it = 0; it < ITERATIONS; it++)
        for (int j = 0; j < last; j++)
          caused += ws_min (ws_max (0, all_in[last * ITERATIONS + it] - all_in[j * ITERATIONS + it]),
                            ws_max (0, all_dur[last * ITERATIONS + it] - all_dur[j * ITERATIONS + it]));
      snprintf (truth, sizeof truth, "cause %d imbalanced_work\nshort %.9f\n", last, caused);
    }
  causes_end (argc > 1 ? argv[1] : NULL, truth);
  free (all_dur);
  free (all_in);
  MPI_Finalize ();
  return 0;
}
