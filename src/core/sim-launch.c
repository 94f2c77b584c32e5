/* sim-launch.c — kubus-sim's process handling: starting itself under mpirun with one process per
 * traced rank (launch-mpi.c, shared with kubus-analyze), and making SIMDIR appear all at once.
 * The launching process stays alive while mpirun runs: it owns the work folder, moves it into
 * place when every rank succeeded and removes it otherwise, also when the ranks were killed or
 * the user interrupted. A work folder left by a launcher that was itself killed is removed by
 * the next run. */
#include "sim-private.h"
#include "remove-tree.h"
#include "launch-mpi.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *
sim_workdir_name (const char *simdir,
                  int         pid)
{
  g_autofree char *parent = g_path_get_dirname (simdir);
  g_autofree char *base = g_path_get_basename (simdir);
  g_autofree char *name = g_strdup_printf (".%s.tmp-%d", base, pid);
  return g_build_filename (parent, name, NULL);
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
          kubus_remove_tree (path);
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
    kubus_remove_tree (old);
  return TRUE;
}

/* Runs this program under the MPI launcher (launch-mpi.c) with @n_ranks processes writing into
 * @workdir; returns the exit status for main(): 0, the ranks' status, 128 + N after signal N;
 * 127 if the launcher could not be started. */
int
sim_spawn_ranks (SimOptions *opt,
                 int         n_ranks,
                 const char *workdir)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *env_workdir = g_strdup_printf ("KUBUS_SIM_WORKDIR=%s", workdir);
  g_autofree char *env_cpus = g_strdup_printf ("KUBUS_SIM_CPUS=%u", sim_local_cpus ());
  const char *env[] = { env_workdir, env_cpus, NULL };
  LaunchMpi lm = { 0 };
  int status;

  lm.program = "kubus-sim";
  lm.launcher = opt->launcher;
  lm.launcher_argv = (const char *const *) opt->launcher_argv;
  lm.n_ranks = n_ranks;
  lm.argv = (const char *const *) opt->argv;
  lm.env = env;
  status = launch_mpi_run (&lm, &error);
  if (status < 0)
    {
      fprintf (stderr, _("kubus-sim: %s (the real-time simulation needs an MPI launcher; --offline "
                         "simulates in one process)\n"), error->message);
      return 127;
    }
  return status;
}
