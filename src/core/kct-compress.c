/* kct-compress.c: an OTF2 trace compressed after the fact (kubus-trace compress).
 *
 * The same recorder the collector runs inside each rank (kct-fold.c) reads each rank's OTF2
 * events, one rank at a time, and the ranks are merged as the collector merges them.  What
 * OTF2 does not have is approximated: call sites are unknown (all 0, so calls that the
 * collector would tell apart by their site may share a leaf), and communicators are named by
 * their global id instead of the rank's local one (MPI_COMM_SELF and split communicators then
 * differ between ranks).  Events that compressed traces do not hold (metrics, parameters,
 * threads, RMA) are counted and reported. */
#include "kct.h"
#include "cpu-metric.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <otf2/otf2.h>
#include <string.h>

typedef struct
{
  guint32  id;
  guint32  n;
  guint64 *members; /* indices into the locations group (= world ranks) */
  int      type;    /* OTF2_GroupType */
} Group;

typedef struct
{
  guint32 id;
  guint32 group, group_b; /* group_b: OTF2_UNDEFINED_GROUP for an intra-communicator */
  guint32 parent;
  gboolean inter;
} Comm;

typedef struct
{
  guint32  id;
  char    *name;
  guint32  comm;
  guint    ndims;
  guint32  dims[16];
  guint8   periods[16];
  GArray  *coord_rank; /* guint32 */
  GArray  *coords;     /* guint32 */
} Cart;

typedef struct
{
  GHashTable *strings;   /* id -> char* */
  GHashTable *region_at; /* OTF2 region id -> kct region index + 1 */
  GArray     *regions;   /* KctRegion (strings owned) */
  GHashTable *groups;    /* id -> Group* */
  GPtrArray  *comms;     /* Comm* */
  GHashTable *dims;      /* id -> guint64 (size << 1 | periodic) */
  GPtrArray  *carts;     /* Cart* */
  GHashTable *loc_group; /* location id -> location group id */
  GHashTable *loc_node;  /* location group id -> system tree node id */
  GHashTable *node_name; /* system tree node id -> name string id */
  GArray     *ranks;     /* guint64 location ids, by world rank */
  guint64     resolution, offset, length, realtime;
  /* the collector's host properties (KUBUS::CPUS, KUBUS::OTHER_CPU_NS, KUBUS::OTHER_WALL_NS)
   * by system tree node id, and its CPU samples' metric (collect-cputime.c) */
  GHashTable *node_props;  /* node id -> NodeProps* */
  GHashTable *cpu_members; /* metric member id -> 1 KUBUS_CPU_TIME, 2 KUBUS_CPU_WAIT,
                              3 KUBUS_CPU_ID */
  guint32     cpu_metric;  /* OTF2_UNDEFINED_METRIC: none */
  gboolean    cpu_wait;    /* its second member is KUBUS_CPU_WAIT */
  gboolean    cpu_where;   /* and its third KUBUS_CPU_ID */
} Defs;

typedef struct
{
  guint32  cpus;
  gboolean other_cpu_known, other_wall_known;
  guint64  other_cpu_ns, other_wall_ns;
} NodeProps;

static const char *
string (Defs *d, guint32 id)
{
  const char *s = g_hash_table_lookup (d->strings, GUINT_TO_POINTER (id));
  return s ? s : "";
}

static OTF2_CallbackCode
on_string (void *u, OTF2_StringRef id, const char *s)
{
  Defs *d = u;
  g_hash_table_insert (d->strings, GUINT_TO_POINTER (id), g_strdup (s));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_clock (void *u, uint64_t res, uint64_t offset, uint64_t length, uint64_t realtime)
{
  Defs *d = u;
  d->resolution = res;
  d->offset = offset;
  d->length = length;
  d->realtime = realtime;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_sysnode (void *u, OTF2_SystemTreeNodeRef id, OTF2_StringRef name, OTF2_StringRef klass,
            OTF2_SystemTreeNodeRef parent)
{
  Defs *d = u;
  (void)klass;
  (void)parent;
  g_hash_table_insert (d->node_name, GUINT_TO_POINTER (id), GUINT_TO_POINTER (name + 1));
  return OTF2_CALLBACK_SUCCESS;
}

/* the host properties (cpu-metric.h) */
static OTF2_CallbackCode
on_sysnode_property (void *u, OTF2_SystemTreeNodeRef node, OTF2_StringRef name, OTF2_Type type,
                     OTF2_AttributeValue value)
{
  Defs       *d = u;
  const char *s = string (d, name);
  int         which = cpu_host_property (s, type);
  if (which == 0)
    return OTF2_CALLBACK_SUCCESS;
  NodeProps *p = g_hash_table_lookup (d->node_props, GUINT_TO_POINTER (node));
  if (p == NULL)
    {
      p = g_new0 (NodeProps, 1);
      g_hash_table_insert (d->node_props, GUINT_TO_POINTER (node), p);
    }
  if (which == 1)
    p->cpus = value.uint32;
  else if (which == 2)
    {
      p->other_cpu_ns = value.uint64;
      p->other_cpu_known = TRUE;
    }
  else
    {
      p->other_wall_ns = value.uint64;
      p->other_wall_known = TRUE;
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_metric_member (void *u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef descr,
                  OTF2_MetricType type, OTF2_MetricMode mode, OTF2_Type value_type, OTF2_Base base,
                  int64_t exponent, OTF2_StringRef unit)
{
  Defs       *d = u;
  const char *n = string (d, name);
  int which = cpu_metric_member (n, mode, value_type, exponent);
  (void)descr;
  (void)type;
  (void)base;
  (void)unit;
  if (which != CPU_MEMBER_NONE)
    g_hash_table_insert (d->cpu_members, GUINT_TO_POINTER (self), GINT_TO_POINTER (which));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_metric_class (void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                 OTF2_MetricOccurrence occurrence, OTF2_RecorderKind kind)
{
  Defs *d = u;
  int   kinds[3] = { 0 }, cls;
  (void)occurrence;
  (void)kind;
  for (int i = 0; i < n && i < 3; i++)
    kinds[i] = GPOINTER_TO_INT (g_hash_table_lookup (d->cpu_members, GUINT_TO_POINTER (members[i])));
  if ((cls = cpu_metric_class (kinds, n)) != 0)
    {
      d->cpu_metric = self;
      d->cpu_wait = (cls & 2) != 0;
      d->cpu_where = (cls & 6) == 6;   /* the .kct keeps the CPU ids only with the waits */
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_locgroup (void *u, OTF2_LocationGroupRef id, OTF2_StringRef name, OTF2_LocationGroupType type,
             OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef creator)
{
  Defs *d = u;
  (void)name;
  (void)type;
  (void)creator;
  g_hash_table_insert (d->loc_node, GUINT_TO_POINTER (id), GUINT_TO_POINTER (parent + 1));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_location (void *u, OTF2_LocationRef id, OTF2_StringRef name, OTF2_LocationType type,
             uint64_t n_events, OTF2_LocationGroupRef group)
{
  Defs *d = u;
  (void)name;
  (void)type;
  (void)n_events;
  g_hash_table_insert (d->loc_group, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (group + 1));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_region (void *u, OTF2_RegionRef id, OTF2_StringRef name, OTF2_StringRef canonical,
           OTF2_StringRef descr, OTF2_RegionRole role, OTF2_Paradigm paradigm,
           OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
  Defs *d = u;
  (void)flags;
  (void)begin;
  (void)end;
  KctRegion r = { 0 };
  r.name = g_strdup (string (d, name));
  r.canonical = g_strdup (canonical == name ? "" : string (d, canonical));
  r.descr = g_strdup (string (d, descr));
  r.file = g_strdup (string (d, file));
  r.role = (uint8_t)role;
  r.paradigm = (uint8_t)paradigm;
  if (paradigm == OTF2_PARADIGM_MPI && g_str_has_prefix (r.name, "MPI_"))
    {
      static const char *polls[] = { "MPI_Test", "MPI_Testany", "MPI_Testsome", "MPI_Testall",
                                     "MPI_Iprobe", "MPI_Improbe", NULL };
      r.flags = KCT_REGION_CALL;
      if (g_strv_contains (polls, r.name))
        r.flags |= KCT_REGION_POLL;
    }
  g_array_append_val (d->regions, r);
  g_hash_table_insert (d->region_at, GUINT_TO_POINTER (id), GUINT_TO_POINTER (d->regions->len));
  return OTF2_CALLBACK_SUCCESS;
}

static void
group_free (gpointer p)
{
  Group *g = p;
  g_free (g->members);
  g_free (g);
}

static OTF2_CallbackCode
on_group (void *u, OTF2_GroupRef id, OTF2_StringRef name, OTF2_GroupType type,
          OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
  Defs *d = u;
  (void)name;
  (void)flags;
  Group *g = g_new0 (Group, 1);
  g->id = id;
  g->n = n;
  g->type = type;
  g->members = g_memdup2 (members, sizeof *members * n);
  g_hash_table_insert (d->groups, GUINT_TO_POINTER (id), g);
  if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS && paradigm == OTF2_PARADIGM_MPI)
    {
      g_array_set_size (d->ranks, 0);
      g_array_append_vals (d->ranks, members, n);
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_comm (void *u, OTF2_CommRef id, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent,
         OTF2_CommFlag flags)
{
  Defs *d = u;
  (void)name;
  (void)flags;
  Comm *c = g_new0 (Comm, 1);
  *c = (Comm){ id, group, OTF2_UNDEFINED_GROUP, parent, FALSE };
  g_ptr_array_add (d->comms, c);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_intercomm (void *u, OTF2_CommRef id, OTF2_StringRef name, OTF2_GroupRef a, OTF2_GroupRef b,
              OTF2_CommRef common, OTF2_CommFlag flags)
{
  Defs *d = u;
  (void)name;
  (void)flags;
  Comm *c = g_new0 (Comm, 1);
  *c = (Comm){ id, a, b, common, TRUE };
  g_ptr_array_add (d->comms, c);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_cart_dim (void *u, OTF2_CartDimensionRef id, OTF2_StringRef name, uint32_t size,
             OTF2_CartPeriodicity periodic)
{
  Defs *d = u;
  (void)name;
  guint64 *v = g_new (guint64, 1);
  *v = (guint64)size << 1 | (periodic == OTF2_CART_PERIODIC_TRUE);
  g_hash_table_insert (d->dims, GUINT_TO_POINTER (id), v);
  return OTF2_CALLBACK_SUCCESS;
}

static void
cart_free (gpointer p)
{
  Cart *c = p;
  g_free (c->name);
  g_array_unref (c->coord_rank);
  g_array_unref (c->coords);
  g_free (c);
}

static OTF2_CallbackCode
on_cart (void *u, OTF2_CartTopologyRef id, OTF2_StringRef name, OTF2_CommRef comm, uint8_t ndims,
         const OTF2_CartDimensionRef *dims)
{
  Defs *d = u;
  Cart *c = g_new0 (Cart, 1);
  c->id = id;
  c->name = g_strdup (string (d, name));
  c->comm = comm;
  c->ndims = MIN (ndims, 16);
  for (guint k = 0; k < c->ndims; k++)
    {
      guint64 *v = g_hash_table_lookup (d->dims, GUINT_TO_POINTER (dims[k]));
      c->dims[k] = v ? (guint32)(*v >> 1) : 1;
      c->periods[k] = v ? (guint8)(*v & 1) : 0;
    }
  c->coord_rank = g_array_new (FALSE, FALSE, sizeof (guint32));
  c->coords = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_ptr_array_add (d->carts, c);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_cart_coord (void *u, OTF2_CartTopologyRef topo, uint32_t rank, uint8_t ndims,
               const uint32_t *coords)
{
  Defs *d = u;
  for (guint i = 0; i < d->carts->len; i++)
    {
      Cart *c = d->carts->pdata[i];
      if (c->id != topo || ndims != c->ndims)
        continue;
      g_array_append_val (c->coord_rank, rank);
      g_array_append_vals (c->coords, coords, ndims);
    }
  return OTF2_CALLBACK_SUCCESS;
}

static void
defs_free (Defs *d)
{
  g_hash_table_unref (d->strings);
  g_hash_table_unref (d->region_at);
  for (guint i = 0; i < d->regions->len; i++)
    {
      KctRegion *r = &g_array_index (d->regions, KctRegion, i);
      g_free (r->name);
      g_free (r->canonical);
      g_free (r->descr);
      g_free (r->file);
    }
  g_array_unref (d->regions);
  g_hash_table_unref (d->groups);
  g_ptr_array_unref (d->comms);
  g_hash_table_unref (d->dims);
  g_ptr_array_unref (d->carts);
  g_hash_table_unref (d->loc_group);
  g_hash_table_unref (d->loc_node);
  g_hash_table_unref (d->node_name);
  g_hash_table_unref (d->node_props);
  g_hash_table_unref (d->cpu_members);
  g_array_unref (d->ranks);
}

static gboolean
read_defs (OTF2_Reader *reader, Defs *d)
{
  OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader (reader);
  if (gr == NULL)
    return FALSE;
  OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cb, on_string);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (cb, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback (cb, on_sysnode);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback (cb, on_sysnode_property);
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback (cb, on_metric_member);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback (cb, on_metric_class);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback (cb, on_locgroup);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (cb, on_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cb, on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (cb, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (cb, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetInterCommCallback (cb, on_intercomm);
  OTF2_GlobalDefReaderCallbacks_SetCartDimensionCallback (cb, on_cart_dim);
  OTF2_GlobalDefReaderCallbacks_SetCartTopologyCallback (cb, on_cart);
  OTF2_GlobalDefReaderCallbacks_SetCartCoordinateCallback (cb, on_cart_coord);
  OTF2_Reader_RegisterGlobalDefCallbacks (reader, gr, cb, d);
  OTF2_GlobalDefReaderCallbacks_Delete (cb);
  uint64_t       n = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions (reader, gr, &n);
  OTF2_Reader_CloseGlobalDefReader (reader, gr);
  return rc == OTF2_SUCCESS;
}

/* ---- one rank's events ------------------------------------------------------------------- */

typedef struct
{
  Defs       *defs;
  KctTrace   *t;
  KctRank    *rec;
  GHashTable *my_pos; /* comm id -> own position + 1 (in the own group) */
  guint64     skipped;
  gboolean    failed;
  char       *program;
  guint32     rank;
  KctOtf2EventFunc observe; /* kct_otf2_events: every recorded event */
  gpointer         observe_data;
} Rank;

static void
record (Rank *r, OTF2_TimeStamp t, KctRaw *ev)
{
  if (r->observe != NULL)
    r->observe (r->rank, t, ev, r->observe_data);
  if (!r->failed && kct_rank_record (r->rec, t, ev) != 0)
    r->failed = TRUE;
}

static uint32_t
region_index (Rank *r, OTF2_RegionRef region)
{
  guint v = GPOINTER_TO_UINT (g_hash_table_lookup (r->defs->region_at, GUINT_TO_POINTER (region)));
  return v ? v - 1 : KCT_NONE;
}

static OTF2_CallbackCode
ev_enter (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, OTF2_RegionRef region)
{
  (void)l;
  (void)pos;
  (void)a;
  Rank  *r = u;
  KctRaw ev = { 0 };
  ev.type = KCT_RAW_ENTER;
  ev.a = region_index (r, region);
  record (r, t, &ev);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_leave (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, OTF2_RegionRef region)
{
  (void)l;
  (void)pos;
  (void)a;
  Rank  *r = u;
  KctRaw ev = { 0 };
  ev.type = KCT_RAW_LEAVE;
  ev.a = region_index (r, region);
  record (r, t, &ev);
  return OTF2_CALLBACK_SUCCESS;
}

static void
p2p (Rank *r, OTF2_TimeStamp t, int type, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
     uint64_t bytes, uint64_t req)
{
  KctRaw ev = { 0 };
  ev.type = (uint8_t)type;
  ev.a = comm;
  guint me = GPOINTER_TO_UINT (g_hash_table_lookup (r->my_pos, GUINT_TO_POINTER (comm)));
  ev.peer = (int32_t)((gint64)peer - (me ? (gint64)me - 1 : 0));
  ev.tag = tag;
  ev.bytes = bytes;
  ev.x = req;
  record (r, t, &ev);
}

static OTF2_CallbackCode
ev_send (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, uint32_t peer,
         OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
  (void)l;
  (void)pos;
  (void)a;
  p2p (u, t, KCT_RAW_SEND, peer, comm, tag, bytes, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_recv (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, uint32_t peer,
         OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
  (void)l;
  (void)pos;
  (void)a;
  p2p (u, t, KCT_RAW_RECV, peer, comm, tag, bytes, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_isend (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, uint32_t peer,
          OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
  (void)l;
  (void)pos;
  (void)a;
  p2p (u, t, KCT_RAW_ISEND, peer, comm, tag, bytes, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_irecv (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, uint32_t peer,
          OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
  (void)l;
  (void)pos;
  (void)a;
  p2p (u, t, KCT_RAW_IRECV, peer, comm, tag, bytes, req);
  return OTF2_CALLBACK_SUCCESS;
}

static void
request (Rank *r, OTF2_TimeStamp t, int type, uint64_t req)
{
  KctRaw ev = { 0 };
  ev.type = (uint8_t)type;
  ev.x = req;
  record (r, t, &ev);
}

static OTF2_CallbackCode
ev_isend_complete (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, uint64_t req)
{
  (void)l;
  (void)pos;
  (void)a;
  request (u, t, KCT_RAW_ISEND_COMPLETE, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_irecv_request (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, uint64_t req)
{
  (void)l;
  (void)pos;
  (void)a;
  request (u, t, KCT_RAW_IRECV_REQUEST, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_cancelled (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, uint64_t req)
{
  (void)l;
  (void)pos;
  (void)a;
  request (u, t, KCT_RAW_REQUEST_CANCELLED, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_coll_begin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a)
{
  (void)l;
  (void)pos;
  (void)a;
  KctRaw ev = { 0 };
  ev.type = KCT_RAW_COLL_BEGIN;
  record (u, t, &ev);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_coll_end (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
             OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
             uint64_t received)
{
  (void)l;
  (void)pos;
  (void)a;
  KctRaw ev = { 0 };
  ev.type = KCT_RAW_COLL_END;
  ev.op = (uint8_t)op;
  ev.a = comm;
  ev.peer = root == OTF2_UNDEFINED_UINT32 ? -1 : (int32_t)root;
  ev.bytes = sent;
  ev.x = received;
  record (u, t, &ev);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_nbc_request (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                uint64_t req)
{
  (void)l;
  (void)pos;
  (void)a;
  request (u, t, KCT_RAW_NBC_REQUEST, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_nbc_complete (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                 OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                 uint64_t sent, uint64_t received, uint64_t req)
{
  (void)l;
  (void)pos;
  (void)a;
  KctRaw ev = { 0 };
  ev.type = KCT_RAW_NBC_COMPLETE;
  ev.op = (uint8_t)op;
  ev.a = comm;
  ev.peer = root == OTF2_UNDEFINED_UINT32 ? -1 : (int32_t)root;
  ev.bytes = sent;
  ev.y = received;
  ev.x = req;
  record (u, t, &ev);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_program_begin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                  OTF2_StringRef name, uint32_t n_args, const OTF2_StringRef *args)
{
  (void)l;
  (void)pos;
  (void)a;
  (void)n_args;
  (void)args;
  Rank *r = u;
  if (r->program == NULL)
    r->program = g_strdup (string (r->defs, name));
  KctRaw ev = { 0 };
  ev.type = KCT_RAW_PROGRAM_BEGIN;
  record (r, t, &ev);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_program_end (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a, int64_t status)
{
  (void)l;
  (void)pos;
  (void)a;
  KctRaw ev = { 0 };
  ev.type = KCT_RAW_PROGRAM_END;
  ev.bytes = (uint64_t)status;
  record (u, t, &ev);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_other (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a)
{
  (void)l;
  (void)t;
  (void)pos;
  (void)a;
  ((Rank *)u)->skipped++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_unknown (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a)
{
  return ev_other (l, t, pos, u, a);
}

/* events compressed traces do not hold: counted */
static OTF2_CallbackCode
ev_request_test (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                 OTF2_AttributeList *a, uint64_t req)
{
  (void)req;
  return ev_other (l, t, pos, u, a);
}

static OTF2_CallbackCode
ev_onoff (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
          OTF2_MeasurementMode mode)
{
  (void)mode;
  return ev_other (l, t, pos, u, a);
}

static OTF2_CallbackCode
ev_metric (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
           OTF2_MetricRef m, uint8_t n, const OTF2_Type *types, const OTF2_MetricValue *values)
{
  Rank *r = u;
  /* the collector's CPU samples: kept, before the event that follows (format version 4; the
   * CPU id: 5) */
  if (m == r->defs->cpu_metric && n >= 1 && types[0] == OTF2_TYPE_UINT64)
    {
      uint64_t wait = r->defs->cpu_wait && n >= 2 && types[1] == OTF2_TYPE_UINT64
                          ? values[1].unsigned_int
                          : UINT64_MAX;
      uint64_t where = r->defs->cpu_where && n >= 3 && types[2] == OTF2_TYPE_UINT64
                           ? values[2].unsigned_int
                           : UINT64_MAX;
      if (!r->failed && kct_rank_cpu (r->rec, values[0].unsigned_int, wait, where) != 0)
        r->failed = TRUE;
      return OTF2_CALLBACK_SUCCESS;
    }
  return ev_other (l, t, pos, u, a);
}

static OTF2_CallbackCode
ev_param_string (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                 OTF2_AttributeList *a, OTF2_ParameterRef p, OTF2_StringRef v)
{
  (void)p;
  (void)v;
  return ev_other (l, t, pos, u, a);
}

static OTF2_CallbackCode
ev_param_int (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
              OTF2_ParameterRef p, int64_t v)
{
  (void)p;
  (void)v;
  return ev_other (l, t, pos, u, a);
}

static OTF2_CallbackCode
ev_param_uint (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
               OTF2_AttributeList *a, OTF2_ParameterRef p, uint64_t v)
{
  (void)p;
  (void)v;
  return ev_other (l, t, pos, u, a);
}

/* members of a group as world ranks (the COMM_LOCATIONS group's members are locations, the
 * COMM_GROUP groups' members indices into it, that is, world ranks) */
static Group *
group (Defs *d, guint32 id)
{
  return g_hash_table_lookup (d->groups, GUINT_TO_POINTER (id));
}

/* This rank's definitions into its own trace, as the collector adds them. */
static gboolean
rank_definitions (Defs *d, Rank *r, guint32 rank)
{
  KctTrace *t = r->t;
  for (guint i = 0; i < d->regions->len; i++)
    if (kct_region_add (t, &g_array_index (d->regions, KctRegion, i)) == KCT_NONE)
      return FALSE;
  for (guint i = 0; i < d->comms->len; i++)
    {
      Comm  *c = d->comms->pdata[i];
      Group *a = group (d, c->group), *b = c->inter ? group (d, c->group_b) : NULL;
      if (a == NULL)
        continue;
      gboolean member = FALSE;
      for (guint32 k = 0; k < a->n; k++)
        member |= a->members[k] == rank;
      for (guint32 k = 0; b != NULL && k < b->n; k++)
        member |= b->members[k] == rank;
      if (!member)
        continue;
      KctComm *k = kct_comm_add (t);
      if (k == NULL)
        return FALSE;
      k->key = (uint64_t)c->id + 1;
      k->parent_key = c->parent == OTF2_UNDEFINED_COMM ? 0 : (uint64_t)c->parent + 1;
      k->local_id = c->id;
      k->flags = c->inter ? KCT_COMM_INTER : 0;
      for (guint32 m = 0; m < a->n; m++)
        kct_list_add (&k->members, (uint32_t)a->members[m]);
      for (guint32 m = 0; b != NULL && m < b->n; m++)
        kct_list_add (&k->members_b, (uint32_t)b->members[m]);
      kct_list_add (&k->users, rank);
    }
  for (guint i = 0; i < d->carts->len; i++)
    {
      Cart    *c = d->carts->pdata[i];
      KctTopo *k = kct_topo_add (t);
      if (k == NULL || kct_set_string (&k->name, c->name) != 0)
        return FALSE;
      k->comm_key = (uint64_t)c->comm + 1;
      k->ndims = c->ndims;
      memcpy (k->dims, c->dims, sizeof k->dims);
      memcpy (k->periods, c->periods, sizeof k->periods);
      /* the coordinates once, with rank 0's definitions */
      for (guint m = 0; rank == 0 && m < c->coord_rank->len; m++)
        {
          kct_list_add (&k->coord_rank, g_array_index (c->coord_rank, guint32, m));
          for (guint x = 0; x < c->ndims; x++)
            kct_list_add (&k->coords, g_array_index (c->coords, guint32, m * c->ndims + x));
        }
    }
  guint64  loc = g_array_index (d->ranks, guint64, rank);
  guint    lg = GPOINTER_TO_UINT (g_hash_table_lookup (d->loc_group, &loc));
  guint    node = lg ? GPOINTER_TO_UINT (g_hash_table_lookup (d->loc_node, GUINT_TO_POINTER (lg - 1))) : 0;
  guint    name = node ? GPOINTER_TO_UINT (g_hash_table_lookup (d->node_name, GUINT_TO_POINTER (node - 1))) : 0;
  KctHost *h = kct_host_add (t, name ? string (d, name - 1) : "localhost");
  if (h == NULL || kct_list_add (&h->ranks, rank) != 0)
    return FALSE;
  const NodeProps *p = node ? g_hash_table_lookup (d->node_props, GUINT_TO_POINTER (node - 1)) : NULL;
  if (p != NULL)
    {
      h->cpus = p->cpus;
      h->other_known = p->other_cpu_known && p->other_wall_known;
      h->other_cpu_ns = h->other_known ? p->other_cpu_ns : 0;
      h->other_wall_ns = h->other_known ? p->other_wall_ns : 0;
    }
  if (d->cpu_metric != OTF2_UNDEFINED_METRIC)
    t->cpu_flags = KCT_CPU_SAMPLED | (d->cpu_wait ? KCT_CPU_WAIT : 0)
                   | (d->cpu_where ? KCT_CPU_WHERE : 0);
  return TRUE;
}

static gboolean
compress_rank (OTF2_Reader *reader, Defs *d, guint32 rank, const KctTimeSettings *ts,
               KctOtf2EventFunc observe, gpointer observe_data, KctTrace **out, guint64 *skipped,
               char **program, GError **error, const char *anchor)
{
  guint64         loc = g_array_index (d->ranks, guint64, rank);
  Rank            r = { 0 };
  OTF2_EvtReader *er = OTF2_Reader_GetEvtReader (reader, loc);
  if (er == NULL)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: cannot read the events of rank %u"),
                   anchor, rank);
      return FALSE;
    }
  r.defs = d;
  r.rank = rank;
  r.observe = observe;
  r.observe_data = observe_data;
  r.t = kct_trace_new ();
  r.t->h.timer_resolution = d->resolution ? d->resolution : 1000000000u;
  if (ts != NULL)
    {
      if (ts->abs_seconds > 0)
        r.t->h.time_abs = MAX ((guint64)(ts->abs_seconds * (double)r.t->h.timer_resolution + 0.5), 1);
      r.t->h.time_bits = ts->bits;
      r.t->h.timelines = ts->timelines;
    }
  r.rec = kct_rank_new (r.t, rank);
  if (r.rec == NULL)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: out of memory"), anchor);
      kct_trace_free (r.t);
      return FALSE;
    }
  r.my_pos = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < d->comms->len; i++)
    {
      Comm  *c = d->comms->pdata[i];
      Group *a = group (d, c->group), *b = c->inter ? group (d, c->group_b) : NULL;
      for (guint32 k = 0; a != NULL && k < a->n; k++)
        if (a->members[k] == rank)
          g_hash_table_insert (r.my_pos, GUINT_TO_POINTER (c->id), GUINT_TO_POINTER (k + 1));
      for (guint32 k = 0; b != NULL && k < b->n; k++)
        if (b->members[k] == rank)
          g_hash_table_insert (r.my_pos, GUINT_TO_POINTER (c->id), GUINT_TO_POINTER (k + 1));
    }
  for (guint i = 0; i < d->regions->len; i++)
    kct_rank_region_flags (r.rec, i, g_array_index (d->regions, KctRegion, i).flags);

  OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New ();
  OTF2_EvtReaderCallbacks_SetEnterCallback (cb, ev_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback (cb, ev_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback (cb, ev_send);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback (cb, ev_recv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback (cb, ev_isend);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback (cb, ev_irecv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback (cb, ev_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback (cb, ev_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback (cb, ev_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback (cb, ev_coll_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback (cb, ev_coll_end);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (cb, ev_nbc_request);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (cb, ev_nbc_complete);
  OTF2_EvtReaderCallbacks_SetProgramBeginCallback (cb, ev_program_begin);
  OTF2_EvtReaderCallbacks_SetProgramEndCallback (cb, ev_program_end);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback (cb, ev_request_test);
  OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback (cb, ev_onoff);
  OTF2_EvtReaderCallbacks_SetMetricCallback (cb, ev_metric);
  OTF2_EvtReaderCallbacks_SetParameterStringCallback (cb, ev_param_string);
  OTF2_EvtReaderCallbacks_SetParameterIntCallback (cb, ev_param_int);
  OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback (cb, ev_param_uint);
  OTF2_EvtReaderCallbacks_SetUnknownCallback (cb, ev_unknown);
  OTF2_Reader_RegisterEvtCallbacks (reader, er, cb, &r);
  OTF2_EvtReaderCallbacks_Delete (cb);
  uint64_t       n = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents (reader, er, &n);
  OTF2_Reader_CloseEvtReader (reader, er);
  gboolean ok = rc == OTF2_SUCCESS && !r.failed;
  if (rc != OTF2_SUCCESS)
    g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2,
                 _ ("%s: corrupt events of rank %u after %llu events (%s)"), anchor, rank,
                 (unsigned long long)n, OTF2_Error_GetDescription (rc));
  else if (r.failed || kct_rank_end (r.rec, 0, d->offset) != 0 || !rank_definitions (d, &r, rank))
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: out of memory"), anchor);
      ok = FALSE;
    }
  kct_rank_free (r.rec);
  g_hash_table_unref (r.my_pos);
  *skipped += r.skipped;
  if (*program == NULL)
    *program = g_steal_pointer (&r.program);
  g_free (r.program);
  if (!ok)
    {
      kct_trace_free (r.t);
      return FALSE;
    }
  r.t->h.n_ranks = d->ranks->len;
  r.t->h.flags |= KCT_FILE_PARTIAL;
  *out = r.t;
  return TRUE;
}

/* ARCHIVE/LOC.def for the anchor ARCHIVE.otf2 (trace-reader.c's trace_event_file_path) */
static char *
local_def_path (const char *anchor, guint64 loc)
{
  g_autofree char *dir = g_path_get_dirname (anchor);
  g_autofree char *base = g_path_get_basename (anchor);
  char             file[64];
  if (g_str_has_suffix (base, ".otf2"))
    base[strlen (base) - 5] = '\0';
  g_snprintf (file, sizeof file, "%" G_GUINT64_FORMAT ".def", loc);
  return g_build_filename (dir, base, file, NULL);
}

static guint64
archive_size (const char *anchor)
{
  g_autofree char *dir = g_path_get_dirname (anchor);
  g_autofree char *base = g_path_get_basename (anchor);
  if (g_str_has_suffix (base, ".otf2"))
    base[strlen (base) - 5] = '\0';
  guint64        total = 0;
  GStatBuf       st;
  const char    *ext[] = { ".otf2", ".def" };
  for (int i = 0; i < 2; i++)
    {
      g_autofree char *f = g_strdup_printf ("%s/%s%s", dir, base, ext[i]);
      if (g_stat (f, &st) == 0)
        total += (guint64)st.st_size;
    }
  g_autofree char *sub = g_build_filename (dir, base, NULL);
  g_autoptr (GDir) d = g_dir_open (sub, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *f = g_build_filename (sub, name, NULL);
      if (g_stat (f, &st) == 0 && S_ISREG (st.st_mode))
        total += (guint64)st.st_size;
    }
  return total;
}

static KctTrace *compress_all (const char *anchor, const KctTimeSettings *ts,
                               KctOtf2EventFunc observe, gpointer observe_data,
                               guint64 *skipped_out, GError **error);

KctTrace *
kct_compress_otf2 (const char *anchor, const KctTimeSettings *ts, guint64 *skipped_out,
                   GError **error)
{
  return compress_all (anchor, ts, NULL, NULL, skipped_out, error);
}

gboolean
kct_otf2_events (const char *anchor, KctOtf2EventFunc observe, gpointer data, guint32 *n_ranks,
                 GError **error)
{
  KctTrace *t = compress_all (anchor, NULL, observe, data, NULL, error);
  if (t != NULL && n_ranks != NULL)
    *n_ranks = t->h.n_ranks;
  kct_trace_free (t);
  return t != NULL;
}

static KctTrace *
compress_all (const char *anchor, const KctTimeSettings *ts, KctOtf2EventFunc observe,
              gpointer observe_data, guint64 *skipped_out, GError **error)
{
  if (!g_file_test (anchor, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("%s: no such OTF2 anchor file"), anchor);
      return NULL;
    }
  OTF2_Reader *reader = OTF2_Reader_Open (anchor);
  if (reader == NULL)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: not a readable OTF2 archive"), anchor);
      return NULL;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  Defs d = { 0 };
  d.strings = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  d.region_at = g_hash_table_new (NULL, NULL);
  d.regions = g_array_new (FALSE, TRUE, sizeof (KctRegion));
  d.groups = g_hash_table_new_full (NULL, NULL, NULL, group_free);
  d.comms = g_ptr_array_new_with_free_func (g_free);
  d.dims = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  d.carts = g_ptr_array_new_with_free_func (cart_free);
  d.loc_group = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  d.loc_node = g_hash_table_new (NULL, NULL);
  d.node_name = g_hash_table_new (NULL, NULL);
  d.ranks = g_array_new (FALSE, FALSE, sizeof (guint64));
  d.node_props = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  d.cpu_members = g_hash_table_new (NULL, NULL);
  d.cpu_metric = OTF2_UNDEFINED_METRIC;
  KctTrace *all = NULL;
  gboolean  ok = read_defs (reader, &d);
  if (!ok)
    g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: corrupt global definitions"), anchor);
  else if (d.ranks->len == 0)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2,
                   _ ("%s: no MPI locations (no COMM_LOCATIONS group)"), anchor);
      ok = FALSE;
    }
  guint64 skipped = 0;
  char   *program = NULL;
  if (ok)
    {
      for (guint r = 0; r < d.ranks->len; r++)
        OTF2_Reader_SelectLocation (reader, g_array_index (d.ranks, guint64, r));
      /* local definitions first: mapping tables and clock offsets. They are optional, but a
       * file that is there and cannot be read would silently drop them (kubus-analyze and
       * kubus-sim refuse such a trace: trace-reader.c) */
      if (OTF2_Reader_OpenDefFiles (reader) == OTF2_SUCCESS)
        {
          for (guint r = 0; ok && r < d.ranks->len; r++)
            {
              guint64          loc = g_array_index (d.ranks, guint64, r);
              g_autofree char *def_path = local_def_path (anchor, loc);
              OTF2_DefReader  *dr = OTF2_Reader_GetDefReader (reader, loc);
              OTF2_ErrorCode   rc = OTF2_SUCCESS;
              if (dr != NULL)
                {
                  uint64_t n = 0;
                  rc = OTF2_Reader_ReadAllLocalDefinitions (reader, dr, &n);
                  OTF2_Reader_CloseDefReader (reader, dr);
                }
              else if (g_file_test (def_path, G_FILE_TEST_IS_REGULAR))
                rc = OTF2_ERROR_INVALID_DATA;
              if (rc != OTF2_SUCCESS)
                {
                  g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: corrupt local definitions (%s)"),
                               def_path, OTF2_Error_GetDescription (rc));
                  ok = FALSE;
                }
            }
          OTF2_Reader_CloseDefFiles (reader);
        }
      if (ok)
        {
          ok = OTF2_Reader_OpenEvtFiles (reader) == OTF2_SUCCESS;
          if (!ok)
            g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: cannot open the event files"),
                         anchor);
        }
    }
  for (guint r = 0; ok && r < d.ranks->len; r++)
    {
      KctTrace *one = NULL;
      ok = compress_rank (reader, &d, r, ts, observe, observe_data, &one, &skipped, &program, error,
                          anchor);
      if (ok && all == NULL)
        all = one;
      else if (ok)
        {
          ok = kct_merge (all, one) == 0;
          kct_trace_free (one);
          if (!ok)
            g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: out of memory"), anchor);
        }
    }
  if (ok)
    OTF2_Reader_CloseEvtFiles (reader);
  if (ok)
    {
      /* the archive's properties (the MPI library's eager limits), not OTF2's own */
      uint32_t n = 0;
      char   **names = NULL;
      if (OTF2_Reader_GetPropertyNames (reader, &n, &names) == OTF2_SUCCESS && names != NULL)
        for (uint32_t i = 0; ok && i < n; i++)
          {
            char *v = NULL;
            if (names[i] && strncmp (names[i], "OTF2::", 6) != 0
                && OTF2_Reader_GetProperty (reader, names[i], &v) == OTF2_SUCCESS && v != NULL
                && kct_prop_set (all, names[i], v) != 0)
              {
                g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: out of memory"), anchor);
                ok = FALSE;
              }
            free (v);
          }
      free (names);
    }
  OTF2_Reader_Close (reader);
  if (ok && kct_finish (all) != 0)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("%s: out of memory"), anchor);
      ok = FALSE;
    }
  if (ok)
    {
      all->h.flags |= KCT_FILE_OFFLINE;
      all->h.timer_resolution = d.resolution ? d.resolution : 1000000000u;
      all->h.global_start = d.offset;
      all->h.length = d.length;
      all->h.realtime_start = d.realtime;
      all->h.otf2_bytes = archive_size (anchor);
      kct_set_string (&all->h.program, program ? program : "");
      kct_set_string (&all->h.creator, "Kubus " KUBUS_VERSION " (kubus-trace compress)");
      if (skipped_out != NULL)
        *skipped_out = skipped;
    }
  else
    {
      kct_trace_free (all);
      all = NULL;
    }
  g_free (program);
  defs_free (&d);
  return all;
}
