/* trace-kct.c: a compressed trace as the event source of the OTF2 readers (trace-kct.h). */
#include "trace-kct.h"

#include <glib/gi18n.h>

static const KctTrace *source;
static const KctComms *source_comms;

void
trace_kct_source_set (const KctTrace *t, const KctComms *comms)
{
  source = t;
  source_comms = comms;
}

void
trace_kct_source_get (const KctTrace **t, const KctComms **comms)
{
  *t = source;
  *comms = source_comms;
}

gboolean
trace_kct_active (void)
{
  return source != NULL && source_comms != NULL;
}

gboolean
trace_kct_read (guint32 rank, const TraceKctCallbacks *cb, void *ud, guint64 *n_events,
                GError **error)
{
  KctReplay *it = kct_replay_new (source, source_comms, rank);
  KctEvent   e;
  guint64    pos = 0;
  int        r;
  OTF2_CallbackCode cc = OTF2_CALLBACK_SUCCESS;
  OTF2_Type         types[3] = { OTF2_TYPE_UINT64, OTF2_TYPE_UINT64, OTF2_TYPE_UINT64 };
  OTF2_MetricValue  values[3];
  /* the metric kct_expand_definitions defines: as collect-cputime.c's */
  uint8_t           n_values = !(source->cpu_flags & KCT_CPU_WAIT)   ? 1
                               : !(source->cpu_flags & KCT_CPU_WHERE) ? 2
                                                                      : 3;
  if (cb->metric)
    kct_replay_cpu (it);
  while (cc == OTF2_CALLBACK_SUCCESS && (r = kct_replay_next (it, &e)) == 1)
    {
      OTF2_LocationRef l = rank;
      switch (e.type)
        {
#define CALL(f, ...) if (cb->f) cc = cb->f (l, e.time, pos, ud, NULL, ##__VA_ARGS__)
        case KCT_RAW_PROGRAM_BEGIN:
          CALL (program_begin, 0, 0, NULL);
          break;
        case KCT_RAW_PROGRAM_END:
          CALL (program_end, e.status);
          break;
        case KCT_RAW_ENTER:
          CALL (enter, e.region);
          break;
        case KCT_RAW_LEAVE:
          CALL (leave, e.region);
          break;
        case KCT_RAW_SEND:
          CALL (send, e.peer, e.comm, e.tag, e.bytes);
          break;
        case KCT_RAW_ISEND:
          CALL (isend, e.peer, e.comm, e.tag, e.bytes, e.request);
          break;
        case KCT_RAW_ISEND_COMPLETE:
          CALL (isend_complete, e.request);
          break;
        case KCT_RAW_IRECV_REQUEST:
          CALL (irecv_request, e.request);
          break;
        case KCT_RAW_RECV:
          CALL (recv, e.peer, e.comm, e.tag, e.bytes);
          break;
        case KCT_RAW_IRECV:
          CALL (irecv, e.peer, e.comm, e.tag, e.bytes, e.request);
          break;
        case KCT_RAW_REQUEST_CANCELLED:
          CALL (request_cancelled, e.request);
          break;
        case KCT_RAW_COLL_BEGIN:
          CALL (coll_begin);
          break;
        case KCT_RAW_COLL_END:
          CALL (coll_end, (OTF2_CollectiveOp)e.op, e.comm,
                e.peer == UINT32_MAX ? OTF2_UNDEFINED_UINT32 : e.peer, e.bytes, e.received);
          break;
        case KCT_RAW_NBC_REQUEST:
          CALL (nbc_request, e.request);
          break;
        case KCT_RAW_NBC_COMPLETE:
          CALL (nbc_complete, (OTF2_CollectiveOp)e.op, e.comm,
                e.peer == UINT32_MAX ? OTF2_UNDEFINED_UINT32 : e.peer, e.bytes, e.received,
                e.request);
          break;
        case KCT_EV_CPU:
          values[0].unsigned_int = e.cpu;
          values[1].unsigned_int = e.wait;
          values[2].unsigned_int = e.where;
          CALL (metric, 0, n_values, types, values);
          break;
        default:
          break;
#undef CALL
        }
      pos++;
    }
  gboolean ok = TRUE;
  if (r < 0)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_CORRUPT, _ ("the compressed trace is inconsistent: %s"),
                   kct_replay_error (it));
      ok = FALSE;
    }
  else if (cc != OTF2_CALLBACK_SUCCESS)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_CORRUPT,
                   _ ("rank %u of the compressed trace: the reader stopped after %llu events"), rank,
                   (unsigned long long)pos);
      ok = FALSE;
    }
  *n_events = kct_replay_count (it);
  kct_replay_free (it);
  return ok;
}
