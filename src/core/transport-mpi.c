/* transport-mpi.c — the message layer over MPI: one process per traced rank. Each recorded
 * communicator gets its own MPI communicator (MPI_Comm_split by recorded membership, ordered by
 * the recorded comm-local rank), so collective replays run over the same membership. The
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
  gboolean have_comm;
  guint    comm_key;
  MPI_Comm comm;       /* the communicator of comm_key (MPI_COMM_NULL for non-members) */
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

/* Waits for every rank without spinning: analysis ranks often outnumber cores (one per traced
 * rank), and a rank busy-polling in a collective steals the CPU from the ranks still reading. */
static void
lazy_barrier (void)
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

static gboolean
mpi_alltoallv (Transport   *t,
               GByteArray ***out,
               GByteArray ***in,
               GError     **error)
{
  int n = t->n_ranks;
  g_autofree int *scount = g_new0 (int, n);
  g_autofree int *rcount = g_new0 (int, n);
  g_autofree int *sdisp = g_new0 (int, n);
  g_autofree int *rdisp = g_new0 (int, n);
  g_autofree guint8 *sbuf = NULL;
  g_autofree guint8 *rbuf = NULL;
  gsize stotal = 0, rtotal = 0;

  for (int d = 0; d < n; d++)
    {
      gsize len = out[0][d] ? out[0][d]->len : 0;
      if (len > G_MAXINT || stotal + len > G_MAXINT)
        {
          g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                               "replay exchange larger than 2 GiB per rank");
          return FALSE;
        }
      scount[d] = (int) len;
      sdisp[d] = (int) stotal;
      stotal += len;
    }
  lazy_barrier ();
  MPI_Alltoall (scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
  for (int s = 0; s < n; s++)
    {
      rdisp[s] = (int) rtotal;
      rtotal += rcount[s];
    }
  sbuf = g_malloc (MAX (stotal, 1));
  rbuf = g_malloc (MAX (rtotal, 1));
  for (int d = 0; d < n; d++)
    {
      if (scount[d])
        memcpy (sbuf + sdisp[d], out[0][d]->data, scount[d]);
      /* the caller is done with its buffers: release them now to keep the peak low */
      if (out[0][d])
        g_clear_pointer (&out[0][d], g_byte_array_unref);
    }
  MPI_Alltoallv (sbuf, scount, sdisp, MPI_BYTE, rbuf, rcount, rdisp, MPI_BYTE, MPI_COMM_WORLD);
  g_clear_pointer (&sbuf, g_free);
  for (int s = 0; s < n; s++)
    {
      GByteArray *b = g_byte_array_sized_new (rcount[s]);
      if (rcount[s])
        g_byte_array_append (b, rbuf + rdisp[s], rcount[s]);
      in[0][s] = b;
    }
  return TRUE;
}

static MPI_Comm
comm_for (Transport *t,
          guint      key,
          const int *members,
          int        n_members)
{
  MpiPriv *p = t->priv;
  int pos = -1;

  /* every process asks for the same keys in the same order (transport contract) */
  if (p->have_comm && p->comm_key == key)
    return p->comm;
  if (p->have_comm && p->comm != MPI_COMM_NULL)
    MPI_Comm_free (&p->comm);
  for (int m = 0; m < n_members; m++)
    if (members[m] == p->me)
      pos = m;
  MPI_Comm_split (MPI_COMM_WORLD, pos >= 0 ? 0 : MPI_UNDEFINED, pos, &p->comm);
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

  if (c == MPI_COMM_NULL || !vals[0])
    return;
  for (gsize off = 0; off < count; off += CHUNK)
    MPI_Allreduce (MPI_IN_PLACE, vals[0] + off, (int) MIN (CHUNK, count - off), MPI_INT64_T,
                   MPI_MAX, c);
}

static void
mpi_scan_max (Transport  *t,
              guint       key,
              const int  *members,
              int         n_members,
              gint64    **vals,
              gsize       count)
{
  MPI_Comm c = comm_for (t, key, members, n_members);

  if (c == MPI_COMM_NULL || !vals[0])
    return;
  for (gsize off = 0; off < count; off += CHUNK)
    MPI_Scan (MPI_IN_PLACE, vals[0] + off, (int) MIN (CHUNK, count - off), MPI_INT64_T,
              MPI_MAX, c);
}

static void
mpi_gather (Transport   *t,
            GByteArray **out,
            GPtrArray  **root_in)
{
  MpiPriv *p = t->priv;
  int n = t->n_ranks;
  int len = (int) out[0]->len;
  g_autofree int *lens = g_new0 (int, n);
  g_autofree int *disp = g_new0 (int, n);
  g_autofree guint8 *buf = NULL;
  gsize total = 0;

  lazy_barrier ();
  MPI_Gather (&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (p->me == 0)
    {
      for (int r = 0; r < n; r++)
        {
          disp[r] = (int) total;
          total += lens[r];
        }
      buf = g_malloc (MAX (total, 1));
    }
  MPI_Gatherv (out[0]->data, len, MPI_BYTE, buf, lens, disp, MPI_BYTE, 0, MPI_COMM_WORLD);
  *root_in = NULL;
  if (p->me == 0)
    {
      GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
      for (int r = 0; r < n; r++)
        {
          GByteArray *b = g_byte_array_sized_new (lens[r]);
          g_byte_array_append (b, buf + disp[r], lens[r]);
          g_ptr_array_add (all, b);
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

/* Frees the buffers of the sends that have completed. */
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
      g_array_index (p->msg_req, MPI_Request, k) = *r;
      p->msg_out->pdata[k] = p->msg_out->pdata[i];
      k++;
    }
  g_array_set_size (p->msg_req, k);
  p->msg_out->pdata[k] = NULL;
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
  MPI_Isend (data, (int) len, MPI_BYTE, dst, 0, p->msg_comm, &r);
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
  lazy_barrier ();
  MPI_Comm_free (&p->msg_comm);
}

static void
mpi_free (Transport *t)
{
  MpiPriv *p = t->priv;
  if (p->have_comm && p->comm != MPI_COMM_NULL)
    MPI_Comm_free (&p->comm);
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
  p->comm = MPI_COMM_NULL;
  t->priv = p;
  t->n_ranks = n_ranks;
  t->n_local = 1;
  t->local_ranks = g_new (int, 1);
  t->local_ranks[0] = p->me;
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
  return t;
}
