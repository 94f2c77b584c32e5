/* sim-offline.c — the offline mode: all ranks in one process, a discrete-event engine that
 * advances each rank through its replay plan (the same plan the real-time replay runs) on a
 * model clock, with MPI costs from the fitted model (sim-model.c). A rank runs until it needs
 * something another rank has not produced yet (a send's start, a receive's posting, the last
 * member of a collective); it then waits on exactly that, and the producer wakes it. Every
 * dependency is known in advance (messages are matched, collectives are sequenced per
 * communicator), so the result does not depend on the order ranks run in.
 *
 * Model (sim-model.c): a message of s bytes arrives T(s) = L + G·s after its send started
 * (eager) or after both the send started and the receive was posted (above the transport's
 * eager limit, synchronous sends); a blocking send returns at once (eager) or when the message
 * arrived (otherwise); a receive or a wait when what it waits for arrived; a collective when the
 * last member (all-to-all, barrier), the root (one-to-all) or the members before (scan) arrived.
 * A rendezvous also needs the receiver to make progress: its data moves only once the receiver
 * is in MPI after both the send started and the receive was posted (docs/decisions/
 * 2026-11-29-rendezvous-progress.md). Each rank keeps where it was in MPI (its presence): a call
 * with communication events throughout, a call without (a poll that found nothing) only at its
 * Enter and Leave, since a poll that lasted long was held up before it could progress; spans
 * closer than SIM_PRESENCE_GAP_NS are one (a tight polling loop is in MPI throughout).
 * A member of a collective with a root, or of a scan, also waits for the members the model saw
 * it wait for in the original (sim_model_coll_deps: an MPI library's tree; docs/decisions/
 * 2026-11-29-collective-trees-and-wait-classes.md). Then every call costs the mean residual of
 * its class; a wait's class is by what it completed. Computation intervals are the
 * transformed trace's. In fit mode the engine runs on the recorded times instead (every call
 * enters when it did and leaves when it did) and hands each call's residual to the model.
 * Where a host's ranks outnumbered its CPUs, the intervals and the costs are CPU time shared
 * out by the model of the cores (below, sim_offline_run). */
#include "sim-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <otf2/otf2.h>
#include <string.h>

#define UNKNOWN G_MININT64
/* a member's progress closer than this to a non-blocking collective's last start, or to the
 * Enter of the call completing it, does not tell whether that call waited for it (nbc_done) */
#define NBC_PROGRESS_MIN_NS 100000

typedef struct
{
  int      size;
  int      arrived;
  int      departed;
  Tick     max_e;
  Tick    *enters;     /* per member (comm-local rank) */
  int     *waiting;    /* world ranks blocked on this instance */
  int      n_waiting;
} CollInst;

typedef struct
{
  guint8  kind;        /* 0 none, 1 send, 2 recv, 3 non-blocking collective (4: its completion known) */
  guint8  rdv;
  int     peer;        /* world rank; collective: the action's index in the rank's plan */
  guint32 other_ev;    /* send: matched receive event on peer; recv: completion event (own);
                        * collective: its instance number on the communicator */
  Tick    start;       /* send: enter time; collective: start, then (kind 4) completion */
  guint64 bytes;
} SlotInfo;

typedef struct
{
  SimRank  *sr;
  SimPlan  *plan;
  const Tick *tt;         /* the events' times the engine runs on: the transformed trace's, or
                           * with computation intervals stretched for the cores (NULL: sr's) */
  guint     k;            /* next event */
  Tick      anchor_new;
  Tick      anchor_trans;
  /* inside a planned call */
  gboolean  in_call;
  guint     act;          /* next action */
  gboolean  published;    /* the current action's own times are out */
  Tick      t;            /* model clock inside the call */
  Tick      enter_new;
  guint32  *coll_seq;     /* per comm index: collectives started so far */
  guint32   sync_seq;
  SlotInfo *slots;
  guint64   wait_bytes;   /* what the current call's waits completed: bytes, and */
  int       wait_kind;    /* the transport of the first request, + 2 if all were sends; -1 none */
  gboolean  done;
  gboolean  queued;
} RankSim;

typedef struct
{
  Tick    a, b;       /* in MPI from a to b (a == b: a progress point) */
  guint32 ev;         /* its event there (whom it shared its CPU with: SimModel.mates) */
  guint32 enter;      /* the Enter of the call there (the interval before it ends there) */
} Presence;

typedef struct
{
  int  asker;
  Tick at;
} ProgressWait;

/* The cores' rates of a pass, per host (NULL: the host is not shared): those of the whole run
 * and those of the phases its ranks sat on the CPUs unevenly (SimModel.uneven; NULL: none). */
typedef struct
{
  GArray **even;
  GArray **uneven;
} PassRates;

typedef struct
{
  RankSim        *rs;
  int             n;
  SimModel       *m;
  gboolean        fit;
  TraceDefs      *defs;
  Tick          **send_time;   /* per rank, per event: when the send started */
  Tick          **post_time;   /* per rank, per receive completion event: when it was posted */
  int           **waiter;      /* per rank, per event: rank waiting for that time, -1 */
  GHashTable     *colls;       /* (comm << 32 | seq) -> CollInst* */
  GArray        **presence;    /* per rank: Presence, in time order */
  GArray        **pwait;       /* per rank: ProgressWait, ranks waiting for its progress */
  gboolean       *assume_in;   /* per rank: its progress wait was resolved as "in MPI" (stuck) */
  int            *queue;
  int             q_head, q_len;
  guint64         events;
  const PassRates *rates;      /* the cores' rates of the pass before (NULL: none yet) */
  /* per host shared per CPU, per CPU id: the rates a rank in MPI there got in the pass before
   * (or the original's) */
  GArray       ***ccall;
} Engine;

static void
enqueue (Engine *e,
         int     r)
{
  if (e->rs[r].queued || e->rs[r].done)
    return;
  e->rs[r].queued = TRUE;
  e->queue[(e->q_head + e->q_len) % e->n] = r;
  e->q_len++;
}

static void
publish (Engine *e,
         Tick  **table,
         int     rank,
         guint32 ev,
         Tick    t)
{
  table[rank][ev] = t;
  if (e->waiter[rank][ev] >= 0)
    {
      enqueue (e, e->waiter[rank][ev]);
      e->waiter[rank][ev] = -1;
    }
}

/* Ranks waiting for progress of @r at or before @bound are answerable now. */
static void
wake_progress (Engine *e,
               int     r,
               Tick    bound)
{
  GArray *w = e->pwait[r];
  for (guint i = 0; i < w->len;)
    {
      ProgressWait *pw = &g_array_index (w, ProgressWait, i);
      if (pw->at <= bound)
        {
          enqueue (e, pw->asker);
          g_array_remove_index_fast (w, i);
        }
      else
        i++;
    }
}

static void
presence_add (Engine *e,
              int     r,
              Tick    a,
              Tick    b,
              guint   ev,
              guint   enter)
{
  GArray *pa = e->presence[r];
  Presence p = { a, b, ev, enter };
  if (pa->len > 0 && a - g_array_index (pa, Presence, pa->len - 1).b <= SIM_PRESENCE_GAP_NS
      && (!e->m->mates || !e->m->mates[r] || e->m->mates[r][g_array_index (pa, Presence, pa->len - 1).ev]
                                               == e->m->mates[r][ev]))
    {
      Presence *last = &g_array_index (pa, Presence, pa->len - 1);
      last->b = MAX (last->b, b);
    }
  else
    g_array_append_val (pa, p);
  if (e->pwait[r]->len)
    wake_progress (e, r, b);
}

/* When rank @r is next in MPI at or after @at, as seen by rank @asker, its event there (@ev;
 * G_MAXUINT: none) and the Enter it came in by (@enter); UNKNOWN if @r has not got that far
 * (then @asker waits for it). A rank
 * blocked in a call it entered before @at is in MPI at @at if it leaves after it: @asker waits
 * for the Leave, or, when every rank is stuck (each waiting for another's progress), takes @at. */
static Tick
in_mpi (Engine *e,
        int     r,
        Tick    at,
        int     asker,
        guint  *ev,
        guint  *enter)
{
  GArray *pa = e->presence[r];
  const Presence *p = (const Presence *) pa->data;
  guint lo = 0, hi = pa->len;
  RankSim *o;
  ProgressWait pw = { asker, at };

  *ev = *enter = G_MAXUINT;
  if (r < 0 || r >= e->n)
    return at;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (p[mid].b < at)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < pa->len)
    {
      *ev = p[lo].ev;
      *enter = p[lo].enter;
      return MAX (at, p[lo].a);
    }
  o = &e->rs[r];
  if (o->done)
    return at;
  if (o->in_call)
    {
      *ev = *enter = o->k;
      if (o->enter_new > at)
        return o->enter_new;
      if (r == asker || e->assume_in[asker])
        return at;
    }
  g_array_append_val (e->pwait[r], pw);
  return UNKNOWN;
}

/* A rank waiting in MPI on a CPU that another rank computes on waits for it: MPI yields the
 * CPU (a rank in MPI whose CPU's other rank computed throughout got 1-5 % of it in the samples
 * of 4 programs, 99 % where nobody else computed there). As long as the scheduler leaves the
 * ranks where they are, at most this long: it balances the CPUs' loads. */
#define SIM_CPU_STARVE_MAX_NS 20000000

/* When rank @r, in MPI at its event @k from @t, gets to run there: once each rank that shared
 * its CPU then is in MPI too, or done, or sleeps most of the interval it is in (SimModel.mates);
 * UNKNOWN if one has not got that far (@asker waits for it). Only where the original bears the
 * wait out (SimModel.gate_ok), or while the fit asks whether it does (@deciding). */
static Tick
cpu_free (Engine  *e,
          int      r,
          guint    k,
          Tick     t,
          int      asker,
          gboolean deciding)
{
  guint64 mm;
  Tick t0 = t;
  if (!e->m->mates || !e->m->mates[r] || k >= e->rs[r].sr->ev->len || t == UNKNOWN
      || (!deciding && !e->m->gate_ok[r][k]))
    return t;
  mm = e->m->mates[r][k];
  for (int round = 0; mm && round < 8; round++)
    {
      Tick before = t;
      for (int j = 0; j < 64; j++)
        if (mm >> j & 1)
          {
            int b = e->m->host_rank[e->m->host[r]][j];
            guint kb, eb;
            Tick tb = in_mpi (e, b, t, asker, &kb, &eb);
            if (tb == UNKNOWN)
              return UNKNOWN;
            /* a rank that sleeps (most of the interval before its next call) holds no CPU */
            if (tb > t && eb < e->rs[b].sr->ev->len
                && sim_cpu_share (&g_array_index (e->rs[b].sr->ev, SimEvent, eb), TRUE) >= 0.5)
              continue;
            t = MAX (t, tb);
          }
      if (t == before)
        break;
    }
  return MIN (t, t0 + SIM_CPU_STARVE_MAX_NS);
}

/* When rank @r is next in MPI and running at or after @at (its first progress there), as seen
 * by rank @asker; UNKNOWN if that is not known yet (then @asker waits for it). */
static Tick
progress (Engine *e,
          int     r,
          Tick    at,
          int     asker)
{
  guint k, enter;
  Tick t = in_mpi (e, r, at, asker, &k, &enter);
  return t == UNKNOWN || k == G_MAXUINT ? t : cpu_free (e, r, k, t, asker, FALSE);
}

static Tick
transfer (const SimModel *m,
          int             from,
          int             to,
          guint64         bytes)
{
  return (Tick) sim_model_transfer (m, from, to, bytes);
}

/* Arrival of the message matched to receive event @rev of rank @r, or UNKNOWN (then @r waits). */
static Tick
arrival (Engine  *e,
         int      r,
         guint32  rev,
         gboolean probe)
{
  SimEvent *ev = &g_array_index (e->rs[r].sr->ev, SimEvent, rev);
  int s = ev->peer_world;
  guint32 sev = ev->link;
  Tick es, post;
  SimEvent *se;
  gboolean rdv;
  TraceRegion *reg = NULL;

  if (s < 0 || s >= e->n || sev == NO_INDEX)
    return UNKNOWN;
  es = e->send_time[s][sev];
  if (es == UNKNOWN)
    {
      e->waiter[s][sev] = r;
      return UNKNOWN;
    }
  se = &g_array_index (e->rs[s].sr->ev, SimEvent, sev);
  /* the sending call's mode: synchronous sends wait for the receive */
  for (guint j = sev; j-- > 0;)
    {
      SimEvent *x = &g_array_index (e->rs[s].sr->ev, SimEvent, j);
      if (x->type == EV_ENTER)
        {
          reg = trace_defs_region (e->defs, x->region);
          break;
        }
    }
  rdv = sim_model_rendezvous (e->m, s, r, se->len,
                              reg && (strcmp (reg->name, "MPI_Ssend") == 0 || strcmp (reg->name, "MPI_Issend") == 0),
                              se->flags);
  post = e->post_time[r][rev];
  if (rdv && !probe && post != UNKNOWN)
    return progress (e, r, MAX (es, post), r) + transfer (e->m, s, r, se->len);
  return es + transfer (e->m, s, r, se->len);
}

/* Completion of a rendezvous send: needs the receive's posting time and the receiver's
 * progress after it. */
static Tick
send_done (Engine  *e,
           int      s,
           int      peer,
           guint32  recv_ev,
           Tick     start,
           guint64  bytes)
{
  Tick post, p;
  if (peer < 0 || peer >= e->n || recv_ev == NO_INDEX)
    return start;
  post = e->post_time[peer][recv_ev];
  if (post == UNKNOWN)
    {
      e->waiter[peer][recv_ev] = s;
      return UNKNOWN;
    }
  p = progress (e, peer, MAX (start, post), s);
  if (p == UNKNOWN)
    return UNKNOWN;
  return p + transfer (e->m, s, peer, bytes);
}

static CollInst *
coll_inst (Engine *e,
           guint32 comm,
           guint32 seq,
           int     size)
{
  guint64 key = ((guint64) comm << 32) | seq;
  CollInst *ci = g_hash_table_lookup (e->colls, &key);
  if (!ci)
    {
      guint64 *kp = g_new (guint64, 1);
      *kp = key;
      ci = g_new0 (CollInst, 1);
      ci->size = size;
      ci->max_e = G_MININT64;
      ci->enters = g_new (Tick, size);
      ci->waiting = g_new (int, size);
      g_hash_table_insert (e->colls, kp, ci);
    }
  return ci;
}

static void
coll_inst_free (gpointer p)
{
  CollInst *ci = p;
  g_free (ci->enters);
  g_free (ci->waiting);
  g_free (ci);
}

static int
comm_pos (const TraceComm *c,
          int              rank)
{
  for (int p = 0; p < c->size; p++)
    if (c->world[p] == rank)
      return p;
  return -1;
}

Tick
sim_coll_rule (guint       op,
               int         pos,
               int         root,
               const Tick *enters,
               int         size,
               Tick        max_e)
{
  gboolean is_root = root >= 0 && pos == root;
  switch (op)
    {
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
      return is_root || root < 0 || root >= size ? enters[pos] : MAX (enters[pos], enters[root]);
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
      return is_root ? max_e : enters[pos];
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
      {
        Tick mx = G_MININT64;
        for (int q = 0; q <= pos && q < size; q++)
          mx = MAX (mx, enters[q]);
        return mx;
      }
    default:
      return max_e;
    }
}

/* The collective part of an ACT_COLL / ACT_SYNC: arrive, wait for all, leave by the model. */
static gboolean
do_collective (Engine    *e,
               int        r,
               SimAction *a,
               Tick      *t)
{
  RankSim *rs = &e->rs[r];
  gboolean sync = a->kind == ACT_SYNC;
  TraceComm *c;
  guint32 comm_key;
  int size, pos;
  CollInst *ci;

  if (sync)
    {
      comm_key = G_MAXUINT32;
      size = e->n;
      pos = r;
    }
  else
    {
      c = a->comm < e->defs->comms->len ? e->defs->comms->pdata[a->comm] : NULL;   /* index = position */
      if (!c || c->size <= 1)
        return TRUE;
      comm_key = a->comm;
      size = c->size;
      pos = comm_pos (c, r);
      if (pos < 0)
        return TRUE;
    }
  ci = coll_inst (e, comm_key, sync ? rs->sync_seq : rs->coll_seq[a->comm], size);
  if (!rs->published)
    {
      ci->enters[pos] = *t;
      ci->max_e = MAX (ci->max_e, *t);
      ci->arrived++;
      rs->published = TRUE;
      if (ci->arrived == size)
        for (int w = 0; w < ci->n_waiting; w++)
          enqueue (e, ci->waiting[w]);
    }
  if (ci->arrived < size)
    {
      ci->waiting[ci->n_waiting++] = r;
      return FALSE;
    }
  if (sync)
    *t = ci->max_e + (Tick) a->bytes;
  else
    {
      const guint64 *deps = sim_model_coll_deps (e->m, a->comm, a->op, a->peer);
      Tick own = *t;
      *t = MAX (own, sim_coll_rule (a->op, pos, a->peer, ci->enters, size, ci->max_e));
      if (deps)
        for (int q = 0; q < size; q++)
          if (deps[pos] & ((guint64) 1 << q))
            *t = MAX (*t, ci->enters[q]);
    }
  if (sync)
    rs->sync_seq++;
  else
    rs->coll_seq[a->comm]++;
  if (++ci->departed == size)
    {
      guint64 key = ((guint64) comm_key << 32) | (sync ? rs->sync_seq - 1 : rs->coll_seq[a->comm] - 1);
      g_hash_table_remove (e->colls, &key);
    }
  return TRUE;
}

/* ACT_ICOLL: the rank arrives at the collective instance at its start (the Enter of the MPI_I*
 * call) and goes on; the call that completes it waits for it (nbc_done). Blocking and
 * non-blocking collectives share a communicator's sequence, as MPI orders them. */
static void
nbc_start (Engine    *e,
           int        r,
           SimAction *a,
           guint      a_index)
{
  RankSim *rs = &e->rs[r];
  SlotInfo *s = &rs->slots[a->slot];
  TraceComm *c = a->comm < e->defs->comms->len ? e->defs->comms->pdata[a->comm] : NULL;
  int pos = c && c->size > 1 ? comm_pos (c, r) : -1;
  CollInst *ci;

  s->kind = 0;
  if (pos < 0)
    return;
  ci = coll_inst (e, a->comm, rs->coll_seq[a->comm], c->size);
  ci->enters[pos] = rs->t;
  ci->max_e = MAX (ci->max_e, rs->t);
  ci->arrived++;
  if (ci->arrived == c->size)
    for (int w = 0; w < ci->n_waiting; w++)
      enqueue (e, ci->waiting[w]);
  s->kind = 3;
  s->peer = (int) a_index;
  s->other_ev = rs->coll_seq[a->comm]++;
  s->start = rs->t;
}

/* When rank @q is first in MPI after the call that started a non-blocking collective at
 * @start (its presence there, as recorded when that call ended); UNKNOWN until known. */
static Tick
nbc_after_start (Engine *e,
                 int     q,
                 Tick    start,
                 int     asker)
{
  Tick p = progress (e, q, start, asker);
  GArray *pa;
  const Presence *sp;
  guint lo = 0, hi;

  if (p == UNKNOWN)
    return UNKNOWN;
  pa = e->presence[q];
  sp = (const Presence *) pa->data;
  hi = pa->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (sp[mid].b < start)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < pa->len && sp[lo].a <= start)
    return sp[lo].b + 1;
  return p;
}

/* The fitted answer to: does member @pos's completion of a non-blocking collective (@op on
 * communicator index @comm) wait for member @q's progress after @q started it? With @vote
 * (fit), adds what the original showed (+1 it did, -1 it did not). Unknown: it does. */
static gboolean
nbc_needs (SimModel *m,
           guint32   comm,
           guint32   op,
           int       pos,
           int       q,
           int       vote)
{
  gpointer key, v;
  gint votes;

  if (pos > 0xffff || q > 0xffff || comm > 0xffffff)
    return TRUE;
  key = GSIZE_TO_POINTER (((gsize) comm << 40) | ((gsize) (op & 0xff) << 32) | ((gsize) pos << 16) | (gsize) q);
  if (!m->nbc_needs && vote)
    m->nbc_needs = g_hash_table_new (g_direct_hash, g_direct_equal);
  v = m->nbc_needs ? g_hash_table_lookup (m->nbc_needs, key) : NULL;
  votes = v ? GPOINTER_TO_INT (v) - (1 << 30) : 0;
  if (vote)
    {
      votes += vote;
      g_hash_table_replace (m->nbc_needs, key, GINT_TO_POINTER (votes + (1 << 30)));
    }
  return votes >= 0;
}

/* When the non-blocking collective in slot @s is complete for rank @r. Not before the members
 * it depends on (all for N x N and the barrier, the root for a non-root of a one-to-all, the
 * senders for the root of an all-to-one, the members before for a scan; none for the root of a
 * one-to-all and a sender of an all-to-one) started it. MPI progresses a non-blocking collective
 * only inside its calls, though, so a member that computes after starting it may hold the
 * others up until its next MPI call; whether it does depends on MPI's algorithm (where the
 * members sit in its tree). The fit learns that per pair of members from the original's
 * completions (nbc_needs); the simulation waits for the progress of the members found needed,
 * and of those never seen (MPI's progress rule). @enter, @tl: the recorded Enter and Leave of
 * the completing call (fit). UNKNOWN until known. */
static Tick
nbc_done (Engine   *e,
          int       r,
          SlotInfo *s,
          Tick      enter,
          Tick      tl)
{
  RankSim *rs = &e->rs[r];
  SimAction *a;
  TraceComm *c;
  CollInst *ci;
  guint64 key;
  int pos, size, lo = 0, hi;
  gboolean is_root;
  Tick t_s, t;

  if (s->kind == 4)
    return s->start;
  a = &g_array_index (rs->plan->actions, SimAction, s->peer);
  c = e->defs->comms->pdata[a->comm];
  pos = comm_pos (c, r);
  size = c->size;
  hi = size;
  key = ((guint64) a->comm << 32) | s->other_ev;
  ci = g_hash_table_lookup (e->colls, &key);
  if (!ci)
    return s->start;
  if (ci->arrived < size)
    {
      gboolean listed = FALSE;
      for (int w = 0; w < ci->n_waiting && !listed; w++)
        listed = ci->waiting[w] == r;
      if (!listed)
        ci->waiting[ci->n_waiting++] = r;
      return UNKNOWN;
    }
  is_root = a->peer >= 0 && pos == a->peer;
  switch (a->op)
    {
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
      if (is_root || a->peer < 0 || a->peer >= size)
        hi = 0;
      else
        lo = a->peer, hi = a->peer + 1;
      break;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
      if (!is_root)
        hi = 0;
      break;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
      hi = pos + 1;
      break;
    default:
      break;
    }
  t_s = s->start;
  for (int q = lo; q < hi; q++)
    t_s = MAX (t_s, ci->enters[q]);
  /* fit: the progress that explains the completion is the latest one before it; a member
   * whose progress came after it was not needed (only a member that was waiting tells) */
  t = t_s;
  for (int pass = e->fit ? 0 : 1; pass < 2; pass++)
    for (int q = lo; q < hi; q++)
      {
        Tick after, p;
        if (q == pos)
          continue;
        after = nbc_after_start (e, c->world[q], ci->enters[q], r);
        if (after == UNKNOWN || (p = progress (e, c->world[q], MAX (t_s, after), r)) == UNKNOWN)
          return UNKNOWN;
        if (p <= t_s)
          continue;
        if (pass == 0)
          {
            if (p <= tl)
              t = MAX (t, p);
          }
        else if (e->fit)
          {
            if (enter < p - NBC_PROGRESS_MIN_NS && p - t_s > NBC_PROGRESS_MIN_NS && (p == t || p > tl))
              nbc_needs (e->m, a->comm, a->op, pos, q, p == t ? 1 : -1);
          }
        else if (nbc_needs (e->m, a->comm, a->op, pos, q, 0))
          t = MAX (t, p);
      }
  s->kind = 4;
  s->start = t;
  if (++ci->departed == size)
    g_hash_table_remove (e->colls, &key);
  return t;
}

/* Runs one action; FALSE when the rank must wait (it resumes at the same action). */
static gboolean
do_action (Engine  *e,
           int      r,
           SimCall *call,
           guint    i)
{
  RankSim *rs = &e->rs[r];
  SimAction *acts = &g_array_index (rs->plan->actions, SimAction, call->first);
  SimAction *a = &acts[i];
  SimEvent *ev = (SimEvent *) rs->sr->ev->data;
  guint32 *ws = (guint32 *) rs->plan->wait_slots->data;
  const SimModel *m = e->m;

  switch (a->kind)
    {
    case ACT_SEND:
      {
        SimEvent *se = &ev[a->ev];
        if (!rs->published)
          {
            publish (e, e->send_time, r, a->ev, rs->t);
            rs->published = TRUE;
          }
        if ((a->mode & SEND_MODE_MASK) != SEND_BUFFERED
            && sim_model_rendezvous (m, r, se->peer_world, a->bytes, (a->mode & SEND_MODE_MASK) == SEND_SYNC, se->flags))
          {
            Tick d = send_done (e, r, se->peer_world, se->link, e->send_time[r][a->ev], a->bytes);
            if (d == UNKNOWN)
              return FALSE;
            rs->t = MAX (rs->t, d);
          }
      }
      return TRUE;
    case ACT_SENDRECV:
      {
        SimAction *b = i + 1 < call->n ? &acts[i + 1] : NULL;
        SimEvent *se = &ev[a->ev];
        Tick t0 = rs->t, sdone, rdone = t0;
        if (!rs->published)
          {
            publish (e, e->send_time, r, a->ev, t0);
            if (b)
              publish (e, e->post_time, r, b->ev, t0);
            rs->published = TRUE;
          }
        t0 = e->send_time[r][a->ev];
        if (sim_model_rendezvous (m, r, se->peer_world, a->bytes, (a->mode & SEND_MODE_MASK) == SEND_SYNC, se->flags))
          {
            sdone = send_done (e, r, se->peer_world, se->link, t0, a->bytes);
            if (sdone == UNKNOWN)
              return FALSE;
          }
        else
          sdone = t0;
        if (b)
          {
            Tick arr = arrival (e, r, b->ev, FALSE);
            if (arr == UNKNOWN)
              return FALSE;
            rdone = MAX (t0, arr);
          }
        rs->t = MAX (sdone, rdone);
        rs->act++;   /* the receive action is done too */
      }
      return TRUE;
    case ACT_RECV:
      {
        Tick arr;
        if (!rs->published)
          {
            publish (e, e->post_time, r, a->ev, rs->t);
            rs->published = TRUE;
          }
        arr = arrival (e, r, a->ev, FALSE);
        if (arr == UNKNOWN)
          return FALSE;
        rs->t = MAX (rs->t, arr);
      }
      return TRUE;
    case ACT_ISEND:
      {
        SimEvent *se = &ev[a->ev];
        SlotInfo *s = &rs->slots[a->slot];
        publish (e, e->send_time, r, a->ev, rs->t);
        s->kind = 1;
        s->rdv = (a->mode & SEND_MODE_MASK) != SEND_BUFFERED
                 && sim_model_rendezvous (m, r, se->peer_world, a->bytes, (a->mode & SEND_MODE_MASK) == SEND_SYNC, se->flags);
        s->peer = se->peer_world;
        s->other_ev = se->link;
        s->start = rs->t;
        s->bytes = a->bytes;
      }
      return TRUE;
    case ACT_IRECV:
      {
        SlotInfo *s = &rs->slots[a->slot];
        publish (e, e->post_time, r, a->ev, rs->t);
        s->kind = 2;
        s->other_ev = a->ev;
        s->bytes = a->bytes;
      }
      return TRUE;
    case ACT_WAIT:
      {
        Tick done = rs->t;
        for (guint k = 0; k < a->n; k++)
          {
            SlotInfo *s = &rs->slots[ws[a->slot + k]];
            Tick c = rs->t;
            if (s->kind == 1 && s->rdv)
              c = send_done (e, r, s->peer, s->other_ev, s->start, s->bytes);
            else if (s->kind == 2)
              c = arrival (e, r, s->other_ev, FALSE);
            else if (s->kind >= 3)
              c = nbc_done (e, r, s, ev[call->enter].time, ev[call->leave].time);
            if (c == UNKNOWN)
              return FALSE;
            done = MAX (done, c);
          }
        for (guint k = 0; k < a->n; k++)
          {
            SlotInfo *s = &rs->slots[ws[a->slot + k]];
            if (s->kind == 1 || s->kind == 2)
              {
                int peer = s->kind == 1 ? s->peer : s->other_ev < rs->sr->ev->len ? ev[s->other_ev].peer_world : -1;
                rs->wait_bytes += s->bytes;
                if (rs->wait_kind < 0)
                  rs->wait_kind = sim_model_transport (m, r, peer) + (s->kind == 1 ? 2 : 0);
                else if (s->kind == 2 && rs->wait_kind >= 2)
                  rs->wait_kind -= 2;
              }
            s->kind = 0;
          }
        rs->t = done;
      }
      return TRUE;
    case ACT_FREE:
      for (guint k = 0; k < a->n; k++)
        rs->slots[ws[a->slot + k]].kind = 0;
      return TRUE;
    case ACT_PROBE:
      {
        Tick arr = arrival (e, r, a->ev, TRUE);
        if (arr == UNKNOWN)
          return FALSE;
        rs->t = MAX (rs->t, arr);
      }
      return TRUE;
    case ACT_COLL:
    case ACT_SYNC:
      return do_collective (e, r, a, &rs->t);
    case ACT_ICOLL:
      nbc_start (e, r, a, call->first + i);
      return TRUE;
    default:
      return TRUE;
    }
}

/* The cost class of a planned call: its rank and region, its bytes, and the transport of its
 * first message (point-to-point) or its communicator's size (collectives); where the number of
 * ranks on its rank's CPU changed during the run, that number at the call too. */
static guint64
call_class (Engine  *e,
            int      r,
            SimCall *call,
            gboolean waited)
{
  RankSim *rs = &e->rs[r];
  SimAction *acts = &g_array_index (rs->plan->actions, SimAction, call->first);
  SimEvent *ev = (SimEvent *) rs->sr->ev->data;
  guint64 bytes = 0, key;
  int kind = -1;

  for (guint i = 0; i < call->n; i++)
    {
      SimAction *a = &acts[i];
      switch (a->kind)
        {
        case ACT_SEND:
        case ACT_SENDRECV:
        case ACT_RECV:
        case ACT_ISEND:
        case ACT_IRECV:
        case ACT_PROBE:
          bytes += a->bytes;
          if (kind < 0 && a->ev < rs->sr->ev->len)
            kind = sim_model_transport (e->m, r, ev[a->ev].peer_world);
          break;
        case ACT_COLL:
        case ACT_ICOLL:
          {
            TraceComm *c = a->comm < e->defs->comms->len ? e->defs->comms->pdata[a->comm] : NULL;
            int size = c ? c->size : 1, lg = 0;
            while ((1 << lg) < size && lg < 27)
              lg++;
            bytes += MAX (a->bytes, a->bytes2);
            if (kind < 0)
              kind = 2 + lg;
          }
          break;
        default:
          break;
        }
    }
  if (kind < 0 && rs->wait_kind >= 0)
    {
      /* a wait (MPI_Wait*, MPI_Test* that completed something): by what it completed, since
       * a request whose completion needs the peer (a send over shared memory) costs more than
       * one that found its data there */
      bytes = rs->wait_bytes;
      kind = rs->wait_kind;
    }
  key = sim_model_class (r, call->region, bytes, MAX (kind, 0), waited);
  if (e->m->mates && e->m->mates[r] && e->m->mates_vary[r] && call->enter < rs->sr->ev->len)
    key = sim_model_class_mates (key, 1 + (guint) __builtin_popcountll (e->m->mates[r][call->enter]));
  return key;
}

/* The rates of rank @r's host (@rates of the pass) at its event @k: those of the phases its
 * ranks sat on the CPUs unevenly where it was in one (SimModel.uneven). */
static const GArray *
phase_rates (const SimModel  *m,
             const PassRates *rates,
             int              r,
             guint            k)
{
  int h = m->host[r];
  if (m->uneven && m->uneven[r] && m->uneven[r][k] && rates->uneven && rates->uneven[h])
    return rates->uneven[h];
  return rates->even[h];
}

/* What a call's residual from @model to @tl was: where the rank shared a host's CPUs, the CPU
 * time it got (the call's sampled CPU share of it; a call too short to be sampled ran on its
 * CPU), since the time it waited for a CPU comes back from the sharing (sim_offline_run);
 * elsewhere the residual itself. */
static double
call_work (Engine         *e,
           int             r,
           const SimEvent *ev,
           const SimCall  *call,
           Tick            model,
           Tick            tl)
{
  double res = (double) (tl - model);
  if (res <= 0 || !e->m->host_cpus || !e->m->host_cpus[e->m->host[r]])
    return res;
  return res * sim_cpu_share (&ev[call->leave], FALSE);
}

/* How long a call's cost @work takes from @model (its Leave @leave): on a shared host at the
 * rates of the pass before, of its CPU where the host is shared per CPU. */
static Tick
call_span (Engine *e,
           int     r,
           guint   leave,
           Tick    model,
           double  work)
{
  int h = e->m->host[r];
  int p = e->m->where && e->m->where[r] ? e->m->where[r][leave] : -1;
  if (work > 0 && e->rates && e->ccall && e->ccall[h] && p >= 0 && p < e->m->host_ids[h])
    return (Tick) llround (sim_cores_span (e->ccall[h][p], model, work));
  if (work > 0 && e->rates && e->m->host_cpus[h] && e->rates->even[h])
    return (Tick) llround (sim_cores_span (phase_rates (e->m, e->rates, r, leave), model, work));
  return (Tick) llround (work);
}

/* Advances rank @r as far as it can. */
static void
run_rank (Engine *e,
          int     r)
{
  RankSim *rs = &e->rs[r];
  SimEvent *ev = (SimEvent *) rs->sr->ev->data;
  Tick *nt = rs->sr->new_time;
  guint n = rs->sr->ev->len;
#define TT(k) (rs->tt ? rs->tt[k] : ev[k].time)

  while (rs->k < n)
    {
      SimEvent *x = &ev[rs->k];
      if (!rs->in_call)
        {
          if (x->flags & EVF_REMOVED)
            {
              rs->k++;
              continue;
            }
          nt[rs->k] = rs->anchor_new + (TT (rs->k) - rs->anchor_trans);
          e->events++;
          if (rs->plan->call_at[rs->k] == NO_INDEX)
            {
              if ((x->type == EV_ENTER || x->type == EV_LEAVE) && sim_region_is_mpi (e->defs, x->region))
                presence_add (e, r, nt[rs->k], nt[rs->k], rs->k, rs->k);   /* a call without communication */
              rs->k++;
              continue;
            }
          rs->in_call = TRUE;
          rs->act = 0;
          rs->wait_bytes = 0;
          rs->wait_kind = -1;
          rs->published = FALSE;
          rs->t = rs->enter_new = nt[rs->k];
          if (e->pwait[r]->len)
            wake_progress (e, r, rs->enter_new - 1);
        }
      {
        SimCall *call = &g_array_index (rs->plan->calls, SimCall, rs->plan->call_at[rs->k]);
        Tick te = TT (call->enter), tl = TT (call->leave);
        while (rs->act < call->n)
          {
            if (!do_action (e, r, call, rs->act))
              return;   /* blocked: a producer re-queues this rank */
            e->assume_in[r] = FALSE;
            rs->act++;
            rs->published = FALSE;
          }
        /* what the call cost beyond what it waited for: its class's mean (fit: as recorded) */
        {
          Tick model = MAX (rs->t, rs->enter_new);
          SimAction *a0 = &g_array_index (rs->plan->actions, SimAction, call->first);
          if (model > rs->enter_new && e->m->mates && e->m->mates[r])
            {
              /* it waited, spinning in MPI: it goes on when its CPU lets it run. The fit asks
               * whether the original bears that out (its call lasted as long): where it does
               * not, the ranks that seemed to share its CPU did not (the samples place a rank
               * only where it was sampled). */
              Tick g = cpu_free (e, r, call->leave, model, r, e->fit);
              if (g == UNKNOWN)
                return;   /* re-queued when that rank gets there */
              if (e->fit)
                {
                  e->m->gate_ok[r][call->leave] = g <= tl + SIM_PRESENCE_GAP_NS;
                  if (!e->m->gate_ok[r][call->leave])
                    g = model;
                }
              model = g;
            }
          if (a0->kind != ACT_SYNC)
            {
              guint64 key = call_class (e, r, call, model > rs->enter_new);
              if (e->fit)
                sim_model_add_cost (e->m, key, call_work (e, r, ev, call, model, tl));
              else
                rs->t = MAX (rs->enter_new, model + call_span (e, r, call->leave, model, sim_model_cost (e->m, key)));
            }
          if (e->fit)
            rs->t = tl;
        }
        for (guint j = call->enter + 1; j < call->leave; j++)
          {
            Tick t = TT (j);
            if (ev[j].flags & EVF_REMOVED)
              continue;
            e->events++;
            nt[j] = t <= te ? rs->enter_new : t >= tl ? rs->t : MIN (rs->t, rs->enter_new + (t - te));
          }
        nt[call->leave] = MAX (rs->t, rs->enter_new);
        e->events++;
        presence_add (e, r, rs->enter_new, nt[call->leave], call->leave, call->enter);
        rs->anchor_new = nt[call->leave];
        rs->anchor_trans = tl;
        rs->in_call = FALSE;
        rs->k = call->leave + 1;
      }
    }
  rs->done = TRUE;
  wake_progress (e, r, G_MAXINT64);
#undef TT
}

/* Every rank is blocked and some wait for another's progress: each of those is blocked in a
 * call it entered before the time asked, and leaves only after the waiting ranks go on, so it
 * is in MPI then. FALSE if there was no such wait (the ranks wait forever). */
static gboolean
resolve_stuck (Engine *e)
{
  gboolean any = FALSE;
  for (int r = 0; r < e->n; r++)
    {
      GArray *w = e->pwait[r];
      for (guint i = 0; i < w->len; i++)
        {
          int a = g_array_index (w, ProgressWait, i).asker;
          e->assume_in[a] = TRUE;
          enqueue (e, a);
          any = TRUE;
        }
      g_array_set_size (w, 0);
    }
  return any;
}

/* One run of the engine over every rank; @tt: per rank the times it runs on (NULL: the
 * events'), @rates: the cores' rates of the pass before (NULL: none). */
static gboolean
offline_pass (SimRank         **srs,
              SimPlan         **plans,
              int               n_ranks,
              SimModel         *model,
              gboolean          fit,
              Tick            **tt,
              const PassRates  *rates,
              GArray         ***counts,
              guint64          *n_events,
              GError          **error)
{
  Engine e = { 0 };
  int left;

  e.n = n_ranks;
  e.m = model;
  e.fit = fit;
  e.rates = rates;
  if (counts)
    {
      e.ccall = g_new0 (GArray **, model->n_hosts);
      for (guint h = 0; h < model->n_hosts; h++)
        if (counts[h])
          {
            e.ccall[h] = g_new0 (GArray *, model->host_ids[h]);
            for (int p = 0; p < model->host_ids[h]; p++)
              e.ccall[h][p] = sim_cores_cpu_rates (counts[h][p], TRUE);
          }
    }
  e.defs = srs[0]->defs;
  e.rs = g_new0 (RankSim, n_ranks);
  e.send_time = g_new0 (Tick *, n_ranks);
  e.post_time = g_new0 (Tick *, n_ranks);
  e.waiter = g_new0 (int *, n_ranks);
  e.queue = g_new (int, n_ranks);
  e.colls = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, coll_inst_free);
  e.presence = g_new0 (GArray *, n_ranks);
  e.pwait = g_new0 (GArray *, n_ranks);
  e.assume_in = g_new0 (gboolean, n_ranks);
  for (int r = 0; r < n_ranks; r++)
    {
      e.presence[r] = g_array_new (FALSE, FALSE, sizeof (Presence));
      e.pwait[r] = g_array_new (FALSE, FALSE, sizeof (ProgressWait));
    }
  for (int r = 0; r < n_ranks; r++)
    {
      guint n = srs[r]->ev->len;
      RankSim *rs = &e.rs[r];
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      rs->sr = srs[r];
      rs->plan = plans[r];
      rs->tt = tt ? tt[r] : NULL;
      rs->coll_seq = g_new0 (guint32, MAX (e.defs->comms->len, 1));
      rs->slots = g_new0 (SlotInfo, MAX (plans[r]->n_slots, 1));
      g_free (srs[r]->new_time);
      srs[r]->new_time = g_new0 (Tick, MAX (n, 1));
      e.send_time[r] = g_new (Tick, MAX (n, 1));
      e.post_time[r] = g_new (Tick, MAX (n, 1));
      e.waiter[r] = g_new (int, MAX (n, 1));
      for (guint k = 0; k < n; k++)
        {
          e.send_time[r][k] = e.post_time[r][k] = UNKNOWN;
          e.waiter[r][k] = -1;
        }
      /* the same time line as the original: each rank starts where it started */
      rs->anchor_trans = 0;
      rs->anchor_new = 0;
      for (guint k = 0; k < n; k++)
        if (!(ev[k].flags & EVF_REMOVED))
          {
            rs->anchor_trans = rs->anchor_new = rs->tt ? rs->tt[k] : ev[k].time;
            break;
          }
      enqueue (&e, r);
    }
  do
    while (e.q_len > 0)
      {
        int r = e.queue[e.q_head];
        e.q_head = (e.q_head + 1) % e.n;
        e.q_len--;
        e.rs[r].queued = FALSE;
        run_rank (&e, r);
      }
  while (resolve_stuck (&e));
  left = 0;
  for (int r = 0; r < n_ranks; r++)
    if (!e.rs[r].done)
      {
        if (left++ == 0)
          {
            SimEvent *x = &g_array_index (srs[r]->ev, SimEvent, e.rs[r].k);
            TraceRegion *reg = trace_defs_region (e.defs, x->region);
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                         _("the offline simulation cannot continue: rank %d waits forever in %s (event %u); "
                           "the hypothesis made the communication inconsistent"),
                         r, reg && reg->name ? reg->name : "?", e.rs[r].k);
          }
      }
  if (n_events)
    *n_events = e.events;
  for (int r = 0; r < n_ranks; r++)
    {
      g_free (e.rs[r].coll_seq);
      g_free (e.rs[r].slots);
      g_free (e.send_time[r]);
      g_free (e.post_time[r]);
      g_free (e.waiter[r]);
      g_array_unref (e.presence[r]);
      g_array_unref (e.pwait[r]);
    }
  g_free (e.presence);
  g_free (e.pwait);
  g_free (e.assume_in);
  g_free (e.rs);
  g_free (e.send_time);
  g_free (e.post_time);
  g_free (e.waiter);
  g_free (e.queue);
  for (guint h = 0; e.ccall && h < model->n_hosts; h++)
    sim_cores_cpu_free (e.ccall[h], model->host_ids[h]);
  g_free (e.ccall);
  g_hash_table_unref (e.colls);
  return left == 0;
}

/* ---- the cores: where a host's ranks outnumbered its CPUs
 *
 * The recorded computation intervals of such a run are as long as the sharing of the CPUs made
 * them in the original, and a call's residual holds the time its rank spent off its core. A
 * simulation moves the ranks against each other (an identity that replaces every call's cost
 * by its class mean already does): an interval that the original ran beside three others may
 * now run beside one, and a class mean spreads one call's preemption over all of them.
 * The model (sim_cores_profile): the host's CPUs (as many as the samples show the ranks got,
 * sim_cores_fit_cpus) are shared evenly among the ranks that compute. Each computation interval
 * needs the CPU time it got in the original (the samples' share of it; an interval too short to
 * be sampled ran on its CPU) and sleeps what it slept; it takes as long as the simulated run's
 * sharing needs for that from where it starts. An MPI call inside it that the plan does not
 * re-enact (no communication events: MPI_Neighbor_alltoall, MPI_Comm_rank, ...) wanted no CPU,
 * as sim_cores_profile counts it, and keeps its length (sim_want_step); a poll that found
 * nothing is computation. A call's cost is likewise the CPU time calls of
 * its class got (call_work). The sharing depends on the lengths in turn: a fixed-point
 * iteration, each pass over the whole engine with the lengths the rates of the pass before
 * give, until no event moves by more than CORES_SETTLED of the run. Deterministic; with a CPU
 * per rank no pass runs. docs/decisions/2026-11-29-offline-cores.md */

#define CORES_PASSES  12
#define CORES_SETTLED 1e-4
/* where the passes did not settle, the result is per event the median of the last passes: from
 * this one on (docs/decisions/2026-12-02-cores-median-of-passes.md) */
#define CORES_MEDIAN_FROM (CORES_PASSES / 2 + 1)
#define CORES_MEDIAN_N    (CORES_PASSES - CORES_MEDIAN_FROM + 1)

static int
cmp_tick (gconstpointer a,
          gconstpointer b)
{
  Tick x = *(const Tick *) a, y = *(const Tick *) b;
  return (x > y) - (x < y);
}

void
sim_cores_median (Tick              *out,
                  const Tick *const *passes,
                  int                n,
                  guint              len)
{
  g_autofree Tick *v = g_new (Tick, MAX (n, 1));
  g_return_if_fail (n > 0);
  for (guint k = 0; k < len; k++)
    {
      for (int i = 0; i < n; i++)
        v[i] = passes[i][k];
      qsort (v, (size_t) n, sizeof (Tick), cmp_tick);
      out[k] = n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
    }
}

/* Per rank the times to run the next pass on: every computation interval (from a planned call's
 * Leave, or the rank's first event, to the next planned call's Enter) scaled to its length for
 * the rates @rates of the pass that gave @prev (per rank its simulated times). */
static void
cores_times (SimRank         **srs,
             SimPlan         **plans,
             int               n_ranks,
             SimModel         *m,
             const PassRates  *rates,
             GArray         ***crates,
             Tick            **prev,
             Tick            **tt)
{
  for (int r = 0; r < n_ranks; r++)
    {
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      guint n = srs[r]->ev->len;
      int h = m->host[r];
      guint a = 0;
      if (!m->host_cpus[h] || n == 0)
        continue;
      while (a < n && (ev[a].flags & EVF_REMOVED))
        tt[r][a] = ev[a].time, a++;
      if (a >= n)
        continue;
      tt[r][a] = ev[a].time;
      for (;;)
        {
          /* the interval from @a (the first event, or a planned call's Leave) to the next
           * planned call's Enter @b, or to the last event */
          guint b = a;
          double f = 1.0;
          while (b + 1 < n && (b == a || plans[r]->call_at[b] == NO_INDEX || (ev[b].flags & EVF_REMOVED)))
            b++;
          if (b > a && ev[b].time > ev[a].time)
            {
              /* its CPU time and its sleep: per stretch between two of its events, the
               * samples' shares of the sampled interval it belongs to (as the hypothesis
               * made it; one too short to be sampled ran on its CPU), so that an interval
               * holding calls without communication, or merged where a hypothesis removed
               * a call, counts each stretch as it was */
              double g = (double) (ev[b].time - ev[a].time), cpu = 0, sleep = 0, want;
              Tick last = ev[a].time;
              SimWantWalk walk = { 0, FALSE };
              for (guint k = a + 1; k <= b; k++)
                {
                  /* removed events too: a removed call's Enter ends the stretch before it
                   * (the transformation leaves the call no time of its own) */
                  double d = (double) (ev[k].time - last);
                  gboolean wants = (ev[k].flags & EVF_REMOVED) ? walk.depth == 0 || walk.polls
                                                                : sim_want_step (&walk, srs[r], plans[r], k, FALSE);
                  if (wants)
                    {
                      double c = sim_cpu_share (&ev[k], FALSE), sl = sim_cpu_share (&ev[k], TRUE);
                      cpu += d * c;
                      sleep += d * sl;
                      /* a stretch that slept most of its time waited for a CPU mostly to wake
                       * up, which sharing the cores does not explain (sampled_intervals leaves
                       * it out of the fit): it keeps that wait as it was (a ring of
                       * MPI_Neighbor_alltoall whose ranks sleep 94 % of their computation,
                       * waiting 5 %, at 4 ranks on 2 cores: -2.2 .. -4.2 % without it) */
                      if (sl >= 0.5)
                        sleep += d * MAX (0.0, 1.0 - c - sl);
                    }
                  else
                    sleep += d;   /* in an MPI call that wanted no CPU (sim_cores_profile): as long as it was */
                  last = ev[k].time;
                }
              /* on the CPU it ran on, where the host is shared per CPU: a rank computing there
               * shares it with the others computing there, and not with those in MPI (MPI
               * yields the CPU to it) */
              int p = crates && crates[h] && m->where[r] ? m->where[r][b] : -1;
              if (p >= 0 && p < m->host_ids[h])
                want = sim_cores_span (crates[h][p], prev[r][a], cpu) + sleep;
              else
                want = sim_cores_span (phase_rates (m, rates, r, b), prev[r][a], cpu) + sleep;
              /* the next pass's length: the one the rates of this pass give (undamped: the
               * lengths of a whole run settle within a few passes so, and creep on for many
               * more when each pass moves them only part of the way) */
              f = want / g;
            }
          for (guint k = a + 1; k <= b; k++)
            tt[r][k] = tt[r][a] + (Tick) llround (f * (double) (ev[k].time - ev[a].time));
          if (b > a && plans[r]->call_at[b] != NO_INDEX && !(ev[b].flags & EVF_REMOVED))
            {
              /* a planned call: its own times keep their distances */
              SimCall *call = &g_array_index (plans[r]->calls, SimCall, plans[r]->call_at[b]);
              Tick shift = tt[r][b] - ev[b].time;
              for (guint k = b + 1; k <= call->leave && k < n; k++)
                tt[r][k] = ev[k].time + shift;
              if (call->leave <= b || call->leave >= n)
                break;
              a = call->leave;
            }
          else
            break;
        }
    }
}

/* frees per-host arrays of per-CPU arrays (NULL: none) */
static void
counts_free (SimModel  *m,
             GArray  ***a)
{
  for (guint h = 0; a && h < m->n_hosts; h++)
    sim_cores_cpu_free (a[h], m->host_ids[h]);
  g_free (a);
}

gboolean
sim_offline_run (SimRank       **srs,
                 SimPlan       **plans,
                 int             n_ranks,
                 SimModel       *model,
                 gboolean        fit,
                 guint64        *n_events,
                 GError        **error)
{
  g_autofree Tick **tt = NULL;
  g_autofree Tick **prev = NULL;
  g_autofree GArray **rates = NULL, **rates_uneven = NULL;
  PassRates pass_rates = { NULL, NULL };
  g_autofree Tick **best = NULL;   /* the times of the pass that moved its events least */
  Tick **hist[CORES_MEDIAN_N] = { NULL };   /* the times of the last passes, for the median */
  gboolean settled = FALSE, contracting = TRUE;   /* ... each of the last passes moved less */
  double last_moved = G_MAXDOUBLE;
  double best_moved = G_MAXDOUBLE;
  GArray ***counts = NULL, ***crates = NULL;   /* per host shared per CPU, per CPU id */
  gboolean ok;

  ok = offline_pass (srs, plans, n_ranks, model, fit, NULL, NULL, model->counts_orig, n_events, error);
  if (!ok || fit || !model->sharing)
    return ok;
  tt = g_new0 (Tick *, n_ranks);
  prev = g_new0 (Tick *, n_ranks);
  rates = g_new0 (GArray *, MAX (model->n_hosts, 1));
  pass_rates.even = rates;
  best = g_new0 (Tick *, n_ranks);
  model->cores_passes = model->cores_best_pass = model->cores_median_from = 0;
  for (int r = 0; r < n_ranks; r++)
    {
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      tt[r] = g_new (Tick, MAX (srs[r]->ev->len, 1));
      best[r] = g_new (Tick, MAX (srs[r]->ev->len, 1));
      for (guint k = 0; k < srs[r]->ev->len; k++)
        tt[r][k] = ev[k].time;
    }
  for (int pass = 1; pass <= CORES_PASSES && ok; pass++)
    {
      for (int r = 0; r < n_ranks; r++)
        {
          g_free (prev[r]);
          prev[r] = g_steal_pointer (&srs[r]->new_time);
        }
      for (guint h = 0; h < model->n_hosts; h++)
        {
          g_autofree int *ranks = g_new (int, n_ranks);
          int n = 0;
          g_clear_pointer (&rates[h], g_array_unref);
          if (!model->host_cpus[h])
            continue;
          for (int r = 0; r < n_ranks; r++)
            if ((guint) model->host[r] == h)
              ranks[n++] = r;
          rates[h] = sim_cores_profile (srs, ranks, n, (const Tick *const *) prev, TRUE, model->host_cpus_fit[h],
                                        plans);
          if (model->host_cpus_uneven && model->host_cpus_uneven[h] > 0)
            {
              if (!rates_uneven)
                pass_rates.uneven = rates_uneven = g_new0 (GArray *, model->n_hosts);
              g_clear_pointer (&rates_uneven[h], g_array_unref);
              rates_uneven[h] = sim_cores_profile (srs, ranks, n, (const Tick *const *) prev, TRUE,
                                                          model->host_cpus_uneven[h], plans);
            }
        }
      if (model->host_ids)
        {
          /* per CPU: the ranks computing on each, and the rates that gives them */
          counts_free (model, counts);
          counts_free (model, crates);
          counts = g_new0 (GArray **, model->n_hosts);
          crates = g_new0 (GArray **, model->n_hosts);
          for (guint h = 0; h < model->n_hosts; h++)
            {
              g_autofree int *ranks = g_new (int, n_ranks);
              int n = 0;
              if (!model->host_ids[h] || !model->host_cpus[h])
                continue;
              for (int r = 0; r < n_ranks; r++)
                if ((guint) model->host[r] == h)
                  ranks[n++] = r;
              counts[h] = sim_cores_cpu_counts (srs, ranks, n, (const Tick *const *) prev, TRUE, model->where,
                                                model->host_ids[h], plans);
              crates[h] = g_new0 (GArray *, model->host_ids[h]);
              for (int p = 0; p < model->host_ids[h]; p++)
                crates[h][p] = sim_cores_cpu_rates (counts[h][p], FALSE);
            }
        }
      cores_times (srs, plans, n_ranks, model, &pass_rates, crates, prev, tt);
      ok = offline_pass (srs, plans, n_ranks, model, FALSE, tt, &pass_rates, counts, n_events, error);
      if (ok)
        {
          /* settled: no event moved by more than CORES_SETTLED of the run */
          Tick first = G_MAXINT64, end = G_MININT64, moved = 0;
          for (int r = 0; r < n_ranks; r++)
            for (guint k = 0; k < srs[r]->ev->len; k++)
              if (!(g_array_index (srs[r]->ev, SimEvent, k).flags & EVF_REMOVED))
                {
                  first = MIN (first, srs[r]->new_time[k]);
                  end = MAX (end, srs[r]->new_time[k]);
                  moved = MAX (moved, llabs (srs[r]->new_time[k] - prev[r][k]));
                }
          model->cores_passes = pass;
          g_debug ("offline cores, pass %d: the run ends at %.6f s, events moved by up to %.6f s", pass,
                   (end - first) / 1e9, moved / 1e9);
          /* the result: the pass closest to its own sharing, the one that moved its events
           * least (the lengths do not always settle: they may creep or swing) */
          if ((double) moved / MAX (1.0, (double) (end - first)) < best_moved)
            {
              best_moved = (double) moved / MAX (1.0, (double) (end - first));
              model->cores_best_pass = pass;
              for (int r = 0; r < n_ranks; r++)
                memcpy (best[r], srs[r]->new_time, sizeof (Tick) * srs[r]->ev->len);
            }
          if (pass >= CORES_MEDIAN_FROM)
            {
              double rel = (double) moved / MAX (1.0, (double) (end - first));
              Tick **h = hist[pass - CORES_MEDIAN_FROM] = g_new0 (Tick *, n_ranks);
              for (int r = 0; r < n_ranks; r++)
                h[r] = g_memdup2 (srs[r]->new_time, sizeof (Tick) * MAX (srs[r]->ev->len, 1));
              contracting = contracting && rel < last_moved;
              last_moved = rel;
            }
          if ((double) moved <= CORES_SETTLED * (double) (end - first))
            {
              settled = TRUE;
              break;
            }
        }
    }
  /* the result. Settled, or still contracting at the end (each of the last passes moved less
   * than the one before): the pass that moved least (the last, or one as close to its own
   * sharing). Neither (the last passes creep or swing, and the pass that moved least may be one
   * still on its way: LAMMPS at 4 ranks on 2 cores kept its 4th pass of 12, −5.9 %, where the
   * later ones swung around −2 %): per event the median of the last half of the passes, robust
   * to a pass that swung far out (sim-real-lammps-4 once came out +124.5 % with its last pass) */
  if (ok && !settled && !contracting && model->cores_passes == CORES_PASSES)
    {
      for (int r = 0; r < n_ranks; r++)
        {
          const Tick *p[CORES_MEDIAN_N];
          for (int i = 0; i < CORES_MEDIAN_N; i++)
            p[i] = hist[i][r];
          sim_cores_median (srs[r]->new_time, p, CORES_MEDIAN_N, srs[r]->ev->len);
        }
      model->cores_best_pass = 0;
      model->cores_median_from = CORES_MEDIAN_FROM;
    }
  else if (ok && model->cores_best_pass != model->cores_passes)
    for (int r = 0; r < n_ranks; r++)
      memcpy (srs[r]->new_time, best[r], sizeof (Tick) * srs[r]->ev->len);
  for (int i = 0; i < CORES_MEDIAN_N; i++)
    if (hist[i])
      {
        for (int r = 0; r < n_ranks; r++)
          g_free (hist[i][r]);
        g_free (hist[i]);
      }
  for (int r = 0; r < n_ranks; r++)
    {
      g_free (tt[r]);
      g_free (prev[r]);
      g_free (best[r]);
    }
  for (guint h = 0; h < model->n_hosts; h++)
    {
      if (rates[h])
        g_array_unref (rates[h]);
      if (rates_uneven && rates_uneven[h])
        g_array_unref (rates_uneven[h]);
    }
  counts_free (model, counts);
  counts_free (model, crates);
  return ok;
}
