/* critical-impact.h — the critical path's impacts per call path and rank (critical-impact.c).
 * Three passes over the ranks, each rank's dense vectors over the merged call tree at a time:
 *   every rank: critical_impact_add_path (its critical-path profile)
 *   every rank: critical_impact_add_rank (its profile and its time less waits)
 *   every rank: critical_impact_rank → its four impact values per call path */
#pragma once

#include <glib.h>

typedef struct
{
  gsize   ng;
  double *gcp;      /* critical path per call path, all ranks */
  double  gcplen;
  double *gimb;     /* imbalance costs, all ranks */
  double *phr;      /* headroom, all ranks */
  double *tmp;
} CriticalImpact;

void critical_impact_init (CriticalImpact *ci, gsize ng);
void critical_impact_clear (CriticalImpact *ci);
void critical_impact_add_path (CriticalImpact *ci, const double *lcp);
void critical_impact_add_rank (CriticalImpact *ci, const double *lt);
/* Outputs are written where non-zero (the caller zero-fills them). */
void critical_impact_rank (const CriticalImpact *ci,
                           const double         *lcp,
                           const double         *lt,
                           double               *activity,
                           double               *imbalance,
                           double               *inter,
                           double               *noncritical);
