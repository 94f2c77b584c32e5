/* test-transport-blocks — the MPI transport when each process holds a block of ranks (the
 * parallel replay with fewer processes than traced ranks, --parallel=N): every exchange must
 * give each rank what the in-process transport gives it. Run under mpirun with fewer processes
 * than N_RANKS (the test's meson entry uses 3: blocks of 2, 2 and 3 ranks). The communicators
 * include one whose order is against the world's and one whose members of one process are not
 * consecutive in it (the scan's gathered path). Exit 0 pass, 1 fail. */
#include "analyze-private.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N_RANKS 7
#define COUNT   3

static int failures;

static gint64
value (int rank,
       int comm,
       gsize k)
{
  /* distinct, unordered: a prefix max differs from the values and from the total max */
  return (gint64) ((rank * 7919 + comm * 104729 + (int) k * 31) % 1009) - 500;
}

static void
check (gboolean    ok,
       const char *what,
       int         rank)
{
  if (!ok)
    {
      failures++;
      fprintf (stderr, "FAIL: %s on rank %d\n", what, rank);
    }
}

/* Runs allreduce_max (@scan FALSE) or scan_max over @members on both transports and compares
 * every local rank of @t with the in-process result. Ranks listed in @absent have no values. */
static void
compare_collective (Transport  *t,
                    Transport  *lt,
                    guint       key,
                    const int  *members,
                    int         n_members,
                    int         absent,
                    gboolean    scan)
{
  gint64 *ref[N_RANKS] = { 0 };
  gint64 **mine = g_new0 (gint64 *, MAX (t->n_local, 1));

  for (int m = 0; m < n_members; m++)
    {
      int r = members[m];
      if (r == absent)
        continue;
      ref[r] = g_new (gint64, COUNT);
      for (gsize k = 0; k < COUNT; k++)
        ref[r][k] = value (r, (int) key, k);
    }
  for (int i = 0; i < t->n_local; i++)
    if (ref[t->local_ranks[i]])
      mine[i] = g_memdup2 (ref[t->local_ranks[i]], COUNT * sizeof (gint64));
  if (scan)
    {
      lt->scan_max (lt, key, members, n_members, ref, COUNT);
      t->scan_max (t, key, members, n_members, mine, COUNT);
    }
  else
    {
      lt->allreduce_max (lt, key, members, n_members, ref, COUNT);
      t->allreduce_max (t, key, members, n_members, mine, COUNT);
    }
  for (int i = 0; i < t->n_local; i++)
    {
      int r = t->local_ranks[i];
      check ((mine[i] == NULL) == (ref[r] == NULL)
             && (!mine[i] || memcmp (mine[i], ref[r], COUNT * sizeof (gint64)) == 0),
             scan ? "scan_max" : "allreduce_max", r);
      g_free (mine[i]);
    }
  for (int r = 0; r < N_RANKS; r++)
    g_free (ref[r]);
  g_free (mine);
}

int
main (int    argc,
      char **argv)
{
  int me, np, all_failures = 0;
  Transport *t, *lt;
  /* world order; reversed; one whose members on the last process (ranks 4..6) are not
   * consecutive in it; a subset without process 1's ranks */
  const int world[] = { 0, 1, 2, 3, 4, 5, 6 };
  const int reversed[] = { 6, 5, 4, 3, 2, 1, 0 };
  const int interleaved[] = { 4, 0, 5, 2, 6 };
  const int subset[] = { 5, 0, 1 };

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &np);
  t = transport_mpi_new (N_RANKS);
  lt = transport_local_new (N_RANKS);

  /* the blocks: consecutive, covering, owner() agrees */
  for (int i = 0; i < t->n_local; i++)
    check (transport_mpi_owner (N_RANKS, np, t->local_ranks[i]) == me
           && (i == 0 || t->local_ranks[i] == t->local_ranks[i - 1] + 1), "block", t->local_ranks[i]);

  /* the same keys in the same order on every process; a key's communicator is reused by
   * both collectives */
  for (int scan = 0; scan < 2; scan++)
    {
      compare_collective (t, lt, 1, world, 7, -1, scan);
      compare_collective (t, lt, 2, reversed, 7, 3, scan);
      compare_collective (t, lt, 3, interleaved, 5, -1, scan);
      compare_collective (t, lt, 4, interleaved, 5, 5, scan);
      compare_collective (t, lt, 5, subset, 3, -1, scan);
    }

  /* alltoallv: rank s sends rank d (s·N + d) % 5 bytes of value s·16 + d (none when 0) */
  {
    GByteArray ***out = g_new0 (GByteArray **, t->n_local);
    GByteArray ***in = g_new0 (GByteArray **, t->n_local);
    g_autoptr (GError) error = NULL;
    for (int i = 0; i < t->n_local; i++)
      {
        int s = t->local_ranks[i];
        out[i] = g_new0 (GByteArray *, N_RANKS);
        in[i] = g_new0 (GByteArray *, N_RANKS);
        for (int d = 0; d < N_RANKS; d++)
          {
            guint len = (guint) ((s * N_RANKS + d) % 5);
            out[i][d] = g_byte_array_new ();
            for (guint b = 0; b < len; b++)
              {
                guint8 v = (guint8) (s * 16 + d);
                g_byte_array_append (out[i][d], &v, 1);
              }
          }
      }
    check (t->alltoallv (t, out, in, &error), "alltoallv", me);
    for (int i = 0; i < t->n_local; i++)
      {
        int d = t->local_ranks[i];
        for (int s = 0; s < N_RANKS; s++)
          {
            guint len = (guint) ((s * N_RANKS + d) % 5);
            gboolean ok = in[i][s] && in[i][s]->len == len;
            for (guint b = 0; ok && b < len; b++)
              ok = in[i][s]->data[b] == (guint8) (s * 16 + d);
            check (ok, "alltoallv bytes", d);
          }
        for (int r = 0; r < N_RANKS; r++)
          {
            /* the transport may have released it (Transport.alltoallv) */
            if (out[i][r])
              g_byte_array_unref (out[i][r]);
            if (in[i][r])
              g_byte_array_unref (in[i][r]);
          }
        g_free (out[i]);
        g_free (in[i]);
      }
    g_free (out);
    g_free (in);
  }

  /* gather: rank r's blob is r + 1 bytes of value r; rank 0 gets them in rank order */
  {
    GByteArray **out = g_new0 (GByteArray *, MAX (t->n_local, 1));
    GPtrArray *all = NULL;
    for (int i = 0; i < t->n_local; i++)
      {
        int r = t->local_ranks[i];
        out[i] = g_byte_array_new ();
        for (int b = 0; b <= r; b++)
          {
            guint8 v = (guint8) r;
            g_byte_array_append (out[i], &v, 1);
          }
      }
    t->gather (t, out, &all);
    if (me == 0)
      {
        check (all && all->len == N_RANKS, "gather count", 0);
        for (guint r = 0; all && r < all->len; r++)
          {
            GByteArray *b = all->pdata[r];
            check (b->len == r + 1 && b->data[0] == r && b->data[r] == r, "gather blob", (int) r);
          }
      }
    else
      check (all == NULL, "gather off the root", me);
    if (all)
      g_ptr_array_unref (all);
    for (int i = 0; i < t->n_local; i++)
      g_byte_array_unref (out[i]);
    g_free (out);
  }

  /* the message-driven replay's sends: 600 from process 0 to a rank of process 1 before it
   * receives any, small ones (complete at once) between large ones (pending until received),
   * so the sender frees the completed buffers while others are pending (msg_reap, from 256
   * pending sends on); every message arrives whole and in order */
  {
    enum { N_MSGS = 600, SMALL = 16, LARGE = 256 * 1024 };
    int to = -1;
    for (int r = 0; r < N_RANKS && to < 0; r++)
      if (transport_mpi_owner (N_RANKS, np, r) == 1)
        to = r;
    t->msg_begin (t);
    if (me == 0 && to >= 0)
      for (guint32 k = 0; k < N_MSGS; k++)
        {
          gsize   len = k % 2 ? LARGE : SMALL;
          guint8 *buf = g_malloc (len);
          memset (buf, (int) (k & 0xff), len);
          memcpy (buf, &k, sizeof k);
          t->msg_send (t, to, g_bytes_new_take (buf, len));
        }
    MPI_Barrier (MPI_COMM_WORLD);
    if (me == 1)
      for (guint32 k = 0; k < N_MSGS; k++)
        {
          int     src = -1, dst = -1;
          GBytes *b = t->msg_recv (t, &src, &dst, TRUE);
          gsize   len = 0;
          const guint8 *d = g_bytes_get_data (b, &len);
          guint32 got = G_MAXUINT32;
          gboolean ok = len == (k % 2 ? LARGE : SMALL) && src == 0;
          if (ok)
            memcpy (&got, d, sizeof got);
          ok = ok && got == k && d[len - 1] == (guint8) (k & 0xff) && d[len / 2] == (guint8) (k & 0xff);
          check (ok, "message-driven sends: whole and in order", (int) k);
          g_bytes_unref (b);
        }
    t->msg_end (t);
  }

  MPI_Allreduce (&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf ("%d processes, %d ranks: %s\n", np, N_RANKS, all_failures ? "FAIL" : "ok");
  t->free (t);
  lt->free (lt);
  MPI_Finalize ();
  return all_failures ? 1 : 0;
}
