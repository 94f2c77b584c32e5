/* sim-plan.c — what the replay does in each MPI call of one rank, decided once before it starts:
 * the events inside a call say which operations to re-enact (a send event: a send of the
 * recorded size, tag and peer; a request completion: a wait on that request; a collective end:
 * the same collective), so persistent requests, MPI_Start and wildcard receives need no special
 * case; a non-blocking collective's request starts it (ACT_ICOLL) and its completion is waited for
 * with the call's other requests. Calls without such events (MPI_Comm_rank, an MPI_Test that found
 * nothing, a non-blocking collective that the trace does not describe) take their recorded time; the ones that did
 * communicate without saying so in the trace are listed as approximated. */
#include "sim-private.h"

#include <glib/gi18n.h>
#include <otf2/otf2.h>
#include <string.h>

void
sim_plan_notes_init (SimPlanNotes *n)
{
  n->approximated = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  n->notes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
sim_plan_notes_clear (SimPlanNotes *n)
{
  g_clear_pointer (&n->approximated, g_hash_table_unref);
  g_clear_pointer (&n->notes, g_hash_table_unref);
}

static void
count (GHashTable *h,
       const char *key)
{
  gpointer old = g_hash_table_lookup (h, key);
  g_hash_table_replace (h, g_strdup (key), GSIZE_TO_POINTER (GPOINTER_TO_SIZE (old) + 1));
}

void
sim_plan_free (SimPlan *p)
{
  if (!p)
    return;
  g_array_unref (p->calls);
  g_array_unref (p->actions);
  g_array_unref (p->wait_slots);
  g_free (p->call_at);
  g_free (p->in_tail);
  g_free (p);
}

static const char *
region_name (const TraceDefs *defs,
             guint32          region)
{
  TraceRegion *r = trace_defs_region (defs, region);
  return r && r->name ? r->name : "?";
}

static guint8
region_class (const TraceDefs *defs,
              guint32          region)
{
  TraceRegion *r = trace_defs_region (defs, region);
  return r ? r->klass : RC_USER;
}

void
sim_plan_sync_tails (Transport *t,
                     SimRank  **srs)
{
  g_autofree gint64 **vals = g_new0 (gint64 *, t->n_local);
  g_autofree int *world = g_new (int, t->n_ranks);
  g_autofree gint64 *mine = g_new (gint64, 4 * (gsize) t->n_local);

  for (int r = 0; r < t->n_ranks; r++)
    world[r] = r;
  for (int i = 0; i < t->n_local; i++)
    {
      SimEvent *ev = (SimEvent *) srs[i]->ev->data;
      gint64 *m = &mine[4 * i];   /* enter init, enter fin, leave init, leave fin */
      m[0] = m[1] = m[2] = m[3] = -1;
      for (guint k = 0; k < srs[i]->ev->len; k++)
        if (ev[k].type == EV_ENTER)
          {
            guint8 c = region_class (srs[i]->defs, ev[k].region);
            int which = c == RC_MPI_INIT ? 0 : c == RC_MPI_FINALIZE ? 1 : -1;
            if (which < 0 || m[which] >= 0)
              continue;
            for (guint j = k + 1; j < srs[i]->ev->len; j++)
              if (ev[j].type == EV_LEAVE || ev[j].type == EV_ENTER)
                {
                  if (ev[j].type == EV_LEAVE)
                    {
                      m[which] = ev[k].time;
                      m[2 + which] = ev[j].time;
                    }
                  break;
                }
          }
      /* latest enter and earliest leave (as −leave) over the ranks; a rank without the call
       * makes the earliest leave −1: no synchronisation assumed */
      vals[i] = g_new (gint64, 4);
      vals[i][0] = m[0];
      vals[i][1] = m[1];
      vals[i][2] = m[2] >= 0 ? -m[2] : 1;
      vals[i][3] = m[3] >= 0 ? -m[3] : 1;
    }
  t->allreduce_max (t, SIM_WORLD_KEY, world, t->n_ranks, vals, 4);
  for (int i = 0; i < t->n_local; i++)
    {
      gint64 *m = &mine[4 * i];
      /* MPI_Init / MPI_Finalize synchronised in the original when no rank left before the last
       * one entered (Open MPI's do, the collector's MPI_Finalize does; others' need not): only
       * then do the ranks meet in the replay */
      gboolean init_sync = vals[i][0] >= 0 && vals[i][2] <= 0 && -vals[i][2] >= vals[i][0];
      gboolean fin_sync = vals[i][1] >= 0 && vals[i][3] <= 0 && -vals[i][3] >= vals[i][1];
      srs[i]->init_tail = m[0] >= 0 && init_sync ? MAX (0, m[2] - vals[i][0]) : -1;
      srs[i]->fin_tail = m[1] >= 0 && fin_sync ? MAX (0, m[3] - vals[i][1]) : -1;
      g_free (vals[i]);
    }
}

/* A rooted collective's root needs no other member (one-to-all) or a non-root needs only the
 * root (all-to-one) when its message goes out eagerly: below every transport's usual eager limit */
#define COLL_EAGER 4096

/* The collectives of one rank on one communicator, in the order they were issued. */
typedef struct
{
  GArray  *enter;     /* Tick: the call's Enter */
  GArray  *end;       /* guint32: the COLL_END's event index */
  GArray  *root;      /* gboolean: this rank was the root */
  gboolean nonblocking;
} CollSeq;

static void
coll_seq_free (gpointer p)
{
  CollSeq *s = p;
  g_array_unref (s->enter);
  g_array_unref (s->end);
  g_array_unref (s->root);
  g_free (s);
}

/* Is @rank a member of @c (either group of an inter-communicator)? */
static gboolean
comm_member (const TraceComm *c,
             int              rank)
{
  for (int m = 0; c->world && m < c->size; m++)
    if (c->world[m] == rank)
      return TRUE;
  for (int m = 0; c->is_inter && c->world_b && m < c->size_b; m++)
    if (c->world_b[m] == rank)
      return TRUE;
  return FALSE;
}

char *
sim_untraced_threads_text (const TraceDefs *defs)
{
  g_auto (GStrv) pairs = NULL;
  GString *list;
  guint n = 0;

  if (defs == NULL || defs->untraced_threads == NULL)
    return NULL;
  pairs = g_strsplit (defs->untraced_threads, ",", -1);
  list = g_string_new (NULL);
  for (guint i = 0; pairs[i] != NULL; i++)
    {
      char *colon = strchr (pairs[i], ':'), *end = NULL;
      guint64 r, c;

      if (colon == NULL || !g_ascii_isdigit (pairs[i][0]) || !g_ascii_isdigit (colon[1]))
        break;
      r = g_ascii_strtoull (pairs[i], &end, 10);
      if (end != colon)
        break;
      c = g_ascii_strtoull (colon + 1, &end, 10);
      if (*end != '\0')
        break;
      n++;
      if (n <= 8)
        {
          if (n > 1)
            g_string_append (list, ", ");
          /* TRANSLATORS: a rank and its number of MPI calls */
          g_string_append_printf (list, _("rank %llu: %llu"), (unsigned long long) r, (unsigned long long) c);
        }
      else if (n == 9)
        g_string_append (list, ", \xE2\x80\xA6");
    }
  if (n == 0 || n != g_strv_length (pairs))
    {
      /* not RANK:COUNT pairs (kubus-analyze warns about it): the property as it is */
      g_string_assign (list, defs->untraced_threads);
    }
  return g_string_free (list, FALSE);
}

gboolean
sim_plan_check_colls (Transport   *t,
                      SimRank    **srs,
                      const char  *anchor,
                      GError     **error)
{
  TraceDefs *defs = t->n_local > 0 ? srs[0]->defs : NULL;
  guint nc = defs ? defs->comms->len : 0;
  g_autofree char *untraced = NULL;
  g_autofree int *world = g_new (int, MAX (t->n_ranks, 1));
  g_autofree gint64 **vals = g_new0 (gint64 *, MAX (t->n_local, 1));
  gboolean ok = TRUE;

  if (nc == 0)
    return TRUE;
  for (int r = 0; r < t->n_ranks; r++)
    world[r] = r;
  /* per communicator: the most instances a member completed, and minus the fewest */
  for (int i = 0; i < t->n_local; i++)
    {
      SimEvent *ev = (SimEvent *) srs[i]->ev->data;
      TraceComm *c;
      vals[i] = g_new0 (gint64, 2 * (gsize) nc);
      for (guint k = 0; k < srs[i]->ev->len; k++)
        if ((ev[k].type == EV_COLL_END || ev[k].type == EV_NBC_COMPLETE)
            && (c = trace_defs_comm (srs[i]->defs, ev[k].region)))
          vals[i][c->index]++;
      for (guint ci = 0; ci < nc; ci++)
        {
          TraceComm *cc = defs->comms->pdata[ci];
          if (comm_member (cc, srs[i]->rank))
            vals[i][nc + ci] = -vals[i][ci];
          else
            vals[i][ci] = vals[i][nc + ci] = G_MININT64;
        }
    }
  t->allreduce_max (t, SIM_WORLD_KEY, world, t->n_ranks, vals, 2 * (gsize) nc);
  for (guint ci = 0; ci < nc && ok && t->n_local > 0; ci++)
    {
      TraceComm *c = defs->comms->pdata[ci];
      gint64 most = vals[0][ci], fewest;
      gboolean mapped = c->size > 0 && c->world != NULL;
      for (int m = 0; mapped && m < c->size; m++)
        mapped = c->world[m] >= 0;
      /* the same values on every process: the same decision everywhere (G_MININT64: no
       * member held here, nothing to negate) */
      if (!mapped || most == G_MININT64 || vals[0][nc + ci] == G_MININT64)
        continue;
      fewest = -vals[0][nc + ci];
      if (most == fewest)
        continue;
      ok = FALSE;
      untraced = sim_untraced_threads_text (defs);
      if (untraced != NULL)
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     _("%s: the members of communicator %s did not complete the same collective operations "
                       "(one completed %lld, another %lld): the trace leaves out the MPI calls made on other "
                       "threads than MPI_Init's under MPI_THREAD_MULTIPLE (%s) and cannot be re-enacted without "
                       "them"),
                     anchor, c->name ? c->name : "?", (long long) most, (long long) fewest, untraced);
      else
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     _("%s: the members of communicator %s did not complete the same collective operations "
                       "(one completed %lld, another %lld): the trace is incomplete (an aborted run?) and cannot be "
                       "re-enacted"),
                     anchor, c->name ? c->name : "?", (long long) most, (long long) fewest);
    }
  for (int i = 0; i < t->n_local; i++)
    g_free (vals[i]);
  return ok;
}

void
sim_plan_coll_costs (Transport *t,
                     SimRank  **srs)
{
  TraceDefs *defs = t->n_local > 0 ? srs[0]->defs : NULL;
  guint nc = defs ? defs->comms->len : 0;
  g_autofree int *world = g_new (int, t->n_ranks);
  g_autofree gint64 **vals = g_new0 (gint64 *, MAX (t->n_local, 1));
  g_autofree GHashTable **seqs = g_new0 (GHashTable *, MAX (t->n_local, 1));

  /* every process holds the same global definitions: the same communicators everywhere */
  if (nc == 0)
    return;
  for (int r = 0; r < t->n_ranks; r++)
    world[r] = r;
  for (int i = 0; i < t->n_local; i++)
    {
      SimEvent *ev = (SimEvent *) srs[i]->ev->data;
      guint n = srs[i]->ev->len;
      Tick enter = 0;
      gboolean begun = FALSE;
      seqs[i] = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, coll_seq_free);
      for (guint k = 0; k < n; k++)
        {
          TraceComm *c;
          CollSeq *s;
          gboolean root;
          if (ev[k].type == EV_ENTER)
            {
              enter = ev[k].time;
              begun = FALSE;
              continue;
            }
          if (ev[k].type == EV_COLL_BEGIN)
            begun = TRUE;
          if (ev[k].type != EV_COLL_END || !(c = trace_defs_comm (srs[i]->defs, ev[k].region)))
            continue;
          s = g_hash_table_lookup (seqs[i], GUINT_TO_POINTER (c->index + 1));
          if (!s)
            {
              s = g_new0 (CollSeq, 1);
              s->enter = g_array_new (FALSE, FALSE, sizeof (Tick));
              s->end = g_array_new (FALSE, FALSE, sizeof (guint32));
              s->root = g_array_new (FALSE, FALSE, sizeof (gboolean));
              g_hash_table_insert (seqs[i], GUINT_TO_POINTER (c->index + 1), s);
            }
          /* a collective completed by another call than the one that began it (non-blocking):
           * the order of completion need not be the order of issue, so the communicator's
           * instances cannot be paired */
          if (!begun)
            s->nonblocking = TRUE;
          g_array_append_val (s->enter, enter);
          g_array_append_val (s->end, k);
          root = ev[k].peer != OTF2_UNDEFINED_UINT32 && ev[k].peer < (guint32) c->size
                 && c->world && c->world[ev[k].peer] == srs[i]->rank;
          g_array_append_val (s->root, root);
          begun = FALSE;
        }
      /* per communicator: the number of its collectives, G_MAXINT32 if one was non-blocking */
      vals[i] = g_new0 (gint64, nc);
      {
        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init (&it, seqs[i]);
        while (g_hash_table_iter_next (&it, &key, &value))
          {
            CollSeq *s = value;
            vals[i][GPOINTER_TO_UINT (key) - 1] = s->nonblocking ? G_MAXINT32 : (gint64) s->end->len;
          }
      }
    }
  t->allreduce_max (t, SIM_WORLD_KEY, world, t->n_ranks, vals, nc);
  for (guint ci = 0; ci < nc; ci++)
    {
      TraceComm *c = defs->comms->pdata[ci];
      gint64 count = t->n_local > 0 ? vals[0][ci] : 0;
      g_autofree gint64 **enters = NULL;
      gboolean complete = c->size > 0 && c->world != NULL;
      /* the same decision on every process: every value of the world reduction is the same */
      if (count <= 0 || count >= G_MAXINT32 || c->is_inter)
        continue;
      for (int m = 0; complete && m < c->size; m++)
        complete = c->world[m] >= 0;
      if (!complete)
        continue;
      enters = g_new0 (gint64 *, MAX (t->n_local, 1));
      for (int i = 0; i < t->n_local; i++)
        {
          CollSeq *s = g_hash_table_lookup (seqs[i], GUINT_TO_POINTER (c->index + 1));
          gboolean member = FALSE;
          for (int m = 0; m < c->size && !member; m++)
            member = c->world[m] == srs[i]->rank;
          if (!member)
            continue;
          /* per instance: the latest member's Enter, the root's, minus the earliest's */
          enters[i] = g_new (gint64, 3 * count);
          for (gint64 x = 0; x < count; x++)
            {
              gboolean have = s && x < (gint64) s->enter->len;
              enters[i][3 * x] = have ? (gint64) g_array_index (s->enter, Tick, x) : -1;
              enters[i][3 * x + 1] = have && g_array_index (s->root, gboolean, x) ? enters[i][3 * x] : -1;
              enters[i][3 * x + 2] = have ? -(gint64) g_array_index (s->enter, Tick, x) : G_MININT64;
            }
        }
      t->allreduce_max (t, c->index, c->world, c->size, enters, 3 * (gsize) count);
      for (int i = 0; i < t->n_local; i++)
        {
          CollSeq *s = enters[i] ? g_hash_table_lookup (seqs[i], GUINT_TO_POINTER (c->index + 1)) : NULL;
          SimEvent *ev = (SimEvent *) srs[i]->ev->data;
          for (guint x = 0; s && x < s->end->len && (gint64) x < count; x++)
            {
              guint32 k = g_array_index (s->end, guint32, x);
              gboolean root = g_array_index (s->root, gboolean, x);
              gboolean eager = ev[k].len + ev[k].req < COLL_EAGER;
              Tick own = g_array_index (s->enter, Tick, x);
              Tick leave = ev[k].time, last = (Tick) MAX (enters[i][3 * x], 0);
              Tick root_enter = enters[i][3 * x + 1] >= 0 ? (Tick) enters[i][3 * x + 1] : last;
              /* every member entered (all reduced the same values): a short instance? */
              if (enters[i][3 * x + 2] > G_MININT64 && enters[i][3 * x] >= 0
                  && enters[i][3 * x] + enters[i][3 * x + 2] < SIM_COLL_SHORT_NS)
                {
                  if (!srs[i]->coll_short)
                    srs[i]->coll_short = g_hash_table_new (g_direct_hash, g_direct_equal);
                  g_hash_table_add (srs[i]->coll_short, GUINT_TO_POINTER (k + 1));
                }
              /* whom the call waited for: everybody, except in rooted operations */
              switch (ev[k].tag)
                {
                case OTF2_COLLECTIVE_OP_BCAST:
                case OTF2_COLLECTIVE_OP_SCATTER:
                case OTF2_COLLECTIVE_OP_SCATTERV:
                  last = root ? (eager ? own : last) : MAX (own, root_enter);
                  break;
                case OTF2_COLLECTIVE_OP_REDUCE:
                case OTF2_COLLECTIVE_OP_GATHER:
                case OTF2_COLLECTIVE_OP_GATHERV:
                  last = root ? last : eager ? own : MAX (own, root_enter);
                  break;
                default:
                  break;
                }
              for (guint j = k + 1; j < srs[i]->ev->len; j++)
                if (ev[j].type == EV_LEAVE || ev[j].type == EV_ENTER)
                  {
                    if (ev[j].type == EV_LEAVE)
                      leave = ev[j].time;
                    break;
                  }
              /* a member that left before the last one entered (a root that did not wait) has
               * no such cost */
              if (leave < last)
                continue;
              if (!srs[i]->copy_cost)
                srs[i]->copy_cost = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
              {
                Tick cost = leave - last;
                g_hash_table_replace (srs[i]->copy_cost, GUINT_TO_POINTER (k + 1), g_memdup2 (&cost, sizeof cost));
              }
            }
          g_free (enters[i]);
        }
    }
  for (int i = 0; i < t->n_local; i++)
    {
      g_free (vals[i]);
      g_hash_table_unref (seqs[i]);
    }
}

typedef struct
{
  SimPlan    *p;
  GHashTable *open;       /* request id -> slot + 1 */
  GArray     *free_slots; /* guint32 */
  guint32     in_use;
} Slots;

static guint32
slot_take (Slots *s)
{
  guint32 slot;
  if (s->free_slots->len)
    {
      slot = g_array_index (s->free_slots, guint32, s->free_slots->len - 1);
      g_array_set_size (s->free_slots, s->free_slots->len - 1);
    }
  else
    slot = s->p->n_slots++;
  s->in_use++;
  return slot;
}

static void
slot_give (Slots  *s,
           guint32 slot)
{
  g_array_append_val (s->free_slots, slot);
  s->in_use--;
}

static guint8
send_mode (const char *name,
           gboolean    blocking,
           SimPlanNotes *notes)
{
  if (strcmp (name, "MPI_Ssend") == 0 || strcmp (name, "MPI_Issend") == 0)
    return SEND_SYNC;
  if (blocking && strcmp (name, "MPI_Bsend") == 0)
    {
      count (notes->notes, "MPI_Bsend → MPI_Isend + MPI_Request_free");
      return SEND_BUFFERED;
    }
  if (strcmp (name, "MPI_Rsend") == 0 || strcmp (name, "MPI_Irsend") == 0)
    {
      /* ready mode needs the receive posted first; replayed timing may differ */
      count (notes->notes, blocking ? "MPI_Rsend → MPI_Send" : "MPI_Irsend → MPI_Isend");
      return SEND_STANDARD;
    }
  return SEND_STANDARD;
}

/* Management calls that synchronise their members (MPI_Comm_rank and the like do not) */
static gboolean
creates_comm (const char *name)
{
  static const char *sync[] = { "MPI_Comm_split", "MPI_Comm_dup", "MPI_Comm_idup", "MPI_Comm_create",
                                "MPI_Cart_create", "MPI_Cart_sub", "MPI_Graph_create", "MPI_Dist_graph_create",
                                "MPI_Intercomm_create", "MPI_Intercomm_merge", NULL };
  for (guint i = 0; sync[i]; i++)
    if (g_str_has_prefix (name, sync[i]))
      return TRUE;
  return FALSE;
}

/* One-sided calls that wait for other ranks: window creation and freeing (collective), the
 * synchronization calls of the three kinds of epoch, and the flushes (they wait for the target
 * to complete).  MPI_Put, MPI_Get and the other data calls return at once and are not listed. */
static gboolean
rma_synchronizes (const char *name)
{
  static const char *local[] = { "MPI_Win_shared_query", "MPI_Win_attach", "MPI_Win_detach", NULL };

  if (!g_str_has_prefix (name, "MPI_Win_"))
    return FALSE;
  for (guint i = 0; local[i]; i++)
    if (strcmp (name, local[i]) == 0)
      return FALSE;
  return TRUE;
}

static gboolean
check_size (SimRank    *sr,
            guint64     bytes,
            const char *what,
            GError    **error)
{
  if (bytes <= G_MAXINT)
    return TRUE;
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
               _("rank %d: %s of %llu bytes is larger than one MPI call can re-enact as MPI_BYTE"),
               sr->rank, what, (unsigned long long) bytes);
  return FALSE;
}

static gboolean
comm_ok (SimRank    *sr,
         guint32     comm,
         guint32    *index,
         GError    **error)
{
  TraceComm *c = trace_defs_comm (sr->defs, comm);
  if (c && c->size > 0 && c->world)
    {
      *index = c->index;
      return TRUE;
    }
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
               _("rank %d uses communicator %u, whose members the trace does not define: it cannot be "
                 "recreated for the replay"), sr->rank, comm);
  return FALSE;
}

/* A non-blocking collective's event @j in a call named @name: its request starts it
 * (ACT_ICOLL, with the collective its completion describes, into a request slot), its
 * completion adds the slot to the call's completed ones (the ACT_WAIT). One never completed (a
 * freed request, an aborted run) is not started: the others would wait for it in vain. */
static gboolean
plan_nbc (SimRank      *sr,
          SimPlan      *p,
          Slots        *sl,
          SimEvent     *ev,
          guint         j,
          const char   *name,
          SimPlanNotes *notes,
          GArray       *completed,
          GError      **error)
{
  SimEvent *e = &ev[j];
  gpointer v;

  if (e->type == EV_NBC_COMPLETE)
    {
      if (e->link != NO_INDEX && (v = g_hash_table_lookup (sl->open, &ev[e->link].req)))
        {
          guint32 slot = GPOINTER_TO_UINT (v) - 1;
          g_hash_table_remove (sl->open, &ev[e->link].req);
          g_array_append_val (completed, slot);
        }
      return TRUE;
    }
  if (e->link == NO_INDEX || ev[e->link].type != EV_NBC_COMPLETE || (ev[e->link].flags & EVF_REMOVED))
    {
      count (notes->notes, _("non-blocking collective never completed: not re-enacted"));
      return TRUE;
    }
  {
    SimEvent *c = &ev[e->link];
    TraceComm *tc = trace_defs_comm (sr->defs, c->region);
    SimAction a = { 0 };
    if (tc && tc->is_inter)
      {
        count (notes->approximated, name);
        return TRUE;
      }
    if (!comm_ok (sr, c->region, &a.comm, error) || !check_size (sr, MAX (c->len, c->req), _("a collective"), error))
      return FALSE;
    a.kind = ACT_ICOLL;
    a.ev = e->link;
    a.op = (guint16) c->tag;
    if (c->tag == OTF2_COLLECTIVE_OP_ALLTOALLV || c->tag == OTF2_COLLECTIVE_OP_ALLTOALLW)
      count (notes->notes, _("MPI_Alltoallv/w: each rank's bytes spread evenly over its peers"));
    a.peer = c->peer == OTF2_UNDEFINED_UINT32 ? -1 : (gint32) c->peer;
    a.bytes = c->len;
    a.bytes2 = c->req;
    a.slot = slot_take (sl);
    p->max_send = MAX (p->max_send, MAX (c->len, c->req));
    p->max_recv = MAX (p->max_recv, MAX (c->len, c->req));
    g_hash_table_replace (sl->open, &e->req, GUINT_TO_POINTER (a.slot + 1));
    g_array_append_val (p->actions, a);
  }
  return TRUE;
}

/* The polling loops that end in a call that waits (for requests, a message): the polls that
 * found nothing just before it, each Leave within SIM_PRESENCE_GAP_NS of the next Enter (a
 * tight loop, in MPI throughout), nothing else in between. Such a loop is not computation: it
 * lasts until what it polls for is there, and the CPU it got tells nothing of the CPU it needed
 * (a polling rank yields its CPU to a computing one). The offline model of the cores gives it
 * no share of the CPUs (sim-cpu.c, rank_deltas); cores_times (sim-offline.c) still stretches it
 * with the computation before it, since at its recorded length a hypothesis that shortens the
 * computation would leave the loop as long as it was (docs/decisions/2026-11-30-polls-and-cores.md). */
static void
poll_tails (SimRank *sr,
            SimPlan *p)
{
  SimEvent *ev = (SimEvent *) sr->ev->data;
  guint n = sr->ev->len;
  p->in_tail = g_new0 (guint8, MAX (n, 1));
  for (guint c = 0; c < p->calls->len; c++)
    {
      SimCall *call = &g_array_index (p->calls, SimCall, c);
      SimAction *a = &g_array_index (p->actions, SimAction, call->first);
      guint32 pos = call->enter, tail = NO_INDEX;
      gboolean waits = call->n > 0;
      for (guint32 i = 0; i < call->n; i++)
        waits &= a[i].kind == ACT_WAIT || a[i].kind == ACT_RECV || a[i].kind == ACT_PROBE;
      call->tail = NO_INDEX;
      if (!waits)
        continue;
      for (;;)
        {
          /* the poll before @pos: its Leave, then its Enter (removed events skipped) */
          gint64 l = (gint64) pos - 1, en;
          while (l >= 0 && (ev[l].flags & EVF_REMOVED))
            l--;
          if (l < 0 || ev[l].type != EV_LEAVE || !sim_is_poll_region (sr->defs, ev[l].region)
              || ev[pos].time - ev[l].time > SIM_PRESENCE_GAP_NS)
            break;
          en = l - 1;
          while (en >= 0 && (ev[en].flags & EVF_REMOVED))
            en--;
          if (en < 0 || ev[en].type != EV_ENTER || ev[en].region != ev[l].region || p->call_at[en] != NO_INDEX)
            break;
          tail = (guint32) en;
          pos = (guint32) en;
        }
      if (tail == NO_INDEX)
        continue;
      call->tail = tail;
      for (guint32 k = tail + 1; k <= call->enter; k++)
        p->in_tail[k] = 1;
    }
}

SimPlan *
sim_plan_build (SimRank       *sr,
                SimPlanNotes  *notes,
                GError       **error)
{
  SimPlan *p = g_new0 (SimPlan, 1);
  SimEvent *ev = (SimEvent *) sr->ev->data;
  guint n = sr->ev->len;
  g_autoptr (GHashTable) cancelled_posts = g_hash_table_new (NULL, NULL);
  Slots sl = { 0 };
  guint k = 0;

  p->calls = g_array_new (FALSE, FALSE, sizeof (SimCall));
  p->actions = g_array_new (FALSE, FALSE, sizeof (SimAction));
  p->wait_slots = g_array_new (FALSE, FALSE, sizeof (guint32));
  p->call_at = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    p->call_at[i] = NO_INDEX;
  sl.p = p;
  sl.open = g_hash_table_new (g_int64_hash, g_int64_equal);
  sl.free_slots = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < n; i++)
    if (ev[i].type == EV_REQUEST_CANCELLED && ev[i].link != NO_INDEX)
      g_hash_table_add (cancelled_posts, GUINT_TO_POINTER (ev[i].link));

  while (k < n)
    {
      SimCall call = { 0 };
      const char *name;
      guint8 klass;
      guint leave;
      guint first_action = p->actions->len;
      g_autoptr (GArray) completed = NULL;
      gboolean frees = FALSE, any_event = FALSE, persistent;

      if ((ev[k].flags & EVF_REMOVED) || ev[k].type != EV_ENTER || !sim_region_is_mpi (sr->defs, ev[k].region))
        {
          if (!(ev[k].flags & EVF_REMOVED))
            p->n_events++;
          k++;
          continue;
        }
      name = region_name (sr->defs, ev[k].region);
      klass = region_class (sr->defs, ev[k].region);
      for (leave = k + 1; leave < n && ev[leave].type != EV_LEAVE; leave++)
        ;
      if (leave >= n)
        {
          /* a call still open at the end (aborted run): its events are replayed as intervals */
          p->n_events++;
          k++;
          continue;
        }
      frees = strcmp (name, "MPI_Request_free") == 0;
      persistent = g_str_has_prefix (name, "MPI_Start");
      completed = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint j = k + 1; j < leave; j++)
        {
          SimEvent *e = &ev[j];
          SimAction a = { 0 };
          gpointer v;

          if (e->flags & EVF_REMOVED)
            continue;
          a.ev = j;
          a.peer = (gint32) e->peer;
          a.tag = (gint32) e->tag;
          switch (e->type)
            {
            case EV_SEND:
            case EV_RECV:
              any_event = TRUE;
              if (!comm_ok (sr, e->region, &a.comm, error)
                  || !check_size (sr, e->len, e->type == EV_SEND ? _("a send") : _("a receive"), error))
                goto fail;
              a.kind = e->type == EV_SEND ? ACT_SEND : ACT_RECV;
              a.mode = e->type == EV_SEND ? send_mode (name, TRUE, notes) : 0;
              a.bytes = e->len;
              if (e->type == EV_SEND)
                p->max_send = MAX (p->max_send, e->len);
              else
                p->max_recv = MAX (p->max_recv, e->len);
              g_array_append_val (p->actions, a);
              break;
            case EV_ISEND:
              any_event = TRUE;
              if (g_hash_table_contains (cancelled_posts, GUINT_TO_POINTER (j)))
                {
                  count (notes->notes, _("cancelled send not re-enacted"));
                  break;
                }
              if (!comm_ok (sr, e->region, &a.comm, error) || !check_size (sr, e->len, _("a send"), error))
                goto fail;
              a.kind = ACT_ISEND;
              a.mode = send_mode (name, FALSE, notes) | (persistent ? REQ_PERSISTENT : 0);
              a.bytes = e->len;
              a.slot = slot_take (&sl);
              p->max_send = MAX (p->max_send, e->len);
              g_hash_table_replace (sl.open, &e->req, GUINT_TO_POINTER (a.slot + 1));
              g_array_append_val (p->actions, a);
              break;
            case EV_IRECV_REQUEST:
              any_event = TRUE;
              if (e->link == NO_INDEX || ev[e->link].type != EV_IRECV || (ev[e->link].flags & EVF_REMOVED))
                {
                  if (e->link != NO_INDEX && ev[e->link].type == EV_REQUEST_CANCELLED)
                    count (notes->notes, _("cancelled receive not re-enacted"));
                  break;
                }
              {
                SimEvent *c = &ev[e->link];
                if (!comm_ok (sr, c->region, &a.comm, error) || !check_size (sr, c->len, _("a receive"), error))
                  goto fail;
                a.kind = ACT_IRECV;
                a.mode = persistent ? REQ_PERSISTENT : 0;
                a.ev = e->link;
                a.peer = (gint32) c->peer;
                a.tag = (gint32) c->tag;
                a.bytes = c->len;
                a.slot = slot_take (&sl);
                p->max_recv = MAX (p->max_recv, c->len);
                g_hash_table_replace (sl.open, &e->req, GUINT_TO_POINTER (a.slot + 1));
                g_array_append_val (p->actions, a);
              }
              break;
            case EV_ISEND_COMPLETE:
            case EV_IRECV:
              any_event = TRUE;
              v = g_hash_table_lookup (sl.open, &e->req);
              if (v)
                {
                  guint32 slot = GPOINTER_TO_UINT (v) - 1;
                  g_hash_table_remove (sl.open, &e->req);
                  g_array_append_val (completed, slot);
                }
              else if (e->type == EV_IRECV)
                {
                  /* an MpiIrecv without its request event (other writers): post it right here */
                  if (!comm_ok (sr, e->region, &a.comm, error) || !check_size (sr, e->len, _("a receive"), error))
                    goto fail;
                  a.kind = ACT_RECV;
                  a.bytes = e->len;
                  p->max_recv = MAX (p->max_recv, e->len);
                  g_array_append_val (p->actions, a);
                }
              break;
            case EV_REQUEST_CANCELLED:
              any_event = TRUE;
              v = g_hash_table_lookup (sl.open, &e->req);
              if (v)
                {
                  /* a posted request (not known as cancelled in advance): complete it */
                  guint32 slot = GPOINTER_TO_UINT (v) - 1;
                  g_hash_table_remove (sl.open, &e->req);
                  g_array_append_val (completed, slot);
                }
              break;
            case EV_COLL_END:
              {
                TraceComm *c = trace_defs_comm (sr->defs, e->region);
                any_event = TRUE;
                if (c && c->is_inter)
                  {
                    count (notes->approximated, name);
                    break;
                  }
                if (!comm_ok (sr, e->region, &a.comm, error)
                    || !check_size (sr, MAX (e->len, e->req), _("a collective"), error))
                  goto fail;
                a.kind = ACT_COLL;
                a.op = (guint16) e->tag;
                if (e->tag == OTF2_COLLECTIVE_OP_ALLTOALLV || e->tag == OTF2_COLLECTIVE_OP_ALLTOALLW)
                  count (notes->notes, _("MPI_Alltoallv/w: each rank's bytes spread evenly over its peers"));
                a.peer = e->peer == OTF2_UNDEFINED_UINT32 ? -1 : (gint32) e->peer;
                a.tag = 0;
                a.bytes = e->len;
                a.bytes2 = e->req;
                p->max_send = MAX (p->max_send, MAX (e->len, e->req));
                p->max_recv = MAX (p->max_recv, MAX (e->len, e->req));
                g_array_append_val (p->actions, a);
              }
              break;
            case EV_NBC_REQUEST:
            case EV_NBC_COMPLETE:
              any_event = TRUE;
              if (!plan_nbc (sr, p, &sl, ev, j, name, notes, completed, error))
                goto fail;
              break;
            default:
              break;
            }
        }
      /* a blocking send and receive in one call: MPI_Sendrecv */
      if (p->actions->len == first_action + 2)
        {
          SimAction *a0 = &g_array_index (p->actions, SimAction, first_action);
          SimAction *a1 = &g_array_index (p->actions, SimAction, first_action + 1);
          if (a0->kind == ACT_SEND && a1->kind == ACT_RECV)
            a0->kind = ACT_SENDRECV;
          else if (a0->kind == ACT_RECV && a1->kind == ACT_SEND)
            {
              SimAction tmp = *a0;
              *a0 = *a1;
              *a1 = tmp;
              a0->kind = ACT_SENDRECV;
            }
        }
      if (completed->len > 0)
        {
          SimAction a = { 0 };
          a.kind = frees ? ACT_FREE : ACT_WAIT;
          a.slot = p->wait_slots->len;
          a.n = completed->len;
          a.ev = leave;
          g_array_append_vals (p->wait_slots, completed->data, completed->len);
          g_array_append_val (p->actions, a);
          if (g_str_has_prefix (name, "MPI_Test"))
            count (notes->notes, _("MPI_Test* that completed requests → MPI_Wait*"));
          for (guint c = 0; c < completed->len; c++)
            slot_give (&sl, g_array_index (completed, guint32, c));
        }
      if (p->actions->len == first_action && !any_event)
        {
          SimAction a = { 0 };
          if ((klass == RC_MPI_INIT && sr->init_tail >= 0) || (klass == RC_MPI_FINALIZE && sr->fin_tail >= 0))
            {
              a.kind = ACT_SYNC;
              a.bytes = (guint64) (klass == RC_MPI_INIT ? sr->init_tail : sr->fin_tail);
              g_array_append_val (p->actions, a);
            }
          else if (strcmp (name, "MPI_Probe") == 0 || strcmp (name, "MPI_Mprobe") == 0)
            {
              /* waits for the message the next receive takes */
              for (guint j = leave + 1; j < n; j++)
                if ((ev[j].type == EV_RECV || ev[j].type == EV_IRECV) && !(ev[j].flags & EVF_REMOVED))
                  {
                    if (!comm_ok (sr, ev[j].region, &a.comm, error))
                      goto fail;
                    a.kind = ACT_PROBE;
                    a.ev = j;
                    a.peer = (gint32) ev[j].peer;
                    a.tag = (gint32) ev[j].tag;
                    g_array_append_val (p->actions, a);
                    break;
                  }
            }
          else if (klass == RC_MPI_COLL || klass == RC_MPI_BARRIER || klass == RC_MPI_INIT
                   || klass == RC_MPI_FINALIZE || (klass == RC_MPI_MGMT_COMM && creates_comm (name))
                   || klass == RC_MPI_IO_COLL || rma_synchronizes (name))
            count (notes->approximated, name); /* collective MPI-IO waits for the file's group too,
                                                * one-sided synchronization for the window's */
        }
      if (p->actions->len > first_action)
        {
          call.enter = k;
          call.leave = leave;
          call.first = first_action;
          call.n = p->actions->len - first_action;
          call.region = ev[k].region;
          p->call_at[k] = p->calls->len;
          g_array_append_val (p->calls, call);
        }
      for (guint j = k; j <= leave; j++)
        if (!(ev[j].flags & EVF_REMOVED))
          p->n_events++;
      k = leave + 1;
    }
  g_hash_table_unref (sl.open);
  g_array_unref (sl.free_slots);
  poll_tails (sr, p);
  return p;

fail:
  g_hash_table_unref (sl.open);
  g_array_unref (sl.free_slots);
  sim_plan_free (p);
  return NULL;
}
