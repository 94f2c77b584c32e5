/* kct-time.c: the times of a compressed trace (docs/formats/kct.md, "Times").
 *
 * Every rank keeps its own timeline: for each leaf occurrence the times of its slots (start,
 * events in between, end), each stored relative to the time stored before it, rounded to a
 * grid whose step is at most max(abs, rel * value).  The error of a stored time is bounded by
 * the step of the value it came from, and since the next value is taken from the stored time
 * (not the true one), errors do not add up along a run.  Starts of calls that send round down,
 * ends of calls that receive or finish a collective round up, so a stored receive never lies
 * before its stored send.
 *
 * The grid codes are entropy-coded with a binary range coder (the carry-propagating one of
 * LZMA) and adaptive models per (leaf, slot): an Elias-gamma binarisation, whose length and top
 * mantissa bits have their own probabilities.  A loop in steady state makes the same codes
 * again and again, which then cost a fraction of a bit; noise costs what it costs.  Models are
 * numbered by the leaf's first appearance in the stream, so a timeline does not change when
 * a merge or kct_finish renumbers leaves.
 *
 * Plain C (see kct-format.h): integer arithmetic only, so that a file written on one machine
 * decodes to the same times on any other. */
#include "kct-format.h"

#include <stdlib.h>
#include <string.h>

/* ---- the grid --------------------------------------------------------------------- */

/* Codes of u (whole ticks / abs): u itself below 2^bits, above that e * h + (u >> e) with
 * h = 2^(bits - 1) and e the shift that leaves bits bits; codes are contiguous and ascending. */

int
kct_grid_init (KctGrid *g, uint64_t abs, uint32_t bits)
{
  g->abs = abs;
  g->bits = bits;
  return abs == 0 || abs > (1ull << 40) || bits < KCT_TIME_BITS_MIN || bits > KCT_TIME_BITS_MAX
             ? -1
             : 0;
}

void
kct_grid_clear (KctGrid *g)
{
  (void)g;
}

uint64_t
kct_grid_value (const KctGrid *g, uint64_t code)
{
  uint64_t h = 1ull << (g->bits - 1);
  uint64_t e = code / h;
  e = e > 1 ? e - 1 : 0;
  if (e > 63)
    return UINT64_MAX;
  uint64_t mant = code - e * h;
  if (mant > (UINT64_MAX >> e) || (mant << e) > UINT64_MAX / g->abs)
    return UINT64_MAX;
  return (mant << e) * g->abs;
}

static uint64_t
code_down (const KctGrid *g, uint64_t v)
{
  uint64_t u = v / g->abs;
  uint32_t len = u ? 64u - (uint32_t)__builtin_clzll (u) : 0;
  if (len <= g->bits)
    return u;
  uint32_t e = len - g->bits;
  return (uint64_t)e * (1ull << (g->bits - 1)) + (u >> e);
}

/* the grid point for @v: the largest not above it, the smallest not below it, or the nearer */
static uint64_t
grid_code (const KctGrid *g, uint64_t v, int dir)
{
  uint64_t c = code_down (g, v), lo = kct_grid_value (g, c);
  if (lo == v || dir == KCT_ROUND_DOWN)
    return c;
  uint64_t hi = kct_grid_value (g, c + 1);
  if (hi == UINT64_MAX || dir == KCT_ROUND_UP)
    return hi == UINT64_MAX ? c : c + 1;
  return v - lo <= hi - v ? c : c + 1;
}

/* ---- slots of a leaf ------------------------------------------------------------------- */

static int
is_cause (uint8_t type)
{
  return type == KCT_RAW_SEND || type == KCT_RAW_ISEND || type == KCT_RAW_COLL_BEGIN
         || type == KCT_RAW_NBC_REQUEST;
}

static int
is_effect (uint8_t type)
{
  return type == KCT_RAW_RECV || type == KCT_RAW_IRECV || type == KCT_RAW_COLL_END
         || type == KCT_RAW_NBC_COMPLETE;
}

uint32_t
kct_leaf_slots (const KctRaw *raw, uint32_t n, uint8_t *dir)
{
  uint32_t slots = 1;
  int      cause_at_start = 0, effect_at_end = 0, has_end = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      if (raw[i].at == KCT_AT_START)
        cause_at_start |= is_cause (raw[i].type);
      else if (raw[i].at == KCT_AT_END)
        {
          has_end = 1;
          effect_at_end |= is_effect (raw[i].type);
        }
      else
        {
          if (dir != NULL)
            dir[slots] = is_effect (raw[i].type)  ? KCT_ROUND_UP
                         : is_cause (raw[i].type) ? KCT_ROUND_DOWN
                                                  : KCT_ROUND_NEAREST;
          slots++;
        }
    }
  if (dir != NULL)
    {
      dir[0] = cause_at_start ? KCT_ROUND_DOWN : KCT_ROUND_NEAREST;
      if (has_end)
        dir[slots] = effect_at_end ? KCT_ROUND_UP : KCT_ROUND_NEAREST;
    }
  return slots + (has_end ? 1 : 0);
}

/* ---- the range coder (LZMA's) ----------------------------------------------------------- */

#define PROB_BITS 11
#define PROB_ONE (1u << PROB_BITS)
#define PROB_SHIFT 5
#define TOP (1u << 24)

static void
out_byte (KctTimeCoder *c, uint8_t b)
{
  if (c->failed)
    return;
  if (c->n == c->cap)
    {
      size_t   cap = c->cap ? c->cap * 2 : 256;
      uint8_t *n = realloc (c->buf, cap);
      if (n == NULL)
        {
          c->failed = 1;
          return;
        }
      c->buf = n;
      c->cap = cap;
    }
  c->buf[c->n++] = b;
}

static void
shift_low (KctTimeCoder *c)
{
  if ((uint32_t)c->low < 0xFF000000u || (c->low >> 32) != 0)
    {
      uint8_t carry = (uint8_t)(c->low >> 32);
      uint8_t temp = c->cache;
      do
        {
          out_byte (c, (uint8_t)(temp + carry));
          temp = 0xFF;
        }
      while (--c->pending != 0);
      c->cache = (uint8_t)(c->low >> 24);
    }
  c->pending++;
  c->low = (c->low & 0x00FFFFFFu) << 8;
}

static uint8_t
in_byte (KctTimeCoder *c)
{
  if (c->pos < c->n)
    return c->buf[c->pos++];
  c->pos = c->n + 1; /* read past the end: corrupt */
  c->failed = 1;
  return 0;
}

static void
normalize (KctTimeCoder *c)
{
  while (c->range < TOP)
    {
      c->range <<= 8;
      if (c->decoding)
        c->code = (c->code << 8) | in_byte (c);
      else
        shift_low (c);
    }
  if (c->decoding && c->code >= c->range)
    c->failed = 1;
}

static int
code_bit (KctTimeCoder *c, uint16_t *p, int bit)
{
  uint32_t bound = (c->range >> PROB_BITS) * *p;
  if (c->decoding)
    bit = c->code >= bound;
  if (!bit)
    {
      c->range = bound;
      *p = (uint16_t)(*p + ((PROB_ONE - *p) >> PROB_SHIFT));
    }
  else
    {
      if (c->decoding)
        c->code -= bound;
      else
        c->low += bound;
      c->range -= bound;
      *p = (uint16_t)(*p - (*p >> PROB_SHIFT));
    }
  normalize (c);
  return bit;
}

static int
code_direct (KctTimeCoder *c, int bit)
{
  c->range >>= 1;
  if (c->decoding)
    {
      bit = c->code >= c->range;
      if (bit)
        c->code -= c->range;
    }
  else if (bit)
    c->low += c->range;
  normalize (c);
  return bit;
}

/* ---- values: Elias-gamma of v + 1 with adaptive length and top mantissa bits ---------------- */

#define UNARY 24
#define TREE_NB 16
#define BLOCK (UNARY + (TREE_NB + 1) * 8)

/* A value in the context of a model block.  (A flag "the same as this context's last value"
 * first was tried: it made recorded runs 3-8 % larger, since their times seldom repeat to the
 * tick, and helped only synthetic loops.) */
static uint64_t
code_value (KctTimeCoder *c, uint32_t block, uint64_t v)
{
  uint16_t *p = c->p + (size_t)block * BLOCK;
  uint64_t m = v + 1;
  uint32_t nb = 0;
  if (!c->decoding)
    {
      if (v >= UINT64_MAX - 1)
        m = UINT64_MAX;
      nb = 64u - (uint32_t)__builtin_clzll (m);
      for (uint32_t i = 1; i < nb; i++)
        code_bit (c, &p[i - 1 < UNARY ? i - 1 : UNARY - 1], 1);
      if (nb < 64)
        code_bit (c, &p[nb - 1 < UNARY ? nb - 1 : UNARY - 1], 0);
    }
  else
    {
      nb = 1;
      while (nb < 64 && code_bit (c, &p[nb - 1 < UNARY ? nb - 1 : UNARY - 1], 1) && !c->failed)
        nb++;
      m = 1;
    }
  uint16_t *tree = p + UNARY + (nb < TREE_NB ? nb : TREE_NB) * 8;
  uint32_t  node = 1;
  for (int i = (int)nb - 2; i >= 0 && !c->failed; i--)
    {
      int bit = (int)((m >> i) & 1);
      if ((int)nb - 2 - i < 3)
        {
          bit = code_bit (c, &tree[node], bit);
          node = node * 2 + (uint32_t)bit;
        }
      else
        bit = code_direct (c, bit);
      if (c->decoding)
        m = m << 1 | (uint64_t)bit;
    }
  c->values++;
  return m - 1;
}

/* ---- the timeline coder -------------------------------------------------------------------- */

void
kct_tc_encoder (KctTimeCoder *c, const KctGrid *grid)
{
  memset (c, 0, sizeof *c);
  c->grid = grid;
  c->range = 0xFFFFFFFFu;
  c->pending = 1;
}

int
kct_tc_decoder (KctTimeCoder *c, const KctGrid *grid, const uint8_t *bytes, size_t n)
{
  memset (c, 0, sizeof *c);
  c->grid = grid;
  c->decoding = 1;
  c->range = 0xFFFFFFFFu;
  c->buf = (uint8_t *)bytes;
  c->n = n;
  if (n < 5 || bytes[0] != 0)
    {
      c->failed = 1;
      return -1;
    }
  for (int i = 1; i < 5; i++)
    c->code = c->code << 8 | bytes[i];
  c->pos = 5;
  if (c->code >= c->range)
    c->failed = 1;
  return c->failed ? -1 : 0;
}

void
kct_tc_clear (KctTimeCoder *c)
{
  if (!c->decoding)
    free (c->buf);
  free (c->leaf_block);
  free (c->poll_block);
  free (c->p);
  free (c->dir);
  memset (c, 0, sizeof *c);
}

int
kct_tc_finish (KctTimeCoder *c)
{
  if (c->decoding)
    return !c->failed && c->pos == c->n ? 0 : -1;
  for (int i = 0; i < 5; i++)
    shift_low (c);
  return c->failed ? -1 : 0;
}

/* the first of @k model blocks of a leaf (a poll leaf's own), made at its first appearance */
static int
blocks_of (KctTimeCoder *c, uint32_t leaf, int poll, uint32_t k, uint32_t *first)
{
  if (leaf >= c->n_map)
    {
      uint32_t n = leaf + 1 > c->n_map * 2 ? leaf + 1 : c->n_map * 2;
      if (n < 64)
        n = 64;
      uint32_t *a = realloc (c->leaf_block, sizeof *a * n);
      if (a != NULL)
        c->leaf_block = a;
      uint32_t *b = realloc (c->poll_block, sizeof *b * n);
      if (b != NULL)
        c->poll_block = b;
      if (a == NULL || b == NULL)
        return -1;
      memset (a + c->n_map, 0, sizeof *a * (n - c->n_map));
      memset (b + c->n_map, 0, sizeof *b * (n - c->n_map));
      c->n_map = n;
    }
  uint32_t *map = poll ? c->poll_block : c->leaf_block;
  if (map[leaf] != 0)
    {
      *first = map[leaf] - 1;
      return 0;
    }
  if (c->n_blocks + k > c->cap_blocks)
    {
      uint64_t cap = c->cap_blocks ? c->cap_blocks : 16;
      while (cap < (uint64_t)c->n_blocks + k)
        cap *= 2;
      if (cap > (1u << 26))
        return -1;
      uint16_t *p = realloc (c->p, sizeof *p * BLOCK * cap);
      if (p == NULL)
        return -1;
      c->p = p;
      c->cap_blocks = (uint32_t)cap;
    }
  for (size_t i = (size_t)c->n_blocks * BLOCK; i < (size_t)(c->n_blocks + k) * BLOCK; i++)
    c->p[i] = PROB_ONE / 2;
  *first = c->n_blocks;
  map[leaf] = c->n_blocks + 1;
  c->n_blocks += k;
  return 0;
}

/* one time, relative to the last one stored */
static void
code_time (KctTimeCoder *c, uint32_t block, uint64_t *t, int dir)
{
  uint64_t code = 0;
  if (!c->decoding)
    code = grid_code (c->grid, *t > c->last ? *t - c->last : 0, dir);
  code = code_value (c, block, code);
  uint64_t v = kct_grid_value (c->grid, code);
  if (v == UINT64_MAX || c->last + v < c->last)
    {
      c->failed = 1;
      v = 0;
    }
  c->last += v;
  *t = c->last;
}

int
kct_tc_leaf (KctTimeCoder *c, uint32_t leaf, const KctRaw *raw, uint32_t n, uint64_t *times)
{
  if (c->failed)
    return -1;
  uint32_t k = kct_leaf_slots (raw, n, NULL);
  if (k > c->cap_dir)
    {
      uint8_t *d = realloc (c->dir, k);
      if (d == NULL)
        {
          c->failed = 1;
          return -1;
        }
      c->dir = d;
      c->cap_dir = k;
    }
  kct_leaf_slots (raw, n, c->dir);
  uint32_t first;
  if (blocks_of (c, leaf, 0, k, &first) != 0)
    {
      c->failed = 1;
      return -1;
    }
  for (uint32_t s = 0; s < k && !c->failed; s++)
    code_time (c, first + s, &times[s], c->dir[s]);
  return c->failed ? -1 : 0;
}

int
kct_tc_poll (KctTimeCoder *c, uint32_t leaf, uint64_t *start, uint64_t *calls, uint64_t *in_calls,
             uint64_t *end)
{
  uint32_t first;
  if (c->failed || blocks_of (c, leaf, 1, 4, &first) != 0)
    {
      c->failed = 1;
      return -1;
    }
  code_time (c, first, start, KCT_ROUND_NEAREST);
  uint64_t k = code_value (c, first + 1, *calls > 0 ? *calls - 1 : 0);
  if (k >= UINT32_MAX)
    c->failed = 1;
  *calls = k + 1;
  uint64_t ic = 0;
  if (!c->decoding)
    ic = grid_code (c->grid, *in_calls, KCT_ROUND_NEAREST);
  ic = code_value (c, first + 2, ic);
  code_time (c, first + 3, end, KCT_ROUND_NEAREST);
  /* the time in the calls fits between the run's start and end */
  *in_calls = kct_grid_value (c->grid, ic);
  if (*in_calls == UINT64_MAX)
    {
      c->failed = 1;
      *in_calls = 0;
    }
  if (*in_calls > *end - *start)
    *in_calls = *end - *start;
  return c->failed ? -1 : 0;
}

/* ---- walking a group's sequence ---------------------------------------------------------- */

#define MAX_DEPTH (1u << 16)

int
kct_walk_init (KctWalk *w, const void *trace, uint32_t body)
{
  memset (w, 0, sizeof *w);
  w->t = trace;
  w->fr = malloc (sizeof *w->fr * 16);
  if (w->fr == NULL)
    return -1;
  w->cap_fr = 16;
  if (body >= ((const KctTrace *)trace)->n_bodies)
    return 0; /* nothing to walk */
  w->fr[0] = (struct KctWalkFrame){ body, 0, 0 };
  w->n_fr = 1;
  return 0;
}

int
kct_walk_next (KctWalk *w, uint32_t *leaf, int *poll)
{
  const KctTrace *t = w->t;
  while (w->n_fr > 0)
    {
      struct KctWalkFrame *f = &w->fr[w->n_fr - 1];
      uint32_t             n;
      const KctElem       *e = kct_body (t, f->body, &n);
      if (f->pos >= n)
        {
          if (--w->n_fr == 0)
            return 0;
          struct KctWalkFrame *p = &w->fr[w->n_fr - 1];
          uint32_t             pn;
          const KctElem       *pe = kct_body (t, p->body, &pn) + p->pos;
          if (++p->done >= pe->count)
            {
              p->pos++;
              p->done = 0;
            }
          continue;
        }
      KctElem x = e[f->pos];
      if (x.ref & KCT_REF_BODY)
        {
          if (x.count == 0 || KCT_REF_ID (x.ref) >= t->n_bodies)
            {
              f->pos++;
              continue;
            }
          if (w->n_fr >= MAX_DEPTH)
            return -1;
          if (w->n_fr == w->cap_fr)
            {
              struct KctWalkFrame *nf = realloc (w->fr, sizeof *nf * w->cap_fr * 2);
              if (nf == NULL)
                return -1;
              w->fr = nf;
              w->cap_fr *= 2;
            }
          w->fr[w->n_fr++] = (struct KctWalkFrame){ KCT_REF_ID (x.ref), 0, 0 };
          continue;
        }
      *leaf = KCT_REF_ID (x.ref);
      *poll = (x.ref & KCT_REF_POLL) != 0;
      if (*poll || ++f->done >= x.count)
        {
          f->pos++;
          f->done = 0;
        }
      if (!*poll && x.count == 0)
        continue;
      if (*leaf >= t->n_leaves)
        return -1;
      return 1;
    }
  return 0;
}

void
kct_walk_clear (KctWalk *w)
{
  free (w->fr);
  memset (w, 0, sizeof *w);
}

/* ---- timelines as values ------------------------------------------------------------------ */

void
kct_timeline_clear (KctTimeline *tl)
{
  free (tl->bytes);
  tl->bytes = NULL;
  tl->n_bytes = 0;
}

typedef struct
{
  uint64_t *v;
  uint64_t  n, cap;
} Values;

static int
values_add (Values *vs, uint64_t v)
{
  if (vs->n == vs->cap)
    {
      uint64_t cap = vs->cap ? vs->cap * 2 : 1024;
      if (cap > SIZE_MAX / sizeof *vs->v)
        return -1;
      uint64_t *n = realloc (vs->v, sizeof *n * (size_t)cap);
      if (n == NULL)
        return -1;
      vs->v = n;
      vs->cap = cap;
    }
  vs->v[vs->n++] = v;
  return 0;
}

/* slots of each leaf, for the walks below (times[] of the longest leaf) */
static uint64_t *
slot_buffer (const KctTrace *t)
{
  uint32_t most = 4;
  for (uint32_t l = 0; l < t->n_leaves; l++)
    if (t->leaf_len[l] + 1 > most)
      most = t->leaf_len[l] + 1;
  return malloc (sizeof (uint64_t) * most);
}

int
kct_timeline_values (const KctTrace *t, const KctGroup *g, const KctTimeline *tl,
                     const KctGrid *grid, uint64_t **values, uint64_t *n)
{
  KctTimeCoder c;
  KctWalk      w;
  Values       vs = { 0 };
  uint64_t    *times = slot_buffer (t);
  int          err = times == NULL || kct_walk_init (&w, t, g->seq) != 0;
  if (kct_tc_decoder (&c, grid, tl->bytes, tl->n_bytes) != 0)
    err = 1;
  uint32_t leaf;
  int      poll, r = 0;
  while (!err && (r = kct_walk_next (&w, &leaf, &poll)) == 1)
    {
      uint64_t before = c.last;
      if (poll)
        {
          uint64_t s = 0, k = 0, ic = 0, e = 0;
          err = kct_tc_poll (&c, leaf, &s, &k, &ic, &e) != 0 || values_add (&vs, s - before) != 0
                || values_add (&vs, k) != 0 || values_add (&vs, ic) != 0
                || values_add (&vs, e - s) != 0;
          continue;
        }
      uint32_t      m;
      const KctRaw *raw = kct_leaf (t, leaf, &m);
      uint32_t      k = kct_leaf_slots (raw, m, NULL);
      err = kct_tc_leaf (&c, leaf, raw, m, times) != 0;
      for (uint32_t s = 0; s < k && !err; s++)
        {
          err = values_add (&vs, times[s] - before) != 0;
          before = times[s];
        }
    }
  if (r < 0 || kct_tc_finish (&c) != 0)
    err = 1;
  kct_tc_clear (&c);
  kct_walk_clear (&w);
  free (times);
  if (err)
    {
      free (vs.v);
      return -1;
    }
  *values = vs.v;
  *n = vs.n;
  return 0;
}

static uint64_t
mean_of (uint64_t sum, uint64_t div)
{
  return sum / div + ((sum % div) * 2 >= div ? 1 : 0);
}

int
kct_timeline_from_values (const KctTrace *t, const KctGroup *g, const KctGrid *grid,
                          const uint64_t *sums, uint64_t n, uint64_t div, KctTimeline *out)
{
  KctTimeCoder c;
  KctWalk      w;
  uint64_t    *times = slot_buffer (t);
  int          err = div == 0 || times == NULL || kct_walk_init (&w, t, g->seq) != 0;
  kct_tc_encoder (&c, grid);
  uint64_t i = 0, truth = 0; /* the mean timeline as it is, before rounding */
  uint32_t leaf;
  int      poll, r = 0;
  while (!err && (r = kct_walk_next (&w, &leaf, &poll)) == 1)
    {
      if (poll)
        {
          if (i + 4 > n)
            {
              err = 1;
              break;
            }
          uint64_t s = truth + mean_of (sums[i], div), k = mean_of (sums[i + 1], div);
          uint64_t ic = mean_of (sums[i + 2], div), e = s + mean_of (sums[i + 3], div);
          truth = e;
          i += 4;
          k = k ? k : 1;
          err = kct_tc_poll (&c, leaf, &s, &k, &ic, &e) != 0;
          continue;
        }
      uint32_t      m;
      const KctRaw *raw = kct_leaf (t, leaf, &m);
      uint32_t      k = kct_leaf_slots (raw, m, NULL);
      if (i + k > n)
        {
          err = 1;
          break;
        }
      for (uint32_t s = 0; s < k; s++)
        times[s] = truth += mean_of (sums[i++], div);
      err = kct_tc_leaf (&c, leaf, raw, m, times) != 0;
    }
  if (r < 0 || i != n || kct_tc_finish (&c) != 0)
    err = 1;
  kct_walk_clear (&w);
  free (times);
  if (err)
    {
      kct_tc_clear (&c);
      return -1;
    }
  out->bytes = c.buf;
  out->n_bytes = c.n;
  c.buf = NULL;
  kct_tc_clear (&c);
  return 0;
}

void
kct_time_defaults (KctTrace *t)
{
  if (t->h.timer_resolution == 0)
    t->h.timer_resolution = 1000000000u;
  if (t->h.time_abs == 0)
    t->h.time_abs = t->h.timer_resolution >= 2000000u ? (t->h.timer_resolution + 500000u) / 1000000u
                                                      : 1;
  if (t->h.time_bits == 0)
    t->h.time_bits = KCT_TIME_BITS;
  if (t->h.timelines == 0)
    t->h.timelines = KCT_TIMELINES;
}

/* ---- "1us,0.0015%" ------------------------------------------------------------------------- */

/* a decimal number (digits, an optional point and digits), whatever the locale */
static const char *
parse_decimal (const char *s, double *v)
{
  double x = 0, scale = 1;
  int    digits = 0, point = 0;
  for (; (*s >= '0' && *s <= '9') || (*s == '.' && !point); s++)
    {
      if (*s == '.')
        {
          point = 1;
          continue;
        }
      digits++;
      if (point)
        x += (*s - '0') * (scale /= 10);
      else
        x = x * 10 + (*s - '0');
    }
  *v = x;
  return digits ? s : NULL;
}

int
kct_parse_time_error (const char *s, double *abs_seconds, uint32_t *bits)
{
  int parts = 0;
  while (*s != '\0')
    {
      while (*s == ' ')
        s++;
      double      v;
      const char *end = parse_decimal (s, &v);
      if (end == NULL || !(v > 0) || parts++ == 2)
        return -1;
      size_t len = strcspn (end, ", ");
      if (len == 1 && end[0] == '%')
        {
          /* the coarsest grid whose relative step is at most v %: 2^(1 - bits) <= v / 100 */
          uint32_t b = KCT_TIME_BITS_MIN;
          double   step = 1.0 / (1u << (b - 1));
          while (b < KCT_TIME_BITS_MAX && step > v / 100 * (1 + 1e-9))
            {
              b++;
              step /= 2;
            }
          if (step > v / 100 * (1 + 1e-9))
            return -1;
          *bits = b;
        }
      else
        {
          static const struct
          {
            const char *unit;
            double      seconds;
          } units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ms", 1e-3 }, { "s", 1 } };
          int found = 0;
          for (size_t u = 0; u < sizeof units / sizeof units[0] && !found; u++)
            if (len == strlen (units[u].unit) && strncmp (end, units[u].unit, len) == 0)
              {
                *abs_seconds = v * units[u].seconds;
                found = 1;
              }
          if (!found || *abs_seconds > 1 || *abs_seconds < 1e-9 * (1 - 1e-9))
            return -1;
        }
      s = end + len;
      while (*s == ' ')
        s++;
      if (*s == ',')
        s++;
      else if (*s != '\0')
        return -1;
    }
  return parts > 0 ? 0 : -1;
}
