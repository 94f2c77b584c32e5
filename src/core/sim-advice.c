/* sim-advice.c — runs a mode cannot reproduce, said before simulating (and in summary.json →
 * mode_advice), with the better mode. The real-time re-enactment runs the ranks on this
 * machine: it reproduces the original only where this machine can run them as the original's
 * did (as many hosts, as many cores per rank, the collector's CPU samples where ranks shared
 * cores). The offline model keeps every call's recorded cost class and needs none of that. */
#include "sim-private.h"

#include <glib/gi18n.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

/* CPUs this process (and the ranks mpirun starts here) may use: the launching process's, which
 * it hands to the ranks (mpirun binds a rank to one core when there are few) */
guint
sim_local_cpus (void)
{
  cpu_set_t set;
  const char *given = g_getenv ("KUBUS_SIM_CPUS");
  if (given && atoi (given) > 0)
    return (guint) atoi (given);
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return (guint) CPU_COUNT (&set);
  return (guint) MAX (1, sysconf (_SC_NPROCESSORS_ONLN));
}

char *
sim_mode_advice (const SimOptions *opt,
                 const TraceDefs  *defs,
                 const SimHosts   *h)
{
  gboolean own_launcher = opt->launcher || opt->launcher_argv;
  guint here = sim_local_cpus ();
  int n = defs->n_ranks;

  if (opt->offline)
    return NULL;
  if (h->oversubscribed && !h->has_samples)
    return g_strdup_printf (_("The original ran up to %u ranks on %u CPUs of a host, but its trace has no CPU "
                              "samples (KUBUS_CPU_TIME): the real-time re-enactment cannot bring back how they "
                              "competed for the cores and runs faster where they did. --offline keeps each "
                              "call's recorded cost and reproduces such a run better."),
                            h->max_ranks_per_host, h->min_cpus);
  if (h->oversubscribed && h->cpus_known && !own_launcher && here < h->min_cpus)
    return g_strdup_printf (_("The original shared %u CPUs of a host among up to %u ranks; this machine has %u: the "
                              "real-time re-enactment cannot share them the same way. Use --offline, or start the "
                              "re-enactment on hosts like the original's (kubus-sim … -- mpirun --hostfile FILE)."),
                            h->min_cpus, h->max_ranks_per_host, here);
  if (own_launcher)
    return NULL;
  if (h->n_hosts > 1)
    return g_strdup_printf (_("The original ran on %u hosts; the real-time re-enactment runs all %d ranks on this "
                              "one, where messages between hosts take shared memory instead of the network and "
                              "ranks may share cores they did not. Use --offline (its model keeps the original's "
                              "transfer times per transport), or give the original's hosts: kubus-sim … -- mpirun "
                              "--hostfile FILE."),
                            h->n_hosts, n);
  if ((guint) n > here && h->cpus_known && !h->oversubscribed)
    return g_strdup_printf (_("The real-time re-enactment would run %d ranks on the %u CPUs of this machine, but the "
                              "original's ranks did not share cores: waits and computation would not keep their "
                              "times. Use --offline, or give hosts with enough cores: kubus-sim … -- mpirun "
                              "--hostfile FILE."),
                            n, here);
  return NULL;
}

/* The share of their sampled time (computation and MPI calls) the ranks waited, runnable, for a
 * CPU beyond what sharing the cores among themselves explains (1 − CPUs / ranks on the fullest
 * host, every rank runnable all the time): other programs loaded the machine. −1 when unknown
 * (no CPU samples: kubus-run records them where ranks outnumber cores, or with KUBUS_CPU_TIME=1). */
double
sim_outside_load (const SimHosts    *h,
                  const SimCpuStats *c)
{
  double wall = c->gap_wall + c->call_wall;
  double own = 0;
  if (!h->has_samples || c->samples == 0 || wall <= 0 || !h->cpus_known || h->min_cpus == 0)
    return -1;
  if (h->max_ranks_per_host > h->min_cpus)
    own = 1.0 - (double) h->min_cpus / h->max_ranks_per_host;
  double excess = MAX (0.0, (c->gap_wait + c->call_wait) / wall - own);
  /* Waits beyond the ranks' share of the cores are also the scheduler's imperfect balance
   * (4 ranks on 2 idle cores: 5-9 %); other programs cannot have delayed the ranks by more than
   * the CPU time they got (collect-cputime.c), where the trace says */
  return h->other_known ? MIN (excess, h->other_bound) : excess;
}

/* NULL, or the sentence saying that other programs slowed the original run down: no mode brings
 * that load back, so the identity error (the error bar) shows it, and no prediction is better
 * than the run it starts from. Without CPU samples (ranks did not outnumber cores), from what
 * the collector found other programs took of the hosts' CPUs (every traced run since
 * docs/decisions/2026-11-29-outside-load-always.md): the real-time re-enactment computes for as
 * long as each computation interval took, load included (no samples say it waited), but runs
 * the MPI calls on this machine without the load; the offline model keeps the loaded times in
 * the computation and in the MPI costs it fits. Neither identity error measures the load */
char *
sim_load_advice (const SimHosts    *h,
                 const SimCpuStats *c)
{
  double load = sim_outside_load (h, c);
  if (load < 0 && h->other_known && h->other_share > SIM_CONTENTION_SHARE)
    return g_strdup_printf (_("Other programs shared the host with the original run: they took %.0f %% of the CPU "
                              "time its ranks could have had (%u ranks on %u CPUs). The original's times are "
                              "inflated by it as far as its ranks wanted those CPUs. The real-time re-enactment "
                              "computes for as long as the original's computation took, but its MPI calls run "
                              "without that load (a wait for a descheduled peer goes); the offline model keeps the "
                              "loaded times in its computation and its MPI costs. Predictions from this trace are "
                              "less reliable in either mode, whatever its identity error. Trace the run again on a "
                              "quiet machine (or on cores of its own) to predict it."),
                            100.0 * h->other_share, h->other_share_ranks, h->other_share_cpus);
  if (load <= SIM_CONTENTION_SHARE && c->shortfall > SIM_SHORTFALL)
    /* the waits alone do not show it where ranks slept or waited in MPI much of the time (the
     * share above counts every rank runnable throughout); the sharing of the cores among the
     * ranks that computed, on the recorded times, does (offline: every rank's events) */
    return g_strdup_printf (_("Other programs loaded the machine while the original ran: where its ranks computed "
                              "they got %.0f %% less CPU time than sharing %u CPUs among up to %u ranks gives them. "
                              "Neither mode brings that load back, so the simulation may be far off the run (the "
                              "identity error shows how far). Trace the run again on a quiet machine (or on cores "
                              "of its own) to predict it."),
                            100.0 * c->shortfall, h->min_cpus, h->max_ranks_per_host);
  if (load <= SIM_CONTENTION_SHARE)
    return NULL;
  return g_strdup_printf (_("Other programs loaded the machine while the original ran: its ranks waited %.0f %% "
                            "of their time for a CPU beyond what sharing %u CPUs among up to %u ranks explains. "
                            "Neither mode brings that load back, so the simulation may be far off the run (the "
                            "identity error shows how far). Trace the run again on a quiet machine (or on cores "
                            "of its own) to predict it."),
                          100.0 * load, h->min_cpus, h->max_ranks_per_host);
}

double
sim_calls_per_slice (const SimHosts    *h,
                     const SimCpuStats *c)
{
  if (c->call_span <= 0)
    return 0;
  return c->n_calls * (double) sim_sched_slice_ns (h->min_cpus) / c->call_span;
}

/* The contention re-enactment computes each rank's recorded CPU time on the CPU the samples
 * place it on and leaves the rest to the scheduler. That brings the original's sharing of the
 * cores back where the ranks compute for longer than the scheduler's time slice between their
 * MPI calls: the CPU time each needs decides (`sim-busy`, 0.35 calls per slice: within 0.5 %).
 * Where they call MPI more often and compute at the same time on a CPU (their computation
 * waited for it), which of them computes next is decided at the calls, by the scheduler's
 * wake-up rules and the ranks' yields, in an order that differs from run to run and that the
 * re-enactment does not reproduce (LAMMPS at 4 ranks on 2 cores, about 27 calls per slice and
 * 16-19 % waiting: one re-enactment each of 14 traces +1.9 .. +21 %; pw.x +18 .. +59 %; Meep
 * +87 .. +126 %). Where the computation hardly waited, a rank had its CPU to itself while the
 * others sat in MPI, and the order does not matter (`sim-patterns busy`, 4 calls per slice and
 * 3-5 % waiting: +0.4 .. +4.9 %; docs/decisions/2026-12-02-fine-grained-contention.md) */
char *
sim_fine_grain_advice (const SimHosts    *h,
                       const SimCpuStats *c)
{
  double per_slice = sim_calls_per_slice (h, c);
  double wait = c->gap_wall > 0 ? c->gap_wait / c->gap_wall : 0;
  if (!h->oversubscribed || per_slice <= SIM_CALLS_PER_SLICE || wait < SIM_FINE_WAIT_SHARE)
    return NULL;
  return g_strdup_printf (_("The original's ranks shared %u CPUs of a host (up to %u ranks), their computation waited "
                            "%.0f %% of its time for a CPU, and they called MPI %.1f times per time slice of the "
                            "scheduler (%.2f ms on %u CPUs). Which of the ranks on a CPU computes next is then decided at "
                            "their MPI calls, differently from run to run, and the real-time re-enactment, which brings "
                            "back each rank's CPU time and CPU but not that order, misses such runs: on 2 cores, LAMMPS "
                            "at 4 ranks came out +2 to +21 %% (one re-enactment each of 14 traces), Quantum ESPRESSO's "
                            "pw.x +18 to +59 %% and Meep +87 to +126 %%, where the offline model came within 5 %% on "
                            "all 58 fresh LAMMPS traces of one machine and 29 of 30 of another (the other -6.0 %%), "
                            "3 of 3 of Meep and 9 of 13 of pw.x (none of 6 small runs of another machine, -11 to "
                            "-15 %%, still the closer): simulate with --offline."),
                          h->min_cpus, h->max_ranks_per_host, 100.0 * wait, per_slice,
                          sim_sched_slice_ns (h->min_cpus) / 1e6, h->min_cpus);
}

gboolean
sim_ranks_competed (const SimCpuStats *c)
{
  gboolean computed = c->gap_wall > 0 && c->gap_sleep / c->gap_wall < 0.5;
  return computed && (c->gap_wait / c->gap_wall > SIM_CONTENTION_SHARE
                      || (c->call_wall > 0 && c->call_wait / c->call_wall > SIM_CONTENTION_SHARE));
}

gboolean
sim_rt_advised_against (const SimOptions  *opt,
                        const TraceDefs   *defs,
                        const SimHosts    *h,
                        const SimCpuStats *c)
{
  SimOptions rt = *opt;
  g_autofree char *said = NULL, *fine = NULL;
  /* where the real-time mode re-enacts the contention (sim-run.c) */
  gboolean competed = h->oversubscribed && h->has_samples && sim_ranks_competed (c);

  rt.offline = FALSE;
  if ((said = sim_mode_advice (&rt, defs, h)))
    return TRUE;
  if (h->oversubscribed && c->poll_share > SIM_POLL_SHARE)
    return TRUE;
  if (competed && h->min_cpus > 0 && h->max_ranks_per_host >= 3 * h->min_cpus)
    return TRUE;
  return competed && (fine = sim_fine_grain_advice (h, c)) != NULL;
}

char *
sim_eager_advice (const TraceDefs         *defs,
                  guint                    hosts,
                  const unsigned long long here[2],
                  const int                have[2])
{
  for (int t = 0; t < 2; t++)
    {
      guint64 orig = defs->eager_limit_lib[t];
      if (orig == 0 || !have[t] || here[t] == orig || (t == 1 && hosts < 2))
        continue;
      /* a message between the two limits goes at once in one run and waits for its receiver
       * (rendezvous) in the other: it cannot keep its time (docs/decisions/
       * 2026-11-30-library-eager-limit.md) */
      return g_strdup_printf (t == 0
                              ? _("The original's MPI library sent messages of up to %llu bytes between ranks of a "
                                  "host at once (eager) and larger ones only once their receiver was there; this "
                                  "re-enactment's library does so up to %llu bytes. Messages between the two take the "
                                  "other protocol here and do not keep their times. Give the re-enactment the "
                                  "original's setting (Open MPI: OMPI_MCA_btl_vader_eager_limit=%llu in the "
                                  "environment, or kubus-sim … -- mpirun --mca btl_vader_eager_limit %llu).")
                              : _("The original's MPI library sent messages of up to %llu bytes between hosts at "
                                  "once (eager) and larger ones only once their receiver was there; this "
                                  "re-enactment's library does so up to %llu bytes. Messages between the two take the "
                                  "other protocol here and do not keep their times. Give the re-enactment the "
                                  "original's setting (Open MPI: OMPI_MCA_btl_tcp_eager_limit=%llu in the "
                                  "environment, or kubus-sim … -- mpirun --mca btl_tcp_eager_limit %llu)."),
                              (unsigned long long) orig, here[t], (unsigned long long) orig,
                              (unsigned long long) orig);
    }
  return NULL;
}
