/* kct-expand.c: a compressed trace back to OTF2 (kubus-trace expand).
 *
 * The archive looks like the collector's: the same regions, one location per rank, the
 * communicators with their members, Cartesian topologies, the system tree from the host
 * names; events come from the replay iterator (kct-replay.c), one rank at a time, so memory
 * stays at one rank's OTF2 buffer.  Written into a temporary directory next to the target,
 * renamed when complete. */
#include "kct.h"
#include "remove-tree.h"
#include "kubus-text.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <otf2/otf2.h>
#include <string.h>

static OTF2_FlushType
pre_flush (void *u, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
  (void)u;
  (void)type;
  (void)loc;
  (void)caller;
  (void)final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *u, OTF2_FileType type, OTF2_LocationRef loc)
{
  (void)u;
  (void)type;
  (void)loc;
  return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

typedef struct
{
  OTF2_GlobalDefWriter *gw;
  GHashTable           *ids; /* string -> id + 1 */
  guint32               next;
  gboolean              failed;
} Strings;

static guint32
str (Strings *st, const char *s)
{
  gpointer v = g_hash_table_lookup (st->ids, s);
  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  guint32 id = st->next++;
  g_hash_table_insert (st->ids, g_strdup (s), GUINT_TO_POINTER (id + 1));
  /* names recorded from the program: valid UTF-8 in the trace, whatever bytes they hold */
  g_autofree char *valid = kubus_utf8_valid (s, strlen (s)) ? NULL : kubus_text_utf8 (s);
  if (OTF2_GlobalDefWriter_WriteString (st->gw, id, valid != NULL ? valid : s) != OTF2_SUCCESS)
    st->failed = TRUE;
  return id;
}

/* ---- causal order ------------------------------------------------------------------------- */

/* An event whose time the expansion moves (later), by its index in the rank's events. */
typedef struct
{
  guint64 index;
  guint64 time;
} Moved;

typedef struct
{
  guint64 key[3]; /* comm << 32 | tag, sender, receiver */
} ChanKey;

static guint
chan_hash (gconstpointer p)
{
  const ChanKey *k = p;
  return (guint)(k->key[0] * 0x9E3779B97F4A7C15ull ^ k->key[1] * 0xC2B2AE3D27D4EB4Full ^ k->key[2]);
}

static gboolean
chan_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (ChanKey)) == 0;
}

typedef struct
{
  GQueue  sends;  /* times (guint64 *) of sends not received yet, in order */
  gint32  waiting; /* a rank blocked on this channel, -1 = none */
} Chan;

static void
chan_free (gpointer p)
{
  Chan *c = p;
  g_queue_clear_full (&c->sends, g_free);
  g_free (c);
}

typedef struct
{
  KctReplay *it;
  KctEvent   ev;      /* the next event, not yet taken */
  gboolean   have, done, blocked;
  guint64    index;   /* of ev */
  guint64    last;    /* the rank's last time, as moved */
  GArray    *moved;   /* Moved */
} Lane;

static Chan *
channel (GHashTable *chans, guint64 comm, guint64 tag, guint64 from, guint64 to)
{
  ChanKey k = { { comm << 32 | tag, from, to } };
  Chan   *c = g_hash_table_lookup (chans, &k);
  if (c == NULL)
    {
      c = g_new0 (Chan, 1);
      g_queue_init (&c->sends);
      c->waiting = -1;
      g_hash_table_insert (chans, g_memdup2 (&k, sizeof k), c);
    }
  return c;
}

/* All ranks' events once, in an order that respects messages, so that no receive lies before
 * its send: a rank that meets a receive whose send is not there yet waits for the sender.  A
 * receive before its send (a rank replaying its group's mean times, or one that starts within
 * a grid step of the end before it) moves to the send's time, and the rank's later events
 * with it as far as they would lie before it.  Per rank, the events that move
 * (kct_expand_moves_free). */
static GArray **
causal_moves (const KctTrace *t, const KctComms *comms, KctExpandStats *st, GError **error)
{
  guint32     n = t->h.n_ranks;
  Lane       *lanes = g_new0 (Lane, n);
  GHashTable *chans = g_hash_table_new_full (chan_hash, chan_equal, g_free, chan_free);
  gboolean    ok = TRUE;
  for (guint32 r = 0; r < n; r++)
    {
      lanes[r].it = kct_replay_new (t, comms, r);
      kct_replay_cpu (lanes[r].it); /* event indices as write_rank counts them */
      lanes[r].moved = g_array_new (FALSE, FALSE, sizeof (Moved));
    }
  guint32 left = n;
  while (left > 0 && ok)
    {
      gboolean progress = FALSE;
      for (guint32 r = 0; r < n && ok; r++)
        {
          Lane *l = &lanes[r];
          while (!l->done && !l->blocked && ok)
            {
              if (!l->have)
                {
                  int rc = kct_replay_next (l->it, &l->ev);
                  if (rc < 0)
                    {
                      g_set_error (error, KCT_ERROR, KCT_ERROR_CORRUPT,
                                   _ ("the compressed trace is inconsistent: %s"),
                                   kct_replay_error (l->it));
                      ok = FALSE;
                      break;
                    }
                  if (rc == 0)
                    {
                      l->done = TRUE;
                      left--;
                      progress = TRUE;
                      break;
                    }
                  l->have = TRUE;
                }
              if (l->ev.type == KCT_EV_CPU)
                {
                  /* a CPU sample takes the time of the event after it (write_rank) */
                  l->index++;
                  l->have = FALSE;
                  continue;
                }
              guint64 time = MAX (l->ev.time, l->last);
              if (l->ev.type == KCT_RAW_SEND || l->ev.type == KCT_RAW_ISEND)
                {
                  Chan *c = channel (chans, l->ev.comm, l->ev.tag, r, l->ev.peer_world);
                  g_queue_push_tail (&c->sends, g_memdup2 (&time, sizeof time));
                  if (c->waiting >= 0)
                    {
                      lanes[c->waiting].blocked = FALSE;
                      c->waiting = -1;
                    }
                }
              else if (l->ev.type == KCT_RAW_RECV || l->ev.type == KCT_RAW_IRECV)
                {
                  Chan *c = channel (chans, l->ev.comm, l->ev.tag, l->ev.peer_world, r);
                  if (g_queue_is_empty (&c->sends) && !l->blocked && left > 0)
                    {
                      /* its send is still to come */
                      c->waiting = (gint32)r;
                      l->blocked = TRUE;
                      break;
                    }
                  guint64 *s = g_queue_pop_head (&c->sends);
                  if (s != NULL)
                    {
                      if (*s > time)
                        {
                          st->receives_moved++;
                          st->largest_move = MAX (st->largest_move, *s - l->ev.time);
                          time = *s;
                        }
                      g_free (s);
                    }
                  else
                    st->unmatched++;
                }
              if (time != l->ev.time)
                {
                  Moved m = { l->index, time };
                  g_array_append_val (l->moved, m);
                  st->events_moved++;
                }
              l->last = time;
              l->index++;
              l->have = FALSE;
              progress = TRUE;
            }
        }
      if (!progress && left > 0 && ok)
        {
          /* every rank left waits for a send that never comes (a receive without a recorded
           * send): the earliest one goes on without */
          guint32 best = n;
          for (guint32 r = 0; r < n; r++)
            if (!lanes[r].done && lanes[r].blocked
                && (best == n || lanes[r].ev.time < lanes[best].ev.time))
              best = r;
          if (best == n)
            break;
          Chan *c = channel (chans, lanes[best].ev.comm, lanes[best].ev.tag,
                             lanes[best].ev.peer_world, best);
          c->waiting = -1;
          lanes[best].blocked = FALSE;
          /* taken without a send: counted as unmatched above */
          Lane *l = &lanes[best];
          l->last = MAX (l->ev.time, l->last);
          if (l->last != l->ev.time)
            {
              Moved m = { l->index, l->last };
              g_array_append_val (l->moved, m);
              st->events_moved++;
            }
          st->unmatched++;
          l->index++;
          l->have = FALSE;
        }
    }
  GArray **moved = g_new0 (GArray *, n + 1);
  for (guint32 r = 0; r < n; r++)
    {
      kct_replay_free (lanes[r].it);
      moved[r] = lanes[r].moved;
      if (!ok)
        g_array_unref (moved[r]);
    }
  g_free (lanes);
  g_hash_table_unref (chans);
  if (!ok)
    {
      g_free (moved);
      return NULL;
    }
  return moved;
}

static void
moves_free (GArray **moved, guint32 n)
{
  for (guint32 r = 0; moved != NULL && r < n; r++)
    g_array_unref (moved[r]);
  g_free (moved);
}

KctComms *
kct_comms_open (const KctTrace *t, GError **error)
{
  char      why[256];
  KctComms *comms = kct_comms_new (t, why, sizeof why);
  if (comms == NULL)
    g_set_error (error, KCT_ERROR, KCT_ERROR_CORRUPT, _ ("the compressed trace is inconsistent: %s"),
                 why);
  return comms;
}

gboolean
kct_expand_check (const KctTrace *t, KctExpandStats *st, GError **error)
{
  memset (st, 0, sizeof *st);
  KctComms *comms = kct_comms_open (t, error);
  if (comms == NULL)
    return FALSE;
  GArray **moved = causal_moves (t, comms, st, error);
  moves_free (moved, t->h.n_ranks);
  kct_comms_free (comms);
  return moved != NULL;
}

/* One rank's events; returns the number written or -1 with @error set. */
static gint64
write_rank (OTF2_Archive    *archive,
            const KctTrace  *t,
            const KctComms  *comms,
            guint32          rank,
            const GArray    *moved,
            guint64         *last_time,
            GError         **error)
{
  OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter (archive, rank);
  if (w == NULL)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("cannot open the event writer of rank %u"),
                   rank);
      return -1;
    }
  KctReplay     *it = kct_replay_new (t, comms, rank);
  KctEvent       ev;
  int            r;
  OTF2_ErrorCode e = OTF2_SUCCESS;
  guint64        index = 0, next_move = 0;
  /* CPU samples wait for the event they stand before: they take its time as moved */
  GArray        *samples = g_array_new (FALSE, FALSE, sizeof (KctEvent));
  uint8_t        n_values = !(t->cpu_flags & KCT_CPU_WAIT)    ? 1
                            : !(t->cpu_flags & KCT_CPU_WHERE) ? 2
                                                              : 3;
  kct_replay_cpu (it);
  while (e == OTF2_SUCCESS && (r = kct_replay_next (it, &ev)) == 1)
    {
      if (moved != NULL && next_move < moved->len
          && g_array_index (moved, Moved, next_move).index == index)
        ev.time = g_array_index (moved, Moved, next_move++).time;
      index++;
      if (ev.type == KCT_EV_CPU)
        {
          g_array_append_val (samples, ev);
          continue;
        }
      for (guint i = 0; i < samples->len && e == OTF2_SUCCESS; i++)
        {
          const KctEvent   *s = &g_array_index (samples, KctEvent, i);
          OTF2_Type        types[3] = { OTF2_TYPE_UINT64, OTF2_TYPE_UINT64, OTF2_TYPE_UINT64 };
          OTF2_MetricValue values[3];
          values[0].unsigned_int = s->cpu;
          values[1].unsigned_int = s->wait;
          values[2].unsigned_int = s->where;
          e = OTF2_EvtWriter_Metric (w, NULL, ev.time, 0 /* the metric class of write_globals */,
                                     n_values, types, values);
        }
      g_array_set_size (samples, 0);
      if (e != OTF2_SUCCESS)
        break;
      switch (ev.type)
        {
        case KCT_RAW_ENTER:
          e = OTF2_EvtWriter_Enter (w, NULL, ev.time, ev.region);
          break;
        case KCT_RAW_LEAVE:
          e = OTF2_EvtWriter_Leave (w, NULL, ev.time, ev.region);
          break;
        case KCT_RAW_SEND:
          e = OTF2_EvtWriter_MpiSend (w, NULL, ev.time, ev.peer, ev.comm, ev.tag, ev.bytes);
          break;
        case KCT_RAW_RECV:
          e = OTF2_EvtWriter_MpiRecv (w, NULL, ev.time, ev.peer, ev.comm, ev.tag, ev.bytes);
          break;
        case KCT_RAW_ISEND:
          e = OTF2_EvtWriter_MpiIsend (w, NULL, ev.time, ev.peer, ev.comm, ev.tag, ev.bytes,
                                       ev.request);
          break;
        case KCT_RAW_IRECV:
          e = OTF2_EvtWriter_MpiIrecv (w, NULL, ev.time, ev.peer, ev.comm, ev.tag, ev.bytes,
                                       ev.request);
          break;
        case KCT_RAW_ISEND_COMPLETE:
          e = OTF2_EvtWriter_MpiIsendComplete (w, NULL, ev.time, ev.request);
          break;
        case KCT_RAW_IRECV_REQUEST:
          e = OTF2_EvtWriter_MpiIrecvRequest (w, NULL, ev.time, ev.request);
          break;
        case KCT_RAW_REQUEST_CANCELLED:
          e = OTF2_EvtWriter_MpiRequestCancelled (w, NULL, ev.time, ev.request);
          break;
        case KCT_RAW_COLL_BEGIN:
          e = OTF2_EvtWriter_MpiCollectiveBegin (w, NULL, ev.time);
          break;
        case KCT_RAW_COLL_END:
          e = OTF2_EvtWriter_MpiCollectiveEnd (w, NULL, ev.time, ev.op, ev.comm,
                                               ev.peer == UINT32_MAX ? OTF2_UNDEFINED_UINT32 : ev.peer,
                                               ev.bytes, ev.received);
          break;
        case KCT_RAW_NBC_REQUEST:
          e = OTF2_EvtWriter_NonBlockingCollectiveRequest (w, NULL, ev.time, ev.request);
          break;
        case KCT_RAW_NBC_COMPLETE:
          e = OTF2_EvtWriter_NonBlockingCollectiveComplete (
              w, NULL, ev.time, ev.op, ev.comm,
              ev.peer == UINT32_MAX ? OTF2_UNDEFINED_UINT32 : ev.peer, ev.bytes, ev.received,
              ev.request);
          break;
        case KCT_RAW_PROGRAM_BEGIN:
          e = OTF2_EvtWriter_ProgramBegin (w, NULL, ev.time, 0 /* string 0: the program */, 0,
                                           NULL);
          break;
        case KCT_RAW_PROGRAM_END:
          e = OTF2_EvtWriter_ProgramEnd (w, NULL, ev.time, ev.status);
          break;
        default:
          break;
        }
      if (ev.time > *last_time)
        *last_time = ev.time;
    }
  g_array_unref (samples);
  gint64 n = (gint64)kct_replay_count (it);
  if (r < 0 || e != OTF2_SUCCESS)
    {
      g_set_error (error, KCT_ERROR, r < 0 ? KCT_ERROR_CORRUPT : KCT_ERROR_OTF2,
                   r < 0 ? _ ("the compressed trace is inconsistent: %s")
                         : _ ("writing OTF2 events failed: %s"),
                   r < 0 ? kct_replay_error (it) : OTF2_Error_GetDescription (e));
      n = -1;
    }
  kct_replay_free (it);
  if (OTF2_Archive_CloseEvtWriter (archive, w) != OTF2_SUCCESS && n >= 0)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("cannot write the events of rank %u"),
                   rank);
      n = -1;
    }
  return n;
}

static void
cart_coords (const KctTopo *tp, guint32 rank, guint32 *coords)
{
  for (guint32 d = tp->ndims; d-- > 0;)
    {
      coords[d] = rank % tp->dims[d];
      rank /= tp->dims[d];
    }
}

static gboolean
write_globals (OTF2_Archive   *archive,
               const KctTrace *t,
               const KctComms *comms,
               const guint64  *n_events,
               guint64         last_time,
               GError        **error)
{
  OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter (archive);
  if (gw == NULL)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("cannot write the OTF2 definitions"));
      return FALSE;
    }
  Strings st = { gw, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL), 0, FALSE };
  guint32 n = t->h.n_ranks;
  guint64 start = t->h.global_start;
  OTF2_GlobalDefWriter_WriteClockProperties (gw, t->h.timer_resolution, start,
                                             (last_time > start ? last_time - start : 0) + 1,
                                             t->h.realtime_start);
  str (&st, t->h.program ? t->h.program : ""); /* string 0: ProgramBegin's name */
  guint32 empty = str (&st, "");
  OTF2_GlobalDefWriter_WriteParadigm (gw, OTF2_PARADIGM_MPI, str (&st, "MPI"),
                                      OTF2_PARADIGM_CLASS_PROCESS);

  /* system tree: machine > host > process */
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 0, str (&st, "machine"), str (&st, "machine"),
                                            OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  guint32 *node_of = g_new0 (guint32, n);
  for (uint32_t h = 0; h < t->n_hosts; h++)
    {
      OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, h + 1, str (&st, t->hosts[h].name),
                                                str (&st, "node"), 0);
      for (uint32_t k = 0; k < t->hosts[h].ranks.n; k++)
        if (t->hosts[h].ranks.v[k] < n)
          node_of[t->hosts[h].ranks.v[k]] = h + 1;
    }
  if (t->n_hosts == 0)
    OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 1, str (&st, "localhost"), str (&st, "node"),
                                              0);
  /* the collector's host properties (collect-cputime.c), as its definitions have them */
  for (uint32_t h = 0; h < t->n_hosts; h++)
    {
      const KctHost      *ho = &t->hosts[h];
      OTF2_AttributeValue v;
      if (ho->cpus == 0 && !ho->other_known)
        continue;
      v.uint32 = ho->cpus;
      OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (gw, h + 1, str (&st, "KUBUS::CPUS"),
                                                        OTF2_TYPE_UINT32, v);
      if (ho->other_known)
        {
          v.uint64 = ho->other_cpu_ns;
          OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (
              gw, h + 1, str (&st, "KUBUS::OTHER_CPU_NS"), OTF2_TYPE_UINT64, v);
          v.uint64 = ho->other_wall_ns;
          OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (
              gw, h + 1, str (&st, "KUBUS::OTHER_WALL_NS"), OTF2_TYPE_UINT64, v);
        }
    }
  if (t->cpu_flags & KCT_CPU_SAMPLED)
    {
      /* the collector's metric (collect-cputime.c): class 0, the CPU samples' events */
      OTF2_MetricMemberRef members[3] = { 0, 1, 2 };
      uint8_t              n_members = !(t->cpu_flags & KCT_CPU_WAIT)    ? 1
                                       : !(t->cpu_flags & KCT_CPU_WHERE) ? 2
                                                                         : 3;
      guint32              unit = str (&st, "s");
      OTF2_GlobalDefWriter_WriteMetricMember (
          gw, members[0], str (&st, "KUBUS_CPU_TIME"),
          str (&st, "CPU time of the thread since it started (CLOCK_THREAD_CPUTIME_ID), sampled at "
                    "the MPI event that ends a long interval"),
          OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL,
          -9, unit);
      if (t->cpu_flags & KCT_CPU_WAIT)
        OTF2_GlobalDefWriter_WriteMetricMember (
            gw, members[1], str (&st, "KUBUS_CPU_WAIT"),
            str (&st, "time the thread has waited, runnable, for a CPU since it started (run_delay "
                      "of schedstat; all ones: unknown), sampled with KUBUS_CPU_TIME"),
            OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
            OTF2_BASE_DECIMAL, -9, unit);
      if (n_members == 3)
        OTF2_GlobalDefWriter_WriteMetricMember (
            gw, members[2], str (&st, "KUBUS_CPU_ID"),
            str (&st, "the CPU the thread ran on when sampled (sched_getcpu; all ones: unknown), "
                      "sampled with KUBUS_CPU_TIME"),
            OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64,
            OTF2_BASE_DECIMAL, 0, str (&st, "#"));
      OTF2_GlobalDefWriter_WriteMetricClass (gw, 0, n_members, members,
                                             OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_CPU);
    }
  guint32 thread = str (&st, "Master thread");
  for (guint32 r = 0; r < n; r++)
    {
      g_autofree char *name = g_strdup_printf ("MPI Rank %u", r);
      OTF2_GlobalDefWriter_WriteLocationGroup (gw, r, str (&st, name),
                                               OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                               node_of[r] ? node_of[r] : 1,
                                               OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation (gw, r, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                          n_events[r], r);
    }
  g_free (node_of);

  for (uint32_t i = 0; i < t->n_regions; i++)
    {
      const KctRegion *rg = &t->regions[i];
      guint32          name = str (&st, rg->name);
      guint32          canonical = rg->canonical[0] ? str (&st, rg->canonical) : name;
      OTF2_GlobalDefWriter_WriteRegion (gw, i, name, canonical, str (&st, rg->descr), rg->role,
                                        rg->paradigm, OTF2_REGION_FLAG_NONE,
                                        rg->file[0] ? str (&st, rg->file) : empty, 0, 0);
    }

  /* groups: 0 = all locations, 1 + gid = group A of communicator gid, then groups B */
  guint64 *members = g_new (guint64, n > 0 ? n : 1);
  for (guint32 r = 0; r < n; r++)
    members[r] = r;
  OTF2_GlobalDefWriter_WriteGroup (gw, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                   OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, members);
  guint32  n_comms = kct_comms_count (comms);
  guint32  next_group = n_comms + 1;
  guint32 *group_b = g_new0 (guint32, n_comms + 1);
  for (guint32 c = 0; c < n_comms; c++)
    {
      const KctCommInfo *in = kct_comms_info (comms, c);
      g_autofree guint64 *m = g_new (guint64, in->size + in->size_b + 1);
      for (guint32 i = 0; i < in->size; i++)
        m[i] = kct_comms_member (comms, c, 0, i);
      OTF2_GlobalDefWriter_WriteGroup (gw, c + 1, empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, in->size, m);
      if (in->size_b > 0)
        {
          for (guint32 i = 0; i < in->size_b; i++)
            m[i] = kct_comms_member (comms, c, 1, i);
          group_b[c] = next_group++;
          OTF2_GlobalDefWriter_WriteGroup (gw, group_b[c], empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                           OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, in->size_b, m);
        }
    }
  g_free (members);
  for (guint32 c = 0; c < n_comms; c++)
    {
      const KctCommInfo *in = kct_comms_info (comms, c);
      const KctComm     *e = &t->comms[in->entry];
      guint32            parent = OTF2_UNDEFINED_COMM;
      if (e->parent != KCT_NONE)
        {
          guint32 p = kct_comms_find (comms, e->parent, kct_comms_member (comms, c, 0, 0));
          parent = p != KCT_NONE ? p : OTF2_UNDEFINED_COMM;
        }
      g_autofree char *name = NULL;
      gboolean         world = in->size == n && in->size_b == 0 && e->local_id == 0;
      for (guint32 i = 0; world && i < in->size; i++)
        world = kct_comms_member (comms, c, 0, i) == i;
      if (world)
        name = g_strdup ("MPI_COMM_WORLD");
      else if (in->size == 1 && in->size_b == 0 && e->local_id == 1)
        name = g_strdup ("MPI_COMM_SELF");
      else if (in->size_b > 0)
        name = g_strdup_printf ("MPI inter-communicator %u", c);
      else
        name = g_strdup_printf ("MPI communicator %u", c);
      if (in->size_b > 0)
        OTF2_GlobalDefWriter_WriteInterComm (gw, c, str (&st, name), c + 1, group_b[c], parent,
                                             OTF2_COMM_FLAG_NONE);
      else
        OTF2_GlobalDefWriter_WriteComm (gw, c, str (&st, name), c + 1, parent,
                                        OTF2_COMM_FLAG_NONE);
    }
  g_free (group_b);

  guint32 dim_id = 0;
  for (uint32_t i = 0; i < t->n_topos; i++)
    {
      const KctTopo *tp = &t->topos[i];
      guint32 comm = tp->comm != KCT_NONE ? kct_comms_find (comms, tp->comm, 0) : KCT_NONE;
      if (comm == KCT_NONE && tp->comm != KCT_NONE)
        {
          /* the instance holding the topology's first rank */
          for (guint32 r = 0; r < n && comm == KCT_NONE; r++)
            comm = kct_comms_find (comms, tp->comm, r);
        }
      OTF2_CartDimensionRef dims[16];
      for (uint32_t d = 0; d < tp->ndims; d++)
        {
          g_autofree char *name = g_strdup_printf ("%s dimension %u", tp->name, d);
          dims[d] = dim_id++;
          OTF2_GlobalDefWriter_WriteCartDimension (
              gw, dims[d], str (&st, name), tp->dims[d],
              tp->periods[d] ? OTF2_CART_PERIODIC_TRUE : OTF2_CART_PERIODIC_FALSE);
        }
      OTF2_GlobalDefWriter_WriteCartTopology (gw, i, str (&st, tp->name),
                                              comm != KCT_NONE ? comm : 0, (uint8_t)tp->ndims,
                                              dims);
      guint32 coords[16];
      if (tp->row_major)
        {
          guint32 cells = 1;
          for (uint32_t d = 0; d < tp->ndims; d++)
            cells *= tp->dims[d];
          for (guint32 r = 0; r < cells; r++)
            {
              cart_coords (tp, r, coords);
              OTF2_GlobalDefWriter_WriteCartCoordinate (gw, i, r, (uint8_t)tp->ndims, coords);
            }
        }
      else
        for (uint32_t k = 0; k < tp->coord_rank.n; k++)
          {
            for (uint32_t d = 0; d < tp->ndims; d++)
              coords[d] = tp->coords.v[(size_t)k * tp->ndims + d];
            OTF2_GlobalDefWriter_WriteCartCoordinate (gw, i, tp->coord_rank.v[k],
                                                      (uint8_t)tp->ndims, coords);
          }
    }
  gboolean ok = !st.failed && OTF2_Archive_CloseGlobalDefWriter (archive, gw) == OTF2_SUCCESS;
  g_hash_table_unref (st.ids);
  if (!ok)
    g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("cannot write the OTF2 definitions"));
  return ok;
}

static gboolean
expand_into (const KctTrace *t, const char *dir, gboolean events, GError **error)
{
  KctComms *comms = kct_comms_open (t, error);
  if (comms == NULL)
    return FALSE;
  OTF2_Archive *archive = OTF2_Archive_Open (dir, "traces", OTF2_FILEMODE_WRITE,
                                             1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                             OTF2_COMPRESSION_NONE);
  gboolean ok = archive != NULL
                && OTF2_Archive_SetFlushCallbacks (archive, &flush_callbacks, NULL) == OTF2_SUCCESS
                && OTF2_Archive_SetSerialCollectiveCallbacks (archive) == OTF2_SUCCESS
                && OTF2_Archive_SetCreator (archive, t->h.creator && t->h.creator[0]
                                                         ? t->h.creator
                                                         : "Kubus " KUBUS_VERSION)
                       == OTF2_SUCCESS
                && OTF2_Archive_OpenEvtFiles (archive) == OTF2_SUCCESS;
  /* the archive's properties (the MPI library's eager limits); OTF2's own names are its own,
   * and a name OTF2 refuses (it takes NAMESPACE::NAME) is left out: they only inform */
  for (guint32 i = 0; ok && i < t->n_props; i++)
    if (strncmp (t->prop_names[i], "OTF2::", 6) != 0)
      (void) OTF2_Archive_SetProperty (archive, t->prop_names[i], t->prop_values[i], true);
  if (!ok)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("cannot create an OTF2 archive in %s"),
                   dir);
      if (archive != NULL)
        OTF2_Archive_Close (archive);
      kct_comms_free (comms);
      return FALSE;
    }
  guint64 *n_events = g_new0 (guint64, t->h.n_ranks + 1);
  guint64  last = t->h.global_start;
  KctExpandStats st;
  memset (&st, 0, sizeof st);
  GArray **moved = events ? causal_moves (t, comms, &st, error) : NULL;
  ok = ok && (moved != NULL || !events);
  for (guint32 r = 0; r < t->h.n_ranks && ok && events; r++)
    {
      gint64 n = write_rank (archive, t, comms, r, moved[r], &last, error);
      ok = n >= 0;
      n_events[r] = ok ? (guint64)n : 0;
    }
  moves_free (moved, t->h.n_ranks);
  if (!events)
    {
      /* the event counts the locations declare: what each rank's replay yields */
      for (guint32 r = 0; r < t->h.n_ranks && ok; r++)
        {
          KctReplay *it = kct_replay_new (t, comms, r);
          KctEvent   ev;
          int        rc;
          kct_replay_cpu (it); /* OTF2 counts the Metric events too */
          while ((rc = kct_replay_next (it, &ev)) == 1)
            ;
          if (rc < 0)
            {
              g_set_error (error, KCT_ERROR, KCT_ERROR_CORRUPT,
                           _ ("the compressed trace is inconsistent: %s"), kct_replay_error (it));
              ok = FALSE;
            }
          n_events[r] = kct_replay_count (it);
          kct_replay_free (it);
        }
      last = t->h.global_start + t->h.length;
    }
  ok = OTF2_Archive_CloseEvtFiles (archive) == OTF2_SUCCESS && ok;
  /* local definition files: no id mappings (the events use global ids), but readers expect
   * them */
  if (ok && OTF2_Archive_OpenDefFiles (archive) == OTF2_SUCCESS)
    {
      for (guint32 r = 0; r < t->h.n_ranks; r++)
        {
          OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (archive, r);
          if (dw != NULL)
            OTF2_Archive_CloseDefWriter (archive, dw);
        }
      OTF2_Archive_CloseDefFiles (archive);
    }
  ok = ok && write_globals (archive, t, comms, n_events, last, error);
  if (OTF2_Archive_Close (archive) != OTF2_SUCCESS && ok)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_OTF2, _ ("cannot close the OTF2 archive in %s"),
                   dir);
      ok = FALSE;
    }
  g_free (n_events);
  kct_comms_free (comms);
  return ok;
}

static gboolean expand_to (const KctTrace *t, const char *dir, gboolean force, gboolean events,
                           GError **error);

gboolean
kct_expand (const KctTrace *t, const char *dir, gboolean force, GError **error)
{
  return expand_to (t, dir, force, TRUE, error);
}

gboolean
kct_expand_definitions (const KctTrace *t, const char *dir, gboolean force, GError **error)
{
  return expand_to (t, dir, force, FALSE, error);
}

static gboolean
expand_to (const KctTrace *t, const char *dir, gboolean force, gboolean events, GError **error)
{
  if (g_file_test (dir, G_FILE_TEST_EXISTS) && !force)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE,
                   _ ("%s exists already; use --force to replace it"), dir);
      return FALSE;
    }
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *base = g_path_get_basename (dir);
  g_autofree char *tmpl = g_strdup_printf ("%s/.%s.tmp-XXXXXX", parent, base);
  if (g_mkdtemp (tmpl) == NULL)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot create a directory in %s: %s"),
                   parent, g_strerror (errno));
      return FALSE;
    }
  if (!expand_into (t, tmpl, events, error))
    {
      kubus_remove_tree (tmpl);
      return FALSE;
    }
  if (g_file_test (dir, G_FILE_TEST_EXISTS) && !kubus_remove_tree (dir))
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot replace %s: %s"), dir,
                   g_strerror (errno));
      kubus_remove_tree (tmpl);
      return FALSE;
    }
  if (g_rename (tmpl, dir) != 0)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot rename %s to %s: %s"), tmpl, dir,
                   g_strerror (errno));
      kubus_remove_tree (tmpl);
      return FALSE;
    }
  return TRUE;
}

char *
kct_expand_temporary_in (const char *kct_path, const char *parent, GError **error)
{
  KctTrace *t = kct_load (kct_path, error);
  if (t == NULL)
    return NULL;
  g_autoptr (GError) local = NULL;
  char *tmp = NULL;
  if (parent != NULL)
    {
      tmp = g_build_filename (parent, ".kubus-kct-XXXXXX", NULL);
      if (g_mkdtemp (tmp) == NULL)
        {
          g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot create a directory in %s: %s"),
                       parent, g_strerror (errno));
          g_free (tmp);
          kct_trace_free (t);
          return NULL;
        }
    }
  else if ((tmp = g_dir_make_tmp ("kubus-kct-XXXXXX", &local)) == NULL)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot create a temporary directory: %s"),
                   local->message);
      kct_trace_free (t);
      return NULL;
    }
  gboolean ok = kct_expand (t, tmp, TRUE, error);
  kct_trace_free (t);
  if (!ok)
    {
      kubus_remove_tree (tmp);
      g_free (tmp);
      return NULL;
    }
  return tmp;
}

char *
kct_expand_temporary (const char *kct_path, GError **error)
{
  return kct_expand_temporary_in (kct_path, NULL, error);
}

gboolean
kct_remove_temporary (const char *dir)
{
  return kubus_remove_tree (dir);
}
