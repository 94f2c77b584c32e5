/* fortran-clock.c — CLOCK_MONOTONIC and clock_nanosleep for the Fortran test programs (called through
 * bind(C) interfaces) and their C twin.  CLOCK_MONOTONIC is one clock for every process on the
 * machine, so the ranks start each phase of the programs at the same instant without an MPI call
 * (whose own wait would blur the waits the phase makes on purpose). */
#include <errno.h>
#include <time.h>

double kf_now (void);
void   kf_sleep_until (double t);

double
kf_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps until CLOCK_MONOTONIC reads @t (resumes after signals; returns at once when late). */
void
kf_sleep_until (double t)
{
  struct timespec ts;
  ts.tv_sec = (time_t)t;
  ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
  if (ts.tv_nsec >= 1000000000L)
    ts.tv_nsec = 999999999L;
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}
