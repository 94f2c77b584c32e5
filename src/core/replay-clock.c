/* replay-clock.c — clock repair with the controlled logical clock (see replay-clock.h).
 *
 * Forward amortization. Per location the events that carry time across ranks are, in event
 * order: sends and collective enters (they give a time away) and receives and collective ends
 * (they must not lie before what they depend on). The clock runs as
 *     C(e) = max(t(e), C(a) + γ·(t(e) − t(a)))           a = the last corrected event
 * and a receive (collective end) whose C lies before C(its send) + μ (the latest enter it
 * depends on) jumps there and becomes the new a: an "anchor". (Dropping Scalasca's minimum
 * event distance δ keeps the clock a function of the last anchor alone, so a location's whole
 * correction is its list of anchors.) μ = 0: on one host the collector's clocks are exact, and
 * a receive at its send's very time is the least change that satisfies the clock condition.
 *
 * The replay. A correction can move a send that another rank receives, so the ranks' anchors
 * depend on each other along the recorded messages. Instead of a message-by-message replay
 * (which an inconsistent trace could deadlock) every pass recomputes all anchors from the send
 * times known so far, then exchanges the new send times (one personalised exchange, as
 * pattern-p2p.c does) and the collective enters (a max reduction per communicator, a prefix
 * max for scans), until nothing changes. Times only ever grow and the result is the unique
 * solution of the recorded dependencies — the same as a message-by-message replay; a trace
 * without violations needs one pass and one flag reduction. Integer arithmetic throughout, so
 * --serial (in-process transport) and MPI give identical anchors.
 *
 * Backward amortization. Each jump J at anchor b is spread over the time before it: the events
 * in the window [pre_b − A, pre_b] (forward time, after the previous anchor) move up linearly
 * by J·(x − (pre_b − A))/A, so the clock runs at most 1/CLOCK_SLOPE_DIV faster there instead of
 * jumping. A starts at CLOCK_SLOPE_DIV·J and shrinks wherever a send (collective enter) in the
 * window would pass its receive (the earliest end depending on it): its slack is the receiver's
 * forward time minus μ. */
#include "replay-clock.h"

#include <glib/gi18n.h>
#include <otf2/otf2.h>
#include <string.h>

#define MAX_PASSES 64
#define MU 0

struct _ClockMap
{
  ClockAnchor *a;
  guint        n;
};

/* ---- the map ------------------------------------------------------------------------------ */

Tick
clock_forward (const ClockAnchor *a,
               Tick               t)
{
  Tick d, v;

  if (!a)
    return t;
  d = t - a->t;
  v = a->c + d - d / CLOCK_GAMMA_DIV;
  return MAX (t, v);
}

static Tick
ramp (const ClockAnchor *b,
      Tick               x)
{
  Tick start, into;

  if (b->window <= 0)
    return x;
  start = b->pre - b->window;
  if (x <= start)
    return x;
  into = MIN (x - start, b->window);
  return x + (Tick) ((__int128) (b->c - b->pre) * into / b->window);
}

ClockMap *
clock_map_new (const ClockAnchor *anchors,
               guint              n)
{
  ClockMap *m = g_new0 (ClockMap, 1);
  m->a = g_memdup2 (anchors, sizeof (ClockAnchor) * MAX (n, 1));
  m->n = n;
  return m;
}

void
clock_map_free (ClockMap *map)
{
  if (!map)
    return;
  g_free (map->a);
  g_free (map);
}

static Tick
apply_with (const ClockMap *m,
            guint           next,
            Tick            t)
{
  Tick x = clock_forward (next ? &m->a[next - 1] : NULL, t);
  return next < m->n ? ramp (&m->a[next], x) : x;
}

Tick
clock_map_apply (const ClockMap *map,
                 ClockCursor    *cursor,
                 Tick            time,
                 guint64         pos)
{
  if (!map || map->n == 0)
    return time;
  while (cursor->next < map->n && map->a[cursor->next].pos <= pos)
    cursor->next++;
  return apply_with (map, cursor->next, time);
}

Tick
clock_map_apply_at (const ClockMap *map,
                    Tick            time,
                    guint64         pos)
{
  guint lo = 0, hi;

  if (!map || map->n == 0)
    return time;
  /* the first anchor after @pos */
  hi = map->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (map->a[mid].pos <= pos)
        lo = mid + 1;
      else
        hi = mid;
    }
  return apply_with (map, lo, time);
}

/* ---- the repair state -------------------------------------------------------------------- */


enum
{
  GIVE_ALL = 1 << 0,   /* its enter counts for every member's end (barrier, N x N, reduce) */
  GIVE_ROOT = 1 << 1,  /* the root's enter (broadcast, scatter) */
  GIVE_SCAN = 1 << 2,  /* for the ends of the members after it (scan) */
  NEED_ALL = 1 << 3,
  NEED_ROOT = 1 << 4,
  NEED_SCAN = 1 << 5,
};
#define GIVES (GIVE_ALL | GIVE_ROOT | GIVE_SCAN)
#define NEEDS (NEED_ALL | NEED_ROOT | NEED_SCAN)

/* One collective call: the blocking ones (RankData.colls), the non-blocking ones (.nbcs), and
 * last MPI_Init and MPI_Finalize over all ranks. */
typedef struct
{
  guint8  role;
  guint64 enter_pos, end_pos;
  Tick    enter;    /* original enter time */
  Tick    end;      /* original end time */
  Tick    give;     /* this pass: its enter's clock */
  Tick    need;     /* input: its end may not lie before this (G_MININT64: nothing) */
  Tick    end_c;    /* this pass: its end's clock */
  Tick    slack;    /* backward: the earliest end that depends on its enter */
} Slot;

typedef struct
{
  guint      key;        /* transport key: the communicator index, n_comms for all ranks */
  const int *members;
  int        n_members;
  gsize      n;          /* instances every member has */
  gboolean   has_scan;
  guint32  **slots;      /* per local rank: n slot indices, NULL if not a member */
} Plan;

typedef struct
{
  RankData  *rd;
  guint32   *gives;      /* slots whose enter gives time, in event order */
  guint32   *needs;      /* slots whose end depends on others, in event order */
  guint      n_gives, n_needs;
  guint32   *recv_k;     /* per receive: index among its sender's sends to this rank */
  Tick      *recv_in;    /* per receive: its send's clock as known (+ μ) */
  Tick      *recv_c;     /* per receive: its clock this pass */
  Tick      *send_c;     /* per send: its clock this pass */
  Tick      *send_slack; /* per send: its receive's clock (G_MAXINT64: none) */
  GArray   **to_peer;    /* per world rank: indices of the sends to it, in order */
  Slot      *slots;
  guint      n_slots;
  GArray    *anchors;    /* ClockAnchor */
  GArray    *anchor_at;  /* per anchor: guint32[2], the sends and gives before it */
  ClockMap  *map;
  guint64    found_p2p, found_coll;
} Local;

struct _ClockRepair
{
  Transport       *t;
  Local           *loc;
  int              n_local;
  Plan            *plans;
  guint            n_plans;
  int             *world;
  guint            world_key;
  gboolean         changed;
  ClockRepairStats stats;
};

static gint
slot_cmp (gconstpointer a,
          gconstpointer b,
          gpointer      data)
{
  const guint64 *pos = data;
  guint64 x = pos[*(const guint32 *) a], y = pos[*(const guint32 *) b];
  return x < y ? -1 : x > y;
}

/* A non-blocking collective takes the blocking form's rule, with its start (the MPI_I* call's
 * enter) as the enter and its completion event (in the Wait or Test) as the end. */
static guint8
coll_role (guint32 op,
           guint32 root_pos,
           gboolean sent,
           gboolean received,
           int      me)
{
  gboolean root = root_pos != NO_INDEX && (int) root_pos == me;
  guint8 give_data = sent, got_data = received;

  switch (op)
    {
    case OTF2_COLLECTIVE_OP_BARRIER:
      return GIVE_ALL | NEED_ALL;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return (give_data ? GIVE_ALL : 0) | (got_data ? NEED_ALL : 0);
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
      if (root_pos == NO_INDEX)
        return 0;
      return root ? (give_data ? GIVE_ROOT : 0) : (got_data ? NEED_ROOT : 0);
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
      if (root_pos == NO_INDEX)
        return 0;
      return root ? (got_data ? NEED_ALL : 0) : (give_data ? GIVE_ALL : 0);
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
      return (give_data ? GIVE_SCAN : 0) | (got_data ? NEED_SCAN : 0);
    default:
      /* MPI_Alltoallv/w may carry any pattern, zero counts included (as Scalasca, not
       * replayed); operations without a data flow neither */
      return 0;
    }
}

static gboolean
comm_usable (const TraceComm *comm,
             int              n_ranks)
{
  if (comm->size <= 1 || !comm->world || comm->is_inter)
    return FALSE;
  for (int m = 0; m < comm->size; m++)
    if (comm->world[m] < 0 || comm->world[m] >= n_ranks)
      return FALSE;
  return TRUE;
}

/* Collective plans: which communicators carry collectives, and how many instances every member
 * has (an aborted run may leave some without partners: those are not replayed). One reduction
 * over all ranks, so that every process knows every plan: the MPI transport builds each
 * communicator with a split over all processes, so all of them must ask for the same
 * communicators in the same order, members or not. */
static void
make_plans (ClockRepair *cr)
{
  Transport *t = cr->t;
  TraceDefs *defs = cr->loc[0].rd->defs;
  guint n_comms = defs->comms->len;
  g_autofree gint64 **cnt = g_new0 (gint64 *, t->n_local);
  GArray *plans = g_array_new (FALSE, TRUE, sizeof (Plan));

  /* per communicator: −(instances on this rank) (G_MININT64 if not a member: the maximum is
   * then −(fewest instances of any member)), whether any member has a scan, whether any has
   * collectives at all */
  for (int i = 0; i < t->n_local; i++)
    {
      RankData *rd = cr->loc[i].rd;
      /* slots 3 (2c + nb): blocking (nb = 0) and non-blocking (nb = 1) instances, two
       * sequences that never match each other */
      cnt[i] = g_new (gint64, 6 * MAX (n_comms, 1));
      for (guint c = 0; c < n_comms; c++)
        {
          TraceComm *comm = defs->comms->pdata[c];
          gboolean member = FALSE;
          for (int m = 0; comm->world && m < comm->size; m++)
            member |= comm->world[m] == rd->rank;
          for (guint nb = 0; nb < 2; nb++)
            {
              cnt[i][3 * (2 * c + nb)] = member ? 0 : G_MININT64;
              cnt[i][3 * (2 * c + nb) + 1] = 0;
              cnt[i][3 * (2 * c + nb) + 2] = 0;
            }
        }
      for (guint k = 0; k < rd->colls->len + rd->nbcs->len; k++)
        {
          gboolean nb = k >= rd->colls->len;
          guint32 comm = nb ? g_array_index (rd->nbcs, NbcRec, k - rd->colls->len).comm
                            : g_array_index (rd->colls, CollRec, k).comm;
          guint32 op = nb ? g_array_index (rd->nbcs, NbcRec, k - rd->colls->len).op
                          : g_array_index (rd->colls, CollRec, k).op;
          gint64 *x;
          if (comm >= n_comms)
            continue;
          x = cnt[i] + 3 * (2 * comm + nb);
          if (x[0] != G_MININT64)
            x[0]--;
          x[1] |= op == OTF2_COLLECTIVE_OP_SCAN || op == OTF2_COLLECTIVE_OP_EXSCAN;
          x[2] = 1;
        }
    }
  t->allreduce_max (t, cr->world_key, cr->world, t->n_ranks, cnt, 6 * MAX (n_comms, 1));

  for (guint cn = 0; cn < 2 * n_comms; cn++)
    {
      guint c = cn / 2;
      gboolean nb = cn % 2;
      TraceComm *comm = defs->comms->pdata[c];
      Plan p = { 0 };

      if (cnt[0][3 * cn + 2] <= 0 || cnt[0][3 * cn] == G_MININT64 || !comm_usable (comm, t->n_ranks))
        continue;
      p.key = comm->index;
      p.members = comm->world;
      p.n_members = comm->size;
      p.n = (gsize) -cnt[0][3 * cn];
      p.has_scan = cnt[0][3 * cn + 1] > 0;
      if (p.n == 0)
        continue;
      p.slots = g_new0 (guint32 *, t->n_local);
      for (int i = 0; i < t->n_local; i++)
        {
          RankData *rd = cr->loc[i].rd;
          int me = -1;
          guint n = 0;
          for (int m = 0; m < comm->size; m++)
            if (comm->world[m] == rd->rank)
              me = m;
          if (me < 0)
            continue;
          p.slots[i] = g_new (guint32, MAX (nb ? rd->nbcs->len : rd->colls->len, 1));
          for (guint k = 0; !nb && k < rd->colls->len; k++)
            if (g_array_index (rd->colls, CollRec, k).comm == comm->index)
              p.slots[i][n++] = k;
          for (guint k = 0; nb && k < rd->nbcs->len; k++)
            if (g_array_index (rd->nbcs, NbcRec, k).comm == comm->index)
              p.slots[i][n++] = rd->colls->len + k;
          for (gsize k = 0; k < p.n; k++)
            {
              guint32 q = p.slots[i][k];
              if (q < rd->colls->len)
                {
                  const CollRec *r = &g_array_index (rd->colls, CollRec, q);
                  cr->loc[i].slots[q].role = coll_role (r->op, r->root, r->sent > 0, r->received > 0, me);
                }
              else
                {
                  const NbcRec *r = &g_array_index (rd->nbcs, NbcRec, q - rd->colls->len);
                  cr->loc[i].slots[q].role = coll_role (r->op, r->root, r->sent, r->received, me);
                }
            }
        }
      g_array_append_val (plans, p);
    }
  for (int i = 0; i < t->n_local; i++)
    g_free (cnt[i]);

  /* MPI_Init and MPI_Finalize: every rank waits for all (Scalasca does the same) */
  {
    Plan p = { 0 };
    p.key = cr->world_key;
    p.members = cr->world;
    p.n_members = t->n_ranks;
    p.n = 2;
    p.slots = g_new0 (guint32 *, t->n_local);
    for (int i = 0; i < t->n_local; i++)
      {
        Local *L = &cr->loc[i];
        RankData *rd = L->rd;
        guint base = rd->colls->len + rd->nbcs->len;
        p.slots[i] = g_new (guint32, 2);
        p.slots[i][0] = base;
        p.slots[i][1] = base + 1;
        if (rd->init_call != NO_INDEX && rd->init_pos[0] && rd->init_pos[1])
          L->slots[base].role = GIVE_ALL | NEED_ALL;
        if (rd->finalize_call != NO_INDEX && rd->finalize_pos[0] && rd->finalize_pos[1])
          L->slots[base + 1].role = GIVE_ALL | NEED_ALL;
      }
    if (t->n_ranks > 1)
      g_array_append_val (plans, p);
    else
      {
        for (int i = 0; i < t->n_local; i++)
          g_free (p.slots[i]);
        g_free (p.slots);
      }
  }
  cr->n_plans = plans->len;
  cr->plans = (Plan *) g_array_free (plans, FALSE);
}

/* The collective calls that take part, in event order (the records are in order already but
 * for MPI_Init and MPI_Finalize, kept last). */
static void
make_slot_order (Local *L)
{
  RankData *rd = L->rd;
  guint nc = rd->colls->len, base = nc + rd->nbcs->len;
  g_autofree guint64 *enter_pos = g_new (guint64, L->n_slots);
  g_autofree guint64 *end_pos = g_new (guint64, L->n_slots);

  L->gives = g_new (guint32, L->n_slots);
  L->needs = g_new (guint32, L->n_slots);
  for (guint k = 0; k < L->n_slots; k++)
    {
      Slot *s = &L->slots[k];
      s->need = G_MININT64;
      s->give = G_MININT64;
      s->end_c = G_MININT64;
      s->slack = G_MAXINT64;
      if (!s->role)
        continue;
      if (k < nc)
        {
          const CollRec *r = &g_array_index (rd->colls, CollRec, k);
          s->enter_pos = r->enter_pos;
          s->end_pos = r->end_pos;
          s->enter = g_array_index (rd->calls, CallRec, r->call).enter;
          s->end = r->end;
        }
      else if (k < base)
        {
          const NbcRec *r = &g_array_index (rd->nbcs, NbcRec, k - nc);
          s->enter_pos = r->enter_pos;
          s->end_pos = r->end_pos;
          s->enter = r->start;
          s->end = r->end;
        }
      else
        {
          guint32 call = k == base ? rd->init_call : rd->finalize_call;
          const guint64 *p = k == base ? rd->init_pos : rd->finalize_pos;
          s->enter_pos = p[0];
          s->end_pos = p[1];
          s->enter = g_array_index (rd->calls, CallRec, call).enter;
          s->end = g_array_index (rd->calls, CallRec, call).leave;
        }
      enter_pos[k] = s->enter_pos;
      end_pos[k] = s->end_pos;
      if (s->role & GIVES)
        L->gives[L->n_gives++] = k;
      if (s->role & NEEDS)
        L->needs[L->n_needs++] = k;
    }
  g_qsort_with_data (L->gives, L->n_gives, sizeof (guint32), slot_cmp, enter_pos);
  g_qsort_with_data (L->needs, L->n_needs, sizeof (guint32), slot_cmp, end_pos);
}

/* One forward pass over a location: the anchors from what is known of the sends. The four
 * kinds of events come from their own arrays, each in event order, merged by position.
 * @count: count the ends that lie before what they depend on as recorded (the first pass). */
static void
forward_pass (Local   *L,
              gboolean count)
{
  const SendRec *sends = (const SendRec *) L->rd->sends->data;
  const RecvRec *recvs = (const RecvRec *) L->rd->recvs->data;
  guint ns = L->rd->sends->len, nr = L->rd->recvs->len;
  guint si = 0, ri = 0, gi = 0, ei = 0;
  const ClockAnchor *last = NULL;

  g_array_set_size (L->anchors, 0);
  g_array_set_size (L->anchor_at, 0);
  for (;;)
    {
      guint64 ps = si < ns ? sends[si].pos : G_MAXUINT64;
      guint64 pr = ri < nr ? recvs[ri].pos : G_MAXUINT64;
      guint64 pg = gi < L->n_gives ? L->slots[L->gives[gi]].enter_pos : G_MAXUINT64;
      guint64 pe = ei < L->n_needs ? L->slots[L->needs[ei]].end_pos : G_MAXUINT64;
      guint64 p = MIN (MIN (ps, pr), MIN (pg, pe));
      Tick t, x, need = G_MININT64, *out;

      if (p == G_MAXUINT64)
        break;
      if (p == ps)
        {
          L->send_c[si] = clock_forward (last, sends[si].time);
          si++;
          continue;
        }
      if (p == pg)
        {
          Slot *s = &L->slots[L->gives[gi++]];
          s->give = clock_forward (last, s->enter);
          continue;
        }
      if (p == pr)
        {
          t = recvs[ri].time;
          if (L->recv_k[ri] != NO_INDEX)
            need = L->recv_in[ri] + MU;
          out = &L->recv_c[ri++];
        }
      else
        {
          Slot *s = &L->slots[L->needs[ei++]];
          t = s->end;
          if (s->need != G_MININT64)
            need = s->need + MU;
          if (count && s->need > t)
            L->found_coll++;
          out = &s->end_c;
        }
      x = clock_forward (last, t);
      if (need > x)
        {
          ClockAnchor a = { p, t, x, need, 0 };
          guint32 at[2] = { si, gi };
          g_array_append_val (L->anchors, a);
          g_array_append_val (L->anchor_at, at);
          last = &g_array_index (L->anchors, ClockAnchor, L->anchors->len - 1);
          x = need;
        }
      *out = x;
    }
}

/* ---- exchanges --------------------------------------------------------------------------- */

typedef struct
{
  guint32 comm;
  guint32 tag;
  Tick    time;
} MatchMsg;   /* 16 bytes, no padding: sent as bytes */

typedef struct
{
  guint32 k;
  guint32 pad;
  Tick    c;
} BackMsg;

static GByteArray ***
buffers_new (Transport *t)
{
  GByteArray ***b = g_new0 (GByteArray **, t->n_local);
  for (int i = 0; i < t->n_local; i++)
    b[i] = g_new0 (GByteArray *, t->n_ranks);
  return b;
}

static void
buffers_free (Transport    *t,
              GByteArray ***b)
{
  for (int i = 0; i < t->n_local; i++)
    {
      for (int r = 0; r < t->n_ranks; r++)
        if (b[i][r])
          g_byte_array_unref (b[i][r]);
      g_free (b[i]);
    }
  g_free (b);
}

typedef struct
{
  GArray *k;      /* guint: indices into the sender's messages, in order */
  guint   next;
} Chan;

static void
chan_free (gpointer p)
{
  Chan *c = p;
  g_array_unref (c->k);
  g_free (c);
}

/* The messages from one source, by channel. Most sources use one channel only: then the k-th
 * receive is simply the k-th message, without a table. */
typedef struct
{
  gboolean    ready;
  gboolean    single;
  gsize       key;        /* the single channel */
  guint       next, n;
  GHashTable *chans;      /* channel key -> Chan */
  Chan       *last;       /* consecutive receives usually share their channel */
  gsize       last_key;
} Sources;

static guint
sources_next (Sources    *so,
              GByteArray *msgs,
              gsize       key)
{
  const MatchMsg *m = (const MatchMsg *) msgs->data;
  Chan *c;

  if (!so->ready)
    {
      so->ready = TRUE;
      so->n = msgs->len / sizeof (MatchMsg);
      so->single = TRUE;
      so->key = so->n ? ((gsize) m[0].comm << 32) | m[0].tag : 0;
      for (guint k = 1; k < so->n && so->single; k++)
        so->single = (((gsize) m[k].comm << 32) | m[k].tag) == so->key;
      if (!so->single)
        {
          so->chans = g_hash_table_new_full (key64_hash, g_direct_equal, NULL, chan_free);
          for (guint k = 0; k < so->n; k++)
            {
              gsize mk = ((gsize) m[k].comm << 32) | m[k].tag;
              if (!so->last || so->last_key != mk)
                {
                  so->last = g_hash_table_lookup (so->chans, GSIZE_TO_POINTER (mk));
                  so->last_key = mk;
                  if (!so->last)
                    {
                      so->last = g_new0 (Chan, 1);
                      so->last->k = g_array_new (FALSE, FALSE, sizeof (guint));
                      g_hash_table_insert (so->chans, GSIZE_TO_POINTER (mk), so->last);
                    }
                }
              g_array_append_val (so->last->k, k);
            }
          so->last = NULL;
        }
    }
  if (so->single)
    return so->n && key == so->key && so->next < so->n ? so->next++ : NO_INDEX;
  if (so->last && so->last_key == key)
    c = so->last;
  else
    {
      c = g_hash_table_lookup (so->chans, GSIZE_TO_POINTER (key));
      so->last = c;
      so->last_key = key;
    }
  if (!c || c->next >= c->k->len)
    return NO_INDEX;
  return g_array_index (c->k, guint, c->next++);
}

typedef struct
{
  ClockRepair   *cr;
  GByteArray ***out;
  GByteArray ***in;
} MatchPhase;

/* Local rank @i's sends, to each receiver in order (and where each went). */
static void
match_pack (int      i,
            gpointer data)
{
  MatchPhase *ph = data;
  Transport *t = ph->cr->t;
  ClockRepair *cr = ph->cr;
  GByteArray ***out = ph->out;

    {
      Local *L = &cr->loc[i];
      RankData *rd = L->rd;
      g_autofree guint *count = g_new0 (guint, t->n_ranks);
      L->to_peer = g_new0 (GArray *, t->n_ranks);
      for (guint s = 0; s < rd->sends->len; s++)
        {
          gint32 peer = g_array_index (rd->sends, SendRec, s).peer;
          if (peer >= 0 && peer < t->n_ranks)
            count[peer]++;
        }
      for (int p = 0; p < t->n_ranks; p++)
        if (count[p])
          {
            L->to_peer[p] = g_array_sized_new (FALSE, FALSE, sizeof (guint32), count[p]);
            g_array_set_size (L->to_peer[p], count[p]);
            out[i][p] = g_byte_array_sized_new (count[p] * sizeof (MatchMsg));
            g_byte_array_set_size (out[i][p], count[p] * sizeof (MatchMsg));
            count[p] = 0;   /* from here: written so far */
          }
      for (guint s = 0; s < rd->sends->len; s++)
        {
          const SendRec *sr = &g_array_index (rd->sends, SendRec, s);
          MatchMsg *m;
          if (sr->peer < 0 || sr->peer >= t->n_ranks)
            continue;
          g_array_index (L->to_peer[sr->peer], guint32, count[sr->peer]) = s;
          m = (MatchMsg *) out[i][sr->peer]->data + count[sr->peer]++;
          m->comm = sr->comm;
          m->tag = sr->tag;
          m->time = sr->time;
        }
    }
}

/* Local rank @i's receives: the send each completes. */
static void
match_unpack (int      i,
              gpointer data)
{
  MatchPhase *ph = data;
  Transport *t = ph->cr->t;
  ClockRepair *cr = ph->cr;
  GByteArray ***in = ph->in;

    {
      Local *L = &cr->loc[i];
      RankData *rd = L->rd;
      g_autofree Sources *src = g_new0 (Sources, t->n_ranks);

      for (guint r = 0; r < rd->recvs->len; r++)
        {
          const RecvRec *rr = &g_array_index (rd->recvs, RecvRec, r);
          gsize key = ((gsize) rr->comm << 32) | rr->tag;
          guint k;

          L->recv_k[r] = NO_INDEX;
          L->recv_in[r] = G_MININT64;
          if (rr->peer < 0 || rr->peer >= t->n_ranks)
            continue;
          k = sources_next (&src[rr->peer], in[i][rr->peer], key);
          if (k == NO_INDEX)
            continue;
          L->recv_k[r] = k;
          L->recv_in[r] = ((const MatchMsg *) in[i][rr->peer]->data)[k].time;
          if (rr->time < L->recv_in[r])
            L->found_p2p++;
        }
      for (int p = 0; p < t->n_ranks; p++)
        if (src[p].chans)
          g_hash_table_unref (src[p].chans);
    }
}

/* Which send each receive completes: the k-th receive of a (source, communicator, tag) channel
 * is the k-th send on it (MPI's non-overtaking rule; wildcards are recorded resolved). */
static gboolean
match_messages (ClockRepair  *cr,
                GError      **error)
{
  Transport *t = cr->t;
  GByteArray ***out = buffers_new (t);
  GByteArray ***in = buffers_new (t);
  MatchPhase ph = { cr, out, in };
  gboolean ok;

  replay_for_each_local (t, match_pack, &ph);
  ok = t->alltoallv (t, out, in, error);
  buffers_free (t, out);
  if (ok)
    replay_for_each_local (t, match_unpack, &ph);
  buffers_free (t, in);
  return ok;
}

/* The sends' clocks to their receivers; returns whether any receive learnt something new. */
static gboolean
exchange_sends (ClockRepair  *cr,
                gboolean     *changed,
                GError      **error)
{
  Transport *t = cr->t;
  GByteArray ***out = buffers_new (t);
  GByteArray ***in = buffers_new (t);
  gboolean ok;

  for (int i = 0; i < t->n_local; i++)
    {
      Local *L = &cr->loc[i];
      for (int p = 0; p < t->n_ranks; p++)
        {
          GArray *sends = L->to_peer[p];
          if (!sends)
            continue;
          out[i][p] = g_byte_array_sized_new (sends->len * sizeof (Tick));
          g_byte_array_set_size (out[i][p], sends->len * sizeof (Tick));
          for (guint k = 0; k < sends->len; k++)
            ((Tick *) out[i][p]->data)[k] = L->send_c[g_array_index (sends, guint32, k)];
        }
    }
  ok = t->alltoallv (t, out, in, error);
  buffers_free (t, out);
  for (int i = 0; ok && i < t->n_local; i++)
    {
      Local *L = &cr->loc[i];
      RankData *rd = L->rd;
      for (guint r = 0; r < rd->recvs->len; r++)
        {
          gint32 src = g_array_index (rd->recvs, RecvRec, r).peer;
          Tick v;
          if (L->recv_k[r] == NO_INDEX || (L->recv_k[r] + 1) * sizeof (Tick) > in[i][src]->len)
            continue;
          v = ((const Tick *) in[i][src]->data)[L->recv_k[r]];
          if (v != L->recv_in[r])
            {
              L->recv_in[r] = v;
              *changed = TRUE;
            }
        }
    }
  buffers_free (t, in);
  return ok;
}

/* The receives' clocks back to their senders: how far a send may move. */
static gboolean
exchange_back (ClockRepair  *cr,
               GError      **error)
{
  Transport *t = cr->t;
  GByteArray ***out = buffers_new (t);
  GByteArray ***in = buffers_new (t);
  gboolean ok;

  for (int i = 0; i < t->n_local; i++)
    {
      Local *L = &cr->loc[i];
      RankData *rd = L->rd;
      for (guint r = 0; r < rd->recvs->len; r++)
        {
          gint32 src = g_array_index (rd->recvs, RecvRec, r).peer;
          BackMsg m = { L->recv_k[r], 0, L->recv_c[r] };
          if (L->recv_k[r] == NO_INDEX)
            continue;
          if (!out[i][src])
            out[i][src] = g_byte_array_new ();
          g_byte_array_append (out[i][src], (const guint8 *) &m, sizeof m);
        }
    }
  ok = t->alltoallv (t, out, in, error);
  buffers_free (t, out);
  for (int i = 0; ok && i < t->n_local; i++)
    {
      Local *L = &cr->loc[i];
      for (int dst = 0; dst < t->n_ranks; dst++)
        {
          const BackMsg *m = (const BackMsg *) in[i][dst]->data;
          guint nm = in[i][dst]->len / sizeof (BackMsg);
          for (guint q = 0; q < nm; q++)
            if (L->to_peer[dst] && m[q].k < L->to_peer[dst]->len)
              {
                guint32 s = g_array_index (L->to_peer[dst], guint32, m[q].k);
                L->send_slack[s] = MIN (L->send_slack[s], m[q].c);
              }
        }
    }
  buffers_free (t, in);
  return ok;
}

/* The collective enters to the ends that depend on them; returns whether any need changed.
 * @backward: instead, the earliest dependent end to every enter (Slot.slack). */
static void
exchange_collectives (ClockRepair *cr,
                      gboolean     backward,
                      gboolean    *changed)
{
  Transport *t = cr->t;

  for (guint p = 0; p < cr->n_plans; p++)
    {
      Plan *pl = &cr->plans[p];
      g_autofree gint64 **vals = g_new0 (gint64 *, t->n_local);
      g_autofree gint64 **scan = g_new0 (gint64 *, t->n_local);
      gsize n = pl->n;

      if (n == 0)
        continue;
      for (int i = 0; i < t->n_local; i++)
        {
          Local *L = &cr->loc[i];
          if (!pl->slots[i])
            continue;
          vals[i] = g_new (gint64, n * 2);
          scan[i] = g_new (gint64, n);
          for (gsize k = 0; k < n; k++)
            {
              const Slot *s = &L->slots[pl->slots[i][k]];
              if (backward)
                {
                  vals[i][2 * k] = (s->role & NEEDS) && s->end_c != G_MININT64 ? -s->end_c : G_MININT64;
                  vals[i][2 * k + 1] = G_MININT64;
                  scan[i][k] = G_MININT64;
                }
              else
                {
                  vals[i][2 * k] = s->role & GIVE_ALL ? s->give : G_MININT64;
                  vals[i][2 * k + 1] = s->role & GIVE_ROOT ? s->give : G_MININT64;
                  scan[i][k] = s->role & GIVE_SCAN ? s->give : G_MININT64;
                }
            }
        }
      t->allreduce_max (t, pl->key, pl->members, pl->n_members, vals, n * 2);
      if (pl->has_scan && !backward)
        t->scan_max (t, pl->key, pl->members, pl->n_members, scan, n);
      for (int i = 0; i < t->n_local; i++)
        {
          Local *L = &cr->loc[i];
          if (!pl->slots[i])
            continue;
          for (gsize k = 0; k < n; k++)
            {
              Slot *s = &L->slots[pl->slots[i][k]];
              if (backward)
                {
                  if ((s->role & GIVES) && vals[i][2 * k] != G_MININT64)
                    s->slack = -vals[i][2 * k];
                }
              else
                {
                  Tick need = s->role & NEED_ALL ? vals[i][2 * k]
                              : s->role & NEED_ROOT ? vals[i][2 * k + 1]
                              : s->role & NEED_SCAN ? scan[i][k]
                                                    : G_MININT64;
                  if (need != s->need)
                    {
                      s->need = need;
                      *changed = TRUE;
                    }
                }
            }
          g_free (vals[i]);
          g_free (scan[i]);
        }
    }
}

/* TRUE on every process when @flag is TRUE on any. */
static gboolean
any (ClockRepair *cr,
     gboolean    *flags)
{
  Transport *t = cr->t;
  g_autofree gint64 **v = g_new0 (gint64 *, t->n_local);
  gboolean r = FALSE;

  for (int i = 0; i < t->n_local; i++)
    {
      v[i] = g_new (gint64, 1);
      v[i][0] = flags[i];
    }
  t->allreduce_max (t, cr->world_key, cr->world, t->n_ranks, v, 1);
  for (int i = 0; i < t->n_local; i++)
    {
      r = v[i][0] > 0;
      g_free (v[i]);
    }
  return r;
}

/* ---- backward amortization ---------------------------------------------------------------- */

/* How far before the jump at @b a send (collective enter) with forward time @x and @slack
 * (the earliest receive depending on it) lets the window reach: the ramp may lift it by at
 * most slack − μ − x. */
static Tick
limit_window (const ClockAnchor *b,
              Tick               w,
              Tick               x,
              Tick               slack)
{
  Tick jump = b->c - b->pre, room, d;

  if (slack == G_MAXINT64 || slack - MU - x >= jump)
    return w;
  room = slack - MU - x;
  d = b->pre - x;
  if (room <= 0)
    return MIN (w, d);
  return MIN (w, (Tick) ((__int128) jump * d / (jump - room)));
}

static void
backward_windows (Local *L)
{
  ClockAnchor *a = (ClockAnchor *) L->anchors->data;
  const guint32 (*at)[2] = (const guint32 (*)[2]) L->anchor_at->data;

  for (guint j = 0; j < L->anchors->len; j++)
    {
      ClockAnchor *b = &a[j];
      Tick jump = b->c - b->pre;
      Tick lower = j > 0 ? a[j - 1].c : MIN (L->rd->first_time, b->pre);
      Tick w = jump > G_MAXINT64 / CLOCK_SLOPE_DIV ? G_MAXINT64 : jump * CLOCK_SLOPE_DIV;

      w = MIN (w, b->pre - lower);
      /* the sends and the collective enters since the previous jump, latest first; earlier
       * ones have earlier times, so the first one before the window ends the search */
      for (guint32 i = at[j][0]; i-- > (j > 0 ? at[j - 1][0] : 0) && w > 0;)
        {
          if (L->send_c[i] < b->pre - w)
            break;
          w = limit_window (b, w, L->send_c[i], L->send_slack[i]);
        }
      for (guint32 i = at[j][1]; i-- > (j > 0 ? at[j - 1][1] : 0) && w > 0;)
        {
          const Slot *s = &L->slots[L->gives[i]];
          if (s->give < b->pre - w)
            break;
          w = limit_window (b, w, s->give, s->slack);
        }
      b->window = MAX (w, 0);
    }
}

/* ---- the pass ------------------------------------------------------------------------------ */

/* The per-rank steps, on the transport's threads (replay-threads.c). */
static void
slot_order_one (int      i,
                gpointer data)
{
  ClockRepair *cr = data;
  make_slot_order (&cr->loc[i]);
}

typedef struct
{
  ClockRepair *cr;
  gboolean     first;
  gboolean    *flags;
} ForwardPhase;

static void
forward_one (int      i,
             gpointer data)
{
  ForwardPhase *fp = data;
  Local *L = &fp->cr->loc[i];
  forward_pass (L, fp->first);
  fp->flags[i] = L->anchors->len > 0;
}

static void
windows_one (int      i,
             gpointer data)
{
  ClockRepair *cr = data;
  Local *L = &cr->loc[i];
  backward_windows (L);
  if (L->anchors->len)
    L->map = clock_map_new ((const ClockAnchor *) L->anchors->data, L->anchors->len);
}

ClockRepair *
clock_repair_run (Transport  *t,
                  RankData  **rds,
                  GError    **error)
{
  ClockRepair *cr = g_new0 (ClockRepair, 1);
  g_autofree gboolean *flags = g_new0 (gboolean, t->n_local);
  gboolean changed;
  guint pass = 0;

  cr->t = t;
  cr->n_local = t->n_local;
  cr->loc = g_new0 (Local, t->n_local);
  cr->world = g_new (int, t->n_ranks);
  for (int r = 0; r < t->n_ranks; r++)
    cr->world[r] = r;
  cr->world_key = rds[0]->defs->comms->len;
  for (int i = 0; i < t->n_local; i++)
    {
      Local *L = &cr->loc[i];
      RankData *rd = rds[i];
      guint nr = MAX (rd->recvs->len, 1), ns = MAX (rd->sends->len, 1);
      L->rd = rd;
      L->recv_k = g_new (guint32, nr);
      L->recv_in = g_new (Tick, nr);
      L->recv_c = g_new (Tick, nr);
      L->send_c = g_new (Tick, ns);
      L->send_slack = g_new (Tick, ns);
      for (guint s = 0; s < rd->sends->len; s++)
        L->send_slack[s] = G_MAXINT64;
      L->n_slots = rd->colls->len + rd->nbcs->len + 2;
      L->slots = g_new0 (Slot, L->n_slots);
      L->anchors = g_array_new (FALSE, FALSE, sizeof (ClockAnchor));
      L->anchor_at = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
    }
  make_plans (cr);
  replay_for_each_local (t, slot_order_one, cr);
  if (!match_messages (cr, error))
    goto failed;

  /* the first pass knows the original times: the collectives' original enters */
  for (int i = 0; i < t->n_local; i++)
    for (guint k = 0; k < cr->loc[i].n_slots; k++)
      if (cr->loc[i].slots[k].role & GIVES)
        cr->loc[i].slots[k].give = cr->loc[i].slots[k].enter;
  changed = FALSE;
  exchange_collectives (cr, FALSE, &changed);
  cr->stats.converged = TRUE;
  for (;;)
    {
      pass++;
      ForwardPhase fp = { cr, pass == 1, flags };
      replay_for_each_local (t, forward_one, &fp);
      if (!any (cr, flags))
        break;   /* no correction anywhere: the times stay as they are */
      cr->changed = TRUE;
      changed = FALSE;
      if (!exchange_sends (cr, &changed, error))
        goto failed;
      exchange_collectives (cr, FALSE, &changed);
      for (int i = 0; i < t->n_local; i++)
        flags[i] = changed;
      if (!any (cr, flags))
        break;   /* the anchors of this pass are final */
      if (pass == MAX_PASSES)
        {
          cr->stats.converged = FALSE;
          break;
        }
    }
  cr->stats.passes = pass;

  if (cr->changed)
    {
      if (!exchange_back (cr, error))
        goto failed;
      exchange_collectives (cr, TRUE, NULL);
      replay_for_each_local (t, windows_one, cr);
    }

  /* global figures: every rank's counts in its own slot, then a max reduction */
  {
    int n = t->n_ranks;
    g_autofree gint64 **v = g_new0 (gint64 *, t->n_local);
    for (int i = 0; i < t->n_local; i++)
      {
        Local *L = &cr->loc[i];
        int r = L->rd->rank;
        Tick largest = 0;
        v[i] = g_new (gint64, 3 * n + 1);
        for (int k = 0; k < 3 * n + 1; k++)
          v[i][k] = 0;
        for (guint k = 0; k < L->anchors->len; k++)
          {
            const ClockAnchor *a = &g_array_index (L->anchors, ClockAnchor, k);
            largest = MAX (largest, a->c - a->t);
          }
        v[i][3 * r] = L->found_p2p;
        v[i][3 * r + 1] = L->found_coll;
        v[i][3 * r + 2] = cr->changed ? L->anchors->len : 0;
        v[i][3 * n] = cr->changed ? largest : 0;
      }
    t->allreduce_max (t, cr->world_key, cr->world, n, v, 3 * n + 1);
    for (int r = 0; r < n; r++)
      {
        cr->stats.violations_p2p += v[0][3 * r];
        cr->stats.violations_coll += v[0][3 * r + 1];
        cr->stats.corrections += v[0][3 * r + 2];
      }
    cr->stats.largest = v[0][3 * n];
    for (int i = 0; i < t->n_local; i++)
      g_free (v[i]);
  }
  return cr;

failed:
  /* a failed exchange leaves the other processes inside a collective: the caller aborts */
  clock_repair_free (cr);
  return NULL;
}

gboolean
clock_repair_changed (const ClockRepair *cr)
{
  return cr->changed;
}

const ClockMap *
clock_repair_map (const ClockRepair *cr,
                  int                i)
{
  return i >= 0 && i < cr->n_local ? cr->loc[i].map : NULL;
}

void
clock_repair_stats (const ClockRepair *cr,
                    ClockRepairStats  *stats)
{
  *stats = cr->stats;
}

void
clock_repair_note (const ClockRepair *cr,
                   RankData         **rds)
{
  for (int i = 0; i < cr->n_local; i++)
    {
      const Local *L = &cr->loc[i];
      RankData *rd = rds[i];
      Tick largest = 0;
      for (guint k = 0; cr->changed && k < L->anchors->len; k++)
        {
          const ClockAnchor *a = &g_array_index (L->anchors, ClockAnchor, k);
          largest = MAX (largest, a->c - a->t);
        }
      rd->clock_repair_ran = TRUE;
      rd->clock_found_p2p = L->found_p2p;
      rd->clock_found_coll = L->found_coll;
      rd->clock_corrections = cr->changed ? L->anchors->len : 0;
      rd->clock_largest = largest;
      rd->clock_passes = cr->stats.passes;
      rd->clock_converged = cr->stats.converged;
    }
}

static const ClockMap *
map_of (gpointer data,
        int      i)
{
  return clock_repair_map (data, i);
}

gboolean
clock_repair_reread (ClockRepair      *cr,
                     const char       *anchor,
                     Transport        *t,
                     RankData        **rds,
                     AnalyzeProgress  *prog,
                     GError          **error)
{
  gboolean ok = analyze_read_ranks (t, anchor, rds, map_of, cr, prog, 0.57, 0.6,
                                    _("reading events in repaired time"), error);
  g_autofree gboolean *bad = g_new0 (gboolean, t->n_local);

  for (int i = 0; i < t->n_local; i++)
    {
      bad[i] = !ok;
      cr->loc[i].rd = rds[i];
    }
  if (any (cr, bad))
    {
      if (ok)
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                             _("another rank could not read its trace again in repaired time"));
      return FALSE;
    }
  clock_repair_note (cr, rds);
  return TRUE;
}

void
clock_repair_free (ClockRepair *cr)
{
  if (!cr)
    return;
  for (int i = 0; i < cr->n_local; i++)
    {
      Local *L = &cr->loc[i];
      g_free (L->gives);
      g_free (L->needs);
      g_free (L->recv_k);
      g_free (L->recv_in);
      g_free (L->recv_c);
      g_free (L->send_c);
      g_free (L->send_slack);
      for (int p = 0; L->to_peer && p < cr->t->n_ranks; p++)
        if (L->to_peer[p])
          g_array_unref (L->to_peer[p]);
      g_free (L->to_peer);
      g_free (L->slots);
      g_array_unref (L->anchors);
      g_array_unref (L->anchor_at);
      clock_map_free (L->map);
    }
  for (guint p = 0; p < cr->n_plans; p++)
    {
      for (int i = 0; i < cr->n_local; i++)
        g_free (cr->plans[p].slots[i]);
      g_free (cr->plans[p].slots);
    }
  g_free (cr->plans);
  g_free (cr->loc);
  g_free (cr->world);
  g_free (cr);
}
