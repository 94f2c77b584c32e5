/* sim-cpu.c — where ranks outnumbered cores: how much of each long interval a rank computed,
 * slept, or waited for a CPU, from the collector's samples (collect-cputime.c).
 *
 * The collector samples the thread's CPU time and its wait for a CPU at the MPI Enter or Leave
 * that ends an interval longer than its threshold. Between two samples lie short intervals
 * (each shorter than the threshold: they ran on their CPU, CPU time = wall time) and, last, the
 * long interval that triggered the second sample: it gets the rest of the CPU time and all of
 * the wait, and what remains of its wall time it slept. Each event of the long interval (the
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
sim_cpu_shares (SimRank *sr)
{
  SimCpuStats st = { 0 };
  SimEvent *ev = (SimEvent *) sr->ev->data;
  SimCpuSample *s;

  if (!sr->cpu || sr->cpu->len < 2)
    return st;
  s = (SimCpuSample *) sr->cpu->data;
  for (guint j = 1; j < sr->cpu->len; j++)
    {
      guint32 p = s[j - 1].ev, e = s[j].ev, b;
      double w, c, r, sl;
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
      c = (double) (s[j].cpu - s[j - 1].cpu) - (double) (ev[b].time - ev[p].time);
      r = s[j].wait >= 0 && s[j - 1].wait >= 0 ? (double) (s[j].wait - s[j - 1].wait) : 0;
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
          h->other_bound = MAX (h->other_bound, (double) sn->other_cpu_ns / ((double) ranks * (double) sn->other_wall_ns));
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
    h->other_bound = 0;
}

guint32
sim_cpu_host_cpus (const TraceDefs *defs,
                   int              rank)
{
  const TraceSysNode *sn = host_of (defs, rank);
  return sn ? sn->cpus : 0;
}
