/* collect-cputime.h: the thread's CPU time at the ends of long intervals, for kubus-sim's
 * model of ranks that share cores (collect-cputime.c). collect.h includes it; the event path
 * calls kubus_cpu_boundary() at every MPI Enter and Leave: one predictable branch when off. */
#pragma once

#include <otf2/otf2.h>
#include <stdint.h>

#define KUBUS_CPU_HIDDEN __attribute__ ((visibility ("hidden")))

/* the metric class of the KUBUS_CPU_TIME samples (the only metric the collector defines) */
#define KUBUS_METRIC_CPU 0u

/* ns: an interval between MPI events at least this long ends with a sample; 0 = off */
extern uint64_t kubus_cpu_threshold KUBUS_CPU_HIDDEN;
/* time of the previous MPI Enter or Leave */
extern uint64_t kubus_cpu_prev KUBUS_CPU_HIDDEN;

void kubus_cpu_sample (uint64_t t) KUBUS_CPU_HIDDEN;
/* MPI_Init, collective: decides whether to sample (more ranks than cores on some host, or
 * KUBUS_CPU_TIME=1) and measures what a sample costs */
void kubus_cpu_setup (uint64_t t, int tracing) KUBUS_CPU_HIDDEN;
/* MPI_Finalize, collective, before the definitions are written: where any rank traces (sampled
 * or not), what other programs took of each host's CPUs since kubus_cpu_setup */
void kubus_cpu_finish (void) KUBUS_CPU_HIDDEN;
/* the global definitions: KUBUS::CPUS of every host node (and KUBUS::OTHER_CPU_NS and
 * KUBUS::OTHER_WALL_NS where kubus_cpu_finish measured them), the metric when any rank sampled.
 * @str makes a string id (the writer's string table). */
void kubus_cpu_write_defs (OTF2_GlobalDefWriter *gw, const uint32_t *node_of, int n_ranks,
                           uint32_t (*str) (void *st, const char *s), void *st) KUBUS_CPU_HIDDEN;

/* for the compressed trace (collect-kct.c), after kubus_cpu_finish: whether any rank sampled
 * (the metric is defined), and the host properties of @rank's host as kubus_cpu_write_defs
 * writes them (*cpus 0: unknown; returns 1 when the other programs' times are known) */
int kubus_cpu_sampled (void) KUBUS_CPU_HIDDEN;
int kubus_cpu_host (int rank, uint32_t *cpus, uint64_t *other_cpu_ns, uint64_t *other_wall_ns)
    KUBUS_CPU_HIDDEN;

static inline void
kubus_cpu_boundary (uint64_t t)
{
  if (__builtin_expect (kubus_cpu_threshold != 0, 0))
    {
      if (t - kubus_cpu_prev >= kubus_cpu_threshold)
        kubus_cpu_sample (t);
      kubus_cpu_prev = t;
    }
}
