/* critical-impact.c — what the critical path says about each call path, from every rank's
 * critical-path profile and time profile (scout's CRITICALPATH_FINISHED handlers in
 * CriticalPath.pattern): computed once on rank 0 over the merged call tree.
 *
 *   gcp[g]        the critical path's time in call path g, over all ranks
 *   lt[r][g]      rank r's time in g less its waiting time there
 *   activity impact           min (gcp[g], lt[r][g]) where gcp[g] > 0
 *   non-critical activities   lt[r][g] − gcp[g] where positive
 *   imbalance impact          rank r's waiting time (critical-path length − Σ lt[r]), spread over
 *                             the call paths where the critical path spends more than r
 *                             (excess max (gcp[g] − lt[r][g], 0)), summed over ranks, and given to
 *                             the ranks on the critical path in proportion to their share of it
 *   inter-partition imbalance the same with each rank's "headroom": the critical path's time in
 *                             call paths the rank never runs
 *
 * The arithmetic is scout's, divisions by zero included (they make NaN, which no severity
 * passes), so equal inputs give scout's numbers. */
#include "critical-impact.h"

void
critical_impact_init (CriticalImpact *ci,
                      gsize           ng)
{
  ci->ng = ng;
  ci->gcp = g_new0 (double, MAX (ng, 1));
  ci->gimb = g_new0 (double, MAX (ng, 1));
  ci->phr = g_new0 (double, MAX (ng, 1));
  ci->tmp = g_new0 (double, MAX (ng, 1));
  ci->gcplen = 0;
}

void
critical_impact_clear (CriticalImpact *ci)
{
  g_clear_pointer (&ci->gcp, g_free);
  g_clear_pointer (&ci->gimb, g_free);
  g_clear_pointer (&ci->phr, g_free);
  g_clear_pointer (&ci->tmp, g_free);
}

void
critical_impact_add_path (CriticalImpact *ci,
                          const double   *lcp)
{
  for (gsize g = 0; g < ci->ng; g++)
    ci->gcp[g] += lcp[g];
}

void
critical_impact_add_rank (CriticalImpact *ci,
                          const double   *l)
{
  double lplen = 0, excess = 0, factor, hrlen = 0, hrlp = 0, hrf;
  double *tmp = ci->tmp;

  ci->gcplen = 0;
  for (gsize g = 0; g < ci->ng; g++)
    ci->gcplen += ci->gcp[g];
  for (gsize g = 0; g < ci->ng; g++)
    lplen += l[g];
  /* imbalance: this rank's waiting time over its critical-path excess */
  for (gsize g = 0; g < ci->ng; g++)
    {
      tmp[g] = MAX (ci->gcp[g] - l[g], 0.0);
      excess += tmp[g];
    }
  factor = (ci->gcplen - lplen) / excess;
  for (gsize g = 0; g < ci->ng; g++)
    ci->gimb[g] += tmp[g] * factor;
  /* inter-partition: headroom in the call paths this rank never runs */
  for (gsize g = 0; g < ci->ng; g++)
    {
      tmp[g] = ci->gcp[g];
      if (l[g] > 0.0)
        {
          hrlp += l[g] + (tmp[g] - MIN (l[g], tmp[g]));
          tmp[g] = 0.0;
        }
    }
  for (gsize g = 0; g < ci->ng; g++)
    hrlen += tmp[g];
  hrf = (ci->gcplen - hrlp) / hrlen;
  for (gsize g = 0; g < ci->ng; g++)
    ci->phr[g] += tmp[g] * hrf;
}

void
critical_impact_rank (const CriticalImpact *ci,
                      const double         *lcp,
                      const double         *l,
                      double               *activity,
                      double               *imbalance,
                      double               *inter,
                      double               *noncritical)
{
  for (gsize g = 0; g < ci->ng; g++)
    {
      double v;
      if (ci->gcp[g] > 0)
        activity[g] = MIN (ci->gcp[g], l[g]);
      if (l[g] - ci->gcp[g] > 0)
        noncritical[g] = l[g] - ci->gcp[g];
      if (!(lcp[g] > 0))
        continue;
      v = (lcp[g] / ci->gcp[g]) * ci->gimb[g];
      if (v > 0)
        imbalance[g] = v;
      v = (lcp[g] / ci->gcp[g]) * ci->phr[g];
      if (v > 0)
        inter[g] = v;
    }
}
