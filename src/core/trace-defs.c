/* trace-defs.c — the global definitions of an OTF2 archive: strings, regions (classified for
 * the metric tree), groups and communicators (comm-local rank → world rank), the system tree,
 * locations (world rank = position in the MPI COMM_LOCATIONS group) and Cartesian topologies. */
#include "analyze-private.h"
#include "cpu-metric.h"
#include "kubus-mpi-io.h"

#include <glib/gi18n.h>
#include <otf2/otf2.h>
#include <string.h>

typedef struct
{
  guint32 cart;
  guint32 rank;
  guint   ndims;
  guint32 coords[8];
} RawCoord;

typedef struct
{
  TraceDefs *defs;
  GArray    *raw_coords;
  GHashTable *comm_group;   /* comm id -> group id + 1 */
  GHashTable *comm_group_b; /* inter-communicator id -> its group B id + 1 */
} DefsBuild;

static gboolean
has_prefix_in (const char  *name,
               const char **list)
{
  for (guint i = 0; list[i]; i++)
    if (g_str_has_prefix (name, list[i]))
      return TRUE;
  return FALSE;
}

static gboolean
is_in (const char  *name,
       const char **list)
{
  for (guint i = 0; list[i]; i++)
    if (strcmp (name, list[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Classifies an MPI function for the metric tree and the patterns (PATTERNS.md categories). */
static void
classify_region (TraceRegion *r,
                 gboolean     mpi_paradigm)
{
  static const char *p2p[] = { "MPI_Send", "MPI_Bsend", "MPI_Rsend", "MPI_Ssend", "MPI_Isend",
                               "MPI_Ibsend", "MPI_Irsend", "MPI_Issend", "MPI_Recv", "MPI_Irecv",
                               "MPI_Sendrecv", "MPI_Wait", "MPI_Test", "MPI_Probe", "MPI_Iprobe",
                               "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Start",
                               "MPI_Request_free", "MPI_Cancel", "MPI_Buffer_attach",
                               "MPI_Buffer_detach", NULL };
  static const char *coll[] = { "MPI_Bcast", "MPI_Gather", "MPI_Scatter", "MPI_Allgather",
                                "MPI_Alltoall", "MPI_Allreduce", "MPI_Reduce", "MPI_Scan",
                                "MPI_Exscan", "MPI_Neighbor_", "MPI_Ibcast", "MPI_Igather",
                                "MPI_Iscatter", "MPI_Iallgather", "MPI_Ialltoall", "MPI_Iallreduce",
                                "MPI_Ireduce", "MPI_Iscan", "MPI_Iexscan", "MPI_Ineighbor_", NULL };
  static const char *mgmt[] = { "MPI_Comm_", "MPI_Cart_", "MPI_Cartdim_", "MPI_Group_",
                                "MPI_Dims_create", "MPI_Topo_", "MPI_Graph", "MPI_Intercomm_",
                                "MPI_Dist_graph", NULL };
  static const char *barrier[] = { "MPI_Barrier", "MPI_Ibarrier", NULL };
  static const char *init[] = { "MPI_Init", "MPI_Init_thread", NULL };
  static const char *lr_send[] = { "MPI_Send", "MPI_Ssend", NULL };
  static const char *lr_wait[] = { "MPI_Wait", "MPI_Waitany", NULL };
  static const char *test[] = { "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome", NULL };
  static const char *many[] = { "MPI_Waitall", "MPI_Waitsome", NULL };
  const char *n = r->name;

  r->klass = RC_USER;
  r->flags = 0;
  if (!g_str_has_prefix (n, "MPI_"))
    {
      if (mpi_paradigm)
        r->klass = RC_MPI_OTHER;
      else if (strcmp (n, "KUBUS_FLUSH") == 0 || strcmp (n, "TRACE BUFFER FLUSH") == 0)
        r->flags |= RF_FLUSH;
      return;
    }
  if (is_in (n, init))
    r->klass = RC_MPI_INIT;
  else if (strcmp (n, "MPI_Finalize") == 0)
    r->klass = RC_MPI_FINALIZE;
  else if (is_in (n, barrier))
    r->klass = RC_MPI_BARRIER;
  else if (g_str_has_prefix (n, "MPI_File_"))
    r->klass = kubus_mpi_io_collective (n) ? RC_MPI_IO_COLL : RC_MPI_IO;
  else if (has_prefix_in (n, mgmt))
    r->klass = RC_MPI_MGMT_COMM;
  else if (has_prefix_in (n, coll) && strcmp (n, "MPI_Reduce_local") != 0)
    r->klass = RC_MPI_COLL;
  else if (has_prefix_in (n, p2p))
    r->klass = RC_MPI_P2P;
  else
    r->klass = RC_MPI_OTHER;
  if (is_in (n, lr_send))
    r->flags |= RF_LR_SEND;
  if (is_in (n, lr_wait))
    r->flags |= RF_LR_WAIT;
  if (is_in (n, test))
    r->flags |= RF_TEST;
  if (is_in (n, many))
    r->flags |= RF_WAIT_MANY;
}

static OTF2_CallbackCode
on_clock (void    *ud,
          uint64_t resolution,
          uint64_t offset,
          uint64_t length G_GNUC_UNUSED,
          uint64_t realtime G_GNUC_UNUSED)
{
  DefsBuild *b = ud;
  b->defs->resolution = resolution;
  b->defs->global_offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_string (void          *ud,
           OTF2_StringRef self,
           const char    *string)
{
  DefsBuild *b = ud;
  g_hash_table_replace (b->defs->strings, GUINT_TO_POINTER (self), g_strdup (string ? string : ""));
  return OTF2_CALLBACK_SUCCESS;
}

const char *
trace_defs_string (const TraceDefs *defs,
                   guint64          id)
{
  const char *s;
  if (id == OTF2_UNDEFINED_STRING)
    return "";
  s = g_hash_table_lookup (defs->strings, GUINT_TO_POINTER ((guint) id));
  return s ? s : "";
}

static OTF2_CallbackCode
on_sysnode (void                  *ud,
            OTF2_SystemTreeNodeRef self,
            OTF2_StringRef         name,
            OTF2_StringRef         klass,
            OTF2_SystemTreeNodeRef parent)
{
  DefsBuild *b = ud;
  TraceSysNode *n = g_new0 (TraceSysNode, 1);
  n->id = self;
  n->name = g_strdup (trace_defs_string (b->defs, name));
  n->klass = g_strdup (trace_defs_string (b->defs, klass));
  n->parent = parent;
  g_ptr_array_add (b->defs->sysnodes, n);
  return OTF2_CALLBACK_SUCCESS;
}

/* KUBUS::CPUS: what the collector found the host's ranks could use; KUBUS::OTHER_CPU_NS and
 * KUBUS::OTHER_WALL_NS: what other programs took of the host meanwhile */
static OTF2_CallbackCode
on_sysnode_property (void                  *ud,
                     OTF2_SystemTreeNodeRef node,
                     OTF2_StringRef         name,
                     OTF2_Type              type,
                     OTF2_AttributeValue    value)
{
  DefsBuild  *b = ud;
  const char *s = trace_defs_string (b->defs, name);
  int         which = cpu_host_property (s, type);
  if (which == 0)
    return OTF2_CALLBACK_SUCCESS;
  for (guint i = 0; i < b->defs->sysnodes->len; i++)
    {
      TraceSysNode *n = b->defs->sysnodes->pdata[i];
      if (n->id != node)
        continue;
      if (which == 1)
        n->cpus = value.uint32;
      else if (which == 2)
        n->other_cpu_ns = value.uint64;
      else
        n->other_wall_ns = value.uint64;
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_metric_member (void                *ud,
                  OTF2_MetricMemberRef self,
                  OTF2_StringRef       name,
                  OTF2_StringRef       description G_GNUC_UNUSED,
                  OTF2_MetricType      metricType G_GNUC_UNUSED,
                  OTF2_MetricMode      metricMode,
                  OTF2_Type            valueType,
                  OTF2_Base            base G_GNUC_UNUSED,
                  int64_t              exponent,
                  OTF2_StringRef       unit G_GNUC_UNUSED)
{
  DefsBuild *b = ud;
  const char *n = trace_defs_string (b->defs, name);
  int which = cpu_metric_member (n, metricMode, valueType, exponent);
  if (which != CPU_MEMBER_NONE)
    g_hash_table_insert (b->defs->cpu_members, GUINT_TO_POINTER (self), GINT_TO_POINTER (which));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_metric_class (void                       *ud,
                 OTF2_MetricRef              self,
                 uint8_t                     n,
                 const OTF2_MetricMemberRef *members,
                 OTF2_MetricOccurrence       occurrence G_GNUC_UNUSED,
                 OTF2_RecorderKind           kind G_GNUC_UNUSED)
{
  DefsBuild *b = ud;
  int kinds[3] = { 0 }, cls;
  for (int i = 0; i < n && i < 3; i++)
    kinds[i] = GPOINTER_TO_INT (g_hash_table_lookup (b->defs->cpu_members, GUINT_TO_POINTER (members[i])));
  if ((cls = cpu_metric_class (kinds, n)) != 0)
    {
      b->defs->cpu_metric = self;
      b->defs->cpu_metric_wait = (cls & 2) != 0;
      b->defs->cpu_metric_where = (cls & 4) != 0;
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_locgroup (void                  *ud,
             OTF2_LocationGroupRef  self,
             OTF2_StringRef         name,
             OTF2_LocationGroupType type G_GNUC_UNUSED,
             OTF2_SystemTreeNodeRef parent,
             OTF2_LocationGroupRef  creator G_GNUC_UNUSED)
{
  DefsBuild *b = ud;
  TraceLocGroup *g = g_new0 (TraceLocGroup, 1);
  g->id = self;
  g->name = g_strdup (trace_defs_string (b->defs, name));
  g->sys_parent = parent;
  g_ptr_array_add (b->defs->locgroups, g);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_location (void                 *ud,
             OTF2_LocationRef      self,
             OTF2_StringRef        name,
             OTF2_LocationType     type G_GNUC_UNUSED,
             uint64_t              n_events,
             OTF2_LocationGroupRef group)
{
  DefsBuild *b = ud;
  TraceLocation *l = g_new0 (TraceLocation, 1);
  l->id = self;
  l->name = g_strdup (trace_defs_string (b->defs, name));
  l->group = group;
  l->n_events = n_events;
  l->rank = -1;
  g_ptr_array_add (b->defs->locations, l);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_region (void            *ud,
           OTF2_RegionRef   self,
           OTF2_StringRef   name,
           OTF2_StringRef   canonical G_GNUC_UNUSED,
           OTF2_StringRef   descr G_GNUC_UNUSED,
           OTF2_RegionRole  role G_GNUC_UNUSED,
           OTF2_Paradigm    paradigm,
           OTF2_RegionFlag  flags G_GNUC_UNUSED,
           OTF2_StringRef   file,
           uint32_t         begin,
           uint32_t         end)
{
  DefsBuild *b = ud;
  TraceRegion *r = g_new0 (TraceRegion, 1);
  r->name = g_strdup (trace_defs_string (b->defs, name));
  r->file = g_strdup (trace_defs_string (b->defs, file));
  r->begin_line = begin;
  r->end_line = end;
  classify_region (r, paradigm == OTF2_PARADIGM_MPI);
  r->frame = paradigm == OTF2_PARADIGM_SAMPLING;
  g_hash_table_replace (b->defs->regions, GUINT_TO_POINTER (self), r);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_group (void            *ud,
          OTF2_GroupRef    self,
          OTF2_StringRef   name,
          OTF2_GroupType   type,
          OTF2_Paradigm    paradigm,
          OTF2_GroupFlag   flags G_GNUC_UNUSED,
          uint32_t         n,
          const uint64_t  *members)
{
  DefsBuild *b = ud;
  TraceGroup *g = g_new0 (TraceGroup, 1);
  g->id = self;
  g->name = g_strdup (trace_defs_string (b->defs, name));
  g->group_type = type;
  g->paradigm = paradigm;
  g->n_members = n;
  g->members = g_memdup2 (members, sizeof (uint64_t) * n);
  g_hash_table_replace (b->defs->groups, GUINT_TO_POINTER (self), g);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_comm (void          *ud,
         OTF2_CommRef   self,
         OTF2_StringRef name,
         OTF2_GroupRef  group,
         OTF2_CommRef   parent G_GNUC_UNUSED,
         OTF2_CommFlag  flags G_GNUC_UNUSED)
{
  DefsBuild *b = ud;
  TraceComm *c = g_new0 (TraceComm, 1);
  c->id = self;
  c->index = b->defs->comms->len;
  c->name = g_strdup (trace_defs_string (b->defs, name));
  g_ptr_array_add (b->defs->comms, c);
  g_hash_table_replace (b->defs->comm_by_id, GUINT_TO_POINTER (self), c);
  g_hash_table_replace (b->comm_group, GUINT_TO_POINTER (self), GSIZE_TO_POINTER ((gsize) group + 1));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_inter_comm (void          *ud,
               OTF2_CommRef   self,
               OTF2_StringRef name,
               OTF2_GroupRef  group_a,
               OTF2_GroupRef  group_b,
               OTF2_CommRef   common G_GNUC_UNUSED,
               OTF2_CommFlag  flags)
{
  DefsBuild *b = ud;
  on_comm (ud, self, name, group_a, OTF2_UNDEFINED_COMM, flags);
  g_hash_table_replace (b->comm_group_b, GUINT_TO_POINTER (self),
                        GSIZE_TO_POINTER ((gsize) group_b + 1));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_cart_dim (void                 *ud,
             OTF2_CartDimensionRef self,
             OTF2_StringRef        name,
             uint32_t              size,
             OTF2_CartPeriodicity  periodic)
{
  DefsBuild *b = ud;
  TraceCartDim *d = g_new0 (TraceCartDim, 1);
  d->name = g_strdup (trace_defs_string (b->defs, name));
  d->size = size;
  d->periodic = periodic == OTF2_CART_PERIODIC_TRUE;
  g_hash_table_replace (b->defs->cart_dims, GUINT_TO_POINTER (self), d);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_cart (void                        *ud,
         OTF2_CartTopologyRef         self,
         OTF2_StringRef               name,
         OTF2_CommRef                 comm,
         uint8_t                      ndims,
         const OTF2_CartDimensionRef *dims)
{
  DefsBuild *b = ud;
  TraceCart *c = g_new0 (TraceCart, 1);
  c->id = self;
  c->name = g_strdup (trace_defs_string (b->defs, name));
  c->comm = comm;
  c->ndims = ndims;
  c->dims = g_new0 (guint32, MAX (ndims, 1));
  for (guint i = 0; i < ndims; i++)
    c->dims[i] = dims[i];
  g_ptr_array_add (b->defs->carts, c);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_cart_coord (void                *ud,
               OTF2_CartTopologyRef cart,
               uint32_t             rank,
               uint8_t              ndims,
               const uint32_t      *coords)
{
  DefsBuild *b = ud;
  RawCoord rc = { 0 };
  rc.cart = cart;
  rc.rank = rank;
  rc.ndims = MIN (ndims, 8);
  for (guint i = 0; i < rc.ndims; i++)
    rc.coords[i] = coords[i];
  g_array_append_val (b->raw_coords, rc);
  return OTF2_CALLBACK_SUCCESS;
}

static void
free_region (gpointer p)
{
  TraceRegion *r = p;
  g_free (r->name);
  g_free (r->file);
  g_free (r);
}

static void
free_group (gpointer p)
{
  TraceGroup *g = p;
  g_free (g->name);
  g_free (g->members);
  g_free (g);
}

static void
free_comm (gpointer p)
{
  TraceComm *c = p;
  g_free (c->name);
  g_free (c->world);
  g_free (c->world_b);
  g_free (c->in_b);
  g_free (c);
}

static void
free_sysnode (gpointer p)
{
  TraceSysNode *n = p;
  g_free (n->name);
  g_free (n->klass);
  g_free (n);
}

static void
free_locgroup (gpointer p)
{
  TraceLocGroup *g = p;
  g_free (g->name);
  g_free (g);
}

static void
free_location (gpointer p)
{
  TraceLocation *l = p;
  g_free (l->name);
  g_free (l);
}

static void
free_cart_dim (gpointer p)
{
  TraceCartDim *d = p;
  g_free (d->name);
  g_free (d);
}

static void
free_cart (gpointer p)
{
  TraceCart *c = p;
  g_free (c->name);
  g_free (c->dims);
  g_free (c->coords);
  g_free (c);
}

void
trace_defs_free (TraceDefs *defs)
{
  if (!defs)
    return;
  g_free (defs->path);
  g_free (defs->untraced_threads);
  g_hash_table_unref (defs->strings);
  g_hash_table_unref (defs->regions);
  g_hash_table_unref (defs->groups);
  g_hash_table_unref (defs->comm_by_id);
  g_ptr_array_unref (defs->comms);
  g_ptr_array_unref (defs->sysnodes);
  g_ptr_array_unref (defs->locgroups);
  g_ptr_array_unref (defs->locations);
  g_hash_table_unref (defs->cart_dims);
  g_ptr_array_unref (defs->carts);
  g_clear_pointer (&defs->cpu_members, g_hash_table_unref);
  g_free (defs->rank_loc);
  g_free (defs->region_dense);
  g_free (defs->comm_dense);
  g_free (defs);
}

TraceRegion *
trace_defs_region (const TraceDefs *defs,
                   guint64          id)
{
  if (id < defs->n_region_dense)
    return defs->region_dense[id];
  return g_hash_table_lookup (defs->regions, GUINT_TO_POINTER ((guint) id));
}

gint32
trace_defs_peer_rank (const TraceDefs *defs,
                      const TraceComm *c,
                      int              my_rank,
                      guint32          local_rank)
{
  if (c && c->is_inter)
    {
      /* the peer is a rank of the other group */
      gboolean mine_b = c->in_b && my_rank >= 0 && my_rank < defs->n_ranks && c->in_b[my_rank];
      const int *remote = mine_b ? c->world : c->world_b;
      int        n = mine_b ? c->size : c->size_b;
      if (!remote || local_rank >= (guint32) n)
        return -1;
      return remote[local_rank];
    }
  if (!c || !c->world || local_rank >= (guint32) c->size)
    return -1;
  if (c->world[local_rank] == -1 && c->size == 1)
    return my_rank;   /* MPI_COMM_SELF */
  return c->world[local_rank];
}

TraceComm *
trace_defs_comm (const TraceDefs *defs,
                 guint64          id)
{
  if (id < defs->n_comm_dense)
    return defs->comm_dense[id];
  return g_hash_table_lookup (defs->comm_by_id, GUINT_TO_POINTER ((guint) id));
}


/* The COMM_LOCATIONS group of @paradigm (members are location ids). */
static TraceGroup *
comm_locations (TraceDefs *defs,
                int        paradigm)
{
  GHashTableIter it;
  gpointer key, value;
  TraceGroup *best = NULL;

  g_hash_table_iter_init (&it, defs->groups);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      TraceGroup *g = value;
      if (g->group_type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g->paradigm == paradigm)
        if (!best || g->id < best->id)
          best = g;
    }
  return best;
}

/* World ranks: the MPI COMM_LOCATIONS group if there is one, else every location in order. */
static gboolean
resolve_ranks (TraceDefs *defs,
               GError   **error)
{
  TraceGroup *world = comm_locations (defs, OTF2_PARADIGM_MPI);

  if (world && world->n_members > 0)
    {
      /* location id -> location (the first definition of an id wins) */
      g_autoptr (GHashTable) by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
      for (guint i = defs->locations->len; i-- > 0;)
        {
          TraceLocation *l = defs->locations->pdata[i];
          g_hash_table_insert (by_id, &l->id, l);
        }
      defs->n_ranks = world->n_members;
      defs->rank_loc = g_new0 (TraceLocation *, defs->n_ranks);
      for (guint i = 0; i < world->n_members; i++)
        {
          TraceLocation *l = g_hash_table_lookup (by_id, &world->members[i]);
          if (!l)
            {
              g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           _("%s: the MPI location group names location %llu"
                             " which is not defined"),
                           defs->path, (unsigned long long) world->members[i]);
              return FALSE;
            }
          l->rank = i;
          defs->rank_loc[i] = l;
        }
    }
  else
    {
      defs->n_ranks = defs->locations->len;
      defs->rank_loc = g_new0 (TraceLocation *, MAX (defs->n_ranks, 1));
      for (guint i = 0; i < defs->locations->len; i++)
        {
          TraceLocation *l = defs->locations->pdata[i];
          l->rank = i;
          defs->rank_loc[i] = l;
        }
    }
  if (defs->n_ranks == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s: the trace defines no locations"), defs->path);
      return FALSE;
    }
  return TRUE;
}

/* What mapping a group member to a world rank needs, built once: the world rank of each
 * location id, and per paradigm the world ranks of its COMM_LOCATIONS group's members (looking
 * these up per member was quadratic in the number of communicators and of ranks). */
typedef struct
{
  GHashTable *rank_of_loc;      /* location id (guint64*) -> world rank + 1 */
  int        *cl_rank[256];     /* paradigm -> world rank of each COMM_LOCATIONS member */
  guint       cl_n[256];
  gboolean    cl_known[256];
} RankMap;

static void
rank_map_init (RankMap   *rm,
               TraceDefs *defs)
{
  memset (rm, 0, sizeof *rm);
  rm->rank_of_loc = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < defs->locations->len; i++)
    {
      TraceLocation *l = defs->locations->pdata[i];
      /* the first definition of an id wins, as in a linear search */
      if (!g_hash_table_contains (rm->rank_of_loc, &l->id))
        g_hash_table_insert (rm->rank_of_loc, &l->id, GINT_TO_POINTER (l->rank + 1));
    }
}

static void
rank_map_clear (RankMap *rm)
{
  g_hash_table_unref (rm->rank_of_loc);
  for (guint p = 0; p < G_N_ELEMENTS (rm->cl_rank); p++)
    g_free (rm->cl_rank[p]);
}

/* World rank of location @id, -1 if it is not defined (or not analysed). */
static int
rank_map_location (RankMap *rm,
                   guint64  id)
{
  gpointer v = g_hash_table_lookup (rm->rank_of_loc, &id);
  return v ? GPOINTER_TO_INT (v) - 1 : -1;
}

/* Maps a member of a COMM_GROUP (an index into COMM_LOCATIONS of the same paradigm) or of a
 * LOCATIONS group (a location id) to a world rank. */
static int
member_to_rank (TraceDefs  *defs,
                RankMap    *rm,
                TraceGroup *g,
                guint64     member)
{
  if (g->group_type == OTF2_GROUP_TYPE_COMM_GROUP)
    {
      guint p = (guint) g->paradigm & 255;
      if (!rm->cl_known[p])
        {
          TraceGroup *cl = comm_locations (defs, g->paradigm);
          rm->cl_known[p] = TRUE;
          if (cl)
            {
              rm->cl_n[p] = cl->n_members;
              rm->cl_rank[p] = g_new (int, MAX (cl->n_members, 1));
              for (guint i = 0; i < cl->n_members; i++)
                rm->cl_rank[p][i] = rank_map_location (rm, cl->members[i]);
            }
        }
      if (rm->cl_rank[p])
        return member < rm->cl_n[p] ? rm->cl_rank[p][member] : -1;
      if (member < (guint64) defs->n_ranks)
        return (int) member;
      return -1;
    }
  if (g->group_type == OTF2_GROUP_TYPE_LOCATIONS || g->group_type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
    return rank_map_location (rm, member);
  return -1;
}

static int *
group_world (TraceDefs  *defs,
             RankMap    *rm,
             TraceGroup *g)
{
  int *world = g_new0 (int, MAX (g->n_members, 1));
  for (guint k = 0; k < g->n_members; k++)
    world[k] = member_to_rank (defs, rm, g, g->members[k]);
  return world;
}

static void
resolve_comms (TraceDefs  *defs,
               GHashTable *comm_group,
               GHashTable *comm_group_b)
{
  RankMap rm;

  rank_map_init (&rm, defs);
  for (guint i = 0; i < defs->comms->len; i++)
    {
      TraceComm *c = defs->comms->pdata[i];
      gsize gid = GPOINTER_TO_SIZE (g_hash_table_lookup (comm_group, GUINT_TO_POINTER (c->id)));
      TraceGroup *g = gid ? g_hash_table_lookup (defs->groups, GUINT_TO_POINTER ((guint) (gid - 1))) : NULL;

      if (!g)
        continue;
      c->is_mpi = g->paradigm == OTF2_PARADIGM_MPI;
      if (g->group_type == OTF2_GROUP_TYPE_COMM_SELF)
        {
          c->size = 1;
          c->world = g_new0 (int, 1);
          c->world[0] = -1;  /* "myself": resolved by the reader */
          continue;
        }
      c->size = g->n_members;
      c->world = group_world (defs, &rm, g);
      gid = GPOINTER_TO_SIZE (g_hash_table_lookup (comm_group_b, GUINT_TO_POINTER (c->id)));
      g = gid ? g_hash_table_lookup (defs->groups, GUINT_TO_POINTER ((guint) (gid - 1))) : NULL;
      if (gid)
        {
          /* an inter-communicator: without its group B no peer can be mapped */
          c->is_inter = TRUE;
          if (!g || g->group_type == OTF2_GROUP_TYPE_COMM_SELF)
            {
              g_clear_pointer (&c->world, g_free);
              c->size = 0;
              continue;
            }
          c->size_b = g->n_members;
          c->world_b = group_world (defs, &rm, g);
          c->in_b = g_new0 (guint8, MAX (defs->n_ranks, 1));
          for (int k = 0; k < c->size_b; k++)
            if (c->world_b[k] >= 0 && c->world_b[k] < defs->n_ranks)
              c->in_b[c->world_b[k]] = 1;
        }
    }
  rank_map_clear (&rm);
}

static void
resolve_carts (TraceDefs *defs,
               GArray    *raw)
{
  for (guint i = 0; i < defs->carts->len; i++)
    {
      TraceCart *c = defs->carts->pdata[i];
      c->coords = g_new (int, (gsize) defs->n_ranks * MAX (c->ndims, 1));
      for (gsize k = 0; k < (gsize) defs->n_ranks * MAX (c->ndims, 1); k++)
        c->coords[k] = -1;
    }
  for (guint i = 0; i < raw->len; i++)
    {
      RawCoord *rc = &g_array_index (raw, RawCoord, i);
      TraceCart *cart = NULL;
      TraceComm *comm;
      int rank;

      for (guint k = 0; k < defs->carts->len; k++)
        if (((TraceCart *) defs->carts->pdata[k])->id == rc->cart)
          cart = defs->carts->pdata[k];
      if (!cart || rc->ndims != cart->ndims)
        continue;
      comm = trace_defs_comm (defs, cart->comm);
      if (comm && comm->world && rc->rank < (guint32) comm->size)
        rank = comm->world[rc->rank];
      else
        rank = rc->rank < (guint32) defs->n_ranks ? (int) rc->rank : -1;
      if (rank < 0)
        continue;
      for (guint d = 0; d < cart->ndims; d++)
        cart->coords[(gsize) rank * cart->ndims + d] = rc->coords[d];
    }
}

TraceCart *
trace_defs_wavefront_cart (const TraceDefs *defs)
{
  for (guint i = 0; i < defs->carts->len; i++)
    {
      TraceCart *c = defs->carts->pdata[i];
      TraceComm *comm = trace_defs_comm (defs, c->comm);
      if (c->ndims == 2 && comm && comm->is_mpi)
        return c;
    }
  return NULL;
}

TraceDefs *
trace_defs_read (const char *anchor,
                 GError    **error)
{
  g_autoptr (TraceDefs) defs = g_new0 (TraceDefs, 1);
  DefsBuild b = { 0 };
  OTF2_Reader *reader;
  OTF2_GlobalDefReader *gdr;
  OTF2_GlobalDefReaderCallbacks *cbs;
  uint64_t n_read = 0;
  OTF2_ErrorCode rc;

  defs->path = g_strdup (anchor);
  defs->resolution = 1;
  defs->strings = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  defs->regions = g_hash_table_new_full (NULL, NULL, NULL, free_region);
  defs->groups = g_hash_table_new_full (NULL, NULL, NULL, free_group);
  defs->comm_by_id = g_hash_table_new (NULL, NULL);
  defs->comms = g_ptr_array_new_with_free_func (free_comm);
  defs->sysnodes = g_ptr_array_new_with_free_func (free_sysnode);
  defs->locgroups = g_ptr_array_new_with_free_func (free_locgroup);
  defs->locations = g_ptr_array_new_with_free_func (free_location);
  defs->cart_dims = g_hash_table_new_full (NULL, NULL, NULL, free_cart_dim);
  defs->carts = g_ptr_array_new_with_free_func (free_cart);
  defs->cpu_metric = OTF2_UNDEFINED_METRIC;
  defs->cpu_members = g_hash_table_new (NULL, NULL);

  if (!g_file_test (anchor, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("%s: no such trace (expected an OTF2 anchor file)"), anchor);
      return NULL;
    }
  reader = OTF2_Reader_Open (anchor);
  if (!reader)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s: not a readable OTF2 archive"), anchor);
      return NULL;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  {
    char *v = NULL;
    if (OTF2_Reader_GetProperty (reader, "KUBUS::UNTRACED_THREAD_CALLS", &v) == OTF2_SUCCESS
        && v != NULL)
      defs->untraced_threads = g_strdup (v);
    free (v);
  }
  for (int t = 0; t < 2; t++)
    {
      char *v = NULL, *end = NULL;
      guint64 x;
      if (OTF2_Reader_GetProperty (reader, t == 0 ? "KUBUS::EAGER_LIMIT_SAME_HOST" : "KUBUS::EAGER_LIMIT_BETWEEN_HOSTS",
                                   &v) == OTF2_SUCCESS && v != NULL && g_ascii_isdigit (v[0]))
        {
          x = g_ascii_strtoull (v, &end, 10);
          if (end && *end == '\0' && x < G_MAXUINT64)
            defs->eager_limit_lib[t] = x;
        }
      free (v);
    }
  gdr = OTF2_Reader_GetGlobalDefReader (reader);
  if (!gdr)
    {
      OTF2_Reader_Close (reader);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s: cannot open the global definitions (the .def file is missing or corrupt)"), anchor);
      return NULL;
    }
  b.defs = defs;
  b.raw_coords = g_array_new (FALSE, FALSE, sizeof (RawCoord));
  b.comm_group = g_hash_table_new (NULL, NULL);
  b.comm_group_b = g_hash_table_new (NULL, NULL);
  cbs = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (cbs, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cbs, on_string);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback (cbs, on_sysnode);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback (cbs, on_sysnode_property);
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback (cbs, on_metric_member);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback (cbs, on_metric_class);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback (cbs, on_locgroup);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (cbs, on_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cbs, on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (cbs, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (cbs, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetInterCommCallback (cbs, on_inter_comm);
  OTF2_GlobalDefReaderCallbacks_SetCartDimensionCallback (cbs, on_cart_dim);
  OTF2_GlobalDefReaderCallbacks_SetCartTopologyCallback (cbs, on_cart);
  OTF2_GlobalDefReaderCallbacks_SetCartCoordinateCallback (cbs, on_cart_coord);
  OTF2_Reader_RegisterGlobalDefCallbacks (reader, gdr, cbs, &b);
  OTF2_GlobalDefReaderCallbacks_Delete (cbs);
  rc = OTF2_Reader_ReadAllGlobalDefinitions (reader, gdr, &n_read);
  OTF2_Reader_Close (reader);
  if (rc != OTF2_SUCCESS)
    {
      g_autofree char *stem = g_str_has_suffix (anchor, ".otf2")
                              ? g_strndup (anchor, strlen (anchor) - 5) : g_strdup (anchor);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s.def: corrupt global definitions (%s)"), stem,
                   OTF2_Error_GetDescription (rc));
      g_array_unref (b.raw_coords);
      g_hash_table_unref (b.comm_group);
      g_hash_table_unref (b.comm_group_b);
      return NULL;
    }
  if (defs->resolution == 0)
    defs->resolution = 1;
  if (!resolve_ranks (defs, error))
    {
      g_array_unref (b.raw_coords);
      g_hash_table_unref (b.comm_group);
      g_hash_table_unref (b.comm_group_b);
      return NULL;
    }
  {
    /* region lookups happen on every enter: a dense table for the usual dense ids */
    GHashTableIter it;
    gpointer k, v;
    guint max = 0;
    g_hash_table_iter_init (&it, defs->regions);
    while (g_hash_table_iter_next (&it, &k, &v))
      max = MAX (max, GPOINTER_TO_UINT (k) + 1);
    if (max <= 16 * g_hash_table_size (defs->regions) + 1024)
      {
        defs->n_region_dense = max;
        defs->region_dense = g_new0 (TraceRegion *, MAX (max, 1));
        g_hash_table_iter_init (&it, defs->regions);
        while (g_hash_table_iter_next (&it, &k, &v))
          defs->region_dense[GPOINTER_TO_UINT (k)] = v;
      }
  }
  {
    guint max = 0;
    for (guint i = 0; i < defs->comms->len; i++)
      max = MAX (max, ((TraceComm *) defs->comms->pdata[i])->id + 1);
    if (max <= 16 * defs->comms->len + 1024)
      {
        defs->n_comm_dense = max;
        defs->comm_dense = g_new0 (TraceComm *, MAX (max, 1));
        for (guint i = 0; i < defs->comms->len; i++)
          defs->comm_dense[((TraceComm *) defs->comms->pdata[i])->id] = defs->comms->pdata[i];
      }
  }
  resolve_comms (defs, b.comm_group, b.comm_group_b);
  resolve_carts (defs, b.raw_coords);
  g_array_unref (b.raw_coords);
  g_hash_table_unref (b.comm_group);
  g_hash_table_unref (b.comm_group_b);
  return g_steal_pointer (&defs);
}
