/* causes-chain.c — a delay whose wait travels along a chain of messages.
 *
 * Every iteration every rank computes (work, 20 ms); rank 0 then does extra work only it has
 * (extra_work, 100 ms), and the message goes down the chain 0 → 1 → … → N−1: rank 1 waits for
 * rank 0 (Late Sender, caused directly by extra_work), rank 2 waits for rank 1, which was late
 * only because it waited itself — the wait propagated, and its cause is extra_work on rank 0,
 * two message hops away; rank 3 three hops, and so on.
 *
 * By construction: the short-term Late Sender delay costs are rank 1's waits, all on rank 0's
 * extra_work; its long-term costs are the waits of ranks 2 … N−1; ranks 2 … N−1 wait
 * indirectly, ranks 1 … N−2 propagate their waits. "nocause": no extra_work (what `scale
 * region extra_work by 0` predicts). Built with -finstrument-functions (the helpers of
 * ws-common.h excluded), so work and extra_work are the call paths.
 *
 * The truth it writes: rank r's wait in iteration i, W[r][i] (the sender's enter of MPI_Send,
 * carried in the message, minus the receiver's enter of MPI_Recv); extra_work caused
 * C[1][i] = min (W[1][i], its duration) at rank 1, and down the chain what the previous rank
 * passed on, C[r][i] = min (W[r][i], C[r−1][i]): "short" is Σ C[1], "long" Σ C[r ≥ 2];
 * "indirect r" (r ≥ 2) is Σ min (W[r], W[r−1]), the part of rank r's wait that rank r−1's own
 * wait explains, and "propagating r" (1 ≤ r ≤ N−2) Σ min (W[r], W[r+1]). */
#include "causes-common.h"

#define ITERATIONS 4

static int rank, size;
static double extra_dur[ITERATIONS];

static void __attribute__ ((noinline))
work (void)
{
  ws_sleep_ms (20);
}

static void __attribute__ ((noinline))
extra_work (int it)
{
  double t = ws_now ();
  ws_sleep_ms (100);
  extra_dur[it] = ws_now () - t;
}

static void __attribute__ ((noinline))
warm_up (void)
{
  double v = 0;
  if (rank > 0)
    MPI_Recv (&v, 1, MPI_DOUBLE, rank - 1, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank < size - 1)
    MPI_Send (&v, 1, MPI_DOUBLE, rank + 1, 999, MPI_COMM_WORLD);
}

int
main (int    argc,
      char **argv)
{
  int nocause = argc > 2 && strcmp (argv[2], "nocause") == 0;
  double wait[ITERATIONS] = { 0 }, *all = NULL;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  causes_begin ();
  for (int it = 0; it < ITERATIONS; it++)
    {
      work ();
      double sent, entered;
      if (rank == 0 && !nocause)
        extra_work (it);
      if (rank > 0)
        {
          entered = ws_now ();
          MPI_Recv (&sent, 1, MPI_DOUBLE, rank - 1, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          wait[it] = ws_max (0, sent - entered);
        }
      if (rank < size - 1)
        {
          sent = ws_now ();
          MPI_Send (&sent, 1, MPI_DOUBLE, rank + 1, it, MPI_COMM_WORLD);
        }
    }
  if (rank == 0)
    all = malloc (sizeof (double) * ITERATIONS * size);
  MPI_Gather (wait, ITERATIONS, MPI_DOUBLE, all, ITERATIONS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  {
    char truth[4096] = "";
    if (rank == 0 && !nocause)
      {
        double c[ITERATIONS], shrt = 0, lng = 0;
        size_t n = 0;
        n += snprintf (truth + n, sizeof truth - n, "cause 0 extra_work\n");
        for (int it = 0; it < ITERATIONS; it++)
          shrt += c[it] = ws_min (all[ITERATIONS + it], extra_dur[it]);
        for (int r = 2; r < size; r++)
          for (int it = 0; it < ITERATIONS; it++)
            lng += c[it] = ws_min (all[r * ITERATIONS + it], c[it]);
        n += snprintf (truth + n, sizeof truth - n, "short %.9f\nlong %.9f\n", shrt, lng);
        for (int r = 1; r < size; r++)
          {
            double w = 0, ind = 0, prop = 0;
            for (int it = 0; it < ITERATIONS; it++)
              {
                w += all[r * ITERATIONS + it];
                if (r >= 2)
                  ind += ws_min (all[r * ITERATIONS + it], all[(r - 1) * ITERATIONS + it]);
                if (r <= size - 2)
                  prop += ws_min (all[r * ITERATIONS + it], all[(r + 1) * ITERATIONS + it]);
              }
            n += snprintf (truth + n, sizeof truth - n, "wait %d %.9f\n", r, w);
            if (r >= 2)
              n += snprintf (truth + n, sizeof truth - n, "indirect %d %.9f\n", r, ind);
            if (r <= size - 2)
              n += snprintf (truth + n, sizeof truth - n, "propagating %d %.9f\n", r, prop);
          }
      }
    causes_end (argc > 1 ? argv[1] : NULL, truth);
  }
  free (all);
  MPI_Finalize ();
  return 0;
}
