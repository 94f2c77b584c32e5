/* test-gui-view-rules.c — rules of the browser's views that were once wrong (issue #3 audit),
 * without a display, in the string style of test-gui-model.c. Written by the browser work; the
 * report is gui_test_report_new() (see gui-test-report.c for its values). */
#include <gtk/gtk.h>

#include "gui-test-report.h"
#include "kubus-browser.h"

static KubusBrowser *
new_browser (CubeReport *report)
{
  g_autoptr (GError) error = NULL;
  KubusBrowser *b = kubus_browser_new (report, NULL, &error);

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  return b;
}

static void
assert_pane (KubusBrowser *b,
             KubusPaneKind kind,
             const char   *expected)
{
  g_autofree char *text = NULL;

  kubus_browser_flush (b);
  text = kubus_pane_model_to_string (kubus_browser_get_pane (b, kind));
  if (g_strcmp0 (text, expected) != 0)
    {
      g_printerr ("pane %d:\n--- expected\n%s--- got\n%s---\n", kind, expected, text);
      g_assert_cmpstr (text, ==, expected);
    }
}

static void
set_expanded (KubusBrowser *b,
              KubusPaneKind kind,
              guint         position,
              gboolean      expanded)
{
  GListModel *model = G_LIST_MODEL (kubus_pane_model_get_selection (kubus_browser_get_pane (b, kind)));
  g_autoptr (GtkTreeListRow) row = g_list_model_get_item (model, position);

  g_assert_nonnull (row);
  gtk_tree_list_row_set_expanded (row, expanded);
  kubus_browser_flush (b);
}

/* Score-P writes "visits" before "time": the browser still opens on where the time goes. */
static void
test_opens_on_time (void)
{
  CubeReport *r = cube_report_new ();
  CubeMetric *visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_UINT64, "occ",
                                               NULL, NULL);
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec",
                                             NULL, NULL);
  CubeRegion *region = cube_report_add_region (r, "main", "app.c", 1, 9);
  CubeCnode *cnode = cube_report_add_cnode (r, NULL, region, -1, NULL);
  g_autoptr (KubusBrowser) b = NULL;

  {
    CubeSysNode *m = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
    CubeSysNode *n = cube_report_add_sysnode (r, m, CUBE_SYS_NODE, "N", -1);
    CubeSysNode *p = cube_report_add_sysnode (r, n, CUBE_SYS_PROCESS, "rank 0", 0);
    cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, "thread 0", 0);
  }
  cube_report_set_value (r, visits, cnode, 0, 7);
  cube_report_set_value (r, time, cnode, 0, 2.5);
  b = new_browser (r);
  assert_pane (b, KUBUS_PANE_METRIC,
               "Visits 7\n"
               "Time 2.50 *\n");
  assert_pane (b, KUBUS_PANE_CALL, "main 2.50 *\n");
}

/* Hiding rows never takes the selection away (the panes to the right would go blank). */
static void
test_filter_keeps_selection (void)
{
  g_autoptr (KubusBrowser) b = new_browser (gui_test_report_new (1.0));
  KubusPaneModel *call = kubus_browser_get_pane (b, KUBUS_PANE_CALL);

  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  kubus_browser_select_position (b, KUBUS_PANE_CALL, 2);   /* bar: 4 of 16 */
  /* 30 % of the range (16) is 4.8: bar is below, but selected. */
  kubus_pane_model_set_hide_below (call, 30);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+] *\n");
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 4.00 [+]\n");
}

/* The metric pane mixes units: a metric's threshold is a share of its own root. */
static void
test_metric_threshold_per_root (void)
{
  g_autoptr (KubusBrowser) b = new_browser (gui_test_report_new (1.0));
  KubusPaneModel *metric = kubus_browser_get_pane (b, KUBUS_PANE_METRIC);

  kubus_browser_select_position (b, KUBUS_PANE_METRIC, 1);   /* Visits */
  set_expanded (b, KUBUS_PANE_METRIC, 0, TRUE);
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 10.00 [-]\n"
               "  MPI 6.00\n"
               "Visits 36 *\n");
  /* MPI is 6 of Time's 16 (37.5 %): hidden at 50 %; Time (16 of 36 visits) is not. */
  kubus_pane_model_set_hide_below (metric, 50);
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 10.00 [-]\n"
               "Visits 36 *\n");
}

/* Peer distribution compares inclusive values; an expanded row stays within 0–100 %. */
static void
test_peer_distribution_expanded (void)
{
  g_autoptr (KubusBrowser) b = new_browser (gui_test_report_new (1.0));

  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 2, TRUE);   /* rank 0: 7 inclusive, 0 exclusive */
  kubus_pane_model_set_mode (kubus_browser_get_pane (b, KUBUS_PANE_SYSTEM),
                             KUBUS_MODE_PEER_DISTRIBUTION);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0 [-]\n"
               "      thread 0 0\n"
               "    rank 1 100.00 [+]\n");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gui/view-rules/opens-on-time", test_opens_on_time);
  g_test_add_func ("/gui/view-rules/filter-keeps-selection", test_filter_keeps_selection);
  g_test_add_func ("/gui/view-rules/metric-threshold-per-root", test_metric_threshold_per_root);
  g_test_add_func ("/gui/view-rules/peer-distribution-expanded", test_peer_distribution_expanded);
  return g_test_run ();
}
