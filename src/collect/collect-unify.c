/* collect-unify.c: definitions at the end of the run.
 *
 * Every rank packs what it defined locally (communicators, topologies,
 * user-region names, clock data) into a word buffer; rank 0 gathers them,
 * gives communicators and user regions global ids, writes the global
 * definitions and sends each rank its id maps, which the rank writes into
 * its local definition file (OTF2 mapping tables) next to its clock
 * offsets.  After an abort the same writer runs on one rank's data only.
 */
#include "collect.h"
#include "kubus-text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

KubusClock kubus_clock;
char      *kubus_hostnames;

/* ---- word buffers ---------------------------------------------------- */

typedef struct
{
  uint64_t *w;
  size_t    n, cap;
  int       failed;
} Buf;

static void
put (Buf *b, uint64_t v)
{
  if (b->n == b->cap)
    {
      size_t    cap = b->cap ? 2 * b->cap : 1024;
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

static void
put_str (Buf *b, const char *s)
{
  size_t len = strlen (s);
  put (b, len);
  for (size_t i = 0; i < len; i += 8)
    {
      uint64_t v = 0;
      memcpy (&v, s + i, len - i < 8 ? len - i : 8);
      put (b, v);
    }
}

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

/* returns a malloc'd string */
static char *
get_str (Reader *r)
{
  uint64_t len = get (r);
  if (r->bad || len > 1u << 20 || r->pos + (len + 7) / 8 > r->n)
    {
      r->bad = 1;
      return NULL;
    }
  char *s = malloc (len + 1);
  if (s == NULL)
    {
      r->bad = 1;
      return NULL;
    }
  memcpy (s, r->w + r->pos, len);
  s[len] = '\0';
  r->pos += (len + 7) / 8;
  return s;
}

/* words before the communicators in a rank's buffer: events, first and last event time */
#define HEADER_WORDS 3

static void
pack_local (Buf *b, uint64_t n_events)
{
  put (b, n_events);
  /* first and last event as every reader will see them (ClockOffset applied) */
  put (b, kubus_clock_correct (kubus_clock.start_time));
  put (b, kubus_clock_correct (kubus_clock.end_time));
  int nc = kubus_comm_count ();
  put (b, (uint64_t)nc);
  for (int i = 0; i < nc; i++)
    {
      const KubusComm *c = kubus_comm_get (i);
      put (b, c->key);
      put (b, c->parent_key);
      /* group A, then group B (0 members: an intra-communicator).  Of an inter-communicator's
       * two groups, A is the one holding the smallest world rank, on either side. */
      const int *a = c->members, *bm = c->remote_members;
      int        na = c->size, nb = c->remote_size;
      if (nb > 0)
        {
          int min_a = INT32_MAX, min_b = INT32_MAX;
          for (int k = 0; k < na; k++)
            min_a = c->members[k] < min_a ? c->members[k] : min_a;
          for (int k = 0; k < nb; k++)
            min_b = c->remote_members[k] < min_b ? c->remote_members[k] : min_b;
          if (min_b < min_a)
            {
              a = c->remote_members;
              bm = c->members;
              na = c->remote_size;
              nb = c->size;
            }
        }
      put (b, (uint64_t)na);
      for (int k = 0; k < na; k++)
        put (b, (uint64_t)a[k]);
      put (b, (uint64_t)nb);
      for (int k = 0; k < nb; k++)
        put (b, (uint64_t)bm[k]);
    }
  int nt = kubus_topology_count ();
  put (b, (uint64_t)nt);
  for (int i = 0; i < nt; i++)
    {
      const KubusTopology *t = kubus_topology_get (i);
      put (b, t->comm_key);
      put_str (b, t->name);
      put (b, (uint64_t)t->ndims);
      put (b, (uint64_t)t->rank);
      put (b, (uint64_t)t->have_coords);
      for (int k = 0; k < t->ndims; k++)
        {
          put (b, (uint64_t)t->dims[k]);
          put (b, (uint64_t)t->periods[k]);
          put (b, (uint64_t)t->coords[k]);
        }
    }
  uint32_t nr = kubus_region_count ();
  put (b, nr);
  for (uint32_t i = 0; i < nr; i++)
    {
      put_str (b, kubus_region_name (KUBUS_R_USER_BASE + i));
      put (b, (uint64_t)kubus_region_kind (KUBUS_R_USER_BASE + i));
    }
}

/* ---- rank 0: unification --------------------------------------------- */

typedef struct
{
  uint64_t        key, parent_key;
  int             size;
  const uint64_t *members;
  int             size_b; /* > 0: an inter-communicator between members and members_b */
  const uint64_t *members_b;
} GComm;

typedef struct
{
  uint64_t comm_key;
  char    *name;
  int      ndims;
  int      dims[16], periods[16];
  uint32_t id;
  uint32_t dim_base;
} GTopo;

typedef struct
{
  /* inputs, per rank (NULL data = rank unknown, e.g. after an abort) */
  int              nranks;
  const uint64_t **data;
  const size_t    *len;
  /* results */
  GComm     *comms;
  size_t     n_comms;
  char     **regions;
  char      *region_manual; /* KUBUS_REGION_*: paradigm USER, COMPILER or SAMPLING (a frame) */
  size_t     n_regions;
  uint64_t **comm_map; /* per rank: local comm id -> global */
  size_t    *comm_map_len;
  uint64_t **region_map; /* per rank: local user region index -> global */
  size_t    *region_map_len;
  uint64_t  *n_events;
  uint64_t   start, end;
  int        bad;
} Unify;

static size_t
pow2_above (size_t n)
{
  size_t p = 64;
  while (p < 2 * n)
    p *= 2;
  return p;
}

static uint64_t
hash_str (const char *s)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* Walks every rank's buffer twice: first to size the tables, then to fill
 * them and the per-rank id maps. */
static int
unify (Unify *u, GTopo **topos_out, size_t *n_topos_out)
{
  size_t total_comms = 0, total_regions = 0, total_topos = 0;
  for (int r = 0; r < u->nranks; r++)
    if (u->data[r] != NULL)
      {
        total_comms += u->len[r]; /* generous upper bounds */
        total_regions += u->len[r];
        total_topos += u->len[r];
      }
  size_t    cslots = pow2_above (total_comms), rslots = pow2_above (total_regions);
  uint32_t *chash = calloc (cslots, sizeof *chash); /* global comm id + 1 */
  uint32_t *rhash = calloc (rslots, sizeof *rhash); /* region index + 1 */
  u->comms = calloc (total_comms + 1, sizeof *u->comms);
  u->regions = calloc (total_regions + 1, sizeof *u->regions);
  u->region_manual = calloc (total_regions + 1, 1);
  GTopo *topos = calloc (total_topos + 1, sizeof *topos);
  size_t n_topos = 0;
  u->comm_map = calloc ((size_t)u->nranks, sizeof *u->comm_map);
  u->comm_map_len = calloc ((size_t)u->nranks, sizeof *u->comm_map_len);
  u->region_map = calloc ((size_t)u->nranks, sizeof *u->region_map);
  u->region_map_len = calloc ((size_t)u->nranks, sizeof *u->region_map_len);
  u->n_events = calloc ((size_t)u->nranks, sizeof *u->n_events);
  if (!chash || !rhash || !u->comms || !u->regions || !u->region_manual || !topos || !u->comm_map
      || !u->comm_map_len || !u->region_map || !u->region_map_len || !u->n_events)
    {
      free (chash);
      free (rhash);
      free (topos);
      return -1;
    }
  u->start = UINT64_MAX;
  u->end = 0;
  for (int r = 0; r < u->nranks; r++)
    {
      if (u->data[r] == NULL)
        continue;
      Reader rd = { u->data[r], u->len[r], 0, 0 };
      u->n_events[r] = get (&rd);
      uint64_t s = get (&rd), e = get (&rd);
      if (s < u->start)
        u->start = s;
      if (e > u->end)
        u->end = e;
      uint64_t nc = get (&rd);
      if (nc > rd.n)
        rd.bad = 1;
      u->comm_map[r] = calloc (nc + 1, sizeof (uint64_t));
      u->comm_map_len[r] = nc;
      for (uint64_t i = 0; i < nc && !rd.bad; i++)
        {
          uint64_t key = get (&rd), parent = get (&rd);
          uint64_t size = get (&rd);
          if (size > (uint64_t)u->nranks || rd.pos + size > rd.n)
            {
              rd.bad = 1;
              break;
            }
          const uint64_t *members = rd.w + rd.pos;
          rd.pos += size;
          uint64_t size_b = get (&rd);
          if (size_b > (uint64_t)u->nranks || rd.pos + size_b > rd.n)
            {
              rd.bad = 1;
              break;
            }
          const uint64_t *members_b = rd.w + rd.pos;
          rd.pos += size_b;
          size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (cslots - 1);
          while (chash[h] != 0 && u->comms[chash[h] - 1].key != key)
            h = (h + 1) & (cslots - 1);
          if (chash[h] == 0)
            {
              GComm *g = &u->comms[u->n_comms];
              g->key = key;
              g->parent_key = parent;
              g->size = (int)size;
              g->members = members;
              g->size_b = (int)size_b;
              g->members_b = members_b;
              chash[h] = (uint32_t)++u->n_comms;
            }
          if (u->comm_map[r] != NULL)
            u->comm_map[r][i] = chash[h] - 1;
        }
      uint64_t nt = get (&rd);
      for (uint64_t i = 0; i < nt && !rd.bad; i++)
        {
          uint64_t key = get (&rd);
          char    *name = get_str (&rd);
          int      ndims = (int)get (&rd);
          uint32_t rank = (uint32_t)get (&rd);
          int      have = (int)get (&rd);
          if (name == NULL || ndims < 1 || ndims > 16)
            {
              free (name);
              rd.bad = 1;
              break;
            }
          int      dims[16], periods[16];
          uint32_t coords[16];
          for (int k = 0; k < ndims; k++)
            {
              dims[k] = (int)get (&rd);
              periods[k] = (int)get (&rd);
              coords[k] = (uint32_t)get (&rd);
            }
          size_t t;
          for (t = 0; t < n_topos; t++)
            if (topos[t].comm_key == key && strcmp (topos[t].name, name) == 0)
              break;
          if (t == n_topos)
            {
              topos[t].comm_key = key;
              topos[t].name = name;
              topos[t].ndims = ndims;
              memcpy (topos[t].dims, dims, sizeof dims);
              memcpy (topos[t].periods, periods, sizeof periods);
              n_topos++;
            }
          else
            free (name);
          (void)rank;
          (void)have;
          (void)coords;
        }
      uint64_t nr = get (&rd);
      if (nr > rd.n)
        rd.bad = 1;
      u->region_map[r] = calloc (nr + 1, sizeof (uint64_t));
      u->region_map_len[r] = nr;
      for (uint64_t i = 0; i < nr && !rd.bad; i++)
        {
          char *name = get_str (&rd);
          if (name == NULL)
            break;
          uint64_t kind = get (&rd);
          int      is_manual = kind <= KUBUS_REGION_FRAME ? (int)kind : KUBUS_REGION_COMPILER;
          size_t h = (size_t)hash_str (name) & (rslots - 1);
          while (rhash[h] != 0 && strcmp (u->regions[rhash[h] - 1], name) != 0)
            h = (h + 1) & (rslots - 1);
          if (rhash[h] == 0)
            {
              u->regions[u->n_regions] = name;
              u->region_manual[u->n_regions] = (char)is_manual;
              rhash[h] = (uint32_t)++u->n_regions;
            }
          else
            free (name);
          if (u->region_map[r] != NULL)
            u->region_map[r][i] = KUBUS_R_USER_BASE + rhash[h] - 1;
        }
      if (rd.bad || u->comm_map[r] == NULL || u->region_map[r] == NULL)
        u->bad = 1;
    }
  free (chash);
  free (rhash);
  *topos_out = topos;
  *n_topos_out = n_topos;
  return u->bad ? -1 : 0;
}

/* ---- global definitions ---------------------------------------------- */

typedef struct
{
  OTF2_GlobalDefWriter *gw;
  char                **s;
  uint32_t             *slot; /* string id + 1 */
  size_t                n, slots;
  int                   err;
} Strings;

static uint32_t
str (Strings *st, const char *s)
{
  size_t h = (size_t)hash_str (s) & (st->slots - 1);
  while (st->slot[h] != 0)
    {
      if (strcmp (st->s[st->slot[h] - 1], s) == 0)
        return st->slot[h] - 1;
      h = (h + 1) & (st->slots - 1);
    }
  if (st->n >= st->slots / 2)
    {
      st->err = 1;
      return 0;
    }
  uint32_t id = (uint32_t)st->n;
  st->s[st->n++] = (char *)s;
  st->slot[h] = id + 1;
  /* names come from the program and the file system: the trace gets them as valid UTF-8 */
  char *valid = kubus_utf8_valid (s, strlen (s)) ? NULL : kubus_text_utf8 (s);
  if (OTF2_GlobalDefWriter_WriteString (st->gw, id, valid != NULL ? valid : s) != OTF2_SUCCESS)
    st->err = 1;
  free (valid);
  return id;
}

/* Global communicator ids by key: sorted once, then binary search (a linear search per
 * communicator was quadratic in programs that create thousands of them). */
typedef struct
{
  uint64_t key;
  uint32_t gid;
} CommIndex;

static uint32_t
unify_str (void *st, const char *s)
{
  return str ((Strings *)st, s);
}

static int
comm_index_cmp (const void *a, const void *b)
{
  uint64_t x = ((const CommIndex *)a)->key, y = ((const CommIndex *)b)->key;
  return x < y ? -1 : x > y;
}

static CommIndex *
comm_index_new (const Unify *u)
{
  CommIndex *idx = malloc (sizeof (CommIndex) * (u->n_comms + 1));
  if (idx == NULL)
    return NULL;
  for (size_t i = 0; i < u->n_comms; i++)
    {
      idx[i].key = u->comms[i].key;
      idx[i].gid = (uint32_t)i;
    }
  qsort (idx, u->n_comms, sizeof *idx, comm_index_cmp);
  return idx;
}

static int
comm_gid (const Unify *u, const CommIndex *idx, uint64_t key)
{
  if (idx == NULL)
    {
      for (size_t i = 0; i < u->n_comms; i++)
        if (u->comms[i].key == key)
          return (int)i;
      return -1;
    }
  CommIndex  want = { key, 0 };
  CommIndex *hit = bsearch (&want, idx, u->n_comms, sizeof *idx, comm_index_cmp);
  return hit ? (int)hit->gid : -1;
}

static int
write_global (OTF2_Archive *archive, Unify *u, GTopo *topos, size_t n_topos)
{
  OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter (archive);
  if (gw == NULL)
    return -1;
  int n = u->nranks;
  /* strings we build here must live until the writer is done */
  size_t  n_names = (size_t)n * 2 + u->n_comms + u->n_regions + 64;
  char  **owned = calloc (n_names, sizeof *owned);
  size_t  n_owned = 0;
  Strings st = { gw, NULL, NULL, 0, 0, 0 };
  st.slots = pow2_above (KUBUS_R_USER_BASE + u->n_regions + n_names + 16 * n_topos + 64);
  st.s = calloc (st.slots, sizeof *st.s);
  st.slot = calloc (st.slots, sizeof *st.slot);
  if (owned == NULL || st.s == NULL || st.slot == NULL)
    {
      free (owned);
      free (st.s);
      free (st.slot);
      OTF2_Archive_CloseGlobalDefWriter (archive, gw);
      return -1;
    }
#define OWN(expr)                                                                                  \
  ({                                                                                               \
    char *_s = (expr);                                                                             \
    if (_s != NULL && n_owned < n_names)                                                           \
      owned[n_owned++] = _s;                                                                       \
    _s != NULL ? _s : "?";                                                                         \
  })

  /* clock: nanoseconds of CLOCK_MONOTONIC (rank 0's host); realtime of the first event */
  struct timespec rt;
  clock_gettime (CLOCK_REALTIME, &rt);
  uint64_t now_mono = kubus_clock_correct (kubus_now ());
  uint64_t now_real = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
  uint64_t start = u->start == UINT64_MAX ? 0 : u->start;
  uint64_t end = u->end > start ? u->end : start;
  OTF2_GlobalDefWriter_WriteClockProperties (gw, 1000000000u, start, end - start + 1,
                                             now_real - (now_mono - start));

  /* first string: the fixed id of ProgramBegin events (KUBUS_S_PROGRAM) */
  uint32_t program = str (&st, kubus_program_path);
  uint32_t empty = str (&st, "");
  OTF2_GlobalDefWriter_WriteParadigm (gw, OTF2_PARADIGM_MPI, str (&st, "MPI"),
                                      OTF2_PARADIGM_CLASS_PROCESS);

  /* system tree: machine > node(host name) > process */
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 0, str (&st, "machine"), str (&st, "machine"),
                                            OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  uint32_t *node_of = calloc ((size_t)n, sizeof *node_of);
  uint32_t  n_nodes = 0;
  for (int r = 0; r < n && node_of != NULL; r++)
    {
      const char *host = kubus_hostnames + (size_t)r * KUBUS_HOST_LEN;
      int         q;
      for (q = 0; q < r; q++)
        if (strcmp (host, kubus_hostnames + (size_t)q * KUBUS_HOST_LEN) == 0)
          break;
      if (q < r)
        node_of[r] = node_of[q];
      else
        {
          node_of[r] = ++n_nodes;
          OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, node_of[r], str (&st, host),
                                                    str (&st, "node"), 0);
        }
    }
  for (int r = 0; r < n; r++)
    {
      char name[32];
      snprintf (name, sizeof name, "MPI Rank %d", r);
      OTF2_GlobalDefWriter_WriteLocationGroup (
          gw, (uint32_t)r, str (&st, OWN (strdup (name))), OTF2_LOCATION_GROUP_TYPE_PROCESS,
          node_of ? node_of[r] : 0, OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation (gw, (uint64_t)r, str (&st, "Master thread"),
                                          OTF2_LOCATION_TYPE_CPU_THREAD, u->n_events[r],
                                          (uint32_t)r);
    }
  kubus_cpu_write_defs (gw, node_of, n, unify_str, &st);
  free (node_of);

  /* regions */
  uint32_t mpi_file = str (&st, "MPI");
  for (uint32_t i = 0; i < KUBUS_R_MPI_COUNT; i++)
    {
      uint32_t name = str (&st, kubus_mpi_regions[i].name);
      OTF2_GlobalDefWriter_WriteRegion (gw, i, name, name, empty, kubus_mpi_regions[i].role,
                                        OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, mpi_file, 0, 0);
    }
  uint32_t kubus_file = str (&st, "KUBUS");
  OTF2_GlobalDefWriter_WriteRegion (
      gw, KUBUS_R_FLUSH, str (&st, "KUBUS_FLUSH"), str (&st, "KUBUS_FLUSH"),
      str (&st, "trace buffer written to disk"), OTF2_REGION_ROLE_ARTIFICIAL,
      OTF2_PARADIGM_MEASUREMENT_SYSTEM, OTF2_REGION_FLAG_NONE, kubus_file, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion (
      gw, KUBUS_R_UNKNOWN, str (&st, "KUBUS_UNKNOWN_REGION"), str (&st, "KUBUS_UNKNOWN_REGION"),
      str (&st, "user region of a rank whose names were lost in an abort"),
      OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM, OTF2_REGION_FLAG_NONE,
      kubus_file, 0, 0);
  /* the program region as Score-P defines it: the executable's name, its path as canonical
   * name.  Named after the executable of the rank writing the definitions (all ranks run the
   * same program except in MPMD launches). */
  const char *base = strrchr (kubus_program_path, '/');
  OTF2_GlobalDefWriter_WriteRegion (gw, KUBUS_R_PROGRAM,
                                    str (&st, base ? base + 1 : kubus_program_path), program, empty,
                                    OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                                    OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
  for (size_t i = 0; i < u->n_regions; i++)
    {
      uint32_t name = str (&st, u->regions[i]);
      if (u->region_manual[i] == KUBUS_REGION_FRAME)
        {
          /* a function found on the stack: "library+0xOFFSET" until kubus-run names it from
           * its key, the canonical name */
          char display[512];
          kubus_frame_display_name (u->regions[i], display, sizeof display);
          OTF2_GlobalDefWriter_WriteRegion (gw, (uint32_t)(KUBUS_R_USER_BASE + i),
                                            str (&st, OWN (strdup (display))), name, empty,
                                            OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING,
                                            OTF2_REGION_FLAG_NONE, empty, 0, 0);
          continue;
        }
      OTF2_GlobalDefWriter_WriteRegion (
          gw, (uint32_t)(KUBUS_R_USER_BASE + i), name, name, empty, OTF2_REGION_ROLE_FUNCTION,
          u->region_manual[i] == KUBUS_REGION_MANUAL ? OTF2_PARADIGM_USER : OTF2_PARADIGM_COMPILER,
          OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }

  /* groups and communicators: group 0 lists the locations, group 1+c the
   * world ranks of communicator c (of an inter-communicator: its group A), group
   * 1+n_comms+c the group B of inter-communicator c */
  uint64_t *all = malloc (sizeof (uint64_t) * (size_t)n);
  for (int r = 0; r < n && all != NULL; r++)
    all[r] = (uint64_t)r;
  OTF2_GlobalDefWriter_WriteGroup (gw, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, all ? (uint32_t)n : 0, all);
  free (all);
  CommIndex *cidx = comm_index_new (u);
  for (size_t c = 0; c < u->n_comms; c++)
    {
      const GComm *g = &u->comms[c];
      OTF2_GlobalDefWriter_WriteGroup (gw, (uint32_t)(c + 1), empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)g->size,
                                       g->members);
    }
  /* group B of each inter-communicator, ids in definition order after the others */
  uint32_t *group_b = calloc (u->n_comms + 1, sizeof *group_b);
  uint32_t  next_group = (uint32_t)u->n_comms + 1;
  for (size_t c = 0; c < u->n_comms && group_b != NULL; c++)
    if (u->comms[c].size_b > 0)
      {
        group_b[c] = next_group++;
        OTF2_GlobalDefWriter_WriteGroup (gw, group_b[c], empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                         OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                         (uint32_t)u->comms[c].size_b, u->comms[c].members_b);
      }
  for (size_t c = 0; c < u->n_comms; c++)
    {
      const GComm *g = &u->comms[c];
      char         name[64];
      if (g->key == 1)
        snprintf (name, sizeof name, "MPI_COMM_WORLD");
      else if (g->parent_key == 0 && g->size == 1)
        snprintf (name, sizeof name, "MPI_COMM_SELF");
      else
        snprintf (name, sizeof name, "MPI communicator %zu", c);
      int parent = g->parent_key ? comm_gid (u, cidx, g->parent_key) : -1;
      if (g->size_b > 0 && group_b != NULL)
        {
          /* OTF2 3.0's InterComm: point-to-point peers are ranks of the other group */
          snprintf (name, sizeof name, "MPI inter-communicator %zu", c);
          OTF2_GlobalDefWriter_WriteInterComm (gw, (uint32_t)c, str (&st, OWN (strdup (name))),
                                               (uint32_t)(c + 1), group_b[c],
                                               parent >= 0 ? (uint32_t)parent : OTF2_UNDEFINED_COMM,
                                               OTF2_COMM_FLAG_NONE);
          continue;
        }
      OTF2_GlobalDefWriter_WriteComm (
          gw, (uint32_t)c, str (&st, OWN (strdup (name))), (uint32_t)(c + 1),
          parent >= 0 ? (uint32_t)parent : OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    }

  /* Cartesian topologies: dimensions, topology, then one coordinate per
   * rank that declared one (read again from the rank buffers) */
  uint32_t dim_id = 0;
  for (size_t t = 0; t < n_topos; t++)
    {
      GTopo *tp = &topos[t];
      int    comm = comm_gid (u, cidx, tp->comm_key);
      tp->id = (uint32_t)t;
      tp->dim_base = dim_id;
      OTF2_CartDimensionRef dims[16];
      for (int k = 0; k < tp->ndims; k++)
        {
          char name[96];
          snprintf (name, sizeof name, "%.*s dimension %d", (int)kubus_text_cut (tp->name, 64),
                    tp->name, k);
          dims[k] = dim_id++;
          OTF2_GlobalDefWriter_WriteCartDimension (
              gw, dims[k], str (&st, OWN (strdup (name))), (uint32_t)tp->dims[k],
              tp->periods[k] ? OTF2_CART_PERIODIC_TRUE : OTF2_CART_PERIODIC_FALSE);
        }
      OTF2_GlobalDefWriter_WriteCartTopology (gw, tp->id, str (&st, tp->name),
                                              comm >= 0 ? (uint32_t)comm : 0, (uint8_t)tp->ndims,
                                              dims);
    }
  for (int r = 0; r < n; r++)
    {
      if (u->data[r] == NULL)
        continue;
      Reader   rd = { u->data[r], u->len[r], HEADER_WORDS, 0 };
      uint64_t nc = get (&rd);
      for (uint64_t i = 0; i < nc && !rd.bad; i++)
        {
          get (&rd);
          get (&rd);
          rd.pos += get (&rd); /* group A */
          rd.pos += get (&rd); /* group B */
        }
      uint64_t nt = get (&rd);
      for (uint64_t i = 0; i < nt && !rd.bad; i++)
        {
          uint64_t key = get (&rd);
          char    *name = get_str (&rd);
          int      ndims = (int)get (&rd);
          uint32_t rank = (uint32_t)get (&rd);
          int      have = (int)get (&rd);
          uint32_t coords[16];
          for (int k = 0; k < ndims && k < 16; k++)
            {
              get (&rd);
              get (&rd);
              coords[k] = (uint32_t)get (&rd);
            }
          for (size_t t = 0; t < n_topos && name != NULL && have; t++)
            if (topos[t].comm_key == key && strcmp (topos[t].name, name) == 0)
              OTF2_GlobalDefWriter_WriteCartCoordinate (gw, topos[t].id, rank, (uint8_t)ndims,
                                                        coords);
          free (name);
        }
    }
#undef OWN
  free (cidx);
  free (group_b);
  int err = st.err;
  err |= OTF2_Archive_CloseGlobalDefWriter (archive, gw) != OTF2_SUCCESS;
  for (size_t i = 0; i < n_owned; i++)
    free (owned[i]);
  free (owned);
  free (st.s);
  free (st.slot);
  return err ? -1 : 0;
}

/* ---- local definitions ----------------------------------------------- */

static void
write_local (OTF2_Archive   *archive,
             const uint64_t *comm_map,
             size_t          n_comm,
             const uint64_t *region_map,
             size_t          n_region)
{
  OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (archive, (OTF2_LocationRef)kubus_world_rank);
  if (dw == NULL)
    return;
  if (n_region > 0)
    {
      size_t    len = KUBUS_R_USER_BASE + n_region;
      uint64_t *m = malloc (len * sizeof *m);
      if (m != NULL)
        {
          for (size_t i = 0; i < KUBUS_R_USER_BASE; i++)
            m[i] = i;
          for (size_t i = 0; i < n_region; i++)
            m[KUBUS_R_USER_BASE + i] = region_map[i];
          OTF2_IdMap *map = OTF2_IdMap_CreateFromUint64Array (len, m, true);
          if (map != NULL)
            {
              OTF2_DefWriter_WriteMappingTable (dw, OTF2_MAPPING_REGION, map);
              OTF2_IdMap_Free (map);
            }
          free (m);
        }
    }
  if (n_comm > 0)
    {
      OTF2_IdMap *map = OTF2_IdMap_CreateFromUint64Array (n_comm, comm_map, true);
      if (map != NULL)
        {
          OTF2_DefWriter_WriteMappingTable (dw, OTF2_MAPPING_COMM, map);
          OTF2_IdMap_Free (map);
        }
    }
  OTF2_DefWriter_WriteClockOffset (dw, kubus_clock.time_begin, kubus_clock.offset_begin, 0.0);
  OTF2_DefWriter_WriteClockOffset (dw, kubus_clock.time_end, kubus_clock.offset_end, 0.0);
  OTF2_Archive_CloseDefWriter (archive, dw);
}

static uint64_t
close_events (OTF2_Archive *archive)
{
  uint64_t n = 0;
  if (kubus_evt != NULL)
    {
      kubus_raw_drain (); /* the event buffer's records, in order (collect-buffer.c) */
      OTF2_EvtWriter_GetNumberOfEvents (kubus_evt, &n);
      OTF2_Archive_CloseEvtWriter (archive, kubus_evt);
      kubus_evt = NULL;
    }
  OTF2_Archive_CloseEvtFiles (archive);
  return n;
}

static void
free_unify (Unify *u, GTopo *topos, size_t n_topos)
{
  for (size_t i = 0; i < n_topos; i++)
    free (topos[i].name);
  free (topos);
  for (size_t i = 0; i < u->n_regions; i++)
    free (u->regions[i]);
  free (u->regions);
  free (u->region_manual);
  free (u->comms);
  for (int r = 0; r < u->nranks; r++)
    {
      if (u->comm_map)
        free (u->comm_map[r]);
      if (u->region_map)
        free (u->region_map[r]);
    }
  free (u->comm_map);
  free (u->comm_map_len);
  free (u->region_map);
  free (u->region_map_len);
  free (u->n_events);
}

int
kubus_unify_and_write (OTF2_Archive *archive)
{
  int      n = kubus_world_size, me = kubus_world_rank;
  MPI_Comm comm = kubus_internal_comm;
  uint64_t n_events = close_events (archive);

  Buf b = { 0 };
  pack_local (&b, n_events);
  int       my_len = b.failed ? 0 : (int)b.n;
  int      *lens = NULL, *displs = NULL;
  uint64_t *all = NULL;
  if (me == 0)
    {
      lens = calloc ((size_t)n, sizeof *lens);
      displs = calloc ((size_t)n, sizeof *displs);
    }
  PMPI_Gather (&my_len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
  size_t total = 0;
  if (me == 0 && lens && displs)
    {
      for (int r = 0; r < n; r++)
        {
          displs[r] = (int)total;
          total += (size_t)lens[r];
        }
      all = malloc ((total + 1) * sizeof *all);
    }
  PMPI_Gatherv (b.w, my_len, MPI_UINT64_T, all, lens, displs, MPI_UINT64_T, 0, comm);
  free (b.w);

  /* rank 0 unifies and prepares each rank's maps */
  Unify  u = { 0 };
  GTopo *topos = NULL;
  size_t n_topos = 0;
  int    ok = 1;
  Buf    maps = { 0 };
  int   *map_lens = NULL, *map_displs = NULL;
  if (me == 0)
    {
      const uint64_t **data = calloc ((size_t)n, sizeof *data);
      size_t          *len = calloc ((size_t)n, sizeof *len);
      ok = all != NULL && data != NULL && len != NULL;
      for (int r = 0; ok && r < n; r++)
        {
          data[r] = lens[r] > 0 ? all + displs[r] : NULL;
          len[r] = (size_t)lens[r];
        }
      u.nranks = n;
      u.data = data;
      u.len = len;
      ok = ok && unify (&u, &topos, &n_topos) == 0;
      map_lens = calloc ((size_t)n, sizeof *map_lens);
      map_displs = calloc ((size_t)n, sizeof *map_displs);
      ok = ok && map_lens && map_displs;
      for (int r = 0; ok && r < n; r++)
        {
          size_t before = maps.n;
          map_displs[r] = (int)before;
          put (&maps, u.comm_map_len[r]);
          for (size_t i = 0; i < u.comm_map_len[r]; i++)
            put (&maps, u.comm_map[r][i]);
          put (&maps, u.region_map_len[r]);
          for (size_t i = 0; i < u.region_map_len[r]; i++)
            put (&maps, u.region_map[r][i]);
          map_lens[r] = (int)(maps.n - before);
        }
      ok = ok && !maps.failed;
      if (!ok)
        for (int r = 0; map_lens && r < n; r++)
          map_lens[r] = 0;
      data = NULL;
    }
  int my_map_len = 0;
  PMPI_Scatter (map_lens, 1, MPI_INT, &my_map_len, 1, MPI_INT, 0, comm);
  uint64_t *my_map = malloc (((size_t)my_map_len + 1) * sizeof *my_map);
  PMPI_Scatterv (maps.w, map_lens, map_displs, MPI_UINT64_T, my_map, my_map_len, MPI_UINT64_T, 0,
                 comm);

  /* everybody: local definitions with the id maps and clock offsets */
  OTF2_Archive_OpenDefFiles (archive);
  if (my_map != NULL && my_map_len > 0)
    {
      Reader          rd = { my_map, (size_t)my_map_len, 0, 0 };
      uint64_t        nc = get (&rd);
      const uint64_t *cm = my_map + rd.pos;
      rd.pos += nc;
      uint64_t        nr = get (&rd);
      const uint64_t *rm = my_map + rd.pos;
      if (!rd.bad && rd.pos + nr <= rd.n)
        write_local (archive, cm, nc, rm, nr);
    }
  else
    write_local (archive, NULL, 0, NULL, 0);
  OTF2_Archive_CloseDefFiles (archive);
  free (my_map);

  int err = 0;
  if (me == 0)
    {
      if (ok)
        {
          kubus_clock_properties (archive);
          kubus_threads_properties (archive);
          kubus_mpit_properties (archive);
          err = write_global (archive, &u, topos, n_topos);
        }
      else
        err = -1;
      free ((void *)u.data);
      free ((void *)u.len);
      free_unify (&u, topos, n_topos);
      free (maps.w);
      free (map_lens);
      free (map_displs);
      free (all);
      free (lens);
      free (displs);
    }
  OTF2_Archive_Close (archive);
  int any_err = 0;
  PMPI_Allreduce (&err, &any_err, 1, MPI_INT, MPI_LOR, comm);
  return any_err ? -1 : 0;
}

/* After an abort the functions found on this rank's stack need not be lost with the other
 * user regions: their keys name them on every rank, so the rank leaves them in
 * EXPDIR/.kubus-frames-<rank> ("LOCAL-ID KEY" lines) and kubus-run maps them to regions of the
 * global definitions after the run. */
const char *kubus_expdir (void) KUBUS_INTERNAL;

static void
save_frame_keys (void)
{
  char path[4200], tmp[4300];
  snprintf (path, sizeof path, "%s/.kubus-frames-%d", kubus_expdir (), kubus_world_rank);
  snprintf (tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = NULL;
  for (uint32_t i = 0; i < kubus_region_count (); i++)
    {
      uint32_t id = KUBUS_R_USER_BASE + i;
      if (kubus_region_kind (id) != KUBUS_REGION_FRAME)
        continue;
      if (f == NULL && (f = fopen (tmp, "w")) == NULL)
        return;
      fprintf (f, "%u %s\n", id, kubus_region_name (id));
    }
  if (f != NULL && fclose (f) == 0)
    rename (tmp, path);
  else if (f != NULL)
    unlink (tmp);
}

/* After an abort: this rank's data only.  The rank holding the lock writes
 * the global definitions from what it knows (all locations, the MPI
 * regions, its own communicators, user regions and topologies); the other
 * ranks map their user regions to KUBUS_UNKNOWN_REGION and their
 * communicators to MPI_COMM_WORLD, since nobody can unify them any more. */
int
kubus_write_local_only (OTF2_Archive *archive, int write_global_defs)
{
  uint64_t n_events = close_events (archive);
  kubus_abort_span_write (kubus_clock_correct (kubus_clock.start_time),
                          kubus_clock_correct (kubus_clock.end_time));
  /* test hook: behave like a rank that mpirun kills at this point (it
   * stops here; killing it would make mpirun end the job at once) */
  if (!write_global_defs && getenv ("KUBUS_TEST_DIE_AFTER_EVENTS") != NULL)
    return 1;
  Buf b = { 0 };
  pack_local (&b, n_events);
  int              n = kubus_world_size;
  int              err = 0;
  Unify            u = { 0 };
  GTopo           *topos = NULL;
  size_t           n_topos = 0;
  const uint64_t **data = calloc ((size_t)n, sizeof *data);
  size_t          *len = calloc ((size_t)n, sizeof *len);
  if (b.failed || data == NULL || len == NULL)
    err = -1;
  else
    {
      data[kubus_world_rank] = b.w;
      len[kubus_world_rank] = b.n;
      u.nranks = n;
      u.data = data;
      u.len = len;
      err = unify (&u, &topos, &n_topos);
    }

  OTF2_Archive_OpenDefFiles (archive);
  if (err == 0)
    {
      int r = kubus_world_rank;
      if (!write_global_defs)
        {
          for (size_t i = 0; i < u.comm_map_len[r]; i++)
            u.comm_map[r][i] = KUBUS_COMM_WORLD_ID;
          for (size_t i = 0; i < u.region_map_len[r]; i++)
            u.region_map[r][i] = KUBUS_R_UNKNOWN;
          save_frame_keys ();
        }
      write_local (archive, u.comm_map[r], u.comm_map_len[r], u.region_map[r], u.region_map_len[r]);
    }
  OTF2_Archive_CloseDefFiles (archive);
  if (kubus_clock.global_start != 0 && kubus_clock.global_start < u.start)
    u.start = kubus_clock.global_start;
  if (err == 0 && write_global_defs)
    {
      kubus_abort_span_gather (&u.start, &u.end);
      kubus_clock_properties (archive);
      err = write_global (archive, &u, topos, n_topos);
    }
  OTF2_Archive_Close (archive);
  free_unify (&u, topos, n_topos);
  free (data);
  free (len);
  free (b.w);
  return err;
}
