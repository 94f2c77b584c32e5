/* collect-buffer.c: the per-rank event buffer.
 *
 * One block of --buffer/KUBUS_BUFFER bytes (default 64M) is reserved at MPI_Init.  The events
 * are appended to it as compact records of our own (collect-raw.h); when it is full its records
 * are written to OTF2's event writer in order (kubus_raw_drain), OTF2 writes them to the event
 * file, the block is used again from its start, and the time all that took is recorded as region
 * KUBUS_FLUSH.  Nothing is lost, and the event path never calls malloc.  OTF2's own event chunks
 * come from a small pool of at most POOL_CHUNKS chunks: filled only while the block is written
 * out, and written to the file whenever full.  Definitions (small, written at the end) use
 * malloc.
 *
 * Page size: the block's memory is new to the process, and the first touch of each page is a
 * page fault on the event path.  Which page size costs less to fault in depends on the machine,
 * and changes during a run: on one virtual machine of this project 18 µs a 4 KiB page and far
 * less per byte in 2 MiB transparent huge pages; on another 1.2 µs a 4 KiB page and up to 3.3 ms
 * a huge page (its hypervisor takes back free memory in 8 MiB blocks, where huge pages come
 * from, and faults it in again page by page), though 0.2 ms for the first few. So the block is
 * faulted in 2 MiB at a time as the records reach it (one system call where the kernel has
 * MADV_POPULATE_WRITE), each region in the page size that has cost less so far in this thread's
 * CPU time, trying the other size every eighth region (docs/decisions/2026-11-29-buffer-pages.md).
 * KUBUS_HUGE_PAGES=1 or 0 decides without measuring.
 */
#include "collect.h"
#include "collect-size.h"

/* OTF2's own writer functions, not the taps of collect-kct-tap.h (which append to the block) */
#undef OTF2_EvtWriter_Enter
#undef OTF2_EvtWriter_Leave
#undef OTF2_EvtWriter_MpiSend
#undef OTF2_EvtWriter_MpiIsend
#undef OTF2_EvtWriter_MpiRecv
#undef OTF2_EvtWriter_MpiIrecv
#undef OTF2_EvtWriter_MpiIsendComplete
#undef OTF2_EvtWriter_MpiIrecvRequest
#undef OTF2_EvtWriter_MpiRequestCancelled
#undef OTF2_EvtWriter_MpiCollectiveBegin
#undef OTF2_EvtWriter_MpiCollectiveEnd
#undef OTF2_EvtWriter_ProgramBegin
#undef OTF2_EvtWriter_ProgramEnd
#undef OTF2_EvtWriter_NonBlockingCollectiveRequest
#undef OTF2_EvtWriter_NonBlockingCollectiveComplete
#define real_enter OTF2_EvtWriter_Enter
#define real_leave OTF2_EvtWriter_Leave
#define real_send OTF2_EvtWriter_MpiSend
#define real_isend OTF2_EvtWriter_MpiIsend
#define real_recv OTF2_EvtWriter_MpiRecv
#define real_irecv OTF2_EvtWriter_MpiIrecv
#define real_isend_complete OTF2_EvtWriter_MpiIsendComplete
#define real_irecv_request OTF2_EvtWriter_MpiIrecvRequest
#define real_request_cancelled OTF2_EvtWriter_MpiRequestCancelled
#define real_coll_begin OTF2_EvtWriter_MpiCollectiveBegin
#define real_coll_end OTF2_EvtWriter_MpiCollectiveEnd
#define real_program_begin OTF2_EvtWriter_ProgramBegin
#define real_program_end OTF2_EvtWriter_ProgramEnd
#define real_nbc_request OTF2_EvtWriter_NonBlockingCollectiveRequest
#define real_nbc_complete OTF2_EvtWriter_NonBlockingCollectiveComplete
#define real_metric OTF2_EvtWriter_Metric

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

/* the block of records */
static char    *pool;
static uint64_t pool_bytes;
static uint64_t pool_faulted; /* bytes from the start faulted in */
/* before the block exists both point at one word that is never written (kubus_raw_more says
 * there is no room) */
static uint64_t  raw_none[1];
uint64_t        *kubus_raw_pos = raw_none, *kubus_raw_end = raw_none;
static uint64_t *raw_read; /* the next record to write to OTF2 (kubus_raw_drain) */
static int       raw_draining;
static int       raw_final;    /* writing out for the last time: OTF2 gets more chunks */
static uint64_t  raw_drain_at; /* time of the record being written */
/* OTF2's event chunks */
#define POOL_CHUNKS 4
static char    *chunks;
static uint64_t chunks_n;
static uint64_t chunks_next;
static uint64_t chunk_bytes;
/* chunks beyond the pool, for the last writing out (freed with the pool's) */
static void   **extra;
static size_t   extra_n, extra_cap;

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
  uint64_t total = pool_bytes;

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
  pool_faulted = pool_bytes; /* an ordinary allocation: no regions of our own */
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
  if (chunk_size == chunk_bytes && chunks_next < chunks_n)
    return chunks + (chunks_next++) * chunk_bytes;
  /* The last writing out (MPI_Finalize, an abort) keeps OTF2's chunks in memory until the
   * writer is closed, as OTF2 kept its buffer before: a flush in between would add a
   * BUFFER_FLUSH record the trace did not have. */
  if (raw_final)
    {
      if (extra_n == extra_cap)
        {
          size_t cap = extra_cap ? 2 * extra_cap : 64;
          void **e = realloc (extra, cap * sizeof *e);
          if (e == NULL)
            return NULL;
          extra = e;
          extra_cap = cap;
        }
      void *c = malloc (chunk_size);
      if (c != NULL)
        extra[extra_n++] = c;
      return c;
    }
  return NULL; /* full: OTF2 flushes, then calls free_all */
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
    {
      chunks_next = 0;
      for (size_t i = 0; i < extra_n; i++)
        free (extra[i]);
      extra_n = 0;
    }
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
      chunk_bytes = chunk;
      chunks_n = total / chunk < POOL_CHUNKS ? total / chunk : POOL_CHUNKS;
      chunks = malloc (chunks_n * chunk);
      pool_bytes = total;
      pool = chunks != NULL ? pool_reserve (pool_bytes) : NULL;
      /* more than the machine gives (a typo like 64G for 64M): record with the default
       * size rather than not at all */
      if (chunks != NULL && pool == NULL && total > (64ull << 20))
        {
          pool_bytes = 64ull << 20;
          pool = pool_reserve (pool_bytes);
        }
      if (pool == NULL)
        return -1;
      if (pool_bytes < total)
        kubus_log ("cannot reserve a buffer of %s: using %llu MiB", spec,
                   (unsigned long long)(pool_bytes >> 20));
      kubus_raw_pos = kubus_raw_end = raw_read = (uint64_t *)pool;
    }
  return OTF2_Archive_SetMemoryCallbacks (archive, &memory_callbacks, NULL) == OTF2_SUCCESS ? 0
                                                                                            : -1;
}

/* ---- the records (collect-raw.h) ------------------------------------------------------------ */

/* one record to OTF2's writer @w */
static OTF2_ErrorCode
write_record (OTF2_EvtWriter *w, const uint64_t *r, const char **what)
{
  uint32_t a = (uint32_t)(r[0] >> 32);
  uint64_t t = r[1];
  switch (r[0] & 0xff)
    {
    case KUBUS_RAW_ENTER:
      *what = "Enter";
      return real_enter (w, NULL, t, a);
    case KUBUS_RAW_LEAVE:
      *what = "Leave";
      return real_leave (w, NULL, t, a);
    case KUBUS_RAW_SEND:
      *what = "MpiSend";
      return real_send (w, NULL, t, a, (uint32_t)r[2], (uint32_t)(r[2] >> 32), r[3]);
    case KUBUS_RAW_RECV:
      *what = "MpiRecv";
      return real_recv (w, NULL, t, a, (uint32_t)r[2], (uint32_t)(r[2] >> 32), r[3]);
    case KUBUS_RAW_ISEND:
      *what = "MpiIsend";
      return real_isend (w, NULL, t, a, (uint32_t)r[2], (uint32_t)(r[2] >> 32), r[3], r[4]);
    case KUBUS_RAW_IRECV:
      *what = "MpiIrecv";
      return real_irecv (w, NULL, t, a, (uint32_t)r[2], (uint32_t)(r[2] >> 32), r[3], r[4]);
    case KUBUS_RAW_ISEND_COMPLETE:
      *what = "MpiIsendComplete";
      return real_isend_complete (w, NULL, t, r[2]);
    case KUBUS_RAW_IRECV_REQUEST:
      *what = "MpiIrecvRequest";
      return real_irecv_request (w, NULL, t, r[2]);
    case KUBUS_RAW_REQUEST_CANCELLED:
      *what = "MpiRequestCancelled";
      return real_request_cancelled (w, NULL, t, r[2]);
    case KUBUS_RAW_COLL_BEGIN:
      *what = "MpiCollectiveBegin";
      return real_coll_begin (w, NULL, t);
    case KUBUS_RAW_COLL_END:
      *what = "MpiCollectiveEnd";
      return real_coll_end (w, NULL, t, (OTF2_CollectiveOp)a, (uint32_t)r[2],
                            (uint32_t)(r[2] >> 32), r[3], r[4]);
    case KUBUS_RAW_NBC_REQUEST:
      *what = "NonBlockingCollectiveRequest";
      return real_nbc_request (w, NULL, t, r[2]);
    case KUBUS_RAW_NBC_COMPLETE:
      *what = "NonBlockingCollectiveComplete";
      return real_nbc_complete (w, NULL, t, (OTF2_CollectiveOp)a, (uint32_t)r[2],
                                (uint32_t)(r[2] >> 32), r[3], r[4], r[5]);
    case KUBUS_RAW_PROGRAM_BEGIN:
      *what = "ProgramBegin";
      return real_program_begin (w, NULL, t, a, 0, NULL);
    case KUBUS_RAW_PROGRAM_END:
      *what = "ProgramEnd";
      return real_program_end (w, NULL, t, (int64_t)r[2]);
    case KUBUS_RAW_METRIC2:
      {
        OTF2_Type        type[2] = { OTF2_TYPE_UINT64, OTF2_TYPE_UINT64 };
        OTF2_MetricValue v[2];
        v[0].unsigned_int = r[2];
        v[1].unsigned_int = r[3];
        *what = "Metric";
        return real_metric (w, NULL, t, a, 2, type, v);
      }
    case KUBUS_RAW_METRIC3:
      {
        OTF2_Type        type[3] = { OTF2_TYPE_UINT64, OTF2_TYPE_UINT64, OTF2_TYPE_UINT64 };
        OTF2_MetricValue v[3];
        v[0].unsigned_int = r[2];
        v[1].unsigned_int = r[3];
        v[2].unsigned_int = r[4];
        *what = "Metric";
        return real_metric (w, NULL, t, a, 3, type, v);
      }
    }
  *what = "the event buffer (unknown record)";
  return OTF2_ERROR_INVALID_DATA;
}

/* Writes the records from raw_read on.  A signal that saves the trace (collect-state.c) may
 * come in the middle and write them itself (it closes the writer): the loop then stops. */
static int
drain (void)
{
  OTF2_EvtWriter *w = kubus_evt;
  int             ok = 1;
  raw_draining++;
  if (raw_read == NULL || raw_read < (uint64_t *)pool)
    raw_read = (uint64_t *)pool;
  while (raw_read < kubus_raw_pos)
    {
      const uint64_t *r = raw_read;
      unsigned        kind = (unsigned)(r[0] & 0xff);
      const char     *what = "the event buffer";
      if (w != NULL && kubus_evt != w)
        break; /* saved and closed by a signal meanwhile */
      if (w == NULL || kind == 0 || kind >= KUBUS_RAW_KINDS)
        {
          kubus_fail (w == NULL ? "the event buffer (no event writer)"
                                : "the event buffer (unknown record)");
          ok = 0;
          break;
        }
      raw_drain_at = r[1];
      if (write_record (w, r, &what) != OTF2_SUCCESS)
        {
          /* the trace ends here, as OTF2's refusal used to end it on the spot */
          kubus_fail (what);
          ok = 0;
          break;
        }
      raw_read = (uint64_t *)r + kubus_raw_words[kind];
    }
  /* the block is empty again (what could not be written is dropped with the writer) */
  raw_read = (uint64_t *)pool;
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  kubus_raw_pos = (uint64_t *)pool;
  raw_draining--;
  return ok;
}

void
kubus_raw_drain (void)
{
  if (pool != NULL)
    {
      raw_final = 1;
      (void)drain ();
    }
}

int
kubus_raw_draining (void)
{
  return raw_draining != 0;
}

/* OTF2 flushes its chunks while the block is written out: the BUFFER_FLUSH record it writes then
 * ends where it begins, at the record being written (the whole writing out is the KUBUS_FLUSH
 * region), rather than at a time later than the records that follow it */
uint64_t
kubus_raw_flush_time (void)
{
  return raw_draining ? raw_drain_at : kubus_now ();
}

uint64_t *
kubus_raw_more (unsigned words)
{
  uint64_t *p = kubus_raw_pos;
  if (pool == NULL)
    {
      kubus_fail ("the event buffer (none)");
      return NULL;
    }
  if (kubus_save_deferred)
    {
      /* saved now; this record would come after the trace's end */
      kubus_save_deferred_run ();
      return NULL;
    }
  uint64_t used = (uint64_t)((char *)p - pool) + (uint64_t)words * sizeof *p;
  if (used > pool_bytes)
    {
      /* full: written out now, a flush recorded like OTF2's own before (collect-state.c) */
      uint64_t b = kubus_now ();
      int      ok = drain ();
      uint64_t e = kubus_now ();
      kubus_note_flush (b, e);
      p = kubus_raw_pos;
      used = (uint64_t)words * sizeof *p;
      if (!ok || !kubus_recording || used > pool_bytes)
        {
          if (kubus_save_deferred)
            kubus_raw_end = kubus_raw_pos; /* the next append saves */
          return NULL;
        }
    }
  if (pool_faulted < used)
    fault_in (used);
  uint64_t room = pool_faulted < pool_bytes ? pool_faulted : pool_bytes;
  kubus_raw_end = (uint64_t *)(pool + room);
  /* a save signal came while the buffer was written out: room for this record only, the next
   * append saves */
  if (kubus_save_deferred)
    kubus_raw_end = p + words;
  return p;
}
