/* collect-unwind.c: call paths from the stack, with no instrumentation.
 *
 * At every MPI call on the main thread the program's call stack becomes the call path of the
 * call: each function on the stack is a region (a "frame region"), entered and left with
 * ordinary Enter/Leave events, so the analyzer, simulator, compressed trace and profile see
 * nothing but regions.  The time between two MPI calls belongs to the deepest frame the two
 * stacks share: at the next call the frames the new stack no longer has are left at the time
 * of the last event written (the previous call's leave, as a rule), and the new frames are
 * entered at the new call's time.
 *
 * Cheap where it matters (docs/decisions/2026-11-28-unwinding.md):
 *   - the first walk of a stack uses libgcc's unwinder (.eh_frame, which packaged code has
 *     where it has no frame pointers) and notes, for each frame, the stack slot holding its
 *     return address and the value found there;
 *   - the result is cached under (call site, stack pointer at the call); a later call with the
 *     same key re-reads those slots (one load per frame) and re-walks only when one differs;
 *   - a function is identified by its entry (the start of its unwind table entry), its region
 *     by the module's build id, path and the entry's offset in it ("kubus-frame:ID:PATH+0xOFF");
 *     no name is looked up here: src/core/symbols-*.c names the regions after the run.
 * Frames of the collector itself (wrappers, also the Fortran ones), of the MPI library and the
 * ones below main are dropped; recursion is folded (a function already on the path takes the
 * path back to its first activation); KUBUS_CALL_PATH_DEPTH limits the depth.
 * A main-thread stack whose walk ends before the C library's start frames (code without unwind
 * tables: an interpreter's or a JIT's frames, hand-written assembly; or a stack deeper than
 * MAX_PHYS) is rooted at the frame region "[stack not unwound further]", so that its outermost
 * known function does not look like one main called.
 *
 * Merged with user regions (-finstrument-functions, kubus_region_begin): frames are kept in
 * segments, one above each user region (tag = the user stack's depth when they were entered),
 * and an MPI call inside a user region only fills in the frames deeper than the code that
 * opened it, so nothing is recorded twice and the events stay nested.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collect.h"
#include "kubus-text.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

int      kubus_unwind_on;
uint64_t kubus_alive;

#define MAX_PHYS 2048     /* frames walked (deeper stacks: the innermost ones, not rooted at main) */
#define DEFAULT_DEPTH 128 /* logical frames kept, outermost first */
#define MAX_OPEN 4096     /* open frame regions over all segments */
#define CACHE_BUCKETS 4096
#define MAX_ENTRIES 65536
#define MAX_CACHE_BYTES (32u << 20) /* past it, new stacks are walked every time */
#define MAX_PER_KEY 8
#define FUNC_SLOTS 65536 /* power of two */

typedef struct
{
  uint32_t  region;
  uintptr_t cfa; /* activation: the frame's canonical frame address */
} Frame;

typedef struct Entry
{
  struct Entry *next;
  uintptr_t     key_cfa, site;
  uint32_t      n_slots, n_frames;
  /* serial: never reused (an entry is freed and its memory may come back as another);
   * twin: the serial of an entry found to have the same frames (a call from the same
   * function next to this one), so that the next alternation compares nothing */
  uint64_t      serial, twin;
  uintptr_t    *slot; /* where each return address was found … */
  uintptr_t    *val;  /* … and what it was */
  Frame        *frames; /* the logical path, outermost first */
} Entry;

static int        depth_limit = DEFAULT_DEPTH;
static Entry     *buckets[CACHE_BUCKETS];
static uint32_t   n_entries;
static size_t     cache_bytes;
static uint64_t   n_walks, n_hits;
static uint64_t   next_serial = 1;
static uint64_t   walk_ns; /* CPU time spent walking (first sightings of stacks) */

static uint64_t
thread_cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* open frame regions, bottom first, with the user depth they sit on */
static Frame    open_frames[MAX_OPEN];
static uint32_t open_tag[MAX_OPEN];
static int      n_open;
static Entry   *last_entry; /* the path of the previous call (same entry: nothing to do) */
static int      last_user_depth = -1;

/* Other threads' calls under MPI_THREAD_SERIALIZED (docs/decisions/2026-11-29-threads.md): the
 * open frames are the stream's, the main thread's stack or a worker's grafted below the main
 * thread's last known one.  stream_main: the open frames are the main thread's (then a worker's
 * call first notes them in main_frames).  Every thread but the main one caches its stacks in a
 * table of its own: a cache entry's slots lie on the stack of the thread that walked it, which
 * only that thread may read safely (another thread's stack can be gone). */
static int      stream_main = 1;
static Frame    main_frames[MAX_OPEN];
static int      n_main_frames;
static __thread struct Entry **tls_buckets __attribute__ ((tls_model ("initial-exec")));
typedef struct ThreadCache
{
  struct ThreadCache *next;
  struct Entry       *buckets[];
} ThreadCache;
static ThreadCache *thread_caches; /* all of them, so that they stay reachable */

/* ---- modules ------------------------------------------------------------------------------- */

enum
{
  MOD_USER,
  MOD_SELF, /* the collector */
  MOD_MPI,  /* the MPI library and its components */
  MOD_LIBC
};

typedef struct
{
  uintptr_t lo, hi; /* an executable segment */
  uintptr_t bias;
  int       kind;
  int       omp; /* an OpenMP runtime (a user module otherwise): starts worker threads */
  char      path[512];
  char      build_id[41];
} Module;

static Module            *modules;
static int                n_modules;
static unsigned long long modules_adds = ~0ull;

static int
objects_added (struct dl_phdr_info *info, size_t size, void *data)
{
  if (size >= offsetof (struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
    *(unsigned long long *)data = info->dlpi_adds;
  return 1;
}

static int
has_prefix (const char *s, const char *p)
{
  return strncmp (s, p, strlen (p)) == 0;
}

static int
module_kind (const char *path, uintptr_t lo, uintptr_t hi)
{
  uintptr_t self = (uintptr_t)&module_kind;
  if (self >= lo && self < hi)
    return MOD_SELF;
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  static const char *mpi[] = { "libmpi.",     "libmpi_",    "libopen-pal.", "libopen-rte.",
                               "libpmix.",    "mca_",       "libmca_",      "libucp.",
                               "libuct.",     "libucs.",    "libucm.",      "libfabric.",
                               "libpsm",      "libhcoll.",  "libmpich.",    "libmpicxx.",
                               "libmpifort.", "libhwloc.",  "libevent",     NULL };
  for (int i = 0; mpi[i]; i++)
    if (has_prefix (base, mpi[i]))
      return MOD_MPI;
  if (has_prefix (base, "libc.so") || has_prefix (base, "libc-"))
    return MOD_LIBC;
  return MOD_USER;
}

/* @path as it goes into a frame key: valid UTF-8, so that the trace keeps it unchanged, and
 * still the file's bytes — a byte that is not part of a UTF-8 character, and '%' itself, become
 * %XX (symbols_frame_path() in src/core/symbols-resolve.c turns them back).  Cut at a whole
 * character or escape when @size is too small. */
static void
key_path (char *out, size_t size, const char *path)
{
  size_t o = 0, len = strlen (path);
  for (size_t i = 0; i < len;)
    {
      size_t n = (unsigned char)path[i] == '%' ? 0 : kubus_utf8_char (path + i, len - i, NULL);
      if (n == 0)
        {
          if (o + 3 >= size)
            break;
          snprintf (out + o, 4, "%%%02X", (unsigned char)path[i]);
          o += 3;
          i++;
          continue;
        }
      if (o + n >= size)
        break;
      memcpy (out + o, path + i, n);
      o += n;
      i += n;
    }
  out[o] = '\0';
}

static int
collect_module (struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  (void)data;
  const char *path = info->dlpi_name;
  if (path == NULL || path[0] == '\0')
    path = kubus_program_path;
  else if (strstr (path, "linux-vdso") != NULL)
    return 0;
  char id[41] = "-";
  int  have_id = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
        continue;
      Module *m = realloc (modules, (size_t)(n_modules + 1) * sizeof *m);
      if (m == NULL)
        return 1;
      modules = m;
      m = &modules[n_modules++];
      m->lo = info->dlpi_addr + ph->p_vaddr;
      m->hi = m->lo + ph->p_memsz;
      m->bias = info->dlpi_addr;
      m->kind = module_kind (path, m->lo, m->hi);
      const char *base = strrchr (path, '/');
      base = base ? base + 1 : path;
      m->omp = has_prefix (base, "libgomp.") || has_prefix (base, "libomp.")
               || has_prefix (base, "libiomp5.");
      key_path (m->path, sizeof m->path, path);
      if (!have_id)
        {
          kubus_build_id_of (info, id, sizeof id);
          have_id = 1;
        }
      memcpy (m->build_id, id, sizeof id);
    }
  return 0;
}

static int
cmp_module (const void *a, const void *b)
{
  uintptr_t x = ((const Module *)a)->lo, y = ((const Module *)b)->lo;
  return x < y ? -1 : x > y;
}

static void
load_modules (void)
{
  unsigned long long adds = 0;
  dl_iterate_phdr (objects_added, &adds);
  if (adds == modules_adds)
    return;
  modules_adds = adds;
  n_modules = 0;
  dl_iterate_phdr (collect_module, NULL);
  if (n_modules > 0)
    qsort (modules, (size_t)n_modules, sizeof *modules, cmp_module);
}

static const Module *
find_module (uintptr_t pc, int reload)
{
  int lo = 0, hi = n_modules;
  while (lo < hi)
    {
      int mid = (lo + hi) / 2;
      if (modules[mid].lo <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0 && pc < modules[lo - 1].hi)
    return &modules[lo - 1];
  if (reload)
    {
      load_modules (); /* a library opened since */
      return find_module (pc, 0);
    }
  return NULL;
}

/* ---- function regions ---------------------------------------------------------------------- */

static uintptr_t func_addr[FUNC_SLOTS];
static uint32_t  func_region[FUNC_SLOTS];
static uint32_t  func_used;

/* The region of the function entered at @entry (in @m): "kubus-frame:BUILDID:PATH+0xOFFSET",
 * with ";main" when it is the function the C library called (named so even when stripped). */
static uint32_t
function_region (uintptr_t entry, const Module *m, int is_main)
{
  uint32_t s = (uint32_t)((entry * 0x9E3779B97F4A7C15ull) >> 40) & (FUNC_SLOTS - 1);
  while (func_addr[s] != 0)
    {
      if (func_addr[s] == entry)
        return func_region[s];
      s = (s + 1) & (FUNC_SLOTS - 1);
    }
  char key[700];
  if (m != NULL)
    snprintf (key, sizeof key, "kubus-frame:%s:%s+0x%lx%s", m->build_id, m->path,
              (unsigned long)(entry - m->bias), is_main ? ";main" : "");
  else
    snprintf (key, sizeof key, "kubus-frame:-:?+0x%lx", (unsigned long)entry);
  uint32_t r = kubus_region_intern (key);
  kubus_region_set_frame (r);
  if (func_used < FUNC_SLOTS / 2)
    {
      func_addr[s] = entry;
      func_region[s] = r;
      func_used++;
    }
  return r;
}

/* The frame region that roots a stack walked only part of the way (see the top). */
#define STOPPED_NAME "[stack not unwound further]"

static uint32_t
stopped_region (void)
{
  static uint32_t r;
  if (r == 0)
    {
      r = kubus_region_intern (STOPPED_NAME);
      kubus_region_set_frame (r);
    }
  return r;
}

/* ---- the walk ------------------------------------------------------------------------------ */

typedef struct
{
  int       n;
  uintptr_t ip[MAX_PHYS], cfa[MAX_PHYS], start[MAX_PHYS];
} Walk;

static Walk walk; /* main thread only */

static _Unwind_Reason_Code
walk_frame (struct _Unwind_Context *ctx, void *arg)
{
  Walk *w = arg;
  if (w->n >= MAX_PHYS)
    return _URC_END_OF_STACK;
  int       before = 0;
  uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo (ctx, &before);
  if (ip == 0)
    return _URC_END_OF_STACK;
  w->ip[w->n] = ip;
  w->cfa[w->n] = (uintptr_t)_Unwind_GetCFA (ctx);
  w->start[w->n] = (uintptr_t)_Unwind_GetRegionStart (ctx);
  w->n++;
  return _URC_NO_REASON;
}

static Entry *
entry_new (uint32_t n_slots, uint32_t n_frames)
{
  size_t bytes = sizeof (Entry) + (size_t)n_slots * 2 * sizeof (uintptr_t)
                 + (size_t)n_frames * sizeof (Frame);
  Entry *e = malloc (bytes);
  if (e == NULL)
    return NULL;
  e->slot = (uintptr_t *)(e + 1);
  e->val = e->slot + n_slots;
  e->frames = (Frame *)(e->val + n_slots);
  e->n_slots = n_slots;
  e->n_frames = n_frames;
  e->serial = next_serial++;
  e->twin = 0;
  return e;
}

/* Walks the stack; returns the logical path as a new cache entry (NULL: out of memory). */
static Entry *
walk_stack (uintptr_t key_cfa, uintptr_t site, int worker)
{
  n_walks++;
  walk.n = 0;
  _Unwind_Backtrace (walk_frame, &walk);
  int n = walk.n;
  load_modules ();
  /* the collector's own frames first (the wrapper, this file) */
  int u = 0;
  while (u < n)
    {
      const Module *m = find_module (walk.ip[u] - 1, 1);
      if (m == NULL || m->kind != MOD_SELF)
        break;
      u++;
    }
  /* a signal: the handler ran on the signal trampoline (__restore_rt), no frame of the program */
  if (site == 0 && u < n)
    u++;
  /* below main: the outermost run of C library frames (__libc_start_main …) and what calls it */
  int outer = n - 1, found_main = 0;
  if (n < MAX_PHYS)
    {
      int i = n - 1;
      while (i >= u)
        {
          const Module *m = find_module (walk.ip[i] - 1, 0);
          if (m != NULL && m->kind == MOD_LIBC)
            break;
          i--;
        }
      if (i >= u)
        {
          while (i >= u)
            {
              const Module *m = find_module (walk.ip[i] - 1, 0);
              if (m == NULL || m->kind != MOD_LIBC)
                break;
              i--;
            }
          outer = i;
          found_main = !worker;
        }
    }
  /* another thread: its start (libc's start_thread, then an OpenMP runtime's thread start) is
   * no frame of the program; its first own frame is the outermost one kept */
  if (worker)
    while (outer >= u)
      {
        const Module *m = find_module (walk.ip[outer] - 1, 0);
        if (m == NULL || !(m->omp || m->kind == MOD_LIBC))
          break;
        outer--;
      }
  /* logical frames, outermost first */
  static Frame path[MAX_PHYS];
  int          np = 0;
  int cut = !worker && !found_main && n < MAX_PHYS;
  if (!worker && !found_main && outer >= u && depth_limit > 0)
    {
      path[0].region = stopped_region ();
      path[0].cfa = UINTPTR_MAX; /* one activation: consecutive cut stacks share it */
      np = 1;
    }
  for (int k = outer; k >= u; k--)
    {
      const Module *m = find_module (walk.ip[k] - 1, 0);
      if (m != NULL && (m->kind == MOD_MPI || m->kind == MOD_SELF))
        continue;
      /* a cut walk that ended in code of no module (a JIT's): an address that differs from rank
       * to rank and run to run; the root above says the stack goes on */
      if (m == NULL && cut && k == n - 1)
        continue;
      /* the frame a cut walk ended in had no unwind table entry: libgcc leaves the previous
       * frame's function start in its context, so it is known by its address only */
      uintptr_t entry = walk.start[k] != 0 && !(cut && k == n - 1) ? walk.start[k] : walk.ip[k] - 1;
      uint32_t  r = function_region (entry, m, found_main && k == outer);
      int       j;
      for (j = 0; j < np && path[j].region != r; j++)
        ;
      if (j < np)
        {
          np = j + 1; /* recursion: back to the first activation */
          continue;
        }
      if (np >= depth_limit)
        continue;
      path[np].region = r;
      /* libgcc's context for a frame holds the CFA of the frame it returned from: a frame's
       * own CFA is in the next context */
      path[np].cfa = k + 1 < n ? walk.cfa[k + 1] : walk.cfa[k] + 1;
      np++;
    }
  /* the slots to check next time: the return address of each frame from u to outer lies just
   * below the CFA of the frame it called (x86-64: the call pushed it there), which is the CFA
   * in the frame's own context */
  uint32_t n_slots = outer >= u ? (uint32_t)(outer - u + 1) : 0;
#if !defined(__x86_64__)
  n_slots = 0;
#endif
  Entry *e = entry_new (n_slots, (uint32_t)np);
  if (e == NULL)
    return NULL;
  e->key_cfa = key_cfa;
  e->site = site;
  for (uint32_t k = 0; k < n_slots; k++)
    {
      e->slot[k] = walk.cfa[u + (int)k] - sizeof (uintptr_t);
      e->val[k] = walk.ip[u + (int)k];
    }
  memcpy (e->frames, path, (size_t)np * sizeof *path);
  /* cacheable only when the slots describe the whole path */
  if (n_slots == 0)
    e->next = e; /* marks "not in the cache" */
  else
    e->next = NULL;
  return e;
}

static inline uint32_t
bucket_of (uintptr_t key_cfa, uintptr_t site)
{
  uint64_t h = ((uint64_t)key_cfa ^ ((uint64_t)site << 17)) * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 40) & (CACHE_BUCKETS - 1);
}

static inline int
entry_valid (const Entry *e)
{
  for (uint32_t k = 0; k < e->n_slots; k++)
    if (*(volatile const uintptr_t *)e->slot[k] != e->val[k])
      return 0;
  return 1;
}

/* The path of the current stack, from the cache or a walk.  @uncached is set when the entry
 * must be freed by the caller. */
static Entry *
current_path (Entry **table, uintptr_t key_cfa, uintptr_t site, int *uncached, int worker)
{
  *uncached = 0;
  if (site == 0 || table == NULL)
    {
      /* a signal: walked once, through the signal frame, never cached */
      Entry *e = walk_stack (key_cfa, site, worker);
      *uncached = e != NULL;
      return e;
    }
  uint32_t b = bucket_of (key_cfa, site);
  for (Entry *e = table[b]; e != NULL; e = e->next)
    if (e->key_cfa == key_cfa && e->site == site && entry_valid (e))
      {
        n_hits++;
        return e;
      }
  uint64_t t0 = thread_cpu_ns ();
  Entry   *e = walk_stack (key_cfa, site, worker);
  walk_ns += thread_cpu_ns () - t0;
  if (e == NULL)
    return NULL;
  size_t bytes = sizeof (Entry) + (size_t)e->n_slots * 2 * sizeof (uintptr_t)
                 + (size_t)e->n_frames * sizeof (Frame);
  if (e->next == e || n_entries >= MAX_ENTRIES || cache_bytes + bytes > MAX_CACHE_BYTES)
    {
      *uncached = 1;
      return e;
    }
  /* Several stacks can share a key (one function called from two callers at the same stack
   * depth, alternately): they are kept side by side, up to MAX_PER_KEY, the oldest dropped. */
  int    same = 0;
  Entry **oldest = NULL;
  for (Entry **pe = &table[b]; *pe != NULL; pe = &(*pe)->next)
    if ((*pe)->key_cfa == key_cfa && (*pe)->site == site)
      {
        same++;
        oldest = pe;
      }
  if (same >= MAX_PER_KEY && oldest != NULL)
    {
      Entry *old = *oldest;
      *oldest = old->next;
      if (old == last_entry)
        last_entry = NULL;
      cache_bytes -= sizeof (Entry) + (size_t)old->n_slots * 2 * sizeof (uintptr_t)
                     + (size_t)old->n_frames * sizeof (Frame);
      free (old);
      n_entries--;
    }
  e->next = table[b];
  table[b] = e;
  n_entries++;
  cache_bytes += bytes;
  return e;
}

/* ---- events -------------------------------------------------------------------------------- */

static inline void
frame_enter (uint32_t region, uint64_t t)
{
  if (kubus_recording)
    kubus_check (OTF2_EvtWriter_Enter (kubus_evt, NULL, t, region), "Enter");
  if (kubus_profiling)
    kubus_prof_push (region, t);
}

static inline void
frame_leave (uint32_t region, uint64_t t)
{
  if (kubus_recording)
    kubus_check (OTF2_EvtWriter_Leave (kubus_evt, NULL, t, region), "Leave");
  if (kubus_profiling)
    kubus_prof_pop (t);
}

/* Leaves the open frames of segment @tag down to @keep frames of it, at @t. */
static void
close_segment_to (uint32_t tag, int keep, uint64_t t)
{
  int base = n_open;
  while (base > 0 && open_tag[base - 1] == tag)
    base--;
  while (n_open > base + keep)
    {
      n_open--;
      frame_leave (open_frames[n_open].region, t);
    }
}

static inline int
same_frames (const Entry *a, const Entry *b)
{
  if (a->n_frames != b->n_frames)
    return 0;
  for (uint32_t k = a->n_frames; k-- > 0;) /* innermost first: where stacks differ */
    if (a->frames[k].region != b->frames[k].region || a->frames[k].cfa != b->frames[k].cfa)
      return 0;
  return 1;
}

static __attribute__ ((noinline)) void update_path (uintptr_t key_cfa, const void *site,
                                                     uint64_t t, int user_depth);

void
kubus_unwind_update (const void *site, uint64_t t)
{
  /* with the call site, this function's CFA keys the cache: the same site calls the same
   * wrapper, whose frame has the same size, so the same CFA means the same stack pointer */
  uintptr_t key_cfa = (uintptr_t)__builtin_dwarf_cfa ();
  int       user_depth = kubus_user_depth ();
  if (user_depth < 0)
    return; /* deeper than the user stack records */
  /* the common case first, in few registers: a cached stack whose frames are open already
   * (the previous call's, or its twin's) */
  if (user_depth == last_user_depth && last_entry != NULL && site != NULL)
    {
      for (Entry *e = buckets[bucket_of (key_cfa, (uintptr_t)site)]; e != NULL; e = e->next)
        if (e->key_cfa == key_cfa && e->site == (uintptr_t)site && entry_valid (e))
          {
            if (e != last_entry && e->twin != last_entry->serial)
              break;
            n_hits++;
            last_entry = e;
            return;
          }
    }
  update_path (key_cfa, site, t, user_depth);
}

static void worker_path (uintptr_t key_cfa, const void *site, uint64_t t, int user_depth);

static void
update_path (uintptr_t key_cfa, const void *site, uint64_t t, int user_depth)
{
  if (!kubus_main_thread)
    {
      worker_path (key_cfa, site, t, user_depth);
      return;
    }
  stream_main = 1;
  int    uncached;
  Entry *e = current_path (buckets, key_cfa, (uintptr_t)site, &uncached, 0);
  if (e == NULL)
    return;
  if (user_depth == last_user_depth && last_entry != NULL)
    {
      if (e == last_entry)
        return; /* the same stack as the previous call */
      if (e->twin == last_entry->serial || same_frames (e, last_entry))
        {
          e->twin = last_entry->serial; /* entries never change: equal the next time too */
          /* another call from the same function (a send, then a receive): the open frames
           * are already this path */
          if (uncached)
            {
              free (e);
              last_entry = NULL;
            }
          else
            last_entry = e;
          return;
        }
    }
  /* inside a user region only the frames deeper than the code that opened it */
  uintptr_t limit = user_depth > 0 ? kubus_user_cfa (user_depth - 1) : UINTPTR_MAX;
  uint32_t  first = 0;
  if (user_depth > 0)
    while (first < e->n_frames && e->frames[first].cfa > limit)
      first++;
  uint32_t tag = (uint32_t)user_depth;
  int      base = n_open;
  while (base > 0 && open_tag[base - 1] == tag)
    base--;
  int      have = n_open - base;
  int      same = 0;
  uint32_t want = e->n_frames - first;
  while (same < have && (uint32_t)same < want
         && open_frames[base + same].region == e->frames[first + same].region
         && open_frames[base + same].cfa == e->frames[first + same].cfa)
    same++;
  uint64_t left = kubus_alive < t ? kubus_alive : t;
  close_segment_to (tag, same, left);
  for (uint32_t k = first + (uint32_t)same; k < e->n_frames && n_open < MAX_OPEN; k++)
    {
      open_frames[n_open] = e->frames[k];
      open_tag[n_open] = tag;
      n_open++;
      frame_enter (e->frames[k].region, t);
    }
  if (uncached)
    {
      free (e);
      last_entry = NULL;
    }
  else
    last_entry = e;
  last_user_depth = user_depth;
}

/* This thread's stack cache (another thread than the main one); NULL: out of memory */
static Entry **
thread_table (void)
{
  if (tls_buckets == NULL)
    {
      ThreadCache *c = calloc (1, sizeof *c + CACHE_BUCKETS * sizeof (Entry *));
      if (c == NULL)
        return NULL;
      c->next = thread_caches;
      thread_caches = c;
      tls_buckets = c->buckets;
    }
  return tls_buckets;
}

/* A call of another thread than the main one, under MPI_THREAD_SERIALIZED: its frames, from its
 * first own frame on (not its start in libc or an OpenMP runtime), become the open frames,
 * grafted below the main thread's last known stack where that has the worker's outermost
 * function (main._omp_fn.0 below GOMP_parallel: the same call path as the main thread's calls
 * from there), else directly below the program region.  Frames are compared by region and CFA,
 * so the main thread's frames above the graft stay open and the ones of the other stack are left
 * and entered as with any change of stack. */
static void
worker_path (uintptr_t key_cfa, const void *site, uint64_t t, int user_depth)
{
  if (user_depth != 0)
    return; /* not with user regions (collect-state.c: such calls are not recorded) */
  if (stream_main)
    {
      /* the main thread's frames as its last call left them (no user regions: one segment) */
      n_main_frames = n_open;
      memcpy (main_frames, open_frames, (size_t)n_open * sizeof *open_frames);
      stream_main = 0;
    }
  int    uncached;
  Entry *e = current_path (thread_table (), key_cfa, (uintptr_t)site, &uncached, 1);
  if (e == NULL)
    return;
  int graft = 0;
  if (e->n_frames > 0)
    for (int k = n_main_frames; k-- > 0;)
      if (main_frames[k].region == e->frames[0].region)
        {
          graft = k;
          break;
        }
  /* the wanted frames: main_frames[0, graft) then e->frames, up to depth_limit */
  int want = graft + (int)e->n_frames;
  if (want > depth_limit)
    want = depth_limit;
  if (want > MAX_OPEN)
    want = MAX_OPEN;
#define WANT(k) ((k) < graft ? main_frames[(k)] : e->frames[(k) - graft])
  int same = 0;
  while (same < n_open && same < want && open_frames[same].region == WANT (same).region
         && open_frames[same].cfa == WANT (same).cfa)
    same++;
  uint64_t left = kubus_alive < t ? kubus_alive : t;
  close_segment_to (0, same, left);
  for (int k = same; k < want; k++)
    {
      open_frames[n_open] = WANT (k);
      open_tag[n_open] = 0;
      n_open++;
      frame_enter (open_frames[n_open - 1].region, t);
    }
#undef WANT
  if (uncached)
    free (e);
  /* the main thread's next call compares its stack with these frames (update_path) */
  last_entry = NULL;
  last_user_depth = 0;
}

void
kubus_unwind_foreign (void)
{
  /* not the previous call's stack, whatever the cache says (kubus_unwind_update's fast path) */
  last_entry = NULL;
}

void
kubus_unwind_user_push (uintptr_t cfa, int depth)
{
  /* frames of this segment at or below the code that opens the region have returned */
  uint32_t tag = (uint32_t)depth;
  int      base = n_open;
  while (base > 0 && open_tag[base - 1] == tag)
    base--;
  int keep = 0;
  while (base + keep < n_open && open_frames[base + keep].cfa > cfa)
    keep++;
  if (base + keep < n_open)
    close_segment_to (tag, keep, kubus_alive);
  last_entry = NULL;
}

void
kubus_unwind_user_pop (int depth)
{
  /* the frames entered inside the region end with it */
  close_segment_to ((uint32_t)depth, 0, kubus_alive);
  last_entry = NULL;
}

void
kubus_unwind_close_segment (int depth, uint64_t t)
{
  /* trace only: the profile closes its own stack */
  uint32_t tag = (uint32_t)depth;
  while (n_open > 0 && open_tag[n_open - 1] == tag)
    {
      n_open--;
      if (kubus_recording)
        kubus_check (OTF2_EvtWriter_Leave (kubus_evt, NULL, t, open_frames[n_open].region),
                     "Leave");
    }
  last_entry = NULL;
}

void
kubus_unwind_at_signal (uint64_t t)
{
  /* where the program was when the signal came: the frames the trace ends with */
  kubus_unwind_update (NULL, t);
}

void
kubus_unwind_configure (void)
{
  const char *mode = getenv ("KUBUS_CALL_PATHS");
  kubus_unwind_on = !(mode != NULL && strcmp (mode, "flat") == 0);
  const char *d = getenv ("KUBUS_CALL_PATH_DEPTH");
  if (d != NULL && d[0] != '\0')
    {
      long v = strtol (d, NULL, 10);
      depth_limit = v > 0 && v < MAX_PHYS ? (int)v : DEFAULT_DEPTH;
    }
}

void
kubus_unwind_report (void)
{
  kubus_log ("call paths: %s, %llu stack walks (%.3f ms CPU), %llu cached stacks reused, %u cached",
             kubus_unwind_on ? "unwound" : "flat", (unsigned long long)n_walks,
             (double)walk_ns / 1e6, (unsigned long long)n_hits, n_entries);
}
