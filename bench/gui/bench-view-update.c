/* bench-view-update — main-thread time of a selection change in the browser, without a display.
 *
 *   bench-view-update [--cnodes N] [--fanout F] [--locations L] [--rounds R]
 *
 * Builds a synthetic report in memory (gui-bench-report.h; default 5,000 call paths ×
 * 4,096 locations × 4 metrics), opens it in a KubusBrowser (the model behind the window:
 * the three panes' values, ranges, sort and filter) and times each selection change from
 * the call that changes the selection to the end of kubus_browser_flush(), i.e. everything
 * the main thread does to update all panes' values before GTK redraws the visible rows.
 * The same src/cube calls the browser makes are also timed on their own, so the share of
 * the report library is visible.
 *
 * Baseline, measured in the same run: one pass over every stored value of one metric
 * (cube_report_get_row for each call path, summed) — what any update costs that reads the
 * metric's data once. Prints a Markdown table with ratios to the baseline and to the 30 ms goal. */
#include <gtk/gtk.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "gui-bench-report.h"
#include "kubus-browser.h"

#define GOAL_MS 30.0

static guint n_cnodes = 5000;
static guint fanout = 8;
static guint n_locations = 4096;
static guint rounds = 5;
static guint wide = 10000;

typedef struct
{
  const char *name;
  GArray     *ms; /* double */
} Action;

static Action actions[32];
static guint  n_actions;

static Action *
action (const char *name)
{
  for (guint i = 0; i < n_actions; i++)
    if (g_str_equal (actions[i].name, name))
      return &actions[i];
  g_assert (n_actions < G_N_ELEMENTS (actions));
  actions[n_actions].name = name;
  actions[n_actions].ms = g_array_new (FALSE, FALSE, sizeof (double));
  return &actions[n_actions++];
}

static void
record (const char *name, double t0)
{
  double ms = (gui_bench_now () - t0) * 1e3;
  g_array_append_val (action (name)->ms, ms);
}

static GtkTreeListRow *
tree_row (KubusBrowser *b, KubusPaneKind pane, guint position)
{
  GListModel *model
      = G_LIST_MODEL (kubus_pane_model_get_selection (kubus_browser_get_pane (b, pane)));
  return g_list_model_get_item (model, position);
}

static guint
reveal (KubusBrowser *b, KubusPaneKind pane, KubusNodeKind kind, gconstpointer node)
{
  guint pos = kubus_pane_model_reveal (kubus_browser_get_pane (b, pane), kind, node);

  g_assert (pos != G_MAXUINT);
  kubus_browser_flush (b);
  return pos;
}

/* Selects @node (made visible first, untimed) and times select + flush. */
static void
timed_select (
    KubusBrowser *b, KubusPaneKind pane, KubusNodeKind kind, gconstpointer node, const char *name)
{
  guint  pos = reveal (b, pane, kind, node);
  double t0 = gui_bench_now ();

  kubus_browser_select_position (b, pane, pos);
  kubus_browser_flush (b);
  record (name, t0);
}

/* Expands or collapses the (selected) row of @node and times it with the update it causes. */
static void
timed_expand (KubusBrowser *b,
              KubusPaneKind pane,
              KubusNodeKind kind,
              gconstpointer node,
              gboolean      expanded,
              const char   *name)
{
  guint pos = reveal (b, pane, kind, node);
  g_autoptr (GtkTreeListRow) row = tree_row (b, pane, pos);
  double t0 = gui_bench_now ();

  gtk_tree_list_row_set_expanded (row, expanded);
  kubus_browser_flush (b);
  if (name != NULL)
    record (name, t0);
}

static double
baseline_scan (CubeReport *report, CubeMetric *metric)
{
  g_autofree double *row = g_new (double, report->locations->len);
  volatile double    sink;
  double             sum = 0, t0 = gui_bench_now ();

  for (guint c = 0; c < report->cnodes->len; c++)
    {
      g_autoptr (GError) error = NULL;
      if (!cube_report_get_row (report, metric, g_ptr_array_index (report->cnodes, c), row, &error))
        g_error ("%s", error->message);
      for (guint l = 0; l < report->locations->len; l++)
        sum += row[l];
    }
  sink = sum;
  (void)sink;
  return (gui_bench_now () - t0) * 1e3;
}

/* The report-library calls behind one update, on their own. */
static void
time_cube_calls (CubeReport *report)
{
  CubeMetric        *time = cube_report_find_metric (report, "time");
  CubeCnode         *root = g_ptr_array_index (report->cnode_roots, 0);
  g_autofree double *incl = g_new (double, report->cnodes->len);
  g_autofree double *excl = g_new (double, report->cnodes->len);
  g_autofree double *per = g_new (double, report->locations->len);
  g_autofree double *sin = g_new (double, report->sysnodes->len);
  g_autofree double *sex = g_new (double, report->sysnodes->len);

  for (guint r = 0; r < rounds; r++)
    for (int expanded = 0; expanded < 2; expanded++)
      {
        CubeMetricSel ms = { time, expanded };
        CubeCnodeSel  cs = { root, FALSE };
        double        t0 = gui_bench_now ();
        if (!cube_values_cnodes (report, &ms, 1, NULL, 0, incl, excl, NULL))
          g_error ("cube_values_cnodes failed");
        record (expanded ? "src/cube: call pane, Time expanded"
                         : "src/cube: call pane, Time collapsed",
                t0);
        t0 = gui_bench_now ();
        if (!cube_values_locations (report, &ms, 1, &cs, 1, per, NULL))
          g_error ("cube_values_locations failed");
        cube_values_sysnodes (report, time, per, sin, sex);
        record (expanded ? "src/cube: system pane, Time expanded × main collapsed"
                         : "src/cube: system pane, Time collapsed × main collapsed",
                t0);
      }
}

/* Naive per-location sum of @metric's rows over the subtree of @c (or @c alone). */
static void
naive_add (CubeReport      *report,
           CubeMetric      *metric,
           const CubeCnode *c,
           gboolean         subtree,
           double           coef,
           double          *row,
           double          *out)
{
  if (!cube_report_get_row (report, metric, c, row, NULL))
    g_error ("cube_report_get_row failed");
  for (guint l = 0; l < report->locations->len; l++)
    out[l] += coef * row[l];
  if (subtree)
    for (guint k = 0; k < c->children->len; k++)
      naive_add (report, metric, g_ptr_array_index (c->children, k), TRUE, coef, row, out);
}

/* The cached system-pane values equal a plain sum of the rows (to rounding): the benchmark
 * must not time a wrong answer. Returns the largest relative difference. */
static double
check_values (CubeReport *report)
{
  CubeMetric        *time = cube_report_find_metric (report, "time");
  guint              len = report->locations->len;
  const CubeCnode   *root = g_ptr_array_index (report->cnode_roots, 0);
  const CubeCnode   *nodes[] = { root, g_ptr_array_index (root->children, 0),
                                 g_ptr_array_index (report->cnodes, report->cnodes->len / 3),
                                 g_ptr_array_index (report->cnodes, report->cnodes->len - 1) };
  g_autofree double *got = g_new (double, len);
  g_autofree double *want = g_new (double, len);
  g_autofree double *row = g_new (double, len);
  g_autofree double *plus = g_new (double, len);
  double             worst = 0;

  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    for (int mexp = 0; mexp < 2; mexp++)
      for (int cexp = 0; cexp < 2; cexp++)
        {
          CubeMetricSel ms = { time, mexp };
          CubeCnodeSel  cs = { nodes[i], cexp };
          memset (want, 0, len * sizeof (double));
          naive_add (report, time, nodes[i], !cexp, 1, row, want);
          memcpy (plus, want, len * sizeof (double));
          if (mexp)
            for (guint k = 0; k < time->children->len; k++)
              naive_add (report, g_ptr_array_index (time->children, k), nodes[i], !cexp, -1, row,
                         want);
          if (!cube_values_locations (report, &ms, 1, &cs, 1, got, NULL))
            g_error ("cube_values_locations failed");
          for (guint l = 0; l < len; l++)
            /* Relative to the collapsed value: an exclusive value may cancel to about zero. */
            worst = MAX (worst, fabs (got[l] - want[l])
                                    / MAX (MAX (fabs (want[l]), fabs (plus[l])), 1e-300));
        }
  return worst;
}

/* Expanding and collapsing a call path with @n children in the models alone (no widgets):
 * what a view's frame pays before GTK lays out any row. */
static void
time_wide (guint n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) wb = kubus_browser_new (gui_bench_report_wide (n, 64), NULL, &error);

  if (wb == NULL)
    g_error ("%s", error->message);
  kubus_browser_select_default (wb);
  for (int sorted = 0; sorted < 2; sorted++)
    for (guint r = 0; r < rounds; r++)
      {
        KubusPaneModel *call = kubus_browser_get_pane (wb, KUBUS_PANE_CALL);
        g_autoptr (GtkTreeListRow) main_row = NULL;
        g_autoptr (GtkTreeListRow) wide_row = NULL;
        double t0;

        kubus_pane_model_set_sort (call, sorted ? KUBUS_SORT_VALUE : KUBUS_SORT_NONE);
        kubus_browser_flush (wb);
        main_row = tree_row (wb, KUBUS_PANE_CALL, 0);
        gtk_tree_list_row_set_expanded (main_row, TRUE);
        kubus_browser_flush (wb);
        wide_row = tree_row (wb, KUBUS_PANE_CALL, 1);
        t0 = gui_bench_now ();
        gtk_tree_list_row_set_expanded (wide_row, TRUE);
        kubus_browser_flush (wb);
        record (sorted ? "models only: expand a node with 10,000 children, sort by value"
                       : "models only: expand a node with 10,000 children, file order",
                t0);
        t0 = gui_bench_now ();
        gtk_tree_list_row_set_expanded (wide_row, FALSE);
        kubus_browser_flush (wb);
        record (sorted ? "models only: collapse it, sort by value"
                       : "models only: collapse it, file order",
                t0);
        gtk_tree_list_row_set_expanded (main_row, FALSE);
        kubus_browser_flush (wb);
      }
}

int
main (int argc, char *argv[])
{
  GOptionEntry entries[] = {
    { "cnodes", 0, 0, G_OPTION_ARG_INT, &n_cnodes, "Call paths", "N" },
    { "fanout", 0, 0, G_OPTION_ARG_INT, &fanout, "Children per call path", "F" },
    { "locations", 0, 0, G_OPTION_ARG_INT, &n_locations, "Locations", "L" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Repetitions of every action", "R" },
    { "wide", 0, 0, G_OPTION_ARG_INT, &wide, "Children of the node to expand (0: skip)", "N" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— time browser updates");
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) b = NULL;
  CubeReport *report;
  CubeMetric *time, *comp, *mpi, *visits;
  CubeCnode  *root, *child, *leaf;
  double      t0, t_build, t_new, base_ms, all_max = 0, check;
  GArray     *base = g_array_new (FALSE, FALSE, sizeof (double));

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("bench-view-update: %s\n", error->message);
      return 1;
    }

  t0 = gui_bench_now ();
  report = gui_bench_report_tree (n_cnodes, fanout, n_locations);
  t_build = gui_bench_now () - t0;
  time = cube_report_find_metric (report, "time");
  comp = cube_report_find_metric (report, "comp");
  mpi = cube_report_find_metric (report, "mpi");
  visits = cube_report_find_metric (report, "visits");
  root = g_ptr_array_index (report->cnode_roots, 0);
  child = g_ptr_array_index (root->children, 0);
  leaf = g_ptr_array_index (report->cnodes, report->cnodes->len - 1);

  for (guint r = 0; r < rounds; r++)
    {
      double ms = baseline_scan (report, time);
      g_array_append_val (base, ms);
    }
  base_ms = gui_bench_median ((double *)base->data, base->len);

  t0 = gui_bench_now ();
  b = kubus_browser_new (report, NULL, &error);
  if (b == NULL)
    g_error ("%s", error->message);
  kubus_browser_select_default (b);
  t_new = gui_bench_now () - t0;

  for (guint r = 0; r < rounds; r++)
    {
      /* Call pane, with Time (collapsed) selected in the metric pane. Untimed set-up first so
       * that every timed action really changes the selection. */
      reveal (b, KUBUS_PANE_METRIC, KUBUS_NODE_METRIC, time);
      kubus_browser_select_metric (b, "time");
      kubus_browser_select_cnode (b, leaf->file_id);
      timed_expand (b, KUBUS_PANE_CALL, KUBUS_NODE_CNODE, root, FALSE, NULL);
      timed_select (b, KUBUS_PANE_CALL, KUBUS_NODE_CNODE, root,
                    "call: select main (collapsed, whole tree)");
      timed_expand (b, KUBUS_PANE_CALL, KUBUS_NODE_CNODE, root, TRUE,
                    "call: expand selected main (exclusive)");
      timed_select (b, KUBUS_PANE_CALL, KUBUS_NODE_CNODE, child,
                    "call: select a child of main (collapsed, 1/8 of the tree)");
      timed_select (b, KUBUS_PANE_CALL, KUBUS_NODE_CNODE, leaf, "call: select a leaf");
      timed_select (b, KUBUS_PANE_CALL, KUBUS_NODE_CNODE, root, "call: select main (expanded)");
      timed_expand (b, KUBUS_PANE_CALL, KUBUS_NODE_CNODE, root, FALSE,
                    "call: collapse selected main (whole tree)");

      /* Metric pane, with main (collapsed: the whole tree, the costly case) selected. */
      timed_select (b, KUBUS_PANE_METRIC, KUBUS_NODE_METRIC, visits, "metric: select Visits");
      timed_select (b, KUBUS_PANE_METRIC, KUBUS_NODE_METRIC, time,
                    "metric: select Time (collapsed)");
      timed_expand (b, KUBUS_PANE_METRIC, KUBUS_NODE_METRIC, time, TRUE,
                    "metric: expand selected Time (exclusive)");
      timed_select (b, KUBUS_PANE_METRIC, KUBUS_NODE_METRIC, comp, "metric: select Computation");
      timed_select (b, KUBUS_PANE_METRIC, KUBUS_NODE_METRIC, mpi, "metric: select MPI");
      timed_select (b, KUBUS_PANE_METRIC, KUBUS_NODE_METRIC, time,
                    "metric: select Time (expanded)");
      timed_expand (b, KUBUS_PANE_METRIC, KUBUS_NODE_METRIC, time, FALSE,
                    "metric: collapse selected Time");
    }
  time_cube_calls (report);
  if (wide > 0)
    time_wide (wide);
  check = check_values (report);

  printf ("Input: %u call paths (fan-out %u) × %u locations × %u metrics = %.1f M values "
          "(%.0f MB as doubles), built in memory in %.1f s; %u rounds.\n\n",
          report->cnodes->len, fanout, report->locations->len, report->metrics->len,
          report->cnodes->len * (double)report->locations->len * report->metrics->len / 1e6,
          report->cnodes->len * (double)report->locations->len * report->metrics->len * 8 / 1e6,
          t_build, rounds);
  printf ("Baseline: one pass over every value of one metric (%u × %u doubles): %.1f ms (median).\n"
          "Opening the built report in the browser (kubus_browser_new + default selection): %.0f "
          "ms.\n\n",
          report->cnodes->len, report->locations->len, base_ms, t_new * 1e3);
  printf ("| action (main thread, all panes' values) | median ms | max ms | median / baseline | "
          "max / 30 ms goal |\n"
          "|---|---|---|---|---|\n");
  for (guint i = 0; i < n_actions; i++)
    {
      GArray *ms = actions[i].ms;
      double  mx = gui_bench_max ((double *)ms->data, ms->len);
      double  med = gui_bench_median ((double *)ms->data, ms->len);
      if (!g_str_has_prefix (actions[i].name, "src/cube")
          && !g_str_has_prefix (actions[i].name, "models only"))
        all_max = MAX (all_max, mx);
      printf ("| %s | %.1f | %.1f | %.2f | %.2f |\n", actions[i].name, med, mx, med / base_ms,
              mx / GOAL_MS);
    }
  printf ("\nCheck: system-pane values vs a plain sum of the rows: largest relative difference "
          "%.1e (%s).\n",
          check, check < 1e-9 ? "ok" : "WRONG");
  printf ("\nSlowest browser update: %.1f ms = %.2f × the 30 ms goal: goal %s.\n", all_max,
          all_max / GOAL_MS, all_max < GOAL_MS ? "met" : "missed");
  return 0;
}
