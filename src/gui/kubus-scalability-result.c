/* kubus-scalability-result.c — see kubus-scalability-result.h. No GTK here: the fuzz build
 * compiles this file with the report library alone. */
#include "kubus-scalability-result.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* Keys and names written by src/core/stats-scaling-report.c */
#define ATTR_METRIC    "kubus.scaling.metric"
#define ATTR_COUNTS    "kubus.scaling.task_counts"
#define ATTR_RUNS      "kubus.scaling.runs"
#define ATTR_UNDEFINED "kubus.scaling.undefined"
#define ATTR_RANKING   "kubus.scaling.ranking"
#define ATTR_NEGLIGIBLE "kubus.scaling.negligible_below"
#define ATTR_SMALLEST_P "kubus.scaling.smallest_p"
#define ATTR_RUNS_NEEDED "kubus.scaling.runs_for_significance"

static void
site_free (KubusScalingSite *s)
{
  g_free (s->name);
  g_free (s->share);
  g_free (s);
}

void
kubus_scaling_result_free (KubusScalingResult *r)
{
  if (r == NULL)
    return;
  g_free (r->metric);
  g_free (r->counts);
  g_clear_pointer (&r->sites, g_ptr_array_unref);
  g_free (r);
}

gboolean
kubus_scaling_parse_counts (const char *text, guint **counts, guint *n)
{
  g_auto (GStrv) parts = NULL;
  g_autofree guint *out = NULL;
  guint len;

  *counts = NULL;
  *n = 0;
  if (text == NULL || *text == '\0')
    return FALSE;
  parts = g_strsplit (text, ",", -1);
  len = g_strv_length (parts);
  out = g_new0 (guint, len);
  for (guint i = 0; i < len; i++)
    {
      guint64 v;

      if (!g_ascii_string_to_unsigned (parts[i], 10, 1, G_MAXUINT, &v, NULL))
        return FALSE;
      if (i > 0 && v <= out[i - 1])
        return FALSE;
      out[i] = (guint) v;
    }
  *counts = g_steal_pointer (&out);
  *n = len;
  return TRUE;
}

gboolean
kubus_scaling_parse_ids (const char *text, gint64 **ids, guint *n)
{
  g_auto (GStrv) parts = NULL;
  g_autofree gint64 *out = NULL;
  guint len;

  *ids = NULL;
  *n = 0;
  if (text == NULL)
    return FALSE;
  if (*text == '\0')
    return TRUE;
  parts = g_strsplit (text, " ", -1);
  len = g_strv_length (parts);
  out = g_new0 (gint64, len);
  for (guint i = 0; i < len; i++)
    {
      guint64 v;

      if (!g_ascii_string_to_unsigned (parts[i], 10, 0, G_MAXINT64, &v, NULL))
        return FALSE;
      out[i] = (gint64) v;
    }
  *ids = g_steal_pointer (&out);
  *n = len;
  return TRUE;
}

static char *
path_name (const CubeCnode *c)
{
  GPtrArray *names = g_ptr_array_new ();
  GString   *s = g_string_new (NULL);

  for (; c != NULL; c = c->parent)
    g_ptr_array_insert (names, 0, c->callee && c->callee->name ? c->callee->name : "");
  for (guint i = 0; i < names->len; i++)
    {
      if (i > 0)
        g_string_append_c (s, '/');
      g_string_append (s, g_ptr_array_index (names, i));
    }
  g_ptr_array_unref (names);
  return g_string_free (s, FALSE);
}

static gpointer
not_scaling (CubeReport *report, const char *what, GError **error)
{
  g_set_error (error, CUBE_ERROR, CUBE_ERROR_FORMAT,
               _ ("%s: not a scalability report of “kubus-cube scaling” (%s)"),
               report->path ? report->path : _ ("report"), what);
  return NULL;
}

static gboolean
value_of (CubeReport *report, const CubeMetric *m, const CubeCnode *c, double *out, GError **error)
{
  double row[1];

  if (!cube_report_get_row (report, m, c, row, error))
    return FALSE;
  *out = row[0];
  return TRUE;
}

gboolean
kubus_scaling_site_negligible (const KubusScalingResult *r,
                               const KubusScalingSite   *site,
                               double                    threshold)
{
  for (guint k = 0; k < r->n_counts; k++)
    if (!(site->share[k] < threshold))
      return FALSE;
  return r->n_counts > 0;
}

KubusScalingResult *
kubus_scaling_result_new (CubeReport *report, GError **error)
{
  g_autoptr (KubusScalingResult) r = g_new0 (KubusScalingResult, 1);
  g_autofree gint64 *ranking = NULL, *undefined = NULL;
  g_autofree CubeMetric **share = NULL;
  guint n_ranking, n_undefined;
  guint64 runs;
  const char *metric = cube_report_get_attr (report, ATTR_METRIC);
  const char *runs_text = cube_report_get_attr (report, ATTR_RUNS);
  CubeMetric *rho = cube_report_find_metric (report, "scaling_rho");
  CubeMetric *p = cube_report_find_metric (report, "scaling_p");

  g_return_val_if_fail (report != NULL, NULL);
  r->sites = g_ptr_array_new_with_free_func ((GDestroyNotify) site_free);
  if (metric == NULL || rho == NULL || p == NULL)
    return not_scaling (report, _ ("no scaling metric or attributes"), error);
  if (report->locations->len != 1)
    return not_scaling (report, _ ("it must have exactly one location"), error);
  if (!kubus_scaling_parse_counts (cube_report_get_attr (report, ATTR_COUNTS), &r->counts,
                                   &r->n_counts))
    return not_scaling (report, _ ("bad task counts"), error);
  if (runs_text == NULL || !g_ascii_string_to_unsigned (runs_text, 10, 1, G_MAXUINT, &runs, NULL))
    return not_scaling (report, _ ("bad number of runs"), error);
  if (!kubus_scaling_parse_ids (cube_report_get_attr (report, ATTR_RANKING), &ranking, &n_ranking)
      || !kubus_scaling_parse_ids (cube_report_get_attr (report, ATTR_UNDEFINED), &undefined,
                                   &n_undefined))
    return not_scaling (report, _ ("bad call path lists"), error);
  r->metric = g_strdup (metric);
  r->runs = (guint) runs;
  /* written by newer versions of kubus-cube; absent: unknown */
  {
    const char *neg = cube_report_get_attr (report, ATTR_NEGLIGIBLE);
    const char *minp = cube_report_get_attr (report, ATTR_SMALLEST_P);
    const char *needed = cube_report_get_attr (report, ATTR_RUNS_NEEDED);
    guint64 n;
    char *end = NULL;

    r->smallest_p = NAN;
    if (neg != NULL)
      {
        double v = g_ascii_strtod (neg, &end);
        r->negligible_below = end != neg && *end == '\0' && v >= 0 && v < 1 ? v : 0;
      }
    if (minp != NULL)
      {
        double v = g_ascii_strtod (minp, &end);
        r->smallest_p = end != minp && *end == '\0' && v >= 0 && v <= 1 ? v : NAN;
      }
    if (needed != NULL && g_ascii_string_to_unsigned (needed, 10, 2, 1000, &n, NULL))
      r->runs_for_significance = (guint) n;
  }

  share = g_new0 (CubeMetric *, r->n_counts);
  for (guint k = 0; k < r->n_counts; k++)
    {
      g_autofree char *name = g_strdup_printf ("scaling_share_%u", r->counts[k]);
      if ((share[k] = cube_report_find_metric (report, name)) == NULL)
        return not_scaling (report, _ ("a task count without its share metric"), error);
    }

  for (guint i = 0; i < n_ranking; i++)
    {
      const CubeCnode *c = cube_report_cnode_by_file_id (report, ranking[i]);
      KubusScalingSite *site;

      if (c == NULL)
        return not_scaling (report, _ ("the ranking names a call path it does not have"),
                            error);
      for (guint j = 0; j < i; j++)
        if (ranking[j] == ranking[i])
          return not_scaling (report, _ ("the ranking names a call path twice"), error);
      site = g_new0 (KubusScalingSite, 1);
      g_ptr_array_add (r->sites, site);
      site->name = path_name (c);
      site->cnode_id = c->file_id;
      site->defined = TRUE;
      for (guint j = 0; j < n_undefined; j++)
        if (undefined[j] == c->file_id)
          site->defined = FALSE;
      site->share = g_new0 (double, MAX (r->n_counts, 1));
      if (!value_of (report, rho, c, &site->rho, error)
          || !value_of (report, p, c, &site->p_value, error))
        return NULL;
      for (guint k = 0; k < r->n_counts; k++)
        if (!value_of (report, share[k], c, &site->share[k], error))
          return NULL;
    }
  return g_steal_pointer (&r);
}
