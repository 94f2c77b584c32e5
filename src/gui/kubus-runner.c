/* kubus-runner.c — see kubus-runner.h. */
#include <glib/gi18n.h>

#include "kubus-runner.h"
#include "kubus-text.h"
#include "kubus-runner-progress.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define FLUSH_MS        100     /* output reaches the log panel in batches this often */
#define POLL_MS         50      /* how often an ending run looks at its session */
#define EOF_WAIT_MS     1000    /* after the session is empty, how long to wait for the pipe's end */
#define LINE_MAX_BYTES  4000    /* longer lines are cut (a binary dump would flood the log) */
#define ZOMBIE_POLLS    40      /* how long (× POLL_MS) to wait for others to reap the run's dead */

struct _KubusRunner
{
  GObject           parent_instance;

  char             *title;
  char            **argv;
  char             *cwd;
  GPtrArray        *env;          /* "KEY=VALUE" pairs, in order */
  guint             grace_ms;
  guint             line_cap;
  KubusRunnerDoneFunc done_func;
  gpointer          done_data;
  GDestroyNotify    done_destroy;

  KubusRunnerState  state;
  GSubprocess      *process;
  GPid              sid;
  GInputStream     *out;
  GCancellable     *cancellable;  /* the pipe reads */
  gint64            start_time;
  gint64            end_time;

  GString          *partial;      /* unterminated last line */
  GQueue           *lines;        /* kept log lines, without newline */
  guint             n_dropped;
  GString          *batch;        /* lines not yet given to "output" */
  guint             flush_id;

  double            progress;
  char             *phase;

  gboolean          exited;
  gboolean          eof;
  gboolean          session_empty;
  gboolean          cancel_requested;
  gboolean          killed;       /* SIGKILL sent */
  gboolean          leftovers_reported;
  int               exit_status;
  gboolean          signaled;
  char             *message;
  gboolean          done;
  guint             grace_id;
  guint             poll_id;
  guint             eof_id;
  guint             zombie_polls;
};

G_DEFINE_FINAL_TYPE (KubusRunner, kubus_runner, G_TYPE_OBJECT)

enum { PROP_0, PROP_STATE, PROP_PROGRESS, PROP_PHASE, N_PROPS };
static GParamSpec *props[N_PROPS];

enum { OUTPUT, FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void maybe_done (KubusRunner *self);

/* ---- the session ------------------------------------------------------------------------------ */

/* The processes of session @sid: live ones into @live (may be NULL); returns how many zombies
 * remain. With @reap, zombies that are our children (orphans of the run adopted by this
 * process, the subreaper) are reaped, except @keep (the tool itself, which GLib reaps). */
static guint
scan_session (GPid     sid,
              GArray  *live,
              gboolean reap,
              GPid     keep)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint zombies = 0;
  GPid me = getpid ();

  if (dir == NULL || sid <= 0)
    return 0;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL, *stat = NULL;
      char state;
      long ppid, pgrp, session;
      const char *rparen;
      GPid pid;

      if (!g_ascii_isdigit (name[0]))
        continue;
      path = g_build_filename ("/proc", name, "stat", NULL);
      if (!g_file_get_contents (path, &stat, NULL, NULL))
        continue;   /* gone meanwhile */
      /* "pid (comm) state ppid pgrp session …"; comm may hold spaces and parentheses */
      rparen = strrchr (stat, ')');
      if (rparen == NULL || sscanf (rparen + 1, " %c %ld %ld %ld", &state, &ppid, &pgrp, &session) != 4
          || session != sid)
        continue;
      pid = (GPid) strtol (name, NULL, 10);
      if (state != 'Z' && state != 'X')
        {
          if (live != NULL)
            g_array_append_val (live, pid);
          continue;
        }
      if (reap && ppid == me && pid != keep && waitpid (pid, NULL, WNOHANG) == pid)
        continue;
      zombies++;
    }
  return zombies;
}

GArray *
kubus_runner_session_pids (GPid sid)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (GPid));

  scan_session (sid, pids, FALSE, 0);
  return pids;
}

static guint
signal_session (GPid sid,
                int  signum)
{
  g_autoptr (GArray) pids = kubus_runner_session_pids (sid);

  for (guint i = 0; i < pids->len; i++)
    kill (g_array_index (pids, GPid, i), signum);
  return pids->len;
}

/* ---- output ------------------------------------------------------------------------------------ */

static gboolean
flush_batch (gpointer data)
{
  KubusRunner *self = data;
  g_autofree char *text = NULL;

  self->flush_id = 0;
  if (self->batch->len == 0)
    return G_SOURCE_REMOVE;
  text = g_strndup (self->batch->str, self->batch->len);
  g_string_truncate (self->batch, 0);
  g_signal_emit (self, signals[OUTPUT], 0, text);
  return G_SOURCE_REMOVE;
}

static void
add_line (KubusRunner *self,
          const char  *raw,
          gsize        len)
{
  g_autofree char *line = NULL;
  double fraction;
  char *phase = NULL;

  if (len > 0 && raw[len - 1] == '\r')
    len--;
  if (len > LINE_MAX_BYTES)
    {
      /* whole characters: no U+FFFD for a character the cut would split */
      g_autofree char *cut = g_utf8_make_valid (raw, (gssize) kubus_text_cut (raw, LINE_MAX_BYTES));
      line = g_strconcat (cut, "…", NULL);
    }
  else
    line = g_utf8_make_valid (raw, len);

  if (kubus_runner_progress_parse (line, &fraction, &phase))
    {
      self->progress = fraction;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_PROGRESS]);
      if (g_strcmp0 (phase, self->phase) != 0)
        {
          g_free (self->phase);
          self->phase = phase;
          g_object_notify_by_pspec (G_OBJECT (self), props[PROP_PHASE]);
        }
      else
        g_free (phase);
    }

  g_string_append (self->batch, line);
  g_string_append_c (self->batch, '\n');
  g_queue_push_tail (self->lines, g_steal_pointer (&line));
  while (self->lines->length > self->line_cap)
    {
      g_free (g_queue_pop_head (self->lines));
      self->n_dropped++;
    }
  if (self->flush_id == 0)
    self->flush_id = g_timeout_add (FLUSH_MS, flush_batch, self);
}

static void
add_text (KubusRunner *self,
          const char  *data,
          gsize        len)
{
  const char *end = data + len, *nl;

  while (data < end && (nl = memchr (data, '\n', end - data)) != NULL)
    {
      if (self->partial->len > 0)
        {
          g_string_append_len (self->partial, data, nl - data);
          add_line (self, self->partial->str, self->partial->len);
          g_string_truncate (self->partial, 0);
        }
      else
        add_line (self, data, nl - data);
      data = nl + 1;
    }
  if (data < end)
    {
      /* keep at most one long line's worth: the rest of an endless line is cut anyway */
      gsize room = self->partial->len < 4 * LINE_MAX_BYTES ? 4 * LINE_MAX_BYTES - self->partial->len : 0;
      g_string_append_len (self->partial, data, MIN ((gsize) (end - data), room));
    }
}

/* A message of ours in the log (not the tool's). */
static void
add_note (KubusRunner *self,
          const char  *text)
{
  g_autofree char *line = g_strdup_printf ("kubus: %s", text);
  add_line (self, line, strlen (line));
}

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  KubusRunner *self = user_data;   /* a reference is held for the read */
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      if (self->partial->len > 0)
        {
          add_line (self, self->partial->str, self->partial->len);
          g_string_truncate (self->partial, 0);
        }
      if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *note = g_strdup_printf (_("reading the output failed: %s"), error->message);
          add_note (self, note);
        }
      self->eof = TRUE;
      maybe_done (self);
      g_object_unref (self);
      return;
    }
  {
    gsize len;
    const char *data = g_bytes_get_data (bytes, &len);
    add_text (self, data, len);
  }
  g_input_stream_read_bytes_async (self->out, 65536, G_PRIORITY_DEFAULT, self->cancellable, on_read, self);
}

/* ---- ending ------------------------------------------------------------------------------------ */

static void
set_state (KubusRunner     *self,
           KubusRunnerState state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_STATE]);
}

static gboolean
eof_timeout (gpointer data)
{
  KubusRunner *self = data;

  /* A process outside the session still holds the pipe: stop waiting for it. */
  self->eof_id = 0;
  g_cancellable_cancel (self->cancellable);
  return G_SOURCE_REMOVE;
}

static void
finish (KubusRunner *self)
{
  g_clear_handle_id (&self->grace_id, g_source_remove);
  g_clear_handle_id (&self->poll_id, g_source_remove);
  g_clear_handle_id (&self->eof_id, g_source_remove);
  self->end_time = g_get_monotonic_time ();
  self->done = TRUE;

  if (self->cancel_requested)
    {
      add_note (self, _("cancelled"));
      g_clear_pointer (&self->message, g_free);
      self->message = g_strdup (_("The run was cancelled."));
    }
  else if (self->message == NULL && self->exit_status != 0)
    {
      g_autofree char *base = g_path_get_basename (self->argv[0]);
      int sig = self->exit_status - 128;
      if (self->signaled)
        self->message = g_strdup_printf (_("%s was killed by signal %d (%s)."), base, sig, g_strsignal (sig));
      else if (sig > 0 && sig < 65)
        /* the tools' convention: 128 + N when what they ran died of signal N */
        self->message = g_strdup_printf (_("%s exited with status %d: a process it ran was killed by signal %d (%s)."),
                                         base, self->exit_status, sig, g_strsignal (sig));
      else
        self->message = g_strdup_printf (_("%s exited with status %d."), base, self->exit_status);
    }
  if (self->done_func != NULL)
    self->done_func (self,
                     self->cancel_requested ? KUBUS_RUNNER_CANCELLED
                     : self->message != NULL ? KUBUS_RUNNER_FAILED : KUBUS_RUNNER_SUCCEEDED,
                     self->done_data);

  g_clear_handle_id (&self->flush_id, g_source_remove);
  flush_batch (self);
  if (self->cancel_requested)
    set_state (self, KUBUS_RUNNER_CANCELLED);
  else if (self->message != NULL)
    set_state (self, KUBUS_RUNNER_FAILED);
  else
    set_state (self, KUBUS_RUNNER_SUCCEEDED);
  g_signal_emit (self, signals[FINISHED], 0);
}

static void
maybe_done (KubusRunner *self)
{
  if (self->done || !self->exited || !self->session_empty)
    return;
  if (!self->eof)
    {
      if (self->eof_id == 0)
        self->eof_id = g_timeout_add (EOF_WAIT_MS, eof_timeout, self);
      return;
    }
  finish (self);
}

static gboolean
grace_over (gpointer data)
{
  KubusRunner *self = data;

  self->grace_id = 0;
  self->killed = TRUE;
  if (self->process != NULL && !self->exited)
    g_subprocess_force_exit (self->process);
  signal_session (self->sid, SIGKILL);
  return G_SOURCE_REMOVE;
}

static gboolean
poll_session (gpointer data)
{
  KubusRunner *self = data;
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  guint zombies = scan_session (self->sid, pids, TRUE, self->exited ? 0 : self->sid);

  if (pids->len > 0)
    {
      if (self->killed)
        signal_session (self->sid, SIGKILL);
      return G_SOURCE_CONTINUE;
    }
  /* Dead processes not reaped yet by a parent outside this process: wait a little for them
   * (pgrep lists them), not for ever. */
  if (zombies > 0 && self->zombie_polls++ < ZOMBIE_POLLS)
    return G_SOURCE_CONTINUE;
  self->poll_id = 0;
  self->session_empty = TRUE;
  maybe_done (self);
  return G_SOURCE_REMOVE;
}

static void
start_grace (KubusRunner *self)
{
  if (self->grace_id == 0 && !self->killed)
    self->grace_id = g_timeout_add (self->grace_ms, grace_over, self);
}

static void
on_exited (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  KubusRunner *self = user_data;   /* a reference is held for the wait */
  GSubprocess *process = G_SUBPROCESS (source);

  g_subprocess_wait_finish (process, result, NULL);
  self->exited = TRUE;
  if (g_subprocess_get_if_exited (process))
    self->exit_status = g_subprocess_get_exit_status (process);
  else if (g_subprocess_get_if_signaled (process))
    {
      self->exit_status = 128 + g_subprocess_get_term_sig (process);
      self->signaled = TRUE;
    }
  else
    self->exit_status = -1;

  /* What the tool left running in its session (e.g. ranks after mpirun died): stop it too. */
  if (signal_session (self->sid, SIGTERM) > 0)
    {
      if (!self->cancel_requested && !self->leftovers_reported)
        {
          add_note (self, _("processes of the run were still running after it ended: stopping them"));
          self->leftovers_reported = TRUE;
        }
      start_grace (self);
    }
  if (self->poll_id == 0)
    self->poll_id = g_timeout_add (POLL_MS, poll_session, self);
  poll_session (self);
  g_object_unref (self);
}

/* ---- public ------------------------------------------------------------------------------------ */

#define PID_FD 3

static void
child_setup (gpointer data)
{
  pid_t pid;

  (void) data;
  /* A session of its own: every process the tool starts (mpirun, every rank in its own process
   * group) stays findable, and none gets the terminal's signals. */
  setsid ();
  /* Tell the parent the process id: GSubprocess forgets it once the process has been reaped,
   * and a tool that ends at once would leave its session unknown. */
  pid = getpid ();
  while (write (PID_FD, &pid, sizeof pid) < 0 && errno == EINTR)
    ;
  close (PID_FD);
}

static gboolean
fail_later (gpointer data)
{
  KubusRunner *self = data;

  self->exited = self->eof = self->session_empty = TRUE;
  finish (self);
  return G_SOURCE_REMOVE;
}

void
kubus_runner_start (KubusRunner *self)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GError) error = NULL;
  int pid_pipe[2];

  g_return_if_fail (KUBUS_IS_RUNNER (self));
  g_return_if_fail (self->state == KUBUS_RUNNER_WAITING);

  /* Orphans of a run (ranks whose mpirun was killed) come to this process rather than to init:
   * they stay reachable and are reaped before the run counts as finished. */
  {
    static gsize once;
    if (g_once_init_enter (&once))
      {
        prctl (PR_SET_CHILD_SUBREAPER, 1);
        g_once_init_leave (&once, 1);
      }
  }
  self->start_time = g_get_monotonic_time ();
  set_state (self, KUBUS_RUNNER_RUNNING);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
  if (self->cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, self->cwd);
  for (guint i = 0; i < self->env->len; i++)
    {
      const char *kv = self->env->pdata[i];
      const char *eq = strchr (kv, '=');
      g_autofree char *key = g_strndup (kv, eq - kv);
      g_subprocess_launcher_setenv (launcher, key, eq + 1, TRUE);
    }
  if (!g_unix_open_pipe (pid_pipe, FD_CLOEXEC, &error))
    {
      self->message = g_strdup_printf (_("Cannot start %s: %s"), self->argv[0], error->message);
      add_note (self, self->message);
      g_idle_add_full (G_PRIORITY_DEFAULT, fail_later, g_object_ref (self), g_object_unref);
      return;
    }
  g_subprocess_launcher_take_fd (launcher, pid_pipe[1], PID_FD);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  self->process = g_subprocess_launcher_spawnv (launcher, (const char *const *) self->argv, &error);
  g_clear_object (&launcher);   /* closes our copy of the write end */
  if (self->process != NULL)
    {
      pid_t pid = 0;
      /* written before exec, and the spawn returned after the exec */
      if (read (pid_pipe[0], &pid, sizeof pid) == sizeof pid)
        self->sid = pid;
    }
  close (pid_pipe[0]);
  if (self->process == NULL)
    {
      self->message = g_strdup_printf (_("Cannot start %s: %s"), self->argv[0], error->message);
      add_note (self, self->message);
      self->exit_status = -1;
      g_idle_add_full (G_PRIORITY_DEFAULT, fail_later, g_object_ref (self), g_object_unref);
      return;
    }
  self->out = g_object_ref (g_subprocess_get_stdout_pipe (self->process));
  self->cancellable = g_cancellable_new ();
  g_input_stream_read_bytes_async (self->out, 65536, G_PRIORITY_DEFAULT, self->cancellable, on_read,
                                   g_object_ref (self));
  g_subprocess_wait_async (self->process, NULL, on_exited, g_object_ref (self));
}

void
kubus_runner_cancel (KubusRunner *self)
{
  g_return_if_fail (KUBUS_IS_RUNNER (self));

  switch (self->state)
    {
    case KUBUS_RUNNER_WAITING:
      self->cancel_requested = TRUE;
      self->exited = self->eof = self->session_empty = TRUE;
      finish (self);
      return;
    case KUBUS_RUNNER_RUNNING:
      if (self->done)
        return;
      self->cancel_requested = TRUE;
      set_state (self, KUBUS_RUNNER_CANCELLING);
      if (self->process == NULL)
        return;   /* failed to start; ends from the idle */
      /* The tool's own process group first: mpirun then ends its ranks in order. (Never
       * kill (0, …): that would be this process's own group.) */
      if (!self->exited && self->sid > 0)
        kill (-self->sid, SIGTERM);
      else if (!self->exited)
        g_subprocess_send_signal (self->process, SIGTERM);
      signal_session (self->sid, SIGTERM);
      start_grace (self);
      return;
    default:
      return;
    }
}

void
kubus_runner_kill_now (KubusRunner *self)
{
  gint64 deadline;

  g_return_if_fail (KUBUS_IS_RUNNER (self));
  if (self->sid <= 0 || self->done)
    return;
  self->cancel_requested = TRUE;
  kill (-self->sid, SIGTERM);
  signal_session (self->sid, SIGTERM);
  deadline = g_get_monotonic_time () + self->grace_ms * G_TIME_SPAN_MILLISECOND;
  for (;;)
    {
      g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
      scan_session (self->sid, pids, TRUE, self->exited ? 0 : self->sid);
      if (pids->len == 0)
        break;
      if (g_get_monotonic_time () > deadline)
        signal_session (self->sid, SIGKILL);
      g_usleep (20000);
    }
}

void
kubus_runner_fail (KubusRunner *self,
                   const char  *message)
{
  g_return_if_fail (KUBUS_IS_RUNNER (self));
  g_free (self->message);
  self->message = g_strdup (message);
  add_note (self, message);
}

/* ---- accessors ---------------------------------------------------------------------------------- */

KubusRunner *
kubus_runner_new (const char        *title,
                  const char *const *argv)
{
  KubusRunner *self;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);
  self = g_object_new (KUBUS_TYPE_RUNNER, NULL);
  self->title = g_strdup (title);
  self->argv = g_strdupv ((char **) argv);
  return self;
}

void
kubus_runner_set_cwd (KubusRunner *self,
                      const char  *cwd)
{
  g_return_if_fail (KUBUS_IS_RUNNER (self));
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
}

void
kubus_runner_setenv (KubusRunner *self,
                     const char  *key,
                     const char  *value)
{
  g_return_if_fail (KUBUS_IS_RUNNER (self) && key != NULL && strchr (key, '=') == NULL);
  g_ptr_array_add (self->env, g_strdup_printf ("%s=%s", key, value));
}

void
kubus_runner_set_grace_ms (KubusRunner *self,
                           guint        grace_ms)
{
  g_return_if_fail (KUBUS_IS_RUNNER (self));
  self->grace_ms = grace_ms;
}

void
kubus_runner_set_line_cap (KubusRunner *self,
                           guint        cap)
{
  g_return_if_fail (KUBUS_IS_RUNNER (self) && cap > 0);
  self->line_cap = cap;
}

void
kubus_runner_set_done_func (KubusRunner        *self,
                            KubusRunnerDoneFunc func,
                            gpointer            user_data,
                            GDestroyNotify      destroy)
{
  g_return_if_fail (KUBUS_IS_RUNNER (self));
  if (self->done_destroy != NULL)
    self->done_destroy (self->done_data);
  self->done_func = func;
  self->done_data = user_data;
  self->done_destroy = destroy;
}

const char *
kubus_runner_get_title (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), NULL);
  return self->title;
}

const char *const *
kubus_runner_get_argv (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), NULL);
  return (const char *const *) self->argv;
}

KubusRunnerState
kubus_runner_get_state (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), KUBUS_RUNNER_FAILED);
  return self->state;
}

gboolean
kubus_runner_is_finished (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), TRUE);
  return self->state >= KUBUS_RUNNER_SUCCEEDED;
}

double
kubus_runner_get_progress (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), -1);
  return self->progress;
}

const char *
kubus_runner_get_phase (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), NULL);
  return self->phase;
}

int
kubus_runner_get_exit_status (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), -1);
  return self->exit_status;
}

const char *
kubus_runner_get_message (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), NULL);
  return self->message;
}

GPid
kubus_runner_get_session (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), 0);
  return self->sid;
}

double
kubus_runner_get_duration (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), 0);
  if (self->start_time == 0)
    return 0;
  return ((self->end_time ? self->end_time : g_get_monotonic_time ()) - self->start_time) / 1e6;
}

char *
kubus_runner_dup_log (KubusRunner *self)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (KUBUS_IS_RUNNER (self), NULL);
  for (GList *l = self->lines->head; l != NULL; l = l->next)
    {
      g_string_append (s, l->data);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

char *
kubus_runner_dup_tail (KubusRunner *self,
                       guint        n)
{
  GString *s = g_string_new (NULL);
  GList *l;

  g_return_val_if_fail (KUBUS_IS_RUNNER (self), NULL);
  l = self->lines->tail;
  for (guint i = 1; l != NULL && l->prev != NULL && i < n; i++)
    l = l->prev;
  for (; l != NULL && n > 0; l = l->next)
    {
      g_string_append (s, l->data);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

guint
kubus_runner_get_n_dropped (KubusRunner *self)
{
  g_return_val_if_fail (KUBUS_IS_RUNNER (self), 0);
  return self->n_dropped;
}

/* ---- GObject ------------------------------------------------------------------------------------- */

static void
kubus_runner_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  KubusRunner *self = KUBUS_RUNNER (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_int (value, self->state);
      break;
    case PROP_PROGRESS:
      g_value_set_double (value, self->progress);
      break;
    case PROP_PHASE:
      g_value_set_string (value, self->phase);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
kubus_runner_dispose (GObject *object)
{
  KubusRunner *self = KUBUS_RUNNER (object);

  /* The pending reads and waits hold references: a running runner is not disposed. */
  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_handle_id (&self->grace_id, g_source_remove);
  g_clear_handle_id (&self->poll_id, g_source_remove);
  g_clear_handle_id (&self->eof_id, g_source_remove);
  if (self->done_destroy != NULL)
    self->done_destroy (self->done_data);
  self->done_destroy = NULL;
  self->done_func = NULL;
  g_clear_object (&self->out);
  g_clear_object (&self->process);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (kubus_runner_parent_class)->dispose (object);
}

static void
kubus_runner_finalize (GObject *object)
{
  KubusRunner *self = KUBUS_RUNNER (object);

  g_free (self->title);
  g_strfreev (self->argv);
  g_free (self->cwd);
  g_ptr_array_unref (self->env);
  g_string_free (self->partial, TRUE);
  g_queue_free_full (self->lines, g_free);
  g_string_free (self->batch, TRUE);
  g_free (self->phase);
  g_free (self->message);
  G_OBJECT_CLASS (kubus_runner_parent_class)->finalize (object);
}

static void
kubus_runner_class_init (KubusRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = kubus_runner_get_property;
  object_class->dispose = kubus_runner_dispose;
  object_class->finalize = kubus_runner_finalize;

  props[PROP_STATE] = g_param_spec_int ("state", NULL, NULL, KUBUS_RUNNER_WAITING, KUBUS_RUNNER_CANCELLED,
                                        KUBUS_RUNNER_WAITING,
                                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_PROGRESS] = g_param_spec_double ("progress", NULL, NULL, -1, 1, -1,
                                              G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_PHASE] = g_param_spec_string ("phase", NULL, NULL, NULL,
                                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  /* New complete lines (newline-terminated, valid UTF-8), at most every 100 ms. */
  signals[OUTPUT] = g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                  NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* The run has ended and its session is empty; the state says how. */
  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                    NULL, G_TYPE_NONE, 0);
}

static void
kubus_runner_init (KubusRunner *self)
{
  self->env = g_ptr_array_new_with_free_func (g_free);
  self->grace_ms = 3000;
  self->line_cap = 5000;
  self->progress = -1;
  self->exit_status = -1;
  self->partial = g_string_new (NULL);
  self->lines = g_queue_new ();
  self->batch = g_string_new (NULL);
}
