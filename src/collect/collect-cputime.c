/* collect-cputime.c: how much CPU a rank got, where ranks outnumber cores, and what other
 * programs took of each host's CPUs during every traced run.
 *
 * With more ranks than cores on a host, a rank that computes for 1 ms of wall time may have run
 * for 0.5 ms: the other half it waited for a core the ranks sharing it held. kubus-sim re-enacts
 * such a run by computing for the CPU time the rank got and sleeping for the time it slept
 * (docs/decisions/2026-11-28-sim-real-codes.md), so the trace records both: a Metric event
 * with KUBUS_CPU_TIME (the thread's CPU time since it started, CLOCK_THREAD_CPUTIME_ID) and
 * KUBUS_CPU_WAIT (the time it has waited, runnable, for a CPU: run_delay of
 * /proc/thread-self/schedstat; all ones when the kernel does not keep it), in ns, at the MPI
 * Enter or Leave that ends an interval at least kubus_cpu_threshold long. Wall time minus the
 * two is the time the rank slept. Each reading is a system call (together 2–8 µs in a KVM guest,
 * against 0.1 µs for CLOCK_MONOTONIC), so only long intervals end with one: the threshold is 100
 * times the measured cost of a sample, within 20-150 µs, which keeps the collector's added time
 * under 1 % of the run where a sample costs up to 1.5 µs (at most cost / 150 µs elsewhere: 2 %
 * here); the shorter intervals ran on their CPU nearly all the time anyway (the scheduler's time
 * slices are milliseconds), and the cap keeps every interval kubus-sim's model needs sampled
 * (docs/decisions/2026-12-01-sample-density.md).
 *
 * Sampling is on when some host runs more ranks than the CPUs its ranks may use (the union of
 * their affinity masks), or with KUBUS_CPU_TIME=1; KUBUS_CPU_TIME=0 turns it off. Every host's
 * CPU count goes into the definitions as the system tree node property KUBUS::CPUS, so the
 * simulator knows the machine the run shared.
 *
 * On every traced run, sampled or not, the first rank of each host also reads the host's busy
 * CPU time (/proc/stat) at MPI_Init and at MPI_Finalize; less the CPU time of the host's ranks
 * (whole processes) it is what other programs took meanwhile: KUBUS::OTHER_CPU_NS, over the
 * interval KUBUS::OTHER_WALL_NS. Two reads of /proc/stat and of the process's CPU clock per
 * host, and a reduction at MPI_Finalize: nothing against a run. kubus-sim says from them, also
 * where ranks did not outnumber cores (no samples), that other programs shared the host and
 * inflated the original's times (docs/decisions/2026-11-29-outside-load-always.md). Where ranks
 * sample, a rank's wait for a CPU beyond its share of the cores is not always other programs'
 * doing (the scheduler balances 4 ranks on 2 cores imperfectly: 5-9 % more on an idle machine),
 * but other programs cannot have delayed the ranks by more than the CPU time they got, so
 * kubus-sim takes the smaller of the two (docs/decisions/2026-11-29-oversubscribed-
 * reference.md). The properties say nothing about sampling: the metric definition does.
 *
 * Test-only switch (not for users): KUBUS_TEST_OTHER_CPU=F makes each host's reading report that
 * other programs kept F of the host's CPUs (KUBUS::CPUS) busy over the run (F x CPUs x
 * OTHER_WALL_NS), whatever /proc/stat says: a deterministic load for the tests of kubus-sim's
 * note. */
#include "collect.h"
#include "kct-format.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t kubus_cpu_threshold;
uint64_t kubus_cpu_prev;

static int *cpus_of_rank; /* per world rank: the CPUs its host's ranks may use */
static int  any_sampling;
static int  any_tracing;       /* some rank traces: every host measures other programs' CPU time */
static int  host_cpu_count;    /* the CPUs this host's ranks may use */
static int  schedstat_fd = -1; /* /proc/thread-self/schedstat of the thread that samples */

/* other programs' CPU time on this host (kubus_cpu_finish) */
static MPI_Comm  cpu_host = MPI_COMM_NULL; /* this host's ranks */
static uint64_t  host_busy0 = UINT64_MAX;  /* first rank of the host: busy CPU ns at setup */
static uint64_t  proc_cpu0, wall0;         /* this process's CPU ns, CLOCK_MONOTONIC ns at setup */
static uint64_t *other_of_rank;            /* per world rank: its host's other CPU ns and wall ns,
                                            * UINT64_MAX unknown */

/* ns the host's CPUs were busy since boot (user, nice, system, irq, softirq, steal of the "cpu"
 * line of /proc/stat); UINT64_MAX unknown */
static uint64_t
host_busy_ns (void)
{
  char               buf[256];
  unsigned long long v[8] = { 0 };
  long               hz = sysconf (_SC_CLK_TCK);
  int                fd = open ("/proc/stat", O_RDONLY | O_CLOEXEC);
  ssize_t            n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
  if (fd >= 0)
    close (fd);
  if (n <= 0 || hz <= 0)
    return UINT64_MAX;
  buf[n] = '\0';
  if (sscanf (buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
              &v[5], &v[6], &v[7])
      != 8)
    return UINT64_MAX;
  unsigned long long ticks = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  return (uint64_t)ticks * (1000000000u / (uint64_t)hz);
}

static uint64_t
process_cpu_ns (void)
{
  struct timespec ts;
  if (clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
thread_cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* run_delay: ns the thread has waited on a run queue; UINT64_MAX when unknown */
static uint64_t
thread_wait_ns (void)
{
  char    buf[96];
  ssize_t n;
  if (schedstat_fd < 0 || (n = pread (schedstat_fd, buf, sizeof buf - 1, 0)) <= 0)
    return UINT64_MAX;
  buf[n] = '\0';
  char *p = strchr (buf, ' ');
  return p != NULL ? strtoull (p + 1, NULL, 10) : UINT64_MAX;
}

/* whether the thread may run on one CPU only (bound to it, by the program or the launcher):
 * KUBUS_CPU_ID then has KUBUS_CPU_ID_BOUND added. The offline model tells bound ranks that
 * never changed CPU from ranks the scheduler merely left where they were
 * (docs/decisions/2026-12-01-bound-ranks.md). Asked where the CPU changed and every
 * BOUND_EVERY samples: the system call at every sample (1 µs here, on top of 2.7 µs) made
 * the samples sparser and LAMMPS's offline identity +9 .. +28 % at 4 ranks on 2 cores. */
#define BOUND_EVERY 32

/* the sampling threshold's bounds (kubus_cpu_setup) */
#define THRESHOLD_MIN_NS 20000
#define THRESHOLD_MAX_NS 150000

static int
thread_bound (int cpu)
{
  static int      last_cpu = -1, bound;
  static unsigned n;
  if (cpu != last_cpu || n++ % BOUND_EVERY == 0)
    {
      cpu_set_t set;
      CPU_ZERO (&set);
      bound = sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) == 1;
      last_cpu = cpu;
    }
  return bound;
}

void
kubus_cpu_sample (uint64_t t)
{
  /* the main thread's CPU time only: another thread's counter (a call of it under
   * MPI_THREAD_SERIALIZED) is another series; kubus-sim takes differences of samples */
  if (!kubus_main_thread)
    return;
  uint64_t cpu = thread_cpu_ns (), wait = thread_wait_ns ();
  int      cpu_id = sched_getcpu ();
  uint64_t where = cpu_id >= 0 && cpu_id < (int)KUBUS_CPU_ID_BOUND
                   ? (uint64_t)cpu_id | (thread_bound (cpu_id) ? KUBUS_CPU_ID_BOUND : 0) : UINT64_MAX;
  /* the compressed trace keeps it too (before the event it precedes, format version 4; the
   * CPU id since version 5) */
  if (kubus_recording && kubus_kct_on)
    kubus_kct_cpu (cpu, wait, where);
  /* into the event buffer (collect-raw.h): a Metric of two UINT64 values */
  if (kubus_recording && kubus_trace_otf2 && kubus_evt != NULL)
    {
      uint64_t *p = kubus_raw_take (5);
      if (p != NULL)
        {
          p[0] = KUBUS_RAW_METRIC3 | (uint64_t)KUBUS_METRIC_CPU << 32;
          p[1] = t;
          p[2] = cpu;
          p[3] = wait;
          p[4] = where;
          kubus_raw_publish (p, 5);
        }
    }
}

/* CPUs the ranks of this host may use: the union of their affinity masks (collective on @host) */
static int
host_cpus (MPI_Comm host)
{
  cpu_set_t     mine, all;
  unsigned char in[sizeof (cpu_set_t)], out[sizeof (cpu_set_t)];
  CPU_ZERO (&mine);
  if (sched_getaffinity (0, sizeof mine, &mine) != 0)
    {
      long n = sysconf (_SC_NPROCESSORS_ONLN);
      for (long i = 0; i < n && i < CPU_SETSIZE; i++)
        CPU_SET ((int)i, &mine);
    }
  memcpy (in, &mine, sizeof in);
  PMPI_Allreduce (in, out, (int)sizeof in, MPI_BYTE, MPI_BOR, host);
  memcpy (&all, out, sizeof all);
  int n = CPU_COUNT (&all);
  return n > 0 ? n : 1;
}

void
kubus_cpu_setup (uint64_t t, int tracing)
{
  const char *env = getenv ("KUBUS_CPU_TIME");
  int         off = env != NULL && strcmp (env, "0") == 0;
  int         forced = env != NULL && env[0] != '\0' && !off;
  MPI_Comm    host = MPI_COMM_NULL;
  int         local = 1, cpus = 1, want;

  if (PMPI_Comm_split_type (kubus_internal_comm, MPI_COMM_TYPE_SHARED, kubus_world_rank,
                            MPI_INFO_NULL, &host)
      == MPI_SUCCESS)
    {
      int hr = 0;
      PMPI_Comm_size (host, &local);
      PMPI_Comm_rank (host, &hr);
      cpus = host_cpus (host);
      host_cpu_count = cpus;
      cpu_host = host; /* freed by kubus_cpu_finish */
      if (hr == 0)
        host_busy0 = host_busy_ns ();
      proc_cpu0 = process_cpu_ns ();
      wall0 = kubus_monotonic_ns ();
    }
  /* into the OTF2 trace, the compressed one (--trace-format=compressed) or both */
  want = !off && (forced || local > cpus) && tracing;
  cpus_of_rank = calloc ((size_t)kubus_world_size, sizeof *cpus_of_rank);
  if (cpus_of_rank != NULL)
    PMPI_Allgather (&cpus, 1, MPI_INT, cpus_of_rank, 1, MPI_INT, kubus_internal_comm);
  else
    PMPI_Allgather (&cpus, 1, MPI_INT, NULL, 0, MPI_INT, kubus_internal_comm);
  {
    int mine[2] = { want, tracing != 0 }, any[2] = { 0, 0 };
    PMPI_Allreduce (mine, any, 2, MPI_INT, MPI_MAX, kubus_internal_comm);
    any_sampling = any[0];
    any_tracing = any[1];
  }
  if (!want)
    return;

  schedstat_fd = open ("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (schedstat_fd >= 0 && thread_wait_ns () == UINT64_MAX)
    {
      close (schedstat_fd);
      schedstat_fd = -1;
    }
  /* the cost of one sample: the fastest of a few (a preempted one says nothing) */
  uint64_t cost = UINT64_MAX;
  for (int i = 0; i < 16; i++)
    {
      uint64_t a = kubus_monotonic_ns ();
      (void)thread_cpu_ns ();
      (void)thread_wait_ns ();
      uint64_t b = kubus_monotonic_ns ();
      if (b - a < cost)
        cost = b - a;
    }
  /* 100 samples' cost, within [THRESHOLD_MIN_NS, THRESHOLD_MAX_NS]: the cap keeps
   * the samples as dense as kubus-sim's model needs where a sample costs more (here 2.7-3.2 us,
   * whose 100 times left LAMMPS's 150-300 us intervals unsampled in the machine's fast phases:
   * docs/decisions/2026-12-01-sample-density.md), at a cost of up to cost / 150 us of the run */
  uint64_t    threshold = cost * 100 < THRESHOLD_MIN_NS   ? THRESHOLD_MIN_NS
                          : cost * 100 > THRESHOLD_MAX_NS ? THRESHOLD_MAX_NS
                                                          : cost * 100;
  const char *th = getenv ("KUBUS_CPU_THRESHOLD_NS");
  if (th != NULL && th[0] != '\0')
    {
      char              *end = NULL;
      unsigned long long v = strtoull (th, &end, 10);
      if (end != th && *end == '\0' && v > 0)
        threshold = v;
    }
  kubus_log ("%d ranks on %d CPUs of this host: CPU time%s sampled after intervals of %llu ns or more "
             "(one sample costs %llu ns)",
             local, cpus, schedstat_fd >= 0 ? " and waits for a CPU" : "", (unsigned long long)threshold,
             (unsigned long long)cost);
  kubus_cpu_prev = t;
  kubus_cpu_threshold = threshold;
}

void
kubus_cpu_finish (void)
{
  uint64_t pair[2] = { UINT64_MAX, UINT64_MAX };
  /* any_tracing is the same on every rank, and so is whether the host split worked: every
   * traced run measures other programs' CPU time, sampled or not */
  if (!any_tracing)
    {
      if (cpu_host != MPI_COMM_NULL)
        PMPI_Comm_free (&cpu_host);
      return;
    }
  if (cpu_host != MPI_COMM_NULL)
    {
      uint64_t mine = process_cpu_ns () - proc_cpu0, ranks = 0;
      int      hr = 0;
      PMPI_Comm_rank (cpu_host, &hr);
      PMPI_Reduce (&mine, &ranks, 1, MPI_UINT64_T, MPI_SUM, 0, cpu_host);
      if (hr == 0)
        {
          uint64_t busy = host_busy_ns (), wall = kubus_monotonic_ns () - wall0;
          if (busy != UINT64_MAX && host_busy0 != UINT64_MAX && busy >= host_busy0)
            {
              pair[0] = busy - host_busy0 > ranks ? busy - host_busy0 - ranks : 0;
              pair[1] = wall;
            }
          const char *test = getenv ("KUBUS_TEST_OTHER_CPU");
          if (test != NULL && test[0] != '\0')
            {
              char  *end = NULL;
              double f = strtod (test, &end);
              if (end != test && *end == '\0' && f >= 0 && f <= 1)
                {
                  pair[0] = (uint64_t)(f * (double)host_cpu_count * (double)wall + 0.5);
                  pair[1] = wall;
                }
              else
                kubus_log ("KUBUS_TEST_OTHER_CPU=%s: not a share from 0 to 1, ignored", test);
            }
        }
      PMPI_Bcast (pair, 2, MPI_UINT64_T, 0, cpu_host);
      PMPI_Comm_free (&cpu_host);
    }
  other_of_rank = calloc (2 * (size_t)kubus_world_size, sizeof *other_of_rank);
  if (other_of_rank != NULL)
    PMPI_Allgather (pair, 2, MPI_UINT64_T, other_of_rank, 2, MPI_UINT64_T, kubus_internal_comm);
  else
    PMPI_Allgather (pair, 2, MPI_UINT64_T, NULL, 0, MPI_UINT64_T, kubus_internal_comm);
}

int
kubus_cpu_sampled (void)
{
  return any_sampling;
}

int
kubus_cpu_host (int rank, uint32_t *cpus, uint64_t *other_cpu_ns, uint64_t *other_wall_ns)
{
  *cpus = cpus_of_rank != NULL && rank >= 0 && rank < kubus_world_size ? (uint32_t)cpus_of_rank[rank] : 0;
  if (other_of_rank == NULL || rank < 0 || rank >= kubus_world_size || other_of_rank[2 * rank] == UINT64_MAX)
    return 0;
  *other_cpu_ns = other_of_rank[2 * rank];
  *other_wall_ns = other_of_rank[2 * rank + 1];
  return 1;
}

void
kubus_cpu_write_defs (OTF2_GlobalDefWriter *gw, const uint32_t *node_of, int n_ranks,
                      uint32_t (*str) (void *st, const char *s), void *st)
{
  if (cpus_of_rank != NULL && node_of != NULL)
    {
      uint32_t name = str (st, "KUBUS::CPUS");
      for (int r = 0; r < n_ranks; r++)
        {
          int q;
          for (q = 0; q < r; q++)
            if (node_of[q] == node_of[r])
              break;
          if (q < r)
            continue; /* one property per host node */
          OTF2_AttributeValue v;
          v.uint32 = (uint32_t)cpus_of_rank[r];
          OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (gw, node_of[r], name, OTF2_TYPE_UINT32, v);
          if (other_of_rank != NULL && other_of_rank[2 * r] != UINT64_MAX)
            {
              v.uint64 = other_of_rank[2 * r];
              OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (
                  gw, node_of[r], str (st, "KUBUS::OTHER_CPU_NS"), OTF2_TYPE_UINT64, v);
              v.uint64 = other_of_rank[2 * r + 1];
              OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (
                  gw, node_of[r], str (st, "KUBUS::OTHER_WALL_NS"), OTF2_TYPE_UINT64, v);
            }
        }
    }
  if (any_sampling)
    {
      OTF2_MetricMemberRef members[3] = { 0, 1, 2 };
      uint32_t             s = str (st, "s");
      OTF2_GlobalDefWriter_WriteMetricMember (
          gw, members[0], str (st, "KUBUS_CPU_TIME"),
          str (st, "CPU time of the thread since it started (CLOCK_THREAD_CPUTIME_ID), sampled at the "
                   "MPI event that ends a long interval"),
          OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL,
          -9, s);
      OTF2_GlobalDefWriter_WriteMetricMember (
          gw, members[1], str (st, "KUBUS_CPU_WAIT"),
          str (st, "time the thread has waited, runnable, for a CPU since it started (run_delay of "
                   "schedstat; all ones: unknown), sampled with KUBUS_CPU_TIME"),
          OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL,
          -9, s);
      OTF2_GlobalDefWriter_WriteMetricMember (
          gw, members[2], str (st, "KUBUS_CPU_ID"),
          str (st, "the CPU the thread ran on when sampled (sched_getcpu; all ones: unknown), plus 65536 "
                   "where the thread could run on that CPU only (bound to it), sampled with KUBUS_CPU_TIME"),
          OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
          str (st, "#"));
      OTF2_GlobalDefWriter_WriteMetricClass (gw, KUBUS_METRIC_CPU, 3, members, OTF2_METRIC_ASYNCHRONOUS,
                                             OTF2_RECORDER_KIND_CPU);
    }
}
