/* pattern-p2p.c — point-to-point wait states: Late Sender (with the Waitall charge-once rule),
 * Messages in Wrong Order, the wavefront split, and Late Receiver.
 *
 * Replay: every sender sends, along the recorded path (same source and destination rank), what
 * the receiver needs for each recorded message — the enter time of the send call and the send
 * time — in recorded order. The receiver matches them per (communicator, tag) sequence, which is
 * the MPI non-overtaking order the original run obeyed (wildcard receives are recorded with
 * their actual source and tag). The backward replay sends the receiver's posting time back to
 * the sender for Late Receiver. Messages travel in one personalised exchange per direction, so
 * the replay cannot deadlock whatever the recorded order was. */
#include "analyze-private.h"

#include <string.h>

typedef struct
{
  guint32 comm;
  guint32 tag;
  guint32 send_idx;
  guint32 pad;
  Tick    enter;   /* E(send call) */
  Tick    time;    /* the send event */
} FwdMsg;

typedef struct
{
  guint32 send_idx;
  guint32 pad;
  Tick    post_enter;  /* E(recv request) */
} BwdMsg;

typedef struct
{
  GArray *idx;   /* positions in the sender's FwdMsg array, recorded order */
  guint   next;
} Channel;

typedef struct
{
  gint64  value;
  guint32 call;
  gint32  src;
  Tick    send_time;
  int     wf;       /* wavefront metric it was charged to, or -1 */
} WoEntry;

#define WO_BUFFER 100

static void
channel_free (gpointer p)
{
  Channel *c = p;
  g_array_unref (c->idx);
  g_free (c);
}

static GByteArray ***
new_buffers (Transport *t)
{
  GByteArray ***b = g_new0 (GByteArray **, t->n_local);
  for (int i = 0; i < t->n_local; i++)
    b[i] = g_new0 (GByteArray *, t->n_ranks);
  return b;
}

static void
free_buffers (Transport    *t,
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

static const TraceRegion *
call_region (RankData *rd,
             guint32   call)
{
  return trace_defs_region (rd->defs, g_array_index (rd->calls, CallRec, call).region);
}

/* Moves a buffered Late Sender instance into Messages in Wrong Order. */
static void
charge_wrong_order (RankData *rd,
                    WoEntry  *e,
                    gint32    src_of_later)
{
  const CallRec *call = &g_array_index (rd->calls, CallRec, e->call);

  rank_data_wait (rd, M_LATESENDER_WO, call, e->value);
  rank_data_wait (rd, e->src == src_of_later ? M_LSWO_SAME : M_LSWO_DIFFERENT, call, e->value);
}

/* Receiver side: Late Sender, wrong order and wavefront for one rank, given the matched
 * sender data per receive (enter == G_MININT64 for an unmatched receive). */
static void
late_sender (RankData     *rd,
             const Tick   *send_enter,
             const Tick   *send_time)
{
  guint n = rd->recvs->len;
  RecvRec *recvs = (RecvRec *) rd->recvs->data;
  SendRec *sends = (SendRec *) rd->sends->data;
  g_autofree gint32 *src = g_new (gint32, MAX (n, 1));
  g_autofree guint32 *burst = g_new (guint32, MAX (n, 1));
  g_autofree int *wfm = g_new (int, MAX (n, 1));
  WoEntry buf[WO_BUFFER];
  guint nbuf = 0, head = 0;
  Tick buf_max_send = G_MININT64;
  Wavefront *wf = wavefront_new (rd->defs, rd->rank);
  guint j = 0, b = 0;
  gboolean saw_send = FALSE;

  /* bursts: runs of receives with no send in between */
  for (guint i = 0; i < n; i++)
    {
      while (j < rd->sends->len && sends[j].order <= recvs[i].call)
        {
          j++;
          saw_send = TRUE;
        }
      if (saw_send)
        {
          b++;
          saw_send = FALSE;
        }
      burst[i] = b;
      src[i] = send_enter[i] == G_MININT64 ? -1 : recvs[i].peer;
      wfm[i] = -1;
    }
  if (wf)
    wavefront_classify (wf, n, src, burst, wfm);

  for (guint i = 0; i < n;)
    {
      guint32 call_idx = recvs[i].call;
      const CallRec *call = &g_array_index (rd->calls, CallRec, call_idx);
      const TraceRegion *reg = call_region (rd, call_idx);
      gboolean never_waits = reg && (reg->flags & RF_TEST);
      guint end = i;
      gint64 best = 0;
      guint best_i = G_MAXUINT;

      while (end < n && recvs[end].call == call_idx)
        end++;
      /* every message completed by this call: wrong-order check, then its own wait */
      for (guint k = i; k < end; k++)
        {
          if (send_enter[k] == G_MININT64)
            continue;
          if (nbuf && send_time[k] < buf_max_send)
            {
              Tick newmax = G_MININT64;
              guint keep = 0;
              for (guint q = 0; q < nbuf; q++)
                {
                  WoEntry *e = &buf[(head + q) % WO_BUFFER];
                  if (e->send_time > send_time[k])
                    charge_wrong_order (rd, e, recvs[k].peer);
                  else
                    {
                      buf[(head + keep) % WO_BUFFER] = *e;
                      keep++;
                      newmax = MAX (newmax, e->send_time);
                    }
                }
              nbuf = keep;
              buf_max_send = newmax;
            }
          if (!never_waits)
            {
              gint64 w = MIN (send_enter[k], call->leave) - call->enter;
              if (w > best)
                {
                  best = w;
                  best_i = k;
                }
            }
        }
      /* MPI_Waitall/Waitsome: the largest wait among its messages, charged once */
      if (best_i != G_MAXUINT)
        {
          WoEntry e;
          rank_data_wait (rd, M_LATESENDER, call, best);
          /* a call that also completes a non-blocking collective: its wait there is charged
           * beyond this one only (pattern-collective.c, nbc_wait) */
          if (rd->nbcs->len > 0)
            {
              if (!rd->ls_wait)
                rd->ls_wait = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
              g_hash_table_insert (rd->ls_wait, GUINT_TO_POINTER (call_idx + 1), g_memdup2 (&best, sizeof best));
            }
          if (wfm[best_i] >= 0)
            rank_data_wait (rd, wfm[best_i], call, best);
          e.value = best;
          e.call = call_idx;
          e.src = recvs[best_i].peer;
          e.send_time = send_time[best_i];
          e.wf = wfm[best_i];
          /* A pipeline refill is the more specific cause: it is not also wrong order, so the
           * children of Late Sender stay disjoint (see docs/decisions/analyze-wavefront.md). */
          if (e.wf < 0)
            {
              if (nbuf == WO_BUFFER)
                {
                  /* the oldest instance leaves the window */
                  Tick old = buf[head].send_time;
                  head = (head + 1) % WO_BUFFER;
                  nbuf--;
                  if (old == buf_max_send)
                    {
                      buf_max_send = G_MININT64;
                      for (guint q = 0; q < nbuf; q++)
                        buf_max_send = MAX (buf_max_send, buf[(head + q) % WO_BUFFER].send_time);
                    }
                }
              buf[(head + nbuf) % WO_BUFFER] = e;
              nbuf++;
              buf_max_send = MAX (buf_max_send, e.send_time);
            }
        }
      i = end;
    }
  if (wf)
    wavefront_free (wf);
}

typedef struct
{
  Transport    *t;
  RankData    **rds;
  GByteArray ***out;   /* this phase's outgoing buffers [local][world rank] */
  GByteArray ***in;    /* and what arrived */
} P2PPhase;

/* Forward, sender side: what each receiver needs of local rank @i's sends, in recorded order. */
static void
pack_sends (int      i,
            gpointer data)
{
  P2PPhase *ph = data;
  Transport *t = ph->t;
  RankData **rds = ph->rds;
  GByteArray ***out = ph->out;

    {
      RankData *rd = rds[i];
      g_autofree guint *count = g_new0 (guint, t->n_ranks);
      for (guint s = 0; s < rd->sends->len; s++)
        count[g_array_index (rd->sends, SendRec, s).peer]++;
      for (int r = 0; r < t->n_ranks; r++)
        if (count[r])
          {
            out[i][r] = g_byte_array_sized_new (count[r] * sizeof (FwdMsg));
            g_byte_array_set_size (out[i][r], count[r] * sizeof (FwdMsg));
            count[r] = 0;   /* from here: messages written so far */
          }
      for (guint s = 0; s < rd->sends->len; s++)
        {
          SendRec *sr = &g_array_index (rd->sends, SendRec, s);
          FwdMsg m = { 0 };
          m.comm = sr->comm;
          m.tag = sr->tag;
          m.send_idx = s;
          m.enter = sr->enter;
          m.time = sr->time;
          ((FwdMsg *) out[i][sr->peer]->data)[count[sr->peer]++] = m;
        }
    }
}

/* Forward, receiver side: local rank @i matches its receives with the arrived sends (Late
 * Sender, wrong order, wavefront) and answers each sender with the posting time. */
static void
match_receives (int      i,
                gpointer data)
{
  P2PPhase *ph = data;
  Transport *t = ph->t;
  RankData **rds = ph->rds;
  GByteArray ***in = ph->in;
  GByteArray ***bout = ph->out;

    {
      RankData *rd = rds[i];
      guint n = rd->recvs->len;
      g_autofree Tick *send_enter = g_new (Tick, MAX (n, 1));
      g_autofree Tick *send_time = g_new (Tick, MAX (n, 1));
      GHashTable **chan = g_new0 (GHashTable *, t->n_ranks);
      g_autofree guint *count = g_new0 (guint, t->n_ranks);
      g_autofree Channel **last_chan = g_new0 (Channel *, t->n_ranks);
      g_autofree gsize *last_key = g_new0 (gsize, t->n_ranks);

      for (guint r = 0; r < n; r++)
        {
          gint32 peer = g_array_index (rd->recvs, RecvRec, r).peer;
          if (peer >= 0 && peer < t->n_ranks)
            count[peer]++;
        }
      for (int r = 0; r < t->n_ranks; r++)
        if (count[r])
          bout[i][r] = g_byte_array_sized_new (count[r] * sizeof (BwdMsg));
      memset (count, 0, sizeof (guint) * t->n_ranks);
      /* the root-cause passes need every receive's send */
      if (rd->causes && !rd->recv_send)
        {
          rd->recv_send = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
          g_array_set_size (rd->recv_send, n);
          for (guint r = 0; r < n; r++)
            g_array_index (rd->recv_send, guint32, r) = NO_INDEX;
        }

      for (int src = 0; src < t->n_ranks; src++)
        {
          GByteArray *b = in[i][src];
          guint nm = b->len / sizeof (FwdMsg);
          chan[src] = g_hash_table_new_full (key64_hash, g_direct_equal, NULL, channel_free);
          for (guint k = 0; k < nm; k++)
            {
              const FwdMsg *m = (const FwdMsg *) b->data + k;
              gsize key = ((gsize) m->comm << 32) | m->tag;
              Channel *c = g_hash_table_lookup (chan[src], GSIZE_TO_POINTER (key));
              if (!c)
                {
                  c = g_new0 (Channel, 1);
                  c->idx = g_array_new (FALSE, FALSE, sizeof (guint));
                  g_hash_table_insert (chan[src], GSIZE_TO_POINTER (key), c);
                }
              g_array_append_val (c->idx, k);
            }
        }
      for (guint r = 0; r < n; r++)
        {
          RecvRec *rr = &g_array_index (rd->recvs, RecvRec, r);
          gsize key = ((gsize) rr->comm << 32) | rr->tag;
          Channel *c = NULL;
          if (rr->peer >= 0 && rr->peer < t->n_ranks)
            {
              /* consecutive receives from one source usually share the channel */
              if (last_chan[rr->peer] && last_key[rr->peer] == key)
                c = last_chan[rr->peer];
              else
                {
                  c = g_hash_table_lookup (chan[rr->peer], GSIZE_TO_POINTER (key));
                  last_chan[rr->peer] = c;
                  last_key[rr->peer] = key;
                }
            }
          const FwdMsg *m;
          BwdMsg bm = { 0 };

          if (!c || c->next >= c->idx->len)
            {
              rd->unmatched_recvs++;
              send_enter[r] = G_MININT64;
              send_time[r] = G_MININT64;
              continue;
            }
          m = (const FwdMsg *) in[i][rr->peer]->data + g_array_index (c->idx, guint, c->next++);
          send_enter[r] = m->enter;
          send_time[r] = m->time;
          if (rd->recv_send)
            g_array_index (rd->recv_send, guint32, r) = m->send_idx;
          if (rr->time < m->time)
            rd->clock_violations++;
          bm.send_idx = m->send_idx;
          bm.post_enter = rr->post_enter;
          if (!bout[i][rr->peer])
            bout[i][rr->peer] = g_byte_array_new ();
          /* within the capacity reserved above: no reallocation */
          g_byte_array_set_size (bout[i][rr->peer], (count[rr->peer] + 1) * sizeof (BwdMsg));
          ((BwdMsg *) bout[i][rr->peer]->data)[count[rr->peer]++] = bm;
        }
      for (int src = 0; src < t->n_ranks; src++)
        {
          GHashTableIter it;
          gpointer k, v;
          g_hash_table_iter_init (&it, chan[src]);
          while (g_hash_table_iter_next (&it, &k, &v))
            rd->unmatched_sends += ((Channel *) v)->idx->len - ((Channel *) v)->next;
          g_hash_table_unref (chan[src]);
        }
      g_free (chan);
      late_sender (rd, send_enter, send_time);
    }
}

/* Backward, sender side: Late Receiver of local rank @i's blocking sends. */
static void
late_receiver (int      i,
               gpointer data)
{
  P2PPhase *ph = data;
  Transport *t = ph->t;
  RankData **rds = ph->rds;
  GByteArray ***bin = ph->in;

    {
      RankData *rd = rds[i];
      for (int src = 0; src < t->n_ranks; src++)
        {
          GByteArray *b = bin[i][src];
          guint nm = b->len / sizeof (BwdMsg);
          for (guint k = 0; k < nm; k++)
            {
              const BwdMsg *m = (const BwdMsg *) b->data + k;
              const SendRec *sr;
              const CallRec *call = NULL;
              const TraceRegion *reg;

              if (m->send_idx >= rd->sends->len)
                continue;
              sr = &g_array_index (rd->sends, SendRec, m->send_idx);
              if (sr->call != NO_INDEX)   /* a blocking MPI_Send / MPI_Ssend */
                call = &g_array_index (rd->calls, CallRec, sr->call);
              else if (sr->complete_call != NO_INDEX)
                {
                  reg = call_region (rd, sr->complete_call);
                  if (reg && (reg->flags & RF_LR_WAIT))
                    call = &g_array_index (rd->calls, CallRec, sr->complete_call);
                }
              /* the send did not return before the receive was posted */
              if (call && call->leave > m->post_enter)
                rank_data_wait (rd, M_LATERECEIVER, call, m->post_enter - call->enter);
            }
        }
    }
}

gboolean
pattern_p2p_run (Transport  *t,
                 RankData  **rds,
                 GError    **error)
{
  GByteArray ***out = new_buffers (t);
  GByteArray ***in = new_buffers (t);
  GByteArray ***bout, ***bin;
  P2PPhase ph = { t, rds, NULL, NULL };
  gboolean ok;

  /* forward: senders → receivers */
  ph.out = out;
  replay_for_each_local (t, pack_sends, &ph);
  ok = t->alltoallv (t, out, in, error);
  free_buffers (t, out);
  if (!ok)
    {
      free_buffers (t, in);
      return FALSE;
    }

  bout = new_buffers (t);
  ph.in = in;
  ph.out = bout;
  replay_for_each_local (t, match_receives, &ph);
  free_buffers (t, in);

  /* backward: receivers → senders, for Late Receiver */
  bin = new_buffers (t);
  ok = t->alltoallv (t, bout, bin, error);
  free_buffers (t, bout);
  if (!ok)
    {
      free_buffers (t, bin);
      return FALSE;
    }
  ph.in = bin;
  ph.out = NULL;
  replay_for_each_local (t, late_receiver, &ph);
  free_buffers (t, bin);
  return TRUE;
}
