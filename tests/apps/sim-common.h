/* sim-common.h — for the simulator's test programs (sim-lb.c, sim-zero.c): their intervals
 * must be what they ask for, or a prediction is compared with noise. Timer slack 1 ns, and
 * SCHED_RR where permitted (the kubus-sim replay does the same; on a busy 2-core machine a plain
 * nanosleep wakes up more than 1 ms late in one sleep of ten). */
#pragma once

#include <sched.h>
#include <sys/prctl.h>

static inline void
sim_app_precise (void)
{
  struct sched_param rt = { .sched_priority = 1 };
  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sched_setscheduler (0, SCHED_RR, &rt);   /* not permitted: stays as it is */
}
