/* analyze-run.c — the whole wait-state analysis of one trace as a library call: every process
 * reads its ranks, the point-to-point and collective replays run over the transport, rank 0
 * writes the report. kubus-analyze and kubus-sim (which analyses the simulated trace, and the
 * original when its report is missing) both call it. */
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

typedef struct
{
  AnalyzeProgress *p;
  double           lo, hi;
  const char      *what;
} ReadProgress;

static void
read_progress (double   fraction,
               gpointer data)
{
  ReadProgress *rp = data;
  double saved_lo = rp->p->lo, saved_hi = rp->p->hi;
  if (fraction < 0.999 && ((int) (fraction * 100)) % 25 != 0)
    return;
  rp->p->lo = rp->lo;
  rp->p->hi = rp->hi;
  analyze_progress_line (rp->p, fraction, rp->what);
  rp->p->lo = saved_lo;
  rp->p->hi = saved_hi;
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
      ReadProgress rp = { prog, prog->lo + (prog->hi - prog->lo) * 0.55 * i / t->n_local,
                          prog->lo + (prog->hi - prog->lo) * 0.55 * (i + 1) / t->n_local, _("reading events") };
      rds[i] = rank_data_new (t->local_ranks[i], defs);
      rds[i]->want_causes = analyze_groups (prog) & (METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE)
                                                     | METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH));
      if (ok && !trace_read_rank (anchor, rds[i], read_progress, &rp, &local))
        ok = FALSE;
    }
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
          ReadProgress rp = { prog, prog->lo + (prog->hi - prog->lo) * 0.57, prog->lo + (prog->hi - prog->lo) * 0.6,
                              _("reading events in repaired time") };
          analyze_progress_step (prog, 0.57, _("reading events in repaired time"));
          if (!clock_repair_reread (cr, anchor, t, rds, read_progress, &rp, error))
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

    for (int i = 0; i < t->n_local; i++)
      out[i] = analysis_serialize (rds[i]);
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
