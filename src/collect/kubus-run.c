/* kubus-run: run an MPI program under the Kubus collector.
 *
 *   kubus-run [-o EXPDIR] [--force] [--filter FILE] [--buffer SIZE] [-v] [--no-trace]
 *             -- mpirun [mpirun options] PROGRAM [ARGS]
 *
 * Adds "-x LD_PRELOAD=libkubus-collect.so -x KUBUS_…" right after mpirun,
 * runs it, and leaves EXPDIR with traces.otf2, profile.cube and kubus.json (--no-trace:
 * profile.cube and kubus.json).  Exits with
 * the application's exit status (128 + signal when it was killed).
 */
#include <errno.h>
#include <glib.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect-size.h"
#include "kubus-text-gstring.h"
#include "kubus-program.h"
#include "kubus-run-handover.h"
#include "kubus-run-profile.h"
#include "kubus-run-repair.h"
#include "kubus-run-kct.h"
#include "kubus-forward-signals.h"

typedef struct
{
  const char *expdir;
  gboolean    force;
  const char *filter;
  const char *buffer;
  gboolean    verbose;
  gboolean    no_trace;
  const char *trace_format; /* otf2 (NULL), compressed, both */
  const char *call_paths;   /* unwind (NULL), flat */
  const char *depth;        /* --call-path-depth */
} Options;

static void
usage (FILE *out)
{
  fprintf (out, "%s",
           _ ("Usage: kubus-run [-o EXPDIR] [--force] [--filter FILE] "
              "[--buffer SIZE] [-v] -- mpirun [mpirun options] PROGRAM [ARGS]\n"
              "\n"
              "  -o EXPDIR       experiment directory "
              "(default kubus_<program>_<ranks>)\n"
              "  --force         overwrite an existing experiment\n"
              "  --filter FILE   EXCLUDE/INCLUDE glob lines for instrumented "
              "functions\n"
              "  --buffer SIZE   trace buffer per rank, e.g. 16M (default 64M)\n"
              "  -v, --verbose   let the collector report what it does\n"));
  fprintf (out, "%s",
           _ ("  --no-trace      no trace: only the profile (profile.cube) and kubus.json\n"));
  kubus_program_print_common_options (out);
  fprintf (out, "%s",
           _ ("  --trace-format otf2|compressed|both\n"
              "                  OTF2 (default), a compressed trace (traces.kct), or both\n"));
  fprintf (out, "%s",
           _ ("  --call-paths unwind|flat\n"
              "                  call paths from the program's stack at each MPI call (default),\n"
              "                  or MPI calls directly under the program (and user regions)\n"
              "  --call-path-depth N\n"
              "                  keep the N outermost functions of a stack (default 128)\n"));
}

/* mpirun options that take a value (Open MPI 4); the first argument that is
 * neither an option nor an option's value is the program. */
static int
option_values (const char *opt)
{
  static const char *one[] = { "-n",
                               "--n",
                               "-np",
                               "--np",
                               "-c",
                               "-x",
                               "-H",
                               "--host",
                               "-host",
                               "-hostfile",
                               "--hostfile",
                               "-machinefile",
                               "--machinefile",
                               "--default-hostfile",
                               "--map-by",
                               "-map-by",
                               "--rank-by",
                               "-rank-by",
                               "--bind-to",
                               "-bind-to",
                               "-wdir",
                               "--wdir",
                               "-wd",
                               "--wd",
                               "-path",
                               "--path",
                               "--prefix",
                               "-N",
                               "--npernode",
                               "-npernode",
                               "--npersocket",
                               "-npersocket",
                               "--app",
                               "-am",
                               "--am",
                               "--tune",
                               "--output-filename",
                               "-output-filename",
                               "--timeout",
                               "--cpus-per-proc",
                               "--cpus-per-rank",
                               "--report-uri",
                               "--ompi-server",
                               "--rankfile",
                               "-rf",
                               "--stdin",
                               "--preload-files",
                               "--xml-file",
                               "--launch-agent",
                               "--personality",
                               "-s",
                               NULL };
  static const char *two[] = { "-mca", "--mca", "-gmca", "--gmca", NULL };
  for (int i = 0; two[i]; i++)
    if (strcmp (opt, two[i]) == 0)
      return 2;
  if (strchr (opt, '=') != NULL)
    return 0;
  for (int i = 0; one[i]; i++)
    if (strcmp (opt, one[i]) == 0)
      return 1;
  return 0;
}

static gboolean
is_mpi_launcher (const char *cmd)
{
  g_autofree char *base = g_path_get_basename (cmd);
  return g_str_equal (base, "mpirun") || g_str_equal (base, "mpiexec")
         || g_str_equal (base, "orterun") || g_str_has_prefix (base, "mpirun.")
         || g_str_has_prefix (base, "mpiexec.");
}

/* Finds PROGRAM and the rank count of one application context of an mpirun
 * command line, its options starting at cmd[start]. */
static int
find_program_from (char **cmd, int start, int *ranks)
{
  *ranks = 0;
  for (int i = start; cmd[i] != NULL; i++)
    {
      const char *a = cmd[i];
      if (strcmp (a, "--") == 0)
        return cmd[i + 1] ? i + 1 : -1;
      if (a[0] != '-')
        return i;
      const char *eq = strchr (a, '=');
      if ((g_str_has_prefix (a, "--np=") || g_str_has_prefix (a, "-np=")
           || g_str_has_prefix (a, "-n=") || g_str_has_prefix (a, "--n="))
          && eq)
        *ranks = atoi (eq + 1);
      int nv = option_values (a);
      if (nv > 0 && cmd[i + 1] != NULL
          && (strcmp (a, "-n") == 0 || strcmp (a, "--n") == 0 || strcmp (a, "-np") == 0
              || strcmp (a, "--np") == 0 || strcmp (a, "-c") == 0))
        *ranks = atoi (cmd[i + 1]);
      i += nv;
    }
  return -1;
}

/* Finds PROGRAM and the rank count in "mpirun … PROGRAM ARGS", also in an MPMD
 * command line "mpirun -n 2 a : -n 2 b" (ranks summed; *others set to the index of
 * every further program, *seps to the index of every ':' between contexts, both -1
 * terminated; the caller frees them).  Returns -1 when a context names no program. */
static int
find_program (char **cmd, int *ranks, int **others, int **seps)
{
  *ranks = 0;
  *others = g_new0 (int, 1);
  (*others)[0] = -1;
  *seps = g_new0 (int, 1);
  (*seps)[0] = -1;
  if (!is_mpi_launcher (cmd[0]))
    {
      *ranks = 1;
      return 0;
    }
  int first = -1, n_others = 0, unknown = 0;
  for (int start = 1;;)
    {
      int r = 0, p = find_program_from (cmd, start, &r);
      if (p < 0)
        return -1;
      if (r <= 0)
        unknown = 1;
      *ranks += r;
      if (first < 0)
        first = p;
      else
        {
          *others = g_renew (int, *others, n_others + 2);
          (*others)[n_others++] = p;
          (*others)[n_others] = -1;
        }
      int next = p + 1;
      while (cmd[next] != NULL && strcmp (cmd[next], ":") != 0)
        next++;
      if (cmd[next] == NULL)
        break;
      *seps = g_renew (int, *seps, n_others + 2);
      (*seps)[n_others] = next;
      (*seps)[n_others + 1] = -1;
      start = next + 1;
    }
  if (unknown)
    *ranks = 0; /* some context takes every slot: let the caller guess */
  return first;
}

static char *
find_library (const char *argv0)
{
  const char *env = g_getenv ("KUBUS_COLLECT_LIB");
  if (env != NULL && env[0] != '\0')
    return g_canonicalize_filename (env, NULL);
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  if (self == NULL)
    self = g_canonicalize_filename (argv0, NULL);
  g_autofree char *dir = g_path_get_dirname (self);
  const char      *candidates[] = {
         "%s/" KUBUS_COLLECT_LIBNAME, /* build tree */
         "%s/../lib/" MULTIARCH "/" KUBUS_COLLECT_LIBNAME,
         "%s/../lib64/" KUBUS_COLLECT_LIBNAME,
         "%s/../lib/" KUBUS_COLLECT_LIBNAME,
  };
  for (size_t i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *p = g_strdup_printf (candidates[i], dir);
      if (g_file_test (p, G_FILE_TEST_EXISTS))
        return g_canonicalize_filename (p, NULL);
    }
  g_autofree char *baked = g_build_filename (KUBUS_COLLECT_LIBDIR, KUBUS_COLLECT_LIBNAME, NULL);
  if (g_file_test (baked, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&baked);
  return NULL;
}

/* "clock": how the collector handled time (its .kubus-clock); nothing when the run never got
 * that far. */
static void
append_clock (GString    *s,
              const char *expdir)
{
  g_autofree char *file = g_build_filename (expdir, ".kubus-clock", NULL);
  g_autofree char *text = NULL;
  if (g_file_get_contents (file, &text, NULL, NULL))
    kubus_run_clock_json (s, text);
}

static gboolean any_incomplete_rank (const char *expdir);

/* The files of the experiment in kubus.json: while the program runs and until the files are
 * complete, the ones it will have; at the end (@final) only those that exist, and under
 * "not_written" why each missing one is missing (readers say so: experiment-files.c), not a
 * trace that is not there (HDF5's lost compressed trace, second sweep of 2026-11-29). */
static void
append_outputs (GString       *s,
                const char    *expdir,
                const Options *o,
                gboolean       final)
{
  gboolean compressed = o->trace_format && strcmp (o->trace_format, "compressed") == 0;
  gboolean both = o->trace_format && strcmp (o->trace_format, "both") == 0;
  const char *profile_env = g_getenv ("KUBUS_PROFILE");
  gboolean profile_off = profile_env != NULL && strcmp (profile_env, "0") == 0;
  const char *files[3] = { o->no_trace ? NULL : compressed ? "traces.kct" : "traces.otf2",
                           !o->no_trace && both ? "traces.kct" : NULL, "profile.cube" };
  const char *keys[3] = { "trace", "compressed_trace", "profile" };
  const char *missing[3] = { NULL, NULL, NULL };

  for (int i = 0; i < 3; i++)
    {
      if (i == 1 && files[1] == NULL)
        continue;
      g_string_append_printf (s, i ? ",\n  \"%s\": " : "  \"%s\": ", keys[i]);
      g_autofree char *path = files[i] ? g_build_filename (expdir, files[i], NULL) : NULL;
      if (files[i] != NULL && (!final || g_file_test (path, G_FILE_TEST_EXISTS)))
        kubus_text_append_json (s, files[i]);
      else
        {
          g_string_append (s, "null");
          missing[i] = files[i];
        }
    }
  if (missing[0] || missing[1] || missing[2])
    {
      gboolean incomplete = any_incomplete_rank (expdir);
      int k = 0;

      g_string_append (s, ",\n  \"not_written\": {");
      for (int i = 0; i < 3; i++)
        if (missing[i] != NULL)
          {
            g_string_append (s, k++ ? ", " : "");
            kubus_text_append_json (s, missing[i]);
            g_string_append (s, ": ");
            kubus_text_append_json (s, i == 2 && profile_off ? "disabled"
                                       : incomplete          ? "collector-incomplete"
                                                             : "not-written");
          }
      g_string_append (s, "}");
    }
  g_string_append (s, "\n}\n");
}

/* kubus.json up to its files (append_outputs), kept for its rewrite once the files are done:
 * the hand-over files it reads (hosts, clock) are gone by then. */
static char *
json_head (const char    *expdir,
           char         **cmd,
           const char    *program,
           int            ranks,
           const char    *start,
           const char    *end,
           int            status,
           const Options *o)
{
  GString *s = g_string_new ("{\n  \"kubus_version\": ");
  kubus_text_append_json (s, KUBUS_VERSION);
  g_string_append (s, ",\n  \"command\": [");
  for (int i = 0; cmd[i]; i++)
    {
      if (i)
        g_string_append (s, ", ");
      kubus_text_append_json (s, cmd[i]);
    }
  g_string_append (s, "],\n  \"program\": ");
  kubus_text_append_json (s, program);
  g_string_append_printf (s, ",\n  \"ranks\": %d,\n  \"hosts\": [", ranks);
  g_autofree char *hosts_file = g_build_filename (expdir, ".kubus-hosts", NULL);
  g_autofree char *hosts = NULL;
  if (g_file_get_contents (hosts_file, &hosts, NULL, NULL))
    {
      g_auto (GStrv) lines = g_strsplit (hosts, "\n", -1);
      int k = 0;
      for (int i = 0; lines[i]; i++)
        if (lines[i][0] != '\0')
          {
            if (k++)
              g_string_append (s, ", ");
            kubus_text_append_json (s, lines[i]);
          }
    }
  g_string_append (s, "],\n");
  append_clock (s, expdir);
  g_string_append (s, "  \"start_time\": ");
  kubus_text_append_json (s, start);
  if (end != NULL)
    {
      g_string_append (s, ",\n  \"end_time\": ");
      kubus_text_append_json (s, end);
      g_string_append_printf (s, ",\n  \"exit_status\": %d", status);
    }
  g_string_append (s, ",\n  \"options\": {\"buffer\": ");
  kubus_text_append_json (s, o->buffer ? o->buffer : "64M");
  g_string_append (s, ", \"filter\": ");
  if (o->filter)
    kubus_text_append_json (s, o->filter);
  else
    g_string_append (s, "null");
  g_string_append_printf (s, ", \"force\": %s, \"verbose\": %s, \"no_trace\": %s",
                          o->force ? "true" : "false", o->verbose ? "true" : "false",
                          o->no_trace ? "true" : "false");
  g_string_append (s, ", \"trace_format\": ");
  kubus_text_append_json (s, o->trace_format ? o->trace_format : "otf2");
  g_string_append (s, ", \"call_paths\": ");
  kubus_text_append_json (s, o->call_paths ? o->call_paths
                              : g_getenv ("KUBUS_CALL_PATHS") && g_str_equal (g_getenv ("KUBUS_CALL_PATHS"), "flat")
                                  ? "flat"
                                  : "unwind");
  g_string_append (s, "},\n");
  return g_string_free (s, FALSE);
}

static gboolean
write_json_outputs (const char    *expdir,
                    const char    *head,
                    const Options *o,
                    gboolean       final,
                    GError       **error)
{
  g_autoptr (GString) s = g_string_new (head);
  append_outputs (s, expdir, o, final);
  g_autofree char *path = g_build_filename (expdir, "kubus.json", NULL);
  return g_file_set_contents (path, s->str, (gssize)s->len, error);
}

static gboolean
write_json (const char    *expdir,
            char         **cmd,
            const char    *program,
            int            ranks,
            const char    *start,
            const char    *end,
            int            status,
            const Options *o,
            char         **head_out,
            GError       **error)
{
  g_autofree char *head = json_head (expdir, cmd, program, ranks, start, end, status, o);
  gboolean ok = write_json_outputs (expdir, head, o, FALSE, error);
  if (head_out != NULL)
    *head_out = g_steal_pointer (&head);
  return ok;
}

static gboolean
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
      const char *name;
      while (d && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      return g_rmdir (path) == 0;
    }
  return g_remove (path) == 0 || errno == ENOENT;
}

/* MPI calls of other threads that the collector did not trace (MPI_THREAD_MULTIPLE; its
 * .kubus-threads, docs/decisions/2026-11-29-threads.md) */
static void
report_untraced_threads (const char *expdir,
                         const char *name)
{
  g_autofree char *file = g_build_filename (expdir, name, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  int level = -1;
  if (!g_file_get_contents (file, &text, NULL, NULL))
    return;
  if (!kubus_run_parse_threads (text, &level, counts) || counts->len == 0)
    {
      fprintf (stderr, _ ("kubus-run: %s: not the collector's count of other threads' calls, "
                          "ignored\n"),
               file);
      return;
    }
  guint64 total = 0;
  g_autoptr (GString) list = g_string_new (NULL);
  for (guint i = 0; i < counts->len; i += 2)
    {
      guint64 r = g_array_index (counts, guint64, i), c = g_array_index (counts, guint64, i + 1);
      total += c;
      if (i / 2 < 8)
        {
          if (i)
            g_string_append (list, ", ");
          /* TRANSLATORS: a rank and its number of MPI calls */
          g_string_append_printf (list, _ ("rank %llu: %llu"), (unsigned long long)r,
                                  (unsigned long long)c);
        }
      else if (i / 2 == 8)
        g_string_append (list, ", …");
    }
  static const char *levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                  "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
  /* TRANSLATORS: the count of calls; the thread level MPI provided (MPI_THREAD_MULTIPLE);
   * "rank: calls" pairs */
  fprintf (stderr,
           g_dngettext (GETTEXT_PACKAGE,
                        "kubus-run: %llu MPI call came from another thread than "
                        "MPI_Init's and is not in the trace (%s; %s)\n",
                        "kubus-run: %llu MPI calls came from other threads than "
                        "MPI_Init's and are not in the trace (%s; %s)\n",
                        (gulong)MIN (total, G_MAXULONG)),
           (unsigned long long)total, levels[level], list->str);
}

/* --force: remove what an earlier Kubus run left, nothing else. */
static void
clear_experiment (const char *expdir)
{
  static const char *ours[] = { "traces.kct",
                                "traces.otf2",
                                "traces.def",
                                "traces",
                                "kubus.json",
                                "profile.cube",
                                "analysis.cube",
                                "analysis.stats.json",
                                ".kubus-hosts",
                                ".kubus-clock",
                                ".kubus-threads",
                                ".kubus-abort-definitions",
                                ".kubus-profile",
                                ".kubus-profile-records",
                                NULL };
  for (int i = 0; ours[i]; i++)
    {
      g_autofree char *p = g_build_filename (expdir, ours[i], NULL);
      remove_tree (p);
    }
  /* hand-over files of an earlier run that ended badly (kubus-run killed before it cleaned up) */
  kubus_run_remove_prefixed (expdir, ".kubus-kct-");
  kubus_run_remove_prefixed (expdir, ".kubus-span-");
  kubus_run_remove_prefixed (expdir, ".kubus-saved-");
}

/* A measurement stopped by SIGINT, SIGTERM or SIGHUP (passed on to mpirun, which ended the
 * ranks; their collectors saved what they had as at an abort): nothing of it may pass for an
 * experiment. Removes what this run and the collector wrote (as --force does, and every hand-over
 * file), and the folder itself when this run created it and nothing else is in it. Returns the
 * exit status, 128 + the signal. */
static int
remove_stopped (const char *expdir,
                gboolean    created,
                const char *launcher,
                int         sig,
                gboolean    passed_on)
{
  g_autoptr (GDir) d = NULL;
  const char *name;
  gboolean removed_folder = FALSE;

  clear_experiment (expdir);
  d = g_dir_open (expdir, 0, NULL);
  while (d && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, ".kubus-"))
      {
        g_autofree char *p = g_build_filename (expdir, name, NULL);
        remove_tree (p);
      }
  g_clear_pointer (&d, g_dir_close);
  if (created)
    removed_folder = g_rmdir (expdir) == 0;
  if (passed_on)
    fprintf (stderr, _ ("kubus-run: stopped by signal %d (%s), passed on to %s: the measurement is "
                        "incomplete\n"),
             sig, g_strsignal (sig), launcher);
  else
    fprintf (stderr, _ ("kubus-run: stopped by signal %d (%s) after %s ended, while finishing the "
                        "experiment: the measurement is incomplete\n"),
             sig, g_strsignal (sig), launcher);
  if (removed_folder)
    fprintf (stderr, _ ("kubus-run: removed the experiment directory '%s'\n"), expdir);
  else
    fprintf (stderr, _ ("kubus-run: removed the measurement's files from '%s'\n"), expdir);
  return 128 + sig;
}

/* After the run: a stop signal noted while kubus-run mends and names the trace ends the run at
 * the next step, with the same clean-up. Returns 0 to go on, else the exit status. */
static int
stopped_after_run (KubusForward *fw,
                   const char   *expdir,
                   gboolean      created,
                   const char   *launcher)
{
  int sig = kubus_forward_received ();
  if (sig == 0)
    return 0;
  kubus_forward_stop (fw);
  return remove_stopped (expdir, created, launcher, sig, FALSE);
}

/* The collector reads the filter file inside every rank and cannot
 * complain there; check it here, where a message can be shown. */
static gboolean
check_filter (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (int i = 0; lines[i]; i++)
    {
      g_autofree char *line = g_strstrip (g_strdup (lines[i]));
      if (line[0] == '\0' || line[0] == '#')
        continue;
      g_auto (GStrv) words = g_strsplit_set (line, " \t", -1);
      int         n = 0;
      const char *w[3] = { NULL, NULL, NULL };
      for (int k = 0; words[k]; k++)
        if (words[k][0] != '\0' && n < 3)
          w[n++] = words[k];
      if (n != 2
          || (g_ascii_strcasecmp (w[0], "EXCLUDE") != 0
              && g_ascii_strcasecmp (w[0], "INCLUDE") != 0))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       _ ("%s:%d: expected 'EXCLUDE pattern' or 'INCLUDE "
                          "pattern', found '%s'"),
                       path, i + 1, line);
          return FALSE;
        }
      if (strlen (w[1]) > 255)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       _ ("%s:%d: pattern longer than 255 characters"), path, i + 1);
          return FALSE;
        }
    }
  return TRUE;
}

static char *
now_iso (void)
{
  g_autoptr (GDateTime) t = g_date_time_new_now_utc ();
  return g_date_time_format_iso8601 (t);
}

/* The ranks whose collector left EXPDIR/.kubus-incomplete-RANK: each named on stderr with its
 * reason, the files removed. Returns how many. */
static int
report_incomplete_ranks (const char *expdir)
{
  g_autoptr (GDir) d = g_dir_open (expdir, 0, NULL);
  const char *name;
  int n = 0;
  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      if (!g_str_has_prefix (name, ".kubus-incomplete-"))
        continue;
      g_autofree char *p = g_build_filename (expdir, name, NULL);
      g_autofree char *why = NULL;
      g_auto (GStrv) lines = NULL;
      if (g_file_get_contents (p, &why, NULL, NULL))
        lines = g_strsplit (g_strchomp (why), "\n", -1);
      const char *rank = name + strlen (".kubus-incomplete-");
      if (lines == NULL || lines[0] == NULL || lines[0][0] == '\0')
        fprintf (stderr, _ ("kubus-run: rank %s: %s\n"), rank, _ ("the collector failed"));
      for (guint k = 0; lines != NULL && lines[k] != NULL; k++)
        if (lines[k][0] != '\0')
          fprintf (stderr, _ ("kubus-run: rank %s: %s\n"), rank, lines[k]);
      g_remove (p);
      n++;
    }
  return n;
}

/* Whether a rank's collector said its measurement is incomplete (report_incomplete_ranks has
 * not yet reported and removed the notes). */
static gboolean
any_incomplete_rank (const char *expdir)
{
  g_autoptr (GDir) d = g_dir_open (expdir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, ".kubus-incomplete-"))
      return TRUE;
  return FALSE;
}

/* Whether the experiment holds anything measured: a trace (either format) or a profile. */
static gboolean
measured_anything (const char *expdir)
{
  static const char *const names[] = { "traces.otf2", "traces.kct", "profile.cube" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (expdir, names[i], NULL);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        return TRUE;
    }
  return FALSE;
}

/* Whether @program is linked with an MPI library, as ldd sees it: 1 yes, 0 no, -1 unknown (a
 * script, a static program, no ldd). */
static int
links_mpi (const char *program)
{
  const char *argv[] = { "ldd", program, NULL };
  g_autofree char *out = NULL;
  int wait_status = 0;

  if (!g_spawn_sync (NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     &out, NULL, &wait_status, NULL)
      || !g_spawn_check_wait_status (wait_status, NULL) || out == NULL)
    return -1;
  /* libmpi.so (Open MPI, MPICH 4, Intel MPI), libmpich.so (MPICH 3), libmpi_cxx, libmpifort */
  return strstr (out, "libmpi") != NULL ? 1 : 0;
}

int
main (int argc, char **argv)
{
  kubus_program_init ("kubus-run");

  Options o = { 0 };
  int     i;
  for (i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (a[0] != '-')
        break;
      if ((strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0) && i + 1 < argc)
        {
          o.expdir = argv[++i];
          /* an unset shell variable (-o "$OUT"): not the current folder, which --force would
           * clear of an earlier experiment's files */
          if (!*o.expdir)
            {
              fprintf (stderr, _ ("%s: the output name given with -o is empty\n"), "kubus-run");
              return 2;
            }
        }
      else if (strcmp (a, "--force") == 0 || strcmp (a, "-f") == 0)
        o.force = TRUE;
      else if (strcmp (a, "--filter") == 0 && i + 1 < argc)
        o.filter = argv[++i];
      else if (strcmp (a, "--buffer") == 0 && i + 1 < argc)
        o.buffer = argv[++i];
      else if (strcmp (a, "-v") == 0 || strcmp (a, "--verbose") == 0)
        o.verbose = TRUE;
      else if (strcmp (a, "--no-trace") == 0)
        o.no_trace = TRUE;
      else if ((strcmp (a, "--trace-format") == 0 && i + 1 < argc)
               || g_str_has_prefix (a, "--trace-format="))
        {
          o.trace_format = a[14] == '=' ? a + 15 : argv[++i];
          if (strcmp (o.trace_format, "otf2") != 0 && strcmp (o.trace_format, "compressed") != 0
              && strcmp (o.trace_format, "both") != 0)
            {
              fprintf (stderr,
                       _ ("kubus-run: --trace-format '%s' is not otf2, compressed or both\n"),
                       o.trace_format);
              return 2;
            }
        }
      else if ((strcmp (a, "--call-paths") == 0 && i + 1 < argc)
               || g_str_has_prefix (a, "--call-paths="))
        {
          o.call_paths = a[12] == '=' ? a + 13 : argv[++i];
          if (strcmp (o.call_paths, "unwind") != 0 && strcmp (o.call_paths, "flat") != 0)
            {
              fprintf (stderr, _ ("kubus-run: --call-paths '%s' is not unwind or flat\n"),
                       o.call_paths);
              return 2;
            }
        }
      else if ((strcmp (a, "--call-path-depth") == 0 && i + 1 < argc)
               || g_str_has_prefix (a, "--call-path-depth="))
        {
          o.depth = a[17] == '=' ? a + 18 : argv[++i];
          char   *end = NULL;
          gint64 v = g_ascii_strtoll (o.depth, &end, 10);
          if (end == o.depth || *end != '\0' || v < 1 || v > 500)
            {
              fprintf (stderr,
                       _ ("kubus-run: --call-path-depth '%s' is not a number from 1 to 500\n"),
                       o.depth);
              return 2;
            }
        }
      else if (strcmp (a, "-h") == 0 || strcmp (a, "--help") == 0)
        {
          usage (stdout);
          return 0;
        }
      else if (strcmp (a, "--version") == 0)
        return kubus_program_print_version ();
      else if (strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0 || strcmp (a, "--filter") == 0
               || strcmp (a, "--buffer") == 0 || strcmp (a, "--trace-format") == 0
               || strcmp (a, "--call-paths") == 0 || strcmp (a, "--call-path-depth") == 0)
        {
          fprintf (stderr, _ ("kubus-run: option '%s' needs a value\n"), a);
          usage (stderr);
          return 2;
        }
      else
        {
          fprintf (stderr, _ ("kubus-run: unknown option '%s' (or missing value)\n"), a);
          usage (stderr);
          return 2;
        }
    }
  if (i >= argc)
    {
      fprintf (stderr, _ ("kubus-run: no command given\n"));
      usage (stderr);
      return 2;
    }
  if (o.no_trace && o.trace_format != NULL && strcmp (o.trace_format, "otf2") != 0)
    {
      fprintf (stderr, _ ("kubus-run: --no-trace writes no trace, so --trace-format %s has no "
                          "meaning; give one of them\n"),
               o.trace_format);
      return 2;
    }
  char **cmd = argv + i;

  if (o.buffer != NULL)
    {
      double bytes = kubus_size_bytes (o.buffer);
      if (bytes < 0)
        {
          fprintf (stderr,
                   _ ("kubus-run: --buffer '%s' is not a size "
                      "(examples: 512K, 64M, 1G)\n"),
                   o.buffer);
          return 2;
        }
      long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
      if (pages > 0 && page > 0 && bytes > (double)pages * (double)page)
        {
          g_autofree char *mem = g_format_size ((guint64)pages * (guint64)page);
          fprintf (stderr,
                   _ ("kubus-run: warning: --buffer %s per rank is more than this "
                      "machine's memory (%s); ranks that cannot reserve it use 64M\n"),
                   o.buffer, mem);
        }
    }
  g_autofree char *filter = NULL;
  if (o.filter != NULL)
    {
      filter = g_canonicalize_filename (o.filter, NULL);
      if (!g_file_test (filter, G_FILE_TEST_IS_REGULAR) || g_access (filter, R_OK) != 0)
        {
          fprintf (stderr, _ ("kubus-run: cannot read filter file '%s'\n"), o.filter);
          return 2;
        }
      g_autoptr (GError) ferr = NULL;
      if (!check_filter (filter, &ferr))
        {
          fprintf (stderr, "kubus-run: %s\n", ferr->message);
          return 2;
        }
    }

  g_autofree char *launcher = g_find_program_in_path (cmd[0]);
  if (launcher == NULL)
    {
      fprintf (stderr,
               _ ("kubus-run: '%s' not found (is MPI installed and in "
                  "PATH?)\n"),
               cmd[0]);
      return 127;
    }
  int             ranks = 0;
  g_autofree int *other_programs = NULL;
  g_autofree int *contexts = NULL;
  int             prog_index = find_program (cmd, &ranks, &other_programs, &contexts);
  if (prog_index < 0)
    {
      fprintf (stderr,
               _ ("kubus-run: no program to run in the %s command "
                  "line\n"),
               cmd[0]);
      return 2;
    }
  const char      *program = cmd[prog_index];
  g_autofree char *found = g_find_program_in_path (program);
  g_autofree char *program_path = found ? g_canonicalize_filename (found, NULL) : NULL;
  if (program_path == NULL)
    {
      fprintf (stderr,
               _ ("kubus-run: program '%s' not found or not "
                  "executable\n"),
               program);
      return 127;
    }
  for (int k = 0; other_programs[k] >= 0; k++)
    {
      g_autofree char *other = g_find_program_in_path (cmd[other_programs[k]]);
      if (other == NULL)
        {
          fprintf (stderr,
                   _ ("kubus-run: program '%s' not found or not "
                      "executable\n"),
                   cmd[other_programs[k]]);
          return 127;
        }
    }
  if (ranks <= 0)
    ranks = (int)g_get_num_processors ();

  g_autofree char *prog_base = g_path_get_basename (program);
  g_autofree char *default_dir = g_strdup_printf ("kubus_%s_%d", prog_base, ranks);
  g_autofree char *expdir = g_canonicalize_filename (o.expdir ? o.expdir : default_dir, NULL);
  /* from here on a stop signal waits until mpirun runs (it is passed on then) or the folder is
   * cleaned up: one that ended this process in between would leave a half experiment */
  KubusForward fw;
  kubus_forward_block (&fw);
  gboolean created = !g_file_test (expdir, G_FILE_TEST_EXISTS);
  if (!created)
    {
      if (!g_file_test (expdir, G_FILE_TEST_IS_DIR))
        {
          fprintf (stderr,
                   _ ("kubus-run: '%s' exists and is not a "
                      "directory\n"),
                   expdir);
          return 1;
        }
      if (!o.force)
        {
          fprintf (stderr,
                   _ ("kubus-run: experiment directory '%s' already "
                      "exists; use --force to overwrite it or -o to "
                      "choose another\n"),
                   expdir);
          return 1;
        }
      clear_experiment (expdir);
    }
  if (g_mkdir_with_parents (expdir, 0777) != 0)
    {
      int e = errno;
      fprintf (stderr,
               _ ("kubus-run: cannot create experiment directory "
                  "'%s': %s\n"),
               expdir, g_strerror (e));
      return 1;
    }
  {
    g_autofree char *probe = g_build_filename (expdir, ".kubus-XXXXXX", NULL);
    int              fd = g_mkstemp (probe);
    if (fd < 0)
      {
        int e = errno;
        fprintf (stderr,
                 _ ("kubus-run: cannot write to experiment directory "
                    "'%s': %s\n"),
                 expdir, g_strerror (e));
        return 1;
      }
    close (fd);
    g_remove (probe);
  }

  g_autofree char *lib = find_library (argv[0]);
  if (lib == NULL)
    {
      fprintf (stderr,
               _ ("kubus-run: cannot find %s next to kubus-run or in "
                  "%s; set KUBUS_COLLECT_LIB\n"),
               KUBUS_COLLECT_LIBNAME, KUBUS_COLLECT_LIBDIR);
      return 1;
    }

  /* the settings every rank needs */
  g_autoptr (GPtrArray) env = g_ptr_array_new_with_free_func (g_free);
  const char *asan = KUBUS_ASAN_RUNTIME;
  const char *old_preload = g_getenv ("LD_PRELOAD");
  g_autoptr (GString) preload = g_string_new (NULL);
  if (asan[0] != '\0')
    g_string_append_printf (preload, "%s:", asan);
  g_string_append (preload, lib);
  if (old_preload != NULL && old_preload[0] != '\0')
    g_string_append_printf (preload, ":%s", old_preload);
  g_ptr_array_add (env, g_strdup_printf ("LD_PRELOAD=%s", preload->str));
  g_ptr_array_add (env, g_strdup_printf ("KUBUS_EXPDIR=%s", expdir));
  if (o.buffer)
    g_ptr_array_add (env, g_strdup_printf ("KUBUS_BUFFER=%s", o.buffer));
  if (filter)
    g_ptr_array_add (env, g_strdup_printf ("KUBUS_FILTER=%s", filter));
  if (o.trace_format)
    g_ptr_array_add (env, g_strdup_printf ("KUBUS_TRACE_FORMAT=%s", o.trace_format));
  const char *verbose_env = g_getenv ("KUBUS_VERBOSE");
  if (o.verbose || (verbose_env && verbose_env[0] && strcmp (verbose_env, "0")))
    g_ptr_array_add (env, g_strdup ("KUBUS_VERBOSE=1"));
  if (o.no_trace)
    g_ptr_array_add (env, g_strdup ("KUBUS_NO_TRACE=1"));
  /* rank 0 leaves the profile records for the merge by source line after the run */
  g_ptr_array_add (env, g_strdup ("KUBUS_PROFILE_RECORDS=1"));
  if (o.call_paths)
    g_ptr_array_add (env, g_strdup_printf ("KUBUS_CALL_PATHS=%s", o.call_paths));
  if (o.depth)
    g_ptr_array_add (env, g_strdup_printf ("KUBUS_CALL_PATH_DEPTH=%s", o.depth));
  static const char *passed_on[] = { "KUBUS_CLOCK",         "KUBUS_DISABLE",
                                     "KUBUS_PROFILE",       "KUBUS_PROFILE_PATHS",
                                     "KUBUS_CALL_PATHS",    "KUBUS_CALL_PATH_DEPTH",
                                     NULL };
  for (int k = 0; passed_on[k]; k++)
    if (g_getenv (passed_on[k]) != NULL
        && !(o.call_paths && g_str_equal (passed_on[k], "KUBUS_CALL_PATHS"))
        && !(o.depth && g_str_equal (passed_on[k], "KUBUS_CALL_PATH_DEPTH")))
      g_ptr_array_add (env, g_strdup_printf ("%s=%s", passed_on[k], g_getenv (passed_on[k])));
  if (asan[0] != '\0')
    {
      /* Open MPI leaks at exit; leak reports would change exit codes */
      const char *ao = g_getenv ("ASAN_OPTIONS");
      g_ptr_array_add (env, g_strdup_printf ("ASAN_OPTIONS=%s%sdetect_leaks=0", ao ? ao : "",
                                             ao && *ao ? ":" : ""));
    }

  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) child_env = g_get_environ ();
  /* When a rank fails, Open MPI's launcher sends the others SIGTERM and, by default, SIGKILL
   * within milliseconds: too soon for them to save their traces and for one of them to write the
   * global definitions (after a rank ended by MPI_ERRORS_ARE_FATAL, about 1 run in 6 had no trace).
   * A setting of 3 lets them finish (0 of 30 runs without a trace); a failed job then ends
   * about 2 s later, one that ends normally does not. The user's own setting stays. */
  child_env = g_environ_setenv (child_env, "OMPI_MCA_odls_base_sigkill_timeout", "3", FALSE);
  g_ptr_array_add (args, cmd[0]);
  int next_context = 0;
  if (is_mpi_launcher (cmd[0]))
    for (guint k = 0; k < env->len; k++)
      {
        g_ptr_array_add (args, "-x");
        g_ptr_array_add (args, env->pdata[k]);
      }
  else
    for (guint k = 0; k < env->len; k++)
      {
        char            *kv = env->pdata[k];
        char            *eq = strchr (kv, '=');
        g_autofree char *key = g_strndup (kv, (gsize)(eq - kv));
        child_env = g_environ_setenv (child_env, key, eq + 1, TRUE);
      }
  for (int k = 1; cmd[k]; k++)
    {
      g_ptr_array_add (args, cmd[k]);
      /* Open MPI applies -x to one application context only: repeat them after
       * every ':' of an MPMD command line, or ranks run untraced and the traced
       * ones wait for them in MPI_Init */
      if (contexts[next_context] == k)
        {
          next_context++;
          for (guint e = 0; e < env->len; e++)
            {
              g_ptr_array_add (args, "-x");
              g_ptr_array_add (args, env->pdata[e]);
            }
        }
    }
  g_ptr_array_add (args, NULL);

  g_autofree char *start = now_iso ();
  g_autoptr (GError) error = NULL;
  if (!write_json (expdir, cmd, program_path, ranks, start, NULL, 0, &o, NULL, &error))
    {
      fprintf (stderr, _ ("kubus-run: cannot write %s/kubus.json: %s\n"), expdir, error->message);
      return 1;
    }
  if (o.verbose)
    {
      g_autofree char *line = g_strjoinv (" ", (char **)args->pdata);
      fprintf (stderr, "kubus-run: %s\n", line);
    }

  int wait_status = 0;
  GPid pid;
  fflush (NULL);
  /* ranks that outlive mpirun (a second signal makes it exit at once) come to this process */
  kubus_forward_adopt_orphans ();
  if (!g_spawn_async (NULL, (char **)args->pdata, child_env,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN | G_SPAWN_DO_NOT_REAP_CHILD,
                      kubus_forward_child_setup, NULL, &pid, &error))
    {
      fprintf (stderr, _ ("kubus-run: cannot start %s: %s\n"), cmd[0], error->message);
      return 127;
    }
  /* SIGINT, SIGTERM, SIGHUP go on to mpirun, which ends the ranks; this process waits for it
   * and then removes the incomplete measurement (docs/decisions/2026-11-29-stopped-runs.md) */
  kubus_forward_start (&fw, pid);
  while (waitpid (pid, &wait_status, 0) < 0 && errno == EINTR)
    ;
  int stop_signal = kubus_forward_stop (&fw);
  g_spawn_close_pid (pid);
  if (stop_signal != 0)
    {
      /* no rank may write into the folder after it is cleaned up, or run on */
      int killed = kubus_forward_reap_orphans (10000);
      if (killed > 0)
        fprintf (stderr,
                 g_dngettext (GETTEXT_PACKAGE,
                              "kubus-run: killed %d process that %s left running\n",
                              "kubus-run: killed %d processes that %s left running\n", killed),
                 killed, cmd[0]);
      return remove_stopped (expdir, created, cmd[0], stop_signal, TRUE);
    }
  /* the work after the run (trace repair, names, profile): a stop signal now is noted and ends
   * the run at the next step, with the same clean-up */
  kubus_forward_start (&fw, 0);
  int stopped;
  int status;
  if (WIFEXITED (wait_status))
    status = WEXITSTATUS (wait_status);
  else if (WIFSIGNALED (wait_status))
    status = 128 + WTERMSIG (wait_status);
  else
    status = 1;

  if ((stopped = stopped_after_run (&fw, expdir, created, cmd[0])) != 0)
    return stopped;
  g_autofree char *end = now_iso ();
  g_clear_error (&error);
  g_autofree char *json_final = NULL;
  if (!write_json (expdir, cmd, program_path, ranks, start, end, status, &o, &json_final, &error))
    fprintf (stderr, _ ("kubus-run: cannot write %s/kubus.json: %s\n"), expdir, error->message);
  /* the collector's hand-over files are not part of the experiment */
  {
    g_autoptr (GDir) d = g_dir_open (expdir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name (d)) != NULL)
      if (g_str_has_prefix (name, ".kubus-saved-") || g_str_equal (name, ".kubus-hosts")
          || g_str_equal (name, ".kubus-clock") || g_str_has_prefix (name, ".kubus-threads"))
        {
          if (g_str_equal (name, ".kubus-threads"))
            report_untraced_threads (expdir, name);
          g_autofree char *p = g_build_filename (expdir, name, NULL);
          g_remove (p);
        }
  }
  g_autofree char *abort_marker = g_build_filename (expdir, ".kubus-abort-definitions", NULL);
  gboolean aborted = g_file_test (abort_marker, G_FILE_TEST_EXISTS);
  if (!o.no_trace)
    {
      int repaired = kubus_run_repair (expdir, ranks, &error);
      if (repaired < 0)
        fprintf (stderr, "kubus-run: %s\n", error->message);
      else if (repaired > 0)
        fprintf (stderr,
                 _ ("kubus-run: the run was aborted; wrote %d stand-in "
                    "trace files for ranks killed while saving their "
                    "trace\n"),
                 repaired);
      g_clear_error (&error);
    }
  if ((stopped = stopped_after_run (&fw, expdir, created, cmd[0])) != 0)
    return stopped;
  if (!o.no_trace && o.trace_format && strcmp (o.trace_format, "otf2") != 0)
    {
      int stand_ins = 0;
      int parts = kubus_run_kct_mend (expdir, ranks, &stand_ins, &error);
      if (parts < 0)
        fprintf (stderr, "kubus-run: %s\n", error->message);
      else if (parts > 0)
        {
          fprintf (stderr,
                   _ ("kubus-run: the run was aborted; traces.kct merged from the parts %d "
                      "ranks saved\n"),
                   parts);
          if (stand_ins > 0)
            fprintf (stderr,
                     _ ("kubus-run: %d ranks saved no compressed trace (killed first): they "
                        "have no events in traces.kct\n"),
                     stand_ins);
        }
      g_clear_error (&error);
    }
  else
    kubus_run_kct_remove_parts (expdir);
  if ((stopped = stopped_after_run (&fw, expdir, created, cmd[0])) != 0)
    return stopped;
  /* the spans of an aborted run served the stand-ins above */
  kubus_run_remove_prefixed (expdir, ".kubus-span-");
  if (!o.no_trace)
    {
      g_autofree char *anchor = g_build_filename (
          expdir,
          o.trace_format && strcmp (o.trace_format, "compressed") == 0 ? "traces.kct" : "traces.otf2",
          NULL);
      if (!g_file_test (anchor, G_FILE_TEST_EXISTS) && any_incomplete_rank (expdir))
        fprintf (stderr, _ ("kubus-run: no trace was written to %s: the collector could not complete it (see "
                            "below)\n"),
                 expdir);
      else if (!g_file_test (anchor, G_FILE_TEST_EXISTS) && aborted)
        fprintf (stderr,
                 _ ("kubus-run: no trace was written to %s: the run was aborted, and the launcher "
                    "killed the rank writing the trace's definitions before it was done\n"),
                 expdir);
      else if (!g_file_test (anchor, G_FILE_TEST_EXISTS))
        fprintf (stderr,
                 _ ("kubus-run: no trace was written to %s (did the "
                    "program call MPI_Init?)\n"),
                 expdir);
    }
  if (!o.no_trace)
    kubus_run_name_trace (expdir);
  if ((stopped = stopped_after_run (&fw, expdir, created, cmd[0])) != 0)
    return stopped;
  const char *profile_env = g_getenv ("KUBUS_PROFILE");
  if (profile_env == NULL || strcmp (profile_env, "0") != 0)
    kubus_run_profile_finish (expdir);
  if ((stopped = stopped_after_run (&fw, expdir, created, cmd[0])) != 0)
    return stopped;
  /* kubus.json names what the experiment holds now, and says what is missing */
  g_clear_error (&error);
  if (!write_json_outputs (expdir, json_final, &o, TRUE, &error))
    fprintf (stderr, _ ("kubus-run: cannot write %s/kubus.json: %s\n"), expdir, error->message);
  if (status == 0 && !measured_anything (expdir))
    {
      /* the program succeeded and not one of its processes called MPI_Init (Debian's
       * mrbayes-mpi 3.2.7a is such a program: built without MPI) */
      if (links_mpi (program_path) == 0)
        fprintf (stderr,
                 _ ("kubus-run: %s is not linked with an MPI library (ldd lists none): its "
                    "processes ran without MPI, each on its own, and there was nothing to measure; "
                    "measure a build of the program that uses MPI\n"),
                 program_path);
      fprintf (stderr, _ ("kubus-run: nothing was measured: %s holds no trace and no profile\n"), expdir);
      kubus_forward_stop (&fw);
      return 3;
    }
  /* a rank whose collector failed (collect-state.c, note_incomplete) ran on unmeasured: the
   * experiment is incomplete even though the program succeeded */
  int incomplete = report_incomplete_ranks (expdir);
  if (incomplete > 0 && status == 0)
    {
      fprintf (stderr,
               g_dngettext (GETTEXT_PACKAGE, "kubus-run: the measurement of %d rank is incomplete (see above)\n",
                            "kubus-run: the measurement of %d ranks is incomplete (see above)\n", incomplete),
               incomplete);
      status = 3;
    }
  kubus_forward_stop (&fw);
  return status;
}
