/* kct-fold.c: the per-rank recorder — events become leaves, leaves become loops.
 *
 * Events of one MPI call (Enter … Leave) make one leaf; each leaf arrives as an *atom* at the
 * folder, which keeps the rank's sequence as a queue of elements and folds its tail:
 *   - an element equal to the one before it adds its count to it (a×3, a → a×4);
 *   - a window of k elements equal to the k before it becomes a body repeated twice;
 *   - a window equal to the body of the element before it adds one iteration to it.
 * Folding cascades, so nested loops become loops of loops.  Once the tail is a loop, the next
 * atoms are compared against its body one by one (the "expectation"): a loop in steady state
 * costs one comparison per atom, and a completed iteration only increments a count.  On a
 * mismatch the atoms matched so far go through the general rules.  Where the general rules
 * would fold at a completed iteration or close an outer loop with the next atom, the
 * expectation notes it when armed and defers to them; what remains (an inner loop's next
 * iteration taken where an outer window of two or more atoms would close) changes the shape
 * of the structure, never its expansion (tests/kct: 9 of 2000 random nestings, sizes within
 * 0.1 %).
 *
 * Memory is bounded by the loop structure of the program: leaves, bodies and histograms
 * are interned, and the queue grows only with what does not repeat.
 */
#include "kct-format.h"

#include <stdlib.h>
#include <string.h>

#define WINDOW 256 /* how far back the general rules look, in queue elements */
#define HOT_ANY UINT32_MAX

typedef struct
{
  uint32_t body, pos, done;
} Frame;

struct KctRank
{
  KctTrace *t;
  uint32_t  group;
  uint32_t  rank;
  int       failed;
  uint8_t  *rflags;
  uint32_t  n_rflags;

  /* the leaf being assembled */
  KctRaw   *buf;
  uint64_t *buf_t;
  uint32_t  n_buf, cap_buf;
  int       depth; /* > 0 while an MPI call is open */
  uint64_t  t_start;

  /* timing: the rank's timeline, times relative to its first event */
  KctGrid      grid;
  KctTimeCoder tc;
  uint64_t    *slot_t;
  uint32_t     cap_slot_t;
  int          started;
  uint64_t     first_t, last_t;
  uint64_t     n_events;
  /* the CPU samples (kct_rank_cpu), handed to the trace at the end */
  KctCpuStream cpu;

  /* requests: slot -> request id (0 = free); id -> slot by open addressing */
  uint64_t *slot_req;
  uint32_t  n_slot, cap_slot;
  uint64_t *map_id;
  uint32_t *map_slot;
  uint32_t  map_slots, map_used;

  /* the current run of unsuccessful polls: its calls, start, end, time inside the calls */
  uint32_t poll_leaf;
  uint64_t poll_count;
  uint64_t poll_start, poll_end, poll_in;

  /* folding */
  KctElem *q;
  uint32_t n_q, cap_q;
  int      armed; /* an expectation on q[n_q - 1] */
  Frame   *fr;
  uint32_t n_fr, cap_fr;
  uint64_t matched; /* atoms of the current iteration matched so far */
  /* counts of the tail loop at which a general rule would fire (an equal element or a loop
   * body ending in it within the window); HOT_ANY: check at every count */
  uint32_t hot[8];
  uint32_t n_hot;
  /* (count, atom): when an iteration of the tail loop would start with this atom while the
   * tail has this count, the general rules close a window instead (an outer loop body that
   * ends with the tail loop and the atom) */
  KctElem  closer[8];
  uint32_t n_closer;

  /* cache for the steady state: the leaf a call site made last time (direct-mapped; misses
   * fall back to interning) */
  uint32_t leaf_cache[64];
  int      no_expect; /* tests: general rules only */
};

static int
ensure (void **p, uint32_t *cap, uint32_t need, size_t size)
{
  if (need <= *cap)
    return 0;
  uint64_t c = *cap ? *cap : 16;
  while (c < need)
    c *= 2;
  if (c > UINT32_MAX / 2)
    return -1;
  void *n = realloc (*p, (size_t)c * size);
  if (n == NULL)
    return -1;
  *p = n;
  *cap = (uint32_t)c;
  return 0;
}

KctRank *
kct_rank_new (KctTrace *t, uint32_t rank)
{
  KctRank *r = calloc (1, sizeof *r);
  if (r == NULL)
    return NULL;
  kct_time_defaults (t);
  if (kct_grid_init (&r->grid, t->h.time_abs, t->h.time_bits) != 0)
    {
      free (r);
      return NULL;
    }
  KctGroup *g = kct_group_add (t);
  if (g == NULL || kct_list_add (&g->ranks, rank) != 0)
    {
      kct_grid_clear (&r->grid);
      free (r);
      return NULL;
    }
  kct_tc_encoder (&r->tc, &r->grid);
  r->t = t;
  r->group = t->n_groups - 1;
  r->rank = rank;
  r->poll_leaf = KCT_NONE;
  if (t->h.n_ranks <= rank)
    t->h.n_ranks = rank + 1;
  return r;
}

void
kct_rank_free (KctRank *r)
{
  if (r == NULL)
    return;
  free (r->rflags);
  free (r->buf);
  free (r->buf_t);
  free (r->slot_req);
  free (r->map_id);
  free (r->map_slot);
  free (r->q);
  free (r->fr);
  free (r->slot_t);
  kct_tc_clear (&r->tc);
  kct_grid_clear (&r->grid);
  kct_cpu_clear (&r->cpu);
  free (r);
}

int
kct_rank_region_flags (KctRank *r, uint32_t region, uint8_t flags)
{
  if (region >= r->n_rflags)
    {
      uint32_t n = region + 64;
      uint8_t *f = realloc (r->rflags, n);
      if (f == NULL)
        return -1;
      memset (f + r->n_rflags, 0, n - r->n_rflags);
      r->rflags = f;
      r->n_rflags = n;
    }
  r->rflags[region] = flags;
  return 0;
}

static inline uint8_t
region_flags (const KctRank *r, uint32_t region)
{
  return region < r->n_rflags ? r->rflags[region] : 0;
}

/* ---- request slots ------------------------------------------------------- */

static inline uint32_t
id_home (uint64_t id, uint32_t slots)
{
  return (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 40) & (slots - 1);
}

static int
map_put (KctRank *r, uint64_t id, uint32_t slot);

static int
map_grow (KctRank *r)
{
  uint32_t  old = r->map_slots;
  uint64_t *oid = r->map_id;
  uint32_t *osl = r->map_slot;
  uint32_t  n = old ? old * 2 : 256;
  r->map_id = calloc (n, sizeof *r->map_id);
  r->map_slot = calloc (n, sizeof *r->map_slot);
  if (r->map_id == NULL || r->map_slot == NULL)
    {
      free (r->map_id);
      free (r->map_slot);
      r->map_id = oid;
      r->map_slot = osl;
      return -1;
    }
  r->map_slots = n;
  r->map_used = 0;
  for (uint32_t i = 0; i < old; i++)
    if (oid[i] != 0)
      map_put (r, oid[i], osl[i]);
  free (oid);
  free (osl);
  return 0;
}

static int
map_put (KctRank *r, uint64_t id, uint32_t slot)
{
  if ((r->map_used + 1) * 2 > r->map_slots && map_grow (r) != 0)
    return -1;
  uint32_t s = id_home (id, r->map_slots);
  while (r->map_id[s] != 0 && r->map_id[s] != id)
    s = (s + 1) & (r->map_slots - 1);
  if (r->map_id[s] == 0)
    r->map_used++;
  r->map_id[s] = id;
  r->map_slot[s] = slot;
  return 0;
}

/* Removes @id; returns its slot or KCT_NONE. */
static uint32_t
map_take (KctRank *r, uint64_t id)
{
  if (r->map_slots == 0 || id == 0)
    return KCT_NONE;
  uint32_t s = id_home (id, r->map_slots);
  while (r->map_id[s] != 0 && r->map_id[s] != id)
    s = (s + 1) & (r->map_slots - 1);
  if (r->map_id[s] == 0)
    return KCT_NONE;
  uint32_t slot = r->map_slot[s];
  r->map_id[s] = 0;
  r->map_used--;
  uint32_t j = s;
  for (;;)
    {
      j = (j + 1) & (r->map_slots - 1);
      if (r->map_id[j] == 0)
        break;
      uint32_t home = id_home (r->map_id[j], r->map_slots);
      int      keep = (s <= j) ? (s < home && home <= j) : (s < home || home <= j);
      if (!keep)
        {
          r->map_id[s] = r->map_id[j];
          r->map_slot[s] = r->map_slot[j];
          r->map_id[j] = 0;
          s = j;
        }
    }
  return slot;
}

/* The lowest free slot: the same request pattern gets the same slots in every iteration. */
static uint32_t
slot_open (KctRank *r, uint64_t id)
{
  uint32_t s = 0;
  while (s < r->n_slot && r->slot_req[s] != 0)
    s++;
  if (s == r->n_slot)
    {
      if (ensure ((void **)&r->slot_req, &r->cap_slot, r->n_slot + 1, sizeof *r->slot_req) != 0)
        return KCT_NONE;
      r->n_slot++;
    }
  if (map_put (r, id, s) != 0)
    return KCT_NONE;
  r->slot_req[s] = id != 0 ? id : 1;
  return s;
}

static uint32_t
slot_close (KctRank *r, uint64_t id)
{
  uint32_t s = map_take (r, id);
  if (s != KCT_NONE && s < r->n_slot)
    {
      r->slot_req[s] = 0;
      while (r->n_slot > 0 && r->slot_req[r->n_slot - 1] == 0)
        r->n_slot--;
    }
  return s;
}

/* ---- the folder ----------------------------------------------------------- */

static inline int
elem_eq (KctElem a, KctElem b)
{
  return a.ref == b.ref && a.count == b.count;
}

static int
window_eq (const KctElem *a, const KctElem *b, uint32_t k)
{
  for (uint32_t i = 0; i < k; i++)
    if (!elem_eq (a[i], b[i]))
      return 0;
  return 1;
}

/* The general rules, applied to the tail until nothing changes. */
static int
fold_tail (KctRank *r)
{
  KctTrace *t = r->t;
  for (;;)
    {
      KctElem *q = r->q;
      uint32_t n = r->n_q;
      if (n < 2)
        return 0;
      /* an element with the same ref as the one before it: counts add up */
      if (q[n - 2].ref == q[n - 1].ref && !(q[n - 1].ref & KCT_REF_POLL)
          && (uint64_t)q[n - 2].count + q[n - 1].count <= UINT32_MAX)
        {
          q[n - 2].count += q[n - 1].count;
          r->n_q--;
          continue;
        }
      int changed = 0;
      /* one more iteration of the loop just before the tail window */
      for (uint32_t k = 1; k < n && k <= WINDOW; k++)
        {
          KctElem x = q[n - k - 1];
          if (!(x.ref & KCT_REF_BODY) || t->body_len[KCT_REF_ID (x.ref)] != k
              || x.count == UINT32_MAX)
            continue;
          uint32_t n_body;
          if (window_eq (kct_body (t, KCT_REF_ID (x.ref), &n_body), q + n - k, k))
            {
              q[n - k - 1].count++;
              r->n_q -= k;
              changed = 1;
              break;
            }
        }
      if (changed)
        continue;
      /* two equal windows: a new loop of two iterations */
      for (uint32_t k = 2; 2 * k <= n && k <= WINDOW; k++)
        {
          if (!elem_eq (q[n - 1 - k], q[n - 1]))
            continue;
          if (!window_eq (q + n - 2 * k, q + n - k, k))
            continue;
          uint32_t b = kct_body_intern (t, q + n - k, k);
          if (b == KCT_NONE)
            return -1;
          q = r->q;
          q[n - 2 * k].ref = b | KCT_REF_BODY;
          q[n - 2 * k].count = 2;
          r->n_q = n - 2 * k + 1;
          changed = 1;
          break;
        }
      if (!changed)
        return 0;
    }
}

static int
push_general (KctRank *r, KctElem e)
{
  if (ensure ((void **)&r->q, &r->cap_q, r->n_q + 1, sizeof *r->q) != 0)
    return -1;
  r->q[r->n_q++] = e;
  return fold_tail (r);
}

static int
frame_push (KctRank *r, uint32_t body)
{
  if (ensure ((void **)&r->fr, &r->cap_fr, r->n_fr + 1, sizeof *r->fr) != 0)
    return -1;
  r->fr[r->n_fr++] = (Frame){ body, 0, 0 };
  return 0;
}

/* Descends to the next expected atom; returns 1 when one iteration of the root body is
 * complete, -1 when out of memory. */
static int
frames_normalize (KctRank *r)
{
  const KctTrace *t = r->t;
  for (;;)
    {
      Frame   *f = &r->fr[r->n_fr - 1];
      uint32_t n;
      const KctElem *e = kct_body (t, f->body, &n);
      if (f->pos == n)
        {
          if (r->n_fr == 1)
            return 1;
          r->n_fr--;
          Frame         *p = &r->fr[r->n_fr - 1];
          uint32_t       pn;
          const KctElem *pe = kct_body (t, p->body, &pn) + p->pos;
          if (++p->done == pe->count)
            {
              p->pos++;
              p->done = 0;
            }
          continue;
        }
      if (e[f->pos].ref & KCT_REF_BODY)
        {
          if (frame_push (r, KCT_REF_ID (e[f->pos].ref)) != 0)
            return -1;
          continue;
        }
      return 0;
    }
}

static KctElem
frames_atom (const KctRank *r)
{
  const Frame   *f = &r->fr[r->n_fr - 1];
  uint32_t       n;
  const KctElem *e = kct_body (r->t, f->body, &n) + f->pos;
  KctElem        a = { e->ref, (e->ref & KCT_REF_POLL) ? 0 : 1 };
  return a;
}

static void
frames_advance (KctRank *r)
{
  Frame         *f = &r->fr[r->n_fr - 1];
  uint32_t       n;
  const KctElem *e = kct_body (r->t, f->body, &n) + f->pos;
  if ((e->ref & KCT_REF_POLL) || ++f->done == e->count)
    {
      f->pos++;
      f->done = 0;
    }
}

static int
frames_reset (KctRank *r)
{
  r->n_fr = 0;
  if (frame_push (r, KCT_REF_ID (r->q[r->n_q - 1].ref)) != 0)
    return -1;
  return frames_normalize (r) < 0 ? -1 : 0;
}

static inline int
atom_like (KctElem e)
{
  return !(e.ref & KCT_REF_BODY) && ((e.ref & KCT_REF_POLL) || e.count == 1);
}

static void
add_closer (KctRank *r, uint32_t count, uint32_t ref)
{
  if (r->n_closer < 8)
    r->closer[r->n_closer++] = (KctElem){ ref, count };
}

/* Where pushing one more atom after the tail would let rule 3 or rule 2 fold (see closer). */
static void
find_closers (KctRank *r)
{
  const KctTrace *t = r->t;
  const KctElem  *q = r->q;
  uint32_t        tl = r->n_q - 1;
  KctElem         tail = q[tl];
  r->n_closer = 0;
  /* rule 3: a loop before the tail whose body is [elements after it, the tail, one atom] */
  for (uint32_t j = tl; j-- > 0 && tl - j <= WINDOW;)
    {
      if (!(q[j].ref & KCT_REF_BODY))
        continue;
      uint32_t       n;
      const KctElem *b = kct_body (t, KCT_REF_ID (q[j].ref), &n);
      uint32_t       d = tl - j; /* elements after q[j] up to the tail */
      if (n != d + 1 || b[d - 1].ref != tail.ref || !atom_like (b[d]))
        continue;
      if (window_eq (b, q + j + 1, d - 1))
        add_closer (r, b[d - 1].count, b[d].ref);
    }
  /* rule 2: [x.., tail', a] followed by [x.., tail, a] */
  for (uint32_t k = 2; 2 * k <= tl + 2 && k <= WINDOW; k++)
    {
      const KctElem *w1 = q + tl + 2 - 2 * k, *w2 = q + tl + 2 - k;
      if (!atom_like (w1[k - 1]) || w1[k - 2].ref != tail.ref)
        continue;
      if (window_eq (w1, w2, k - 2))
        add_closer (r, w1[k - 2].count, w1[k - 1].ref);
    }
}

static int
arm (KctRank *r)
{
  r->armed = 0;
  r->matched = 0;
  if (r->no_expect || r->n_q == 0 || !(r->q[r->n_q - 1].ref & KCT_REF_BODY)
      || r->q[r->n_q - 1].count == UINT32_MAX)
    return 0;
  if (frames_reset (r) != 0)
    return -1;
  r->armed = 1;
  /* While armed only the tail's count changes: note the counts at which the rules could
   * fold the tail (an element before it with the same ref, or a loop whose body ends in
   * it), so that completed iterations need no search. */
  KctElem tail = r->q[r->n_q - 1];
  r->n_hot = 0;
  for (uint32_t j = r->n_q - 1; j-- > 0 && r->n_q - 1 - j <= WINDOW && r->n_hot != HOT_ANY;)
    {
      KctElem  x = r->q[j];
      uint32_t c = KCT_NONE;
      if (x.ref == tail.ref)
        c = x.count;
      else if (x.ref & KCT_REF_BODY)
        {
          uint32_t       n;
          const KctElem *b = kct_body (r->t, KCT_REF_ID (x.ref), &n);
          if (n == r->n_q - 1 - j && b[n - 1].ref == tail.ref)
            c = b[n - 1].count;
        }
      if (c == KCT_NONE)
        continue;
      if (r->n_hot == 8)
        r->n_hot = HOT_ANY;
      else
        r->hot[r->n_hot++] = c;
    }
  find_closers (r);
  return 0;
}

static int
hot_count (const KctRank *r, uint32_t count)
{
  if (r->n_hot == HOT_ANY)
    return 1;
  for (uint32_t i = 0; i < r->n_hot; i++)
    if (r->hot[i] == count)
      return 1;
  return 0;
}

/* The expectation failed: what it matched goes through the general rules. */
static int
disarm (KctRank *r)
{
  if (!r->armed)
    return 0;
  r->armed = 0;
  uint64_t m = r->matched;
  r->matched = 0;
  if (m == 0)
    return 0;
  if (frames_reset (r) != 0)
    return -1;
  for (uint64_t i = 0; i < m; i++)
    {
      KctElem a = frames_atom (r);
      frames_advance (r);
      if (push_general (r, a) != 0)
        return -1;
      if (i + 1 < m && frames_normalize (r) < 0)
        return -1;
    }
  return 0;
}

static int
feed_atom (KctRank *r, KctElem a)
{
  if (r->armed && r->matched == 0)
    for (uint32_t i = 0; i < r->n_closer; i++)
      if (r->closer[i].ref == a.ref && r->closer[i].count == r->q[r->n_q - 1].count)
        {
          r->armed = 0;
          break;
        }
  if (r->armed)
    {
      KctElem want = frames_atom (r);
      if (want.ref == a.ref)
        {
          frames_advance (r);
          r->matched++;
          int done = frames_normalize (r);
          if (done < 0)
            return -1;
          if (done == 1)
            {
              r->q[r->n_q - 1].count++;
              r->matched = 0;
              if (hot_count (r, r->q[r->n_q - 1].count))
                {
                  /* the new count may complete a window: as the general rules would */
                  r->armed = 0;
                  if (fold_tail (r) != 0)
                    return -1;
                  return arm (r);
                }
              if (r->q[r->n_q - 1].count == UINT32_MAX)
                r->armed = 0;
              else if (frames_reset (r) != 0)
                return -1;
            }
          return 0;
        }
      if (disarm (r) != 0)
        return -1;
    }
  if (push_general (r, a) != 0)
    return -1;
  return arm (r);
}

static int
end_poll_run (KctRank *r)
{
  if (r->poll_leaf == KCT_NONE)
    return 0;
  KctPollCount *p = kct_group_poll (&r->t->groups[r->group], r->poll_leaf);
  if (p == NULL)
    return -1;
  p->calls += r->poll_count;
  uint64_t s = r->poll_start - r->first_t, e = r->poll_end - r->first_t;
  uint64_t calls = r->poll_count, in = r->poll_in;
  if (kct_tc_poll (&r->tc, r->poll_leaf, &s, &calls, &in, &e) != 0)
    return -1;
  r->poll_leaf = KCT_NONE;
  r->poll_count = 0;
  return 0;
}

/* ---- leaves ------------------------------------------------------------------ */

static int
is_poll_leaf (const KctRank *r, const KctRaw *raw, uint32_t n)
{
  return n == 2 && raw[0].type == KCT_RAW_ENTER && raw[1].type == KCT_RAW_LEAVE
         && (region_flags (r, raw[0].a) & KCT_REGION_POLL);
}

static int
leaf_done (KctRank *r, uint64_t t_end)
{
  uint32_t n = r->n_buf;
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t t = r->buf_t[i];
      r->buf[i].at = t == r->t_start ? KCT_AT_START : t == t_end ? KCT_AT_END : KCT_AT_MID;
    }
  r->n_buf = 0;
  /* the same call site usually makes the same leaf: one comparison instead of a hash */
  uint32_t  slot = ((r->buf[0].a * 0x9E3779B1u) ^ (r->buf[0].tag * 0x85EBCA77u) ^ (n * 0xC2B2AE3Du)) >> 26;
  uint32_t  leaf = r->leaf_cache[slot] - 1;
  uint32_t  m;
  KctTrace *t = r->t;
  if (leaf >= t->n_leaves || t->leaf_len[leaf] != n
      || memcmp (kct_leaf (t, leaf, &m), r->buf, sizeof *r->buf * n) != 0)
    {
      leaf = kct_leaf_intern (t, r->buf, n);
      if (leaf == KCT_NONE)
        return -1;
      r->leaf_cache[slot] = leaf + 1;
    }
  if (!r->started)
    {
      r->started = 1;
      r->first_t = r->t_start;
    }
  if (is_poll_leaf (r, r->buf, n))
    {
      if (r->poll_leaf == leaf)
        {
          r->poll_count++;
          r->poll_end = t_end;
          r->poll_in += t_end - r->t_start;
          return 0;
        }
      if (end_poll_run (r) != 0)
        return -1;
      r->poll_leaf = leaf;
      r->poll_count = 1;
      r->poll_start = r->t_start;
      r->poll_end = t_end;
      r->poll_in = t_end - r->t_start;
      return feed_atom (r, (KctElem){ leaf | KCT_REF_POLL, 0 });
    }
  if (end_poll_run (r) != 0)
    return -1;
  /* the leaf's times: its start, its events in between, its end */
  if (n + 1 > r->cap_slot_t)
    {
      uint64_t *st = realloc (r->slot_t, sizeof *st * (n + 1));
      if (st == NULL)
        return -1;
      r->slot_t = st;
      r->cap_slot_t = n + 1;
    }
  uint32_t k = 0;
  int      has_end = 0;
  r->slot_t[k++] = r->t_start - r->first_t;
  for (uint32_t i = 0; i < n; i++)
    if (r->buf[i].at == KCT_AT_MID)
      r->slot_t[k++] = r->buf_t[i] - r->first_t;
    else if (r->buf[i].at == KCT_AT_END)
      has_end = 1;
  if (has_end)
    r->slot_t[k++] = t_end - r->first_t;
  if (kct_tc_leaf (&r->tc, leaf, r->buf, n, r->slot_t) != 0)
    return -1;
  return feed_atom (r, (KctElem){ leaf, 1 });
}

KctRaw *
kct_rank_prepare (KctRank *r)
{
  if (__builtin_expect (r->n_buf >= r->cap_buf, 0))
    {
      uint32_t cap = r->cap_buf, cap_t = r->cap_buf;
      if (r->failed || ensure ((void **)&r->buf, &cap, r->n_buf + 1, sizeof *r->buf) != 0
          || ensure ((void **)&r->buf_t, &cap_t, r->n_buf + 1, sizeof *r->buf_t) != 0)
        {
          r->failed = 1;
          return NULL;
        }
      r->cap_buf = cap < cap_t ? cap : cap_t;
    }
  KctRaw *ev = &r->buf[r->n_buf];
  memset (ev, 0, sizeof *ev);
  return ev;
}

int
kct_rank_commit (KctRank *r, uint64_t t)
{
  if (r->failed)
    return -1;
  KctRaw *ev = &r->buf[r->n_buf];
  switch (ev->type)
    {
    case KCT_RAW_ISEND:
    case KCT_RAW_IRECV_REQUEST:
    case KCT_RAW_NBC_REQUEST:
      ev->x = slot_open (r, ev->x);
      if (ev->x == KCT_NONE)
        goto fail;
      break;
    case KCT_RAW_ISEND_COMPLETE:
    case KCT_RAW_IRECV:
    case KCT_RAW_REQUEST_CANCELLED:
    case KCT_RAW_NBC_COMPLETE:
      ev->x = slot_close (r, ev->x);
      break;
    default:
      break;
    }
  ev->at = 0;
  r->n_events++;
  r->last_t = t;
  r->buf_t[r->n_buf] = t;
  int call = ev->type == KCT_RAW_ENTER && (region_flags (r, ev->a) & KCT_REGION_CALL);
  /* a call site only on the Enter that opens an MPI call */
  if (ev->type == KCT_RAW_ENTER && (r->depth > 0 || !call))
    ev->tag = 0;
  if (r->depth == 0)
    {
      r->t_start = t;
      r->n_buf++;
      if (call)
        {
          r->depth = 1;
          return 0;
        }
      /* an event outside any MPI call is a leaf of its own */
      if (leaf_done (r, t) != 0)
        goto fail;
      return 0;
    }
  r->n_buf++;
  if (ev->type == KCT_RAW_ENTER)
    r->depth++;
  else if (ev->type == KCT_RAW_LEAVE && --r->depth == 0)
    {
      if (leaf_done (r, t) != 0)
        goto fail;
    }
  return 0;
fail:
  r->failed = 1;
  return -1;
}

int
kct_rank_record (KctRank *r, uint64_t t, KctRaw *ev)
{
  KctRaw *slot = kct_rank_prepare (r);
  if (slot == NULL)
    return -1;
  *slot = *ev;
  int rc = kct_rank_commit (r, t);
  *ev = *slot; /* the caller sees the slot and time class */
  return rc;
}

int
kct_rank_end (KctRank *r, int64_t start_offset, uint64_t global_start)
{
  if (r->failed)
    return -1;
  KctTrace *t = r->t;
  if (r->depth > 0 && r->n_buf > 0)
    {
      /* an MPI call still open (the run ended inside it): its events so far */
      r->depth = 0;
      if (leaf_done (r, r->last_t) != 0)
        goto fail;
    }
  if (end_poll_run (r) != 0 || disarm (r) != 0)
    goto fail;
  uint32_t seq = kct_body_intern (t, r->q, r->n_q);
  if (seq == KCT_NONE)
    goto fail;
  KctGroup *g = &t->groups[r->group];
  g->seq = seq;
  KctTimeline *tl = kct_group_timeline_add (g);
  if (tl == NULL || kct_tc_finish (&r->tc) != 0)
    goto fail;
  tl->rank = r->rank;
  int64_t first = (int64_t)r->first_t + start_offset;
  tl->start = r->started && first > (int64_t)global_start ? (uint64_t)first - global_start : 0;
  tl->bytes = r->tc.buf;
  tl->n_bytes = r->tc.n;
  r->tc.buf = NULL;
  r->tc.n = r->tc.cap = 0;
  kct_cpu_end (&r->cpu, r->n_events);
  if (r->cpu.n > 0)
    {
      KctCpuStream *s = kct_cpu_stream (t, r->rank, 1);
      if (s == NULL)
        goto fail;
      kct_cpu_clear (s);
      *s = r->cpu;
      s->rank = r->rank;
      memset (&r->cpu, 0, sizeof r->cpu);
    }
  t->h.global_start = global_start;
  if (r->started)
    {
      int64_t last = (int64_t)r->last_t + start_offset;
      t->h.length = last > (int64_t)global_start ? (uint64_t)last - global_start : 0;
    }
  return 0;
fail:
  r->failed = 1;
  return -1;
}

int
kct_rank_cpu (KctRank *r, uint64_t cpu, uint64_t wait, uint64_t where)
{
  if (r->failed)
    return -1;
  if (r->cpu.n == 0 && r->cpu.n_bytes == 0)
    r->cpu.where = 1;
  if (kct_cpu_append (&r->cpu, r->n_events, cpu, wait, where) != 0)
    {
      r->failed = 1;
      return -1;
    }
  return 0;
}

uint64_t
kct_rank_first_time (const KctRank *r)
{
  return r->started ? r->first_t : r->last_t;
}

uint64_t
kct_rank_last_time (const KctRank *r)
{
  return r->last_t;
}

uint64_t
kct_rank_events (const KctRank *r)
{
  return r->n_events;
}

size_t
kct_rank_memory (const KctRank *r)
{
  const KctTrace *t = r->t;
  size_t          n = sizeof *r + r->cap_buf * (sizeof *r->buf + sizeof *r->buf_t)
             + r->cap_slot * sizeof *r->slot_req
             + r->map_slots * (sizeof *r->map_id + sizeof *r->map_slot)
             + r->cap_q * sizeof *r->q + r->cap_fr * sizeof *r->fr + r->cpu.cap;
  n += t->cap_raw * sizeof *t->raw + t->cap_leaves * 2 * sizeof (uint32_t)
       + t->leaf_slots * sizeof (uint32_t) + t->cap_elems * sizeof *t->elems
       + t->cap_bodies * 2 * sizeof (uint32_t) + t->body_slots * sizeof (uint32_t);
  /* the timeline: its bytes, its models, the time grid */
  n += r->tc.cap + (size_t)r->tc.cap_blocks * 160 * sizeof (uint16_t)
       + (size_t)r->tc.n_map * 2 * sizeof (uint32_t);
  return n;
}

/* tests/kct: the general rules alone, to check that the expectation changes nothing */
void kct_rank_disable_expectation (KctRank *r);
void
kct_rank_disable_expectation (KctRank *r)
{
  r->no_expect = 1;
}
