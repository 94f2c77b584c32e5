/* trace-kct.h: a compressed trace as the event source of the OTF2 readers.
 *
 * When a process sets a compressed trace as its source, the analyzer's and the simulator's
 * readers (trace_read_rank, trace_events_read) take each rank's events from the replay
 * iterator (kct-replay.h) instead of OTF2 event files; the definitions still come from an
 * OTF2 archive, the definitions-only one kct_expand_definitions writes, whose ids are those
 * the iterator yields.  kubus-sim replays a compressed trace this way without expanding it. */
#pragma once

#include <glib.h>
#include <otf2/otf2.h>

#include "kct.h"

/* Borrowed: both stay alive while the readers run; NULL ends it. */
void     trace_kct_source_set (const KctTrace *t, const KctComms *comms);
gboolean trace_kct_active (void);
/* The source set (NULL when none): a reader of another trace in the same process (kubus-sim's
 * analysis of its simulated trace) sets it aside and restores it. */
void     trace_kct_source_get (const KctTrace **t, const KctComms **comms);

/* The OTF2 event callbacks a reader wants (NULL: not wanted). */
typedef struct
{
  OTF2_EvtReaderCallback_ProgramBegin        program_begin;
  OTF2_EvtReaderCallback_ProgramEnd          program_end;
  OTF2_EvtReaderCallback_Enter               enter;
  OTF2_EvtReaderCallback_Leave               leave;
  OTF2_EvtReaderCallback_MpiSend             send;
  OTF2_EvtReaderCallback_MpiIsend            isend;
  OTF2_EvtReaderCallback_MpiIsendComplete    isend_complete;
  OTF2_EvtReaderCallback_MpiIrecvRequest     irecv_request;
  OTF2_EvtReaderCallback_MpiRecv             recv;
  OTF2_EvtReaderCallback_MpiIrecv            irecv;
  OTF2_EvtReaderCallback_MpiRequestCancelled request_cancelled;
  OTF2_EvtReaderCallback_MpiCollectiveBegin  coll_begin;
  OTF2_EvtReaderCallback_MpiCollectiveEnd    coll_end;
  OTF2_EvtReaderCallback_NonBlockingCollectiveRequest  nbc_request;
  OTF2_EvtReaderCallback_NonBlockingCollectiveComplete nbc_complete;
  /* the collector's CPU samples (format version 4), as Metric events of class 0 (the one the
   * definitions-only archive defines) before the event they stand before */
  OTF2_EvtReaderCallback_Metric              metric;
} TraceKctCallbacks;

/* Replays rank @rank of the source into the callbacks (location id = rank, event positions
 * counted from 0, ProgramBegin's name string 0 as the definitions-only archive has it). */
gboolean trace_kct_read (guint32 rank, const TraceKctCallbacks *cb, void *user_data,
                         guint64 *n_events, GError **error);
