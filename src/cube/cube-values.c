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
 *
 * The system pane needs per-location values of a collapsed call path, i.e. the sum of the rows
 * of its whole subtree: for the root that is every row of the metric (5,000 call paths ×
 * 4,096 locations = 20 M values, ~50 ms per metric term), on every selection change. So the
 * same pass that computes the totals also keeps, for the call paths with the largest subtrees
 * ("big" nodes: at most 1/32 of all, so at most 1/32 of the metric's data more memory), their
 * per-location inclusive rows. A collapsed selection of a big node then costs one row; any
 * other subtree is small (fewer call paths than the smallest big subtree) and is summed.
 */
#include "cube-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
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
  guint    n_locations;
  double **cnode_total; /* per metric index: n_cnodes totals over all locations, or NULL */

  /* Call-tree shape, shared by all metrics (see the comment at the top). */
  gboolean shape_ready;
  guint    n_big;
  gint    *big_slot;    /* per cnode: row slot of a big node, else -1 */
  gint    *owner_slot;  /* per cnode: slot of the nearest big ancestor-or-self, else -1 */
  double **big_rows;    /* per metric index: n_big × n_locations inclusive rows, or NULL */

  /* The metric pane, on demand (cube_values_metric_total): per metric index. */
  double  *metric_total;   /* collapsed value, before finish_values */
  guint8  *metric_known;   /* 1 once metric_total holds it */
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
    {
      g_free (cache->cnode_total[i]);
      g_free (cache->big_rows[i]);
    }
  g_free (cache->cnode_total);
  g_free (cache->big_rows);
  g_free (cache->big_slot);
  g_free (cache->owner_slot);
  g_free (cache->metric_total);
  g_free (cache->metric_known);
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
      && cache->n_cnodes == report->cnodes->len && cache->n_locations == report->locations->len)
    return cache;
  cube_report_invalidate_values (report);
  cache = g_new0 (ValueCache, 1);
  cache->n_metrics = report->metrics->len;
  cache->n_cnodes = report->cnodes->len;
  cache->n_locations = report->locations->len;
  cache->cnode_total = g_new0 (double *, MAX (cache->n_metrics, 1));
  cache->big_rows = g_new0 (double *, MAX (cache->n_metrics, 1));
  cache->metric_total = g_new0 (double, MAX (cache->n_metrics, 1));
  cache->metric_known = g_new0 (guint8, MAX (cache->n_metrics, 1));
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

/* ±∞ stands for "no value" in min/max aggregates, and so does the ±DBL_MAX a file stores for
 * it (cube_value_is_none); what a user sees for it is 0. */
static void
finish_values (double *v, guint n)
{
  for (guint i = 0; v != NULL && i < n; i++)
    if (!isfinite (v[i]) || fabs (v[i]) >= G_MAXDOUBLE)
      v[i] = 0.0;
}

/* The CUBE-3 row of (m, c): a pointer into the stored row when no conversion is needed
 * (NULL = absent), else computed into @scratch. Rows a lazy reader decodes here are not kept:
 * passes over whole metrics must not leave the file's values in memory. */
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
    return cube_metric_peek_row (report, m, c->index, scratch, row, error);
  if (!cube_report_get_row_transient (report, m, c, scratch, error))
    return FALSE;
  *row = scratch;
  return TRUE;
}

/* TRUE when the rows of @m are what the views add up as they are (no call- or metric-tree
 * conversion): whole-metric passes can then take them in any order, in bulk. */
static gboolean
stored_as_shown (const CubeMetric *m)
{
  return !m->data->stored_call_inclusive && !m->data->stored_metric_exclusive;
}

static int
cmp_guint_desc (gconstpointer a,
                gconstpointer b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;

  return x > y ? -1 : x < y;
}

/* Picks the big call paths: the largest subtrees, at most max (1, n / 32) of them, and never a
 * leaf (its inclusive row is its own row). Also the owner of every call path. */
static void
ensure_shape (CubeReport *report, ValueCache *cache)
{
  guint              n = report->cnodes->len;
  guint              budget = MAX (1, n / 32), threshold;
  g_autofree guint  *size = NULL;
  g_autofree guint  *sorted = NULL;

  if (cache->shape_ready)
    return;
  cache->shape_ready = TRUE;
  cache->big_slot = g_new (gint, MAX (n, 1));
  cache->owner_slot = g_new (gint, MAX (n, 1));
  size = g_new (guint, MAX (n, 1));
  for (guint c = 0; c < n; c++)
    size[c] = 1;
  /* Parents precede their children in index order (see cnode_inclusive). */
  for (guint c = n; c-- > 0;)
    {
      const CubeCnode *node = g_ptr_array_index (report->cnodes, c);
      if (node->parent != NULL)
        size[node->parent->index] += size[c];
    }
  sorted = g_memdup2 (size, MAX (n, 1) * sizeof (guint));
  qsort (sorted, n, sizeof (guint), cmp_guint_desc);
  threshold = budget < n ? sorted[budget] + 1 : 1;
  threshold = MAX (threshold, 2);
  for (guint c = 0; c < n; c++)
    {
      const CubeCnode *node = g_ptr_array_index (report->cnodes, c);
      cache->big_slot[c] = size[c] >= threshold ? (gint)cache->n_big++ : -1;
      cache->owner_slot[c] = cache->big_slot[c] >= 0 ? cache->big_slot[c]
                             : node->parent != NULL ? cache->owner_slot[node->parent->index]
                                                    : -1;
    }
}

typedef struct
{
  ValueCache *cache;
  Agg         agg;
  guint       len;
  double     *tot;
  double     *big;
} TotalsPass;

/* One row of the totals pass: its call path's total and its share of the big rows. */
static gboolean
totals_add_row (guint         c,
                const double *row,
                gpointer      user_data,
                GError      **error)
{
  TotalsPass *t = user_data;
  Agg         agg = t->agg;
  guint       len = t->len;
  double      acc = agg_identity (agg);
  gint        owner = t->cache->owner_slot[c];

  (void) error;
  if (owner >= 0)
    {
      double *dst = t->big + (gsize)owner * len;
      if (agg == AGG_SUM)
        for (guint l = 0; l < len; l++)
          {
            acc += row[l];
            dst[l] += row[l];
          }
      else
        for (guint l = 0; l < len; l++)
          {
            acc = agg2 (agg, acc, row[l]);
            dst[l] = agg2 (agg, dst[l], row[l]);
          }
    }
  else
    for (guint l = 0; l < len; l++)
      acc = agg2 (agg, acc, row[l]);
  t->tot[c] = acc;
  return TRUE;
}

/* Cached totals over all locations per call path of metric @m (identity where absent), and in
 * the same pass the inclusive rows of the big call paths. Rows stored as shown are read in
 * bulk, in file order; others are converted one call path at a time. Nothing read is kept but
 * the totals and the big rows. */
static const double *
cnode_totals (CubeReport *report, CubeMetric *m, GError **error)
{
  ValueCache        *cache = get_cache (report);
  guint              n = report->cnodes->len, len = report->locations->len;
  Agg                agg = metric_agg (m);
  TotalsPass         t = { cache, agg, len, NULL, NULL };
  g_autofree double *scratch = NULL;
  gboolean           ok = TRUE;

  if (cache->cnode_total[m->index] != NULL)
    return cache->cnode_total[m->index];
  ensure_shape (report, cache);
  t.tot = g_new (double, MAX (n, 1));
  t.big = g_new (double, MAX ((gsize)cache->n_big * len, 1));
  for (gsize i = 0; i < (gsize)cache->n_big * len; i++)
    t.big[i] = agg_identity (agg);
  /* absent rows: no value (identity), or 0 for sums */
  for (guint c = 0; c < n; c++)
    t.tot[c] = agg == AGG_SUM ? 0.0 : agg_identity (agg);
  if (stored_as_shown (m))
    ok = cube_metric_scan_rows (report, m, totals_add_row, &t, error);
  else
    {
      scratch = g_new (double, MAX (len, 1));
      for (guint c = 0; ok && c < n; c++)
        {
          const double *row;
          ok = e_row (report, m, g_ptr_array_index (report->cnodes, c), scratch, &row, error);
          if (ok && row != NULL)
            totals_add_row (c, row, &t, error);
        }
    }
  if (!ok)
    {
      g_free (t.tot);
      g_free (t.big);
      return NULL;
    }
  /* Each big row holds its own part of the subtree; add the big descendants, children first. */
  for (guint c = n; c-- > 0;)
    {
      const CubeCnode *node = g_ptr_array_index (report->cnodes, c);
      gint             slot = cache->big_slot[c], up;
      if (slot < 0 || node->parent == NULL || (up = cache->owner_slot[node->parent->index]) < 0)
        continue;
      for (guint l = 0; l < len; l++)
        t.big[(gsize)up * len + l] = agg2 (agg, t.big[(gsize)up * len + l], t.big[(gsize)slot * len + l]);
    }
  cache->cnode_total[m->index] = t.tot;
  cache->big_rows[m->index] = t.big;
  return t.tot;
}

/* The per-location inclusive row of big call path @c for metric @m, or NULL if @c is not big. */
static gboolean
big_row (CubeReport *report, CubeMetric *m, const CubeCnode *c, const double **row, GError **error)
{
  ValueCache *cache = get_cache (report);

  *row = NULL;
  if (cnode_totals (report, m, error) == NULL)
    return FALSE;
  if (cache->big_slot[c->index] >= 0)
    *row = cache->big_rows[m->index] + (gsize)cache->big_slot[c->index] * report->locations->len;
  return TRUE;
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

/* ---- the metric pane, one metric at a time ------------------------------------------------ */

typedef struct
{
  Agg          agg;
  guint        len;
  const guint *root_slot;   /* per call path: the position of its root in cnode_roots */
  double      *per_root;    /* per root: the aggregate of its subtree */
} MetricPass;

static gboolean
metric_add_row (guint         c,
                const double *row,
                gpointer      user_data,
                GError      **error)
{
  MetricPass *t = user_data;
  double     *acc = &t->per_root[t->root_slot[c]];

  (void) error;
  if (t->agg == AGG_SUM)
    {
      double s = 0.0;
      for (guint l = 0; l < t->len; l++)
        s += row[l];
      *acc += s;
    }
  else
    for (guint l = 0; l < t->len; l++)
      *acc = agg2 (t->agg, *acc, row[l]);
  return TRUE;
}

/* The collapsed metric-pane value of @m (before finish_values), reading only what it needs:
 * the roots' rows of a metric stored inclusive along the call tree (a row there is its
 * subtree's value), every row of one stored exclusive (in bulk, none kept). */
static gboolean
metric_total (CubeReport *report, CubeMetric *m, double *out, GError **error)
{
  guint              n_roots = report->cnode_roots->len, n = report->cnodes->len;
  guint              len = report->locations->len;
  Agg                agg = metric_agg (m);
  g_autofree double *per_root = g_new (double, MAX (n_roots, 1));
  g_autofree guint  *root_slot = NULL;
  MetricPass         t = { agg, len, NULL, per_root };

  if (!cube_metric_has_data (m))
    {
      *out = 0.0;
      return TRUE;
    }
  for (guint r = 0; r < n_roots; r++)
    per_root[r] = agg == AGG_SUM ? 0.0 : agg_identity (agg);

  if (m->data->stored_call_inclusive && !m->data->stored_metric_exclusive)
    {
      g_autofree double *scratch = g_new (double, MAX (len, 1));
      g_autofree guint  *slot = g_new0 (guint, MAX (n, 1));

      /* each root row goes to its own root */
      for (guint r = 0; r < n_roots; r++)
        slot[((CubeCnode *) g_ptr_array_index (report->cnode_roots, r))->index] = r;
      t.root_slot = slot;
      for (guint r = 0; r < n_roots; r++)
        {
          const CubeCnode *root = g_ptr_array_index (report->cnode_roots, r);
          const double    *row;

          if (!cube_metric_peek_row (report, m, root->index, scratch, &row, error))
            return FALSE;
          if (row != NULL)
            metric_add_row (root->index, row, &t, error);
        }
    }
  else if (stored_as_shown (m))
    {
      /* Parents precede their children in index order. */
      root_slot = g_new (guint, MAX (n, 1));
      for (guint r = 0; r < n_roots; r++)
        root_slot[((CubeCnode *) g_ptr_array_index (report->cnode_roots, r))->index] = r;
      for (guint c = 0; c < n; c++)
        {
          const CubeCnode *node = g_ptr_array_index (report->cnodes, c);
          if (node->parent != NULL)
            root_slot[c] = root_slot[node->parent->index];
        }
      t.root_slot = root_slot;
      if (!cube_metric_scan_rows (report, m, metric_add_row, &t, error))
        return FALSE;
    }
  else
    {
      /* Converted along the metric tree: through the per-call-path totals. */
      const double      *tot = cnode_totals (report, m, error);
      g_autofree double *in = g_new (double, MAX (n, 1));

      if (tot == NULL)
        return FALSE;
      cnode_inclusive (report, agg, tot, in);
      *out = call_tree_total (report, agg, in);
      return TRUE;
    }
  {
    g_autofree double *in = g_new0 (double, MAX (n, 1));

    /* the roots' values where call_tree_total looks for them */
    for (guint r = 0; r < n_roots; r++)
      in[((CubeCnode *) g_ptr_array_index (report->cnode_roots, r))->index] = per_root[r];
    *out = call_tree_total (report, agg, in);
  }
  return TRUE;
}

static gboolean
metric_total_cached (CubeReport *report, CubeMetric *m, double *out, GError **error)
{
  ValueCache *cache = get_cache (report);

  if (!cache->metric_known[m->index])
    {
      if (!metric_total (report, m, &cache->metric_total[m->index], error))
        return FALSE;
      cache->metric_known[m->index] = 1;
    }
  *out = cache->metric_total[m->index];
  return TRUE;
}

gboolean
cube_values_metric_total (CubeReport       *report,
                          const CubeMetric *metric,
                          gboolean          expanded,
                          double           *value,
                          GError          **error)
{
  CubeMetric *m = (CubeMetric *)metric;
  double      v;

  g_return_val_if_fail (report != NULL && metric != NULL && value != NULL, FALSE);

  if (!metric_total_cached (report, m, &v, error))
    return FALSE;
  /* Expanded: without the contributing children (sums only: a min or max keeps its value). */
  if (expanded && metric_agg (m) == AGG_SUM)
    for (guint k = 0; k < m->children->len; k++)
      {
        CubeMetric *child = g_ptr_array_index (m->children, k);
        double      cv;

        if (!cube_metric_child_contributes (m, child))
          continue;
        if (!metric_total_cached (report, child, &cv, error))
          return FALSE;
        v -= cv;
      }
  finish_values (&v, 1);
  *value = v;
  return TRUE;
}

gboolean
cube_values_metrics (CubeReport *report, double *incl, double *excl, GError **error)
{
  g_return_val_if_fail (report != NULL, FALSE);

  for (guint mi = 0; mi < report->metrics->len; mi++)
    {
      CubeMetric *m = g_ptr_array_index (report->metrics, mi);

      if ((incl != NULL && !cube_values_metric_total (report, m, FALSE, &incl[mi], error))
          || (excl != NULL && !cube_values_metric_total (report, m, TRUE, &excl[mi], error)))
        return FALSE;
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

/* out[l] += f × row[l] (or min/max). */
static void
add_row (Agg agg, double f, const double *row, guint len, double *out)
{
  if (agg == AGG_SUM)
    for (guint l = 0; l < len; l++)
      out[l] += f * row[l];
  else
    for (guint l = 0; l < len; l++)
      out[l] = agg2 (agg, out[l], row[l]);
}

/* Adds the rows of @c and (when @subtree) of every call path below it. Iterative: call trees
 * from files can be deeper than the stack allows recursion. */
static gboolean
add_cnode_rows (CubeReport      *report,
                const Term      *term,
                Agg              agg,
                const CubeCnode *c,
                gboolean         subtree,
                double          *scratch,
                double          *out,
                GError         **error)
{
  g_autoptr (GPtrArray) todo = NULL;
  const double *row;
  guint         len = report->locations->len;

  if (!subtree)
    {
      if (!e_row (report, term->metric, c, scratch, &row, error))
        return FALSE;
      if (row != NULL)
        add_row (agg, term->coef, row, len, out);
      return TRUE;
    }
  todo = g_ptr_array_new ();
  g_ptr_array_add (todo, (gpointer) c);
  while (todo->len > 0)
    {
      c = g_ptr_array_steal_index_fast (todo, todo->len - 1);
      if (!big_row (report, term->metric, c, &row, error))
        return FALSE;
      if (row != NULL)
        {
          add_row (agg, term->coef, row, len, out);
          continue;
        }
      if (!e_row (report, term->metric, c, scratch, &row, error))
        return FALSE;
      if (row != NULL)
        add_row (agg, term->coef, row, len, out);
      /* reversed, so children are summed in order, as a recursion would */
      for (guint k = c->children->len; k > 0; k--)
        g_ptr_array_add (todo, g_ptr_array_index (c->children, k - 1));
    }
  return TRUE;
}

/* Adds (or min/max-es) over terms and call selections (collapsed: the subtree's rows, expanded:
 * the call path's own row) into @out (per location). Several selections add up. */
static gboolean
locations_for_cnodes (CubeReport         *report,
                      GArray             *terms,
                      Agg                 agg,
                      const CubeCnodeSel *csel,
                      guint               n_csel,
                      double             *out,
                      GError            **error)
{
  guint              len = report->locations->len;
  g_autofree double *scratch = g_new (double, MAX (len, 1));

  for (guint t = 0; t < terms->len; t++)
    {
      const Term *term = &g_array_index (terms, Term, t);
      for (guint i = 0; i < n_csel; i++)
        if (csel[i].cnode != NULL
            && !add_cnode_rows (report, term, agg, csel[i].cnode, !csel[i].expanded, scratch, out,
                                error))
          return FALSE;
    }
  return TRUE;
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
  guint n_roots = report->cnode_roots->len, len = report->locations->len;
  g_autoptr (GArray) terms = NULL;
  g_autofree CubeCnodeSel *roots = NULL;
  Agg                agg;

  terms = selection_terms (msel, n_msel, &agg);
  *agg_out = agg;
  for (guint l = 0; l < len; l++)
    out[l] = agg_identity (agg);

  if (csel != NULL && n_csel > 0)
    return locations_for_cnodes (report, terms, agg, csel, n_csel, out, error);

  /* No call path selected: the whole call tree, per location. */
  roots = g_new (CubeCnodeSel, MAX (n_roots, 1));
  for (guint r = 0; r < n_roots; r++)
    roots[r] = (CubeCnodeSel){ g_ptr_array_index (report->cnode_roots, r), FALSE };
  if (agg == AGG_SUM && report->ct_aggr_max && n_roots > 1)
    {
      g_autofree double *part = g_new (double, MAX (len, 1));
      for (guint r = 0; r < n_roots; r++)
        {
          memset (part, 0, len * sizeof (double));
          if (!locations_for_cnodes (report, terms, agg, &roots[r], 1, part, error))
            return FALSE;
          for (guint l = 0; l < len; l++)
            out[l] = r == 0 ? part[l] : MAX (out[l], part[l]);
        }
      return TRUE;
    }
  return locations_for_cnodes (report, terms, agg, roots, n_roots, out, error);
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

gboolean
cube_values_locations_keep_none (CubeReport          *report,
                                 const CubeMetricSel *msel,
                                 guint                n_msel,
                                 const CubeCnodeSel  *csel,
                                 guint                n_csel,
                                 double              *out,
                                 GError             **error)
{
  Agg agg;

  g_return_val_if_fail (report != NULL && out != NULL, FALSE);

  return values_locations_raw (report, msel, n_msel, csel, n_csel, out, &agg, error);
}

void
cube_values_none_to_zero (double *values,
                          guint   n)
{
  finish_values (values, n);
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
        excl[i] = isfinite (own) && fabs (own) < G_MAXDOUBLE ? own : 0.0;
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
