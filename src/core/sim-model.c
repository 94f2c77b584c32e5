/* sim-model.c — the offline mode's communication model, fitted from the trace itself
 * (LogGP-style: a message of s bytes takes L + G·s from the start of its send to its arrival;
 * sending, receiving and completing cost o_s, o_r, o_w; messages above the eager limit wait for
 * their receive). Collectives: per (region, communicator size), how long ranks stay after the
 * last member (or the root) arrived, as the median over the trace's instances.
 *
 * Samples come from the original trace, before any hypothesis is applied:
 *  - transfer time: receives (or waits completing them) that were entered before the matching
 *    send started: leave − E(send);
 *  - eager limit: a standard send that returned before its receive was posted is eager; one that
 *    left only after the receive was posted (posted later than the send started) is not;
 *  - overheads: medians of the call durations that did not wait. */
#include "sim-private.h"

#include <math.h>
#include <otf2/otf2.h>
#include <string.h>

typedef struct
{
  Tick *enter;   /* per event: Enter time of the MPI call holding it (-1 outside calls) */
  Tick *leave;
} CallTimes;

static void
call_times (SimRank   *sr,
            CallTimes *ct)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  guint n = sr->ev->len;
  guint k = 0;

  ct->enter = g_new (Tick, MAX (n, 1));
  ct->leave = g_new (Tick, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    ct->enter[i] = ct->leave[i] = -1;
  while (k < n)
    {
      guint l;
      if (ev[k].type != EV_ENTER || !sim_region_is_mpi (sr->defs, ev[k].region))
        {
          k++;
          continue;
        }
      for (l = k + 1; l < n && ev[l].type != EV_LEAVE; l++)
        ;
      if (l >= n)
        break;
      for (guint j = k; j <= l; j++)
        {
          ct->enter[j] = ev[k].time;
          ct->leave[j] = ev[l].time;
        }
      k = l + 1;
    }
}

static int
cmp_double (gconstpointer a,
            gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
med (GArray *a)
{
  if (a->len == 0)
    return NAN;
  g_array_sort (a, cmp_double);
  return g_array_index (a, double, a->len / 2);
}

static const char *
region_name (const TraceDefs *defs,
             guint32          region)
{
  TraceRegion *r = trace_defs_region (defs, region);
  return r && r->name ? r->name : "?";
}

static char *
coll_key (const TraceDefs *defs,
          guint32          region,
          int              size)
{
  return g_strdup_printf ("%s/%d", region_name (defs, region), size);
}

typedef struct
{
  GArray *after_last;
  GArray *own;
} CollSamples;

static void
coll_samples_free (gpointer p)
{
  CollSamples *s = p;
  g_array_unref (s->after_last);
  g_array_unref (s->own);
  g_free (s);
}

static gboolean
one_to_all (guint op)
{
  return op == OTF2_COLLECTIVE_OP_BCAST || op == OTF2_COLLECTIVE_OP_SCATTER || op == OTF2_COLLECTIVE_OP_SCATTERV;
}

static gboolean
all_to_one (guint op)
{
  return op == OTF2_COLLECTIVE_OP_REDUCE || op == OTF2_COLLECTIVE_OP_GATHER || op == OTF2_COLLECTIVE_OP_GATHERV;
}

typedef struct
{
  Tick    enter, leave;
  guint32 region;
  guint32 op;
  gint32  root;
} CollCall;

static void
fit_collectives (SimModel  *m,
                 SimRank  **srs,
                 int        n_ranks,
                 CallTimes *ct)
{
  TraceDefs *defs = srs[0]->defs;
  guint n_comms = defs->comms->len;
  /* per comm, per rank: the collective calls in order */
  g_autofree GArray ***calls = g_new0 (GArray **, MAX (n_comms, 1));
  g_autoptr (GHashTable) samples = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, coll_samples_free);
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (double));
  GHashTableIter it;
  gpointer k, v;

  for (int r = 0; r < n_ranks; r++)
    {
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      for (guint i = 0; i < srs[r]->ev->len; i++)
        {
          TraceComm *c;
          CollCall cc;
          if (ev[i].type != EV_COLL_END || ct[r].enter[i] < 0)
            continue;
          c = trace_defs_comm (defs, ev[i].region);
          if (!c || c->is_inter || c->size <= 1)
            continue;
          if (!calls[c->index])
            calls[c->index] = g_new0 (GArray *, n_ranks);
          if (!calls[c->index][r])
            calls[c->index][r] = g_array_new (FALSE, FALSE, sizeof (CollCall));
          cc.enter = ct[r].enter[i];
          cc.leave = ct[r].leave[i];
          /* the region of the call: the Enter right before the collective's events */
          cc.region = 0;
          for (guint j = i; j-- > 0;)
            if (ev[j].type == EV_ENTER)
              {
                cc.region = ev[j].region;
                break;
              }
          cc.op = ev[i].tag;
          cc.root = ev[i].peer == OTF2_UNDEFINED_UINT32 ? -1 : (gint32) ev[i].peer;
          g_array_append_val (calls[c->index][r], cc);
        }
    }
  for (guint ci = 0; ci < n_comms; ci++)
    {
      TraceComm *c = defs->comms->pdata[ci];   /* index = position */
      guint n_inst = G_MAXUINT;
      if (!calls[ci])
        continue;
      for (int p = 0; p < c->size; p++)
        {
          int w = c->world[p];
          if (w < 0 || w >= n_ranks || !calls[ci][w])
            {
              n_inst = 0;
              break;
            }
          n_inst = MIN (n_inst, calls[ci][w]->len);
        }
      for (guint inst = 0; n_inst != G_MAXUINT && inst < n_inst; inst++)
        {
          CollCall *first = &g_array_index (calls[ci][c->world[0]], CollCall, inst);
          Tick max_e = G_MININT64, root_e = 0;
          g_autofree char *key = coll_key (defs, first->region, c->size);
          CollSamples *s = g_hash_table_lookup (samples, key);
          if (!s)
            {
              s = g_new0 (CollSamples, 1);
              s->after_last = g_array_new (FALSE, FALSE, sizeof (double));
              s->own = g_array_new (FALSE, FALSE, sizeof (double));
              g_hash_table_insert (samples, g_strdup (key), s);
            }
          for (int p = 0; p < c->size; p++)
            {
              CollCall *cc = &g_array_index (calls[ci][c->world[p]], CollCall, inst);
              max_e = MAX (max_e, cc->enter);
              if (p == first->root)
                root_e = cc->enter;
            }
          for (int p = 0; p < c->size; p++)
            {
              CollCall *cc = &g_array_index (calls[ci][c->world[p]], CollCall, inst);
              double al, own;
              gboolean is_root = p == cc->root;
              if (one_to_all (cc->op) && cc->root >= 0)
                {
                  if (is_root)
                    {
                      own = (double) (cc->leave - cc->enter);
                      g_array_append_val (s->own, own);
                      continue;
                    }
                  al = (double) (cc->leave - MAX (cc->enter, root_e));
                }
              else if (all_to_one (cc->op) && cc->root >= 0 && !is_root)
                {
                  own = (double) (cc->leave - cc->enter);
                  g_array_append_val (s->own, own);
                  continue;
                }
              else if (cc->op == OTF2_COLLECTIVE_OP_SCAN || cc->op == OTF2_COLLECTIVE_OP_EXSCAN)
                {
                  Tick mx = G_MININT64;
                  for (int q = 0; q <= p; q++)
                    mx = MAX (mx, g_array_index (calls[ci][c->world[q]], CollCall, inst).enter);
                  al = (double) (cc->leave - mx);
                }
              else
                al = (double) (cc->leave - max_e);
              al = MAX (al, 0.0);
              g_array_append_val (s->after_last, al);
              g_array_append_val (all, al);
              m->n_coll_samples++;
            }
        }
    }
  for (guint ci = 0; ci < n_comms; ci++)
    if (calls[ci])
      {
        for (int r = 0; r < n_ranks; r++)
          if (calls[ci][r])
            g_array_unref (calls[ci][r]);
        g_free (calls[ci]);
      }
  m->coll_default = all->len ? med (all) : 5000.0;
  g_hash_table_iter_init (&it, samples);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      CollSamples *s = v;
      SimCollCost *cost = g_new0 (SimCollCost, 1);
      cost->after_last = s->after_last->len ? med (s->after_last) : m->coll_default;
      cost->own = s->own->len ? med (s->own) : cost->after_last;
      cost->n = s->after_last->len + s->own->len;
      g_hash_table_insert (m->coll, g_strdup (k), cost);
    }
}

static void
vote (GHashTable *votes,
      guint64     size,
      gboolean    eager)
{
  gint64 key = (gint64) size;
  guint *v = g_hash_table_lookup (votes, &key);
  if (!v)
    {
      gint64 *kp = g_new (gint64, 1);
      *kp = key;
      v = g_new0 (guint, 2);
      g_hash_table_insert (votes, kp, v);
    }
  v[eager ? 0 : 1]++;
}

/* Post time of the receive that matches send @s of rank @r: Enter of the blocking receive, or
 * of the MPI_Irecv that posted it; -1 if unknown. */
static Tick
post_time (SimRank  **srs,
           CallTimes *ct,
           int        peer,
           guint32    recv_ev,
           guint32  **post_of)
{
  SimEvent *ev = (SimEvent *) srs[peer]->ev->data;
  if (recv_ev >= srs[peer]->ev->len)
    return -1;
  if (ev[recv_ev].type == EV_IRECV && post_of[peer][recv_ev] != NO_INDEX)
    return ct[peer].enter[post_of[peer][recv_ev]];
  return ct[peer].enter[recv_ev];
}

SimModel *
sim_model_fit (SimRank **srs,
               int       n_ranks)
{
  SimModel *m = g_new0 (SimModel, 1);
  g_autofree CallTimes *ct = g_new0 (CallTimes, n_ranks);
  g_autofree guint32 **post_of = g_new0 (guint32 *, n_ranks);
  g_autoptr (GArray) xs = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ys = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) o_send = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) o_recv = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) o_wait = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GHashTable) votes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  guint64 min_rdv = G_MAXUINT64;

  m->coll = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (int r = 0; r < n_ranks; r++)
    {
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      call_times (srs[r], &ct[r]);
      post_of[r] = g_new (guint32, MAX (srs[r]->ev->len, 1));
      for (guint i = 0; i < srs[r]->ev->len; i++)
        post_of[r][i] = NO_INDEX;
      for (guint i = 0; i < srs[r]->ev->len; i++)
        if (ev[i].type == EV_IRECV_REQUEST && ev[i].link != NO_INDEX && ev[i].link < srs[r]->ev->len)
          post_of[r][ev[i].link] = i;
    }
  /* transfer times and the eager limit */
  for (int r = 0; r < n_ranks; r++)
    {
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      for (guint i = 0; i < srs[r]->ev->len; i++)
        {
          SimEvent *e = &ev[i];
          if ((e->type == EV_RECV || e->type == EV_IRECV) && e->link != NO_INDEX && e->peer_world >= 0
              && e->peer_world < n_ranks && ct[r].enter[i] >= 0)
            {
              Tick es = ct[e->peer_world].enter[e->link];
              if (es >= 0 && ct[r].enter[i] < es)
                {
                  double x = (double) e->len, y = (double) (ct[r].leave[i] - es);
                  g_array_append_val (xs, x);
                  g_array_append_val (ys, y);
                }
            }
          if (e->type == EV_SEND && e->link != NO_INDEX && e->peer_world >= 0 && e->peer_world < n_ranks
              && ct[r].enter[i] >= 0)
            {
              TraceRegion *reg = NULL;
              Tick p = post_time (srs, ct, e->peer_world, e->link, post_of);
              for (guint j = i; j-- > 0;)
                if (ev[j].type == EV_ENTER)
                  {
                    reg = trace_defs_region (srs[r]->defs, ev[j].region);
                    break;
                  }
              if (!reg || strcmp (reg->name, "MPI_Send") != 0 || p < 0)
                continue;
              if (p > ct[r].leave[i])
                {
                  double d = (double) (ct[r].leave[i] - ct[r].enter[i]);
                  vote (votes, e->len, TRUE);
                  g_array_append_val (o_send, d);
                }
              else if (p > ct[r].enter[i] + 20000 && ct[r].leave[i] >= p && ct[r].leave[i] - p < 200000)
                vote (votes, e->len, FALSE);   /* left right after its receive was posted */
            }
          if (e->type == EV_ISEND && ct[r].enter[i] >= 0)
            {
              double d = (double) (ct[r].leave[i] - ct[r].enter[i]);
              g_array_append_val (o_send, d);
            }
        }
    }
  m->n_msg_samples = xs->len;
  {
    /* least squares on the per-size medians (robust against the odd late wake-up) */
    g_autoptr (GHashTable) by_size = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                            (GDestroyNotify) g_array_unref);
    GHashTableIter it;
    gpointer k, v;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    guint nb = 0;
    for (guint i = 0; i < xs->len; i++)
      {
        gint64 key = (gint64) g_array_index (xs, double, i);
        GArray *a = g_hash_table_lookup (by_size, &key);
        if (!a)
          {
            gint64 *kp = g_new (gint64, 1);
            *kp = key;
            a = g_array_new (FALSE, FALSE, sizeof (double));
            g_hash_table_insert (by_size, kp, a);
          }
        g_array_append_val (a, g_array_index (ys, double, i));
      }
    g_hash_table_iter_init (&it, by_size);
    while (g_hash_table_iter_next (&it, &k, &v))
      {
        double x = (double) *(gint64 *) k, y = med (v);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        nb++;
      }
    if (nb >= 2 && nb * sxx - sx * sx > 0)
      {
        m->per_byte = MAX (0.0, (nb * sxy - sx * sy) / (nb * sxx - sx * sx));
        m->latency = MAX (0.0, (sy - m->per_byte * sx) / nb);
      }
    else if (nb == 1)
      {
        m->latency = sy;
        m->per_byte = 0.1;   /* 10 GB/s: the shared-memory order, for sizes not in the trace */
        m->latency = MAX (0.0, m->latency - m->per_byte * sx);
      }
    else
      {
        m->latency = 2000;
        m->per_byte = 0.1;
      }
  }
  {
    /* a size is rendezvous when most of its sends waited for their receive */
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, votes);
    while (g_hash_table_iter_next (&it, &k, &v))
      if (((guint *) v)[1] > ((guint *) v)[0])
        min_rdv = MIN (min_rdv, (guint64) * (gint64 *) k);
    m->eager_limit = min_rdv == G_MAXUINT64 ? G_MAXUINT64 : (min_rdv > 0 ? min_rdv - 1 : 0);
  }
  /* overheads: receives and completions that found their message already there */
  for (int r = 0; r < n_ranks; r++)
    {
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      for (guint i = 0; i < srs[r]->ev->len; i++)
        {
          SimEvent *e = &ev[i];
          Tick es;
          if ((e->type != EV_RECV && e->type != EV_IRECV) || e->link == NO_INDEX || e->peer_world < 0
              || e->peer_world >= n_ranks || ct[r].enter[i] < 0)
            continue;
          es = ct[e->peer_world].enter[e->link];
          if (es < 0)
            continue;
          if ((double) ct[r].enter[i] > es + m->latency + m->per_byte * e->len)
            {
              /* a rendezvous message moves only once the receive is there: its transfer is
               * part of the call, not overhead */
              double d = (double) (ct[r].leave[i] - ct[r].enter[i]);
              if (e->len > m->eager_limit)
                d = MAX (0.0, d - (m->latency + m->per_byte * e->len));
              g_array_append_val (e->type == EV_RECV ? o_recv : o_wait, d);
            }
        }
    }
  m->send_overhead = o_send->len ? med (o_send) : 1000;
  m->recv_overhead = o_recv->len ? med (o_recv) : m->send_overhead;
  m->wait_overhead = o_wait->len ? med (o_wait) : m->recv_overhead;
  fit_collectives (m, srs, n_ranks, ct);
  for (int r = 0; r < n_ranks; r++)
    {
      g_free (ct[r].enter);
      g_free (ct[r].leave);
      g_free (post_of[r]);
    }
  return m;
}

void
sim_model_free (SimModel *m)
{
  if (!m)
    return;
  g_hash_table_unref (m->coll);
  g_free (m);
}

double
sim_model_coll (const SimModel  *m,
                const TraceDefs *defs,
                guint32          region,
                int              size,
                gboolean         own)
{
  g_autofree char *key = coll_key (defs, region, size);
  SimCollCost *c = g_hash_table_lookup (m->coll, key);
  if (!c)
    return m->coll_default;
  return own ? c->own : c->after_last;
}

char *
sim_model_describe (const SimModel *m)
{
  GString *s = g_string_new (NULL);
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, "{\"latency_ns\": %s, ", g_ascii_formatd (b, sizeof b, "%.1f", m->latency));
  g_string_append_printf (s, "\"per_byte_ns\": %s, ", g_ascii_formatd (b, sizeof b, "%.5f", m->per_byte));
  g_string_append_printf (s, "\"send_overhead_ns\": %s, ", g_ascii_formatd (b, sizeof b, "%.1f", m->send_overhead));
  g_string_append_printf (s, "\"recv_overhead_ns\": %s, ", g_ascii_formatd (b, sizeof b, "%.1f", m->recv_overhead));
  g_string_append_printf (s, "\"wait_overhead_ns\": %s, ", g_ascii_formatd (b, sizeof b, "%.1f", m->wait_overhead));
  if (m->eager_limit == G_MAXUINT64)
    g_string_append (s, "\"eager_limit\": null, ");
  else
    g_string_append_printf (s, "\"eager_limit\": %" G_GUINT64_FORMAT ", ", m->eager_limit);
  g_string_append_printf (s, "\"message_samples\": %u, \"collective_samples\": %u, ", m->n_msg_samples,
                          m->n_coll_samples);
  g_string_append_printf (s, "\"collective_default_ns\": %s}", g_ascii_formatd (b, sizeof b, "%.1f", m->coll_default));
  return g_string_free (s, FALSE);
}
