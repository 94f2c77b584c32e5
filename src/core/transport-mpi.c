/* transport-mpi.c — the message layer over MPI: each process of the job holds a block of
 * consecutive traced ranks (one each when the job has as many processes as the trace ranks).
 * Each recorded communicator gets its own MPI communicator over the processes that hold its
 * members (MPI_Comm_split, ordered by the recorded comm-local rank of their first member), so
 * collective replays run over the same membership: a process combines its own members first. The
 * replay asks for one communicator's operations after another, so only the current one is
 * kept: a trace of a program that made thousands of communicators does not make the analysis
 * hold thousands of MPI communicators at once. */
#include "analyze-private.h"

#include <mpi.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1u << 20)

typedef struct
{
  int      me;
  int      n_procs;
  int     *first;      /* per process: its first rank (n_procs + 1 entries) */
  gboolean have_comm;
  guint    comm_key;
  MPI_Comm comm;       /* the communicator of comm_key (MPI_COMM_NULL for non-members) */
  gboolean contiguous; /* this process's members of it are consecutive in its order */
  MPI_Datatype unit;   /* 8 bytes: exchanges count in units, up to 16 GiB per process */
  /* the message-driven replay (replay-msg.c): its own communicator, the sends in flight and
   * the termination wave */
  MPI_Comm    msg_comm;
  GPtrArray  *msg_out;     /* GBytes being sent, parallel to msg_req */
  GArray     *msg_req;     /* MPI_Request */
  MPI_Request wave_req;
  gint64      wave_in[3];
  gint64      wave_out[3];
  gboolean    wave_on;
} MpiPriv;

int
transport_mpi_owner (int n_ranks,
                     int n_procs,
                     int rank)
{
  /* the inverse of first[p] = n_ranks·p / n_procs */
  int p = (int) (((gint64) rank * n_procs + n_procs - 1) / n_ranks);
  while (p > 0 && (gint64) n_ranks * p / n_procs > rank)
    p--;
  while (p + 1 < n_procs && (gint64) n_ranks * (p + 1) / n_procs <= rank)
    p++;
  return p;
}

/* Local index of world rank @r in this process, -1 if another process holds it. */
static inline int
local_of (Transport *t,
          int        r)
{
  MpiPriv *p = t->priv;
  int i = r - p->first[p->me];
  return i >= 0 && i < t->n_local ? i : -1;
}

/* Waits for every rank without spinning: analysis ranks often outnumber cores (one per traced
 * rank), and a rank busy-polling in a collective steals the CPU from the ranks still reading. */
void
transport_mpi_lazy_barrier (void)
{
  MPI_Request req;
  int done = 0;
  struct timespec ts = { 0, 200000 };

  MPI_Ibarrier (MPI_COMM_WORLD, &req);
  MPI_Test (&req, &done, MPI_STATUS_IGNORE);
  while (!done)
    {
      nanosleep (&ts, NULL);
      MPI_Test (&req, &done, MPI_STATUS_IGNORE);
    }
}

#define PAD8(n) (((n) + 7) & ~(gsize) 7)

/* One message per pair of processes: a table of lengths (one guint64 per pair of a local
 * source rank and a destination rank of the receiving process, sources outer), then the
 * bytes in the same order, each piece padded to 8 bytes. */
static gboolean
mpi_alltoallv (Transport   *t,
               GByteArray ***out,
               GByteArray ***in,
               GError     **error)
{
  MpiPriv *p = t->priv;
  int np = p->n_procs;
  g_autofree int *scount = g_new0 (int, np);
  g_autofree int *rcount = g_new0 (int, np);
  g_autofree int *sdisp = g_new0 (int, np);
  g_autofree int *rdisp = g_new0 (int, np);
  g_autofree guint64 *sunits = g_new0 (guint64, np);
  g_autofree guint8 *sbuf = NULL;
  g_autofree guint8 *rbuf = NULL;
  guint64 stotal = 0, rtotal = 0;

  for (int q = 0; q < np; q++)
    {
      int nq = p->first[q + 1] - p->first[q];
      guint64 bytes = (guint64) t->n_local * nq * sizeof (guint64);
      for (int i = 0; i < t->n_local; i++)
        for (int d = p->first[q]; d < p->first[q + 1]; d++)
          bytes += PAD8 (out[i][d] ? out[i][d]->len : 0);
      sunits[q] = bytes / 8;
      if (sunits[q] > G_MAXINT || stotal + sunits[q] > G_MAXINT)
        {
          g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                               "replay exchange larger than 16 GiB per process");
          return FALSE;
        }
      scount[q] = (int) sunits[q];
      sdisp[q] = (int) stotal;
      stotal += sunits[q];
    }
  transport_mpi_lazy_barrier ();
  MPI_Alltoall (scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
  for (int q = 0; q < np; q++)
    {
      rdisp[q] = (int) rtotal;
      rtotal += (guint64) rcount[q];
    }
  if (rtotal > G_MAXINT)
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                           "replay exchange larger than 16 GiB per process");
      return FALSE;
    }
  sbuf = g_malloc (MAX (stotal * 8, 1));
  rbuf = g_malloc (MAX (rtotal * 8, 1));
  for (int q = 0; q < np; q++)
    {
      guint8 *base = sbuf + (gsize) sdisp[q] * 8;
      guint64 *lens = (guint64 *) base;
      int nq = p->first[q + 1] - p->first[q];
      gsize off = (gsize) t->n_local * nq * sizeof (guint64), k = 0;
      for (int i = 0; i < t->n_local; i++)
        for (int d = p->first[q]; d < p->first[q + 1]; d++, k++)
          {
            GByteArray *b = out[i][d];
            lens[k] = b ? b->len : 0;
            if (b && b->len)
              {
                memcpy (base + off, b->data, b->len);
                memset (base + off + b->len, 0, PAD8 (b->len) - b->len);
                off += PAD8 (b->len);
              }
            /* the caller is done with its buffers: release them now to keep the peak low */
            if (b)
              g_clear_pointer (&out[i][d], g_byte_array_unref);
          }
    }
  MPI_Alltoallv (sbuf, scount, sdisp, p->unit, rbuf, rcount, rdisp, p->unit, MPI_COMM_WORLD);
  g_clear_pointer (&sbuf, g_free);
  for (int q = 0; q < np; q++)
    {
      const guint8 *base = rbuf + (gsize) rdisp[q] * 8;
      const guint64 *lens = (const guint64 *) base;
      int nq = p->first[q + 1] - p->first[q];
      gsize off = (gsize) nq * t->n_local * sizeof (guint64), k = 0, have = (gsize) rcount[q] * 8;
      for (int s = p->first[q]; s < p->first[q + 1]; s++)
        for (int i = 0; i < t->n_local; i++, k++)
          {
            guint64 len = rcount[q] ? lens[k] : 0;
            GByteArray *b = g_byte_array_sized_new ((guint) len);
            if (len && off + len <= have)
              g_byte_array_append (b, base + off, (guint) len);
            off += PAD8 (len);
            in[i][s] = b;
          }
    }
  return TRUE;
}

/* The communicator of the processes holding members of @key, ordered by the first position
 * (comm-local rank) of their members. */
static MPI_Comm
comm_for (Transport *t,
          guint      key,
          const int *members,
          int        n_members)
{
  MpiPriv *p = t->priv;
  int lo = -1, hi = -1, mine = 0;

  /* every process asks for the same keys in the same order (transport contract) */
  if (p->have_comm && p->comm_key == key)
    return p->comm;
  if (p->have_comm && p->comm != MPI_COMM_NULL)
    MPI_Comm_free (&p->comm);
  for (int m = 0; m < n_members; m++)
    if (members[m] >= 0 && local_of (t, members[m]) >= 0)
      {
        if (lo < 0)
          lo = m;
        hi = m;
        mine++;
      }
  MPI_Comm_split (MPI_COMM_WORLD, lo >= 0 ? 0 : MPI_UNDEFINED, lo, &p->comm);
  p->contiguous = lo < 0 || hi - lo + 1 == mine;
  if (p->comm != MPI_COMM_NULL)
    {
      int c = p->contiguous, all = 0;
      MPI_Allreduce (&c, &all, 1, MPI_INT, MPI_MIN, p->comm);
      p->contiguous = all != 0;
    }
  p->comm_key = key;
  p->have_comm = TRUE;
  return p->comm;
}

static void
mpi_allreduce_max (Transport  *t,
                   guint       key,
                   const int  *members,
                   int         n_members,
                   gint64    **vals,
                   gsize       count)
{
  MPI_Comm c = comm_for (t, key, members, n_members);
  g_autofree gint64 *acc = NULL;
  gint64 *v = NULL;
  int n_mine = 0;

  if (c == MPI_COMM_NULL)
    return;
  /* this process's members first, then the processes */
  for (int m = 0; m < n_members; m++)
    {
      int i = members[m] >= 0 ? local_of (t, members[m]) : -1;
      if (i < 0 || !vals[i])
        continue;
      if (n_mine++ == 0)
        v = vals[i];
      else
        {
          if (!acc)
            acc = g_memdup2 (v, count * sizeof (gint64));
          for (gsize k = 0; k < count; k++)
            acc[k] = MAX (acc[k], vals[i][k]);
        }
    }
  if (acc)
    v = acc;
  else if (!v)
    {
      acc = g_new (gint64, MAX (count, 1));
      for (gsize k = 0; k < count; k++)
        acc[k] = G_MININT64;
      v = acc;
    }
  for (gsize off = 0; off < count; off += CHUNK)
    MPI_Allreduce (MPI_IN_PLACE, v + off, (int) MIN (CHUNK, count - off), MPI_INT64_T, MPI_MAX, c);
  for (int m = 0; m < n_members; m++)
    {
      int i = members[m] >= 0 ? local_of (t, members[m]) : -1;
      if (i >= 0 && vals[i] && vals[i] != v)
        memcpy (vals[i], v, count * sizeof (gint64));
    }
}

/* The inclusive prefix max in comm order when this process's members are not consecutive in
 * it: every process learns all members' values (rare: communicators ordered against the
 * world ranks). */
static void
scan_gathered (Transport  *t,
               MPI_Comm    c,
               const int  *members,
               int         n_members,
               gint64    **vals,
               gsize       count)
{
  int nc, n_mine = 0;
  g_autofree int *counts = NULL;
  g_autofree int *disp = NULL;
  g_autofree gint64 *mine = NULL;
  g_autofree gint64 *all = NULL;
  g_autofree gint64 *acc = g_new (gint64, MAX (count, 1));
  gsize rec = count + 1, total = 0;

  MPI_Comm_size (c, &nc);
  for (int m = 0; m < n_members; m++)
    if (members[m] >= 0 && local_of (t, members[m]) >= 0)
      n_mine++;
  mine = g_new (gint64, MAX ((gsize) n_mine * rec, 1));
  n_mine = 0;
  for (int m = 0; m < n_members; m++)
    {
      int i = members[m] >= 0 ? local_of (t, members[m]) : -1;
      if (i < 0)
        continue;
      mine[(gsize) n_mine * rec] = m;
      for (gsize k = 0; k < count; k++)
        mine[(gsize) n_mine * rec + 1 + k] = vals[i] ? vals[i][k] : G_MININT64;
      n_mine++;
    }
  counts = g_new (int, nc);
  disp = g_new (int, nc);
  {
    int mc = (int) ((gsize) n_mine * rec);
    MPI_Allgather (&mc, 1, MPI_INT, counts, 1, MPI_INT, c);
  }
  for (int q = 0; q < nc; q++)
    {
      disp[q] = (int) total;
      total += counts[q];
    }
  all = g_new (gint64, MAX (total, 1));
  MPI_Allgatherv (mine, (int) ((gsize) n_mine * rec), MPI_INT64_T, all, counts, disp, MPI_INT64_T, c);
  {
    /* by position in the communicator */
    g_autofree gint64 **at = g_new0 (gint64 *, n_members);
    for (gsize r = 0; r + rec <= total; r += rec)
      if (all[r] >= 0 && all[r] < n_members)
        at[all[r]] = all + r + 1;
    for (gsize k = 0; k < count; k++)
      acc[k] = G_MININT64;
    for (int m = 0; m < n_members; m++)
      {
        int i;
        if (!at[m])
          continue;
        for (gsize k = 0; k < count; k++)
          acc[k] = MAX (acc[k], at[m][k]);
        i = members[m] >= 0 ? local_of (t, members[m]) : -1;
        if (i >= 0 && vals[i])
          memcpy (vals[i], acc, count * sizeof (gint64));
      }
  }
}

static void
mpi_scan_max (Transport  *t,
              guint       key,
              const int  *members,
              int         n_members,
              gint64    **vals,
              gsize       count)
{
  MpiPriv *p = t->priv;
  MPI_Comm c = comm_for (t, key, members, n_members);
  g_autofree gint64 *run = NULL;
  g_autofree gint64 *before = NULL;
  int crank;

  if (c == MPI_COMM_NULL)
    return;
  if (!p->contiguous)
    {
      scan_gathered (t, c, members, n_members, vals, count);
      return;
    }
  /* this process's members are consecutive in comm order: a prefix over them, then an
   * exclusive scan of their running maximum over the processes */
  run = g_new (gint64, MAX (count, 1));
  before = g_new (gint64, MAX (count, 1));
  for (gsize k = 0; k < count; k++)
    run[k] = G_MININT64;
  for (int m = 0; m < n_members; m++)
    {
      int i = members[m] >= 0 ? local_of (t, members[m]) : -1;
      if (i < 0 || !vals[i])
        continue;
      for (gsize k = 0; k < count; k++)
        run[k] = vals[i][k] = MAX (vals[i][k], run[k]);
    }
  MPI_Comm_rank (c, &crank);
  for (gsize off = 0; off < count; off += CHUNK)
    MPI_Exscan (run + off, before + off, (int) MIN (CHUNK, count - off), MPI_INT64_T, MPI_MAX, c);
  if (crank == 0)
    return;   /* nothing before the first process (its Exscan result is undefined) */
  for (int m = 0; m < n_members; m++)
    {
      int i = members[m] >= 0 ? local_of (t, members[m]) : -1;
      if (i < 0 || !vals[i])
        continue;
      for (gsize k = 0; k < count; k++)
        vals[i][k] = MAX (vals[i][k], before[k]);
    }
}

/* Every process sends its ranks' arrays in one piece: their lengths, then their bytes. */
static void
mpi_gather (Transport   *t,
            GByteArray **out,
            GPtrArray  **root_in)
{
  MpiPriv *p = t->priv;
  int np = p->n_procs;
  g_autofree int *lens = g_new0 (int, np);
  g_autofree int *disp = g_new0 (int, np);
  g_autofree guint8 *buf = NULL;
  g_autoptr (GByteArray) mine = g_byte_array_new ();
  gsize total = 0;
  int len;

  for (int i = 0; i < t->n_local; i++)
    {
      guint64 l = out[i]->len;
      g_byte_array_append (mine, (const guint8 *) &l, sizeof l);
    }
  for (int i = 0; i < t->n_local; i++)
    g_byte_array_append (mine, out[i]->data, out[i]->len);
  len = (int) MIN (mine->len, (guint) G_MAXINT);
  transport_mpi_lazy_barrier ();
  MPI_Gather (&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (p->me == 0)
    {
      for (int q = 0; q < np; q++)
        {
          disp[q] = (int) MIN (total, (gsize) G_MAXINT);
          total += lens[q];
        }
      buf = g_malloc (MAX (total, 1));
    }
  MPI_Gatherv (mine->data, len, MPI_BYTE, buf, lens, disp, MPI_BYTE, 0, MPI_COMM_WORLD);
  *root_in = NULL;
  if (p->me == 0)
    {
      GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
      for (int q = 0; q < np; q++)
        {
          int nq = p->first[q + 1] - p->first[q];
          const guint8 *base = buf + disp[q];
          gsize off = (gsize) nq * sizeof (guint64);
          for (int k = 0; k < nq; k++)
            {
              guint64 l;
              GByteArray *b;
              memcpy (&l, base + k * sizeof (guint64), sizeof l);
              b = g_byte_array_sized_new ((guint) l);
              if (off + l <= (gsize) lens[q])
                g_byte_array_append (b, base + off, (guint) l);
              off += l;
              g_ptr_array_add (all, b);
            }
        }
      *root_in = all;
    }
}

static void
mpi_msg_begin (Transport *t)
{
  MpiPriv *p = t->priv;
  MPI_Comm node;
  int on_node = 1, cores = (int) sysconf (_SC_NPROCESSORS_ONLN), all_spin = 0, spin;

  MPI_Comm_dup (MPI_COMM_WORLD, &p->msg_comm);
  /* more processes on this node than cores: a waiting process naps, or it would take the core
   * from the process it waits for */
  MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size (node, &on_node);
  MPI_Comm_free (&node);
  spin = cores > 0 && on_node <= cores;
  MPI_Allreduce (&spin, &all_spin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  t->msg_spin = all_spin != 0;
  p->msg_out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  p->msg_req = g_array_new (FALSE, FALSE, sizeof (MPI_Request));
  p->wave_on = FALSE;
}

/* Frees the buffers of the sends that have completed and moves the others to the front. Every
 * slot from the new length on is NULL before the array shrinks: g_ptr_array_set_size unrefs
 * what it drops, and a slot whose buffer moved forward still pointed to it (it was unreffed
 * twice: a GLib critical, then a use after free, in kubus-analyze --parallel once 256 sends
 * were pending). */
static void
msg_reap (MpiPriv *p)
{
  guint k = 0;
  for (guint i = 0; i < p->msg_req->len; i++)
    {
      MPI_Request *r = &g_array_index (p->msg_req, MPI_Request, i);
      int done = 0;
      MPI_Test (r, &done, MPI_STATUS_IGNORE);
      if (done)
        {
          g_bytes_unref (p->msg_out->pdata[i]);
          p->msg_out->pdata[i] = NULL;
          continue;
        }
      if (k != i)
        {
          g_array_index (p->msg_req, MPI_Request, k) = *r;
          p->msg_out->pdata[k] = p->msg_out->pdata[i];
          p->msg_out->pdata[i] = NULL;
        }
      k++;
    }
  g_array_set_size (p->msg_req, k);
  g_ptr_array_set_size (p->msg_out, k);
}

static void
mpi_msg_send (Transport *t,
              int        dst,
              GBytes    *msg)
{
  MpiPriv *p = t->priv;
  gsize len;
  const void *data = g_bytes_get_data (msg, &len);
  MPI_Request r;

  if (p->msg_req->len >= 256)
    msg_reap (p);
  /* to the process that holds rank @dst (the batch's headers name the rank) */
  MPI_Isend (data, (int) len, MPI_BYTE, transport_mpi_owner (t->n_ranks, p->n_procs, dst), 0,
             p->msg_comm, &r);
  g_array_append_val (p->msg_req, r);
  g_ptr_array_add (p->msg_out, msg);
}

static GBytes *
mpi_msg_recv (Transport *t,
              int       *src,
              int       *dst,
              gboolean   wait)
{
  MpiPriv *p = t->priv;
  MPI_Status st;
  int flag = 0, len = 0;
  guint8 *buf;

  if (wait)
    MPI_Probe (MPI_ANY_SOURCE, 0, p->msg_comm, &st);
  else
    {
      MPI_Iprobe (MPI_ANY_SOURCE, 0, p->msg_comm, &flag, &st);
      if (!flag)
        return NULL;
    }
  MPI_Get_count (&st, MPI_BYTE, &len);
  buf = g_malloc (MAX (len, 1));
  MPI_Recv (buf, len, MPI_BYTE, st.MPI_SOURCE, 0, p->msg_comm, MPI_STATUS_IGNORE);
  *src = st.MPI_SOURCE;
  *dst = p->me;
  return g_bytes_new_take (buf, len);
}

static int
mpi_msg_wave (Transport    *t,
              const gint64 *mine,
              gint64       *all)
{
  MpiPriv *p = t->priv;
  int done = 0;

  if (!p->wave_on)
    {
      if (!mine)
        return 0;
      memcpy (p->wave_in, mine, sizeof p->wave_in);
      MPI_Iallreduce (p->wave_in, p->wave_out, 3, MPI_INT64_T, MPI_SUM, p->msg_comm, &p->wave_req);
      p->wave_on = TRUE;
    }
  MPI_Test (&p->wave_req, &done, MPI_STATUS_IGNORE);
  if (!done)
    return 0;
  p->wave_on = FALSE;
  memcpy (all, p->wave_out, sizeof p->wave_out);
  return 1;
}

static void
mpi_msg_end (Transport *t)
{
  MpiPriv *p = t->priv;
  if (p->msg_req->len)
    MPI_Waitall ((int) p->msg_req->len, (MPI_Request *) p->msg_req->data, MPI_STATUSES_IGNORE);
  g_ptr_array_unref (p->msg_out);
  g_array_unref (p->msg_req);
  p->msg_out = NULL;
  p->msg_req = NULL;
  transport_mpi_lazy_barrier ();
  MPI_Comm_free (&p->msg_comm);
}

static void
mpi_free (Transport *t)
{
  MpiPriv *p = t->priv;
  replay_threads_free (t);
  if (p->have_comm && p->comm != MPI_COMM_NULL)
    MPI_Comm_free (&p->comm);
  MPI_Type_free (&p->unit);
  g_free (p->first);
  g_free (p);
  g_free (t->local_ranks);
  g_free (t);
}

Transport *
transport_mpi_new (int n_ranks)
{
  Transport *t = g_new0 (Transport, 1);
  MpiPriv *p = g_new0 (MpiPriv, 1);

  MPI_Comm_rank (MPI_COMM_WORLD, &p->me);
  MPI_Comm_size (MPI_COMM_WORLD, &p->n_procs);
  g_return_val_if_fail (p->n_procs <= n_ranks, NULL);
  p->first = g_new (int, p->n_procs + 1);
  for (int q = 0; q <= p->n_procs; q++)
    p->first[q] = (int) ((gint64) n_ranks * q / p->n_procs);
  p->comm = MPI_COMM_NULL;
  MPI_Type_contiguous (8, MPI_BYTE, &p->unit);
  MPI_Type_commit (&p->unit);
  t->priv = p;
  t->n_ranks = n_ranks;
  t->n_local = p->first[p->me + 1] - p->first[p->me];
  t->local_ranks = g_new (int, MAX (t->n_local, 1));
  for (int i = 0; i < t->n_local; i++)
    t->local_ranks[i] = p->first[p->me] + i;
  t->alltoallv = mpi_alltoallv;
  t->allreduce_max = mpi_allreduce_max;
  t->scan_max = mpi_scan_max;
  t->gather = mpi_gather;
  t->msg_begin = mpi_msg_begin;
  t->msg_send = mpi_msg_send;
  t->msg_recv = mpi_msg_recv;
  t->msg_wave = mpi_msg_wave;
  t->msg_end = mpi_msg_end;
  t->free = mpi_free;
  t->n_threads = 1;
  return t;
}
