/* test-gui-runner.c — the parts of the browser's toolchain runs that need no display (issue #12):
 * progress lines, KubusRunner (output, line cap, batches, exit status, cancel of a session whose
 * processes sit in process groups of their own as Open MPI's ranks do, SIGKILL after the grace
 * period, leftovers after the end, programs that cannot start), the run queue, the command
 * lines of kubus-run/-analyze/-sim, the action parameters, folder moves, hypothesis rules and
 * studies. Processes are checked with pgrep as well as /proc. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kubus-experiment-hypothesis.h"
#include "kubus-experiment-study.h"
#include "kubus-experiment-tools.h"
#include "kubus-run-queue.h"
#include "kubus-runner-progress.h"
#include "kubus-runner.h"

#define WAIT_MS 30000

static char *tmpdir;

/* ---- helpers -------------------------------------------------------------------------------------- */

static gboolean
timeout_fail (gpointer data)
{
  (void) data;
  g_error ("timed out");
  return G_SOURCE_REMOVE;
}

static void
wait_finished (KubusRunner *r)
{
  guint id = g_timeout_add (WAIT_MS, timeout_fail, NULL);

  while (!kubus_runner_is_finished (r))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (id);
  /* let the last batch reach "output" handlers */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
wait_ms (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
    }
}

/* A sleep in a process group of its own, as Open MPI starts its ranks: this test program run
 * as "$SELF --group-sleep" (sh() sets SELF). */
#define GROUP_SLEEP "\"$SELF\" --group-sleep"

static KubusRunner *
sh (const char *script)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  const char *argv[] = { "/bin/sh", "-c", script, NULL };
  KubusRunner *r = kubus_runner_new ("test", argv);

  kubus_runner_setenv (r, "SELF", self);
  return r;
}

/* What pgrep says about session @sid: the number of processes. */
static guint
pgrep_session (GPid sid)
{
  g_autofree char *arg = g_strdup_printf ("%d", (int) sid);
  const char *argv[] = { "pgrep", "-s", arg, NULL };
  g_autofree char *out = NULL;
  int status = 0;
  guint n = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, NULL));
  for (const char *p = out; p && *p; p++)
    n += *p == '\n';
  return n;
}

static guint
session_count (GPid sid)
{
  g_autoptr (GArray) pids = kubus_runner_session_pids (sid);
  return pids->len;
}

/* Waits until session @sid has at least @n processes. */
static void
wait_session (GPid  sid,
              guint n)
{
  gint64 end = g_get_monotonic_time () + WAIT_MS * 1000;

  while (session_count (sid) < n)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
}

/* ---- progress lines ---------------------------------------------------------------------------------- */

static void
test_progress_lines (void)
{
  static const struct { const char *line; gboolean ok; double f; const char *phase; } cases[] = {
    { "kubus-analyze: [  0%] reading the traces", TRUE, 0.0, "reading the traces" },
    { "kubus-analyze: [ 42%] replaying", TRUE, 0.42, "replaying" },
    { "kubus-sim: [100%] writing the report", TRUE, 1.0, "writing the report" },
    { "kubus-analyze: [7%] x", TRUE, 0.07, "x" },
    { "kubus-analyze: [ 42%]", TRUE, 0.42, "" },
    { "kubus-analyze: [101%] x", FALSE, 0, NULL },
    { "kubus-analyze: [1000%] x", FALSE, 0, NULL },
    { "kubus-analyze: [ 42 %] x", FALSE, 0, NULL },
    { "kubus-analyze: 42% x", FALSE, 0, NULL },
    { "kubus-: [ 42%] x", FALSE, 0, NULL },
    { "kubus-Analyze: [ 42%] x", FALSE, 0, NULL },
    { "mpirun: [ 42%] x", FALSE, 0, NULL },
    { "Time: 5.47 s", FALSE, 0, NULL },
    { "", FALSE, 0, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double f = -1;
      g_autofree char *phase = NULL;
      gboolean ok = kubus_runner_progress_parse (cases[i].line, &f, &phase);

      g_assert_cmpint (ok, ==, cases[i].ok);
      if (ok)
        {
          g_assert_cmpfloat_with_epsilon (f, cases[i].f, 1e-12);
          g_assert_cmpstr (phase, ==, cases[i].phase);
        }
    }
}

/* ---- the runner ------------------------------------------------------------------------------------- */

static void
on_output_count (KubusRunner *r,
                 const char  *text,
                 GString     *all)
{
  (void) r;
  g_string_append (all, text);
  g_string_append_c (all, '|');   /* one mark per batch */
}

static void
test_runner_output (void)
{
  g_autoptr (KubusRunner) r = sh ("echo first; echo second >&2; printf 'kubus-analyze: [ 50%%] reading\\n';"
                                  " printf 'no newline'; exit 3");
  g_autofree char *log = NULL, *tail = NULL;

  kubus_runner_start (r);
  wait_finished (r);
  log = kubus_runner_dup_log (r);
  g_assert_cmpstr (log, ==, "first\nsecond\nkubus-analyze: [ 50%] reading\nno newline\n");
  tail = kubus_runner_dup_tail (r, 2);
  g_assert_cmpstr (tail, ==, "kubus-analyze: [ 50%] reading\nno newline\n");
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_FAILED);
  g_assert_cmpint (kubus_runner_get_exit_status (r), ==, 3);
  g_assert_cmpstr (kubus_runner_get_message (r), ==, "sh exited with status 3.");
  g_assert_cmpfloat (kubus_runner_get_progress (r), ==, 0.5);
  g_assert_cmpstr (kubus_runner_get_phase (r), ==, "reading");
  g_assert_cmpuint (session_count (kubus_runner_get_session (r)), ==, 0);
}

static void
test_runner_success_env_cwd (void)
{
  const char *argv[] = { "/bin/sh", "-c", "pwd; echo \"$KUBUS_TEST_VALUE\"; cat", NULL };
  g_autoptr (KubusRunner) r = kubus_runner_new ("env", argv);
  g_autofree char *log = NULL, *expect = NULL, *real = realpath (tmpdir, NULL);

  kubus_runner_set_cwd (r, tmpdir);
  kubus_runner_setenv (r, "KUBUS_TEST_VALUE", "a b'c\"$(x)");
  kubus_runner_start (r);
  wait_finished (r);
  log = kubus_runner_dup_log (r);
  /* stdin is /dev/null: cat ends at once */
  expect = g_strdup_printf ("%s\na b'c\"$(x)\n", real);
  g_assert_cmpstr (log, ==, expect);
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_SUCCEEDED);
  g_assert_cmpint (kubus_runner_get_exit_status (r), ==, 0);
  g_assert_null (kubus_runner_get_message (r));
  g_assert_cmpfloat (kubus_runner_get_progress (r), ==, -1);
}

static void
test_runner_cap_and_batches (void)
{
  g_autoptr (KubusRunner) r = sh ("i=1; while [ $i -le 3000 ]; do echo line$i; i=$((i+1)); done");
  g_autoptr (GString) batches = g_string_new (NULL);
  g_autofree char *log = NULL;
  g_auto (GStrv) marks = NULL;
  GString *expect = g_string_new (NULL);
  guint n_batches;

  kubus_runner_set_line_cap (r, 10);
  g_signal_connect (r, "output", G_CALLBACK (on_output_count), batches);
  kubus_runner_start (r);
  wait_finished (r);
  log = kubus_runner_dup_log (r);
  for (int i = 2991; i <= 3000; i++)
    g_string_append_printf (expect, "line%d\n", i);
  g_assert_cmpstr (log, ==, expect->str);
  g_string_free (expect, TRUE);
  g_assert_cmpuint (kubus_runner_get_n_dropped (r), ==, 2990);
  /* every line reached "output" once, in order, in far fewer batches than lines */
  marks = g_strsplit (batches->str, "|", -1);
  n_batches = g_strv_length (marks) - 1;
  g_assert_cmpuint (n_batches, >=, 1);
  g_assert_cmpuint (n_batches, <, 300);
  {
    g_autofree char *joined = g_strjoinv ("", marks);
    g_auto (GStrv) lines = g_strsplit (joined, "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, 3001);
    g_assert_cmpstr (lines[0], ==, "line1");
    g_assert_cmpstr (lines[2999], ==, "line3000");
  }
}

static void
test_runner_long_and_invalid_lines (void)
{
  g_autoptr (KubusRunner) r = sh ("head -c 10000 /dev/zero | tr '\\0' x; echo; printf 'bad \\377\\376 bytes\\n';"
                                  /* an "é" across the cut at 4000 bytes: cut before it */
                                  "head -c 3999 /dev/zero | tr '\\0' x; printf '\\303\\251yyyyyyyy\\n'");
  g_autofree char *log = NULL;
  g_auto (GStrv) lines = NULL;

  kubus_runner_start (r);
  wait_finished (r);
  log = kubus_runner_dup_log (r);
  g_assert_true (g_utf8_validate (log, -1, NULL));
  lines = g_strsplit (log, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  g_assert_cmpuint (strlen (lines[0]), ==, 4000 + strlen ("…"));
  g_assert_true (g_str_has_suffix (lines[0], "x…"));
  g_assert_cmpstr (lines[1], ==, "bad \xef\xbf\xbd\xef\xbf\xbd bytes");
  g_assert_cmpuint (strlen (lines[2]), ==, 3999 + strlen ("…"));
  g_assert_true (g_str_has_suffix (lines[2], "x…"));
}

static void
test_runner_cannot_start (void)
{
  const char *argv[] = { "/nonexistent/kubus-tool", "x", NULL };
  g_autoptr (KubusRunner) r = kubus_runner_new ("missing", argv);

  kubus_runner_start (r);
  g_assert_false (kubus_runner_is_finished (r));   /* ends from the main loop, like every run */
  wait_finished (r);
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_FAILED);
  g_assert_cmpint (kubus_runner_get_exit_status (r), ==, -1);
  g_assert_true (g_str_has_prefix (kubus_runner_get_message (r), "Cannot start /nonexistent/kubus-tool: "));
  g_assert_cmpuint (kubus_runner_get_session (r), ==, 0);
}

/* Like mpirun: the children sit in process groups of their own (job control), so signalling the
 * tool's process group alone would leave them running. */
static void
test_runner_cancel_groups (void)
{
  g_autoptr (KubusRunner) r = sh (GROUP_SLEEP " & " GROUP_SLEEP " & echo started; wait");
  GPid sid;
  gint64 t0;

  /* a grace period no busy machine comes near: ending within it means SIGTERM sufficed */
  kubus_runner_set_grace_ms (r, 60000);
  kubus_runner_start (r);
  sid = kubus_runner_get_session (r);
  g_assert_cmpint (sid, >, 0);
  wait_session (sid, 3);
  g_assert_cmpuint (pgrep_session (sid), ==, 3);
  t0 = g_get_monotonic_time ();
  kubus_runner_cancel (r);
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_CANCELLING);
  wait_finished (r);
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_CANCELLED);
  g_assert_cmpstr (kubus_runner_get_message (r), ==, "The run was cancelled.");
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 30 * G_USEC_PER_SEC);
  g_assert_cmpuint (session_count (sid), ==, 0);
  g_assert_cmpuint (pgrep_session (sid), ==, 0);
}

static void
test_runner_cancel_kill (void)
{
  /* SIGTERM ignored by the shell and inherited as ignored by its children */
  g_autoptr (KubusRunner) r = sh ("trap '' TERM; " GROUP_SLEEP " & " GROUP_SLEEP " & wait; wait; wait");
  GPid sid;
  gint64 t0;

  /* the kill comes from a timeout in this process's main loop: while the loop has run for
   * 200 ms of a 1.5 s grace period, SIGTERM had its chance and the processes are still there */
  kubus_runner_set_grace_ms (r, 1500);
  kubus_runner_start (r);
  sid = kubus_runner_get_session (r);
  wait_session (sid, 3);
  t0 = g_get_monotonic_time ();
  kubus_runner_cancel (r);
  wait_ms (200);
  g_assert_cmpuint (pgrep_session (sid), ==, 3);   /* still there within the grace period */
  wait_finished (r);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 1500000);
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_CANCELLED);
  g_assert_cmpuint (pgrep_session (sid), ==, 0);
}

static void
test_runner_leftovers (void)
{
  /* the tool ends but leaves a process behind in its session (holding the output pipe) */
  g_autoptr (KubusRunner) r = sh (GROUP_SLEEP " & echo done; exit 0");
  g_autofree char *log = NULL;
  GPid sid;

  kubus_runner_start (r);
  sid = kubus_runner_get_session (r);
  wait_finished (r);
  log = kubus_runner_dup_log (r);
  g_assert_cmpstr (log, ==, "done\nkubus: processes of the run were still running after it ended: stopping them\n");
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_SUCCEEDED);
  g_assert_cmpuint (pgrep_session (sid), ==, 0);
}

static void
test_runner_killed_by_signal (void)
{
  g_autoptr (KubusRunner) r = sh ("kill -SEGV $$");

  kubus_runner_start (r);
  wait_finished (r);
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_FAILED);
  g_assert_cmpint (kubus_runner_get_exit_status (r), ==, 128 + SIGSEGV);
  g_assert_true (g_str_has_prefix (kubus_runner_get_message (r), "sh was killed by signal 11 ("));
}

static void
done_fail (KubusRunner     *r,
           KubusRunnerState outcome,
           gpointer         data)
{
  *(KubusRunnerState *) data = outcome;
  kubus_runner_fail (r, "could not move the results");
}

static void
test_runner_done_func (void)
{
  g_autoptr (KubusRunner) r = sh ("echo ok");
  KubusRunnerState seen = KUBUS_RUNNER_WAITING;
  g_autofree char *log = NULL;

  kubus_runner_set_done_func (r, done_fail, &seen, NULL);
  kubus_runner_start (r);
  wait_finished (r);
  g_assert_cmpint (seen, ==, KUBUS_RUNNER_SUCCEEDED);
  g_assert_cmpint (kubus_runner_get_state (r), ==, KUBUS_RUNNER_FAILED);
  g_assert_cmpstr (kubus_runner_get_message (r), ==, "could not move the results");
  log = kubus_runner_dup_log (r);
  g_assert_cmpstr (log, ==, "ok\nkubus: could not move the results\n");
}

/* ---- the queue --------------------------------------------------------------------------------------- */

typedef struct
{
  GString *events;
  guint    running;
  guint    max_running;
} QueueLog;

static void
on_state (KubusRunner *r,
          GParamSpec  *pspec,
          QueueLog    *ql)
{
  KubusRunnerState st = kubus_runner_get_state (r);

  (void) pspec;
  g_string_append_printf (ql->events, "%s:%d ", kubus_runner_get_title (r), st);
  if (st == KUBUS_RUNNER_RUNNING)
    {
      ql->running++;
      ql->max_running = MAX (ql->max_running, ql->running);
    }
  else if (st >= KUBUS_RUNNER_SUCCEEDED && kubus_runner_get_session (r) != 0)
    ql->running--;
}

static void
on_busy (KubusRunQueue *q,
         gboolean       busy,
         GString       *s)
{
  (void) q;
  g_string_append (s, busy ? "busy " : "idle ");
}

static void
test_queue (void)
{
  g_autoptr (KubusRunQueue) q = kubus_run_queue_new ();
  g_autoptr (GString) busy = g_string_new (NULL);
  QueueLog ql = { g_string_new (NULL), 0, 0 };
  KubusRunner *r[4];
  const char *titles[] = { "a", "b", "c", "d" };

  g_signal_connect (q, "busy-changed", G_CALLBACK (on_busy), busy);
  for (guint i = 0; i < 4; i++)
    {
      const char *argv[] = { "/bin/sh", "-c", "sleep 0.2", NULL };
      r[i] = kubus_runner_new (titles[i], argv);
      g_signal_connect (r[i], "notify::state", G_CALLBACK (on_state), &ql);
      kubus_run_queue_add (q, r[i]);
    }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (q)), ==, 4);
  g_assert_true (kubus_run_queue_get_current (q) == r[0]);
  g_assert_cmpuint (kubus_run_queue_get_n_active (q), ==, 4);
  /* a waiting run cancelled never starts and moves among the finished ones */
  kubus_runner_cancel (r[2]);
  g_assert_cmpint (kubus_runner_get_state (r[2]), ==, KUBUS_RUNNER_CANCELLED);
  g_assert_cmpuint (kubus_runner_get_session (r[2]), ==, 0);
  {
    g_autoptr (KubusRunner) first = g_list_model_get_item (G_LIST_MODEL (q), 0);
    g_assert_true (first == r[2]);
  }
  wait_finished (r[3]);
  g_assert_cmpuint (ql.max_running, ==, 1);
  g_assert_cmpstr (ql.events->str, ==, "a:1 c:5 a:3 b:1 b:3 d:1 d:3 ");
  g_assert_cmpstr (busy->str, ==, "busy idle ");
  g_assert_cmpuint (kubus_run_queue_get_n_active (q), ==, 0);
  g_assert_null (kubus_run_queue_get_current (q));

  kubus_run_queue_set_history (q, 2);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (q)), ==, 2);
  kubus_run_queue_clear_finished (q);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (q)), ==, 0);
  for (guint i = 0; i < 4; i++)
    g_object_unref (r[i]);
  g_string_free (ql.events, TRUE);
}

static void
test_queue_cancel_all (void)
{
  g_autoptr (KubusRunQueue) q = kubus_run_queue_new ();
  g_autoptr (KubusRunner) a = sh (GROUP_SLEEP " & wait");
  g_autoptr (KubusRunner) b = sh (GROUP_SLEEP " & wait");
  GPid sid;

  kubus_run_queue_add (q, a);
  kubus_run_queue_add (q, b);
  sid = kubus_runner_get_session (a);
  wait_session (sid, 2);
  kubus_run_queue_cancel_all (q);
  wait_finished (a);
  g_assert_cmpint (kubus_runner_get_state (a), ==, KUBUS_RUNNER_CANCELLED);
  g_assert_cmpint (kubus_runner_get_state (b), ==, KUBUS_RUNNER_CANCELLED);
  g_assert_cmpuint (kubus_runner_get_session (b), ==, 0);   /* never started */
  g_assert_cmpuint (pgrep_session (sid), ==, 0);
}

static void
test_queue_kill_all (void)
{
  KubusRunQueue *q = kubus_run_queue_new ();
  g_autoptr (KubusRunner) a = sh ("trap '' TERM; " GROUP_SLEEP " & wait; wait");
  GPid sid;

  kubus_runner_set_grace_ms (a, 200);
  kubus_run_queue_add (q, a);
  sid = kubus_runner_get_session (a);
  wait_session (sid, 2);
  /* the application's shutdown: no main loop runs any more */
  g_object_unref (q);
  g_assert_cmpuint (session_count (sid), ==, 0);
  g_assert_cmpuint (pgrep_session (sid), ==, 0);
  wait_finished (a);
}

/* ---- command lines and parameters ------------------------------------------------------------------ */

static char *
joined (char **argv)
{
  return g_strjoinv ("|", argv);
}

static void
test_tool_argv (void)
{
  KubusToolPrefs prefs = { .mpirun_command = (char *) "mpirun", .mpirun_options = (char *) "--oversubscribe --mca btl 'self,vader'",
                           .default_ranks = 4, .experiments_folder = (char *) "/x" };
  const char *args[] = { "in put.txt", "--n='3'", "$(rm -rf /)", NULL };
  const char *opts[] = { "--bind-to", "none", NULL };
  KubusMeasureParams p = { .executable = (char *) "/opt/my app/a.out", .arguments = (char **) args,
                           .mpirun_options = (char **) opts };
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) m = kubus_measure_argv ("/bin/kubus-run", &prefs, &p, 3, "/e/.x y.kubus-partial-AB", &error);
  g_auto (GStrv) a = NULL, a2 = NULL, s = NULL;
  g_autofree char *jm = NULL, *ja = NULL, *ja2 = NULL, *js = NULL, *line = NULL;

  g_assert_no_error (error);
  jm = joined (m);
  g_assert_cmpstr (jm, ==, "/bin/kubus-run|-o|/e/.x y.kubus-partial-AB|--force|--|mpirun|--oversubscribe|--mca|btl|"
                           "self,vader|--bind-to|none|-n|3|/opt/my app/a.out|in put.txt|--n='3'|$(rm -rf /)");

  line = kubus_tool_launcher_line (&prefs, &error);
  g_assert_cmpstr (line, ==, "mpirun --oversubscribe --mca btl 'self,vader'");
  a = kubus_analyze_argv ("/bin/kubus-analyze", &prefs, tmpdir, &error);
  ja = joined (a);
  {
    g_autofree char *expect = g_strdup_printf ("/bin/kubus-analyze|--mpirun|%s|--|%s", line, tmpdir);
    g_assert_cmpstr (ja, ==, expect);
  }
  a2 = kubus_analyze_argv ("/bin/kubus-analyze", &prefs, "/t/-odd name.otf2", &error);
  ja2 = joined (a2);
  g_assert_cmpstr (ja2, ==, "/bin/kubus-analyze|--mpirun|mpirun --oversubscribe --mca btl 'self,vader'|-o|"
                            "/t/-odd name.cube|--|/t/-odd name.otf2");
  s = kubus_simulate_argv ("/bin/kubus-sim", &prefs, "/e/my exp", "/e/my exp/bal ance.hyp", "/e/my exp/sim-bal ance",
                           &error);
  js = joined (s);
  /* the experiment is no launcher: kubus-sim reads what follows "--" as one */
  g_assert_cmpstr (js, ==, "/bin/kubus-sim|--hypothesis|/e/my exp/bal ance.hyp|-o|/e/my exp/sim-bal ance|--mpirun|"
                           "mpirun --oversubscribe --mca btl 'self,vader'|/e/my exp");
  {
    g_auto (GStrv) s2 = kubus_simulate_argv ("/bin/kubus-sim", &prefs, "-exp", "h.hyp", "o", &error);
    g_autofree char *js2 = joined (s2);
    g_assert_true (g_str_has_suffix (js2, "|./-exp"));
  }

  /* a preference that is no command line */
  {
    KubusToolPrefs bad = prefs;
    g_auto (GStrv) none = NULL;
    bad.mpirun_options = (char *) "--mca 'unclosed";
    none = kubus_measure_argv ("kr", &bad, &p, 1, "/t", &error);
    g_assert_null (none);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "--mca 'unclosed"));
    g_clear_error (&error);
    bad.mpirun_options = (char *) "   ";
    none = kubus_measure_argv ("kr", &bad, &p, 1, "/t", &error);
    g_assert_no_error (error);
    g_free (jm);
    jm = joined (none);
    g_assert_cmpstr (jm, ==, "kr|-o|/t|--force|--|mpirun|--bind-to|none|-n|1|/opt/my app/a.out|in put.txt|--n='3'|"
                             "$(rm -rf /)");
  }

  {
    g_autofree char *r1 = kubus_analyze_report_path ("/t/a.otf2");
    g_autofree char *r2 = kubus_analyze_report_path (tmpdir);
    g_autofree char *e2 = g_build_filename (tmpdir, "analysis.cube", NULL);
    g_autofree char *o = kubus_simulate_default_output ("/e/x", "/e/x/bal.ance.hyp");
    g_autofree char *o2 = kubus_simulate_default_output ("/e/x", "/e/x/.hyp");
    g_assert_cmpstr (r1, ==, "/t/a.cube");
    {
      g_autofree char *r3 = kubus_analyze_report_path ("/t/b.kct");
      g_assert_cmpstr (r3, ==, "/t/b.cube");
    }
    g_assert_cmpstr (r2, ==, e2);
    g_assert_cmpstr (o, ==, "/e/x/sim-bal.ance");
    g_assert_cmpstr (o2, ==, "/e/x/sim-.hyp");
  }
}

static void
test_measure_params (void)
{
  g_autoptr (GError) error = NULL;
  KubusMeasureParams p;
  GVariant *v;

  v = g_variant_parse (G_VARIANT_TYPE_VARDICT,
                       "{'executable': <'/a b/c'>, 'arguments': <['x y', '\"z\"']>, 'ranks': <6>,"
                       " 'mpirun-options': <['--bind-to', 'none']>, 'folder': <'/e/f'>, 'analyze': <true>}",
                       NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (kubus_measure_params_parse (v, &p, &error));
  g_assert_cmpstr (p.executable, ==, "/a b/c");
  g_assert_cmpuint (g_strv_length (p.arguments), ==, 2);
  g_assert_cmpstr (p.arguments[1], ==, "\"z\"");
  g_assert_cmpint (p.ranks, ==, 6);
  g_assert_cmpstr (p.mpirun_options[1], ==, "none");
  g_assert_cmpstr (p.folder, ==, "/e/f");
  g_assert_true (p.analyze);
  g_assert_false (p.replace);
  /* round trip */
  {
    g_autoptr (GVariant) back = g_variant_ref_sink (kubus_measure_params_build (&p));
    KubusMeasureParams q;
    g_assert_true (kubus_measure_params_parse (back, &q, &error));
    g_assert_cmpstr (q.executable, ==, p.executable);
    g_assert_true (g_strv_equal ((const char *const *) q.arguments, (const char *const *) p.arguments));
    g_assert_cmpint (q.ranks, ==, 6);
    kubus_measure_params_clear (&q);
  }
  kubus_measure_params_clear (&p);
  g_variant_unref (v);

  static const struct { const char *text; const char *msg; } bad[] = {
    { "{'executable': <'x'>, 'rank': <4>}", "measure: unknown parameter “rank”" },
    { "{'executable': <'x'>, 'ranks': <'4'>}", "measure: parameter “ranks” must have type i, not s" },
    { "{'arguments': <['a']>}", "measure: no executable given" },
    { "{'executable': <'x'>, 'ranks': <-2>}", "measure: -2 is not a number of ranks" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GVariant) b = g_variant_parse (G_VARIANT_TYPE_VARDICT, bad[i].text, NULL, NULL, NULL);
      g_assert_false (kubus_measure_params_parse (b, &p, &error));
      g_assert_true (g_str_has_prefix (error->message, bad[i].msg));
      g_clear_error (&error);
    }
}

static void
test_default_folder_and_moves (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "exps $x", NULL);
  g_autofree char *f1 = NULL, *f2 = NULL, *f3 = NULL, *a = NULL, *b = NULL, *inner = NULL, *outside = NULL;
  g_autofree char *link = NULL, *kept = NULL;
  g_autoptr (GError) error = NULL;

  g_mkdir_with_parents (dir, 0755);
  f1 = kubus_measure_default_folder (dir, "/bin/my prog", 4);
  g_assert_true (g_str_has_suffix (f1, "/kubus_my prog_4"));
  g_mkdir (f1, 0755);
  f2 = kubus_measure_default_folder (dir, "/bin/my prog", 4);
  g_assert_true (g_str_has_suffix (f2, "/kubus_my prog_4-2"));
  g_mkdir (f2, 0755);
  f3 = kubus_measure_default_folder (dir, "my prog", 4);
  g_assert_true (g_str_has_suffix (f3, "/kubus_my prog_4-3"));

  /* moving a finished experiment into place */
  a = g_build_filename (dir, ".new", NULL);
  g_mkdir (a, 0755);
  inner = g_build_filename (a, "traces.otf2", NULL);
  g_assert_true (g_file_set_contents (inner, "new", -1, NULL));
  g_assert_false (kubus_tool_move_folder (a, f1, FALSE, &error));   /* f1 exists */
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  /* replace: f1's old contents go, and a symbolic link in it is removed, not followed */
  outside = g_build_filename (tmpdir, "outside", NULL);
  g_mkdir (outside, 0755);
  kept = g_build_filename (outside, "keep", NULL);
  g_assert_true (g_file_set_contents (kept, "keep", -1, NULL));
  link = g_build_filename (f1, "link", NULL);
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_true (kubus_tool_move_folder (a, f1, TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (a, G_FILE_TEST_EXISTS));
  {
    g_autofree char *t = g_build_filename (f1, "traces.otf2", NULL), *c = NULL;
    g_assert_true (g_file_get_contents (t, &c, NULL, NULL));
    g_assert_cmpstr (c, ==, "new");
  }
  g_assert_false (g_file_test (link, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));
  /* a new place */
  b = g_build_filename (dir, "fresh", NULL);
  g_assert_true (kubus_tool_move_folder (f2, b, FALSE, &error));
  g_assert_true (g_file_test (b, G_FILE_TEST_IS_DIR));
  g_assert_true (kubus_tool_remove_tree (dir, &error));
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  g_assert_true (kubus_tool_remove_tree (dir, &error));   /* gone already: fine */
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));
}

static void
test_tool_find (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *p = NULL;

  g_setenv ("KUBUS_SIM_PROGRAM", "/some/where/kubus-sim", TRUE);
  p = kubus_tool_find ("kubus-sim", &error);
  g_assert_cmpstr (p, ==, "/some/where/kubus-sim");
  g_unsetenv ("KUBUS_SIM_PROGRAM");
  g_clear_pointer (&p, g_free);
  {
    g_autofree char *path = g_strdup (g_getenv ("PATH"));
    g_setenv ("PATH", tmpdir, TRUE);
    p = kubus_tool_find ("kubus-nothing", &error);
    g_setenv ("PATH", path, TRUE);
  }
  g_assert_null (p);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "KUBUS_NOTHING_PROGRAM"));
}

static void
test_tool_prefs (void)
{
  g_autoptr (GSettings) settings = g_settings_new ("org.kubus.Kubus");
  g_autofree char *home_exp = g_build_filename (g_get_home_dir (), "my exps", NULL);
  g_autofree char *home_default = g_build_filename (g_get_home_dir (), "kubus-experiments", NULL);
  KubusToolPrefs p;

  kubus_tool_prefs_load (&p);
  g_assert_cmpstr (p.mpirun_command, ==, "mpirun");
  g_assert_cmpstr (p.mpirun_options, ==, "--oversubscribe");
  g_assert_cmpint (p.default_ranks, ==, 4);
  g_assert_cmpstr (p.experiments_folder, ==, home_default);
  kubus_tool_prefs_clear (&p);

  g_settings_set_string (settings, "mpirun-command", "  ");
  g_settings_set_string (settings, "mpirun-options", "");
  g_settings_set_int (settings, "default-ranks", 16);
  g_settings_set_string (settings, "experiments-folder", "~/my exps");
  kubus_tool_prefs_load (&p);
  g_assert_cmpstr (p.mpirun_command, ==, "mpirun");   /* blank: the default */
  g_assert_cmpstr (p.mpirun_options, ==, "");
  g_assert_cmpint (p.default_ranks, ==, 16);
  g_assert_cmpstr (p.experiments_folder, ==, home_exp);
  {
    g_autoptr (GError) error = NULL;
    g_autofree char *line = kubus_tool_launcher_line (&p, &error);
    g_assert_cmpstr (line, ==, "mpirun");
  }
  kubus_tool_prefs_clear (&p);
  g_settings_reset (settings, "mpirun-command");
  g_settings_reset (settings, "mpirun-options");
  g_settings_reset (settings, "default-ranks");
  g_settings_reset (settings, "experiments-folder");
}

/* ---- hypotheses ------------------------------------------------------------------------------------- */

static void
test_hypothesis_rules (void)
{
  static const struct { KubusHypRule rule; const char *region; double f; const char *op; gint64 n; const char *out; } ok[] = {
    { KUBUS_HYP_BALANCE, "compute", 0, NULL, 0, "balance region compute" },
    { KUBUS_HYP_BALANCE_GLOBALLY, "compute", 0, NULL, 0, "balance region compute globally" },
    { KUBUS_HYP_SCALE, "solve", 0.5, NULL, 0, "scale region solve by 0.5" },
    { KUBUS_HYP_SCALE, "solve", 0.1, NULL, 0, "scale region solve by 0.1" },
    { KUBUS_HYP_SCALE, "solve", 2, NULL, 0, "scale region solve by 2" },
    { KUBUS_HYP_SCALE, "solve", 0, NULL, 0, "scale region solve by 0" },
    { KUBUS_HYP_SCALE, "my func", 1.0 / 3, NULL, 0, "scale region \"my func\" by 0.33333333333333331" },
    { KUBUS_HYP_REMOVE_SIZE, NULL, 0, "<=", 1024, "remove messages with size <= 1024" },
    { KUBUS_HYP_REMOVE_TAG, NULL, 0, "==", 7, "remove messages with tag == 7" },
    { KUBUS_HYP_REMOVE_IN_REGION, "MPI_Send", 0, NULL, 0, "remove messages in region MPI_Send" },
    { KUBUS_HYP_REMOVE_IN_REGION, "a \"b\" \\c #d", 0, NULL, 0, "remove messages in region \"a \\\"b\\\" \\\\c #d\"" },
    { KUBUS_HYP_BALANCE, "\"quoted", 0, NULL, 0, "balance region \"\\\"quoted\"" },
    { KUBUS_HYP_BALANCE, "ns::f<int>(x, y)", 0, NULL, 0, "balance region \"ns::f<int>(x, y)\"" },
    { KUBUS_HYP_BALANCE, "ns::f<int>(x,y)", 0, NULL, 0, "balance region ns::f<int>(x,y)" },
  };
  static const struct { KubusHypRule rule; const char *region; double f; const char *op; gint64 n; } bad[] = {
    { KUBUS_HYP_BALANCE, NULL, 0, NULL, 0 },
    { KUBUS_HYP_BALANCE, "", 0, NULL, 0 },
    { KUBUS_HYP_BALANCE, "a\nb", 0, NULL, 0 },
    { KUBUS_HYP_SCALE, "a", -1, NULL, 0 },
    { KUBUS_HYP_SCALE, "a", INFINITY, NULL, 0 },
    { KUBUS_HYP_REMOVE_SIZE, NULL, 0, "=", 1 },
    { KUBUS_HYP_REMOVE_TAG, NULL, 0, ">", -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *r = kubus_hypothesis_rule (ok[i].rule, ok[i].region, ok[i].f, ok[i].op, ok[i].n, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (r, ==, ok[i].out);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *r = kubus_hypothesis_rule (bad[i].rule, bad[i].region, bad[i].f, bad[i].op, bad[i].n, &error);
      g_assert_null (r);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    }
}

static void
test_hypothesis_regions (void)
{
  g_autoptr (CubeReport) rep = cube_report_new ();
  CubeRegion *prog = cube_report_add_region (rep, "app", "", -1, -1);
  CubeRegion *main_ = cube_report_add_region (rep, "main", "", -1, -1);
  CubeRegion *compute = cube_report_add_region (rep, "compute", "", -1, -1);
  CubeRegion *send = cube_report_add_region (rep, "MPI_Send", "MPI", -1, -1);
  CubeRegion *init = cube_report_add_region (rep, "MPI_Init", "", -1, -1);
  CubeRegion *spaced = cube_report_add_region (rep, "zählen func", "", -1, -1);
  CubeCnode *root, *m;
  g_autoptr (GPtrArray) user = NULL, all = NULL;
  GString *s = g_string_new (NULL);

  cube_report_add_region (rep, "unused", "", -1, -1);
  root = cube_report_add_cnode (rep, NULL, prog, -1, NULL);
  m = cube_report_add_cnode (rep, root, main_, -1, NULL);
  cube_report_add_cnode (rep, m, init, -1, NULL);
  cube_report_add_cnode (rep, cube_report_add_cnode (rep, m, compute, -1, NULL), send, -1, NULL);
  cube_report_add_cnode (rep, m, spaced, -1, NULL);
  cube_report_add_cnode (rep, m, send, -1, NULL);
  cube_report_add_cnode (rep, m, compute, -1, NULL);

  user = kubus_hypothesis_region_names (rep, FALSE);
  all = kubus_hypothesis_region_names (rep, TRUE);
  for (guint i = 0; i < all->len; i++)
    g_string_append_printf (s, "%s;", (char *) all->pdata[i]);
  g_assert_cmpstr (s->str, ==, "app;compute;main;zählen func;MPI_Init;MPI_Send;");
  g_assert_cmpuint (user->len, ==, 4);
  g_string_free (s, TRUE);
}

/* ---- studies ----------------------------------------------------------------------------------------- */

static void
touch (const char *dir,
       const char *name)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (p, "x", -1, NULL));
}

static void
test_study (void)
{
  g_autofree char *exp = g_build_filename (tmpdir, "study exp", NULL);
  g_autofree char *sim = g_build_filename (exp, "sim-balance", NULL);
  g_autofree char *sim2 = g_build_filename (exp, "sim-old", NULL);
  g_autofree char *notsim = g_build_filename (exp, "traces", NULL);
  g_autofree char *rep = g_build_filename (exp, "analysis.cube", NULL);
  g_autofree char *srep = g_build_filename (sim, "analysis.cube", NULL);
  g_autofree char *old_rep = g_build_filename (sim2, "analysis.cube", NULL);
  g_autoptr (KubusStudy) a = NULL, b = NULL, c = NULL;
  g_auto (GStrv) sims = NULL;

  g_mkdir_with_parents (sim, 0755);
  g_mkdir_with_parents (sim2, 0755);
  g_mkdir_with_parents (notsim, 0755);
  touch (exp, "traces.otf2");
  touch (exp, "analysis.cube");
  touch (sim, "analysis.cube");
  touch (sim, "difference.cube");
  touch (sim2, "analysis.cube");
  touch (sim2, "difference.cube");
  {
    /* sim-old is older */
    struct timespec t[2] = { { 1000000, 0 }, { 1000000, 0 } };
    g_assert_cmpint (utimensat (AT_FDCWD, old_rep, t, 0), ==, 0);
  }

  a = kubus_study_for_report (rep);
  g_assert_cmpstr (a->experiment, ==, exp);
  g_assert_null (a->simulation);
  b = kubus_study_for_report (srep);
  g_assert_cmpstr (b->experiment, ==, exp);
  g_assert_cmpstr (b->simulation, ==, sim);
  c = kubus_study_for_report ("/nonexistent/analysis.cube");
  g_assert_null (c);
  sims = kubus_study_simulations (exp);
  g_assert_cmpuint (g_strv_length (sims), ==, 2);
  g_assert_cmpstr (sims[0], ==, sim);
  g_assert_cmpstr (sims[1], ==, sim2);

  /* recent studies (memory settings backend): newest first, one entry per simulation, the
   * bare experiment replaced by its simulation, at most 8, gone folders left out */
  {
    g_autoptr (GPtrArray) list = NULL;
    g_autoptr (KubusStudy) s1 = kubus_study_new (exp, NULL, NULL);
    g_autoptr (KubusStudy) s2 = kubus_study_new (exp, sim, "/h/balance.hyp");
    g_autoptr (KubusStudy) s3 = kubus_study_new (exp, sim2, NULL);

    kubus_study_remember (s1);
    list = kubus_study_recent ();
    g_assert_cmpuint (list->len, ==, 1);
    g_clear_pointer (&list, g_ptr_array_unref);
    kubus_study_remember (s2);
    kubus_study_remember (s3);
    kubus_study_remember (s2);
    list = kubus_study_recent ();
    g_assert_cmpuint (list->len, ==, 2);
    g_assert_cmpstr (((KubusStudy *) list->pdata[0])->simulation, ==, sim);
    g_assert_cmpstr (((KubusStudy *) list->pdata[0])->hypothesis, ==, "/h/balance.hyp");
    g_assert_cmpstr (((KubusStudy *) list->pdata[1])->simulation, ==, sim2);
    g_clear_pointer (&list, g_ptr_array_unref);
    for (int i = 0; i < 12; i++)
      {
        g_autofree char *e = g_strdup_printf ("%s/e%d", tmpdir, i);
        g_autoptr (KubusStudy) si = kubus_study_new (e, NULL, NULL);
        g_mkdir (e, 0755);
        kubus_study_remember (si);
      }
    list = kubus_study_recent ();
    g_assert_cmpuint (list->len, ==, 8);
    g_assert_true (g_str_has_suffix (((KubusStudy *) list->pdata[0])->experiment, "/e11"));
    g_clear_pointer (&list, g_ptr_array_unref);
    {
      g_autofree char *e11 = g_strdup_printf ("%s/e11", tmpdir);
      g_rmdir (e11);
    }
    list = kubus_study_recent ();
    g_assert_cmpuint (list->len, ==, 7);
    g_assert_true (g_str_has_suffix (((KubusStudy *) list->pdata[0])->experiment, "/e10"));
  }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr (GError) error = NULL;
  int status;

  if (argc == 2 && g_str_equal (argv[1], "--group-sleep"))
    {
      setpgid (0, 0);
      g_usleep (300 * G_USEC_PER_SEC);
      return 0;
    }
  /* the recent studies in memory, never in the user's settings */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("kubus-runner-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/runner/progress-lines", test_progress_lines);
  g_test_add_func ("/runner/output", test_runner_output);
  g_test_add_func ("/runner/success-env-cwd", test_runner_success_env_cwd);
  g_test_add_func ("/runner/cap-and-batches", test_runner_cap_and_batches);
  g_test_add_func ("/runner/long-and-invalid-lines", test_runner_long_and_invalid_lines);
  g_test_add_func ("/runner/cannot-start", test_runner_cannot_start);
  g_test_add_func ("/runner/cancel-process-groups", test_runner_cancel_groups);
  g_test_add_func ("/runner/cancel-kill-after-grace", test_runner_cancel_kill);
  g_test_add_func ("/runner/leftovers", test_runner_leftovers);
  g_test_add_func ("/runner/killed-by-signal", test_runner_killed_by_signal);
  g_test_add_func ("/runner/done-func", test_runner_done_func);
  g_test_add_func ("/queue/one-at-a-time", test_queue);
  g_test_add_func ("/queue/cancel-all", test_queue_cancel_all);
  g_test_add_func ("/queue/kill-all", test_queue_kill_all);
  g_test_add_func ("/tools/argv", test_tool_argv);
  g_test_add_func ("/tools/measure-params", test_measure_params);
  g_test_add_func ("/tools/folders", test_default_folder_and_moves);
  g_test_add_func ("/tools/find", test_tool_find);
  g_test_add_func ("/tools/prefs", test_tool_prefs);
  g_test_add_func ("/hypothesis/rules", test_hypothesis_rules);
  g_test_add_func ("/hypothesis/regions", test_hypothesis_regions);
  g_test_add_func ("/study/folders-and-recent", test_study);
  status = g_test_run ();
  kubus_tool_remove_tree (tmpdir, NULL);
  g_free (tmpdir);
  return status;
}
