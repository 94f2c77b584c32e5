/* test-launch-mpi — src/core/launch-mpi.c: the launcher's banners never reach the user, the
 * ranks' messages and exit status do, and the job dies with the program that started it.
 *
 *   test-launch-mpi                 the GTest suite (filter cases, then real mpirun runs)
 *   test-launch-mpi --probe MODE    starts itself under mpirun with 2 ranks (launch_mpi_run);
 *                                   the ranks then act out MODE (see probe_rank) */
#include "launch-mpi.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *self_exe;

/* ---- the filter, on the exact text Open MPI 4.1.4 writes */

#define SEP74 "--------------------------------------------------------------------------\n"
#define SEP55 "-------------------------------------------------------\n"

static const char primary_job[] =
  SEP55
  "Primary job  terminated normally, but 1 process returned\n"
  "a non-zero exit code. Per user-direction, the job has been aborted.\n"
  SEP55;
static const char detected[] =
  SEP74
  "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
  "the job to be terminated. The first process to do so was:\n"
  "\n"
  "  Process name: [[7176,1],0]\n"
  "  Exit code:    1\n"
  SEP74;
static const char aborted[] =
  SEP74
  "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\n"
  "with errorcode 1.\n"
  "\n"
  "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.\n"
  "You may or may not see output from other processes, depending on\n"
  "exactly when Open MPI kills them.\n"
  SEP74;
static const char noticed[] =
  SEP74
  "mpirun noticed that process rank 3 with PID 0 on node vm exited on signal 11 (Segmentation fault).\n"
  SEP74;
/* not caused by a rank's exit: the user must read it */
static const char cannot_launch[] =
  SEP74
  "mpirun was unable to launch the specified application as it could not access\n"
  "or execute an executable:\n"
  "\n"
  "Executable: ./nonexist\n"
  "Node: vm\n"
  "\n"
  "while attempting to start process rank 0.\n"
  SEP74;

/* Feeds @input in pieces of @step bytes; returns the output, the signalled rank in *rank. */
static char *
filter (const char *input,
        gsize       step,
        int        *rank)
{
  g_autoptr (LaunchMpiFilter) f = launch_mpi_filter_new ();
  GString *out = g_string_new (NULL);
  gsize len = strlen (input);

  for (gsize i = 0; i < len; i += step)
    launch_mpi_filter_feed (f, input + i, MIN (step, len - i), out);
  *rank = launch_mpi_filter_finish (f, out);
  return g_string_free (out, FALSE);
}

static void
check_filter (const char *input,
              const char *expected,
              int         expected_rank)
{
  static const gsize steps[] = { 1, 7, 4096 };

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      int rank;
      g_autofree char *got = filter (input, steps[i], &rank);
      g_assert_cmpstr (got, ==, expected);
      g_assert_cmpint (rank, ==, expected_rank);
    }
}

static void
test_filter_exit (void)
{
  g_autofree char *in = g_strconcat ("kubus-analyze: x/traces/0.evt: corrupt event data after 46 events\n",
                                     "kubus-analyze: no report written\n", primary_job, detected, NULL);
  check_filter (in, "kubus-analyze: x/traces/0.evt: corrupt event data after 46 events\n"
                    "kubus-analyze: no report written\n", -1);
}

static void
test_filter_abort (void)
{
  g_autofree char *in = g_strconcat ("prog: bad thing\n", aborted, "late line\n", NULL);
  g_autofree char *lost = g_strconcat ("prog: bad thing\n[vm:02003] [[27437,0],0] ORTE_ERROR_LOG: "
                                       "Data unpack would read past end of buffer in file "
                                       "../../../orte/util/show_help.c at line 513\n", NULL);
  check_filter (in, "prog: bad thing\nlate line\n", -1);
  check_filter (lost, "prog: bad thing\n", -1);
}

static void
test_filter_signal (void)
{
  g_autofree char *in = g_strconcat ("[vm:29211] *** Process received signal ***\n", primary_job,
                                     noticed, NULL);
  check_filter (in, "[vm:29211] *** Process received signal ***\n", 3);
}

static void
test_filter_keeps (void)
{
  g_autofree char *unterminated = g_strconcat (SEP74, "a rank's own framed text\n", NULL);
  g_autofree char *long_block = NULL;
  g_autoptr (GString) lb = g_string_new (SEP74);

  /* what explains a failed start, a rank's own dashes, an unterminated last line */
  check_filter (cannot_launch, cannot_launch, -1);
  check_filter (unterminated, unterminated, -1);
  check_filter ("no newline at the end", "no newline at the end", -1);
  check_filter ("----\n-- short dashes\n----\n", "----\n-- short dashes\n----\n", -1);
  /* a frame that never closes within a banner's length is passed on as it comes */
  for (int i = 0; i < 60; i++)
    g_string_append_printf (lb, "line %d MPI_ABORT was invoked on rank\n", i);
  check_filter (lb->str, lb->str, -1);
}

static void
test_build_argv (void)
{
  const char *const argv[] = { "kubus-analyze", "t.otf2", "-o", "x y.cube", NULL };
  LaunchMpi lm = { .program = "kubus-analyze", .n_ranks = 4, .argv = argv };
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_auto (GStrv) a = launch_mpi_build_argv (&lm, NULL);
  g_autofree char *joined = g_strjoinv ("|", a);
  g_autofree char *expected = g_strdup_printf ("mpirun|-n|4|--oversubscribe|%s|t.otf2|-o|x y.cube", self);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) b = NULL, c = NULL;

  g_assert_cmpstr (joined, ==, expected);
  lm.launcher = "srun --mpi=pmix -p 'a b'";
  b = launch_mpi_build_argv (&lm, NULL);
  g_free (joined);
  joined = g_strjoinv ("|", b);
  g_free (expected);
  expected = g_strdup_printf ("srun|--mpi=pmix|-p|a b|-n|4|%s|t.otf2|-o|x y.cube", self);
  g_assert_cmpstr (joined, ==, expected);
  lm.launcher = "mpirun 'unclosed";
  c = launch_mpi_build_argv (&lm, &error);
  g_assert_null (c);
  g_assert_error (error, G_SHELL_ERROR, G_SHELL_ERROR_BAD_QUOTING);
  g_clear_error (&error);
  /* kubus-run's syntax: the launcher as words ("-- mpirun --hostfile h"), -n added */
  {
    const char *const words[] = { "mpirun", "--hostfile", "my hosts", NULL };
    const char *const with_n[] = { "mpirun", "-np", "4", "--hostfile", "h", NULL };
    const char *const with_eq[] = { "mpiexec", "--n=4", NULL };
    const char *const wrong_n[] = { "mpirun", "-n", "3", NULL };
    g_auto (GStrv) d = NULL, e = NULL, f = NULL, g = NULL;
    lm.launcher = NULL;
    lm.launcher_argv = words;
    d = launch_mpi_build_argv (&lm, NULL);
    g_free (joined);
    joined = g_strjoinv ("|", d);
    g_free (expected);
    expected = g_strdup_printf ("mpirun|--hostfile|my hosts|-n|4|%s|t.otf2|-o|x y.cube", self);
    g_assert_cmpstr (joined, ==, expected);
    /* the launcher names the rank count itself: not added again */
    lm.launcher_argv = with_n;
    e = launch_mpi_build_argv (&lm, NULL);
    g_free (joined);
    joined = g_strjoinv ("|", e);
    g_free (expected);
    expected = g_strdup_printf ("mpirun|-np|4|--hostfile|h|%s|t.otf2|-o|x y.cube", self);
    g_assert_cmpstr (joined, ==, expected);
    lm.launcher_argv = with_eq;
    f = launch_mpi_build_argv (&lm, NULL);
    g_free (joined);
    joined = g_strjoinv ("|", f);
    g_free (expected);
    expected = g_strdup_printf ("mpiexec|--n=4|%s|t.otf2|-o|x y.cube", self);
    g_assert_cmpstr (joined, ==, expected);
    /* another rank count than the trace's: refused, saying both */
    lm.launcher_argv = wrong_n;
    g = launch_mpi_build_argv (&lm, &error);
    g_assert_null (g);
    g_assert_error (error, G_SHELL_ERROR, G_SHELL_ERROR_FAILED);
    g_assert_nonnull (strstr (error->message, "3 processes"));
    g_assert_nonnull (strstr (error->message, "4 ranks"));
  }
}

/* ---- real runs */

static char **
probe_env (void)
{
  char **env = g_get_environ ();
  const char *ao = g_environ_getenv (env, "ASAN_OPTIONS");
  g_autofree char *asan = g_strdup_printf ("%s%sdetect_leaks=0", ao ? ao : "", ao ? ":" : "");

  /* Open MPI leaks at exit */
  return g_environ_setenv (env, "ASAN_OPTIONS", asan, TRUE);
}

static int
cmp_str (const void *a,
         const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* @text's lines in sorted order (each with its line end). */
static char *
sorted_lines (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines);
  g_autoptr (GString) s = g_string_new (NULL);

  if (n > 0 && lines[n - 1][0] == '\0')
    {
      g_free (lines[n - 1]); /* after the last line end */
      lines[--n] = NULL;
    }
  qsort (lines, n, sizeof *lines, cmp_str);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s\n", lines[i]);
  return g_strdup (s->str);
}

static void
run_probe (const char *mode,
           const char *launcher,
           int         expected_status,
           const char *expected_stderr)
{
  const char *argv[] = { self_exe, "--probe", mode, launcher, NULL };
  g_auto (GStrv) env = probe_env ();
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
  g_assert_no_error (error);
  g_test_message ("probe %s: stderr:\n%s", mode, err);
  g_assert_true (WIFEXITED (status));
  /* the ranks' lines reach mpirun through separate pipes: in no fixed order */
  g_autofree char *got_lines = sorted_lines (err);
  g_autofree char *want_lines = sorted_lines (expected_stderr);
  g_assert_cmpstr (got_lines, ==, want_lines);
  g_assert_cmpint (WEXITSTATUS (status), ==, expected_status);
}

static void
test_run_ok (void)
{
  run_probe ("ok", NULL, 0, "probe: rank 0 of 2\nprobe: rank 1 of 2\n");
}

static void
test_run_exit (void)
{
  run_probe ("exit", NULL, 3, "probe: rank 1 gives up\n");
}

static void
test_run_abort (void)
{
  run_probe ("abort", NULL, 4, "probe: rank 1 aborts\n");
}

static void
test_run_killed (void)
{
  run_probe ("kill", NULL, 128 + SIGKILL, "test-launch-mpi: MPI rank 1 stopped on signal 9 (Killed)\n");
}

static void
test_run_no_launcher (void)
{
  run_probe ("ok", "/nonexistent/mpirun", 99,
             "probe: cannot start /nonexistent/mpirun: Failed to execute child process "
             "“/nonexistent/mpirun” (No such file or directory)\n");
}

static gboolean
alive (pid_t pid)
{
  /* a zombie is gone for our purpose: its rank no longer runs */
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *stat = NULL;
  const char *rp;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;
  rp = strrchr (stat, ')');
  return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* The GUI cancels a run by signalling kubus-analyze: the ranks must go with it (SIGTERM is
 * forwarded to mpirun; after SIGKILL the launcher's parent-death signal ends the job). */
static void
check_dies_with_parent (int sig)
{
  g_autofree char *dir = g_dir_make_tmp ("launch-mpi-XXXXXX", NULL);
  const char *argv[] = { self_exe, "--probe", "hang", NULL };
  g_auto (GStrv) env = g_environ_setenv (probe_env (), "PROBE_PIDDIR", dir, TRUE);
  g_autoptr (GError) error = NULL;
  pid_t ranks[2] = { 0, 0 };
  GPid probe;
  int status;

  g_assert_true (g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &probe, &error));
  g_assert_no_error (error);
  /* both ranks up (generous: the machine is shared) */
  for (int tries = 0; tries < 1200 && !(ranks[0] && ranks[1]); tries++)
    {
      for (int r = 0; r < 2; r++)
        {
          g_autofree char *p = g_strdup_printf ("%s/%d", dir, r);
          g_autofree char *s = NULL;
          if (!ranks[r] && g_file_get_contents (p, &s, NULL, NULL) && strchr (s, '\n'))
            ranks[r] = atoi (s);
        }
      g_usleep (50000);
    }
  g_assert_cmpint (ranks[0], >, 0);
  g_assert_cmpint (ranks[1], >, 0);
  kill (probe, sig);
  g_assert_cmpint (waitpid (probe, &status, 0), ==, probe);
  g_assert_true (status != 0);
  for (int tries = 0; tries < 600 && (alive (ranks[0]) || alive (ranks[1])); tries++)
    g_usleep (50000);
  g_assert_false (alive (ranks[0]));
  g_assert_false (alive (ranks[1]));
  for (int r = 0; r < 2; r++)
    {
      g_autofree char *p = g_strdup_printf ("%s/%d", dir, r);
      g_unlink (p);
    }
  g_rmdir (dir);
}

static void
test_run_sigterm (void)
{
  check_dies_with_parent (SIGTERM);
}

static void
test_run_sigkill (void)
{
  check_dies_with_parent (SIGKILL);
}

/* ---- the probe */

static int
probe_rank (const char *mode)
{
  int me, n;

  MPI_Init (NULL, NULL);
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  if (strcmp (mode, "ok") == 0)
    {
      fprintf (stderr, "probe: rank %d of %d\n", me, n);
      fflush (stderr);
    }
  else if (strcmp (mode, "exit") == 0)
    {
      MPI_Barrier (MPI_COMM_WORLD);
      if (me == 1)
        fprintf (stderr, "probe: rank 1 gives up\n");
      MPI_Finalize ();
      return me == 1 ? 3 : 0;
    }
  else if (strcmp (mode, "abort") == 0 && me == 1)
    {
      fprintf (stderr, "probe: rank 1 aborts\n");
      MPI_Abort (MPI_COMM_WORLD, 4);
    }
  else if (strcmp (mode, "kill") == 0 && me == 1)
    raise (SIGKILL);
  else if (strcmp (mode, "hang") == 0)
    {
      g_autofree char *p = g_strdup_printf ("%s/%d", g_getenv ("PROBE_PIDDIR"), me);
      g_autofree char *s = g_strdup_printf ("%d\n", (int) getpid ());
      g_file_set_contents (p, s, -1, NULL);
      g_usleep (120 * G_USEC_PER_SEC);
    }
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}

static int
probe (int    argc,
       char **argv)
{
  const char *const own[] = { argv[0], argv[1], argv[2], NULL };
  LaunchMpi lm = {
    .program = "test-launch-mpi",
    .launcher = argc > 3 ? argv[3] : NULL,
    .n_ranks = 2,
    .argv = own,
    .env = (const char *const[]) { "PROBE_IN_MPIRUN=1", NULL },
  };
  g_autoptr (GError) error = NULL;
  int status;

  if (launch_mpi_in_launcher ())
    {
      g_assert_cmpstr (g_getenv ("PROBE_IN_MPIRUN"), ==, "1");
      return probe_rank (argv[2]);
    }
  status = launch_mpi_run (&lm, &error);
  if (status < 0)
    {
      fprintf (stderr, "probe: %s\n", error->message);
      return 99;
    }
  return status;
}

int
main (int    argc,
      char **argv)
{
  if (argc >= 3 && strcmp (argv[1], "--probe") == 0)
    return probe (argc, argv);

  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, NULL);
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_test_add_func ("/launch-mpi/filter/exit", test_filter_exit);
  g_test_add_func ("/launch-mpi/filter/abort", test_filter_abort);
  g_test_add_func ("/launch-mpi/filter/signal", test_filter_signal);
  g_test_add_func ("/launch-mpi/filter/keeps", test_filter_keeps);
  g_test_add_func ("/launch-mpi/argv", test_build_argv);
  g_test_add_func ("/launch-mpi/run/ok", test_run_ok);
  g_test_add_func ("/launch-mpi/run/exit", test_run_exit);
  g_test_add_func ("/launch-mpi/run/abort", test_run_abort);
  g_test_add_func ("/launch-mpi/run/killed", test_run_killed);
  g_test_add_func ("/launch-mpi/run/no-launcher", test_run_no_launcher);
  g_test_add_func ("/launch-mpi/run/sigterm", test_run_sigterm);
  g_test_add_func ("/launch-mpi/run/sigkill", test_run_sigkill);
  return g_test_run ();
}
