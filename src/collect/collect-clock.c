/* collect-clock.c: the collector's time base, clock offsets between hosts, and what the trace
 * says about both.
 *
 * One host, one time base.  Every rank of a host reads CLOCK_MONOTONIC, or the TSC converted
 * with the SAME parameters: the host leader (rank 0 of MPI_COMM_TYPE_SHARED) calibrates the TSC
 * once, over the time since it was loaded, and broadcasts rate and base.  Two ranks of a host
 * therefore agree on every instant by construction and their offset is exactly 0 — before, each
 * rank calibrated its own TSC rate and a ping-pong under oversubscription estimated offsets
 * whose true value was 0, which put thousands of receives before their sends (issue 17).
 *
 * Offsets are measured only between hosts: the host leaders ping-pong with the leader of rank
 * 0's host (PINGS round trips; the shortest one counts and the reply is assumed half-way) at
 * MPI_Init and again at MPI_Finalize.  Every rank of a host writes its leader's two ClockOffset
 * records, so a reader (OTF2 interpolates between the two) applies the same offset and drift to
 * all of them.  The ClockProperties window is computed with the reader's own formula
 * (kubus_clock_correct), so it holds every event of every location.
 *
 * Test-only switches (not for users; see docs/decisions/2026-11-25-clock.md):
 *   KUBUS_TEST_HOST_SPLIT=K      the ranks pretend to form K hosts (blocks of consecutive ranks),
 *                                so the offset measurement between hosts runs on one machine;
 *   KUBUS_TEST_CLOCK_SKEW=R:NS:D rank R's ClockOffset records carry a wrong offset of NS
 *                                nanoseconds that grows by D nanoseconds per second — what a bad
 *                                measurement between hosts would write; readers see its events
 *                                shifted.
 */
#include "collect.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PINGS 32
#define TAG_PING 77
#define TAG_PONG 78

uint64_t kubus_tsc_mult;
uint64_t kubus_tsc_base;
uint64_t kubus_tsc_base_ns;
uint64_t kubus_stamp;
int      kubus_stamp_fresh;

static MPI_Comm host_comm = MPI_COMM_NULL;   /* the ranks sharing this rank's time base */
static MPI_Comm leader_comm = MPI_COMM_NULL; /* the host leaders (NULL on the others) */
static int      skew_rank = -1;
static int64_t  skew_offset, skew_drift; /* ns, ns per s */
static int      host_split;              /* KUBUS_TEST_HOST_SPLIT, 0 = off */

/* ---- the TSC as a cheaper CLOCK_MONOTONIC ---------------------------- */

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

#if defined(__x86_64__)
/* Where CLOCK_MONOTONIC is a KVM guest's kvm-clock, the kernel did not check the TSCs against each
 * other: the host leader does, on every CPU it may run on, against the line it calibrated. A
 * vCPU whose TSC disagrees by a microsecond or more (an unsynchronised host) keeps
 * CLOCK_MONOTONIC. The leader's affinity is restored. */
static int
tsc_agrees_everywhere (double ns_per_tick, uint64_t base_tsc, uint64_t base_ns)
{
  cpu_set_t mine, one;
  double    first = 0.0;
  int       seen = 0, ok = 1;
  if (sched_getaffinity (0, sizeof mine, &mine) != 0)
    return 0;
  for (int c = 0; c < CPU_SETSIZE && ok; c++)
    {
      if (!CPU_ISSET (c, &mine))
        continue;
      CPU_ZERO (&one);
      CPU_SET (c, &one);
      if (sched_setaffinity (0, sizeof one, &one) != 0)
        continue;
      /* the reading closest to its clock read: the shortest of a few windows */
      uint64_t best = UINT64_MAX;
      double   dev = 0.0;
      for (int k = 0; k < 16; k++)
        {
          uint64_t a = kubus_monotonic_ns ();
          uint64_t t = __rdtsc ();
          uint64_t b = kubus_monotonic_ns ();
          if (b - a < best)
            {
              best = b - a;
              dev = (double)(a + (b - a) / 2) - ((double)base_ns + (double)(int64_t)(t - base_tsc) * ns_per_tick);
            }
        }
      if (!seen++)
        first = dev;
      else if (fabs (dev - first) >= 1000.0)
        ok = 0;
    }
  sched_setaffinity (0, sizeof mine, &mine);
  return ok && seen > 0;
}
#endif

/* The host leader's choice: the TSC when it is safe (invariant, and the kernel's clocksource is
 * the TSC, so CLOCK_MONOTONIC runs at its rate and the kernel found it synchronised across
 * processors, or a KVM guest's kvm-clock, which scales the TSC, with the TSCs checked here) and
 * the calibration interval was long enough for a precise rate.
 * params = { mult (ns per tick << 32, 0 = CLOCK_MONOTONIC), base tick, base ns }. */
static void
calibrate (uint64_t params[3])
{
  params[0] = params[1] = params[2] = 0;
#if defined(__x86_64__)
  const char *force = getenv ("KUBUS_CLOCK");
  const char *source = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
  if (force != NULL && strcmp (force, "monotonic") == 0)
    return;
  int kvm = !file_has (source, "tsc") && file_has (source, "kvm-clock");
  if ((!kvm && !file_has (source, "tsc"))
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
  if (kvm && !tsc_agrees_everywhere (ns_per_tick, tsc, ns))
    return;
  params[0] = (uint64_t)(ns_per_tick * 4294967296.0);
  params[1] = tsc;
  params[2] = ns;
#endif
}

/* ---- offsets between host leaders ------------------------------------- */

/* Host leaders only: this host's offset to rank 0's host (local time + offset = rank 0's
 * time), the local time it holds for (middle of the shortest round trip) and that round trip. */
static void
measure_offset (int64_t *offset, uint64_t *when, uint64_t *rtt)
{
  int me = 0, n = 1;
  PMPI_Comm_rank (leader_comm, &me);
  PMPI_Comm_size (leader_comm, &n);
  *offset = 0;
  *rtt = 0;
  if (me == 0)
    {
      for (int r = 1; r < n; r++)
        for (int k = 0; k < PINGS; k++)
          {
            char ping;
            PMPI_Recv (&ping, 1, MPI_CHAR, r, TAG_PING, leader_comm, MPI_STATUS_IGNORE);
            uint64_t t = kubus_now ();
            PMPI_Send (&t, 1, MPI_UINT64_T, r, TAG_PONG, leader_comm);
          }
      *when = kubus_now ();
      return;
    }
  uint64_t best = UINT64_MAX;
  for (int k = 0; k < PINGS; k++)
    {
      char     ping = 0;
      uint64_t t_root = 0;
      uint64_t t1 = kubus_now ();
      PMPI_Send (&ping, 1, MPI_CHAR, 0, TAG_PING, leader_comm);
      PMPI_Recv (&t_root, 1, MPI_UINT64_T, 0, TAG_PONG, leader_comm, MPI_STATUS_IGNORE);
      uint64_t t2 = kubus_now ();
      if (t2 - t1 < best)
        {
          best = t2 - t1;
          *when = t1 + (t2 - t1) / 2;
          *offset = (int64_t)t_root - (int64_t)*when;
        }
    }
  *rtt = best;
}

/* One measurement for the whole host: the leader measures, every rank of the host gets the
 * same three numbers. */
static void
host_offset (int64_t *offset, uint64_t *when, uint64_t *rtt)
{
  uint64_t v[3] = { 0, kubus_now (), 0 };
  if (leader_comm != MPI_COMM_NULL)
    {
      int64_t off;
      measure_offset (&off, &v[1], &v[2]);
      v[0] = (uint64_t)off;
    }
  PMPI_Bcast (v, 3, MPI_UINT64_T, 0, host_comm);
  *offset = (int64_t)v[0];
  *when = v[1];
  *rtt = v[2];
}

static void
parse_test_switches (void)
{
  const char *split = getenv ("KUBUS_TEST_HOST_SPLIT");
  if (split != NULL)
    {
      long k = strtol (split, NULL, 10);
      host_split = k > 1 && k <= kubus_world_size ? (int)k : 0;
    }
  const char *skew = getenv ("KUBUS_TEST_CLOCK_SKEW");
  if (skew != NULL)
    {
      char     *end;
      long      r = strtol (skew, &end, 10);
      long long off = 0, drift = 0;
      if (*end == ':')
        off = strtoll (end + 1, &end, 10);
      if (*end == ':')
        drift = strtoll (end + 1, &end, 10);
      if (*end == '\0' && r >= 0 && r < kubus_world_size)
        {
          skew_rank = (int)r;
          skew_offset = off;
          skew_drift = drift;
          kubus_clock.skewed = 1;
        }
      else
        kubus_log ("KUBUS_TEST_CLOCK_SKEW=%s: not RANK:NS:NS_PER_S, ignored", skew);
    }
}

int
kubus_clock_setup (void)
{
  int me = kubus_world_rank, n = kubus_world_size;
  parse_test_switches ();
  int rc;
  if (host_split)
    rc = PMPI_Comm_split (kubus_internal_comm, (int)((int64_t)me * host_split / n), me, &host_comm);
  else
    rc = PMPI_Comm_split_type (kubus_internal_comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL,
                               &host_comm);
  int ok = rc == MPI_SUCCESS, all_ok = 0;
  PMPI_Allreduce (&ok, &all_ok, 1, MPI_INT, MPI_LAND, kubus_internal_comm);
  if (!all_ok)
    {
      if (host_comm != MPI_COMM_NULL)
        PMPI_Comm_free (&host_comm);
      return -1;
    }
  int host_rank = 0;
  PMPI_Comm_rank (host_comm, &host_rank);
  PMPI_Comm_split (kubus_internal_comm, host_rank == 0 ? 0 : MPI_UNDEFINED, me, &leader_comm);
  int leader = host_rank == 0;
  PMPI_Allreduce (&leader, &kubus_clock.hosts, 1, MPI_INT, MPI_SUM, kubus_internal_comm);

  /* one TSC conversion per host */
  uint64_t params[3] = { 0, 0, 0 };
  if (leader)
    calibrate (params);
  PMPI_Bcast (params, 3, MPI_UINT64_T, 0, host_comm);
  kubus_tsc_base = params[1];
  kubus_tsc_base_ns = params[2];
  kubus_tsc_mult = params[0];
  kubus_clock.tsc = params[0] != 0;
  kubus_clock.ns_per_tick = (double)params[0] / 4294967296.0;

  host_offset (&kubus_clock.offset_begin, &kubus_clock.time_begin, &kubus_clock.rtt_begin);
  if (me == skew_rank)
    kubus_clock.offset_begin += skew_offset;
  /* the end values until MPI_Finalize measures them: no drift (also what an abort writes) */
  kubus_clock.offset_end = kubus_clock.offset_begin;
  kubus_clock.time_end = kubus_clock.time_begin + 1;
  return 0;
}

void
kubus_clock_finish (void)
{
  uint64_t rtt;
  if (host_comm == MPI_COMM_NULL)
    return;
  host_offset (&kubus_clock.offset_end, &kubus_clock.time_end, &rtt);
  if (kubus_clock.time_end <= kubus_clock.time_begin)
    kubus_clock.time_end = kubus_clock.time_begin + 1;
  if (kubus_world_rank == skew_rank)
    kubus_clock.offset_end
        += skew_offset
           + (int64_t)((double)skew_drift * (double)(kubus_clock.time_end - kubus_clock.time_begin)
                       / 1e9);
  /* what the trace properties report for the whole run (rank 0 writes them) */
  int64_t mine[3] = { llabs (kubus_clock.offset_begin), llabs (kubus_clock.offset_end),
                      (int64_t)(kubus_clock.rtt_begin > rtt ? kubus_clock.rtt_begin : rtt) };
  int64_t all[3] = { 0, 0, 0 };
  PMPI_Allreduce (mine, all, 3, MPI_INT64_T, MPI_MAX, kubus_internal_comm);
  kubus_clock.max_offset = all[0] > all[1] ? all[0] : all[1];
  kubus_clock.max_rtt = (uint64_t)all[2];
  if (leader_comm != MPI_COMM_NULL)
    PMPI_Comm_free (&leader_comm);
  PMPI_Comm_free (&host_comm);
}

void
kubus_clock_stop_after_abort (uint64_t t)
{
  kubus_clock.offset_end = kubus_clock.offset_begin;
  kubus_clock.time_end = t > kubus_clock.time_begin ? t : kubus_clock.time_begin + 1;
  kubus_clock.max_offset = llabs (kubus_clock.offset_begin);
  kubus_clock.max_rtt = kubus_clock.rtt_begin;
}

/* What a reader makes of local time @t with this location's two ClockOffset records: OTF2's
 * own interpolation (otf2_evt_reader_apply_clock_correction: slope over the interval, rounded
 * with rint, extrapolated outside it), so the window below holds exactly what readers see. */
uint64_t
kubus_clock_correct (uint64_t t)
{
  const KubusClock *c = &kubus_clock;
  if (c->time_end <= c->time_begin)
    return t;
  double slope = (double)(c->offset_end - c->offset_begin) / (double)(c->time_end - c->time_begin);
  double diff = t >= c->time_begin ? (double)(t - c->time_begin) : -(double)(c->time_begin - t);
  int64_t off = c->offset_begin + (int64_t)rint (slope * diff);
  return t + (uint64_t)off;
}

/* KUBUS::CLOCK_* archive properties (OTF2 keeps those of the process writing the anchor). */
void
kubus_clock_properties (OTF2_Archive *archive)
{
  const KubusClock *c = &kubus_clock;
  char v[64];
  OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_SOURCE", c->tsc ? "TSC" : "CLOCK_MONOTONIC",
                            true);
  snprintf (v, sizeof v, "%d", c->hosts);
  OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_HOSTS", v, true);
  OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_SAME_HOST",
                            "one time base per host, offset 0 by construction", true);
  OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_BETWEEN_HOSTS",
                            c->hosts > 1 ? "host leaders ping-pong with rank 0's host at MPI_Init "
                                           "and MPI_Finalize, shortest round trip, linear drift"
                                         : "none (one host)",
                            true);
  snprintf (v, sizeof v, "%d", PINGS);
  OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_PINGS", c->hosts > 1 ? v : "0", true);
  snprintf (v, sizeof v, "%lld", (long long)c->max_offset);
  OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_MAX_OFFSET_NS", v, true);
  snprintf (v, sizeof v, "%llu", (unsigned long long)c->max_rtt);
  OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_MAX_ROUND_TRIP_NS", v, true);
  if (c->tsc)
    {
      snprintf (v, sizeof v, "%.9f", c->ns_per_tick);
      OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_TSC_NS_PER_TICK", v, true);
    }
  if (c->skewed)
    OTF2_Archive_SetProperty (archive, "KUBUS::CLOCK_TEST_SKEW", getenv ("KUBUS_TEST_CLOCK_SKEW"),
                              true);
}

/* The same facts for kubus-run's kubus.json: "key value" lines. */
void
kubus_clock_describe (FILE *f)
{
  const KubusClock *c = &kubus_clock;
  fprintf (f, "source %s\nhosts %d\npings %d\nmax_offset_ns %lld\nmax_round_trip_ns %llu\n",
           c->tsc ? "TSC" : "CLOCK_MONOTONIC", c->hosts, c->hosts > 1 ? PINGS : 0,
           (long long)c->max_offset, (unsigned long long)c->max_rtt);
  if (c->tsc)
    fprintf (f, "tsc_ns_per_tick %.9f\n", c->ns_per_tick);
  if (c->skewed)
    fprintf (f, "test_skew %s\n", getenv ("KUBUS_TEST_CLOCK_SKEW"));
}
