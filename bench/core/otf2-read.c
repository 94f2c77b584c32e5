/* otf2-read — the baseline of the analyzer benchmark: open an OTF2 archive and read every
 * event of every location with no-op callbacks (local definitions first, as the analyzer does).
 * Prints the number of events and the time taken. usage: otf2-read TRACE.otf2 */
#include <glib.h>
#include <otf2/otf2.h>
#include <stdio.h>

static OTF2_CallbackCode
noop_enter (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a, OTF2_RegionRef r)
{
  (void) l; (void) t; (void) p; (void) a; (void) r;
  (*(guint64 *) u)++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
noop_p2p (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a, uint32_t peer,
          OTF2_CommRef c, uint32_t tag, uint64_t len)
{
  (void) l; (void) t; (void) p; (void) a; (void) peer; (void) c; (void) tag; (void) len;
  (*(guint64 *) u)++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
noop_ip2p (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a, uint32_t peer,
           OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
{
  (void) req;
  return noop_p2p (l, t, p, u, a, peer, c, tag, len);
}

static OTF2_CallbackCode
noop_req (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a, uint64_t req)
{
  (void) l; (void) t; (void) p; (void) a; (void) req;
  (*(guint64 *) u)++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
noop_cbegin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a)
{
  (void) l; (void) t; (void) p; (void) a;
  (*(guint64 *) u)++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
noop_cend (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a,
           OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s, uint64_t r)
{
  (void) l; (void) t; (void) p; (void) a; (void) op; (void) c; (void) root; (void) s; (void) r;
  (*(guint64 *) u)++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_location (void *u, OTF2_LocationRef self, OTF2_StringRef n, OTF2_LocationType t, uint64_t ne,
             OTF2_LocationGroupRef g)
{
  (void) n; (void) t; (void) ne; (void) g;
  g_array_append_val ((GArray *) u, self);
  return OTF2_CALLBACK_SUCCESS;
}

int
main (int argc, char **argv)
{
  OTF2_Reader *reader;
  OTF2_GlobalDefReaderCallbacks *gcb;
  OTF2_EvtReaderCallbacks *cb;
  GArray *locs = g_array_new (FALSE, FALSE, sizeof (OTF2_LocationRef));
  guint64 n = 0, nd = 0;
  gint64 t0 = g_get_monotonic_time ();

  if (argc != 2 || !(reader = OTF2_Reader_Open (argv[1])))
    {
      fprintf (stderr, "usage: otf2-read TRACE.otf2\n");
      return 2;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  gcb = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (gcb, on_location);
  OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader (reader);
  OTF2_Reader_RegisterGlobalDefCallbacks (reader, gdr, gcb, locs);
  OTF2_Reader_ReadAllGlobalDefinitions (reader, gdr, &nd);
  OTF2_GlobalDefReaderCallbacks_Delete (gcb);
  cb = OTF2_EvtReaderCallbacks_New ();
  OTF2_EvtReaderCallbacks_SetEnterCallback (cb, noop_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback (cb, noop_enter);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback (cb, noop_p2p);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback (cb, noop_p2p);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback (cb, noop_ip2p);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback (cb, noop_ip2p);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback (cb, noop_req);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback (cb, noop_req);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback (cb, noop_cbegin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback (cb, noop_cend);
  for (guint i = 0; i < locs->len; i++)
    {
      OTF2_LocationRef loc = g_array_index (locs, OTF2_LocationRef, i);
      OTF2_Reader *r = OTF2_Reader_Open (argv[1]);
      OTF2_Reader_SetSerialCollectiveCallbacks (r);
      OTF2_Reader_SelectLocation (r, loc);
      if (OTF2_Reader_OpenDefFiles (r) == OTF2_SUCCESS)
        {
          OTF2_DefReader *dr = OTF2_Reader_GetDefReader (r, loc);
          if (dr)
            {
              uint64_t k;
              OTF2_Reader_ReadAllLocalDefinitions (r, dr, &k);
              OTF2_Reader_CloseDefReader (r, dr);
            }
          OTF2_Reader_CloseDefFiles (r);
        }
      OTF2_Reader_OpenEvtFiles (r);
      OTF2_EvtReader *er = OTF2_Reader_GetEvtReader (r, loc);
      uint64_t got = 0;
      OTF2_Reader_RegisterEvtCallbacks (r, er, cb, &n);
      OTF2_Reader_ReadAllLocalEvents (r, er, &got);
      OTF2_Reader_CloseEvtReader (r, er);
      OTF2_Reader_CloseEvtFiles (r);
      OTF2_Reader_Close (r);
    }
  OTF2_EvtReaderCallbacks_Delete (cb);
  OTF2_Reader_Close (reader);
  printf ("%" G_GUINT64_FORMAT " events %.3f s\n", n, (g_get_monotonic_time () - t0) / 1e6);
  g_array_unref (locs);
  return 0;
}
