/* collect-buffer.c: the per-rank event buffer.
 *
 * One block of --buffer/KUBUS_BUFFER bytes (default 64M) is reserved at
 * MPI_Init and handed to OTF2 chunk by chunk.  When it is used up the
 * allocator says no, OTF2 flushes the chunks to the event file and frees
 * them all at once, and recording continues: nothing is lost, and the
 * event path never calls malloc.  Definitions (small, written at the end)
 * use malloc.
 *
 * The block is asked for in transparent huge pages where the kernel gives them on request
 * (madvise mode): the first touch of each 4 KiB page was a page fault on the event path, and
 * in a virtual machine a fault costs microseconds (one every ~130 MPI calls when tracing).
 */
#include "collect.h"
#include "collect-size.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

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
#ifdef MADV_HUGEPAGE
  (void)madvise (p, bytes, MADV_HUGEPAGE); /* a hint: without it, small pages */
#endif
  return p;
}

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
