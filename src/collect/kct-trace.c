/* kct-trace.c: the compressed-trace model — interning of leaves and bodies, definitions,
 * rank lists, poll counts and timelines of groups, structural statistics.  Plain C (see kct-format.h). */
#include "kct-format.h"

#include <stdlib.h>
#include <string.h>

/* ---- growing arrays ----------------------------------------------------- */

static int
grow (void **p, uint32_t *cap, uint32_t need, size_t size)
{
  if (need <= *cap)
    return 0;
  uint64_t c = *cap ? *cap : 8;
  while (c < need)
    c *= 2;
  if (c > UINT32_MAX / 2 || c * size > SIZE_MAX / 2)
    return -1;
  void *n = realloc (*p, (size_t)c * size);
  if (n == NULL)
    return -1;
  memset ((char *)n + (size_t)*cap * size, 0, (size_t)(c - *cap) * size);
  *p = n;
  *cap = (uint32_t)c;
  return 0;
}

static int
grow_size (void **p, size_t *cap, size_t need, size_t size)
{
  if (need <= *cap)
    return 0;
  size_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  if (c > SIZE_MAX / size / 2)
    return -1;
  void *n = realloc (*p, c * size);
  if (n == NULL)
    return -1;
  *p = n;
  *cap = c;
  return 0;
}

/* two arrays of one capacity */
static int
grow2 (uint32_t **a, uint32_t **b, uint32_t *cap, uint32_t need)
{
  uint32_t ca = *cap, cb = *cap;
  if (grow ((void **)a, &ca, need, sizeof **a) != 0 || grow ((void **)b, &cb, need, sizeof **b) != 0)
    return -1;
  *cap = ca < cb ? ca : cb;
  return 0;
}

/* ---- rank lists ---------------------------------------------------------- */

int
kct_list_add (KctList *l, uint32_t v)
{
  if (grow ((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0)
    return -1;
  l->v[l->n++] = v;
  return 0;
}

int
kct_list_copy (KctList *to, const KctList *from)
{
  to->n = 0;
  if (grow ((void **)&to->v, &to->cap, from->n, sizeof *to->v) != 0)
    return -1;
  if (from->n > 0)
    memcpy (to->v, from->v, sizeof *to->v * from->n);
  to->n = from->n;
  return 0;
}

int
kct_list_union (KctList *to, const KctList *a, const KctList *b)
{
  KctList r = { 0 };
  if (grow ((void **)&r.v, &r.cap, a->n + b->n + 1, sizeof *r.v) != 0)
    return -1;
  uint32_t i = 0, j = 0;
  while (i < a->n || j < b->n)
    {
      uint32_t v;
      if (j >= b->n || (i < a->n && a->v[i] < b->v[j]))
        v = a->v[i++];
      else if (i >= a->n || b->v[j] < a->v[i])
        v = b->v[j++];
      else
        {
          v = a->v[i++];
          j++;
        }
      if (r.n == 0 || r.v[r.n - 1] != v)
        r.v[r.n++] = v;
    }
  free (to->v);
  *to = r;
  return 0;
}

int
kct_list_equal (const KctList *a, const KctList *b)
{
  return a->n == b->n && (a->n == 0 || memcmp (a->v, b->v, sizeof *a->v * a->n) == 0);
}

int
kct_list_contains_sorted (const KctList *l, uint32_t v)
{
  uint32_t lo = 0, hi = l->n;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (l->v[mid] < v)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < l->n && l->v[lo] == v;
}

void
kct_list_clear (KctList *l)
{
  free (l->v);
  memset (l, 0, sizeof *l);
}

/* ---- hashing ---------------------------------------------------------------- */

static inline uint64_t
mix64 (uint64_t h)
{
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

static uint64_t
hash_words (const void *p, size_t bytes)
{
  const unsigned char *c = p;
  uint64_t             h = 0x9E3779B97F4A7C15ull ^ bytes;
  size_t               i = 0;
  for (; i + 8 <= bytes; i += 8)
    {
      uint64_t w;
      memcpy (&w, c + i, 8);
      h = (h ^ w) * 0x100000001b3ull;
      h ^= h >> 29;
    }
  for (; i < bytes; i++)
    h = (h ^ c[i]) * 0x100000001b3ull;
  return mix64 (h);
}

/* ---- the trace ------------------------------------------------------------ */

KctTrace *
kct_trace_new (void)
{
  KctTrace *t = calloc (1, sizeof *t);
  if (t == NULL)
    return NULL;
  t->h.timer_resolution = 1000000000u;
  return t;
}

static void
group_clear (KctGroup *g)
{
  kct_list_clear (&g->ranks);
  free (g->polls);
  for (uint32_t i = 0; i < g->n_tl; i++)
    kct_timeline_clear (&g->tl[i]);
  free (g->tl);
  free (g->fold);
  memset (g, 0, sizeof *g);
}

void
kct_trace_free (KctTrace *t)
{
  if (t == NULL)
    return;
  free (t->h.program);
  free (t->h.creator);
  for (uint32_t i = 0; i < t->n_regions; i++)
    {
      free (t->regions[i].name);
      free (t->regions[i].canonical);
      free (t->regions[i].file);
      free (t->regions[i].descr);
    }
  free (t->regions);
  for (uint32_t i = 0; i < t->n_comms; i++)
    {
      kct_list_clear (&t->comms[i].members);
      kct_list_clear (&t->comms[i].members_b);
      kct_list_clear (&t->comms[i].users);
    }
  free (t->comms);
  for (uint32_t i = 0; i < t->n_topos; i++)
    {
      free (t->topos[i].name);
      kct_list_clear (&t->topos[i].coord_rank);
      kct_list_clear (&t->topos[i].coords);
    }
  free (t->topos);
  for (uint32_t i = 0; i < t->n_hosts; i++)
    {
      free (t->hosts[i].name);
      kct_list_clear (&t->hosts[i].ranks);
    }
  free (t->hosts);
  free (t->raw);
  free (t->leaf_off);
  free (t->leaf_len);
  free (t->leaf_index);
  free (t->elems);
  free (t->body_off);
  free (t->body_len);
  free (t->body_index);
  for (uint32_t i = 0; i < t->n_groups; i++)
    group_clear (&t->groups[i]);
  free (t->groups);
  for (uint32_t i = 0; i < t->n_cpu; i++)
    kct_cpu_clear (&t->cpu[i]);
  free (t->cpu);
  for (uint32_t i = 0; i < t->n_props; i++)
    {
      free (t->prop_names[i]);
      free (t->prop_values[i]);
    }
  free (t->prop_names);
  free (t->prop_values);
  free (t);
}

int
kct_set_string (char **field, const char *s)
{
  char *c = strdup (s != NULL ? s : "");
  if (c == NULL)
    return -1;
  free (*field);
  *field = c;
  return 0;
}

uint32_t
kct_region_add (KctTrace *t, const KctRegion *r)
{
  if (grow ((void **)&t->regions, &t->cap_regions, t->n_regions + 1, sizeof *t->regions) != 0)
    return KCT_NONE;
  KctRegion *n = &t->regions[t->n_regions];
  memset (n, 0, sizeof *n);
  if (kct_set_string (&n->name, r->name) != 0 || kct_set_string (&n->canonical, r->canonical) != 0
      || kct_set_string (&n->file, r->file) != 0 || kct_set_string (&n->descr, r->descr) != 0)
    {
      free (n->name);
      free (n->canonical);
      free (n->file);
      free (n->descr);
      memset (n, 0, sizeof *n);
      return KCT_NONE;
    }
  n->role = r->role;
  n->paradigm = r->paradigm;
  n->flags = r->flags;
  return t->n_regions++;
}

uint32_t
kct_region_find (const KctTrace *t, const char *name)
{
  for (uint32_t i = 0; i < t->n_regions; i++)
    if (strcmp (t->regions[i].name, name) == 0)
      return i;
  return KCT_NONE;
}

KctComm *
kct_comm_add (KctTrace *t)
{
  if (grow ((void **)&t->comms, &t->cap_comms, t->n_comms + 1, sizeof *t->comms) != 0)
    return NULL;
  KctComm *c = &t->comms[t->n_comms++];
  memset (c, 0, sizeof *c);
  c->parent = KCT_NONE;
  c->repeat = 1;
  return c;
}

KctTopo *
kct_topo_add (KctTrace *t)
{
  if (grow ((void **)&t->topos, &t->cap_topos, t->n_topos + 1, sizeof *t->topos) != 0)
    return NULL;
  KctTopo *p = &t->topos[t->n_topos++];
  memset (p, 0, sizeof *p);
  p->comm = KCT_NONE;
  return p;
}

int
kct_prop_set (KctTrace *t, const char *name, const char *value)
{
  for (uint32_t i = 0; i < t->n_props; i++)
    if (strcmp (t->prop_names[i], name) == 0)
      return kct_set_string (&t->prop_values[i], value);
  if (grow ((void **)&t->prop_names, &t->cap_props, t->n_props + 1, sizeof *t->prop_names) != 0)
    return -1;
  uint32_t cap = t->cap_props;
  char   **v = realloc (t->prop_values, cap * sizeof *v);
  if (v == NULL)
    return -1;
  t->prop_values = v;
  t->prop_names[t->n_props] = NULL;
  t->prop_values[t->n_props] = NULL;
  if (kct_set_string (&t->prop_names[t->n_props], name) != 0
      || kct_set_string (&t->prop_values[t->n_props], value) != 0)
    {
      free (t->prop_names[t->n_props]);
      free (t->prop_values[t->n_props]);
      return -1;
    }
  t->n_props++;
  return 0;
}

const char *
kct_prop_get (const KctTrace *t, const char *name)
{
  for (uint32_t i = 0; i < t->n_props; i++)
    if (strcmp (t->prop_names[i], name) == 0)
      return t->prop_values[i];
  return NULL;
}

KctHost *
kct_host_add (KctTrace *t, const char *name)
{
  if (grow ((void **)&t->hosts, &t->cap_hosts, t->n_hosts + 1, sizeof *t->hosts) != 0)
    return NULL;
  KctHost *h = &t->hosts[t->n_hosts];
  memset (h, 0, sizeof *h);
  if (kct_set_string (&h->name, name) != 0)
    return NULL;
  t->n_hosts++;
  return h;
}

/* ---- CPU samples ------------------------------------------------------------ */

static int
cpu_put (KctCpuStream *s, uint64_t v)
{
  if (s->n_bytes + 10 > s->cap)
    {
      size_t   cap = s->cap ? s->cap * 2 : 256;
      uint8_t *b = realloc (s->bytes, cap);
      if (b == NULL)
        return -1;
      s->bytes = b;
      s->cap = cap;
    }
  do
    {
      uint8_t byte = v & 0x7F;
      v >>= 7;
      s->bytes[s->n_bytes++] = byte | (v ? 0x80 : 0);
    }
  while (v);
  return 0;
}

static uint64_t
zigzag (uint64_t d)
{
  int64_t v = (int64_t)d;
  return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

int
kct_cpu_append (KctCpuStream *s, uint64_t pos, uint64_t cpu, uint64_t wait, uint64_t where)
{
  if (pos < s->last_pos)
    pos = s->last_pos;
  size_t   before = s->n_bytes;
  uint64_t wait1 = wait + 1;   /* all ones (unknown) -> 0 */
  uint64_t where1 = where + 1; /* the same */
  if (cpu_put (s, pos - s->last_pos) != 0 || cpu_put (s, zigzag (cpu - s->last_cpu)) != 0
      || cpu_put (s, zigzag (wait1 - s->last_wait1)) != 0
      || (s->where && cpu_put (s, zigzag (where1 - s->last_where1)) != 0))
    {
      s->n_bytes = before;
      return -1;
    }
  if (s->n == 0 || pos != s->last_pos)
    {
      s->tail_bytes = before;
      s->tail_n = s->n;
    }
  s->n++;
  s->last_pos = pos;
  s->last_cpu = cpu;
  s->last_wait1 = wait1;
  if (s->where)
    s->last_where1 = where1;
  return 0;
}

int
kct_cpu_recode (KctCpuStream *s, int where)
{
  where = where != 0;
  if (s->where == where)
    return 0;
  KctCpuStream to = { 0 };
  KctCpuReader rd;
  uint64_t     pos, cpu, wait, id;
  int          r;
  to.rank = s->rank;
  to.where = where;
  kct_cpu_reader (&rd, s);
  while ((r = kct_cpu_read (&rd, &pos, &cpu, &wait, &id)) == 1)
    if (kct_cpu_append (&to, pos, cpu, wait, id) != 0)
      break;
  if (r != 0)
    {
      kct_cpu_clear (&to);
      return -1;
    }
  free (s->bytes);
  *s = to;
  return 0;
}

void
kct_cpu_end (KctCpuStream *s, uint64_t events)
{
  if (s->n > 0 && s->last_pos >= events)
    {
      s->n_bytes = s->tail_bytes;
      s->n = s->tail_n;
    }
}

void
kct_cpu_clear (KctCpuStream *s)
{
  free (s->bytes);
  memset (s, 0, sizeof *s);
}

void
kct_cpu_reader (KctCpuReader *rd, const KctCpuStream *s)
{
  memset (rd, 0, sizeof *rd);
  if (s != NULL)
    {
      rd->p = s->bytes;
      rd->n = s->n_bytes;
      rd->left = s->n;
      rd->where = s->where;
    }
}

static int
cpu_get (KctCpuReader *rd, uint64_t *v)
{
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7)
    {
      if (rd->at >= rd->n)
        return -1;
      uint8_t b = rd->p[rd->at++];
      if (shift == 63 && (b & 0x7E))
        return -1;
      *v |= (uint64_t)(b & 0x7F) << shift;
      if (!(b & 0x80))
        return 0;
    }
  return -1;
}

int
kct_cpu_read (KctCpuReader *rd, uint64_t *pos, uint64_t *cpu, uint64_t *wait, uint64_t *where)
{
  if (rd->left == 0)
    return rd->at == rd->n ? 0 : -1;
  uint64_t dp, dc, dw, di = 0;
  if (cpu_get (rd, &dp) != 0 || cpu_get (rd, &dc) != 0 || cpu_get (rd, &dw) != 0
      || (rd->where && cpu_get (rd, &di) != 0) || dp > UINT64_MAX - rd->pos)
    return -1;
  rd->left--;
  rd->pos += dp;
  rd->cpu += (uint64_t)((int64_t)(dc >> 1) ^ -(int64_t)(dc & 1));
  rd->wait1 += (uint64_t)((int64_t)(dw >> 1) ^ -(int64_t)(dw & 1));
  rd->where1 += (uint64_t)((int64_t)(di >> 1) ^ -(int64_t)(di & 1));
  *pos = rd->pos;
  *cpu = rd->cpu;
  *wait = rd->wait1 - 1;
  if (where != NULL)
    *where = rd->where1 - 1;
  return 1;
}

KctCpuStream *
kct_cpu_stream (KctTrace *t, uint32_t rank, int add)
{
  uint32_t lo = 0, hi = t->n_cpu;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (t->cpu[mid].rank < rank)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < t->n_cpu && t->cpu[lo].rank == rank)
    return &t->cpu[lo];
  if (!add || grow ((void **)&t->cpu, &t->cap_cpu, t->n_cpu + 1, sizeof *t->cpu) != 0)
    return NULL;
  memmove (&t->cpu[lo + 1], &t->cpu[lo], (t->n_cpu - lo) * sizeof *t->cpu);
  memset (&t->cpu[lo], 0, sizeof *t->cpu);
  t->cpu[lo].rank = rank;
  t->n_cpu++;
  return &t->cpu[lo];
}

const KctCpuStream *
kct_cpu_find (const KctTrace *t, uint32_t rank)
{
  return kct_cpu_stream ((KctTrace *)t, rank, 0);
}

void
kct_cpu_prune (KctTrace *t)
{
  uint32_t k = 0;
  for (uint32_t i = 0; i < t->n_cpu; i++)
    {
      int own = 0;
      for (uint32_t g = 0; g < t->n_groups && !own; g++)
        if (kct_list_contains_sorted (&t->groups[g].ranks, t->cpu[i].rank))
          for (uint32_t j = 0; j < t->groups[g].n_tl && !own; j++)
            own = t->groups[g].tl[j].rank == t->cpu[i].rank;
      if (own && t->cpu[i].n > 0)
        t->cpu[k++] = t->cpu[i];
      else
        kct_cpu_clear (&t->cpu[i]);
    }
  t->n_cpu = k;
}

KctGroup *
kct_group_add (KctTrace *t)
{
  if (grow ((void **)&t->groups, &t->cap_groups, t->n_groups + 1, sizeof *t->groups) != 0)
    return NULL;
  KctGroup *g = &t->groups[t->n_groups++];
  memset (g, 0, sizeof *g);
  g->seq = KCT_NONE;
  return g;
}

/* ---- interning -------------------------------------------------------------- */

static uint64_t
leaf_hash (const KctRaw *raw, uint32_t n)
{
  return hash_words (raw, sizeof *raw * n);
}

static uint64_t
body_hash (const KctElem *e, uint32_t n)
{
  return hash_words (e, sizeof *e * n);
}

static int
rehash_leaves (KctTrace *t, uint32_t slots)
{
  uint32_t *idx = calloc (slots, sizeof *idx);
  if (idx == NULL)
    return -1;
  for (uint32_t i = 0; i < t->n_leaves; i++)
    {
      uint32_t s = (uint32_t)leaf_hash (t->raw + t->leaf_off[i], t->leaf_len[i]) & (slots - 1);
      while (idx[s] != 0)
        s = (s + 1) & (slots - 1);
      idx[s] = i + 1;
    }
  free (t->leaf_index);
  t->leaf_index = idx;
  t->leaf_slots = slots;
  return 0;
}

uint32_t
kct_leaf_intern (KctTrace *t, const KctRaw *raw, uint32_t n)
{
  if (t->leaf_slots == 0 || (t->n_leaves + 1) * 2 > t->leaf_slots)
    if (rehash_leaves (t, t->leaf_slots ? t->leaf_slots * 2 : 256) != 0)
      return KCT_NONE;
  uint32_t s = (uint32_t)leaf_hash (raw, n) & (t->leaf_slots - 1);
  while (t->leaf_index[s] != 0)
    {
      uint32_t i = t->leaf_index[s] - 1;
      if (t->leaf_len[i] == n
          && (n == 0 || memcmp (t->raw + t->leaf_off[i], raw, sizeof *raw * n) == 0))
        return i;
      s = (s + 1) & (t->leaf_slots - 1);
    }
  if (t->n_leaves >= KCT_ID_MAX || t->n_raw + n > UINT32_MAX
      || grow2 (&t->leaf_off, &t->leaf_len, &t->cap_leaves, t->n_leaves + 1) != 0)
    return KCT_NONE;
  if (grow_size ((void **)&t->raw, &t->cap_raw, t->n_raw + n, sizeof *t->raw) != 0)
    return KCT_NONE;
  if (n > 0)
    memcpy (t->raw + t->n_raw, raw, sizeof *raw * n);
  uint32_t id = t->n_leaves++;
  t->leaf_off[id] = (uint32_t)t->n_raw;
  t->leaf_len[id] = n;
  t->n_raw += n;
  t->leaf_index[s] = id + 1;
  return id;
}

static int
rehash_bodies (KctTrace *t, uint32_t slots)
{
  uint32_t *idx = calloc (slots, sizeof *idx);
  if (idx == NULL)
    return -1;
  for (uint32_t i = 0; i < t->n_bodies; i++)
    {
      uint32_t s = (uint32_t)body_hash (t->elems + t->body_off[i], t->body_len[i]) & (slots - 1);
      while (idx[s] != 0)
        s = (s + 1) & (slots - 1);
      idx[s] = i + 1;
    }
  free (t->body_index);
  t->body_index = idx;
  t->body_slots = slots;
  return 0;
}

uint32_t
kct_body_intern (KctTrace *t, const KctElem *e, uint32_t n)
{
  if (t->body_slots == 0 || (t->n_bodies + 1) * 2 > t->body_slots)
    if (rehash_bodies (t, t->body_slots ? t->body_slots * 2 : 256) != 0)
      return KCT_NONE;
  uint32_t s = (uint32_t)body_hash (e, n) & (t->body_slots - 1);
  while (t->body_index[s] != 0)
    {
      uint32_t i = t->body_index[s] - 1;
      if (t->body_len[i] == n
          && (n == 0 || memcmp (t->elems + t->body_off[i], e, sizeof *e * n) == 0))
        return i;
      s = (s + 1) & (t->body_slots - 1);
    }
  if (t->n_bodies >= KCT_ID_MAX || t->n_elems + n > UINT32_MAX
      || grow2 (&t->body_off, &t->body_len, &t->cap_bodies, t->n_bodies + 1) != 0)
    return KCT_NONE;
  /* @e may point into t->elems: copy before the array moves */
  if (n == 0)
    ;
  else if (t->n_elems + n > t->cap_elems)
    {
      KctElem *tmp = malloc (sizeof *tmp * (n ? n : 1));
      if (tmp == NULL)
        return KCT_NONE;
      memcpy (tmp, e, sizeof *e * n);
      int bad = grow_size ((void **)&t->elems, &t->cap_elems, t->n_elems + n, sizeof *t->elems);
      if (!bad)
        memcpy (t->elems + t->n_elems, tmp, sizeof *e * n);
      free (tmp);
      if (bad)
        return KCT_NONE;
    }
  else
    memmove (t->elems + t->n_elems, e, sizeof *e * n);
  uint32_t id = t->n_bodies++;
  t->body_off[id] = (uint32_t)t->n_elems;
  t->body_len[id] = n;
  t->n_elems += n;
  t->body_index[s] = id + 1;
  return id;
}

/* ---- poll counts and timelines of groups ------------------------------------- */

const KctPollCount *
kct_group_find_poll (const KctGroup *g, uint32_t leaf)
{
  for (uint32_t i = 0; i < g->n_polls; i++)
    if (g->polls[i].leaf == leaf)
      return &g->polls[i];
  return NULL;
}

KctPollCount *
kct_group_poll (KctGroup *g, uint32_t leaf)
{
  const KctPollCount *f = kct_group_find_poll (g, leaf);
  if (f != NULL)
    return (KctPollCount *)f;
  if (grow ((void **)&g->polls, &g->cap_polls, g->n_polls + 1, sizeof *g->polls) != 0)
    return NULL;
  KctPollCount *p = &g->polls[g->n_polls++];
  memset (p, 0, sizeof *p);
  p->leaf = leaf;
  return p;
}

KctTimeline *
kct_group_timeline_add (KctGroup *g)
{
  if (grow ((void **)&g->tl, &g->cap_tl, g->n_tl + 1, sizeof *g->tl) != 0)
    return NULL;
  KctTimeline *tl = &g->tl[g->n_tl++];
  memset (tl, 0, sizeof *tl);
  tl->rank = KCT_NONE;
  return tl;
}

const KctTimeline *
kct_group_timeline (const KctGroup *g, uint32_t rank)
{
  const KctTimeline *mean = NULL;
  for (uint32_t i = 0; i < g->n_tl; i++)
    {
      if (g->tl[i].rank == rank)
        return &g->tl[i];
      if (g->tl[i].rank == KCT_NONE)
        mean = &g->tl[i];
    }
  return mean;
}

/* ---- statistics over the structure ---------------------------------------- */

static uint64_t
sat_mul (uint64_t a, uint64_t b)
{
  if (a != 0 && b > UINT64_MAX / a)
    return UINT64_MAX;
  return a * b;
}

static uint64_t
sat_add (uint64_t a, uint64_t b)
{
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Bodies refer only to bodies with smaller ids in a decoded or finished trace, and to
 * earlier-made bodies in a recorder's trace: one pass in id order fills a per-body value. */
static uint64_t
polls_per_rank (const KctGroup *g, uint32_t leaf)
{
  const KctPollCount *p = kct_group_find_poll (g, leaf);
  if (p == NULL || g->ranks.n == 0)
    return 0;
  return p->calls / g->ranks.n;
}

/* How many times each leaf runs in one rank of group g (per-run counts of polls averaged),
 * computed top-down over bodies; NULL when out of memory. */
uint64_t *
kct_group_leaf_runs (const KctTrace *t, uint32_t g)
{
  const KctGroup *grp = &t->groups[g];
  uint64_t       *body_mult = calloc ((size_t)t->n_bodies + 1, sizeof *body_mult);
  uint64_t       *leaf_mult = calloc ((size_t)t->n_leaves + 1, sizeof *leaf_mult);
  if (body_mult == NULL || leaf_mult == NULL || grp->seq >= t->n_bodies)
    {
      free (body_mult);
      free (leaf_mult);
      return NULL;
    }
  /* top-down: a body's multiplicity is the sum over the elements that use it; bodies only
   * refer to bodies with smaller ids, so walking ids downwards visits users first */
  body_mult[grp->seq] = 1;
  for (uint32_t b = grp->seq + 1; b-- > 0;)
    {
      if (body_mult[b] == 0)
        continue;
      uint32_t       n;
      const KctElem *e = kct_body (t, b, &n);
      for (uint32_t i = 0; i < n; i++)
        {
          uint32_t id = KCT_REF_ID (e[i].ref);
          if (e[i].ref & KCT_REF_BODY)
            {
              if (id < b)
                body_mult[id] = sat_add (body_mult[id], sat_mul (body_mult[b], e[i].count));
            }
          else if (id < t->n_leaves)
            {
              uint64_t c = (e[i].ref & KCT_REF_POLL) ? 0 : e[i].count;
              leaf_mult[id] = sat_add (leaf_mult[id], sat_mul (body_mult[b], c));
            }
        }
    }
  /* poll runs: their recorded totals */
  for (uint32_t i = 0; i < grp->n_polls; i++)
    if (grp->polls[i].leaf < t->n_leaves)
      leaf_mult[grp->polls[i].leaf]
          = sat_add (leaf_mult[grp->polls[i].leaf], polls_per_rank (grp, grp->polls[i].leaf));
  free (body_mult);
  return leaf_mult;
}

uint64_t
kct_group_events (const KctTrace *t, uint32_t g)
{
  uint64_t *m = kct_group_leaf_runs (t, g);
  if (m == NULL)
    return 0;
  uint64_t n = 0;
  for (uint32_t l = 0; l < t->n_leaves; l++)
    n = sat_add (n, sat_mul (m[l], t->leaf_len[l]));
  free (m);
  return n;
}

void
kct_group_calls (const KctTrace *t, uint32_t g, uint64_t *calls)
{
  uint64_t *m = kct_group_leaf_runs (t, g);
  if (m == NULL)
    return;
  for (uint32_t l = 0; l < t->n_leaves; l++)
    {
      uint32_t      n;
      const KctRaw *r = kct_leaf (t, l, &n);
      for (uint32_t k = 0; k < n; k++)
        if (r[k].type == KCT_RAW_ENTER && r[k].a < t->n_regions)
          calls[r[k].a] = sat_add (calls[r[k].a], m[l]);
    }
  free (m);
}
