/* kct-merge.c: joining compressed traces of different ranks, and the final clean-up.
 *
 * The collector merges along a binary radix tree at MPI_Finalize (log P steps: in step s,
 * rank r + 2^s sends its merged trace to rank r); kubus-trace compress merges the ranks of an
 * OTF2 trace the same way.  Joining needs no expansion: leaves and bodies of one trace are
 * re-interned in the other, groups with the same sequence become one group with the union of
 * their ranks and the sum of their histograms. */
#include "kct-format.h"

#include <stdlib.h>
#include <string.h>

/* ---- a small hash map uint64 -> uint32 ----------------------------------------- */

typedef struct
{
  uint64_t *key;
  uint32_t *val; /* value + 1, 0 = empty */
  uint32_t  slots, used;
} Map;

static inline uint32_t
map_home (uint64_t k, uint32_t slots)
{
  k ^= k >> 31;
  k *= 0x9E3779B97F4A7C15ull;
  return (uint32_t)(k >> 32) & (slots - 1);
}

static int map_put (Map *m, uint64_t k, uint32_t v);

static int
map_grow (Map *m)
{
  Map n = { 0 };
  n.slots = m->slots ? m->slots * 2 : 64;
  n.key = calloc (n.slots, sizeof *n.key);
  n.val = calloc (n.slots, sizeof *n.val);
  if (n.key == NULL || n.val == NULL)
    {
      free (n.key);
      free (n.val);
      return -1;
    }
  for (uint32_t i = 0; i < m->slots; i++)
    if (m->val[i] != 0)
      map_put (&n, m->key[i], m->val[i] - 1);
  free (m->key);
  free (m->val);
  *m = n;
  return 0;
}

static int
map_put (Map *m, uint64_t k, uint32_t v)
{
  if ((m->used + 1) * 2 > m->slots && map_grow (m) != 0)
    return -1;
  uint32_t s = map_home (k, m->slots);
  while (m->val[s] != 0 && m->key[s] != k)
    s = (s + 1) & (m->slots - 1);
  if (m->val[s] == 0)
    m->used++;
  m->key[s] = k;
  m->val[s] = v + 1;
  return 0;
}

static uint32_t
map_get (const Map *m, uint64_t k)
{
  if (m->slots == 0)
    return KCT_NONE;
  uint32_t s = map_home (k, m->slots);
  while (m->val[s] != 0)
    {
      if (m->key[s] == k)
        return m->val[s] - 1;
      s = (s + 1) & (m->slots - 1);
    }
  return KCT_NONE;
}

static void
map_free (Map *m)
{
  free (m->key);
  free (m->val);
  memset (m, 0, sizeof *m);
}

static uint64_t
str_hash (const char *s)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* ---- merging ---------------------------------------------------------------------- */

static uint64_t
comm_id_key (uint64_t key, uint32_t local_id)
{
  return key * 0x100000001b3ull ^ ((uint64_t)local_id << 1 | 1);
}

static int
merge_comms (KctTrace *to, const KctTrace *from)
{
  Map idx = { 0 }, by_key = { 0 };
  int err = 0;
  for (uint32_t i = 0; i < to->n_comms && !err; i++)
    err = map_put (&idx, comm_id_key (to->comms[i].key, to->comms[i].local_id), i)
          || (!(to->comms[i].flags & KCT_COMM_ALIAS) && map_put (&by_key, to->comms[i].key, i));
  for (uint32_t i = 0; i < from->n_comms && !err; i++)
    {
      const KctComm *c = &from->comms[i];
      uint32_t       k = map_get (&idx, comm_id_key (c->key, c->local_id));
      /* two different communicators can only share a key with a different local id */
      if (k != KCT_NONE && to->comms[k].key == c->key && to->comms[k].local_id == c->local_id)
        {
          KctComm *d = &to->comms[k];
          if (d->users.n > 0 || c->users.n > 0)
            err = kct_list_union (&d->users, &d->users, &c->users);
          continue;
        }
      KctComm *d = kct_comm_add (to);
      if (d == NULL)
        {
          err = -1;
          break;
        }
      d->key = c->key;
      d->parent_key = c->parent_key;
      d->local_id = c->local_id;
      d->flags = c->flags;
      /* known by another local id elsewhere: an alias of that entry */
      uint32_t main = map_get (&by_key, c->key);
      if (main != KCT_NONE && to->comms[main].key == c->key)
        d->flags |= KCT_COMM_ALIAS;
      else if (!(d->flags & KCT_COMM_ALIAS))
        err = err || map_put (&by_key, c->key, to->n_comms - 1) != 0;
      d->repeat = c->repeat;
      d->shift = c->shift;
      if (kct_list_copy (&d->members, &c->members) != 0
          || kct_list_copy (&d->members_b, &c->members_b) != 0
          || kct_list_copy (&d->users, &c->users) != 0
          || map_put (&idx, comm_id_key (c->key, c->local_id), to->n_comms - 1) != 0)
        err = -1;
    }
  map_free (&idx);
  map_free (&by_key);
  return err;
}

static int
merge_topos (KctTrace *to, const KctTrace *from)
{
  for (uint32_t i = 0; i < from->n_topos; i++)
    {
      const KctTopo *s = &from->topos[i];
      KctTopo       *d = NULL;
      for (uint32_t k = 0; k < to->n_topos && d == NULL; k++)
        if (to->topos[k].comm_key == s->comm_key && strcmp (to->topos[k].name, s->name) == 0)
          d = &to->topos[k];
      if (d == NULL)
        {
          d = kct_topo_add (to);
          if (d == NULL || kct_set_string (&d->name, s->name) != 0)
            return -1;
          d->comm_key = s->comm_key;
          d->comm = s->comm;
          d->ndims = s->ndims;
          memcpy (d->dims, s->dims, sizeof d->dims);
          memcpy (d->periods, s->periods, sizeof d->periods);
          d->row_major = s->row_major;
        }
      for (uint32_t k = 0; k < s->coord_rank.n; k++)
        if (kct_list_add (&d->coord_rank, s->coord_rank.v[k]) != 0)
          return -1;
      for (uint32_t k = 0; k < s->coords.n; k++)
        if (kct_list_add (&d->coords, s->coords.v[k]) != 0)
          return -1;
    }
  return 0;
}

static int
merge_hosts (KctTrace *to, const KctTrace *from)
{
  for (uint32_t i = 0; i < from->n_hosts; i++)
    {
      KctHost *d = NULL;
      for (uint32_t k = 0; k < to->n_hosts && d == NULL; k++)
        if (strcmp (to->hosts[k].name, from->hosts[i].name) == 0)
          d = &to->hosts[k];
      if (d == NULL && (d = kct_host_add (to, from->hosts[i].name)) == NULL)
        return -1;
      if (kct_list_union (&d->ranks, &d->ranks, &from->hosts[i].ranks) != 0)
        return -1;
      /* every rank of a host knows its properties: the first that does */
      if (d->cpus == 0)
        d->cpus = from->hosts[i].cpus;
      if (!d->other_known && from->hosts[i].other_known)
        {
          d->other_known = 1;
          d->other_cpu_ns = from->hosts[i].other_cpu_ns;
          d->other_wall_ns = from->hosts[i].other_wall_ns;
        }
    }
  return 0;
}

/* The CPU samples of @from's ranks (disjoint from @to's). */
static int
merge_cpus (KctTrace *to, const KctTrace *from)
{
  to->cpu_flags |= from->cpu_flags;
  for (uint32_t i = 0; i < from->n_cpu; i++)
    {
      const KctCpuStream *s = &from->cpu[i];
      KctCpuStream       *d = kct_cpu_stream (to, s->rank, 1);
      if (d == NULL)
        return -1;
      uint8_t *b = malloc (s->n_bytes ? s->n_bytes : 1);
      if (b == NULL)
        return -1;
      memcpy (b, s->bytes, s->n_bytes);
      kct_cpu_clear (d);
      d->rank = s->rank;
      d->bytes = b;
      d->n_bytes = d->cap = s->n_bytes;
      d->n = s->n;
      d->where = s->where; /* the encoder makes every stream as the merged flags say */
    }
  return 0;
}

/* ---- times ------------------------------------------------------------------------ */

/* Adds the values of a timeline @times times to the group's fold (the mean's sums). */
static int
fold_values (KctGroup *g, const uint64_t *v, uint64_t n, uint64_t start, uint32_t times)
{
  if (g->n_folded == 0 || g->fold == NULL)
    {
      free (g->fold);
      g->fold = calloc ((size_t)(n ? n : 1), sizeof *g->fold);
      if (g->fold == NULL)
        return -1;
      g->n_fold = n;
      g->fold_start = 0;
    }
  else if (g->n_fold != n)
    return -1; /* the same sequence must give the same number of values */
  for (uint64_t i = 0; i < n; i++)
    g->fold[i] += v[i] * times;
  g->fold_start += start * times;
  g->n_folded += times;
  return 0;
}

/* A group's mean timeline (a finished trace's) back into sums, for the ranks that replay it. */
static int
unfold_mean (const KctTrace *src, const KctGroup *sg, const KctGrid *grid, KctGroup *dg)
{
  uint32_t own = 0;
  int      mean = 0;
  for (uint32_t i = 0; i < sg->n_tl; i++)
    mean |= sg->tl[i].rank == KCT_NONE;
  if (!mean)
    return 0;
  if (grid == NULL)
    return -1;
  for (uint32_t i = 0; i < sg->n_tl; i++)
    own += sg->tl[i].rank != KCT_NONE;
  for (uint32_t i = 0; i < sg->n_tl; i++)
    if (sg->tl[i].rank == KCT_NONE && sg->ranks.n > own)
      {
        uint64_t *v = NULL, n = 0;
        if (kct_timeline_values (src, sg, &sg->tl[i], grid, &v, &n) != 0)
          return -1;
        int err = fold_values (dg, v, n, sg->tl[i].start, sg->ranks.n - own);
        free (v);
        return err;
      }
  return 0;
}

static int
unfold_own_mean (const KctTrace *t, KctGroup *g, const KctGrid *grid)
{
  for (uint32_t i = 0; i < g->n_tl; i++)
    if (g->tl[i].rank == KCT_NONE)
      {
        if (unfold_mean (t, g, grid, g) != 0)
          return -1;
        kct_timeline_clear (&g->tl[i]);
        memmove (g->tl + i, g->tl + i + 1, sizeof *g->tl * (g->n_tl - i - 1));
        g->n_tl--;
        return 0;
      }
  return 0;
}

typedef struct
{
  uint64_t score;
  uint32_t rank, group, index;
} Scored;

static int
cmp_score (const void *a, const void *b)
{
  const Scored *x = a, *y = b;
  if (x->score != y->score)
    return x->score > y->score ? -1 : 1; /* farthest first */
  return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* A trace holds at most @keep timelines, a group's mean counted (or one mean per group when
 * there are more groups than that), whatever the number of ranks: the ranks farthest from
 * their group's mean (the summed differences of all their values) keep their own times as
 * long as that fits; the times of the others go into their group's mean.  A rank that makes
 * its group complete costs nothing (the group then needs no mean): a group's only rank, the
 * last of a group whose others all stay. */
static int
limit_timelines (const KctTrace *t, const KctGrid *grid, uint32_t keep)
{
  uint32_t own = 0, total = 0;
  for (uint32_t g = 0; g < t->n_groups; g++)
    {
      own += t->groups[g].n_tl;
      total += t->groups[g].n_tl + (t->groups[g].n_tl < t->groups[g].ranks.n ? 1 : 0);
    }
  if (total <= keep)
    return 0;
  if (grid == NULL)
    return -1;
  Scored    *order = calloc (own, sizeof *order);
  uint64_t **vals = calloc (own, sizeof *vals);
  uint64_t  *n_vals = calloc (own, sizeof *n_vals);
  int        err = order == NULL || vals == NULL || n_vals == NULL;
  uint32_t   k = 0;
  for (uint32_t gi = 0; gi < t->n_groups && !err; gi++)
    {
      KctGroup *g = &t->groups[gi];
      uint32_t  first = k;
      uint64_t  n = 0;
      for (uint32_t i = 0; i < g->n_tl && !err; i++, k++)
        {
          err = g->tl[i].rank == KCT_NONE
                || kct_timeline_values (t, g, &g->tl[i], grid, &vals[k], &n_vals[k]) != 0
                || (i > 0 && n_vals[k] != n) || (g->n_folded > 0 && n_vals[k] != g->n_fold);
          n = n_vals[k];
          order[k] = (Scored){ 0, g->tl[i].rank, gi, i };
        }
      if (err || g->n_tl == 0)
        continue;
      /* the group's mean over all its ranks so far */
      double all = (double)g->n_folded + g->n_tl;
      for (uint64_t v = 0; v < n; v++)
        {
          double sum = g->n_folded > 0 ? (double)g->fold[v] : 0;
          for (uint32_t i = first; i < k; i++)
            sum += (double)vals[i][v];
          double mean = sum / all;
          for (uint32_t i = first; i < k; i++)
            {
              double d = (double)vals[i][v] - mean;
              d = d < 0 ? -d : d;
              order[i].score = order[i].score + d < 1.8e19 ? order[i].score + (uint64_t)d : UINT64_MAX - 1;
            }
        }
    }
  if (!err)
    {
      /* the farthest stay while they fit; the values of the others go into their group's sums */
      Scored   *sorted = malloc (sizeof *sorted * own);
      uint32_t *kept = calloc ((size_t)t->n_groups + 1, sizeof *kept);
      err = sorted == NULL || kept == NULL;
      if (!err)
        {
          memcpy (sorted, order, sizeof *sorted * own);
          qsort (sorted, own, sizeof *sorted, cmp_score);
          uint32_t used = 0; /* timelines: every group a mean, to begin with */
          for (uint32_t gi = 0; gi < t->n_groups; gi++)
            used += t->groups[gi].ranks.n > 0;
          /* a group's only rank first: it is its group's mean, so it stays for free */
          for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < own; i++)
              {
                uint32_t gi = sorted[i].group;
                uint32_t cost = kept[gi] + 1 == t->groups[gi].ranks.n ? 0 : 1;
                if (sorted[i].score == UINT64_MAX || (pass == 0 && t->groups[gi].ranks.n != 1))
                  continue;
                if (used + cost <= keep)
                  {
                    kept[gi]++;
                    used += cost;
                    sorted[i].score = UINT64_MAX; /* marked: stays */
                  }
              }
          for (uint32_t i = 0; i < own && !err; i++)
            {
              if (sorted[i].score == UINT64_MAX)
                continue;
              KctGroup    *g = &t->groups[sorted[i].group];
              KctTimeline *tl = &g->tl[sorted[i].index];
              uint32_t     at = 0;
              for (uint32_t j = 0; j < own; j++)
                if (order[j].group == sorted[i].group && order[j].index == sorted[i].index)
                  at = j;
              err = fold_values (g, vals[at], n_vals[at], tl->start, 1) != 0;
              kct_timeline_clear (tl);
              tl->rank = KCT_NONE; /* marked: dropped below */
            }
          for (uint32_t gi = 0; gi < t->n_groups; gi++)
            {
              KctGroup *g = &t->groups[gi];
              uint32_t  m = 0;
              for (uint32_t i = 0; i < g->n_tl; i++)
                if (g->tl[i].rank != KCT_NONE)
                  g->tl[m++] = g->tl[i];
              g->n_tl = m;
            }
        }
      free (sorted);
      free (kept);
    }
  for (uint32_t i = 0; vals != NULL && i < own; i++)
    free (vals[i]);
  free (vals);
  free (n_vals);
  free (order);
  return err ? -1 : 0;
}

static int
merge_group (KctGroup *d, const KctTrace *from, const KctGroup *s, const uint32_t *leaf_map,
             const KctGrid *grid)
{
  if (kct_list_union (&d->ranks, &d->ranks, &s->ranks) != 0)
    return -1;
  for (uint32_t k = 0; k < s->n_polls; k++)
    {
      KctPollCount *q = kct_group_poll (d, leaf_map[s->polls[k].leaf]);
      if (q == NULL)
        return -1;
      q->calls += s->polls[k].calls;
    }
  for (uint32_t k = 0; k < s->n_tl; k++)
    {
      const KctTimeline *st = &s->tl[k];
      int                dup = st->rank == KCT_NONE;
      for (uint32_t j = 0; j < d->n_tl && !dup; j++)
        dup = d->tl[j].rank == st->rank;
      if (dup)
        continue; /* a mean, or a rank merged twice */
      KctTimeline *dt = kct_group_timeline_add (d);
      if (dt == NULL || (dt->bytes = malloc (st->n_bytes ? st->n_bytes : 1)) == NULL)
        return -1;
      dt->rank = st->rank;
      dt->start = st->start;
      dt->n_bytes = st->n_bytes;
      memcpy (dt->bytes, st->bytes, st->n_bytes);
    }
  if (unfold_mean (from, s, grid, d) != 0)
    return -1;
  if (s->n_folded > 0)
    {
      if (s->fold == NULL)
        return -1;
      if (d->n_folded == 0)
        {
          free (d->fold);
          d->fold = malloc (sizeof *d->fold * (size_t)(s->n_fold ? s->n_fold : 1));
          if (d->fold == NULL)
            return -1;
          memcpy (d->fold, s->fold, sizeof *d->fold * (size_t)s->n_fold);
          d->n_fold = s->n_fold;
          d->fold_start = s->fold_start;
          d->n_folded = s->n_folded;
        }
      else
        {
          if (d->n_fold != s->n_fold)
            return -1;
          for (uint64_t i = 0; i < s->n_fold; i++)
            d->fold[i] += s->fold[i];
          d->fold_start += s->fold_start;
          d->n_folded += s->n_folded;
        }
    }
  return 0;
}

int
kct_merge (KctTrace *to, const KctTrace *from)
{
  int       err = 0;
  uint32_t *region_map = NULL, *leaf_map = NULL, *body_map = NULL;
  KctRaw   *buf = NULL;
  KctElem  *ebuf = NULL;
  Map       names = { 0 }, seqs = { 0 };

  /* header */
  if (from->h.n_ranks > to->h.n_ranks)
    to->h.n_ranks = from->h.n_ranks;
  if (to->h.global_start == 0 || (from->h.global_start != 0 && from->h.global_start < to->h.global_start))
    {
      uint64_t end = to->h.global_start + to->h.length;
      to->h.global_start = from->h.global_start;
      if (end > to->h.global_start)
        to->h.length = end - to->h.global_start;
    }
  if (from->h.global_start + from->h.length > to->h.global_start + to->h.length)
    to->h.length = from->h.global_start + from->h.length - to->h.global_start;
  to->h.flags |= from->h.flags;
  if ((to->h.program == NULL || to->h.program[0] == '\0') && from->h.program != NULL)
    err |= kct_set_string (&to->h.program, from->h.program);
  if ((to->h.creator == NULL || to->h.creator[0] == '\0') && from->h.creator != NULL)
    err |= kct_set_string (&to->h.creator, from->h.creator);
  if (from->h.realtime_start != 0 && to->h.realtime_start == 0)
    to->h.realtime_start = from->h.realtime_start;
  /* times: both on the same grid (timelines are not recoded) */
  if (to->h.time_abs == 0 && to->h.time_bits == 0)
    {
      to->h.time_abs = from->h.time_abs;
      to->h.time_bits = from->h.time_bits;
    }
  else if ((from->h.time_abs != 0 || from->h.time_bits != 0)
           && (from->h.time_abs != to->h.time_abs || from->h.time_bits != to->h.time_bits))
    return -1;
  if (to->h.timelines == 0)
    to->h.timelines = from->h.timelines;
  KctGrid grid = { 0 };
  int     have_grid = kct_grid_init (&grid, to->h.time_abs, to->h.time_bits) == 0;
  /* a finished trace's mean timelines back into sums, so that they can take more ranks */
  for (uint32_t i = 0; i < to->n_groups && !err; i++)
    err = unfold_own_mean (to, &to->groups[i], have_grid ? &grid : NULL) != 0;

  /* regions by name */
  region_map = malloc (sizeof *region_map * (from->n_regions + 1));
  err |= region_map == NULL;
  for (uint32_t i = 0; i < to->n_regions && !err; i++)
    err |= map_put (&names, str_hash (to->regions[i].name), i);
  for (uint32_t i = 0; i < from->n_regions && !err; i++)
    {
      uint32_t k = map_get (&names, str_hash (from->regions[i].name));
      if (k == KCT_NONE || strcmp (to->regions[k].name, from->regions[i].name) != 0)
        {
          k = kct_region_find (to, from->regions[i].name);
          if (k == KCT_NONE)
            {
              k = kct_region_add (to, &from->regions[i]);
              err |= k == KCT_NONE || map_put (&names, str_hash (from->regions[i].name), k) != 0;
            }
        }
      else
        to->regions[k].flags |= from->regions[i].flags;
      region_map[i] = k;
    }

  err = err || merge_comms (to, from) != 0 || merge_topos (to, from) != 0
        || merge_hosts (to, from) != 0;

  /* leaves: regions renamed, then interned */
  leaf_map = malloc (sizeof *leaf_map * (from->n_leaves + 1));
  err = err || leaf_map == NULL;
  uint32_t cap = 0;
  for (uint32_t i = 0; i < from->n_leaves && !err; i++)
    {
      uint32_t      n;
      const KctRaw *r = kct_leaf (from, i, &n);
      if (n > cap)
        {
          free (buf);
          buf = malloc (sizeof *buf * n);
          cap = buf ? n : 0;
          if (buf == NULL)
            {
              err = 1;
              break;
            }
        }
      memcpy (buf, r, sizeof *buf * n);
      for (uint32_t k = 0; k < n; k++)
        if (buf[k].type == KCT_RAW_ENTER || buf[k].type == KCT_RAW_LEAVE)
          buf[k].a = buf[k].a < from->n_regions ? region_map[buf[k].a] : buf[k].a;
      leaf_map[i] = kct_leaf_intern (to, buf, n);
      err = leaf_map[i] == KCT_NONE;
    }

  /* bodies in id order: each refers only to bodies mapped before it */
  body_map = malloc (sizeof *body_map * (from->n_bodies + 1));
  err = err || body_map == NULL;
  cap = 0;
  for (uint32_t i = 0; i < from->n_bodies && !err; i++)
    {
      uint32_t       n;
      const KctElem *e = kct_body (from, i, &n);
      if (n > cap || ebuf == NULL)
        {
          free (ebuf);
          ebuf = malloc (sizeof *ebuf * (n ? n : 1));
          cap = ebuf ? n : 0;
          if (ebuf == NULL)
            {
              err = 1;
              break;
            }
        }
      for (uint32_t k = 0; k < n; k++)
        {
          uint32_t id = KCT_REF_ID (e[k].ref);
          uint32_t flags = e[k].ref & (KCT_REF_BODY | KCT_REF_POLL);
          uint32_t m = (e[k].ref & KCT_REF_BODY) ? (id < i ? body_map[id] : KCT_NONE) : leaf_map[id];
          if (m == KCT_NONE)
            {
              err = 1;
              break;
            }
          ebuf[k].ref = m | flags;
          ebuf[k].count = e[k].count;
        }
      if (!err)
        {
          body_map[i] = kct_body_intern (to, ebuf, n);
          err = body_map[i] == KCT_NONE;
        }
    }

  /* groups: the same sequence joins */
  for (uint32_t i = 0; i < to->n_groups && !err; i++)
    if (to->groups[i].seq != KCT_NONE)
      err = map_put (&seqs, to->groups[i].seq, i) != 0;
  for (uint32_t i = 0; i < from->n_groups && !err; i++)
    {
      const KctGroup *s = &from->groups[i];
      if (s->seq == KCT_NONE || s->seq >= from->n_bodies)
        continue;
      uint32_t seq = body_map[s->seq];
      uint32_t k = map_get (&seqs, seq);
      if (k == KCT_NONE)
        {
          KctGroup *g = kct_group_add (to);
          if (g == NULL)
            {
              err = 1;
              break;
            }
          g->seq = seq;
          k = to->n_groups - 1;
          err = map_put (&seqs, seq, k) != 0;
        }
      err = err || merge_group (&to->groups[k], from, s, leaf_map, have_grid ? &grid : NULL) != 0;
    }
  if (!err)
    err = limit_timelines (to, have_grid ? &grid : NULL,
                           to->h.timelines ? to->h.timelines : KCT_TIMELINES)
          != 0;
  /* the samples of the ranks that keep times of their own (the others replay a mean) */
  if (!err)
    err = merge_cpus (to, from) != 0;
  if (!err)
    kct_cpu_prune (to);

  kct_grid_clear (&grid);
  map_free (&names);
  map_free (&seqs);
  free (region_map);
  free (leaf_map);
  free (body_map);
  free (buf);
  free (ebuf);
  return err ? -1 : 0;
}

/* ---- finishing ---------------------------------------------------------------------- */

static int
cmp_u32 (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Leaves and bodies nobody reaches go, regions no leaf names go, ids are renumbered in their
 * old order (so bodies still refer only to earlier bodies). */
static int
compact_structure (KctTrace *t)
{
  int       err = 0;
  uint8_t  *body_live = calloc ((size_t)t->n_bodies + 1, 1);
  uint8_t  *leaf_live = calloc ((size_t)t->n_leaves + 1, 1);
  uint32_t *body_new = malloc (sizeof (uint32_t) * ((size_t)t->n_bodies + 1));
  uint32_t *leaf_new = malloc (sizeof (uint32_t) * ((size_t)t->n_leaves + 1));
  uint32_t *region_new = malloc (sizeof (uint32_t) * ((size_t)t->n_regions + 1));
  uint8_t  *region_live = calloc ((size_t)t->n_regions + 1, 1);
  KctTrace *n = kct_trace_new ();
  if (!body_live || !leaf_live || !body_new || !leaf_new || !region_new || !region_live || !n)
    {
      err = -1;
      goto out;
    }
  for (uint32_t g = 0; g < t->n_groups; g++)
    {
      const KctGroup *grp = &t->groups[g];
      if (grp->seq < t->n_bodies)
        body_live[grp->seq] = 1;
    }
  for (uint32_t b = t->n_bodies; b-- > 0;)
    {
      if (!body_live[b])
        continue;
      uint32_t       m;
      const KctElem *e = kct_body (t, b, &m);
      for (uint32_t k = 0; k < m; k++)
        {
          if (e[k].ref & KCT_REF_BODY)
            body_live[KCT_REF_ID (e[k].ref)] = 1;
          else
            leaf_live[KCT_REF_ID (e[k].ref)] = 1;
        }
    }
  for (uint32_t l = 0; l < t->n_leaves; l++)
    if (leaf_live[l])
      {
        uint32_t      m;
        const KctRaw *r = kct_leaf (t, l, &m);
        for (uint32_t k = 0; k < m; k++)
          if ((r[k].type == KCT_RAW_ENTER || r[k].type == KCT_RAW_LEAVE) && r[k].a < t->n_regions)
            region_live[r[k].a] = 1;
      }
  /* regions */
  for (uint32_t i = 0; i < t->n_regions && !err; i++)
    {
      region_new[i] = KCT_NONE;
      if (region_live[i])
        {
          region_new[i] = kct_region_add (n, &t->regions[i]);
          err = region_new[i] == KCT_NONE;
        }
    }
  /* leaves */
  KctRaw  *buf = NULL;
  uint32_t cap = 0;
  for (uint32_t l = 0; l < t->n_leaves && !err; l++)
    {
      leaf_new[l] = KCT_NONE;
      if (!leaf_live[l])
        continue;
      uint32_t      m;
      const KctRaw *r = kct_leaf (t, l, &m);
      if (m > cap)
        {
          free (buf);
          buf = malloc (sizeof *buf * m);
          cap = buf ? m : 0;
          if (buf == NULL)
            {
              err = -1;
              break;
            }
        }
      memcpy (buf, r, sizeof *buf * m);
      for (uint32_t k = 0; k < m; k++)
        if ((buf[k].type == KCT_RAW_ENTER || buf[k].type == KCT_RAW_LEAVE) && buf[k].a < t->n_regions)
          buf[k].a = region_new[buf[k].a];
      leaf_new[l] = kct_leaf_intern (n, buf, m);
      err = leaf_new[l] == KCT_NONE;
    }
  free (buf);
  /* bodies */
  KctElem *ebuf = NULL;
  cap = 0;
  for (uint32_t b = 0; b < t->n_bodies && !err; b++)
    {
      body_new[b] = KCT_NONE;
      if (!body_live[b])
        continue;
      uint32_t       m;
      const KctElem *e = kct_body (t, b, &m);
      if (m >= cap)
        {
          free (ebuf);
          ebuf = malloc (sizeof *ebuf * (m + 1));
          cap = ebuf ? m + 1 : 0;
          if (ebuf == NULL)
            {
              err = -1;
              break;
            }
        }
      for (uint32_t k = 0; k < m; k++)
        {
          uint32_t id = KCT_REF_ID (e[k].ref);
          ebuf[k].ref = ((e[k].ref & KCT_REF_BODY) ? body_new[id] : leaf_new[id])
                        | (e[k].ref & (KCT_REF_BODY | KCT_REF_POLL));
          ebuf[k].count = e[k].count;
        }
      body_new[b] = kct_body_intern (n, ebuf, m);
      err = body_new[b] == KCT_NONE;
    }
  free (ebuf);
  if (err)
    goto out;
  /* groups: ids renamed, then sorted by their first rank */
  for (uint32_t g = 0; g < t->n_groups; g++)
    {
      KctGroup *grp = &t->groups[g];
      grp->seq = body_new[grp->seq];
      /* poll counts of leaves that are still there */
      uint32_t kept = 0;
      for (uint32_t k = 0; k < grp->n_polls; k++)
        if (grp->polls[k].leaf < t->n_leaves && leaf_new[grp->polls[k].leaf] != KCT_NONE)
          {
            grp->polls[kept] = grp->polls[k];
            grp->polls[kept++].leaf = leaf_new[grp->polls[k].leaf];
          }
      grp->n_polls = kept;
    }
  for (uint32_t i = 1; i < t->n_groups; i++)
    for (uint32_t j = i; j > 0 && t->groups[j].ranks.n > 0 && t->groups[j - 1].ranks.n > 0
                         && t->groups[j].ranks.v[0] < t->groups[j - 1].ranks.v[0];
         j--)
      {
        KctGroup tmp = t->groups[j];
        t->groups[j] = t->groups[j - 1];
        t->groups[j - 1] = tmp;
      }
  /* move the new tables in */
  {
    KctTrace old = *t;
    t->regions = n->regions;
    t->n_regions = n->n_regions;
    t->cap_regions = n->cap_regions;
    t->raw = n->raw;
    t->n_raw = n->n_raw;
    t->cap_raw = n->cap_raw;
    t->leaf_off = n->leaf_off;
    t->leaf_len = n->leaf_len;
    t->n_leaves = n->n_leaves;
    t->cap_leaves = n->cap_leaves;
    t->leaf_index = n->leaf_index;
    t->leaf_slots = n->leaf_slots;
    t->elems = n->elems;
    t->n_elems = n->n_elems;
    t->cap_elems = n->cap_elems;
    t->body_off = n->body_off;
    t->body_len = n->body_len;
    t->n_bodies = n->n_bodies;
    t->cap_bodies = n->cap_bodies;
    t->body_index = n->body_index;
    t->body_slots = n->body_slots;
    n->regions = old.regions;
    n->n_regions = old.n_regions;
    n->raw = old.raw;
    n->leaf_off = old.leaf_off;
    n->leaf_len = old.leaf_len;
    n->leaf_index = old.leaf_index;
    n->elems = old.elems;
    n->body_off = old.body_off;
    n->body_len = old.body_len;
    n->body_index = old.body_index;
  }
out:
  kct_trace_free (n);
  free (body_live);
  free (leaf_live);
  free (body_new);
  free (leaf_new);
  free (region_new);
  free (region_live);
  return err;
}

/* the sorted union of an entry's two member groups */
static int
all_members (const KctComm *c, KctList *out)
{
  KctList a = { 0 }, b = { 0 };
  int     err = kct_list_copy (&a, &c->members) || kct_list_copy (&b, &c->members_b);
  if (!err)
    {
      if (a.n > 1)
        qsort (a.v, a.n, sizeof *a.v, cmp_u32);
      if (b.n > 1)
        qsort (b.v, b.n, sizeof *b.v, cmp_u32);
      err = kct_list_union (out, &a, &b);
    }
  kct_list_clear (&a);
  kct_list_clear (&b);
  return err ? -1 : 0;
}

static int
shifted (const KctList *a, const KctList *b, int64_t shift)
{
  if (a->n != b->n)
    return 0;
  for (uint32_t i = 0; i < a->n; i++)
    if ((int64_t)b->v[i] - (int64_t)a->v[i] != shift)
      return 0;
  return 1;
}

/* Communicators that differ only by a constant shift of their ranks (MPI_COMM_SELF of every
 * rank, the rows or columns of a grid) become one entry repeated; parents become indices. */
static int
compact_comms (KctTrace *t)
{
  uint32_t  n = t->n_comms;
  KctComm  *c = t->comms;
  uint32_t *family = malloc (sizeof *family * (n + 1));
  uint8_t  *taken = calloc ((size_t)n + 1, 1);
  KctComm  *out = calloc ((size_t)n + 1, sizeof *out);
  uint32_t  n_out = 0;
  int       err = family == NULL || taken == NULL || out == NULL;
  /* users equal to all members are implied (an alias names its users) */
  for (uint32_t i = 0; i < n && !err; i++)
    {
      if (c[i].flags & KCT_COMM_ALIAS)
        continue;
      KctList all = { 0 };
      err = all_members (&c[i], &all) != 0;
      if (!err && kct_list_equal (&all, &c[i].users))
        c[i].users.n = 0;
      kct_list_clear (&all);
    }
  /* communicators with aliases stay single: an alias names one instance */
  uint8_t *pinned = calloc ((size_t)n + 1, 1);
  err = err || pinned == NULL;
  for (uint32_t i = 0; i < n && !err; i++)
    if (c[i].flags & KCT_COMM_ALIAS)
      for (uint32_t j = 0; j < n; j++)
        if (c[j].key == c[i].key && !(c[j].flags & KCT_COMM_ALIAS))
          pinned[j] = 1;
  for (uint32_t i = 0; i < n && !err; i++)
    {
      if (taken[i])
        continue;
      /* the next instances: same shape, members shifted by k times one shift (an entry that
       * is a family already stays as it is) */
      KctComm *o = &out[n_out];
      *o = c[i];
      memset (&c[i].members, 0, sizeof c[i].members);
      memset (&c[i].members_b, 0, sizeof c[i].members_b);
      memset (&c[i].users, 0, sizeof c[i].users);
      taken[i] = 1;
      family[i] = n_out;
      if (o->repeat > 1)
        {
          n_out++;
          continue;
        }
      o->shift = 0;
      for (uint32_t j = i + 1; j < n && o->members.n > 0 && !pinned[i] && !(o->flags & KCT_COMM_ALIAS); j++)
        {
          if (taken[j] || pinned[j] || c[j].repeat != 1 || c[j].local_id != o->local_id || c[j].flags != o->flags
              || c[j].members.n != o->members.n || c[j].members_b.n != o->members_b.n
              || c[j].users.n != o->users.n || c[j].members.n == 0)
            continue;
          int64_t s = (int64_t)c[j].members.v[0] - (int64_t)o->members.v[0];
          if (o->repeat == 1 && s == 0)
            continue;
          if (o->repeat > 1 && s != o->shift * (int64_t)o->repeat)
            continue;
          if (!shifted (&o->members, &c[j].members, s) || !shifted (&o->members_b, &c[j].members_b, s)
              || !shifted (&o->users, &c[j].users, s))
            continue;
          if (o->repeat == 1)
            o->shift = s;
          taken[j] = 1;
          family[j] = n_out;
          o->repeat++;
        }
      n_out++;
    }
  /* parents: the family of the parent communicator */
  if (!err)
    {
      Map keys = { 0 };
      for (uint32_t i = 0; i < n && !err; i++)
        if (c[i].key != 0 && !(c[i].flags & KCT_COMM_ALIAS))
          err = map_put (&keys, c[i].key, i) != 0;
      for (uint32_t f = 0; f < n_out; f++)
        {
          /* an alias's parent is the communicator it names */
          uint64_t pk = (out[f].flags & KCT_COMM_ALIAS) ? out[f].key : out[f].parent_key;
          uint32_t p = pk ? map_get (&keys, pk) : KCT_NONE;
          out[f].parent = p != KCT_NONE ? family[p] : out[f].parent;
          out[f].key = 0;
          out[f].parent_key = 0;
        }
      /* topologies: the family holding their communicator */
      for (uint32_t k = 0; k < t->n_topos; k++)
        {
          uint32_t p = t->topos[k].comm_key ? map_get (&keys, t->topos[k].comm_key) : KCT_NONE;
          if (p != KCT_NONE)
            t->topos[k].comm = family[p];
          t->topos[k].comm_key = 0;
        }
      map_free (&keys);
    }
  if (err)
    {
      free (family);
      free (taken);
      free (pinned);
      free (out);
      return -1;
    }
  for (uint32_t i = 0; i < n; i++)
    {
      kct_list_clear (&c[i].members);
      kct_list_clear (&c[i].members_b);
      kct_list_clear (&c[i].users);
    }
  free (t->comms);
  t->comms = out;
  t->n_comms = n_out;
  t->cap_comms = n + 1;
  free (family);
  free (taken);
  free (pinned);
  return 0;
}

typedef struct
{
  uint32_t rank;
  uint32_t at;
} RankAt;

static int
cmp_rank_at (const void *a, const void *b)
{
  const RankAt *x = a, *y = b;
  return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Coordinates sorted by rank; when every rank's are the row-major decomposition of its rank
 * (MPI_Cart_create without reordering), only that fact is kept. */
static int
compact_topos (KctTrace *t)
{
  for (uint32_t i = 0; i < t->n_topos; i++)
    {
      KctTopo *tp = &t->topos[i];
      if (tp->row_major)
        continue;
      uint32_t n = tp->coord_rank.n, nd = tp->ndims;
      RankAt  *order = malloc (sizeof *order * (n ? n : 1));
      KctList  coords = { 0 };
      if (order == NULL)
        return -1;
      for (uint32_t k = 0; k < n; k++)
        order[k] = (RankAt){ tp->coord_rank.v[k], k };
      if (n > 1)
        qsort (order, n, sizeof *order, cmp_rank_at);
      int      row_major = 1;
      uint64_t cells = 1;
      for (uint32_t d = 0; d < nd; d++)
        cells *= tp->dims[d];
      if (n != cells)
        row_major = 0;
      for (uint32_t k = 0; k < n; k++)
        {
          tp->coord_rank.v[k] = order[k].rank;
          uint32_t rest = order[k].rank;
          if (order[k].rank != k)
            row_major = 0;
          for (uint32_t d = nd; d-- > 0;)
            {
              uint32_t c = tp->coords.v[(size_t)order[k].at * nd + d];
              if (c != rest % tp->dims[d])
                row_major = 0;
              rest /= tp->dims[d];
            }
          for (uint32_t d = 0; d < nd; d++)
            if (kct_list_add (&coords, tp->coords.v[(size_t)order[k].at * nd + d]) != 0)
              {
                free (order);
                kct_list_clear (&coords);
                return -1;
              }
        }
      free (order);
      kct_list_clear (&tp->coords);
      tp->coords = coords;
      if (row_major)
        {
          tp->row_major = 1;
          tp->coord_rank.n = 0;
          tp->coords.n = 0;
        }
    }
  return 0;
}

static int
cmp_host (const void *a, const void *b)
{
  const KctHost *x = a, *y = b;
  uint32_t       u = x->ranks.n ? x->ranks.v[0] : UINT32_MAX;
  uint32_t       v = y->ranks.n ? y->ranks.v[0] : UINT32_MAX;
  return u < v ? -1 : u > v;
}

/* The mean timeline of each group's ranks without times of their own. */
static int
code_means (KctTrace *t)
{
  KctGrid grid;
  int     have_grid = 0, err = 0;
  for (uint32_t i = 0; i < t->n_groups && !err; i++)
    {
      KctGroup *g = &t->groups[i];
      if (g->n_folded == 0)
        continue;
      if (!have_grid)
        {
          kct_time_defaults (t);
          if (kct_grid_init (&grid, t->h.time_abs, t->h.time_bits) != 0)
            return -1;
          have_grid = 1;
        }
      KctTimeline mean = { KCT_NONE, 0, NULL, 0, 0 };
      err = g->fold == NULL
            || kct_timeline_from_values (t, g, &grid, g->fold, g->n_fold, g->n_folded, &mean) != 0;
      KctTimeline *tl = err ? NULL : kct_group_timeline_add (g);
      if (tl == NULL)
        {
          kct_timeline_clear (&mean);
          err = 1;
          break;
        }
      *tl = mean;
      tl->start = g->fold_start / g->n_folded + ((g->fold_start % g->n_folded) * 2 >= g->n_folded);
      free (g->fold);
      g->fold = NULL;
      g->n_fold = 0;
      g->n_folded = 0;
      g->fold_start = 0;
    }
  if (have_grid)
    kct_grid_clear (&grid);
  return err ? -1 : 0;
}

int
kct_finish (KctTrace *t)
{
  t->h.flags &= ~KCT_FILE_PARTIAL;
  kct_time_defaults (t);
  if (compact_structure (t) != 0 || compact_comms (t) != 0 || compact_topos (t) != 0
      || code_means (t) != 0)
    return -1;
  kct_cpu_prune (t);
  if (t->n_hosts > 1)
    qsort (t->hosts, t->n_hosts, sizeof *t->hosts, cmp_host);
  return 0;
}
