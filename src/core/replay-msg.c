/* replay-msg.c — the message-driven replay (replay-msg.h). */
#include "replay-msg.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sched.h>

typedef struct
{
  gint32  src;
  guint64 key;
} InKey;

static guint
inkey_hash (gconstpointer p)
{
  const InKey *k = p;
  guint64 h = (k->key ^ ((guint64) (guint32) k->src << 40)) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  return (guint) (h >> 32);
}

static gboolean
inkey_equal (gconstpointer a,
             gconstpointer b)
{
  const InKey *x = a, *y = b;
  return x->src == y->src && x->key == y->key;
}

typedef struct
{
  GHashTable *inbox;      /* InKey -> GBytes */
  gboolean    waiting;
  InKey       wait;       /* the message the rank stopped at */
  gboolean    done;
  gboolean    queued;
} Slot;

struct _MsgReplay
{
  Transport   *t;
  Slot        *slots;
  int         *local_of;  /* world rank -> local index, -1 elsewhere */
  GQueue       ready;
  GByteArray **outbox;    /* per world rank in another process: messages not sent yet */
  guint64      sent;      /* batches to other processes */
  guint64      received;  /* from other processes */
  guint64      count;     /* all messages */
};

/* Messages to another process go in batches: each message a header and its bytes. A batch
 * leaves when nothing here can run any more (the other side may be waiting for it) or when it
 * is large; one MPI message per batch, not per replay message, keeps a replay over MPI from
 * being one network latency per recorded message. */
#define BATCH_BYTES (256 * 1024)

typedef struct
{
  gint32  src;
  gint32  dst;
  guint64 key;
  guint64 len;
} Header;

GByteArray ***
replay_buffers_new (Transport *t)
{
  GByteArray ***b = g_new0 (GByteArray **, t->n_local);
  for (int i = 0; i < t->n_local; i++)
    b[i] = g_new0 (GByteArray *, t->n_ranks);
  return b;
}

void
replay_buffers_free (Transport    *t,
                     GByteArray ***b)
{
  for (int i = 0; i < t->n_local; i++)
    {
      for (int r = 0; r < t->n_ranks; r++)
        if (b[i][r])
          g_byte_array_unref (b[i][r]);
      g_free (b[i]);
    }
  g_free (b);
}

MsgReplay *
msg_replay_new (Transport *t)
{
  MsgReplay *mr = g_new0 (MsgReplay, 1);

  mr->t = t;
  mr->slots = g_new0 (Slot, t->n_local);
  mr->local_of = g_new (int, t->n_ranks);
  for (int r = 0; r < t->n_ranks; r++)
    mr->local_of[r] = -1;
  for (int i = 0; i < t->n_local; i++)
    {
      mr->slots[i].inbox = g_hash_table_new_full (inkey_hash, inkey_equal, g_free, (GDestroyNotify) g_bytes_unref);
      mr->local_of[t->local_ranks[i]] = i;
    }
  g_queue_init (&mr->ready);
  mr->outbox = g_new0 (GByteArray *, t->n_ranks);
  if (t->msg_begin)
    t->msg_begin (t);
  return mr;
}

void
msg_replay_free (MsgReplay *mr)
{
  if (!mr)
    return;
  for (int i = 0; i < mr->t->n_local; i++)
    g_hash_table_unref (mr->slots[i].inbox);
  g_free (mr->slots);
  g_free (mr->local_of);
  for (int r = 0; r < mr->t->n_ranks; r++)
    if (mr->outbox[r])
      g_byte_array_unref (mr->outbox[r]);
  g_free (mr->outbox);
  g_queue_clear (&mr->ready);
  g_free (mr);
}

guint64
msg_replay_count (MsgReplay *mr)
{
  return mr->count;
}

static void
make_ready (MsgReplay *mr,
            int        i)
{
  Slot *s = &mr->slots[i];
  if (s->queued || s->done)
    return;
  s->queued = TRUE;
  g_queue_push_tail (&mr->ready, GINT_TO_POINTER (i));
}

static void
deliver (MsgReplay *mr,
         int        i,
         gint32     src,
         guint64    key,
         GBytes    *msg)
{
  Slot *s = &mr->slots[i];
  InKey *k = g_new (InKey, 1);

  k->src = src;
  k->key = key;
  g_hash_table_replace (s->inbox, k, msg);
  if (s->waiting && s->wait.src == src && s->wait.key == key)
    {
      s->waiting = FALSE;
      make_ready (mr, i);
    }
}

static void
flush_one (MsgReplay *mr,
           int        dst)
{
  GByteArray *b = mr->outbox[dst];
  if (!b || b->len == 0)
    return;
  mr->outbox[dst] = NULL;
  mr->t->msg_send (mr->t, dst, g_byte_array_free_to_bytes (b));
  mr->sent++;
}

static void
flush_all (MsgReplay *mr)
{
  for (int r = 0; r < mr->t->n_ranks; r++)
    flush_one (mr, r);
}

void
msg_replay_send (MsgReplay  *mr,
                 int         from_local,
                 int         dst,
                 guint64     key,
                 const void *data,
                 gsize       len)
{
  Transport *t = mr->t;
  gint32 src = t->local_ranks[from_local];

  mr->count++;
  if (dst < 0 || dst >= t->n_ranks)
    return;
  if (mr->local_of[dst] >= 0)
    deliver (mr, mr->local_of[dst], src, key, g_bytes_new (data, len));
  else
    {
      Header h = { src, dst, key, len };
      if (!mr->outbox[dst])
        mr->outbox[dst] = g_byte_array_new ();
      g_byte_array_append (mr->outbox[dst], (const guint8 *) &h, sizeof h);
      if (len)
        g_byte_array_append (mr->outbox[dst], data, len);
      if (mr->outbox[dst]->len >= BATCH_BYTES)
        flush_one (mr, dst);
    }
}

static GBytes *
lookup (MsgReplay *mr,
        int        local,
        int        src,
        guint64    key,
        gboolean   take)
{
  Slot *s = &mr->slots[local];
  InKey k = { src, key };
  gpointer orig, v;

  if (!g_hash_table_lookup_extended (s->inbox, &k, &orig, &v))
    {
      s->waiting = TRUE;
      s->wait = k;
      return NULL;
    }
  if (!take)
    return v;
  g_hash_table_steal (s->inbox, &k);
  g_free (orig);
  return v;
}

GBytes *
msg_replay_peek (MsgReplay *mr,
                 int        local,
                 int        src,
                 guint64    key)
{
  return lookup (mr, local, src, key, FALSE);
}

GBytes *
msg_replay_take (MsgReplay *mr,
                 int        local,
                 int        src,
                 guint64    key)
{
  return lookup (mr, local, src, key, TRUE);
}

/* A batch from another process: each message to its local rank. */
static void
incoming (MsgReplay *mr,
          GBytes    *raw)
{
  gsize len, off = 0;
  const guint8 *p = g_bytes_get_data (raw, &len);
  Header h;

  mr->received++;
  while (off + sizeof h <= len)
    {
      memcpy (&h, p + off, sizeof h);
      off += sizeof h;
      if (h.len > len - off)
        break;
      if (h.dst >= 0 && h.dst < mr->t->n_ranks && mr->local_of[h.dst] >= 0)
        deliver (mr, mr->local_of[h.dst], h.src, h.key, g_bytes_new_from_bytes (raw, off, (gsize) h.len));
      off += (gsize) h.len;
    }
  g_bytes_unref (raw);
}

/* Where processes outnumber cores, a process with nothing to run must leave its core to the
 * one it waits for. It yields for the first YIELD_US after its last message, then naps.
 * Yielding first: a backward replay runs many short waits in a row (on a message ring every
 * step crosses processes), and a nap costs its length plus the timer's slack at each of them
 * (50 µs asked, 50–80 µs slept in a virtual machine): the MPI replay of the flood trace, 4
 * processes on 2 cores, took 4.3–4.9 s napping, 1.5–1.7 s yielding first. Napping after: a
 * process that waits long (a slow rank, a loaded machine) stops taking CPU time from others. */
#define YIELD_US 2000

static void
idle (gint64                *idle_since,
      const struct timespec *nap)
{
  gint64 now = g_get_monotonic_time ();

  if (*idle_since < 0)
    *idle_since = now;
  if (now - *idle_since < YIELD_US)
    sched_yield ();
  else
    nanosleep (nap, NULL);
}

gboolean
msg_replay_run (MsgReplay *mr,
                MsgStep    step,
                gpointer   user,
                gboolean  *stuck,
                GError   **error G_GNUC_UNUSED)
{
  Transport *t = mr->t;
  int n_done = 0;
  gint64 prev[3] = { -1, -1, -1 };
  gboolean wave = FALSE;
  gint64 idle_since = -1;
  struct timespec nap = { 0, 50000 };

  *stuck = FALSE;
  for (int i = 0; i < t->n_local; i++)
    make_ready (mr, i);
  for (;;)
    {
      while (!g_queue_is_empty (&mr->ready))
        {
          int i = GPOINTER_TO_INT (g_queue_pop_head (&mr->ready));
          Slot *s = &mr->slots[i];
          s->queued = FALSE;
          if (s->done)
            continue;
          if (step (mr, i, user))
            {
              s->done = TRUE;
              s->waiting = FALSE;
              n_done++;
            }
          else if (!s->waiting)
            make_ready (mr, i);   /* it stopped without naming a message: run it again */
        }
      if (!t->msg_recv)
        {
          /* every rank is here: nobody can run any more */
          if (n_done < t->n_local)
            *stuck = TRUE;
          break;
        }
      /* other processes: ours to them first (they may wait for them), then theirs, and the
       * termination wave once nothing can run here */
      flush_all (mr);
      {
        int src, dst;
        GBytes *m = t->msg_recv (t, &src, &dst, FALSE);
        if (m)
          {
            idle_since = -1;
            incoming (mr, m);
            continue;
          }
      }
      {
        gint64 mine[3] = { (gint64) mr->sent, (gint64) mr->received, n_done };
        gint64 all[3];
        int r = t->msg_wave (t, wave ? NULL : mine, all);
        if (r == 0)
          {
            wave = TRUE;
            if (!t->msg_spin)
              idle (&idle_since, &nap);
            continue;
          }
        wave = FALSE;
        if (all[0] == all[1])
          {
            if (all[2] == t->n_ranks)
              break;
            if (prev[0] == all[0] && prev[1] == all[1] && prev[2] == all[2])
              {
                *stuck = TRUE;
                break;
              }
          }
        prev[0] = all[0];
        prev[1] = all[1];
        prev[2] = all[2];
      }
    }
  if (t->msg_end)
    t->msg_end (t);
  if (g_getenv ("KUBUS_ANALYZE_TIMING") && t->msg_recv)
    fprintf (stderr, "replay-msg: rank %d: %" G_GUINT64_FORMAT " messages, %" G_GUINT64_FORMAT
             " batches sent, %" G_GUINT64_FORMAT " received\n", t->local_ranks[0], mr->count, mr->sent,
             mr->received);
  return TRUE;
}
