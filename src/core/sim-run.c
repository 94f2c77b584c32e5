/* sim-run.c — kubus-sim from start to end:
 *
 *   launcher process: checks the trace and the hypothesis, creates the work folder, starts
 *     mpirun with one process per traced rank, then moves the work folder to SIMDIR (or removes
 *     it on failure): SIMDIR appears complete or not at all;
 *   every rank: (analyse the original if its report is missing) → read its events → transform →
 *     plan → re-enact in real time (or, --offline in one process, run the model) → write its part
 *     of SIMDIR/traces.otf2 → analyse the simulated trace → rank 0 writes difference.cube and
 *     summary.json and prints the summary.
 *
 * Errors on any rank reach rank 0 (agree()); every phase is collective, so all processes stop
 * at the same point. */
#include "sim-private.h"
#include "mpit-limits.h"
#include "remove-tree.h"
#include "analyze-mode.h"
#include "launch-mpi.h"
#include "kubus-forward-signals.h"
#include "replay-clock.h"
#include "trace-kct.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  SimOptions     *opt;
  gboolean        mpi;
  int             me;
  Transport      *t;
  TraceDefs      *defs;
  Hypothesis     *hyp;
  SimRank       **srs;
  SimPlan       **plans;
  AnalyzeProgress prog;
  char           *workdir;
  char           *orig_cube;
  gboolean        orig_in_workdir;
  SimPlanNotes    notes;
  SimSummary      sum;
  GHashTable     *dropped;
  gboolean        dropped_counted;
  SimHosts        hosts;
  gboolean        contention;   /* the real-time re-enactment brings the original's contention back */
  gboolean        contention_auto; /* decided by the samples (not KUBUS_SIM_CONTENTION) */
  SimCpuStats     cpu;          /* this process's ranks (sim-cpu.c) */
  gint64          orig_first, orig_last, orig_init;
} Ctx;

static void
phase (Ctx        *cx,
       double      lo,
       double      hi,
       const char *what)
{
  cx->prog.lo = lo;
  cx->prog.hi = hi;
  cx->prog.last_pct = -1;
  analyze_progress_line (&cx->prog, 0.0, what);
}

/* Every local rank contributes @texts[i]; the root process gets them all, in rank order. */
static GPtrArray *
gather_text (Ctx   *cx,
             char **texts)
{
  g_autofree GByteArray **out = g_new0 (GByteArray *, cx->t->n_local);
  GPtrArray *all = NULL, *res = NULL;

  for (int i = 0; i < cx->t->n_local; i++)
    {
      out[i] = g_byte_array_new ();
      if (texts[i])
        g_byte_array_append (out[i], (guint8 *) texts[i], strlen (texts[i]));
    }
  cx->t->gather (cx->t, out, &all);
  for (int i = 0; i < cx->t->n_local; i++)
    g_byte_array_unref (out[i]);
  if (all)
    {
      res = g_ptr_array_new_with_free_func (g_free);
      for (guint r = 0; r < all->len; r++)
        {
          GByteArray *b = all->pdata[r];
          g_ptr_array_add (res, b->len ? g_strndup ((char *) b->data, b->len) : g_strdup (""));
        }
      g_ptr_array_unref (all);
    }
  return res;
}

/* TRUE on every process when every local rank everywhere succeeded; the root process gets the
 * first error message of any rank in @error. @errs[i] are the local ranks' errors (consumed). */
static gboolean
agree (Ctx     *cx,
       GError **errs,
       GError **error)
{
  g_autofree char **texts = g_new0 (char *, cx->t->n_local);
  g_autoptr (GPtrArray) all = NULL;
  gboolean ok = TRUE;

  for (int i = 0; i < cx->t->n_local; i++)
    {
      if (errs[i])
        {
          ok = FALSE;
          texts[i] = errs[i]->message;
        }
    }
  all = gather_text (cx, texts);
  if (all)
    for (guint r = 0; r < all->len; r++)
      if (*(char *) all->pdata[r] && error && !*error)
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, all->pdata[r]);
  for (int i = 0; i < cx->t->n_local; i++)
    g_clear_error (&errs[i]);
  ok = analyze_all_ok (cx->t, cx->mpi, ok);
  if (!ok && error && !*error)
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("another rank failed"));
  return ok;
}

static char *
counts_text (GHashTable *h)
{
  GString *s = g_string_new (NULL);
  GHashTableIter it;
  gpointer k, v;
  if (h)
    {
      g_hash_table_iter_init (&it, h);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_string_append_printf (s, "%s\t%" G_GSIZE_FORMAT "\n", (char *) k, GPOINTER_TO_SIZE (v));
    }
  return g_string_free (s, FALSE);
}

static void
counts_merge (GHashTable *into,
              const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      char *tab = strchr (lines[i], '\t');
      gsize add, old;
      if (!tab)
        continue;
      *tab = '\0';
      add = (gsize) g_ascii_strtoull (tab + 1, NULL, 10);
      old = GPOINTER_TO_SIZE (g_hash_table_lookup (into, lines[i]));
      g_hash_table_replace (into, g_strdup (lines[i]), GSIZE_TO_POINTER (old + add));
    }
}

/* Merges a per-rank table of counts at the root (@into may be NULL elsewhere). */
static void
merge_counts (Ctx         *cx,
              GHashTable **per_local,
              GHashTable  *into)
{
  g_autofree char **texts = g_new0 (char *, cx->t->n_local);
  g_autoptr (GPtrArray) all = NULL;
  for (int i = 0; i < cx->t->n_local; i++)
    texts[i] = counts_text (per_local[i]);
  all = gather_text (cx, texts);
  for (int i = 0; i < cx->t->n_local; i++)
    g_free (texts[i]);
  if (all && into)
    for (guint r = 0; r < all->len; r++)
      counts_merge (into, all->pdata[r]);
}

static char *
counts_line (GHashTable *h)
{
  g_autoptr (GList) keys = g_hash_table_get_keys (h);
  GString *s = g_string_new (NULL);
  keys = g_list_sort (keys, (GCompareFunc) strcmp);
  for (GList *l = keys; l; l = l->next)
    g_string_append_printf (s, "%s%s ×%" G_GSIZE_FORMAT, s->len ? ", " : "", (char *) l->data,
                            GPOINTER_TO_SIZE (g_hash_table_lookup (h, l->data)));
  return g_string_free (s, FALSE);
}

/* Max over all ranks of @n values (each local rank's own array). */
static void
world_max (Ctx     *cx,
           gint64 **vals,
           gsize    n)
{
  g_autofree int *world = g_new (int, cx->t->n_ranks);
  for (int r = 0; r < cx->t->n_ranks; r++)
    world[r] = r;
  cx->t->allreduce_max (cx->t, SIM_WORLD_KEY, world, cx->t->n_ranks, vals, n);
}

/* [first, last] over all ranks and the latest MPI_Init leave (−1 if none): of the current
 * times (use_new = FALSE) or the simulated ones. */
static void
trace_span (Ctx     *cx,
            gboolean use_new,
            gint64  *first,
            gint64  *last,
            gint64  *init_leave)
{
  g_autofree gint64 **vals = g_new0 (gint64 *, cx->t->n_local);
  for (int i = 0; i < cx->t->n_local; i++)
    {
      SimRank *sr = cx->srs[i];
      SimEvent *ev = (SimEvent *) sr->ev->data;
      gint64 lo = G_MAXINT64, hi = G_MININT64, il = -1;
      for (guint k = 0; k < sr->ev->len; k++)
        if (!(ev[k].flags & EVF_REMOVED))
          {
            gint64 t = use_new ? sr->new_time[k] : ev[k].time;
            TraceRegion *reg;
            lo = MIN (lo, t);
            hi = MAX (hi, t);
            if (ev[k].type == EV_LEAVE && il < 0 && (reg = trace_defs_region (sr->defs, ev[k].region))
                && reg->klass == RC_MPI_INIT)
              il = t;
          }
      vals[i] = g_new (gint64, 3);
      vals[i][0] = lo == G_MAXINT64 ? G_MININT64 : -lo;
      vals[i][1] = hi;
      vals[i][2] = il;
    }
  world_max (cx, vals, 3);
  *first = -vals[0][0];
  *last = vals[0][1];
  *init_leave = vals[0][2];
  for (int i = 0; i < cx->t->n_local; i++)
    g_free (vals[i]);
}

/* Sums the transformation statistics over all processes (each process counted its own ranks). */
static void
sum_stats (Ctx               *cx,
           SimTransformStats *st)
{
  gint64 v[7] = { (gint64) st->messages, (gint64) st->removed_messages, (gint64) st->removed_calls,
                  (gint64) st->changed_visits, st->removed_time, st->added_time, (gint64) st->unreceived };
  gint64 all[7];
  if (!cx->mpi)
    return;
  MPI_Allreduce (v, all, 7, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  st->messages = (guint64) all[0];
  st->removed_messages = (guint64) all[1];
  st->removed_calls = (guint64) all[2];
  st->changed_visits = (guint64) all[3];
  st->removed_time = all[4];
  st->added_time = all[5];
  st->unreceived = (guint64) all[6];
}

/* Runs the clock repair over the analyzer's compact records of every local rank and hands each
 * SimRank its map (NULL when its times stay); *cr owns the maps. */
static gboolean
repair_clocks (Ctx          *cx,
               ClockRepair **cr,
               GError      **error)
{
  g_autofree GError **errs = g_new0 (GError *, cx->t->n_local);
  g_autofree RankData **rds = g_new0 (RankData *, cx->t->n_local);
  gboolean ok;

  for (int i = 0; i < cx->t->n_local; i++)
    {
      rds[i] = rank_data_new (cx->t->local_ranks[i], cx->defs);
      trace_read_rank (cx->opt->anchor, rds[i], NULL, NULL, &errs[i]);
    }
  ok = agree (cx, errs, error);
  if (ok)
    {
      ClockRepairStats st = { 0 };
      *cr = clock_repair_run (cx->t, rds, error);
      if (!*cr)
        {
          /* an exchange failed: the other processes may wait in a collective */
          if (cx->mpi)
            {
              fprintf (stderr, "kubus-sim: %s\n", (*error)->message);
              MPI_Abort (MPI_COMM_WORLD, 1);
            }
          ok = FALSE;
        }
      else
        {
          clock_repair_stats (*cr, &st);
          cx->sum.clock_repaired = TRUE;
          cx->sum.clock_violations = st.violations_p2p + st.violations_coll;
          cx->sum.clock_corrections = st.corrections;
          cx->sum.clock_largest = cx->defs->resolution ? (double) st.largest / cx->defs->resolution : 0;
          if (clock_repair_changed (*cr))
            for (int i = 0; i < cx->t->n_local; i++)
              cx->srs[i]->clock_map = clock_repair_map (*cr, i);
        }
    }
  for (int i = 0; i < cx->t->n_local; i++)
    rank_data_free (rds[i]);
  return ok;
}

static gboolean
read_events (Ctx     *cx,
             GError **error)
{
  g_autofree GError **errs = g_new0 (GError *, cx->t->n_local);
  g_autofree char **texts = g_new0 (char *, cx->t->n_local);
  g_autoptr (GPtrArray) all = NULL;
  g_autoptr (GHashTable) refused = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree GHashTable **dropped = g_new0 (GHashTable *, cx->t->n_local);

  ClockRepair *cr = NULL;

  cx->srs = g_new0 (SimRank *, cx->t->n_local);
  for (int i = 0; i < cx->t->n_local; i++)
    cx->srs[i] = sim_rank_new (cx->t->local_ranks[i], cx->defs);
  /* "kubus-sim uses the repaired times": the controlled logical clock (replay-clock.h) runs on
   * the analyzer's records, then every rank reads its events through its map */
  if (!cx->opt->no_clock_repair && !repair_clocks (cx, &cr, error))
    return FALSE;
  for (int i = 0; i < cx->t->n_local; i++)
    trace_events_read (cx->opt->anchor, cx->srs[i], NULL, NULL, &errs[i]);
  for (int i = 0; i < cx->t->n_local; i++)
    cx->srs[i]->clock_map = NULL;
  g_clear_pointer (&cr, clock_repair_free);
  if (!agree (cx, errs, error))
    return FALSE;
  /* operations that cannot be re-enacted: refused, by kind */
  for (int i = 0; i < cx->t->n_local; i++)
    texts[i] = counts_text (cx->srs[i]->refused);
  all = gather_text (cx, texts);
  for (int i = 0; i < cx->t->n_local; i++)
    g_free (texts[i]);
  if (all)
    for (guint r = 0; r < all->len; r++)
      counts_merge (refused, all->pdata[r]);
  {
    int bad = g_hash_table_size (refused) > 0;
    if (cx->mpi)
      MPI_Bcast (&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad)
      {
        if (cx->prog.root)
          {
            g_autofree char *line = counts_line (refused);
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                         _("%s: the trace holds events the simulator cannot re-enact (%s): kubus-sim "
                           "re-enacts MPI point-to-point and collective communication of single-threaded "
                           "ranks only (no threads, OpenMP, RMA or I/O events)"),
                         cx->opt->anchor, line);
          }
        else
          g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("events that cannot be re-enacted"));
        return FALSE;
      }
  }
  /* the identity pass reads the same events again: counted once */
  if (!cx->dropped_counted)
    cx->dropped = cx->prog.root ? g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL) : NULL;
  for (int i = 0; i < cx->t->n_local; i++)
    dropped[i] = cx->srs[i]->dropped;
  merge_counts (cx, dropped, cx->dropped_counted ? NULL : cx->dropped);
  cx->dropped_counted = TRUE;
  return TRUE;
}

static gboolean
build_plans (Ctx     *cx,
             gboolean quiet_pass,
             GError **error)
{
  g_autofree GError **errs = g_new0 (GError *, cx->t->n_local);
  g_autofree GHashTable **approx = g_new0 (GHashTable *, cx->t->n_local);
  g_autofree GHashTable **subst = g_new0 (GHashTable *, cx->t->n_local);
  SimPlanNotes local;

  sim_plan_notes_init (&local);
  cx->plans = g_new0 (SimPlan *, cx->t->n_local);
  for (int i = 0; i < cx->t->n_local; i++)
    cx->plans[i] = sim_plan_build (cx->srs[i], &local, &errs[i]);
  if (!agree (cx, errs, error))
    {
      sim_plan_notes_clear (&local);
      return FALSE;
    }
  /* local holds every local rank's notes: merge once (the first slot carries them) */
  approx[0] = local.approximated;
  subst[0] = local.notes;
  merge_counts (cx, approx, cx->prog.root && !quiet_pass ? cx->notes.approximated : NULL);
  merge_counts (cx, subst, cx->prog.root && !quiet_pass ? cx->notes.notes : NULL);
  sim_plan_notes_clear (&local);
  if (cx->prog.root && !cx->opt->quiet && !quiet_pass && g_hash_table_size (cx->notes.approximated))
    {
      g_autofree char *line = counts_line (cx->notes.approximated);
      fprintf (stderr, _("kubus-sim: warning: approximated by their recorded duration (the trace does not "
                         "say what they communicated): %s\n"), line);
    }
  return TRUE;
}

static gboolean
analyze_original (Ctx     *cx,
                  GError **error)
{
  g_autofree char *stats = NULL;
  g_autoptr (GString) summary = g_string_new (NULL);
  gboolean ok;

  if (g_str_has_suffix (cx->orig_cube, ".cube"))
    stats = g_strdup_printf ("%.*s.stats.json", (int) (strlen (cx->orig_cube) - 5), cx->orig_cube);
  phase (cx, 0.0, 0.2, _("analysing the original trace (its report is missing)"));
  ok = analyze_run_auto (NULL, cx->t, cx->mpi, cx->defs, !cx->opt->no_clock_repair, cx->opt->anchor, cx->orig_cube,
                         stats, cx->opt->launcher, &cx->prog, summary, error);
  return ok;
}

static void
cpu_stats_add (SimCpuStats       *into,
               const SimCpuStats *s)
{
  into->samples += s->samples;
  into->gap_wall += s->gap_wall;
  into->gap_cpu += s->gap_cpu;
  into->gap_wait += s->gap_wait;
  into->gap_sleep += s->gap_sleep;
  into->call_wall += s->call_wall;
  into->call_cpu += s->call_cpu;
  into->call_wait += s->call_wait;
  into->poll_wall += s->poll_wall;
  into->rank_wall += s->rank_wall;
  into->n_calls += s->n_calls;
  into->call_span += s->call_span;
}

/* The CPU samples over all ranks, and how the run shared its cores, for the summary. */
static void
sum_cpu (Ctx *cx)
{
  double v[12] = { cx->cpu.samples, cx->cpu.gap_wall, cx->cpu.gap_cpu, cx->cpu.gap_wait, cx->cpu.gap_sleep,
                   cx->cpu.call_wall, cx->cpu.call_cpu, cx->cpu.call_wait, cx->cpu.poll_wall, cx->cpu.rank_wall,
                   cx->cpu.n_calls, cx->cpu.call_span };
  double all[12];
  memcpy (all, v, sizeof v);
  if (cx->mpi)
    MPI_Allreduce (v, all, 12, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  cx->sum.cpu.samples = (guint) all[0];
  cx->sum.cpu.gap_wall = all[1];
  cx->sum.cpu.gap_cpu = all[2];
  cx->sum.cpu.gap_wait = all[3];
  cx->sum.cpu.gap_sleep = all[4];
  cx->sum.cpu.call_wall = all[5];
  cx->sum.cpu.call_cpu = all[6];
  cx->sum.cpu.call_wait = all[7];
  cx->sum.cpu.poll_wall = all[8];
  cx->sum.cpu.rank_wall = all[9];
  cx->sum.cpu.n_calls = all[10];
  cx->sum.cpu.call_span = all[11];
  cx->sum.cpu.poll_share = cx->hosts.oversubscribed && all[9] > 0 ? all[8] / all[9] : -1;
  cx->sum.hosts = cx->hosts;
  cx->sum.contention = cx->contention;
}

/* Frees the events and plans of the last pass (before the identity pass reads them again). */
static void
drop_pass (Ctx *cx)
{
  for (int i = 0; cx->t && i < cx->t->n_local; i++)
    {
      if (cx->srs)
        sim_rank_free (cx->srs[i]);
      if (cx->plans)
        sim_plan_free (cx->plans[i]);
    }
  g_clear_pointer (&cx->srs, g_free);
  g_clear_pointer (&cx->plans, g_free);
}

/* One simulation of the trace under @hyp: read, transform, plan, re-enact (or run the model).
 * Sets the original's and the simulated span; the identity pass (@quiet_pass) leaves the
 * summary's notes, model and replay statistics alone and prints nothing. */
static gboolean
reenact (Ctx               *cx,
         const Hypothesis  *hyp,
         gboolean           quiet_pass,
         SimTransformStats *tstats,
         gint64            *first,
         gint64            *last,
         gint64            *init,
         GError           **error)
{
  g_autofree GError **errs = g_new0 (GError *, cx->t->n_local);
  SimModel *model = NULL;
  SimReplayStats scratch = { 0 };
  SimCpuStats local_cpu = { .shortfall = -1, .poll_share = -1 };
  gboolean ok = TRUE;
  guint64 n_events = 0;

  if (!quiet_pass)
    phase (cx, 0.2, 0.3, _("reading events"));
  if (!read_events (cx, error))
    return FALSE;
  for (int i = 0; i < cx->t->n_local; i++)
    {
      SimCpuStats cs = sim_cpu_shares (cx->srs[i], !cx->opt->offline);
      sim_poll_time (cx->srs[i], &cs.poll_wall, &cs.rank_wall);
      sim_call_rate (cx->srs[i], &cs.n_calls, &cs.call_span);
      cpu_stats_add (&local_cpu, &cs);
      if (!quiet_pass)
        cpu_stats_add (&cx->cpu, &cs);
    }
  /* with every rank here (offline): how much CPU time the sampled computation missed of what
   * sharing the cores among the ranks gives it (other programs took it) */
  if (cx->opt->offline && cx->t->n_local == cx->t->n_ranks && cx->hosts.oversubscribed)
    {
      local_cpu.shortfall = sim_cores_shortfall (cx->srs, cx->t->n_ranks);
      local_cpu.poll_share = local_cpu.rank_wall > 0 ? local_cpu.poll_wall / local_cpu.rank_wall : 0;
    }
  if (!quiet_pass)
    {
      /* the contention re-enactment where the original's ranks really competed for cores: their
       * computation computed (rather than slept), and it, or their MPI calls, waited runnable
       * for a CPU a noticeable part of its time. A rank in MPI yields its CPU to one computing
       * beside it, and its wait ends only when it gets the CPU back: 42 traces of computing
       * programs whose computation waited 5 % or less but whose sampled MPI calls waited 54-92 %
       * came out -43 .. +67 % (13 within 5 %) re-enacted on idle CPUs, -2.9 .. +62 % (32 within
       * 5 %) with the contention. Ranks that share cores but mostly sleep keep the precise,
       * real-time scheduled re-enactment, however long their computation seemed to wait: it
       * holds the MPI calls the plan does not re-enact, where they spun for each other (a ring of
       * MPI_Neighbor_alltoall at 4 ranks on 2 cores, computation waiting 13 %: -18 .. -23 % with
       * the contention, within 0.3 % without; docs/decisions/2026-11-30-pinned-replay.md) */
      sum_cpu (cx);
      cx->sum.cpu.shortfall = local_cpu.shortfall;
      if (cx->contention_auto)
        {
          cx->contention = sim_ranks_competed (&cx->sum.cpu);
          cx->sum.contention = cx->contention;
        }
      /* other programs slowed the original down: no mode can reproduce it, say so first */
      if (cx->prog.root && !cx->sum.mode_advice
          && (cx->sum.mode_advice = sim_load_advice (&cx->hosts, &cx->sum.cpu)) && !cx->opt->quiet)
        fprintf (stderr, _("kubus-sim: note: %s\n"), cx->sum.mode_advice);
      /* the ranks mostly polled: offline, the model keeps the cores as the original had them
       * (sim_model_fit_cores below); in real time a re-enacted poll costs what a poll costs here,
       * on CPUs whose hand-overs between polling ranks differ from the original's
       * (docs/decisions/2026-11-30-polling-runs-offline.md) */
      if (cx->prog.root && !cx->sum.mode_advice && cx->sum.cpu.poll_share > SIM_POLL_SHARE)
        {
          cx->sum.mode_advice = g_strdup_printf (
            cx->opt->offline
            ? _("The original's ranks shared %u CPUs of a host (up to %u ranks) and spent %.0f %% of their time in "
                "polls that found nothing (MPI_Test, MPI_Iprobe and the like). A polling rank hands its CPU to the "
                "ranks beside it, which the offline model's sharing of the cores does not describe: the model keeps "
                "the computation and the MPI costs as the original had them, with the CPUs shared as they were "
                "(HPCC at 4 ranks on 2 cores: within 0.1 %%, where sharing the cores missed it by 20-26 %%). A "
                "hypothesis that changes how much the ranks compute does not give the other ranks on their CPUs "
                "more or less CPU time here; the real-time re-enactment (without --offline) runs the ranks on the "
                "CPUs the original used and does, but misses polling runs by more (HPCC at 4 ranks: +37 to +151 %%).")
            : _("The original's ranks shared %u CPUs of a host (up to %u ranks) and spent %.0f %% of their time in "
                "polls that found nothing (MPI_Test, MPI_Iprobe and the like). How long such a poll lasts depends on "
                "when the polling rank hands its CPU to the ranks beside it, which the real-time re-enactment does "
                "not bring back: it has missed such runs by far (HPCC at 4 ranks on 2 cores: +37 to +151 %%). The "
                "offline model keeps the polls as the original had them (HPCC: within 0.1 %%): simulate with "
                "--offline."),
            cx->hosts.min_cpus, cx->hosts.max_ranks_per_host, 100.0 * cx->sum.cpu.poll_share);
          if (!cx->opt->quiet)
            fprintf (stderr, _("kubus-sim: note: %s\n"), cx->sum.mode_advice);
        }
      /* busy ranks three times as many as the CPUs: the contention re-enactment's ranks waiting
       * in MPI take more of the CPUs than the original's did, its computing ranks less, and the
       * run ends early (docs/decisions/2026-11-30-contention-waits-cpu.md); the offline model
       * keeps the original's shares (docs/decisions/2026-12-01-even-placement.md) */
      if (!cx->opt->offline && cx->prog.root && !cx->sum.mode_advice && cx->contention && cx->hosts.min_cpus > 0
          && cx->hosts.max_ranks_per_host >= 3 * cx->hosts.min_cpus)
        {
          cx->sum.mode_advice = g_strdup_printf (
            _("The original's ranks shared %u CPUs of a host (up to %u ranks, %.1f per CPU) and competed for them. "
              "The real-time re-enactment brings that contention back, but with this many ranks per CPU its ranks "
              "waiting in MPI take more of the CPUs than the original's did and its computing ranks less: it has "
              "come out 1 to 7 %% short on such runs (6 busy ranks on 2 CPUs), where the offline model, which keeps "
              "the original's shares, came out -3.2 to +1.2 %%: simulate with --offline."),
            cx->hosts.min_cpus, cx->hosts.max_ranks_per_host,
            (double) cx->hosts.max_ranks_per_host / cx->hosts.min_cpus);
          if (!cx->opt->quiet)
            fprintf (stderr, _("kubus-sim: note: %s\n"), cx->sum.mode_advice);
        }
      /* busy ranks that shared the CPUs and called MPI more often than once per scheduler slice:
       * who runs next is decided at their MPI calls, not by the CPU time each needs
       * (docs/decisions/2026-12-02-fine-grained-contention.md) */
      if (!cx->opt->offline && cx->prog.root && !cx->sum.mode_advice && cx->contention
          && (cx->sum.mode_advice = sim_fine_grain_advice (&cx->hosts, &cx->sum.cpu)) && !cx->opt->quiet)
        fprintf (stderr, _("kubus-sim: note: %s\n"), cx->sum.mode_advice);
      /* the offline model shares the cores evenly among the ranks that compute: where the ranks
       * competed for them, say so before simulating, and what the scheduler does that it does
       * not (docs/decisions/2026-11-29-offline-cores.md) */
      if (cx->opt->offline && cx->prog.root && !cx->sum.mode_advice && cx->hosts.oversubscribed
          && cx->sum.cpu.gap_wall > 0
          && cx->sum.cpu.gap_wait / cx->sum.cpu.gap_wall > SIM_CONTENTION_SHARE)
        {
          if (cx->defs->cpu_metric_where && cx->hosts.max_ranks_per_host <= 64)
            cx->sum.mode_advice = g_strdup_printf (
              _("The original's ranks shared %u CPUs of a host (up to %u ranks) and their computation waited %.0f %% "
                "of its time for a CPU. Where it waited less than 15 %%, or no rank changed its CPU and the ranks sat on "
                "the CPUs unevenly or were bound to them, the offline model shares each CPU among the ranks the samples place on it (a rank waiting in MPI gets it once those "
                "computing there are in MPI too); where it waited more and the scheduler moved the ranks between the "
                "CPUs or left them as evenly as the CPUs allow, the model shares them evenly, each phase of the run "
                "on the CPUs it had (where three ranks sat on one CPU and one on the other, fewer than where they sat two "
                "and two). On 146 traces of 2 to 6 ranks on 2 cores it missed 122 by at most 5 %% (LAMMPS at 4 ranks: 35 "
                "of 45 taken by older collectors; of those taken by this one, all 52 of one machine by at most 4.7 %% "
                "and 29 of 30 of another, the other by -6.0 %%; Quantum "
                "ESPRESSO's pw.x: 8 of 12) and the others by up to 12 %%; small programs at 3 ranks that poll or compute in bursts vary "
                "most (four traces of one came out -3.6 to +15.9 %%), and six small runs of pw.x on another machine -11 to "
                "-15 %%. The identity error of this trace says how far "
                "it misses this one. The real-time re-enactment (without --offline) runs each rank on the CPU the "
                "samples place it on and brings the scheduler's own sharing back, but missed 33 of 93 of those "
                "traces by more than 5 %% (mean 8 %%; LAMMPS at 4 ranks: 3 %% on one day, -8 to +28 %% on another, as the machine's speed varied)."),
              cx->hosts.min_cpus, cx->hosts.max_ranks_per_host, 100.0 * cx->sum.cpu.gap_wait / cx->sum.cpu.gap_wall);
          else
          cx->sum.mode_advice = g_strdup_printf (
            _("The original's ranks shared %u CPUs of a host (up to %u ranks) and their computation waited %.0f %% "
              "of its time for a CPU. The offline model shares the CPUs evenly among the ranks that compute, as "
              "many as the samples show the ranks got, but not in the scheduler's time slices, and it gives ranks "
              "waiting in MPI no CPU time while MPI spins on them: it has missed such runs by up to 5 %% where the "
              "ranks computed side by side (Meep, GROMACS, LAMMPS mostly) and by 10-30 %% where ranks waiting for "
              "large messages or collectives spun on the cores (small programs at 3 to 4 ranks on 2 cores). The "
              "identity error of this trace says how far it misses this one; the real-time re-enactment (without "
              "--offline) brings the scheduler's own sharing back, and sometimes the run."),
            cx->hosts.min_cpus, cx->hosts.max_ranks_per_host, 100.0 * cx->sum.cpu.gap_wait / cx->sum.cpu.gap_wall);
          if (!cx->opt->quiet)
            fprintf (stderr, _("kubus-sim: note: %s\n"), cx->sum.mode_advice);
        }
    }
  trace_span (cx, FALSE, &cx->orig_first, &cx->orig_last, &cx->orig_init);
  if (!sim_plan_check_colls (cx->t, cx->srs, cx->opt->kct ? cx->opt->kct : cx->opt->anchor, &errs[0]))
    {
      for (int i = 1; i < cx->t->n_local; i++)
        errs[i] = NULL;
      agree (cx, errs, error);
      return FALSE;
    }
  sim_plan_sync_tails (cx->t, cx->srs);
  if (!cx->opt->offline)
    sim_plan_coll_costs (cx->t, cx->srs);
  if (cx->opt->offline)
    {
      /* the model is fitted on the original times: pair the messages first */
      if (!sim_match_messages (cx->t, cx->srs, NULL, NULL, NULL, &errs[0]))
        {
          agree (cx, errs, error);
          return FALSE;
        }
      /* the model shares the cores where ranks outnumbered them, unless other programs took
       * some of them too: their share came and went with the other programs, and the model's
       * even sharing of what the ranks got misses such runs far more than the mean costs do
       * (docs/decisions/2026-11-29-offline-cores.md); offline, every rank's samples are here */
      {
        double load = sim_outside_load (&cx->hosts, &local_cpu);
        const char *force = g_getenv ("KUBUS_SIM_CONTENTION");
        gboolean never = force && strcmp (force, "0") == 0;
        model = sim_model_fit_cores (cx->srs, cx->t->n_ranks,
                                     !never && load >= 0 && load <= SIM_CONTENTION_SHARE
                                     && local_cpu.shortfall <= SIM_SHORTFALL
                                     && local_cpu.poll_share <= SIM_POLL_SHARE);
      }
    }

  if (!quiet_pass)
    phase (cx, 0.3, 0.35, _("applying the hypothesis"));
  if (!sim_transform (cx->t, cx->srs, hyp, tstats, &errs[0]))
    {
      for (int i = 1; i < cx->t->n_local; i++)
        errs[i] = NULL;
      ok = FALSE;
    }
  if (!agree (cx, errs, error) || !ok)
    {
      sim_model_free (model);
      return FALSE;
    }
  sum_stats (cx, tstats);
  if (!build_plans (cx, quiet_pass, error))
    {
      sim_model_free (model);
      return FALSE;
    }

  if (cx->opt->offline)
    {
      if (!quiet_pass)
        phase (cx, 0.35, 0.7, _("simulating offline (fitted communication model)"));
      ok = sim_offline_run (cx->srs, cx->plans, cx->t->n_ranks, model, FALSE, &n_events, error);
      if (ok && !quiet_pass)
        cx->sum.model_json = sim_model_describe (model);
      sim_model_free (model);
      if (!ok)
        return FALSE;
    }
  else
    {
      SimReplayStats *rs = quiet_pass ? &scratch : &cx->sum.rstats;
      SimReplayMode mode = { cx->contention, sim_cpu_host_cpus (cx->defs, cx->srs[0]->rank) };
      if (!quiet_pass && cx->prog.root)
        {
          /* this library's eager limits against the original's: said before re-enacting, beside
           * the advice on the mode (the launcher's options reach only the ranks, so a rank asks) */
          unsigned long long here[2];
          int have[2];
          g_autofree char *eager = NULL;
          kubus_mpit_eager_limits (here, have);
          eager = sim_eager_advice (cx->defs, cx->hosts.n_hosts, here, have);
          if (eager)
            {
              char *both = cx->sum.mode_advice ? g_strconcat (cx->sum.mode_advice, " ", eager, NULL) : g_strdup (eager);
              g_free (cx->sum.mode_advice);
              cx->sum.mode_advice = both;
              if (!cx->opt->quiet)
                fprintf (stderr, _("kubus-sim: note: %s\n"), eager);
            }
        }
      if (!quiet_pass)
        {
          g_autofree char *what = g_strdup_printf (_("re-enacting %.3f s of the hypothetical run in real time"),
                                                   (cx->orig_last - cx->orig_first) / 1e9);
          phase (cx, 0.35, 0.7, what);
        }
      if (!sim_replay_run (cx->srs[0], cx->plans[0], &mode, rs, error))
        {
          /* the other processes may wait in MPI for this one forever */
          fprintf (stderr, "kubus-sim: %s\n", (*error)->message);
          MPI_Abort (MPI_COMM_WORLD, 1);
          return FALSE;
        }
      {
        gint64 n[6] = { (gint64) rs->events, (gint64) rs->large_calls, rs->large_replay_ns, rs->large_orig_ns,
                        (gint64) rs->rt_demotions, rs->caught_up_ns };
        gint64 total[6] = { n[0], n[1], n[2], n[3], n[4], n[5] };
        MPI_Reduce (n, total, 6, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        rs->rt_demotions = (guint64) total[4];
        rs->caught_up_ns = total[5];
        n_events = (guint64) total[0];
        rs->large_calls = (guint64) total[1];
        rs->large_replay_ns = total[2];
        rs->large_orig_ns = total[3];
        if (cx->prog.root && sim_hypothesis_is_identity (hyp))
          {
            cx->sum.identity_large_calls = rs->large_calls;
            cx->sum.identity_large_ratio = total[3] > 0 ? (double) total[2] / (double) total[3] : 0;
          }
      }
    }
  if (!quiet_pass)
    cx->sum.n_events = n_events;
  trace_span (cx, TRUE, first, last, init);
  return TRUE;
}

/* Run time after the last MPI_Init (the whole run when there is none), seconds. */
static double
after_init (gint64 first,
            gint64 last,
            gint64 init)
{
  return (init >= 0 ? last - init : last - first) / 1e9;
}

/* The offline identity simulation of the trace in this process (no MPI: the fitted model runs
 * in a fraction of the run's time), its figure stored in the offline cache as an --offline
 * simulation of the identity stores it. @defs is borrowed. */
static gboolean
measure_offline_identity (const SimOptions *opt,
                          TraceDefs        *defs,
                          double           *percent,
                          GError          **error)
{
  SimOptions off = *opt;
  Ctx ox = { 0 };
  g_autoptr (Hypothesis) empty = g_new0 (Hypothesis, 1);
  g_autofree char *cache = NULL;
  SimTransformStats st = { 0 };
  gint64 first = 0, last = 0, init = -1;
  gint64 t0 = g_get_monotonic_time ();
  double orig, pred;
  gboolean ok;

  off.offline = TRUE;
  ox.opt = &off;
  ox.defs = defs;
  ox.prog.prog = "kubus-sim";
  ox.prog.root = TRUE;
  ox.prog.quiet = TRUE;
  ox.prog.last_pct = -1;
  sim_plan_notes_init (&ox.notes);
  sim_cpu_hosts (defs, &ox.hosts);
  empty->path = g_strdup (opt->hypothesis);
  empty->rules = g_ptr_array_new ();
  ox.t = transport_local_new (defs->n_ranks);
  ok = reenact (&ox, empty, TRUE, &st, &first, &last, &init, error);
  orig = after_init (ox.orig_first, ox.orig_last, ox.orig_init);
  pred = after_init (first, last, init);
  drop_pass (&ox);
  ox.t->free (ox.t);
  sim_plan_notes_clear (&ox.notes);
  g_clear_pointer (&ox.dropped, g_hash_table_unref);
  if (!ok)
    return FALSE;
  if (!(orig > 0))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: the trace's run lasted no time"), opt->anchor);
      return FALSE;
    }
  *percent = 100.0 * (pred / orig - 1.0);
  cache = sim_identity_cache_path_for (&off, TRUE);
  sim_identity_cache_store (cache, &off, *percent, orig, pred, -1);
  g_debug ("offline identity of %s: %+.3f %% (%s), measured in %.3f s", opt->anchor, *percent, cache,
           (g_get_monotonic_time () - t0) / 1e6);
  return TRUE;
}

/* The other mode's identity error on this trace and the advice beside this mode's
 * @error_percent (NULL: nothing to say). The other mode's figure comes from the cache; where it
 * is not cached, this mode misses the goal and the other mode is offline, it is measured here
 * (@defs: the trace's definitions; NULL never measures) and cached. A real-time re-enactment
 * costs a whole run: it is never started for a comparison, only named. */
static char *
identity_advice_beside_other_mode (const SimOptions *opt,
                                   TraceDefs        *defs,
                                   const SimHosts   *h,
                                   double            error_percent,
                                   AnalyzeProgress  *prog,
                                   gboolean          rt_against,
                                   gboolean         *have_other,
                                   double           *other)
{
  g_autofree char *path = sim_identity_cache_path_for (opt, !opt->offline);
  double o = 0;
  gboolean known = sim_identity_cache_load (path, &o);

  if (!known && !opt->offline && defs && isfinite (error_percent)
      && fabs (error_percent) > sim_identity_goal (h))
    {
      g_autoptr (GError) error = NULL;
      if (prog)
        {
          prog->last_pct = -1;
          analyze_progress_line (prog, 0.0, _("measuring the identity error of this trace offline, to compare "
                                              "the modes"));
        }
      known = measure_offline_identity (opt, defs, &o, &error);
      if (!known && !opt->quiet)
        fprintf (stderr, _("kubus-sim: warning: the offline identity error of this trace could not be "
                           "measured: %s\n"), error->message);
    }
  if (have_other)
    *have_other = known;
  if (other)
    *other = known ? o : 0;
  return sim_identity_advice (opt->offline, h, error_percent, known, o, rt_against);
}

/* Before simulating: the advice where this mode's identity error on the trace is cached. */
static char *
identity_advice_before (const SimOptions *opt,
                        const Hypothesis *hyp,
                        TraceDefs        *defs,
                        const SimHosts   *h,
                        AnalyzeProgress  *prog)
{
  g_autofree char *mine = NULL;
  double e = 0;

  if (opt->no_identity || opt->identity_again || sim_hypothesis_is_identity (hyp))
    return NULL;
  mine = sim_identity_cache_path (opt);
  if (!sim_identity_cache_load (mine, &e))
    return NULL;
  return identity_advice_beside_other_mode (opt, defs, h, e, prog,
                                            opt->offline && sim_identity_cache_rt_advised_against (mine) == 1,
                                            NULL, NULL);
}

/* Offline: the real-time re-enactment is known to miss a run like this trace's by more
 * (sim_rt_advised_against, on the CPU statistics of this simulation's own pass); −1 in real time */
static int
rt_advised_against (const Ctx *cx)
{
  if (!cx->opt->offline)
    return -1;
  return sim_rt_advised_against (cx->opt, cx->defs, &cx->hosts, &cx->sum.cpu);
}

/* Once this trace's identity error is known: the other mode's figure and the advice (rank 0
 * keeps them in the summary). Measuring the other mode's runs on rank 0 alone, after the
 * events are freed, while the other ranks wait without taking a CPU. */
static void
identity_against_other_mode (Ctx *cx)
{
  if (cx->mpi)
    drop_pass (cx);
  if (cx->prog.root && cx->sum.have_identity)
    {
      cx->prog.lo = cx->prog.hi = 0.98;
      g_free (cx->sum.identity_advice);
      cx->sum.identity_advice = identity_advice_beside_other_mode (cx->opt, cx->defs, &cx->hosts,
                                                                   cx->sum.identity_error, &cx->prog,
                                                                   rt_advised_against (cx) == 1,
                                                                   &cx->sum.have_other_identity,
                                                                   &cx->sum.other_identity_error);
      /* why the re-enactment missed: large messages moved at another speed than in the original */
      if (cx->sum.identity_advice && !cx->opt->offline && !cx->sum.identity_cached)
        {
          g_autofree char *note = sim_large_messages_note (cx->sum.identity_large_calls,
                                                           cx->sum.identity_large_ratio);
          if (note)
            {
              char *both = g_strconcat (cx->sum.identity_advice, " ", note, NULL);
              g_free (cx->sum.identity_advice);
              cx->sum.identity_advice = both;
            }
        }
    }
  if (cx->mpi)
    transport_mpi_lazy_barrier ();
}

/* The error bar: the identity simulation's error, from the cache or measured now (after the
 * hypothesis' own simulation, whose events are dropped first). A simulation of the identity
 * itself is its own error bar and refreshes the cache. */
static gboolean
measure_identity (Ctx     *cx,
                  GError **error)
{
  g_autofree char *cache = NULL;
  double v[2] = { 0, 0 };   /* found, percent */
  gboolean is_identity = sim_hypothesis_is_identity (cx->hyp);
  double orig = after_init (cx->orig_first, cx->orig_last, cx->orig_init);

  if (cx->opt->no_identity)
    return TRUE;
  if (cx->prog.root)
    cache = sim_identity_cache_path (cx->opt);
  if (is_identity)
    {
      if (cx->prog.root && orig > 0)
        {
          cx->sum.have_identity = TRUE;
          cx->sum.identity_error = 100.0 * (cx->sum.sim_after_init_any / orig - 1.0);
          sim_identity_cache_store (cache, cx->opt, cx->sum.identity_error, orig, cx->sum.sim_after_init_any,
                                    rt_advised_against (cx));
        }
      identity_against_other_mode (cx);
      return TRUE;
    }
  if (cx->prog.root && !cx->opt->identity_again && sim_identity_cache_load (cache, &v[1]))
    v[0] = 1;
  if (cx->mpi)
    MPI_Bcast (v, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (v[0] == 0)
    {
      g_autoptr (Hypothesis) empty = g_new0 (Hypothesis, 1);
      SimTransformStats st = { 0 };
      gint64 first, last, init;
      empty->path = g_strdup (cx->hyp->path);
      empty->rules = g_ptr_array_new ();
      phase (cx, 0.95, 0.98, cx->opt->offline ? _("measuring the identity error of this trace (offline)")
                                                : _("measuring the identity error of this trace (a real-time "
                                                    "re-enactment of the run as it was)"));
      drop_pass (cx);
      if (!reenact (cx, empty, TRUE, &st, &first, &last, &init, error))
        return FALSE;
      if (cx->prog.root && orig > 0)
        {
          double pred = after_init (first, last, init);
          v[1] = 100.0 * (pred / orig - 1.0);
          sim_identity_cache_store (cache, cx->opt, v[1], orig, pred, rt_advised_against (cx));
          v[0] = 1;
        }
    }
  else
    cx->sum.identity_cached = TRUE;
  cx->sum.have_identity = v[0] != 0;
  cx->sum.identity_error = v[1];
  identity_against_other_mode (cx);
  return TRUE;
}

static gboolean
simulate (Ctx     *cx,
          GError **error)
{
  g_autofree GError **errs = g_new0 (GError *, cx->t->n_local);
  g_autofree char *sim_anchor = g_build_filename (cx->workdir, "traces.otf2", NULL);
  g_autofree char *sim_cube = g_build_filename (cx->workdir, "analysis.cube", NULL);
  g_autofree char *sim_stats = g_build_filename (cx->workdir, "analysis.stats.json", NULL);
  g_autofree char *diff_cube = g_build_filename (cx->workdir, "difference.cube", NULL);
  g_autofree char *summary_json = g_build_filename (cx->workdir, "summary.json", NULL);
  g_autoptr (TraceDefs) sim_defs = NULL;
  gint64 first, last, init;
  gboolean ok = TRUE;

  if (!reenact (cx, cx->hyp, FALSE, &cx->sum.tstats, &first, &last, &init, error))
    return FALSE;
  cx->sum.orig_runtime = (cx->orig_last - cx->orig_first) / 1e9;
  cx->sum.sim_runtime = (last - first) / 1e9;
  cx->sum.orig_after_init = cx->orig_init >= 0 ? (cx->orig_last - cx->orig_init) / 1e9 : -1;
  cx->sum.sim_after_init = init >= 0 ? (last - init) / 1e9 : -1;
  cx->sum.sim_after_init_any = after_init (first, last, init);

  phase (cx, 0.7, 0.75, _("writing the simulated trace"));
  ok = trace_write_sim (cx->opt->anchor, sim_anchor, cx->t, cx->srs, cx->mpi, &errs[0]);
  if (!agree (cx, errs, error))
    return FALSE;
  /* every process has closed the archive: read it back like any trace */
  sim_defs = trace_defs_read (sim_anchor, &errs[0]);
  if (!agree (cx, errs, error))
    return FALSE;
  cx->prog.lo = 0.75;
  cx->prog.hi = 0.95;
  /* the simulated trace's own events, not those of a compressed original (until 2026-11-29 its
   * report was the original's: no difference, whatever the hypothesis) */
  const KctTrace *kct_src;
  const KctComms *kct_comms;
  trace_kct_source_get (&kct_src, &kct_comms);
  trace_kct_source_set (NULL, NULL);
  ok = analyze_run_auto (NULL, cx->t, cx->mpi, sim_defs, !cx->opt->no_clock_repair, sim_anchor, sim_cube,
                         sim_stats, cx->opt->launcher, &cx->prog, NULL, error);
  trace_kct_source_set (kct_src, kct_comms);
  if (!ok)
    return FALSE;
  if (!measure_identity (cx, error))
    return FALSE;

  phase (cx, 0.98, 1.0, _("comparing with the original"));
  {
    int good = 1;
    if (cx->prog.root)
      {
        g_autoptr (GString) out = g_string_new (NULL);
        cx->sum.offline = cx->opt->offline;
        cx->sum.hyp = cx->hyp;
        cx->sum.notes = &cx->notes;
        cx->sum.dropped = cx->dropped;
        if (!sim_report_write (cx->orig_cube, sim_cube, diff_cube, summary_json, &cx->sum, out, error))
          good = 0;
        else if (!cx->opt->quiet)
          {
            fputs (out->str, stdout);
            fflush (stdout);
          }
      }
    if (cx->mpi)
      MPI_Bcast (&good, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!good && error && !*error)
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("rank 0 could not write the comparison"));
    ok = good;
  }
  return ok;
}

static void
ctx_clear (Ctx *cx)
{
  drop_pass (cx);
  if (cx->t)
    cx->t->free (cx->t);
  sim_plan_notes_clear (&cx->notes);
  g_clear_pointer (&cx->dropped, g_hash_table_unref);
  g_free (cx->sum.model_json);
  g_free (cx->sum.mode_advice);
  g_free (cx->sum.identity_advice);
  g_free (cx->workdir);
  g_free (cx->orig_cube);
  sim_hypothesis_free (cx->hyp);
  trace_defs_free (cx->defs);
}

/* The report of the original: EXPDIR/analysis.cube, or ANCHOR-without-.otf2.cube beside a bare
 * anchor; when it is missing and cannot be written there, it is made inside SIMDIR. */
static void
original_cube_path (Ctx *cx)
{
  g_autofree char *dir = g_path_get_dirname (cx->opt->anchor);
  if (cx->opt->expdir)
    cx->orig_cube = g_build_filename (cx->opt->expdir, "analysis.cube", NULL);
  else
    {
      g_autofree char *base = g_path_get_basename (cx->opt->anchor);
      if (g_str_has_suffix (base, ".otf2"))
        base[strlen (base) - 5] = '\0';
      cx->orig_cube = g_strdup_printf ("%s/%s.cube", dir, base);
    }
  if (!g_file_test (cx->orig_cube, G_FILE_TEST_EXISTS) && access (dir, W_OK) != 0)
    {
      g_free (cx->orig_cube);
      cx->orig_cube = g_build_filename (cx->workdir, "original.cube", NULL);
      cx->orig_in_workdir = TRUE;
    }
}

/* One simulation process (MPI rank, or the only process with --offline). */
static int
run_ranks (SimOptions *opt,
           gboolean    mpi)
{
  Ctx cx = { 0 };
  g_autoptr (GError) error = NULL;
  gboolean own_workdir = FALSE;
  int status = 0;

  cx.opt = opt;
  cx.mpi = mpi;
  if (mpi)
    {
      int world;
      int provided;
      /* the analysis may run threads in rank 0 (analyze-auto.c); they never call MPI */
      MPI_Init_thread (&opt->argc, &opt->argv, MPI_THREAD_FUNNELED, &provided);
      MPI_Comm_rank (MPI_COMM_WORLD, &cx.me);
      MPI_Comm_size (MPI_COMM_WORLD, &world);
      (void) world;
    }
  cx.prog.prog = "kubus-sim";
  cx.prog.root = cx.me == 0;
  cx.prog.quiet = opt->quiet;
  cx.prog.last_pct = -1;
  sim_plan_notes_init (&cx.notes);

  cx.defs = trace_defs_read (opt->anchor, &error);
  if (cx.defs)
    {
      cx.hyp = sim_hypothesis_load_resolved (opt->hypothesis, cx.defs, &error);
    }
  if (!cx.defs || !cx.hyp)
    goto fail_early;
  if (mpi)
    {
      int world;
      MPI_Comm_size (MPI_COMM_WORLD, &world);
      if (world != cx.defs->n_ranks)
        {
          g_set_error (&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       _("%s has %d ranks but the simulation runs on %d: start it with mpirun -n %d or "
                         "without a launcher"), opt->anchor, cx.defs->n_ranks, world, cx.defs->n_ranks);
          goto fail_early;
        }
    }
  /* the work folder: the launcher's, or our own (rank 0 makes it, the others learn its name) */
  cx.workdir = g_strdup (g_getenv ("KUBUS_SIM_WORKDIR"));
  if (!cx.workdir || !*cx.workdir)
    {
      int pid = (int) getpid ();
      g_free (cx.workdir);
      if (mpi)
        MPI_Bcast (&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
      cx.workdir = sim_workdir_name (opt->simdir, pid);
      own_workdir = TRUE;
      if (cx.me == 0)
        {
          sim_remove_stale_workdirs (opt->simdir);
          if (g_mkdir (cx.workdir, 0755) != 0)
            g_set_error (&error, G_FILE_ERROR, g_file_error_from_errno (errno), _("cannot create %s: %s"),
                         cx.workdir, g_strerror (errno));
        }
      if (mpi)
        {
          int bad = error != NULL;
          MPI_Bcast (&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
          if (bad && !error)
            g_set_error_literal (&error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "workdir");
        }
      if (error)
        goto fail_early;
    }
  original_cube_path (&cx);
  sim_cpu_hosts (cx.defs, &cx.hosts);
  {
    const char *force = g_getenv ("KUBUS_SIM_CONTENTION");
    cx.contention = force && *force ? strcmp (force, "0") != 0 && !opt->offline
                                    : !opt->offline && cx.hosts.oversubscribed && cx.hosts.has_samples;
    cx.contention_auto = cx.contention && !(force && *force);
  }
  if (cx.me == 0)
    {
      cx.sum.mode_advice = sim_mode_advice (opt, cx.defs, &cx.hosts);
      /* said before simulating: by the launching process, or here when there is none */
      if (cx.sum.mode_advice && !opt->quiet && !g_getenv ("KUBUS_SIM_WORKDIR"))
        fprintf (stderr, _("kubus-sim: note: %s\n"), cx.sum.mode_advice);
      if (!g_getenv ("KUBUS_SIM_WORKDIR"))
        {
          g_autofree char *said = identity_advice_before (opt, cx.hyp, cx.defs, &cx.hosts, &cx.prog);
          if (said && !opt->quiet)
            fprintf (stderr, _("kubus-sim: note: %s\n"), said);
        }
    }
  /* the other ranks wait for rank 0's offline identity without taking its CPU */
  if (mpi && !g_getenv ("KUBUS_SIM_WORKDIR"))
    transport_mpi_lazy_barrier ();
  cx.t = mpi ? transport_mpi_new (cx.defs->n_ranks) : transport_local_new (cx.defs->n_ranks);

  if (!g_file_test (cx.orig_cube, G_FILE_TEST_EXISTS) && !analyze_original (&cx, &error))
    status = 1;
  else if (!simulate (&cx, &error))
    status = 1;
  if (status == 0 && own_workdir && cx.me == 0 && !sim_install (cx.workdir, opt->simdir, &error))
    status = 1;
  if (status != 0)
    {
      if (cx.me == 0)
        fprintf (stderr, _("kubus-sim: %s (no simulation written)\n"), error ? error->message : "?");
      if (own_workdir && cx.me == 0)
        kubus_remove_tree (cx.workdir);
    }
  else if (cx.me == 0 && own_workdir && !opt->quiet)
    fprintf (stderr, _("kubus-sim: wrote %s\n"), opt->simdir);
  ctx_clear (&cx);
  if (mpi)
    MPI_Finalize ();
  return status;

fail_early:
  if (cx.me == 0)
    fprintf (stderr, "kubus-sim: %s\n", error->message);
  ctx_clear (&cx);
  if (mpi)
    MPI_Finalize ();
  return 1;
}

static int sim_main_trace (SimOptions *opt);

/* An experiment with only traces.kct: every process replays the compressed trace through the
 * readers' event source; the process that starts the run (or the one offline process) first
 * writes the definitions-only archive @opt->anchor stands for, and removes it at the end. */
int
sim_main (SimOptions *opt)
{
  if (opt->kct == NULL)
    return sim_main_trace (opt);
  g_autoptr (GError) error = NULL;
  KctTrace *t = kct_load (opt->kct, &error);
  char      why[256];
  KctComms *comms = t ? kct_comms_new (t, why, sizeof why) : NULL;
  if (t == NULL || comms == NULL)
    {
      if (t != NULL)
        fprintf (stderr, _("kubus-sim: %s: the compressed trace is inconsistent: %s\n"), opt->kct, why);
      else
        fprintf (stderr, "kubus-sim: %s\n", error->message);
      kct_trace_free (t);
      return 1;
    }
  g_autofree char *defs = g_path_get_dirname (opt->anchor);
  gboolean         starter = opt->offline || !launch_mpi_in_launcher ();
  if (starter && !kct_expand_definitions (t, defs, TRUE, &error))
    {
      fprintf (stderr, "kubus-sim: %s\n", error->message);
      kct_comms_free (comms);
      kct_trace_free (t);
      return 1;
    }
  trace_kct_source_set (t, comms);
  /* the replayed times are laid out from histograms, not measured by clocks that may drift:
   * a receive laid out before its send is no clock error to repair */
  opt->no_clock_repair = TRUE;
  int rc = sim_main_trace (opt);
  trace_kct_source_set (NULL, NULL);
  if (starter)
    kubus_remove_tree (defs);
  kct_comms_free (comms);
  kct_trace_free (t);
  return rc;
}

static int
sim_main_trace (SimOptions *opt)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TraceDefs) defs = NULL;
  g_autoptr (Hypothesis) hyp = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *workdir = NULL;
  sigset_t stop_signals, entry_mask;
  int rc;

  if (opt->offline)
    return run_ranks (opt, FALSE);
  if (launch_mpi_in_launcher ())
    return run_ranks (opt, TRUE);

  /* the launching process: fail fast on bad input, before mpirun starts */
  defs = trace_defs_read (opt->anchor, &error);
  if (defs)
    {
      hyp = sim_hypothesis_load_resolved (opt->hypothesis, defs, &error);
    }
  if (!defs || !hyp)
    {
      fprintf (stderr, "kubus-sim: %s\n", error->message);
      return 1;
    }
  if (defs->n_ranks < 1)
    {
      fprintf (stderr, _("kubus-sim: %s: the trace has no MPI ranks\n"), opt->anchor);
      return 1;
    }
  {
    SimHosts hosts;
    AnalyzeProgress prog = { .prog = "kubus-sim", .root = TRUE, .quiet = opt->quiet, .last_pct = -1 };
    g_autofree char *advice = NULL;
    sim_cpu_hosts (defs, &hosts);
    advice = sim_mode_advice (opt, defs, &hosts);
    if (advice && !opt->quiet)
      fprintf (stderr, _("kubus-sim: note: %s\n"), advice);
    g_free (advice);
    /* before mpirun starts: an offline identity measured here has the machine to itself */
    advice = identity_advice_before (opt, hyp, defs, &hosts, &prog);
    if (advice && !opt->quiet)
      fprintf (stderr, _("kubus-sim: note: %s\n"), advice);
  }
  sim_remove_stale_workdirs (opt->simdir);
  workdir = sim_workdir_name (opt->simdir, (int) getpid ());
  /* from the work folder on, a Cancel (SIGTERM, SIGINT, SIGHUP) waits for the launcher to take
   * it (launch-mpi.c unblocks them once it passes them on) or for the folder to be removed: a
   * signal that ended this process in between left the folder behind */
  kubus_stop_signals_set (&stop_signals);
  pthread_sigmask (SIG_BLOCK, &stop_signals, &entry_mask);
  if (g_mkdir (workdir, 0755) != 0)
    {
      fprintf (stderr, _("kubus-sim: cannot create %s: %s\n"), workdir, g_strerror (errno));
      pthread_sigmask (SIG_SETMASK, &entry_mask, NULL);
      return 1;
    }
  rc = sim_spawn_ranks (opt, defs->n_ranks, workdir);
  if (rc == 0)
    {
      g_autofree char *summary = g_build_filename (workdir, "summary.json", NULL);
      if (!g_file_test (summary, G_FILE_TEST_IS_REGULAR))
        {
          /* the launcher succeeded but no rank wrote the result (it started none of them?):
           * no rank has said anything, so say it here */
          fprintf (stderr, _("kubus-sim: the MPI job ended without writing the simulation (did the "
                             "launcher start the %d processes?) (no simulation written)\n"),
                   defs->n_ranks);
          rc = 1;
        }
      else if (!sim_install (workdir, opt->simdir, &error))
        {
          fprintf (stderr, "kubus-sim: %s\n", error->message);
          rc = 1;
        }
    }
  if (rc != 0)
    {
      /* the ranks (or launch-mpi.c, for a signal) have said what went wrong */
      kubus_remove_tree (workdir);
      pthread_sigmask (SIG_SETMASK, &entry_mask, NULL);   /* a pending Cancel ends us now */
      return rc;
    }
  pthread_sigmask (SIG_SETMASK, &entry_mask, NULL);
  if (!opt->quiet)
    fprintf (stderr, _("kubus-sim: wrote %s\n"), opt->simdir);
  return 0;
}
