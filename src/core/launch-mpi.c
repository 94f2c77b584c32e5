/* launch-mpi.c — runs a Kubus MPI program under mpirun and keeps the launcher's banners out of
 * what the user reads (see launch-mpi.h).
 *
 * Open MPI prints, after a rank's own message, dash-framed blocks ("Primary job terminated
 * normally, but 1 process returned a non-zero exit code…", "mpirun detected that one or more
 * processes exited with non-zero status…", "MPI_ABORT was invoked on rank 0…", "mpirun noticed
 * that process rank 1 … exited on signal 11"). They repeat, in the launcher's words, what the
 * program has already said. `mpirun -q` would hide them too, but also hides the blocks that
 * explain why nothing could start (no such program, not enough slots) and exists only in Open
 * MPI; filtering exactly the blocks that follow a rank's exit works for both and for a user's
 * own launcher. */
#include "launch-mpi.h"
#include "kubus-forward-signals.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

gboolean
launch_mpi_in_launcher (void)
{
  return g_getenv ("OMPI_COMM_WORLD_SIZE") || g_getenv ("PMI_SIZE") || g_getenv ("PMIX_RANK")
         || g_getenv ("PMI_RANK") || g_getenv ("MPI_LOCALNRANKS");
}

/* The rank count a launcher command line gives itself (-n N, -np N, --np N, -c N, --n=N), or
 * 0; -1 when one of them has no number. */
static int
given_ranks (char **words)
{
  static const char *const opts[] = { "-n", "-np", "--np", "-c", "--n", NULL };
  for (guint i = 1; words[i]; i++)
    for (guint k = 0; opts[k]; k++)
      {
        const char *v = NULL;
        gsize l = strlen (opts[k]);
        if (strcmp (words[i], opts[k]) == 0)
          v = words[i + 1];
        else if (strncmp (words[i], opts[k], l) == 0 && words[i][l] == '=')
          v = words[i] + l + 1;
        else
          continue;
        {
          char *end = NULL;
          long n = v ? strtol (v, &end, 10) : 0;
          return v && end != v && *end == '\0' && n > 0 && n < G_MAXINT ? (int) n : -1;
        }
      }
  return 0;
}

char **
launch_mpi_build_argv (const LaunchMpi *lm,
                       GError         **error)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lv = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  int given;

  g_return_val_if_fail (lm && lm->argv && lm->argv[0] && lm->n_ranks > 0, NULL);

  if (lm->launcher_argv && lm->launcher_argv[0])
    lv = g_strdupv ((char **) lm->launcher_argv);
  else if (!g_shell_parse_argv (lm->launcher ? lm->launcher : "mpirun", NULL, &lv, error))
    return NULL;
  given = given_ranks (lv);
  if (given != 0 && given != lm->n_ranks)
    {
      g_set_error (error, G_SHELL_ERROR, G_SHELL_ERROR_FAILED,
                   _("the launcher command starts %d processes, but the trace has %d ranks: leave -n out "
                     "(it is added) or give -n %d"), given, lm->n_ranks, lm->n_ranks);
      return NULL;
    }
  for (guint i = 0; lv[i]; i++)
    g_ptr_array_add (args, g_strdup (lv[i]));
  if (given == 0)
    {
      g_ptr_array_add (args, g_strdup ("-n"));
      g_ptr_array_add (args, g_strdup_printf ("%d", lm->n_ranks));
    }
  if (!lm->launcher && !lm->launcher_argv)
    g_ptr_array_add (args, g_strdup ("--oversubscribe"));
  g_ptr_array_add (args, g_strdup (self ? self : lm->argv[0]));
  for (guint i = 1; lm->argv[i]; i++)
    g_ptr_array_add (args, g_strdup (lm->argv[i]));
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&args), FALSE);
}

/* ---- the standard error filter */

/* A block longer than this is not a launcher banner: pass it on. */
#define BANNER_MAX_LINES 40

struct _LaunchMpiFilter
{
  GString *line;      /* the unterminated end of what was fed */
  GString *block;     /* a dash-framed block being collected; NULL outside one */
  guint    block_lines;
  int      signal_rank;
  int      signal_number;
};

LaunchMpiFilter *
launch_mpi_filter_new (void)
{
  LaunchMpiFilter *f = g_new0 (LaunchMpiFilter, 1);
  f->line = g_string_new (NULL);
  f->signal_rank = -1;
  return f;
}

void
launch_mpi_filter_free (LaunchMpiFilter *f)
{
  if (!f)
    return;
  g_string_free (f->line, TRUE);
  if (f->block)
    g_string_free (f->block, TRUE);
  g_free (f);
}

static gboolean
is_separator (const char *line)
{
  gsize n = strspn (line, "-");
  return n >= 20 && (line[n] == '\n' || line[n] == '\0' || (line[n] == '\r' && line[n + 1] == '\n'));
}

/* The blocks Open MPI (mpirun 4, prterun 5) adds when a rank exits non-zero, aborts or dies. */
static gboolean
is_exit_banner (LaunchMpiFilter *f,
                const char      *block)
{
  const char *s;

  if ((s = strstr (block, "noticed that process rank ")))
    {
      int rank = -1, sig = -1;
      const char *on = strstr (s, "on signal ");
      if (sscanf (s, "noticed that process rank %d", &rank) == 1 && on
          && sscanf (on, "on signal %d", &sig) == 1)
        {
          f->signal_rank = rank;
          f->signal_number = sig;
        }
      return TRUE;
    }
  return (strstr (block, "Primary job") && strstr (block, "terminated normally"))
         || strstr (block, "detected that one or more processes exited with non-zero status")
         || strstr (block, "MPI_ABORT was invoked on rank");
}

static void
end_block (LaunchMpiFilter *f,
           GString         *out,
           gboolean         complete)
{
  if (!complete || !is_exit_banner (f, f->block->str))
    g_string_append_len (out, f->block->str, f->block->len);
  g_string_free (g_steal_pointer (&f->block), TRUE);
  f->block_lines = 0;
}

/* Open MPI 4.1 loses the MPI_ABORT banner in a race with the aborting rank and logs its own
 * failure to unpack it instead ("[host:pid] [[job,0],0] ORTE_ERROR_LOG: Data unpack would read
 * past end of buffer in file …/show_help.c at line 513", or "…had inadequate space…"): the same
 * banner, in worse words. */
static gboolean
is_lost_banner (const char *line)
{
  return strstr (line, "ORTE_ERROR_LOG: ") && strstr (line, "show_help.c");
}

static void
take_line (LaunchMpiFilter *f,
           const char      *line,
           GString         *out)
{
  if (!f->block)
    {
      if (is_lost_banner (line))
        return;
      if (is_separator (line))
        {
          f->block = g_string_new (line);
          f->block_lines = 1;
        }
      else
        g_string_append (out, line);
      return;
    }
  g_string_append (f->block, line);
  f->block_lines++;
  if (is_separator (line))
    end_block (f, out, TRUE);
  else if (f->block_lines > BANNER_MAX_LINES)
    end_block (f, out, FALSE);
}

void
launch_mpi_filter_feed (LaunchMpiFilter *f,
                        const char      *data,
                        gsize            len,
                        GString         *out)
{
  const char *end = data + len;

  while (data < end)
    {
      const char *nl = memchr (data, '\n', end - data);
      if (!nl)
        {
          g_string_append_len (f->line, data, end - data);
          return;
        }
      g_string_append_len (f->line, data, nl + 1 - data);
      take_line (f, f->line->str, out);
      g_string_truncate (f->line, 0);
      data = nl + 1;
    }
}

int
launch_mpi_filter_finish (LaunchMpiFilter *f,
                          GString         *out)
{
  if (f->line->len)
    {
      take_line (f, f->line->str, out);
      g_string_truncate (f->line, 0);
    }
  if (f->block)
    end_block (f, out, FALSE);
  return f->signal_rank;
}

/* ---- running the launcher */

static gboolean
write_all (int         fd,
           const char *s,
           gsize       n)
{
  while (n > 0)
    {
      ssize_t w = write (fd, s, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return FALSE;
      s += w;
      n -= (gsize) w;
    }
  return TRUE;
}

int
launch_mpi_run (const LaunchMpi *lm,
                GError         **error)
{
  static const char *const defaults[][2] = {
    /* the scripts/env.sh settings: Open MPI as root, few cores, shared memory only */
    { "OMPI_ALLOW_RUN_AS_ROOT", "1" },
    { "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1" },
    { "OMPI_MCA_rmaps_base_oversubscribe", "1" },
    { "OMPI_MCA_btl", "self,vader" },
    { "OMPI_MCA_btl_vader_single_copy_mechanism", "none" },
    { "OMPI_MCA_mpi_yield_when_idle", "1" },
    /* hwloc would probe every local X display for GPUs; an X server that goes away meanwhile
     * makes Xlib exit the launcher. Kubus's MPI programs need no GPU information. */
    { "HWLOC_COMPONENTS", "-gl,-opencl" },
  };
  g_auto (GStrv) argv = NULL;
  g_auto (GStrv) envp = g_get_environ ();
  g_autoptr (GError) spawn_error = NULL;
  g_autoptr (LaunchMpiFilter) filter = launch_mpi_filter_new ();
  g_autoptr (GString) out = g_string_new (NULL);
  KubusForward fw;
  GPid pid;
  int err_fd = -1, status = 0, rank, stop_signal;
  char buf[4096];

  argv = launch_mpi_build_argv (lm, error);
  if (!argv)
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++)
    envp = g_environ_setenv (envp, defaults[i][0], defaults[i][1], FALSE);
  for (guint i = 0; lm->env && lm->env[i]; i++)
    {
      const char *eq = strchr (lm->env[i], '=');
      g_autofree char *key = eq ? g_strndup (lm->env[i], eq - lm->env[i]) : NULL;
      if (key)
        envp = g_environ_setenv (envp, key, eq + 1, TRUE);
    }

  fflush (stdout);
  fflush (stderr);
  /* the stop signals are blocked from before the launcher starts until they are passed on, so
   * that one sent meanwhile (the browser's Cancel, as the launcher starts) reaches the launcher
   * instead of ending this process before it cleans up */
  kubus_forward_block (&fw);
  /* ranks that outlive the launcher (a second signal, the process group's, makes mpirun exit
   * without waiting for them) come to this process, which waits for them below */
  kubus_forward_adopt_orphans ();
  if (!g_spawn_async_with_pipes (NULL, argv, envp,
                                 G_SPAWN_SEARCH_PATH_FROM_ENVP | G_SPAWN_DO_NOT_REAP_CHILD
                                 | G_SPAWN_CHILD_INHERITS_STDIN,
                                 kubus_forward_child_setup, NULL, &pid, NULL, NULL, &err_fd,
                                 &spawn_error))
    {
      kubus_forward_unblock (&fw);
      g_set_error (error, G_SPAWN_ERROR, spawn_error->code, _("cannot start %s: %s"), argv[0],
                   spawn_error->message);
      return -1;
    }

  kubus_forward_start (&fw, pid);

  for (;;)
    {
      ssize_t n = read (err_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      launch_mpi_filter_feed (filter, buf, (gsize) n, out);
      write_all (STDERR_FILENO, out->str, out->len);
      g_string_truncate (out, 0);
    }
  close (err_fd);
  rank = launch_mpi_filter_finish (filter, out);
  write_all (STDERR_FILENO, out->str, out->len);

  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  /* blocked again while the old handlers come back; then as the caller had them (a caller that
   * blocked them cleans up before one it was sent ends it) */
  stop_signal = kubus_forward_stop (&fw);
  if (stop_signal != 0)
    {
      /* stopped: no rank may run on (or write) after this process has cleaned up */
      int killed = kubus_forward_reap_orphans (10000);
      if (killed > 0)
        fprintf (stderr, g_dngettext (GETTEXT_PACKAGE, "%s: killed %d process that %s left running\n",
                                      "%s: killed %d processes that %s left running\n", killed),
                 g_get_prgname () ? g_get_prgname () : "kubus", killed, argv[0]);
    }
  kubus_forward_unblock (&fw);
  g_spawn_close_pid (pid);

  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  status = WEXITSTATUS (status);
  if (status != 0 && rank >= 0)
    {
      fprintf (stderr, _("%s: MPI rank %d stopped on signal %d (%s)\n"), lm->program, rank,
               filter->signal_number, g_strsignal (filter->signal_number));
    }
  return status;
}
