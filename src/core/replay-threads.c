/* replay-threads.c — "for each local rank, in parallel": the replay is bulk-synchronous over
 * the ranks a process holds (the transport exchanges between phases, always from the calling
 * thread), so the per-rank work of a phase — reading a rank's events, matching its messages,
 * its pattern passes, its serialization — runs on the transport's threads.
 *
 * A phase's function may touch only its own rank's state (RankData, its slot of the phase's
 * arrays) and read what is shared (TraceDefs, the received buffers); results are merged after
 * the call in rank order, so every thread count gives the same report, value for value. */
#include "analyze-private.h"

typedef struct
{
  ReplayRankFunc fn;
  gpointer       data;
  const int     *order;   /* local indices, largest work first; NULL: 0..n-1 */
  int            n;
  gint           next;    /* atomic: the next position to take */
  int            helpers; /* pool threads still working (under lock) */
  GMutex         lock;
  GCond          done;
} ForEach;

static void
take_ranks (ForEach *fe)
{
  int k;
  while ((k = g_atomic_int_add (&fe->next, 1)) < fe->n)
    fe->fn (fe->order ? fe->order[k] : k, fe->data);
}

static void
helper (gpointer task,
        gpointer pool_data G_GNUC_UNUSED)
{
  ForEach *fe = task;
  take_ranks (fe);
  g_mutex_lock (&fe->lock);
  if (--fe->helpers == 0)
    g_cond_signal (&fe->done);
  g_mutex_unlock (&fe->lock);
}

void
replay_for_each_local (Transport      *t,
                       ReplayRankFunc  fn,
                       gpointer        data)
{
  int threads = MIN (t->n_threads, t->n_local);
  ForEach fe = { 0 };

  if (threads <= 1)
    {
      for (int k = 0; k < t->n_local; k++)
        fn (t->rank_order ? t->rank_order[k] : k, data);
      return;
    }
  if (!t->pool)
    {
      /* the caller works too: one thread less in the pool */
      t->pool = g_thread_pool_new (helper, NULL, t->n_threads - 1, TRUE, NULL);
      if (!t->pool)
        {
          t->n_threads = 1;
          replay_for_each_local (t, fn, data);
          return;
        }
    }
  fe.fn = fn;
  fe.data = data;
  fe.order = t->rank_order;
  fe.n = t->n_local;
  fe.helpers = threads - 1;
  g_mutex_init (&fe.lock);
  g_cond_init (&fe.done);
  for (int h = 0; h < threads - 1; h++)
    g_thread_pool_push (t->pool, &fe, NULL);
  take_ranks (&fe);
  g_mutex_lock (&fe.lock);
  while (fe.helpers > 0)
    g_cond_wait (&fe.done, &fe.lock);
  g_mutex_unlock (&fe.lock);
  g_mutex_clear (&fe.lock);
  g_cond_clear (&fe.done);
}

void
replay_threads_set (Transport *t,
                    int        n_threads)
{
  if (t->pool && n_threads != t->n_threads)
    g_clear_pointer (&t->pool, replay_threads_stop);
  t->n_threads = MAX (n_threads, 1);
}

static gint
by_work (gconstpointer a,
         gconstpointer b,
         gpointer      data)
{
  const guint64 *work = data;
  int x = *(const int *) a, y = *(const int *) b;
  if (work[x] != work[y])
    return work[x] > work[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

void
replay_threads_order (Transport     *t,
                      const guint64 *work)
{
  g_free (t->rank_order);
  t->rank_order = NULL;
  if (!work || t->n_local <= 1)
    return;
  /* longest first: the last rank taken is a short one, so no thread idles long at the end */
  t->rank_order = g_new (int, t->n_local);
  for (int i = 0; i < t->n_local; i++)
    t->rank_order[i] = i;
  g_qsort_with_data (t->rank_order, t->n_local, sizeof (int), by_work, (gpointer) work);
}

void
replay_threads_stop (GThreadPool *pool)
{
  g_thread_pool_free (pool, FALSE, TRUE);
}

void
replay_threads_free (Transport *t)
{
  if (t->pool)
    g_clear_pointer (&t->pool, replay_threads_stop);
  g_clear_pointer (&t->rank_order, g_free);
}
