/* kubus-sim-summary.h — what a simulation predicts, read from the summary.json that kubus-sim
 * writes next to its analysis.cube and difference.cube (src/core/sim-report.c): the browser's
 * simulation result panel and window titles. No GTK here (tested without a display).
 * Fields another version of kubus-sim may not write are "unknown" (NaN, NULL), never guessed. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  char   *metric;        /* unique name ("mpi_latesender") */
  char   *metric_name;   /* display name as written (English) */
  char   *call_path;     /* region names from the root, " > "-separated */
  double  seconds;       /* > 0: time saved (gains); < 0: time added (losses) */
} KubusSimChange;

typedef enum
{
  KUBUS_SIM_SIGNIFICANCE_UNKNOWN,   /* the summary does not say (or says null) */
  KUBUS_SIM_SIGNIFICANT,            /* the change is larger than the simulator's identity error */
  KUBUS_SIM_NOT_SIGNIFICANT,
} KubusSimSignificance;

typedef struct
{
  char                *path;            /* the summary.json read */
  char                *folder;          /* the simulation's folder (SIM) */
  char                *hypothesis;      /* the hypothesis file, as written */
  GStrv                rules;           /* its rules, as written; empty for the identity */
  char                *mode;            /* "real-time", "offline"; NULL if unknown */
  double               original_s;      /* run times; NaN if unknown */
  double               predicted_s;
  double               change_s;        /* predicted − original */
  double               change_percent;  /* of the original */
  double               identity_error_percent;   /* NaN: unknown */
  char                *identity_mode;   /* "offline", "real-time", NULL */
  KubusSimSignificance significant;
  guint64              removed_messages;
  guint64              messages;
  GPtrArray           *gains;           /* of KubusSimChange*, largest first */
  GPtrArray           *losses;
  GPtrArray           *approximations;  /* of char*: "MPI_Cart_create (4 calls)", … */
  GPtrArray           *advice;          /* of char*: kubus-sim's notes on what this mode can
                                         * reproduce (mode_advice, identity_advice) */
} KubusSimSummary;

/* Reads @path. NULL with @error (naming the file and what is wrong) when it is not a summary. */
KubusSimSummary *kubus_sim_summary_load     (const char  *path,
                                             GError     **error);
/* The same for @length bytes of @data read from @path (named in errors). */
KubusSimSummary *kubus_sim_summary_parse    (const char  *data,
                                             gsize        length,
                                             const char  *path,
                                             GError     **error);
/* The summary of the simulation that @report belongs to (SIM/analysis.cube, SIM/difference.cube
 * with SIM/summary.json beside it), or NULL. */
KubusSimSummary *kubus_sim_summary_for_report (GFile *report);
void             kubus_sim_summary_free     (KubusSimSummary *summary);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KubusSimSummary, kubus_sim_summary_free)

/* "balance region compute" (the rules joined by "; "), "identity" for none. New string. */
char            *kubus_sim_summary_rules_text (const KubusSimSummary *summary);

G_END_DECLS
