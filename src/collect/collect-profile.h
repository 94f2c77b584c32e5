/* collect-profile.h: the lightweight profile inside the collector (collect-profile.c).
 *
 * Every thread that calls MPI keeps a call tree of its own (the main thread: user functions
 * and MPI calls, with the call sites (return addresses) of each MPI call path; other threads:
 * their MPI calls) — under MPI_THREAD_MULTIPLE: where calls cannot overlap, other threads'
 * calls go into the main thread's tree (docs/decisions/2026-11-29-threads.md).  The main thread also keeps, for the MPI functions whose waits are estimated, the
 * visits, summed and shortest duration per message-size class, from which MPI_Finalize
 * computes the wait-state estimates.  Memory is bounded by the number of call paths
 * (KUBUS_PROFILE_PATHS, default 262144 per thread): calls on new paths past it go to one
 * KUBUS_OVERFLOW call path. */
#pragma once

#include <mpi.h>
#include <stdint.h>

#define KUBUS_PROF_INTERNAL __attribute__ ((visibility ("hidden")))

extern int kubus_profiling KUBUS_PROF_INTERNAL; /* the main thread's profile is recording */
/* set by the MPI_Init, MPI_Finalize wrappers: their call site (the others pass it directly) */
extern const void *kubus_prof_site_hint KUBUS_PROF_INTERNAL;

/* Environment: KUBUS_PROFILE=0 switches the profile off, KUBUS_NO_TRACE=1 the trace. */
int kubus_prof_wanted (void) KUBUS_PROF_INTERNAL;
int kubus_trace_wanted (void) KUBUS_PROF_INTERNAL;

/* Main thread.  @t: the collector's clock (kubus_now). */
void kubus_prof_begin (uint64_t begin) KUBUS_PROF_INTERNAL; /* root: the program region */
int  kubus_prof_started (void) KUBUS_PROF_INTERNAL;
void kubus_prof_enter (uint32_t region, const void *site, uint64_t t) KUBUS_PROF_INTERNAL;
void kubus_prof_leave (uint64_t t) KUBUS_PROF_INTERNAL;
void kubus_prof_push (uint32_t region, uint64_t t) KUBUS_PROF_INTERNAL; /* user region */
void kubus_prof_pop (uint64_t t) KUBUS_PROF_INTERNAL;
void kubus_prof_flush (uint64_t begin, uint64_t end) KUBUS_PROF_INTERNAL; /* KUBUS_FLUSH */
/* what the MPI call on top of the stack moved */
void kubus_prof_sent (uint64_t bytes) KUBUS_PROF_INTERNAL;
void kubus_prof_received (uint64_t bytes) KUBUS_PROF_INTERNAL;
void kubus_prof_coll (uint32_t comm, int size, int me, uint32_t root, uint64_t sent, uint64_t received)
    KUBUS_PROF_INTERNAL;
/* a non-blocking collective completed by the call on top: its bytes and count, no estimate */
void kubus_prof_coll_bytes (uint64_t sent, uint64_t received) KUBUS_PROF_INTERNAL;

/* Other threads: MPI calls only; returns a token for the leave (0: not recorded). */
uint64_t kubus_prof_thread_enter (uint32_t region, const void *site) KUBUS_PROF_INTERNAL;
void     kubus_prof_thread_leave (uint64_t token) KUBUS_PROF_INTERNAL;

/* End of the run: closes every open frame at @t (MPI_Finalize's leave, or the abort). */
void kubus_prof_close (uint64_t t) KUBUS_PROF_INTERNAL;
/* MPI_Finalize, collective over @comm (every rank calls it, recording or not): one reduction
 * of the minima, then rank 0 collects the records and writes EXPDIR/profile.cube. */
void kubus_prof_finish (const char *expdir, MPI_Comm comm) KUBUS_PROF_INTERNAL;
/* Abort paths (no collective operation): the rank's record goes to
 * EXPDIR/.kubus-profile/rank.<rank>; @reason (initiator only, else NULL) says why the run
 * ended.  kubus_prof_merge_saved then writes profile.cube from whatever records were saved. */
void kubus_prof_save (const char *expdir, const char *reason) KUBUS_PROF_INTERNAL;
void kubus_prof_merge_saved (const char *expdir) KUBUS_PROF_INTERNAL;
