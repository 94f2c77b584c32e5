/* clock-check: the clock facts of an OTF2 trace, read with the OTF2 reader API only (no Kubus
 * code), one fact per line:
 *
 *   window LOC ok|OUTSIDE N FIRST LAST   every event of LOC (as the reader sees it, ClockOffset
 *                                        applied) lies in [globalOffset, globalOffset + length]
 *   messages N                           point-to-point messages matched (per sender, receiver,
 *                                        communicator and tag, in order)
 *   unmatched N                          sends or receives left over
 *   recvbeforesend N MAXNS               receives stamped before their send, the largest gap
 *   collectives N                        N-to-N collective instances (barrier, allreduce,
 *                                        allgather, alltoall, reduce-scatter) seen on all members
 *   collbeforeenter N MAXNS              … in which a rank left before another one entered
 *   offsets LOC T1 O1 T2 O2              the location's ClockOffset records
 *   property NAME VALUE                  the archive's properties
 *
 * Communicator members are read as world ranks and locations as ranks (Kubus traces).
 *
 *   clock-check --zero-offsets TRACE.otf2 LOC
 * rewrites location LOC's local definitions with every ClockOffset set to 0 (same times, same
 * mapping tables), written with OTF2 into a scratch archive next to the trace and renamed into
 * place: the repair test's "unskewed" copy of a trace recorded with KUBUS_TEST_CLOCK_SKEW.
 *
 * Exit status 1 when the trace cannot be read. */
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOC 1024

typedef struct
{
  uint64_t t[2];
  int64_t  o[2];
  int      n;
} Offsets;

typedef struct
{
  uint64_t    global_offset, length;
  GHashTable *comm_group; /* comm -> group */
  GHashTable *groups;     /* group -> GArray of uint64 members */
  GHashTable *chan_send;  /* "src dst comm tag" -> GQueue of times */
  GHashTable *chan_recv;
  /* N-to-N collectives: "comm loc" -> GArray of (enter, leave) */
  GHashTable *colls;
  uint64_t    first[MAX_LOC], last[MAX_LOC], outside[MAX_LOC], n_events[MAX_LOC];
  GArray     *enter_stack[MAX_LOC];
  Offsets     offsets[MAX_LOC];
  /* the collective of the open call, per location */
  int         coll_open[MAX_LOC];
  uint32_t    coll_comm[MAX_LOC];
  uint64_t    coll_enter[MAX_LOC], coll_end[MAX_LOC];
  int         n_loc;
} Check;

static Check C;

static int
loc_index (OTF2_LocationRef l)
{
  return l < MAX_LOC ? (int)l : -1;
}

static uint64_t
world_of (uint32_t comm, uint32_t rank)
{
  gpointer g = g_hash_table_lookup (C.comm_group, GUINT_TO_POINTER (comm + 1));
  GArray  *m = g ? g_hash_table_lookup (C.groups, g) : NULL;
  if (m == NULL || rank >= m->len)
    return rank;
  return g_array_index (m, uint64_t, rank);
}

static void
seen (OTF2_LocationRef loc, OTF2_TimeStamp t)
{
  int i = loc_index (loc);
  if (i < 0)
    return;
  if (C.n_events[i]++ == 0 || t < C.first[i])
    C.first[i] = t;
  if (t > C.last[i])
    C.last[i] = t;
  if (t < C.global_offset || t > C.global_offset + C.length)
    C.outside[i]++;
}

static void
chan_add (GHashTable *h, uint64_t src, uint64_t dst, uint32_t comm, uint32_t tag, uint64_t t)
{
  char   *key = g_strdup_printf ("%" PRIu64 " %" PRIu64 " %u %u", src, dst, comm, tag);
  GQueue *q = g_hash_table_lookup (h, key);
  if (q == NULL)
    {
      q = g_queue_new ();
      g_hash_table_insert (h, key, q);
    }
  else
    g_free (key);
  uint64_t *v = g_new (uint64_t, 1);
  *v = t;
  g_queue_push_tail (q, v);
}

/* ---- global definitions ---- */

static OTF2_CallbackCode
def_clock (void *u, uint64_t res, uint64_t offset, uint64_t length, uint64_t realtime)
{
  (void)u;
  (void)res;
  (void)realtime;
  C.global_offset = offset;
  C.length = length;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_location (void *u, OTF2_LocationRef l, OTF2_StringRef n, OTF2_LocationType t, uint64_t ev,
              OTF2_LocationGroupRef g)
{
  (void)u;
  (void)n;
  (void)t;
  (void)ev;
  (void)g;
  if (l < MAX_LOC && (int)l + 1 > C.n_loc)
    C.n_loc = (int)l + 1;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_group (void *u, OTF2_GroupRef id, OTF2_StringRef name, OTF2_GroupType type,
           OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
  (void)u;
  (void)name;
  (void)type;
  (void)paradigm;
  (void)flags;
  GArray *m = g_array_sized_new (FALSE, FALSE, sizeof (uint64_t), n);
  g_array_append_vals (m, members, n);
  g_hash_table_insert (C.groups, GUINT_TO_POINTER (id + 1), m);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_comm (void *u, OTF2_CommRef id, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent,
          OTF2_CommFlag flags)
{
  (void)u;
  (void)name;
  (void)parent;
  (void)flags;
  g_hash_table_insert (C.comm_group, GUINT_TO_POINTER (id + 1), GUINT_TO_POINTER (group + 1));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_offset (void *u, OTF2_TimeStamp t, int64_t offset, double sd)
{
  (void)sd;
  Offsets *o = u;
  if (o->n < 2)
    {
      o->t[o->n] = t;
      o->o[o->n] = offset;
    }
  o->n++;
  return OTF2_CALLBACK_SUCCESS;
}

/* ---- events ---- */

static OTF2_CallbackCode
ev_any (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a)
{
  (void)u;
  (void)a;
  seen (loc, t);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_enter (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, OTF2_RegionRef r)
{
  (void)r;
  seen (loc, t);
  int i = loc_index (loc);
  if (i >= 0)
    g_array_append_val (C.enter_stack[i], t);
  (void)u;
  (void)a;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_leave (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, OTF2_RegionRef r)
{
  (void)u;
  (void)a;
  (void)r;
  seen (loc, t);
  int i = loc_index (loc);
  if (i < 0 || C.enter_stack[i]->len == 0)
    return OTF2_CALLBACK_SUCCESS;
  uint64_t enter = g_array_index (C.enter_stack[i], uint64_t, C.enter_stack[i]->len - 1);
  g_array_set_size (C.enter_stack[i], C.enter_stack[i]->len - 1);
  if (C.coll_open[i])
    {
      char   *key = g_strdup_printf ("%u %d", C.coll_comm[i], i);
      GArray *a2 = g_hash_table_lookup (C.colls, key);
      if (a2 == NULL)
        {
          a2 = g_array_new (FALSE, FALSE, sizeof (uint64_t) * 2);
          g_hash_table_insert (C.colls, key, a2);
        }
      else
        g_free (key);
      uint64_t v[2] = { enter, t };
      g_array_append_val (a2, v);
      C.coll_open[i] = 0;
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_send (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint32_t receiver,
         OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
  (void)len;
  ev_any (loc, t, u, a);
  chan_add (C.chan_send, loc, world_of (comm, receiver), comm, tag, t);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_isend (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint32_t receiver,
          OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
  (void)req;
  return ev_send (loc, t, u, a, receiver, comm, tag, len);
}

static OTF2_CallbackCode
ev_recv (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint32_t sender,
         OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
  (void)len;
  ev_any (loc, t, u, a);
  chan_add (C.chan_recv, world_of (comm, sender), loc, comm, tag, t);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_irecv (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint32_t sender,
          OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
  (void)req;
  return ev_recv (loc, t, u, a, sender, comm, tag, len);
}

static OTF2_CallbackCode
ev_req (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint64_t req)
{
  (void)req;
  return ev_any (loc, t, u, a);
}

static OTF2_CallbackCode
ev_program_begin (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                  OTF2_StringRef name, uint32_t n, const OTF2_StringRef *args)
{
  (void)name;
  (void)n;
  (void)args;
  return ev_any (loc, t, u, a);
}

static OTF2_CallbackCode
ev_program_end (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, int64_t s)
{
  (void)s;
  return ev_any (loc, t, u, a);
}

static OTF2_CallbackCode
ev_coll_end (OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
             OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t recvd)
{
  (void)root;
  (void)sent;
  (void)recvd;
  ev_any (loc, t, u, a);
  int i = loc_index (loc);
  if (i < 0)
    return OTF2_CALLBACK_SUCCESS;
  switch (op)
    {
    case OTF2_COLLECTIVE_OP_BARRIER:
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      C.coll_open[i] = 1;
      C.coll_comm[i] = comm;
      break;
    default:
      break;
    }
  return OTF2_CALLBACK_SUCCESS;
}

static void
print_results (void)
{
  for (int i = 0; i < C.n_loc; i++)
    {
      if (C.outside[i])
        printf ("window %d OUTSIDE %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", i, C.outside[i],
                C.first[i], C.last[i]);
      else
        printf ("window %d ok\n", i);
      if (C.offsets[i].n == 2)
        printf ("offsets %d %" PRIu64 " %" PRId64 " %" PRIu64 " %" PRId64 "\n", i, C.offsets[i].t[0],
                C.offsets[i].o[0], C.offsets[i].t[1], C.offsets[i].o[1]);
      else
        printf ("offsets %d count %d\n", i, C.offsets[i].n);
    }
  /* point-to-point: the k-th send of a channel is its k-th receive */
  uint64_t       messages = 0, unmatched = 0, early = 0;
  int64_t        max_early = 0;
  GHashTableIter it;
  gpointer       k, v;
  g_hash_table_iter_init (&it, C.chan_recv);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      GQueue *r = v, *s = g_hash_table_lookup (C.chan_send, k);
      while (!g_queue_is_empty (r) && s != NULL && !g_queue_is_empty (s))
        {
          uint64_t *tr = g_queue_pop_head (r), *ts = g_queue_pop_head (s);
          messages++;
          if (*tr < *ts)
            {
              early++;
              max_early = MAX (max_early, (int64_t)(*ts - *tr));
            }
          g_free (tr);
          g_free (ts);
        }
      unmatched += g_queue_get_length (r);
    }
  g_hash_table_iter_init (&it, C.chan_send);
  while (g_hash_table_iter_next (&it, &k, &v))
    unmatched += g_queue_get_length (v);
  printf ("messages %" PRIu64 "\nunmatched %" PRIu64 "\nrecvbeforesend %" PRIu64 " %" PRId64 "\n",
          messages, unmatched, early, max_early);

  /* N-to-N collectives: per communicator, the k-th instance of every member */
  uint64_t instances = 0, bad = 0;
  int64_t  max_bad = 0;
  g_hash_table_iter_init (&it, C.comm_group);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      uint32_t comm = GPOINTER_TO_UINT (k) - 1;
      GArray  *m = g_hash_table_lookup (C.groups, v);
      if (m == NULL || m->len < 2)
        continue;
      GArray **per = g_new0 (GArray *, m->len);
      guint    n = G_MAXUINT;
      for (guint j = 0; j < m->len; j++)
        {
          char *key = g_strdup_printf ("%u %d", comm, (int)g_array_index (m, uint64_t, j));
          per[j] = g_hash_table_lookup (C.colls, key);
          g_free (key);
          n = MIN (n, per[j] ? per[j]->len : 0);
        }
      for (guint q = 0; q < n; q++)
        {
          uint64_t max_enter = 0, min_leave = UINT64_MAX;
          for (guint j = 0; j < m->len; j++)
            {
              const uint64_t *e = &g_array_index (per[j], uint64_t, 2 * q);
              max_enter = MAX (max_enter, e[0]);
              min_leave = MIN (min_leave, e[1]);
            }
          instances++;
          if (min_leave < max_enter)
            {
              bad++;
              max_bad = MAX (max_bad, (int64_t)(max_enter - min_leave));
            }
        }
      g_free (per);
    }
  printf ("collectives %" PRIu64 "\ncollbeforeenter %" PRIu64 " %" PRId64 "\n", instances, bad,
          max_bad);
}

static int
check (const char *anchor)
{
  OTF2_Reader *rd = OTF2_Reader_Open (anchor);
  if (rd == NULL)
    {
      fprintf (stderr, "clock-check: %s: not an OTF2 archive\n", anchor);
      return 1;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (rd);
  uint32_t n_props = 0;
  char   **names = NULL;
  if (OTF2_Reader_GetPropertyNames (rd, &n_props, &names) == OTF2_SUCCESS)
    {
      for (uint32_t i = 0; i < n_props; i++)
        {
          char *value = NULL;
          if (OTF2_Reader_GetProperty (rd, names[i], &value) == OTF2_SUCCESS)
            {
              printf ("property %s %s\n", names[i], value);
              free (value);
            }
        }
      free (names);
    }
  C.comm_group = g_hash_table_new (g_direct_hash, g_direct_equal);
  C.groups = g_hash_table_new (g_direct_hash, g_direct_equal);
  C.chan_send = g_hash_table_new (g_str_hash, g_str_equal);
  C.chan_recv = g_hash_table_new (g_str_hash, g_str_equal);
  C.colls = g_hash_table_new (g_str_hash, g_str_equal);

  OTF2_GlobalDefReader          *gr = OTF2_Reader_GetGlobalDefReader (rd);
  OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (gcb, def_clock);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (gcb, def_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (gcb, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (gcb, def_comm);
  OTF2_Reader_RegisterGlobalDefCallbacks (rd, gr, gcb, NULL);
  uint64_t n = 0;
  if (gr == NULL || OTF2_Reader_ReadAllGlobalDefinitions (rd, gr, &n) != OTF2_SUCCESS)
    {
      fprintf (stderr, "clock-check: %s: cannot read the global definitions\n", anchor);
      return 1;
    }
  OTF2_GlobalDefReaderCallbacks_Delete (gcb);
  OTF2_Reader_CloseGlobalDefReader (rd, gr);

  for (int i = 0; i < C.n_loc; i++)
    {
      OTF2_Reader_SelectLocation (rd, (OTF2_LocationRef)i);
      C.enter_stack[i] = g_array_new (FALSE, FALSE, sizeof (uint64_t));
    }
  int have_defs = OTF2_Reader_OpenDefFiles (rd) == OTF2_SUCCESS;
  OTF2_Reader_OpenEvtFiles (rd);
  for (int i = 0; i < C.n_loc; i++)
    {
      OTF2_DefReader *dr = have_defs ? OTF2_Reader_GetDefReader (rd, (OTF2_LocationRef)i) : NULL;
      if (dr)
        {
          OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New ();
          OTF2_DefReaderCallbacks_SetClockOffsetCallback (cb, def_offset);
          OTF2_Reader_RegisterDefCallbacks (rd, dr, cb, &C.offsets[i]);
          OTF2_Reader_ReadAllLocalDefinitions (rd, dr, &n);
          OTF2_DefReaderCallbacks_Delete (cb);
          OTF2_Reader_CloseDefReader (rd, dr);
        }
      OTF2_Reader_GetEvtReader (rd, (OTF2_LocationRef)i);
    }
  if (have_defs)
    OTF2_Reader_CloseDefFiles (rd);

  OTF2_GlobalEvtReader          *ger = OTF2_Reader_GetGlobalEvtReader (rd);
  OTF2_GlobalEvtReaderCallbacks *ecb = OTF2_GlobalEvtReaderCallbacks_New ();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback (ecb, ev_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback (ecb, ev_leave);
  OTF2_GlobalEvtReaderCallbacks_SetProgramBeginCallback (ecb, ev_program_begin);
  OTF2_GlobalEvtReaderCallbacks_SetProgramEndCallback (ecb, ev_program_end);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback (ecb, ev_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback (ecb, ev_isend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback (ecb, ev_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback (ecb, ev_irecv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback (ecb, ev_req);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback (ecb, ev_req);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback (ecb, ev_req);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback (ecb, ev_any);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback (ecb, ev_coll_end);
  OTF2_Reader_RegisterGlobalEvtCallbacks (rd, ger, ecb, NULL);
  OTF2_ErrorCode err = OTF2_Reader_ReadAllGlobalEvents (rd, ger, &n);
  OTF2_GlobalEvtReaderCallbacks_Delete (ecb);
  if (err != OTF2_SUCCESS)
    {
      fprintf (stderr, "clock-check: %s: reading events failed: %s\n", anchor,
               OTF2_Error_GetName (err));
      return 1;
    }
  OTF2_Reader_CloseGlobalEvtReader (rd, ger);
  OTF2_Reader_CloseEvtFiles (rd);
  OTF2_Reader_Close (rd);
  print_results ();
  return 0;
}

/* ---- --zero-offsets ---- */

typedef struct
{
  OTF2_MappingType type[OTF2_MAPPING_MAX];
  GArray          *pairs[OTF2_MAPPING_MAX]; /* (local, global) */
  int              n_maps;
  Offsets          off;
} LocalDefs;

static void
copy_pair (uint64_t local, uint64_t global, void *u)
{
  uint64_t p[2] = { local, global };
  g_array_append_vals (u, p, 1);
}

static OTF2_CallbackCode
def_map (void *u, OTF2_MappingType type, const OTF2_IdMap *map)
{
  LocalDefs *d = u;
  if (d->n_maps >= OTF2_MAPPING_MAX)
    return OTF2_CALLBACK_SUCCESS;
  d->type[d->n_maps] = type;
  d->pairs[d->n_maps] = g_array_new (FALSE, FALSE, 2 * sizeof (uint64_t));
  OTF2_IdMap_Traverse (map, copy_pair, d->pairs[d->n_maps]);
  d->n_maps++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_offset_copy (void *u, OTF2_TimeStamp t, int64_t offset, double sd)
{
  return def_offset (&((LocalDefs *)u)->off, t, offset, sd);
}

static OTF2_FlushType
pre_flush (void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool final)
{
  (void)u;
  (void)t;
  (void)l;
  (void)c;
  (void)final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *u, OTF2_FileType t, OTF2_LocationRef l)
{
  (void)u;
  (void)t;
  (void)l;
  return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

static int
zero_offsets (const char *anchor, OTF2_LocationRef loc)
{
  LocalDefs    d = { 0 };
  OTF2_Reader *rd = OTF2_Reader_Open (anchor);
  if (rd == NULL)
    {
      fprintf (stderr, "clock-check: %s: not an OTF2 archive\n", anchor);
      return 1;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (rd);
  OTF2_Reader_SelectLocation (rd, loc);
  OTF2_DefReader *dr = NULL;
  if (OTF2_Reader_OpenDefFiles (rd) == OTF2_SUCCESS)
    dr = OTF2_Reader_GetDefReader (rd, loc);
  if (dr == NULL)
    {
      fprintf (stderr, "clock-check: %s: no local definitions of location %" PRIu64 "\n", anchor,
               loc);
      return 1;
    }
  OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New ();
  OTF2_DefReaderCallbacks_SetMappingTableCallback (cb, def_map);
  OTF2_DefReaderCallbacks_SetClockOffsetCallback (cb, def_offset_copy);
  OTF2_Reader_RegisterDefCallbacks (rd, dr, cb, &d);
  uint64_t n = 0;
  OTF2_Reader_ReadAllLocalDefinitions (rd, dr, &n);
  OTF2_DefReaderCallbacks_Delete (cb);
  OTF2_Reader_CloseDefReader (rd, dr);
  OTF2_Reader_CloseDefFiles (rd);
  OTF2_Reader_Close (rd);

  char *dir = g_path_get_dirname (anchor);
  char *scratch = g_build_filename (dir, ".clock-check-XXXXXX", NULL);
  if (g_mkdtemp (scratch) == NULL)
    {
      fprintf (stderr, "clock-check: cannot create a scratch folder in %s\n", dir);
      return 1;
    }
  OTF2_Archive *ar = OTF2_Archive_Open (scratch, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                        OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
  OTF2_Archive_SetFlushCallbacks (ar, &flush_callbacks, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks (ar);
  OTF2_Archive_OpenDefFiles (ar);
  OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (ar, loc);
  for (int i = 0; i < d.n_maps; i++)
    {
      OTF2_IdMap *m = OTF2_IdMap_Create (OTF2_ID_MAP_SPARSE, MAX (d.pairs[i]->len, 1));
      for (guint k = 0; k < d.pairs[i]->len; k++)
        {
          const uint64_t *p = &g_array_index (d.pairs[i], uint64_t, 2 * k);
          OTF2_IdMap_AddIdPair (m, p[0], p[1]);
        }
      OTF2_DefWriter_WriteMappingTable (dw, d.type[i], m);
      OTF2_IdMap_Free (m);
    }
  for (int i = 0; i < MIN (d.off.n, 2); i++)
    OTF2_DefWriter_WriteClockOffset (dw, d.off.t[i], 0, 0.0);
  OTF2_Archive_CloseDefWriter (ar, dw);
  OTF2_Archive_CloseDefFiles (ar);
  OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter (ar);
  if (gw)
    OTF2_Archive_CloseGlobalDefWriter (ar, gw);
  OTF2_Archive_Close (ar);

  char *base = g_path_get_basename (anchor);
  if (g_str_has_suffix (base, ".otf2"))
    base[strlen (base) - 5] = '\0';
  char *from = g_strdup_printf ("%s/traces/%" PRIu64 ".def", scratch, loc);
  char *to = g_strdup_printf ("%s/%s/%" PRIu64 ".def", dir, base, loc);
  int   rc = g_rename (from, to) == 0 ? 0 : 1;
  if (rc)
    fprintf (stderr, "clock-check: cannot replace %s\n", to);
  char *cmd[] = { "rm", "-rf", scratch, NULL };
  g_spawn_sync (NULL, cmd, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  return rc;
}

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "--zero-offsets") == 0)
    return zero_offsets (argv[2], (OTF2_LocationRef)g_ascii_strtoull (argv[3], NULL, 10));
  if (argc != 2)
    {
      fprintf (stderr, "usage: clock-check TRACE.otf2 | clock-check --zero-offsets TRACE.otf2 LOC\n");
      return 2;
    }
  return check (argv[1]);
}
