/* delay-verify.h — kubus-analyze --verify-causes N (delay-verify.c). */
#pragma once

#include <glib.h>

typedef void (*VerifyProgress) (guint done, guint total, const char *what, gpointer data);

typedef struct
{
  const char     *report;          /* the analysis just written */
  const char     *expdir;          /* the experiment (NULL when a trace was given) */
  const char     *anchor;          /* its OTF2 anchor */
  const char     *kct;             /* or its compressed trace (then anchor is where kubus-sim puts
                                    * the definitions), NULL */
  int             n;               /* how many causes */
  gboolean        real_time;       /* simulate in real time (kubus-sim under mpirun) */
  const char     *launcher;        /* kubus-analyze's --mpirun for it, or NULL (mpirun) */
  gboolean        no_clock_repair;
  VerifyProgress  progress;
  gpointer        progress_data;
} VerifyOptions;

/* Where the hypotheses, simulations and verify.json go: REPORT-causes beside the report. */
char    *causes_verify_dir (const char *report);
/* Simulates the removal of the @vo->n largest delays; appends the table to @out. */
gboolean causes_verify (const VerifyOptions *vo, GString *out, GError **error);
