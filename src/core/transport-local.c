/* transport-local.c — the in-process message layer: every rank lives in this process (the
 * in-process mode, --serial), so each exchange is a hand-over between the ranks' buffers. Same contract as the MPI
 * transport, so the replay code cannot tell them apart (and the results are identical). */
#include "analyze-private.h"

#include <string.h>

static gboolean
local_alltoallv (Transport   *t,
                 GByteArray ***out,
                 GByteArray ***in,
                 GError     **error G_GNUC_UNUSED)
{
  /* the senders never touch their buffers again: hand them over instead of copying */
  for (int dst = 0; dst < t->n_ranks; dst++)
    for (int src = 0; src < t->n_ranks; src++)
      in[dst][src] = out[src][dst] ? g_byte_array_ref (out[src][dst]) : g_byte_array_new ();
  return TRUE;
}

static void
local_allreduce_max (Transport  *t G_GNUC_UNUSED,
                     guint       key G_GNUC_UNUSED,
                     const int  *members,
                     int         n_members,
                     gint64    **vals,
                     gsize       count)
{
  g_autofree gint64 *acc = g_new (gint64, MAX (count, 1));

  for (gsize k = 0; k < count; k++)
    acc[k] = G_MININT64;
  for (int m = 0; m < n_members; m++)
    {
      gint64 *v = vals[members[m]];
      if (!v)
        continue;
      for (gsize k = 0; k < count; k++)
        acc[k] = MAX (acc[k], v[k]);
    }
  for (int m = 0; m < n_members; m++)
    if (vals[members[m]])
      memcpy (vals[members[m]], acc, count * sizeof (gint64));
}

static void
local_scan_max (Transport  *t G_GNUC_UNUSED,
                guint       key G_GNUC_UNUSED,
                const int  *members,
                int         n_members,
                gint64    **vals,
                gsize       count)
{
  gint64 *prev = NULL;

  for (int m = 0; m < n_members; m++)
    {
      gint64 *v = vals[members[m]];
      if (!v)
        continue;
      if (prev)
        for (gsize k = 0; k < count; k++)
          v[k] = MAX (v[k], prev[k]);
      prev = v;
    }
}

static void
local_gather (Transport   *t,
              GByteArray **out,
              GPtrArray  **root_in)
{
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);

  for (int r = 0; r < t->n_ranks; r++)
    g_ptr_array_add (all, g_byte_array_ref (out[r]));
  *root_in = all;
}

static void
local_free (Transport *t)
{
  replay_threads_free (t);
  g_free (t->local_ranks);
  g_free (t);
}

Transport *
transport_local_new (int n_ranks)
{
  Transport *t = g_new0 (Transport, 1);

  t->n_ranks = n_ranks;
  t->n_local = n_ranks;
  t->local_ranks = g_new (int, n_ranks);
  for (int r = 0; r < n_ranks; r++)
    t->local_ranks[r] = r;
  t->alltoallv = local_alltoallv;
  t->allreduce_max = local_allreduce_max;
  t->scan_max = local_scan_max;
  t->gather = local_gather;
  t->free = local_free;
  t->n_threads = 1;
  return t;
}

gboolean
transport_is_root (Transport *t)
{
  return t->n_local > 0 && t->local_ranks[0] == 0;
}
