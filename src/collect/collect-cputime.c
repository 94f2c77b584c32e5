/* collect-cputime.c: how much CPU a rank got, where ranks outnumber cores.
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
 * times the measured cost of a sample (at least 20 µs), which keeps the collector's added time
 * under 1 % of the run; the shorter intervals ran on their CPU nearly all the time anyway (the
 * scheduler's time slices are milliseconds).
 *
 * Sampling is on when some host runs more ranks than the CPUs its ranks may use (the union of
 * their affinity masks), or with KUBUS_CPU_TIME=1; KUBUS_CPU_TIME=0 turns it off. Every host's
 * CPU count goes into the definitions as the system tree node property KUBUS::CPUS, so the
 * simulator knows the machine the run shared. */
#include "collect.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t kubus_cpu_threshold;
uint64_t kubus_cpu_prev;

static int *cpus_of_rank; /* per world rank: the CPUs its host's ranks may use */
static int  any_sampling;
static int  schedstat_fd = -1; /* /proc/thread-self/schedstat of the thread that samples */

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

void
kubus_cpu_sample (uint64_t t)
{
  OTF2_Type        type[2] = { OTF2_TYPE_UINT64, OTF2_TYPE_UINT64 };
  OTF2_MetricValue v[2];
  v[0].unsigned_int = thread_cpu_ns ();
  v[1].unsigned_int = thread_wait_ns ();
  if (kubus_recording && kubus_evt != NULL)
    kubus_check (OTF2_EvtWriter_Metric (kubus_evt, NULL, t, KUBUS_METRIC_CPU, 2, type, v), "Metric");
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
      PMPI_Comm_size (host, &local);
      cpus = host_cpus (host);
      PMPI_Comm_free (&host);
    }
  want = !off && (forced || local > cpus) && tracing && kubus_trace_otf2;
  cpus_of_rank = calloc ((size_t)kubus_world_size, sizeof *cpus_of_rank);
  if (cpus_of_rank != NULL)
    PMPI_Allgather (&cpus, 1, MPI_INT, cpus_of_rank, 1, MPI_INT, kubus_internal_comm);
  else
    PMPI_Allgather (&cpus, 1, MPI_INT, NULL, 0, MPI_INT, kubus_internal_comm);
  PMPI_Allreduce (&want, &any_sampling, 1, MPI_INT, MPI_MAX, kubus_internal_comm);
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
  uint64_t    threshold = cost * 100 > 20000 ? cost * 100 : 20000;
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
        }
    }
  if (any_sampling)
    {
      OTF2_MetricMemberRef members[2] = { 0, 1 };
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
      OTF2_GlobalDefWriter_WriteMetricClass (gw, KUBUS_METRIC_CPU, 2, members, OTF2_METRIC_ASYNCHRONOUS,
                                             OTF2_RECORDER_KIND_CPU);
    }
}
