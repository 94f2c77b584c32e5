/* stats-scaling-report.c — the scalability result as a report, so the browser colours the call
 * tree by rho: the callsites' call paths (matched by region name and sibling order, like the
 * algebra), one location standing for all tasks, and root metrics
 *   scaling_rho       Spearman's rho of share vs task count (no value where undefined), a
 *                     MAXDOUBLE metric: a call path above several callsites shows the largest
 *                     rho among them (the callsite that limits scaling most), not a sum
 *   scaling_p         its two-sided p-value (1 where undefined), MINDOUBLE: above several
 *                     callsites the smallest p-value among them
 *   scaling_share_N   the callsite's mean share at N tasks, for every task count N; shares of
 *                     one denominator, so above several callsites their sum is their share.
 * Inner call paths hold no values of their own; each metric's description (which the browser
 * shows) says how they aggregate. Attributes: the metric, the task counts
 * ("2,4,8"), the number of runs, the callsites' call path ids in ranking order and those whose
 * rho is undefined (space-separated). Report contents are data, in English, like the
 * analyzer's. */
#include "stats-scaling.h"

#include <math.h>
#include <string.h>

typedef struct
{
  CubeReport *out;
  GHashTable *regions;   /* "name\001mod" → CubeRegion* */
  GHashTable *children;  /* "parent\001name\001ordinal" → GNode* */
  GHashTable *cnodes;    /* GNode* → CubeCnode* */
} Builder;

static CubeRegion *
region_for (Builder *b, const StatsScalingStep *step)
{
  g_autofree char *key = g_strdup_printf ("%s\001%u\001%s", step->region, step->ordinal,
                                          step->mod ? step->mod : "");
  CubeRegion *r = g_hash_table_lookup (b->regions, key);

  if (r == NULL)
    {
      /* a repeated sibling call is its own region here ("MPI_Recv#2"), so the browser and
       * anything reading the report names it as the statistics do */
      g_autofree char *name = step->ordinal > 0
                                  ? g_strdup_printf ("%s#%u", step->region, step->ordinal + 1)
                                  : g_strdup (step->region);

      r = cube_report_add_region (b->out, name, step->mod, -1, -1);
      g_hash_table_insert (b->regions, g_steal_pointer (&key), r);
    }
  return r;
}

/* The callsites' call paths as one tree (children in ranking order), each node made once. */
static GNode *
node_for (Builder *b, GNode *root, const StatsScalingCallsite *c)
{
  GNode *parent = root;

  for (guint i = 0; i < c->path->len; i++)
    {
      const StatsScalingStep *step = g_ptr_array_index (c->path, i);
      /* \001 cannot occur in XML 1.0 text, so keys never collide with real names */
      g_autofree char *key = g_strdup_printf ("%p\001%s\001%u", (void *) parent, step->region, step->ordinal);
      GNode *node = g_hash_table_lookup (b->children, key);

      if (node == NULL)
        {
          node = g_node_append_data (parent, (gpointer) step);
          g_hash_table_insert (b->children, g_steal_pointer (&key), node);
        }
      parent = node;
    }
  return parent;
}

/* The report's call paths made in depth-first pre-order, the order a written report numbers
 * them in: the ids in the ranking attribute are then those of the file. (Made in ranking
 * order, they named other call paths once the writer had renumbered them.) */
static gboolean
make_cnode (GNode *node, gpointer data)
{
  Builder *b = data;
  CubeCnode *parent;

  if (node->parent == NULL)
    return FALSE;   /* the root stands for no call path */
  parent = g_hash_table_lookup (b->cnodes, node->parent);
  g_hash_table_insert (b->cnodes, node,
                       cube_report_add_cnode (b->out, parent, region_for (b, node->data), -1, NULL));
  return FALSE;
}

CubeReport *
stats_scaling_to_report (const StatsScaling *s)
{
  Builder b = { 0 };
  g_autofree CubeMetric **share = g_new0 (CubeMetric *, MAX (s->n_counts, 1));
  g_autofree CubeCnode **nodes = g_new0 (CubeCnode *, MAX (s->callsites->len, 1));
  g_autoptr (GString) counts = g_string_new (NULL);
  g_autoptr (GString) undefined = g_string_new (NULL);
  g_autoptr (GString) ranking = g_string_new (NULL);
  g_autofree char *runs = g_strdup_printf ("%u", s->runs->len);
  g_autofree char *share_descr = NULL;
  CubeMetric *rho, *p;
  CubeSysNode *machine, *node, *process;

  g_return_val_if_fail (s != NULL, NULL);
  b.out = cube_report_new ();
  b.regions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  b.children = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  b.cnodes = g_hash_table_new (NULL, NULL);

  rho = cube_report_add_metric (b.out, NULL, STATS_SCALING_METRIC_RHO, "Spearman's rho",
                                CUBE_DTYPE_MAXDOUBLE, "", NULL,
                                "Spearman's rank correlation of the callsite's share with the "
                                "task count over all runs: near +1 the share grows with the "
                                "task count (the callsite limits scaling), near -1 it falls. No "
                                "value where undefined (the share is the same in every run). A "
                                "call path above several callsites shows the largest rho among "
                                "them (the callsite that limits scaling most), not a rho of its "
                                "own.");
  p = cube_report_add_metric (b.out, NULL, STATS_SCALING_METRIC_P, "p-value (rho)",
                              CUBE_DTYPE_MINDOUBLE, "", NULL,
                              "Two-sided p-value of rho (exact permutation test up to 8 runs, "
                              "Student's t beyond). 1 where rho is undefined. A call path above "
                              "several callsites shows the smallest p-value among them (the "
                              "strongest evidence of a trend below it, in either direction).");
  share_descr = g_strdup_printf (s->of_communication
                                     ? "Mean share of the callsite's %s in the communication "
                                       "time (the time of all MPI callsites), over the runs at "
                                       "this task count. A call path above several callsites "
                                       "shows the sum of their shares."
                                     : "Mean share of the callsite's %s in the total of %s over "
                                       "all MPI callsites, over the runs at this task count. A "
                                       "call path above several callsites shows the sum of "
                                       "their shares.",
                                 s->metric, s->metric);
  for (guint k = 0; k < s->n_counts; k++)
    {
      g_autofree char *uniq = g_strdup_printf ("%s%u", STATS_SCALING_METRIC_SHARE, s->counts[k]);
      g_autofree char *disp = g_strdup_printf ("Share at %u tasks", s->counts[k]);

      share[k] = cube_report_add_metric (b.out, NULL, uniq, disp, CUBE_DTYPE_DOUBLE, "", NULL,
                                         share_descr);
      g_string_append_printf (counts, "%s%u", k ? "," : "", s->counts[k]);
    }

  {
    GNode *root = g_node_new (NULL);
    g_autofree GNode **leaves = g_new0 (GNode *, MAX (s->callsites->len, 1));

    for (guint c = 0; c < s->callsites->len; c++)
      leaves[c] = node_for (&b, root, g_ptr_array_index (s->callsites, c));
    g_node_traverse (root, G_PRE_ORDER, G_TRAVERSE_ALL, -1, make_cnode, &b);
    for (guint c = 0; c < s->callsites->len; c++)
      nodes[c] = g_hash_table_lookup (b.cnodes, leaves[c]);
    g_node_destroy (root);
  }

  machine = cube_report_add_sysnode (b.out, NULL, CUBE_SYS_MACHINE, "scaling", -1);
  node = cube_report_add_sysnode (b.out, machine, CUBE_SYS_NODE, "runs", -1);
  process = cube_report_add_sysnode (b.out, node, CUBE_SYS_PROCESS, "all tasks", 0);
  cube_report_add_sysnode (b.out, process, CUBE_SYS_THREAD, "all tasks", 0);

  for (guint c = 0; c < s->callsites->len; c++)
    {
      const StatsScalingCallsite *cs = g_ptr_array_index (s->callsites, c);

      if (cs->defined)
        cube_report_set_value (b.out, rho, nodes[c], 0, cs->rho); /* else no value */
      cube_report_set_value (b.out, p, nodes[c], 0, cs->defined ? cs->p_value : 1);
      for (guint k = 0; k < s->n_counts; k++)
        cube_report_set_value (b.out, share[k], nodes[c], 0, cs->share_at[k]);
      g_string_append_printf (ranking, "%s%" G_GINT64_FORMAT, ranking->len ? " " : "",
                              nodes[c]->file_id);
      if (!cs->defined)
        g_string_append_printf (undefined, "%s%" G_GINT64_FORMAT, undefined->len ? " " : "",
                                nodes[c]->file_id);
    }
  cube_report_set_attr (b.out, STATS_SCALING_ATTR_METRIC, s->metric);
  cube_report_set_attr (b.out, STATS_SCALING_ATTR_COUNTS, counts->str);
  cube_report_set_attr (b.out, STATS_SCALING_ATTR_RUNS, runs);
  cube_report_set_attr (b.out, STATS_SCALING_ATTR_UNDEFINED, undefined->str);
  cube_report_set_attr (b.out, STATS_SCALING_ATTR_RANKING, ranking->str);
  {
    char num[G_ASCII_DTOSTR_BUF_SIZE];
    g_autofree char *needed = g_strdup_printf ("%u", s->runs_for_significance);

    cube_report_set_attr (b.out, STATS_SCALING_ATTR_NEGLIGIBLE,
                          g_ascii_formatd (num, sizeof num, "%g", STATS_SCALING_NEGLIGIBLE));
    if (isfinite (s->smallest_p))
      cube_report_set_attr (b.out, STATS_SCALING_ATTR_SMALLEST_P, g_ascii_formatd (num, sizeof num, "%.6g", s->smallest_p));
    cube_report_set_attr (b.out, STATS_SCALING_ATTR_RUNS_NEEDED, needed);
  }
  g_hash_table_unref (b.regions);
  g_hash_table_unref (b.children);
  g_hash_table_unref (b.cnodes);
  return b.out;
}
