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
 * indirectly, ranks 1 … N−2 propagate their waits. The phases without the cause
 * (causes-common.h) skip extra_work: what `scale region extra_work by 0` predicts.
 *
 * The truth it writes: rank r's wait in iteration i, W[r][i] (the sender's enter of MPI_Send
 * minus the receiver's enter of MPI_Recv); extra_work caused C[1][i] = min (W[1][i], its
 * duration) at rank 1, and down the chain what the previous rank passed on, C[r][i] = min
 * (W[r][i], C[r−1][i]): "short" is Σ C[1], "long" Σ C[r ≥ 2]; "indirect r" (r ≥ 2) is
 * Σ min (W[r], W[r−1]), the part of rank r's wait that rank r−1's own wait explains, and
 * "propagating r" (1 ≤ r ≤ N−2) Σ min (W[r], W[r+1]).
 *
 * Its noise (causes-common.h): per rank and iteration, m = the iteration's time that is neither
 * computation nor the measured wait (a late wake-up after the partner left, the time between
 * the calls, MPI_Send); per hop r−1 → r, n[r] = |work[r] − work[r−1]| + m of both ranks in
 * this iteration and the one before (the intervals compared: hop_noise). A wait r hops down
 * the chain carries the noise of every hop on its way. */
#include "causes-common.h"

#include <math.h>

#define ITERATIONS 4
#define N_TIMES 7
#define N_PHASES (1 + CAUSES_MAX_BASELINES)

enum { T_START, T_WORK, T_EXTRA, T_RECV_IN, T_SEND_IN, T_END, T_SEND };

static int rank, size;
/* per phase and iteration: when it started, how long work and extra_work took, when MPI_Recv
 * and MPI_Send were entered, when the iteration's communication ended, how long MPI_Send took */
static double times[N_PHASES][ITERATIONS][N_TIMES];

static void __attribute__ ((noinline))
work (void)
{
  ws_sleep_ms (20);
}

static void __attribute__ ((noinline))
extra_work (void)
{
  ws_sleep_ms (100);
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

/* one phase: @cause runs extra_work on rank 0; @t records the times */
static void
causes_body (int    cause,
             double t[ITERATIONS][N_TIMES])
{
  for (int it = 0; it < ITERATIONS; it++)
    {
      double *ti = t[it];
      double s;
      ti[T_START] = ws_now ();
      work ();
      ti[T_WORK] = ws_now () - ti[T_START];
      ti[T_EXTRA] = 0;
      if (rank == 0 && cause)
        {
          s = ws_now ();
          extra_work ();
          ti[T_EXTRA] = ws_now () - s;
        }
      if (rank > 0)
        {
          ti[T_RECV_IN] = ws_now ();
          MPI_Recv (&s, 1, MPI_DOUBLE, rank - 1, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          ti[T_END] = ws_now ();
        }
      if (rank < size - 1)
        {
          ti[T_SEND_IN] = ti[T_END] = ws_now ();
          MPI_Send (&ti[T_SEND_IN], 1, MPI_DOUBLE, rank + 1, it, MPI_COMM_WORLD);
          ti[T_SEND] = ws_now () - ti[T_SEND_IN];
        }
    }
}

static void __attribute__ ((noinline))
with_cause (void)
{
  causes_body (1, times[0]);
}

static void __attribute__ ((noinline))
without_cause (int k)
{
  causes_body (0, times[k]);
}

/* rank r's time k in iteration it of the phase with the cause, and of phase p */
#define T(r, it, k) TP (r, 0, it, k)
#define TP(r, p, it, k) all[(((r) * N_PHASES + (p)) * ITERATIONS + (it)) * N_TIMES + (k)]

/* rank r's wait in iteration it */
static double
wait_of (const double *all, int r, int it)
{
  return ws_max (0, T (r - 1, it, T_SEND_IN) - T (r, it, T_RECV_IN));
}

/* rank r's time in iteration it that is neither computation nor its wait */
static double
other_of (const double *all, int r, int it)
{
  double t = T (r, it, T_END) - T (r, it, T_START) - T (r, it, T_WORK) - T (r, it, T_EXTRA);
  return ws_max (0, t - (r > 0 ? wait_of (all, r, it) : 0)) + (r < size - 1 ? T (r, it, T_SEND) : 0);
}

/* the noise of the hop r−1 → r in iteration it: what the two ranks did beside their
 * computation and waits in the intervals compared, which start in the iteration before (rank
 * r−1's at its send, rank r's at its receive: its completion, its send to r+1) */
static double
hop_noise (const double *all, int r, int it)
{
  double n = fabs (T (r, it, T_WORK) - T (r - 1, it, T_WORK));
  for (int i = it > 0 ? it - 1 : it; i <= it; i++)
    n += other_of (all, r - 1, i) + other_of (all, r, i);
  return n;
}

static void
write_truth (const double *all, char *truth, size_t size_truth)
{
  double c[ITERATIONS], shrt = 0, lng = 0, n_shrt = 0, n_lng = 0;
  size_t n = 0;

  n += snprintf (truth + n, size_truth - n, "cause 0 extra_work\n");
  for (int it = 0; it < ITERATIONS; it++)
    {
      double carried = hop_noise (all, 1, it);
      shrt += c[it] = ws_min (wait_of (all, 1, it), T (0, it, T_EXTRA));
      n_shrt += carried;
      for (int r = 2; r < size; r++)
        {
          carried += hop_noise (all, r, it);
          lng += c[it] = ws_min (wait_of (all, r, it), c[it]);
          n_lng += carried;
        }
    }
  n += snprintf (truth + n, size_truth - n, "short %.9f noise %.9f\nlong %.9f noise %.9f\n",
                 shrt, n_shrt, lng, n_lng);
  for (int r = 1; r < size; r++)
    {
      double w = 0, ind = 0, prop = 0, n_ind = 0, n_prop = 0;
      for (int it = 0; it < ITERATIONS; it++)
        {
          w += wait_of (all, r, it);
          if (r >= 2)
            {
              ind += ws_min (wait_of (all, r, it), wait_of (all, r - 1, it));
              n_ind += hop_noise (all, r, it) + hop_noise (all, r - 1, it);
            }
          if (r <= size - 2)
            {
              prop += ws_min (wait_of (all, r, it), wait_of (all, r + 1, it));
              n_prop += hop_noise (all, r, it) + hop_noise (all, r + 1, it);
            }
        }
      n += snprintf (truth + n, size_truth - n, "wait %d %.9f\n", r, w);
      if (r >= 2)
        n += snprintf (truth + n, size_truth - n, "indirect %d %.9f noise %.9f\n", r, ind, n_ind);
      if (r <= size - 2)
        n += snprintf (truth + n, size_truth - n, "propagating %d %.9f noise %.9f\n", r, prop, n_prop);
    }
}

int
main (int    argc,
      char **argv)
{
  int n_phases = 1 + causes_baselines (argc, argv);
  double runtime[N_PHASES], comp[N_PHASES] = { 0 }, *all = NULL;
  char truth[4096] = "";

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  all = causes_run (n_phases, with_cause, without_cause, runtime, &times[0][0][0],
                    sizeof times / sizeof (double));
  if (rank == 0)
    {
      write_truth (all, truth, sizeof truth);
      for (int k = 0; k < n_phases; k++)
        for (int it = 0; it < ITERATIONS; it++)
          {
            double longest = 0;
            for (int r = 0; r < size; r++)
              longest = ws_max (longest, TP (r, k, it, T_WORK) + TP (r, k, it, T_EXTRA));
            comp[k] += longest;
          }
    }
  causes_write (argc > 1 ? argv[1] : NULL, runtime, comp, (double[2]) { ITERATIONS * 120e-3, ITERATIONS * 20e-3 },
                n_phases, truth);
  free (all);
  MPI_Finalize ();
  return 0;
}
