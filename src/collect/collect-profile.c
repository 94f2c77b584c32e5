/* collect-profile.c: the lightweight profile (call-path profile, call sites, min-based
 * wait-state estimates after Mao et al., EuroMPI/ASIA 2014) recorded in the application.
 *
 * Hot path: an MPI call looks its call path up (parent, region) in an open-addressing table,
 * notes its call site (return address; a call path may have several, at most MAX_SITES),
 * pushes a frame and on leave adds its duration.  Exclusive time is
 * computed per visit on the stack (duration minus the durations of the frames inside it), so
 * it stays exact even when a frame is folded into the overflow call path.  Nothing is
 * allocated per call: call paths live in chunks that never move; a new path costs one chunk
 * slot and sometimes a table doubling.
 *
 * At MPI_Finalize every rank computes the minimum duration per (function, size class) of its
 * own calls, one MPI_Allreduce makes the global minima, every rank turns its class records
 * into estimates and sends one record (collect-profile-write.h) to rank 0, which merges and
 * writes EXPDIR/profile.cube.  See docs/decisions/2026-11-25-profile.md. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collect.h"
#include "collect-profile-write.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int         kubus_profiling;
const void *kubus_prof_site_hint;

#define CHUNK_BITS 10
#define CHUNK (1u << CHUNK_BITS)
#define MAX_DEPTH 1100 /* 1024 user frames (collect-user.c), the root, an MPI call, a flush */
#define DEFAULT_PATHS 262144u /* 2^18 call paths per thread: about 33 MB at most */
#define MAX_THREADS 256
#define N_CLASSES 65 /* 0 bytes, then [2^k, 2^(k+1)) for k = 0 … 63 */
#define R_OVERFLOW 0xFFFFFFF0u
#define NO_NODE UINT32_MAX

typedef struct
{
  uint32_t parent, region;
  uint64_t site;  /* return address of the first MPI call here; 0 for user regions */
  uint32_t cls;   /* first class record + 1 */
  uint32_t sites; /* further call sites: first PSite + 1 */
  uint64_t visits, time, min, max;
  uint64_t bytes[4];  /* sent, received, collective out, collective in */
  uint32_t counts[8]; /* syncs send/recv/coll, comms send/recv/cxch/csrc/cdst */
} PNode;

typedef struct
{
  uint32_t next; /* + 1 */
  uint32_t cls;
  uint64_t visits, sum, min;
} PCls;

/* a further call site of a call path (the first is in the node) */
typedef struct
{
  uint32_t next; /* + 1 */
  uint64_t addr;
} PSite;
#define MAX_SITES 16

/* the children of a call path looked up last, MEMO of them in two sets of two chosen by
 * (call site, region), the newer first: the calls of a loop find their call paths here without
 * hashing */
#define MEMO 4
#define MEMO_NONE UINT32_MAX /* an empty entry's region (no region has this id) */
typedef struct
{
  uint64_t site;
  uint32_t region, id;
  PNode   *n; /* node_at (id) */
} PMemo;

static inline uint32_t
memo_set (uint64_t site, uint32_t region)
{
  return (uint32_t)(((site ^ region) * 0x9E3779B97F4A7C15ull) >> 63) * 2;
}

typedef struct
{
  uint32_t node;
  uint32_t folded; /* inside the overflow call path: no accounting of its own */
  uint64_t enter, child;
  PNode   *n;          /* node_at (node): chunks never move */
  int32_t  slot;       /* slot_of_region (region): its wait-state estimate, -1 */
  uint32_t memo_owner; /* the node memo[] holds children of, + 1 (0, as calloc leaves it: none) */
  PMemo    memo[MEMO];
} PFrame;

typedef struct KubusProf
{
  PNode   **chunks;
  uint32_t  n_chunks_max;
  uint32_t  n_nodes;
  uint32_t *slots; /* node + 1 */
  uint32_t  slot_mask;
  uint32_t  overflow; /* the KUBUS_OVERFLOW call path, NO_NODE before the limit is hit */
  uint64_t  folded;   /* visits that went to it */
  PCls     *cls;
  uint32_t  n_cls, cap_cls;
  PSite    *xs;
  uint32_t  n_xs, cap_xs;
  int       depth; /* may exceed MAX_DEPTH: deeper frames are not recorded */
  int       thread_no;
  int       failed; /* out of memory: stopped growing */
  size_t    bytes;  /* memory held */
  /* the MPI call on top of the stack (main thread): zero outside a call (kubus_prof_leave
   * clears what the call changed, call_any says whether it did) */
  uint64_t call_rbytes, call_sbytes, call_cbytes;
  uint32_t call_nrecv, call_nsend, call_coll, call_any;
  struct KubusProf *next_thread;
  PFrame            stack[MAX_DEPTH];
} KubusProf;

static KubusProf       *main_prof;
static uint32_t         path_limit = DEFAULT_PATHS;
static KubusProf       *threads; /* other threads, newest first */
static int              n_threads;
static pthread_mutex_t  threads_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread KubusProf *tls_prof __attribute__ ((tls_model ("initial-exec")));
static KubusProf        thread_refused; /* marks threads past MAX_THREADS */

/* ---- the estimated patterns -------------------------------------------------------------------- */

enum
{
  P_LS,
  P_LR,
  P_BARRIER,
  P_NXN,
  P_LB,
  P_ER
};

static const struct
{
  const char *name;
  int         pattern;
} est_functions[] = {
  { "MPI_Recv", P_LS },          { "MPI_Sendrecv", P_LS },    { "MPI_Sendrecv_replace", P_LS },
  { "MPI_Wait", P_LS },          { "MPI_Waitall", P_LS },     { "MPI_Waitany", P_LS },
  { "MPI_Waitsome", P_LS },      { "MPI_Ssend", P_LR },       { "MPI_Barrier", P_BARRIER },
  { "MPI_Allreduce", P_NXN },    { "MPI_Allgather", P_NXN },  { "MPI_Allgatherv", P_NXN },
  { "MPI_Alltoall", P_NXN },     { "MPI_Alltoallv", P_NXN },  { "MPI_Alltoallw", P_NXN },
  { "MPI_Reduce_scatter", P_NXN }, { "MPI_Reduce_scatter_block", P_NXN },
  { "MPI_Bcast", P_LB },         { "MPI_Scatter", P_LB },     { "MPI_Scatterv", P_LB },
  { "MPI_Reduce", P_ER },        { "MPI_Gather", P_ER },      { "MPI_Gatherv", P_ER },
};
#define N_EST (int)(sizeof est_functions / sizeof est_functions[0])
static const int est_value[] = { KP_LS, KP_LR, KP_BARRIER, KP_NXN, KP_LB, KP_ER };

static int8_t est_slot[KUBUS_R_MPI_COUNT]; /* region → index in est_functions, -1 */

static void
init_est_slots (void)
{
  for (int r = 0; r < KUBUS_R_MPI_COUNT; r++)
    {
      est_slot[r] = -1;
      for (int i = 0; i < N_EST; i++)
        if (strcmp (kubus_mpi_regions[r].name, est_functions[i].name) == 0)
          est_slot[r] = (int8_t)i;
    }
}

static inline int
slot_of_region (uint32_t region)
{
  return region < KUBUS_R_MPI_COUNT ? est_slot[region] : -1;
}

/* powers of two: 0 bytes is class 0, [2^k, 2^(k+1)) is class k + 1 */
static inline uint32_t
size_class (uint64_t bytes)
{
  return bytes == 0 ? 0 : 64u - (uint32_t)__builtin_clzll (bytes);
}

/* ---- environment ------------------------------------------------------------------------------- */

static int
env_off (const char *name)
{
  const char *v = getenv (name);
  return v != NULL && (strcmp (v, "0") == 0 || strcmp (v, "no") == 0 || strcmp (v, "off") == 0);
}

static int
env_on (const char *name)
{
  const char *v = getenv (name);
  return v != NULL && v[0] != '\0' && !env_off (name);
}

int
kubus_prof_wanted (void)
{
  return !env_off ("KUBUS_PROFILE");
}

int
kubus_trace_wanted (void)
{
  return !env_on ("KUBUS_NO_TRACE");
}

/* ---- one thread's call tree -------------------------------------------------------------------- */

static inline PNode *
node_at (KubusProf *p, uint32_t id)
{
  return &p->chunks[id >> CHUNK_BITS][id & (CHUNK - 1)];
}

static KubusProf *
prof_new (int thread_no)
{
  KubusProf *p = calloc (1, sizeof *p);
  if (p == NULL)
    return NULL;
  p->thread_no = thread_no;
  p->overflow = NO_NODE;
  p->n_chunks_max = (path_limit + 1 + CHUNK - 1) / CHUNK + 1;
  p->chunks = calloc (p->n_chunks_max, sizeof *p->chunks);
  p->slot_mask = 1023;
  p->slots = calloc (p->slot_mask + 1, sizeof *p->slots);
  if (p->chunks == NULL || p->slots == NULL)
    {
      free (p->chunks);
      free (p->slots);
      free (p);
      return NULL;
    }
  p->bytes = sizeof *p + p->n_chunks_max * sizeof *p->chunks + (p->slot_mask + 1) * sizeof *p->slots;
  return p;
}

/* A call path is (parent, region, call site): an MPI function called from two places in the
 * same function is two call paths, so every call site has numbers of its own (mpiP's rows). */
static inline uint32_t
path_hash (uint32_t parent, uint32_t region, uint64_t site)
{
  uint64_t h = ((uint64_t)parent << 32 | region) * 0x9E3779B97F4A7C15ull;
  h ^= site * 0xC2B2AE3D27D4EB4Full;
  return (uint32_t)(h >> 32);
}

static int
grow_slots (KubusProf *p)
{
  uint32_t  mask = p->slot_mask * 2 + 1;
  uint32_t *slots = calloc ((size_t)mask + 1, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (uint32_t id = 0; id < p->n_nodes; id++)
    {
      PNode   *n = node_at (p, id);
      uint32_t s = path_hash (n->parent, n->region, n->site) & mask;
      while (slots[s] != 0)
        s = (s + 1) & mask;
      slots[s] = id + 1;
    }
  free (p->slots);
  p->bytes += ((size_t)mask + 1 - ((size_t)p->slot_mask + 1)) * sizeof *slots;
  p->slots = slots;
  p->slot_mask = mask;
  return 0;
}

/* A new call path; NO_NODE when out of memory. */
static uint32_t
new_node (KubusProf *p, uint32_t parent, uint32_t region, uint64_t site)
{
  uint32_t id = p->n_nodes;
  if ((id >> CHUNK_BITS) >= p->n_chunks_max)
    return NO_NODE;
  if (p->chunks[id >> CHUNK_BITS] == NULL)
    {
      p->chunks[id >> CHUNK_BITS] = calloc (CHUNK, sizeof (PNode));
      if (p->chunks[id >> CHUNK_BITS] == NULL)
        return NO_NODE;
      p->bytes += CHUNK * sizeof (PNode);
    }
  PNode *n = node_at (p, id);
  n->parent = parent;
  n->region = region;
  n->site = site;
  n->min = UINT64_MAX;
  p->n_nodes++;
  return id;
}

/* A call site @site of call path @id besides its first one: kept unless known or too many. */
static void
note_site (KubusProf *p, uint32_t id, uint64_t site)
{
  PNode   *n = node_at (p, id);
  uint32_t count = 1;
  for (uint32_t x = n->sites; x != 0; x = p->xs[x - 1].next, count++)
    if (p->xs[x - 1].addr == site)
      return;
  if (count >= MAX_SITES)
    return;
  if (p->n_xs == p->cap_xs)
    {
      uint32_t cap = p->cap_xs ? 2 * p->cap_xs : 64;
      PSite   *xs = realloc (p->xs, cap * sizeof *xs);
      if (xs == NULL)
        return;
      p->bytes += (cap - p->cap_xs) * sizeof *xs;
      p->xs = xs;
      p->cap_xs = cap;
    }
  p->xs[p->n_xs] = (PSite){ n->sites, site };
  n->sites = ++p->n_xs;
}

/* The child @region of @parent: found, created, or the overflow call path.  @site: the call
 * site of a new MPI call path. */
static uint32_t
child (KubusProf *p, uint32_t parent, uint32_t region, uint64_t site)
{
  uint32_t s = path_hash (parent, region, site) & p->slot_mask;
  for (;;)
    {
      uint32_t id = p->slots[s];
      if (id == 0)
        break;
      PNode *n = node_at (p, id - 1);
      if (n->parent == parent && n->region == region && n->site == site)
        return id - 1;
      s = (s + 1) & p->slot_mask;
    }
  if (p->n_nodes >= path_limit || p->failed)
    {
      if (p->overflow == NO_NODE)
        {
          /* beneath the root, once; allowed past the limit */
          p->overflow = new_node (p, 0, R_OVERFLOW, 0);
          if (p->overflow != NO_NODE)
            kubus_log ("profile: more than %u call paths on thread %d; calls on new call "
                       "paths go to KUBUS_OVERFLOW (KUBUS_PROFILE_PATHS raises the limit)",
                       path_limit, p->thread_no);
        }
      return p->overflow;
    }
  if ((p->n_nodes + 1) * 2 > p->slot_mask + 1)
    {
      if (grow_slots (p) != 0)
        {
          p->failed = 1;
          return child (p, parent, region, site);
        }
      s = path_hash (parent, region, site) & p->slot_mask;
      while (p->slots[s] != 0)
        s = (s + 1) & p->slot_mask;
    }
  uint32_t id = new_node (p, parent, region, site);
  if (id == NO_NODE)
    {
      p->failed = 1;
      return child (p, parent, region, site);
    }
  p->slots[s] = id + 1;
  return id;
}

/* push() when the parent's memo does not know the child: the hash table (child()), then the
 * memo learns it */
static __attribute__ ((noinline)) void
push_lookup (KubusProf *p, PFrame *top, PFrame *f, PMemo *m, uint32_t region, uint64_t site)
{
  uint32_t id = child (p, top->node, region, site);
  if (id == NO_NODE)
    {
      /* out of memory and no overflow path either: fold into the parent */
      f->node = top->node;
      f->n = top->n;
      f->folded = 1;
      return;
    }
  f->node = id;
  f->n = node_at (p, id);
  f->folded = 0;
  if (id == p->overflow)
    p->folded++;
  else
    {
      if (__builtin_expect (f->n->site != site, 0))
        note_site (p, id, site);
      m[1] = m[0];
      m[0] = (PMemo){ site, region, id, f->n };
    }
}

static inline __attribute__ ((always_inline)) void
push (KubusProf *p, uint32_t region, uint64_t site, uint64_t t)
{
  int depth = p->depth;
  if (depth == 0)
    return; /* closed */
  if (depth >= MAX_DEPTH)
    {
      p->depth = depth + 1;
      return;
    }
  p->depth = depth + 1;
  PFrame *top = &p->stack[depth - 1];
  PFrame *f = top + 1;
  f->enter = t;
  f->child = 0;
  f->slot = slot_of_region (region);
  uint32_t parent = top->node;
  if (parent == p->overflow) /* (a frame's node is never NO_NODE) */
    {
      /* inside the overflow call path: its time stays there */
      f->node = parent;
      f->n = top->n;
      f->folded = 1;
      return;
    }
  /* the parent's memo first: a hit is a child child() found before for this very site */
  if (__builtin_expect (top->memo_owner != parent + 1, 0))
    {
      top->memo_owner = parent + 1;
      for (uint32_t k = 0; k < MEMO; k++)
        top->memo[k].region = MEMO_NONE;
    }
  PMemo *m = &top->memo[memo_set (site, region)];
  if (__builtin_expect (m[0].site != site || m[0].region != region, 0))
    {
      if (m[1].site != site || m[1].region != region)
        {
          push_lookup (p, top, f, m, region, site);
          return;
        }
      m++;
    }
  f->node = m->id;
  f->n = m->n;
  f->folded = 0;
}

/* Pops the top frame; returns its duration, or UINT64_MAX for a frame not accounted. */
static inline __attribute__ ((always_inline)) uint64_t
pop (KubusProf *p, uint64_t t)
{
  if (p->depth > MAX_DEPTH)
    {
      p->depth--;
      return UINT64_MAX;
    }
  if (p->depth <= 1)
    return UINT64_MAX;
  PFrame *f = &p->stack[--p->depth];
  if (f->folded)
    return UINT64_MAX;
  uint64_t d = t > f->enter ? t - f->enter : 0;
  PNode   *n = f->n;
  n->visits++;
  n->time += d > f->child ? d - f->child : 0;
  if (d < n->min)
    n->min = d;
  if (d > n->max)
    n->max = d;
  p->stack[p->depth - 1].child += d;
  return d;
}

/* ---- main thread ----------------------------------------------------------------------------- */

int
kubus_prof_started (void)
{
  return main_prof != NULL;
}

void
kubus_prof_begin (uint64_t begin)
{
  if (!kubus_prof_wanted ())
    return;
  const char *v = getenv ("KUBUS_PROFILE_PATHS");
  if (v != NULL && v[0] != '\0')
    {
      char              *end;
      unsigned long long n = strtoull (v, &end, 10);
      if (*end == '\0' && n >= 16 && n <= 100000000ull)
        path_limit = (uint32_t)n;
    }
  init_est_slots ();
  main_prof = prof_new (0);
  if (main_prof == NULL)
    return;
  uint32_t root = new_node (main_prof, NO_NODE, KUBUS_R_PROGRAM, 0);
  if (root == NO_NODE)
    {
      main_prof = NULL;
      return;
    }
  main_prof->stack[0] = (PFrame){ .node = root, .enter = begin, .n = node_at (main_prof, root),
                                  .slot = -1, .memo_owner = 0 };
  main_prof->depth = 1;
  kubus_profiling = 1;
}

void
kubus_prof_enter (uint32_t region, const void *site, uint64_t t)
{
  push (main_prof, region, (uint64_t)(uintptr_t)site, t);
}

static void
add_class (KubusProf *p, PNode *n, uint32_t cls, uint64_t d)
{
  for (uint32_t r = n->cls; r != 0; r = p->cls[r - 1].next)
    if (p->cls[r - 1].cls == cls)
      {
        PCls *c = &p->cls[r - 1];
        c->visits++;
        c->sum += d;
        if (d < c->min)
          c->min = d;
        return;
      }
  if (p->n_cls == p->cap_cls)
    {
      uint32_t cap = p->cap_cls ? 2 * p->cap_cls : 256;
      PCls    *c = realloc (p->cls, cap * sizeof *c);
      if (c == NULL)
        return;
      p->bytes += (cap - p->cap_cls) * sizeof *c;
      p->cls = c;
      p->cap_cls = cap;
    }
  p->cls[p->n_cls] = (PCls){ n->cls, cls, 1, d, d };
  n->cls = ++p->n_cls;
}

void
kubus_prof_leave (uint64_t t)
{
  KubusProf *p = main_prof;
  int        top = p->depth - 1;
  if (top >= 1 && top < MAX_DEPTH && p->stack[top].slot >= 0)
    {
      /* a function whose waits are estimated: what the call moved gives its size class */
      PFrame  *f = &p->stack[top];
      uint32_t node = f->node;
      PNode   *n = f->n;
      int      slot = f->slot;
      uint64_t d = pop (p, t);
      if (d != UINT64_MAX && node != p->overflow)
        switch (est_functions[slot].pattern)
          {
          case P_LS:
            if (p->call_nrecv > 0)
              add_class (p, n, size_class (p->call_rbytes), d);
            break;
          case P_LR:
            if (p->call_nsend > 0)
              add_class (p, n, size_class (p->call_sbytes), d);
            break;
          default:
            if (p->call_coll)
              add_class (p, n, size_class (p->call_cbytes), d);
          }
    }
  else
    pop (p, t);
  if (p->call_any)
    {
      p->call_nrecv = p->call_nsend = p->call_coll = p->call_any = 0;
      p->call_rbytes = p->call_sbytes = p->call_cbytes = 0;
    }
}

void
kubus_prof_push (uint32_t region, uint64_t t)
{
  push (main_prof, region, 0, t);
}

void
kubus_prof_pop (uint64_t t)
{
  pop (main_prof, t);
}

void
kubus_prof_flush (uint64_t begin, uint64_t end)
{
  if (main_prof == NULL || !kubus_profiling)
    return;
  push (main_prof, KUBUS_R_FLUSH, 0, begin);
  pop (main_prof, end);
}

static inline PNode *
call_node (KubusProf *p)
{
  int top = p->depth - 1;
  return top >= 1 && top < MAX_DEPTH ? p->stack[top].n : NULL;
}

void
kubus_prof_sent (uint64_t bytes)
{
  KubusProf *p = main_prof;
  PNode     *n = call_node (p);
  if (n == NULL)
    return;
  n->bytes[0] += bytes;
  n->counts[bytes ? 3 : 0]++;
  p->call_nsend++;
  p->call_sbytes += bytes;
  p->call_any = 1;
}

void
kubus_prof_received (uint64_t bytes)
{
  KubusProf *p = main_prof;
  PNode     *n = call_node (p);
  if (n == NULL)
    return;
  n->bytes[1] += bytes;
  n->counts[bytes ? 4 : 1]++;
  p->call_nrecv++;
  p->call_rbytes += bytes;
  p->call_any = 1;
}

void
kubus_prof_coll_bytes (uint64_t sent, uint64_t received)
{
  PNode *n = call_node (main_prof);
  if (n == NULL)
    return;
  n->bytes[2] += sent;
  n->bytes[3] += received;
  n->counts[sent == 0 && received == 0 ? 2 : sent > 0 && received > 0 ? 5 : sent > 0 ? 6 : 7]++;
}

void
kubus_prof_coll (uint32_t comm, int size, int me, uint32_t root, uint64_t sent, uint64_t received)
{
  KubusProf *p = main_prof;
  PNode     *n = call_node (p);
  if (n == NULL)
    return;
  n->bytes[2] += sent;
  n->bytes[3] += received;
  n->counts[sent == 0 && received == 0 ? 2 : sent > 0 && received > 0 ? 5 : sent > 0 ? 6 : 7]++;
  /* communicators of one rank and inter-communicators carry no wait state (PATTERNS.md) */
  if (size <= 1 || (comm < (uint32_t)kubus_comm_count () && kubus_comm_get ((int)comm)->remote_size > 0))
    return;
  int slot = slot_of_region (n->region);
  if (slot < 0)
    return;
  int pat = est_functions[slot].pattern;
  if ((pat == P_LB && (uint32_t)me == root) || (pat == P_ER && (uint32_t)me != root))
    return;
  p->call_coll = 1;
  p->call_cbytes = sent > received ? sent : received;
  p->call_any = 1;
}

/* ---- other threads ----------------------------------------------------------------------------- */

uint64_t
kubus_prof_thread_enter (uint32_t region, const void *site)
{
  KubusProf *p = tls_prof;
  if (p == NULL)
    {
      pthread_mutex_lock (&threads_lock);
      p = n_threads < MAX_THREADS ? prof_new (n_threads + 1) : NULL;
      if (p != NULL && new_node (p, NO_NODE, KUBUS_R_PROGRAM, 0) == 0)
        {
          p->stack[0] = (PFrame){ .node = 0, .enter = kubus_now (), .n = node_at (p, 0), .slot = -1,
                                  .memo_owner = 0 };
          p->depth = 1;
          p->next_thread = threads;
          threads = p;
          n_threads++;
        }
      else
        p = &thread_refused;
      pthread_mutex_unlock (&threads_lock);
      tls_prof = p;
    }
  if (p == &thread_refused)
    return 0;
  push (p, region, (uint64_t)(uintptr_t)site, kubus_now ());
  return 1;
}

void
kubus_prof_thread_leave (uint64_t token)
{
  if (token != 0 && tls_prof != NULL && tls_prof != &thread_refused)
    pop (tls_prof, kubus_now ());
}

/* ---- the end ----------------------------------------------------------------------------------- */

void
kubus_prof_close (uint64_t t)
{
  KubusProf *p = main_prof;
  if (p == NULL || p->depth == 0)
    return;
  while (p->depth > 1)
    pop (p, t);
  /* the root */
  PFrame  *f = &p->stack[0];
  uint64_t d = t > f->enter ? t - f->enter : 0;
  PNode   *n = node_at (p, f->node);
  n->visits = 1;
  n->time = d > f->child ? d - f->child : 0;
  n->min = n->max = d;
  p->depth = 0;
  kubus_profiling = 0;
}

/* Shortest duration per (estimated function, size class) of this process: UINT64_MAX where
 * there was no call. */
static void
local_minima (uint64_t *mins)
{
  for (int i = 0; i < N_EST * N_CLASSES; i++)
    mins[i] = UINT64_MAX;
  KubusProf *p = main_prof;
  if (p == NULL)
    return;
  for (uint32_t id = 0; id < p->n_nodes; id++)
    {
      PNode *n = node_at (p, id);
      int    slot = slot_of_region (n->region);
      for (uint32_t r = n->cls; slot >= 0 && r != 0; r = p->cls[r - 1].next)
        {
          PCls     *c = &p->cls[r - 1];
          uint64_t *m = &mins[slot * N_CLASSES + c->cls];
          if (c->min < *m)
            *m = c->min;
        }
    }
}

/* ---- call sites: module and offset of each return address (after the run, kubus-run maps
 * them to file:line with libdw) ------------------------------------------------------------------ */

typedef struct
{
  uint64_t addr;
  uint32_t module; /* string index + 1, 0 = not found */
  uint64_t offset;
} Site;

typedef struct
{
  Site   *sites; /* sorted by address */
  size_t  n;
  char  **modules; /* "BUILD-ID PATH" */
  size_t  n_modules;
} SiteScan;

static int
cmp_site (const void *a, const void *b)
{
  uint64_t x = ((const Site *)a)->addr, y = ((const Site *)b)->addr;
  return x < y ? -1 : x > y;
}

void
kubus_build_id_of (struct dl_phdr_info *info, char *out, size_t len)
{
  snprintf (out, len, "-");
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_NOTE)
        continue;
      const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
      const unsigned char *end = p + ph->p_memsz;
      while (p + sizeof (ElfW (Nhdr)) <= end)
        {
          const ElfW (Nhdr) *nh = (const ElfW (Nhdr) *)p;
          size_t             name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
          const unsigned char *np = p + sizeof *nh;
          if (np + name + desc > end)
            break;
          if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp (np, "GNU", 4) == 0
              && nh->n_descsz * 2 + 1 <= len)
            {
              for (size_t k = 0; k < nh->n_descsz; k++)
                snprintf (out + 2 * k, 3, "%02x", np[name + k]);
              return;
            }
          p = np + name + desc;
        }
    }
}

static int
scan_object (struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  SiteScan *s = data;
  size_t    module = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD)
        continue;
      uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
      /* first site ≥ lo */
      size_t a = 0, b = s->n;
      while (a < b)
        {
          size_t mid = (a + b) / 2;
          if (s->sites[mid].addr < lo)
            a = mid + 1;
          else
            b = mid;
        }
      for (size_t k = a; k < s->n && s->sites[k].addr < hi; k++)
        {
          if (module == 0)
            {
              char  id[128];
              const char *path = info->dlpi_name != NULL && info->dlpi_name[0] != '\0'
                                     ? info->dlpi_name
                                     : kubus_program_path;
              kubus_build_id_of (info, id, sizeof id);
              char **mods = realloc (s->modules, (s->n_modules + 1) * sizeof *mods);
              if (mods == NULL)
                return 0;
              s->modules = mods;
              size_t len = strlen (id) + strlen (path) + 2;
              if ((mods[s->n_modules] = malloc (len)) == NULL)
                return 0;
              snprintf (mods[s->n_modules], len, "%s %s", id, path);
              module = ++s->n_modules;
            }
          s->sites[k].module = (uint32_t)module;
          s->sites[k].offset = s->sites[k].addr - info->dlpi_addr;
        }
    }
  return 0;
}

/* ---- the record ------------------------------------------------------------------------------------ */

static void
put_node_values (KubusWords *b, const PNode *n, const uint64_t *est)
{
  uint64_t v[KP_N] = { 0 };
  v[KP_VISITS] = n->visits;
  v[KP_TIME] = n->time;
  v[KP_MIN] = n->visits ? n->min : 0;
  v[KP_MAX] = n->max;
  for (int i = 0; i < 4; i++)
    v[KP_BYTES_SENT + i] = n->bytes[i];
  for (int i = 0; i < 8; i++)
    v[KP_SYNCS_SEND + i] = n->counts[i];
  for (int i = 0; est != NULL && i < 6; i++)
    v[KP_LS + i] = est[i];
  uint64_t mask = 0;
  for (int i = 0; i < KP_N; i++)
    if (v[i] != 0 || (i == KP_MIN && n->visits))
      mask |= 1ull << i;
  kubus_words_put (b, mask);
  for (int i = 0; i < KP_N; i++)
    if (mask & (1ull << i))
      kubus_words_put (b, v[i]);
}

static const char *
region_name (uint32_t region, const char *program)
{
  if (region < KUBUS_R_MPI_COUNT)
    return kubus_mpi_regions[region].name;
  switch (region)
    {
    case KUBUS_R_FLUSH:
      return "KUBUS_FLUSH";
    case KUBUS_R_UNKNOWN:
      return "KUBUS_UNKNOWN_REGION";
    case KUBUS_R_PROGRAM:
      return program;
    case R_OVERFLOW:
      return "KUBUS_OVERFLOW";
    default:
      return region - KUBUS_R_USER_BASE < kubus_region_count () ? kubus_region_name (region)
                                                                 : "KUBUS_UNKNOWN_REGION";
    }
}

/* String index of a region in the record: MPI, fixed and user regions in one table. */
static uint32_t
region_string (uint32_t region)
{
  if (region == R_OVERFLOW)
    return KUBUS_R_USER_BASE + kubus_region_count ();
  return region;
}

/* The rank's record.  @global: the minima of all ranks (NULL after an abort: the rank's own). */
static void
build_record (KubusWords *b, const uint64_t *local, const uint64_t *global, uint64_t flags,
              const char *reason)
{
  const char *program = strrchr (kubus_program_path, '/');
  program = program ? program + 1 : kubus_program_path;
  if (global == NULL)
    global = local;
  /* call sites of every thread, sorted, located in the loaded modules */
  SiteScan scan = { 0 };
  size_t   n_sites = 0;
  for (KubusProf *p = main_prof; p != NULL; p = p == main_prof ? threads : p->next_thread)
    n_sites += p->n_nodes + p->n_xs;
  scan.sites = malloc ((n_sites ? n_sites : 1) * sizeof *scan.sites);
  if (scan.sites == NULL)
    {
      b->failed = 1;
      return;
    }
  for (KubusProf *p = main_prof; p != NULL; p = p == main_prof ? threads : p->next_thread)
    for (uint32_t id = 0; id < p->n_nodes; id++)
      {
        PNode *n = node_at (p, id);
        if (n->site != 0)
          scan.sites[scan.n++] = (Site){ n->site, 0, 0 };
        for (uint32_t x = n->sites; x != 0; x = p->xs[x - 1].next)
          scan.sites[scan.n++] = (Site){ p->xs[x - 1].addr, 0, 0 };
      }
  qsort (scan.sites, scan.n, sizeof *scan.sites, cmp_site);
  dl_iterate_phdr (scan_object, &scan);

  char host[KUBUS_HOST_LEN] = "localhost";
  if (kubus_hostnames != NULL)
    memcpy (host, kubus_hostnames + (size_t)kubus_world_rank * KUBUS_HOST_LEN, KUBUS_HOST_LEN);
  host[KUBUS_HOST_LEN - 1] = '\0';
  size_t mem = 0;
  for (KubusProf *p = main_prof; p != NULL; p = p == main_prof ? threads : p->next_thread)
    mem = p->bytes > mem ? p->bytes : mem;
  uint64_t folded = 0;
  for (KubusProf *p = main_prof; p != NULL; p = p == main_prof ? threads : p->next_thread)
    folded += p->folded;

  kubus_words_put (b, KUBUS_PROF_MAGIC);
  kubus_words_put (b, KUBUS_PROF_VERSION);
  kubus_words_put (b, (uint64_t)kubus_world_rank);
  kubus_words_put (b, (uint64_t)kubus_world_size);
  kubus_words_put (b, flags);
  kubus_words_put (b, path_limit);
  kubus_words_put (b, folded);
  kubus_words_put (b, mem);
  kubus_words_put_str (b, host);
  kubus_words_put_str (b, reason != NULL ? reason : "");
  /* strings: every region id (MPI, fixed, user), the overflow region, then the modules */
  uint32_t n_regions = KUBUS_R_USER_BASE + kubus_region_count () + 1;
  kubus_words_put (b, (uint64_t)n_regions + scan.n_modules);
  for (uint32_t r = 0; r < n_regions - 1; r++)
    kubus_words_put_str (b, region_name (r, program));
  kubus_words_put_str (b, "KUBUS_OVERFLOW");
  for (size_t i = 0; i < scan.n_modules; i++)
    kubus_words_put_str (b, scan.modules[i]);

  kubus_words_put (b, (uint64_t)(1 + n_threads) - (main_prof == NULL));
  for (KubusProf *p = main_prof ? main_prof : threads; p != NULL;
       p = p == main_prof ? threads : p->next_thread)
    {
      kubus_words_put (b, (uint64_t)p->thread_no);
      kubus_words_put (b, p->n_nodes);
      for (uint32_t id = 0; id < p->n_nodes; id++)
        {
          PNode   *n = node_at (p, id);
          uint64_t est[6] = { 0 };
          int      slot = slot_of_region (n->region);
          for (uint32_t r = n->cls; slot >= 0 && r != 0; r = p->cls[r - 1].next)
            {
              PCls    *c = &p->cls[r - 1];
              int      pat = est_functions[slot].pattern;
              uint64_t m = (pat == P_LS || pat == P_LR ? local : global)[slot * N_CLASSES + c->cls];
              if (m > c->min)
                m = c->min; /* the global minimum cannot exceed the own one; be safe */
              est[est_value[pat] - KP_LS] += c->sum - c->visits * m;
            }
          kubus_words_put (b, n->parent == NO_NODE ? 0 : (uint64_t)n->parent + 1);
          kubus_words_put (b, region_string (n->region));
          /* the call sites found in a module, first one first */
          uint64_t mods[MAX_SITES], offs[MAX_SITES];
          int      k = 0;
          uint32_t x = 0;
          for (uint64_t addr = n->site; addr != 0 && k < MAX_SITES;
               addr = (x = x == 0 ? n->sites : p->xs[x - 1].next) != 0 ? p->xs[x - 1].addr : 0)
            {
              Site  key = { addr, 0, 0 };
              Site *s = bsearch (&key, scan.sites, scan.n, sizeof *scan.sites, cmp_site);
              if (s != NULL && s->module != 0)
                {
                  mods[k] = n_regions + s->module; /* string index + 1 */
                  offs[k++] = s->offset;
                }
            }
          kubus_words_put (b, (uint64_t)k);
          for (int i = 0; i < k; i++)
            {
              kubus_words_put (b, mods[i]);
              kubus_words_put (b, offs[i]);
            }
          put_node_values (b, n, est);
        }
    }
  for (size_t i = 0; i < scan.n_modules; i++)
    free (scan.modules[i]);
  free (scan.modules);
  free (scan.sites);
}

static void
profile_path (char *out, size_t len, const char *expdir, const char *name)
{
  snprintf (out, len, "%s/%s", expdir, name);
}

/* kubus-run merges the records again after the run, when it knows the call sites' source
 * lines (KUBUS_PROFILE_RECORDS, set by kubus-run): rank 0 leaves each record it merged in
 * EXPDIR/.kubus-profile-records/rank.<N>. */
static void
keep_record (const char *expdir, int rank, const uint64_t *w, size_t n)
{
  const char *want = getenv ("KUBUS_PROFILE_RECORDS");
  if (want == NULL || strcmp (want, "1") != 0 || n == 0)
    return;
  char dir[PATH_MAX + 32], path[PATH_MAX + 64], tmp[PATH_MAX + 64];
  profile_path (dir, sizeof dir, expdir, ".kubus-profile-records");
  mkdir (dir, 0777);
  snprintf (path, sizeof path, "%s/rank.%d", dir, rank);
  snprintf (tmp, sizeof tmp, "%s/.rank.%d.tmp", dir, rank);
  FILE *f = fopen (tmp, "wb");
  int   ok = f != NULL && fwrite (w, sizeof *w, n, f) == n;
  if (f != NULL && fclose (f) != 0)
    ok = 0;
  if (!ok || rename (tmp, path) != 0)
    unlink (tmp);
}

void
kubus_prof_finish (const char *expdir, MPI_Comm comm)
{
  static uint64_t local[N_EST * N_CLASSES], global[N_EST * N_CLASSES];
  int             rank = 0, size = 1;
  /* MPI_Finalize from another thread than MPI_Init's leaves the main thread's frames open */
  kubus_prof_close (kubus_now ());
  kubus_profiling = 0;
  PMPI_Comm_rank (comm, &rank);
  PMPI_Comm_size (comm, &size);
  int have = main_prof != NULL, any = 0;
  PMPI_Allreduce (&have, &any, 1, MPI_INT, MPI_MAX, comm);
  if (!any)
    return; /* the profile is off everywhere */
  local_minima (local);
  /* the one reduction: global minima for the collective estimates */
  PMPI_Allreduce (local, global, N_EST * N_CLASSES, MPI_UINT64_T, MPI_MIN, comm);
  KubusWords b = { 0 };
  if (have)
    build_record (&b, local, global, 0, NULL);
  uint64_t n = have && !b.failed ? (uint64_t)b.n : 0;
  const int      tag = 0x4b50;
  const uint64_t piece = 1u << 26; /* words per message: counts stay ints */
  /* rank 0 learns every record's size, takes one buffer for the largest and says whether to
   * send at all (out of memory: nobody sends, nothing is left half received) */
  uint64_t *sizes = rank == 0 ? calloc ((size_t)size, sizeof *sizes) : NULL;
  uint64_t  largest = 0, *w = NULL;
  int       go = 0;
  PMPI_Gather (&n, 1, MPI_UINT64_T, sizes, sizes != NULL ? 1 : 0, MPI_UINT64_T, 0, comm);
  KubusProfMerge *m = NULL;
  if (rank == 0 && sizes != NULL)
    {
      for (int r = 1; r < size; r++)
        largest = sizes[r] > largest ? sizes[r] : largest;
      w = malloc ((size_t)(largest ? largest : 1) * sizeof *w);
      m = kubus_prof_merge_new (size);
      go = w != NULL && m != NULL;
    }
  PMPI_Bcast (&go, 1, MPI_INT, 0, comm);
  if (rank != 0)
    {
      for (uint64_t off = 0; go && off < n; off += piece)
        PMPI_Send (b.w + off, (int)(n - off < piece ? n - off : piece), MPI_UINT64_T, 0, tag,
                   comm);
      kubus_words_clear (&b);
      return;
    }
  char err[512];
  if (go && n > 0)
    keep_record (expdir, 0, b.w, (size_t)n);
  if (go && n > 0 && kubus_prof_merge_add (m, b.w, (size_t)n, err, sizeof err) != 0)
    kubus_incomplete ("profile: rank 0's record: %s", err);
  kubus_words_clear (&b);
  for (int r = 1; go && r < size; r++)
    {
      for (uint64_t off = 0; off < sizes[r]; off += piece)
        PMPI_Recv (w + off, (int)(sizes[r] - off < piece ? sizes[r] - off : piece), MPI_UINT64_T,
                   r, tag, comm, MPI_STATUS_IGNORE);
      if (sizes[r] > 0)
        keep_record (expdir, r, w, (size_t)sizes[r]);
      if (sizes[r] > 0 && kubus_prof_merge_add (m, w, (size_t)sizes[r], err, sizeof err) != 0)
        kubus_incomplete ("profile: rank %d's record: %s", r, err);
    }
  free (w);
  free (sizes);
  if (!go)
    {
      kubus_prof_merge_free (m);
      kubus_incomplete ("profile: out of memory, no profile written");
      return;
    }
  char path[PATH_MAX + 32];
  profile_path (path, sizeof path, expdir, "profile.cube");
  if (kubus_prof_merge_write (m, path, "Kubus " KUBUS_VERSION, NULL, err, sizeof err) != 0)
    kubus_incomplete ("profile: %s", err);
  else
    kubus_log ("profile written to %s", path);
  kubus_prof_merge_free (m);
}

void
kubus_prof_save (const char *expdir, const char *reason)
{
  static uint64_t local[N_EST * N_CLASSES];
  if (main_prof == NULL && threads == NULL)
    return;
  kubus_profiling = 0;
  local_minima (local);
  KubusWords b = { 0 };
  build_record (&b, local, NULL, KUBUS_PROF_FLAG_INCOMPLETE, reason);
  if (b.failed)
    {
      kubus_words_clear (&b);
      return;
    }
  char dir[PATH_MAX + 32], path[PATH_MAX + 64], tmp[PATH_MAX + 64];
  profile_path (dir, sizeof dir, expdir, ".kubus-profile");
  mkdir (dir, 0777);
  snprintf (path, sizeof path, "%s/rank.%d", dir, kubus_world_rank);
  snprintf (tmp, sizeof tmp, "%s/.rank.%d.tmp", dir, kubus_world_rank);
  FILE *f = fopen (tmp, "wb");
  int   ok = f != NULL && fwrite (b.w, sizeof *b.w, b.n, f) == b.n;
  if (f != NULL && fclose (f) != 0)
    ok = 0;
  if (ok && rename (tmp, path) == 0)
    kubus_log ("profile record saved to %s", path);
  else
    unlink (tmp);
  kubus_words_clear (&b);
}

void
kubus_prof_merge_saved (const char *expdir)
{
  char dir[PATH_MAX + 32], path[PATH_MAX + 32], skipped[1024], err[512];
  int  ranks = 0, world = 0;
  profile_path (dir, sizeof dir, expdir, ".kubus-profile");
  profile_path (path, sizeof path, expdir, "profile.cube");
  if (kubus_prof_merge_dir (dir, path, "Kubus " KUBUS_VERSION, &ranks, &world, skipped,
                            sizeof skipped, err, sizeof err)
      != 0)
    kubus_log ("profile: %s", err);
  else
    kubus_log ("abort: profile of %d of %d ranks written to %s", ranks, world, path);
}
