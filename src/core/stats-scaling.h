/* stats-scaling.h — statistical scalability analysis of MPI callsites (Vetter & McCracken,
 * PPoPP 2001): which callsites take a growing share of the communication time as the task
 * count grows. See docs/decisions/2026-11-25-scaling-statistics.md for the exact definitions.
 *
 * Inputs are reports (any format src/cube reads) or experiment folders (their profile.cube, else
 * their analysis.cube), or folders holding experiment folders. */
#pragma once

#include "cube.h"
#include "stats-spearman.h"

#include <stdio.h>

G_BEGIN_DECLS

#define STATS_ERROR (stats_error_quark ())
GQuark stats_error_quark (void);

typedef enum
{
  STATS_ERROR_INPUT,          /* a folder without a report */
  STATS_ERROR_METRIC,         /* the metric is missing or cannot be summed over tasks */
  STATS_ERROR_DATA,           /* the reports cannot be compared: too few task counts, different
                                 programs, no MPI callsites, no communication time */
} StatsError;

typedef struct
{
  char   *input;         /* as given */
  char   *report_path;   /* the report read (EXP/profile.cube, … or the input itself) */
  guint   tasks;         /* processes in the system tree (locations if it has none) */
  double  aggregate;     /* `time` summed over every call path and location */
  double  communication; /* `time` of the MPI callsites, summed over locations */
  double  setup;         /* `time` of MPI_Init, MPI_Init_thread and MPI_Finalize */
  double  computation;   /* aggregate − communication − setup */
  double  elapsed;       /* the largest `time` of one location: how long the run took */
  double  speedup;       /* mean elapsed of the runs at the smallest task count / elapsed */
  double  efficiency;    /* speedup × smallest task count / tasks */
} StatsScalingRun;

typedef struct
{
  char   *region;        /* region name ("MPI_Recv") */
  char   *mod;           /* its module as read, may be NULL */
  guint   ordinal;       /* 0; k for the k-th later sibling call path of the same region */
} StatsScalingStep;

typedef struct
{
  char         *name;      /* region names from the root, '/'-joined; a repeated sibling of the
                              same region gets "#2", "#3", … ("main/MPI_Recv#2") */
  GPtrArray    *path;      /* of StatsScalingStep*, root first: the callsite's call path */
  double       *value;     /* per run: the metric summed over locations (0 where absent) */
  double       *share;     /* per run: value / that run's denominator (see StatsScaling) */
  double       *share_at;  /* per distinct task count: mean share over its runs */
  gboolean      defined;   /* FALSE: the share is the same in every run, rho is undefined */
  double        rho;       /* Spearman's rho of (tasks, share) over all runs; 0 if undefined */
  double        p_value;   /* two-sided; NaN if undefined */
  StatsPMethod  p_method;
  gboolean      negligible; /* its share stays below STATS_SCALING_NEGLIGIBLE at every count */
} StatsScalingCallsite;

/* A callsite whose mean share stays below this at every task count is negligible: ranked after
 * the others, whatever its rho (a callsite at 0.01 % with rho = +1 ranked first before). */
#define STATS_SCALING_NEGLIGIBLE 0.01

/* The p-value below which a rho counts as significant in what is printed. */
#define STATS_SCALING_ALPHA 0.05

typedef struct
{
  char       *metric;         /* unique name of the metric the shares are of */
  char       *metric_display; /* its display name in the first report */
  gboolean    of_communication; /* TRUE: shares are of the communication time (metrics in
                                   seconds); FALSE: of the metric's total over the callsites */
  GPtrArray  *runs;           /* of StatsScalingRun*, in input order */
  guint       n_counts;
  guint      *counts;         /* the distinct task counts, ascending */
  GPtrArray  *callsites;      /* of StatsScalingCallsite*, ranked: negligible ones last, then
                                 undefined rho last; rho descending; ties by mean share
                                 descending, then by name */
  double      smallest_p;     /* the smallest p-value any rho can reach with these runs */
  guint       runs_for_significance; /* runs at distinct task counts that a rho needs to
                                 reach p < STATS_SCALING_ALPHA */
} StatsScaling;

/* Reads every input and computes the statistics. @metric NULL means "time". Returns a new result
 * (free with stats_scaling_free) or NULL with @error: CUBE_ERROR from reading a report, else
 * STATS_ERROR; every message names the file it is about. */
StatsScaling *stats_scaling_compute (const char * const *inputs,
                                     guint               n_inputs,
                                     const char         *metric,
                                     GCancellable       *cancellable,
                                     GError            **error);
void          stats_scaling_free (StatsScaling *scaling);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StatsScaling, stats_scaling_free)

/* The result as a report (stats-scaling-report.c): one call tree of every callsite's call path,
 * one location "all tasks", metrics scaling_rho, scaling_p and scaling_share_N for every task
 * count N; report attributes give the ranking and say which call paths have no rho. A repeated
 * sibling's region is named like the callsite ("MPI_Recv#2"). Owned by the caller. */
CubeReport   *stats_scaling_to_report (const StatsScaling *scaling);

/* Attribute keys of that report. */
#define STATS_SCALING_ATTR_METRIC    "kubus.scaling.metric"
#define STATS_SCALING_ATTR_COUNTS    "kubus.scaling.task_counts"
#define STATS_SCALING_ATTR_RUNS      "kubus.scaling.runs"
#define STATS_SCALING_ATTR_UNDEFINED "kubus.scaling.undefined"
#define STATS_SCALING_ATTR_RANKING   "kubus.scaling.ranking"
#define STATS_SCALING_ATTR_NEGLIGIBLE "kubus.scaling.negligible_below"
#define STATS_SCALING_ATTR_SMALLEST_P "kubus.scaling.smallest_p"
#define STATS_SCALING_ATTR_RUNS_NEEDED "kubus.scaling.runs_for_significance"
#define STATS_SCALING_METRIC_RHO     "scaling_rho"
#define STATS_SCALING_METRIC_P       "scaling_p"
#define STATS_SCALING_METRIC_SHARE   "scaling_share_"   /* + task count */

/* Printing (stats-scaling-print.c). Text: the per-run table, then the ranking. CSV: the ranking
 * only, header "callsite,rho,p_value,p_method,share_N…" (one share column per task count,
 * mean over its runs); undefined rho and p are empty fields. Return FALSE on a write error. */
gboolean      stats_scaling_print_text (const StatsScaling *scaling, FILE *out);
gboolean      stats_scaling_print_csv (const StatsScaling *scaling, FILE *out);

G_END_DECLS
