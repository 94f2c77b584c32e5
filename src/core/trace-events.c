/* trace-events.c — reads ONE location's complete event stream for the simulator: every event
 * the replay re-enacts or writes back, in trace order, with times in nanoseconds from the
 * trace's global offset. (The analyzer's trace-reader.c folds events into compact records
 * instead; the simulator needs them all to rewrite the trace.) */
#include "sim-private.h"
#include "trace-kct.h"
#include "replay-clock.h"

#include <glib/gi18n.h>
#include <otf2/otf2.h>
#include <string.h>

OTF2_CallbackCode trace_events_other (void *ud, const char *kind, gboolean dropped);
void              trace_events_register_other (OTF2_EvtReaderCallbacks *cbs);

typedef struct
{
  SimRank  *sr;
  guint64   offset;       /* global offset, ticks */
  guint64   resolution;   /* ticks per second */
  guint64   n_events;
  gboolean  unknown;
  const ClockMap *map;      /* sr->clock_map: repaired times (replay-clock.h) */
  ClockCursor     cursor;
  GHashTable     *nbc_open;   /* request id (guint64*, the event's req) -> EV_NBC_REQUEST index + 1 */
} EvState;

static const char *type_names[EV_N_TYPES] = {
  "ProgramBegin", "ProgramEnd", "Enter", "Leave", "MpiSend", "MpiIsend", "MpiIsendComplete",
  "MpiIrecvRequest", "MpiRecv", "MpiIrecv", "MpiRequestTest", "MpiRequestCancelled",
  "MpiCollectiveBegin", "MpiCollectiveEnd", "NonBlockingCollectiveRequest",
  "NonBlockingCollectiveComplete",
};

const char *
sim_event_type_name (SimEvType type)
{
  return type < EV_N_TYPES ? type_names[type] : "?";
}

gboolean
sim_region_is_mpi (const TraceDefs *defs,
                   guint32          region)
{
  TraceRegion *r = trace_defs_region (defs, region);
  return r && r->klass != RC_USER;
}

gboolean
sim_is_poll_region (const TraceDefs *defs,
                    guint32          region)
{
  TraceRegion *r = trace_defs_region (defs, region);
  if (!r || r->klass == RC_USER || !r->name)
    return FALSE;
  return (r->flags & RF_TEST) || strcmp (r->name, "MPI_Iprobe") == 0 || strcmp (r->name, "MPI_Improbe") == 0
         || strcmp (r->name, "MPI_Request_get_status") == 0;
}

SimRank *
sim_rank_new (int        rank,
              TraceDefs *defs)
{
  SimRank *sr = g_new0 (SimRank, 1);
  sr->rank = rank;
  sr->defs = defs;
  sr->ev = g_array_new (FALSE, FALSE, sizeof (SimEvent));
  sr->prog_name = OTF2_UNDEFINED_STRING;
  sr->dropped = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sr->refused = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sr->init_tail = -1;
  sr->fin_tail = -1;
  return sr;
}

void
sim_rank_free (SimRank *sr)
{
  if (!sr)
    return;
  g_array_unref (sr->ev);
  g_free (sr->args);
  g_hash_table_unref (sr->dropped);
  g_hash_table_unref (sr->refused);
  if (sr->cpu)
    g_array_unref (sr->cpu);
  g_free (sr->new_time);
  if (sr->copy_cost)
    g_hash_table_unref (sr->copy_cost);
  if (sr->coll_short)
    g_hash_table_unref (sr->coll_short);
  g_free (sr);
}

/* Ticks to nanoseconds from the global offset without overflow (a 2.1 GHz timer's raw values
 * times 1e9 do not fit in 64 bits). */
static Tick
to_ns (EvState       *st,
       OTF2_TimeStamp t,
       uint64_t       pos)
{
  guint64 d;
  if (st->map)
    t = (OTF2_TimeStamp) clock_map_apply (st->map, &st->cursor, (Tick) t, pos);
  d = t >= st->offset ? t - st->offset : 0;
  if (st->resolution == 1000000000u)
    return (Tick) d;
  return (Tick) ((d / st->resolution) * G_GUINT64_CONSTANT (1000000000)
                 + (d % st->resolution) * G_GUINT64_CONSTANT (1000000000) / st->resolution);
}

static SimEvent *
push (EvState       *st,
      SimEvType      type,
      OTF2_TimeStamp time,
      uint64_t       pos)
{
  SimEvent e = { 0 };
  e.time = to_ns (st, time, pos);
  e.type = type;
  e.link = NO_INDEX;
  e.peer_world = -1;
  st->n_events++;
  g_array_append_val (st->sr->ev, e);
  return &g_array_index (st->sr->ev, SimEvent, st->sr->ev->len - 1);
}

OTF2_CallbackCode
trace_events_other (void       *ud,
                    const char *kind,
                    gboolean    dropped)
{
  EvState *st = ud;
  GHashTable *h = dropped ? st->sr->dropped : st->sr->refused;
  gpointer old = g_hash_table_lookup (h, kind);
  st->n_events++;
  g_hash_table_replace (h, g_strdup (kind), GSIZE_TO_POINTER (GPOINTER_TO_SIZE (old) + 1));
  return OTF2_CALLBACK_SUCCESS;
}

/* The collector's CPU samples (collect-cputime.c) at the MPI event that follows; any other
 * metric is measurement only. */
static OTF2_CallbackCode
on_metric (OTF2_LocationRef         l G_GNUC_UNUSED,
           OTF2_TimeStamp           t G_GNUC_UNUSED,
           uint64_t                 p G_GNUC_UNUSED,
           void                    *ud,
           OTF2_AttributeList      *al G_GNUC_UNUSED,
           OTF2_MetricRef           metric,
           uint8_t                  n,
           const OTF2_Type         *types,
           const OTF2_MetricValue  *values)
{
  EvState *st = ud;
  const TraceDefs *defs = st->sr->defs;
  SimCpuSample s;
  if (metric != defs->cpu_metric || n < 1 || types[0] != OTF2_TYPE_UINT64)
    return trace_events_other (ud, "Metric", TRUE);
  st->n_events++;
  s.ev = st->sr->ev->len;
  s.cpu = (Tick) MIN (values[0].unsigned_int, (guint64) G_MAXINT64);
  s.wait = defs->cpu_metric_wait && n >= 2 && types[1] == OTF2_TYPE_UINT64 && values[1].unsigned_int != G_MAXUINT64
           ? (Tick) MIN (values[1].unsigned_int, (guint64) G_MAXINT64) : -1;
  s.where = -1;
  s.bound = FALSE;
  if (defs->cpu_metric_where && n >= 3 && types[2] == OTF2_TYPE_UINT64
      && values[2].unsigned_int < 2 * (guint64) KUBUS_CPU_ID_BOUND)
    {
      s.where = (gint32) (values[2].unsigned_int % KUBUS_CPU_ID_BOUND);
      s.bound = values[2].unsigned_int >= KUBUS_CPU_ID_BOUND;
    }
  if (!st->sr->cpu)
    st->sr->cpu = g_array_new (FALSE, FALSE, sizeof (SimCpuSample));
  g_array_append_val (st->sr->cpu, s);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_unknown (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp t G_GNUC_UNUSED, uint64_t p G_GNUC_UNUSED,
            void *ud, OTF2_AttributeList *al G_GNUC_UNUSED)
{
  return trace_events_other (ud, "unknown", FALSE);
}

static OTF2_CallbackCode
on_program_begin (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
                  void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, OTF2_StringRef name,
                  uint32_t n_args, const OTF2_StringRef *args)
{
  EvState *st = ud;
  push (st, EV_PROGRAM_BEGIN, time, p);
  st->sr->prog_name = name;
  g_free (st->sr->args);
  st->sr->n_args = n_args;
  st->sr->args = n_args ? g_memdup2 (args, sizeof (guint32) * n_args) : NULL;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_program_end (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
                void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, int64_t status)
{
  push (ud, EV_PROGRAM_END, time, p)->len = (guint64) status;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_enter (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
          void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, OTF2_RegionRef region)
{
  push (ud, EV_ENTER, time, p)->region = region;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_leave (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
          void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, OTF2_RegionRef region)
{
  push (ud, EV_LEAVE, time, p)->region = region;
  return OTF2_CALLBACK_SUCCESS;
}

static SimEvent *
push_msg (EvState       *st,
          SimEvType      type,
          OTF2_TimeStamp time,
          uint64_t       pos,
          uint32_t       peer,
          OTF2_CommRef   comm,
          uint32_t       tag,
          uint64_t       len,
          uint64_t       req)
{
  SimEvent *e = push (st, type, time, pos);
  TraceComm *c = trace_defs_comm (st->sr->defs, comm);
  e->region = comm;
  e->peer = peer;
  e->tag = tag;
  e->len = len;
  e->req = req;
  e->peer_world = trace_defs_peer_rank (st->sr->defs, c, st->sr->rank, peer);
  return e;
}

static OTF2_CallbackCode
on_send (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p, void *ud,
         OTF2_AttributeList *al G_GNUC_UNUSED, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
         uint64_t len)
{
  push_msg (ud, EV_SEND, time, p, receiver, comm, tag, len, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_isend (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p, void *ud,
          OTF2_AttributeList *al G_GNUC_UNUSED, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
          uint64_t len, uint64_t req)
{
  push_msg (ud, EV_ISEND, time, p, receiver, comm, tag, len, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_recv (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p, void *ud,
         OTF2_AttributeList *al G_GNUC_UNUSED, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
         uint64_t len)
{
  push_msg (ud, EV_RECV, time, p, sender, comm, tag, len, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_irecv (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p, void *ud,
          OTF2_AttributeList *al G_GNUC_UNUSED, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
          uint64_t len, uint64_t req)
{
  push_msg (ud, EV_IRECV, time, p, sender, comm, tag, len, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_request (EvState       *st,
            SimEvType      type,
            OTF2_TimeStamp time,
            uint64_t       pos,
            uint64_t       req)
{
  push (st, type, time, pos)->req = req;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_isend_complete (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
                   void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t req)
{
  return on_request (ud, EV_ISEND_COMPLETE, time, p, req);
}

static OTF2_CallbackCode
on_irecv_request (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
                  void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t req)
{
  return on_request (ud, EV_IRECV_REQUEST, time, p, req);
}

static OTF2_CallbackCode
on_request_test (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
                 void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t req)
{
  return on_request (ud, EV_REQUEST_TEST, time, p, req);
}

static void nbc_cancelled (EvState *st, guint64 request);

static OTF2_CallbackCode
on_request_cancelled (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
                      void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t req)
{
  nbc_cancelled (ud, req);
  return on_request (ud, EV_REQUEST_CANCELLED, time, p, req);
}

static OTF2_CallbackCode
on_coll_begin (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
               void *ud, OTF2_AttributeList *al G_GNUC_UNUSED)
{
  push (ud, EV_COLL_BEGIN, time, p);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_coll_end (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p,
             void *ud, OTF2_AttributeList *al G_GNUC_UNUSED, OTF2_CollectiveOp op,
             OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received)
{
  SimEvent *e = push (ud, EV_COLL_END, time, p);
  e->region = comm;
  e->peer = root;
  e->tag = op;
  e->len = sent;
  e->req = received;
  return OTF2_CALLBACK_SUCCESS;
}

static gboolean
read_local_defs (OTF2_Reader *reader,
                 guint64      loc,
                 const char  *def_path,
                 GError     **error)
{
  OTF2_DefReader *dr;
  uint64_t n = 0;
  OTF2_ErrorCode rc;

  if (OTF2_Reader_OpenDefFiles (reader) != OTF2_SUCCESS)
    return TRUE;
  if (g_file_test (def_path, G_FILE_TEST_IS_REGULAR))
    {
      dr = OTF2_Reader_GetDefReader (reader, loc);
      if (!dr)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: corrupt local definitions (%s)"),
                       def_path, OTF2_Error_GetDescription (OTF2_ERROR_INVALID_DATA));
          OTF2_Reader_CloseDefFiles (reader);
          return FALSE;
        }
      rc = OTF2_Reader_ReadAllLocalDefinitions (reader, dr, &n);
      OTF2_Reader_CloseDefReader (reader, dr);
      if (rc != OTF2_SUCCESS)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: corrupt local definitions (%s)"),
                       def_path, OTF2_Error_GetDescription (rc));
          OTF2_Reader_CloseDefFiles (reader);
          return FALSE;
        }
    }
  OTF2_Reader_CloseDefFiles (reader);
  return TRUE;
}

static OTF2_CallbackCode on_nbc_request (OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void *,
                                          OTF2_AttributeList *, uint64_t);
static OTF2_CallbackCode on_nbc_complete (OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void *,
                                           OTF2_AttributeList *, OTF2_CollectiveOp, OTF2_CommRef,
                                           uint32_t, uint64_t, uint64_t, uint64_t);

/* The same events from a compressed trace set as the event source (trace-kct.h). */
static gboolean
events_read_kct (SimRank *sr, GError **error)
{
  EvState st = { 0 };
  guint64 done = 0;
  st.sr = sr;
  st.map = sr->clock_map;
  st.offset = sr->defs->global_offset;
  st.resolution = sr->defs->resolution ? sr->defs->resolution : 1000000000u;
  TraceKctCallbacks cb = { 0 };
  cb.program_begin = on_program_begin;
  cb.program_end = on_program_end;
  cb.enter = on_enter;
  cb.leave = on_leave;
  cb.send = on_send;
  cb.isend = on_isend;
  cb.isend_complete = on_isend_complete;
  cb.irecv_request = on_irecv_request;
  cb.recv = on_recv;
  cb.irecv = on_irecv;
  cb.request_cancelled = on_request_cancelled;
  cb.coll_begin = on_coll_begin;
  cb.coll_end = on_coll_end;
  cb.nbc_request = on_nbc_request;
  cb.nbc_complete = on_nbc_complete;
  cb.metric = on_metric; /* the CPU samples (format version 4) */
  gboolean ok = trace_kct_read ((guint32) sr->rank, &cb, &st, &done, error);
  if (st.nbc_open)
    g_hash_table_unref (st.nbc_open);
  if (ok && sr->ev->len >= G_MAXUINT32 / 2)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("rank %d has %u events, more than the simulator handles per rank"),
                   sr->rank, sr->ev->len);
      ok = FALSE;
    }
  return ok;
}

/* Non-blocking collectives: the request and its completion are linked here, where the request
 * id is known (the completion's fields hold the collective as EV_COLL_END's do). */
static OTF2_CallbackCode
on_nbc_request (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p, void *ud,
                OTF2_AttributeList *al G_GNUC_UNUSED, uint64_t request)
{
  EvState *st = ud;
  SimEvent *e = push (st, EV_NBC_REQUEST, time, p);
  e->req = request;
  if (!st->nbc_open)
    st->nbc_open = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_hash_table_replace (st->nbc_open, g_memdup2 (&request, sizeof request),
                        GUINT_TO_POINTER (st->sr->ev->len));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_nbc_complete (OTF2_LocationRef l G_GNUC_UNUSED, OTF2_TimeStamp time, uint64_t p, void *ud,
                 OTF2_AttributeList *al G_GNUC_UNUSED, OTF2_CollectiveOp op, OTF2_CommRef comm,
                 uint32_t root, uint64_t sent, uint64_t received, uint64_t request)
{
  EvState *st = ud;
  SimEvent *e = push (st, EV_NBC_COMPLETE, time, p);
  gpointer v;
  e->region = comm;
  e->peer = root;
  e->tag = op;
  e->len = sent;
  e->req = received;
  if (st->nbc_open && (v = g_hash_table_lookup (st->nbc_open, &request)))
    {
      guint32 post = GPOINTER_TO_UINT (v) - 1;
      g_hash_table_remove (st->nbc_open, &request);
      e->link = post;
      g_array_index (st->sr->ev, SimEvent, post).link = st->sr->ev->len - 1;
    }
  return OTF2_CALLBACK_SUCCESS;
}

/* A freed or cancelled non-blocking collective (the collector ends it so): never completed. */
static void
nbc_cancelled (EvState *st,
               guint64  request)
{
  if (st->nbc_open)
    g_hash_table_remove (st->nbc_open, &request);
}

gboolean
trace_events_read (const char   *anchor,
                   SimRank      *sr,
                   ProgressFunc  progress,
                   gpointer      progress_data,
                   GError      **error)
{
  if (trace_kct_active ())
    return events_read_kct (sr, error);
  TraceLocation *loc = sr->defs->rank_loc[sr->rank];
  g_autofree char *evt_path = trace_event_file_path (anchor, loc->id, "evt");
  g_autofree char *def_path = trace_event_file_path (anchor, loc->id, "def");
  OTF2_Reader *reader;
  OTF2_EvtReader *evr;
  OTF2_EvtReaderCallbacks *cbs;
  EvState st = { 0 };
  OTF2_ErrorCode rc;
  guint64 chunk, done = 0, got;
  gboolean ok = TRUE;

  if (!g_file_test (evt_path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, _("%s: event file of rank %d is missing"),
                   evt_path, sr->rank);
      return FALSE;
    }
  reader = OTF2_Reader_Open (anchor);
  if (!reader)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: not a readable OTF2 archive"), anchor);
      return FALSE;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  OTF2_Reader_SelectLocation (reader, loc->id);
  /* local definitions first: mapping tables and clock offsets the event reader applies */
  if (!read_local_defs (reader, loc->id, def_path, error))
    {
      OTF2_Reader_Close (reader);
      return FALSE;
    }
  if (OTF2_Reader_OpenEvtFiles (reader) != OTF2_SUCCESS
      || !(evr = OTF2_Reader_GetEvtReader (reader, loc->id)))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: cannot open the event file"), evt_path);
      OTF2_Reader_Close (reader);
      return FALSE;
    }
  st.sr = sr;
  st.map = sr->clock_map;
  st.offset = sr->defs->global_offset;
  st.resolution = sr->defs->resolution ? sr->defs->resolution : 1000000000u;
  if (loc->n_events > 0 && sr->ev->len == 0)
    {
      g_array_set_size (sr->ev, MIN (loc->n_events, G_MAXUINT32 / 2));
      g_array_set_size (sr->ev, 0);
    }

  cbs = OTF2_EvtReaderCallbacks_New ();
  OTF2_EvtReaderCallbacks_SetUnknownCallback (cbs, on_unknown);
  OTF2_EvtReaderCallbacks_SetProgramBeginCallback (cbs, on_program_begin);
  OTF2_EvtReaderCallbacks_SetProgramEndCallback (cbs, on_program_end);
  OTF2_EvtReaderCallbacks_SetEnterCallback (cbs, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback (cbs, on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback (cbs, on_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback (cbs, on_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback (cbs, on_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback (cbs, on_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback (cbs, on_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback (cbs, on_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback (cbs, on_request_test);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback (cbs, on_request_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback (cbs, on_coll_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback (cbs, on_coll_end);
  trace_events_register_other (cbs);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (cbs, on_nbc_request);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (cbs, on_nbc_complete);
  OTF2_EvtReaderCallbacks_SetMetricCallback (cbs, on_metric);
  OTF2_Reader_RegisterEvtCallbacks (reader, evr, cbs, &st);
  OTF2_EvtReaderCallbacks_Delete (cbs);

  chunk = MAX (loc->n_events / 20, 4096);
  do
    {
      got = 0;
      rc = OTF2_Reader_ReadLocalEvents (reader, evr, chunk, &got);
      done += got;
      if (progress && loc->n_events)
        progress (MIN (1.0, (double) done / loc->n_events), progress_data);
    }
  while (rc == OTF2_SUCCESS && got == chunk);
  if (rc != OTF2_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: corrupt event data after %llu events (%s)"),
                   evt_path, (unsigned long long) done, OTF2_Error_GetDescription (rc));
      ok = FALSE;
    }
  else if (sr->ev->len >= G_MAXUINT32 / 2)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s: rank %d has %u events, more than the simulator handles per rank"),
                   evt_path, sr->rank, sr->ev->len);
      ok = FALSE;
    }
  OTF2_Reader_CloseEvtReader (reader, evr);
  OTF2_Reader_CloseEvtFiles (reader);
  OTF2_Reader_Close (reader);
  if (st.nbc_open)
    g_hash_table_unref (st.nbc_open);
  return ok;
}
