/* collect-kct-tap.h: every OTF2 event the collector writes also feeds the compressed trace.
 *
 * collect.h includes this right after <otf2/otf2.h>.  The macros at the end route the
 * collector's OTF2_EvtWriter_* calls through the inline taps below, which hand the event to
 * the compressed-trace recorder (--trace-format=compressed|both) and then to OTF2 unless
 * only the compressed trace is wanted: to the event buffer of collect-raw.h, from which OTF2's
 * records are written later (when it is full, at the end), in the same order.  The event sites
 * themselves stay as they are, and any event written in the future is compressed as well.
 * With the default (OTF2 only) a tap costs one predictable branch.
 */
#pragma once

#include <otf2/otf2.h>
#include <stdint.h>

#include "collect-raw.h" /* where the OTF2 events go first */

#define KUBUS_KCT_HIDDEN __attribute__ ((visibility ("hidden")))

/* KUBUS_TRACE_FORMAT: 1 = write OTF2 (otf2, both), 0 = no OTF2 archive (compressed) */
extern int kubus_trace_otf2 KUBUS_KCT_HIDDEN;
/* recording into the compressed trace (compressed, both) */
extern int kubus_kct_on KUBUS_KCT_HIDDEN;
/* return address of the MPI wrapper being run: the call site of the next MPI Enter (set by
 * kubus_ev_enter from the site the wrapper passes for the profile) */
extern void *kubus_kct_site KUBUS_KCT_HIDDEN;

/* collect-kct.c */
void kubus_kct_enter (uint64_t t, uint32_t region) KUBUS_KCT_HIDDEN;
void kubus_kct_leave (uint64_t t, uint32_t region) KUBUS_KCT_HIDDEN;
/* a message event; @peer is the peer's rank in @comm (a local communicator id) */
void kubus_kct_p2p (uint64_t t, int type, uint32_t comm, uint32_t peer, uint32_t tag,
                    uint64_t bytes, uint64_t request) KUBUS_KCT_HIDDEN;
/* an event that names only a request */
void kubus_kct_request (uint64_t t, int type, uint64_t request) KUBUS_KCT_HIDDEN;
void kubus_kct_coll_begin (uint64_t t) KUBUS_KCT_HIDDEN;
void kubus_kct_coll_end (uint64_t t, uint32_t op, uint32_t comm, uint32_t root, uint64_t sent,
                         uint64_t received) KUBUS_KCT_HIDDEN;
void kubus_kct_program (uint64_t t, int end, int64_t status) KUBUS_KCT_HIDDEN;
/* a non-blocking collective's request (@t: the enter time of its MPI_I* call) and its
 * completion */
void kubus_kct_nbc_request (uint64_t t, uint64_t request) KUBUS_KCT_HIDDEN;
void kubus_kct_nbc_complete (uint64_t t, uint32_t op, uint32_t comm, uint32_t root, uint64_t sent,
                             uint64_t received, uint64_t request) KUBUS_KCT_HIDDEN;

/* a CPU sample (collect-cputime.c) before the event that follows (format version 4; @where,
 * the CPU it ran on, UINT64_MAX unknown: version 5) */
void kubus_kct_cpu (uint64_t cpu, uint64_t wait, uint64_t where) KUBUS_KCT_HIDDEN;

/* the raw event types of src/collect/kct-format.h, repeated to keep this header small */
enum
{
  KUBUS_KCT_SEND = 3,
  KUBUS_KCT_RECV = 4,
  KUBUS_KCT_ISEND = 5,
  KUBUS_KCT_ISEND_COMPLETE = 6,
  KUBUS_KCT_IRECV_REQUEST = 7,
  KUBUS_KCT_IRECV = 8,
  KUBUS_KCT_REQUEST_CANCELLED = 9
};

#define KUBUS_TAP_OTF2(call) (kubus_trace_otf2 ? (call) : OTF2_SUCCESS)

static inline OTF2_ErrorCode
kubus_tap_enter (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t, OTF2_RegionRef r)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_enter (t, r);
  return KUBUS_TAP_OTF2 (kubus_raw_2 (KUBUS_RAW_ENTER, r, t));
}

static inline OTF2_ErrorCode
kubus_tap_leave (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t, OTF2_RegionRef r)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_leave (t, r);
  return KUBUS_TAP_OTF2 (kubus_raw_2 (KUBUS_RAW_LEAVE, r, t));
}

static inline OTF2_ErrorCode
kubus_tap_send (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t, uint32_t peer,
                OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_p2p (t, KUBUS_KCT_SEND, comm, peer, tag, bytes, 0);
  return KUBUS_TAP_OTF2 (kubus_raw_p2p (KUBUS_RAW_SEND, 4, t, peer, comm, tag, bytes, 0));
}

static inline OTF2_ErrorCode
kubus_tap_isend (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t, uint32_t peer,
                 OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_p2p (t, KUBUS_KCT_ISEND, comm, peer, tag, bytes, req);
  return KUBUS_TAP_OTF2 (kubus_raw_p2p (KUBUS_RAW_ISEND, 5, t, peer, comm, tag, bytes, req));
}

static inline OTF2_ErrorCode
kubus_tap_recv (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t, uint32_t peer,
                OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_p2p (t, KUBUS_KCT_RECV, comm, peer, tag, bytes, 0);
  return KUBUS_TAP_OTF2 (kubus_raw_p2p (KUBUS_RAW_RECV, 4, t, peer, comm, tag, bytes, 0));
}

static inline OTF2_ErrorCode
kubus_tap_irecv (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t, uint32_t peer,
                 OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_p2p (t, KUBUS_KCT_IRECV, comm, peer, tag, bytes, req);
  return KUBUS_TAP_OTF2 (kubus_raw_p2p (KUBUS_RAW_IRECV, 5, t, peer, comm, tag, bytes, req));
}

static inline OTF2_ErrorCode
kubus_tap_isend_complete (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t,
                          uint64_t req)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_request (t, KUBUS_KCT_ISEND_COMPLETE, req);
  return KUBUS_TAP_OTF2 (kubus_raw_request (KUBUS_RAW_ISEND_COMPLETE, t, req));
}

static inline OTF2_ErrorCode
kubus_tap_irecv_request (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t,
                         uint64_t req)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_request (t, KUBUS_KCT_IRECV_REQUEST, req);
  return KUBUS_TAP_OTF2 (kubus_raw_request (KUBUS_RAW_IRECV_REQUEST, t, req));
}

static inline OTF2_ErrorCode
kubus_tap_request_cancelled (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t,
                             uint64_t req)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_request (t, KUBUS_KCT_REQUEST_CANCELLED, req);
  return KUBUS_TAP_OTF2 (kubus_raw_request (KUBUS_RAW_REQUEST_CANCELLED, t, req));
}

static inline OTF2_ErrorCode
kubus_tap_coll_begin (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_coll_begin (t);
  return KUBUS_TAP_OTF2 (kubus_raw_2 (KUBUS_RAW_COLL_BEGIN, 0, t));
}

static inline OTF2_ErrorCode
kubus_tap_coll_end (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t,
                    OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                    uint64_t received)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_coll_end (t, op, comm, root, sent, received);
  return KUBUS_TAP_OTF2 (
      kubus_raw_coll (KUBUS_RAW_COLL_END, 5, t, op, comm, root, sent, received, 0));
}

static inline OTF2_ErrorCode
kubus_tap_program_begin (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t,
                         OTF2_StringRef name, uint32_t n_args, const OTF2_StringRef *args)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_program (t, 0, 0);
  (void)args;
  return n_args == 0 ? KUBUS_TAP_OTF2 (kubus_raw_2 (KUBUS_RAW_PROGRAM_BEGIN, name, t))
                     : OTF2_ERROR_INVALID_ARGUMENT; /* the buffer keeps no arguments */
}

static inline OTF2_ErrorCode
kubus_tap_program_end (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t,
                       int64_t status)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_program (t, 1, status);
  return KUBUS_TAP_OTF2 (kubus_raw_request (KUBUS_RAW_PROGRAM_END, t, (uint64_t)status));
}

/* Non-blocking collectives: their request in the MPI_I* call, their completion in the call
 * that completes them (format version 3 of the compressed trace). */
static inline OTF2_ErrorCode
kubus_tap_nbc_request (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t, uint64_t req)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_nbc_request (t, req);
  return KUBUS_TAP_OTF2 (kubus_raw_request (KUBUS_RAW_NBC_REQUEST, t, req));
}

static inline OTF2_ErrorCode
kubus_tap_nbc_complete (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t,
                        OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                        uint64_t received, uint64_t req)
{
  (void)w;
  (void)al;
  if (kubus_kct_on)
    kubus_kct_nbc_complete (t, op, comm, root, sent, received, req);
  return KUBUS_TAP_OTF2 (kubus_raw_coll (KUBUS_RAW_NBC_COMPLETE, 6, t, op, comm, root, sent,
                                         received, req));
}

/* the end of a non-blocking collective's request that was freed or cancelled (kept apart from
 * kubus_tap_request_cancelled for the collector's event sites; the same record) */
static inline OTF2_ErrorCode
kubus_tap_nbc_cancelled (OTF2_EvtWriter *w, OTF2_AttributeList *al, OTF2_TimeStamp t, uint64_t req)
{
  return kubus_tap_request_cancelled (w, al, t, req);
}

#define OTF2_EvtWriter_Enter kubus_tap_enter
#define OTF2_EvtWriter_Leave kubus_tap_leave
#define OTF2_EvtWriter_MpiSend kubus_tap_send
#define OTF2_EvtWriter_MpiIsend kubus_tap_isend
#define OTF2_EvtWriter_MpiRecv kubus_tap_recv
#define OTF2_EvtWriter_MpiIrecv kubus_tap_irecv
#define OTF2_EvtWriter_MpiIsendComplete kubus_tap_isend_complete
#define OTF2_EvtWriter_MpiIrecvRequest kubus_tap_irecv_request
#define OTF2_EvtWriter_MpiRequestCancelled kubus_tap_request_cancelled
#define OTF2_EvtWriter_MpiCollectiveBegin kubus_tap_coll_begin
#define OTF2_EvtWriter_MpiCollectiveEnd kubus_tap_coll_end
#define OTF2_EvtWriter_ProgramBegin kubus_tap_program_begin
#define OTF2_EvtWriter_ProgramEnd kubus_tap_program_end
#define OTF2_EvtWriter_NonBlockingCollectiveRequest kubus_tap_nbc_request
#define OTF2_EvtWriter_NonBlockingCollectiveComplete kubus_tap_nbc_complete
