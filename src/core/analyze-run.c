/* analyze-run.c — the whole wait-state analysis of one trace as a library call: every process
 * reads its ranks, the point-to-point and collective replays run over the transport, rank 0
 * writes the report. kubus-analyze and kubus-sim (which analyses the simulated trace, and the
 * original when its report is missing) both call it, through analyze-auto.c's choice of where
 * it runs. The per-rank work of each phase runs on the transport's threads
 * (replay_for_each_local). */
#include "analyze-private.h"
#include "replay-clock.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <mpi.h>
#include <stdio.h>

void
analyze_progress_line (AnalyzeProgress *p,
                       double           fraction,
                       const char      *what)
{
  int pct = (int) (100.0 * (p->lo + fraction * (p->hi - p->lo)));
  if (!p->root || p->quiet || pct == p->last_pct)
    return;
  p->last_pct = pct;
  fprintf (stderr, "%s: [%3d%%] %s\n", p->prog, pct, what);
}

gboolean
analyze_all_ok (Transport *t,
                gboolean   mpi,
                gboolean   ok)
{
  int mine = ok ? 1 : 0, all = mine;
  (void) t;
  if (mpi)
    MPI_Allreduce (&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all != 0;
}

/* Progress of a phase that reads every local rank, on several threads: each rank's share of
 * the events read, summed under a lock. */
typedef struct
{
  AnalyzeProgress *p;
  double           lo, hi;   /* the phase's part of the whole */
  const char      *what;
  GMutex           lock;
  double          *done;     /* per local rank: events read */
  double           total;
  int              step;     /* the last twentieth said */
} ReadProgress;

typedef struct
{
  ReadProgress *rp;
  int           i;
  double        events;
} RankProgress;

static void
read_progress (double   fraction,
               gpointer data)
{
  RankProgress *rk = data;
  ReadProgress *rp = rk->rp;
  double sum = 0;
  int step;

  g_mutex_lock (&rp->lock);
  rp->done[rk->i] = fraction * rk->events;
  for (int k = 0; rp->done[k] >= 0; k++)
    sum += rp->done[k];
  step = rp->total > 0 ? (int) (20.0 * MIN (1.0, sum / rp->total)) : 20;
  if (step > rp->step)
    {
      double saved_lo = rp->p->lo, saved_hi = rp->p->hi;
      rp->step = step;
      rp->p->lo = rp->lo;
      rp->p->hi = rp->hi;
      analyze_progress_line (rp->p, step / 20.0, rp->what);
      rp->p->lo = saved_lo;
      rp->p->hi = saved_hi;
    }
  g_mutex_unlock (&rp->lock);
}

typedef struct
{
  Transport       *t;
  RankData       **rds;
  const char      *anchor;
  const ClockMap *(*map) (gpointer map_data, int i);   /* NULL: read as recorded */
  gpointer         map_data;
  ReadProgress     rp;
  RankProgress    *rk;
  GError         **errs;
  gboolean        *read;     /* per local rank: it was read (again) */
} ReadPhase;

static void
read_one (int      i,
          gpointer data)
{
  ReadPhase *ph = data;
  RankData *rd = ph->rds[i];
  const ClockMap *map = ph->map ? ph->map (ph->map_data, i) : NULL;

  if (ph->map)
    {
      /* again, in repaired time: only the ranks whose clock moved */
      if (!map)
        return;
      rd = rank_data_new (rd->rank, rd->defs);
      rd->want_causes = ph->rds[i]->want_causes;
      rd->clock_map = map;
    }
  if (!trace_read_rank (ph->anchor, rd, read_progress, &ph->rk[i], &ph->errs[i]))
    {
      if (ph->map)
        rank_data_free (rd);
      return;
    }
  if (ph->map)
    {
      rd->clock_map = NULL;   /* read; the map stays with the clock repair */
      rank_data_free (ph->rds[i]);
      ph->rds[i] = rd;
    }
  ph->read[i] = TRUE;
}

gboolean
analyze_read_ranks (Transport        *t,
                    const char       *anchor,
                    RankData        **rds,
                    const ClockMap *(*map) (gpointer map_data, int i),
                    gpointer          map_data,
                    AnalyzeProgress  *prog,
                    double            lo,
                    double            hi,
                    const char       *what,
                    GError          **error)
{
  ReadPhase ph = { 0 };
  g_autofree double *done = g_new (double, MAX (t->n_local, 1) + 1);
  g_autofree guint64 *work = g_new0 (guint64, MAX (t->n_local, 1));
  gboolean ok = TRUE;

  ph.t = t;
  ph.rds = rds;
  ph.anchor = anchor;
  ph.map = map;
  ph.map_data = map_data;
  ph.rp.p = prog;
  ph.rp.lo = prog->lo + (prog->hi - prog->lo) * lo;
  ph.rp.hi = prog->lo + (prog->hi - prog->lo) * hi;
  ph.rp.what = what;
  ph.rp.done = done;
  ph.rp.step = -1;
  g_mutex_init (&ph.rp.lock);
  ph.rk = g_new0 (RankProgress, MAX (t->n_local, 1));
  ph.errs = g_new0 (GError *, MAX (t->n_local, 1));
  ph.read = g_new0 (gboolean, MAX (t->n_local, 1));
  for (int i = 0; i < t->n_local; i++)
    {
      const TraceLocation *loc = rds[i]->defs->rank_loc[rds[i]->rank];
      ph.rk[i].rp = &ph.rp;
      ph.rk[i].i = i;
      ph.rk[i].events = loc && (!map || map (map_data, i)) ? (double) loc->n_events : 0;
      ph.rp.total += ph.rk[i].events;
      work[i] = (guint64) ph.rk[i].events;
      done[i] = 0;
    }
  done[t->n_local] = -1;   /* the end of the array for the sum */
  /* the most events first: no thread is left with a large rank at the end */
  replay_threads_order (t, work);
  replay_for_each_local (t, read_one, &ph);
  for (int i = 0; i < t->n_local; i++)
    if (ph.errs[i])
      {
        /* the first failing rank's reason: the same whatever thread read it */
        if (ok)
          g_propagate_error (error, g_steal_pointer (&ph.errs[i]));
        else
          g_clear_error (&ph.errs[i]);
        ok = FALSE;
      }
  g_mutex_clear (&ph.rp.lock);
  g_free (ph.rk);
  g_free (ph.errs);
  g_free (ph.read);
  return ok;
}

void
analyze_progress_step (AnalyzeProgress *p,
                       double           at,
                       const char      *what)
{
  static gint64 start;
  if (!start)
    start = g_get_monotonic_time ();
  if (p->root && g_getenv ("KUBUS_ANALYZE_TIMING"))
    fprintf (stderr, "%s: %.3f s: %s\n", p->prog, (g_get_monotonic_time () - start) / 1e6, what);
  p->last_pct = -1;   /* every phase gets its line */
  analyze_progress_line (p, at, what);
}

typedef struct
{
  RankData   **rds;
  GByteArray **out;
} SerializePhase;

static void
serialize_one (int      i,
               gpointer data)
{
  SerializePhase *sp = data;
  sp->out[i] = analysis_serialize (sp->rds[i]);
}

gboolean
analyze_run (Transport       *t,
             gboolean         mpi,
             TraceDefs       *defs,
             gboolean         clock_repair,
             const char      *anchor,
             const char      *cube_path,
             const char      *stats_path,
             AnalyzeProgress *prog,
             GString         *summary,
             GError         **error)
{
  g_autofree RankData **rds = g_new0 (RankData *, t->n_local);
  gboolean ok = TRUE;
  GError *local = NULL;

  analyze_progress_step (prog, 0.0, _("reading events"));
  for (int i = 0; i < t->n_local; i++)
    {
      rds[i] = rank_data_new (t->local_ranks[i], defs);
      rds[i]->want_causes = analyze_groups (prog) & (METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE)
                                                     | METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH));
    }
  ok = analyze_read_ranks (t, anchor, rds, NULL, NULL, prog, 0.0, 0.55, _("reading events"), &local);
  if (!analyze_all_ok (t, mpi, ok))
    {
      if (local)
        g_propagate_error (error, local);
      else
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED_HANDLED, _("another rank could not read its events"));
      ok = FALSE;
      goto out;
    }

  if (clock_repair)
    {
      ClockRepair *cr;
      analyze_progress_step (prog, 0.55, _("repairing the clock condition"));
      cr = clock_repair_run (t, rds, error);
      if (!cr)
        {
          /* an exchange failed: the other processes may wait in a collective */
          if (mpi)
            {
              fprintf (stderr, "%s: %s\n", prog->prog, (*error)->message);
              MPI_Abort (MPI_COMM_WORLD, 1);
            }
          ok = FALSE;
          goto out;
        }
      if (clock_repair_changed (cr))
        {
          analyze_progress_step (prog, 0.57, _("reading events in repaired time"));
          if (!clock_repair_reread (cr, anchor, t, rds, prog, error))
            {
              clock_repair_free (cr);
              ok = FALSE;
              goto out;
            }
        }
      else
        clock_repair_note (cr, rds);
      clock_repair_free (cr);
    }

  analyze_progress_step (prog, 0.6, _("replaying point-to-point communication"));
  if (!pattern_p2p_run (t, rds, error))
    {
      /* the replay exchanges are collective: a failure here leaves the others waiting */
      if (mpi)
        {
          fprintf (stderr, "%s: %s\n", prog->prog, (*error)->message);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      ok = FALSE;
      goto out;
    }
  analyze_progress_step (prog, 0.75, _("replaying collective operations"));
  pattern_collective_run (t, rds);
  if (!causes_run (t, mpi, rds, prog, error))
    {
      if (mpi)
        {
          fprintf (stderr, "%s: %s\n", prog->prog, (*error)->message);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      ok = FALSE;
      goto out;
    }

  analyze_progress_step (prog, 0.85, _("collecting results"));
  {
    g_autofree GByteArray **out = g_new0 (GByteArray *, t->n_local);
    GPtrArray *all = NULL;
    int good = 1;

    SerializePhase sp = { rds, out };
    replay_for_each_local (t, serialize_one, &sp);
    t->gather (t, out, &all);
    for (int i = 0; i < t->n_local; i++)
      g_byte_array_unref (out[i]);
    if (all)
      {
        analyze_progress_step (prog, 0.95, _("writing report"));
        if (!analysis_write_report (defs, all, cube_path, stats_path, summary, error))
          good = 0;
        g_ptr_array_unref (all);
      }
    if (mpi)
      MPI_Bcast (&good, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!good)
      {
        if (error && !*error)
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED_HANDLED, _("rank 0 could not write the report"));
        ok = FALSE;
      }
  }

out:
  for (int i = 0; i < t->n_local; i++)
    rank_data_free (rds[i]);
  return ok;
}
