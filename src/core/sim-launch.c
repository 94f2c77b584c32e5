/* sim-launch.c — kubus-sim's process handling: starting itself under mpirun with one process per
 * traced rank, and making SIMDIR appear all at once. The launching process stays alive while
 * mpirun runs (unlike kubus-analyze, which re-executes itself): it owns the work folder, moves it
 * into place when every rank succeeded and removes it otherwise, also when the ranks were killed.
 * A work folder left by a launcher that was itself killed is removed by the next run.
 *
 * The launcher command and the Open MPI settings are kubus-analyze's (scripts/env.sh). */
#include "sim-private.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

gboolean
sim_in_mpi_launcher (void)
{
  return g_getenv ("OMPI_COMM_WORLD_SIZE") || g_getenv ("PMI_SIZE") || g_getenv ("PMIX_RANK")
         || g_getenv ("PMI_RANK") || g_getenv ("MPI_LOCALNRANKS");
}

char *
sim_workdir_name (const char *simdir,
                  int         pid)
{
  g_autofree char *parent = g_path_get_dirname (simdir);
  g_autofree char *base = g_path_get_basename (simdir);
  g_autofree char *name = g_strdup_printf (".%s.tmp-%d", base, pid);
  return g_build_filename (parent, name, NULL);
}

gboolean
sim_rm_rf (const char *path)
{
  GDir *d;
  const char *name;
  gboolean ok = TRUE;

  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK) || !g_file_test (path, G_FILE_TEST_IS_DIR))
    return g_unlink (path) == 0 || errno == ENOENT;
  d = g_dir_open (path, 0, NULL);
  if (d)
    {
      while ((name = g_dir_read_name (d)))
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          ok &= sim_rm_rf (child);
        }
      g_dir_close (d);
    }
  return g_rmdir (path) == 0 && ok;
}

void
sim_remove_stale_workdirs (const char *simdir)
{
  g_autofree char *parent = g_path_get_dirname (simdir);
  g_autofree char *base = g_path_get_basename (simdir);
  g_autofree char *prefix = g_strdup_printf (".%s.", base);
  GDir *d = g_dir_open (parent, 0, NULL);
  const char *name;

  if (!d)
    return;
  while ((name = g_dir_read_name (d)))
    {
      const char *p;
      char *end = NULL;
      long pid;
      if (!g_str_has_prefix (name, prefix))
        continue;
      p = name + strlen (prefix);
      if (g_str_has_prefix (p, "tmp-"))
        p += 4;
      else if (g_str_has_prefix (p, "old-"))
        p += 4;
      else
        continue;
      pid = strtol (p, &end, 10);
      if (end == p || *end || pid <= 0)
        continue;
      if (kill ((pid_t) pid, 0) != 0 && errno == ESRCH)
        {
          g_autofree char *path = g_build_filename (parent, name, NULL);
          sim_rm_rf (path);
        }
    }
  g_dir_close (d);
}

/* Moves @workdir to @simdir, replacing an older simulation there (renames only). */
gboolean
sim_install (const char  *workdir,
             const char  *simdir,
             GError     **error)
{
  g_autofree char *parent = g_path_get_dirname (simdir);
  g_autofree char *base = g_path_get_basename (simdir);
  g_autofree char *old_name = g_strdup_printf (".%s.old-%d", base, (int) getpid ());
  g_autofree char *old = g_build_filename (parent, old_name, NULL);
  gboolean had_old = g_file_test (simdir, G_FILE_TEST_EXISTS);

  if (had_old && g_rename (simdir, old) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), _("cannot replace %s: %s"), simdir,
                   g_strerror (errno));
      return FALSE;
    }
  if (g_rename (workdir, simdir) != 0)
    {
      int err = errno;
      if (had_old)
        g_rename (old, simdir);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), _("cannot create %s: %s"), simdir,
                   g_strerror (err));
      return FALSE;
    }
  if (had_old)
    sim_rm_rf (old);
  return TRUE;
}

static volatile sig_atomic_t got_signal;
static volatile pid_t child_pid;

static void
on_signal (int sig)
{
  got_signal = sig;
  if (child_pid > 0)
    kill (child_pid, SIGTERM);
}

static void
child_setup (gpointer data G_GNUC_UNUSED)
{
  /* mpirun and its ranks must not outlive a launcher that was killed */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  signal (SIGINT, SIG_DFL);
  signal (SIGTERM, SIG_DFL);
}

/* Runs this program under the MPI launcher with @n_ranks processes writing into @workdir;
 * returns the launcher's exit status (127 if it could not start), −SIGNAL if we were
 * interrupted. */
int
sim_spawn_ranks (SimOptions *opt,
                 int         n_ranks,
                 const char *workdir)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lv = NULL;
  g_auto (GStrv) env = g_get_environ ();
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autoptr (GError) error = NULL;
  struct sigaction sa = { 0 }, old_int, old_term;
  GPid pid;
  int status = 0;
  static const char *defaults[][2] = {
    /* the scripts/env.sh settings: Open MPI as root, 2 cores, shared memory only */
    { "OMPI_ALLOW_RUN_AS_ROOT", "1" },
    { "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1" },
    { "OMPI_MCA_rmaps_base_oversubscribe", "1" },
    { "OMPI_MCA_btl", "self,vader" },
    { "OMPI_MCA_btl_vader_single_copy_mechanism", "none" },
    { "OMPI_MCA_mpi_yield_when_idle", "1" },
    /* hwloc would probe every X display for GPUs; the simulation needs none */
    { "HWLOC_COMPONENTS", "-gl,-opencl" },
  };

  if (!g_shell_parse_argv (opt->launcher ? opt->launcher : "mpirun", NULL, &lv, &error))
    {
      fprintf (stderr, "kubus-sim: --mpirun: %s\n", error->message);
      return 127;
    }
  for (guint i = 0; lv[i]; i++)
    g_ptr_array_add (args, g_strdup (lv[i]));
  g_ptr_array_add (args, g_strdup ("-n"));
  g_ptr_array_add (args, g_strdup_printf ("%d", n_ranks));
  if (!opt->launcher)
    g_ptr_array_add (args, g_strdup ("--oversubscribe"));
  g_ptr_array_add (args, g_strdup (self ? self : opt->argv[0]));
  for (int i = 1; i < opt->argc; i++)
    g_ptr_array_add (args, g_strdup (opt->argv[i]));
  g_ptr_array_add (args, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++)
    if (!g_environ_getenv (env, defaults[i][0]))
      env = g_environ_setenv (env, defaults[i][0], defaults[i][1], TRUE);
  env = g_environ_setenv (env, "KUBUS_SIM_WORKDIR", workdir, TRUE);

  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, &old_int);
  sigaction (SIGTERM, &sa, &old_term);
  if (!g_spawn_async (NULL, (char **) args->pdata, env, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                      child_setup, NULL, &pid, &error))
    {
      fprintf (stderr, _("kubus-sim: cannot start %s: %s (the real-time simulation needs an MPI launcher; "
                         "--offline simulates in one process)\n"),
               (char *) args->pdata[0], error->message);
      sigaction (SIGINT, &old_int, NULL);
      sigaction (SIGTERM, &old_term, NULL);
      return 127;
    }
  child_pid = pid;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      {
        status = 127 << 8;
        break;
      }
  child_pid = 0;
  g_spawn_close_pid (pid);
  sigaction (SIGINT, &old_int, NULL);
  sigaction (SIGTERM, &old_term, NULL);
  if (got_signal)
    return -got_signal;
  if (WIFEXITED (status))
    return WEXITSTATUS (status) ? WEXITSTATUS (status) : 0;
  return 1;
}
