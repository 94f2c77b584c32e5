/* sim-incomplete.c — kubus-sim refuses the trace of a run that did not end as a whole
 * (docs/decisions/2026-11-29-stopped-runs.md).
 *
 * When a rank calls MPI_Abort, dies on a fatal signal or exits without MPI_Finalize, mpirun stops
 * the others; their collectors save what they have, and the rank that failed leaves
 * EXPDIR/.kubus-abort-definitions (its rank; docs/decisions/collect-abort.md), which stays in the
 * experiment. Where the failing rank ended without a word (an MPI library ending it on an
 * error), a rank mpirun stopped wrote it, and its rank is followed by " stopped". kubus-run writes kubus.json when the run starts (no "end_time") and again when
 * mpirun has returned (with "end_time" and "exit_status", 128 + N when a process was killed by
 * signal N). Such a trace ends early on some ranks and may hold messages nobody received: a
 * re-enactment of it re-enacts the failure, not the program, and a prediction from it means
 * nothing. A trace outside an experiment (no kubus.json, no marker) is taken as it is. */
#include "sim-private.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The integer after "KEY": in kubus-run's kubus.json; FALSE when it is not there. */
static gboolean
json_int (const char *json,
          const char *key,
          long       *value)
{
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", key);
  const char *p = strstr (json, quoted);
  char *end = NULL;

  if (p == NULL)
    return FALSE;
  p += strlen (quoted);
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (*p != ':')
    return FALSE;
  *value = strtol (p + 1, &end, 10);
  return end != p + 1;
}

char *
sim_incomplete_reason (const char *expdir)
{
  g_autofree char *marker = g_build_filename (expdir, ".kubus-abort-definitions", NULL);
  g_autofree char *json_path = g_build_filename (expdir, "kubus.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *json = NULL;
  long status = 0;
  gboolean have_status = FALSE, have_json;

  have_json = g_file_get_contents (json_path, &json, NULL, NULL);
  if (have_json)
    have_status = json_int (json, "exit_status", &status);
  if (g_file_get_contents (marker, &text, NULL, NULL))
    {
      char *end = NULL;
      long rank = strtol (g_strstrip (text), &end, 10);
      g_autofree char *who = NULL;
      if (end != text && *end == '\0' && rank >= 0)
        who = g_strdup_printf (_("rank %ld called MPI_Abort, died on a signal or exited without "
                                 "MPI_Finalize, and the other ranks were stopped"), rank);
      else if (end != text && g_str_equal (end, " stopped") && rank >= 0)
        /* the rank that failed left no word (an MPI library ending it on an error) */
        who = g_strdup (_("a rank ended without saving its trace, as on an MPI error the library "
                          "found fatal, and the other ranks were stopped"));
      else
        who = g_strdup (_("a rank called MPI_Abort, died on a signal or exited without "
                          "MPI_Finalize, and the other ranks were stopped"));
      if (have_status)
        return g_strdup_printf (_("the measured run was aborted (%s; exit status %ld)"), who, status);
      return g_strdup_printf (_("the measured run was aborted (%s)"), who);
    }
  if (have_json && have_status && status >= 128 && status < 128 + 65)
    return g_strdup_printf (_("a process of the measured run was killed by signal %ld (%s; "
                              "kubus.json: exit status %ld)"),
                            status - 128, g_strsignal ((int) (status - 128)), status);
  if (have_json && strstr (json, "\"end_time\"") == NULL)
    return g_strdup (_("the measurement did not finish (kubus.json has no end time: kubus-run "
                       "was stopped while the program ran)"));
  return NULL;
}

int
sim_check_complete (const SimOptions *opt,
                    gboolean          allow)
{
  g_autofree char *dir = opt->expdir ? g_strdup (opt->expdir) : g_path_get_dirname (opt->anchor);
  g_autofree char *reason = sim_incomplete_reason (dir);

  if (reason == NULL)
    return 0;
  if (!allow)
    {
      fprintf (stderr, _("kubus-sim: %s: %s; its trace is incomplete (ranks end early, messages "
                         "may have no receive), so a simulation of it would re-enact the failure, "
                         "not the program. Measure a run that ends normally, or give "
                         "--allow-incomplete to simulate it anyway (no simulation written)\n"),
               dir, reason);
      return 1;
    }
  fprintf (stderr, _("kubus-sim: warning: %s: %s; simulating its incomplete trace as asked "
                     "(--allow-incomplete): ranks that ended early end early in the simulation "
                     "too\n"),
           dir, reason);
  return 0;
}
