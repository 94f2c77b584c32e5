/* analyze-auto.c — runs an analysis where analyze-mode.c's choice says: in this process with
 * threads across its ranks, in rank 0 of the MPI job we are part of while the other processes
 * wait, over the job's processes, or (from a process outside any job: kubus-sim --offline,
 * --verify-causes) by starting kubus-analyze --parallel. kubus-analyze's main and kubus-sim
 * both go through here, so every analysis Kubus runs takes the same choice. */
#include "analyze-mode.h"
#include "trace-kct.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* MPI_Bcast from rank 0 without spinning: the waiting processes nap, so rank 0's threads get
 * the cores when the job's processes outnumber them. */
static void
lazy_bcast (void         *buf,
            int           count,
            MPI_Datatype  type)
{
  MPI_Request req;
  int done = 0;
  struct timespec ts = { 0, 500000 };

  MPI_Ibcast (buf, count, type, 0, MPI_COMM_WORLD, &req);
  MPI_Test (&req, &done, MPI_STATUS_IGNORE);
  while (!done)
    {
      nanosleep (&ts, NULL);
      MPI_Test (&req, &done, MPI_STATUS_IGNORE);
    }
}

void
analyze_mode_choose (const AnalyzeModeOptions *o,
                     gboolean                  mpi,
                     const TraceDefs          *defs,
                     const char               *anchor,
                     AnalyzeMode              *mode)
{
  AnalyzeMachine m;
  AnalyzeTraceSize s;
  AnalyzeModeOptions opts = *o;
  int me = 0;

  analyze_machine_probe (&m);
  analyze_trace_size (defs, anchor, &s);
  if (mpi)
    {
      MPI_Comm node;
      MPI_Comm_rank (MPI_COMM_WORLD, &me);
      MPI_Comm_size (MPI_COMM_WORLD, &m.job_size);
      MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
      MPI_Comm_size (node, &m.job_local);
      MPI_Comm_free (&node);
    }
  else
    m.job_size = m.job_local = 0;   /* a process outside any job (or one that starts its own) */
  /* a compressed trace replayed from memory (kubus-sim) has no event files another process
   * could read: it stays here */
  if (!mpi && trace_kct_active () && s.event_bytes == 0 && opts.want == ANALYZE_MODE_AUTO)
    opts.want = ANALYZE_MODE_IN_PROCESS;
  analyze_mode_decide (&opts, &m, &s, mode);
  if (mpi)
    {
      /* nodes differ: rank 0's view decides for every process */
      gint64 v[6] = { mode->kind, mode->processes, mode->threads, mode->rank0, mode->fallback,
                      (gint64) MIN (mode->budget, (guint64) G_MAXINT64) };
      MPI_Bcast (v, 6, MPI_INT64_T, 0, MPI_COMM_WORLD);
      mode->kind = (AnalyzeModeKind) v[0];
      mode->processes = (int) v[1];
      mode->threads = (int) v[2];
      mode->rank0 = v[3] != 0;
      mode->fallback = v[4] != 0;
      mode->budget = (guint64) v[5];
      if (me != 0)
        g_clear_pointer (&mode->why, g_free);
    }
}

void
analyze_mode_say (const AnalyzeProgress *prog,
                  const AnalyzeMode     *mode)
{
  if (prog->root && !prog->quiet && mode->why && !g_getenv ("KUBUS_ANALYZE_MODE_SAID"))
    fprintf (stderr, "%s: %s\n", prog->prog, mode->why);
}

static char *
analyze_program (void)
{
  const char *env = g_getenv ("KUBUS_ANALYZE_PROGRAM");
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = self ? g_path_get_dirname (self) : NULL;
  g_autofree char *beside = dir ? g_build_filename (dir, "kubus-analyze", NULL) : NULL;

  if (env && *env)
    return g_strdup (env);
  if (beside && g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&beside);
  return g_find_program_in_path ("kubus-analyze");
}

/* From a process outside any MPI job: kubus-analyze --parallel=N does the parallel replay. */
static gboolean
spawn_parallel (const AnalyzeMode *mode,
                gboolean           clock_repair,
                const char        *anchor,
                const char        *cube_path,
                const char        *launcher,
                AnalyzeProgress   *prog,
                GError           **error)
{
  g_autofree char *program = analyze_program ();
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) spawn_error = NULL;
  g_auto (GStrv) envp = g_get_environ ();
  int status = 0;

  if (!program)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("cannot find kubus-analyze for the parallel replay"));
      return FALSE;
    }
  g_ptr_array_add (argv, g_strdup (program));
  g_ptr_array_add (argv, g_strdup_printf ("--parallel=%d", mode->processes));
  g_ptr_array_add (argv, g_strdup_printf ("--threads=%d", mode->threads));
  if (!clock_repair)
    g_ptr_array_add (argv, g_strdup ("--no-clock-repair"));
  if (prog->quiet || !prog->root)
    g_ptr_array_add (argv, g_strdup ("--quiet"));
  if (launcher)
    {
      g_ptr_array_add (argv, g_strdup ("--mpirun"));
      g_ptr_array_add (argv, g_strdup (launcher));
    }
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup (cube_path));
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv, g_strdup (anchor));
  g_ptr_array_add (argv, NULL);
  /* this process has said the choice and why */
  envp = g_environ_setenv (envp, "KUBUS_ANALYZE_MODE_SAID", "1", TRUE);
  fflush (stderr);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_CHILD_INHERITS_STDIN | G_SPAWN_STDOUT_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, &spawn_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("cannot start %s: %s"), program, spawn_error->message);
      return FALSE;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    {
      /* kubus-analyze has said why on our standard error */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED_HANDLED, _("the parallel replay (%s) failed"), program);
      return FALSE;
    }
  return TRUE;
}

gboolean
analyze_run_mode (const AnalyzeMode *mode,
                  Transport         *t,
                  gboolean           mpi,
                  TraceDefs         *defs,
                  gboolean           clock_repair,
                  const char        *anchor,
                  const char        *cube_path,
                  const char        *stats_path,
                  const char        *launcher,
                  AnalyzeProgress   *prog,
                  GString           *summary,
                  GError           **error)
{
  gboolean ok;

  if (mode->kind == ANALYZE_MODE_PARALLEL && mpi)
    {
      replay_threads_set (t, mode->threads);
      return analyze_run (t, TRUE, defs, clock_repair, anchor, cube_path, stats_path, prog, summary, error);
    }
  if (mode->kind == ANALYZE_MODE_PARALLEL)
    return spawn_parallel (mode, clock_repair, anchor, cube_path, launcher, prog, error);

  /* in this process (rank 0 of the job, if we are in one) */
  if (!mpi || prog->root)
    {
      Transport *lt = transport_local_new (defs->n_ranks);
      gboolean saved_root = prog->root;
      replay_threads_set (lt, mode->threads);
      prog->root = TRUE;
      ok = analyze_run (lt, FALSE, defs, clock_repair, anchor, cube_path, stats_path, prog, summary, error);
      prog->root = saved_root;
      lt->free (lt);
    }
  else
    ok = TRUE;
  if (mpi)
    {
      int good = ok ? 1 : 0;
      lazy_bcast (&good, 1, MPI_INT);
      if (!good && ok)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED_HANDLED, _("rank 0 could not analyse the trace"));
      ok = good != 0;
    }
  return ok;
}

gboolean
analyze_run_auto (const AnalyzeModeOptions *o,
                  Transport                *t,
                  gboolean                  mpi,
                  TraceDefs                *defs,
                  gboolean                  clock_repair,
                  const char               *anchor,
                  const char               *cube_path,
                  const char               *stats_path,
                  const char               *launcher,
                  AnalyzeProgress          *prog,
                  GString                  *summary,
                  GError                  **error)
{
  AnalyzeMode mode;
  AnalyzeModeOptions opts = { 0 };
  gboolean ok;

  if (o)
    opts = *o;
  else
    analyze_mode_options_from_env (&opts);
  analyze_mode_choose (&opts, mpi, defs, anchor, &mode);
  analyze_mode_say (prog, &mode);
  ok = analyze_run_mode (&mode, t, mpi, defs, clock_repair, anchor, cube_path, stats_path, launcher, prog,
                         summary, error);
  analyze_mode_clear (&mode);
  return ok;
}
