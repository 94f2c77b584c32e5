/* delay-timemap.c — time maps over a rank's timeline: the time each call path spent between
 * two synchronization points, and the identity of a call path across ranks. */
#include "delay-private.h"

#include <string.h>

/* A call path's identity on every rank: a hash of its region path from the root (region ids
 * are global definitions). */
guint64
delay_cnode_key (RankData *rd,
                 guint32   cnode)
{
  Causes *c = rd->causes;
  guint64 *keys;
  const LocalCnode *n;
  guint64 parent, h;

  if (c->keys->len < rd->cnodes->len)
    {
      guint old = c->keys->len;
      g_array_set_size (c->keys, rd->cnodes->len);
      for (guint k = old; k < c->keys->len; k++)
        g_array_index (c->keys, guint64, k) = 0;
    }
  keys = (guint64 *) c->keys->data;
  if (keys[cnode])
    return keys[cnode];
  n = &g_array_index (rd->cnodes, LocalCnode, cnode);
  parent = n->parent == NO_INDEX ? G_GUINT64_CONSTANT (0x6b75627573) : delay_cnode_key (rd, n->parent);
  /* splitmix64 of the parent's key and the region */
  h = parent ^ ((guint64) n->region * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  h += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  h = (h ^ (h >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  h = (h ^ (h >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  h ^= h >> 31;
  keys[cnode] = h ? h : 1;
  return keys[cnode];
}

void
timemap_init (TimeMap *m)
{
  m->e = g_array_new (FALSE, FALSE, sizeof (TmEntry));
  m->sum = 0;
}

void
timemap_clear (TimeMap *m)
{
  if (m->e)
    g_array_unref (m->e);
  m->e = NULL;
  m->sum = 0;
}

static gint
tm_cmp (gconstpointer a,
        gconstpointer b)
{
  const TmEntry *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}

double
timemap_get (const TimeMap *m,
             guint64        key)
{
  const TmEntry *e = (const TmEntry *) m->e->data;
  guint lo = 0, hi = m->e->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (e[mid].key < key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < m->e->len && e[lo].key == key ? e[lo].t : 0.0;
}

void
timemap_runtimes (RankData *rd,
                  gint64    from,
                  gint64    to,
                  TimeMap  *out)
{
  Causes *c = rd->causes;
  DelayTimeline *tl = c->tl;
  const DelayMark *marks = tl->marks;
  guint32 a = from < 0 ? 0 : marks[from].seg_end;
  guint32 b = to < 0 || to == NO_INDEX ? tl->tail_end : marks[to].seg_end;
  const DelaySeg *seg = tl->seg;
  guint32 n = 0;

  /* the caller's map, emptied (its array reused: one of these per wait) */
  if (out->e)
    g_array_set_size (out->e, 0);
  else
    out->e = g_array_new (FALSE, FALSE, sizeof (TmEntry));
  out->sum = 0;
  /* dense accumulation over the call paths touched, then a sparse map */
  for (guint32 k = a; k < b; k++)
    {
      guint32 cn = seg[k].cnode;
      if (cn >= c->n_scratch)
        continue;
      if (!c->in_t[cn])
        {
          c->in_t[cn] = 1;
          c->list_t[n++] = cn;
        }
      c->acc_t[cn] += (double) seg[k].t;
    }
  g_array_set_size (out->e, n);
  for (guint32 k = 0; k < n; k++)
    {
      TmEntry *e = &g_array_index (out->e, TmEntry, k);
      guint32 cn = c->list_t[k];
      e->key = delay_cnode_key (rd, cn);
      e->cnode = cn;
      e->pad = 0;
      e->t = c->acc_t[cn];
      c->acc_t[cn] = 0.0;
      c->in_t[cn] = 0;
    }
  /* by key; most maps hold a few entries (a message ring: one or two), where an insertion
   * sort costs a fraction of g_array_sort's set-up (both are stable: the same order) */
  if (n <= 16)
    {
      TmEntry *e = (TmEntry *) out->e->data;
      for (guint32 k = 1; k < n; k++)
        {
          TmEntry x = e[k];
          guint32 j = k;
          for (; j > 0 && e[j - 1].key > x.key; j--)
            e[j] = e[j - 1];
          e[j] = x;
        }
    }
  else
    g_array_sort (out->e, tm_cmp);
  out->sum = 0;
  for (guint k = 0; k < out->e->len; k++)
    out->sum += g_array_index (out->e, TmEntry, k).t;
}
