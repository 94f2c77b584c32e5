/* sim-model.c — the offline mode's model, fitted from the original trace itself
 * (sim-private.h, SimModel; docs/decisions/2026-11-28-sim-real-codes.md).
 *
 * Per transport (ranks of one host, ranks of different hosts; the system tree says which):
 *  - transfer time T(s) = latency + per_byte·s, from receives (or the waits completing them)
 *    entered before the matching send started: leave − enter of the send, least squares over
 *    the per-size medians (of the sizes with SIM_LINE_MIN_SAMPLES samples, where there are), or
 *    where it would not rise, flat at the median of all those samples;
 *  - the eager limit, from sends whose receive was posted after the send started: a send that
 *    returned before the post is eager, one that returned only just after it (within 200 µs
 *    plus the message's transfer time on the line) waited for it (rendezvous). Blocking sends
 *    and the waits completing non-blocking and persistent ones all vote; the limit is the split
 *    of the voted sizes that contradicts the fewest votes. It decides only for the sends whose
 *    receiver was ready before they started: every other one keeps what it did (vote_send);
 *  - beyond the largest sampled size, the line's slope at most what the trace's larger messages
 *    took (cap_line); within, the samples' own.
 * Costs: the plans of the untransformed trace run through the offline engine on the recorded
 * times (sim_offline_run, fit mode); what each call took beyond the Leave the model gives
 * (its residual: the call's own work, MPI's progress, a rank waiting for a core) is averaged
 * per class. Means, not medians: a run time is a sum, and a class mean keeps every rank's sum of
 * call costs as recorded, scheduler delays of oversubscribed runs included. A wait's class is
 * by what it completed (bytes, transport, sends only or not); a class of fewer than
 * SIM_COST_MIN_SAMPLES calls yields to the first coarser one that has that many. Where the
 * samples place the ranks on CPUs and a rank's number of CPU mates changed, its classes are per
 * number too (SIM_COST_MIN_PHASE calls at least, else the class of the whole run).
 * Collectives: before the costs, the recorded instances of the rooted ones and the scans vote
 * whom each member waited for beyond the operation's rule (fit_coll_deps). */
#include "sim-private.h"

#include <math.h>
#include <otf2/otf2.h>
#include <string.h>

typedef struct
{
  Tick *enter;   /* per event: Enter time of the MPI call holding it (-1 outside calls) */
  Tick *leave;
  GArray *in_mpi;   /* Tick pairs: where the rank was in MPI, as the offline engine's presence */
} CallTimes;

/* Appends the span @a..@b to @in_mpi (Tick pairs), merged with the last one where they are
 * closer than SIM_PRESENCE_GAP_NS, as the offline engine keeps them. */
static void
in_mpi_add (GArray *in_mpi,
            Tick    a,
            Tick    b)
{
  Tick *p = (Tick *) in_mpi->data;
  guint n = in_mpi->len;
  if (n >= 2 && a - p[n - 1] <= SIM_PRESENCE_GAP_NS)
    p[n - 1] = MAX (p[n - 1], b);
  else
    {
      Tick s[2] = { a, b };
      g_array_append_vals (in_mpi, s, 2);
    }
}

static void
call_times (SimRank   *sr,
            CallTimes *ct)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  guint n = sr->ev->len;
  guint k = 0;

  ct->enter = g_new (Tick, MAX (n, 1));
  ct->leave = g_new (Tick, MAX (n, 1));
  ct->in_mpi = g_array_new (FALSE, FALSE, sizeof (Tick));
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
      /* a call with communication events progresses throughout; one without (a poll that
       * found nothing) at its Enter and its Leave */
      if (l > k + 1)
        in_mpi_add (ct->in_mpi, ev[k].time, ev[l].time);
      else
        {
          in_mpi_add (ct->in_mpi, ev[k].time, ev[k].time);
          in_mpi_add (ct->in_mpi, ev[l].time, ev[l].time);
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

/* ---- hosts and transports */

static void
fit_hosts (SimModel *m,
           const TraceDefs *defs)
{
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  m->host = g_new0 (int, MAX (m->n_ranks, 1));
  for (int r = 0; r < m->n_ranks; r++)
    {
      TraceLocation *loc = r < defs->n_ranks && defs->rank_loc ? defs->rank_loc[r] : NULL;
      guint64 node = G_MAXUINT64;
      gpointer v;
      for (guint g = 0; loc && g < defs->locgroups->len; g++)
        {
          TraceLocGroup *lg = defs->locgroups->pdata[g];
          if (lg->id == loc->group)
            node = lg->sys_parent;
        }
      if (!g_hash_table_lookup_extended (index, GSIZE_TO_POINTER ((gsize) node), NULL, &v))
        {
          v = GINT_TO_POINTER ((int) g_hash_table_size (index));
          g_hash_table_insert (index, GSIZE_TO_POINTER ((gsize) node), v);
        }
      m->host[r] = GPOINTER_TO_INT (v);
    }
}

int
sim_model_transport (const SimModel *m,
                     int             a,
                     int             b)
{
  if (a < 0 || b < 0 || a >= m->n_ranks || b >= m->n_ranks)
    return 0;
  return m->host[a] == m->host[b] ? 0 : 1;
}

double
sim_model_transfer (const SimModel *m,
                    int             from,
                    int             to,
                    guint64         bytes)
{
  const SimTransport *t = &m->tr[sim_model_transport (m, from, to)];
  if (bytes > t->sampled_max)
    return t->latency + t->per_byte * (double) t->sampled_max + t->per_byte_beyond * (double) (bytes - t->sampled_max);
  return t->latency + t->per_byte * (double) bytes;
}

/* A send goes by rendezvous where it is synchronous; where the original showed what it did
 * (vote_send: done before its receiver was ready, EVF_SENT_EAGER; still in its call then and
 * done after, EVF_SENT_RDV), as it did; where the original showed nothing (its receiver was
 * ready before it started), above the transport's eager limit. Per message: Open MPI's
 * shared-memory transport made some 8-byte persistent sends of ws-mixed wait 90-120 ms for a
 * late receiver and not others, and where the one limit for all of them took them for eager,
 * those waits became costs that every MPI_Waitall paid (+1 .. +4 %; docs/decisions/
 * 2026-12-02-protocol-per-message.md). */
gboolean
sim_model_rendezvous (const SimModel *m,
                      int             from,
                      int             to,
                      guint64         bytes,
                      gboolean        sync,
                      guint8          send_flags)
{
  if (sync || (send_flags & EVF_SENT_RDV))
    return TRUE;
  if (send_flags & EVF_SENT_EAGER)
    return FALSE;
  return bytes > m->tr[sim_model_transport (m, from, to)].eager_limit;
}

/* ---- cost classes */

#define ANY_RANK   0xfffffu
#define ANY_BUCKET 0x3fu
#define ANY_KIND   0x1fu

static guint
bucket (guint64 bytes)
{
  guint b = 0;
  while (bytes > 0 && b < 62)
    {
      bytes >>= 1;
      b++;
    }
  return b;
}

/* rank 20 bits | region 20 | size class 6 | kind 5 | waited 2 (2 = either) */
static guint64
pack (guint rank,
      guint32 region,
      guint b,
      guint kind,
      guint waited)
{
  return ((guint64) (rank & 0xfffff) << 33) | ((guint64) (region & 0xfffff) << 13) | ((guint64) (b & 0x3f) << 7)
         | ((guint64) (kind & 0x1f) << 2) | (waited & 3);
}

guint64
sim_model_class (int      rank,
                 guint32  region,
                 guint64  bytes,
                 int      kind,
                 gboolean waited)
{
  return pack ((guint) rank, region, bucket (bytes), (guint) MIN (kind, 30), waited ? 1 : 0);
}

/* The class with the number of ranks that shared its rank's CPU at the call (@mates, 1 .. 31;
 * 0: unknown): a call's residual holds the time its rank waited for its core, and that depends on
 * how many shared it. Where the scheduler moved a rank to another CPU halfway through the run
 * (LAMMPS at 4 ranks on 2 cores: three ranks on one CPU, then two on each), a class mean over
 * the whole run gave the second half the first half's residuals (+6 .. +15 % on 7 traces of 16).
 * docs/decisions/2026-11-30-costs-per-placement.md */
guint64
sim_model_class_mates (guint64 key,
                       guint   mates)
{
  return key | ((guint64) MIN (mates, 31u) << 53);
}

/* the key and its ever coarser classes: any waited, any rank, any size and kind; with the
 * CPU's ranks, then without */
static guint
coarser (guint64 key,
         guint64 out[10])
{
  guint rank = (guint) (key >> 33) & 0xfffff, region = (guint) (key >> 13) & 0xfffff;
  guint b = (guint) (key >> 7) & 0x3f, kind = (guint) (key >> 2) & 0x1f, w = (guint) key & 3;
  guint mates = (guint) (key >> 53) & 0x1f, n = 0;
  guint64 c[5], m = (guint64) mates << 53;
  c[0] = pack (rank, region, b, kind, w);
  c[1] = pack (rank, region, b, kind, 2);
  c[2] = pack (ANY_RANK, region, b, kind, w);
  c[3] = pack (ANY_RANK, region, b, kind, 2);
  c[4] = pack (ANY_RANK, region, ANY_BUCKET, ANY_KIND, 2);
  for (guint i = 0; i < 5; i++)
    {
      if (mates)
        out[n++] = c[i] | m;
      out[n++] = c[i];
    }
  return n;
}

void
sim_model_add_cost (SimModel *m,
                    guint64   key,
                    double    residual)
{
  guint64 keys[10];
  guint n = coarser (key, keys);
  for (guint i = 0; i < n; i++)
    {
      SimCost *c = g_hash_table_lookup (m->cost, &keys[i]);
      if (!c)
        {
          guint64 *kp = g_new (guint64, 1);
          *kp = keys[i];
          c = g_new0 (SimCost, 1);
          g_hash_table_insert (m->cost, kp, c);
          if (i == 0)
            m->n_classes++;
        }
      c->sum += residual;
      c->n++;
    }
  m->n_cost_samples++;
}

double
sim_model_cost (const SimModel *m,
                guint64         key)
{
  guint64 keys[10];
  guint n = coarser (key, keys);
  SimCost *first = NULL;
  for (guint i = 0; i < n; i++)
    {
      SimCost *c = g_hash_table_lookup (m->cost, &keys[i]);
      if (c && c->n && !first)
        first = c;
      if (c && c->n >= ((keys[i] >> 53) ? SIM_COST_MIN_PHASE : SIM_COST_MIN_SAMPLES))
        return c->sum / c->n;
    }
  return first ? first->sum / first->n : 0;
}

/* ---- transfer times and eager limits */

typedef struct
{
  GArray     *xs, *ys;   /* size, transfer time */
  GArray     *held;      /* (size, time) pairs where a rank computing on the receiver's CPU may
                          * have held the message up */
  GArray     *held_send; /* ... on the sender's CPU only */
  GArray     *waited;    /* (size, time from the receiver's post to the send's end) pairs of
                          * sends that were still in their call when the receive was posted */
  GHashTable *votes;     /* size -> guint[2] eager, rendezvous */
} TransportSamples;

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

/* Post time of the receive that matches a send: Enter of the blocking receive, or of the call
 * that posted the MPI_Irecv; -1 if unknown. */
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

/* When the rank of @ct was first in MPI at or after @at (the engine's progress), -1 never. */
static Tick
next_progress (const CallTimes *ct,
               Tick             at)
{
  const Tick *p = (const Tick *) ct->in_mpi->data;
  guint lo = 0, hi = ct->in_mpi->len / 2;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (p[2 * mid + 1] < at)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < ct->in_mpi->len / 2 ? MAX (at, p[2 * lo]) : -1;
}

/* When a send that started at @start could move its data: the receive posted and the receiver
 * in MPI after that (-1 unknown). */
static Tick
ready_time (SimRank  **srs,
            CallTimes *ct,
            int        peer,
            guint32    recv_ev,
            guint32  **post_of,
            Tick       start)
{
  Tick p = post_time (srs, ct, peer, recv_ev, post_of);
  if (p < 0)
    return -1;
  return next_progress (&ct[peer], MAX (p, start));
}

static const char *
call_name (SimRank *sr,
           guint    i)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  for (guint j = i + 1; j-- > 0;)
    if (ev[j].type == EV_ENTER)
      {
        TraceRegion *reg = trace_defs_region (sr->defs, ev[j].region);
        return reg && reg->name ? reg->name : "";
      }
  return "";
}

static gboolean
send_mode_sync (const char *name)
{
  return strcmp (name, "MPI_Ssend") == 0 || strcmp (name, "MPI_Issend") == 0;
}

/* A send @se that started at @start and was done (its call left) at @done, whose receiver was
 * ready (posted the receive and in MPI) at @p: eager when it was done before; where it was still
 * in its call at the post, a candidate for a rendezvous vote (decided once the line is known,
 * vote_waited). Either way the send keeps what it did (EVF_SENT_EAGER, EVF_SENT_RDV: it may
 * have waited for its receiver, and the model lets it, sim_model_rendezvous), whether it left
 * right after the post or a descheduled sender only later (ws-mixed at 3 ranks on 2 cores:
 * 3.8 ms after). */
static void
vote_send (TransportSamples *ts,
           SimEvent         *se,
           guint64           len,
           Tick              start,
           Tick              done_enter,
           Tick              done,
           Tick              p)
{
  double w[2];
  if (p < 0 || p <= start + 20000)
    return;   /* posted before (or as) the send started: says nothing */
  if (p > done)
    {
      vote (ts->votes, len, TRUE);
      se->flags |= EVF_SENT_EAGER;
    }
  else if (p > done_enter + 20000)
    {
      w[0] = (double) len;
      w[1] = (double) (done - p);
      g_array_append_vals (ts->waited, w, 2);
      se->flags |= EVF_SENT_RDV;
    }
}

/* The sends still in their call when their receive was posted vote rendezvous where they left
 * right after the post: within 200 µs plus the message's transfer time on the line @t (a
 * mebibyte took 1.5 ms at 4 ranks on 2 cores; 200 µs alone left such sends without a vote,
 * and the model took them for eager: −6 % on a ping-pong). Later, the send was busy with
 * something else and says nothing. */
static void
vote_waited (const SimTransport *t,
             TransportSamples   *ts)
{
  for (guint i = 0; i + 1 < ts->waited->len; i += 2)
    {
      double x = g_array_index (ts->waited, double, i), y = g_array_index (ts->waited, double, i + 1);
      if (y < 200000.0 + t->latency + t->per_byte * x)
        vote (ts->votes, (guint64) x, FALSE);
    }
}

/* the transfers held up by no CPU the line needs to go by them alone (sim_model_fit_cores) */
#define SIM_LINE_FREE_MIN 20

/* the samples a size needs for its median to enter the transfer line (fit_line) */
#define SIM_LINE_MIN_SAMPLES 3

static void
fit_line (SimTransport     *t,
          TransportSamples *ts)
{
  g_autoptr (GHashTable) by_size = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                          (GDestroyNotify) g_array_unref);
  GHashTableIter it;
  gpointer k, v;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  guint nb = 0, n_reliable = 0;
  g_autoptr (GArray) pooled = g_array_new (FALSE, FALSE, sizeof (double));   /* the samples of the line's sizes */

  t->n_samples = ts->xs->len;
  for (guint i = 0; i < ts->xs->len; i++)
    {
      gint64 key = (gint64) g_array_index (ts->xs, double, i);
      GArray *a = g_hash_table_lookup (by_size, &key);
      if (!a)
        {
          gint64 *kp = g_new (gint64, 1);
          *kp = key;
          a = g_array_new (FALSE, FALSE, sizeof (double));
          g_hash_table_insert (by_size, kp, a);
        }
      g_array_append_val (a, g_array_index (ts->ys, double, i));
    }
  /* least squares on the per-size medians (robust against the odd late wake-up). A median of
   * one or two samples is a sample: it rejects nothing. Where some sizes have at least
   * SIM_LINE_MIN_SAMPLES samples, only those make the line; the others are messages beyond it
   * or within it like any other (cap_line). ws-mixed at 2 ranks: seven 8-byte samples and two
   * of 16 bytes, the upper of which (a late wake-up, 1.07 ms) made the median and the slope
   * 130 µs a byte: every 16-byte message then took a millisecond too long. */
  g_hash_table_iter_init (&it, by_size);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (((GArray *) v)->len >= SIM_LINE_MIN_SAMPLES)
      n_reliable++;
  g_hash_table_iter_init (&it, by_size);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      double x = (double) *(gint64 *) k, y;
      if (n_reliable > 0 && ((GArray *) v)->len < SIM_LINE_MIN_SAMPLES)
        continue;
      y = med (v);
      g_array_append_vals (pooled, ((GArray *) v)->data, ((GArray *) v)->len);
      t->sampled_max = MAX (t->sampled_max, (guint64) x);
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
      nb++;
    }
  if (nb >= 2 && nb * sxx - sx * sx > 0 && nb * sxy - sx * sy > 0)
    {
      t->per_byte = (nb * sxy - sx * sy) / (nb * sxx - sx * sx);
      t->latency = MAX (0.0, (sy - t->per_byte * sx) / nb);
    }
  else if (nb >= 2 && nb * sxx - sx * sx > 0)
    {
      /* larger messages were no slower: no slope, and the median of all the samples (the
       * line through the sizes' medians has each size count as much; LAMMPS at 4 ranks on
       * 2 cores, four 0-byte messages that waited 0.18-1.2 ms for a CPU beside 155 of 4
       * bytes with a median of 9 µs, made every message take 250 µs: +7 % on its identity) */
      t->per_byte = 0;
      t->latency = med (pooled);
    }
  else if (nb == 1)
    {
      t->per_byte = 0.1;   /* 10 GB/s: the shared-memory order, for sizes not in the trace */
      t->latency = MAX (0.0, sy - t->per_byte * sx);
    }
  else
    {
      t->latency = 2000;
      t->per_byte = 0.1;
    }
  t->per_byte_beyond = t->per_byte;
}

guint64
sim_model_eager_split (const guint64 *sizes,
                       const guint   *eager,
                       const guint   *rdv,
                       guint          n)
{
  guint eager_total = 0, rdv_total = 0, eager_below = 0, rdv_below = 0, bad, best_bad;
  gint64 best = -1;

  for (guint i = 0; i < n; i++)
    {
      eager_total += eager[i];
      rdv_total += rdv[i];
    }
  if (rdv_total == 0)
    return G_MAXUINT64;
  /* split after position i (sizes[0..i] eager): bad = rendezvous votes at or below it + eager
   * votes above it; i = -1: everything rendezvous */
  best_bad = eager_total;
  for (guint i = 0; i < n; i++)
    {
      eager_below += eager[i];
      rdv_below += rdv[i];
      bad = rdv_below + (eager_total - eager_below);
      if (bad <= best_bad)   /* ties: the largest size with no evidence against eager */
        {
          best_bad = bad;
          best = (gint64) i;
        }
    }
  if (best == (gint64) n - 1)
    return G_MAXUINT64;
  if (best < 0)
    return sizes[0] > 0 ? sizes[0] - 1 : 0;
  return sizes[best];
}

/* Beyond the largest sampled size the line is an extrapolation, and its slope, fitted over
 * the sampled sizes alone, may be their noise (ws-mixed: medians of 8- and 16-byte messages a
 * millisecond apart gave 130 µs per byte, and its one 64 KiB message then took 8.5 s instead
 * of 0.3 ms). Every message the trace holds beyond the samples still bounds the line there: it
 * was delivered by the time its receive completed (@done), and, as the model has it, it could
 * not start moving before @from (the send's start; for a rendezvous the receiver's progress
 * after both the start and the post). So from the largest sampled size x on, the line rises by
 * at most (@done − @from − T(x)) / (@bytes − x) a byte, and not at all where the message took
 * less than T(x). Within the sampled sizes the samples decide. */
static void
cap_line (SimTransport *t,
          guint64       bytes,
          Tick          from,
          Tick          done)
{
  double base, cap;
  if (bytes <= t->sampled_max || from < 0 || done < from)
    return;
  base = t->latency + t->per_byte * (double) t->sampled_max;
  cap = MAX (0.0, ((double) (done - from) - base) / (double) (bytes - t->sampled_max));
  if (cap < t->per_byte_beyond)
    {
      t->per_byte_beyond = cap;
      t->capped_by = bytes;
    }
}

/* Open MPI's ob1 counts its message header in the eager limit: a message of the limit's size
 * goes by rendezvous (the header union is some tens of bytes) */
#define SIM_EAGER_HEADER 64

/* The eager limit of a transport: the split of the voted sizes (sim_model_eager_split); where
 * nothing voted, the MPI library's configured limit @library (0: unknown). The votes come from
 * late receivers only: a trace whose receivers were never late has none, and sim-poll's 16 KB
 * messages, taken for eager for want of votes, came out 4-5 % off (collect-mpit.c). Where they
 * voted, the votes say what the sends did, better than the library's configuration: ws-mixed
 * at 3 ranks, whose two votes were below the library's 4 KB, came out +6.8 % with it. */
guint64
sim_model_eager_limit (SimTransport  *t,
                       const guint64 *sz,
                       const guint   *eager,
                       const guint   *rdv,
                       guint          n,
                       guint64        library)
{
  t->eager_limit = sim_model_eager_split (sz, eager, rdv, n);
  t->eager_library = library;
  t->eager_from_library = FALSE;
  if (library > 0)
    {
      guint votes = 0;
      for (guint i = 0; i < n; i++)
        votes += eager[i] + rdv[i];
      if (votes == 0)
        {
          t->eager_limit = library > SIM_EAGER_HEADER ? library - SIM_EAGER_HEADER : 0;
          t->eager_from_library = TRUE;
        }
    }
  return t->eager_limit;
}

/* The votes of a transport, by size, and the limit they and @library give */
static void
fit_eager_limit (SimTransport     *t,
                 TransportSamples *ts,
                 guint64           library)
{
  g_autoptr (GList) keys = g_hash_table_get_keys (ts->votes);
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree guint64 *sz = NULL;
  g_autofree guint *eager = NULL, *rdv = NULL;

  for (GList *l = keys; l; l = l->next)
    g_array_append_val (sizes, *(gint64 *) l->data);
  g_array_sort (sizes, sim_cmp_i64);
  sz = g_new0 (guint64, sizes->len + 1);
  eager = g_new0 (guint, sizes->len + 1);
  rdv = g_new0 (guint, sizes->len + 1);
  for (guint i = 0; i < sizes->len; i++)
    {
      guint *v = g_hash_table_lookup (ts->votes, &g_array_index (sizes, gint64, i));
      sz[i] = (guint64) g_array_index (sizes, gint64, i);
      eager[i] = v[0];
      rdv[i] = v[1];
      t->votes_eager += v[0];
      t->votes_rdv += v[1];
    }
  /* tests: the library's limit as where no send voted (sim-test.py offline: the per-message
   * protocol holds ws-mixed's identity whichever limit its racy votes give) */
  if (g_getenv ("KUBUS_TEST_IGNORE_VOTES") && library > 0)
    sim_model_eager_limit (t, sz, eager, rdv, 0, library);
  else
    sim_model_eager_limit (t, sz, eager, rdv, sizes->len, library);
}

/* ---- collectives: whom each member waited for */

guint64
sim_model_coll_key (guint32 comm,
                    guint   op,
                    int     root)
{
  return ((guint64) comm << 32) | ((guint64) (op & 0xffff) << 16) | (guint64) ((guint) (root + 1) & 0xffff);
}

const guint64 *
sim_model_coll_deps (const SimModel *m,
                     guint32         comm,
                     guint           op,
                     int             root)
{
  guint64 key;
  if (!m || !m->coll_deps)
    return NULL;
  key = sim_model_coll_key (comm, op, root);
  return g_hash_table_lookup (m->coll_deps, &key);
}

typedef struct
{
  int   size;
  int   seen;
  guint op;
  int   root;
  Tick *enter, *leave;
} CollSeen;

typedef struct
{
  int    size;
  guint *yes, *no;   /* [p * size + q]: p left soon after q came / p left before q came */
} CollVotes;

static void
coll_seen_free (gpointer p)
{
  CollSeen *c = p;
  g_free (c->enter);
  g_free (c->leave);
  g_free (c);
}

static void
coll_votes_free (gpointer p)
{
  CollVotes *v = p;
  g_free (v->yes);
  g_free (v->no);
  g_free (v);
}

/* One instance, every member seen: member p is free by the operation's rule at b_p. A member
 * q that came later tells whether p waited for it: p left before q came (no), or soon after it,
 * sooner than q came after b_p (yes). */
static void
coll_vote (GHashTable *votes,
           guint32     comm,
           CollSeen   *c)
{
  guint64 key = sim_model_coll_key (comm, c->op, c->root);
  CollVotes *v = g_hash_table_lookup (votes, &key);
  Tick max_e = G_MININT64;
  if (!v)
    {
      guint64 *kp = g_new (guint64, 1);
      *kp = key;
      v = g_new0 (CollVotes, 1);
      v->size = c->size;
      v->yes = g_new0 (guint, (gsize) c->size * (gsize) c->size);
      v->no = g_new0 (guint, (gsize) c->size * (gsize) c->size);
      g_hash_table_insert (votes, kp, v);
    }
  for (int q = 0; q < c->size; q++)
    max_e = MAX (max_e, c->enter[q]);
  for (int p = 0; p < c->size; p++)
    {
      Tick b = sim_coll_rule (c->op, p, c->root, c->enter, c->size, max_e);
      if (b >= max_e)
        continue;   /* waits for everyone anyway */
      for (int q = 0; q < c->size; q++)
        {
          Tick eq = c->enter[q];
          if (q == p || eq <= b)
            continue;
          if (c->leave[p] < eq)
            v->no[p * c->size + q]++;
          else if (c->leave[p] - eq <= eq - b)
            v->yes[p * c->size + q]++;
        }
    }
}

/* Operations whose members do not all wait for everyone by their own rule. */
static gboolean
learnable (guint op)
{
  switch (op)
    {
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
      return TRUE;
    default:
      return FALSE;
    }
}

/* Collects the recorded instances of the rooted collectives and scans from the plans (the
 * first SIM_COLL_LEARN_MAX of each communicator: the instances stay open until the last rank
 * is read) and keeps, per communicator, operation and root, the members each member waited
 * for in more instances than it did not. */
static void
fit_coll_deps (SimModel *m,
               SimRank **srs,
               SimPlan **plans,
               int       n_ranks)
{
  const TraceDefs *defs = srs[0]->defs;
  g_autoptr (GHashTable) open = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, coll_seen_free);
  g_autoptr (GHashTable) votes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, coll_votes_free);
  GHashTableIter it;
  gpointer k, val;

  for (int r = 0; r < n_ranks; r++)
    {
      g_autofree guint32 *seq = g_new0 (guint32, MAX (defs->comms->len, 1));
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      for (guint i = 0; i < plans[r]->calls->len; i++)
        {
          SimCall *call = &g_array_index (plans[r]->calls, SimCall, i);
          for (guint j = 0; j < call->n; j++)
            {
              SimAction *a = &g_array_index (plans[r]->actions, SimAction, call->first + j);
              TraceComm *c;
              int pos = -1;
              guint64 key;
              CollSeen *cs;
              if (a->kind != ACT_COLL || !learnable (a->op))
                continue;
              c = a->comm < defs->comms->len ? defs->comms->pdata[a->comm] : NULL;
              if (!c || c->size <= 1 || c->size > SIM_COLL_DEPS_MAX)
                continue;
              for (int q = 0; q < c->size; q++)
                if (c->world[q] == r)
                  pos = q;
              if (pos < 0 || seq[a->comm] >= SIM_COLL_LEARN_MAX)
                continue;
              /* every member calls them in the same order: the n-th on a communicator is one
               * instance on all of them */
              key = ((guint64) a->comm << 32) | seq[a->comm]++;
              cs = g_hash_table_lookup (open, &key);
              if (!cs)
                {
                  guint64 *kp = g_new (guint64, 1);
                  *kp = key;
                  cs = g_new0 (CollSeen, 1);
                  cs->size = c->size;
                  cs->op = a->op;
                  cs->root = a->peer;
                  cs->enter = g_new (Tick, c->size);
                  cs->leave = g_new (Tick, c->size);
                  g_hash_table_insert (open, kp, cs);
                }
              cs->enter[pos] = ev[call->enter].time;
              cs->leave[pos] = ev[call->leave].time;
              if (++cs->seen == cs->size)
                {
                  if (cs->op == a->op && cs->root == a->peer)
                    coll_vote (votes, a->comm, cs);
                  g_hash_table_remove (open, &key);
                }
            }
        }
    }
  g_hash_table_iter_init (&it, votes);
  while (g_hash_table_iter_next (&it, &k, &val))
    {
      CollVotes *v = val;
      guint64 *deps = g_new0 (guint64, v->size);
      gboolean any = FALSE;
      for (int p = 0; p < v->size; p++)
        for (int q = 0; q < v->size; q++)
          if (v->yes[p * v->size + q] > v->no[p * v->size + q])
            {
              deps[p] |= (guint64) 1 << q;
              m->n_coll_deps++;
              any = TRUE;
            }
      if (any)
        {
          guint64 *kp = g_new (guint64, 1);
          *kp = *(guint64 *) k;
          g_hash_table_insert (m->coll_deps, kp, deps);
        }
      else
        g_free (deps);
    }
}

/* Per event of the @i-th of the @n ranks @ranks of a host (their recorded times @times), the
 * ranks on its CPU then: those whose event at that time, the recorded one, ran on the same CPU
 * (bits: index in @ranks) */
static guint64 *
mates_on_cpu (const SimModel *m,
              SimRank       **srs,
              const int      *ranks,
              int             n,
              int             i,
              Tick          **times)
{
  int a = ranks[i];
  guint len = srs[a]->ev->len;
  guint64 *mm = g_new0 (guint64, MAX (len, 1));
  for (int j = 0; j < n; j++)
    {
      int b = ranks[j];
      guint lb = srs[b]->ev->len, kb = 0;
      if (j == i || lb == 0)
        continue;
      for (guint k = 0; k < len; k++)
        {
          while (kb + 1 < lb && times[b][kb] < times[a][k])
            kb++;
          if (m->where[a][k] >= 0 && m->where[b][kb] == m->where[a][k])
            mm[k] |= G_GUINT64_CONSTANT (1) << j;
        }
    }
  return mm;
}

/* Host @h's ranks sat on its CPUs evenly in some phases of the run and unevenly in others
 * (@mates per event of each of its @n ranks @ranks, on their recorded times @times): marks
 * per rank the events where its CPU had more or fewer ranks than n / CPUs (give or take one)
 * and fits the CPUs the sharing had for those and for the others apart (SimModel.uneven). */
static void
fit_phases (SimModel  *m,
            SimRank  **srs,
            int        n_ranks,
            guint      h,
            const int *ranks,
            int        n,
            Tick     **times,
            guint64  **mates)
{
  int cpus = (int) m->host_cpus[h], lo = n / cpus, hi = (n + cpus - 1) / cpus;
  guint uneven = 0, iv;
  g_autofree guint8 **cls = g_new0 (guint8 *, MAX (n_ranks, 1));
  for (int i = 0; i < n; i++)
    {
      int r = ranks[i];
      cls[r] = g_new0 (guint8, MAX (srs[r]->ev->len, 1));
      for (guint k = 0; k < srs[r]->ev->len; k++)
        {
          int c = 1 + __builtin_popcountll (mates[i][k]);
          cls[r][k] = m->where[r][k] >= 0 && (c < lo || c > hi);
          uneven += cls[r][k];
        }
    }
  if (uneven > 0)
    {
      double fu = sim_cores_fit_cpus_of (srs, ranks, n, (const Tick *const *) times, m->host_cpus[h],
                                         (const guint8 *const *) cls, 1, &iv);
      double fe = sim_cores_fit_cpus_of (srs, ranks, n, (const Tick *const *) times, m->host_cpus[h],
                                         (const guint8 *const *) cls, 0, &iv);
      if (!m->uneven)
        {
          m->uneven = g_new0 (guint8 *, MAX (n_ranks, 1));
          m->host_cpus_uneven = g_new0 (double, m->n_hosts);
        }
      m->host_cpus_uneven[h] = fu;
      m->host_cpus_fit[h] = fe;
      for (int i = 0; i < n; i++)
        m->uneven[ranks[i]] = g_steal_pointer (&cls[ranks[i]]);
    }
  for (int i = 0; i < n; i++)
    g_free (cls[ranks[i]]);
}

/* Host @h (its @n ranks @ranks, their recorded times @times) per CPU, where every rank's
 * samples name the CPU it ran on and the host has at most 64 ranks: per event each rank's CPU,
 * and which ranks shared it then (those whose event at that time, the recorded one, ran on
 * the same CPU). docs/decisions/2026-11-30-cores-per-cpu.md */
static void
fit_per_cpu (SimModel   *m,
             SimRank   **srs,
             int         n_ranks,
             guint       h,
             const int  *ranks,
             int         n,
             Tick      **times)
{
  const char *off = g_getenv ("KUBUS_SIM_PER_CPU");
  double wall = 0, wait = 0;
  int ids = 0, on_cpu[64] = { 0 }, least = G_MAXINT, most = 0;
  guint used = 0;
  gboolean moved = FALSE, balanced = TRUE, bound = TRUE, phases;
  guint64 **mates;
  if ((off && strcmp (off, "0") == 0) || n > 64)
    return;
  /* not where the computation itself waited long for the CPUs: the ranks then competed as
   * computing ranks do, and the scheduler moved them between the CPUs to give each its share
   * (sim-busy at 3 ranks on 2 cores: computation waited 21 % of its time, the ranks changed CPU
   * every 100 samples, +9 .. +14 % per CPU and +1 .. +3 % evenly). Where it waited less than
   * SIM_PER_CPU_WAIT, the ranks stayed where they were (0.1-0.3 % of the samples changed CPU)
   * and waited for the CPU in MPI instead. */
  for (int i = 0; i < n; i++)
    {
      SimCpuStats st = sim_cpu_shares (srs[ranks[i]], FALSE);
      wall += st.gap_wall;
      wait += st.gap_wait;
    }
  if (!m->where)
    m->where = g_new0 (gint16 *, MAX (n_ranks, 1));
  for (int i = 0; i < n; i++)
    {
      int r = ranks[i];
      m->where[r] = sim_cpu_where (srs[r]);
      if (!m->where[r])
        return;
      const SimCpuSample *cs = (const SimCpuSample *) srs[r]->cpu->data;
      gint32 at = -1;
      for (guint k = 0; k < srs[r]->ev->len; k++)
        ids = MAX (ids, m->where[r][k] + 1);
      /* its CPU changes from its second sample on (a rank that binds itself after MPI_Init
       * may be sampled once before), or from its first bound one where it ends bound (the
       * samples say so since 2026-12-01) */
      guint from = 1, len = srs[r]->cpu->len;
      if (len > 0 && cs[len - 1].bound)
        for (guint j = 0; j < len; j++)
          if (cs[j].where >= 0 && cs[j].bound)
            {
              from = j;
              break;
            }
      for (guint j = from; j < len; j++)
        if (cs[j].where >= 0)
          {
            moved |= at >= 0 && cs[j].where != at;
            at = cs[j].where;
            bound = bound && cs[j].bound;
          }
      if (at >= 0 && at < 64)
        on_cpu[at]++;
      else
        balanced = FALSE;
    }
  /* the ranks per CPU they sat on (ids as the host numbers them, which need not start at 0);
   * a CPU of the host none sat on has none */
  for (int p = 0; p < 64; p++)
    if (on_cpu[p] > 0)
      {
        used++;
        least = MIN (least, on_cpu[p]);
        most = MAX (most, on_cpu[p]);
      }
  if (used < m->host_cpus[h])
    least = 0;
  else if (used > m->host_cpus[h])
    balanced = FALSE;
  /* ... unless no rank changed its CPU after that (bound to it, by the program or the launcher):
   * the scheduler did not move them, and the ranks on a CPU shared it however long their
   * computation waited (docs/decisions/2026-11-30-pinned-replay.md). Where they sat as evenly
   * as the CPUs allow (as many on each, give or take one), they shared the host as the even
   * sharing has it: LAMMPS at 4 ranks on 2 cores, two and two without moving, came out
   * -5 .. -11 % per CPU and -3 .. 0 % evenly (docs/decisions/2026-12-01-even-placement.md) */
  balanced = balanced && most - least <= 1;
  bound = bound && n > 0;
  if (!m->host_bound)
    m->host_bound = g_new0 (gboolean, m->n_hosts);
  m->host_bound[h] = bound;
  /* ... but where the samples say the ranks could not move (each bound to its CPU:
   * KUBUS_CPU_ID with KUBUS_CPU_ID_BOUND), the ranks on a CPU shared it however evenly they
   * sat: `sim-busy spread`, bound two and two, came out -4.8 .. -1.5 % evenly and -3.1 ..
   * +2.2 % per CPU (docs/decisions/2026-12-01-bound-ranks.md).
   * Shared evenly, each placement phase has the CPUs it had: where the ranks sat on the CPUs
   * unevenly (more or fewer on a CPU than the even placement has), the host's CPUs did less
   * for them than where they sat evenly. LAMMPS at 4 ranks on 2 cores, left three on one CPU
   * and one on the other for 20-40 % of the run, came out -7.8 .. +1.5 % with one fit for
   * the whole run (docs/decisions/2026-12-01-placement-phases.md) */
  phases = wall > 0 && wait / wall >= SIM_PER_CPU_WAIT && (moved || (balanced && !bound));
  if (ids <= 0)
    return;
  mates = g_new0 (guint64 *, n);
  for (int i = 0; i < n; i++)
    mates[i] = mates_on_cpu (m, srs, ranks, n, i, times);
  if (phases)
    {
      fit_phases (m, srs, n_ranks, h, ranks, n, times, mates);
      for (int i = 0; i < n; i++)
        {
          g_clear_pointer (&m->where[ranks[i]], g_free);
          g_free (mates[i]);
        }
      g_free (mates);
      return;
    }
  if (!m->host_ids)
    {
      m->host_ids = g_new0 (int, m->n_hosts);
      m->counts_orig = g_new0 (GArray **, m->n_hosts);
      m->host_rank = g_new0 (int *, m->n_hosts);
      m->mates = g_new0 (guint64 *, MAX (n_ranks, 1));
      m->mates_vary = g_new0 (gboolean, MAX (n_ranks, 1));
      m->gate_ok = g_new0 (guint8 *, MAX (n_ranks, 1));
    }
  m->counts_orig[h] = sim_cores_cpu_counts (srs, ranks, n, (const Tick *const *) times, FALSE, m->where, ids, NULL);
  m->cpu_hosts++;
  m->host_ids[h] = ids;
  m->host_rank[h] = g_memdup2 (ranks, sizeof (int) * n);
  for (int i = 0; i < n; i++)
    {
      int a = ranks[i];
      guint len = srs[a]->ev->len;
      m->mates[a] = mates[i];
      m->mates_vary[a] = FALSE;
      m->gate_ok[a] = g_new0 (guint8, MAX (len, 1));
      for (guint k = 1; k < len && !m->mates_vary[a]; k++)
        m->mates_vary[a] = __builtin_popcountll (m->mates[a][k]) != __builtin_popcountll (m->mates[a][0]);
    }
  g_free (mates);
}

/* Hosts whose ranks outnumbered their CPUs: the CPUs the sharing had (none where @cores is
 * FALSE or the trace has no samples). */
static void
fit_cores (SimModel *m,
           SimRank **srs,
           int       n_ranks,
           gboolean  cores)
{
  g_autofree guint *count = NULL;
  g_autofree Tick **times = g_new0 (Tick *, MAX (n_ranks, 1));
  m->n_hosts = 0;
  for (int r = 0; r < n_ranks; r++)
    m->n_hosts = MAX (m->n_hosts, (guint) m->host[r] + 1);
  m->host_cpus = g_new0 (guint32, MAX (m->n_hosts, 1));
  m->host_cpus_fit = g_new0 (double, MAX (m->n_hosts, 1));
  m->host_intervals = g_new0 (guint, MAX (m->n_hosts, 1));
  count = g_new0 (guint, MAX (m->n_hosts, 1));
  for (int r = 0; r < n_ranks; r++)
    {
      count[m->host[r]]++;
      if (!m->host_cpus[m->host[r]])
        m->host_cpus[m->host[r]] = sim_cpu_host_cpus (srs[0]->defs, r);
    }
  for (guint h = 0; h < m->n_hosts; h++)
    {
      g_autofree int *ranks = NULL;
      int n = 0;
      if (!cores || srs[0]->defs->cpu_metric == OTF2_UNDEFINED_METRIC || m->host_cpus[h] == 0
          || count[h] <= m->host_cpus[h])
        {
          m->host_cpus[h] = 0;
          continue;
        }
      m->sharing = TRUE;
      ranks = g_new (int, count[h]);
      for (int r = 0; r < n_ranks; r++)
        if ((guint) m->host[r] == h)
          {
            SimEvent *ev = (SimEvent *) srs[r]->ev->data;
            ranks[n++] = r;
            times[r] = g_new (Tick, MAX (srs[r]->ev->len, 1));
            for (guint k = 0; k < srs[r]->ev->len; k++)
              times[r][k] = ev[k].time;
          }
      m->host_cpus_fit[h] = sim_cores_fit_cpus (srs, ranks, n, (const Tick *const *) times, m->host_cpus[h],
                                                &m->host_intervals[h]);
      fit_per_cpu (m, srs, n_ranks, h, ranks, n, times);
    }
  for (int r = 0; r < n_ranks; r++)
    g_free (times[r]);
}

/* Whether, on a host shared per CPU, some rank computed on the CPU rank @r ran on at its event
 * @k at some time from @a to @b (the recorded times) */
static gboolean
cpu_held (const SimModel *m,
          int             r,
          guint           k,
          Tick            a,
          Tick            b)
{
  int h = m->host[r], p;
  const GArray *c;
  const SimRateStep *s;
  gint i = -1;
  if (!m->host_ids || !m->host_ids[h] || !m->where || !m->where[r])
    return FALSE;
  p = m->where[r][k];
  if (p < 0 || p >= m->host_ids[h])
    return FALSE;
  c = m->counts_orig[h][p];
  s = (const SimRateStep *) c->data;
  for (guint j = 0; j < c->len && s[j].t <= a; j++)
    i = (gint) j;
  for (guint j = (guint) MAX (i, 0); j < c->len && s[j].t < b; j++)
    if ((gint) j >= i && s[j].rate > 0.5)
      return TRUE;
  return FALSE;
}

SimModel *
sim_model_fit (SimRank **srs,
               int       n_ranks)
{
  return sim_model_fit_cores (srs, n_ranks, TRUE);
}

SimModel *
sim_model_fit_cores (SimRank **srs,
                     int       n_ranks,
                     gboolean  cores)
{
  SimModel *m = g_new0 (SimModel, 1);
  g_autofree CallTimes *ct = g_new0 (CallTimes, n_ranks);
  g_autofree guint32 **post_of = g_new0 (guint32 *, n_ranks);
  TransportSamples ts[2];
  gboolean borrowed;

  m->n_ranks = n_ranks;
  m->cost = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  m->coll_deps = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  fit_hosts (m, srs[0]->defs);
  fit_cores (m, srs, n_ranks, cores);
  for (int t = 0; t < 2; t++)
    {
      ts[t].xs = g_array_new (FALSE, FALSE, sizeof (double));
      ts[t].ys = g_array_new (FALSE, FALSE, sizeof (double));
      ts[t].held = g_array_new (FALSE, FALSE, sizeof (double));
      ts[t].held_send = g_array_new (FALSE, FALSE, sizeof (double));
      ts[t].waited = g_array_new (FALSE, FALSE, sizeof (double));
      ts[t].votes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
    }
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
  for (int r = 0; r < n_ranks; r++)
    {
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      g_autoptr (GHashTable) isends = g_hash_table_new (g_int64_hash, g_int64_equal);   /* req -> event */
      for (guint i = 0; i < srs[r]->ev->len; i++)
        {
          SimEvent *e = &ev[i];
          if ((e->type == EV_RECV || e->type == EV_IRECV) && e->link != NO_INDEX && e->peer_world >= 0
              && e->peer_world < n_ranks && ct[r].enter[i] >= 0)
            {
              Tick es = ct[e->peer_world].enter[e->link];
              /* not where a rank computing on the receiver's CPU may have kept it from taking
               * the message (docs/decisions/2026-11-30-cores-per-cpu.md): that wait is the
               * CPU's, not the transfer's */
              if (es >= 0 && ct[r].enter[i] < es)
                {
                  TransportSamples *s = &ts[sim_model_transport (m, e->peer_world, r)];
                  double x = (double) e->len, y = (double) (ct[r].leave[i] - es);
                  if (cpu_held (m, r, i, es, ct[r].leave[i]))
                    {
                      g_array_append_val (s->held, x);
                      g_array_append_val (s->held, y);
                    }
                  else if (cpu_held (m, e->peer_world, e->link, es, ct[r].leave[i]))
                    {
                      g_array_append_val (s->held_send, x);
                      g_array_append_val (s->held_send, y);
                    }
                  else
                    {
                      g_array_append_val (s->xs, x);
                      g_array_append_val (s->ys, y);
                    }
                }
            }
          if (e->type == EV_SEND && e->link != NO_INDEX && e->peer_world >= 0 && e->peer_world < n_ranks
              && ct[r].enter[i] >= 0 && strcmp (call_name (srs[r], i), "MPI_Send") == 0)
            vote_send (&ts[sim_model_transport (m, r, e->peer_world)], e, e->len, ct[r].enter[i], ct[r].enter[i],
                       ct[r].leave[i], ready_time (srs, ct, e->peer_world, e->link, post_of, ct[r].enter[i]));
          /* standard-mode non-blocking sends, and persistent ones (MPI_Send_init: the trace
           * does not tell it from the other persistent modes, which are rare) */
          if (e->type == EV_ISEND && ct[r].enter[i] >= 0
              && (strcmp (call_name (srs[r], i), "MPI_Isend") == 0 || strcmp (call_name (srs[r], i), "MPI_Start") == 0
                  || strcmp (call_name (srs[r], i), "MPI_Startall") == 0))
            g_hash_table_insert (isends, &e->req, GUINT_TO_POINTER (i));
          /* not where MPI_Request_free ended it: that waits for nothing */
          if (e->type == EV_ISEND_COMPLETE && ct[r].enter[i] >= 0 && strcmp (call_name (srs[r], i), "MPI_Request_free") != 0)
            {
              gpointer v = NULL;
              if (g_hash_table_lookup_extended (isends, &e->req, NULL, &v))
                {
                  guint s = GPOINTER_TO_UINT (v);
                  SimEvent *se = &ev[s];
                  g_hash_table_remove (isends, &e->req);
                  if (se->link != NO_INDEX && se->peer_world >= 0 && se->peer_world < n_ranks)
                    vote_send (&ts[sim_model_transport (m, r, se->peer_world)], se, se->len, ct[r].enter[s],
                               ct[r].enter[i], ct[r].leave[i],
                               ready_time (srs, ct, se->peer_world, se->link, post_of, ct[r].enter[s]));
                }
            }
        }
    }
  for (int t = 0; t < 2; t++)
    {
      /* the transfers no CPU held up, where at least SIM_LINE_FREE_MIN are left: a rendezvous
       * message moves as both sides make progress (without single-copy transfers), and the
       * sender's CPU holds it up as well as the receiver's; where fewer, those the receiver's
       * CPU did not hold up (LAMMPS at 4 ranks keeps 2 to 7 of 160 free of both, and a line
       * through those misses its identity by 6 to 10 %); all of them where every one may have
       * been held up */
      if (ts[t].xs->len < SIM_LINE_FREE_MIN)
        for (guint i = 0; i + 1 < ts[t].held_send->len; i += 2)
          {
            g_array_append_val (ts[t].xs, g_array_index (ts[t].held_send, double, i));
            g_array_append_val (ts[t].ys, g_array_index (ts[t].held_send, double, i + 1));
          }
      g_array_unref (ts[t].held_send);
      if (ts[t].xs->len == 0)
        for (guint i = 0; i + 1 < ts[t].held->len; i += 2)
          {
            g_array_append_val (ts[t].xs, g_array_index (ts[t].held, double, i));
            g_array_append_val (ts[t].ys, g_array_index (ts[t].held, double, i + 1));
          }
      g_array_unref (ts[t].held);
      fit_line (&m->tr[t], &ts[t]);
      vote_waited (&m->tr[t], &ts[t]);
      g_array_unref (ts[t].waited);
      fit_eager_limit (&m->tr[t], &ts[t], srs[0]->defs->eager_limit_lib[t]);
      g_array_unref (ts[t].xs);
      g_array_unref (ts[t].ys);
      g_hash_table_unref (ts[t].votes);
    }
  /* a transport without samples borrows the other's line and limit (capped below as that one) */
  borrowed = m->tr[1].n_samples == 0 && m->tr[1].votes_eager + m->tr[1].votes_rdv == 0;
  if (borrowed)
    {
      guint64 library = m->tr[1].eager_library;
      m->tr[1] = (SimTransport) { m->tr[0].latency, m->tr[0].per_byte, m->tr[0].eager_limit, 0, 0, 0,
                                  m->tr[0].sampled_max, m->tr[0].per_byte, 0, library, m->tr[0].eager_from_library };
      /* the library's own limit between hosts, where it told it */
      if (library > 0)
        {
          m->tr[1].eager_limit = library > SIM_EAGER_HEADER ? library - SIM_EAGER_HEADER : 0;
          m->tr[1].eager_from_library = TRUE;
        }
    }
  /* the messages beyond the sampled sizes bound the lines (cap_line) */
  for (int r = 0; r < n_ranks; r++)
    {
      SimEvent *ev = (SimEvent *) srs[r]->ev->data;
      for (guint i = 0; i < srs[r]->ev->len; i++)
        {
          SimEvent *e = &ev[i];
          int p = e->peer_world;
          Tick start, from;
          if ((e->type != EV_RECV && e->type != EV_IRECV) || e->link == NO_INDEX || p < 0 || p >= n_ranks
              || ct[r].leave[i] < 0 || e->link >= srs[p]->ev->len || (start = ct[p].enter[e->link]) < 0)
            continue;
          from = start;
          if (sim_model_rendezvous (m, p, r, e->len, send_mode_sync (call_name (srs[p], e->link)),
                                    ((SimEvent *) srs[p]->ev->data)[e->link].flags))
            from = ready_time (srs, ct, r, i, post_of, start);
          cap_line (&m->tr[sim_model_transport (m, p, r)], e->len, from, ct[r].leave[i]);
        }
    }
  if (borrowed && m->tr[0].per_byte_beyond < m->tr[1].per_byte_beyond)
    {
      m->tr[1].per_byte_beyond = m->tr[0].per_byte_beyond;
      m->tr[1].capped_by = m->tr[0].capped_by;
    }
  for (int r = 0; r < n_ranks; r++)
    {
      g_free (ct[r].enter);
      g_free (ct[r].leave);
      g_array_unref (ct[r].in_mpi);
      g_free (post_of[r]);
    }

  /* the costs: every call's residual on the recorded times */
  {
    SimPlanNotes notes;
    g_autofree SimPlan **plans = g_new0 (SimPlan *, n_ranks);
    gboolean ok = TRUE;
    sim_plan_notes_init (&notes);
    for (int r = 0; r < n_ranks && ok; r++)
      ok = (plans[r] = sim_plan_build (srs[r], &notes, NULL)) != NULL;
    if (ok)
      {
        fit_coll_deps (m, srs, plans, n_ranks);
        sim_offline_run (srs, plans, n_ranks, m, TRUE, NULL, NULL);
      }
    for (int r = 0; r < n_ranks; r++)
      sim_plan_free (plans[r]);
    sim_plan_notes_clear (&notes);
    for (int r = 0; r < n_ranks; r++)
      g_clear_pointer (&srs[r]->new_time, g_free);
  }
  return m;
}

void
sim_model_free (SimModel *m)
{
  if (!m)
    return;
  g_hash_table_unref (m->cost);
  g_clear_pointer (&m->nbc_needs, g_hash_table_unref);
  if (m->coll_deps)
    g_hash_table_unref (m->coll_deps);
  g_free (m->host_cpus);
  g_free (m->host_cpus_fit);
  g_free (m->host_intervals);
  for (int r = 0; r < m->n_ranks; r++)
    {
      if (m->where)
        g_free (m->where[r]);
      if (m->mates)
        {
          g_free (m->mates[r]);
          g_free (m->gate_ok[r]);
        }
    }
  for (guint h = 0; m->host_ids && h < m->n_hosts; h++)
    {
      sim_cores_cpu_free (m->counts_orig[h], m->host_ids[h]);
      g_free (m->host_rank[h]);
    }
  g_free (m->where);
  g_free (m->mates);
  g_free (m->mates_vary);
  g_free (m->gate_ok);
  g_free (m->counts_orig);
  g_free (m->host_rank);
  g_free (m->host_ids);
  g_free (m->host_cpus_uneven);
  g_free (m->host_bound);
  if (m->uneven)
    for (int r = 0; r < m->n_ranks; r++)
      g_free (m->uneven[r]);
  g_free (m->uneven);
  g_free (m->host);
  g_free (m);
}

static void
describe_transport (GString            *s,
                    const char         *name,
                    const SimTransport *t)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, "{\"transport\": \"%s\", ", name);
  g_string_append_printf (s, "\"latency_ns\": %s, ", g_ascii_formatd (b, sizeof b, "%.1f", t->latency));
  g_string_append_printf (s, "\"per_byte_ns\": %s, ", g_ascii_formatd (b, sizeof b, "%.5f", t->per_byte));
  if (t->eager_limit == G_MAXUINT64)
    g_string_append (s, "\"eager_limit\": null, ");
  else
    g_string_append_printf (s, "\"eager_limit\": %" G_GUINT64_FORMAT ", ", t->eager_limit);
  g_string_append_printf (s, "\"message_samples\": %u, \"largest_sample_bytes\": %" G_GUINT64_FORMAT ", ",
                          t->n_samples, t->sampled_max);
  g_string_append_printf (s, "\"per_byte_beyond_samples_ns\": %s, ",
                          g_ascii_formatd (b, sizeof b, "%.5f", t->per_byte_beyond));
  if (t->capped_by)
    g_string_append_printf (s, "\"per_byte_capped_by_bytes\": %" G_GUINT64_FORMAT ", ", t->capped_by);
  else
    g_string_append (s, "\"per_byte_capped_by_bytes\": null, ");
  g_string_append_printf (s, "\"eager_votes\": %u, \"rendezvous_votes\": %u, ", t->votes_eager, t->votes_rdv);
  if (t->eager_library > 0)
    g_string_append_printf (s, "\"eager_limit_library\": %" G_GUINT64_FORMAT ", ", t->eager_library);
  else
    g_string_append (s, "\"eager_limit_library\": null, ");
  g_string_append_printf (s, "\"eager_limit_from\": \"%s\"}",
                          t->eager_from_library ? "library" : t->votes_rdv > 0 ? "votes" : "none");
}

char *
sim_model_describe (const SimModel *m)
{
  GString *s = g_string_new ("{\"transports\": [");
  describe_transport (s, "same host", &m->tr[0]);
  g_string_append (s, ", ");
  describe_transport (s, "between hosts", &m->tr[1]);
  g_string_append_printf (s, "], \"cost_classes\": %u, \"cost_samples\": %u, \"collective_waits\": %u", m->n_classes,
                          m->n_cost_samples, m->n_coll_deps);
  /* the hosts whose CPUs the ranks shared (sim_cores_profile) */
  g_string_append (s, ", \"shared_cpus\": [");
  for (guint h = 0, n = 0; h < m->n_hosts; h++)
    if (m->host_cpus[h])
      {
        g_string_append_printf (s, "%s{\"host\": %u, \"cpus\": %u, \"fitted_cpus\": %.3f, \"sampled_intervals\": %u, "
                                "\"per_cpu\": %s",
                                n++ ? ", " : "", h, m->host_cpus[h], m->host_cpus_fit[h], m->host_intervals[h],
                                m->host_ids && m->host_ids[h] ? "true" : "false");
        if (m->host_bound)
          g_string_append_printf (s, ", \"bound\": %s", m->host_bound[h] ? "true" : "false");
        /* the CPUs of the phases its ranks sat on them unevenly (fit_phases) */
        if (m->host_cpus_uneven && m->host_cpus_uneven[h] > 0)
          g_string_append_printf (s, ", \"fitted_cpus_uneven\": %.3f", m->host_cpus_uneven[h]);
        g_string_append (s, "}");
      }
  g_string_append_printf (s, "], \"shared_cpus_passes\": %d", m->cores_passes);
  if (m->cores_median_from > 0)
    g_string_append_printf (s, ", \"shared_cpus_median_of_passes\": [%d, %d]}", m->cores_median_from,
                            m->cores_passes);
  else
    g_string_append_printf (s, ", \"shared_cpus_pass_kept\": %d}", m->cores_best_pass);
  return g_string_free (s, FALSE);
}
