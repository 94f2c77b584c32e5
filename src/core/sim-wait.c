/* sim-wait.c — elapsing a computation interval precisely on a shared machine: sleep most of it
 * (so ranks that share a core do not steal each other's time), then spin the rest while yielding
 * the core. The margin between the two is calibrated at start-up from how late nanosleep really
 * wakes up on this machine now; intervals shorter than a clock read or two are not waited for at
 * all — the replay schedules against absolute deadlines, so they are absorbed by the next wait
 * instead of accumulating timer overhead. The timer slack is set to 1 ns, so a sleep ends when
 * asked and not up to 50 µs later; what remains is scheduling latency, which the spin covers.
 * The spin is capped at 300 µs: four ranks on two cores must not burn each other's time. */
#include "sim-private.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* qsort / g_array_sort order of gint64 values (the simulator's medians and percentiles) */
int
sim_cmp_i64 (gconstpointer a,
             gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

gint64
sim_thread_cpu (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
sim_burn_until (gint64 cpu_goal)
{
  gint64 left;
  while ((left = cpu_goal - sim_thread_cpu ()) > 0)
    {
      /* spin on the cheap clock for part of what is left, then ask the CPU clock again (a
       * preempted spin used less CPU than wall time) */
      gint64 until = sim_now () + MAX (2000, left / 2);
      while (sim_now () < until)
        ;
    }
}

/* The kernel's real-time throttling (sched_rt_runtime_us of every sched_rt_period_us, 950 of
 * 1000 ms by default) stops a CPU's SCHED_RR tasks for the rest of the period once they ran that
 * long in it. A replay rank that spins through a polling loop of a second or more (sim-poll's 10^6
 * MPI_Test calls; HPCC's RandomAccess) was stopped for 40-50 ms each time, a stall its peer waited
 * for ("sched: RT throttling activated"; the identity +2.0 .. +2.2 % instead of +0.2 .. +0.5 %
 * without SCHED_RR). So the replay keeps its own budget: in each window of RT_WINDOW_NS, once the
 * thread has used its share of the CPU (RT_SHARE of the kernel's runtime over period: any period
 * then sees less than the runtime, whatever its phase against the windows), it runs on under
 * SCHED_OTHER, still spinning where it spun (every rank has a core there); the next window
 * gives it SCHED_RR back. A rank that sleeps between short waits never reaches the budget. */
#define RT_WINDOW_NS 100000000
#define RT_SHARE     0.8
#define RT_CHECK_NS  1000000    /* the thread's CPU clock is a system call: read once per this */
static struct
{
  gboolean on;         /* under SCHED_RR with throttling: the budget applies */
  gboolean demoted;    /* running under SCHED_OTHER for the rest of this window */
  gint64   budget;     /* CPU ns per window */
  gint64   window;     /* start of this window (CLOCK_MONOTONIC) */
  gint64   cpu0;       /* the thread's CPU time at its start */
  gint64   next_check;
  guint    demotions;
} rt;

static void
rt_policy (gboolean realtime)
{
  struct sched_param sp = { .sched_priority = realtime ? 1 : 0 };
  sched_setscheduler (0, realtime ? SCHED_RR : SCHED_OTHER, &sp);
}

void
sim_rt_budget (gint64 now)
{
  if (!rt.on || now < rt.next_check)
    return;
  rt.next_check = now + RT_CHECK_NS;
  if (now - rt.window >= RT_WINDOW_NS)
    {
      if (rt.demoted)
        rt_policy (TRUE);
      rt.demoted = FALSE;
      rt.window = now;
      rt.cpu0 = sim_thread_cpu ();
    }
  else if (!rt.demoted && sim_thread_cpu () - rt.cpu0 > rt.budget)
    {
      rt_policy (FALSE);
      rt.demoted = TRUE;
      rt.demotions++;
    }
}

guint
sim_rt_demotions (void)
{
  return rt.demotions;
}

void
sim_wait_calibrate (SimWaitCal *cal,
                    gboolean    allow_rt)
{
  enum { N_SLEEPS = 25, N_CLOCK = 2000 };
  gint64 late[N_SLEEPS], yields[N_SLEEPS];
  gint64 t0, t1;

  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  /* A rank that wakes up late makes a wrong prediction. Where we may (root, CAP_SYS_NICE) and the
   * kernel keeps a share of every core for other tasks (real-time throttling on), the whole
   * replay runs under SCHED_RR: the end of a sleep then preempts whatever else runs on the
   * machine. Its MPI waits sleep too (sim-replay.c), and a rank that spins long (a polling
   * loop) keeps within the throttling (sim_rt_budget), so it takes little from anyone. */
  {
    struct sched_param rr = { .sched_priority = 1 };
    const char *no = g_getenv ("KUBUS_SIM_NO_RT");
    g_autofree char *runtime = NULL, *period = NULL;
    gint64 runtime_us = -1, period_us = 0;

    if (g_file_get_contents ("/proc/sys/kernel/sched_rt_runtime_us", &runtime, NULL, NULL))
      runtime_us = g_ascii_strtoll (runtime, NULL, 10);
    if (g_file_get_contents ("/proc/sys/kernel/sched_rt_period_us", &period, NULL, NULL))
      period_us = g_ascii_strtoll (period, NULL, 10);
    /* runtime -1: no throttling, and a spinning SCHED_RR rank would keep its CPU from everything */
    cal->realtime = allow_rt && (!no || !*no || *no == '0') && runtime_us >= 0
                    && sched_setscheduler (0, SCHED_RR, &rr) == 0;
    memset (&rt, 0, sizeof rt);
    rt.on = cal->realtime && !g_getenv ("KUBUS_SIM_RT_NOBUDGET");   /* (A/B measurements) */
    rt.budget = (gint64) (RT_WINDOW_NS * RT_SHARE * (period_us > 0 ? MIN (1.0, (double) runtime_us / period_us) : 0.95));
    rt.window = sim_now ();
    rt.cpu0 = sim_thread_cpu ();
  }
  t0 = sim_now ();
  for (int i = 0; i < N_CLOCK; i++)
    t1 = sim_now ();
  t1 = sim_now ();
  cal->clock_cost = MAX (1, (t1 - t0) / (N_CLOCK + 1));
  for (int i = 0; i < N_SLEEPS; i++)
    {
      struct timespec ts = { 0, 200000 };   /* 200 µs */
      gint64 a, b;
      a = sim_now ();
      nanosleep (&ts, NULL);
      b = sim_now ();
      late[i] = MAX (0, b - a - 200000);
    }
  /* a yield is a system call: under a hypervisor it can cost microseconds, and a spin that
   * yields on its last stretch wakes up that much after its deadline */
  for (int i = 0; i < N_SLEEPS; i++)
    {
      gint64 a = sim_now ();
      for (int j = 0; j < 8; j++)
        sched_yield ();
      yields[i] = (sim_now () - a) / 8;
    }
  qsort (yields, N_SLEEPS, sizeof yields[0], sim_cmp_i64);
  cal->yield_cost = MIN (yields[N_SLEEPS / 2], 20000);
  qsort (late, N_SLEEPS, sizeof late[0], sim_cmp_i64);
  cal->sleep_overshoot = late[(N_SLEEPS * 9) / 10];
  /* wake up early enough for 90 % of the sleeps, plus room for the scheduler */
  cal->sleep_margin = CLAMP (cal->sleep_overshoot + 20000, 30000, 300000);
  cal->min_wait = MAX (200, 4 * cal->clock_cost);
}

gint64
sim_wait_until (const SimWaitCal *cal,
                gint64            deadline)
{
  gint64 left = deadline - sim_now (), now;

  if (left < cal->min_wait)
    return 0;
  while (left > cal->sleep_margin)
    {
      gint64 s = left - cal->sleep_margin;
      struct timespec ts = { (time_t) (s / 1000000000), (long) (s % 1000000000) };
      nanosleep (&ts, NULL);
      left = deadline - sim_now ();
    }
  /* spin the rest, letting a rank that shares the core run meanwhile, except where a yield
   * would take us past the deadline */
  while ((now = sim_now ()) < deadline)
    if (deadline - now > cal->yield_cost)
      sched_yield ();
  return now - deadline;
}

void
sim_wait_release (SimWaitCal *cal)
{
  struct sched_param other = { 0 };
  if (cal->realtime)
    sched_setscheduler (0, SCHED_OTHER, &other);
  cal->realtime = FALSE;
  rt.on = FALSE;
}
