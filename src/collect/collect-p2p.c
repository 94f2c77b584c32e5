/* collect-p2p.c: point-to-point and collective events, request tracking.
 *
 * Requests live in a fixed open-addressing table keyed by the MPI_Request
 * handle: non-blocking operations record MpiIsend / MpiIrecvRequest when
 * they start and MpiIsendComplete / MpiIrecv when a Wait or Test completes
 * them.  Wildcard receives are recorded with the source and tag from the
 * status (the wrappers substitute an internal status for MPI_STATUS_IGNORE).
 *
 * Non-blocking collectives (MPI_Ibarrier, MPI_Iallreduce, …) share the table: the call that
 * starts one records NonBlockingCollectiveRequest with its enter time and keeps op,
 * communicator, root and bytes in the entry; the Wait or Test that completes it records
 * NonBlockingCollectiveComplete with them, as Score-P does (OTF2 3.0).  The profile counts
 * their bytes at the completing call too.  MPI_Request_free and MPI_Cancel of one are
 * erroneous (MPI-3.1 5.12); should a program do it anyway, the request ends as
 * MpiRequestCancelled, so no request stays open in the trace.
 */
#include "collect.h"

#include <stdlib.h>
#include <string.h>

#define REQ_SLOTS 16384 /* power of two */

enum
{
  REQ_SEND = 1,
  REQ_RECV = 2,
  REQ_COLL = 3 /* a non-blocking collective: peer holds the root, tag the op */
};

typedef struct
{
  MPI_Request handle;
  uint8_t     kind; /* 0 = empty slot */
  uint8_t     persistent;
  uint8_t     active;
  uint8_t     ignore;    /* peer is MPI_PROC_NULL */
  uint8_t     cancelled; /* MPI_Cancel was called on it */
  uint32_t    comm;
  uint32_t    peer;
  uint32_t    tag;
  uint64_t    bytes;
  uint64_t    received; /* REQ_COLL */
  uint64_t    id;
} Req;

static Req      reqs[REQ_SLOTS];
static uint64_t next_request_id = 1;
static int      table_full_reported;

/* Sizes of predefined datatypes, direct-mapped by handle (main thread only, like every
 * caller).  Only named types are kept: they live as long as MPI and cannot be freed, whereas
 * a derived type's handle may be freed and come back as another type of another size, so
 * those are asked for every time. */
#define TYPE_SLOTS 64 /* power of two */
static MPI_Datatype type_handle[TYPE_SLOTS];
static uint32_t     type_bytes[TYPE_SLOTS]; /* size + 1; 0 = empty slot */

static inline uint32_t
type_slot (MPI_Datatype type)
{
  uint64_t h = (uint64_t)(uintptr_t)type * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 58) & (TYPE_SLOTS - 1);
}

uint64_t
kubus_type_size (MPI_Datatype type)
{
  uint32_t s = type_slot (type);
  if (__builtin_expect (type_bytes[s] != 0 && type_handle[s] == type, 1))
    return type_bytes[s] - 1;
  int size = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size (type, &size) != MPI_SUCCESS || size < 0)
    return 0;
  int ni, na, nd, combiner;
  if (PMPI_Type_get_envelope (type, &ni, &na, &nd, &combiner) == MPI_SUCCESS
      && combiner == MPI_COMBINER_NAMED && (uint64_t)size < UINT32_MAX)
    {
      type_handle[s] = type;
      type_bytes[s] = (uint32_t)size + 1;
    }
  return (uint64_t)size;
}

uint64_t
kubus_sum_counts (const int *counts, int n)
{
  uint64_t s = 0;
  if (counts == NULL)
    return 0;
  for (int i = 0; i < n; i++)
    s += counts[i] > 0 ? (uint64_t)counts[i] : 0;
  return s;
}

uint64_t
kubus_sum_typed (const int *counts, const MPI_Datatype *types, int n)
{
  uint64_t s = 0;
  if (counts == NULL || types == NULL)
    return 0;
  for (int i = 0; i < n; i++)
    if (counts[i] > 0)
      s += (uint64_t)counts[i] * kubus_type_size (types[i]);
  return s;
}

static inline uint32_t
req_slot (MPI_Request r)
{
  uint64_t h = (uint64_t)(uintptr_t)r * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 40) & (REQ_SLOTS - 1);
}

static Req *
req_find (MPI_Request r)
{
  if (r == MPI_REQUEST_NULL)
    return NULL;
  uint32_t s = req_slot (r);
  for (uint32_t n = 0; n < REQ_SLOTS; n++)
    {
      Req *e = &reqs[s];
      if (e->kind == 0)
        return NULL;
      if (e->handle == r)
        return e;
      s = (s + 1) & (REQ_SLOTS - 1);
    }
  return NULL;
}

static Req *
req_insert (MPI_Request r)
{
  if (r == MPI_REQUEST_NULL)
    return NULL;
  uint32_t s = req_slot (r);
  for (uint32_t n = 0; n < REQ_SLOTS - 1; n++)
    {
      Req *e = &reqs[s];
      /* Equal handles may be live at once: Open MPI hands out one shared
       * pre-completed request for sends it finished inline.  Entries with
       * the same handle stay in insertion order along the probe chain, so
       * completions are matched first in, first out. */
      if (e->kind == 0)
        {
          memset (e, 0, sizeof *e);
          e->handle = r;
          return e;
        }
      s = (s + 1) & (REQ_SLOTS - 1);
    }
  if (!table_full_reported)
    kubus_log ("more than %d requests in flight: some are not recorded", REQ_SLOTS);
  table_full_reported = 1;
  return NULL;
}

/* backward-shift deletion keeps probe chains intact without tombstones */
static void
req_remove (Req *e)
{
  uint32_t s = (uint32_t)(e - reqs);
  reqs[s].kind = 0;
  uint32_t j = s;
  for (;;)
    {
      j = (j + 1) & (REQ_SLOTS - 1);
      if (reqs[j].kind == 0)
        return;
      uint32_t home = req_slot (reqs[j].handle);
      int      keep = (s <= j) ? (s < home && home <= j) : (s < home || home <= j);
      if (!keep)
        {
          reqs[s] = reqs[j];
          reqs[j].kind = 0;
          s = j;
        }
    }
}

void
kubus_ev_send (int peer, int tag, MPI_Comm comm, int count, MPI_Datatype type)
{
  if (peer == MPI_PROC_NULL || !(kubus_recording | kubus_profiling))
    return;
  uint64_t bytes = (uint64_t)(count > 0 ? count : 0) * kubus_type_size (type);
  if (kubus_profiling)
    kubus_prof_sent (bytes);
  if (kubus_recording)
    kubus_check (OTF2_EvtWriter_MpiSend (kubus_evt, NULL, kubus_stamp, (uint32_t)peer,
                                         kubus_comm_id (comm), (uint32_t)tag, bytes),
                 "MpiSend");
}

void
kubus_ev_isend (int          peer,
                int          tag,
                MPI_Comm     comm,
                int          count,
                MPI_Datatype type,
                MPI_Request  req,
                uint64_t     enter)
{
  if (peer == MPI_PROC_NULL || !(kubus_recording | kubus_profiling))
    return;
  uint64_t bytes = (uint64_t)(count > 0 ? count : 0) * kubus_type_size (type);
  if (kubus_profiling)
    kubus_prof_sent (bytes);
  Req *e = req_insert (req);
  if (e == NULL)
    return;
  e->kind = REQ_SEND;
  e->active = 1;
  e->id = next_request_id++;
  if (kubus_recording)
    kubus_check (OTF2_EvtWriter_MpiIsend (kubus_evt, NULL, enter, (uint32_t)peer,
                                          kubus_comm_id (comm), (uint32_t)tag, bytes, e->id),
                 "MpiIsend");
}

void
kubus_ev_icoll (OTF2_CollectiveOp op,
                uint32_t          comm,
                uint32_t          root,
                uint64_t          sent,
                uint64_t          received,
                MPI_Request       req,
                uint64_t          enter)
{
  if (!(kubus_recording | kubus_profiling))
    return;
  Req *e = req_insert (req);
  if (e == NULL)
    return;
  e->kind = REQ_COLL;
  e->active = 1;
  e->comm = comm;
  e->peer = root;
  e->tag = (uint32_t)op;
  e->bytes = sent;
  e->received = received;
  e->id = next_request_id++;
  if (kubus_recording)
    kubus_check (OTF2_EvtWriter_NonBlockingCollectiveRequest (kubus_evt, NULL, enter, e->id),
                 "NonBlockingCollectiveRequest");
}

static inline uint64_t
status_bytes (const MPI_Status *status)
{
#if defined(OPEN_MPI) && OPEN_MPI
  /* what MPI_Get_count (status, MPI_BYTE) returns, read where Open MPI keeps it: the bytes
   * received (also past INT_MAX, where MPI_Get_count says MPI_UNDEFINED) */
  return (uint64_t)status->_ucount;
#else
  int n = 0;
  if (PMPI_Get_count (status, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
    return 0;
  return (uint64_t)n;
#endif
}

void
kubus_ev_recv_on (uint32_t comm, const MPI_Status *status)
{
  if (!(kubus_recording | kubus_profiling) || comm == KUBUS_NO_COMM
      || status->MPI_SOURCE == MPI_PROC_NULL || status->MPI_SOURCE < 0)
    return;
  uint64_t bytes = status_bytes (status);
  if (kubus_profiling)
    kubus_prof_received (bytes);
  if (kubus_recording)
    kubus_check (OTF2_EvtWriter_MpiRecv (kubus_evt, NULL, kubus_time_after_call (),
                                         (uint32_t)status->MPI_SOURCE, comm,
                                         (uint32_t)status->MPI_TAG, bytes),
                 "MpiRecv");
}

void
kubus_ev_recv (MPI_Comm comm, const MPI_Status *status)
{
  if (!(kubus_recording | kubus_profiling) || status->MPI_SOURCE == MPI_PROC_NULL
      || status->MPI_SOURCE < 0)
    return;
  /* the profile needs no communicator id (it registers unknown ones on first use) */
  kubus_ev_recv_on (kubus_recording ? kubus_comm_id (comm) : 0, status);
}

/* A receive from MPI_PROC_NULL completes at once with no message: it is not a request of the
 * trace (Open MPI even returns its one shared empty request for it, the handle an inline send
 * or another receive from MPI_PROC_NULL gets too; an entry for it would stay open in the trace
 * or be taken by the completion of a different request). */
void
kubus_ev_irecv_request (int source, MPI_Comm comm, MPI_Request req)
{
  if ((kubus_recording | kubus_profiling) && source != MPI_PROC_NULL)
    kubus_ev_irecv_request_on (kubus_recording ? kubus_comm_id (comm) : 0, req);
}

void
kubus_ev_irecv_request_on (uint32_t comm, MPI_Request req)
{
  if (!(kubus_recording | kubus_profiling) || comm == KUBUS_NO_COMM)
    return;
  Req *e = req_insert (req);
  if (e == NULL)
    return;
  e->kind = REQ_RECV;
  e->active = 1;
  e->comm = comm;
  e->id = next_request_id++;
  if (kubus_recording)
    kubus_check (
        OTF2_EvtWriter_MpiIrecvRequest (kubus_evt, NULL, kubus_time_after_call (), e->id),
        "MpiIrecvRequest");
}

void
kubus_req_persistent (
    MPI_Request req, int is_send, int peer, int tag, MPI_Comm comm, int count, MPI_Datatype type)
{
  Req *e = req_insert (req);
  if (e == NULL)
    return;
  e->kind = is_send ? REQ_SEND : REQ_RECV;
  e->persistent = 1;
  e->ignore = peer == MPI_PROC_NULL; /* no message: MPI_Start records nothing */
  e->comm = kubus_recording ? kubus_comm_id (comm) : 0;
  e->peer = (uint32_t)peer;
  e->tag = (uint32_t)tag;
  e->bytes = is_send ? (uint64_t)(count > 0 ? count : 0) * kubus_type_size (type) : 0;
}

/* Both kinds at the enter time: MPI_Startall may start receives before sends, and the
 * events of one location must keep their order. */
void
kubus_ev_start (MPI_Request req, uint64_t enter)
{
  Req *e = req_find (req);
  if (e == NULL || !e->persistent || e->ignore || !(kubus_recording | kubus_profiling))
    return;
  e->active = 1;
  e->id = next_request_id++;
  if (e->kind == REQ_SEND && kubus_profiling)
    kubus_prof_sent (e->bytes);
  if (!kubus_recording)
    return;
  if (e->kind == REQ_SEND)
    kubus_check (OTF2_EvtWriter_MpiIsend (kubus_evt, NULL, enter, e->peer, e->comm, e->tag,
                                          e->bytes, e->id),
                 "MpiIsend");
  else
    kubus_check (OTF2_EvtWriter_MpiIrecvRequest (kubus_evt, NULL, enter, e->id),
                 "MpiIrecvRequest");
}

void
kubus_req_cancel (MPI_Request req)
{
  Req *e = req_find (req);
  if (e != NULL && e->active)
    e->cancelled = 1;
}

/* Matched messages between MPI_(I)mprobe and MPI_(I)mrecv: few at a time, so a small
 * array searched linearly. */
#define MSG_SLOTS 256
static MPI_Message msg_handle[MSG_SLOTS];
static uint32_t    msg_comm[MSG_SLOTS];
static int         n_msgs;

void
kubus_msg_probed (MPI_Message msg, MPI_Comm comm)
{
  if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC)
    return;
  if (n_msgs == MSG_SLOTS)
    {
      if (!table_full_reported)
        kubus_log ("more than %d matched messages pending: some are not recorded", MSG_SLOTS);
      table_full_reported = 1;
      return;
    }
  msg_handle[n_msgs] = msg;
  msg_comm[n_msgs] = kubus_recording ? kubus_comm_id (comm) : 0;
  n_msgs++;
}

uint32_t
kubus_msg_take (MPI_Message msg)
{
  for (int i = n_msgs - 1; i >= 0; i--)
    if (msg_handle[i] == msg)
      {
        uint32_t c = msg_comm[i];
        n_msgs--;
        msg_handle[i] = msg_handle[n_msgs];
        msg_comm[i] = msg_comm[n_msgs];
        return c;
      }
  return KUBUS_NO_COMM;
}

/* MPI_Request_free.  An active request is not cancelled by it: a send still goes out (and
 * counts as a send), a receive still takes its message.  The trace ends the request here, so
 * no request stays open: a send with MpiIsendComplete (MPI_Request_free waits for nothing, so
 * it is never a Late Receiver), a receive with MpiRequestCancelled, because its source, tag and
 * size are never known to the program (no status) — the analysis then sees the matching send
 * as unmatched and says so.  An inactive persistent request just leaves the table. */
void
kubus_req_free (MPI_Request req)
{
  Req *e = req_find (req);
  if (e == NULL)
    return;
  if (e->active && kubus_recording)
    {
      if (e->kind == REQ_SEND)
        kubus_check (OTF2_EvtWriter_MpiIsendComplete (kubus_evt, NULL, kubus_stamp, e->id),
                     "MpiIsendComplete");
      else if (e->kind == REQ_COLL) /* erroneous (MPI-3.1 5.12), ended all the same */
        kubus_check (kubus_tap_nbc_cancelled (kubus_evt, NULL, kubus_stamp, e->id),
                     "MpiRequestCancelled");
      else
        kubus_check (OTF2_EvtWriter_MpiRequestCancelled (kubus_evt, NULL, kubus_stamp, e->id),
                     "MpiRequestCancelled");
    }
  req_remove (e);
}

void
kubus_ev_complete (MPI_Request req, const MPI_Status *status)
{
  Req *e = req_find (req);
  if (e == NULL)
    return;
  int cancelled = 0;
  if (e->cancelled && PMPI_Test_cancelled (status, &cancelled) != MPI_SUCCESS)
    cancelled = 0;
  e->cancelled = 0;
  if (e->active && kubus_profiling && !cancelled && e->kind == REQ_RECV && status->MPI_SOURCE >= 0)
    kubus_prof_received (status_bytes (status));
  if (e->active && kubus_profiling && !cancelled && e->kind == REQ_COLL)
    kubus_prof_coll_bytes (e->bytes, e->received);
  if (e->active && kubus_recording)
    {
      if (cancelled && e->kind == REQ_COLL)
        kubus_check (kubus_tap_nbc_cancelled (kubus_evt, NULL, kubus_time_after_call (), e->id),
                     "MpiRequestCancelled");
      else if (cancelled)
        kubus_check (
            OTF2_EvtWriter_MpiRequestCancelled (kubus_evt, NULL, kubus_time_after_call (), e->id),
            "MpiRequestCancelled");
      else if (e->kind == REQ_SEND)
        kubus_check (
            OTF2_EvtWriter_MpiIsendComplete (kubus_evt, NULL, kubus_time_after_call (), e->id),
            "MpiIsendComplete");
      else if (e->kind == REQ_COLL)
        kubus_check (OTF2_EvtWriter_NonBlockingCollectiveComplete (
                         kubus_evt, NULL, kubus_time_after_call (), (OTF2_CollectiveOp)e->tag,
                         e->comm, e->peer, e->bytes, e->received, e->id),
                     "NonBlockingCollectiveComplete");
      else if (status->MPI_SOURCE >= 0)
        kubus_check (OTF2_EvtWriter_MpiIrecv (
                         kubus_evt, NULL, kubus_time_after_call (), (uint32_t)status->MPI_SOURCE,
                         e->comm, (uint32_t)status->MPI_TAG, status_bytes (status), e->id),
                     "MpiIrecv");
    }
  e->active = 0;
  if (!e->persistent)
    req_remove (e);
}

/* Scratch copies for the *all / *any / *some calls: MPI sets completed
 * requests to MPI_REQUEST_NULL, so the handles are saved first.  The buffers
 * only grow, so steady state allocates nothing. */
static MPI_Request *scratch_req;
static int          scratch_req_cap;
static MPI_Status  *scratch_st;
static int          scratch_st_cap;

MPI_Request *
kubus_scratch_requests (const MPI_Request *r, int count)
{
  if (count <= 0 || r == NULL)
    return NULL;
  if (count > scratch_req_cap)
    {
      int          cap = count < 256 ? 256 : count;
      MPI_Request *n = realloc (scratch_req, sizeof (MPI_Request) * (size_t)cap);
      if (n == NULL)
        return NULL;
      scratch_req = n;
      scratch_req_cap = cap;
    }
  memcpy (scratch_req, r, sizeof (MPI_Request) * (size_t)count);
  return scratch_req;
}

MPI_Status *
kubus_scratch_statuses (int count)
{
  if (count <= 0)
    return MPI_STATUSES_IGNORE;
  if (count > scratch_st_cap)
    {
      int         cap = count < 256 ? 256 : count;
      MPI_Status *n = realloc (scratch_st, sizeof (MPI_Status) * (size_t)cap);
      if (n == NULL)
        return MPI_STATUSES_IGNORE;
      scratch_st = n;
      scratch_st_cap = cap;
    }
  return scratch_st;
}

void
kubus_ev_coll_begin (void)
{
  if (!kubus_recording)
    return;
  kubus_check (OTF2_EvtWriter_MpiCollectiveBegin (kubus_evt, NULL, kubus_stamp),
               "MpiCollectiveBegin");
}

void
kubus_ev_coll_end (
    OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
  if (!kubus_recording)
    return;
  kubus_check (OTF2_EvtWriter_MpiCollectiveEnd (kubus_evt, NULL, kubus_time_after_call (), op, comm,
                                                root, sent, received),
               "MpiCollectiveEnd");
}
