/* collect-check: reads a Kubus trace with the OTF2 reader API and prints a
 * summary, one fact per line, sorted, so tests can assert exact counts:
 *
 *   locations N
 *   enter REGION LOC COUNT            Enter events per region and location
 *   send LOC PEER COMM TAG COUNT BYTES     (also isend, recv, irecv)
 *   isendcomplete LOC COUNT / irecvrequest LOC COUNT
 *   coll OP COMM LOC ROOT COUNT SENT RECEIVED
 *   icoll OP COMM LOC ROOT COUNT SENT RECEIVED   non-blocking collectives, from their
 *                                     NonBlockingCollectiveComplete (OTF2 3.0)
 *   icollrequest LOC COUNT            NonBlockingCollectiveRequest events (at the enter time of
 *                                     their call, else icolltime LOC LATE N)
 *   comm NAME SIZE MEMBERS…
 *   intercomm NAME SIZEA MEMBERS… / SIZEB MEMBERS…   (OTF2 3.0 InterComm, world ranks)
 *   cart NAME COMM DIMS PERIODS / coord NAME RANK X Y …
 *   clockoffsets LOC COUNT
 *   balance LOC ok|BROKEN             Enter/Leave nesting per location
 *   order LOC ok|BROKEN               timestamps never decrease
 *   sendtime LOC ok|LATE N            MpiSend/MpiIsend carry the enter time of their call
 *   requests LOC ok|BROKEN …           every MpiIsendComplete / MpiIrecv / MpiRequestCancelled /
 *                                     NonBlockingCollectiveComplete completes an open request of
 *                                     its kind, none stays open
 *   cancelled LOC COUNT               MpiRequestCancelled events
 *   flushes LOC COUNT                 KUBUS_FLUSH regions
 *   nest PARENT CHILD LOC COUNT       Enter events of CHILD directly inside PARENT (- = root)
 *   programbegin LOC NAME NARGS / programend LOC STATUS|undefined
 *   program LOC ok|none|BROKEN        the location's events are ProgramBegin, Enter of the
 *                                     program region (artificial, measurement system) at the
 *                                     same time, everything else nested inside it, its Leave
 *                                     and ProgramEnd at the same time; none = no events
 *   systemregion NAME CANONICAL role ROLE    regions of the measurement system
 *
 * Exit status 1 when the trace cannot be read. */
#include <glib.h>
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <string.h>

#define MAX_LOC 256

typedef struct
{
  GHashTable *strings;    /* id -> name */
  GHashTable *regions;    /* id -> string id */
  GHashTable *comms;      /* id -> name */
  GHashTable *comm_group; /* comm id -> group id */
  GHashTable *comm_group_b; /* inter-communicator id -> group B id */
  GHashTable *groups;     /* group id -> GArray of uint64 members */
  GHashTable *cart_dims;  /* dim id -> "size:periodic" */
  GHashTable *facts;      /* line prefix -> uint64[3] (count, a, b) */
  GPtrArray  *lines;      /* definitions, printed as is */
  GHashTable *topo_names; /* topo id -> name */
  uint64_t    locations[MAX_LOC];
  int         n_locations;
  GArray     *stack[MAX_LOC];
  GArray     *enter_times[MAX_LOC]; /* enter time of each open region */
  int         late_sends[MAX_LOC];
  uint64_t    last_time[MAX_LOC];
  int         broken_balance[MAX_LOC];
  int         broken_order[MAX_LOC];
  int         clock_offsets[MAX_LOC];
  GHashTable *region_kind; /* id -> paradigm << 8 | role, + 1 */
  /* the program region check, per location */
  uint64_t n_events[MAX_LOC];
  uint64_t begin_time[MAX_LOC], root_leave_time[MAX_LOC];
  int      begin_first[MAX_LOC], root_enters[MAX_LOC], root_ok[MAX_LOC], root_left[MAX_LOC];
  int      ended[MAX_LOC], after_end[MAX_LOC];
  /* request ids: id -> 1 (send) or 2 (receive) while open */
  GHashTable *open_requests[MAX_LOC];
  int         unmatched_requests[MAX_LOC];
} Check;

static Check C;

static const char *
string_of (uint32_t id)
{
  const char *s = g_hash_table_lookup (C.strings, GUINT_TO_POINTER (id + 1));
  return s ? s : "?";
}

static const char *
region_name (uint32_t region)
{
  gpointer sid;
  if (!g_hash_table_lookup_extended (C.regions, GUINT_TO_POINTER (region + 1), NULL, &sid))
    return "UNDEFINED_REGION";
  return string_of (GPOINTER_TO_UINT (sid) - 1);
}

static const char *
comm_name (uint32_t comm)
{
  const char *s = g_hash_table_lookup (C.comms, GUINT_TO_POINTER (comm + 1));
  return s ? s : "UNDEFINED_COMM";
}

static void
fact (const char *key, uint64_t a, uint64_t b)
{
  uint64_t *v = g_hash_table_lookup (C.facts, key);
  if (v == NULL)
    {
      v = g_new0 (uint64_t, 3);
      g_hash_table_insert (C.facts, g_strdup (key), v);
    }
  v[0]++;
  v[1] += a;
  v[2] += b;
}

/* ---- global definitions ---- */

static OTF2_CallbackCode
def_string (void *u, OTF2_StringRef self, const char *s)
{
  (void)u;
  g_hash_table_insert (C.strings, GUINT_TO_POINTER (self + 1), g_strdup (s));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_location (void                 *u,
              OTF2_LocationRef      self,
              OTF2_StringRef        name,
              OTF2_LocationType     type,
              uint64_t              n,
              OTF2_LocationGroupRef g)
{
  (void)u;
  (void)name;
  (void)type;
  (void)n;
  (void)g;
  if (C.n_locations < MAX_LOC)
    C.locations[C.n_locations++] = self;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_region (void           *u,
            OTF2_RegionRef  self,
            OTF2_StringRef  name,
            OTF2_StringRef  canonical,
            OTF2_StringRef  descr,
            OTF2_RegionRole role,
            OTF2_Paradigm   paradigm,
            OTF2_RegionFlag flags,
            OTF2_StringRef  file,
            uint32_t        b,
            uint32_t        e)
{
  (void)u;
  (void)descr;
  (void)flags;
  (void)b;
  (void)e;
  g_hash_table_insert (C.regions, GUINT_TO_POINTER (self + 1), GUINT_TO_POINTER (name + 1));
  g_hash_table_insert (C.region_kind, GUINT_TO_POINTER (self + 1),
                       GUINT_TO_POINTER (((guint)paradigm << 8 | (guint)role) + 1));
  if (paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM)
    g_ptr_array_add (C.lines, g_strdup_printf ("systemregion %s %s role %d", string_of (name),
                                               string_of (canonical), (int)role));
  else if (paradigm == OTF2_PARADIGM_MPI)
    g_ptr_array_add (C.lines, g_strdup_printf ("region %s role %d file %s", string_of (name),
                                               (int)role, string_of (file)));
  else
    g_ptr_array_add (C.lines, g_strdup_printf ("userregion %s %s", string_of (name),
                                               paradigm == OTF2_PARADIGM_USER       ? "user"
                                               : paradigm == OTF2_PARADIGM_COMPILER ? "compiler"
                                                                                    : "other"));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_group (void           *u,
           OTF2_GroupRef   self,
           OTF2_StringRef  name,
           OTF2_GroupType  type,
           OTF2_Paradigm   paradigm,
           OTF2_GroupFlag  flags,
           uint32_t        n,
           const uint64_t *members)
{
  (void)u;
  (void)name;
  (void)type;
  (void)paradigm;
  (void)flags;
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (uint64_t), n);
  g_array_append_vals (a, members, n);
  g_hash_table_insert (C.groups, GUINT_TO_POINTER (self + 1), a);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_inter_comm (void          *u,
                OTF2_CommRef   self,
                OTF2_StringRef name,
                OTF2_GroupRef  group_a,
                OTF2_GroupRef  group_b,
                OTF2_CommRef   common,
                OTF2_CommFlag  flags)
{
  (void)u;
  (void)common;
  (void)flags;
  g_hash_table_insert (C.comms, GUINT_TO_POINTER (self + 1), g_strdup (string_of (name)));
  g_hash_table_insert (C.comm_group, GUINT_TO_POINTER (self + 1), GUINT_TO_POINTER (group_a + 1));
  g_hash_table_insert (C.comm_group_b, GUINT_TO_POINTER (self + 1),
                       GUINT_TO_POINTER (group_b + 1));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_comm (void          *u,
          OTF2_CommRef   self,
          OTF2_StringRef name,
          OTF2_GroupRef  group,
          OTF2_CommRef   parent,
          OTF2_CommFlag  flags)
{
  (void)u;
  (void)parent;
  (void)flags;
  g_hash_table_insert (C.comms, GUINT_TO_POINTER (self + 1), g_strdup (string_of (name)));
  g_hash_table_insert (C.comm_group, GUINT_TO_POINTER (self + 1), GUINT_TO_POINTER (group + 1));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_cart_dim (void                 *u,
              OTF2_CartDimensionRef self,
              OTF2_StringRef        name,
              uint32_t              size,
              OTF2_CartPeriodicity  periodic)
{
  (void)u;
  (void)name;
  g_hash_table_insert (C.cart_dims, GUINT_TO_POINTER (self + 1),
                       g_strdup_printf ("%u:%d", size, (int)periodic));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_cart_topo (void                        *u,
               OTF2_CartTopologyRef         self,
               OTF2_StringRef               name,
               OTF2_CommRef                 comm,
               uint8_t                      n,
               const OTF2_CartDimensionRef *dims)
{
  (void)u;
  GString *d = g_string_new (NULL), *p = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    {
      const char *s = g_hash_table_lookup (C.cart_dims, GUINT_TO_POINTER (dims[i] + 1));
      unsigned    size = 0;
      int         per = 0;
      if (s)
        sscanf (s, "%u:%d", &size, &per);
      g_string_append_printf (d, "%s%u", i ? "x" : "", size);
      g_string_append_printf (p, "%s%d", i ? "," : "", per);
    }
  g_hash_table_insert (C.topo_names, GUINT_TO_POINTER (self + 1), g_strdup (string_of (name)));
  g_ptr_array_add (C.lines, g_strdup_printf ("cart %s %s %s %s", string_of (name), comm_name (comm),
                                             d->str, p->str));
  g_string_free (d, TRUE);
  g_string_free (p, TRUE);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_cart_coord (
    void *u, OTF2_CartTopologyRef topo, uint32_t rank, uint8_t n, const uint32_t *coords)
{
  (void)u;
  GString    *s = g_string_new (NULL);
  const char *name = g_hash_table_lookup (C.topo_names, GUINT_TO_POINTER (topo + 1));
  g_string_printf (s, "coord %s %u", name ? name : "?", rank);
  for (int i = 0; i < n; i++)
    g_string_append_printf (s, " %u", coords[i]);
  g_ptr_array_add (C.lines, g_string_free (s, FALSE));
  return OTF2_CALLBACK_SUCCESS;
}

/* ---- local definitions ---- */

static OTF2_CallbackCode
def_clock_offset (void *u, OTF2_TimeStamp t, int64_t offset, double sd)
{
  (void)t;
  (void)offset;
  (void)sd;
  C.clock_offsets[GPOINTER_TO_INT (u)]++;
  return OTF2_CALLBACK_SUCCESS;
}

/* ---- events ---- */

static int
loc_index (OTF2_LocationRef l)
{
  for (int i = 0; i < C.n_locations; i++)
    if (C.locations[i] == l)
      return i;
  return 0;
}

static void
tick (OTF2_LocationRef l, OTF2_TimeStamp t)
{
  int i = loc_index (l);
  if (t < C.last_time[i])
    C.broken_order[i] = 1;
  C.last_time[i] = t;
  C.n_events[i]++;
  if (C.ended[i])
    C.after_end[i] = 1;
}

static int
is_program_region (OTF2_RegionRef r)
{
  guint k = GPOINTER_TO_UINT (g_hash_table_lookup (C.region_kind, GUINT_TO_POINTER (r + 1)));
  return k != 0
         && k - 1 == ((guint)OTF2_PARADIGM_MEASUREMENT_SYSTEM << 8 | OTF2_REGION_ROLE_ARTIFICIAL);
}

static OTF2_CallbackCode
ev_program_begin (OTF2_LocationRef      l,
                  OTF2_TimeStamp        t,
                  void                 *u,
                  OTF2_AttributeList   *a,
                  OTF2_StringRef        name,
                  uint32_t              n,
                  const OTF2_StringRef *args)
{
  (void)u;
  (void)a;
  (void)args;
  tick (l, t);
  int i = loc_index (l);
  C.begin_first[i] = C.n_events[i] == 1;
  C.begin_time[i] = t;
  char key[4200];
  snprintf (key, sizeof key, "programbegin %" PRIu64 " %s %u", l, string_of (name), n);
  fact (key, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_program_end (OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, int64_t st)
{
  (void)u;
  (void)a;
  tick (l, t);
  int i = loc_index (l);
  if (!C.root_left[i] || C.root_leave_time[i] != t || C.stack[i]->len != 0 || C.ended[i])
    C.root_ok[i] = 0;
  C.ended[i] = 1;
  char key[128];
  if (st == OTF2_UNDEFINED_INT64)
    snprintf (key, sizeof key, "programend %" PRIu64 " undefined", l);
  else
    snprintf (key, sizeof key, "programend %" PRIu64 " %" PRId64, l, st);
  fact (key, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_enter (OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, OTF2_RegionRef r)
{
  (void)u;
  (void)a;
  tick (l, t);
  int     i = loc_index (l);
  GArray *s = C.stack[i];
  char    key[1024];
  if (s->len == 0)
    {
      /* the first root is the program region, right after ProgramBegin; no other root */
      if (++C.root_enters[i] == 1)
        C.root_ok[i] = C.begin_first[i] && C.n_events[i] == 2 && t == C.begin_time[i]
                       && is_program_region (r);
      else
        C.root_ok[i] = 0;
    }
  snprintf (key, sizeof key, "nest %s %s %" PRIu64,
            s->len ? region_name (g_array_index (s, uint32_t, s->len - 1)) : "-", region_name (r),
            l);
  fact (key, 0, 0);
  g_array_append_val (C.stack[i], r);
  g_array_append_val (C.enter_times[i], t);
  snprintf (key, sizeof key, "enter %s %" PRIu64, region_name (r), l);
  fact (key, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_leave (OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, OTF2_RegionRef r)
{
  (void)u;
  (void)a;
  tick (l, t);
  GArray *s = C.stack[loc_index (l)];
  if (s->len == 0 || g_array_index (s, uint32_t, s->len - 1) != r)
    C.broken_balance[loc_index (l)] = 1;
  else
    {
      g_array_set_size (s, s->len - 1);
      g_array_set_size (C.enter_times[loc_index (l)], s->len);
      if (s->len == 0)
        {
          C.root_left[loc_index (l)] = 1;
          C.root_leave_time[loc_index (l)] = t;
        }
    }
  return OTF2_CALLBACK_SUCCESS;
}

static void
request_open (OTF2_LocationRef l, uint64_t id, int kind)
{
  GHashTable *h = C.open_requests[loc_index (l)];
  if (g_hash_table_contains (h, &id))
    C.unmatched_requests[loc_index (l)]++;
  uint64_t *k = g_new (uint64_t, 1);
  *k = id;
  g_hash_table_insert (h, k, GINT_TO_POINTER (kind));
}

/* kind 0: either */
static void
request_close (OTF2_LocationRef l, uint64_t id, int kind)
{
  GHashTable *h = C.open_requests[loc_index (l)];
  int         open = GPOINTER_TO_INT (g_hash_table_lookup (h, &id));
  if (open == 0 || (kind != 0 && open != kind))
    C.unmatched_requests[loc_index (l)]++;
  else
    g_hash_table_remove (h, &id);
}

/* Scalasca semantics: a send happens when its call is entered. */
static void
send_time (OTF2_LocationRef l, OTF2_TimeStamp t)
{
  GArray *e = C.enter_times[loc_index (l)];
  if (e->len == 0 || g_array_index (e, OTF2_TimeStamp, e->len - 1) != t)
    C.late_sends[loc_index (l)]++;
}

static void
msg (const char      *kind,
     OTF2_LocationRef l,
     uint32_t         peer,
     OTF2_CommRef     comm,
     uint32_t         tag,
     uint64_t         len)
{
  char key[512];
  snprintf (key, sizeof key, "%s %" PRIu64 " %u %s %u", kind, l, peer, comm_name (comm), tag);
  fact (key, len, 0);
}

static OTF2_CallbackCode
ev_send (OTF2_LocationRef    l,
         OTF2_TimeStamp      t,
         void               *u,
         OTF2_AttributeList *a,
         uint32_t            peer,
         OTF2_CommRef        comm,
         uint32_t            tag,
         uint64_t            len)
{
  (void)u;
  (void)a;
  tick (l, t);
  send_time (l, t);
  msg ("send", l, peer, comm, tag, len);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_recv (OTF2_LocationRef    l,
         OTF2_TimeStamp      t,
         void               *u,
         OTF2_AttributeList *a,
         uint32_t            peer,
         OTF2_CommRef        comm,
         uint32_t            tag,
         uint64_t            len)
{
  (void)u;
  (void)a;
  tick (l, t);
  msg ("recv", l, peer, comm, tag, len);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_isend (OTF2_LocationRef    l,
          OTF2_TimeStamp      t,
          void               *u,
          OTF2_AttributeList *a,
          uint32_t            peer,
          OTF2_CommRef        comm,
          uint32_t            tag,
          uint64_t            len,
          uint64_t            id)
{
  (void)u;
  (void)a;
  tick (l, t);
  send_time (l, t);
  request_open (l, id, 1);
  msg ("isend", l, peer, comm, tag, len);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_irecv (OTF2_LocationRef    l,
          OTF2_TimeStamp      t,
          void               *u,
          OTF2_AttributeList *a,
          uint32_t            peer,
          OTF2_CommRef        comm,
          uint32_t            tag,
          uint64_t            len,
          uint64_t            id)
{
  (void)u;
  (void)a;
  tick (l, t);
  request_close (l, id, 2);
  msg ("irecv", l, peer, comm, tag, len);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_isend_complete (
    OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint64_t id)
{
  (void)u;
  (void)a;
  tick (l, t);
  request_close (l, id, 1);
  char key[64];
  snprintf (key, sizeof key, "isendcomplete %" PRIu64, l);
  fact (key, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_irecv_request (OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint64_t id)
{
  (void)u;
  (void)a;
  tick (l, t);
  request_open (l, id, 2);
  char key[64];
  snprintf (key, sizeof key, "irecvrequest %" PRIu64, l);
  fact (key, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_request_cancelled (
    OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint64_t id)
{
  (void)u;
  (void)a;
  tick (l, t);
  request_close (l, id, 0);
  char key[64];
  snprintf (key, sizeof key, "cancelled %" PRIu64, l);
  fact (key, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_coll_begin (OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a)
{
  (void)u;
  (void)a;
  tick (l, t);
  return OTF2_CALLBACK_SUCCESS;
}

static const char *
op_name (OTF2_CollectiveOp op)
{
  static const char *names[] = { "BARRIER",
                                 "BCAST",
                                 "GATHER",
                                 "GATHERV",
                                 "SCATTER",
                                 "SCATTERV",
                                 "ALLGATHER",
                                 "ALLGATHERV",
                                 "ALLTOALL",
                                 "ALLTOALLV",
                                 "ALLTOALLW",
                                 "ALLREDUCE",
                                 "REDUCE",
                                 "REDUCE_SCATTER",
                                 "SCAN",
                                 "EXSCAN",
                                 "REDUCE_SCATTER_BLOCK" };
  return op < G_N_ELEMENTS (names) ? names[op] : "OTHER";
}

static OTF2_CallbackCode
ev_coll_end (OTF2_LocationRef    l,
             OTF2_TimeStamp      t,
             void               *u,
             OTF2_AttributeList *a,
             OTF2_CollectiveOp   op,
             OTF2_CommRef        comm,
             uint32_t            root,
             uint64_t            sent,
             uint64_t            received)
{
  (void)u;
  (void)a;
  tick (l, t);
  char key[512], r[16];
  if (root == OTF2_UNDEFINED_UINT32)
    snprintf (r, sizeof r, "none");
  else
    snprintf (r, sizeof r, "%u", root);
  snprintf (key, sizeof key, "coll %s %s %" PRIu64 " %s", op_name (op), comm_name (comm), l, r);
  fact (key, sent, received);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_nbc_request (OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint64_t id)
{
  (void)u;
  (void)a;
  tick (l, t);
  send_time (l, t); /* started when its call was entered, as a send */
  request_open (l, id, 3);
  char key[64];
  snprintf (key, sizeof key, "icollrequest %" PRIu64, l);
  fact (key, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_nbc_complete (OTF2_LocationRef    l,
                 OTF2_TimeStamp      t,
                 void               *u,
                 OTF2_AttributeList *a,
                 OTF2_CollectiveOp   op,
                 OTF2_CommRef        comm,
                 uint32_t            root,
                 uint64_t            sent,
                 uint64_t            received,
                 uint64_t            id)
{
  (void)u;
  (void)a;
  tick (l, t);
  request_close (l, id, 3);
  char key[512], r[16];
  if (root == OTF2_UNDEFINED_UINT32)
    snprintf (r, sizeof r, "none");
  else
    snprintf (r, sizeof r, "%u", root);
  snprintf (key, sizeof key, "icoll %s %s %" PRIu64 " %s", op_name (op), comm_name (comm), l, r);
  fact (key, sent, received);
  return OTF2_CALLBACK_SUCCESS;
}

static int
by_string (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *)a, *(char *const *)b);
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: collect-check EXPDIR/traces.otf2\n");
      return 2;
    }
  C.strings = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  C.regions = g_hash_table_new (NULL, NULL);
  C.comms = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  C.comm_group = g_hash_table_new (NULL, NULL);
  C.comm_group_b = g_hash_table_new (NULL, NULL);
  C.groups = g_hash_table_new (NULL, NULL);
  C.cart_dims = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  C.topo_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  C.facts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  C.lines = g_ptr_array_new_with_free_func (g_free);
  C.region_kind = g_hash_table_new (NULL, NULL);

  OTF2_Reader *rd = OTF2_Reader_Open (argv[1]);
  if (rd == NULL || OTF2_Reader_SetSerialCollectiveCallbacks (rd) != OTF2_SUCCESS)
    {
      fprintf (stderr, "collect-check: cannot open %s\n", argv[1]);
      return 1;
    }
  OTF2_GlobalDefReader          *gdr = OTF2_Reader_GetGlobalDefReader (rd);
  OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (gcb, def_string);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (gcb, def_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (gcb, def_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (gcb, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (gcb, def_comm);
  OTF2_GlobalDefReaderCallbacks_SetInterCommCallback (gcb, def_inter_comm);
  OTF2_GlobalDefReaderCallbacks_SetCartDimensionCallback (gcb, def_cart_dim);
  OTF2_GlobalDefReaderCallbacks_SetCartTopologyCallback (gcb, def_cart_topo);
  OTF2_GlobalDefReaderCallbacks_SetCartCoordinateCallback (gcb, def_cart_coord);
  OTF2_Reader_RegisterGlobalDefCallbacks (rd, gdr, gcb, NULL);
  uint64_t n_defs = 0;
  if (OTF2_Reader_ReadAllGlobalDefinitions (rd, gdr, &n_defs) != OTF2_SUCCESS)
    {
      fprintf (stderr, "collect-check: cannot read the global definitions\n");
      return 1;
    }
  OTF2_GlobalDefReaderCallbacks_Delete (gcb);

  /* communicators with their members (world ranks) */
  GHashTableIter it;
  gpointer       k, v;
  g_hash_table_iter_init (&it, C.comms);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      gpointer g = g_hash_table_lookup (C.comm_group, k);
      GArray  *m = g ? g_hash_table_lookup (C.groups, g) : NULL;
      GString *s = g_string_new (NULL);
      gpointer gb = g_hash_table_lookup (C.comm_group_b, k);
      GArray  *mb = gb ? g_hash_table_lookup (C.groups, gb) : NULL;
      g_string_printf (s, "%s %s %u", gb ? "intercomm" : "comm", (char *)v, m ? m->len : 0);
      for (guint i = 0; m && i < m->len; i++)
        g_string_append_printf (s, " %" PRIu64, g_array_index (m, uint64_t, i));
      if (gb)
        {
          g_string_append_printf (s, " / %u", mb ? mb->len : 0);
          for (guint i = 0; mb && i < mb->len; i++)
            g_string_append_printf (s, " %" PRIu64, g_array_index (mb, uint64_t, i));
        }
      g_ptr_array_add (C.lines, g_string_free (s, FALSE));
    }

  for (int i = 0; i < C.n_locations; i++)
    {
      OTF2_Reader_SelectLocation (rd, C.locations[i]);
      C.stack[i] = g_array_new (FALSE, FALSE, sizeof (uint32_t));
      C.enter_times[i] = g_array_new (FALSE, FALSE, sizeof (OTF2_TimeStamp));
      C.open_requests[i] = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
    }
  int have_defs = OTF2_Reader_OpenDefFiles (rd) == OTF2_SUCCESS;
  OTF2_Reader_OpenEvtFiles (rd);
  for (int i = 0; i < C.n_locations; i++)
    {
      if (have_defs)
        {
          OTF2_DefReader *dr = OTF2_Reader_GetDefReader (rd, C.locations[i]);
          if (dr)
            {
              OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New ();
              OTF2_DefReaderCallbacks_SetClockOffsetCallback (cb, def_clock_offset);
              OTF2_Reader_RegisterDefCallbacks (rd, dr, cb, GINT_TO_POINTER (i));
              uint64_t n = 0;
              OTF2_Reader_ReadAllLocalDefinitions (rd, dr, &n);
              OTF2_DefReaderCallbacks_Delete (cb);
              OTF2_Reader_CloseDefReader (rd, dr);
            }
        }
      OTF2_Reader_GetEvtReader (rd, C.locations[i]);
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
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback (ecb, ev_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback (ecb, ev_isend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback (ecb, ev_irecv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback (ecb, ev_isend_complete);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback (ecb, ev_irecv_request);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback (ecb, ev_request_cancelled);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback (ecb, ev_coll_begin);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback (ecb, ev_coll_end);
  OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (ecb, ev_nbc_request);
  OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (ecb, ev_nbc_complete);
  OTF2_Reader_RegisterGlobalEvtCallbacks (rd, ger, ecb, NULL);
  uint64_t       n_events = 0;
  OTF2_ErrorCode err = OTF2_Reader_ReadAllGlobalEvents (rd, ger, &n_events);
  OTF2_GlobalEvtReaderCallbacks_Delete (ecb);
  if (err != OTF2_SUCCESS)
    {
      fprintf (stderr, "collect-check: reading events failed: %s\n", OTF2_Error_GetName (err));
      return 1;
    }
  OTF2_Reader_CloseGlobalEvtReader (rd, ger);
  OTF2_Reader_CloseEvtFiles (rd);
  OTF2_Reader_Close (rd);

  g_ptr_array_add (C.lines, g_strdup_printf ("locations %d", C.n_locations));
  for (int i = 0; i < C.n_locations; i++)
    {
      uint64_t l = C.locations[i];
      g_ptr_array_add (C.lines,
                       g_strdup_printf ("balance %" PRIu64 " %s", l,
                                        C.broken_balance[i] || C.stack[i]->len ? "BROKEN" : "ok"));
      g_ptr_array_add (C.lines, g_strdup_printf ("order %" PRIu64 " %s", l,
                                                 C.broken_order[i] ? "BROKEN" : "ok"));
      g_ptr_array_add (C.lines,
                       g_strdup_printf ("clockoffsets %" PRIu64 " %d", l, C.clock_offsets[i]));
      const char *prog = C.n_events[i] == 0 ? "none"
                         : C.root_ok[i] && C.root_enters[i] == 1 && C.ended[i] && !C.after_end[i]
                             ? "ok"
                             : "BROKEN";
      g_ptr_array_add (C.lines, g_strdup_printf ("program %" PRIu64 " %s", l, prog));
      guint open = g_hash_table_size (C.open_requests[i]);
      if (C.unmatched_requests[i] || open)
        g_ptr_array_add (C.lines,
                         g_strdup_printf ("requests %" PRIu64 " BROKEN unmatched %d open %u", l,
                                          C.unmatched_requests[i], open));
      else
        g_ptr_array_add (C.lines, g_strdup_printf ("requests %" PRIu64 " ok", l));
      if (C.late_sends[i])
        g_ptr_array_add (C.lines,
                         g_strdup_printf ("sendtime %" PRIu64 " LATE %d", l, C.late_sends[i]));
      else
        g_ptr_array_add (C.lines, g_strdup_printf ("sendtime %" PRIu64 " ok", l));
    }
  g_hash_table_iter_init (&it, C.facts);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      uint64_t   *f = v;
      const char *key = k;
      if (g_str_has_prefix (key, "coll ") || g_str_has_prefix (key, "icoll "))
        g_ptr_array_add (C.lines, g_strdup_printf ("%s %" PRIu64 " %" PRIu64 " %" PRIu64, key, f[0],
                                                   f[1], f[2]));
      else if (g_str_has_prefix (key, "enter ") || g_str_has_prefix (key, "nest ")
               || g_str_has_prefix (key, "programbegin ") || g_str_has_prefix (key, "programend ")
               || g_str_has_prefix (key, "isendcomplete ") || g_str_has_prefix (key, "cancelled ")
               || g_str_has_prefix (key, "irecvrequest ") || g_str_has_prefix (key, "icollrequest "))
        g_ptr_array_add (C.lines, g_strdup_printf ("%s %" PRIu64, key, f[0]));
      else
        g_ptr_array_add (C.lines, g_strdup_printf ("%s %" PRIu64 " %" PRIu64, key, f[0], f[1]));
    }
  g_ptr_array_sort (C.lines, by_string);
  for (guint i = 0; i < C.lines->len; i++)
    printf ("%s\n", (char *)C.lines->pdata[i]);
  return 0;
}
