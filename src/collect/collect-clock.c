/* collect-clock.c: offset of this rank's clock to rank 0's.
 *
 * Rank 0 answers a few pings from every rank with its own time; each rank
 * keeps the answer with the smallest round trip and assumes the reply was
 * taken half-way: offset = t_root - (t_send + t_back) / 2.  Written as OTF2
 * ClockOffset definitions at MPI_Init and MPI_Finalize so that a reader can
 * interpolate drift.
 */
#include "collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PINGS 8

int64_t
kubus_clock_offset (void)
{
  int64_t offset = 0;
  if (kubus_world_size < 2)
    return 0;
  if (kubus_world_rank == 0)
    {
      for (int r = 1; r < kubus_world_size; r++)
        for (int k = 0; k < PINGS; k++)
          {
            char ping;
            PMPI_Recv (&ping, 1, MPI_CHAR, r, 77, kubus_internal_comm, MPI_STATUS_IGNORE);
            uint64_t t = kubus_now ();
            PMPI_Send (&t, 1, MPI_UINT64_T, r, 78, kubus_internal_comm);
          }
    }
  else
    {
      uint64_t best = UINT64_MAX;
      for (int k = 0; k < PINGS; k++)
        {
          char     ping = 0;
          uint64_t t_root = 0;
          uint64_t t1 = kubus_now ();
          PMPI_Send (&ping, 1, MPI_CHAR, 0, 77, kubus_internal_comm);
          PMPI_Recv (&t_root, 1, MPI_UINT64_T, 0, 78, kubus_internal_comm, MPI_STATUS_IGNORE);
          uint64_t t2 = kubus_now ();
          if (t2 - t1 < best)
            {
              best = t2 - t1;
              offset = (int64_t)t_root - (int64_t)(t1 + (t2 - t1) / 2);
            }
        }
    }
  return offset;
}

/* ---- the TSC as a cheaper CLOCK_MONOTONIC ---------------------------- */

uint64_t kubus_tsc_mult;
uint64_t kubus_tsc_base;
uint64_t kubus_tsc_base_ns;
uint64_t kubus_stamp;
int      kubus_stamp_fresh;

#if defined(__x86_64__)
static uint64_t cal_ns, cal_tsc;

/* Start of the calibration interval: when the library is loaded, long
 * before MPI_Init has finished. */
__attribute__ ((constructor)) static void
calibrate_at_load (void)
{
  kubus_clock_calibrate_begin ();
}

static int
file_has (const char *path, const char *word)
{
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return 0;
  char line[4096];
  int  found = 0;
  while (!found && fgets (line, sizeof line, f) != NULL)
    {
      const char *p = line;
      size_t      n = strlen (word);
      while ((p = strstr (p, word)) != NULL)
        {
          if ((p == line || p[-1] == ' ' || p[-1] == '\t')
              && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            {
              found = 1;
              break;
            }
          p += n;
        }
    }
  fclose (f);
  return found;
}
#endif

void
kubus_clock_calibrate_begin (void)
{
#if defined(__x86_64__)
  cal_ns = kubus_monotonic_ns ();
  cal_tsc = __rdtsc ();
#endif
}

/* Switches kubus_now to the TSC when it is safe: the kernel's clocksource
 * is the TSC (so CLOCK_MONOTONIC runs at the same rate), the TSC is
 * invariant, and the interval was long enough for a precise rate.  Any
 * remaining rate error is a constant factor per rank, which the two
 * ClockOffset records (MPI_Init, MPI_Finalize) let a reader remove. */
void
kubus_clock_calibrate_end (void)
{
#if defined(__x86_64__)
  const char *force = getenv ("KUBUS_CLOCK");
  if (force != NULL && strcmp (force, "monotonic") == 0)
    return;
  if (!file_has ("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc")
      || !file_has ("/proc/cpuinfo", "constant_tsc") || !file_has ("/proc/cpuinfo", "nonstop_tsc"))
    return;
  uint64_t ns = kubus_monotonic_ns ();
  uint64_t tsc = __rdtsc ();
  if (ns - cal_ns < 20000000u || tsc <= cal_tsc)
    {
      /* too short for a precise rate: measure 20 ms more */
      struct timespec d = { 0, 20000000 };
      nanosleep (&d, NULL);
      ns = kubus_monotonic_ns ();
      tsc = __rdtsc ();
    }
  if (tsc <= cal_tsc)
    return;
  double ns_per_tick = (double)(ns - cal_ns) / (double)(tsc - cal_tsc);
  if (ns_per_tick <= 0.01 || ns_per_tick > 100.0)
    return;
  kubus_tsc_base = tsc;
  kubus_tsc_base_ns = ns;
  kubus_tsc_mult = (uint64_t)(ns_per_tick * 4294967296.0);
#endif
}
