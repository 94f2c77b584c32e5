/* kubus-scalability-result.h — what the Scalability window shows, read from the report that
 * `kubus-cube scaling -o` writes (src/core/stats-scaling-report.c). The numbers come from that
 * report; this file only finds them: callsites in ranking order, rho, p-value and the mean share
 * per task count. */
#pragma once

#include "cube.h"

G_BEGIN_DECLS

typedef struct
{
  char     *name;      /* region names from the root, '/'-joined */
  gint64    cnode_id;  /* call path id in the scaling report */
  gboolean  defined;   /* FALSE: rho is undefined (the share never changed) */
  double    rho;
  double    p_value;
  double   *share;     /* per task count (KubusScalingResult.counts) */
} KubusScalingSite;

typedef struct
{
  char      *metric;   /* the metric the shares are of */
  guint      runs;
  guint      n_counts;
  guint     *counts;   /* ascending */
  GPtrArray *sites;    /* of KubusScalingSite*, ranked: negligible last, then rho descending,
                          undefined last */
  double     negligible_below; /* the share the ranking calls negligible (0.01); 0 if unknown */
  double     smallest_p;       /* the smallest p any rho can reach with these runs; NaN unknown */
  guint      runs_for_significance; /* runs a significant rho needs; 0 if unknown */
} KubusScalingResult;

/* TRUE when @site's share stays below @threshold at every task count of @result. */
gboolean            kubus_scaling_site_negligible (const KubusScalingResult *result,
                                                   const KubusScalingSite   *site,
                                                   double                    threshold);

/* Reads the result out of a scaling report. NULL with @error (naming the report's file) when
 * @report is not one. Free with kubus_scaling_result_free. */
KubusScalingResult *kubus_scaling_result_new (CubeReport *report, GError **error);
void                kubus_scaling_result_free (KubusScalingResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KubusScalingResult, kubus_scaling_result_free)

/* "2,4,8" → {2, 4, 8}: positive, strictly ascending decimal integers. FALSE on anything else. */
gboolean            kubus_scaling_parse_counts (const char *text, guint **counts, guint *n);

/* "12 7 9" → {12, 7, 9}: non-negative call path ids separated by single spaces; "" is empty. */
gboolean            kubus_scaling_parse_ids (const char *text, gint64 **ids, guint *n);

G_END_DECLS
