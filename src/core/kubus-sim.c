/* kubus-sim — "what if" on a trace: rewrites it as a hypothesis says, re-enacts the run in real
 * time with MPI at the original scale (or simulates it offline), analyses the result and compares
 * it with the original (docs/hypotheses.md, docs/decisions/2026-11-25-sim-design.md).
 *
 *   kubus-sim EXPDIR --hypothesis FILE [-o SIMDIR] [--offline] [-- mpirun LAUNCHER-OPTIONS] */
#include "sim-private.h"
#include "kubus-program.h"
#include "launch-mpi.h"
#include "experiment-files.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void analyze_quiet_otf2 (void);

/* frees what @opt holds and returns @status: every way out of main */
static int
options_done (SimOptions *opt,
              int         status)
{
  g_free (opt->expdir);
  g_free (opt->anchor);
  g_free (opt->kct);
  g_free (opt->hypothesis);
  g_free (opt->simdir);
  g_free (opt->launcher);
  g_strfreev (opt->launcher_argv);
  return status;
}

int
main (int    argc,
      char **argv)
{
  SimOptions opt = { 0 };
  gboolean serial = FALSE, version = FALSE, allow_incomplete = FALSE;
  g_autofree char *hyp = NULL, *output = NULL, *launcher = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "hypothesis", 'H', 0, G_OPTION_ARG_FILENAME, &hyp, N_("The hypothesis to test (see docs/hypotheses.md)"), N_("FILE") },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write the simulation to SIMDIR"), N_("SIMDIR") },
    { "offline", 0, 0, G_OPTION_ARG_NONE, &opt.offline, N_("Simulate in one process with a model fitted from the trace"), NULL },
    { "serial", 0, 0, G_OPTION_ARG_NONE, &serial, N_("The same as --offline"), NULL },
    { "mpirun", 0, 0, G_OPTION_ARG_STRING, &launcher, N_("MPI launcher command (default: mpirun)"), N_("CMD") },
    { "no-identity", 0, 0, G_OPTION_ARG_NONE, &opt.no_identity,
      N_("No error bar: do not measure (or reuse) the identity simulation of this trace"), NULL },
    { "identity-again", 0, 0, G_OPTION_ARG_NONE, &opt.identity_again,
      N_("Measure the identity error of this trace again instead of reusing the cached one"), NULL },
    { "no-clock-repair", 0, 0, G_OPTION_ARG_NONE, &opt.no_clock_repair,
      N_("Simulate and analyse the timestamps as recorded, without repairing receives that lie before their send"), NULL },
    { "allow-incomplete", 0, 0, G_OPTION_ARG_NONE, &allow_incomplete,
      N_("Simulate the trace of an aborted or stopped run too (with a warning) instead of refusing it"), NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt.quiet, N_("No progress output"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, N_("EXPDIR|TRACE.otf2") },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char **saved_argv = NULL;
  int saved_argc = argc;
  int status;

  kubus_program_init ("kubus-sim");
  analyze_quiet_otf2 ();

  saved_argv = g_new0 (char *, argc + 1);
  memcpy (saved_argv, argv, sizeof (char *) * argc);
  /* kubus-run's syntax: everything after "--" is the launcher (mpirun and its options) */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        if (i + 1 < argc)
          opt.launcher_argv = g_strdupv (argv + i + 1);
        argv[i] = NULL;
        argc = i;
        break;
      }
  ctx = g_option_context_new (_("— test a hypothesis on an MPI trace"));
  g_option_context_set_translation_domain (ctx, GETTEXT_PACKAGE);
  g_option_context_set_description (
    ctx, _("kubus-sim EXPDIR --hypothesis FILE rewrites the trace as the hypothesis says, re-enacts the\n"
           "run in real time with one MPI process per traced rank (it starts \"mpirun -n RANKS\n"
           "--oversubscribe\" itself), analyses the result and writes SIMDIR (default\n"
           "EXPDIR/sim-NAME for hypothesis file NAME.hyp): traces.otf2, analysis.cube,\n"
           "difference.cube (original − simulated) and summary.json. SIMDIR appears complete or not\n"
           "at all. --offline simulates in one process instead, with a communication model fitted\n"
           "from the trace. Rules: scale region NAME by F; balance region NAME [globally];\n"
           "remove messages with size|tag OP N; remove messages in region NAME.\n"
           "Every prediction carries the identity error of its trace and mode (its error bar).\n"
           "kubus-sim EXPDIR -H FILE -- mpirun --hostfile HOSTS re-enacts across hosts."));
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (ctx, kubus_program_option_entries (&version), GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "kubus-sim: %s\n", error->message);
      return options_done (&opt, 2);
    }
  if (version)
    return options_done (&opt, kubus_program_print_version ());
  if (launcher && opt.launcher_argv)
    {
      fprintf (stderr, _("kubus-sim: give the launcher either with --mpirun or after \"--\", not both\n"));
      return options_done (&opt, 2);
    }
  if (!rest || !rest[0] || rest[1])
    {
      fprintf (stderr, _("kubus-sim: give one experiment directory or OTF2 anchor file (see --help)\n"));
      return options_done (&opt, 2);
    }
  if (output && !*output)
    {
      /* an unset shell variable (-o "$OUT"): not the current folder */
      fprintf (stderr, _("%s: the output name given with -o is empty\n"), "kubus-sim");
      return options_done (&opt, 2);
    }
  if (!hyp)
    {
      fprintf (stderr, _("kubus-sim: give the hypothesis with --hypothesis FILE (an empty file simulates the "
                         "run as it was)\n"));
      return options_done (&opt, 2);
    }
  if (g_file_test (rest[0], G_FILE_TEST_IS_DIR))
    {
      g_autofree char *why = kubus_experiment_why_no_traces (rest[0]);
      if (why != NULL)
        {
          fprintf (stderr, _("kubus-sim: %s: nothing to simulate: %s\n"), rest[0], why);
          return options_done (&opt, 1);
        }
      opt.expdir = g_strdup (rest[0]);
      opt.anchor = g_build_filename (rest[0], "traces.otf2", NULL);
      /* only a compressed trace: replayed without expanding it (sim_main) */
      g_autofree char *kct = g_build_filename (rest[0], "traces.kct", NULL);
      if (!g_file_test (opt.anchor, G_FILE_TEST_EXISTS) && g_file_test (kct, G_FILE_TEST_IS_REGULAR))
        {
          g_free (opt.anchor);
          opt.anchor = g_build_filename (rest[0], ".kubus-kct-definitions", "traces.otf2", NULL);
          opt.kct = g_steal_pointer (&kct);
        }
    }
  else
    opt.anchor = g_strdup (rest[0]);
  if (opt.kct == NULL && !g_file_test (opt.anchor, G_FILE_TEST_IS_REGULAR))
    {
      fprintf (stderr, _("kubus-sim: %s: no such trace (give an experiment directory or an OTF2 anchor file)\n"),
               opt.anchor);
      return options_done (&opt, 1);
    }
  /* an aborted run's trace re-enacts the failure (sim-incomplete.c); the launching process
   * decides, the ranks it starts under mpirun have been told */
  if (!launch_mpi_in_launcher () && sim_check_complete (&opt, allow_incomplete) != 0)
    {
      return options_done (&opt, 1);
    }
  if (!output)
    {
      /* EXPDIR/sim-NAME for hypothesis NAME.hyp */
      g_autofree char *base = g_path_get_basename (hyp);
      g_autofree char *name = NULL;
      g_autofree char *dir = opt.expdir ? g_strdup (opt.expdir) : g_path_get_dirname (opt.anchor);
      char *dot = strrchr (base, '.');
      if (dot && dot != base)
        *dot = '\0';
      name = g_strdup_printf ("sim-%s", base);
      output = g_build_filename (dir, name, NULL);
    }
  {
    /* fail before a long simulation, not after it */
    g_autofree char *dir = g_path_get_dirname (output);
    if (!g_file_test (dir, G_FILE_TEST_IS_DIR) || access (dir, W_OK) != 0)
      {
        fprintf (stderr, _("kubus-sim: cannot write %s: the folder %s does not exist or is not writable "
                           "(no simulation written)\n"), output, dir);
        return options_done (&opt, 1);
      }
    if (g_file_test (output, G_FILE_TEST_EXISTS) && !g_file_test (output, G_FILE_TEST_IS_DIR))
      {
        fprintf (stderr, _("kubus-sim: %s exists and is not a folder (no simulation written)\n"), output);
        return options_done (&opt, 1);
      }
    /* sim_install replaces SIMDIR whole: only an empty folder or an earlier simulation (its
     * summary.json) may be replaced, never a folder that holds the trace being simulated (-o
     * EXPDIR deleted the experiment) */
    if (g_file_test (output, G_FILE_TEST_IS_DIR))
      {
        g_autofree char *summary = g_build_filename (output, "summary.json", NULL);
        g_autofree char *out_abs = g_canonicalize_filename (output, NULL);
        g_autofree char *out_prefix = g_strconcat (out_abs, G_DIR_SEPARATOR_S, NULL);
        g_autofree char *in_abs = g_canonicalize_filename (opt.kct ? opt.kct : opt.anchor, NULL);

        if (g_str_has_prefix (in_abs, out_prefix))
          {
            fprintf (stderr, _("kubus-sim: %s holds the trace being simulated; the simulation would replace "
                               "it: choose another -o (no simulation written)\n"), output);
            return options_done (&opt, 1);
          }
        g_autoptr (GDir) d = g_dir_open (output, 0, NULL);
        if (d && g_dir_read_name (d) != NULL && !g_file_test (summary, G_FILE_TEST_IS_REGULAR))
          {
            fprintf (stderr, _("kubus-sim: %s exists and holds no earlier simulation (no summary.json); "
                               "the simulation would replace the whole folder: choose another -o (no "
                               "simulation written)\n"), output);
            return options_done (&opt, 1);
          }
      }
  }
  opt.hypothesis = g_steal_pointer (&hyp);
  opt.simdir = g_steal_pointer (&output);
  opt.launcher = g_steal_pointer (&launcher);
  opt.offline = opt.offline || serial;
  opt.argc = saved_argc;
  opt.argv = saved_argv;
  status = sim_main (&opt);
  return options_done (&opt, status);
}
