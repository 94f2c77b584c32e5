/* collect-raw.h: the event buffer of our own (docs/decisions/2026-11-29-raw-event-buffer.md).
 *
 * Inside an MPI call the collector only appends a compact record of each event (a word of kind
 * and one 32-bit field, the timestamp, then the event's other fields, 64-bit words) to the
 * rank's event buffer (--buffer / KUBUS_BUFFER).  The OTF2 records are written from it, in the
 * order they were appended, when the buffer is full (a flush, recorded as region KUBUS_FLUSH
 * like OTF2's own flushes before), and before the event writer is closed at MPI_Finalize or
 * after an abort or a crash (kubus_raw_drain).  OTF2's writer thus costs nothing inside a call
 * while the buffer holds the run.
 *
 * The taps of collect-kct-tap.h append here (kubus_raw_*), so every event site stays as it is.
 * Only this file and collect-buffer.c know the layout.  A record is published by one store of
 * the position after its words are written: a signal that saves the trace in between
 * (collect-state.c) finds the records before it complete.
 */
#pragma once

#include <otf2/otf2.h>
#include <stdint.h>

#define KUBUS_RAW_HIDDEN __attribute__ ((visibility ("hidden")))

/* record kinds (the low byte of a record's first word) */
enum
{
  KUBUS_RAW_ENTER = 1,     /* a = region */
  KUBUS_RAW_LEAVE,         /* a = region */
  KUBUS_RAW_SEND,          /* a = peer; comm | tag << 32; bytes */
  KUBUS_RAW_RECV,          /* a = peer; comm | tag << 32; bytes */
  KUBUS_RAW_ISEND,         /* a = peer; comm | tag << 32; bytes; request */
  KUBUS_RAW_IRECV,         /* a = peer; comm | tag << 32; bytes; request */
  KUBUS_RAW_ISEND_COMPLETE,    /* request */
  KUBUS_RAW_IRECV_REQUEST,     /* request */
  KUBUS_RAW_REQUEST_CANCELLED, /* request */
  KUBUS_RAW_COLL_BEGIN,
  KUBUS_RAW_COLL_END,      /* a = op; comm | root << 32; sent; received */
  KUBUS_RAW_NBC_REQUEST,   /* request */
  KUBUS_RAW_NBC_COMPLETE,  /* a = op; comm | root << 32; sent; received; request */
  KUBUS_RAW_PROGRAM_BEGIN, /* a = name (no arguments) */
  KUBUS_RAW_PROGRAM_END,   /* status */
  KUBUS_RAW_METRIC2,       /* a = metric; 2 values of type UINT64 */
  KUBUS_RAW_METRIC3,       /* a = metric; 3 values of type UINT64 */
  KUBUS_RAW_KINDS
};

/* words of a record of each kind, the first two included */
static const uint8_t kubus_raw_words[KUBUS_RAW_KINDS] = {
  [KUBUS_RAW_ENTER] = 2,           [KUBUS_RAW_LEAVE] = 2,
  [KUBUS_RAW_SEND] = 4,            [KUBUS_RAW_RECV] = 4,
  [KUBUS_RAW_ISEND] = 5,           [KUBUS_RAW_IRECV] = 5,
  [KUBUS_RAW_ISEND_COMPLETE] = 3,  [KUBUS_RAW_IRECV_REQUEST] = 3,
  [KUBUS_RAW_REQUEST_CANCELLED] = 3, [KUBUS_RAW_COLL_BEGIN] = 2,
  [KUBUS_RAW_COLL_END] = 5,        [KUBUS_RAW_NBC_REQUEST] = 3,
  [KUBUS_RAW_NBC_COMPLETE] = 6,    [KUBUS_RAW_PROGRAM_BEGIN] = 2,
  [KUBUS_RAW_PROGRAM_END] = 3,     [KUBUS_RAW_METRIC2] = 4,
  [KUBUS_RAW_METRIC3] = 5,
};
#define KUBUS_RAW_MAX_WORDS 6

/* the next free word, and the end of the part of the buffer that may be written now (faulted
 * in, at most the buffer's end) */
extern uint64_t *kubus_raw_pos KUBUS_RAW_HIDDEN;
extern uint64_t *kubus_raw_end KUBUS_RAW_HIDDEN;

/* collect-buffer.c, cold: room for @words more words (the next region faulted in, or the full
 * buffer written out as a flush); NULL: nothing can be recorded (no buffer, or the writer
 * failed) */
uint64_t *kubus_raw_more (unsigned words) KUBUS_RAW_HIDDEN __attribute__ ((noinline, cold));
/* every record so far written to the OTF2 event writer, in order (no flush is recorded):
 * before the writer is closed, or before anything else is written to it */
void kubus_raw_drain (void) KUBUS_RAW_HIDDEN;

static inline uint64_t *
kubus_raw_take (unsigned words)
{
  uint64_t *p = kubus_raw_pos;
  if (__builtin_expect ((uint64_t)(kubus_raw_end - p) < words, 0))
    p = kubus_raw_more (words);
  return p;
}

/* the record's words are written: it is part of the buffer from now on */
static inline void
kubus_raw_publish (uint64_t *p, unsigned words)
{
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  kubus_raw_pos = p + words;
}

static inline OTF2_ErrorCode
kubus_raw_2 (unsigned kind, uint32_t a, uint64_t t)
{
  uint64_t *p = kubus_raw_take (2);
  if (__builtin_expect (p != NULL, 1))
    {
      p[0] = kind | (uint64_t)a << 32;
      p[1] = t;
      kubus_raw_publish (p, 2);
    }
  return OTF2_SUCCESS;
}

static inline OTF2_ErrorCode
kubus_raw_request (unsigned kind, uint64_t t, uint64_t req)
{
  uint64_t *p = kubus_raw_take (3);
  if (__builtin_expect (p != NULL, 1))
    {
      p[0] = kind;
      p[1] = t;
      p[2] = req;
      kubus_raw_publish (p, 3);
    }
  return OTF2_SUCCESS;
}

/* a message: @n 4 (blocking) or 5 (with a request) */
static inline OTF2_ErrorCode
kubus_raw_p2p (unsigned kind, unsigned n, uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag,
               uint64_t bytes, uint64_t req)
{
  uint64_t *p = kubus_raw_take (n);
  if (__builtin_expect (p != NULL, 1))
    {
      p[0] = kind | (uint64_t)peer << 32;
      p[1] = t;
      p[2] = comm | (uint64_t)tag << 32;
      p[3] = bytes;
      if (n > 4)
        p[4] = req;
      kubus_raw_publish (p, n);
    }
  return OTF2_SUCCESS;
}

/* a collective's end: @n 5 (blocking) or 6 (non-blocking, with its request) */
static inline OTF2_ErrorCode
kubus_raw_coll (unsigned kind, unsigned n, uint64_t t, uint32_t op, uint32_t comm, uint32_t root,
                uint64_t sent, uint64_t received, uint64_t req)
{
  uint64_t *p = kubus_raw_take (n);
  if (__builtin_expect (p != NULL, 1))
    {
      p[0] = kind | (uint64_t)op << 32;
      p[1] = t;
      p[2] = comm | (uint64_t)root << 32;
      p[3] = sent;
      p[4] = received;
      if (n > 5)
        p[5] = req;
      kubus_raw_publish (p, n);
    }
  return OTF2_SUCCESS;
}
