/* delay-run.c — the root-cause and critical-path passes of one analysis (delay-private.h
 * lists them): their per-rank state and the order they run in. */
#include "delay-private.h"

#include <glib/gi18n.h>
#include <mpi.h>
#include <string.h>

Causes *
causes_new (guint groups)
{
  Causes *c = g_new0 (Causes, 1);
  c->groups = groups;
  c->keys = g_array_new (FALSE, TRUE, sizeof (guint64));
  c->sev = g_array_new (FALSE, TRUE, sizeof (double) * N_CAUSE_METRICS);
  return c;
}

void
causes_free (Causes *c)
{
  if (!c)
    return;
  delay_timeline_free (c->tl);
  g_array_unref (c->keys);
  g_array_unref (c->sev);
  if (c->sps)
    g_array_unref (c->sps);
  if (c->sp_ranks)
    g_array_unref (c->sp_ranks);
  g_free (c->sp_of_mark);
  g_free (c->send_sp);
  g_free (c->recv_sp);
  g_free (c->cost);
  g_free (c->pw_ind);
  g_free (c->pw_prop);
  g_free (c->ltimes);
  g_free (c->acc_t);
  g_free (c->acc_w);
  g_free (c->list_t);
  g_free (c->list_w);
  g_free (c->in_t);
  g_free (c->in_w);
  g_free (c);
}

double *
causes_row (RankData *rd,
            guint32   cnode)
{
  Causes *c = rd->causes;
  if (c->sev->len <= cnode)
    g_array_set_size (c->sev, MAX (cnode + 1, rd->cnodes->len));
  return (double *) (c->sev->data + (gsize) cnode * sizeof (double) * N_CAUSE_METRICS);
}

guint
analyze_groups (const AnalyzeProgress *prog)
{
  guint all = METRIC_GROUP_BIT (METRIC_GROUP_WAIT) | METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE)
              | METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH);
  return all & ~(prog ? prog->skip_groups : 0);
}

/* Per call path: its time less the waits in it (scout's local time profile for the
 * critical-path impacts). */
static void
local_times (RankData *rd)
{
  Causes *c = rd->causes;
  guint n = rd->cnodes->len;
  g_autofree double *wait = g_new0 (double, MAX (n, 1));
  const DelaySeg *seg = c->tl->seg;

  c->ltimes = g_new0 (double, MAX (n, 1));
  for (guint32 k = 0; k < c->tl->tail_end; k++)
    if (seg[k].cnode < n)
      c->ltimes[seg[k].cnode] += (double) seg[k].t;
  for (guint k = 0; k < c->sps->len; k++)
    {
      const SyncPoint *s = &g_array_index (c->sps, SyncPoint, k);
      if (s->wait > 0)
        wait[c->tl->marks[s->mark].cnode] += (double) s->wait;
    }
  for (guint q = 0; q < n; q++)
    if (c->ltimes[q] != 0.0 || wait[q] != 0.0)
      c->ltimes[q] -= MIN (c->ltimes[q], wait[q]);
}

gboolean
causes_run (Transport       *t,
            gboolean         mpi,
            RankData       **rds,
            AnalyzeProgress *prog,
            GError         **error)
{
  guint groups = analyze_groups (prog) & (METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE)
                                          | METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH));

  if (!groups)
    return TRUE;
  for (int i = 0; i < t->n_local; i++)
    {
      RankData *rd = rds[i];
      if (!rd->causes)
        rd->causes = causes_new (groups);
      if (!rd->causes->tl)
        {
          /* no timeline was recorded (the reader was not asked): an empty one */
          rd->causes->tl = delay_timeline_new (0);
          delay_timeline_finish (rd->causes->tl);
        }
      rd->causes->groups = groups;
      rd->causes->n_scratch = MAX (rd->cnodes->len, 1);
      rd->causes->acc_t = g_new0 (double, rd->causes->n_scratch);
      rd->causes->acc_w = g_new0 (double, rd->causes->n_scratch);
      rd->causes->list_t = g_new (guint32, rd->causes->n_scratch);
      rd->causes->list_w = g_new (guint32, rd->causes->n_scratch);
      rd->causes->in_t = g_new0 (guint8, rd->causes->n_scratch);
      rd->causes->in_w = g_new0 (guint8, rd->causes->n_scratch);
      g_array_set_size (rd->causes->sev, rd->cnodes->len);
      /* (a rank without events, e.g. one killed before it saved: no call path, no array) */
      if (rd->cnodes->len > 0)
        memset (rd->causes->sev->data, 0, (gsize) rd->cnodes->len * sizeof (double) * N_CAUSE_METRICS);
    }

  analyze_progress_step (prog, 0.8, _("finding synchronization points"));
  if (!delay_syncpoints_build (t, rds, error))
    return FALSE;
  analyze_progress_step (prog, 0.83, (groups & METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE))
                                       ? _("tracing wait states back to their causes")
                                       : _("following the critical path"));
  if (!delay_replay_run (t, mpi, rds, error))
    return FALSE;
  if (!rds[0]->causes->finished || (t->n_local == 0))
    {
      /* the ranks waited for each other in a cycle: no result is better than a wrong one */
      for (int i = 0; i < t->n_local; i++)
        memset (rds[i]->causes->sev->data, 0, (gsize) rds[i]->cnodes->len * sizeof (double) * N_CAUSE_METRICS);
      return TRUE;
    }
  if ((groups & METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE)) && !delay_propagation_run (t, rds, error))
    return FALSE;
  if (groups & METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH))
    for (int i = 0; i < t->n_local; i++)
      local_times (rds[i]);
  return TRUE;
}
