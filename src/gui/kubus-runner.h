/* kubus-runner.h — one run of a Kubus tool (kubus-run, kubus-analyze, kubus-sim) as a
 * subprocess: an argv array (no shell), output streamed into a capped log in batches, progress
 * from the tools' progress lines, Cancel, and the exit status.
 *
 * The tool runs in a session of its own (setsid). Open MPI's mpirun puts every rank in a process
 * group of its own, so a process group would not reach the ranks; the session does, and it is
 * what Cancel and the end of a run clean up: SIGTERM to the tool's process group (mpirun ends
 * its ranks itself), then, after the grace period, SIGKILL to every process left in the
 * session. A run is finished only when its session is empty, so no MPI rank outlives it and the
 * next run of the queue never overlaps it. Processes a program leaves behind after a normal end
 * are stopped the same way (and the log says so).
 *
 * GIO only (no widgets): the tests drive it without a display. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  KUBUS_RUNNER_WAITING,     /* not started (in the queue) */
  KUBUS_RUNNER_RUNNING,
  KUBUS_RUNNER_CANCELLING,  /* Cancel pressed, processes still ending */
  KUBUS_RUNNER_SUCCEEDED,
  KUBUS_RUNNER_FAILED,      /* could not start, non-zero exit status or a failed finishing step */
  KUBUS_RUNNER_CANCELLED,
} KubusRunnerState;

#define KUBUS_TYPE_RUNNER (kubus_runner_get_type ())
G_DECLARE_FINAL_TYPE (KubusRunner, kubus_runner, KUBUS, RUNNER, GObject)

/* Called once when the run has ended (the session is empty), before the state changes and
 * "finished" is emitted. @outcome is how it ended so far (SUCCEEDED, FAILED or CANCELLED): the
 * func moves results into place or cleans up, and may turn a success into a failure with
 * kubus_runner_fail() (e.g. when moving the results into place fails). */
typedef void (*KubusRunnerDoneFunc) (KubusRunner     *runner,
                                     KubusRunnerState outcome,
                                     gpointer         user_data);

/* @title is what the user reads ("Analyze kubus_demo_4"); @argv is copied. */
KubusRunner      *kubus_runner_new            (const char         *title,
                                               const char *const  *argv);
void              kubus_runner_set_cwd        (KubusRunner        *self,
                                               const char         *cwd);
void              kubus_runner_setenv         (KubusRunner        *self,
                                               const char         *key,
                                               const char         *value);
/* How long Cancel waits after SIGTERM before SIGKILL (default 3000 ms). */
void              kubus_runner_set_grace_ms   (KubusRunner        *self,
                                               guint               grace_ms);
/* Lines kept in the log (default 5000); older lines are dropped and counted. */
void              kubus_runner_set_line_cap   (KubusRunner        *self,
                                               guint               cap);
void              kubus_runner_set_done_func  (KubusRunner        *self,
                                               KubusRunnerDoneFunc func,
                                               gpointer            user_data,
                                               GDestroyNotify      destroy);

/* Starts the run (WAITING only). A program that cannot be started ends the run as FAILED with
 * the reason as its message (from the main loop, like every other end). */
void              kubus_runner_start          (KubusRunner        *self);
/* WAITING: ends as CANCELLED at once. RUNNING: SIGTERM, then SIGKILL after the grace period. */
void              kubus_runner_cancel         (KubusRunner        *self);
/* From the done func: the run failed although the program succeeded (@message is shown). */
void              kubus_runner_fail           (KubusRunner        *self,
                                               const char         *message);
/* Blocks until the session is empty (SIGTERM, then SIGKILL after the grace period): for the
 * application's shutdown, when no main loop will run again. */
void              kubus_runner_kill_now       (KubusRunner        *self);

const char       *kubus_runner_get_title      (KubusRunner        *self);
const char *const *kubus_runner_get_argv      (KubusRunner        *self);
KubusRunnerState  kubus_runner_get_state      (KubusRunner        *self);
gboolean          kubus_runner_is_finished    (KubusRunner        *self);
/* Share done (0…1) from the tool's progress lines, or -1 when it says nothing. */
double            kubus_runner_get_progress   (KubusRunner        *self);
/* The phase of the last progress line, or NULL. */
const char       *kubus_runner_get_phase      (KubusRunner        *self);
/* The exit status (0…255, 128 + N when killed by signal N); -1 if it did not exit. */
int               kubus_runner_get_exit_status (KubusRunner       *self);
/* Why it failed, in a sentence for the user ("kubus-analyze exited with status 1."), or NULL. */
const char       *kubus_runner_get_message    (KubusRunner        *self);
/* The session (= process group) id of the run, 0 before it started. */
GPid              kubus_runner_get_session    (KubusRunner        *self);
/* Seconds from start to end (or to now while running). */
double            kubus_runner_get_duration   (KubusRunner        *self);
/* The whole kept log, newline-terminated lines (newly allocated). */
char             *kubus_runner_dup_log        (KubusRunner        *self);
/* The last @n lines of the log (newly allocated). */
char             *kubus_runner_dup_tail       (KubusRunner        *self,
                                               guint               n);
guint             kubus_runner_get_n_dropped  (KubusRunner        *self);

/* The processes (not zombies) of session @sid, from /proc; an array of GPid (free with
 * g_array_unref). */
GArray           *kubus_runner_session_pids   (GPid                sid);

G_END_DECLS
