/* cube-values.c — the numbers the three panes show.
 *
 * Everything is derived from E[m][c][l], the stored value in CUBE 3 semantics (inclusive along
 * the metric tree, exclusive along the call tree). A metric selection is a list of terms
 * (metric, ±1): a collapsed metric is E[m], an expanded one E[m] minus its contributing
 * children. Call-tree and system-tree aggregates are sums (min/max for MINDOUBLE/MAXDOUBLE,
 * where an absent row means "no value", not 0).
 *
 * The cache keeps, per metric, the total over all locations of every call path: the metric
 * and call panes with no system selection then never touch the rows again. Setting a value
 * drops the cache (O(1) once dropped), so builders pay nothing while filling a report.
 */
#include "cube-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

typedef enum
{
  AGG_SUM,
  AGG_MIN,
  AGG_MAX,
} Agg;

typedef struct
{
  guint    n_metrics;
  guint    n_cnodes;
  double **cnode_total; /* per metric index: n_cnodes totals over all locations, or NULL */
} ValueCache;

typedef struct
{
  CubeMetric *metric;
  double      coef;
} Term;

static void
value_cache_free (gpointer data)
{
  ValueCache *cache = data;

  for (guint i = 0; i < cache->n_metrics; i++)
    g_free (cache->cnode_total[i]);
  g_free (cache->cnode_total);
  g_free (cache);
}

void
cube_report_invalidate_values (CubeReport *report)
{
  if (report == NULL || report->priv->value_cache == NULL)
    return;
  report->priv->value_cache_free (report->priv->value_cache);
  report->priv->value_cache = NULL;
}

static ValueCache *
get_cache (CubeReport *report)
{
  ValueCache *cache = report->priv->value_cache;

  if (cache != NULL && cache->n_metrics == report->metrics->len
      && cache->n_cnodes == report->cnodes->len)
    return cache;
  cube_report_invalidate_values (report);
  cache = g_new0 (ValueCache, 1);
  cache->n_metrics = report->metrics->len;
  cache->n_cnodes = report->cnodes->len;
  cache->cnode_total = g_new0 (double *, MAX (cache->n_metrics, 1));
  report->priv->value_cache = cache;
  report->priv->value_cache_free = value_cache_free;
  return cache;
}

static Agg
metric_agg (const CubeMetric *m)
{
  if (m == NULL)
    return AGG_SUM;
  if (m->dtype == CUBE_DTYPE_MINDOUBLE)
    return AGG_MIN;
  if (m->dtype == CUBE_DTYPE_MAXDOUBLE)
    return AGG_MAX;
  return AGG_SUM;
}

static double
agg_identity (Agg agg)
{
  return agg == AGG_MIN ? INFINITY : agg == AGG_MAX ? -INFINITY : 0.0;
}

static inline double
agg2 (Agg agg, double a, double b)
{
  switch (agg)
    {
    case AGG_MIN:
      return MIN (a, b);
    case AGG_MAX:
      return MAX (a, b);
    default:
      return a + b;
    }
}

/* ±∞ stands for "no value" in min/max aggregates; what a user sees for it is 0. */
static void
finish_values (double *v, guint n)
{
  for (guint i = 0; v != NULL && i < n; i++)
    if (!isfinite (v[i]))
      v[i] = 0.0;
}

/* The CUBE-3 row of (m, c): a pointer into the stored row when no conversion is needed
 * (NULL = absent), else computed into @scratch. */
static gboolean
e_row (CubeReport      *report,
       CubeMetric      *m,
       const CubeCnode *c,
       double          *scratch,
       const double   **row,
       GError         **error)
{
  if (!cube_metric_has_data (m))
    {
      *row = NULL;
      return TRUE;
    }
  if (!m->data->stored_call_inclusive && !m->data->stored_metric_exclusive)
    return cube_metric_raw_row (report, m, c->index, row, error);
  if (!cube_report_get_row (report, m, c, scratch, error))
    return FALSE;
  *row = scratch;
  return TRUE;
}

/* Cached totals over all locations per call path of metric @m (identity where absent). */
static const double *
cnode_totals (CubeReport *report, CubeMetric *m, GError **error)
{
  ValueCache        *cache = get_cache (report);
  guint              n = report->cnodes->len, len = report->locations->len;
  Agg                agg = metric_agg (m);
  double            *tot;
  g_autofree double *scratch = NULL;

  if (cache->cnode_total[m->index] != NULL)
    return cache->cnode_total[m->index];
  tot = g_new (double, MAX (n, 1));
  scratch = g_new (double, MAX (len, 1));
  for (guint c = 0; c < n; c++)
    {
      const double *row;
      double        acc = agg_identity (agg);
      if (!e_row (report, m, g_ptr_array_index (report->cnodes, c), scratch, &row, error))
        {
          g_free (tot);
          return NULL;
        }
      if (row != NULL)
        for (guint l = 0; l < len; l++)
          acc = agg2 (agg, acc, row[l]);
      else if (agg == AGG_SUM)
        acc = 0.0;
      tot[c] = acc;
    }
  cache->cnode_total[m->index] = tot;
  return tot;
}

/* The terms of a metric selection. */
static GArray *
selection_terms (const CubeMetricSel *msel, guint n_msel, Agg *agg)
{
  GArray *terms = g_array_new (FALSE, FALSE, sizeof (Term));

  *agg = n_msel > 0 ? metric_agg (msel[0].metric) : AGG_SUM;
  for (guint i = 0; i < n_msel; i++)
    {
      CubeMetric *m = (CubeMetric *)msel[i].metric;
      Term        t = { m, 1.0 };

      if (m == NULL || !cube_metric_has_data (m))
        continue;
      g_array_append_val (terms, t);
      if (msel[i].expanded && *agg == AGG_SUM)
        for (guint k = 0; k < m->children->len; k++)
          {
            CubeMetric *child = g_ptr_array_index (m->children, k);
            if (cube_metric_child_contributes (m, child))
              {
                Term tc = { child, -1.0 };
                g_array_append_val (terms, tc);
              }
          }
    }
  return terms;
}

/* Location weights of a system selection (NULL/empty = every location once). */
static double *
location_weights (const CubeReport *report, const CubeSysSel *sys, guint n_sys)
{
  guint   len = report->locations->len;
  double *w = g_new0 (double, MAX (len, 1));

  if (sys == NULL || n_sys == 0)
    {
      for (guint l = 0; l < len; l++)
        w[l] = 1.0;
      return w;
    }
  for (guint i = 0; i < n_sys; i++)
    {
      const CubeSysNode *node = sys[i].node;
      g_autoptr (GPtrArray) todo = NULL;

      if (node == NULL)
        continue;
      if (sys[i].expanded)
        {
          if (node->location >= 0 && (guint)node->location < len)
            w[node->location] += 1.0;
          continue;
        }
      todo = g_ptr_array_new ();
      g_ptr_array_add (todo, (gpointer)node);
      while (todo->len > 0)
        {
          const CubeSysNode *s = g_ptr_array_steal_index_fast (todo, todo->len - 1);
          if (s->location >= 0 && (guint)s->location < len)
            w[s->location] += 1.0;
          for (guint k = 0; k < s->children->len; k++)
            g_ptr_array_add (todo, g_ptr_array_index (s->children, k));
        }
    }
  return w;
}

/* Per call path, the exclusive value of the terms over the locations weighted by @w
 * (@w NULL = all locations, from the cache). */
static gboolean
cnode_exclusive (
    CubeReport *report, GArray *terms, Agg agg, const double *w, double *excl, GError **error)
{
  guint              n = report->cnodes->len, len = report->locations->len;
  g_autofree double *scratch = NULL;

  for (guint c = 0; c < n; c++)
    excl[c] = agg_identity (agg);
  if (w != NULL)
    scratch = g_new (double, MAX (len, 1));
  for (guint t = 0; t < terms->len; t++)
    {
      const Term *term = &g_array_index (terms, Term, t);
      if (w == NULL)
        {
          const double *tot = cnode_totals (report, term->metric, error);
          if (tot == NULL)
            return FALSE;
          for (guint c = 0; c < n; c++)
            excl[c] = agg == AGG_SUM ? excl[c] + term->coef * tot[c] : agg2 (agg, excl[c], tot[c]);
          continue;
        }
      for (guint c = 0; c < n; c++)
        {
          const double *row;
          double        acc = agg_identity (agg);
          if (!e_row (report, term->metric, g_ptr_array_index (report->cnodes, c), scratch, &row,
                      error))
            return FALSE;
          if (row == NULL)
            continue;
          if (agg == AGG_SUM)
            {
              acc = 0.0;
              for (guint l = 0; l < len; l++)
                acc += w[l] * row[l];
              excl[c] += term->coef * acc;
            }
          else
            {
              for (guint l = 0; l < len; l++)
                if (w[l] != 0.0)
                  acc = agg2 (agg, acc, row[l]);
              excl[c] = agg2 (agg, excl[c], acc);
            }
        }
    }
  return TRUE;
}

/* Inclusive along the call tree from exclusive: parents precede their children in index
 * order (readers write pre-order, the builder creates parents first). */
static void
cnode_inclusive (const CubeReport *report, Agg agg, const double *excl, double *incl)
{
  guint n = report->cnodes->len;

  memcpy (incl, excl, n * sizeof (double));
  for (guint c = n; c-- > 0;)
    {
      const CubeCnode *node = g_ptr_array_index (report->cnodes, c);
      if (node->parent != NULL)
        incl[node->parent->index] = agg2 (agg, incl[node->parent->index], incl[c]);
    }
}

/* The whole call tree: roots add up, or take the max with CUBE_CT_AGGR = MAX. */
static double
call_tree_total (const CubeReport *report, Agg agg, const double *incl)
{
  double total = agg_identity (agg);

  for (guint r = 0; r < report->cnode_roots->len; r++)
    {
      const CubeCnode *root = g_ptr_array_index (report->cnode_roots, r);
      double           v = incl[root->index];
      if (agg == AGG_SUM && report->ct_aggr_max)
        total = r == 0 ? v : MAX (total, v);
      else
        total = agg2 (agg, total, v);
    }
  return total;
}

gboolean
cube_values_metrics (CubeReport *report, double *incl, double *excl, GError **error)
{
  guint              n = report->cnodes->len;
  g_autofree double *ex = NULL;
  g_autofree double *in = NULL;

  g_return_val_if_fail (report != NULL, FALSE);

  ex = g_new (double, MAX (n, 1));
  in = g_new (double, MAX (n, 1));
  for (guint mi = 0; mi < report->metrics->len; mi++)
    {
      CubeMetric *m = g_ptr_array_index (report->metrics, mi);
      for (int expanded = 0; expanded < 2; expanded++)
        {
          double       *out = expanded ? excl : incl;
          CubeMetricSel sel = { m, expanded };
          g_autoptr (GArray) terms = NULL;
          Agg agg;

          if (out == NULL)
            continue;
          if (!cube_metric_has_data (m))
            {
              out[mi] = 0.0;
              continue;
            }
          terms = selection_terms (&sel, 1, &agg);
          if (!cnode_exclusive (report, terms, agg, NULL, ex, error))
            return FALSE;
          cnode_inclusive (report, agg, ex, in);
          out[mi] = call_tree_total (report, agg, in);
          finish_values (&out[mi], 1);
        }
    }
  return TRUE;
}

gboolean
cube_values_cnodes (CubeReport          *report,
                    const CubeMetricSel *msel,
                    guint                n_msel,
                    const CubeSysSel    *sys,
                    guint                n_sys,
                    double              *incl,
                    double              *excl,
                    GError             **error)
{
  guint n = report->cnodes->len;
  g_autoptr (GArray) terms = NULL;
  g_autofree double *w = NULL;
  g_autofree double *ex = NULL;
  Agg                agg;

  g_return_val_if_fail (report != NULL, FALSE);

  terms = selection_terms (msel, n_msel, &agg);
  if (sys != NULL && n_sys > 0)
    w = location_weights (report, sys, n_sys);
  ex = g_new (double, MAX (n, 1));
  if (!cnode_exclusive (report, terms, agg, w, ex, error))
    return FALSE;
  if (incl != NULL)
    {
      cnode_inclusive (report, agg, ex, incl);
      finish_values (incl, n);
    }
  if (excl != NULL)
    {
      memcpy (excl, ex, n * sizeof (double));
      finish_values (excl, n);
    }
  return TRUE;
}

/* Adds (or min/max-es) sum over terms of w[c] * E[term][c][l] into @out (per location). */
static gboolean
locations_for_cnodes (
    CubeReport *report, GArray *terms, Agg agg, const double *cw, double *out, GError **error)
{
  guint              n = report->cnodes->len, len = report->locations->len;
  g_autofree double *scratch = g_new (double, MAX (len, 1));

  for (guint t = 0; t < terms->len; t++)
    {
      const Term *term = &g_array_index (terms, Term, t);
      for (guint c = 0; c < n; c++)
        {
          const double *row;
          if (cw[c] == 0.0)
            continue;
          if (!e_row (report, term->metric, g_ptr_array_index (report->cnodes, c), scratch, &row,
                      error))
            return FALSE;
          if (row == NULL)
            continue;
          if (agg == AGG_SUM)
            {
              double f = term->coef * cw[c];
              for (guint l = 0; l < len; l++)
                out[l] += f * row[l];
            }
          else
            for (guint l = 0; l < len; l++)
              out[l] = agg2 (agg, out[l], row[l]);
        }
    }
  return TRUE;
}

static void
mark_subtree (const CubeCnode *c, double *cw)
{
  cw[c->index] += 1.0;
  for (guint k = 0; k < c->children->len; k++)
    mark_subtree (g_ptr_array_index (c->children, k), cw);
}

/* Per-location values with the selection kept in the identity encoding (±∞ = none). */
static gboolean
values_locations_raw (CubeReport          *report,
                      const CubeMetricSel *msel,
                      guint                n_msel,
                      const CubeCnodeSel  *csel,
                      guint                n_csel,
                      double              *out,
                      Agg                 *agg_out,
                      GError             **error)
{
  guint n = report->cnodes->len, len = report->locations->len;
  g_autoptr (GArray) terms = NULL;
  g_autofree double *cw = g_new0 (double, MAX (n, 1));
  Agg                agg;

  terms = selection_terms (msel, n_msel, &agg);
  *agg_out = agg;
  for (guint l = 0; l < len; l++)
    out[l] = agg_identity (agg);

  if (csel != NULL && n_csel > 0)
    {
      for (guint i = 0; i < n_csel; i++)
        {
          if (csel[i].cnode == NULL)
            continue;
          if (csel[i].expanded)
            cw[csel[i].cnode->index] += 1.0;
          else
            mark_subtree (csel[i].cnode, cw);
        }
      return locations_for_cnodes (report, terms, agg, cw, out, error);
    }

  /* No call path selected: the whole call tree, per location. */
  if (agg == AGG_SUM && report->ct_aggr_max && report->cnode_roots->len > 1)
    {
      g_autofree double *part = g_new (double, MAX (len, 1));
      for (guint r = 0; r < report->cnode_roots->len; r++)
        {
          memset (cw, 0, n * sizeof (double));
          memset (part, 0, len * sizeof (double));
          mark_subtree (g_ptr_array_index (report->cnode_roots, r), cw);
          if (!locations_for_cnodes (report, terms, agg, cw, part, error))
            return FALSE;
          for (guint l = 0; l < len; l++)
            out[l] = r == 0 ? part[l] : MAX (out[l], part[l]);
        }
      return TRUE;
    }
  for (guint c = 0; c < n; c++)
    cw[c] = 1.0;
  return locations_for_cnodes (report, terms, agg, cw, out, error);
}

gboolean
cube_values_locations (CubeReport          *report,
                       const CubeMetricSel *msel,
                       guint                n_msel,
                       const CubeCnodeSel  *csel,
                       guint                n_csel,
                       double              *out,
                       GError             **error)
{
  Agg agg;

  g_return_val_if_fail (report != NULL && out != NULL, FALSE);

  if (!values_locations_raw (report, msel, n_msel, csel, n_csel, out, &agg, error))
    return FALSE;
  finish_values (out, report->locations->len);
  return TRUE;
}

void
cube_values_sysnodes (const CubeReport *report,
                      const CubeMetric *metric_for_aggregation,
                      const double     *per_location,
                      double           *incl,
                      double           *excl)
{
  Agg                agg = metric_agg (metric_for_aggregation);
  guint              n = report->sysnodes->len;
  g_autofree double *in = g_new (double, MAX (n, 1));

  g_return_if_fail (report != NULL && per_location != NULL);

  for (guint i = 0; i < n; i++)
    {
      const CubeSysNode *s = g_ptr_array_index (report->sysnodes, i);
      double             own = agg_identity (agg);
      if (s->location >= 0 && (guint)s->location < report->locations->len)
        own = per_location[s->location];
      in[i] = own;
      if (excl != NULL)
        excl[i] = isfinite (own) ? own : 0.0;
    }
  /* Parents are created before their children, so a reverse pass sees every child first. */
  for (guint i = n; i-- > 0;)
    {
      const CubeSysNode *s = g_ptr_array_index (report->sysnodes, i);
      if (s->parent != NULL)
        in[s->parent->index] = agg2 (agg, in[s->parent->index], in[i]);
    }
  if (incl != NULL)
    {
      memcpy (incl, in, n * sizeof (double));
      finish_values (incl, n);
    }
}

double
cube_value (CubeReport          *report,
            const CubeMetricSel *msel,
            guint                n_msel,
            const CubeCnodeSel  *csel,
            guint                n_csel,
            const CubeSysSel    *sys,
            guint                n_sys)
{
  guint              len;
  g_autofree double *per = NULL;
  g_autofree double *w = NULL;
  g_autoptr (GError) error = NULL;
  Agg    agg;
  double total;

  g_return_val_if_fail (report != NULL, NAN);

  len = report->locations->len;
  per = g_new (double, MAX (len, 1));
  w = location_weights (report, sys, n_sys);
  g_array_unref (selection_terms (msel, n_msel, &agg)); /* only to learn the aggregation */
  /* The whole call tree with CUBE_CT_AGGR = MAX: the largest root, each root taken over the
   * system selection (as cube_values_metrics does over all locations). */
  if ((csel == NULL || n_csel == 0) && agg == AGG_SUM && report->ct_aggr_max
      && report->cnode_roots->len > 1)
    {
      total = 0.0;
      for (guint r = 0; r < report->cnode_roots->len; r++)
        {
          CubeCnodeSel root = { g_ptr_array_index (report->cnode_roots, r), FALSE };
          double       part = 0.0;
          if (!values_locations_raw (report, msel, n_msel, &root, 1, per, &agg, &error))
            {
              g_warning ("%s", error->message);
              return NAN;
            }
          for (guint l = 0; l < len; l++)
            part += w[l] * per[l];
          total = r == 0 ? part : MAX (total, part);
        }
      return total;
    }
  if (!values_locations_raw (report, msel, n_msel, csel, n_csel, per, &agg, &error))
    {
      g_warning ("%s", error->message);
      return NAN;
    }
  total = agg_identity (agg);
  for (guint l = 0; l < len; l++)
    {
      if (w[l] == 0.0)
        continue;
      total = agg == AGG_SUM ? total + w[l] * per[l] : agg2 (agg, total, per[l]);
    }
  return isfinite (total) ? total : 0.0;
}
