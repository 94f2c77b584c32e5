/* clockread: what one timestamp costs the collector (issue 17), in one process:
 *   monotonic  clock_gettime (CLOCK_MONOTONIC) through the vDSO
 *   tsc        the TSC scaled to nanoseconds exactly as kubus_now () does it (collect.h:
 *              (rdtsc − base) × mult >> 32 + base_ns, one multiplication)
 * Each loop reads N times (argv[1], default 20 000 000) and keeps a checksum so the compiler
 * cannot drop the reads; best of 5 alternating rounds, timed in CPU time of the thread (on a
 * shared machine the time it is not running stays out). Prints "monotonic_ns X", "tsc_ns Y"
 * and "ratio Y/X". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static uint64_t
mono (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

static uint64_t
cpu (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 20000000;
  double best_m = 1e30, best_t = 1e30;
#if defined(__x86_64__)
  /* the collector's parameters: calibrated once against CLOCK_MONOTONIC */
  uint64_t ns0 = mono (), tsc0 = __rdtsc ();
  struct timespec d = { 0, 20000000 };
  nanosleep (&d, NULL);
  uint64_t ns1 = mono (), tsc1 = __rdtsc ();
  uint64_t mult = (uint64_t)((double)(ns1 - ns0) / (double)(tsc1 - tsc0) * 4294967296.0);
  uint64_t base = tsc1, base_ns = ns1;
#endif
  for (int round = 0; round < 5; round++)
    {
      uint64_t sum = 0, a = cpu ();
      for (long i = 0; i < n; i++)
        sum += mono ();
      uint64_t b = cpu ();
      sink = sum;
      double m = (double)(b - a) / (double)n;
      best_m = m < best_m ? m : best_m;
#if defined(__x86_64__)
      sum = 0;
      a = cpu ();
      for (long i = 0; i < n; i++)
        sum += base_ns + (uint64_t)(((unsigned __int128)(__rdtsc () - base) * mult) >> 32);
      b = cpu ();
      sink = sum;
      double t = (double)(b - a) / (double)n;
      best_t = t < best_t ? t : best_t;
#endif
    }
  printf ("monotonic_ns %.2f\n", best_m);
#if defined(__x86_64__)
  printf ("tsc_ns %.2f\nratio %.3f\n", best_t, best_t / best_m);
#endif
  return 0;
}
