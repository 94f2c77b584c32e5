/* kct-seq: every rank's events of an OTF2 trace as text, one per line, in order, in terms
 * that do not depend on how the archive numbers things: regions by name, communicators by
 * their members (world ranks), requests renumbered per rank by first appearance, no times.
 * Two archives with the same MPI call sequences print the same.  The last line is
 * "length SECONDS" (last minus first timestamp of the whole trace).
 *
 *   kct-seq TRACE.otf2 */
#include <glib.h>
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <string.h>

typedef struct
{
  GHashTable *strings; /* id -> char* */
  GHashTable *regions; /* id -> name string id */
  GHashTable *groups;  /* id -> GArray of uint64 */
  GHashTable *comms;   /* id -> char* (members) */
  GHashTable *rank_of; /* location -> rank + 1 */
  GArray     *locs;    /* locations in COMM_LOCATIONS order */
  guint64     resolution;
  guint64     first, last;
  GPtrArray  *lines;   /* per rank: GString */
  GHashTable *reqs;    /* per event callback: request id -> number, per rank (GHashTable*) */
  GPtrArray  *next_req;
} Seq;

static Seq S;

static const char *
str (guint32 id)
{
  const char *s = g_hash_table_lookup (S.strings, GUINT_TO_POINTER (id));
  return s ? s : "?";
}

static OTF2_CallbackCode
on_string (void *u, OTF2_StringRef id, const char *s)
{
  (void)u;
  g_hash_table_insert (S.strings, GUINT_TO_POINTER (id), g_strdup (s));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_clock (void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
  (void)u;
  (void)off;
  (void)len;
  (void)rt;
  S.resolution = res;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_region (void *u, OTF2_RegionRef id, OTF2_StringRef name, OTF2_StringRef c, OTF2_StringRef d,
           OTF2_RegionRole role, OTF2_Paradigm p, OTF2_RegionFlag f, OTF2_StringRef file,
           uint32_t b, uint32_t e)
{
  (void)u;
  (void)c;
  (void)d;
  (void)role;
  (void)p;
  (void)f;
  (void)file;
  (void)b;
  (void)e;
  g_hash_table_insert (S.regions, GUINT_TO_POINTER (id), GUINT_TO_POINTER (name));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_group (void *u, OTF2_GroupRef id, OTF2_StringRef name, OTF2_GroupType type, OTF2_Paradigm p,
          OTF2_GroupFlag f, uint32_t n, const uint64_t *m)
{
  (void)u;
  (void)name;
  (void)f;
  GArray *a = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_append_vals (a, m, n);
  g_hash_table_insert (S.groups, GUINT_TO_POINTER (id), a);
  if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS && p == OTF2_PARADIGM_MPI)
    {
      g_array_set_size (S.locs, 0);
      g_array_append_vals (S.locs, m, n);
    }
  return OTF2_CALLBACK_SUCCESS;
}

static char *
members (guint32 group)
{
  GArray  *a = g_hash_table_lookup (S.groups, GUINT_TO_POINTER (group));
  GString *s = g_string_new (NULL);
  for (guint i = 0; a && i < a->len; i++)
    g_string_append_printf (s, "%s%" PRIu64, i ? "," : "", g_array_index (a, guint64, i));
  return g_string_free (s, FALSE);
}

static OTF2_CallbackCode
on_comm (void *u, OTF2_CommRef id, OTF2_StringRef name, OTF2_GroupRef g, OTF2_CommRef parent,
         OTF2_CommFlag f)
{
  (void)u;
  (void)name;
  (void)parent;
  (void)f;
  g_hash_table_insert (S.comms, GUINT_TO_POINTER (id), members (g));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_intercomm (void *u, OTF2_CommRef id, OTF2_StringRef name, OTF2_GroupRef a, OTF2_GroupRef b,
              OTF2_CommRef common, OTF2_CommFlag f)
{
  (void)u;
  (void)name;
  (void)common;
  (void)f;
  g_autofree char *ma = members (a), *mb = members (b);
  /* the two groups in a fixed order */
  g_hash_table_insert (S.comms, GUINT_TO_POINTER (id),
                       strcmp (ma, mb) < 0 ? g_strdup_printf ("%s/%s", ma, mb)
                                           : g_strdup_printf ("%s/%s", mb, ma));
  return OTF2_CALLBACK_SUCCESS;
}

static const char *
comm (guint32 id)
{
  const char *s = g_hash_table_lookup (S.comms, GUINT_TO_POINTER (id));
  return s ? s : "?";
}

static GString *
out (OTF2_LocationRef l, OTF2_TimeStamp t)
{
  guint r = GPOINTER_TO_UINT (g_hash_table_lookup (S.rank_of, &l));
  if (t < S.first)
    S.first = t;
  if (t > S.last)
    S.last = t;
  return S.lines->pdata[r - 1];
}

static guint
req (OTF2_LocationRef l, guint64 id)
{
  guint       r = GPOINTER_TO_UINT (g_hash_table_lookup (S.rank_of, &l)) - 1;
  GHashTable *h = g_hash_table_lookup (S.reqs, GUINT_TO_POINTER (r));
  if (h == NULL)
    {
      h = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      g_hash_table_insert (S.reqs, GUINT_TO_POINTER (r), h);
    }
  gpointer v = g_hash_table_lookup (h, &id);
  if (v == NULL)
    {
      guint *next = S.next_req->pdata[r];
      v = GUINT_TO_POINTER (++*next);
      g_hash_table_insert (h, g_memdup2 (&id, sizeof id), v);
    }
  return GPOINTER_TO_UINT (v);
}

#define EV(name) static OTF2_CallbackCode name (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *al
#define UNUSED (void)pos, (void)u, (void)al

EV (ev_enter), OTF2_RegionRef r)
{
  UNUSED;
  g_string_append_printf (out (l, t), "ENTER %s\n",
                          str (GPOINTER_TO_UINT (g_hash_table_lookup (S.regions, GUINT_TO_POINTER (r)))));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_leave), OTF2_RegionRef r)
{
  UNUSED;
  g_string_append_printf (out (l, t), "LEAVE %s\n",
                          str (GPOINTER_TO_UINT (g_hash_table_lookup (S.regions, GUINT_TO_POINTER (r)))));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_send), uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
  UNUSED;
  g_string_append_printf (out (l, t), "SEND %u [%s] %u %" PRIu64 "\n", peer, comm (c), tag, len);
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_recv), uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
  UNUSED;
  g_string_append_printf (out (l, t), "RECV %u [%s] %u %" PRIu64 "\n", peer, comm (c), tag, len);
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_isend), uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t id)
{
  UNUSED;
  g_string_append_printf (out (l, t), "ISEND %u [%s] %u %" PRIu64 " r%u\n", peer, comm (c), tag,
                          len, req (l, id));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_irecv), uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t id)
{
  UNUSED;
  g_string_append_printf (out (l, t), "IRECV %u [%s] %u %" PRIu64 " r%u\n", peer, comm (c), tag,
                          len, req (l, id));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_isend_complete), uint64_t id)
{
  UNUSED;
  g_string_append_printf (out (l, t), "ISENDCOMPLETE r%u\n", req (l, id));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_irecv_request), uint64_t id)
{
  UNUSED;
  g_string_append_printf (out (l, t), "IRECVREQUEST r%u\n", req (l, id));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_cancelled), uint64_t id)
{
  UNUSED;
  g_string_append_printf (out (l, t), "CANCELLED r%u\n", req (l, id));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_coll_begin))
{
  UNUSED;
  g_string_append (out (l, t), "COLLBEGIN\n");
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_coll_end), OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent,
    uint64_t recv)
{
  UNUSED;
  g_string_append_printf (out (l, t), "COLLEND %d [%s] %d %" PRIu64 " %" PRIu64 "\n", (int)op,
                          comm (c), root == OTF2_UNDEFINED_UINT32 ? -1 : (int)root, sent, recv);
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_nbc_request), uint64_t id)
{
  UNUSED;
  g_string_append_printf (out (l, t), "NBCREQUEST r%u\n", req (l, id));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_nbc_complete), OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent,
    uint64_t recv, uint64_t id)
{
  UNUSED;
  g_string_append_printf (out (l, t), "NBCCOMPLETE %d [%s] %d %" PRIu64 " %" PRIu64 " r%u\n",
                          (int)op, comm (c), root == OTF2_UNDEFINED_UINT32 ? -1 : (int)root, sent,
                          recv, req (l, id));
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_program_begin), OTF2_StringRef name, uint32_t n, const OTF2_StringRef *args)
{
  UNUSED;
  (void)args;
  g_string_append_printf (out (l, t), "PROGRAMBEGIN %s %u\n", str (name), n);
  return OTF2_CALLBACK_SUCCESS;
}

EV (ev_program_end), int64_t status)
{
  UNUSED;
  g_string_append_printf (out (l, t), "PROGRAMEND %" PRId64 "\n", status);
  return OTF2_CALLBACK_SUCCESS;
}

/* --cpu: the collector's CPU samples too (Metric events, their values), where they stand */
EV (ev_metric), OTF2_MetricRef m, uint8_t n, const OTF2_Type *types, const OTF2_MetricValue *values)
{
  UNUSED;
  (void)m;
  GString *o = out (l, t);
  g_string_append (o, "METRIC");
  for (uint8_t i = 0; i < n; i++)
    g_string_append_printf (o, " %" PRIu64, types[i] == OTF2_TYPE_UINT64 ? values[i].unsigned_int : 0);
  g_string_append_c (o, '\n');
  return OTF2_CALLBACK_SUCCESS;
}

int
main (int argc, char **argv)
{
  int cpu = argc == 3 && strcmp (argv[1], "--cpu") == 0;
  if (cpu)
    {
      argv[1] = argv[2];
      argc = 2;
    }
  if (argc != 2)
    {
      fprintf (stderr, "usage: kct-seq [--cpu] TRACE.otf2\n");
      return 2;
    }
  S.strings = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  S.regions = g_hash_table_new (NULL, NULL);
  S.groups = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
  S.comms = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  S.rank_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  S.locs = g_array_new (FALSE, FALSE, sizeof (guint64));
  S.lines = g_ptr_array_new ();
  S.reqs = g_hash_table_new (NULL, NULL);
  S.next_req = g_ptr_array_new ();
  S.first = G_MAXUINT64;
  OTF2_Reader *rd = OTF2_Reader_Open (argv[1]);
  if (rd == NULL)
    {
      fprintf (stderr, "kct-seq: cannot open %s\n", argv[1]);
      return 1;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (rd);
  OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader (rd);
  OTF2_GlobalDefReaderCallbacks *gc = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (gc, on_string);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (gc, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (gc, on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (gc, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (gc, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetInterCommCallback (gc, on_intercomm);
  OTF2_Reader_RegisterGlobalDefCallbacks (rd, gr, gc, NULL);
  uint64_t n = 0;
  if (OTF2_Reader_ReadAllGlobalDefinitions (rd, gr, &n) != OTF2_SUCCESS)
    {
      fprintf (stderr, "kct-seq: cannot read the definitions\n");
      return 1;
    }
  OTF2_Reader_CloseGlobalDefReader (rd, gr);
  OTF2_GlobalDefReaderCallbacks_Delete (gc);
  for (guint r = 0; r < S.locs->len; r++)
    {
      guint64 loc = g_array_index (S.locs, guint64, r);
      g_hash_table_insert (S.rank_of, g_memdup2 (&loc, sizeof loc), GUINT_TO_POINTER (r + 1));
      g_ptr_array_add (S.lines, g_string_new (NULL));
      g_ptr_array_add (S.next_req, g_new0 (guint, 1));
      OTF2_Reader_SelectLocation (rd, loc);
    }
  if (OTF2_Reader_OpenDefFiles (rd) == OTF2_SUCCESS)
    {
      for (guint r = 0; r < S.locs->len; r++)
        {
          OTF2_DefReader *dr = OTF2_Reader_GetDefReader (rd, g_array_index (S.locs, guint64, r));
          if (dr)
            {
              OTF2_Reader_ReadAllLocalDefinitions (rd, dr, &n);
              OTF2_Reader_CloseDefReader (rd, dr);
            }
        }
      OTF2_Reader_CloseDefFiles (rd);
    }
  OTF2_Reader_OpenEvtFiles (rd);
  OTF2_EvtReaderCallbacks *ec = OTF2_EvtReaderCallbacks_New ();
  OTF2_EvtReaderCallbacks_SetEnterCallback (ec, ev_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback (ec, ev_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback (ec, ev_send);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback (ec, ev_recv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback (ec, ev_isend);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback (ec, ev_irecv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback (ec, ev_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback (ec, ev_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback (ec, ev_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback (ec, ev_coll_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback (ec, ev_coll_end);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (ec, ev_nbc_request);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (ec, ev_nbc_complete);
  OTF2_EvtReaderCallbacks_SetProgramBeginCallback (ec, ev_program_begin);
  OTF2_EvtReaderCallbacks_SetProgramEndCallback (ec, ev_program_end);
  if (cpu)
    OTF2_EvtReaderCallbacks_SetMetricCallback (ec, ev_metric);
  for (guint r = 0; r < S.locs->len; r++)
    {
      OTF2_EvtReader *er = OTF2_Reader_GetEvtReader (rd, g_array_index (S.locs, guint64, r));
      if (er == NULL)
        {
          fprintf (stderr, "kct-seq: no events for rank %u\n", r);
          return 1;
        }
      OTF2_Reader_RegisterEvtCallbacks (rd, er, ec, NULL);
      if (OTF2_Reader_ReadAllLocalEvents (rd, er, &n) != OTF2_SUCCESS)
        {
          fprintf (stderr, "kct-seq: cannot read the events of rank %u\n", r);
          return 1;
        }
      OTF2_Reader_CloseEvtReader (rd, er);
    }
  OTF2_EvtReaderCallbacks_Delete (ec);
  OTF2_Reader_CloseEvtFiles (rd);
  OTF2_Reader_Close (rd);
  for (guint r = 0; r < S.lines->len; r++)
    {
      GString *s = S.lines->pdata[r];
      printf ("== rank %u\n%s", r, s->str);
    }
  printf ("length %.9f\n",
          S.first <= S.last && S.resolution ? (double)(S.last - S.first) / (double)S.resolution : 0.0);
  return 0;
}
