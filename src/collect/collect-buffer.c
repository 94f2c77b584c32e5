/* collect-buffer.c: the per-rank event buffer.
 *
 * One block of --buffer/KUBUS_BUFFER bytes (default 64M) is reserved at
 * MPI_Init and handed to OTF2 chunk by chunk.  When it is used up the
 * allocator says no, OTF2 flushes the chunks to the event file and frees
 * them all at once, and recording continues: nothing is lost, and the
 * event path never calls malloc.  Definitions (small, written at the end)
 * use malloc.
 *
 * Page size: the block's memory is new to the process, and the first touch of each page is a
 * page fault on the event path (one every ~130 MPI calls when tracing, in 4 KiB pages). Which
 * page size costs less to fault in depends on the machine, and changes during a run: on one
 * virtual machine of this project 18 µs a 4 KiB page and far less per byte in 2 MiB transparent
 * huge pages; on another 1.2 µs a 4 KiB page and up to 3.3 ms a huge page (its hypervisor takes
 * back free memory in 8 MiB blocks, where huge pages come from, and faults it in again page by
 * page), though 0.2 ms for the first few. So the block is faulted in 2 MiB at a time as OTF2
 * takes its chunks (one system call where the kernel has MADV_POPULATE_WRITE), each region in
 * the page size that has cost less so far in this thread's CPU time, trying the other size
 * every eighth region (docs/decisions/2026-11-29-buffer-pages.md). KUBUS_HUGE_PAGES=1 or 0
 * decides without measuring.
 */
#include "collect.h"
#include "collect-size.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KUBUS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KUBUS_ASAN 1
#endif

static char    *pool;
static uint64_t pool_chunks;
static uint64_t pool_next;
static uint64_t pool_chunk_size;
static uint64_t pool_faulted; /* bytes from the start faulted in */

#define HUGE_PAGE (2u << 20)

/* The block comes straight from mmap, not from malloc: glibc's MALLOC_PERTURB_ (set by the test
 * suite, and by users hunting their own bugs) fills every allocation on the spot, which touched
 * all 64 MiB of each rank's block at MPI_Init, small page by small page before the huge-page
 * hint (64 ranks on 2 cores: 4 GiB written, half of a run's time). OTF2 writes each chunk before
 * it reads it. Under AddressSanitizer the block stays a malloc'd one: its bounds are checked. */
static char *
pool_reserve (uint64_t bytes)
{
#ifdef KUBUS_ASAN
  void *p = NULL;
  if (posix_memalign (&p, HUGE_PAGE, bytes) != 0)
    return NULL;
#else
  if (bytes > SIZE_MAX - HUGE_PAGE)
    return NULL;
  size_t len = (size_t)bytes + HUGE_PAGE;
  char  *map = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return NULL;
  /* aligned to a huge page; the rest goes back */
  size_t head = (HUGE_PAGE - (uintptr_t)map % HUGE_PAGE) % HUGE_PAGE;
  char  *p = map + head;
  if (head > 0)
    (void)munmap (map, head);
  if (len - head > bytes)
    (void)munmap (p + bytes, len - head - bytes);
#endif
#ifdef KUBUS_ASAN
#ifdef MADV_HUGEPAGE
  (void)madvise (p, bytes, MADV_HUGEPAGE); /* a hint: without it, small pages */
#endif
#else
  pool_faulted = 0; /* faulted in by fault_in() */
#endif
  return p;
}

#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE) && !defined(KUBUS_ASAN)
/* Per page size (0: small, 1: huge): CPU time per MiB to fault in, the latest regions weighing
 * most; -1 before the first region. */
static double fault_ns_per_mib[2] = { -1, -1 };
static int    pages_forced = -1; /* KUBUS_HUGE_PAGES: 0, 1, or -1 to measure */
static unsigned regions, regions_of[2];
static double   since_other_mib_ns; /* CPU time per MiB added up over the regions since the other size's turn */

static int64_t
thread_cpu_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The page size of the next region: the cheaper so far; the other one again once the regions
 * since it last had a turn cost eight times what it cost then, since prices change as the
 * kernel's free memory does (a size 30 times dearer is not tried again in a 64 MiB block). */
static int
next_page_size (void)
{
  if (pages_forced >= 0)
    return pages_forced;
  if (fault_ns_per_mib[0] < 0)
    return 0;
  if (fault_ns_per_mib[1] < 0)
    return 1;
  int best = fault_ns_per_mib[1] < fault_ns_per_mib[0];
  return since_other_mib_ns >= 8 * fault_ns_per_mib[!best] ? !best : best;
}

/* Faults in the block up to @upto bytes from its start, one 2 MiB region (the block is aligned
 * to one) at a time. */
static void
fault_in (uint64_t upto)
{
  uint64_t total = pool_chunks * pool_chunk_size;

  while (pool_faulted < upto && pool_faulted < total)
    {
      char    *p = pool + pool_faulted;
      uint64_t len = total - pool_faulted < HUGE_PAGE ? total - pool_faulted : HUGE_PAGE;
      int      huge = next_page_size ();
      int64_t  t0, dt;

      if (len == HUGE_PAGE)
        (void)madvise (p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
      t0 = thread_cpu_ns ();
#ifdef MADV_POPULATE_WRITE
      if (madvise (p, len, MADV_POPULATE_WRITE) != 0)
#endif
        for (uint64_t off = 0; off < len; off += 4096)
          ((volatile char *)p)[off] = 0;
      dt = thread_cpu_ns () - t0;
      if (len == HUGE_PAGE)
        {
          double per_mib = (double)dt * (double)(1u << 20) / (double)len;
          double *avg = &fault_ns_per_mib[huge];
          int     best = fault_ns_per_mib[1] >= 0 && fault_ns_per_mib[1] < fault_ns_per_mib[0];
          /* a turn of the dearer size starts the count again */
          since_other_mib_ns = huge == best ? since_other_mib_ns + per_mib : 0;
          *avg = *avg < 0 ? per_mib : 0.5 * (*avg + per_mib);
          regions++;
          regions_of[huge]++;
        }
      pool_faulted += len;
    }
}

static void
pages_setup (void)
{
  const char *set = getenv ("KUBUS_HUGE_PAGES");
  pages_forced = set != NULL && (set[0] == '0' || set[0] == '1') && set[1] == '\0' ? set[0] - '0' : -1;
}

/* For the log at the end: what the block was faulted in with. */
void
kubus_buffer_log_pages (void)
{
  if (regions > 0)
    kubus_log ("event buffer: %.1f MiB faulted in, %u regions of 2 MiB in 4 KiB pages, %u in huge "
               "pages; latest cost per MiB %.3f ms and %.3f ms (-1: none)",
               (double)pool_faulted / (1u << 20), regions_of[0], regions_of[1],
               fault_ns_per_mib[0] < 0 ? -1 : fault_ns_per_mib[0] / 1e6,
               fault_ns_per_mib[1] < 0 ? -1 : fault_ns_per_mib[1] / 1e6);
}
#else
static void
fault_in (uint64_t upto)
{
  (void)upto;
}

static void
pages_setup (void)
{
}

void
kubus_buffer_log_pages (void)
{
}
#endif

static uint64_t
parse_size (const char *spec)
{
  double v = kubus_size_bytes (spec);
  if (v < 0)
    return 64ull << 20;
  return v < (double)(1ull << 50) ? (uint64_t)v : 1ull << 50;
}

static void *
pool_allocate (void            *user,
               OTF2_FileType    type,
               OTF2_LocationRef location,
               void           **per_buffer,
               uint64_t         chunk_size)
{
  (void)user;
  (void)location;
  (void)per_buffer;
  if (type != OTF2_FILETYPE_EVENTS)
    return malloc (chunk_size);
  if (chunk_size != pool_chunk_size || pool_next >= pool_chunks)
    return NULL; /* full: OTF2 flushes, then calls free_all */
  if (__builtin_expect (pool_faulted < (pool_next + 1) * pool_chunk_size, 0))
    fault_in ((pool_next + 1) * pool_chunk_size);
  return pool + (pool_next++) * pool_chunk_size;
}

static void
pool_free_all (
    void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer, bool final)
{
  (void)user;
  (void)location;
  (void)per_buffer;
  (void) final;
  if (type == OTF2_FILETYPE_EVENTS)
    pool_next = 0;
}

static const OTF2_MemoryCallbacks memory_callbacks = { pool_allocate, pool_free_all };

/* First call (archive NULL): only compute the chunk size.  Second call:
 * reserve the block and register the allocator. */
int
kubus_buffer_setup (OTF2_Archive *archive, const char *spec, uint64_t *chunk_size)
{
  uint64_t total = parse_size (spec);
  uint64_t chunk = OTF2_CHUNK_SIZE_EVENTS_DEFAULT;
  while (chunk > OTF2_CHUNK_SIZE_MIN && total / chunk < 8)
    chunk /= 2;
  if (total < 2 * chunk)
    total = 2 * chunk; /* OTF2 needs at least two chunks to flush */
  *chunk_size = chunk;
  if (archive == NULL)
    return 0;
  if (pool == NULL)
    {
      pages_setup ();
      pool_chunks = total / chunk;
      pool_chunk_size = chunk;
      pool = pool_reserve (pool_chunks * chunk);
      /* more than the machine gives (a typo like 64G for 64M): record with the default
       * size rather than not at all */
      if (pool == NULL && total > (64ull << 20))
        {
          pool_chunks = (64ull << 20) / chunk;
          pool = pool_reserve (pool_chunks * chunk);
        }
      if (pool == NULL)
        return -1;
      if (pool_chunks * chunk < total)
        kubus_log ("cannot reserve a buffer of %s: using %llu MiB", spec,
                   (unsigned long long)(pool_chunks * chunk >> 20));
    }
  return OTF2_Archive_SetMemoryCallbacks (archive, &memory_callbacks, NULL) == OTF2_SUCCESS ? 0
                                                                                            : -1;
}
