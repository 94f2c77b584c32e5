/* delay-syncpoints.c — every rank's synchronization points, as Scalasca's scout finds them:
 *
 *   Late Sender     the receive that waited (for MPI_Waitall/Waitsome the message with the
 *                   largest wait) and, on the sender, the send it waited for
 *   Late Receiver   the send completion that waited and, on the receiver, the receive request
 *   collectives     barrier: every member; N x N: every member when all overlap, else the
 *                   receivers that entered before the latest sender and that sender; 1-to-N:
 *                   the receivers that entered before the root, and the root; N-to-1: the root
 *                   and the latest sender when the root came first (MPI_Alltoallv/w, scans and
 *                   calls without payload are none)
 *   MPI_Init, MPI_Finalize   every rank, at the leave
 *   non-blocking collectives  the same rules, with the start (the MPI_I* call's enter) as the
 *                   begin of the one the others wait for, met there, and the enter of the
 *                   completing call as the arrival of the ones that wait, met in that call
 *                   with the wait the report charged them
 *
 * each with its waiting time, the time of its call, the completion time after the partner
 * left, and the ranks it synchronized with. Times of collectives start at MpiCollectiveBegin.
 * Two personalised exchanges (sender → receiver, receiver → sender) and a few max-reductions
 * per communicator find them all; nothing here waits on the order of events. */
#include "delay-private.h"
#include "replay-msg.h"

#include <otf2/otf2.h>
#include <string.h>

/* sender → receiver, per send */
typedef struct
{
  guint32 send_idx;
  guint32 lr_ok;       /* its completion may wait for the receiver (Kubus's Late Receiver rule) */
  Tick    enter;       /* the call that holds the send event */
  Tick    leave;
  Tick    center;      /* the call that completes it */
  Tick    cleave;
} FwdInfo;

/* receiver → sender, per matched receive */
typedef struct
{
  guint32 send_idx;
  guint32 flags;       /* FL_* */
  Tick    recv_leave;  /* leave of the call that completed the receive */
  Tick    lr_wait;
  Tick    req_leave;   /* leave of the call that posted the receive */
} BwdInfo;

enum
{
  FL_LS = 1,           /* the receive waited for this send: the send is a synchronization point */
  FL_LR = 2,           /* this send's completion waited for the receive */
};

static const TraceRegion *
call_region (RankData *rd,
             guint32   call)
{
  return trace_defs_region (rd->defs, g_array_index (rd->calls, CallRec, call).region);
}

static const DelayMark *
mark_at (RankData *rd,
         guint32   m)
{
  return &rd->causes->tl->marks[m];
}

/* A new synchronization point unless its event already is one (the first found wins, in
 * scout's order: receives, collectives and MPI_Init/Finalize, then sends, then requests). */
static SyncPoint *
add_sp (RankData *rd,
        guint32   mark,
        SpKind    kind)
{
  Causes *c = rd->causes;
  SyncPoint s = { 0 };

  if (mark == NO_INDEX || mark >= c->tl->n_marks || c->sp_of_mark[mark])
    return NULL;
  s.mark = mark;
  s.kind = kind;
  s.sr_type = SR_ONE;
  s.peer = -1;
  s.rec = NO_INDEX;
  g_array_append_val (c->sps, s);
  c->sp_of_mark[mark] = c->sps->len;
  return &g_array_index (c->sps, SyncPoint, c->sps->len - 1);
}

static const FwdInfo *
find_fwd (GByteArray *b,
          guint32     send_idx)
{
  const FwdInfo *f = (const FwdInfo *) b->data;
  guint lo = 0, hi = b->len / sizeof (FwdInfo);

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (f[mid].send_idx < send_idx)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < b->len / sizeof (FwdInfo) && f[lo].send_idx == send_idx ? &f[lo] : NULL;
}

/* ---- point-to-point ------------------------------------------------------------------------- */

/* The per-rank parts of the exchanges below run on the transport's threads
 * (replay_for_each_local): each writes only its own rank's buffers and synchronization points. */
typedef struct
{
  Transport    *t;
  RankData    **rds;
  GByteArray ***out;
  GByteArray ***in;
} P2pPhase;

/* forward: what the receiver needs of every send */
static void
p2p_forward_one (int      i,
                 gpointer data)
{
  P2pPhase *ph = data;
  Transport *t = ph->t;
  GByteArray ***out = ph->out;
  RankData *rd = ph->rds[i];
  DelayTimeline *tl = rd->causes->tl;
  for (guint s = 0; s < rd->sends->len; s++)
    {
      const SendRec *sr = &g_array_index (rd->sends, SendRec, s);
      guint32 m = g_array_index (tl->send_mark, guint32, s);
      guint32 cm = g_array_index (tl->send_cmark, guint32, s);
      FwdInfo f = { 0 };
      if (sr->peer < 0 || sr->peer >= t->n_ranks)
        continue;
      f.send_idx = s;
      f.enter = mark_at (rd, m)->enter;
      f.leave = mark_at (rd, m)->leave;
      if (cm != NO_INDEX)
        {
          const TraceRegion *reg = sr->complete_call != NO_INDEX ? call_region (rd, sr->complete_call) : NULL;
          f.center = mark_at (rd, cm)->enter;
          f.cleave = mark_at (rd, cm)->leave;
          f.lr_ok = sr->call != NO_INDEX || (reg && (reg->flags & RF_LR_WAIT));
        }
      if (!out[i][sr->peer])
        out[i][sr->peer] = g_byte_array_new ();
      g_byte_array_append (out[i][sr->peer], (guint8 *) &f, sizeof f);
    }
}

/* receivers: Late Sender waits, Late Receiver waits of the senders, the request points */
static void
p2p_receivers_one (int      i,
                   gpointer data)
{
  P2pPhase *ph = data;
  Transport *t = ph->t;
  GByteArray ***in = ph->in;
  GByteArray ***bout = ph->out;
  RankData *rd = ph->rds[i];
  Causes *c = rd->causes;
  DelayTimeline *tl = c->tl;
  guint n = rd->recvs->len;
  const RecvRec *recvs = (const RecvRec *) rd->recvs->data;
  g_autofree const FwdInfo **fw = g_new0 (const FwdInfo *, MAX (n, 1));
  g_autofree guint32 *flags = g_new0 (guint32, MAX (n, 1));
  g_autofree Tick *lr_wait = g_new0 (Tick, MAX (n, 1));

  for (guint r = 0; r < n; r++)
    {
      guint32 s = rd->recv_send ? g_array_index (rd->recv_send, guint32, r) : NO_INDEX;
      if (s != NO_INDEX && recvs[r].peer >= 0 && recvs[r].peer < t->n_ranks && in[i][recvs[r].peer])
        fw[r] = find_fwd (in[i][recvs[r].peer], s);
    }
  /* Late Sender: per call (MPI_Waitall/Waitsome: its largest wait, the first of equal ones) */
  for (guint r = 0; r < n;)
    {
      guint32 call_idx = recvs[r].call;
      const CallRec *call = &g_array_index (rd->calls, CallRec, call_idx);
      const TraceRegion *reg = call_region (rd, call_idx);
      gboolean many = reg && (reg->flags & RF_WAIT_MANY);
      guint end = r + 1;
      if (many)
        while (end < n && recvs[end].call == call_idx)
          end++;
      if (!(reg && (reg->flags & RF_TEST)))
        {
          Tick best = 0;
          guint best_r = G_MAXUINT;
          for (guint k = r; k < end; k++)
            {
              Tick w;
              if (!fw[k])
                continue;
              w = MIN (fw[k]->enter, call->leave) - call->enter;
              if (w > best)
                {
                  best = w;
                  best_r = k;
                }
            }
          if (best_r != G_MAXUINT)
            {
              SyncPoint *sp = add_sp (rd, g_array_index (tl->recv_mark, guint32, best_r), SP_LS_RECV);
              if (sp)
                {
                  sp->wait = best;
                  sp->total = call->leave - call->enter;
                  sp->completion = MAX (0, call->leave - fw[best_r]->leave);
                  sp->peer = recvs[best_r].peer;
                  sp->rec = best_r;
                  flags[best_r] |= FL_LS;
                }
            }
        }
      r = end;
    }
  /* Late Receiver: the sender's completion waited for this receive to be posted */
  for (guint r = 0; r < n; r++)
    {
      Tick w;
      if (!fw[r] || !fw[r]->lr_ok || fw[r]->cleave <= recvs[r].post_enter)
        continue;
      w = recvs[r].post_enter - fw[r]->center;
      if (w > 0)
        {
          flags[r] |= FL_LR;
          lr_wait[r] = w;
        }
    }
  /* the other sides are found by the senders; the request points come after the sends in
   * scout's order, but a request is never a send: add them now */
  for (guint r = 0; r < n; r++)
    {
      guint32 q;
      if (!(flags[r] & FL_LR))
        continue;
      q = g_array_index (tl->recv_qmark, guint32, r);
      if (q != NO_INDEX)
        {
          const DelayMark *qm = mark_at (rd, q);
          SyncPoint *sp = add_sp (rd, q, SP_LR_RECV);
          if (sp)
            {
              sp->wait = 0;
              sp->total = qm->leave - qm->enter;
              sp->completion = MAX (0, qm->leave - fw[r]->cleave);
              sp->peer = recvs[r].peer;
              sp->rec = r;
            }
        }
    }
  for (guint r = 0; r < n; r++)
    {
      BwdInfo b = { 0 };
      guint32 q;
      if (!fw[r] || !flags[r])
        continue;
      q = g_array_index (tl->recv_qmark, guint32, r);
      b.send_idx = fw[r]->send_idx;
      b.flags = flags[r];
      b.recv_leave = g_array_index (rd->calls, CallRec, recvs[r].call).leave;
      b.lr_wait = lr_wait[r];
      b.req_leave = q != NO_INDEX ? mark_at (rd, q)->leave : recvs[r].post_enter;
      if (!bout[i][recvs[r].peer])
        bout[i][recvs[r].peer] = g_byte_array_new ();
      g_byte_array_append (bout[i][recvs[r].peer], (guint8 *) &b, sizeof b);
    }
}

/* senders: the sends waited for (Late Sender) and the completions that waited (Late Receiver) */
static void
p2p_senders_one (int      i,
                 gpointer data)
{
  P2pPhase *ph = data;
  Transport *t = ph->t;
  GByteArray ***bin = ph->in;
  RankData *rd = ph->rds[i];
  DelayTimeline *tl = rd->causes->tl;
  for (int src = 0; src < t->n_ranks; src++)
    {
      const BwdInfo *b = (const BwdInfo *) bin[i][src]->data;
      guint nb = bin[i][src]->len / sizeof (BwdInfo);
      for (guint k = 0; k < nb; k++)
        {
          guint32 s = b[k].send_idx;
          if (s >= rd->sends->len)
            continue;
          if (b[k].flags & FL_LR)
            {
              guint32 cm = g_array_index (tl->send_cmark, guint32, s);
              SyncPoint *sp = cm != NO_INDEX ? add_sp (rd, cm, SP_LR_SEND) : NULL;
              if (sp)
                {
                  const DelayMark *m = mark_at (rd, cm);
                  sp->wait = b[k].lr_wait;
                  sp->total = m->leave - m->enter;
                  /* scout's formula: never positive */
                  sp->completion = m->leave > b[k].req_leave ? 0 : m->leave - b[k].req_leave;
                  sp->peer = src;
                  sp->rec = s;
                }
            }
          if (b[k].flags & FL_LS)
            {
              guint32 m = g_array_index (tl->send_mark, guint32, s);
              SyncPoint *sp = add_sp (rd, m, SP_LS_SEND);
              if (sp)
                {
                  const DelayMark *dm = mark_at (rd, m);
                  sp->wait = 0;
                  sp->total = dm->leave - dm->enter;
                  sp->completion = MAX (0, dm->leave - b[k].recv_leave);
                  sp->peer = src;
                  sp->rec = s;
                }
            }
        }
    }
}

static gboolean
p2p_syncpoints (Transport  *t,
                RankData  **rds,
                GError    **error)
{
  GByteArray ***out = replay_buffers_new (t);
  GByteArray ***in = replay_buffers_new (t);
  GByteArray ***bout, ***bin;
  gboolean ok;
  P2pPhase ph = { t, rds, NULL, NULL };

  /* forward: what the receiver needs of every send */
  ph.out = out;
  replay_for_each_local (t, p2p_forward_one, &ph);
  ok = t->alltoallv (t, out, in, error);
  replay_buffers_free (t, out);
  if (!ok)
    {
      replay_buffers_free (t, in);
      return FALSE;
    }

  /* receivers: Late Sender waits, Late Receiver waits of the senders, the request points */
  bout = replay_buffers_new (t);
  ph.in = in;
  ph.out = bout;
  replay_for_each_local (t, p2p_receivers_one, &ph);
  replay_buffers_free (t, in);

  bin = replay_buffers_new (t);
  ok = t->alltoallv (t, bout, bin, error);
  replay_buffers_free (t, bout);
  if (!ok)
    {
      replay_buffers_free (t, bin);
      return FALSE;
    }
  /* senders: the sends waited for (Late Sender) and the completions that waited (Late Receiver) */
  ph.in = bin;
  replay_for_each_local (t, p2p_senders_one, &ph);
  replay_buffers_free (t, bin);
  return TRUE;
}

/* ---- collectives ---------------------------------------------------------------------------- */

enum
{
  CK_NONE = 255,
  CK_SCAN = 254,
};

static guint8
sp_coll_kind (guint32 op)
{
  switch (op)
    {
    case OTF2_COLLECTIVE_OP_BARRIER:
      return CK_BARRIER;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return CK_N2N;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
      return CK_12N;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
      return CK_N21;
    default:
      /* MPI_Alltoallv/w can carry any pattern; scans have no delay analysis */
      return CK_NONE;
    }
}

/* One collective instance as this rank saw it. */
typedef struct
{
  guint32 rec;
  guint8  kind;
  gboolean root;       /* this rank is the operation's root */
  gboolean sent, recvd;
  Tick    begin, end, enter, leave;
  /* when the rank arrives to wait: the begin of a blocking collective, the enter of the call
   * that completes a non-blocking one (begin is then its start, the MPI_I* call's enter) */
  Tick    arrive;
  guint32 smark;       /* the synchronization point of the one the others wait for ... */
  guint32 cmark;       /* ... and of those who wait */
  Tick    charged;     /* non-blocking: its wait after the charge-once rules (NbcRec.charged) */
  gboolean binds;      /* non-blocking: it held the completing call (NbcRec.binds) */
} Inst;

/* Per instance, after the reductions. */
typedef struct
{
  Tick latest;          /* the latest begin of those that count */
  int  latest_pos;      /* its comm-local rank (the lowest of equal ones) */
  Tick earliest_end;
  Tick root_begin;
  gboolean partial;     /* N x N without full overlap */
  gboolean skip;
} InstInfo;

#define NONE G_MININT64

/* The members' sync flags and the first/count of the ranks list of an instance. */
static guint32
push_list (Causes     *c,
           const int  *world,
           const gint64 *slot,
           int          size,
           guint32     *n_out)
{
  g_autofree gint32 *tmp = g_new (gint32, MAX (size, 1));
  guint32 first = c->sp_ranks->len, n = 0;

  for (int m = 0; m < size; m++)
    if (!slot || slot[m] != NONE)
      tmp[n++] = world[m];
  /* sorted by world rank for the membership tests */
  for (guint a = 1; a < n; a++)
    for (guint b = a; b > 0 && tmp[b] < tmp[b - 1]; b--)
      {
        gint32 x = tmp[b];
        tmp[b] = tmp[b - 1];
        tmp[b - 1] = x;
      }
  g_array_append_vals (c->sp_ranks, tmp, n);
  *n_out = n;
  return first;
}

static void
coll_comm (Transport  *t,
           RankData  **rds,
           TraceComm  *comm,
           gboolean    nbc)
{
  int n_local = t->n_local, size = comm->size;
  g_autofree GArray **insts = g_new0 (GArray *, n_local);
  g_autofree int *pos = g_new (int, n_local);
  g_autofree gint64 **v = g_new0 (gint64 *, n_local);
  gint64 n_inst = G_MAXINT64;
  gsize n;
  enum { R1 = 6, R2 = 3 };

  for (int i = 0; i < n_local; i++)
    {
      RankData *rd = rds[i];
      DelayTimeline *tl = rd->causes->tl;
      pos[i] = -1;
      for (int m = 0; m < size; m++)
        if (comm->world[m] == rd->rank)
          pos[i] = m;
      if (pos[i] < 0)
        continue;
      insts[i] = g_array_new (FALSE, TRUE, sizeof (Inst));
      /* non-blocking ones: their own sequence (they never match blocking ones); the rank that
       * came last is met at its start, the ones that waited in the call that completed it */
      for (guint k = 0; nbc && k < rd->nbcs->len; k++)
        {
          const NbcRec *nr = &g_array_index (rd->nbcs, NbcRec, k);
          const CallRec *call = &g_array_index (rd->calls, CallRec, nr->call);
          Inst in = { 0 };
          if (nr->comm != comm->index)
            continue;
          in.rec = k;
          in.kind = sp_coll_kind (nr->op);
          in.root = nr->root != NO_INDEX && (int) nr->root == pos[i];
          in.sent = nr->sent;
          in.recvd = nr->received;
          in.begin = nr->start;
          in.arrive = call->enter;
          in.end = call->leave;
          in.enter = call->enter;
          in.leave = call->leave;
          in.smark = g_array_index (tl->nbc_smark, guint32, k);
          in.cmark = g_array_index (tl->nbc_cmark, guint32, k);
          in.charged = nr->charged;
          in.binds = nr->binds;
          g_array_append_val (insts[i], in);
        }
      for (guint k = 0; !nbc && k < rd->colls->len; k++)
        {
          const CollRec *cr = &g_array_index (rd->colls, CollRec, k);
          const CallRec *call = &g_array_index (rd->calls, CallRec, cr->call);
          Inst in = { 0 };
          if (cr->comm != comm->index)
            continue;
          in.rec = k;
          in.kind = sp_coll_kind (cr->op);
          in.root = cr->root != NO_INDEX && (int) cr->root == pos[i];
          in.sent = cr->sent > 0;
          in.recvd = cr->received > 0;
          in.begin = g_array_index (tl->coll_begin, Tick, k);
          in.arrive = in.begin;
          in.end = cr->end;
          in.enter = call->enter;
          in.leave = call->leave;
          in.smark = in.cmark = g_array_index (tl->coll_mark, guint32, k);
          g_array_append_val (insts[i], in);
        }
      v[i] = g_new (gint64, 1);
      v[i][0] = -(gint64) insts[i]->len;
    }
  /* every member has the instances the one with the fewest has (an aborted run) */
  t->allreduce_max (t, comm->index, comm->world, size, v, 1);
  for (int i = 0; i < n_local; i++)
    if (v[i])
      {
        n_inst = -v[i][0];
        g_clear_pointer (&v[i], g_free);
      }
  if (n_inst == G_MAXINT64 || n_inst <= 0)
    goto out;
  n = (gsize) n_inst;

  {
    g_autofree InstInfo *info = g_new0 (InstInfo, n);
    g_autofree gboolean *need3 = g_new0 (gboolean, n);
    gsize n3 = 0;

    /* round 1: latest begin, earliest end, the root's begin and payload, latest sender */
    for (int i = 0; i < n_local; i++)
      {
        if (!insts[i])
          continue;
        v[i] = g_new (gint64, n * R1);
        for (gsize k = 0; k < n; k++)
          {
            const Inst *in = &g_array_index (insts[i], Inst, k);
            gint64 *x = v[i] + k * R1;
            x[0] = in->begin;
            x[1] = -in->end;
            /* the root's begin (1-to-N), or when it came to wait (N-to-1) */
            x[2] = in->root ? (in->kind == CK_N21 ? in->arrive : in->begin) : NONE;
            x[3] = in->root ? in->sent : NONE;
            x[4] = in->root ? in->recvd : NONE;
            x[5] = in->sent ? in->begin : NONE;
          }
      }
    t->allreduce_max (t, comm->index, comm->world, size, v, n * R1);
    {
      gint64 *r1 = NULL;
      for (int i = 0; i < n_local; i++)
        if (v[i])
          r1 = v[i];
      if (!r1)
        goto out;
      for (gsize k = 0; k < n; k++)
        {
          const gint64 *x = r1 + k * R1;
          guint8 kind = CK_NONE;
          for (int i = 0; i < n_local; i++)
            if (insts[i])
              kind = g_array_index (insts[i], Inst, k).kind;
          info[k].root_begin = x[2];
          info[k].earliest_end = -x[1];
          info[k].skip = kind == CK_NONE;
          switch (kind)
            {
            case CK_BARRIER:
              info[k].latest = x[0];
              break;
            case CK_N2N:
              info[k].latest = x[0];
              if (!(info[k].earliest_end > x[0]))
                {
                  info[k].partial = TRUE;
                  info[k].latest = x[5];
                  info[k].skip = x[5] == NONE;
                }
              break;
            case CK_12N:
              info[k].skip = x[3] != 1 || x[2] == NONE;
              break;
            case CK_N21:
              info[k].latest = x[5];
              info[k].skip = x[4] != 1 || x[5] == NONE || x[2] == NONE || !(x[2] < x[5]);
              break;
            default:
              break;
            }
        }
    }
    /* round 2: who the latest is (the lowest of equal ones), and for 1-to-N the earliest end
     * of the receivers that waited for the root */
    for (int i = 0; i < n_local; i++)
      {
        if (!insts[i])
          continue;
        for (gsize k = 0; k < n; k++)
          {
            const Inst *in = &g_array_index (insts[i], Inst, k);
            gint64 *x = v[i] + k * R2;
            gboolean counts = in->kind == CK_BARRIER || (in->kind == CK_N2N && !info[k].partial) || in->sent;
            x[0] = counts && in->begin == info[k].latest && !info[k].skip ? -(gint64) pos[i] : NONE;
            x[1] = in->kind == CK_12N && in->recvd && in->arrive < info[k].root_begin ? -in->end : NONE;
            x[2] = NONE;
          }
      }
    t->allreduce_max (t, comm->index, comm->world, size, v, n * R2);
    {
      gint64 *r2 = NULL;
      for (int i = 0; i < n_local; i++)
        if (v[i])
          r2 = v[i];
      for (gsize k = 0; k < n; k++)
        {
          const gint64 *x = r2 + k * R2;
          guint8 kind = CK_NONE;
          for (int i = 0; i < n_local; i++)
            if (insts[i])
              kind = g_array_index (insts[i], Inst, k).kind;
          if (info[k].skip)
            continue;
          info[k].latest_pos = x[0] == NONE ? 0 : (int) -x[0];
          if (kind == CK_12N)
            {
              info[k].skip = x[1] == NONE;      /* nobody waited for the root */
              info[k].earliest_end = x[1] == NONE ? 0 : -x[1];
            }
          /* non-blocking: always a subset, the ones that waited (were held by it) and the one
           * they waited for; a member that came after the others' starts met nobody */
          need3[k] = nbc || (kind == CK_N2N && info[k].partial) || kind == CK_12N || kind == CK_N21;
          if (need3[k])
            n3++;
        }
    }
    /* round 3 (only the instances whose synchronizing ranks are a subset): the earliest end
     * among them and who they are */
    {
      g_autofree gsize *at = g_new0 (gsize, n);
      gsize stride = (gsize) size + 1, off = 0;
      for (gsize k = 0; k < n; k++)
        if (need3[k] && !info[k].skip)
          {
            at[k] = off;
            off += stride;
          }
        else
          at[k] = G_MAXSIZE;
      for (int i = 0; i < n_local; i++)
        {
          if (!insts[i])
            continue;
          g_free (v[i]);
          v[i] = g_new (gint64, MAX (off, 1));
          for (gsize q = 0; q < MAX (off, 1); q++)
            v[i][q] = NONE;
          for (gsize k = 0; k < n; k++)
            {
              const Inst *in = &g_array_index (insts[i], Inst, k);
              gboolean sync = FALSE;
              if (at[k] == G_MAXSIZE)
                continue;
              switch (in->kind)
                {
                case CK_BARRIER:
                  sync = pos[i] == info[k].latest_pos || (in->binds && in->arrive < info[k].latest);
                  break;
                case CK_N2N:
                  if (nbc && !info[k].partial)
                    sync = pos[i] == info[k].latest_pos || (in->binds && in->arrive < info[k].latest);
                  else
                    sync = (in->recvd && in->arrive < info[k].latest && (!nbc || in->binds))
                           || (in->sent && pos[i] == info[k].latest_pos);
                  break;
                case CK_12N:
                  sync = (nbc && in->root) || (in->recvd && in->arrive < info[k].root_begin && (!nbc || in->binds));
                  break;
                case CK_N21:
                  sync = (in->root && (!nbc || in->binds)) || pos[i] == info[k].latest_pos;
                  break;
                default:
                  break;
                }
              if (sync)
                {
                  v[i][at[k]] = -in->end;
                  v[i][at[k] + 1 + pos[i]] = 1;
                }
            }
        }
      if (off > 0)
        t->allreduce_max (t, comm->index, comm->world, size, v, off);

      /* every member: its synchronization point of each instance */
      for (int i = 0; i < n_local; i++)
        {
          RankData *rd = rds[i];
          Causes *c = rd->causes;
          guint32 all_first = NO_INDEX, all_n = 0;
          if (!insts[i])
            continue;
          for (gsize k = 0; k < n; k++)
            {
              const Inst *in = &g_array_index (insts[i], Inst, k);
              const InstInfo *ii = &info[k];
              const gint64 *x3 = at[k] != G_MAXSIZE ? v[i] + at[k] : NULL;
              gboolean sync = FALSE, root = FALSE;
              Tick latest = ii->latest, earliest = ii->earliest_end, idle, done;
              guint32 mark;
              int root_pos = ii->latest_pos;
              SyncPoint *sp;

              if (ii->skip)
                continue;
              if (nbc)
                {
                  /* nobody was held by it: no synchronization */
                  int n_sync = 0;
                  for (int m = 0; m < size; m++)
                    n_sync += x3[1 + m] != NONE;
                  if (n_sync < 2)
                    continue;
                }
              switch (in->kind)
                {
                case CK_BARRIER:
                  sync = !nbc || x3[1 + pos[i]] != NONE;
                  break;
                case CK_N2N:
                  sync = (!nbc && !ii->partial) || x3[1 + pos[i]] != NONE;
                  if (ii->partial && x3[0] != NONE)
                    earliest = -x3[0];
                  break;
                case CK_12N:
                  sync = in->root || x3[1 + pos[i]] != NONE;
                  latest = ii->root_begin;
                  earliest = x3[0] != NONE ? -x3[0] : latest;
                  root_pos = -1;
                  for (int m = 0; m < size; m++)
                    if ((nbc ? g_array_index (rd->nbcs, NbcRec, in->rec).root
                             : g_array_index (rd->colls, CollRec, in->rec).root) == (guint32) m)
                      root_pos = m;
                  break;
                case CK_N21:
                  sync = x3[1 + pos[i]] != NONE;
                  earliest = x3[0] != NONE ? -x3[0] : latest;
                  break;
                default:
                  break;
                }
              if (!sync || root_pos < 0)
                continue;
              root = pos[i] == root_pos;
              latest = MIN (latest, in->end);
              earliest = MAX (earliest, latest);
              idle = MAX (0, latest - in->arrive);
              done = MAX (0, in->end - earliest);
              mark = root ? in->smark : in->cmark;
              sp = add_sp (rd, mark, SP_COLL);
              if (!sp)
                continue;
              sp->ckind = in->kind;
              sp->root = root;
              sp->comm = comm->index;
              sp->rec = in->rec;
              sp->wait = idle;
              sp->completion = done;
              sp->total = in->leave - in->enter;
              if (nbc && root)
                {
                  /* met at its start: nothing of its MPI_I* call is waiting */
                  sp->wait = 0;
                  sp->total = sp->completion = mark_at (rd, mark)->leave - mark_at (rd, mark)->enter;
                }
              else if (nbc)
                {
                  /* the wait the report shows (a call that completes several, or a late
                   * receive too, is charged once); the rest of the call comes after */
                  sp->wait = in->charged;
                  sp->completion = MAX (0, in->leave - MAX (latest, in->arrive));
                }
              sp->peer = comm->world[root_pos];
              sp->msg = ((guint64) comm->index << 32) | k | (nbc ? 0x80000000u : 0);
              if (!nbc && (in->kind == CK_BARRIER || (in->kind == CK_N2N && !ii->partial)))
                {
                  if (all_first == NO_INDEX)
                    all_first = push_list (c, comm->world, NULL, size, &all_n);
                  sp->sr_type = SR_LIST;
                  sp->sr_first = all_first;
                  sp->sr_n = all_n;
                }
              else if (in->kind == CK_BARRIER || in->kind == CK_N2N || (in->kind == CK_12N && root))
                {
                  sp->sr_type = SR_LIST;
                  sp->sr_first = push_list (c, comm->world, x3 + 1, size, &sp->sr_n);
                  if (in->kind == CK_12N)
                    {
                      /* the root synchronizes with the receivers that waited, not itself */
                      guint32 kept = 0;
                      gint32 *l = &g_array_index (c->sp_ranks, gint32, sp->sr_first);
                      for (guint32 q = 0; q < sp->sr_n; q++)
                        if (l[q] != rd->rank)
                          l[kept++] = l[q];
                      g_array_set_size (c->sp_ranks, sp->sr_first + kept);
                      sp->sr_n = kept;
                    }
                }
              else if (in->kind == CK_12N)
                {
                  sp->sr_type = SR_ONE;
                  sp->sr_first = comm->world[root_pos];
                }
              else
                {
                  /* N-to-1: the root and the latest sender synchronize with each other */
                  int other = root ? -1 : root_pos;
                  if (root)
                    for (int m = 0; m < size; m++)
                      if (x3[1 + m] != NONE && m != pos[i])
                        other = m;
                  if (other < 0)
                    {
                      /* the latest sender is the root itself: nobody waits */
                      g_array_set_size (c->sps, c->sps->len - 1);
                      c->sp_of_mark[mark] = 0;
                      continue;
                    }
                  sp->sr_type = SR_ONE;
                  sp->sr_first = comm->world[other];
                }
              /* the root hears from every other synchronizing member */
              if (root)
                {
                  if (sp->sr_type == SR_LIST)
                    {
                      const gint32 *l = &g_array_index (c->sp_ranks, gint32, sp->sr_first);
                      for (guint32 q = 0; q < sp->sr_n; q++)
                        sp->n_up += l[q] != rd->rank;
                    }
                  else
                    sp->n_up = 1;
                }
            }
        }
    }
  }

out:
  for (int i = 0; i < n_local; i++)
    {
      g_free (v[i]);
      if (insts[i])
        g_array_unref (insts[i]);
    }
}

/* MPI_Init and MPI_Finalize: every rank, at the leave. Also where the critical path starts:
 * the rank that entered MPI_Finalize last (the lowest of equal ones). */
static void
init_finalize (Transport  *t,
               RankData  **rds,
               guint       key)
{
  int n = t->n_ranks;
  g_autofree int *world = g_new (int, n);
  g_autofree gint64 **v = g_new0 (gint64 *, t->n_local);
  enum { IE, IL, FE, FL, FR, NV };

  for (int r = 0; r < n; r++)
    world[r] = r;
  for (int i = 0; i < t->n_local; i++)
    {
      RankData *rd = rds[i];
      v[i] = g_new (gint64, NV);
      for (int q = 0; q < NV; q++)
        v[i][q] = NONE;
      if (rd->init_call != NO_INDEX && rd->causes->tl->init_mark != NO_INDEX)
        {
          const CallRec *c = &g_array_index (rd->calls, CallRec, rd->init_call);
          v[i][IE] = c->enter;
          v[i][IL] = -c->leave;
        }
      if (rd->finalize_call != NO_INDEX && rd->causes->tl->finalize_mark != NO_INDEX)
        {
          const CallRec *c = &g_array_index (rd->calls, CallRec, rd->finalize_call);
          v[i][FE] = c->enter;
          v[i][FL] = -c->leave;
        }
    }
  t->allreduce_max (t, key, world, n, v, NV);
  for (int i = 0; i < t->n_local; i++)
    {
      RankData *rd = rds[i];
      if (rd->finalize_call != NO_INDEX && rd->causes->tl->finalize_mark != NO_INDEX
          && g_array_index (rd->calls, CallRec, rd->finalize_call).enter == v[i][FE])
        v[i][FR] = -rd->rank;
      else
        v[i][FR] = NONE;
      v[i][IE] = v[i][IL] = v[i][FE] = v[i][FL] = NONE;   /* kept below */
    }
  {
    /* a second round for the rank; the times of the first are recomputed from it */
    g_autofree gint64 **w = g_new0 (gint64 *, t->n_local);
    for (int i = 0; i < t->n_local; i++)
      {
        RankData *rd = rds[i];
        w[i] = g_new (gint64, NV);
        for (int q = 0; q < NV; q++)
          w[i][q] = NONE;
        if (rd->init_call != NO_INDEX && rd->causes->tl->init_mark != NO_INDEX)
          {
            const CallRec *c = &g_array_index (rd->calls, CallRec, rd->init_call);
            w[i][IE] = c->enter;
            w[i][IL] = -c->leave;
          }
        if (rd->finalize_call != NO_INDEX && rd->causes->tl->finalize_mark != NO_INDEX)
          {
            const CallRec *c = &g_array_index (rd->calls, CallRec, rd->finalize_call);
            w[i][FE] = c->enter;
            w[i][FL] = -c->leave;
          }
        w[i][FR] = v[i][FR];
      }
    t->allreduce_max (t, key, world, n, w, NV);
    for (int i = 0; i < t->n_local; i++)
      {
        RankData *rd = rds[i];
        Causes *c = rd->causes;
        if (n > 1 && rd->init_call != NO_INDEX && c->tl->init_mark != NO_INDEX && w[i][IE] != NONE)
          {
            const CallRec *call = &g_array_index (rd->calls, CallRec, rd->init_call);
            Tick latest = MIN (w[i][IE], call->leave);
            Tick earliest = MAX (-w[i][IL], latest);
            SyncPoint *sp = add_sp (rd, c->tl->init_mark, SP_INIT);
            if (sp)
              {
                sp->sr_type = SR_ALL;
                sp->wait = 0;    /* scout: never charged, so no delay cost ends in MPI_Init */
                sp->completion = MAX (0, call->leave - earliest);
                sp->total = call->leave - call->enter;
              }
          }
        if (n > 1 && rd->finalize_call != NO_INDEX && c->tl->finalize_mark != NO_INDEX && w[i][FE] != NONE)
          {
            const CallRec *call = &g_array_index (rd->calls, CallRec, rd->finalize_call);
            Tick latest = MIN (w[i][FE], call->leave);
            Tick earliest = MAX (-w[i][FL], latest);
            SyncPoint *sp = add_sp (rd, c->tl->finalize_mark, SP_FINALIZE);
            if (sp)
              {
                sp->sr_type = SR_ALL;
                sp->wait = MAX (0, latest - call->enter);
                sp->completion = MAX (0, call->leave - earliest);
                sp->total = call->leave - call->enter;
                /* the critical path starts here */
                sp->root = w[i][FR] != NONE && (int) -w[i][FR] == rd->rank;
              }
          }
        g_free (w[i]);
      }
  }
  for (int i = 0; i < t->n_local; i++)
    g_free (v[i]);
}

static gint
sp_cmp (gconstpointer a,
        gconstpointer b)
{
  const SyncPoint *x = a, *y = b;
  return x->mark < y->mark ? -1 : x->mark > y->mark;
}

/* A rank's points in event order, and the indexes from marks, sends and receives to them. */
static void
index_one (int      i,
           gpointer data)
{
  RankData *rd = ((RankData **) data)[i];
  Causes *c = rd->causes;

  g_array_sort (c->sps, sp_cmp);
  memset (c->sp_of_mark, 0, sizeof (guint32) * MAX (c->tl->n_marks, 1));
  c->send_sp = g_new0 (guint32, MAX (rd->sends->len, 1));
  c->recv_sp = g_new0 (guint32, MAX (rd->recvs->len, 1));
  for (guint k = 0; k < c->sps->len; k++)
    {
      SyncPoint *sp = &g_array_index (c->sps, SyncPoint, k);
      c->sp_of_mark[sp->mark] = k + 1;
      if (sp->kind == SP_LS_SEND || sp->kind == SP_LR_SEND)
        c->send_sp[sp->rec] = k + 1;
      else if (sp->kind == SP_LS_RECV || sp->kind == SP_LR_RECV)
        c->recv_sp[sp->rec] = k + 1;
      if (sp->kind == SP_LS_RECV || sp->kind == SP_LS_SEND || sp->kind == SP_LR_SEND
          || sp->kind == SP_LR_RECV)
        sp->sr_first = (guint32) sp->peer;
    }
  c->cost = g_new0 (double, (gsize) MAX (c->sps->len, 1) * N_LT);
  c->pw_ind = g_new0 (double, MAX (c->sps->len, 1));
  c->pw_prop = g_new0 (double, MAX (c->sps->len, 1));
}

gboolean
delay_syncpoints_build (Transport  *t,
                        RankData  **rds,
                        GError    **error)
{
  TraceDefs *defs = rds[0]->defs;
  guint n_comms = defs->comms->len;
  g_autofree gint64 **used = g_new0 (gint64 *, t->n_local);
  g_autofree int *world = g_new (int, t->n_ranks);

  for (int i = 0; i < t->n_local; i++)
    {
      Causes *c = rds[i]->causes;
      c->sps = g_array_sized_new (FALSE, TRUE, sizeof (SyncPoint), MIN (c->tl->n_marks, 1u << 20));
      c->sp_ranks = g_array_new (FALSE, FALSE, sizeof (gint32));
      c->sp_of_mark = g_new0 (guint32, MAX (c->tl->n_marks, 1));
    }
  /* scout's order: receives, collectives, MPI_Init/Finalize (forward), then sends (backward),
   * then requests */
  if (!p2p_syncpoints (t, rds, error))
    return FALSE;

  for (int r = 0; r < t->n_ranks; r++)
    world[r] = r;
  for (int i = 0; i < t->n_local; i++)
    {
      used[i] = g_new0 (gint64, MAX (2 * n_comms, 1));
      for (guint k = 0; k < rds[i]->colls->len; k++)
        used[i][g_array_index (rds[i]->colls, CollRec, k).comm] = 1;
      for (guint k = 0; k < rds[i]->nbcs->len; k++)
        used[i][n_comms + g_array_index (rds[i]->nbcs, NbcRec, k).comm] = 1;
    }
  t->allreduce_max (t, n_comms + 1, world, t->n_ranks, used, MAX (2 * n_comms, 1));
  for (guint cidx = 0; cidx < n_comms; cidx++)
    {
      TraceComm *comm = defs->comms->pdata[cidx];
      gboolean usable = comm->size > 1 && comm->world && !comm->is_inter;
      for (int m = 0; usable && m < comm->size; m++)
        if (comm->world[m] < 0 || comm->world[m] >= t->n_ranks)
          usable = FALSE;
      if (usable && used[0][cidx] > 0)
        coll_comm (t, rds, comm, FALSE);
      if (usable && used[0][n_comms + cidx] > 0)
        coll_comm (t, rds, comm, TRUE);
    }
  init_finalize (t, rds, n_comms + 3);

  for (int i = 0; i < t->n_local; i++)
    g_free (used[i]);
  replay_for_each_local (t, index_one, rds);
  return TRUE;
}
