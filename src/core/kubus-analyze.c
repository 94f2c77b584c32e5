/* kubus-analyze — wait-state analysis of an OTF2 trace by parallel replay.
 *
 *   kubus-analyze EXPDIR                 → EXPDIR/analysis.cube (+ analysis.stats.json)
 *   kubus-analyze TRACE.otf2 -o OUT.cube → OUT.cube (+ OUT.stats.json)
 *   kubus-analyze EXPDIR (only traces.kct) or TRACE.kct: the compressed trace is expanded to a
 *   temporary OTF2 archive first (kct_expand_temporary_in), which is removed at exit
 *
 * Where the analysis runs is analyze-mode.c's choice (analyze_mode_choose): in this process
 * with threads across the ranks, or the parallel MPI replay — outside an MPI launcher the
 * program then re-executes itself under mpirun with one process per traced rank (or
 * --parallel=N). --serial / --parallel decide instead. */
#include "analyze-mode.h"
#include "analyze-private.h"
#include "delay-verify.h"
#include "kubus-program.h"
#include "replay-clock.h"
#include "launch-mpi.h"
#include "kubus-forward-signals.h"
#include "kct.h"
#include "experiment-files.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void analyze_quiet_otf2 (void);

/* The temporary expansion of a compressed trace this process made (NULL: none); removed at
 * exit, whatever the outcome.  Ranks started by a relaunch use the launching process's. */
static char *kct_expanded;

/* Its files, deepest first, for a signal handler: unlink() and rmdir() are async-signal-safe,
 * a walk of the folder is not. */
static char **kct_expanded_files;
static volatile sig_atomic_t kct_pending_signal;

static void
list_files (const char *path,
            GPtrArray  *out)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
      const char *name;
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          list_files (child, out);
        }
    }
  g_ptr_array_add (out, g_strdup (path));
}

static void
on_signal_remove (int sig)
{
  for (guint i = 0; kct_expanded_files != NULL && kct_expanded_files[i] != NULL; i++)
    if (unlink (kct_expanded_files[i]) != 0)
      rmdir (kct_expanded_files[i]);
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
on_signal_note (int sig)
{
  kct_pending_signal = sig;
}

static void
set_signal_handler (void (*handler) (int))
{
  struct sigaction sa = { 0 };
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < KUBUS_STOP_SIGNALS_N; i++)
    sigaction (kubus_stop_signals[i], &sa, NULL);
}

/* Expands @kct (see expand_kct) so that a SIGINT, SIGTERM or SIGHUP at any time from here on
 * (the browser's Cancel) leaves nothing behind: one during the expansion waits for its end. */
static char *expand_kct (const char *kct, GError **error);

static char *
expand_kct_guarded (const char *kct,
                    GError    **error)
{
  char *dir;

  set_signal_handler (on_signal_note);
  dir = expand_kct (kct, error);
  if (dir != NULL)
    {
      g_autoptr (GPtrArray) files = g_ptr_array_new ();
      list_files (dir, files);
      g_ptr_array_add (files, NULL);
      kct_expanded_files = (char **) g_ptr_array_free (g_steal_pointer (&files), FALSE);
    }
  kct_expanded = dir;
  set_signal_handler (on_signal_remove);
  if (kct_pending_signal != 0)
    on_signal_remove (kct_pending_signal);
  return dir;
}

static void
remove_kct_expanded (void)
{
  if (kct_expanded != NULL)
    {
      /* the process is ending: a second SIGTERM (the browser signals the process group and
       * then each process) must not cut the removal short */
      sigset_t block;
      kubus_stop_signals_set (&block);
      sigprocmask (SIG_BLOCK, &block, NULL);
      kct_remove_temporary (kct_expanded);
    }
  g_clear_pointer (&kct_expanded, g_free);
  g_clear_pointer (&kct_expanded_files, g_strfreev);
}

/* Expands @kct next to it (the experiment folder; $TMPDIR when that is not writable). */
static char *
expand_kct (const char *kct,
            GError    **error)
{
  g_autofree char *parent = g_path_get_dirname (kct);
  return kct_expand_temporary_in (kct, access (parent, W_OK) == 0 ? parent : NULL, error);
}

static void
verify_progress (guint       done,
                 guint       total,
                 const char *what,
                 gpointer    data)
{
  if (!*(gboolean *) data)
    fprintf (stderr, "kubus-analyze: [verify %u/%u] %s\n", done + 1, total, what);
}

/* --verify-causes: in the process that owns the finished report (the one that launched the
 * MPI job, the only one with --serial, or rank 0 after MPI_Finalize). */
static int
verify_causes (const char *input,
               const char *report,
               int         n,
               gboolean    real_time,
               gboolean    no_clock_repair,
               gboolean    quiet,
               const char *launcher)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *anchor = NULL;
  g_autofree char *kct = NULL;
  VerifyOptions vo = { 0 };

  if (g_file_test (input, G_FILE_TEST_IS_DIR))
    {
      anchor = g_build_filename (input, "traces.otf2", NULL);
      if (!g_file_test (anchor, G_FILE_TEST_EXISTS))
        {
          /* only a compressed trace: kubus-sim's way (definitions beside it) */
          g_free (anchor);
          anchor = g_build_filename (input, ".kubus-kct-definitions", "traces.otf2", NULL);
          kct = g_build_filename (input, "traces.kct", NULL);
        }
      vo.expdir = input;
    }
  else if (g_str_has_suffix (input, ".kct"))
    {
      fprintf (stderr, _("kubus-analyze: --verify-causes needs an experiment folder or an OTF2 trace, not %s "
                         "(no verification)\n"), input);
      return 1;
    }
  else
    anchor = g_strdup (input);
  vo.report = report;
  vo.anchor = anchor;
  vo.kct = kct;
  vo.n = n;
  vo.real_time = real_time;
  vo.launcher = launcher;
  vo.no_clock_repair = no_clock_repair || kct != NULL;
  vo.progress = verify_progress;
  vo.progress_data = &quiet;
  if (!causes_verify (&vo, out, &error))
    {
      fputs (out->str, stderr);
      fprintf (stderr, "kubus-analyze: %s\n", error->message);
      return 1;
    }
  fputs (out->str, stderr);
  return 0;
}

static char *
stats_path_for (const char *cube_path)
{
  if (g_str_has_suffix (cube_path, ".cube"))
    return g_strdup_printf ("%.*s.stats.json", (int) (strlen (cube_path) - 5), cube_path);
  if (g_str_has_suffix (cube_path, ".cubex"))
    return g_strdup_printf ("%.*s.stats.json", (int) (strlen (cube_path) - 6), cube_path);
  return g_strdup_printf ("%s.stats.json", cube_path);
}

/* --parallel[=N] */
static AnalyzeModeOptions mode_opts;
static gboolean opt_serial, opt_parallel;

static gboolean
on_parallel (const char *name G_GNUC_UNUSED,
             const char *value,
             gpointer    data G_GNUC_UNUSED,
             GError    **error)
{
  opt_parallel = TRUE;
  mode_opts.processes = 0;
  if (value)
    {
      char *end = NULL;
      long n = strtol (value, &end, 10);
      if (end == value || *end || n < 0 || n > G_MAXINT)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--parallel: “%s” is not a number of processes"), value);
          return FALSE;
        }
      mode_opts.processes = (int) n;   /* 0 ("--parallel" alone): the default */
    }
  return TRUE;
}

static gboolean
on_budget (const char *name G_GNUC_UNUSED,
           const char *value,
           gpointer    data G_GNUC_UNUSED,
           GError    **error)
{
  return analyze_parse_budget (value, &mode_opts, error);
}

/* kubus-run writes kubus.json when the program starts and again, with its end time, once the
 * experiment is complete: without one, kubus-run was killed (SIGKILL, a lost node) before it
 * mended the trace and named the call paths. Such a trace can still be analysed, and an aborted
 * run's is on purpose (its ranks saved what they had): say so, do not refuse. Not inside our own
 * parallel relaunch, whose launching process said it. */
static void
warn_unfinished (const char *expdir)
{
  g_autofree char *json_path = g_build_filename (expdir, "kubus.json", NULL);
  g_autofree char *json = NULL;

  const char *rank = g_getenv ("OMPI_COMM_WORLD_RANK") ? g_getenv ("OMPI_COMM_WORLD_RANK")
                     : g_getenv ("PMIX_RANK") ? g_getenv ("PMIX_RANK") : g_getenv ("PMI_RANK");

  /* once per job under a launcher: its first rank */
  if ((rank != NULL && strcmp (rank, "0") != 0) || g_getenv ("KUBUS_ANALYZE_RELAUNCHED") != NULL
      || !g_file_get_contents (json_path, &json, NULL, NULL)
      || strstr (json, "\"end_time\"") != NULL)
    return;
  fprintf (stderr, _("kubus-analyze: warning: %s: the measurement did not finish (kubus.json has no end "
                     "time: kubus-run was stopped before it completed the experiment); the trace may end "
                     "early on every rank and its call paths may be unnamed\n"),
           expdir);
}

int
main (int    argc,
      char **argv)
{
  gboolean quiet = FALSE, no_clock_repair = FALSE, version = FALSE;
  int threads = 0;
  gboolean no_root_cause = FALSE, no_critical_path = FALSE, verify_real_time = FALSE;
  int verify_n = 0;
  g_autofree char *output = NULL;
  g_autofree char *launcher = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write the report to FILE"), N_("FILE") },
    { "serial", 0, 0, G_OPTION_ARG_NONE, &opt_serial,
      N_("Analyse in this process (one thread unless --threads says more)"), NULL },
    { "parallel", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (gpointer) on_parallel,
      N_("Analyse by the parallel MPI replay, with N processes (default: one per traced rank, or the "
         "allocation's tasks)"), N_("N") },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, N_("Threads of each analysing process"), N_("N") },
    { "memory-budget", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) on_budget,
      N_("Memory one process may use before the parallel replay takes over (default: half the "
         "available memory)"), N_("SIZE|N%") },
    { "mpirun", 0, 0, G_OPTION_ARG_STRING, &launcher, N_("MPI launcher command (default: mpirun)"), N_("CMD") },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("No progress output"), NULL },
    { "no-clock-repair", 0, 0, G_OPTION_ARG_NONE, &no_clock_repair,
      N_("Analyse the timestamps as recorded, without repairing receives that lie before their send"), NULL },
    { "no-root-cause", 0, 0, G_OPTION_ARG_NONE, &no_root_cause,
      N_("Skip the delay costs and the indirect and propagating wait states"), NULL },
    { "no-critical-path", 0, 0, G_OPTION_ARG_NONE, &no_critical_path,
      N_("Skip the critical path and its impacts"), NULL },
    { "verify-causes", 0, 0, G_OPTION_ARG_INT, &verify_n,
      N_("Simulate removing the N largest delays and compare what that saves with their costs"), N_("N") },
    { "verify-real-time", 0, 0, G_OPTION_ARG_NONE, &verify_real_time,
      N_("Simulate with the real-time replay (kubus-sim under mpirun) instead of the offline model"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, N_("EXPDIR|TRACE.otf2|TRACE.kct") },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (TraceDefs) defs = NULL;
  g_autofree char *anchor = NULL;
  g_autofree char *kct = NULL;          /* the input is this compressed trace */
  g_autofree char *description = NULL;
  g_autofree char *stats = NULL;
  g_autofree char **saved_argv = NULL;
  gboolean use_mpi, relaunched;
  int me = 0, world = 1;
  Transport *t = NULL;
  AnalyzeProgress prog = { .prog = "kubus-analyze", .last_pct = -1 };
  AnalyzeMode mode = { 0 };
  gint64 t0 = g_get_monotonic_time ();
  int status = 0;

  kubus_program_init ("kubus-analyze");
  analyze_quiet_otf2 ();
  /* The analysis grows large arrays of small records (events, marks, synchronization points) and
   * frees its time maps at a high rate: the heap grows 64 MiB at a time instead of by what each
   * request lacks, and keeps that much when it shrinks. The root-cause pass on a message ring
   * (flood, --serial): 0.83x the time with it (docs/benchmarks.md). */
  mallopt (M_TOP_PAD, 64 << 20);

  saved_argv = g_new0 (char *, argc + 1);
  memcpy (saved_argv, argv, sizeof (char *) * argc);
  /* GOption gives an optional value the next word ("--parallel EXPDIR"): only --parallel=N has one */
  for (int k = 1; k < argc && strcmp (argv[k], "--") != 0; k++)
    if (strcmp (argv[k], "--parallel") == 0)
      argv[k] = (char *) "--parallel=0";
  ctx = g_option_context_new (_("— find wait states in an MPI trace"));
  g_option_context_set_translation_domain (ctx, GETTEXT_PACKAGE);
  description = g_strconcat (
    _("kubus-analyze EXPDIR writes EXPDIR/analysis.cube and EXPDIR/analysis.stats.json.\n"
      "kubus-analyze TRACE.otf2 -o OUT.cube writes OUT.cube and OUT.stats.json (default: the\n"
      "trace's name with .cube in the current folder).\n\n"
      "Timestamps that put a receive before its send (clocks of different hosts) are repaired\n"
      "first with the controlled logical clock, unless --no-clock-repair is given. Progress and\n"
      "the summary go to standard error; KUBUS_ANALYZE_TIMING=1 adds the elapsed time of each\n"
      "phase."),
    "\n\n",
    _("Where it runs is chosen from the trace's size and rank count, this machine's cores and\n"
      "memory, and the MPI job or batch allocation it runs in: in this process, with a thread\n"
      "per core across the ranks, when the trace fits in the memory budget; the parallel MPI\n"
      "replay when it does not, or when an allocation has more cores than this machine. One\n"
      "line says which and why; --serial, --parallel[=N], --threads N and --memory-budget\n"
      "decide instead. Every way gives the same report. The parallel replay runs one MPI\n"
      "process per traced rank (or N): outside an MPI launcher the program starts itself with\n"
      "\"mpirun -n N --oversubscribe\" (--mpirun CMD replaces mpirun)."),
    "\n\n",
    _("After the wait states it traces every wait back to its causes (delay costs, short- and\n"
      "long-term, indirect and propagating waits) and follows the critical path, as Scalasca's\n"
      "scout does; --verify-causes N then simulates removing the N largest causes and compares\n"
      "what that saves with their costs (files in REPORT-causes beside the report)."),
    "\n\n",
    _("A compressed trace (an experiment folder that holds only traces.kct, or TRACE.kct) is\n"
      "expanded to a temporary OTF2 archive first (a hidden folder beside it, removed at the\n"
      "end) and analysed without clock repair: its times are the recorded ones within the\n"
      "bound the file states, and the expansion puts no receive before its send\n"
      "(kubus-trace info --check EXPDIR compares both analyses of a run recorded with\n"
      "--trace-format=both)."),
    NULL);
  g_option_context_set_description (ctx, description);
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (ctx, kubus_program_option_entries (&version), GETTEXT_PACKAGE);
  analyze_mode_options_from_env (&mode_opts);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "kubus-analyze: %s\n", error->message);
      return 2;
    }
  if (version)
    return kubus_program_print_version ();
  if (!rest || !rest[0] || rest[1])
    {
      fprintf (stderr, _("kubus-analyze: give one experiment directory or OTF2 anchor file (see --help)\n"));
      return 2;
    }
  if (output && !*output)
    {
      fprintf (stderr, _("%s: the output name given with -o is empty\n"), "kubus-analyze");
      return 2;
    }
  if (verify_n < 0 || (verify_n > 0 && no_root_cause))
    {
      fprintf (stderr, verify_n < 0 ? _("kubus-analyze: --verify-causes takes a positive number\n")
                                    : _("kubus-analyze: --verify-causes needs the delay costs: drop --no-root-cause\n"));
      return 2;
    }
  if (opt_serial && opt_parallel)
    {
      fprintf (stderr, _("kubus-analyze: --serial and --parallel exclude each other\n"));
      return 2;
    }
  if (threads < 0)
    {
      fprintf (stderr, _("kubus-analyze: --threads takes a positive number\n"));
      return 2;
    }
  if (opt_serial)
    mode_opts.want = ANALYZE_MODE_IN_PROCESS;
  else if (opt_parallel)
    mode_opts.want = ANALYZE_MODE_PARALLEL;
  if (threads > 0)
    mode_opts.threads = threads;
  if (g_file_test (rest[0], G_FILE_TEST_IS_DIR))
    {
      warn_unfinished (rest[0]);
      /* a run whose trace was not written: say why, not that an OTF2 anchor is missing */
      g_autofree char *why = kubus_experiment_why_no_traces (rest[0]);
      if (why != NULL)
        {
          fprintf (stderr, _("kubus-analyze: %s: nothing to analyse: %s\n"), rest[0], why);
          return 1;
        }
      anchor = g_build_filename (rest[0], "traces.otf2", NULL);
      if (!output)
        output = g_build_filename (rest[0], "analysis.cube", NULL);
      if (!g_file_test (anchor, G_FILE_TEST_EXISTS))
        {
          g_autofree char *k = g_build_filename (rest[0], "traces.kct", NULL);
          if (g_file_test (k, G_FILE_TEST_IS_REGULAR))
            kct = g_steal_pointer (&k);
        }
    }
  else
    {
      anchor = g_strdup (rest[0]);
      if (g_str_has_suffix (rest[0], ".kct"))
        kct = g_strdup (rest[0]);
      if (!output)
        {
          g_autofree char *base = g_path_get_basename (rest[0]);
          if (g_str_has_suffix (base, ".otf2"))
            base[strlen (base) - 5] = '\0';
          else if (g_str_has_suffix (base, ".kct"))
            base[strlen (base) - 4] = '\0';
          output = g_strdup_printf ("%s.cube", base);
        }
    }
  stats = stats_path_for (output);
  {
    /* fail before a long analysis, not after it */
    g_autofree char *dir = g_path_get_dirname (output);
    if (!g_file_test (dir, G_FILE_TEST_IS_DIR) || access (dir, W_OK) != 0)
      {
        fprintf (stderr, _("kubus-analyze: cannot write %s: the folder %s does not exist or is not "
                           "writable (no report written)\n"), output, dir);
        return 1;
      }
  }

  /* inside an MPI job (our own relaunch, or a launcher the user started) every process takes
   * part: the choice is made there, by rank 0, for all */
  use_mpi = launch_mpi_in_launcher ();
  relaunched = use_mpi && g_getenv ("KUBUS_ANALYZE_RELAUNCHED") != NULL;
  if (use_mpi)
    {
      int provided;
      /* threads of ours never call MPI */
      MPI_Init_thread (&argc, &argv, MPI_THREAD_FUNNELED, &provided);
      MPI_Comm_rank (MPI_COMM_WORLD, &me);
      MPI_Comm_size (MPI_COMM_WORLD, &world);
    }
  prog.root = me == 0;
  if (no_root_cause)
    prog.skip_groups |= METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE);
  if (no_critical_path)
    prog.skip_groups |= METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH);
  /* the ranks of our own relaunch leave the first steps to the process that started them */
  prog.quiet = quiet || relaunched;
  prog.hi = 0.05;

  if (kct != NULL)
    {
      /* Times are the recorded ones within the file's bound, and the expansion puts no
       * receive before its send: nothing for a clock repair (kubus-sim does the same). */
      no_clock_repair = TRUE;
      if (relaunched && g_getenv ("KUBUS_ANALYZE_KCT_EXPANDED"))
        {
          /* a rank of our own relaunch: the launching process expanded it and removes it */
          g_free (anchor);
          anchor = g_build_filename (g_getenv ("KUBUS_ANALYZE_KCT_EXPANDED"), "traces.otf2", NULL);
        }
      else
        {
          /* this process (or, under a launcher the user started, rank 0) expands it */
          int len = 0;
          analyze_progress_step (&prog, 0.0, _("expanding the compressed trace"));
          if (me == 0)
            {
              atexit (remove_kct_expanded);
              kct_expanded = expand_kct_guarded (kct, &error);
              if (kct_expanded == NULL)
                fprintf (stderr, "kubus-analyze: %s\n", error->message);
              len = kct_expanded ? (int) strlen (kct_expanded) + 1 : 0;
            }
          if (use_mpi)
            {
              MPI_Bcast (&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
              if (len > 0 && me != 0)
                kct_expanded = g_malloc0 (len);
              if (len > 0)
                MPI_Bcast (kct_expanded, len, MPI_CHAR, 0, MPI_COMM_WORLD);
              if (me != 0)
                {
                  g_free (anchor);
                  anchor = len > 0 ? g_build_filename (kct_expanded, "traces.otf2", NULL) : NULL;
                  g_clear_pointer (&kct_expanded, g_free);   /* rank 0's to remove */
                }
            }
          if (len == 0)
            {
              if (me == 0)
                fprintf (stderr, _("kubus-analyze: no report written\n"));
              if (use_mpi)
                MPI_Finalize ();
              return 1;
            }
          if (me == 0)
            {
              g_free (anchor);
              anchor = g_build_filename (kct_expanded, "traces.otf2", NULL);
            }
        }
    }

  analyze_progress_step (&prog, 0.0, _("reading definitions"));
  defs = trace_defs_read (anchor, &error);
  if (!defs)
    {
      if (me == 0)
        fprintf (stderr, "kubus-analyze: %s\n", error->message);
      if (use_mpi)
        MPI_Finalize ();
      return 1;
    }
  if (kct != NULL)
    {
      /* the report names the compressed trace, not its temporary expansion */
      g_free (defs->path);
      defs->path = g_canonicalize_filename (kct, NULL);
    }
  if (use_mpi && world > defs->n_ranks)
    {
      if (me == 0)
        fprintf (stderr, _("kubus-analyze: %s has %d ranks but the analysis runs on %d processes; start it "
                           "with at most %d (mpirun -n %d) or without a launcher\n"),
                 anchor, defs->n_ranks, world, defs->n_ranks, defs->n_ranks);
      MPI_Finalize ();
      return 1;
    }

  /* where it runs */
  if (relaunched)
    mode_opts.want = ANALYZE_MODE_PARALLEL;   /* the launching process chose and said so */
  analyze_mode_choose (&mode_opts, use_mpi, defs, anchor, &mode);
  if (!relaunched)
    analyze_mode_say (&prog, &mode);
  if (!use_mpi && mode.kind == ANALYZE_MODE_PARALLEL)
    {
      g_autofree char *expanded_env =
        kct_expanded ? g_strconcat ("KUBUS_ANALYZE_KCT_EXPANDED=", kct_expanded, NULL) : NULL;
      g_autofree char *threads_env = g_strdup_printf ("KUBUS_ANALYZE_THREADS=%d", mode.threads);
      LaunchMpi lm = {
        .program = "kubus-analyze",
        .launcher = launcher,
        .n_ranks = mode.processes,
        .argv = (const char *const *) saved_argv,
        .env = (const char *const[]) { "KUBUS_ANALYZE_RELAUNCHED=1", threads_env, expanded_env, NULL },
      };
      /* the ranks report; their status is ours */
      GStatBuf before, after;
      gboolean had_report = g_stat (output, &before) == 0;
      status = launch_mpi_run (&lm, &error);
      if (status >= 0)
        {
          analyze_mode_clear (&mode);
          /* a launcher that exits 0 without starting the ranks (a wrapper, a dry run) must not
           * pass for a report: the ranks write it anew (a new file renamed into place) */
          if (status == 0
              && (g_stat (output, &after) != 0
                  || (had_report && after.st_ino == before.st_ino && after.st_mtime == before.st_mtime)))
            {
              fprintf (stderr, _("kubus-analyze: the MPI job ended without writing %s (did the launcher "
                                 "start the processes?); no report written\n"), output);
              status = 1;
            }
          if (status == 0 && verify_n > 0)
            status = verify_causes (rest[0], output, verify_n, verify_real_time, no_clock_repair, quiet,
                                    launcher);
          return status;
        }
      status = 0;
      fprintf (stderr, _("kubus-analyze: %s; analysing in one process instead (--serial)\n"),
               error->message);
      g_clear_error (&error);
      mode.kind = ANALYZE_MODE_IN_PROCESS;
    }
  prog.quiet = quiet;

  if (use_mpi && mode.kind == ANALYZE_MODE_PARALLEL)
    t = transport_mpi_new (defs->n_ranks);
  {
    g_autoptr (GString) summary = g_string_new (NULL);
    prog.lo = 0.05;
    prog.hi = 1.0;
    if (!analyze_run_mode (&mode, t, use_mpi, defs, !no_clock_repair, anchor, output, stats, launcher, &prog,
                           summary, &error))
      {
        /* the process that failed says why; the others only that nothing was written */
        if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_FAILED_HANDLED))
          fprintf (stderr, "kubus-analyze: %s\n", error->message);
        if (use_mpi)
          {
            fflush (stderr);
            MPI_Barrier (MPI_COMM_WORLD);   /* the reason first, then the outcome */
          }
        if (me == 0)
          fprintf (stderr, _("kubus-analyze: no report written\n"));
        status = 1;
      }
    else if (me == 0)
      {
        prog.lo = prog.hi = 1.0;
        analyze_progress_step (&prog, 1.0, _("done"));
        gboolean warned = strstr (summary->str, "warning:") != NULL || strstr (summary->str, _("warning:")) != NULL;
        if (!quiet)
          fprintf (stderr, "%s", summary->str);
        else
          {
            /* warnings are never quiet */
            g_auto (GStrv) lines = g_strsplit (summary->str, "\n", -1);
            for (guint k = 0; lines[k]; k++)
              if (g_str_has_prefix (lines[k], "warning:") || g_str_has_prefix (lines[k], _("warning:")))
                fprintf (stderr, "%s\n", lines[k]);
          }
        if (kct != NULL && warned)
          fprintf (stderr, _("note: the times of a compressed trace lie within the bound it states "
                             "(kubus-trace info); a receive before its send there is no clock error\n"));
        fprintf (stderr, _("Analysis time: %.3f s\n"), (g_get_monotonic_time () - t0) / 1e6);
      }
  }

  analyze_mode_clear (&mode);
  if (t)
    t->free (t);
  if (use_mpi && kct != NULL)
    MPI_Barrier (MPI_COMM_WORLD);   /* every rank is done with the expansion rank 0 removes */
  if (use_mpi)
    MPI_Finalize ();
  /* the ranks of our own relaunch leave it to the process that started them */
  if (status == 0 && verify_n > 0 && me == 0 && !g_getenv ("KUBUS_ANALYZE_RELAUNCHED"))
    status = verify_causes (rest[0], output, verify_n, verify_real_time, no_clock_repair, quiet, launcher);
  return status;
}
