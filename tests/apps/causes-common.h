/* causes-common.h — for the root-cause test programs (causes-*.c): what they built in, and
 * their own run time.
 *
 * Each program writes to the file named by its first argument (rank 0, after the last
 * barrier): "runtime SECONDS" (CLOCK_MONOTONIC from the barrier after MPI_Init to the barrier
 * before MPI_Finalize, the interval a hypothesis can change) and "cause RANK FUNCTION" lines
 * naming the delays it built in, and what those delays caused by construction (the waits they
 * made, measured with CLOCK_MONOTONIC by the program itself). The second argument "nocause"
 * runs it without them: the run a simulation of removing the cause must predict.
 *
 * After the barrier that follows MPI_Init every rank sleeps until one common instant (rank 0
 * names it): ranks leave a barrier at different times on a busy machine, and a rank that left
 * late would start the measured part late, a delay of its own that is not the one built in.
 * Then the program synchronizes once more in warm_up (its own call path, outside what the test
 * checks), so that the measured part starts at a synchronization point of its own: the time
 * the ranks slept to the common instant differs, and the analysis would count the difference
 * as a delay of the first interval.
 *
 * No SCHED_RR here (sim-common.h): the ranks that wait spin in MPI, and real-time spinners on
 * every core hit the kernel's real-time throttling (95 % of each second), which stops every
 * real-time process for tens of milliseconds at a time — a rank that just received its message
 * would then be late for its own send. A timer slack of 1 ns keeps the sleeps precise. */
#pragma once

#include "ws-common.h"

#include <sys/prctl.h>

static double causes_t0;

/* the program's own synchronization right after the common instant */
static void warm_up (void);

static inline void
causes_begin (void)
{
  double start;
  MPI_Barrier (MPI_COMM_WORLD);
  start = ws_now () + 0.1;
  MPI_Bcast (&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  ws_sleep_until (start);
  causes_t0 = start;
  warm_up ();
}

static inline void
causes_end (const char *path,
            const char *causes)
{
  int rank;
  double t;

  MPI_Barrier (MPI_COMM_WORLD);
  t = ws_now () - causes_t0;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (rank == 0 && path)
    {
      FILE *f = fopen (path, "w");
      if (!f)
        {
          perror (path);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      fprintf (f, "runtime %.9f\n%s", t, causes);
      fclose (f);
    }
}
