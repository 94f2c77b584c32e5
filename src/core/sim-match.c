/* sim-match.c — pairs every send with its receive across ranks, like the analyzer's replay
 * (docs/decisions/analyze-replay.md): the sender's rank sends one small record per message
 * along the recorded path in one personalised exchange, the receiver matches them per
 * (communicator, source, tag) in the order its receives were posted (MPI's non-overtaking rule),
 * and a second exchange tells each sender which receive took its message. Both sides can vote
 * to remove a message; it goes when either side does.
 *
 * Both records carry when their side was ready (the send's call entered; the receive posted,
 * and its rank inside MPI, which a rendezvous needs), so each side of a blocking transfer learns
 * what its call cost after the peer was ready (SimRank.copy_cost): the copy, and whatever else
 * held both sides in MPI (a stall of the machine, a page fault) that the trace does not name.
 *
 * Request events are paired first, on each rank: MpiIrecvRequest ↔ its MpiIrecv (or
 * MpiRequestCancelled), MpiIsend ↔ MpiIsendComplete (see the link field in sim-private.h). */
#include "sim-private.h"

#include <glib/gi18n.h>
#include <otf2/otf2.h>
#include <string.h>

typedef struct
{
  guint32 comm;
  guint32 tag;
  guint32 ev;
  guint32 remove;
  guint64 len;
  Tick    ready;     /* the send's call entered */
} FwdRec;

/* BackRec.remove of a send that no receive took */
#define UNRECEIVED 2u

typedef struct
{
  guint32 send_ev;
  guint32 recv_ev;
  guint32 remove;
  guint32 spare;
  Tick    ready;     /* the receive was posted (a blocking one: its call entered) */
} BackRec;

/* The Enter and Leave of the MPI call around event @k. */
static Tick
call_enter (const SimEvent *ev,
            guint32         k)
{
  for (guint32 j = k + 1; j-- > 0 && k - j < 16;)
    if (ev[j].type == EV_ENTER)
      return ev[j].time;
  return ev[k].time;
}

static Tick
call_leave (const SimEvent *ev,
            guint32         n,
            guint32         k)
{
  for (guint32 j = k; j < n && j - k < 16; j++)
    if (ev[j].type == EV_LEAVE)
      return ev[j].time;
  return ev[k].time;
}

/* A blocking send or receive @k: what its call cost after @peer_ready. */
static void
note_copy_cost (SimRank *sr,
                guint32  k,
                Tick     peer_ready)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  Tick enter = call_enter (ev, k), leave = call_leave (ev, sr->ev->len, k);
  Tick cost = leave - MAX (enter, peer_ready);
  if (cost <= 0)
    return;
  if (!sr->copy_cost)
    sr->copy_cost = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_hash_table_replace (sr->copy_cost, GUINT_TO_POINTER (k + 1), g_memdup2 (&cost, sizeof cost));
}

static const char *
comm_name (const TraceDefs *defs,
           guint32          comm)
{
  TraceComm *c = trace_defs_comm (defs, comm);
  return c && c->name ? c->name : "?";
}

/* Links each request's posting event with its completion, in trace order (a request id is
 * reused once it completed). */
static void
link_requests (SimRank *sr)
{
  g_autoptr (GHashTable) open = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) keys = g_array_sized_new (FALSE, FALSE, sizeof (guint64), 64);
  SimEvent *ev = (SimEvent *) sr->ev->data;

  g_array_set_size (keys, sr->ev->len);
  for (guint i = 0; i < sr->ev->len; i++)
    {
      SimEvent *e = &ev[i];
      gpointer v;
      guint64 *key = &g_array_index (keys, guint64, i);

      switch (e->type)
        {
        case EV_ISEND:
        case EV_IRECV_REQUEST:
          *key = e->req;
          g_hash_table_replace (open, key, GUINT_TO_POINTER (i + 1));
          break;
        case EV_ISEND_COMPLETE:
        case EV_IRECV:
        case EV_REQUEST_CANCELLED:
          *key = e->req;
          v = g_hash_table_lookup (open, key);
          if (!v)
            break;
          {
            guint32 post = GPOINTER_TO_UINT (v) - 1;
            g_hash_table_remove (open, key);
            if (e->type == EV_IRECV)
              {
                if (ev[post].type == EV_IRECV_REQUEST)
                  ev[post].link = i;
              }
            else if (e->type == EV_ISEND_COMPLETE)
              {
                if (ev[post].type == EV_ISEND)
                  e->link = post;
              }
            else
              {
                e->link = post;
                if (ev[post].type == EV_IRECV_REQUEST)
                  ev[post].link = i;
              }
          }
          break;
        default:
          break;
        }
    }
}

/* The rank's MPI calls (outermost), as [enter, leave] pairs in time order. */
static GArray *
mpi_calls (SimRank *sr)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Tick));
  SimEvent *ev = (SimEvent *) sr->ev->data;
  int depth = 0;

  for (guint i = 0; i < sr->ev->len; i++)
    if (ev[i].type == EV_ENTER && sim_region_is_mpi (sr->defs, ev[i].region))
      {
        if (depth++ == 0)
          g_array_append_val (out, ev[i].time);
      }
    else if (ev[i].type == EV_LEAVE && depth > 0 && sim_region_is_mpi (sr->defs, ev[i].region))
      {
        if (--depth == 0)
          g_array_append_val (out, ev[i].time);
      }
  if (depth > 0)
    {
      Tick end = G_MAXUINT64;
      g_array_append_val (out, end);
    }
  return out;
}

/* The first moment at or after @t at which the rank was inside an MPI call (able to progress a
 * transfer), @t if it made no call after it. */
static Tick
in_mpi_from (GArray *calls,
             Tick    t)
{
  const Tick *c = (const Tick *) calls->data;
  guint lo = 0, hi = calls->len / 2;
  /* the first call that leaves at or after t */
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (c[2 * mid + 1] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == calls->len / 2)
    return t;
  return MAX (t, c[2 * lo]);
}

/* Receives of one rank in posting order: a blocking receive is posted where it completes, an
 * MpiIrecv where its MpiIrecvRequest was. */
typedef struct
{
  guint32 post;
  guint32 ev;
} Posted;

static int
posted_cmp (gconstpointer a,
            gconstpointer b)
{
  const Posted *x = a, *y = b;
  return x->post < y->post ? -1 : x->post > y->post;
}

static GArray *
posted_receives (SimRank *sr)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Posted));
  SimEvent *ev = (SimEvent *) sr->ev->data;

  for (guint i = 0; i < sr->ev->len; i++)
    {
      Posted p = { i, i };
      if (ev[i].type == EV_RECV)
        g_array_append_val (out, p);
      else if (ev[i].type == EV_IRECV_REQUEST && ev[i].link != NO_INDEX && ev[ev[i].link].type == EV_IRECV)
        {
          p.ev = ev[i].link;
          g_array_append_val (out, p);
        }
    }
  /* an MpiIrecv without a request event (other writers) is posted where it completes */
  {
    g_autofree guint8 *covered = g_new0 (guint8, MAX (sr->ev->len, 1));
    guint n = out->len;
    for (guint k = 0; k < n; k++)
      covered[g_array_index (out, Posted, k).ev] = 1;
    for (guint i = 0; i < sr->ev->len; i++)
      if (ev[i].type == EV_IRECV && !covered[i])
        {
          Posted p = { i, i };
          g_array_append_val (out, p);
        }
  }
  g_array_sort (out, posted_cmp);
  return out;
}

gboolean
sim_match_messages (Transport          *t,
                    SimRank           **srs,
                    guint8            **remove_send,
                    guint8            **remove_recv,
                    SimTransformStats  *stats,
                    GError            **error)
{
  int n = t->n_ranks;
  g_autofree GByteArray ***out = g_new0 (GByteArray **, t->n_local);
  g_autofree GByteArray ***in = g_new0 (GByteArray **, t->n_local);
  gboolean ok = TRUE;
  GError *first = NULL;

  for (int i = 0; i < t->n_local; i++)
    {
      SimRank *sr = srs[i];
      SimEvent *ev;
      out[i] = g_new0 (GByteArray *, n);
      in[i] = g_new0 (GByteArray *, n);
      link_requests (sr);
      ev = (SimEvent *) sr->ev->data;
      for (guint k = 0; k < sr->ev->len; k++)
        {
          FwdRec r = { 0 };
          if (ev[k].type != EV_SEND && ev[k].type != EV_ISEND)
            continue;
          if (ev[k].peer_world < 0 || ev[k].peer_world >= n)
            {
              if (!first)
                g_set_error (&first, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                             _("rank %d sends to rank %u of communicator %s, which is not a traced rank"),
                             sr->rank, ev[k].peer, comm_name (sr->defs, ev[k].region));
              ok = FALSE;
              continue;
            }
          r.comm = ev[k].region;
          r.tag = ev[k].tag;
          r.ev = k;
          r.remove = remove_send && remove_send[i] ? remove_send[i][k] : 0;
          r.len = ev[k].len;
          r.ready = call_enter (ev, k);
          if (!out[i][ev[k].peer_world])
            out[i][ev[k].peer_world] = g_byte_array_new ();
          g_byte_array_append (out[i][ev[k].peer_world], (guint8 *) &r, sizeof r);
        }
    }
  if (!t->alltoallv (t, out, in, error))
    {
      ok = FALSE;
      goto out;
    }

  for (int i = 0; i < t->n_local; i++)
    {
      SimRank *sr = srs[i];
      SimEvent *ev = (SimEvent *) sr->ev->data;
      g_autoptr (GArray) posted = posted_receives (sr);
      g_autoptr (GArray) calls = mpi_calls (sr);
      /* per source: (comm, tag) -> queue head (index into that source's records) */
      g_autofree GHashTable **queues = g_new0 (GHashTable *, n);
      g_autofree guint32 **next = g_new0 (guint32 *, n);   /* per source record: next with same key */
      g_autofree guint8 **used = g_new0 (guint8 *, n);

      for (int s = 0; s < n; s++)
        {
          guint nrec = in[i][s] ? in[i][s]->len / sizeof (FwdRec) : 0;
          FwdRec *recs = nrec ? (FwdRec *) in[i][s]->data : NULL;
          g_autoptr (GHashTable) tail = g_hash_table_new (key64_hash, g_direct_equal);
          queues[s] = g_hash_table_new (key64_hash, g_direct_equal);
          next[s] = g_new (guint32, MAX (nrec, 1));
          used[s] = g_new0 (guint8, MAX (nrec, 1));
          for (guint r = 0; r < nrec; r++)
            {
              gpointer key = GSIZE_TO_POINTER (((gsize) recs[r].comm << 32) | recs[r].tag);
              gpointer tl = g_hash_table_lookup (tail, key);
              next[s][r] = NO_INDEX;
              if (tl)
                next[s][GPOINTER_TO_UINT (tl) - 1] = r;
              else
                g_hash_table_insert (queues[s], key, GUINT_TO_POINTER (r + 1));
              g_hash_table_insert (tail, key, GUINT_TO_POINTER (r + 1));
            }
        }
      for (int s = 0; s < n; s++)
        if (out[i][s])
          g_clear_pointer (&out[i][s], g_byte_array_unref);
      for (guint p = 0; p < posted->len; p++)
        {
          guint32 k = g_array_index (posted, Posted, p).ev;
          SimEvent *e = &ev[k];
          int s = e->peer_world;
          gpointer key = GSIZE_TO_POINTER (((gsize) e->region << 32) | e->tag);
          gpointer head;
          guint32 r;
          FwdRec *rec;
          BackRec b = { 0 };

          if (s < 0 || s >= n)
            {
              if (!first)
                g_set_error (&first, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                             _("rank %d receives from rank %u of communicator %s, which is not a traced rank"),
                             sr->rank, e->peer, comm_name (sr->defs, e->region));
              ok = FALSE;
              continue;
            }
          head = g_hash_table_lookup (queues[s], key);
          if (!head)
            {
              if (!first)
                {
                  g_autofree char *untraced = sim_untraced_threads_text (sr->defs);

                  if (untraced != NULL)
                    g_set_error (&first, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                                 _("unmatched message: rank %d received a message from rank %d (tag %u, "
                                   "communicator %s, %.6f s into the trace) that rank %d sent in none of its "
                                   "traced calls — the trace leaves out the MPI calls made on other threads than "
                                   "MPI_Init's under MPI_THREAD_MULTIPLE (%s) and cannot be re-enacted without "
                                   "them"),
                                 sr->rank, s, e->tag, comm_name (sr->defs, e->region), e->time / 1e9, s, untraced);
                  else
                    g_set_error (&first, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                                 _("unmatched message: rank %d received a message from rank %d (tag %u, "
                                   "communicator %s, %.6f s into the trace) that rank %d never sent — the trace "
                                   "is incomplete (an aborted run?) and cannot be re-enacted"),
                                 sr->rank, s, e->tag, comm_name (sr->defs, e->region), e->time / 1e9, s);
                }
              ok = FALSE;
              continue;
            }
          r = GPOINTER_TO_UINT (head) - 1;
          if (next[s][r] == NO_INDEX)
            g_hash_table_remove (queues[s], key);
          else
            g_hash_table_insert (queues[s], key, GUINT_TO_POINTER (next[s][r] + 1));
          used[s][r] = 1;
          rec = &((FwdRec *) in[i][s]->data)[r];
          e->link = rec->ev;
          b.send_ev = rec->ev;
          b.recv_ev = k;
          b.ready = e->type == EV_RECV ? call_enter (ev, k) : ev[g_array_index (posted, Posted, p).post].time;
          /* the sender's transfer could go on once the receive was posted and this rank was in
           * MPI (a rendezvous waits for the receiver's next call) */
          b.ready = in_mpi_from (calls, MAX (b.ready, rec->ready));
          if (e->type == EV_RECV)
            note_copy_cost (sr, k, rec->ready);
          b.remove = rec->remove || (remove_recv && remove_recv[i] && remove_recv[i][k]);
          if (b.remove)
            {
              e->flags |= EVF_REMOVED;
              if (stats)
                stats->removed_messages++;
            }
          if (stats)
            stats->messages++;
          if (!out[i][s])
            out[i][s] = g_byte_array_new ();
          g_byte_array_append (out[i][s], (guint8 *) &b, sizeof b);
        }
      for (int s = 0; s < n; s++)
        {
          guint nrec = in[i][s] ? in[i][s]->len / sizeof (FwdRec) : 0;
          for (guint r = 0; r < nrec; r++)
            if (!used[s][r])
              {
                /* sent, never received: a program may leave a message in flight at
                 * MPI_Finalize (Ray's last message to itself). The sender leaves it out. */
                FwdRec *rec = &((FwdRec *) in[i][s]->data)[r];
                BackRec b = { 0 };
                b.send_ev = rec->ev;
                b.recv_ev = NO_INDEX;
                b.remove = UNRECEIVED;
                if (stats)
                  stats->unreceived++;
                if (!out[i][s])
                  out[i][s] = g_byte_array_new ();
                g_byte_array_append (out[i][s], (guint8 *) &b, sizeof b);
              }
          g_hash_table_unref (queues[s]);
          g_free (next[s]);
          g_free (used[s]);
          g_clear_pointer (&in[i][s], g_byte_array_unref);
        }
    }

  /* backward: every sender learns its receive and the verdict */
  if (!t->alltoallv (t, out, in, first ? NULL : &first))
    {
      ok = FALSE;
      goto out;
    }
  for (int i = 0; i < t->n_local; i++)
    {
      SimEvent *ev = (SimEvent *) srs[i]->ev->data;
      for (int s = 0; s < n; s++)
        {
          guint nrec = in[i][s] ? in[i][s]->len / sizeof (BackRec) : 0;
          BackRec *recs = nrec ? (BackRec *) in[i][s]->data : NULL;
          for (guint r = 0; r < nrec; r++)
            if (recs[r].send_ev < srs[i]->ev->len)
              {
                if (recs[r].remove == UNRECEIVED)
                  {
                    ev[recs[r].send_ev].flags |= EVF_REMOVED | EVF_UNRECEIVED;
                    ev[recs[r].send_ev].link = NO_INDEX;
                    continue;
                  }
                ev[recs[r].send_ev].link = recs[r].recv_ev;
                if (ev[recs[r].send_ev].type == EV_SEND)
                  note_copy_cost (srs[i], recs[r].send_ev, recs[r].ready);
                if (recs[r].remove)
                  ev[recs[r].send_ev].flags |= EVF_REMOVED;
              }
          g_clear_pointer (&in[i][s], g_byte_array_unref);
        }
    }

out:
  for (int i = 0; i < t->n_local; i++)
    {
      for (int s = 0; s < n; s++)
        {
          if (out[i] && out[i][s])
            g_byte_array_unref (out[i][s]);
          if (in[i] && in[i][s])
            g_byte_array_unref (in[i][s]);
        }
      g_free (out[i]);
      g_free (in[i]);
    }
  if (first)
    g_propagate_error (error, first);
  else if (!ok && error && !*error)
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("message matching failed"));
  return ok;
}
