/* collect.h: state and hot-path helpers shared by the collector's files.
 *
 * The collector lives inside somebody else's MPI program: plain C, no GLib,
 * no allocation or locking on the event path, and on any internal error it
 * stops tracing (kubus_fail) instead of disturbing the application.
 */
#pragma once

#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include <time.h>
#include <otf2/otf2.h>

#include "collect-kct-tap.h" /* before any event is written: see there */
#include "collect-cputime.h"
#include "mpi-regions.h"
#include "collect-profile.h"

#define KUBUS_INTERNAL __attribute__ ((visibility ("hidden")))

/* Region ids: MPI functions first (same ids on every rank, from the table),
 * then the flush region, the stand-in for regions whose name could not be
 * unified (abort) and the program region (the root of every location's call
 * tree, as Score-P writes it), then the rank's own user regions.
 * kubus-run-repair.c repeats these numbers. */
enum
{
  KUBUS_R_FLUSH = KUBUS_R_MPI_COUNT,
  KUBUS_R_UNKNOWN,
  KUBUS_R_PROGRAM,
  KUBUS_R_USER_BASE
};

/* String id of the program's path in ProgramBegin events: events are written
 * long before the global definitions, so the id is fixed (the first string
 * of traces.def). */
#define KUBUS_S_PROGRAM 0u

#define KUBUS_NO_ROOT OTF2_UNDEFINED_UINT32
#define KUBUS_COMM_WORLD_ID 0u
#define KUBUS_COMM_SELF_ID 1u

/* Recording switch: the global flag turns tracing off for everybody (error,
 * finalize), the thread-local one marks the thread that initialised MPI: the wrappers'
 * hot path is its, because one OTF2 event writer is not thread-safe; other threads' calls take
 * the cold path (kubus_other_thread_call below).
 * kubus_profiling (collect-profile.h) does the same for the lightweight profile; the
 * wrappers run their bookkeeping when either records. */
extern int kubus_recording KUBUS_INTERNAL;
extern __thread int kubus_main_thread __attribute__ ((tls_model ("initial-exec"))) KUBUS_INTERNAL;
extern OTF2_EvtWriter *kubus_evt  KUBUS_INTERNAL;
extern int kubus_flush_pending    KUBUS_INTERNAL;
extern uint32_t kubus_current_mpi KUBUS_INTERNAL;

#define KUBUS_ON() __builtin_expect ((kubus_recording | kubus_profiling) && kubus_main_thread, 1)
/* another thread than the one that initialised MPI, while the trace or the profile records */
#define KUBUS_OTHER_THREAD() __builtin_expect ((kubus_recording | kubus_profiling) && !kubus_main_thread, 0)

/* Other threads (docs/decisions/2026-11-29-threads.md).  Where the program got
 * MPI_THREAD_SERIALIZED or less, MPI calls never overlap and another thread's call is recorded
 * into the rank's one event stream like the main thread's (kubus_threads_join); under
 * MPI_THREAD_MULTIPLE it is only counted (kubus_untraced_calls, relaxed atomic).
 * kubus_other_thread_call: the wrappers' cold path on another thread; 1: record the call. */
extern int      kubus_threads_join   KUBUS_INTERNAL;
extern uint64_t kubus_untraced_calls KUBUS_INTERNAL;
extern int      kubus_thread_level   KUBUS_INTERNAL; /* provided, -1 before MPI_Init */
extern int      kubus_user_seen      KUBUS_INTERNAL; /* user regions were recorded */
int kubus_other_thread_call (void) KUBUS_INTERNAL __attribute__ ((noinline, cold));
/* rank 0, writing the definitions: KUBUS::UNTRACED_THREAD_CALLS where there were any */
void kubus_threads_properties (OTF2_Archive *archive) KUBUS_INTERNAL;
/* KUBUS::EAGER_LIMIT_* archive properties: the MPI library's eager limits (collect-mpit.c) */
void kubus_mpit_properties (OTF2_Archive *archive) KUBUS_INTERNAL;
/* 1 and the limit (decimal bytes) in @value where the library has it: of the shared memory
 * transport (@between_hosts 0) or the network's (1); rank 0 at MPI_Finalize */
int kubus_mpit_limit (int between_hosts, char value[32]) KUBUS_INTERNAL;

/* Time: CLOCK_MONOTONIC in ns.  Where the TSC is invariant and the
 * kernel itself uses it, the collector reads the TSC and scales it to the
 * same nanoseconds (calibrated against CLOCK_MONOTONIC once per host by the
 * host leader, the same parameters on every rank of the host: see
 * collect-clock.c): 9 ns instead of 41 ns per reading in a KVM guest. */
extern uint64_t kubus_tsc_mult    KUBUS_INTERNAL; /* ns per tick << 32, 0 = off */
extern uint64_t kubus_tsc_base    KUBUS_INTERNAL;
extern uint64_t kubus_tsc_base_ns KUBUS_INTERNAL;

static inline uint64_t
kubus_monotonic_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t
kubus_now (void)
{
  if (__builtin_expect (kubus_tsc_mult != 0, 1))
    return kubus_tsc_base_ns
           + (uint64_t)(((unsigned __int128)(__rdtsc () - kubus_tsc_base) * kubus_tsc_mult) >> 32);
  return kubus_monotonic_ns ();
}
#else
static inline uint64_t
kubus_now (void)
{
  return kubus_monotonic_ns ();
}
#endif

void kubus_clock_calibrate_begin (void) KUBUS_INTERNAL;

/* One reading serves the events of one moment: the Enter and the MpiSend
 * of a send share a timestamp, so do the events after the MPI call and its
 * Leave (kubus_stamp / kubus_stamp_fresh). */
extern uint64_t kubus_stamp  KUBUS_INTERNAL;
extern int kubus_stamp_fresh KUBUS_INTERNAL;

void kubus_record_flush (void) KUBUS_INTERNAL;
/* collect-state.c, called by collect-buffer.c: the event buffer was full and written out from
 * @b to @e */
void kubus_note_flush (uint64_t b, uint64_t e) KUBUS_INTERNAL;
/* collect-state.c: a peer's save signal came while the event buffer was written out; the next
 * append saves the trace (kubus_save_deferred_run) */
#include <signal.h>
extern volatile sig_atomic_t kubus_save_deferred KUBUS_INTERNAL;
void kubus_save_deferred_run (void) KUBUS_INTERNAL;
/* collect-buffer.c: 1 while the event buffer's records are written to OTF2 */
int kubus_raw_draining (void) KUBUS_INTERNAL;
/* collect-buffer.c: the stop time of the BUFFER_FLUSH record OTF2 writes at its own flush */
uint64_t kubus_raw_flush_time (void) KUBUS_INTERNAL;

/* The time of the events after an MPI call.  A buffer flush that happened while the call's
 * Enter was written (its time lies after that Enter's) is recorded first: OTF2 takes a
 * location's events in time order, and the call's own events after it (a receive completed
 * by MPI_Wait) are stamped after the flush. */
static inline uint64_t
kubus_time_after_call (void)
{
  if (__builtin_expect (kubus_flush_pending, 0))
    kubus_record_flush ();
  if (!kubus_stamp_fresh)
    {
      kubus_stamp = kubus_now ();
      kubus_stamp_fresh = 1;
    }
  return kubus_stamp;
}

/* collect-state.c */
void kubus_fail (const char *what) KUBUS_INTERNAL;
void kubus_log (const char *fmt, ...) KUBUS_INTERNAL __attribute__ ((format (printf, 1, 2)));
/* a failure that leaves this rank's measurement incomplete: always said, and kubus-run exits 3 */
void kubus_incomplete (const char *fmt, ...) KUBUS_INTERNAL __attribute__ ((format (printf, 1, 2)));
void kubus_measurement_start (uint64_t t0, uint32_t init_region) KUBUS_INTERNAL;
void kubus_measurement_finish (uint32_t finalize_region) KUBUS_INTERNAL;
void kubus_measurement_abort (uint32_t abort_region, int errorcode) KUBUS_INTERNAL;
/* the executable (/proc/self/exe): names the program region */
extern char kubus_program_path[4096] KUBUS_INTERNAL;
extern int kubus_world_rank         KUBUS_INTERNAL;
extern int kubus_world_size         KUBUS_INTERNAL;
extern MPI_Comm kubus_internal_comm KUBUS_INTERNAL;

static inline void
kubus_check (OTF2_ErrorCode err, const char *what)
{
  if (__builtin_expect (err != OTF2_SUCCESS, 0))
    kubus_fail (what);
}

/* collect-unwind.c: call paths from the stack (KUBUS_CALL_PATHS=unwind|flat) */
extern int      kubus_unwind_on KUBUS_INTERNAL;
/* time of the last event written on the main thread: frames that turn out to have returned
 * are left then */
extern uint64_t kubus_alive KUBUS_INTERNAL;
void kubus_unwind_configure (void) KUBUS_INTERNAL;
/* the stack at an MPI call (@site: its return address) becomes the open frames; new ones are
 * entered at @t */
void kubus_unwind_update (const void *site, uint64_t t) KUBUS_INTERNAL __attribute__ ((noinline));
/* a user region opens (@cfa: the CFA of the hook the code that opens it called) at user
 * depth @depth, or the one at @depth - 1 closes */
void kubus_unwind_user_push (uintptr_t cfa, int depth) KUBUS_INTERNAL;
void kubus_unwind_user_pop (int depth) KUBUS_INTERNAL;
/* end of the run: Leave events (trace only) of the frames above user depth @depth */
void kubus_unwind_close_segment (int depth, uint64_t t) KUBUS_INTERNAL;
void kubus_unwind_report (void) KUBUS_INTERNAL;
/* a call of another thread joins the event stream (MPI_THREAD_SERIALIZED): the open frames are
 * not its stack */
void kubus_unwind_foreign (void) KUBUS_INTERNAL;
/* collect-profile.c: the GNU build id of a loaded module as hex ("-" when it has none) */
struct dl_phdr_info;
void kubus_build_id_of (struct dl_phdr_info *info, char *out, size_t len) KUBUS_INTERNAL;
/* a fatal signal on the main thread: the stack it interrupted becomes the open frames */
void kubus_unwind_at_signal (uint64_t t) KUBUS_INTERNAL;

/* @site: the MPI call's return address (its call site in the profile) */
static inline void
kubus_ev_enter (uint32_t region, const void *site)
{
  if (__builtin_expect (kubus_flush_pending, 0))
    kubus_record_flush ();
  kubus_stamp = kubus_now ();
  kubus_stamp_fresh = 0;
  /* the frames that returned since the last call leave at its Leave (kubus_alive), before the
   * CPU sample stamped now: OTF2 takes a location's events in time order */
  if (kubus_unwind_on)
    kubus_unwind_update (site, kubus_stamp);
  kubus_cpu_boundary (kubus_stamp);
  if (kubus_recording)
    {
      if (kubus_kct_on)
        kubus_kct_site = (void *)site; /* the compressed trace tells call sites apart too */
      kubus_check (OTF2_EvtWriter_Enter (kubus_evt, NULL, kubus_stamp, region), "Enter");
    }
  /* the call is open once its Enter is written, not before: a save signal (another rank's
   * abort or exit) in between closes the region it names (collect-state.c) */
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  kubus_current_mpi = region;
  if (kubus_profiling)
    kubus_prof_enter (region, site, kubus_stamp);
}

static inline void
kubus_ev_leave (uint32_t region)
{
  if (!(kubus_recording | kubus_profiling))
    return;
  if (__builtin_expect (kubus_flush_pending, 0))
    kubus_record_flush ();
  uint64_t t = kubus_time_after_call ();
  kubus_stamp_fresh = 0;
  kubus_cpu_boundary (t);
  kubus_alive = t;
  if (kubus_recording)
    kubus_check (OTF2_EvtWriter_Leave (kubus_evt, NULL, t, region), "Leave");
  /* closed once its Leave is written (see kubus_ev_enter) */
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  kubus_current_mpi = OTF2_UNDEFINED_REGION;
  if (kubus_profiling)
    kubus_prof_leave (t);
}

/* collect-comm.c: communicators (local ids, dense, 0 = WORLD, 1 = SELF) */
uint32_t kubus_comm_info (MPI_Comm comm, int *size, int *rank) KUBUS_INTERNAL;
uint32_t kubus_comm_id (MPI_Comm comm) KUBUS_INTERNAL;
void     kubus_comm_init (void) KUBUS_INTERNAL;
void     kubus_comm_created (MPI_Comm parent, MPI_Comm comm, const char *cart) KUBUS_INTERNAL;
void     kubus_comm_created_group (MPI_Comm parent, MPI_Comm comm) KUBUS_INTERNAL;
/* MPI_Intercomm_create: called by the members of both groups */
void     kubus_comm_created_inter (MPI_Comm comm) KUBUS_INTERNAL;
/* MPI_Comm_idup: the new handle is valid at once, but not usable until the request completes,
 * so its members are copied from the parent instead of asked for */
void     kubus_comm_created_dup (MPI_Comm parent, MPI_Comm comm) KUBUS_INTERNAL;
void     kubus_comm_freed (MPI_Comm comm) KUBUS_INTERNAL;

/* collect-p2p.c: message events and request tracking */
uint64_t kubus_type_size (MPI_Datatype type) KUBUS_INTERNAL;
uint64_t kubus_sum_counts (const int *counts, int n) KUBUS_INTERNAL;
uint64_t kubus_sum_typed (const int *counts, const MPI_Datatype *types, int n) KUBUS_INTERNAL;
void kubus_ev_send (int peer, int tag, MPI_Comm comm, int count, MPI_Datatype type) KUBUS_INTERNAL;
/* Non-blocking sends and MPI_Start(all) write their events after the call (the request
 * exists only then) with @enter, the time the call was entered. */
void kubus_ev_isend (int          peer,
                     int          tag,
                     MPI_Comm     comm,
                     int          count,
                     MPI_Datatype type,
                     MPI_Request  req,
                     uint64_t     enter) KUBUS_INTERNAL;
/* A non-blocking collective started (@comm a local communicator id, @root KUBUS_NO_ROOT or
 * a rank in it); its completion is recorded by kubus_ev_complete. */
void kubus_ev_icoll (OTF2_CollectiveOp op,
                     uint32_t          comm,
                     uint32_t          root,
                     uint64_t          sent,
                     uint64_t          received,
                     MPI_Request       req,
                     uint64_t          enter) KUBUS_INTERNAL;
void         kubus_ev_recv (MPI_Comm comm, const MPI_Status *status) KUBUS_INTERNAL;
/* An MPI_Irecv from @source (MPI_PROC_NULL: nothing to record, like a send to it) */
void         kubus_ev_irecv_request (int source, MPI_Comm comm, MPI_Request req) KUBUS_INTERNAL;
/* Matched probes: MPI_(I)mprobe notes the message's communicator, MPI_(I)mrecv takes it
 * back (KUBUS_NO_COMM when unknown: the receive is then not recorded). */
#define KUBUS_NO_COMM UINT32_MAX
void     kubus_msg_probed (MPI_Message msg, MPI_Comm comm) KUBUS_INTERNAL;
uint32_t kubus_msg_take (MPI_Message msg) KUBUS_INTERNAL;
void     kubus_ev_recv_on (uint32_t comm, const MPI_Status *status) KUBUS_INTERNAL;
void     kubus_ev_irecv_request_on (uint32_t comm, MPI_Request req) KUBUS_INTERNAL;
/* MPI_Cancel: a cancelled request completes as MpiRequestCancelled */
void kubus_req_cancel (MPI_Request req) KUBUS_INTERNAL;
void         kubus_req_persistent (MPI_Request  req,
                                   int          is_send,
                                   int          peer,
                                   int          tag,
                                   MPI_Comm     comm,
                                   int          count,
                                   MPI_Datatype type) KUBUS_INTERNAL;
void         kubus_ev_start (MPI_Request req, uint64_t enter) KUBUS_INTERNAL;
void         kubus_req_free (MPI_Request req) KUBUS_INTERNAL;
void         kubus_ev_complete (MPI_Request req, const MPI_Status *status) KUBUS_INTERNAL;
MPI_Request *kubus_scratch_requests (const MPI_Request *reqs, int count) KUBUS_INTERNAL;
MPI_Status  *kubus_scratch_statuses (int count) KUBUS_INTERNAL;
void         kubus_ev_coll_begin (void) KUBUS_INTERNAL;
void         kubus_ev_coll_end (OTF2_CollectiveOp op,
                                uint32_t          comm,
                                uint32_t          root,
                                uint64_t          sent,
                                uint64_t          received) KUBUS_INTERNAL;

/* collect-regions.c: user regions (local ids from KUBUS_R_USER_BASE) */
uint32_t    kubus_region_intern (const char *name) KUBUS_INTERNAL;
uint32_t    kubus_region_count (void) KUBUS_INTERNAL;
const char *kubus_region_name (uint32_t local_id) KUBUS_INTERNAL;
void        kubus_region_set_manual (uint32_t local_id) KUBUS_INTERNAL;
int         kubus_region_is_manual (uint32_t local_id) KUBUS_INTERNAL;
/* a function found on the stack (collect-unwind.c): its name is its key
 * "kubus-frame:BUILDID:PATH+0xOFFSET", named after the run */
void        kubus_region_set_frame (uint32_t local_id) KUBUS_INTERNAL;
/* KUBUS_REGION_COMPILER, _MANUAL or _FRAME */
enum
{
  KUBUS_REGION_COMPILER,
  KUBUS_REGION_MANUAL,
  KUBUS_REGION_FRAME
};
int         kubus_region_kind (uint32_t local_id) KUBUS_INTERNAL;
/* "PATH+0xOFFSET" of a frame key → "BASENAME+0xOFFSET" (what a frame is called until it is
 * named) in @out */
void        kubus_frame_display_name (const char *key, char *out, size_t len) KUBUS_INTERNAL;

/* collect-user.c: call stack of user regions, so that frames opened before
 * MPI_Init and still open at MPI_Finalize get balanced events.  The open
 * frames are written with the times they were entered, kept within
 * [not_before, not_after]. */
void kubus_user_open_frames (uint64_t not_before, uint64_t not_after) KUBUS_INTERNAL;
void kubus_user_close_frames (uint64_t time) KUBUS_INTERNAL;
void kubus_user_init (void) KUBUS_INTERNAL;
/* open user regions (-1: more than are recorded) and the CFA noted when region @i opened */
#define KUBUS_USER_MAX_DEPTH 1024
extern int kubus_user_level KUBUS_INTERNAL; /* open user regions, recorded or not */
static inline int
kubus_user_depth (void)
{
  return kubus_user_level <= KUBUS_USER_MAX_DEPTH ? kubus_user_level : -1;
}
uintptr_t kubus_user_cfa (int i) KUBUS_INTERNAL;

/* collect-topology.c */
typedef struct
{
  uint64_t comm_key; /* communicator the coordinates refer to */
  char     name[64];
  int      ndims;
  int      dims[16];
  int      periods[16];
  int      rank; /* rank in that communicator */
  int      coords[16];
  int      have_coords;
} KubusTopology;
void kubus_topology_record_cart (MPI_Comm comm, uint64_t key, const char *name) KUBUS_INTERNAL;
int  kubus_topology_count (void) KUBUS_INTERNAL;
const KubusTopology *kubus_topology_get (int i) KUBUS_INTERNAL;

/* collect-comm.c: what unification needs */
typedef struct
{
  MPI_Comm handle; /* MPI_COMM_NULL once freed */
  uint64_t key;    /* same on every member rank */
  uint64_t parent_key;
  uint32_t children; /* communicators created from this one so far */
  int      size;
  int      rank;
  int     *members; /* world ranks, size entries (an inter-communicator: the local group) */
  int      remote_size; /* inter-communicator: size of the remote group; 0 = intra */
  int     *remote_members; /* world ranks of the remote group */
} KubusComm;
int              kubus_comm_count (void) KUBUS_INTERNAL;
const KubusComm *kubus_comm_get (int i) KUBUS_INTERNAL;

/* collect-clock.c: one time base per host, offsets between hosts (kubus_clock) */
#include <stdio.h>
/* MPI_Init, collective: hosts, the host's TSC conversion, the first offset measurement */
int      kubus_clock_setup (void) KUBUS_INTERNAL;
/* MPI_Finalize, collective: the second offset measurement */
void     kubus_clock_finish (void) KUBUS_INTERNAL;
/* abort paths: no second measurement, the first offset holds to @t */
void     kubus_clock_stop_after_abort (uint64_t t) KUBUS_INTERNAL;
/* local time -> the time readers see (OTF2's interpolation of the two ClockOffset records) */
uint64_t kubus_clock_correct (uint64_t t) KUBUS_INTERNAL;
void     kubus_clock_properties (OTF2_Archive *archive) KUBUS_INTERNAL;
void     kubus_clock_describe (FILE *f) KUBUS_INTERNAL;

/* collect-buffer.c */
int
kubus_buffer_setup (OTF2_Archive *archive, const char *spec, uint64_t *chunk_size) KUBUS_INTERNAL;
void kubus_buffer_log_pages (void) KUBUS_INTERNAL;

/* collect-unify.c */
typedef struct
{
  /* the two ClockOffset records, the same on every rank of a host */
  int64_t  offset_begin, offset_end;
  uint64_t time_begin, time_end;
  uint64_t rtt_begin;            /* shortest round trip of the first measurement */
  uint64_t start_time, end_time; /* first and last event (local time) */
  uint64_t global_start;         /* earliest first event of all ranks, as readers see it */
  int      hosts;                /* clock domains */
  int      tsc;                  /* 1: TSC, 0: CLOCK_MONOTONIC */
  int      skewed;               /* KUBUS_TEST_CLOCK_SKEW in effect */
  double   ns_per_tick;
  int64_t  max_offset;           /* over all hosts and both measurements (|ns|) */
  uint64_t max_rtt;
} KubusClock;
extern KubusClock kubus_clock KUBUS_INTERNAL;
extern char *kubus_hostnames  KUBUS_INTERNAL; /* world_size x KUBUS_HOST_LEN */
#define KUBUS_HOST_LEN 72 /* Linux host names have up to 64 bytes (HOST_NAME_MAX), + NUL */
int kubus_unify_and_write (OTF2_Archive *archive) KUBUS_INTERNAL;
int kubus_write_local_only (OTF2_Archive *archive, int write_global) KUBUS_INTERNAL;
/* collect-state.c, after an abort: this rank's first/last event time as readers see them;
 * the global writer widens its window by everybody's */
void kubus_abort_span_write (uint64_t first, uint64_t last) KUBUS_INTERNAL;
void kubus_abort_span_gather (uint64_t *first, uint64_t *last) KUBUS_INTERNAL;

/* collect-kct.c: the compressed trace (KUBUS_TRACE_FORMAT, see collect-kct-tap.h) */
void kubus_kct_configure (void) KUBUS_INTERNAL;
void kubus_kct_start (void) KUBUS_INTERNAL;
void kubus_kct_finish (void) KUBUS_INTERNAL;
/* after an abort, without collectives: EXPDIR/.kubus-kct-RANK (merged by kubus-run) */
void kubus_kct_save_alone (const char *expdir, int initiator) KUBUS_INTERNAL;
