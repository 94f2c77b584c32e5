/* sim-replay.c — the real-time re-enactment (SILAS): every process of the simulator replays one
 * traced rank. Computation intervals are elapsed against absolute deadlines (sim-wait.c), MPI
 * calls are re-enacted with the recorded sizes as MPI_BYTE on communicators recreated from the
 * trace's definitions, and every new timestamp is measured with CLOCK_MONOTONIC (one clock for
 * all processes of a machine).
 *
 * Scheduling: a deadline is the new time of the last re-enacted MPI call's Leave plus the
 * transformed interval since it, so clock reads and short waits never add up; after an MPI call
 * the real duration of the communication decides where the rank continues. The replay's own
 * work must stay below the original's pace (a polling loop records an event every 30-50 ns): an
 * event that is no MPI call and already due costs no clock read, and nothing is allocated or
 * faulted in while the replay runs (a page fault costs microseconds, tens under a hypervisor).
 *
 * Copies: a large message (64 KiB and more) costs what copying it costs, and that depends on
 * where the program's data was (in the cache or not, its pages faulted in or not: a fresh 2 MB
 * buffer costs HPCC 10 ms of page faults here), which the replay's buffers, reused for every
 * message, do not share. So a blocking send or receive of a large message lasts at least what
 * its call took in the original after the peer was ready (SimRank.copy_cost), and any other
 * blocking call that moves large messages (a wait, a collective) at least the original's
 * fastest such call: for each MPI function and message size (by powers of two), the difference
 * between the original's fastest call and the replay's fastest so far is added (copy_floor()).
 *
 * Floors from the original (docs/decisions/2026-11-28-replay-floors.md):
 * - a blocking collective lasts at least what it took in the original after the last member it
 *   waits for entered (sim_plan_coll_costs): the replay's non-blocking form is another algorithm
 *   than the program's blocking one (LAMMPS's small MPI_Allreduce: 10 µs against 3 µs);
 * - a blocking send or receive of a small message keeps its cost after the peer was ready (and,
 *   for a send, in MPI) where that cost was more than twice the median of its kind: the original
 *   stalled there with both sides in MPI (a preempted rank, a page fault: 3.8 ms twice in a
 *   LAMMPS run of 230 ms), and the run as it was includes it. Typical calls keep the replay's
 *   own cost: a floor on all of them would add the replay's noise to the original's.
 *
 * Waiting in MPI: every operation is started with its non-blocking form (MPI_Isend for MPI_Send,
 * MPI_Iallreduce for MPI_Allreduce, …; a non-blocking collective of the program as itself, its
 * request completed by the call that completed it) and completed by settle(): it tests for 50 µs, then tests
 * every 20 µs while sleeping. Two exceptions where every rank of the run has a core, or where
 * ranks that mostly sleep outnumber the CPUs: a blocking collective whose members all entered
 * within 1 ms of each other in the original runs in its blocking form (libnbc's algorithms are
 * slower, and such a wait spins anyway), and where every rank has a core a blocking probe spins
 * as settle() does (do_coll(), probe()). MPI's own blocking calls spin the whole time; with four ranks on
 * two cores a spinning rank takes the core from the rank that has work, and under SCHED_RR a
 * long spin would also trip the kernel's real-time throttling. The protocol (eager or rendezvous,
 * the same peers, tags, sizes and communicators) is the recorded call's.
 *
 * The replay's own lateness is taken back (SIM_CATCH_UP): a wake-up after its deadline (the
 * hypervisor, another process, the calibrated margin missed) or the replay's own work makes a
 * rank enter its next MPI call late, and the computation after that call's Leave starts from
 * there: the original's computation times, its own preemptions included, plus the replay's. So a
 * rank that entered a call late computes up to half of each later stretch faster (the next
 * events' deadlines move earlier) until it is back on its schedule. Where ranks share CPUs
 * with contention, the rank's CPU goal paces it and nothing is taken back. */
#include "sim-private.h"

#include <glib/gi18n.h>
#include <mpi.h>
#include <otf2/otf2.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct
{
  MPI_Comm  *comms;       /* per dense comm index; MPI_COMM_NULL if this rank is not a member */
  guint      n_comms;
  int       *comm_rank;   /* my rank in each comm */
  int       *comm_size;
  /* v-collectives: per comm, per instance, per member: bytes sent, bytes received */
  guint64  **vtable;
  guint     *vcount;
  guint32   *vinst;       /* per action: instance number on its comm (v-collectives only) */
  MPI_Request *reqs;
  guint8    *persistent;  /* per slot: the request is persistent (free it after completion) */
  guint8    *sbuf;
  guint8    *rbuf;
  gsize      sbuf_len;
  gsize      rbuf_len;
  guint64   *slot_bytes;  /* per request slot: bytes of the operation it holds */
  guint64   *call_bytes;  /* per call: bytes it moves or completes */
  gint64    *call_cost;   /* per call: its copy cost in the original (SimRank.copy_cost), 0 unknown */
  GHashTable *fastest;    /* (region, size class) -> gint64[2]: original's, replay's fastest call */
  int       *counts;      /* scratch: 4 × the largest communicator */
} Replay;

static gboolean
is_v_op (guint op)
{
  return op == OTF2_COLLECTIVE_OP_GATHERV || op == OTF2_COLLECTIVE_OP_SCATTERV
         || op == OTF2_COLLECTIVE_OP_ALLGATHERV || op == OTF2_COLLECTIVE_OP_ALLTOALLV
         || op == OTF2_COLLECTIVE_OP_ALLTOALLW || op == OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
}

static gboolean
mpi_fail (int          rc,
          const char  *what,
          int          rank,
          GError     **error)
{
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;

  if (rc == MPI_SUCCESS)
    return TRUE;
  MPI_Error_string (rc, msg, &len);
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("rank %d: re-enacting %s failed: %s"), rank, what, msg);
  return FALSE;
}

#define SPIN_NS        50000    /* every wait spins this long first */
#define SPIN_CORE_NS   2000000  /* ... and this long where every rank has a core */
#define SPIN_BEFORE_NS 300000   /* and from this long before the call's expected end ... */
#define SPIN_AFTER_NS  2000000  /* ... to this long after it */
#define NAP_NS         20000
/* where every rank has a core, a long wait naps once per this much spinning, not all the time:
 * a nap stalls a pipelined transfer (16 MiB messages took 17 % longer than the original's, on a
 * machine whose 20 µs naps last 60-90 µs), and one in a while is enough for the launcher and the
 * kernel's real-time throttling */
#define SPIN_SLICE_NS  500000
#define SLEEP_MIN_NS   50000    /* shorter sleep shares of a computation interval are noise */
#define POLL_SPIN_MIN_NS 5000   /* the rest of a polling call this long or longer polls (progress_until) */
#define POLL_COST_NS   1000     /* ... until this much is left: about what one MPI_Iprobe costs here */

/* contention mode (SimReplayMode): waits spin, as MPI's own blocking calls do (MPI yields the
 * core when idle with mpi_yield_when_idle, as in the original), instead of sleeping */
static gboolean spin_waits;
/* every rank of this host has a CPU of its own: spins need not yield (a yield is a system call,
 * microseconds under a hypervisor, and a message that arrives meanwhile waits for it) */
static gboolean core_each;
/* every process has core_each or shared_sleep (no contention re-enactment anywhere): do_coll()
 * may use the blocking forms */
static gboolean colls_blocking;
/* this host's ranks outnumber its CPUs and mostly sleep (not the contention re-enactment) */
static gboolean shared_sleep;
/* CLOCK_MONOTONIC (this process's) when the MPI call being re-enacted is expected to end: its
 * recorded (transformed) duration after its Enter */
static gint64 call_expected_end;

/* The watchdog: a trace whose communication cannot complete as recorded (an inconsistency the
 * checks before the replay did not catch) would make a rank wait forever, at real-time priority.
 * A thread per rank checks every 250 ms how long the rank has been waiting in settle(); beyond
 * what the whole re-enactment can take it says where the rank waits and ends the process, and
 * the launcher ends the others (no simulation is written). The limit is twice the sum over the
 * ranks of their transformed schedules plus a minute: in a run that can complete, some rank is
 * always computing or moving data, so no wait lasts longer than all the ranks' work together. */
static gint64   wd_since;       /* sim_now() when the current wait began, 0: not waiting */
static guint    wd_event;       /* the event being re-enacted */
static gint64   wd_limit;       /* ns */
static gboolean wd_stop;
static GMutex   wd_lock;
static GCond    wd_cond;

static gpointer
watchdog (gpointer data)
{
  SimRank *sr = data;
  struct sched_param other = { 0 };

  /* not the ranks' real-time class: its wake-ups must not take a core from a rank (in a stuck
   * run the ranks nap, and it gets one) */
  pthread_setschedparam (pthread_self (), SCHED_OTHER, &other);
  g_mutex_lock (&wd_lock);
  while (!wd_stop)
    {
      gint64 since = __atomic_load_n (&wd_since, __ATOMIC_RELAXED);
      if (since != 0 && sim_now () - since > wd_limit)
        {
          guint k = __atomic_load_n (&wd_event, __ATOMIC_RELAXED);
          TraceRegion *r = k < sr->ev->len ? trace_defs_region (sr->defs, g_array_index (sr->ev, SimEvent, k).region)
                                           : NULL;
          const char *name = r ? r->name : NULL;
          fprintf (stderr, _("kubus-sim: rank %d has waited %.1f s in %s (event %u of its trace), longer than the "
                             "whole re-enactment can take (%.1f s): the trace's communication cannot complete as "
                             "recorded. Stopping; no simulation written.\n"),
                   sr->rank, (sim_now () - since) / 1e9, name ? name : "MPI", k, wd_limit / 1e9);
          fflush (stderr);
          _exit (1);
        }
      g_cond_wait_until (&wd_cond, &wd_lock, g_get_monotonic_time () + 250 * G_TIME_SPAN_MILLISECOND);
    }
  g_mutex_unlock (&wd_lock);
  return NULL;
}

/* Starts the watchdog once every rank knows its schedule (collective: every rank calls it). */
static GThread *
watchdog_start (SimRank *sr)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  gint64 first = G_MAXINT64, last = G_MININT64, span, sum = 0;
  const char *forced = g_getenv ("KUBUS_SIM_WATCHDOG_S");   /* tests: a shorter limit */

  for (guint k = 0; k < sr->ev->len; k++)
    if (!(ev[k].flags & EVF_REMOVED))
      {
        first = MIN (first, ev[k].time);
        last = MAX (last, ev[k].time);
      }
  span = first <= last ? last - first : 0;
  MPI_Allreduce (&span, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  wd_limit = forced && *forced ? (gint64) (g_ascii_strtod (forced, NULL) * 1e9) : 2 * sum + 60 * (gint64) 1000000000;
  wd_since = 0;
  wd_stop = FALSE;
  return g_thread_new ("kubus-sim-watchdog", watchdog, sr);
}

static void
watchdog_stop (GThread *t)
{
  g_mutex_lock (&wd_lock);
  wd_stop = TRUE;
  g_cond_signal (&wd_cond);
  g_mutex_unlock (&wd_lock);
  g_thread_join (t);
}

static void
nap (void)
{
  struct timespec ts = { 0, NAP_NS };
  nanosleep (&ts, NULL);
}

/* One step of a wait that began at @t0 and found nothing yet: where every rank has a core of its
 * own, a short wait spins throughout (a nap costs far more than asked under a hypervisor, and a
 * pipelined transfer stalls while one side naps); a long one still naps in its middle (at
 * @last_nap, once per SPIN_SLICE_NS): a real-time process spinning for long starves the launcher
 * and everything else on the machine. Elsewhere it yields while the wait is young or near the
 * call's expected end, and naps otherwise. */
static void
idle (gint64  t0,
      gint64 *last_nap)
{
  gint64 now = sim_now ();

  sim_rt_budget (now);
  if (now - t0 < (core_each ? SPIN_CORE_NS : SPIN_NS)
      || (now > call_expected_end - SPIN_BEFORE_NS && now < call_expected_end + SPIN_AFTER_NS))
    {
      if (!core_each)
        sched_yield ();
    }
  else if (!core_each || now - *last_nap >= SPIN_SLICE_NS)
    {
      nap ();
      *last_nap = sim_now ();
    }
}

/* Completes @n requests. MPI's own blocking calls spin; so does this one where it matters:
 * briefly at first (most operations complete at once) and around the call's expected end, where
 * a protocol's last steps (a rendezvous handshake, a collective's rounds) need both sides to
 * make progress quickly — where every rank has a core, for the first 2 ms (a 20 µs nap costs
 * 50-80 µs under a hypervisor, and a pipelined transfer stalls while one side naps: HPCC's
 * 400 µs MPI_Waitall took 54 µs longer). Elsewhere it tests while sleeping: a rank
 * that waits long (a late sender) leaves the core to the rank that has work, and under SCHED_RR
 * never runs long enough to trip the kernel's real-time throttling. */
static int
settle (MPI_Request *r,
        int          n)
{
  gint64 t0 = sim_now (), last_nap = t0;
  int rc;
  __atomic_store_n (&wd_since, t0, __ATOMIC_RELAXED);
  /* with contention: MPI's own blocking wait, as the original's blocking calls (it spins and, with
   * mpi_yield_when_idle, yields the core when idle) */
  if (spin_waits)
    {
      rc = MPI_Waitall (n, r, MPI_STATUSES_IGNORE);
      __atomic_store_n (&wd_since, 0, __ATOMIC_RELAXED);
      return rc;
    }
  for (;;)
    {
      int flag = 0;
      rc = MPI_Testall (n, r, &flag, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS || flag)
        {
          __atomic_store_n (&wd_since, 0, __ATOMIC_RELAXED);
          return rc;
        }
      idle (t0, &last_nap);
    }
}

/* Waits, as settle() does, for the message @peer sends with @tag on @c (a blocking MPI_Probe or
 * MPI_Mprobe: the original returned as soon as it arrived; napping through the wait made each
 * come back one nap late, 50-90 µs under a hypervisor) */
static int
probe (int      peer,
       int      tag,
       MPI_Comm c)
{
  gint64 t0 = sim_now (), last_nap = t0;
  int rc, flag = 0;

  __atomic_store_n (&wd_since, t0, __ATOMIC_RELAXED);
  if (spin_waits)
    rc = MPI_Probe (peer, tag, c, MPI_STATUS_IGNORE);
  else
    while ((rc = MPI_Iprobe (peer, tag, c, &flag, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !flag)
      idle (t0, &last_nap);
  __atomic_store_n (&wd_since, 0, __ATOMIC_RELAXED);
  return rc;
}

/* The rest of a polling call that found nothing, until @deadline (the local clock): where it
 * lasted long in the original (HPCC's RandomAccess: a 1.6 ms MPI_Testany) the rank was in MPI
 * all along and moved its peers' rendezvous data meanwhile (an 8 KiB send needs both sides'
 * progress); a replay that waited without MPI held its peer's receive up as long, 38 ms over
 * 268 receives of one run. So it polls until then, as settle() waits: spinning where every
 * rank has a core (a nap per SPIN_SLICE_NS), otherwise as any other wait. */
static gint64
progress_until (const SimWaitCal *cal,
                gint64            deadline)
{
  gint64 now = sim_now (), last_nap = now;

  if (!core_each || deadline - now < POLL_SPIN_MIN_NS)
    return sim_wait_until (cal, deadline);
  while (deadline - now > POLL_COST_NS)
    {
      int flag = 0;
      MPI_Iprobe (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      now = sim_now ();
      sim_rt_budget (now);
      if (now - last_nap >= SPIN_SLICE_NS && deadline - now > SPIN_SLICE_NS)
        {
          nap ();
          last_nap = now = sim_now ();
        }
    }
  return sim_wait_until (cal, deadline);
}

static int
settle1 (MPI_Request *r)
{
  return settle (r, 1);
}

/* Recreates every communicator of the trace, in definition order on every process. */
static void
make_comms (Replay    *rp,
            SimRank   *sr)
{
  TraceDefs *defs = sr->defs;
  int me = sr->rank;

  rp->n_comms = defs->comms->len;
  rp->comms = g_new (MPI_Comm, MAX (rp->n_comms, 1));
  rp->comm_rank = g_new0 (int, MAX (rp->n_comms, 1));
  rp->comm_size = g_new0 (int, MAX (rp->n_comms, 1));
  for (guint i = 0; i < rp->n_comms; i++)
    {
      TraceComm *c = defs->comms->pdata[i];
      int pos = -1, pos_b = -1;
      gboolean complete = c->size > 0 && c->world;

      rp->comms[c->index] = MPI_COMM_NULL;
      for (int k = 0; complete && k < c->size; k++)
        {
          if (c->world[k] == me)
            pos = k;
          if (c->world[k] < 0 && !(c->size == 1))
            complete = FALSE;
        }
      if (c->size == 1 && c->world && c->world[0] == -1)
        {
          rp->comms[c->index] = MPI_COMM_SELF;
          rp->comm_size[c->index] = 1;
          continue;
        }
      if (c->is_inter)
        {
          MPI_Comm local = MPI_COMM_NULL;
          for (int k = 0; complete && k < c->size_b; k++)
            {
              if (c->world_b[k] == me)
                pos_b = k;
              if (c->world_b[k] < 0)
                complete = FALSE;
            }
          if (!complete || c->size_b == 0)
            continue;
          MPI_Comm_split (MPI_COMM_WORLD, pos >= 0 ? 1 : pos_b >= 0 ? 2 : MPI_UNDEFINED,
                          pos >= 0 ? pos : pos_b, &local);
          if (local != MPI_COMM_NULL)
            {
              int remote_leader = pos >= 0 ? c->world_b[0] : c->world[0];
              MPI_Intercomm_create (local, 0, MPI_COMM_WORLD, remote_leader, 4000 + (int) (i % 20000),
                                    &rp->comms[c->index]);
              MPI_Comm_free (&local);
              MPI_Comm_rank (rp->comms[c->index], &rp->comm_rank[c->index]);
              MPI_Comm_remote_size (rp->comms[c->index], &rp->comm_size[c->index]);
            }
          continue;
        }
      if (!complete)
        continue;
      MPI_Comm_split (MPI_COMM_WORLD, pos >= 0 ? 0 : MPI_UNDEFINED, pos, &rp->comms[c->index]);
      if (rp->comms[c->index] != MPI_COMM_NULL)
        {
          MPI_Comm_rank (rp->comms[c->index], &rp->comm_rank[c->index]);
          MPI_Comm_size (rp->comms[c->index], &rp->comm_size[c->index]);
        }
    }
}

/* Per communicator, the members exchange the byte counts of their v-collectives once, so every
 * member can give MPI the per-peer counts the trace only has as totals. */
static gboolean
exchange_v_counts (Replay    *rp,
                   SimRank   *sr,
                   SimPlan   *plan,
                   GError   **error)
{
  guint n = rp->n_comms;
  g_autofree int *has = g_new0 (int, MAX (n, 1));
  g_autofree int *any = g_new0 (int, MAX (n, 1));
  g_autofree GArray **mine = g_new0 (GArray *, MAX (n, 1));
  int bad = 0, all_bad = 0;

  rp->vtable = g_new0 (guint64 *, MAX (n, 1));
  rp->vcount = g_new0 (guint, MAX (n, 1));
  rp->vinst = g_new0 (guint32, MAX (plan->actions->len, 1));
  for (guint a = 0; a < plan->actions->len; a++)
    {
      SimAction *act = &g_array_index (plan->actions, SimAction, a);
      if ((act->kind != ACT_COLL && act->kind != ACT_ICOLL) || !is_v_op (act->op))
        continue;
      if (!mine[act->comm])
        mine[act->comm] = g_array_new (FALSE, FALSE, sizeof (guint64));
      rp->vinst[a] = mine[act->comm]->len / 2;
      g_array_append_val (mine[act->comm], act->bytes);
      g_array_append_val (mine[act->comm], act->bytes2);
      has[act->comm] = 1;
    }
  MPI_Allreduce (has, any, (int) MAX (n, 1), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (guint c = 0; c < n; c++)
    {
      int k, kmin = 0, kmax = 0, size;
      if (!any[c] || rp->comms[c] == MPI_COMM_NULL || rp->comms[c] == MPI_COMM_SELF)
        continue;
      k = mine[c] ? (int) (mine[c]->len / 2) : 0;
      MPI_Allreduce (&k, &kmin, 1, MPI_INT, MPI_MIN, rp->comms[c]);
      MPI_Allreduce (&k, &kmax, 1, MPI_INT, MPI_MAX, rp->comms[c]);
      if (kmin != kmax)
        {
          if (!bad)
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                         _("the members of communicator %s recorded different numbers of v-collectives "
                           "(%d to %d): the trace is inconsistent"),
                         ((TraceComm *) sr->defs->comms->pdata[c])->name, kmin, kmax);
          bad = 1;
          continue;
        }
      size = rp->comm_size[c];
      rp->vcount[c] = k;
      rp->vtable[c] = g_new0 (guint64, (gsize) MAX (k, 1) * size * 2);
      if (k > 0)
        {
          /* instance-major: [instance][member][sent, received] */
          g_autofree guint64 *gathered = g_new (guint64, (gsize) k * size * 2);
          MPI_Allgather (mine[c]->data, 2 * k, MPI_UINT64_T, gathered, 2 * k, MPI_UINT64_T, rp->comms[c]);
          for (int m = 0; m < size; m++)
            for (int i = 0; i < k; i++)
              {
                rp->vtable[c][((gsize) i * size + m) * 2] = gathered[((gsize) m * k + i) * 2];
                rp->vtable[c][((gsize) i * size + m) * 2 + 1] = gathered[((gsize) m * k + i) * 2 + 1];
              }
        }
    }
  for (guint c = 0; c < n; c++)
    if (mine[c])
      g_array_unref (mine[c]);
  MPI_Allreduce (&bad, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (all_bad && !bad)
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("another rank found an inconsistent trace"));
  return !all_bad;
}

static void
grow (guint8 **buf,
      gsize   *len,
      gsize    need)
{
  if (need <= *len)
    return;
  g_free (*buf);
  /* written, not only allocated zeroed: every page is faulted in now, not during the replay */
  *buf = g_malloc (need);
  memset (*buf, 0, need);
  *len = need;
}

/* Starts the collective of @a (ACT_COLL, ACT_ICOLL) in its non-blocking form: @req stays
 * MPI_REQUEST_NULL when there is nothing to do; or, with @blocking, runs its blocking form. */
#define COLL(blocking_form, nonblocking_form, ...) \
  (blocking ? blocking_form (__VA_ARGS__) : nonblocking_form (__VA_ARGS__, &req))
static int
run_coll (Replay      *rp,
          guint32      a_index,
          SimAction   *a,
          gboolean     blocking,
          MPI_Request *reqp)
{
  MPI_Comm c = rp->comms[a->comm];
  int size = rp->comm_size[a->comm], me = rp->comm_rank[a->comm];
  int root = a->peer < 0 ? 0 : a->peer;
  int rc = MPI_SUCCESS;
  int *sc = rp->counts, *sd = rp->counts + size, *rcn = rp->counts + 2 * size, *rd = rp->counts + 3 * size;
  guint64 *vt = NULL;
  int count;
  MPI_Request req = MPI_REQUEST_NULL;

  *reqp = MPI_REQUEST_NULL;
  if (c == MPI_COMM_NULL)
    return MPI_SUCCESS;
  if (is_v_op (a->op))
    {
      if (rp->vinst[a_index] >= rp->vcount[a->comm])
        return MPI_SUCCESS;
      vt = rp->vtable[a->comm] + (gsize) rp->vinst[a_index] * size * 2;
    }
  switch (a->op)
    {
    case OTF2_COLLECTIVE_OP_BARRIER:
      rc = COLL (MPI_Barrier, MPI_Ibarrier, c);
      break;
    case OTF2_COLLECTIVE_OP_BCAST:
      rc = COLL (MPI_Bcast, MPI_Ibcast, me == root ? rp->sbuf : rp->rbuf, (int) a->bytes2, MPI_BYTE, root, c);
      break;
    case OTF2_COLLECTIVE_OP_REDUCE:
      rc = COLL (MPI_Reduce, MPI_Ireduce, rp->sbuf, rp->rbuf, (int) a->bytes, MPI_BYTE, MPI_BOR, root, c);
      break;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
      rc = COLL (MPI_Allreduce, MPI_Iallreduce, rp->sbuf, rp->rbuf, (int) (a->bytes / size), MPI_BYTE, MPI_BOR, c);
      break;
    case OTF2_COLLECTIVE_OP_GATHER:
      rc = COLL (MPI_Gather, MPI_Igather, rp->sbuf, (int) a->bytes, MPI_BYTE, rp->rbuf, (int) a->bytes, MPI_BYTE, root, c);
      break;
    case OTF2_COLLECTIVE_OP_SCATTER:
      rc = COLL (MPI_Scatter, MPI_Iscatter, rp->sbuf, (int) a->bytes2, MPI_BYTE, rp->rbuf, (int) a->bytes2, MPI_BYTE, root, c);
      break;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
      count = (int) (a->bytes2 / size);
      rc = COLL (MPI_Allgather, MPI_Iallgather, rp->sbuf, count, MPI_BYTE, rp->rbuf, count, MPI_BYTE, c);
      break;
    case OTF2_COLLECTIVE_OP_ALLTOALL:
      count = (int) (a->bytes2 / size);
      rc = COLL (MPI_Alltoall, MPI_Ialltoall, rp->sbuf, count, MPI_BYTE, rp->rbuf, count, MPI_BYTE, c);
      break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      rc = COLL (MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, rp->sbuf, rp->rbuf, (int) (a->bytes2 / size), MPI_BYTE, MPI_BOR, c);
      break;
    case OTF2_COLLECTIVE_OP_SCAN:
      rc = COLL (MPI_Scan, MPI_Iscan, rp->sbuf, rp->rbuf, (int) (a->bytes2 / (me + 1)), MPI_BYTE, MPI_BOR, c);
      break;
    case OTF2_COLLECTIVE_OP_EXSCAN:
      rc = COLL (MPI_Exscan, MPI_Iexscan, rp->sbuf, rp->rbuf, size > 1 ? (int) ((a->bytes + a->bytes2) / (size - 1)) : 0,
                        MPI_BYTE, MPI_BOR, c);
      break;
    case OTF2_COLLECTIVE_OP_GATHERV:
      {
        gsize total = 0;
        for (int m = 0; m < size; m++)
          {
            rcn[m] = (int) vt[2 * m];
            rd[m] = (int) total;
            total += vt[2 * m];
          }
        rc = COLL (MPI_Gatherv, MPI_Igatherv, rp->sbuf, (int) a->bytes, MPI_BYTE, rp->rbuf, rcn, rd, MPI_BYTE, root, c);
      }
      break;
    case OTF2_COLLECTIVE_OP_SCATTERV:
      {
        gsize total = 0;
        for (int m = 0; m < size; m++)
          {
            sc[m] = (int) vt[2 * m + 1];
            sd[m] = (int) total;
            total += vt[2 * m + 1];
          }
        rc = COLL (MPI_Scatterv, MPI_Iscatterv, rp->sbuf, sc, sd, MPI_BYTE, rp->rbuf, (int) a->bytes2, MPI_BYTE, root, c);
      }
      break;
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
      {
        gsize total = 0;
        for (int m = 0; m < size; m++)
          {
            rcn[m] = (int) (vt[2 * m] / size);
            rd[m] = (int) total;
            total += rcn[m];
          }
        rc = COLL (MPI_Allgatherv, MPI_Iallgatherv, rp->sbuf, rcn[me], MPI_BYTE, rp->rbuf, rcn, rd, MPI_BYTE, c);
      }
      break;
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
      {
        /* the trace has totals only: spread each rank's bytes evenly over its peers */
        gsize stot = 0, rtot = 0;
        for (int m = 0; m < size; m++)
          {
            sc[m] = (int) (vt[2 * me] / size) + (m == me ? (int) (vt[2 * me] % size) : 0);
            rcn[m] = (int) (vt[2 * m] / size) + (m == me ? (int) (vt[2 * me] % size) : 0);
            sd[m] = (int) stot;
            rd[m] = (int) rtot;
            stot += sc[m];
            rtot += rcn[m];
          }
        rc = COLL (MPI_Alltoallv, MPI_Ialltoallv, rp->sbuf, sc, sd, MPI_BYTE, rp->rbuf, rcn, rd, MPI_BYTE, c);
      }
      break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
      for (int m = 0; m < size; m++)
        rcn[m] = (int) (vt[2 * m + 1] / size);
      rc = COLL (MPI_Reduce_scatter, MPI_Ireduce_scatter, rp->sbuf, rp->rbuf, rcn, MPI_BYTE, MPI_BOR, c);
      break;
    default:
      /* communicator creation and other synchronising operations some writers record */
      rc = COLL (MPI_Barrier, MPI_Ibarrier, c);
      break;
    }
  *reqp = req;
  return rc;
}
#undef COLL

static gboolean
do_coll (Replay    *rp,
         SimRank   *sr,
         guint32    a_index,
         SimAction *a,
         GError   **error)
{
  MPI_Request req;
  int rc;
  /* where every rank of the run has a core, or ranks that mostly sleep share the CPUs
   * (shared_sleep), and the members entered this instance within 1 ms of each other in the
   * original, the program's own blocking form: settle() would spin through
   * such a wait anyway, and the non-blocking form is another, slower algorithm (libnbc: 2-4 µs
   * more per small collective at 2 ranks, +2-3 % on a program of Gatherv, Scatterv, Scan and
   * Reduce_scatter_block). Longer waits keep the non-blocking form and settle()'s naps. A
   * blocking collective matches only blocking ones: every member decides alike (the instance
   * from the reduced Enters, colls_blocking from all processes). */
  if (colls_blocking && sr->coll_short && g_hash_table_contains (sr->coll_short, GUINT_TO_POINTER (a->ev + 1)))
    {
      __atomic_store_n (&wd_since, sim_now (), __ATOMIC_RELAXED);
      rc = run_coll (rp, a_index, a, TRUE, &req);
      __atomic_store_n (&wd_since, 0, __ATOMIC_RELAXED);
    }
  else
    {
      rc = run_coll (rp, a_index, a, FALSE, &req);
      if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL)
        rc = settle1 (&req);
    }
  return mpi_fail (rc, _("a collective operation"), sr->rank, error);
}

/* The largest buffers any action needs (v-collectives depend on the other members' totals). */
static void
size_buffers (Replay  *rp,
              SimPlan *plan)
{
  gsize s = MAX (plan->max_send, 1), r = MAX (plan->max_recv, 1);
  for (guint a = 0; a < plan->actions->len; a++)
    {
      SimAction *act = &g_array_index (plan->actions, SimAction, a);
      if ((act->kind == ACT_COLL || act->kind == ACT_ICOLL) && is_v_op (act->op) && rp->vtable[act->comm]
          && rp->vinst[a] < rp->vcount[act->comm])
        {
          int size = rp->comm_size[act->comm];
          guint64 *vt = rp->vtable[act->comm] + (gsize) rp->vinst[a] * size * 2;
          gsize tot = 0;
          for (int m = 0; m < size; m++)
            tot += vt[2 * m] + vt[2 * m + 1];
          s = MAX (s, tot);
          r = MAX (r, tot);
        }
    }
  grow (&rp->sbuf, &rp->sbuf_len, s);
  grow (&rp->rbuf, &rp->rbuf_len, r);
}

static guint
size_class (guint64 bytes)
{
  return bytes < SIM_LARGE_MSG ? 0 : (guint) g_bit_storage (bytes);
}

/* The bytes each call moves (sends, receives, a collective's both) or completes (a wait: the
 * operations of its requests), and for the blocking calls that move large messages the
 * original's fastest call of each MPI function and size class. */
typedef struct
{
  guint  call;
  guint  key;    /* region, kind and size class (by powers of two) */
  gint64 cost;
} P2pCost;

static void
size_calls (Replay   *rp,
            SimRank  *sr,
            SimPlan  *plan)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  guint32 *ws = (guint32 *) plan->wait_slots->data;
  g_autoptr (GArray) small = g_array_new (FALSE, FALSE, sizeof (P2pCost));
  g_autoptr (GHashTable) small_costs = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                              (GDestroyNotify) g_array_unref);

  rp->slot_bytes = g_new0 (guint64, MAX (plan->n_slots, 1));
  rp->call_bytes = g_new0 (guint64, MAX (plan->calls->len, 1));
  rp->call_cost = g_new0 (gint64, MAX (plan->calls->len, 1));
  rp->fastest = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  for (guint c = 0; c < plan->calls->len; c++)
    {
      SimCall *call = &g_array_index (plan->calls, SimCall, c);
      SimAction *acts = &g_array_index (plan->actions, SimAction, call->first);
      guint64 b = 0;
      gboolean blocking = FALSE, own_cost = FALSE;
      for (guint i = 0; i < call->n; i++)
        {
          SimAction *a = &acts[i];
          switch (a->kind)
            {
            case ACT_ISEND:
            case ACT_IRECV:
              rp->slot_bytes[a->slot] = a->bytes;
              break;
            case ACT_ICOLL:
              rp->slot_bytes[a->slot] = a->bytes + a->bytes2;
              break;
            case ACT_WAIT:
              for (guint k = 0; k < a->n; k++)
                b += rp->slot_bytes[ws[a->slot + k]];
              blocking = TRUE;
              break;
            case ACT_SEND:
            case ACT_RECV:
            case ACT_SENDRECV:
              b += a->bytes;
              blocking = TRUE;
              if (sr->copy_cost)
                {
                  /* a Sendrecv's receive is the next action, ACT_RECV too */
                  const gint64 *cost = g_hash_table_lookup (sr->copy_cost, GUINT_TO_POINTER (a->ev + 1));
                  if (cost && a->bytes >= SIM_LARGE_MSG)
                    {
                      rp->call_cost[c] = MAX (rp->call_cost[c], *cost);
                      own_cost = TRUE;
                    }
                  else if (cost)
                    {
                      /* a small message: only where the original stalled (below) */
                      P2pCost pc = { c, (call->region << 10) | ((guint) a->kind << 7) | g_bit_storage (a->bytes), *cost };
                      GArray *all;
                      g_array_append_val (small, pc);
                      if (!(all = g_hash_table_lookup (small_costs, GUINT_TO_POINTER (pc.key))))
                        {
                          all = g_array_new (FALSE, FALSE, sizeof (gint64));
                          g_hash_table_insert (small_costs, GUINT_TO_POINTER (pc.key), all);
                        }
                      g_array_append_val (all, pc.cost);
                    }
                }
              break;
            case ACT_COLL:
              b += a->bytes + a->bytes2;
              blocking = TRUE;
              if (sr->copy_cost)
                {
                  const gint64 *cost = g_hash_table_lookup (sr->copy_cost, GUINT_TO_POINTER (a->ev + 1));
                  if (cost)
                    rp->call_cost[c] = MAX (rp->call_cost[c], *cost);
                }
              break;
            default:
              break;
            }
        }
      rp->call_bytes[c] = b;
      /* not a blocking send or receive whose own copy cost is known: its original's fastest
       * call may have waited for the peer throughout (sim-eager: every rendezvous MPI_Send of
       * 64-128 KiB waited 3 ms for the receive), and where the replay's receiver came early
       * once (taking back its lateness, SIM_CATCH_UP), every later send of that size paid the
       * difference: +1.5 ms each, +8 .. +12 % (docs/decisions/2026-12-02-replay-catch-up.md) */
      if (blocking && size_class (b) && !own_cost)
        {
          gpointer key = GUINT_TO_POINTER ((call->region << 6) | size_class (b));
          gint64 *f = g_hash_table_lookup (rp->fastest, key);
          gint64 d = (gint64) (ev[call->leave].time - ev[call->enter].time);
          if (!f)
            {
              f = g_new (gint64, 2);
              f[0] = d;
              f[1] = G_MAXINT64;
              g_hash_table_insert (rp->fastest, key, f);
            }
          f[0] = MIN (f[0], d);
        }
    }
  /* Small messages: the replay's MPI costs what the original's did, except where the original
   * stalled with both sides in MPI (the machine, not the program: a preempted rank, a page fault)
   * — a call of more than twice its kind's median cost keeps that cost as its floor. A floor on
   * every call would add the replay's own noise on top of the original's (max of the two). */
  {
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init (&it, small_costs);
    while (g_hash_table_iter_next (&it, &key, &value))
      {
        GArray *all = value;
        g_array_sort (all, sim_cmp_i64);
        /* the median replaces the costs */
        g_array_index (all, gint64, 0) = g_array_index (all, gint64, all->len / 2);
      }
    for (guint k = 0; k < small->len; k++)
      {
        P2pCost *pc = &g_array_index (small, P2pCost, k);
        GArray *all = g_hash_table_lookup (small_costs, GUINT_TO_POINTER (pc->key));
        if (pc->cost > 2 * g_array_index (all, gint64, 0))
          rp->call_cost[pc->call] = MAX (rp->call_cost[pc->call], pc->cost);
      }
  }
}

/* After blocking call @c took @took ns in the replay: how much longer it should take (the
 * original's fastest such call against the replay's fastest so far, see the top). */
static gint64
copy_floor (Replay  *rp,
            SimCall *call,
            guint    c,
            gint64   took)
{
  gint64 *f;
  guint cls = size_class (rp->call_bytes[c]);
  if (!cls || !(f = g_hash_table_lookup (rp->fastest, GUINT_TO_POINTER ((call->region << 6) | cls))))
    return 0;
  f[1] = MIN (f[1], took);
  return MAX (0, f[0] - f[1]);
}

static gboolean
run_actions (Replay    *rp,
             SimRank   *sr,
             SimPlan   *plan,
             SimCall   *call,
             const SimWaitCal *cal,
             GError   **error)
{
  SimAction *acts = &g_array_index (plan->actions, SimAction, call->first);
  guint32 *ws = (guint32 *) plan->wait_slots->data;
  int rc = MPI_SUCCESS;

  for (guint i = 0; i < call->n; i++)
    {
      SimAction *a = &acts[i];
      MPI_Comm c = a->kind == ACT_ELAPSE || a->kind == ACT_SYNC || a->kind == ACT_WAIT || a->kind == ACT_FREE
                   ? MPI_COMM_WORLD : rp->comms[a->comm];
      const char *what = NULL;

      if (c == MPI_COMM_NULL)
        continue;
      switch (a->kind)
        {
        case ACT_SEND:
          what = "MPI_Send";
          {
            MPI_Request r;
            if ((a->mode & SEND_MODE_MASK) == SEND_SYNC)
              rc = MPI_Issend (rp->sbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &r);
            else
              rc = MPI_Isend (rp->sbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &r);
            if (rc == MPI_SUCCESS)
              rc = (a->mode & SEND_MODE_MASK) == SEND_BUFFERED ? MPI_Request_free (&r) : settle1 (&r);
          }
          break;
        case ACT_SENDRECV:
          what = "MPI_Sendrecv";
          if (i + 1 < call->n)
            {
              SimAction *b = &acts[i + 1];
              MPI_Request r[2];
              /* the receive first, as MPI_Sendrecv posts it */
              rc = MPI_Irecv (rp->rbuf, (int) b->bytes, MPI_BYTE, b->peer, b->tag, rp->comms[b->comm], &r[1]);
              if (rc == MPI_SUCCESS)
                rc = MPI_Isend (rp->sbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &r[0]);
              if (rc == MPI_SUCCESS)
                rc = settle (r, 2);
              i++;
            }
          break;
        case ACT_RECV:
          what = "MPI_Recv";
          {
            MPI_Request r;
            rc = MPI_Irecv (rp->rbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &r);
            if (rc == MPI_SUCCESS)
              rc = settle1 (&r);
          }
          break;
        case ACT_ISEND:
          what = "MPI_Isend";
          rp->persistent[a->slot] = (a->mode & REQ_PERSISTENT) != 0;
          if (a->mode & REQ_PERSISTENT)
            {
              /* started persistent requests take MPI's persistent path (it may differ) */
              rc = MPI_Send_init (rp->sbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &rp->reqs[a->slot]);
              if (rc == MPI_SUCCESS)
                rc = MPI_Start (&rp->reqs[a->slot]);
            }
          else if ((a->mode & SEND_MODE_MASK) == SEND_SYNC)
            rc = MPI_Issend (rp->sbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &rp->reqs[a->slot]);
          else
            rc = MPI_Isend (rp->sbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &rp->reqs[a->slot]);
          break;
        case ACT_IRECV:
          what = "MPI_Irecv";
          rp->persistent[a->slot] = (a->mode & REQ_PERSISTENT) != 0;
          if (a->mode & REQ_PERSISTENT)
            {
              rc = MPI_Recv_init (rp->rbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &rp->reqs[a->slot]);
              if (rc == MPI_SUCCESS)
                rc = MPI_Start (&rp->reqs[a->slot]);
            }
          else
            rc = MPI_Irecv (rp->rbuf, (int) a->bytes, MPI_BYTE, a->peer, a->tag, c, &rp->reqs[a->slot]);
          break;
        case ACT_WAIT:
          what = "MPI_Wait";
          {
            MPI_Request local[16];
            MPI_Request *r = a->n <= 16 ? local : g_new (MPI_Request, a->n);
            for (guint k = 0; k < a->n; k++)
              r[k] = rp->reqs[ws[a->slot + k]];
            rc = settle (r, (int) a->n);
            for (guint k = 0; k < a->n; k++)
              rp->reqs[ws[a->slot + k]] = r[k];
            if (r != local)
              g_free (r);
          }
          /* completed persistent requests are inactive, not freed */
          for (guint k = 0; k < a->n && rc == MPI_SUCCESS; k++)
            if (rp->persistent[ws[a->slot + k]] && rp->reqs[ws[a->slot + k]] != MPI_REQUEST_NULL)
              rc = MPI_Request_free (&rp->reqs[ws[a->slot + k]]);
          break;
        case ACT_FREE:
          what = "MPI_Request_free";
          for (guint k = 0; k < a->n && rc == MPI_SUCCESS; k++)
            if (rp->reqs[ws[a->slot + k]] != MPI_REQUEST_NULL)
              rc = MPI_Request_free (&rp->reqs[ws[a->slot + k]]);
          break;
        case ACT_PROBE:
          what = "MPI_Probe";
          rc = probe (a->peer, a->tag, c);
          break;
        case ACT_COLL:
          if (!do_coll (rp, sr, call->first + i, a, error))
            return FALSE;
          break;
        case ACT_ICOLL:
          what = _("a non-blocking collective operation");
          rp->persistent[a->slot] = 0;
          rc = run_coll (rp, call->first + i, a, FALSE, &rp->reqs[a->slot]);
          break;
        case ACT_SYNC:
          what = "MPI_Barrier";
          {
            MPI_Request r;
            rc = MPI_Ibarrier (MPI_COMM_WORLD, &r);
            if (rc == MPI_SUCCESS)
              rc = settle1 (&r);
          }
          if (rc == MPI_SUCCESS)
            sim_wait_until (cal, sim_now () + (gint64) a->bytes);
          break;
        default:
          break;
        }
      if (what && !mpi_fail (rc, what, sr->rank, error))
        return FALSE;
    }
  return TRUE;
}

static void
replay_free (Replay *rp)
{
  for (guint i = 0; i < rp->n_comms; i++)
    if (rp->comms[i] != MPI_COMM_NULL && rp->comms[i] != MPI_COMM_SELF)
      MPI_Comm_free (&rp->comms[i]);
  for (guint i = 0; rp->vtable && i < rp->n_comms; i++)
    g_free (rp->vtable[i]);
  g_free (rp->vtable);
  g_free (rp->vcount);
  g_free (rp->vinst);
  g_free (rp->comms);
  g_free (rp->comm_rank);
  g_free (rp->comm_size);
  g_free (rp->reqs);
  g_free (rp->persistent);
  g_free (rp->sbuf);
  g_free (rp->rbuf);
  g_free (rp->slot_bytes);
  g_free (rp->call_bytes);
  g_free (rp->call_cost);
  if (rp->fastest)
    g_hash_table_destroy (rp->fastest);
  g_free (rp->counts);
}

/* TRUE when every action of @call only starts an operation (MPI_Isend, MPI_Irecv, MPI_Start,
 * MPI_Request_free): nothing in it waits for another rank. */
static gboolean
starts_only (SimPlan *plan,
             SimCall *call)
{
  SimAction *acts = &g_array_index (plan->actions, SimAction, call->first);
  for (guint i = 0; i < call->n; i++)
    if (acts[i].kind != ACT_ISEND && acts[i].kind != ACT_IRECV && acts[i].kind != ACT_FREE
        && acts[i].kind != ACT_ICOLL)
      return FALSE;
  return call->n > 0;
}

/* Collective: the CPUs the ranks of this host may use together (@all) and how many ranks run
 * on it (@ranks). FALSE if that cannot be told. */
static gboolean
host_cpus (cpu_set_t *all,
           int       *ranks)
{
  MPI_Comm host = MPI_COMM_NULL;
  cpu_set_t mine;
  unsigned char in[sizeof (cpu_set_t)], out[sizeof (cpu_set_t)];
  int me = 0;

  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  if (MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &host) != MPI_SUCCESS)
    return FALSE;
  CPU_ZERO (&mine);
  sched_getaffinity (0, sizeof mine, &mine);
  memcpy (in, &mine, sizeof in);
  MPI_Allreduce (in, out, (int) sizeof in, MPI_BYTE, MPI_BOR, host);
  MPI_Comm_size (host, ranks);
  MPI_Comm_free (&host);
  memcpy (all, out, sizeof *all);
  return TRUE;
}

/* Contention mode: the ranks of this host run on no more CPUs than the original's host had
 * (the first @cpus of the CPUs they may use together). Returns the CPUs they run on. */
static guint32
limit_cpus (const cpu_set_t *all,
            guint32          cpus)
{
  cpu_set_t use;
  int n_all = CPU_COUNT (all);
  guint32 taken = 0;

  if (cpus == 0 || n_all <= (int) cpus)
    return (guint32) n_all;
  CPU_ZERO (&use);
  for (int c = 0; c < CPU_SETSIZE && taken < cpus; c++)
    if (CPU_ISSET (c, all))
      {
        CPU_SET (c, &use);
        taken++;
      }
  return sched_setaffinity (0, sizeof use, &use) == 0 ? taken : (guint32) n_all;
}

/* Contention mode: the CPU of this host each CPU id of the original's samples maps to, or NULL
 * where the original's placement cannot be brought back (a rank without samples of its CPU, more
 * CPU ids than the CPUs here). Collective over MPI_COMM_WORLD. The scheduler placed the
 * original's ranks, and left them or moved them, as its load went: LAMMPS at 4 ranks on 2 cores
 * ran three ranks on one CPU for 40-60 % of 7 of 16 runs, and such a run is slower. A
 * re-enactment left to the scheduler places its ranks its own way; pinned, each rank runs on the
 * CPU its samples place it on, and moves when they do (docs/decisions/2026-11-30-pinned-replay.md). */
#define PIN_IDS 1024
static int *
pin_map (const gint16    *where,
         guint            n,
         const cpu_set_t *host_set,
         guint32          cpus)
{
  MPI_Comm host = MPI_COMM_NULL;
  unsigned char in[PIN_IDS / 8] = { 0 }, out[PIN_IDS / 8];
  int me = 0, ok = where != NULL, all_ok = 0, ids = 0, *map = NULL;

  for (guint k = 0; where && k < n; k++)
    {
      if (where[k] < 0 || where[k] >= PIN_IDS)
        ok = 0;
      else
        in[where[k] / 8] |= (unsigned char) (1u << (where[k] % 8));
    }
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  if (MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &host) != MPI_SUCCESS)
    ok = 0;
  else
    {
      MPI_Allreduce (in, out, (int) sizeof in, MPI_BYTE, MPI_BOR, host);
      MPI_Comm_free (&host);
    }
  for (int i = 0; ok && i < PIN_IDS; i++)
    ids += out[i / 8] >> (i % 8) & 1;
  /* the CPUs the host's ranks run on here: the first @cpus of the host's (limit_cpus) */
  if (ok && (ids == 0 || ids > (int) cpus || (int) cpus > CPU_COUNT (host_set)))
    ok = 0;
  if (ok)
    {
      int c = 0;
      map = g_new (int, PIN_IDS);
      for (int i = 0; i < PIN_IDS; i++)
        {
          map[i] = -1;
          if (out[i / 8] >> (i % 8) & 1)
            {
              while (c < CPU_SETSIZE && !CPU_ISSET (c, host_set))
                c++;
              map[i] = c++;
            }
        }
    }
  /* all ranks or none */
  MPI_Allreduce (&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok)
    g_clear_pointer (&map, g_free);
  return map;
}

/* runs this thread on the CPU @c alone */
static void
pin_to (int c)
{
  cpu_set_t one;
  CPU_ZERO (&one);
  CPU_SET (c, &one);
  sched_setaffinity (0, sizeof one, &one);
}

gboolean
sim_replay_run (SimRank             *sr,
                SimPlan             *plan,
                const SimReplayMode *mode,
                SimReplayStats      *stats,
                GError             **error)
{
  gboolean contention = mode && mode->contention;
  gboolean started = FALSE;
  gint64 cpu_goal = 0, prev_time = 0, off;
  Replay rp = { 0 };
  SimEvent *ev = (SimEvent *) sr->ev->data;
  guint n = sr->ev->len;
  gint64 first = G_MAXINT64, min_first = 0, t0 = 0;
  gint64 anchor_new, anchor_trans;
  gint64 behind = 0;   /* the replay's own lateness not yet taken back (see SIM_CATCH_UP) */
  gint64 seen = G_MININT64, last_new = G_MININT64;   /* the last clock read, the last new time */
  cpu_set_t host_set;
  int ranks_here = 1;
  gboolean host_known;
  gboolean ok;
  int max_size = 1;
  gboolean debug = g_getenv ("KUBUS_SIM_DEBUG") != NULL;
  /* tests only (sim-test.py catchup): the first MPI call of rank R at or after A ms of its trace
   * wakes L ms late, as a preempted replay does: KUBUS_TEST_REPLAY_LATE=R:A:L */
  int test_late_rank = -1;
  gint64 test_late_after = 0, test_late_ns = 0;
  g_autofree guint8 *poll_enter = NULL; /* per event: the Enter of a polling call that found nothing */
  g_autofree gint16 *where = NULL;       /* contention: per event the original's CPU */
  g_autofree int *pin = NULL;            /* ... and the CPU here it maps to (pin_map) */
  int pinned = -1;
  GThread *wd;

  MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  {
    const char *tl = g_getenv ("KUBUS_TEST_REPLAY_LATE");
    double a = 0, l = 0;
    if (tl && sscanf (tl, "%d:%lf:%lf", &test_late_rank, &a, &l) == 3)
      {
        test_late_after = (gint64) (a * 1e6);
        test_late_ns = (gint64) (l * 1e6);
      }
    else
      test_late_rank = -1;
  }
  make_comms (&rp, sr);
  for (guint i = 0; i < rp.n_comms; i++)
    {
      if (rp.comms[i] != MPI_COMM_NULL && rp.comms[i] != MPI_COMM_SELF)
        MPI_Comm_set_errhandler (rp.comms[i], MPI_ERRORS_RETURN);
      max_size = MAX (max_size, rp.comm_size[i]);
    }
  rp.counts = g_new0 (int, 4 * (gsize) max_size);
  ok = exchange_v_counts (&rp, sr, plan, error);
  if (!ok)
    {
      replay_free (&rp);
      return FALSE;
    }
  host_known = host_cpus (&host_set, &ranks_here);
  /* every buffer before the replay starts */
  size_buffers (&rp, plan);
  size_calls (&rp, sr, plan);
  rp.reqs = g_new (MPI_Request, MAX (plan->n_slots, 1));
  rp.persistent = g_new0 (guint8, MAX (plan->n_slots, 1));
  for (guint i = 0; i < MAX (plan->n_slots, 1); i++)
    rp.reqs[i] = MPI_REQUEST_NULL;
  g_free (sr->new_time);
  sr->new_time = g_new (Tick, MAX (n, 1));
  memset (sr->new_time, 0, sizeof (Tick) * MAX (n, 1));   /* faulted in now */
  /* one time base: rank 0's clock (sim-clock.c); times below are in it, waits in our own */
  off = sim_clock_offset (&stats->hosts);
  spin_waits = contention;
  stats->contention = contention;
  if (contention)
    {
      stats->cpus_used = host_known ? limit_cpus (&host_set, mode->cpus) : 0;
      /* collective: every rank asks, KUBUS_SIM_NO_PIN (for comparisons) set for all or none */
      if (!g_getenv ("KUBUS_SIM_NO_PIN"))
        {
          where = host_known ? sim_cpu_where (sr) : NULL;
          pin = pin_map (where, n, &host_set, stats->cpus_used);
          stats->pinned = pin != NULL;
        }
    }
  core_each = !contention && host_known && ranks_here <= CPU_COUNT (&host_set);
  /* ranks that outnumber their host's CPUs but mostly sleep (no contention re-enactment): the
   * original's ranks shared the CPUs under the normal scheduler, spinning with a yield in
   * MPI's blocking calls, and so does this replay. Under SCHED_RR a rank that wakes up queues
   * behind the others' spins instead of preempting them as the normal scheduler lets it, and
   * the short collectives' non-blocking form needs every member on a CPU at each of its steps:
   * sim-patterns at 4 ranks on 2 cores, whose small collectives' members arrive together, took
   * 40-90 µs longer per call (+11 .. +13 %); the blocking form and the normal scheduler
   * +2 .. +8 %, and no change beyond 0.2 % on 11 other such programs
   * (docs/decisions/2026-11-30-sleep-wakeup-waits.md) */
  shared_sleep = !contention && host_known && ranks_here > CPU_COUNT (&host_set);
  {
    int mine = core_each || shared_sleep, all = 0;
    MPI_Allreduce (&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    colls_blocking = all != 0 && !g_getenv ("KUBUS_SIM_NBC_ONLY");   /* (A/B measurements) */
  }
  /* SCHED_RR would hand the cores out by 100 ms time slices, not as the original shared them
   * (KUBUS_SIM_SHARED_RR: SCHED_RR for shared_sleep all the same, for A/B measurements) */
  sim_wait_calibrate (&stats->cal, !contention && (!shared_sleep || g_getenv ("KUBUS_SIM_SHARED_RR")));
  /* A polling call that found nothing: an Enter of no call whose Leave follows it. */
  poll_enter = g_new0 (guint8, MAX (n, 1));
  for (guint k = 0; k + 1 < n; k++)
    poll_enter[k] = ev[k].type == EV_ENTER && plan->call_at[k] == NO_INDEX && ev[k + 1].type == EV_LEAVE
                    && sim_is_poll_region (sr->defs, ev[k].region);
  wd = watchdog_start (sr);

  for (guint k = 0; k < n; k++)
    if (!(ev[k].flags & EVF_REMOVED))
      {
        first = ev[k].time;
        break;
      }
  MPI_Allreduce (&first, &min_first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  /* a common start shortly ahead; each rank begins at its recorded offset from the earliest */
  if (sr->rank == 0)
    t0 = sim_now () + off + 50000000;
  MPI_Bcast (&t0, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  anchor_new = t0 + (first == G_MAXINT64 ? 0 : first - min_first);
  anchor_trans = first == G_MAXINT64 ? 0 : first;

  for (guint k = 0; k < n && ok; k++)
    {
      SimEvent *e = &ev[k];
      gint64 target, now, late, base;

      if (e->flags & EVF_REMOVED)
        continue;
      base = target = anchor_new + (e->time - anchor_trans);
      if (!contention && behind > 0)
        target -= MIN (behind, (gint64) (SIM_CATCH_UP * (double) MAX (0, (gint64) (e->time - anchor_trans))));
      /* no MPI call, and due by the last clock read: the replay is behind (a polling loop
       * records an event every 30-50 ns, a clock read takes 20-30). It neither waits, polls
       * nor reads the clock, so its own work does not put it further behind; the event keeps
       * its time in the schedule. */
      /* (A polling call is skipped so only if its whole time is due: its MPI progress moves the
       * peers' rendezvous data, and a clock read after the last Leave's wait overshoots the next
       * Enter of a tight polling loop (40 ns apart in HPCC's RandomAccess) every time: its
       * MPI_Testany calls made no progress, and 8 KiB receives waited 1.2 ms for theirs.) */
      if (!contention && started && plan->call_at[k] == NO_INDEX && target <= seen
          && !(poll_enter[k] && anchor_new + (ev[k + 1].time - anchor_trans) > seen))
        {
          sr->new_time[k] = last_new = MAX (target, last_new);
          prev_time = e->time;
          stats->events++;
          continue;
        }
      if (pin && pin[where[k]] != pinned)
        pin_to (pinned = pin[where[k]]);
      if (contention && started)
        {
          /* compute for the CPU time the rank got, sleep for the time it slept; the time it
           * waited for a CPU comes back by itself. CPU goals add up from the last MPI call's
           * Leave, so the replay's own work (and a preempted spin) never accumulates. */
          gint64 dt = MAX (0, e->time - prev_time);
          double slept = sim_cpu_share (e, TRUE) * dt;
          cpu_goal += (gint64) (sim_cpu_share (e, FALSE) * dt);
          sim_burn_until (cpu_goal);
          /* not the few microseconds of a measured interval that CPU time and its wait for a
           * CPU leave over (rounding, the samples' own cost): a sleep wakes up and preempts a
           * rank that computes, which the original did not */
          if (slept > SLEEP_MIN_NS)
            {
              struct timespec ts = { (time_t) (slept / 1e9), (long) fmod (slept, 1e9) };
              nanosleep (&ts, NULL);
            }
          late = 0;
        }
      else if (started && k > 0 && poll_enter[k - 1])
        late = progress_until (&stats->cal, target - off);
      else
        late = sim_wait_until (&stats->cal, target - off);
      if (test_late_ns > 0 && sr->rank == test_late_rank && plan->call_at[k] != NO_INDEX
          && e->time - first >= test_late_after)
        {
          struct timespec ts = { (time_t) (test_late_ns / 1000000000), (long) (test_late_ns % 1000000000) };
          nanosleep (&ts, NULL);
          test_late_ns = 0;
        }
      if (!started)
        cpu_goal = sim_thread_cpu ();
      started = TRUE;
      prev_time = e->time;
      now = seen = sim_now () + off;
      sim_rt_budget (now - off);
      stats->late_ns += late;
      if (!contention && plan->call_at[k] != NO_INDEX)
        {
          /* at a call's Enter: how far the rank is behind its schedule since the last Leave
           * (a late wake-up, the replay's own work), less what it took back */
          stats->caught_up_ns += CLAMP (base - now, 0, base - target);
          behind = MAX (0, behind + (now - base));
        }
      if (late > stats->cal.sleep_margin)
        stats->late_events++;
      if (debug)
        fprintf (stderr, "rank %d ev %u type %d target %.6f now %.6f late %.6f\n", sr->rank, k, e->type,
                 (target - t0) / 1e9, (now - t0) / 1e9, late / 1e9);
      stats->events++;
      if (plan->call_at[k] == NO_INDEX)
        {
          sr->new_time[k] = last_new = now;
          /* a polling call that found nothing: MPI makes progress in it, as it did in the
           * original (a rendezvous handshake, a collective's next step), unless the replay is
           * behind (its Leave keeps its deadline): a replay that fell behind in a tight
           * polling loop catches up instead of falling further behind. (With contention the
           * rank's CPU goal, not a deadline, paces it: the progress call is part of it.) */
          if (poll_enter[k] && (contention || now < anchor_new + (ev[k + 1].time - anchor_trans)))
            {
              int flag = 0;
              MPI_Iprobe (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
              stats->polls++;
            }
          continue;
        }
      {
        SimCall *call = &g_array_index (plan->calls, SimCall, plan->call_at[k]);
        gint64 enter_new = now, leave_new;
        Tick te = e->time, tl = ev[call->leave].time;

        sr->new_time[k] = enter_new;
        call_expected_end = enter_new - off + (tl - te);
        __atomic_store_n (&wd_event, k, __ATOMIC_RELAXED);
        if (contention)
          cpu_goal = sim_thread_cpu ();
        ok = run_actions (&rp, sr, plan, call, &stats->cal, error);
        /* a call that only starts operations never waits for anybody: it takes the time it
         * took (MPI's and the measurement's own work; with contention, that much CPU) */
        if (ok && starts_only (plan, call))
          {
            if (contention)
              sim_burn_until (cpu_goal + (gint64) (sim_cpu_share (&ev[call->leave], FALSE) * (tl - te)));
            else
              sim_wait_until (&stats->cal, call_expected_end);
          }
        else if (ok && contention && rp.call_bytes[plan->call_at[k]] >= SIM_LARGE_MSG)
          {
            /* a large message's copy with contention: the floors below, in wall time, spinning
             * and yielding the CPU as MPI's own wait does (mpi_yield_when_idle): the original's
             * call lasted that long after its peer was ready, its waits for a CPU among the
             * ranks that shared it included. (Burnt as CPU time at the call's sampled share,
             * the floor ended early: the ranks beside it were waiting in MPI and yielded.) The
             * small messages' floors are not applied: a stall of the original (a preempted
             * rank) is what the contention brings back. Without the floors, 16 MiB messages
             * into fresh buffers at 4 ranks on 2 cores came out −46 % (one trace), with them
             * −1 .. −7 % (three traces, twice each; docs/decisions/2026-12-02-fine-grained-
             * contention.md) */
            guint c = plan->call_at[k];
            gint64 local = sim_now (), took = local - (enter_new - off);
            gint64 pad = MAX (copy_floor (&rp, call, c, took), rp.call_cost[c] - took);
            gint64 until = local + pad;
            if (rp.call_bytes[c] >= SIM_LARGE_BYTES)
              {
                stats->large_calls++;
                stats->large_replay_ns += took;
                stats->large_orig_ns += tl - te;
              }
            while (sim_now () < until)
              sched_yield ();
          }
        else if (ok && !contention)
          {
            guint c = plan->call_at[k];
            gint64 local = sim_now (), pad = copy_floor (&rp, call, c, local - (enter_new - off));
            if (rp.call_bytes[c] >= SIM_LARGE_BYTES)
              {
                stats->large_calls++;
                stats->large_replay_ns += local - (enter_new - off);
                stats->large_orig_ns += tl - te;
              }
            pad = MAX (pad, enter_new - off + rp.call_cost[c] - local);
            if (pad > 0)
              sim_wait_until (&stats->cal, local + pad);
          }
        leave_new = sim_now () + off;
        stats->calls++;
        for (guint j = k + 1; j < call->leave; j++)
          {
            Tick t = ev[j].time;
            if (ev[j].flags & EVF_REMOVED)
              continue;
            stats->events++;
            sr->new_time[j] = t <= te ? enter_new : t >= tl ? leave_new : MIN (leave_new, enter_new + (t - te));
          }
        sr->new_time[call->leave] = last_new = seen = leave_new;
        stats->events++;
        anchor_new = leave_new;
        anchor_trans = tl;
        prev_time = tl;
        if (contention)
          cpu_goal = sim_thread_cpu ();
        k = call->leave;
      }
    }
  stats->wall_ns = sim_now () + off - t0;
  {
    gboolean rt = stats->cal.realtime;
    stats->rt_demotions = sim_rt_demotions ();
    sim_wait_release (&stats->cal);
    stats->cal.realtime = rt;   /* for the summary */
  }
  if (ok)
    {
      int rc = settle (rp.reqs, (int) MAX (plan->n_slots, 1));
      ok = mpi_fail (rc, "MPI_Waitall", sr->rank, error);
    }
  watchdog_stop (wd);
  replay_free (&rp);
  MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return ok;
}
