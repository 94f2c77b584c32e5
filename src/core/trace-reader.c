/* trace-reader.c — reads ONE location's local definitions and events into the compact per-rank
 * record arrays. Enter/leave events are folded into the call tree (time, visits) on the fly;
 * only MPI calls that carry communication are kept, as small fixed-size records. */
#include "analyze-private.h"
#include "delay-private.h"
#include "trace-kct.h"
#include "replay-clock.h"

#include <glib/gi18n.h>
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct
{
  guint32 cnode;
  guint32 region;
  guint32 call;
  Tick    enter;
  guint64 enter_pos;
  guint32 mark0;      /* timeline marks when the call was entered */
} Frame;

/* Request id -> value, open addressing with linear probing and backward-shift deletion:
 * a handful of requests are in flight at a time, inserted and removed once per message. */
typedef struct
{
  guint64 *keys;
  guint64 *vals;       /* value + 1; 0 = empty slot */
  guint    mask;
  guint    n;
} ReqMap;

static void
reqmap_init (ReqMap *m)
{
  m->mask = 63;
  m->n = 0;
  m->keys = g_new0 (guint64, m->mask + 1);
  m->vals = g_new0 (guint64, m->mask + 1);
}

static void
reqmap_clear (ReqMap *m)
{
  g_free (m->keys);
  g_free (m->vals);
}

static guint
reqmap_slot (const ReqMap *m,
             guint64       key)
{
  return (guint) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 40) & m->mask;
}

static void reqmap_put (ReqMap *m, guint64 key, guint64 val);

static void
reqmap_grow (ReqMap *m)
{
  ReqMap old = *m;
  m->mask = m->mask * 2 + 1;
  m->n = 0;
  m->keys = g_new0 (guint64, m->mask + 1);
  m->vals = g_new0 (guint64, m->mask + 1);
  for (guint i = 0; i <= old.mask; i++)
    if (old.vals[i])
      reqmap_put (m, old.keys[i], old.vals[i] - 1);
  reqmap_clear (&old);
}

static void
reqmap_put (ReqMap  *m,
            guint64  key,
            guint64  val)
{
  guint i;
  if ((m->n + 1) * 2 > m->mask)
    reqmap_grow (m);
  for (i = reqmap_slot (m, key); m->vals[i] && m->keys[i] != key; i = (i + 1) & m->mask)
    ;
  if (!m->vals[i])
    m->n++;
  m->keys[i] = key;
  m->vals[i] = val + 1;
}

/* Removes @key; returns its value or G_MAXUINT64. */
static guint64
reqmap_take (ReqMap  *m,
             guint64  key)
{
  guint i, j;
  guint64 val;

  for (i = reqmap_slot (m, key); m->vals[i]; i = (i + 1) & m->mask)
    if (m->keys[i] == key)
      break;
  if (!m->vals[i])
    return G_MAXUINT64;
  val = m->vals[i] - 1;
  m->vals[i] = 0;
  m->n--;
  /* backward shift: keep every probe chain unbroken */
  for (j = (i + 1) & m->mask; m->vals[j]; j = (j + 1) & m->mask)
    {
      guint home = reqmap_slot (m, m->keys[j]);
      if (((j - home) & m->mask) >= ((j - i) & m->mask))
        {
          m->keys[i] = m->keys[j];
          m->vals[i] = m->vals[j];
          m->vals[j] = 0;
          i = j;
        }
    }
  return val;
}

typedef struct
{
  RankData   *rd;
  TraceDefs  *defs;
  Frame      *stack;          /* the open calls, innermost last */
  guint       depth;
  guint       cap;
  ReqMap      isend_req;      /* request -> send index */
  ReqMap      irecv_req;      /* request -> enter time of the posting MPI_Irecv */
  ReqMap      nbc_req;        /* request -> index in rd->nbcs of an open non-blocking collective */
  guint64     bad_leaves;
  guint64     orphan_events;
  Tick        last_time;
  guint64     n_events;
  const ClockMap *map;        /* rd->clock_map */
  ClockCursor cursor;
  DelayTimeline *tl;          /* the root-cause passes' timeline, NULL when they do not run */
} ReadState;

/* Every timestamp goes through the location's clock repair map, if it has one. */
static inline Tick
event_time (ReadState      *st,
            OTF2_TimeStamp  time,
            uint64_t        pos)
{
  Tick t = G_LIKELY (!st->map) ? (Tick) time : clock_map_apply (st->map, &st->cursor, (Tick) time, pos);
  if (G_UNLIKELY (st->n_events == 0 && st->rd->first_time == 0))
    st->rd->first_time = t;
  return t;
}

RankData *
rank_data_new (int        rank,
               TraceDefs *defs)
{
  RankData *rd = g_new0 (RankData, 1);
  rd->rank = rank;
  rd->defs = defs;
  rd->cnodes = g_array_new (FALSE, FALSE, sizeof (LocalCnode));
  rd->cnode_index = g_hash_table_new (key64_hash, g_direct_equal);
  rd->first_child = g_array_new (FALSE, FALSE, sizeof (guint32));
  rd->next_sibling = g_array_new (FALSE, FALSE, sizeof (guint32));
  {
    guint32 none = NO_INDEX;
    g_array_append_val (rd->first_child, none);
  }
  rd->sev = g_array_new (FALSE, TRUE, sizeof (gint64) * N_METRICS);
  rd->calls = g_array_new (FALSE, FALSE, sizeof (CallRec));
  rd->sends = g_array_new (FALSE, FALSE, sizeof (SendRec));
  rd->recvs = g_array_new (FALSE, FALSE, sizeof (RecvRec));
  rd->colls = g_array_new (FALSE, FALSE, sizeof (CollRec));
  rd->nbcs = g_array_new (FALSE, FALSE, sizeof (NbcRec));
  rd->init_call = NO_INDEX;
  rd->finalize_call = NO_INDEX;
  return rd;
}

void
rank_data_free (RankData *rd)
{
  if (!rd)
    return;
  g_array_unref (rd->cnodes);
  g_hash_table_unref (rd->cnode_index);
  g_array_unref (rd->first_child);
  g_array_unref (rd->next_sibling);
  g_array_unref (rd->sev);
  g_array_unref (rd->calls);
  g_array_unref (rd->sends);
  g_array_unref (rd->recvs);
  g_array_unref (rd->colls);
  g_array_unref (rd->nbcs);
  if (rd->recv_send)
    g_array_unref (rd->recv_send);
  if (rd->ls_wait)
    g_hash_table_unref (rd->ls_wait);
  causes_free (rd->causes);
  g_free (rd);
}

gint64 *
rank_data_row (RankData *rd,
               guint32   cnode)
{
  return (gint64 *) (rd->sev->data + (gsize) cnode * sizeof (gint64) * N_METRICS);
}

void
rank_data_add (RankData *rd,
               MetricId  m,
               guint32   cnode,
               gint64    value)
{
  rank_data_row (rd, cnode)[m] += value;
}

static int
instance_cmp (const Instance *a,
              const Instance *b)
{
  /* Larger first; ties by time then call path so every run orders them the same way. */
  if (a->value != b->value)
    return a->value > b->value ? -1 : 1;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  if (a->when != b->when)
    return a->when < b->when ? -1 : 1;
  return 0;
}

void
rank_data_wait (RankData      *rd,
                MetricId       m,
                const CallRec *call,
                gint64         value)
{
  Instance in;
  guint n;

  if (value <= 0)
    return;
  rank_data_add (rd, m, call->cnode, value);
  in.value = value;
  in.cnode = call->cnode;
  in.rank = rd->rank;
  in.when = call->enter;
  n = rd->n_top[m];
  if (n == TOP_N && instance_cmp (&in, &rd->top[m][TOP_N - 1]) >= 0)
    return;
  if (n < TOP_N)
    n++;
  /* insertion into the sorted top list */
  guint pos = n - 1;
  while (pos > 0 && instance_cmp (&in, &rd->top[m][pos - 1]) < 0)
    {
      rd->top[m][pos] = rd->top[m][pos - 1];
      pos--;
    }
  rd->top[m][pos] = in;
  rd->n_top[m] = n;
}

/* The child call path of @parent for @region. Children are a sibling list kept in
 * most-recently-used order, so the usual short alternations cost a compare or two; a parent with
 * many children falls back to the hash table. */
static guint32
cnode_child (RankData *rd,
             guint32   parent,
             guint32   region)
{
  guint32 slot = parent == NO_INDEX ? 0 : parent + 1;
  guint32 *first = &g_array_index (rd->first_child, guint32, slot);
  guint32 *sib = (guint32 *) rd->next_sibling->data;
  LocalCnode *nodes = (LocalCnode *) rd->cnodes->data;
  gsize key = ((gsize) (parent == NO_INDEX ? 0xffffffffu : parent) << 32) | region;
  guint32 prev = NO_INDEX, cur = *first;
  guint steps = 0;
  gpointer v;
  LocalCnode c;
  guint32 id, none = NO_INDEX;

  for (; cur != NO_INDEX && steps < 16; prev = cur, cur = sib[cur], steps++)
    if (nodes[cur].region == region)
      {
        if (prev != NO_INDEX)
          {
            /* move to front */
            sib[prev] = sib[cur];
            sib[cur] = *first;
            *first = cur;
          }
        return cur;
      }
  if (cur != NO_INDEX)
    {
      v = g_hash_table_lookup (rd->cnode_index, GSIZE_TO_POINTER (key));
      if (v)
        return GPOINTER_TO_SIZE (v) - 1;
    }
  c.parent = parent;
  c.region = region;
  g_array_append_val (rd->cnodes, c);
  g_array_set_size (rd->sev, rd->cnodes->len);
  id = rd->cnodes->len - 1;
  g_array_append_val (rd->first_child, none);
  g_array_append_val (rd->next_sibling, g_array_index (rd->first_child, guint32, slot));
  g_array_index (rd->first_child, guint32, slot) = id;
  g_hash_table_insert (rd->cnode_index, GSIZE_TO_POINTER (key), GSIZE_TO_POINTER ((gsize) rd->cnodes->len));
  return id;
}

static Frame *
top_frame (ReadState *st)
{
  return st->depth ? &st->stack[st->depth - 1] : NULL;
}

/* The call record of the MPI call now running, created on its first communication event. */
static guint32
current_call (ReadState *st)
{
  Frame *f = top_frame (st);
  CallRec c;

  if (!f)
    return NO_INDEX;
  if (f->call != NO_INDEX)
    return f->call;
  c.enter = f->enter;
  c.leave = f->enter;
  c.cnode = f->cnode;
  c.region = f->region;
  g_array_append_val (st->rd->calls, c);
  f->call = st->rd->calls->len - 1;
  return f->call;
}

static OTF2_CallbackCode
on_enter (OTF2_LocationRef    loc G_GNUC_UNUSED,
          OTF2_TimeStamp      otime, uint64_t pos,
          void               *ud,
          OTF2_AttributeList *al G_GNUC_UNUSED,
          OTF2_RegionRef      region)
{
  ReadState *st = ud;
  Frame *parent = top_frame (st);
  Frame *f;
  guint32 cnode;
  TraceRegion *r;
  Tick time = event_time (st, otime, pos);

  st->n_events++;
  if (st->tl)
    delay_timeline_flush (st->tl, parent ? parent->cnode : NO_INDEX, time);
  cnode = cnode_child (st->rd, parent ? parent->cnode : NO_INDEX, region);
  if (st->depth == st->cap)
    {
      st->cap *= 2;
      st->stack = g_renew (Frame, st->stack, st->cap);
    }
  f = &st->stack[st->depth++];
  f->cnode = cnode;
  f->region = region;
  f->call = NO_INDEX;
  f->enter = (Tick) time;
  f->enter_pos = pos;
  f->mark0 = st->tl ? st->tl->n_marks : 0;
  rank_data_row (st->rd, cnode)[M_VISITS]++;
  r = trace_defs_region (st->defs, region);
  if (r && (r->klass == RC_MPI_INIT || r->klass == RC_MPI_FINALIZE))
    {
      guint32 call = current_call (st);
      if (r->klass == RC_MPI_INIT)
        {
          st->rd->init_call = call;
          st->rd->init_pos[0] = pos;
        }
      else
        {
          st->rd->finalize_call = call;
          st->rd->finalize_pos[0] = pos;
        }
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_leave (OTF2_LocationRef    loc G_GNUC_UNUSED,
          OTF2_TimeStamp      otime, uint64_t pos,
          void               *ud,
          OTF2_AttributeList *al G_GNUC_UNUSED,
          OTF2_RegionRef      region G_GNUC_UNUSED)
{
  ReadState *st = ud;
  Frame *f = top_frame (st);
  Frame *parent;
  Tick dur;
  Tick time = event_time (st, otime, pos);

  st->n_events++;
  if (!f)
    {
      st->bad_leaves++;
      return OTF2_CALLBACK_SUCCESS;
    }
  if (st->tl)
    {
      /* MPI_Init's and MPI_Finalize's leave are synchronization points: marked before the
       * call's own time is flushed */
      if (f->call != NO_INDEX && f->call == st->rd->init_call)
        st->tl->init_mark = delay_timeline_mark (st->tl, f->cnode, f->enter);
      else if (f->call != NO_INDEX && f->call == st->rd->finalize_call)
        st->tl->finalize_mark = delay_timeline_mark (st->tl, f->cnode, f->enter);
      delay_timeline_flush (st->tl, f->cnode, time);
      delay_timeline_leave (st->tl, f->mark0, time);
    }
  dur = (Tick) time - f->enter;
  rank_data_row (st->rd, f->cnode)[M_TIME] += dur;
  if (f->call != NO_INDEX)
    {
      g_array_index (st->rd->calls, CallRec, f->call).leave = (Tick) time;
      if (f->call == st->rd->init_call)
        st->rd->init_pos[1] = pos;
      else if (f->call == st->rd->finalize_call)
        st->rd->finalize_pos[1] = pos;
    }
  st->depth--;
  parent = top_frame (st);
  if (parent)
    rank_data_row (st->rd, parent->cnode)[M_TIME] -= dur;
  return OTF2_CALLBACK_SUCCESS;
}

static gint32
peer_rank (ReadState *st,
           guint32    comm,
           guint32    local_rank,
           TraceComm **out)
{
  *out = trace_defs_comm (st->defs, comm);
  return trace_defs_peer_rank (st->defs, *out, st->rd->rank, local_rank);
}

static void
count_p2p (ReadState *st,
           guint32    cnode,
           guint64    bytes,
           gboolean   send)
{
  gint64 *row = rank_data_row (st->rd, cnode);

  if (send)
    {
      row[M_BYTES_SENT] += bytes;
      row[bytes ? M_COMMS_SEND : M_SYNCS_SEND]++;
    }
  else
    {
      row[M_BYTES_RCVD] += bytes;
      row[bytes ? M_COMMS_RECV : M_SYNCS_RECV]++;
    }
}

static void
add_send (ReadState *st,
          Tick       time,
          guint64    pos,
          guint32    receiver,
          guint32    comm,
          guint32    tag,
          guint64    len,
          gboolean   nonblocking,
          guint64    request)
{
  Frame *f = top_frame (st);
  const TraceRegion *reg;
  TraceComm *c;
  SendRec s = { 0 };

  st->n_events++;
  if (!f)
    {
      st->orphan_events++;
      return;
    }
  s.peer = peer_rank (st, comm, receiver, &c);
  if (s.peer < 0 || !c)
    {
      st->orphan_events++;
      return;
    }
  reg = trace_defs_region (st->defs, f->region);
  s.time = time;
  s.pos = pos;
  s.enter = f->enter;
  /* only a blocking send can wait for its receiver: it needs its leave time, so a call record */
  s.call = reg && (reg->flags & RF_LR_SEND) ? current_call (st) : NO_INDEX;
  s.complete_call = NO_INDEX;
  s.comm = c->index;
  s.tag = tag;
  s.order = st->rd->calls->len;
  g_array_append_val (st->rd->sends, s);
  if (st->tl)
    {
      guint32 m = delay_timeline_mark (st->tl, f->cnode, f->enter);
      guint32 cm = nonblocking ? NO_INDEX : m;
      g_array_append_val (st->tl->send_mark, m);
      g_array_append_val (st->tl->send_cmark, cm);
    }
  count_p2p (st, f->cnode, len, TRUE);
  if (nonblocking)
    reqmap_put (&st->isend_req, request, st->rd->sends->len - 1);
}

static OTF2_CallbackCode
on_send (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t pos, void *ud,
         OTF2_AttributeList *al G_GNUC_UNUSED, uint32_t receiver, OTF2_CommRef comm,
         uint32_t tag, uint64_t len)
{
  add_send (ud, event_time (ud, time, pos), pos, receiver, comm, tag, len, FALSE, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_isend (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t pos, void *ud,
          OTF2_AttributeList *al G_GNUC_UNUSED, uint32_t receiver, OTF2_CommRef comm,
          uint32_t tag, uint64_t len, uint64_t request)
{
  add_send (ud, event_time (ud, time, pos), pos, receiver, comm, tag, len, TRUE, request);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_isend_complete (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time G_GNUC_UNUSED, uint64_t pos G_GNUC_UNUSED,
                   void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t request)
{
  ReadState *st = ud;
  guint64 idx = reqmap_take (&st->isend_req, request);

  st->n_events++;
  if (idx != G_MAXUINT64 && idx < st->rd->sends->len)
    {
      g_array_index (st->rd->sends, SendRec, idx).complete_call = current_call (st);
      if (st->tl && top_frame (st))
        g_array_index (st->tl->send_cmark, guint32, idx)
          = delay_timeline_mark (st->tl, top_frame (st)->cnode, top_frame (st)->enter);
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_irecv_request (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time G_GNUC_UNUSED, uint64_t pos G_GNUC_UNUSED,
                  void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t request)
{
  ReadState *st = ud;
  Frame *f = top_frame (st);

  st->n_events++;
  if (f)
    {
      reqmap_put (&st->irecv_req, request, (guint64) f->enter);
      if (st->tl)
        g_hash_table_insert (st->tl->req_mark, GSIZE_TO_POINTER ((gsize) request),
                             GUINT_TO_POINTER (delay_timeline_mark (st->tl, f->cnode, f->enter) + 1));
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_request_cancelled (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time G_GNUC_UNUSED, uint64_t pos G_GNUC_UNUSED,
                      void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t request)
{
  ReadState *st = ud;
  st->n_events++;
  reqmap_take (&st->irecv_req, request);
  reqmap_take (&st->isend_req, request);
  reqmap_take (&st->nbc_req, request); /* its record stays open and is dropped at the end */
  if (st->tl)
    g_hash_table_remove (st->tl->req_mark, GSIZE_TO_POINTER ((gsize) request));
  return OTF2_CALLBACK_SUCCESS;
}

static void
add_recv (ReadState *st,
          Tick       time,
          guint64    pos,
          guint32    sender,
          guint32    comm,
          guint32    tag,
          guint64    len,
          gboolean   nonblocking,
          guint64    request)
{
  guint32 call = current_call (st);
  TraceComm *c;
  RecvRec r = { 0 };

  st->n_events++;
  if (call == NO_INDEX)
    {
      st->orphan_events++;
      return;
    }
  r.peer = peer_rank (st, comm, sender, &c);
  if (r.peer < 0 || !c)
    {
      st->orphan_events++;
      return;
    }
  r.time = time;
  r.pos = pos;
  r.call = call;
  r.post_enter = g_array_index (st->rd->calls, CallRec, call).enter;
  if (nonblocking)
    {
      guint64 post = reqmap_take (&st->irecv_req, request);
      if (post != G_MAXUINT64)
        r.post_enter = (Tick) post;
    }
  r.comm = c->index;
  r.tag = tag;
  g_array_append_val (st->rd->recvs, r);
  if (st->tl)
    {
      const CallRec *cr = &g_array_index (st->rd->calls, CallRec, call);
      guint32 m = delay_timeline_mark (st->tl, cr->cnode, cr->enter), q = m;
      if (nonblocking)
        {
          gpointer v;
          q = NO_INDEX;
          if (g_hash_table_steal_extended (st->tl->req_mark, GSIZE_TO_POINTER ((gsize) request), NULL, &v))
            q = GPOINTER_TO_UINT (v) - 1;
        }
      g_array_append_val (st->tl->recv_mark, m);
      g_array_append_val (st->tl->recv_qmark, q);
    }
  count_p2p (st, g_array_index (st->rd->calls, CallRec, call).cnode, len, FALSE);
}

static OTF2_CallbackCode
on_recv (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t pos, void *ud,
         OTF2_AttributeList *al G_GNUC_UNUSED, uint32_t sender, OTF2_CommRef comm,
         uint32_t tag, uint64_t len)
{
  add_recv (ud, event_time (ud, time, pos), pos, sender, comm, tag, len, FALSE, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_irecv (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t pos, void *ud,
          OTF2_AttributeList *al G_GNUC_UNUSED, uint32_t sender, OTF2_CommRef comm,
          uint32_t tag, uint64_t len, uint64_t request)
{
  add_recv (ud, event_time (ud, time, pos), pos, sender, comm, tag, len, TRUE, request);
  return OTF2_CALLBACK_SUCCESS;
}

/* A collective (blocking or not) completed in @call: its bytes, and its count by kind
 * (synchronization, exchange, one to all, all to one), at the call's call path. */
static void
count_collective (RankData *rd,
                  guint32   call,
                  guint64   sent,
                  guint64   received)
{
  gint64 *row = rank_data_row (rd, g_array_index (rd->calls, CallRec, call).cnode);
  row[M_BYTES_COUT] += sent;
  row[M_BYTES_CIN] += received;
  if (sent == 0 && received == 0)
    row[M_SYNCS_COLL]++;
  else if (sent > 0 && received > 0)
    row[M_COMMS_CXCH]++;
  else if (sent > 0)
    row[M_COMMS_CSRC]++;
  else
    row[M_COMMS_CDST]++;
}

static OTF2_CallbackCode
on_coll_end (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t pos, void *ud,
             OTF2_AttributeList *al G_GNUC_UNUSED, OTF2_CollectiveOp op, OTF2_CommRef comm,
             uint32_t root, uint64_t sent, uint64_t received)
{
  ReadState *st = ud;
  Tick end = event_time (st, time, pos);
  guint32 call = current_call (st);
  TraceComm *c = trace_defs_comm (st->defs, comm);
  Frame *f = top_frame (st);
  CollRec r = { 0 };

  st->n_events++;
  if (call == NO_INDEX || !c)
    {
      st->orphan_events++;
      return OTF2_CALLBACK_SUCCESS;
    }
  r.call = call;
  r.comm = c->index;
  r.root = root == OTF2_UNDEFINED_UINT32 ? NO_INDEX : root;
  r.op = op;
  r.sent = sent;
  r.received = received;
  r.end = end;
  r.enter_pos = f ? f->enter_pos : 0;
  r.end_pos = pos;
  /* Collectives on an inter-communicator (one group's data goes to the other) have no wait
   * state pattern in PATTERNS.md: their bytes and calls count, they are not replayed. */
  if (!c->is_inter)
    {
      g_array_append_val (st->rd->colls, r);
      if (st->tl)
        {
          const CallRec *cr = &g_array_index (st->rd->calls, CallRec, call);
          guint32 m = delay_timeline_mark (st->tl, cr->cnode, cr->enter);
          Tick begin = st->tl->begin_time != TL_UNSET ? st->tl->begin_time : cr->enter;
          g_array_append_val (st->tl->coll_mark, m);
          g_array_append_val (st->tl->coll_begin, begin);
        }
    }
  if (st->tl)
    st->tl->begin_time = TL_UNSET;
  count_collective (st->rd, call, sent, received);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_coll_begin (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t pos, void *ud,
               OTF2_AttributeList *al G_GNUC_UNUSED)
{
  ReadState *st = ud;
  Tick t = event_time (st, time, pos);

  st->n_events++;
  if (st->tl)
    st->tl->begin_time = t;
  return OTF2_CALLBACK_SUCCESS;
}

/* A non-blocking collective starts: a record in start order (MPI matches them in that order on
 * a communicator), completed by NonBlockingCollectiveComplete. */
static OTF2_CallbackCode
on_nbc_request (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time G_GNUC_UNUSED, uint64_t pos G_GNUC_UNUSED,
                void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t request)
{
  ReadState *st = ud;
  Frame *f = top_frame (st);
  NbcRec r = { .call = NO_INDEX, .comm = NO_INDEX, .root = NO_INDEX };

  st->n_events++;
  if (!f)
    {
      st->orphan_events++;
      return OTF2_CALLBACK_SUCCESS;
    }
  r.start = f->enter;
  r.enter_pos = f->enter_pos;
  g_array_append_val (st->rd->nbcs, r);
  reqmap_put (&st->nbc_req, request, st->rd->nbcs->len - 1);
  if (st->tl)
    {
      /* the late member's delay is its time before the start (delay-syncpoints.c) */
      guint32 m = delay_timeline_mark (st->tl, f->cnode, f->enter), none = NO_INDEX;
      g_array_append_val (st->tl->nbc_smark, m);
      g_array_append_val (st->tl->nbc_cmark, none);
    }
  return OTF2_CALLBACK_SUCCESS;
}

/* ... and completes in a Wait or Test: its bytes and count go to that call's path (as Score-P's
 * profile puts them, and the collector's), its wait state is found there (pattern-collective.c). */
static OTF2_CallbackCode
on_nbc_complete (OTF2_LocationRef loc G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t pos, void *ud,
                 OTF2_AttributeList *al G_GNUC_UNUSED, OTF2_CollectiveOp op, OTF2_CommRef comm,
                 uint32_t root, uint64_t sent, uint64_t received, uint64_t request)
{
  ReadState *st = ud;
  guint32 call = current_call (st);
  TraceComm *c = trace_defs_comm (st->defs, comm);
  guint64 idx = reqmap_take (&st->nbc_req, request);

  Tick end = event_time (st, time, pos);

  st->n_events++;
  if (call == NO_INDEX || !c)
    {
      st->orphan_events++;
      return OTF2_CALLBACK_SUCCESS;
    }
  /* on an inter-communicator: bytes and calls count, no wait state (as blocking ones) */
  if (idx != G_MAXUINT64 && !c->is_inter)
    {
      NbcRec *r = &g_array_index (st->rd->nbcs, NbcRec, idx);
      r->call = call;
      r->comm = c->index;
      r->root = root == OTF2_UNDEFINED_UINT32 ? NO_INDEX : root;
      r->op = op;
      r->sent = sent > 0;
      r->received = received > 0;
      r->end = end;
      r->end_pos = pos;
      if (st->tl)
        {
          const CallRec *cr = &g_array_index (st->rd->calls, CallRec, call);
          g_array_index (st->tl->nbc_cmark, guint32, idx) = delay_timeline_mark (st->tl, cr->cnode, cr->enter);
        }
    }
  count_collective (st->rd, call, sent, received);
  return OTF2_CALLBACK_SUCCESS;
}

/* Drops the non-blocking collectives that never completed (cancelled, freed, an aborted run),
 * keeping the others in start order. */
static void
nbcs_compact (RankData      *rd,
              DelayTimeline *tl)
{
  guint n = 0;
  for (guint k = 0; k < rd->nbcs->len; k++)
    {
      NbcRec r = g_array_index (rd->nbcs, NbcRec, k);
      if (r.comm != NO_INDEX)
        {
          if (tl)
            {
              g_array_index (tl->nbc_smark, guint32, n) = g_array_index (tl->nbc_smark, guint32, k);
              g_array_index (tl->nbc_cmark, guint32, n) = g_array_index (tl->nbc_cmark, guint32, k);
            }
          g_array_index (rd->nbcs, NbcRec, n++) = r;
        }
    }
  g_array_set_size (rd->nbcs, n);
  if (tl)
    {
      g_array_set_size (tl->nbc_smark, n);
      g_array_set_size (tl->nbc_cmark, n);
    }
}

static OTF2_ErrorCode
quiet_error (void *ud G_GNUC_UNUSED, const char *file G_GNUC_UNUSED, uint64_t line G_GNUC_UNUSED,
             const char *func G_GNUC_UNUSED, OTF2_ErrorCode code,
             const char *fmt G_GNUC_UNUSED, va_list va G_GNUC_UNUSED)
{
  /* OTF2 would print to stderr; the analyzer reports errors itself, naming the file. */
  return code;
}

void analyze_quiet_otf2 (void);

void
analyze_quiet_otf2 (void)
{
  OTF2_Error_RegisterCallback (quiet_error, NULL);
}

char *
trace_event_file_path (const char *anchor,
                       guint64     loc,
                       const char *ext)
{
  g_autofree char *dir = g_path_get_dirname (anchor);
  g_autofree char *base = g_path_get_basename (anchor);
  g_autofree char *name = NULL;
  char file[64];

  if (g_str_has_suffix (base, ".otf2"))
    base[strlen (base) - 5] = '\0';
  name = g_build_filename (dir, base, NULL);
  g_snprintf (file, sizeof file, "%" G_GUINT64_FORMAT ".%s", loc, ext);
  return g_build_filename (name, file, NULL);
}

/* The timeline of the root-cause passes, when they will run (rd->want_causes). */
static DelayTimeline *
timeline_for (RankData *rd)
{
  if (!rd->want_causes)
    return NULL;
  if (!rd->causes)
    rd->causes = causes_new (rd->want_causes);
  if (!rd->causes->tl)
    {
      const TraceLocation *loc = rd->defs->rank_loc ? rd->defs->rank_loc[rd->rank] : NULL;
      rd->causes->tl = delay_timeline_new (loc ? (guint32) MIN (loc->n_events / 3, G_MAXUINT32 / 2) : 0);
    }
  return rd->causes->tl;
}

/* The same records from a compressed trace set as the event source (trace-kct.h). */
static gboolean
read_rank_kct (RankData *rd, GError **error)
{
  ReadState st = { 0 };
  guint64   done = 0;
  st.rd = rd;
  st.defs = rd->defs;
  st.map = rd->clock_map;
  st.tl = timeline_for (rd);
  st.cap = 64;
  st.stack = g_new (Frame, st.cap);
  reqmap_init (&st.isend_req);
  reqmap_init (&st.irecv_req);
  reqmap_init (&st.nbc_req);
  TraceKctCallbacks cb = { 0 };
  cb.enter = on_enter;
  cb.leave = on_leave;
  cb.send = on_send;
  cb.isend = on_isend;
  cb.isend_complete = on_isend_complete;
  cb.irecv_request = on_irecv_request;
  cb.recv = on_recv;
  cb.irecv = on_irecv;
  cb.request_cancelled = on_request_cancelled;
  cb.coll_begin = on_coll_begin;
  cb.coll_end = on_coll_end;
  cb.nbc_request = on_nbc_request;
  cb.nbc_complete = on_nbc_complete;
  gboolean ok = trace_kct_read ((guint32) rd->rank, &cb, &st, &done, error);
  while (ok && st.depth)
    {
      Frame *f = top_frame (&st);
      if (f->call != NO_INDEX)
        {
          CallRec *c = &g_array_index (rd->calls, CallRec, f->call);
          if (c->leave < c->enter)
            c->leave = c->enter;
        }
      st.depth--;
    }
  rd->n_events = done;
  if (st.tl)
    delay_timeline_finish (st.tl);
  g_free (st.stack);
  reqmap_clear (&st.isend_req);
  reqmap_clear (&st.irecv_req);
  reqmap_clear (&st.nbc_req);
  return ok;
}

gboolean
trace_read_rank (const char   *anchor,
                 RankData     *rd,
                 ProgressFunc  progress,
                 gpointer      progress_data,
                 GError      **error)
{
  if (trace_kct_active ())
    return read_rank_kct (rd, error);
  TraceLocation *loc = rd->defs->rank_loc[rd->rank];
  g_autofree char *evt_path = trace_event_file_path (anchor, loc->id, "evt");
  g_autofree char *def_path = trace_event_file_path (anchor, loc->id, "def");
  OTF2_Reader *reader;
  OTF2_EvtReader *evr;
  OTF2_DefReader *dr;
  OTF2_EvtReaderCallbacks *cbs;
  ReadState st = { 0 };
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  guint64 chunk, done = 0, got = 0;
  gboolean ok = TRUE;

  if (!g_file_test (evt_path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("%s: event file of rank %d is missing"), evt_path, rd->rank);
      return FALSE;
    }
  reader = OTF2_Reader_Open (anchor);
  if (!reader)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: not a readable OTF2 archive"), anchor);
      return FALSE;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  OTF2_Reader_SelectLocation (reader, loc->id);
  /* Local definitions first: they hold the id mapping tables and clock offsets that the
   * event reader applies. They are optional. */
  if (OTF2_Reader_OpenDefFiles (reader) == OTF2_SUCCESS)
    {
      if (g_file_test (def_path, G_FILE_TEST_IS_REGULAR))
        {
          dr = OTF2_Reader_GetDefReader (reader, loc->id);
          if (!dr)
            {
              /* the file is there but its header is not OTF2: the mapping tables and clock
               * offsets it should hold would be silently missing */
              g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           _("%s: corrupt local definitions (%s)"), def_path,
                           OTF2_Error_GetDescription (OTF2_ERROR_INVALID_DATA));
              OTF2_Reader_CloseDefFiles (reader);
              OTF2_Reader_Close (reader);
              return FALSE;
            }
          else
            {
              uint64_t n = 0;
              rc = OTF2_Reader_ReadAllLocalDefinitions (reader, dr, &n);
              OTF2_Reader_CloseDefReader (reader, dr);
              if (rc != OTF2_SUCCESS)
                {
                  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                               _("%s: corrupt local definitions (%s)"), def_path,
                               OTF2_Error_GetDescription (rc));
                  OTF2_Reader_Close (reader);
                  return FALSE;
                }
            }
        }
      OTF2_Reader_CloseDefFiles (reader);
    }
  if (OTF2_Reader_OpenEvtFiles (reader) != OTF2_SUCCESS
      || !(evr = OTF2_Reader_GetEvtReader (reader, loc->id)))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: cannot open the event file"), evt_path);
      OTF2_Reader_Close (reader);
      return FALSE;
    }
  st.rd = rd;
  st.defs = rd->defs;
  st.map = rd->clock_map;
  st.tl = timeline_for (rd);
  /* reserve from the event count: untouched reserve costs address space, not memory */
  if (loc->n_events > 0 && rd->calls->len == 0)
    {
      g_array_set_size (rd->calls, loc->n_events / 3);
      g_array_set_size (rd->calls, 0);
      g_array_set_size (rd->sends, loc->n_events / 3);
      g_array_set_size (rd->sends, 0);
      g_array_set_size (rd->recvs, loc->n_events / 3);
      g_array_set_size (rd->recvs, 0);
    }
  st.cap = 64;
  st.stack = g_new (Frame, st.cap);
  reqmap_init (&st.isend_req);
  reqmap_init (&st.irecv_req);
  reqmap_init (&st.nbc_req);

  cbs = OTF2_EvtReaderCallbacks_New ();
  OTF2_EvtReaderCallbacks_SetEnterCallback (cbs, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback (cbs, on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback (cbs, on_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback (cbs, on_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback (cbs, on_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback (cbs, on_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback (cbs, on_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback (cbs, on_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback (cbs, on_request_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback (cbs, on_coll_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback (cbs, on_coll_end);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (cbs, on_nbc_request);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (cbs, on_nbc_complete);
  OTF2_Reader_RegisterEvtCallbacks (reader, evr, cbs, &st);
  OTF2_EvtReaderCallbacks_Delete (cbs);

  chunk = MAX (loc->n_events / 20, 4096);
  do
    {
      got = 0;
      rc = OTF2_Reader_ReadLocalEvents (reader, evr, chunk, &got);
      done += got;
      if (progress && loc->n_events)
        progress (MIN (1.0, (double) done / loc->n_events), progress_data);
    }
  while (rc == OTF2_SUCCESS && got == chunk);
  if (rc != OTF2_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s: corrupt event data after %llu events (%s)"),
                   evt_path, (unsigned long long) done, OTF2_Error_GetDescription (rc));
      ok = FALSE;
    }
  /* Calls still open at the end (aborted run): close them at their last known time. */
  while (ok && st.depth)
    {
      Frame *f = top_frame (&st);
      if (f->call != NO_INDEX)
        {
          CallRec *c = &g_array_index (rd->calls, CallRec, f->call);
          if (c->leave < c->enter)
            c->leave = c->enter;
        }
      st.depth--;
    }
  rd->n_events = done;
  nbcs_compact (rd, st.tl);
  if (st.tl)
    delay_timeline_finish (st.tl);
  OTF2_Reader_CloseEvtReader (reader, evr);
  OTF2_Reader_CloseEvtFiles (reader);
  OTF2_Reader_Close (reader);
  g_free (st.stack);
  reqmap_clear (&st.isend_req);
  reqmap_clear (&st.irecv_req);
  reqmap_clear (&st.nbc_req);
  return ok;
}
