/* sim-transform.c — rewrites the trace as if a hypothesis were true (docs/hypotheses.md).
 *
 * Every event keeps its place; what changes is the gap before it. A gap is computation when the
 * innermost open region is user code; `scale` and `balance` multiply the computation gaps inside
 * a region's visits, `remove messages` drops both sides of a message and any MPI call left with
 * nothing to do, with every gap inside that call. New times are then the running sum of the new
 * gaps, so later events shift and every interval that was not changed is kept exactly.
 * Removed events stay in the array, flagged EVF_REMOVED (cross-rank links keep their indices). */
#include "sim-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

typedef struct
{
  SimRank *sr;
  double  *mul;      /* per event: factor of the gap before it */
  double  *add;      /* per event: ns added to the gap before it */
  guint8  *comp;     /* per event: the gap before it is computation */
} RankWork;

static GHashTable *
region_set (const Rule *r)
{
  GHashTable *h = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < r->n_regions; i++)
    g_hash_table_add (h, GUINT_TO_POINTER (r->regions[i]));
  return h;
}

static gboolean
is_p2p_event (guint8 type)
{
  return type == EV_SEND || type == EV_ISEND || type == EV_ISEND_COMPLETE || type == EV_IRECV_REQUEST
         || type == EV_RECV || type == EV_IRECV || type == EV_REQUEST_TEST || type == EV_REQUEST_CANCELLED;
}

/* comp[k]: whether the gap before event k is computation (user code innermost; not a trace
 * buffer flush, which is the measurement's time: scale and balance leave it as it was) */
static void
mark_computation (RankWork *w)
{
  SimEvent *ev = (SimEvent *) w->sr->ev->data;
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint k = 0; k < w->sr->ev->len; k++)
    {
      guint32 top = stack->len ? g_array_index (stack, guint32, stack->len - 1) : 0;
      TraceRegion *r = stack->len ? trace_defs_region (w->sr->defs, top) : NULL;
      w->comp[k] = stack->len == 0 || (!sim_region_is_mpi (w->sr->defs, top) && !(r && (r->flags & RF_FLUSH)));
      if (ev[k].type == EV_ENTER)
        g_array_append_val (stack, ev[k].region);
      else if (ev[k].type == EV_LEAVE && stack->len > 0)
        g_array_set_size (stack, stack->len - 1);
    }
}

/* Calls @fn for every outermost visit of a region in @set: (enter index, leave index). */
typedef void (*VisitFunc) (RankWork *w, guint enter, guint leave, gpointer data);

static void
for_each_visit (RankWork   *w,
                GHashTable *set,
                VisitFunc   fn,
                gpointer    data)
{
  SimEvent *ev = (SimEvent *) w->sr->ev->data;
  guint depth = 0, enter = 0;
  /* the stack of open regions, to tell a set region's Leave from another's */
  g_autoptr (GArray) in_set = g_array_new (FALSE, FALSE, sizeof (guint8));

  for (guint k = 0; k < w->sr->ev->len; k++)
    {
      if (ev[k].type == EV_ENTER)
        {
          guint8 m = g_hash_table_contains (set, GUINT_TO_POINTER (ev[k].region));
          g_array_append_val (in_set, m);
          if (m && depth++ == 0)
            enter = k;
        }
      else if (ev[k].type == EV_LEAVE && in_set->len > 0)
        {
          guint8 m = g_array_index (in_set, guint8, in_set->len - 1);
          g_array_set_size (in_set, in_set->len - 1);
          if (m && --depth == 0)
            fn (w, enter, k, data);
        }
    }
  /* a visit still open at the end of the trace (aborted run) ends with the trace */
  if (depth > 0 && w->sr->ev->len > 0)
    fn (w, enter, w->sr->ev->len - 1, data);
}

/* The computation of the gap before event @k as balance evens it out: its time on a core of
 * its own. Where the collector sampled the interval (ranks that outnumbered the cores), the
 * part the rank waited, runnable, for a CPU is left out: what a phase needs is its CPU time and
 * its sleep (sim-cpu.c), and the re-enactment and the offline model share the cores out again;
 * balancing wall times would give a phase that ran beside few others more CPU time than it had
 * (docs/decisions/2026-11-29-offline-cores.md). Elsewhere it is the gap's length. */
static double
gap_own_time (const RankWork *w,
              guint           k)
{
  const SimEvent *ev = (const SimEvent *) w->sr->ev->data;
  double own = sim_cpu_share (&ev[k], FALSE) + sim_cpu_share (&ev[k], TRUE);
  return ((double) (ev[k].time - ev[k - 1].time) * w->mul[k] + w->add[k]) * MIN (own, 1.0);
}

static double
visit_computation (RankWork *w,
                   guint     enter,
                   guint     leave)
{
  double c = 0;
  for (guint k = enter + 1; k <= leave; k++)
    if (w->comp[k])
      c += gap_own_time (w, k);
  return c;
}

/* Sets a visit's computation to @target ns. */
static void
visit_set (RankWork *w,
           guint     enter,
           guint     leave,
           double    target)
{
  double c = visit_computation (w, enter, leave);
  if (c > 0)
    {
      double f = target / c;
      for (guint k = enter + 1; k <= leave; k++)
        if (w->comp[k])
          {
            w->mul[k] *= f;
            w->add[k] *= f;
          }
      return;
    }
  /* no computation to stretch: the visit gets it right after its Enter */
  for (guint k = enter + 1; k <= leave; k++)
    if (w->comp[k])
      {
        w->add[k] += target;
        return;
      }
}

static void
scale_visit (RankWork *w,
             guint     enter,
             guint     leave,
             gpointer  data)
{
  double f = *(double *) data;
  for (guint k = enter + 1; k <= leave; k++)
    if (w->comp[k])
      {
        w->mul[k] *= f;
        w->add[k] *= f;
      }
}

typedef struct
{
  GArray *c;       /* double: computation per visit */
  GArray *pairs;   /* guint32 enter, leave per visit */
} VisitList;

static void
collect_visit (RankWork *w,
               guint     enter,
               guint     leave,
               gpointer  data)
{
  VisitList *vl = data;
  double v = visit_computation (w, enter, leave);
  guint32 pair[2] = { enter, leave };
  g_array_append_val (vl->c, v);
  g_array_append_vals (vl->pairs, pair, 2);
}

/* balance (per instance) and balance globally: every rank's visit computation times travel to
 * every rank (one exchange), and each rank sets its own visits to the mean. */
static gboolean
balance (Transport  *t,
         RankWork   *w,
         const Rule *r,
         GError    **error)
{
  int n = t->n_ranks;
  g_autoptr (GHashTable) set = region_set (r);
  g_autofree GByteArray ***out = g_new0 (GByteArray **, t->n_local);
  g_autofree GByteArray ***in = g_new0 (GByteArray **, t->n_local);
  g_autofree GArray **visits = g_new0 (GArray *, t->n_local);
  gboolean ok;

  for (int i = 0; i < t->n_local; i++)
    visits[i] = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (int i = 0; i < t->n_local; i++)
    {
      g_autoptr (GArray) c = g_array_new (FALSE, FALSE, sizeof (double));
      GByteArray *blob;
      VisitList vl = { c, visits[i] };
      for_each_visit (&w[i], set, collect_visit, &vl);
      blob = g_byte_array_sized_new (c->len * sizeof (double));
      g_byte_array_append (blob, (guint8 *) c->data, c->len * sizeof (double));
      out[i] = g_new0 (GByteArray *, n);
      in[i] = g_new0 (GByteArray *, n);
      for (int d = 0; d < n; d++)
        out[i][d] = g_byte_array_ref (blob);
      g_byte_array_unref (blob);
    }
  ok = t->alltoallv (t, out, in, error);
  for (int i = 0; ok && i < t->n_local; i++)
    {
      guint nv = visits[i]->len / 2;
      g_autofree double *sum = g_new0 (double, MAX (nv, 1));
      g_autofree guint *cnt = g_new0 (guint, MAX (nv, 1));
      double gsum = 0;
      guint64 gcnt = 0;

      for (int s = 0; s < n; s++)
        {
          guint m = in[i][s] ? in[i][s]->len / sizeof (double) : 0;
          const double *v = m ? (const double *) in[i][s]->data : NULL;
          for (guint k = 0; k < m; k++)
            {
              if (k < nv)
                {
                  sum[k] += v[k];
                  cnt[k]++;
                }
              gsum += v[k];
              gcnt++;
            }
        }
      for (guint k = 0; k < nv; k++)
        {
          guint32 *pair = &g_array_index (visits[i], guint32, 2 * k);
          double target = r->kind == RULE_BALANCE_GLOBAL ? (gcnt ? gsum / gcnt : 0) : sum[k] / MAX (cnt[k], 1);
          visit_set (&w[i], pair[0], pair[1], target);
        }
    }
  for (int i = 0; i < t->n_local; i++)
    {
      for (int d = 0; d < n; d++)
        {
          if (out[i] && out[i][d])
            g_byte_array_unref (out[i][d]);
          if (in[i] && in[i][d])
            g_byte_array_unref (in[i][d]);
        }
      g_free (out[i]);
      g_free (in[i]);
      g_array_unref (visits[i]);
    }
  return ok;
}

/* ---- balance per computation phase ----------------------------------------------------------
 *
 * A function known only from the stack (a frame region) has no Enter/Leave of its own: it is
 * entered at the first MPI call made inside it and left at the last, and is often one visit
 * spanning the whole time-step loop, so "the k-th visit on every rank" would balance the run's
 * total.  Its computation is therefore balanced phase by phase: phase k is the k-th stretch of
 * computation between two MPI calls inside the function's visits (the computation before its
 * k-th MPI call there, counted over all its visits on the rank), and every rank's phase k gets
 * the mean over the ranks that have one. */

typedef struct
{
  GArray *c;     /* double: computation per phase */
  GArray *phase; /* guint32 per event: phase + 1 of a computation gap inside the function, 0 */
} PhaseList;

static void
collect_phases (RankWork *w,
                guint     enter,
                guint     leave,
                gpointer  data)
{
  PhaseList *pl = data;
  SimEvent  *ev = (SimEvent *) w->sr->ev->data;
  guint      mpi_depth = 0;
  guint32    phase = pl->c->len;
  double     zero = 0;
  g_array_append_val (pl->c, zero);
  for (guint k = enter + 1; k <= leave; k++)
    {
      if (w->comp[k] && mpi_depth == 0)
        {
          g_array_index (pl->c, double, phase) += gap_own_time (w, k);
          g_array_index (pl->phase, guint32, k) = phase + 1;
        }
      if (ev[k].type == EV_ENTER && sim_region_is_mpi (w->sr->defs, ev[k].region))
        mpi_depth++;
      else if (ev[k].type == EV_LEAVE && sim_region_is_mpi (w->sr->defs, ev[k].region)
               && mpi_depth > 0 && --mpi_depth == 0 && k < leave)
        {
          /* after an MPI call: the next phase */
          phase = pl->c->len;
          g_array_append_val (pl->c, zero);
        }
    }
}

static gboolean
balance_phases (Transport  *t,
                RankWork   *w,
                const Rule *r,
                GError    **error)
{
  int n = t->n_ranks;
  g_autoptr (GHashTable) set = region_set (r);
  g_autofree GByteArray ***out = g_new0 (GByteArray **, t->n_local);
  g_autofree GByteArray ***in = g_new0 (GByteArray **, t->n_local);
  g_autofree PhaseList *pl = g_new0 (PhaseList, t->n_local);
  gboolean ok;

  for (int i = 0; i < t->n_local; i++)
    {
      pl[i].c = g_array_new (FALSE, FALSE, sizeof (double));
      pl[i].phase = g_array_new (FALSE, TRUE, sizeof (guint32));
      g_array_set_size (pl[i].phase, w[i].sr->ev->len);
      for_each_visit (&w[i], set, collect_phases, &pl[i]);
      GByteArray *blob = g_byte_array_sized_new (pl[i].c->len * sizeof (double));
      g_byte_array_append (blob, (guint8 *) pl[i].c->data, pl[i].c->len * sizeof (double));
      out[i] = g_new0 (GByteArray *, n);
      in[i] = g_new0 (GByteArray *, n);
      for (int d = 0; d < n; d++)
        out[i][d] = g_byte_array_ref (blob);
      g_byte_array_unref (blob);
    }
  ok = t->alltoallv (t, out, in, error);
  for (int i = 0; ok && i < t->n_local; i++)
    {
      guint              np = pl[i].c->len;
      g_autofree double *sum = g_new0 (double, MAX (np, 1));
      g_autofree guint  *cnt = g_new0 (guint, MAX (np, 1));
      g_autofree guint8 *added = g_new0 (guint8, MAX (np, 1));
      for (int s = 0; s < n; s++)
        {
          guint         m = in[i][s] ? in[i][s]->len / sizeof (double) : 0;
          const double *v = m ? (const double *) in[i][s]->data : NULL;
          for (guint k = 0; k < m && k < np; k++)
            {
              sum[k] += v[k];
              cnt[k]++;
            }
        }
      RankWork *rw = &w[i];
      for (guint k = 0; k < rw->sr->ev->len; k++)
        {
          guint32 p = g_array_index (pl[i].phase, guint32, k);
          if (p == 0)
            continue;
          double c = g_array_index (pl[i].c, double, p - 1);
          double target = sum[p - 1] / MAX (cnt[p - 1], 1);
          if (c > 0)
            {
              rw->mul[k] *= target / c;
              rw->add[k] *= target / c;
            }
          else if (!added[p - 1])
            {
              /* no computation to stretch: the phase gets it in its first gap */
              rw->add[k] += target;
              added[p - 1] = 1;
            }
        }
    }
  for (int i = 0; i < t->n_local; i++)
    {
      for (int d = 0; d < n; d++)
        {
          if (out[i] && out[i][d])
            g_byte_array_unref (out[i][d]);
          if (in[i] && in[i][d])
            g_byte_array_unref (in[i][d]);
        }
      g_free (out[i]);
      g_free (in[i]);
      g_array_unref (pl[i].c);
      g_array_unref (pl[i].phase);
    }
  return ok;
}

/* A rule on functions known only from the stack (every region of the name a frame region). */
static gboolean
rule_on_frames (const Rule *r, const TraceDefs *defs)
{
  for (guint i = 0; i < r->n_regions; i++)
    {
      TraceRegion *tr = trace_defs_region (defs, r->regions[i]);
      if (tr == NULL || !tr->frame)
        return FALSE;
    }
  return r->n_regions > 0;
}

/* Marks the events a `remove messages` rule selects on this side. */
static void
mark_removals (RankWork   *w,
               const Rule *r,
               guint8     *rm_send,
               guint8     *rm_recv)
{
  SimEvent *ev = (SimEvent *) w->sr->ev->data;
  g_autoptr (GHashTable) set = r->kind == RULE_REMOVE_REGION ? region_set (r) : NULL;
  g_autoptr (GArray) in_set = g_array_new (FALSE, FALSE, sizeof (guint8));
  guint depth = 0;

  for (guint k = 0; k < w->sr->ev->len; k++)
    {
      SimEvent *e = &ev[k];
      gboolean send = e->type == EV_SEND || e->type == EV_ISEND;
      gboolean recv = e->type == EV_RECV || e->type == EV_IRECV;

      if (e->type == EV_ENTER)
        {
          guint8 m = set && g_hash_table_contains (set, GUINT_TO_POINTER (e->region));
          g_array_append_val (in_set, m);
          depth += m;
        }
      else if (e->type == EV_LEAVE && in_set->len > 0)
        {
          depth -= g_array_index (in_set, guint8, in_set->len - 1);
          g_array_set_size (in_set, in_set->len - 1);
        }
      switch (r->kind)
        {
        case RULE_REMOVE_SIZE:
          if (send && sim_rule_op_holds (r->op, e->len, r->value))
            rm_send[k] = 1;
          break;
        case RULE_REMOVE_TAG:
          if (send && sim_rule_op_holds (r->op, e->tag, r->value))
            rm_send[k] = 1;
          break;
        case RULE_REMOVE_REGION:
          if (depth > 0 && send)
            rm_send[k] = 1;
          if (depth > 0 && recv)
            rm_recv[k] = 1;
          /* a non-blocking receive posted inside the region counts too */
          if (depth > 0 && e->type == EV_IRECV_REQUEST && e->link != NO_INDEX && e->link < w->sr->ev->len)
            rm_recv[e->link] = 1;
          break;
        default:
          break;
        }
    }
}

/* After matching: the request events of removed messages go too, and every MPI call whose
 * point-to-point events all went (and that had some) disappears with the time inside it. The
 * sends nobody received go alone: their calls keep their time. */
static void
drop_empty_calls (RankWork          *w,
                  SimTransformStats *stats)
{
  SimEvent *ev = (SimEvent *) w->sr->ev->data;
  guint n = w->sr->ev->len;
  guint k = 0;

  for (guint i = 0; i < n; i++)
    {
      if (ev[i].type == EV_ISEND_COMPLETE && ev[i].link != NO_INDEX && ev[i].link < n
          && (ev[ev[i].link].flags & EVF_REMOVED))
        ev[i].flags |= ev[ev[i].link].flags & (EVF_REMOVED | EVF_UNRECEIVED);
      if (ev[i].type == EV_IRECV_REQUEST && ev[i].link != NO_INDEX && ev[i].link < n
          && ev[ev[i].link].type == EV_IRECV && (ev[ev[i].link].flags & EVF_REMOVED))
        ev[i].flags |= EVF_REMOVED;
    }
  /* request events of removed sends: requests tested by MPI_Test* */
  while (k < n)
    {
      guint leave;
      guint p2p = 0, gone = 0, other = 0;

      if (ev[k].type != EV_ENTER || !sim_region_is_mpi (w->sr->defs, ev[k].region))
        {
          k++;
          continue;
        }
      for (leave = k + 1; leave < n && ev[leave].type != EV_LEAVE; leave++)
        {
          if (is_p2p_event (ev[leave].type))
            {
              p2p++;
              /* an unreceived send's call stays with its time (sim-match.c) */
              gone += (ev[leave].flags & (EVF_REMOVED | EVF_UNRECEIVED)) == EVF_REMOVED;
            }
          else
            other++;
        }
      if (leave >= n)
        break;
      if (p2p > 0 && gone == p2p && other == 0)
        {
          for (guint j = k; j <= leave; j++)
            {
              ev[j].flags |= EVF_REMOVED;
              if (j > k)
                {
                  w->mul[j] = 0;
                  w->add[j] = 0;
                }
            }
          stats->removed_calls++;
          stats->removed_time += ev[leave].time - ev[k].time;
        }
      k = leave + 1;
    }
}

static void
retime (RankWork          *w,
        SimTransformStats *stats)
{
  SimEvent *ev = (SimEvent *) w->sr->ev->data;
  guint n = w->sr->ev->len;
  double acc;
  Tick prev_old;
  double changed = 0;

  if (n == 0)
    return;
  acc = (double) ev[0].time;
  prev_old = ev[0].time;
  for (guint k = 1; k < n; k++)
    {
      double gap = (double) (ev[k].time - prev_old);
      double g2 = gap * w->mul[k] + w->add[k];
      if (w->comp[k] && !(ev[k].flags & EVF_REMOVED))
        changed += g2 - gap;
      prev_old = ev[k].time;
      acc += g2;
      ev[k].time = (Tick) llround (acc);
    }
  stats->added_time += (Tick) llround (changed);
}

gboolean
sim_transform (Transport         *t,
               SimRank          **srs,
               const Hypothesis  *h,
               SimTransformStats *stats,
               GError           **error)
{
  g_autofree RankWork *w = g_new0 (RankWork, t->n_local);
  g_autofree guint8 **rm_send = g_new0 (guint8 *, t->n_local);
  g_autofree guint8 **rm_recv = g_new0 (guint8 *, t->n_local);
  gboolean ok = TRUE;
  gboolean any_remove = FALSE;

  for (int i = 0; i < t->n_local; i++)
    {
      guint n = srs[i]->ev->len;
      w[i].sr = srs[i];
      w[i].mul = g_new (double, MAX (n, 1));
      w[i].add = g_new0 (double, MAX (n, 1));
      w[i].comp = g_new0 (guint8, MAX (n, 1));
      for (guint k = 0; k < n; k++)
        w[i].mul[k] = 1.0;
      rm_send[i] = g_new0 (guint8, MAX (n, 1));
      rm_recv[i] = g_new0 (guint8, MAX (n, 1));
      mark_computation (&w[i]);
    }
  /* pair requests and messages first: `remove in region` needs irecv request links */
  for (guint r = 0; ok && r < h->rules->len; r++)
    {
      const Rule *rule = h->rules->pdata[r];
      switch (rule->kind)
        {
        case RULE_SCALE:
          {
            g_autoptr (GHashTable) set = region_set (rule);
            double f = rule->factor;
            for (int i = 0; i < t->n_local; i++)
              for_each_visit (&w[i], set, scale_visit, &f);
          }
          break;
        case RULE_BALANCE:
          /* per computation phase for functions found on the stack, per visit otherwise */
          if (t->n_local > 0 && rule_on_frames (rule, w[0].sr->defs))
            ok = balance_phases (t, w, rule, error);
          else
            ok = balance (t, w, rule, error);
          break;
        case RULE_BALANCE_GLOBAL:
          ok = balance (t, w, rule, error);
          break;
        default:
          any_remove = TRUE;
          break;
        }
    }
  if (ok)
    {
      /* a first matching pass links the requests; the removal marks need them */
      if (any_remove)
        {
          ok = sim_match_messages (t, srs, NULL, NULL, NULL, error);
          for (guint r = 0; ok && r < h->rules->len; r++)
            {
              const Rule *rule = h->rules->pdata[r];
              if (rule->kind == RULE_REMOVE_SIZE || rule->kind == RULE_REMOVE_TAG
                  || rule->kind == RULE_REMOVE_REGION)
                for (int i = 0; i < t->n_local; i++)
                  mark_removals (&w[i], rule, rm_send[i], rm_recv[i]);
            }
        }
      if (ok)
        ok = sim_match_messages (t, srs, rm_send, rm_recv, stats, error);
    }
  if (ok)
    for (int i = 0; i < t->n_local; i++)
      {
        drop_empty_calls (&w[i], stats);
        retime (&w[i], stats);
      }
  for (int i = 0; i < t->n_local; i++)
    {
      g_free (w[i].mul);
      g_free (w[i].add);
      g_free (w[i].comp);
      g_free (rm_send[i]);
      g_free (rm_recv[i]);
    }
  return ok;
}
