/* causes-barrier.c — a barrier after imbalanced work.
 *
 * Built with -DCAUSES_NBC (causes-nbc): MPI_Iallreduce instead of the barrier, 10 ms of
 * overlap() on every rank, then MPI_Wait: the others wait in MPI_Wait for the last rank's start
 * of the collective, and the delay is its imbalanced_work before that start (the non-blocking
 * collectives' root causes, docs/decisions/2026-11-29-nonblocking-collectives.md). Its truth
 * counts each wait from the enter of MPI_Wait, and its noise also the time outside
 * imbalanced_work since the two ranks last met (the last rank's start, the other's release).
 *
 * Every iteration every rank runs imbalanced_work: 20 ms, and 120 ms more on the last rank;
 * then MPI_Barrier. The other ranks wait at the barrier for the last one.
 *
 * By construction: the short-term barrier delay costs are the barrier waits of all ranks, on
 * the last rank's imbalanced_work; nothing propagates. The phases without the cause
 * (causes-common.h): imbalanced_work takes on every rank the mean over the ranks (what
 * `balance region imbalanced_work` predicts).
 *
 * The truth it writes: rank j's wait at the barrier of iteration i is the last rank's enter
 * minus its own, W[j][i]; the imbalance caused min (W[j][i], D[last][i] − D[j][i]) of it, D
 * being the measured durations of imbalanced_work: "short" is the sum over ranks and
 * iterations. Its noise (causes-common.h): for each rank j and iteration, the time of j and of
 * the last rank between the iteration's start and the barrier that is not imbalanced_work, and
 * how far apart the two left the barrier before. */
#include "causes-common.h"

#include <math.h>

#define ITERATIONS 4
#define N_TIMES 6
#define N_PHASES (1 + CAUSES_MAX_BASELINES)

/* T_IN: the barrier's (the collective's start's) enter; T_E: where the wait starts (the
 * barrier's enter, MPI_Wait's); T_OUT: the leave of the call that waited */
enum { T_START, T_WORK, T_IN, T_OUT, T_OWN, T_E };

static int rank, size;
static double times[N_PHASES][ITERATIONS][N_TIMES];

static double
work_ms (int r)
{
  return 20.0 + (r == size - 1 ? 120.0 : 0.0);
}

/* returns how long it took */
static double __attribute__ ((noinline))
imbalanced_work (int balanced)
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
  return ws_now () - t;
}

#ifdef CAUSES_NBC
/* balanced work while the collective runs */
static void __attribute__ ((noinline))
overlap (void)
{
  ws_sleep_ms (10);
}
#endif

static void __attribute__ ((noinline))
warm_up (void)
{
  MPI_Barrier (MPI_COMM_WORLD);
}

/* one phase: imbalanced unless @balanced; @t records the times */
static void
causes_body (int    balanced,
             double t[ITERATIONS][N_TIMES])
{
  for (int it = 0; it < ITERATIONS; it++)
    {
      double *ti = t[it];
      ti[T_START] = ws_now ();
      ti[T_OWN] = imbalanced_work (balanced);
      ti[T_IN] = ws_now ();
      ti[T_WORK] = ti[T_IN] - ti[T_START];
#ifdef CAUSES_NBC
      {
        double x = rank, y;
        MPI_Request req;
        MPI_Iallreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        overlap ();
        ti[T_E] = ws_now ();
        MPI_Wait (&req, MPI_STATUS_IGNORE);
      }
#else
      ti[T_E] = ti[T_IN];
      MPI_Barrier (MPI_COMM_WORLD);
#endif
      ti[T_OUT] = ws_now ();
    }
}

static void __attribute__ ((noinline))
with_cause (void)
{
  causes_body (0, times[0]);
}

static void __attribute__ ((noinline))
without_cause (int k)
{
  causes_body (1, times[k]);
}

/* rank r's time k in iteration it of the phase with the cause, and of phase p */
#define T(r, it, k) TP (r, 0, it, k)
#define TP(r, p, it, k) all[(((r) * N_PHASES + (p)) * ITERATIONS + (it)) * N_TIMES + (k)]

int
main (int    argc,
      char **argv)
{
  int n_phases = 1 + causes_baselines (argc, argv);
  double runtime[N_PHASES], comp[N_PHASES] = { 0 }, *all = NULL;
  char truth[256] = "";

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  all = causes_run (n_phases, with_cause, without_cause, runtime, &times[0][0][0],
                    sizeof times / sizeof (double));
  if (rank == 0)
    {
      for (int k = 0; k < n_phases; k++)
        for (int it = 0; it < ITERATIONS; it++)
          {
            double longest = 0;
            for (int r = 0; r < size; r++)
              longest = ws_max (longest, TP (r, k, it, T_OWN));
            comp[k] += longest;
          }
      double caused = 0, noise = 0;
      int last = size - 1;
      for (int it = 0; it < ITERATIONS; it++)
        for (int j = 0; j < last; j++)
          {
            /* D: the durations of imbalanced_work */
            caused += ws_min (ws_max (0, T (last, it, T_IN) - T (j, it, T_E)),
                              ws_max (0, T (last, it, T_OWN) - T (j, it, T_OWN)));
#ifdef CAUSES_NBC
            {
              /* since they last met: the last rank from its start, rank j from its release */
              double pl = it > 0 ? T (last, it - 1, T_IN) : T (last, 0, T_START);
              double pj = it > 0 ? T (j, it - 1, T_OUT) : T (j, 0, T_START);
              noise += fabs ((T (last, it, T_IN) - pl - T (last, it, T_OWN))
                             - (T (j, it, T_E) - pj - T (j, it, T_OWN)));
              noise += fabs (pl - pj);
            }
#else
            if (it > 0)
              noise += fabs (T (last, it - 1, T_OUT) - T (j, it - 1, T_OUT));
#endif
          }
      /* the time from the iteration's start to the barrier outside imbalanced_work */
#ifndef CAUSES_NBC
      for (int it = 0; it < ITERATIONS; it++)
        for (int j = 0; j < last; j++)
          noise += T (j, it, T_WORK) - T (j, it, T_OWN) + T (last, it, T_WORK) - T (last, it, T_OWN);
#endif
      snprintf (truth, sizeof truth, "cause %d imbalanced_work\nshort %.9f noise %.9f\n", last,
                caused, noise);
    }
  {
    double planned[2] = { ITERATIONS * work_ms (size - 1) * 1e-3, 0 };
    for (int r = 0; r < size; r++)
      planned[1] += ITERATIONS * work_ms (r) * 1e-3 / size;
    causes_write (argc > 1 ? argv[1] : NULL, runtime, comp, planned, n_phases, truth);
  }
  free (all);
  MPI_Finalize ();
  return 0;
}
