/* pattern-collective.c — collective wait states: Wait at Barrier / Barrier Completion,
 * Wait at N x N / N x N Completion, Late Broadcast, Early Reduce, Early Scan, and over all
 * ranks Initialization Completion and Wait at Finalize.
 *
 * Non-blocking collectives (docs/decisions/2026-11-29-nonblocking-collectives.md) have the
 * same waits, found in the call that completes them (MPI_Wait*, MPI_Test*) and measured
 * from the starts (enters of the MPI_I* calls) of the members they depend on: a call that
 * completes several is charged once, the largest; no Completion metric. The waiting time
 * moves from the completing call's category (Point-to-point) to the collective's, so every
 * metric's exclusive value stays what it holds.
 *
 * Replay: for every recorded communicator (in definition order, the same on every process)
 * the members exchange, for each of their collective instances in recorded order, the enter
 * and leave times as a MAX reduction over the communicator (leave negated for the minimum;
 * root / non-root enters in separate slots), plus a prefix-max scan in comm-rank order. */
#include "analyze-private.h"

#include <otf2/otf2.h>
#include <stddef.h>

enum
{
  V_ENTER,      /* max → latest enter */
  V_NEG_LEAVE,  /* max → −earliest leave */
  V_ROOT,       /* max → enter of the root */
  V_NONROOT,    /* max → latest enter among the non-roots (the senders of a reduction) */
  N_V
};

typedef enum
{
  K_OTHER,
  K_BARRIER,
  K_NXN,
  K_BCAST,
  K_REDUCE,
  K_SCAN,
} CollKind;

static CollKind
coll_kind (guint32 op)
{
  switch (op)
    {
    case OTF2_COLLECTIVE_OP_BARRIER:
      return K_BARRIER;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return K_NXN;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
      return K_BCAST;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
      return K_REDUCE;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
      return K_SCAN;
    default:
      return K_OTHER;
    }
}

static void
sync_waits (RankData      *rd,
            const CallRec *call,
            Tick           latest_enter,
            Tick           earliest_leave,
            MetricId       wait,
            MetricId       completion)
{
  Tick last = MIN (latest_enter, call->leave);
  rank_data_wait (rd, wait, call, last - call->enter);
  rank_data_wait (rd, completion, call, call->leave - MAX (earliest_leave, last));
}

/* Each local rank's collective records ordered by communicator (recorded order within one),
 * with a cursor: the communicators are replayed in index order, so finding a communicator's
 * instances costs their number, not a scan of every record per communicator (quadratic in
 * programs that create thousands of communicators). The records are CollRec (blocking) or
 * NbcRec (non-blocking): both begin with the call and the communicator. */
G_STATIC_ASSERT (offsetof (CollRec, comm) == offsetof (NbcRec, comm));

typedef struct
{
  guint32      *order;
  guint         n;
  guint         cursor;
  const guint8 *base;
  gsize         stride;
} CollOrder;

static inline guint32
rec_comm (const CollOrder *co,
          guint32          k)
{
  return ((const CollRec *) (co->base + (gsize) k * co->stride))->comm;
}

static gint
coll_order_cmp (gconstpointer a,
                gconstpointer b,
                gpointer      data)
{
  const CollOrder *co = data;
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  guint32 cx = rec_comm (co, x), cy = rec_comm (co, y);
  if (cx != cy)
    return cx < cy ? -1 : 1;
  return x < y ? -1 : x > y;
}

static void
coll_order_init (CollOrder *co,
                 GArray    *recs)
{
  co->n = recs->len;
  co->cursor = 0;
  co->base = (const guint8 *) recs->data;
  co->stride = g_array_get_element_size (recs);
  co->order = g_new (guint32, MAX (co->n, 1));
  for (guint k = 0; k < co->n; k++)
    co->order[k] = k;
  g_qsort_with_data (co->order, co->n, sizeof (guint32), coll_order_cmp, co);
}

/* Appends the records of communicator @comm_index (in recorded order) to @out. */
static void
coll_order_take (CollOrder *co,
                 guint32    comm_index,
                 GArray    *out)
{
  while (co->cursor < co->n && rec_comm (co, co->order[co->cursor]) < comm_index)
    co->cursor++;
  while (co->cursor < co->n && rec_comm (co, co->order[co->cursor]) == comm_index)
    {
      guint c = co->order[co->cursor++];
      g_array_append_val (out, c);
    }
}

/* The instances of @comm's collectives of one kind (@orders: blocking or non-blocking) each
 * local rank takes part in: their records in @idx[i] (NULL where the rank is no member), its
 * position in the communicator in @pos[i], its count in @cnt[i] (freed by the caller). The
 * members agree on the number, the fewest: an aborted run may not have finished them all, and
 * the rest count as mismatches. Returns that number. */
static gsize
agree_instances (Transport  *t,
                 RankData  **rds,
                 CollOrder  *orders,
                 TraceComm  *comm,
                 gint64    **cnt,
                 GArray    **idx,
                 int        *pos)
{
  gint64 n_max = 0, n_min = 0;

  for (int i = 0; i < t->n_local; i++)
    {
      pos[i] = -1;
      for (int m = 0; m < comm->size; m++)
        if (comm->world[m] == rds[i]->rank)
          pos[i] = m;
      if (pos[i] < 0)
        continue;
      idx[i] = g_array_new (FALSE, FALSE, sizeof (guint));
      coll_order_take (&orders[i], comm->index, idx[i]);
      cnt[i] = g_new (gint64, 2);
      cnt[i][0] = idx[i]->len;
      cnt[i][1] = -(gint64) idx[i]->len;
    }
  t->allreduce_max (t, comm->index, comm->world, comm->size, cnt, 2);
  for (int i = 0; i < t->n_local; i++)
    if (cnt[i])
      {
        n_max = cnt[i][0];
        n_min = -cnt[i][1];
      }
  for (int i = 0; i < t->n_local; i++)
    if (idx[i] && n_max != n_min)
      rds[i]->collective_mismatch += idx[i]->len - (gsize) n_min;
  return (gsize) n_min;
}

/* Moves @w of the time of @call from the category metric of its region (Point-to-point for
 * MPI_Wait*) to the one wait-state metric @m lies under, with their ancestors: the wait is
 * collective time, the rest of the call stays where it was. */
static void
move_category (RankData      *rd,
               const CallRec *call,
               MetricId       m,
               gint64         w)
{
  int from = analyze_category_metric (trace_defs_region (rd->defs, call->region));
  int to = analyze_metrics[m].parent;
  for (int x = from; x >= 0; x = analyze_metrics[x].parent)
    if (!analyze_metric_is_below (to, x))
      rank_data_add (rd, x, call->cnode, -w);
  for (int x = to; x >= 0; x = analyze_metrics[x].parent)
    if (!analyze_metric_is_below (from, x))
      rank_data_add (rd, x, call->cnode, w);
}

/* The wait @w of the non-blocking collective @nr in its completing call, as wait state @m:
 * recorded here, charged by nbc_charge once every communicator is done. */
static void
nbc_wait (NbcRec   *nr,
          MetricId  m,
          gint64    w)
{
  if (w <= 0)
    return;
  nr->wait = w;
  nr->metric = (guint16) m;
}

/* A call that completes several non-blocking collectives (MPI_Waitall) is charged once: the
 * largest wait (the first of equal ones, in start order), to its own metric. The call's Late
 * Sender (a MPI_Waitall that also completes a late receive) runs from the same enter, so the
 * collective gets only the part beyond it: the call's wait states sum to its largest wait,
 * never more than its duration. The collective charged is the one that held the call (binds):
 * the root-cause passes meet its members there. */
static void
nbc_charge (RankData *rd)
{
  g_autoptr (GHashTable) best = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint k = 0; k < rd->nbcs->len; k++)
    {
      NbcRec *nr = &g_array_index (rd->nbcs, NbcRec, k);
      gpointer key = GUINT_TO_POINTER (nr->call + 1), v;
      if (nr->wait <= 0)
        continue;
      v = g_hash_table_lookup (best, key);
      if (!v || g_array_index (rd->nbcs, NbcRec, GPOINTER_TO_UINT (v) - 1).wait < nr->wait)
        g_hash_table_insert (best, key, GUINT_TO_POINTER (k + 1));
    }
  for (guint k = 0; k < rd->nbcs->len; k++)
    {
      NbcRec *nr = &g_array_index (rd->nbcs, NbcRec, k);
      const CallRec *call;
      const gint64 *ls;
      gint64 inc;
      if (nr->wait <= 0 || GPOINTER_TO_UINT (g_hash_table_lookup (best, GUINT_TO_POINTER (nr->call + 1))) != k + 1)
        continue;
      ls = rd->ls_wait ? g_hash_table_lookup (rd->ls_wait, GUINT_TO_POINTER (nr->call + 1)) : NULL;
      inc = nr->wait - (ls ? *ls : 0);
      if (inc <= 0)
        continue;
      call = &g_array_index (rd->calls, CallRec, nr->call);
      rank_data_wait (rd, nr->metric, call, inc);
      move_category (rd, call, nr->metric, inc);
      nr->charged = inc;
      nr->binds = 1;
    }
}

/* One instance of a collective as the exchange and the wait states see it: the call that
 * waits (the blocking call; the completing call of a non-blocking one), when it started (its
 * enter; the MPI_I* call's enter), its kind, root and record. */
typedef struct
{
  const CallRec *call;
  Tick           start;
  guint32        op;
  guint32        root;
  NbcRec        *nbc;       /* NULL: blocking */
} CollInstance;

static CollInstance
instance_at (RankData *rd,
             gboolean  nbc,
             guint     rec)
{
  CollInstance in;
  if (nbc)
    {
      in.nbc = &g_array_index (rd->nbcs, NbcRec, rec);
      in.call = &g_array_index (rd->calls, CallRec, in.nbc->call);
      in.start = in.nbc->start;
      in.op = in.nbc->op;
      in.root = in.nbc->root;
    }
  else
    {
      const CollRec *cr = &g_array_index (rd->colls, CollRec, rec);
      in.nbc = NULL;
      in.call = &g_array_index (rd->calls, CallRec, cr->call);
      in.start = in.call->enter;
      in.op = cr->op;
      in.root = cr->root;
    }
  return in;
}

/* The wait state @m of @w in @in's call: charged at once for a blocking collective, recorded
 * for nbc_charge for a non-blocking one (a call may complete several). */
static void
instance_wait (RankData        *rd,
               const CollInstance *in,
               MetricId         m,
               gint64           w)
{
  if (in->nbc)
    nbc_wait (in->nbc, m, w);
  else
    rank_data_wait (rd, m, in->call, w);
}

/* The collectives of one kind (@nbc) of one communicator: the members exchange their starts
 * (and a blocking call's leave) per instance, in recorded order (start order, which MPI's
 * matching follows), and each charges its wait states. A non-blocking collective has no
 * Wait/N x N completion: its completing call's leave is not the collective's. */
static void
run_comm (Transport  *t,
          RankData  **rds,
          CollOrder  *orders,
          TraceComm  *comm,
          gboolean    nbc)
{
  int n_local = t->n_local;
  g_autofree gint64 **cnt = g_new0 (gint64 *, n_local);
  g_autofree gint64 **vals = g_new0 (gint64 *, n_local);
  g_autofree gint64 **scan = g_new0 (gint64 *, n_local);
  g_autofree GArray **idx = g_new0 (GArray *, n_local);
  g_autofree int *pos = g_new (int, n_local);
  gsize n;

  n = agree_instances (t, rds, orders, comm, cnt, idx, pos);
  for (int i = 0; i < n_local; i++)
    {
      if (!idx[i] || n == 0)
        continue;
      vals[i] = g_new (gint64, n * N_V);
      scan[i] = g_new (gint64, n);
      for (gsize k = 0; k < n; k++)
        {
          CollInstance in = instance_at (rds[i], nbc, g_array_index (idx[i], guint, k));
          gboolean root = in.root != NO_INDEX && (int) in.root == pos[i];
          vals[i][k * N_V + V_ENTER] = in.start;
          vals[i][k * N_V + V_NEG_LEAVE] = nbc ? G_MININT64 : -in.call->leave;
          vals[i][k * N_V + V_ROOT] = root ? in.start : G_MININT64;
          vals[i][k * N_V + V_NONROOT] = root ? G_MININT64 : in.start;
          scan[i][k] = in.start;
        }
    }
  if (n > 0)
    {
      t->allreduce_max (t, comm->index, comm->world, comm->size, vals, n * N_V);
      t->scan_max (t, comm->index, comm->world, comm->size, scan, n);
    }
  for (int i = 0; i < n_local; i++)
    {
      RankData *rd = rds[i];
      for (gsize k = 0; vals[i] && k < n; k++)
        {
          CollInstance in = instance_at (rd, nbc, g_array_index (idx[i], guint, k));
          const CallRec *call = in.call;
          const gint64 *v = vals[i] + k * N_V;
          gboolean root = in.root != NO_INDEX && (int) in.root == pos[i];

          switch (coll_kind (in.op))
            {
            case K_BARRIER:
            case K_NXN:
              {
                gboolean barrier = coll_kind (in.op) == K_BARRIER;
                MetricId wait = barrier ? M_BARRIER_WAIT : M_WAIT_NXN;
                if (nbc)
                  nbc_wait (in.nbc, wait, MIN (v[V_ENTER], call->leave) - call->enter);
                else
                  sync_waits (rd, call, v[V_ENTER], -v[V_NEG_LEAVE], wait,
                              barrier ? M_BARRIER_COMPLETION : M_NXN_COMPLETION);
              }
              break;
            case K_BCAST:
              if (!root && in.root != NO_INDEX && v[V_ROOT] != G_MININT64)
                instance_wait (rd, &in, M_LATEBROADCAST, MIN (v[V_ROOT], call->leave) - call->enter);
              break;
            case K_REDUCE:
              if (root && v[V_NONROOT] != G_MININT64)
                instance_wait (rd, &in, M_EARLYREDUCE, MIN (v[V_NONROOT], call->leave) - call->enter);
              break;
            case K_SCAN:
              instance_wait (rd, &in, M_EARLYSCAN, MIN (scan[i][k], call->leave) - call->enter);
              break;
            case K_OTHER:
              break;
            }
        }
      g_free (vals[i]);
      g_free (scan[i]);
      g_free (cnt[i]);
      if (idx[i])
        g_array_unref (idx[i]);
    }
}

/* MPI_Init and MPI_Finalize over all ranks. */
static void
run_init_finalize (Transport  *t,
                   RankData  **rds,
                   guint       key)
{
  int n = t->n_ranks;
  g_autofree int *world = g_new (int, n);
  g_autofree gint64 **vals = g_new0 (gint64 *, t->n_local);

  for (int r = 0; r < n; r++)
    world[r] = r;
  for (int i = 0; i < t->n_local; i++)
    {
      RankData *rd = rds[i];
      vals[i] = g_new (gint64, 3);
      vals[i][0] = vals[i][1] = vals[i][2] = G_MININT64;
      if (rd->init_call != NO_INDEX)
        {
          const CallRec *c = &g_array_index (rd->calls, CallRec, rd->init_call);
          vals[i][0] = c->enter;
          vals[i][1] = -c->leave;
        }
      if (rd->finalize_call != NO_INDEX)
        vals[i][2] = g_array_index (rd->calls, CallRec, rd->finalize_call).enter;
    }
  t->allreduce_max (t, key, world, n, vals, 3);
  for (int i = 0; i < t->n_local; i++)
    {
      RankData *rd = rds[i];
      if (n > 1 && rd->init_call != NO_INDEX && vals[i][0] != G_MININT64)
        {
          const CallRec *c = &g_array_index (rd->calls, CallRec, rd->init_call);
          Tick last = MIN (vals[i][0], c->leave);
          rank_data_wait (rd, M_INIT_COMPLETION, c, c->leave - MAX (-vals[i][1], last));
        }
      if (n > 1 && rd->finalize_call != NO_INDEX && vals[i][2] != G_MININT64)
        {
          const CallRec *c = &g_array_index (rd->calls, CallRec, rd->finalize_call);
          rank_data_wait (rd, M_FINALIZE_WAIT, c, MIN (vals[i][2], c->leave) - c->enter);
        }
      g_free (vals[i]);
    }
}

void
pattern_collective_run (Transport  *t,
                        RankData  **rds)
{
  TraceDefs *defs = rds[0]->defs;
  guint n_comms = defs->comms->len;
  g_autofree int *world = g_new (int, t->n_ranks);
  g_autofree gint64 **used = g_new0 (gint64 *, t->n_local);
  g_autofree CollOrder *orders = g_new0 (CollOrder, t->n_local);
  g_autofree CollOrder *nb_orders = g_new0 (CollOrder, t->n_local);

  /* which communicators carry collectives at all (blocking: slot c, non-blocking: n_comms + c):
   * one reduction over all ranks, so that communicators without any (MPI_COMM_SELF,
   * measurement-system ones) cost nothing */
  for (int r = 0; r < t->n_ranks; r++)
    world[r] = r;
  for (int i = 0; i < t->n_local; i++)
    {
      used[i] = g_new0 (gint64, MAX (2 * n_comms, 1));
      for (guint k = 0; k < rds[i]->colls->len; k++)
        used[i][g_array_index (rds[i]->colls, CollRec, k).comm] = 1;
      for (guint k = 0; k < rds[i]->nbcs->len; k++)
        used[i][n_comms + g_array_index (rds[i]->nbcs, NbcRec, k).comm] = 1;
      coll_order_init (&orders[i], rds[i]->colls);
      coll_order_init (&nb_orders[i], rds[i]->nbcs);
    }
  t->allreduce_max (t, n_comms + 1, world, t->n_ranks, used, MAX (2 * n_comms, 1));

  for (guint c = 0; c < n_comms; c++)
    {
      TraceComm *comm = defs->comms->pdata[c];
      gboolean usable = comm->size > 1 && comm->world;
      /* communicators of size one carry no wait state; unmapped members cannot be replayed */
      for (int m = 0; usable && m < comm->size; m++)
        if (comm->world[m] < 0 || comm->world[m] >= t->n_ranks)
          usable = FALSE;
      if (usable && used[0][c] > 0)
        run_comm (t, rds, orders, comm, FALSE);
      if (usable && used[0][n_comms + c] > 0)
        run_comm (t, rds, nb_orders, comm, TRUE);
    }
  for (int i = 0; i < t->n_local; i++)
    {
      g_free (used[i]);
      g_free (orders[i].order);
      g_free (nb_orders[i].order);
      nbc_charge (rds[i]);
    }
  run_init_finalize (t, rds, n_comms);
}
