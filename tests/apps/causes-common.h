/* causes-common.h — for the root-cause test programs (causes-*.c): what they built in, the
 * machine's noise, and their own run time.
 *
 * One run does everything a test needs (an MPI start costs seconds on a busy machine): the
 * phase with the built-in delay (the function with_cause, its own call path), then, when the
 * second argument asks for them, that many phases without it (without_cause: what removing
 * the cause must give). Each phase starts aligned (causes_align) and ends with a barrier; its
 * run time is rank 0's CLOCK_MONOTONIC from the common start to the end barrier.
 *
 * Each program writes to the file named by its first argument (rank 0, at the end): "runtime
 * SECONDS comp SECONDS planned SECONDS" of the phase with the cause (causes_write), a "nocause
 * SECONDS comp SECONDS planned SECONDS" line per phase without it, "cause
 * RANK FUNCTION" naming the delay built in, and what that delay caused by construction (the
 * waits it made, measured with CLOCK_MONOTONIC by the program itself), each with "noise
 * SECONDS": time the machine's scheduling added to the intervals that explain those waits (a
 * rank woken late after its partner left, the time between its calls, one rank's computation
 * running longer than its partner's). The analysis splits a wait over everything that made the
 * causing rank late, that time included, in proportion; the construction cannot attribute it,
 * so the test allows it on top of its 1 %. On a quiet machine it is a fraction of a
 * millisecond per iteration.
 *
 * causes_align: every rank sleeps until one common instant (rank 0 names it): ranks leave a
 * barrier at different times on a busy machine, and a rank that left late would start the
 * phase late, a delay of its own that is not the one built in. Then the program synchronizes
 * once more in warm_up (its own call path, outside what the test checks), so that the phase
 * starts at a synchronization point of its own: the time the ranks slept to the common instant
 * differs, and the analysis would count the difference as a delay of the first interval.
 *
 * No SCHED_RR here (sim-common.h): the ranks that wait spin in MPI, and real-time spinners on
 * every core hit the kernel's real-time throttling (95 % of each second), which stops every
 * real-time process for tens of milliseconds at a time — a rank that just received its message
 * would then be late for its own send. A timer slack of 1 ns keeps the sleeps precise.
 *
 * Built with -finstrument-functions, the helpers (ws_*, causes_*) excluded: the call paths are
 * main/with_cause/…, main/without_cause/… and main/warm_up/…. */
#pragma once

#include "ws-common.h"

#include <sys/prctl.h>

#define CAUSES_MAX_BASELINES 5

/* the program's own synchronization right after the common instant */
static void warm_up (void);

static inline double
causes_align (void)
{
  double start;
  MPI_Barrier (MPI_COMM_WORLD);
  start = ws_now () + 0.05;
  MPI_Bcast (&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  ws_sleep_until (start);
  warm_up ();
  return start;
}

/* ends a phase that started at @start: its run time (meaningful on rank 0) */
static inline double
causes_phase_end (double start)
{
  MPI_Barrier (MPI_COMM_WORLD);
  return ws_now () - start;
}

/* Runs the phase with the cause (@with) and @n_phases − 1 without it (@without (k)), each
 * aligned, their run times in @runtime; then gathers every rank's @n_times doubles at @times
 * on rank 0 (rank after rank: the result, NULL elsewhere) */
static inline double *
causes_run (int           n_phases,
            void        (*with) (void),
            void        (*without) (int),
            double       *runtime,
            const double *times,
            int           n_times)
{
  int rank, size;
  double *all = NULL;

  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  for (int k = 0; k < n_phases; k++)
    {
      runtime[k] = causes_align ();
      if (k == 0)
        with ();
      else
        without (k);
      runtime[k] = causes_phase_end (runtime[k]);
    }
  if (rank == 0)
    all = malloc (sizeof (double) * n_times * size);
  MPI_Gather (times, n_times, MPI_DOUBLE, all, n_times, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return all;
}

/* how many phases without the cause the second argument asks for */
static inline int
causes_baselines (int    argc,
                  char **argv)
{
  int n = argc > 2 ? atoi (argv[2]) : 0;
  return n < 0 ? 0 : n > CAUSES_MAX_BASELINES ? CAUSES_MAX_BASELINES : n;
}

/* @runtime and @comp per phase (the first with the cause): its run time, and the sum over its
 * iterations of the longest computation of a rank in each (the rest is the time the phase
 * spent in communication, which the machine's load changes from one phase to the next);
 * @planned[0], @planned[1]: what that computation would take on an idle machine in the phase
 * with the cause and in one without it (the machine's load stretches the sleeps, by another
 * amount in every phase) */
static inline void
causes_write (const char   *path,
              const double *runtime,
              const double *comp,
              const double  planned[2],
              int           n_phases,
              const char   *truth)
{
  int rank;

  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (rank == 0 && path)
    {
      FILE *f = fopen (path, "w");
      if (!f)
        {
          perror (path);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      for (int k = 0; k < n_phases; k++)
        fprintf (f, "%s %.9f comp %.9f planned %.9f\n", k ? "nocause" : "runtime", runtime[k],
                 comp[k], planned[k ? 1 : 0]);
      fputs (truth, f);
      fclose (f);
    }
}
