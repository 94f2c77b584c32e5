/* kubus-analyze — wait-state analysis of an OTF2 trace by parallel replay.
 *
 *   kubus-analyze EXPDIR                 → EXPDIR/analysis.cube (+ analysis.stats.json)
 *   kubus-analyze TRACE.otf2 -o OUT.cube → OUT.cube (+ OUT.stats.json)
 *
 * One analysis rank per traced rank; outside an MPI launcher the program re-executes itself
 * under mpirun. --serial runs the same replay in one process over the in-memory transport. */
#include "analyze-private.h"
#include "kubus-program.h"
#include "replay-clock.h"
#include "launch-mpi.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void analyze_quiet_otf2 (void);

typedef struct
{
  gboolean root;
  double   phase_lo;
  double   phase_hi;
  const char *phase;
  int      last_pct;
  gboolean quiet;
} Progress;

static void
progress_line (Progress   *p,
               double      fraction,
               const char *what)
{
  int pct = (int) (100.0 * (p->phase_lo + fraction * (p->phase_hi - p->phase_lo)));
  if (!p->root || p->quiet || pct == p->last_pct)
    return;
  p->last_pct = pct;
  fprintf (stderr, "kubus-analyze: [%3d%%] %s\n", pct, what);
}

static void
phase (Progress   *p,
       double      lo,
       double      hi,
       const char *what)
{
  static gint64 start;
  if (!start)
    start = g_get_monotonic_time ();
  if (p->root && g_getenv ("KUBUS_ANALYZE_TIMING"))
    fprintf (stderr, "kubus-analyze: %.3f s: %s\n", (g_get_monotonic_time () - start) / 1e6, what);
  p->phase_lo = lo;
  p->phase_hi = hi;
  p->phase = what;
  p->last_pct = -1;   /* every phase gets its line */
  progress_line (p, 0.0, what);
}

static void
read_progress (double   fraction,
               gpointer data)
{
  Progress *p = data;
  if (fraction >= 0.999 || ((int) (fraction * 100)) % 25 == 0)
    progress_line (p, fraction, p->phase);
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

int
main (int    argc,
      char **argv)
{
  gboolean serial = FALSE, quiet = FALSE, no_clock_repair = FALSE, version = FALSE;
  g_autofree char *output = NULL;
  g_autofree char *launcher = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write the report to FILE"), N_("FILE") },
    { "serial", 0, 0, G_OPTION_ARG_NONE, &serial, N_("Analyse in one process (no MPI launcher)"), NULL },
    { "mpirun", 0, 0, G_OPTION_ARG_STRING, &launcher, N_("MPI launcher command (default: mpirun)"), N_("CMD") },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("No progress output"), NULL },
    { "no-clock-repair", 0, 0, G_OPTION_ARG_NONE, &no_clock_repair,
      N_("Analyse the timestamps as recorded, without repairing receives that lie before their send"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, N_("EXPDIR|TRACE.otf2") },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (TraceDefs) defs = NULL;
  g_autofree char *anchor = NULL;
  g_autofree char *stats = NULL;
  g_autofree char **saved_argv = NULL;
  gboolean use_mpi;
  int me = 0, world = 1;
  Transport *t = NULL;
  RankData **rds = NULL;
  Progress prog = { 0 };
  gint64 t0 = g_get_monotonic_time ();
  int status = 0;

  kubus_program_init ("kubus-analyze");
  analyze_quiet_otf2 ();

  saved_argv = g_new0 (char *, argc + 1);
  memcpy (saved_argv, argv, sizeof (char *) * argc);
  ctx = g_option_context_new (_("— find wait states in an MPI trace"));
  g_option_context_set_translation_domain (ctx, GETTEXT_PACKAGE);
  g_option_context_set_description (
    ctx, _("kubus-analyze EXPDIR writes EXPDIR/analysis.cube and EXPDIR/analysis.stats.json.\n"
           "kubus-analyze TRACE.otf2 -o OUT.cube writes OUT.cube and OUT.stats.json (default: the\n"
           "trace's name with .cube in the current folder).\n\n"
           "The analysis runs one MPI rank per traced rank: outside an MPI launcher the program\n"
           "starts itself with \"mpirun -n RANKS --oversubscribe\"; --serial analyses in this process\n"
           "with the same results. Timestamps that put a receive before its send (clocks of\n"
           "different hosts) are repaired first with the controlled logical clock, unless\n"
           "--no-clock-repair is given. Progress and the summary go to standard error;\n"
           "KUBUS_ANALYZE_TIMING=1 adds the elapsed time of each phase."));
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (ctx, kubus_program_option_entries (&version), GETTEXT_PACKAGE);
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
  if (g_file_test (rest[0], G_FILE_TEST_IS_DIR))
    {
      anchor = g_build_filename (rest[0], "traces.otf2", NULL);
      if (!output)
        output = g_build_filename (rest[0], "analysis.cube", NULL);
    }
  else
    {
      anchor = g_strdup (rest[0]);
      if (!output)
        {
          g_autofree char *base = g_path_get_basename (rest[0]);
          if (g_str_has_suffix (base, ".otf2"))
            base[strlen (base) - 5] = '\0';
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

  use_mpi = !serial && launch_mpi_in_launcher ();
  if (use_mpi)
    {
      MPI_Init (&argc, &argv);
      MPI_Comm_rank (MPI_COMM_WORLD, &me);
      MPI_Comm_size (MPI_COMM_WORLD, &world);
    }
  prog.root = me == 0;
  /* the launching process stays quiet: its MPI rank 0 reports */
  prog.quiet = quiet || (!serial && !use_mpi && !g_getenv ("KUBUS_ANALYZE_RELAUNCHED"));
  prog.last_pct = -1;

  phase (&prog, 0.0, 0.05, _("reading definitions"));
  defs = trace_defs_read (anchor, &error);
  if (!defs)
    {
      if (me == 0)
        fprintf (stderr, "kubus-analyze: %s\n", error->message);
      if (use_mpi)
        MPI_Finalize ();
      return 1;
    }
  if (!serial && !use_mpi)
    {
      if (defs->n_ranks > 1 && !g_getenv ("KUBUS_ANALYZE_RELAUNCHED"))
        {
          LaunchMpi lm = {
            .program = "kubus-analyze",
            .launcher = launcher,
            .n_ranks = defs->n_ranks,
            .argv = (const char *const *) saved_argv,
            .env = (const char *const[]) { "KUBUS_ANALYZE_RELAUNCHED=1", NULL },
          };
          /* the ranks report; their status is ours */
          status = launch_mpi_run (&lm, &error);
          if (status >= 0)
            return status;
          status = 0;
          fprintf (stderr, _("kubus-analyze: %s; analysing in one process instead (--serial)\n"),
                   error->message);
          g_clear_error (&error);
        }
      serial = TRUE;
      prog.quiet = quiet;
    }
  if (use_mpi && world != defs->n_ranks)
    {
      if (me == 0)
        fprintf (stderr, _("kubus-analyze: %s has %d ranks but the analysis runs on %d; start it with "
                           "mpirun -n %d or without a launcher\n"), anchor, defs->n_ranks, world, defs->n_ranks);
      MPI_Finalize ();
      return 1;
    }

  t = use_mpi ? transport_mpi_new (defs->n_ranks) : transport_local_new (defs->n_ranks);
  rds = g_new0 (RankData *, t->n_local);

  /* each analysis rank reads only its own location */
  {
    int ok = 1, all_ok = 1;
    g_autofree char *what = g_strdup (_("reading events"));
    phase (&prog, 0.05, 0.55, what);
    for (int i = 0; i < t->n_local; i++)
      {
        rds[i] = rank_data_new (t->local_ranks[i], defs);
        prog.phase_lo = 0.05 + 0.5 * i / t->n_local;
        prog.phase_hi = 0.05 + 0.5 * (i + 1) / t->n_local;
        if (ok && !trace_read_rank (anchor, rds[i], read_progress, &prog, &error))
          {
            fprintf (stderr, "kubus-analyze: %s\n", error->message);
            ok = 0;
          }
      }
    if (use_mpi)
      MPI_Allreduce (&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    else
      all_ok = ok;
    if (!all_ok)
      {
        if (me == 0)
          fprintf (stderr, _("kubus-analyze: no report written\n"));
        status = 1;
        goto out;
      }
  }

  if (!no_clock_repair)
    {
      ClockRepair *cr;
      phase (&prog, 0.55, 0.6, _("repairing the clock condition"));
      cr = clock_repair_run (t, rds, &error);
      if (!cr)
        {
          fprintf (stderr, "kubus-analyze: %s\n", error->message);
          if (use_mpi)
            MPI_Abort (MPI_COMM_WORLD, 1);
          status = 1;
          goto out;
        }
      if (clock_repair_changed (cr))
        {
          phase (&prog, 0.57, 0.6, _("reading events in repaired time"));
          if (!clock_repair_reread (cr, anchor, t, rds, read_progress, &prog, &error))
            {
              if (me == 0)
                fprintf (stderr, _("kubus-analyze: %s; no report written\n"), error->message);
              clock_repair_free (cr);
              status = 1;
              goto out;
            }
        }
      else
        clock_repair_note (cr, rds);
      clock_repair_free (cr);
    }

  phase (&prog, 0.6, 0.75, _("replaying point-to-point communication"));
  if (!pattern_p2p_run (t, rds, &error))
    {
      fprintf (stderr, "kubus-analyze: %s\n", error->message);
      if (use_mpi)
        MPI_Abort (MPI_COMM_WORLD, 1);
      status = 1;
      goto out;
    }
  phase (&prog, 0.75, 0.85, _("replaying collective operations"));
  pattern_collective_run (t, rds);

  phase (&prog, 0.85, 0.95, _("collecting results"));
  {
    g_autofree GByteArray **out = g_new0 (GByteArray *, t->n_local);
    GPtrArray *all = NULL;
    int ok = 1;

    for (int i = 0; i < t->n_local; i++)
      out[i] = analysis_serialize (rds[i]);
    t->gather (t, out, &all);
    for (int i = 0; i < t->n_local; i++)
      g_byte_array_unref (out[i]);
    if (all)
      {
        g_autoptr (GString) summary = g_string_new (NULL);
        phase (&prog, 0.95, 1.0, _("writing report"));
        if (!analysis_write_report (defs, all, output, stats, summary, &error))
          {
            fprintf (stderr, _("kubus-analyze: %s (no report written)\n"), error->message);
            ok = 0;
          }
        else
          {
            phase (&prog, 1.0, 1.0, _("done"));
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
            fprintf (stderr, _("Analysis time: %.3f s\n"), (g_get_monotonic_time () - t0) / 1e6);
          }
        g_ptr_array_unref (all);
      }
    if (use_mpi)
      MPI_Bcast (&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
      status = 1;
  }

out:
  for (int i = 0; t && i < t->n_local; i++)
    rank_data_free (rds[i]);
  g_free (rds);
  if (t)
    t->free (t);
  if (use_mpi)
    MPI_Finalize ();
  return status;
}
