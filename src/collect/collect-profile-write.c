/* collect-profile-write.c: merges the ranks' profile records into one call tree and writes
 * EXPDIR/profile.cube (CUBE 3 XML) atomically.
 *
 * Call paths of different ranks are the same call path when their parents are and they call
 * the same region from the same call site (module and offset in it).  Every number is written
 * from integers (times are nanoseconds), so the file does not depend on the application's
 * locale.  See docs/decisions/2026-11-25-profile.md. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collect-profile-write.h"
#include "kubus-mpi-io.h"
#include "kubus-text.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- word buffers ---------------------------------------------------------------------------- */

void
kubus_words_put (KubusWords *b, uint64_t v)
{
  if (b->failed)
    return;
  if (b->n == b->cap)
    {
      size_t    cap = b->cap ? 2 * b->cap : 4096;
      uint64_t *n = realloc (b->w, cap * sizeof *n);
      if (n == NULL)
        {
          b->failed = 1;
          return;
        }
      b->w = n;
      b->cap = cap;
    }
  b->w[b->n++] = v;
}

void
kubus_words_put_str (KubusWords *b, const char *s)
{
  size_t len = strlen (s);
  kubus_words_put (b, len);
  for (size_t i = 0; i < len; i += 8)
    {
      uint64_t v = 0;
      memcpy (&v, s + i, len - i < 8 ? len - i : 8);
      kubus_words_put (b, v);
    }
}

void
kubus_words_clear (KubusWords *b)
{
  free (b->w);
  memset (b, 0, sizeof *b);
}

/* ---- categories -------------------------------------------------------------------------------- */

static int
in_list (const char *name, const char *const *list, int prefix)
{
  for (int i = 0; list[i] != NULL; i++)
    if (prefix ? strncmp (name, list[i], strlen (list[i])) == 0 : strcmp (name, list[i]) == 0)
      return 1;
  return 0;
}

int
kubus_prof_category (const char *n)
{
  static const char *const p2p[]
      = { "MPI_Send",  "MPI_Bsend",  "MPI_Rsend",        "MPI_Ssend",         "MPI_Isend",
          "MPI_Ibsend", "MPI_Irsend", "MPI_Issend",       "MPI_Recv",          "MPI_Irecv",
          "MPI_Sendrecv", "MPI_Wait", "MPI_Test",         "MPI_Probe",         "MPI_Iprobe",
          "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv",       "MPI_Imrecv",        "MPI_Start",
          "MPI_Request_free", "MPI_Cancel", "MPI_Buffer_attach", "MPI_Buffer_detach", NULL };
  static const char *const coll[]
      = { "MPI_Bcast",      "MPI_Gather",      "MPI_Scatter",    "MPI_Allgather",
          "MPI_Alltoall",   "MPI_Allreduce",   "MPI_Reduce",     "MPI_Scan",
          "MPI_Exscan",     "MPI_Neighbor_",   "MPI_Ibcast",     "MPI_Igather",
          "MPI_Iscatter",   "MPI_Iallgather",  "MPI_Ialltoall",  "MPI_Iallreduce",
          "MPI_Ireduce",    "MPI_Iscan",       "MPI_Iexscan",    "MPI_Ineighbor_", NULL };
  static const char *const mgmt[]
      = { "MPI_Comm_", "MPI_Cart_", "MPI_Cartdim_", "MPI_Group_", "MPI_Dims_create",
          "MPI_Topo_", "MPI_Graph", "MPI_Intercomm_", "MPI_Dist_graph", NULL };
  static const char *const barrier[] = { "MPI_Barrier", "MPI_Ibarrier", NULL };
  static const char *const init[] = { "MPI_Init", "MPI_Init_thread", NULL };

  if (strncmp (n, "MPI_", 4) != 0)
    return KUBUS_CAT_USER;
  if (in_list (n, init, 0) || strcmp (n, "MPI_Finalize") == 0)
    return KUBUS_CAT_INIT_EXIT;
  if (in_list (n, barrier, 0))
    return KUBUS_CAT_BARRIER;
  if (strncmp (n, "MPI_File_", 9) == 0)
    return kubus_mpi_io_collective (n) ? KUBUS_CAT_IO_COLL : KUBUS_CAT_IO;
  if (in_list (n, mgmt, 1))
    return KUBUS_CAT_MGMT;
  if (in_list (n, coll, 1) && strcmp (n, "MPI_Reduce_local") != 0)
    return KUBUS_CAT_COLL;
  if (in_list (n, p2p, 1))
    return KUBUS_CAT_P2P;
  return KUBUS_CAT_OTHER;
}

/* ---- interned strings -------------------------------------------------------------------------- */

typedef struct
{
  char    **s;
  size_t    n, cap;
  uint32_t *slots; /* id + 1 */
  size_t    n_slots;
} Strings;

static uint64_t
hash_bytes (const char *s, size_t len)
{
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static int
strings_grow (Strings *t)
{
  size_t    n_slots = t->n_slots ? 2 * t->n_slots : 256;
  uint32_t *slots = calloc (n_slots, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (size_t i = 0; i < t->n; i++)
    {
      size_t s = hash_bytes (t->s[i], strlen (t->s[i])) & (n_slots - 1);
      while (slots[s] != 0)
        s = (s + 1) & (n_slots - 1);
      slots[s] = (uint32_t)i + 1;
    }
  free (t->slots);
  t->slots = slots;
  t->n_slots = n_slots;
  return 0;
}

/* The id of @s (@len bytes, not terminated), added when new; UINT32_MAX when out of memory. */
static uint32_t
strings_intern (Strings *t, const char *s, size_t len)
{
  if ((t->n + 1) * 2 > t->n_slots && strings_grow (t) != 0)
    return UINT32_MAX;
  size_t slot = hash_bytes (s, len) & (t->n_slots - 1);
  for (;;)
    {
      uint32_t id = t->slots[slot];
      if (id == 0)
        break;
      if (strncmp (t->s[id - 1], s, len) == 0 && t->s[id - 1][len] == '\0')
        return id - 1;
      slot = (slot + 1) & (t->n_slots - 1);
    }
  if (t->n == t->cap)
    {
      size_t cap = t->cap ? 2 * t->cap : 64;
      char **n = realloc (t->s, cap * sizeof *n);
      if (n == NULL)
        return UINT32_MAX;
      t->s = n;
      t->cap = cap;
    }
  char *copy = malloc (len + 1);
  if (copy == NULL)
    return UINT32_MAX;
  memcpy (copy, s, len);
  copy[len] = '\0';
  t->s[t->n] = copy;
  t->slots[slot] = (uint32_t)t->n + 1;
  return (uint32_t)t->n++;
}

static void
strings_free (Strings *t)
{
  for (size_t i = 0; i < t->n; i++)
    free (t->s[i]);
  free (t->s);
  free (t->slots);
}

/* ---- the merged tree ------------------------------------------------------------------------- */

#define NONE UINT32_MAX
#define MAX_THREADS 4096

typedef struct
{
  uint32_t parent, region;
  uint32_t first, last, next; /* children in order of first appearance */
  uint32_t sites, n_sites;    /* call sites: first GSite + 1, in order of appearance */
  uint32_t key_module;        /* the call site that tells the call path apart (NONE: none) */
  uint64_t key_offset;
} GNode;

typedef struct
{
  uint32_t next; /* + 1 */
  uint32_t module;
  uint64_t offset;
} GSite;
#define MAX_GSITES 64

typedef struct
{
  uint32_t gnode, rank, thread, mask;
  size_t   vals; /* index of the first non-zero value in the value pool */
} Entry;

struct KubusProfMerge
{
  int       world;
  Strings   regions, modules, hosts;
  GNode    *nodes;
  size_t    n_nodes, cap_nodes;
  uint32_t *slots; /* node id + 1 */
  size_t    n_slots;
  uint32_t  first_root, last_root;
  GSite    *sites;
  size_t    n_sites, cap_sites;
  Entry    *entries;
  size_t    n_entries, cap_entries;
  uint64_t *vals;
  size_t    n_vals, cap_vals;
  uint32_t *host_of;    /* per rank: host string, NONE = no record */
  uint32_t *threads_of; /* per rank: thread locations (≥ 1) */
  int       n_ranks;
  uint64_t  limit, folded, max_bytes;
  int       ranks_folded, incomplete;
  char     *reason; /* the first record's reason for an early end */
  KubusSiteKeyFunc site_key;
  void            *site_key_data;
};

void
kubus_prof_merge_set_site_key (KubusProfMerge *m, KubusSiteKeyFunc fn, void *data)
{
  m->site_key = fn;
  m->site_key_data = data;
}

KubusProfMerge *
kubus_prof_merge_new (int world_size)
{
  if (world_size <= 0)
    return NULL;
  KubusProfMerge *m = calloc (1, sizeof *m);
  if (m == NULL)
    return NULL;
  m->world = world_size;
  m->first_root = m->last_root = NONE;
  m->host_of = malloc (sizeof *m->host_of * (size_t)world_size);
  m->threads_of = malloc (sizeof *m->threads_of * (size_t)world_size);
  if (m->host_of == NULL || m->threads_of == NULL)
    {
      kubus_prof_merge_free (m);
      return NULL;
    }
  for (int r = 0; r < world_size; r++)
    {
      m->host_of[r] = NONE;
      m->threads_of[r] = 1;
    }
  return m;
}

void
kubus_prof_merge_free (KubusProfMerge *m)
{
  if (m == NULL)
    return;
  strings_free (&m->regions);
  strings_free (&m->modules);
  strings_free (&m->hosts);
  free (m->nodes);
  free (m->sites);
  free (m->slots);
  free (m->entries);
  free (m->vals);
  free (m->host_of);
  free (m->threads_of);
  free (m->reason);
  free (m);
}

int
kubus_prof_merge_ranks (const KubusProfMerge *m)
{
  return m->n_ranks;
}

static uint64_t
node_hash (uint32_t parent, uint32_t region, uint32_t module, uint64_t offset)
{
  uint64_t h = (uint64_t)parent * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)region * 0xC2B2AE3D27D4EB4Full;
  h ^= ((uint64_t)module << 40 ^ offset) * 0x165667B19E3779F9ull;
  return h ^ (h >> 29);
}

static int
nodes_grow_slots (KubusProfMerge *m)
{
  size_t    n_slots = m->n_slots ? 2 * m->n_slots : 1024;
  uint32_t *slots = calloc (n_slots, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (size_t i = 0; i < m->n_nodes; i++)
    {
      const GNode *g = &m->nodes[i];
      size_t       s = node_hash (g->parent, g->region, g->key_module, g->key_offset) & (n_slots - 1);
      while (slots[s] != 0)
        s = (s + 1) & (n_slots - 1);
      slots[s] = (uint32_t)i + 1;
    }
  free (m->slots);
  m->slots = slots;
  m->n_slots = n_slots;
  return 0;
}

/* Adds call site (@module, @offset) to call path @id unless it has it; -1 out of memory. */
static int
node_add_site (KubusProfMerge *m, uint32_t id, uint32_t module, uint64_t offset)
{
  GNode   *g = &m->nodes[id];
  uint32_t last = 0;
  for (uint32_t x = g->sites; x != 0; last = x, x = m->sites[x - 1].next)
    if (m->sites[x - 1].module == module && m->sites[x - 1].offset == offset)
      return 0;
  if (g->n_sites >= MAX_GSITES)
    return 0;
  if (m->n_sites == m->cap_sites)
    {
      size_t cap = m->cap_sites ? 2 * m->cap_sites : 1024;
      GSite *n = realloc (m->sites, cap * sizeof *n);
      if (n == NULL)
        return -1;
      m->sites = n;
      m->cap_sites = cap;
    }
  m->sites[m->n_sites] = (GSite){ 0, module, offset };
  if (last == 0)
    g->sites = (uint32_t)++m->n_sites;
  else
    m->sites[last - 1].next = (uint32_t)++m->n_sites;
  g->n_sites++;
  return 0;
}

/* The call path (@parent, @region) called from (@module, @offset) — one call path per call site
 * (module NONE: a call path with no site, a function). */
static uint32_t
node_get (KubusProfMerge *m, uint32_t parent, uint32_t region, uint32_t module, uint64_t offset)
{
  if ((m->n_nodes + 1) * 2 > m->n_slots && nodes_grow_slots (m) != 0)
    return NONE;
  size_t s = node_hash (parent, region, module, offset) & (m->n_slots - 1);
  for (;;)
    {
      uint32_t id = m->slots[s];
      if (id == 0)
        break;
      const GNode *g = &m->nodes[id - 1];
      if (g->parent == parent && g->region == region && g->key_module == module
          && g->key_offset == offset)
        return id - 1;
      s = (s + 1) & (m->n_slots - 1);
    }
  if (m->n_nodes >= NONE - 1)
    return NONE;
  if (m->n_nodes == m->cap_nodes)
    {
      size_t cap = m->cap_nodes ? 2 * m->cap_nodes : 1024;
      GNode *n = realloc (m->nodes, cap * sizeof *n);
      if (n == NULL)
        return NONE;
      m->nodes = n;
      m->cap_nodes = cap;
    }
  uint32_t id = (uint32_t)m->n_nodes++;
  GNode   *g = &m->nodes[id];
  *g = (GNode){ parent, region, NONE, NONE, NONE, 0, 0, module, offset };
  m->slots[s] = id + 1;
  if (parent == NONE)
    {
      if (m->last_root == NONE)
        m->first_root = id;
      else
        m->nodes[m->last_root].next = id;
      m->last_root = id;
    }
  else
    {
      GNode *p = &m->nodes[parent];
      if (p->last == NONE)
        p->first = id;
      else
        m->nodes[p->last].next = id;
      p->last = id;
    }
  return id;
}

/* ---- reading a record --------------------------------------------------------------------------- */

typedef struct
{
  const uint64_t *w;
  size_t          n, pos;
  int             bad;
} Reader;

static uint64_t
get (Reader *r)
{
  if (r->pos >= r->n)
    {
      r->bad = 1;
      return 0;
    }
  return r->w[r->pos++];
}

/* A string in place: its bytes and length; NULL when the record is too short. */
static const char *
get_str (Reader *r, size_t *len)
{
  uint64_t l = get (r);
  if (r->bad || l > (1u << 20) || (l + 7) / 8 > r->n - r->pos)
    {
      r->bad = 1;
      return NULL;
    }
  const char *s = (const char *)(r->w + r->pos);
  r->pos += (size_t)(l + 7) / 8;
  *len = (size_t)l;
  return s;
}

static int
popcount (uint64_t v)
{
  return __builtin_popcountll (v);
}

static int
fail (char *err, size_t errlen, const char *what)
{
  if (err != NULL && errlen > 0)
    snprintf (err, errlen, "%s", what);
  return -1;
}

/* Pass 1 (@m == NULL) checks the record; pass 2 adds it. */
static int
read_record (KubusProfMerge *m, KubusProfMerge *check, const uint64_t *w, size_t n, char *err,
             size_t errlen)
{
  Reader rd = { w, n, 0, 0 };
  if (get (&rd) != KUBUS_PROF_MAGIC)
    return fail (err, errlen, "not a Kubus profile record (bad magic number)");
  if (get (&rd) != KUBUS_PROF_VERSION)
    return fail (err, errlen, "profile record of an unknown version");
  uint64_t rank = get (&rd), world = get (&rd), flags = get (&rd);
  uint64_t limit = get (&rd), folded = get (&rd), bytes = get (&rd);
  if (rd.bad)
    return fail (err, errlen, "truncated profile record (header)");
  if (world != (uint64_t)check->world || rank >= world)
    return fail (err, errlen, "profile record of another run (rank or rank count does not fit)");
  if (check->host_of[rank] != NONE)
    return fail (err, errlen, "a second profile record for the same rank");
  size_t      host_len, reason_len;
  const char *host = get_str (&rd, &host_len);
  const char *reason = get_str (&rd, &reason_len);
  uint64_t    n_strings = get (&rd);
  if (rd.bad || n_strings > rd.n - rd.pos)
    return fail (err, errlen, "truncated profile record (strings)");
  const char **strs = NULL;
  size_t      *lens = NULL;
  uint32_t    *region_of = NULL, *module_of = NULL, *map = NULL;
  int          rc = -1;
  strs = malloc (sizeof *strs * (size_t)(n_strings ? n_strings : 1));
  lens = malloc (sizeof *lens * (size_t)(n_strings ? n_strings : 1));
  region_of = malloc (sizeof *region_of * (size_t)(n_strings ? n_strings : 1));
  module_of = malloc (sizeof *module_of * (size_t)(n_strings ? n_strings : 1));
  if (strs == NULL || lens == NULL || region_of == NULL || module_of == NULL)
    {
      fail (err, errlen, "out of memory");
      goto out;
    }
  for (uint64_t i = 0; i < n_strings; i++)
    {
      strs[i] = get_str (&rd, &lens[i]);
      region_of[i] = module_of[i] = NONE;
      if (rd.bad)
        {
          fail (err, errlen, "truncated profile record (strings)");
          goto out;
        }
    }
  uint64_t n_threads = get (&rd);
  if (rd.bad || n_threads == 0 || n_threads > MAX_THREADS)
    {
      fail (err, errlen, "bad thread count in profile record");
      goto out;
    }
  uint8_t  seen[MAX_THREADS] = { 0 };
  uint32_t max_thread = 0;
  uint32_t host_id = NONE;
  if (m != NULL)
    {
      host_id = strings_intern (&m->hosts, host, host_len);
      if (host_id == NONE)
        {
          fail (err, errlen, "out of memory");
          goto out;
        }
    }
  for (uint64_t t = 0; t < n_threads; t++)
    {
      uint64_t thread = get (&rd), n_nodes = get (&rd);
      if (rd.bad || thread >= MAX_THREADS || seen[thread] || n_nodes > (rd.n - rd.pos) / 5)
        {
          fail (err, errlen, "bad thread in profile record");
          goto out;
        }
      seen[thread] = 1;
      if (thread > max_thread)
        max_thread = (uint32_t)thread;
      free (map);
      map = malloc (sizeof *map * (size_t)(n_nodes ? n_nodes : 1));
      if (map == NULL)
        {
          fail (err, errlen, "out of memory");
          goto out;
        }
      for (uint64_t i = 0; i < n_nodes; i++)
        {
          uint64_t parent = get (&rd), region = get (&rd), n_sites = get (&rd);
          if (rd.bad || parent > i || region >= n_strings || n_sites > MAX_GSITES
              || 2 * n_sites > rd.n - rd.pos)
            {
              fail (err, errlen, "bad call path in profile record");
              goto out;
            }
          const uint64_t *site = rd.w + rd.pos;
          rd.pos += (size_t)(2 * n_sites);
          for (uint64_t k = 0; k < n_sites; k++)
            if (site[2 * k] == 0 || site[2 * k] > n_strings)
              {
                fail (err, errlen, "bad call site in profile record");
                goto out;
              }
          uint64_t mask = get (&rd);
          if (rd.bad || mask >= (1ull << KP_N) || (size_t)popcount (mask) > rd.n - rd.pos)
            {
              fail (err, errlen, "bad call path in profile record");
              goto out;
            }
          const uint64_t *v = rd.w + rd.pos;
          rd.pos += (size_t)popcount (mask);
          if (m == NULL)
            continue;
          if (region_of[region] == NONE)
            region_of[region] = strings_intern (&m->regions, strs[region], lens[region]);
          uint32_t gp = parent == 0 ? NONE : map[parent - 1];
          /* the first call site tells call paths apart */
          uint32_t key_module = NONE;
          uint64_t key_offset = 0;
          if (n_sites > 0)
            {
              uint64_t module = site[0];
              if (module_of[module - 1] == NONE)
                module_of[module - 1]
                    = strings_intern (&m->modules, strs[module - 1], lens[module - 1]);
              key_module = module_of[module - 1];
              key_offset = site[1];
              if (m->site_key != NULL && key_module != NONE)
                key_offset = m->site_key (m->site_key_data, m->modules.s[key_module], key_offset);
            }
          if (region_of[region] == NONE || (n_sites > 0 && key_module == NONE)
              || (map[i] = node_get (m, gp, region_of[region], key_module, key_offset)) == NONE)
            {
              fail (err, errlen, "out of memory");
              goto out;
            }
          for (uint64_t k = 0; k < n_sites; k++)
            {
              uint64_t module = site[2 * k];
              if (module_of[module - 1] == NONE)
                module_of[module - 1]
                    = strings_intern (&m->modules, strs[module - 1], lens[module - 1]);
              if (module_of[module - 1] == NONE
                  || node_add_site (m, map[i], module_of[module - 1], site[2 * k + 1]) != 0)
                {
                  fail (err, errlen, "out of memory");
                  goto out;
                }
            }
          if (mask == 0)
            continue;
          if (m->n_entries == m->cap_entries)
            {
              size_t cap = m->cap_entries ? 2 * m->cap_entries : 4096;
              Entry *e = realloc (m->entries, cap * sizeof *e);
              if (e == NULL)
                {
                  fail (err, errlen, "out of memory");
                  goto out;
                }
              m->entries = e;
              m->cap_entries = cap;
            }
          size_t k = (size_t)popcount (mask);
          if (m->n_vals + k > m->cap_vals)
            {
              size_t cap = m->cap_vals ? 2 * m->cap_vals : 16384;
              while (cap < m->n_vals + k)
                cap *= 2;
              uint64_t *nv = realloc (m->vals, cap * sizeof *nv);
              if (nv == NULL)
                {
                  fail (err, errlen, "out of memory");
                  goto out;
                }
              m->vals = nv;
              m->cap_vals = cap;
            }
          memcpy (m->vals + m->n_vals, v, k * sizeof *v);
          m->entries[m->n_entries++] = (Entry){ map[i], (uint32_t)rank, (uint32_t)thread,
                                                (uint32_t)mask, m->n_vals };
          m->n_vals += k;
        }
    }
  if (rd.pos != rd.n)
    {
      fail (err, errlen, "profile record longer than its contents");
      goto out;
    }
  if (m != NULL)
    {
      m->host_of[rank] = host_id;
      m->threads_of[rank] = max_thread + 1;
      m->n_ranks++;
      if (limit > m->limit)
        m->limit = limit;
      if (folded > 0)
        {
          m->folded += folded;
          m->ranks_folded++;
        }
      if (bytes > m->max_bytes)
        m->max_bytes = bytes;
      if (flags & KUBUS_PROF_FLAG_INCOMPLETE)
        m->incomplete = 1;
      if (reason_len > 0 && m->reason == NULL && (m->reason = malloc (reason_len + 1)) != NULL)
        {
          memcpy (m->reason, reason, reason_len);
          m->reason[reason_len] = '\0';
        }
    }
  rc = 0;
out:
  free (strs);
  free (lens);
  free (region_of);
  free (module_of);
  free (map);
  return rc;
}

int
kubus_prof_merge_add (KubusProfMerge *m, const uint64_t *words, size_t n, char *err, size_t errlen)
{
  if (m == NULL || (words == NULL && n > 0))
    return fail (err, errlen, "no profile record");
  if (read_record (NULL, m, words, n, err, errlen) != 0)
    return -1;
  size_t n_nodes = m->n_nodes, n_entries = m->n_entries, n_vals = m->n_vals;
  if (read_record (m, m, words, n, err, errlen) != 0)
    {
      /* out of memory half way: drop what this record added to the values; call paths it
       * created stay (without values they are harmless) */
      m->n_entries = n_entries;
      m->n_vals = n_vals;
      (void)n_nodes;
      return -1;
    }
  return 0;
}

/* ---- writing ------------------------------------------------------------------------------------ */

typedef struct
{
  FILE *f;
} Out;

static void
put_escaped (FILE *f, const char *s, int how)
{
  kubus_text_xml (s, how, kubus_text_to_file, f);
}

static void
put_attr (FILE *f, const char *key, const char *value)
{
  fputs ("  <attr key=\"", f);
  put_escaped (f, key, KUBUS_TEXT_XML_ATTR);
  fputs ("\" value=\"", f);
  put_escaped (f, value, KUBUS_TEXT_XML_ATTR);
  fputs ("\"/>\n", f);
}

static void
put_element (FILE *f, int indent, const char *tag, const char *text)
{
  fprintf (f, "%*s<%s>", indent, "", tag);
  put_escaped (f, text, KUBUS_TEXT_XML_TEXT);
  fprintf (f, "</%s>\n", tag);
}

/* Nanoseconds as seconds, exactly and without the locale's decimal separator. */
static void
put_seconds (FILE *f, uint64_t ns)
{
  fprintf (f, "%llu.%09llu\n", (unsigned long long)(ns / 1000000000u),
           (unsigned long long)(ns % 1000000000u));
}

/* How a metric's value comes from a call path's values. */
enum
{
  MV_TIME,   /* exclusive time of call paths whose region is in the category mask */
  MV_EST,    /* an estimate (ns), at most the exclusive time */
  MV_COUNT,  /* one KP_ value, a count or bytes */
  MV_SUM,    /* the sum of @n KP_ values from @arg */
  MV_MIN,
  MV_MAX
};

typedef struct
{
  int         parent; /* index in the table or -1 */
  const char *uniq, *disp, *dtype, *uom;
  int         how, arg, n;
  const char *descr;
} PMetric;

#define EST_NOTE                                                                                 \
  " Estimate from the lightweight profile (no trace), after Mao et al., EuroMPI/ASIA 2014: the "   \
  "shortest call of a function with messages of the same size class (powers of two) takes no "   \
  "wait, every call takes its time above that minimum as wait."
#define ALL_CATS 511

static const PMetric metrics[] = {
  /* 0 */ { -1, "time", "Time", "FLOAT", "sec", MV_TIME, ALL_CATS, 0,
            "Total time: sum of (leave - enter) of each visit" },
  /* 1 */ { 0, "execution", "Execution", "FLOAT", "sec", MV_TIME, ALL_CATS, 0,
            "Execution time (all of time)" },
  /* 2 */ { 1, "comp", "Computation", "FLOAT", "sec", MV_TIME, KUBUS_CAT_USER, 0,
            "Time outside MPI" },
  /* 3 */ { 1, "mpi", "MPI", "FLOAT", "sec", MV_TIME, ALL_CATS & ~KUBUS_CAT_USER, 0,
            "Time in MPI functions" },
  /* 4 */ { 3, "mpi_management", "Management", "FLOAT", "sec", MV_TIME,
            KUBUS_CAT_INIT_EXIT | KUBUS_CAT_MGMT, 0, "MPI management" },
  /* 5 */ { 4, "mpi_init_exit", "Init/Finalize", "FLOAT", "sec", MV_TIME, KUBUS_CAT_INIT_EXIT, 0,
            "MPI_Init and MPI_Finalize" },
  /* 6 */ { 4, "mpi_mgmt_comm", "Communicator", "FLOAT", "sec", MV_TIME, KUBUS_CAT_MGMT, 0,
            "Communicator, group and topology management" },
  /* 7 */ { 3, "mpi_synchronization", "Synchronization", "FLOAT", "sec", MV_TIME,
            KUBUS_CAT_BARRIER, 0, "MPI synchronization" },
  /* 8 */ { 7, "mpi_sync_collective", "Collective", "FLOAT", "sec", MV_TIME, KUBUS_CAT_BARRIER, 0,
            "MPI_Barrier" },
  /* 9 */ { 8, "mpi_barrier_wait", "Wait at Barrier (estimate)", "FLOAT", "sec", MV_EST,
            KP_BARRIER, 0,
            "Time in MPI_Barrier above the shortest MPI_Barrier of any rank." EST_NOTE },
  /* 10 */ { 3, "mpi_communication", "Communication", "FLOAT", "sec", MV_TIME,
             KUBUS_CAT_P2P | KUBUS_CAT_COLL, 0, "MPI communication" },
  /* 11 */ { 10, "mpi_point2point", "Point-to-point", "FLOAT", "sec", MV_TIME, KUBUS_CAT_P2P, 0,
             "Sends, receives, MPI_Wait* and MPI_Test*" },
  /* 12 */ { 11, "mpi_latesender", "Late Sender (estimate)", "FLOAT", "sec", MV_EST, KP_LS, 0,
             "Time in receives (MPI_Recv, MPI_Sendrecv, and MPI_Wait, MPI_Waitall, MPI_Waitany, "
             "MPI_Waitsome completing receives) above the shortest call of the same function on "
             "this process. Over-estimates receives of messages that had partly arrived." EST_NOTE },
  /* 13 */ { 11, "mpi_latereceiver", "Late Receiver (estimate)", "FLOAT", "sec", MV_EST, KP_LR, 0,
             "Time in synchronous sends (MPI_Ssend) above the shortest MPI_Ssend on this "
             "process." EST_NOTE },
  /* 14 */ { 10, "mpi_collective", "Collective", "FLOAT", "sec", MV_TIME, KUBUS_CAT_COLL, 0,
             "Every collective but the barrier" },
  /* 15 */ { 14, "mpi_earlyreduce", "Early Reduce (estimate)", "FLOAT", "sec", MV_EST, KP_ER, 0,
             "Time of the root in MPI_Reduce, MPI_Gather and MPI_Gatherv above the shortest such "
             "call of any root." EST_NOTE },
  /* 16 */ { 14, "mpi_latebroadcast", "Late Broadcast (estimate)", "FLOAT", "sec", MV_EST, KP_LB,
             0,
             "Time of non-root ranks in MPI_Bcast, MPI_Scatter and MPI_Scatterv above the "
             "shortest such call of any non-root rank." EST_NOTE },
  /* 17 */ { 14, "mpi_wait_nxn", "Wait at N x N (estimate)", "FLOAT", "sec", MV_EST, KP_NXN, 0,
             "Time in N x N collectives (MPI_Allreduce, MPI_Allgather(v), MPI_Alltoall(v,w), "
             "MPI_Reduce_scatter(_block)) above the shortest call of the same function of any "
             "rank." EST_NOTE },
  /* 18 */ { 3, "mpi_io", "File I/O", "FLOAT", "sec", MV_TIME, KUBUS_CAT_IO | KUBUS_CAT_IO_COLL, 0,
             "Time spent in MPI file I/O calls" },
  /* 19 */ { 18, "mpi_io_collective", "Collective", "FLOAT", "sec", MV_TIME, KUBUS_CAT_IO_COLL, 0,
             "Time spent in collective MPI file I/O calls" },
  /* 20 */ { -1, "visits", "Visits", "INTEGER", "occ", MV_COUNT, KP_VISITS, 0,
             "Number of visits" },
  /* 21 */ { -1, "min_time", "Minimum Inclusive Time", "MINDOUBLE", "sec", MV_MIN, KP_MIN, 0,
             "Minimum inclusive time of one visit" },
  /* 22 */ { -1, "max_time", "Maximum Inclusive Time", "MAXDOUBLE", "sec", MV_MAX, KP_MAX, 0,
             "Maximum inclusive time of one visit" },
  /* 23 */ { -1, "syncs", "MPI synchronizations", "INTEGER", "occ", MV_SUM, KP_SYNCS_SEND, 3,
             "Zero-byte MPI operations" },
  /* 24 */ { 23, "syncs_send", "Send synchronizations", "INTEGER", "occ", MV_COUNT, KP_SYNCS_SEND,
             0, "Zero-byte sends" },
  /* 25 */ { 23, "syncs_recv", "Receive synchronizations", "INTEGER", "occ", MV_COUNT,
             KP_SYNCS_RECV, 0, "Zero-byte receives" },
  /* 26 */ { 23, "syncs_coll", "Collective synchronizations", "INTEGER", "occ", MV_COUNT,
             KP_SYNCS_COLL, 0, "Collectives that move no data" },
  /* 27 */ { -1, "comms", "MPI communications", "INTEGER", "occ", MV_SUM, KP_COMMS_SEND, 5,
             "Data-carrying MPI operations" },
  /* 28 */ { 27, "comms_send", "Sends", "INTEGER", "occ", MV_COUNT, KP_COMMS_SEND, 0,
             "Sends with data" },
  /* 29 */ { 27, "comms_recv", "Receives", "INTEGER", "occ", MV_COUNT, KP_COMMS_RECV, 0,
             "Receives with data" },
  /* 30 */ { 27, "comms_cxch", "Collective exchanges", "INTEGER", "occ", MV_COUNT, KP_COMMS_CXCH,
             0, "Collectives that send and receive data" },
  /* 31 */ { 27, "comms_csrc", "Collective sources", "INTEGER", "occ", MV_COUNT, KP_COMMS_CSRC, 0,
             "Collectives that only send data" },
  /* 32 */ { 27, "comms_cdst", "Collective destinations", "INTEGER", "occ", MV_COUNT,
             KP_COMMS_CDST, 0, "Collectives that only receive data" },
  /* 33 */ { -1, "bytes", "MPI bytes transferred", "INTEGER", "bytes", MV_SUM, KP_BYTES_SENT, 4,
             "Bytes moved by MPI" },
  /* 34 */ { 33, "bytes_sent", "Bytes sent", "INTEGER", "bytes", MV_COUNT, KP_BYTES_SENT, 0,
             "Point-to-point bytes sent" },
  /* 35 */ { 33, "bytes_rcvd", "Bytes received", "INTEGER", "bytes", MV_COUNT, KP_BYTES_RCVD, 0,
             "Point-to-point bytes received" },
  /* 36 */ { 33, "bytes_cout", "Collective bytes outgoing", "INTEGER", "bytes", MV_COUNT,
             KP_BYTES_COUT, 0, "Collective bytes sent" },
  /* 37 */ { 33, "bytes_cin", "Collective bytes incoming", "INTEGER", "bytes", MV_COUNT,
             KP_BYTES_CIN, 0, "Collective bytes received" },
};
#define N_PMETRICS (int)(sizeof metrics / sizeof metrics[0])

/* The full value vector of an entry. */
static void
entry_values (const KubusProfMerge *m, const Entry *e, uint64_t v[KP_N])
{
  size_t k = e->vals;
  for (int i = 0; i < KP_N; i++)
    v[i] = (e->mask >> i) & 1 ? m->vals[k++] : 0;
}

/* The value of metric @pm for an entry of category @cat; returns 0 when it has none. */
static int
metric_value (const PMetric *pm, int cat, const uint64_t v[KP_N], uint64_t *out)
{
  switch (pm->how)
    {
    case MV_TIME:
      *out = (pm->arg & cat) ? v[KP_TIME] : 0;
      return *out != 0;
    case MV_EST:
      *out = v[pm->arg] < v[KP_TIME] ? v[pm->arg] : v[KP_TIME];
      return *out != 0;
    case MV_COUNT:
      *out = v[pm->arg];
      return *out != 0;
    case MV_SUM:
      *out = 0;
      for (int i = 0; i < pm->n; i++)
        *out += v[pm->arg + i];
      return *out != 0;
    case MV_MIN:
    case MV_MAX:
      *out = v[pm->arg];
      return v[KP_VISITS] != 0;
    }
  return 0;
}

static int
write_metrics (FILE *f)
{
  fputs ("  <metrics>\n", f);
  int depth_of[N_PMETRICS];
  for (int i = 0; i < N_PMETRICS; i++)
    {
      const PMetric *pm = &metrics[i];
      depth_of[i] = pm->parent < 0 ? 0 : depth_of[pm->parent] + 1;
      int ind = 4 + 2 * depth_of[i];
      fprintf (f, "%*s<metric id=\"%d\">\n", ind, "", i);
      put_element (f, ind + 2, "disp_name", pm->disp);
      put_element (f, ind + 2, "uniq_name", pm->uniq);
      put_element (f, ind + 2, "dtype", pm->dtype);
      put_element (f, ind + 2, "uom", pm->uom);
      put_element (f, ind + 2, "url", "");
      put_element (f, ind + 2, "descr", pm->descr);
      /* close this metric and the open ancestors the next one does not descend from */
      int next_depth = i + 1 < N_PMETRICS ? (metrics[i + 1].parent < 0
                                                 ? 0
                                                 : depth_of[metrics[i + 1].parent] + 1)
                                          : 0;
      for (int d = depth_of[i]; d >= next_depth; d--)
        fprintf (f, "%*s</metric>\n", 4 + 2 * d, "");
    }
  fputs ("  </metrics>\n", f);
  return 0;
}

#define MAX_INDENT 40

typedef struct
{
  uint32_t *cnode_id;  /* gnode → id in pre-order */
  uint32_t *preorder;  /* id → gnode */
  uint32_t *depth;     /* gnode → depth (roots 0) */
  uint32_t *region_by_id; /* region id → region string */
  uint32_t  n_region_ids;
  uint32_t *region_id; /* region string → region id, NONE when unused */
  uint32_t *module_id; /* module string → written module number, NONE when unused */
  int      *category;  /* region string → KUBUS_CAT_* */
  uint32_t *loc_base;  /* rank → first location */
  uint32_t  n_locs;
  uint32_t *by_node;   /* entries ordered by gnode */
  uint32_t *node_first; /* gnode → first index in by_node (n_nodes + 1) */
} Layout;

static void
layout_free (Layout *l)
{
  free (l->cnode_id);
  free (l->preorder);
  free (l->depth);
  free (l->region_by_id);
  free (l->region_id);
  free (l->module_id);
  free (l->category);
  free (l->loc_base);
  free (l->by_node);
  free (l->node_first);
}

static int
layout_build (const KubusProfMerge *m, Layout *l)
{
  size_t nn = m->n_nodes ? m->n_nodes : 1;
  memset (l, 0, sizeof *l);
  l->cnode_id = malloc (nn * sizeof *l->cnode_id);
  l->preorder = malloc (nn * sizeof *l->preorder);
  l->depth = malloc (nn * sizeof *l->depth);
  l->region_by_id = malloc ((m->regions.n ? m->regions.n : 1) * sizeof *l->region_by_id);
  l->region_id = malloc ((m->regions.n ? m->regions.n : 1) * sizeof *l->region_id);
  l->module_id = malloc ((m->modules.n ? m->modules.n : 1) * sizeof *l->module_id);
  l->category = malloc ((m->regions.n ? m->regions.n : 1) * sizeof *l->category);
  l->loc_base = malloc ((size_t)m->world * sizeof *l->loc_base);
  l->by_node = malloc ((m->n_entries ? m->n_entries : 1) * sizeof *l->by_node);
  l->node_first = calloc (nn + 1, sizeof *l->node_first);
  if (!l->cnode_id || !l->preorder || !l->depth || !l->region_by_id || !l->region_id || !l->module_id || !l->category
      || !l->loc_base || !l->by_node || !l->node_first)
    return -1;
  for (size_t i = 0; i < m->regions.n; i++)
    {
      l->region_id[i] = NONE;
      l->category[i] = kubus_prof_category (m->regions.s[i]);
    }
  for (size_t i = 0; i < m->modules.n; i++)
    l->module_id[i] = NONE;
  /* pre-order without recursion: a child list is walked through its `next` links */
  uint32_t next_id = 0, next_region = 0;
  uint32_t cur = m->first_root;
  while (cur != NONE)
    {
      const GNode *g = &m->nodes[cur];
      l->cnode_id[cur] = next_id;
      l->preorder[next_id++] = cur;
      l->depth[cur] = g->parent == NONE ? 0 : l->depth[g->parent] + 1;
      if (l->region_id[g->region] == NONE)
        {
          l->region_by_id[next_region] = g->region;
          l->region_id[g->region] = next_region++;
        }
      if (g->first != NONE)
        {
          cur = g->first;
          continue;
        }
      /* up until a node with a next sibling */
      while (cur != NONE && m->nodes[cur].next == NONE)
        cur = m->nodes[cur].parent;
      if (cur != NONE)
        cur = m->nodes[cur].next;
    }
  l->n_region_ids = next_region;
  uint32_t loc = 0;
  for (int r = 0; r < m->world; r++)
    {
      l->loc_base[r] = loc;
      loc += m->threads_of[r];
    }
  l->n_locs = loc;
  for (size_t i = 0; i < m->n_entries; i++)
    l->node_first[m->entries[i].gnode + 1]++;
  for (size_t i = 0; i < m->n_nodes; i++)
    l->node_first[i + 1] += l->node_first[i];
  uint32_t *fill = malloc (nn * sizeof *fill);
  if (fill == NULL)
    return -1;
  memcpy (fill, l->node_first, m->n_nodes * sizeof *fill);
  for (size_t i = 0; i < m->n_entries; i++)
    l->by_node[fill[m->entries[i].gnode]++] = (uint32_t)i;
  free (fill);
  return 0;
}

static void
write_program (FILE *f, const KubusProfMerge *m, const Layout *l)
{
  fputs ("  <program>\n", f);
  for (uint32_t id = 0; id < l->n_region_ids; id++)
    {
      uint32_t i = l->region_by_id[id];
      int      mpi = l->category[i] != KUBUS_CAT_USER;
      fprintf (f, "    <region id=\"%u\" mod=\"%s\" begin=\"-1\" end=\"-1\">\n", id,
               mpi ? "MPI" : "");
      put_element (f, 6, "name", m->regions.s[i]);
      put_element (f, 6, "url", "");
      put_element (f, 6, "descr", "");
      fputs ("    </region>\n", f);
    }
  /* cnodes: open each in pre-order, close as the walk climbs */
  int depth = 0;
  for (size_t k = 0; k < m->n_nodes; k++)
    {
      uint32_t     g = l->preorder[k];
      const GNode *n = &m->nodes[g];
      int          d = (int)l->depth[g];
      for (; depth > d; depth--)
        fprintf (f, "%*s</cnode>\n", 4 + 2 * (depth - 1) < MAX_INDENT ? 4 + 2 * (depth - 1)
                                                                       : MAX_INDENT, "");
      fprintf (f, "%*s<cnode id=\"%u\" calleeId=\"%u\">\n",
               4 + 2 * d < MAX_INDENT ? 4 + 2 * d : MAX_INDENT, "", (unsigned)k,
               l->region_id[n->region]);
      depth = d + 1;
    }
  for (; depth > 0; depth--)
    fprintf (f, "%*s</cnode>\n", 4 + 2 * (depth - 1) < MAX_INDENT ? 4 + 2 * (depth - 1)
                                                                   : MAX_INDENT, "");
  fputs ("  </program>\n", f);
}

static void
write_system (FILE *f, const KubusProfMerge *m, const Layout *l)
{
  fputs ("  <system>\n    <machine Id=\"0\">\n", f);
  put_element (f, 6, "name", "machine");
  /* nodes: distinct hosts in order of their first rank; ranks without a record on "unknown" */
  size_t    n_hosts = m->hosts.n + 1;
  uint8_t  *done = calloc (n_hosts, 1);
  uint32_t  node_id = 0;
  if (done == NULL)
    return;
  for (int r0 = 0; r0 < m->world; r0++)
    {
      uint32_t h = m->host_of[r0] == NONE ? (uint32_t)m->hosts.n : m->host_of[r0];
      if (done[h])
        continue;
      done[h] = 1;
      fprintf (f, "      <node Id=\"%u\">\n", node_id++);
      put_element (f, 8, "name", h < m->hosts.n ? m->hosts.s[h] : "unknown");
      for (int r = r0; r < m->world; r++)
        {
          uint32_t hr = m->host_of[r] == NONE ? (uint32_t)m->hosts.n : m->host_of[r];
          if (hr != h)
            continue;
          fprintf (f, "        <process Id=\"%d\">\n          <name>MPI Rank %d</name>\n"
                      "          <rank>%d</rank>\n",
                   r, r, r);
          for (uint32_t t = 0; t < m->threads_of[r]; t++)
            {
              fprintf (f, "          <thread Id=\"%u\">\n", l->loc_base[r] + t);
              if (t == 0)
                fputs ("            <name>Master thread</name>\n", f);
              else
                fprintf (f, "            <name>Thread %u</name>\n", t);
              fprintf (f, "            <rank>%u</rank>\n          </thread>\n", t);
            }
          fputs ("        </process>\n", f);
        }
      fputs ("      </node>\n", f);
    }
  free (done);
  fputs ("    </machine>\n  </system>\n", f);
}

static int
write_severity (FILE *f, const KubusProfMerge *m, const Layout *l)
{
  uint64_t *row = malloc ((l->n_locs ? l->n_locs : 1) * sizeof *row);
  uint8_t  *has = malloc (l->n_locs ? l->n_locs : 1);
  if (row == NULL || has == NULL)
    {
      free (row);
      free (has);
      return -1;
    }
  uint64_t v[KP_N];
  fputs ("  <severity>\n", f);
  for (int mi = 0; mi < N_PMETRICS; mi++)
    {
      const PMetric *pm = &metrics[mi];
      int            is_time = strcmp (pm->uom, "sec") == 0;
      fprintf (f, "    <matrix metricId=\"%d\">\n", mi);
      for (size_t k = 0; k < m->n_nodes; k++)
        {
          uint32_t g = l->preorder[k];
          uint32_t a = l->node_first[g], b = l->node_first[g + 1];
          int      any = 0;
          if (a == b)
            continue;
          int cat = l->category[m->nodes[g].region];
          memset (has, 0, l->n_locs);
          for (uint32_t i = a; i < b; i++)
            {
              const Entry *e = &m->entries[l->by_node[i]];
              uint32_t     loc = l->loc_base[e->rank] + e->thread;
              uint64_t     x;
              entry_values (m, e, v);
              if (!metric_value (pm, cat, v, &x))
                continue;
              if (has[loc] && pm->how == MV_MIN)
                x = x < row[loc] ? x : row[loc];
              else if (has[loc] && pm->how == MV_MAX)
                x = x > row[loc] ? x : row[loc];
              else if (has[loc])
                x += row[loc];
              row[loc] = x;
              has[loc] = 1;
              any = 1;
            }
          if (!any)
            continue;
          fprintf (f, "      <row cnodeId=\"%u\">\n", (unsigned)k);
          for (uint32_t loc = 0; loc < l->n_locs; loc++)
            {
              if (!has[loc])
                /* no visit here: zero, or for a minimum cubelib's "no value" (DBL_MAX), which a
                 * minimum over locations or call paths passes over */
                fputs (pm->how == MV_MIN ? "1.7976931348623157e+308\n" : "0\n", f);
              else if (is_time)
                put_seconds (f, row[loc]);
              else
                fprintf (f, "%llu\n", (unsigned long long)row[loc]);
            }
          fputs ("      </row>\n", f);
        }
      fputs ("    </matrix>\n", f);
    }
  fputs ("  </severity>\n", f);
  free (row);
  free (has);
  return 0;
}

static void
write_attrs (FILE *f, const KubusProfMerge *m, const Layout *l, const char *creator,
             const char *incomplete)
{
  char key[64], val[64];
  put_attr (f, "CUBE_CT_AGGR", "SUM");
  put_attr (f, "Creator", creator != NULL ? creator : "Kubus");
  put_attr (f, "kubus::profile",
            "lightweight profile; wait states are min-based estimates (Mao et al., "
            "EuroMPI/ASIA 2014), message size classes are powers of two");
  if (incomplete == NULL)
    incomplete = m->reason;
  if (incomplete != NULL || m->incomplete)
    put_attr (f, "kubus::incomplete",
              incomplete != NULL ? incomplete
                                 : "the run ended early (MPI_Abort, a signal or exit without "
                                   "MPI_Finalize); estimates of collectives use each rank's own "
                                   "minimum");
  snprintf (val, sizeof val, "%d", m->world - m->n_ranks);
  put_attr (f, "kubus::ranks_without_profile", val);
  snprintf (val, sizeof val, "%llu", (unsigned long long)m->limit);
  put_attr (f, "kubus::profile_path_limit", val);
  snprintf (val, sizeof val, "%llu", (unsigned long long)m->folded);
  put_attr (f, "kubus::profile_folded_visits", val);
  snprintf (val, sizeof val, "%d", m->ranks_folded);
  put_attr (f, "kubus::profile_folded_ranks", val);
  snprintf (val, sizeof val, "%llu", (unsigned long long)m->max_bytes);
  put_attr (f, "kubus::profile_bytes", val);
  /* call sites: the modules, then "MODULE+0xOFFSET …" of every call path that has some */
  uint32_t next_module = 0;
  uint32_t *mod_id = l->module_id;
  char      sites[MAX_GSITES * 40];
  for (size_t k = 0; k < m->n_nodes; k++)
    {
      const GNode *g = &m->nodes[l->preorder[k]];
      size_t       used = 0;
      for (uint32_t x = g->sites; x != 0; x = m->sites[x - 1].next)
        {
          const GSite *gs = &m->sites[x - 1];
          if (mod_id[gs->module] == NONE)
            {
              mod_id[gs->module] = next_module++;
              snprintf (key, sizeof key, "kubus::module::%u", mod_id[gs->module]);
              put_attr (f, key, m->modules.s[gs->module]);
            }
          used += (size_t)snprintf (sites + used, sizeof sites - used, "%s%u+0x%llx",
                                    used ? " " : "", mod_id[gs->module],
                                    (unsigned long long)gs->offset);
        }
      if (used == 0)
        continue;
      snprintf (key, sizeof key, "kubus::site::%u", (unsigned)k);
      put_attr (f, key, sites);
    }
}

/* The process's umask without changing it (umask(2) would, for every thread): Linux shows it
 * in /proc/self/status. */
static mode_t
process_umask (void)
{
  mode_t mask = 022;
  FILE  *f = fopen ("/proc/self/status", "r");
  char   line[256];
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "Umask:", 6) == 0)
      {
        mask = (mode_t)strtoul (line + 6, NULL, 8) & 0777;
        break;
      }
  if (f != NULL)
    fclose (f);
  return mask;
}

int
kubus_prof_merge_write (KubusProfMerge *m,
                        const char     *path,
                        const char     *creator,
                        const char     *incomplete,
                        char           *err,
                        size_t          errlen)
{
  Layout l;
  if (layout_build (m, &l) != 0)
    {
      layout_free (&l);
      return fail (err, errlen, "out of memory");
    }
  size_t plen = strlen (path);
  char  *tmp = malloc (plen + 32);
  if (tmp == NULL)
    {
      layout_free (&l);
      return fail (err, errlen, "out of memory");
    }
  /* the temporary file next to the report: .NAME.XXXXXX in the same folder */
  const char *slash = strrchr (path, '/');
  size_t      dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  memcpy (tmp, path, dir_len);
  snprintf (tmp + dir_len, plen + 32 - dir_len, ".%s.XXXXXX", path + dir_len);
  int fd = mkstemp (tmp);
  if (fd < 0)
    {
      if (err != NULL)
        snprintf (err, errlen, "cannot create a file next to %s: %s", path, strerror (errno));
      free (tmp);
      layout_free (&l);
      return -1;
    }
  fchmod (fd, 0666 & ~process_umask ()); /* mkstemp made it 0600 */
  FILE *f = fdopen (fd, "w");
  if (f == NULL)
    {
      close (fd);
      unlink (tmp);
      free (tmp);
      layout_free (&l);
      return fail (err, errlen, "out of memory");
    }
  static char buf[1 << 16];
  setvbuf (f, buf, _IOFBF, sizeof buf);
  fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"3.0\">\n", f);
  write_attrs (f, m, &l, creator, incomplete);
  fputs ("  <doc>\n    <mirrors>\n    </mirrors>\n  </doc>\n", f);
  write_metrics (f);
  write_program (f, m, &l);
  write_system (f, m, &l);
  int rc = write_severity (f, m, &l);
  fputs ("</cube>\n", f);
  int werr = ferror (f) ? errno : 0;
  if (fflush (f) != 0 && werr == 0)
    werr = errno ? errno : EIO;
  if (fclose (f) != 0 && werr == 0)
    werr = errno ? errno : EIO;
  layout_free (&l);
  if (rc != 0 || werr != 0)
    {
      if (err != NULL)
        snprintf (err, errlen, "cannot write %s: %s", path,
                  rc != 0 ? "out of memory" : strerror (werr));
      unlink (tmp);
      free (tmp);
      return -1;
    }
  if (rename (tmp, path) != 0)
    {
      if (err != NULL)
        snprintf (err, errlen, "cannot write %s: %s", path, strerror (errno));
      unlink (tmp);
      free (tmp);
      return -1;
    }
  free (tmp);
  return 0;
}

/* ---- records saved as files (aborted runs) ------------------------------------------------------- */

/* Reads a whole record file; NULL when it cannot be read or is not a whole number of words. */
static uint64_t *
read_words (const char *path, size_t *n)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return NULL;
  struct stat st;
  uint64_t   *w = NULL;
  if (fstat (fileno (f), &st) == 0 && st.st_size > 0 && st.st_size % 8 == 0
      && (uint64_t)st.st_size < (1ull << 36))
    {
      w = malloc ((size_t)st.st_size);
      if (w != NULL && fread (w, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        {
          free (w);
          w = NULL;
        }
      *n = (size_t)st.st_size / 8;
    }
  fclose (f);
  return w;
}

int
kubus_prof_merge_dir (const char *dir,
                      const char *out_path,
                      const char *creator,
                      int        *ranks,
                      int        *world,
                      char       *skipped,
                      size_t      skippedlen,
                      char       *err,
                      size_t      errlen)
{
  return kubus_prof_merge_dir_keyed (dir, out_path, creator, NULL, NULL, ranks, world, skipped,
                                     skippedlen, err, errlen);
}

int
kubus_prof_merge_dir_keyed (const char      *dir,
                            const char      *out_path,
                            const char      *creator,
                            KubusSiteKeyFunc fn,
                            void            *data,
                            int             *ranks,
                            int             *world,
                            char            *skipped,
                            size_t           skippedlen,
                            char            *err,
                            size_t           errlen)
{
  if (skipped != NULL && skippedlen > 0)
    skipped[0] = '\0';
  DIR *d = opendir (dir);
  if (d == NULL)
    {
      if (err != NULL)
        snprintf (err, errlen, "cannot read %s: %s", dir, strerror (errno));
      return -1;
    }
  KubusProfMerge *m = NULL;
  struct dirent  *e;
  size_t          dlen = strlen (dir);
  while ((e = readdir (d)) != NULL)
    {
      if (strncmp (e->d_name, "rank.", 5) != 0)
        continue;
      size_t nlen = strlen (e->d_name);
      char  *path = malloc (dlen + nlen + 2);
      if (path == NULL)
        break;
      snprintf (path, dlen + nlen + 2, "%s/%s", dir, e->d_name);
      size_t    n = 0;
      uint64_t *w = read_words (path, &n);
      char      why[256] = "not a whole profile record";
      int       ok = 0;
      if (w != NULL && n >= 4 && w[0] == KUBUS_PROF_MAGIC && w[3] > 0 && w[3] <= (1u << 24))
        {
          if (m == NULL && (m = kubus_prof_merge_new ((int)w[3])) != NULL)
            kubus_prof_merge_set_site_key (m, fn, data);
          ok = m != NULL && kubus_prof_merge_add (m, w, n, why, sizeof why) == 0;
        }
      if (!ok && skipped != NULL && strlen (skipped) + strlen (path) + strlen (why) + 8 < skippedlen)
        {
          size_t used = strlen (skipped);
          snprintf (skipped + used, skippedlen - used, "%s%s: %s", used ? "; " : "", path, why);
        }
      free (w);
      free (path);
    }
  closedir (d);
  if (m == NULL || kubus_prof_merge_ranks (m) == 0)
    {
      if (err != NULL)
        snprintf (err, errlen, "no readable profile record in %s", dir);
      kubus_prof_merge_free (m);
      return -1;
    }
  if (ranks != NULL)
    *ranks = kubus_prof_merge_ranks (m);
  if (world != NULL)
    *world = m->world;
  int rc = kubus_prof_merge_write (m, out_path, creator, NULL, err, errlen);
  kubus_prof_merge_free (m);
  return rc;
}
