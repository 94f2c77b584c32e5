/* trace-write.c — writes the simulated trace as an ordinary OTF2 archive: the original's global
 * definitions unchanged (same regions, communicators, system tree, topologies, ids), a new clock
 * (nanoseconds, CLOCK_MONOTONIC of the re-enactment or the offline model's time line), and each
 * location's events with their new times. Under MPI every process writes its own location
 * (OTF2's MPI collective callbacks) and rank 0 the definitions; in one process all of them. */
#include "sim-private.h"

#include <glib/gi18n.h>
#include <mpi.h>
#include <otf2/otf2.h>
#include <otf2/OTF2_MPI_Collectives.h>
#include <string.h>

OTF2_GlobalDefWriter *trace_defs_copy_writer (void *ud);
OTF2_CallbackCode     trace_defs_copy_wrote (void *ud, OTF2_ErrorCode rc);
void                  trace_defs_copy_register (OTF2_GlobalDefReaderCallbacks *cbs);

/* starts like trace-write-defs.c's TraceDefCopyHead */
typedef struct
{
  OTF2_GlobalDefWriter *w;
  OTF2_ErrorCode        rc;
  guint64               offset;
  guint64               length;
  GHashTable           *n_events;    /* location id -> event count + 1 */
  guint64               unknown;
} DefCopy;

static OTF2_CallbackCode
copy_clock (void    *ud,
            uint64_t resolution G_GNUC_UNUSED,
            uint64_t offset G_GNUC_UNUSED,
            uint64_t length G_GNUC_UNUSED,
            uint64_t realtime G_GNUC_UNUSED)
{
  DefCopy *dc = ud;
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteClockProperties (dc->w, 1000000000u, dc->offset,
                                                                               dc->length,
                                                                               OTF2_UNDEFINED_TIMESTAMP));
}

static OTF2_CallbackCode
copy_location (void               *ud,
               OTF2_LocationRef    self,
               OTF2_StringRef      name,
               OTF2_LocationType   type,
               uint64_t            n_events G_GNUC_UNUSED,
               OTF2_LocationGroupRef group)
{
  DefCopy *dc = ud;
  gpointer v = g_hash_table_lookup (dc->n_events, &self);
  guint64 n = v ? *(guint64 *) v : 0;
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteLocation (dc->w, self, name, type, n, group));
}

static OTF2_CallbackCode
copy_unknown (void *ud)
{
  ((DefCopy *) ud)->unknown++;
  return OTF2_CALLBACK_SUCCESS;
}

static gboolean
copy_global_defs (const char           *orig_anchor,
                  OTF2_GlobalDefWriter *w,
                  DefCopy              *dc,
                  GError              **error)
{
  OTF2_Reader *reader = OTF2_Reader_Open (orig_anchor);
  OTF2_GlobalDefReader *gr;
  OTF2_GlobalDefReaderCallbacks *cbs;
  uint64_t n = 0;
  OTF2_ErrorCode rc;

  if (!reader)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: not a readable OTF2 archive"), orig_anchor);
      return FALSE;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  gr = OTF2_Reader_GetGlobalDefReader (reader);
  if (!gr)
    {
      OTF2_Reader_Close (reader);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: cannot read the global definitions"), orig_anchor);
      return FALSE;
    }
  dc->w = w;
  cbs = OTF2_GlobalDefReaderCallbacks_New ();
  trace_defs_copy_register (cbs);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (cbs, copy_clock);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (cbs, copy_location);
  OTF2_GlobalDefReaderCallbacks_SetUnknownCallback (cbs, copy_unknown);
  OTF2_Reader_RegisterGlobalDefCallbacks (reader, gr, cbs, dc);
  OTF2_GlobalDefReaderCallbacks_Delete (cbs);
  rc = OTF2_Reader_ReadAllGlobalDefinitions (reader, gr, &n);
  OTF2_Reader_CloseGlobalDefReader (reader, gr);
  OTF2_Reader_Close (reader);
  if (rc != OTF2_SUCCESS || dc->rc != OTF2_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("cannot copy the definitions of %s: %s"),
                   orig_anchor, OTF2_Error_GetDescription (dc->rc != OTF2_SUCCESS ? dc->rc : rc));
      return FALSE;
    }
  return TRUE;
}

static OTF2_FlushType
pre_flush (void *ud G_GNUC_UNUSED, OTF2_FileType ft G_GNUC_UNUSED, OTF2_LocationRef loc G_GNUC_UNUSED,
           void *cd G_GNUC_UNUSED, bool final G_GNUC_UNUSED)
{
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *ud G_GNUC_UNUSED, OTF2_FileType ft G_GNUC_UNUSED, OTF2_LocationRef loc G_GNUC_UNUSED)
{
  return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

static OTF2_ErrorCode
write_events (OTF2_EvtWriter *w,
              SimRank        *sr)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  OTF2_TimeStamp prev = 0;
  OTF2_ErrorCode rc = OTF2_SUCCESS;

  for (guint k = 0; k < sr->ev->len && rc == OTF2_SUCCESS; k++)
    {
      SimEvent *e = &ev[k];
      OTF2_TimeStamp t;
      if (e->flags & EVF_REMOVED)
        continue;
      t = (OTF2_TimeStamp) MAX (sr->new_time[k], 0);
      t = MAX (t, prev);   /* per location, time never goes back */
      prev = t;
      switch (e->type)
        {
        case EV_PROGRAM_BEGIN:
          rc = OTF2_EvtWriter_ProgramBegin (w, NULL, t, sr->prog_name, sr->n_args, sr->args);
          break;
        case EV_PROGRAM_END:
          rc = OTF2_EvtWriter_ProgramEnd (w, NULL, t, (int64_t) e->len);
          break;
        case EV_ENTER:
          rc = OTF2_EvtWriter_Enter (w, NULL, t, e->region);
          break;
        case EV_LEAVE:
          rc = OTF2_EvtWriter_Leave (w, NULL, t, e->region);
          break;
        case EV_SEND:
          rc = OTF2_EvtWriter_MpiSend (w, NULL, t, e->peer, e->region, e->tag, e->len);
          break;
        case EV_ISEND:
          rc = OTF2_EvtWriter_MpiIsend (w, NULL, t, e->peer, e->region, e->tag, e->len, e->req);
          break;
        case EV_ISEND_COMPLETE:
          rc = OTF2_EvtWriter_MpiIsendComplete (w, NULL, t, e->req);
          break;
        case EV_IRECV_REQUEST:
          rc = OTF2_EvtWriter_MpiIrecvRequest (w, NULL, t, e->req);
          break;
        case EV_RECV:
          rc = OTF2_EvtWriter_MpiRecv (w, NULL, t, e->peer, e->region, e->tag, e->len);
          break;
        case EV_IRECV:
          rc = OTF2_EvtWriter_MpiIrecv (w, NULL, t, e->peer, e->region, e->tag, e->len, e->req);
          break;
        case EV_REQUEST_TEST:
          rc = OTF2_EvtWriter_MpiRequestTest (w, NULL, t, e->req);
          break;
        case EV_REQUEST_CANCELLED:
          rc = OTF2_EvtWriter_MpiRequestCancelled (w, NULL, t, e->req);
          break;
        case EV_COLL_BEGIN:
          rc = OTF2_EvtWriter_MpiCollectiveBegin (w, NULL, t);
          break;
        case EV_COLL_END:
          rc = OTF2_EvtWriter_MpiCollectiveEnd (w, NULL, t, (OTF2_CollectiveOp) e->tag, e->region, e->peer,
                                                e->len, e->req);
          break;
        case EV_NBC_REQUEST:
          rc = OTF2_EvtWriter_NonBlockingCollectiveRequest (w, NULL, t, e->req);
          break;
        case EV_NBC_COMPLETE:
          /* the request id is the request event's (0 when the trace had none) */
          rc = OTF2_EvtWriter_NonBlockingCollectiveComplete (
              w, NULL, t, (OTF2_CollectiveOp) e->tag, e->region, e->peer, e->len, e->req,
              e->link < sr->ev->len ? ev[e->link].req : 0);
          break;
        default:
          break;
        }
    }
  return rc;
}

typedef struct
{
  gint32  rank;
  guint32 spare;
  guint64 n_events;
  gint64  first;
  gint64  last;
} RankSpan;

gboolean
trace_write_sim (const char *orig_anchor,
                 const char *anchor,
                 Transport  *t,
                 SimRank   **srs,
                 gboolean    mpi,
                 GError    **error)
{
  g_autofree char *dir = g_path_get_dirname (anchor);
  g_autofree char *base = g_path_get_basename (anchor);
  g_autofree GByteArray **blobs = g_new0 (GByteArray *, t->n_local);
  GPtrArray *all = NULL;
  OTF2_Archive *ar;
  gboolean ok = TRUE;
  gboolean master = transport_is_root (t);
  OTF2_ErrorCode rc = OTF2_SUCCESS;

  if (g_str_has_suffix (base, ".otf2"))
    base[strlen (base) - 5] = '\0';
  for (int i = 0; i < t->n_local; i++)
    {
      RankSpan s = { srs[i]->rank, 0, 0, G_MAXINT64, G_MININT64 };
      SimEvent *ev = (SimEvent *) srs[i]->ev->data;
      for (guint k = 0; k < srs[i]->ev->len; k++)
        if (!(ev[k].flags & EVF_REMOVED))
          {
            s.n_events++;
            s.first = MIN (s.first, srs[i]->new_time[k]);
            s.last = MAX (s.last, srs[i]->new_time[k]);
          }
      blobs[i] = g_byte_array_new ();
      g_byte_array_append (blobs[i], (guint8 *) &s, sizeof s);
    }
  t->gather (t, blobs, &all);
  for (int i = 0; i < t->n_local; i++)
    g_byte_array_unref (blobs[i]);

  ar = OTF2_Archive_Open (dir, base, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                          OTF2_COMPRESSION_NONE);
  if (!ar)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("cannot create the OTF2 archive %s"), anchor);
      if (all)
        g_ptr_array_unref (all);
      return FALSE;
    }
  OTF2_Archive_SetFlushCallbacks (ar, &flush_callbacks, NULL);
  if (mpi)
    OTF2_MPI_Archive_SetCollectiveCallbacks (ar, MPI_COMM_WORLD, MPI_COMM_NULL);
  else
    OTF2_Archive_SetSerialCollectiveCallbacks (ar);
  OTF2_Archive_SetCreator (ar, "Kubus " KUBUS_VERSION " (kubus-sim)");
  OTF2_Archive_SetDescription (ar, "simulated trace");

  OTF2_Archive_OpenEvtFiles (ar);
  for (int i = 0; i < t->n_local; i++)
    {
      TraceLocation *loc = srs[i]->defs->rank_loc[srs[i]->rank];
      OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter (ar, loc->id);
      OTF2_ErrorCode r2;
      if (!w)
        {
          rc = OTF2_ERROR_INVALID_ARGUMENT;
          continue;
        }
      r2 = write_events (w, srs[i]);
      if (r2 != OTF2_SUCCESS && rc == OTF2_SUCCESS)
        rc = r2;
      OTF2_Archive_CloseEvtWriter (ar, w);
    }
  OTF2_Archive_CloseEvtFiles (ar);
  OTF2_Archive_OpenDefFiles (ar);
  for (int i = 0; i < t->n_local; i++)
    {
      TraceLocation *loc = srs[i]->defs->rank_loc[srs[i]->rank];
      OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (ar, loc->id);
      if (dw)
        OTF2_Archive_CloseDefWriter (ar, dw);
    }
  OTF2_Archive_CloseDefFiles (ar);
  if (rc != OTF2_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("cannot write the events of %s: %s"), anchor,
                   OTF2_Error_GetDescription (rc));
      ok = FALSE;
    }

  if (master && all)
    {
      DefCopy dc = { 0 };
      gint64 lo = G_MAXINT64, hi = G_MININT64;
      OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter (ar);
      g_autofree guint64 *counts = g_new0 (guint64, MAX (all->len, 1));
      g_autofree guint64 *ids = g_new0 (guint64, MAX (all->len, 1));

      dc.n_events = g_hash_table_new (g_int64_hash, g_int64_equal);
      for (guint r = 0; r < all->len; r++)
        {
          GByteArray *b = all->pdata[r];
          RankSpan *s = (RankSpan *) b->data;
          TraceLocation *loc;
          if (b->len < sizeof *s || s->rank < 0 || s->rank >= srs[0]->defs->n_ranks)
            continue;
          loc = srs[0]->defs->rank_loc[s->rank];
          ids[r] = loc->id;
          counts[r] = s->n_events;
          g_hash_table_insert (dc.n_events, &ids[r], &counts[r]);
          if (s->n_events)
            {
              lo = MIN (lo, s->first);
              hi = MAX (hi, s->last);
            }
        }
      dc.offset = lo == G_MAXINT64 ? 0 : (guint64) MAX (lo, 0);
      dc.length = hi >= lo && lo != G_MAXINT64 ? (guint64) (hi - lo) : 0;
      if (!gw)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("cannot write the definitions of %s"), anchor);
          ok = FALSE;
        }
      else
        {
          if (ok && !copy_global_defs (orig_anchor, gw, &dc, error))
            ok = FALSE;
          OTF2_Archive_CloseGlobalDefWriter (ar, gw);
        }
      g_hash_table_unref (dc.n_events);
    }
  if (OTF2_Archive_Close (ar) != OTF2_SUCCESS && ok)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("cannot finish the OTF2 archive %s"), anchor);
      ok = FALSE;
    }
  if (all)
    g_ptr_array_unref (all);
  return ok;
}

/* The helpers of OTF2_MPI_Collectives.h that are not called stay quiet. */
void trace_write_unused_otf2_mpi (void);
void
trace_write_unused_otf2_mpi (void)
{
  (void) OTF2_MPI_Reader_SetCollectiveCallbacks;
}
