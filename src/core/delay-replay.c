/* delay-replay.c — the backward replay of the root-cause analysis: every rank walks its
 * synchronization points from the last to the first.
 *
 * A rank that waited (a Late Sender receive, a Late Receiver send completion, a collective
 * member that came early) sends the rank that made it wait: its waiting time, the time its call
 * paths spent since they last synchronized (its time map), the long-term costs its own wait has
 * accumulated from later waits it caused, and whether the critical path runs through it. The
 * rank that made it wait (the sender, the receiver, the collective's latest or root rank)
 * compares that with its own time since the same synchronization: where it spent more, that is
 * the delay. The wait is charged to those call paths in proportion to their excess (short-term
 * costs, at most the wait itself); the long-term costs it received are charged the same way;
 * and the part of the delay explained by its own earlier waits makes those waits propagate:
 * they receive the costs, to be passed on when the replay reaches them. The formulas are
 * scout's (Scalasca 2.6, Delay.MPI.pattern, DelayOps.cpp, MpiDelayOps.cpp), listed in
 * PATTERNS.md; docs/decisions/2026-11-28-root-causes.md says where they differ.
 *
 * The messages go through replay-msg.c: a rank stops at a point whose message is not there
 * yet and goes on when it is. A collective is many-to-one: every synchronizing member sends to
 * the root, which needs them all; nobody waits for the root, so a collective never orders the
 * ranks beyond what the recorded run did. */
#include "delay-private.h"
#include "replay-msg.h"

#include <math.h>
#include <string.h>

enum
{
  KIND_LS = 1,
  KIND_LR = 2,
  KIND_COLL = 3,
};

/* The wait a rank hands to the rank that caused it (followed by n TmWire). */
typedef struct
{
  double  wait;
  double  cost[N_LT];
  guint32 flag;        /* the critical path continues on the receiving rank */
  guint32 n;
} WaitMsg;

typedef struct
{
  guint64 key;
  double  t;
} TmWire;

static const MetricId short_metric[N_LT] = {
  M_DELAY_LS, M_DELAY_LR, M_DELAY_BARRIER, M_DELAY_N2N, M_DELAY_12N, M_DELAY_N21
};
static const MetricId long_metric[N_LT] = {
  M_DELAY_LS_LT, M_DELAY_LR_LT, M_DELAY_BARRIER_LT, M_DELAY_N2N_LT, M_DELAY_12N_LT, M_DELAY_N21_LT
};

static int
lt_of_coll (guint8 ckind)
{
  switch (ckind)
    {
    case CK_BARRIER:
      return LT_BARRIER;
    case CK_N2N:
      return LT_N2N;
    case CK_12N:
      return LT_12N;
    default:
      return LT_N21;
    }
}

static SyncPoint *
sp_at (Causes *c,
       gint64  k)
{
  return &g_array_index (c->sps, SyncPoint, k);
}

gboolean
delay_sp_has_rank (RankData        *rd,
                   const SyncPoint *s,
                   int              rank)
{
  switch (s->sr_type)
    {
    case SR_ALL:
      return TRUE;
    case SR_ONE:
      return (int) s->sr_first == rank;
    default:
      {
        const gint32 *l = &g_array_index (rd->causes->sp_ranks, gint32, s->sr_first);
        guint lo = 0, hi = s->sr_n;
        while (lo < hi)
          {
            guint mid = lo + (hi - lo) / 2;
            if (l[mid] < rank)
              lo = mid + 1;
            else
              hi = mid;
          }
        return lo < s->sr_n && l[lo] == rank;
      }
    }
}

gint64
delay_prev_sp (RankData *rd,
               guint32   sp,
               int       rank)
{
  Causes *c = rd->causes;
  for (gint64 k = (gint64) sp - 1; k >= 0; k--)
    if (delay_sp_has_rank (rd, sp_at (c, k), rank))
      return k;
  return -1;
}

/* Per call path: the waiting time of the synchronization points strictly between @from and
 * @to (scout's CalculateWaitMap over getSynchpointsBetween), in the rank's scratch arrays
 * (one wait map at a time). */
typedef struct
{
  Causes *c;
  guint32 n;
  double  sum;
} WaitMap;

static void
waitmap_build (RankData *rd,
               gint64    from,
               gint64    to,
               WaitMap  *w)
{
  Causes *c = rd->causes;
  w->c = c;
  w->n = 0;
  w->sum = 0;
  for (gint64 k = from + 1; k < to; k++)
    {
      const SyncPoint *s = sp_at (c, k);
      guint32 cn;
      if (s->wait <= 0)
        continue;
      cn = c->tl->marks[s->mark].cnode;
      if (cn >= c->n_scratch)
        continue;
      if (!c->in_w[cn])
        {
          c->in_w[cn] = 1;
          c->list_w[w->n++] = cn;
        }
      c->acc_w[cn] += (double) s->wait;
      w->sum += (double) s->wait;
    }
}

static void
waitmap_free (WaitMap *w)
{
  for (guint32 k = 0; k < w->n; k++)
    {
      w->c->acc_w[w->c->list_w[k]] = 0.0;
      w->c->in_w[w->c->list_w[k]] = 0;
    }
  w->n = 0;
}

static double
waitmap_get (const WaitMap *w,
             guint32        cnode)
{
  return cnode < w->c->n_scratch ? w->c->acc_w[cnode] : 0.0;
}

/* scout's PruneDelayTimemap: the time map less the waits in it, and the part of the call at
 * @from that lies before its partner left (its waiting and communication time). The entry of
 * @from's call path stays even when it drops to zero. */
static void
prune (RankData      *rd,
       TimeMap       *tm,
       const WaitMap *w,
       gint64         from)
{
  Causes *c = rd->causes;
  GArray *kept = tm->e;   /* filtered in place: the kept entries keep their order */
  double sum = 0;
  guint j = 0;

  for (guint k = 0; k < kept->len; k++)
    {
      TmEntry e = g_array_index (kept, TmEntry, k);
      double d = e.t - waitmap_get (w, e.cnode);
      if (d > 0.0)
        {
          e.t = d;
          g_array_index (kept, TmEntry, j++) = e;
          sum += d;
        }
    }
  g_array_set_size (kept, j);
  if (from >= 0)
    {
      const SyncPoint *s = sp_at (c, from);
      guint32 cn = c->tl->marks[s->mark].cnode;
      guint64 key = delay_cnode_key (rd, cn);
      double span = (double) s->total - (double) s->completion;
      guint k;
      for (k = 0; k < kept->len && g_array_index (kept, TmEntry, k).key < key; k++)
        ;
      if (k == kept->len || g_array_index (kept, TmEntry, k).key != key)
        {
          TmEntry e = { key, cn, 0, 0.0 };
          g_array_insert_val (kept, k, e);
        }
      {
        TmEntry *e = &g_array_index (kept, TmEntry, k);
        double id = e->t;
        e->t = MAX (id - span, 0.0);
        sum -= MIN (span, id);
      }
    }
  tm->sum = sum;
}

/* scout's GetMpiDelayTimemap / GetSynchpointTimes: this rank's time since it last synchronized
 * with @rank (or since @from), pruned; @wait_sum gets the waits in that interval. */
static void
interval_map (RankData *rd,
              gint64    from,
              guint32   to,
              TimeMap  *out,
              double   *wait_sum)
{
  WaitMap w;
  timemap_init (out);
  timemap_runtimes (rd, from < 0 ? -1 : (gint64) sp_at (rd->causes, from)->mark, sp_at (rd->causes, to)->mark, out);
  waitmap_build (rd, from, to, &w);
  prune (rd, out, &w, from);
  if (wait_sum)
    *wait_sum = w.sum;
  waitmap_free (&w);
}

static GByteArray *
pack_wait (RankData      *rd,
           guint32        k,
           const TimeMap *tm,
           guint32        flag)
{
  Causes *c = rd->causes;
  GByteArray *b = g_byte_array_sized_new ((guint) (sizeof (WaitMsg) + (tm ? tm->e->len : 0) * sizeof (TmWire)));
  WaitMsg m = { 0 };

  m.wait = (double) sp_at (c, k)->wait;
  memcpy (m.cost, c->cost + (gsize) k * N_LT, sizeof m.cost);
  m.flag = flag;
  m.n = tm ? tm->e->len : 0;
  g_byte_array_append (b, (guint8 *) &m, sizeof m);
  for (guint q = 0; tm && q < tm->e->len; q++)
    {
      const TmEntry *e = &g_array_index (tm->e, TmEntry, q);
      TmWire w = { e->key, e->t };
      g_byte_array_append (b, (guint8 *) &w, sizeof w);
    }
  return b;
}

/* The wait map of a message: its header and its time map (sorted by key as sent). */
static gboolean
unpack_wait (GBytes   *msg,
             WaitMsg  *m,
             TimeMap  *tm)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (msg, &len);

  timemap_init (tm);
  if (len < sizeof *m)
    return FALSE;
  memcpy (m, p, sizeof *m);
  if (len < sizeof *m + (gsize) m->n * sizeof (TmWire))
    return FALSE;
  g_array_set_size (tm->e, m->n);
  for (guint32 q = 0; q < m->n; q++)
    {
      TmWire w;
      TmEntry *e = &g_array_index (tm->e, TmEntry, q);
      memcpy (&w, p + sizeof *m + (gsize) q * sizeof w, sizeof w);
      memset (e, 0, sizeof *e);
      e->key = w.key;
      e->cnode = NO_INDEX;
      e->t = w.t;
      tm->sum += w.t;
    }
  return TRUE;
}

static void
add_sev (RankData *rd,
         MetricId  m,
         guint32   cnode,
         double    v)
{
  causes_row (rd, cnode)[m - M_FIRST_CAUSE] += v;
}

/* DelayCostMap::addCosts with one scale */
static void
add_costs (Causes *c,
           int     lt,
           gint64  from,
           gint64  to,
           double  scale)
{
  if (!(scale > 0))
    return;
  for (gint64 k = from + 1; k < to; k++)
    {
      const SyncPoint *s = sp_at (c, k);
      if (s->wait > 0)
        c->cost[k * N_LT + lt] += scale * (double) s->wait;
    }
}

/* ---- critical path -------------------------------------------------------------------------- */

/* The critical path ran on this rank from the event of sync point @k to path_end: its time
 * there, less the wait at @k (scout's update_path_severities). */
static void
path_segment (RankData *rd,
              gint64    k)
{
  Causes *c = rd->causes;
  const SyncPoint *s = sp_at (c, k);
  guint32 cn = c->tl->marks[s->mark].cnode;
  TimeMap tm;
  double own = 0;

  timemap_init (&tm);
  timemap_runtimes (rd, s->mark, c->path_end, &tm);
  for (guint q = 0; q < tm.e->len; q++)
    {
      const TmEntry *e = &g_array_index (tm.e, TmEntry, q);
      add_sev (rd, M_CRITICAL_PATH, e->cnode, e->t);
      if (e->cnode == cn)
        own = e->t;
    }
  if (s->wait > 0)
    add_sev (rd, M_CRITICAL_PATH, cn, -MIN ((double) s->wait, own));
  timemap_clear (&tm);
}

/* A wait on the critical path: it leaves this rank for the one that caused the wait. */
static guint32
path_leaves (RankData *rd,
             gint64    k)
{
  Causes *c = rd->causes;
  if (!c->on_path || sp_at (c, k)->wait <= 0)
    return 0;
  path_segment (rd, k);
  c->on_path = FALSE;
  return 1;
}

static void
path_arrives (RankData *rd,
              gint64    k,
              guint32   flag)
{
  Causes *c = rd->causes;
  if (!flag)
    return;
  c->on_path = TRUE;
  c->path_end = sp_at (c, k)->mark;
}

/* ---- the handlers ----------------------------------------------------------------------------- */

typedef struct
{
  RankData **rds;
  guint      groups;
} ReplayCtx;

/* A wait: its time map since it last synchronized with the rank that made it wait, its costs and
 * the critical path go to that rank (the point-to-point partner, or the collective's root). */
static void
send_wait (MsgReplay *mr,
           int        i,
           RankData  *rd,
           gint64     k,
           int        kind,
           guint64    msg_id)
{
  Causes *c = rd->causes;
  SyncPoint *s = sp_at (c, k);
  TimeMap tm;
  g_autoptr (GByteArray) b = NULL;
  guint32 flag = 0;

  timemap_init (&tm);
  if (c->groups & METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE))
    interval_map (rd, delay_prev_sp (rd, (guint32) k, s->peer), (guint32) k, &tm, NULL);
  if (c->groups & METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH))
    flag = path_leaves (rd, k);
  b = pack_wait (rd, (guint32) k, &tm, flag);
  msg_replay_send (mr, i, s->peer, MSG_KEY (kind, msg_id), b->data, b->len);
  timemap_clear (&tm);
}

/* The rank that caused a point-to-point wait. */
static void
charge_p2p (RankData      *rd,
            gint64         k,
            int            own,
            const WaitMsg *m,
            const TimeMap *remote)
{
  Causes *c = rd->causes;
  SyncPoint *s = sp_at (c, k);
  gint64 prev;
  TimeMap mine;
  WaitMap w;
  GArray *d;
  double dsum = 0, wsum, scale = 0, dw;

  if (c->groups & METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH))
    path_arrives (rd, k, m->flag);
  if (!(c->groups & METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE)) || !(m->wait > 0))
    return;
  prev = delay_prev_sp (rd, (guint32) k, s->peer);
  timemap_init (&mine);
  timemap_runtimes (rd, prev < 0 ? -1 : (gint64) sp_at (c, prev)->mark, s->mark, &mine);
  waitmap_build (rd, prev, k, &w);
  prune (rd, &mine, &w, prev);
  wsum = w.sum;
  /* the delay: where this rank spent more than the waiting one */
  d = g_array_new (FALSE, FALSE, sizeof (TmEntry));
  for (guint q = 0; q < mine.e->len; q++)
    {
      TmEntry e = g_array_index (mine.e, TmEntry, q);
      e.t -= timemap_get (remote, e.key);
      if (e.t > 0.0)
        {
          g_array_append_val (d, e);
          dsum += e.t;
        }
    }
  dw = dsum + wsum;
  if (dw > 0)
    scale = MIN (m->wait / dw, 1.0);
  if (dsum > 0)
    for (guint q = 0; q < d->len; q++)
      add_sev (rd, short_metric[own], g_array_index (d, TmEntry, q).cnode, scale * g_array_index (d, TmEntry, q).t);
  if (dw > 0)
    {
      for (int x = 0; x < N_LT; x++)
        {
          double sc = m->cost[x] / dw;
          if (sc > 0)
            for (guint q = 0; q < d->len; q++)
              add_sev (rd, long_metric[x], g_array_index (d, TmEntry, q).cnode, sc * g_array_index (d, TmEntry, q).t);
          add_costs (c, x, prev, k, x == own ? scale + sc : sc);
        }
      /* indirect: the part of the wait this rank's own waits explain */
      if (wsum > 0)
        c->pw_ind[k] += scale * wsum;
      /* propagating: the waits in the interval that made this rank late */
      if (wsum > 0 && scale > 0)
        for (gint64 q = prev + 1; q < k; q++)
          {
            const SyncPoint *p = sp_at (c, q);
            if (p->wait > 0)
              c->pw_prop[q] = MAX (c->pw_prop[q], scale * (double) p->wait);
          }
    }
  g_array_unref (d);
  waitmap_free (&w);
  timemap_clear (&mine);
}

/* scout's findPreviousMpiGroupSynchpoints: the last point where the root synchronized with all
 * the other members at once (or, walking back, with the last of them), and for the members it
 * met since, the point where it met each. */
static gint64
group_prev (RankData   *rd,
            gint64      k,
            const int  *members,
            int         size,
            gint64     *met)      /* per member (comm order): sync point, -1 */
{
  Causes *c = rd->causes;
  int n_ranks = rd->defs->n_ranks;
  g_autofree guint8 *rem = g_new0 (guint8, n_ranks);
  g_autofree int *pos_of = g_new (int, n_ranks);
  int left = 0;

  for (int m = 0; m < size; m++)
    {
      met[m] = -1;
      if (members[m] != rd->rank && !rem[members[m]])
        {
          rem[members[m]] = 1;
          pos_of[members[m]] = m;
          left++;
        }
    }
  if (left == 0)
    return k - 1;
  for (gint64 j = k - 1; j >= 0; j--)
    {
      const SyncPoint *s = sp_at (c, j);
      int in = 0;
      switch (s->sr_type)
        {
        case SR_ALL:
          return j;
        case SR_ONE:
          in = (int) s->sr_first >= 0 && (int) s->sr_first < n_ranks && rem[s->sr_first];
          if (in && left == 1)
            return j;
          if (in)
            {
              met[pos_of[s->sr_first]] = j;
              rem[s->sr_first] = 0;
              left--;
            }
          break;
        default:
          {
            const gint32 *l = &g_array_index (c->sp_ranks, gint32, s->sr_first);
            for (guint32 q = 0; q < s->sr_n; q++)
              in += l[q] >= 0 && l[q] < n_ranks && rem[l[q]];
            if (in == left)
              return j;
            for (guint32 q = 0; q < s->sr_n && in; q++)
              if (l[q] >= 0 && l[q] < n_ranks && rem[l[q]])
                {
                  met[pos_of[l[q]]] = j;
                  rem[l[q]] = 0;
                  left--;
                }
            if (left == 0)
              return j;
          }
          break;
        }
    }
  return -1;
}

/* The root of a collective: every synchronizing member's part is in. */
static void
coll_root (RankData   *rd,
           gint64      k,
           GBytes    **up,        /* per member (comm order), NULL: none */
           const int  *members,
           int         size)
{
  Causes *c = rd->causes;
  SyncPoint *s = sp_at (c, k);
  int own = lt_of_coll (s->ckind);
  enum { NK = N_LT + 1 };     /* [0]: the waits (short-term), [1 + x]: long-term costs of x */
  g_autofree gint64 *met = g_new (gint64, MAX (size, 1));
  g_autofree double *scale = g_new0 (double, (gsize) MAX (size, 1) * NK);
  gint64 prev;
  TimeMap group;
  double prop_wait = 0;
  double *delay;
  guint ng;
  guint32 any_flag = 0;

  for (int m = 0; m < size; m++)
    if (up[m])
      {
        WaitMsg wm;
        gsize len;
        const guint8 *p = g_bytes_get_data (up[m], &len);
        if (len >= sizeof wm)
          {
            memcpy (&wm, p, sizeof wm);
            any_flag |= wm.flag;
          }
      }
  if (c->groups & METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH))
    path_arrives (rd, k, any_flag);
  if (!(c->groups & METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE)))
    return;

  prev = group_prev (rd, k, members, size, met);
  interval_map (rd, prev, (guint32) k, &group, &prop_wait);
  ng = group.e->len;
  delay = g_new0 (double, (gsize) MAX (ng, 1) * NK);

  for (int m = 0; m < size; m++)
    {
      gboolean self = members[m] == rd->rank;
      WaitMsg wm = { 0 };
      TimeMap local, times;
      double pw = prop_wait, dsum = 0;
      g_autofree double *d = g_new0 (double, MAX (ng, 1));

      if (!self && !up[m])
        continue;            /* not synchronizing here: nothing to contribute */
      timemap_init (&local);
      if (self)
        {
          wm.wait = (double) s->wait;
          memcpy (wm.cost, c->cost + k * N_LT, sizeof wm.cost);
        }
      else
        {
          timemap_clear (&local);
          if (!unpack_wait (up[m], &wm, &local))
            {
              timemap_clear (&local);
              continue;
            }
        }
      /* the root's time since it last met this member (or since the group met) */
      timemap_init (&times);
      if (met[m] >= 0)
        {
          timemap_clear (&times);
          interval_map (rd, met[m], (guint32) k, &times, &pw);
        }
      for (guint q = 0; q < ng; q++)
        {
          const TmEntry *g = &g_array_index (group.e, TmEntry, q);
          double tv = met[m] >= 0 ? timemap_get (&times, g->key) : g->t;
          d[q] = MAX (tv - (self ? 0.0 : timemap_get (&local, g->key)), 0.0);
          dsum += d[q];
        }
      for (int x = 0; x < NK; x++)
        {
          double in = x == 0 ? MAX (wm.wait, 0.0) : wm.cost[x - 1];
          double sc = dsum + pw > 0 ? in / (dsum + pw) : dsum;
          scale[(gsize) m * NK + x] = sc;
          for (guint q = 0; q < ng; q++)
            delay[(gsize) q * NK + x] += d[q] * sc;
        }
      timemap_clear (&times);
      timemap_clear (&local);
    }

  /* severities: the waits (short-term) and each kind's long-term costs */
  for (int x = 0; x < NK; x++)
    {
      double sum = 0;
      for (guint q = 0; q < ng; q++)
        sum += delay[(gsize) q * NK + x];
      if (!(sum > 0))
        continue;
      for (guint q = 0; q < ng; q++)
        add_sev (rd, x == 0 ? short_metric[own] : long_metric[x - 1],
                 g_array_index (group.e, TmEntry, q).cnode, delay[(gsize) q * NK + x]);
    }

  /* scout's CalculateScales: the scale for the waits in the interval; the members met since the
   * group met change it from their meeting point on */
  for (int x = 0; x < NK; x++)
    {
      double sum_out = 0;
      GArray *inc = g_array_new (FALSE, TRUE, sizeof (double) * 2);   /* (sync point, scale) */
      gint64 first, cur;
      double cur_scale;

      for (int m = 0; m < size; m++)
        sum_out += scale[(gsize) m * NK + x];
      for (int m = 0; m < size; m++)
        if (met[m] >= 0)
          {
            double e[2] = { (double) met[m], scale[(gsize) m * NK + x] };
            sum_out -= e[1];
            /* merged by point, in event order */
            guint q;
            for (q = 0; q < inc->len && ((double *) inc->data)[2 * q] < e[0]; q++)
              ;
            if (q < inc->len && ((double *) inc->data)[2 * q] == e[0])
              ((double *) inc->data)[2 * q + 1] += e[1];
            else
              g_array_insert_val (inc, q, e);
          }
      /* DelayCostMap::addCosts with a scale map: the first scale (at the group's point) until
       * the next listed point */
      first = prev;
      cur_scale = sum_out;
      {
        double running = sum_out;
        guint q = 0;
        for (cur = first + 1; cur < k; cur++)
          {
            const SyncPoint *p = sp_at (c, cur);
            if (q < inc->len && ((double *) inc->data)[2 * q] == (double) cur)
              {
                cur_scale = running;
                running += ((double) ((double *) inc->data)[2 * q + 1]);
                q++;
              }
            if (cur_scale > 0 && p->wait > 0)
              {
                /* x == 0: the waits themselves feed the long-term costs of this kind */
                int lt = x == 0 ? own : x - 1;
                c->cost[cur * N_LT + lt] += cur_scale * (double) p->wait;
              }
          }
      }
      g_array_unref (inc);
    }
  g_free (delay);
  timemap_clear (&group);
}

/* ---- the step ------------------------------------------------------------------------------- */

static const TraceComm *
sp_comm (RankData        *rd,
         const SyncPoint *s)
{
  return g_ptr_array_index (rd->defs->comms, s->comm);
}

static gboolean
step (MsgReplay *mr,
      int        i,
      gpointer   user)
{
  ReplayCtx *cx = user;
  RankData *rd = cx->rds[i];
  Causes *c = rd->causes;

  while (c->next_sp > 0)
    {
      gint64 k = c->next_sp - 1;
      SyncPoint *s = sp_at (c, k);

      switch ((SpKind) s->kind)
        {
        case SP_LS_RECV:
          send_wait (mr, i, rd, k, KIND_LS, g_array_index (rd->recv_send, guint32, s->rec));
          break;
        case SP_LR_SEND:
          send_wait (mr, i, rd, k, KIND_LR, s->rec);
          break;
        case SP_LS_SEND:
        case SP_LR_RECV:
          {
            gboolean ls = s->kind == SP_LS_SEND;
            guint32 id = ls ? s->rec : g_array_index (rd->recv_send, guint32, s->rec);
            g_autoptr (GBytes) msg = msg_replay_take (mr, i, s->peer, MSG_KEY (ls ? KIND_LS : KIND_LR, id));
            WaitMsg m;
            TimeMap remote;
            if (!msg)
              return FALSE;
            if (unpack_wait (msg, &m, &remote))
              charge_p2p (rd, k, ls ? LT_LS : LT_LR, &m, &remote);
            timemap_clear (&remote);
          }
          break;
        case SP_COLL:
          if (!s->root)
            send_wait (mr, i, rd, k, KIND_COLL, s->msg);
          else
            {
              const TraceComm *comm = sp_comm (rd, s);
              g_autofree GBytes **up = g_new0 (GBytes *, MAX (comm->size, 1));
              /* everybody in? (peek: nothing is taken before all are) */
              for (int m = 0; m < comm->size; m++)
                if (comm->world[m] != rd->rank && delay_sp_has_rank (rd, s, comm->world[m]))
                  if (!msg_replay_peek (mr, i, comm->world[m], MSG_KEY (KIND_COLL, s->msg)))
                    return FALSE;
              for (int m = 0; m < comm->size; m++)
                if (comm->world[m] != rd->rank && delay_sp_has_rank (rd, s, comm->world[m]))
                  up[m] = msg_replay_take (mr, i, comm->world[m], MSG_KEY (KIND_COLL, s->msg));
              coll_root (rd, k, up, comm->world, comm->size);
              for (int m = 0; m < comm->size; m++)
                if (up[m])
                  g_bytes_unref (up[m]);
            }
          break;
        case SP_FINALIZE:
          if (s->root && (c->groups & METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH)))
            {
              c->on_path = TRUE;
              c->path_end = s->mark;
            }
          break;
        case SP_INIT:
          if (c->on_path)
            path_segment (rd, k);
          break;
        }
      c->next_sp--;
    }
  return TRUE;
}

gboolean
delay_replay_run (Transport  *t,
                  gboolean    mpi G_GNUC_UNUSED,
                  RankData  **rds,
                  GError    **error)
{
  MsgReplay *mr = msg_replay_new (t);
  ReplayCtx cx = { rds, 0 };
  gboolean stuck = FALSE, ok;

  for (int i = 0; i < t->n_local; i++)
    {
      Causes *c = rds[i]->causes;
      c->next_sp = c->sps->len;
      c->on_path = FALSE;
    }
  ok = msg_replay_run (mr, step, &cx, &stuck, error);
  /* this process's messages, once */
  for (int i = 0; i < t->n_local; i++)
    rds[i]->causes->n_msgs = i == 0 ? msg_replay_count (mr) : 0;
  msg_replay_free (mr);
  if (ok && stuck)
    for (int i = 0; i < t->n_local; i++)
      rds[i]->causes->finished = FALSE;
  else if (ok)
    for (int i = 0; i < t->n_local; i++)
      rds[i]->causes->finished = TRUE;
  return ok;
}
