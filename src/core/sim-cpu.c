/* sim-cpu.c — where ranks outnumbered cores: how much of each long interval a rank computed,
 * slept, or waited for a CPU, from the collector's samples (collect-cputime.c).
 *
 * The collector samples the thread's CPU time and its wait for a CPU at the MPI Enter or Leave
 * that ends an interval longer than its threshold. Between two samples lie short intervals
 * (each shorter than the threshold: they ran on their CPU, CPU time = wall time, but for the
 * polls that stand alone: they waited for the CPU first, up to their length) and, last, the
 * long interval that triggered the second sample: it gets the rest of the CPU time and of the
 * wait, and what remains of its wall time it slept. Each event of the long interval (the
 * user events in a computation gap, or the events inside a long MPI call) carries the shares
 * in SimEvent.spare (EVF_CPU): the transformation then scales the CPU time and the sleep with
 * the interval's new length, and the contention re-enactment (sim-replay.c) computes and
 * sleeps that much. The host's CPU count (KUBUS::CPUS) says whether the run was oversubscribed. */
#include "sim-private.h"

#include <otf2/otf2.h>
#include <string.h>

static gboolean
is_boundary (const SimRank *sr,
             const SimEvent *e)
{
  return (e->type == EV_ENTER || e->type == EV_LEAVE) && sim_region_is_mpi (sr->defs, e->region);
}

SimCpuStats
sim_cpu_shares (SimRank *sr,
                gboolean conserve)
{
  SimCpuStats st = { 0 };
  SimEvent *ev = (SimEvent *) sr->ev->data;
  SimCpuSample *s;
  g_autofree guint8 *in_poll = NULL;
  int depth = 0;
  gboolean polling = FALSE;

  if (!sr->cpu || sr->cpu->len < 2)
    return st;
  s = (SimCpuSample *) sr->cpu->data;
  /* per event whether the stretch before it was inside a polling call that stands alone: more
   * than SIM_PRESENCE_GAP_NS from the MPI calls before and after it. The polls of a tight loop
   * do not: such a loop lasts until what it polls for is there, whatever CPU it got (taken for
   * waits, HPCC's RandomAccess loops at 4 ranks on 2 cores shrank to their CPU time: −37 %) */
  in_poll = g_new0 (guint8, MAX (sr->ev->len, 1));
  {
    gint64 enter = -1, last_leave = -1;
    Tick prev_leave_t = G_MININT64 / 2;
    for (guint k = 0; k < sr->ev->len; k++)
      {
        if (!is_boundary (sr, &ev[k]))
          continue;
        if (ev[k].type == EV_ENTER && depth++ == 0)
          {
            /* the poll before, if any, stands alone when this call begins long enough after it */
            if (last_leave >= 0 && ev[k].time - ev[last_leave].time > SIM_PRESENCE_GAP_NS)
              for (gint64 j = enter + 1; j <= last_leave; j++)
                in_poll[j] = 1;
            last_leave = -1;
            polling = sim_is_poll_region (sr->defs, ev[k].region)
                      && ev[k].time - prev_leave_t > SIM_PRESENCE_GAP_NS;
            enter = (gint64) k;
          }
        else if (ev[k].type == EV_LEAVE && depth > 0 && --depth == 0)
          {
            if (polling)
              last_leave = (gint64) k;
            polling = FALSE;
            prev_leave_t = ev[k].time;
          }
      }
  }
  double carry = 0;   /* wait counted in the window before that belongs to the next */
  for (guint j = 1; j < sr->cpu->len; j++)
    {
      guint32 p = s[j - 1].ev, e = s[j].ev, b;
      double w, c, r, sl, polls = 0, rp = 0;
      if (e >= sr->ev->len || p >= e)
        continue;
      /* the boundary before e: where the long interval began */
      for (b = e; b-- > p;)
        if (is_boundary (sr, &ev[b]))
          break;
      if (b < p || b == G_MAXUINT32)
        b = p;
      w = (double) (ev[e].time - ev[b].time);
      if (w <= 0)
        continue;
      r = s[j].wait >= 0 && s[j - 1].wait >= 0 ? (double) (s[j].wait - s[j - 1].wait) : 0;
      if (s[j].wait >= 0 && s[j - 1].wait >= 0)
        {
          /* a sample is read a little after its event's time stamp: a rank preempted in
           * between counts the wait in this window and the wall time in the next, which then
           * seems to have slept that long (LAMMPS at 4 ranks on 2 cores: ~50 such windows a
           * run, 12-17 ms of sleep per rank that no rank slept). What the counters hold beyond
           * the window's wall time is the next window's wait. */
          double over;
          r += carry;
          over = (double) (s[j].cpu - s[j - 1].cpu) + r - (double) (ev[e].time - ev[p].time);
          carry = over > 0 ? MIN (over, r) : 0;
          r -= carry;
        }
      /* the polls that stand alone among the short intervals waited for the CPU first: a
       * polling rank yields it to a rank computing beside it (an MPI_Test between chunks of
       * computation at 4 ranks on 2 cores: 2 % of its time on the CPU, 98 % waiting for it;
       * docs/decisions/2026-11-30-polls-and-cores.md) */
      for (guint32 k = p + 1; k <= b; k++)
        if (in_poll[k])
          polls += (double) (ev[k].time - ev[k - 1].time);
      rp = CLAMP (r, 0, polls);
      if (polls > 0)
        for (guint32 k = p + 1; k <= b; k++)
          if (in_poll[k])
            {
              ev[k].flags |= EVF_CPU;
              ev[k].spare = (guint16) (guint) ((1.0 - rp / polls) * 255 + 0.5);
            }
      r -= rp;
      c = (double) (s[j].cpu - s[j - 1].cpu) - ((double) (ev[b].time - ev[p].time) - rp);
      if (c < 0 && conserve && b > p)
        {
          /* the short intervals got less CPU time than their length: they waited for the CPU
           * too (a rank in MPI yields it to one computing beside it), and get the window's CPU
           * time in proportion */
          double shorts = (double) (ev[b].time - ev[p].time) - polls;
          double got = (double) (s[j].cpu - s[j - 1].cpu) - (polls - rp);
          if (shorts > 0)
            for (guint32 k = p + 1; k <= b; k++)
              if (!in_poll[k])
                {
                  ev[k].flags |= EVF_CPU;
                  ev[k].spare = (guint16) (guint) (CLAMP (got / shorts, 0, 1) * 255 + 0.5);
                }
        }
      c = CLAMP (c, 0, w);
      r = CLAMP (r, 0, w - c);
      sl = w - c - r;
      for (guint32 k = b + 1; k <= e; k++)
        {
          ev[k].flags |= EVF_CPU;
          ev[k].spare = (guint16) ((guint) (c / w * 255 + 0.5) | ((guint) (sl / w * 255 + 0.5) << 8));
        }
      if (ev[e].type == EV_ENTER)
        {
          st.gap_wall += w;
          st.gap_cpu += c;
          st.gap_wait += r;
          st.gap_sleep += sl;
        }
      else
        {
          st.call_wall += w;
          st.call_cpu += c;
          st.call_wait += r;
        }
      st.samples++;
    }
  return st;
}

double
sim_cpu_share (const SimEvent *e,
               gboolean        sleep)
{
  if (!(e->flags & EVF_CPU))
    return sleep ? 0.0 : 1.0;   /* short intervals ran on their CPU */
  return (sleep ? (e->spare >> 8) : (e->spare & 0xff)) / 255.0;
}

/* The host node of a world rank: the system tree parent of its location group. */
static const TraceSysNode *
host_of (const TraceDefs *defs,
         int              rank)
{
  TraceLocation *loc = rank >= 0 && rank < defs->n_ranks && defs->rank_loc ? defs->rank_loc[rank] : NULL;
  if (!loc)
    return NULL;
  for (guint g = 0; g < defs->locgroups->len; g++)
    {
      TraceLocGroup *lg = defs->locgroups->pdata[g];
      if (lg->id != loc->group)
        continue;
      for (guint n = 0; n < defs->sysnodes->len; n++)
        {
          TraceSysNode *sn = defs->sysnodes->pdata[n];
          if (sn->id == lg->sys_parent)
            return sn;
        }
    }
  return NULL;
}

void
sim_cpu_hosts (const TraceDefs *defs,
               SimHosts        *h)
{
  g_autoptr (GHashTable) count = g_hash_table_new (NULL, NULL);
  memset (h, 0, sizeof *h);
  h->cpus_known = TRUE;
  for (int r = 0; r < defs->n_ranks; r++)
    {
      const TraceSysNode *sn = host_of (defs, r);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (count, sn)) + 1;
      g_hash_table_insert (count, (gpointer) sn, GUINT_TO_POINTER (n));
      if (!sn || sn->cpus == 0)
        h->cpus_known = FALSE;
    }
  h->n_hosts = g_hash_table_size (count);
  h->other_known = TRUE;
  {
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, count);
    while (g_hash_table_iter_next (&it, &k, &v))
      {
        const TraceSysNode *sn = k;
        guint ranks = GPOINTER_TO_UINT (v);
        h->max_ranks_per_host = MAX (h->max_ranks_per_host, ranks);
        if (sn && sn->other_wall_ns > 0)
          {
            h->other_bound = MAX (h->other_bound, (double) sn->other_cpu_ns / ((double) ranks * (double) sn->other_wall_ns));
            /* other programs' CPUs beyond the ones the ranks left idle came out of the ranks' */
            guint cpus = sn->cpus ? sn->cpus : ranks;
            double others = (double) sn->other_cpu_ns / (double) sn->other_wall_ns;
            double share = MAX (0.0, others - (cpus > ranks ? cpus - ranks : 0)) / MIN (ranks, cpus);
            if (share > h->other_share || h->other_share_ranks == 0)
              {
                h->other_share = MIN (share, 1.0);
                h->other_share_ranks = ranks;
                h->other_share_cpus = cpus;
              }
          }
        else
          h->other_known = FALSE;
        if (sn && sn->cpus)
          {
            h->min_cpus = h->min_cpus ? MIN (h->min_cpus, sn->cpus) : sn->cpus;
            if (ranks > sn->cpus)
              h->oversubscribed = TRUE;
          }
      }
  }
  h->has_samples = defs->cpu_metric != OTF2_UNDEFINED_METRIC;
  if (!h->other_known)
    {
      h->other_bound = h->other_share = 0;
      h->other_share_ranks = h->other_share_cpus = 0;
    }
}

guint32
sim_cpu_host_cpus (const TraceDefs *defs,
                   int              rank)
{
  const TraceSysNode *sn = host_of (defs, rank);
  return sn ? sn->cpus : 0;
}

/* ---- processor sharing (the offline model's cores, sim-offline.c) ---------------------------
 *
 * Where a host ran more ranks than it had CPUs, the ranks took turns on its cores. The model of
 * that: the host's CPUs are shared evenly among the ranks that want one. A rank that computes
 * wants one (less the share of the interval it slept, from the samples); a rank waiting in an
 * MPI call does not: Open MPI yields the core when oversubscribed (in the samples of
 * `sim-busy` at 6 ranks, GROMACS and Meep at 4 ranks on 2 cores, the long MPI calls got 2–16 %
 * of a CPU and waited, runnable, 34–90 % of their time; `sim-busy` at 4 ranks's 31 %, spinning
 * on a core no computing rank wanted). With n ranks wanting
 * a CPU on c CPUs, each gets min (1, c / n) of one: the rate at which a computation interval's
 * CPU time gets done. c is fitted (sim_cores_fit_cpus): the scheduler's balance of the ranks on
 * the cores is not perfect, and other programs may have taken some. */

typedef struct
{
  Tick   t;
  double d;
} Delta;

static int
cmp_delta (gconstpointer a,
           gconstpointer b)
{
  const Delta *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

/* The weight changes of rank @sr over its events' times @times (the recorded or the simulated
 * ones; removed events skipped where @skip_removed): computing from its first event to each
 * outermost MPI Enter and from each MPI Leave to the next, with the weight 1 − the interval's
 * sleep share; in MPI it wants no CPU. Into @out[0], or with @where (per event the CPU it ran
 * on) into the array of the CPU of the event that ends each interval (below @n_ids). With the
 * rank's @plan, a poll that found nothing inside a computation interval is part of it, and a
 * polling loop that ends a call is not (sim_want_step; cores_times in sim-offline.c asks the
 * same of every stretch, except that it stretches such a loop with its interval). */
static void
rank_deltas (GArray            **out,
             int                 n_ids,
             SimRank            *sr,
             const Tick         *times,
             gboolean            skip_removed,
             const gint16       *where,
             const SimPlan      *plan)
{
  const SimEvent *ev = (const SimEvent *) sr->ev->data;
  guint n = sr->ev->len;
  SimWantWalk walk = { 0, FALSE };
  gint prev = -1, start = -1, end = -1;   /* the run of stretches wanting a CPU: start .. end */
  for (guint k = 0; k < n; k++)
    {
      const SimEvent *e = &ev[k];
      gboolean wants;
      if (skip_removed && (e->flags & EVF_REMOVED))
        continue;
      if (e->type == EV_PROGRAM_END)
        break;
      /* the stretch from the event before to this one */
      wants = sim_want_step (&walk, sr, plan, k, TRUE) && prev >= 0;
      if (wants)
        {
          if (start < 0)
            start = prev;
          end = (gint) k;
        }
      else if (start >= 0)
        {
          /* a computation interval [start, end] ended */
          double w = 1.0 - sim_cpu_share (&ev[end], TRUE);
          int p = where ? where[end] : 0;
          if (times[end] > times[start] && w > 0 && p >= 0 && p < n_ids)
            {
              Delta da = { times[start], w }, db = { times[end], -w };
              g_array_append_val (out[p], da);
              g_array_append_val (out[p], db);
            }
          start = end = -1;
        }
      prev = (gint) k;
    }
}

gboolean
sim_want_step (SimWantWalk           *w,
               const SimRank         *sr,
               const struct SimPlan  *plan,
               guint                  k,
               gboolean               tails)
{
  const SimEvent *e = &g_array_index (sr->ev, SimEvent, k);
  gboolean wants = (w->depth == 0 || w->polls) && !(tails && plan && plan->in_tail[k]);
  gboolean mpi = (e->type == EV_ENTER || e->type == EV_LEAVE) && sim_region_is_mpi (sr->defs, e->region);
  if (mpi && e->type == EV_ENTER && w->depth++ == 0)
    w->polls = plan && plan->call_at[k] == NO_INDEX && sim_is_poll_region (sr->defs, e->region);
  else if (mpi && e->type == EV_LEAVE && w->depth > 0 && --w->depth == 0)
    w->polls = FALSE;
  return wants;
}

/* the ranks wanting a CPU from each step on (SimRateStep.rate holding their number) */
static GArray *
wanting (SimRank   **srs,
         const int  *ranks,
         int         n_ranks,
         const Tick *const *times,
         gboolean    skip_removed,
         SimPlan *const *plans)
{
  g_autoptr (GArray) d = g_array_new (FALSE, FALSE, sizeof (Delta));
  GArray *steps = g_array_new (FALSE, FALSE, sizeof (SimRateStep));
  double n = 0;
  for (int i = 0; i < n_ranks; i++)
    rank_deltas (&d, 1, srs[ranks[i]], times[ranks[i]], skip_removed, NULL, plans ? plans[ranks[i]] : NULL);
  g_array_sort (d, cmp_delta);
  for (guint i = 0; i < d->len;)
    {
      Tick t = g_array_index (d, Delta, i).t;
      SimRateStep s;
      for (; i < d->len && g_array_index (d, Delta, i).t == t; i++)
        n += g_array_index (d, Delta, i).d;
      s.t = t;
      s.rate = n;
      g_array_append_val (steps, s);
    }
  return steps;
}

static double
share_of (double n,
          double cpus)
{
  return n > cpus + 1e-9 ? cpus / n : 1.0;
}

/* the rates processor sharing on @cpus CPUs gives the ranks wanting a CPU as in @want */
static GArray *
rates_of (const GArray *want,
          double        cpus)
{
  GArray *steps = g_array_sized_new (FALSE, FALSE, sizeof (SimRateStep), want->len);
  for (guint i = 0; i < want->len; i++)
    {
      SimRateStep s = g_array_index (want, SimRateStep, i);
      s.rate = share_of (s.rate, cpus);
      if (steps->len && g_array_index (steps, SimRateStep, steps->len - 1).rate == s.rate)
        continue;
      g_array_append_val (steps, s);
    }
  return steps;
}

GArray *
sim_cores_profile (SimRank   **srs,
                   const int  *ranks,
                   int         n_ranks,
                   const Tick *const *times,
                   gboolean    skip_removed,
                   double      cpus,
                   SimPlan *const *plans)
{
  g_autoptr (GArray) want = wanting (srs, ranks, n_ranks, times, skip_removed, plans);
  return rates_of (want, cpus);
}

/* the index of the step holding @t, or −1 before the first (rate 1) */
static gint
step_at (const GArray *steps,
         Tick          t)
{
  const SimRateStep *s = (const SimRateStep *) steps->data;
  guint lo = 0, hi = steps->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (s[mid].t <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (gint) lo - 1;
}

/* the CPU time processor sharing on @c CPUs gives the sampled intervals @iv (a, b pairs; @awake:
 * the share of each its rank did not sleep), the ranks wanting a CPU as in @want */
static double
shared_work (const GArray *iv,
             const GArray *awake,
             const GArray *want,
             double        c)
{
  g_autoptr (GArray) rates = rates_of (want, c);
  double w = 0;
  for (guint j = 0; j < iv->len; j += 2)
    w += g_array_index (awake, double, j / 2)
         * sim_cores_work (rates, g_array_index (iv, Tick, j), g_array_index (iv, Tick, j + 1));
  return w;
}

/* The sampled computation intervals of @ranks on @times (@iv: a, b pairs; @awake: the share of
 * each its rank did not sleep) and the CPU time they got. FALSE where they tell nothing: none,
 * or ranks that slept nearly throughout (sim-lb-stack: 99.9 %). Intervals that slept most of
 * their time are left out: waking up from a sleep is a wait for a CPU too (50-100 µs under a
 * hypervisor), which sharing the cores does not explain; on an otherwise quiet machine a rank
 * that slept 94 % of the time then seemed to get 30 % of the CPU time it wanted (MPI_Waitsome
 * at 3 ranks on 2 cores: CPUs fitted 0.1 of 2, offline identity +269 %). */
static gboolean
sampled_intervals (SimRank   **srs,
                   const int  *ranks,
                   int         n_ranks,
                   const Tick *const *times,
                   const guint8 *const *cls,
                   guint8      want,
                   GArray     *iv,
                   GArray     *awake,
                   double     *got)
{
  double awake_ns = 0, wall_ns = 0;
  *got = 0;
  for (int i = 0; i < n_ranks; i++)
    {
      SimRank *sr = srs[ranks[i]];
      const SimEvent *ev = (const SimEvent *) sr->ev->data;
      const Tick *t = times[ranks[i]];
      int depth = 0;
      Tick last = sr->ev->len ? t[0] : 0;
      for (guint k = 0; k < sr->ev->len; k++)
        {
          if (!((ev[k].type == EV_ENTER || ev[k].type == EV_LEAVE) && sim_region_is_mpi (sr->defs, ev[k].region)))
            continue;
          if (ev[k].type == EV_ENTER && depth++ == 0)
            {
              double aw = 1.0 - sim_cpu_share (&ev[k], TRUE);
              if ((ev[k].flags & EVF_CPU) && t[k] > last)
                wall_ns += (double) (t[k] - last);
              if ((ev[k].flags & EVF_CPU) && t[k] > last && aw >= 0.5
                  && (!cls || (cls[ranks[i]] ? cls[ranks[i]][k] : 0) == want))
                {
                  Tick p[2] = { last, t[k] };
                  g_array_append_vals (iv, p, 2);
                  g_array_append_val (awake, aw);
                  awake_ns += aw * (double) (t[k] - last);
                  *got += (double) (t[k] - last) * sim_cpu_share (&ev[k], FALSE);
                }
              last = t[k];
            }
          else if (ev[k].type == EV_LEAVE && depth > 0 && --depth == 0)
            last = t[k];
        }
    }
  return iv->len > 0 && *got > 0 && awake_ns >= 0.01 * wall_ns;
}

double
sim_cores_fit_cpus (SimRank   **srs,
                    const int  *ranks,
                    int         n_ranks,
                    const Tick *const *times,
                    guint32     cpus,
                    guint      *n_intervals)
{
  return sim_cores_fit_cpus_of (srs, ranks, n_ranks, times, cpus, NULL, 0, n_intervals);
}

double
sim_cores_fit_cpus_of (SimRank   **srs,
                       const int  *ranks,
                       int         n_ranks,
                       const Tick *const *times,
                       guint32     cpus,
                       const guint8 *const *cls,
                       guint8      cls_want,
                       guint      *n_intervals)
{
  g_autoptr (GArray) want = wanting (srs, ranks, n_ranks, times, FALSE, NULL);
  g_autoptr (GArray) iv = g_array_new (FALSE, FALSE, sizeof (Tick));
  g_autoptr (GArray) awake = g_array_new (FALSE, FALSE, sizeof (double));
  double got, lo = 0.05 * cpus, hi = cpus;
  gboolean any = sampled_intervals (srs, ranks, n_ranks, times, cls, cls_want, iv, awake, &got);

  *n_intervals = iv->len / 2;
  if (!any)
    return cpus;
  /* the CPU time the sampled intervals got, as processor sharing on c CPUs gives it, grows with
   * c: the c that gives what they got, at most the host's CPUs */
  for (int it = 0; it < 40; it++)
    {
      double c = 0.5 * (lo + hi);
      if (shared_work (iv, awake, want, c) < got)
        lo = c;
      else
        hi = c;
    }
  return 0.5 * (lo + hi);
}

void
sim_poll_time (SimRank *sr,
               double  *polls,
               double  *span)
{
  const SimEvent *ev = (const SimEvent *) sr->ev->data;
  guint n = sr->ev->len;
  int depth = 0;
  gint64 enter = -1;
  if (n < 2)
    return;
  *span += (double) (ev[n - 1].time - ev[0].time);
  for (guint k = 0; k < n; k++)
    {
      if (!is_boundary (sr, &ev[k]))
        continue;
      if (ev[k].type == EV_ENTER && depth++ == 0)
        enter = sim_is_poll_region (sr->defs, ev[k].region) ? (gint64) k : -1;
      else if (ev[k].type == EV_LEAVE && depth > 0 && --depth == 0)
        {
          /* a poll with no event inside: it found nothing */
          if (enter >= 0 && k == (guint) enter + 1)
            *polls += (double) (ev[k].time - ev[enter].time);
          enter = -1;
        }
    }
}

void
sim_call_rate (SimRank *sr,
               double  *calls,
               double  *span)
{
  const SimEvent *ev = (const SimEvent *) sr->ev->data;
  int depth = 0;
  gint64 start = -1, last = -1;
  guint n = 0;
  for (guint k = 0; k < sr->ev->len; k++)
    {
      if (!is_boundary (sr, &ev[k]))
        continue;
      if (ev[k].type == EV_ENTER && depth++ == 0)
        {
          const TraceRegion *r = trace_defs_region (sr->defs, ev[k].region);
          if (start < 0)
            start = (gint64) ev[k].time;   /* no MPI_Init: from the first call on */
          if (r && (r->klass == RC_MPI_INIT || r->klass == RC_MPI_FINALIZE))
            continue;
          n++;
          last = (gint64) ev[k].time;
        }
      else if (ev[k].type == EV_LEAVE && depth > 0 && --depth == 0 && n == 0)
        start = (gint64) ev[k].time;       /* MPI_Init's Leave */
    }
  if (n > 0 && last > start)
    {
      *calls += n;
      *span += (double) (last - start);
    }
}

gint64
sim_sched_slice_ns (guint cpus)
{
  guint n = CLAMP (cpus, 1, 8);
  return 750000 * (gint64) g_bit_storage (n);   /* 1 + floor (log2 (n)) */
}

double
sim_cores_shortfall (SimRank **srs,
                     int       n_ranks)
{
  g_autoptr (GHashTable) hosts = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  GHashTableIter it;
  gpointer k, v;
  double worst = 0;

  if (n_ranks <= 0 || srs[0]->defs->cpu_metric == OTF2_UNDEFINED_METRIC)
    return 0;
  for (int r = 0; r < n_ranks; r++)
    {
      const TraceSysNode *sn = host_of (srs[0]->defs, r);
      GArray *ranks;
      if (!sn || sn->cpus == 0)
        continue;
      ranks = g_hash_table_lookup (hosts, sn);
      if (!ranks)
        g_hash_table_insert (hosts, (gpointer) sn, ranks = g_array_new (FALSE, FALSE, sizeof (int)));
      g_array_append_val (ranks, r);
    }
  g_hash_table_iter_init (&it, hosts);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      const TraceSysNode *sn = k;
      GArray *ranks = v;
      g_autofree const Tick **times = NULL;
      g_autoptr (GArray) want = NULL;
      g_autoptr (GArray) iv = g_array_new (FALSE, FALSE, sizeof (Tick));
      g_autoptr (GArray) awake = g_array_new (FALSE, FALSE, sizeof (double));
      double got, full;
      if (ranks->len <= sn->cpus)
        continue;
      times = g_new0 (const Tick *, n_ranks);
      for (guint i = 0; i < ranks->len; i++)
        {
          int r = g_array_index (ranks, int, i);
          SimEvent *ev = (SimEvent *) srs[r]->ev->data;
          Tick *t = g_new (Tick, MAX (srs[r]->ev->len, 1));
          for (guint j = 0; j < srs[r]->ev->len; j++)
            t[j] = ev[j].time;
          times[r] = t;
        }
      want = wanting (srs, (const int *) ranks->data, (int) ranks->len, times, FALSE, NULL);
      if (sampled_intervals (srs, (const int *) ranks->data, (int) ranks->len, times, NULL, 0, iv, awake, &got)
          && (full = shared_work (iv, awake, want, sn->cpus)) > 0)
        worst = MAX (worst, 1.0 - got / full);
      for (guint i = 0; i < ranks->len; i++)
        g_free ((gpointer) times[g_array_index (ranks, int, i)]);
    }
  return worst;
}

double
sim_cores_work (const GArray *steps,
                Tick          a,
                Tick          b)
{
  const SimRateStep *s = (const SimRateStep *) steps->data;
  gint i = step_at (steps, a);
  double w = 0;
  Tick t = a;
  while (t < b)
    {
      double rate = i >= 0 ? s[i].rate : 1.0;
      Tick next = (guint) (i + 1) < steps->len ? s[i + 1].t : b;
      Tick e = MIN (b, next);
      w += rate * (double) (e - t);
      t = e;
      i++;
    }
  return w;
}

double
sim_cores_span (const GArray *steps,
                Tick          a,
                double        work)
{
  const SimRateStep *s = (const SimRateStep *) steps->data;
  gint i = step_at (steps, a);
  double t = (double) a;
  while (work > 0)
    {
      double rate = i >= 0 ? s[i].rate : 1.0;
      if ((guint) (i + 1) >= steps->len)
        return t + work / rate - (double) a;
      {
        double room = (double) s[i + 1].t - t;
        if (room * rate >= work)
          return t + work / rate - (double) a;
        work -= room * rate;
        t = (double) s[i + 1].t;
        i++;
      }
    }
  return t - (double) a;
}

/* ---- the cores per CPU, where the samples say which CPU each rank ran on */

gint16 *
sim_cpu_where (const SimRank *sr)
{
  const SimCpuSample *s;
  gint16 *w;
  guint n = sr->ev->len, k = 0;
  gint16 last = -1;
  gboolean any = FALSE;

  if (!sr->cpu || !sr->cpu->len)
    return NULL;
  s = (const SimCpuSample *) sr->cpu->data;
  for (guint j = 0; j < sr->cpu->len; j++)
    any |= s[j].where >= 0;
  if (!any)
    return NULL;
  w = g_new (gint16, MAX (n, 1));
  for (guint j = 0; j < sr->cpu->len; j++)
    {
      if (s[j].where < 0 || s[j].where > G_MAXINT16)
        continue;
      for (; k <= s[j].ev && k < n; k++)
        w[k] = (gint16) s[j].where;
      last = (gint16) s[j].where;
    }
  for (; k < n; k++)
    w[k] = last;
  return w;
}

GArray **
sim_cores_cpu_counts (SimRank          **srs,
                      const int         *ranks,
                      int                n_ranks,
                      const Tick *const *times,
                      gboolean           skip_removed,
                      gint16 *const     *where,
                      int                n_ids,
                      SimPlan *const    *plans)
{
  GArray **d = g_new (GArray *, MAX (n_ids, 1));
  GArray **counts = g_new (GArray *, MAX (n_ids, 1));
  for (int p = 0; p < n_ids; p++)
    d[p] = g_array_new (FALSE, FALSE, sizeof (Delta));
  for (int i = 0; i < n_ranks; i++)
    if (where[ranks[i]])
      rank_deltas (d, n_ids, srs[ranks[i]], times[ranks[i]], skip_removed, where[ranks[i]],
                   plans ? plans[ranks[i]] : NULL);
  for (int p = 0; p < n_ids; p++)
    {
      double c = 0;
      counts[p] = g_array_new (FALSE, FALSE, sizeof (SimRateStep));
      g_array_sort (d[p], cmp_delta);
      for (guint i = 0; i < d[p]->len;)
        {
          Tick t = g_array_index (d[p], Delta, i).t;
          SimRateStep s;
          for (; i < d[p]->len && g_array_index (d[p], Delta, i).t == t; i++)
            c += g_array_index (d[p], Delta, i).d;
          s.t = t;
          s.rate = MAX (c, 0.0);
          g_array_append_val (counts[p], s);
        }
      g_array_unref (d[p]);
    }
  g_free (d);
  return counts;
}

GArray *
sim_cores_cpu_rates (const GArray *counts,
                     gboolean      call)
{
  GArray *steps = g_array_sized_new (FALSE, FALSE, sizeof (SimRateStep), counts->len);
  for (guint i = 0; i < counts->len; i++)
    {
      SimRateStep s = g_array_index (counts, SimRateStep, i);
      s.rate = call ? 1.0 / (1.0 + s.rate) : 1.0 / MAX (1.0, s.rate);
      if (steps->len && g_array_index (steps, SimRateStep, steps->len - 1).rate == s.rate)
        continue;
      g_array_append_val (steps, s);
    }
  return steps;
}

void
sim_cores_cpu_free (GArray **a,
                    int      n_ids)
{
  if (!a)
    return;
  for (int p = 0; p < n_ids; p++)
    if (a[p])
      g_array_unref (a[p]);
  g_free (a);
}

