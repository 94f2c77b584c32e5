/* test-gui-model.c — the browser's three trees as text, without a display.
 *
 * GTK test-suite style: build the model, act on it (select, expand, switch modes), render the
 * visible rows as a string and compare with the expected string. Each row prints as
 * "<indent><name> <value>[ [+]| [-]][ *]": [+] collapsed with children, [-] expanded,
 * * selected. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "cube-private.h"
#include "gui-test-report.h"
#include "cube-path.h"
#include "kubus-browser.h"
#include "kubus-node.h"
#include "kubus-sim-summary.h"
#include "topology-test-report.h"

static KubusBrowser *
new_browser (void)
{
  g_autoptr (GError) error = NULL;
  KubusBrowser *b = kubus_browser_new (gui_test_report_new (1.0), NULL, &error);

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  return b;
}

static KubusPaneModel *
pane (KubusBrowser *b, KubusPaneKind kind)
{
  return kubus_browser_get_pane (b, kind);
}

static void
assert_pane (KubusBrowser *b,
             KubusPaneKind kind,
             const char   *expected)
{
  g_autofree char *text = NULL;

  kubus_browser_flush (b);
  text = kubus_pane_model_to_string (pane (b, kind));
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
  GListModel *model = G_LIST_MODEL (kubus_pane_model_get_selection (pane (b, kind)));
  g_autoptr (GtkTreeListRow) row = g_list_model_get_item (model, position);

  g_assert_nonnull (row);
  gtk_tree_list_row_set_expanded (row, expanded);
  kubus_browser_flush (b);
}

static void
select_only (KubusBrowser *b,
             KubusPaneKind kind,
             guint         position)
{
  kubus_browser_select_position (b, kind, position);
  kubus_browser_flush (b);
}

static void
test_initial (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();

  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 16.00 [+] *\n"
               "Visits 36\n");
  assert_pane (b, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 16.00 [+]\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 7.00 [+]\n"
               "    rank 1 9.00 [+]\n");
}

/* Collapsed = inclusive, expanded = exclusive, and the panes to the right follow. */
static void
test_expand_flows_right (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();

  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");
  /* Selected main is now expanded: the system pane shows main's own time. */
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 2.00 [+]\n");

  /* Expanding Time in the metric pane: Time without MPI. */
  set_expanded (b, KUBUS_PANE_METRIC, 0, TRUE);
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 10.00 [-] *\n"
               "  MPI 6.00\n"
               "Visits 36\n");
  set_expanded (b, KUBUS_PANE_CALL, 1, TRUE);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 0\n"
               "  bar 2.00 [+]\n");

  select_only (b, KUBUS_PANE_METRIC, 1);   /* MPI */
  select_only (b, KUBUS_PANE_CALL, 2);     /* foo/MPI_Send */
  assert_pane (b, KUBUS_PANE_CALL,
               "main 0 [-]\n"
               "  foo 0 [-]\n"
               "    MPI_Send 4.00 *\n"
               "  bar 2.00 [+]\n");
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 4.00 [+]\n");
}

/* Issue 25 §3: a .cubex opened lazily, as the loader and the browser open it, decodes the rows
 * of the metric roots and of the default metric only; a metric's rows are read when its parent
 * is expanded. The test report written as .cubex (EXCLUSIVE metrics: a total reads every row of
 * its metric): time 5 rows, mpi 2, visits 5. */
static void
test_lazy_cubex (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) built = gui_test_report_new (1.0);
  g_autofree char *dir = g_dir_make_tmp ("kubus-gui-lazy-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "r.cubex", NULL);
  g_autoptr (KubusBrowser) b = NULL;
  CubeReport *r;

  g_assert_no_error (error);
  g_assert_true (cube_report_write (built, path, &error));
  g_assert_no_error (error);
  r = cube_report_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  kubus_browser_warm (r);   /* the loader's worker thread */
  g_assert_cmpuint (r->priv->rows_decoded, ==, 5 + 5 + 5); /* time, visits; time's call paths */
  b = kubus_browser_new (r, NULL, &error);
  g_assert_no_error (error);
  kubus_browser_select_default (b);
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 16.00 [+] *\n"
               "Visits 36\n");
  assert_pane (b, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 16.00 [+]\n");
  g_assert_cmpuint (r->priv->rows_decoded, ==, 15);    /* nothing of mpi yet */

  /* Time expanded: MPI's total for the metric pane, MPI's call paths for the call pane, which
   * now shows Time without MPI */
  set_expanded (b, KUBUS_PANE_METRIC, 0, TRUE);
  g_assert_cmpuint (r->priv->rows_decoded, ==, 15 + 2 + 2);
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 10.00 [-] *\n"
               "  MPI 6.00\n"
               "Visits 36\n");
  g_assert_cmpuint (r->priv->rows_decoded, ==, 19);
  g_remove (path);
  g_rmdir (dir);
}

static void
test_modes (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();

  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  select_only (b, KUBUS_PANE_CALL, 1);     /* foo, collapsed: 10 of 16 */
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);

  kubus_browser_set_mode (b, KUBUS_MODE_PERCENT);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 12.50 [-]\n"
               "  foo 62.50 [+] *\n"
               "  bar 25.00 [+]\n");
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 31.25 [+]\n"
               "    rank 1 31.25 [+]\n");

  /* Percent of the selection to the left: the system pane sums to 100 %. */
  kubus_browser_set_mode (b, KUBUS_MODE_RELATIVE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 50.00 [+]\n"
               "    rank 1 50.00 [+]\n");
  assert_pane (b, KUBUS_PANE_CALL,
               "main 12.50 [-]\n"
               "  foo 62.50 [+] *\n"
               "  bar 25.00 [+]\n");

  /* Peer modes live in the system pane only. */
  g_assert_false (kubus_pane_model_mode_available (pane (b, KUBUS_PANE_CALL), KUBUS_MODE_PEER_PERCENT));
  /* foo collapsed is [5 5]: both ranks are the largest of their peers; expanded inner
   * nodes show their own (zero) value. */
  kubus_pane_model_set_mode (pane (b, KUBUS_PANE_SYSTEM), KUBUS_MODE_PEER_PERCENT);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 100.00 [+]\n"
               "    rank 1 100.00 [+]\n");
  kubus_browser_set_mode (b, KUBUS_MODE_ABSOLUTE);
  select_only (b, KUBUS_PANE_CALL, 2);     /* bar collapsed: rank 0 = 1, rank 1 = 3 */
  kubus_pane_model_set_mode (pane (b, KUBUS_PANE_SYSTEM), KUBUS_MODE_PEER_DISTRIBUTION);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0 [+]\n"
               "    rank 1 100.00 [+]\n");
}

/* Several selected rows add up. */
static void
test_multiple_selection (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();
  GtkSelectionModel *sel;

  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  sel = kubus_pane_model_get_selection (pane (b, KUBUS_PANE_CALL));
  gtk_selection_model_select_item (sel, 1, TRUE);
  gtk_selection_model_select_item (sel, 2, FALSE);
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 14.00 [+]\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 6.00 [+]\n"
               "    rank 1 8.00 [+]\n");
}

static void
test_flat_and_modules (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();

  kubus_browser_set_call_view (b, KUBUS_CALL_VIEW_FLAT);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 16.00 [+]\n"
               "foo 10.00 [+]\n"
               "MPI_Send 6.00\n"
               "bar 4.00 [+]\n");
  set_expanded (b, KUBUS_PANE_CALL, 1, TRUE);
  select_only (b, KUBUS_PANE_CALL, 1);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 16.00 [+]\n"
               "foo 6.00 [-] *\n"
               "  MPI_Send 4.00\n"
               "MPI_Send 6.00\n"
               "bar 4.00 [+]\n");
  /* foo's own time [2 4] on the two ranks. */
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 6.00 [+]\n");

  kubus_browser_set_call_view (b, KUBUS_CALL_VIEW_MODULE);
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  assert_pane (b, KUBUS_PANE_CALL,
               "app.c 0 [-]\n"
               "  main 2.00\n"
               "  foo 6.00\n"
               "MPI 6.00 [+]\n"
               "lib.c 2.00 [+]\n");
}

/* Expand All in parts (issue 25 §6, kubus_pane_view_expand_all spreads them over frames): the
 * rows each part makes, and at the end exactly the rows and selection of one Expand All. The
 * system tree of 8 × 8 × 8 ranks: machine › node › 512 processes › one thread each (1,026). */
static KubusBrowser *
new_grid_browser (gboolean sorted_filtered)
{
  static const gint64 dims[3] = { 8, 8, 8 };
  g_autoptr (GError) error = NULL;
  KubusBrowser *b = kubus_browser_new (topology_test_report_new (dims, 90, 100, TOPOLOGY_TEST_ZERO_RANK),
                                       NULL, &error);

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  if (sorted_filtered)
    {
      kubus_pane_model_set_sort (pane (b, KUBUS_PANE_SYSTEM), KUBUS_SORT_VALUE);
      kubus_pane_model_set_hide_zero (pane (b, KUBUS_PANE_SYSTEM), TRUE);
    }
  kubus_pane_model_collapse_all (pane (b, KUBUS_PANE_SYSTEM), G_MAXUINT);
  return b;
}

static guint
n_rows (KubusBrowser *b)
{
  return g_list_model_get_n_items (G_LIST_MODEL (kubus_pane_model_get_selection (pane (b, KUBUS_PANE_SYSTEM))));
}

static void
test_expand_all_in_parts (void)
{
  for (int sorted_filtered = 0; sorted_filtered <= 1; sorted_filtered++)
    {
      g_autoptr (KubusBrowser) whole = new_grid_browser (sorted_filtered);
      g_autoptr (KubusBrowser) parts = new_grid_browser (sorted_filtered);
      KubusPaneModel *sys = pane (parts, KUBUS_PANE_SYSTEM);
      guint hidden = sorted_filtered ? 2 : 0; /* rank 1: process and thread zero, expanded first */
      g_autofree char *want = NULL, *got = NULL;

      kubus_pane_model_expand_all (pane (whole, KUBUS_PANE_SYSTEM), G_MAXUINT, TRUE);
      g_assert_cmpuint (n_rows (whole), ==, 1026 - hidden);
      want = kubus_pane_model_to_string (pane (whole, KUBUS_PANE_SYSTEM));

      g_assert_cmpuint (n_rows (parts), ==, 1);
      /* 64 rows in tree order: machine and node one level each (their subtrees are larger
       * than 4 × 64 rows), then 31 processes with their thread: all 512 processes show. */
      g_assert_true (kubus_pane_model_expand_all_start (sys, G_MAXUINT, 64));
      g_assert_true (kubus_pane_model_expand_all_pending (sys));
      g_assert_cmpuint (n_rows (parts), ==, 2 + 512 + 31 - hidden);
      /* the next 192: 96 more processes */
      g_assert_true (kubus_pane_model_expand_all_continue (sys, 192));
      g_assert_cmpuint (n_rows (parts), ==, 2 + 512 + 31 + 96 - hidden);
      g_assert_false (kubus_pane_model_expand_all_continue (sys, G_MAXUINT));
      g_assert_false (kubus_pane_model_expand_all_pending (sys));
      g_assert_cmpuint (n_rows (parts), ==, 1026 - hidden);
      kubus_browser_flush (parts);
      kubus_browser_flush (whole);
      got = kubus_pane_model_to_string (sys);
      g_assert_cmpstr (got, ==, want);
    }
}

/* A collapse between the parts wins: Collapse All leaves nothing to finish, a row collapsed
 * while it waited (by Collapse All or by its expander) stays collapsed, and everything else is
 * expanded. A tree smaller than the
 * first part is expanded at once. */
static void
test_expand_all_parts_collapse (void)
{
  g_autoptr (KubusBrowser) b = new_grid_browser (FALSE);
  KubusPaneModel *sys = pane (b, KUBUS_PANE_SYSTEM);
  KubusPaneModel *call = pane (b, KUBUS_PANE_CALL);
  g_autoptr (KubusNodeRow) item = NULL;
  gboolean expanded = TRUE;

  g_assert_true (kubus_pane_model_expand_all_start (sys, G_MAXUINT, 64));
  kubus_pane_model_collapse_all (sys, G_MAXUINT);
  g_assert_false (kubus_pane_model_expand_all_pending (sys));
  kubus_pane_model_expand_all_finish (sys);
  g_assert_cmpuint (n_rows (b), ==, 1);

  g_assert_true (kubus_pane_model_expand_all_start (sys, G_MAXUINT, 64));
  /* row 2 + 31 · 2 + 10: the 42nd process, still collapsed, waiting */
  item = kubus_pane_model_get_row (sys, 2 + 31 * 2 + 10, &expanded);
  g_assert_false (expanded);
  g_assert_cmpstr (kubus_node_name (kubus_node_row_get_kind (item), kubus_node_row_get_node (item)), ==,
                   "rank 41");
  kubus_pane_model_collapse_all (sys, 2 + 31 * 2 + 10);
  kubus_pane_model_expand_all_finish (sys);
  g_assert_cmpuint (n_rows (b), ==, 1025);
  g_clear_object (&item);
  item = kubus_pane_model_get_row (sys, 2 + 41 * 2, &expanded);
  g_assert_false (expanded);
  g_assert_cmpstr (kubus_node_name (kubus_node_row_get_kind (item), kubus_node_row_get_node (item)), ==,
                   "rank 41");

  /* A row the user had opened, waiting, and closed by its expander (not by Collapse All)
   * before its part came: it stays closed. */
  kubus_pane_model_collapse_all (sys, G_MAXUINT);
  for (guint pos = 0; pos < 2; pos++)
    {
      g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (kubus_pane_model_get_selection (sys)), pos);
      gtk_tree_list_row_set_expanded (row, TRUE);
    }
  {
    g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (kubus_pane_model_get_selection (sys)), 2 + 100);
    gtk_tree_list_row_set_expanded (row, TRUE);
  }
  g_assert_cmpuint (n_rows (b), ==, 2 + 512 + 1);
  g_assert_true (kubus_pane_model_expand_all_start (sys, G_MAXUINT, 64));
  {
    /* 31 processes expanded with their thread, rank 100 waits open */
    g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (kubus_pane_model_get_selection (sys)), 2 + 31 * 2 + 69);
    g_autoptr (KubusNodeRow) it = gtk_tree_list_row_get_item (row);
    g_assert_cmpstr (kubus_node_name (kubus_node_row_get_kind (it), kubus_node_row_get_node (it)), ==, "rank 100");
    g_assert_true (gtk_tree_list_row_get_expanded (row));
    gtk_tree_list_row_set_expanded (row, FALSE);
  }
  kubus_pane_model_expand_all_finish (sys);
  g_assert_cmpuint (n_rows (b), ==, 1025);
  g_clear_object (&item);
  item = kubus_pane_model_get_row (sys, 2 + 100 * 2, &expanded);
  g_assert_false (expanded);
  g_assert_cmpstr (kubus_node_name (kubus_node_row_get_kind (item), kubus_node_row_get_node (item)), ==,
                   "rank 100");

  /* the call tree is one row: all of it in the first part */
  kubus_pane_model_collapse_all (call, G_MAXUINT);
  g_assert_false (kubus_pane_model_expand_all_start (call, G_MAXUINT, 64));
  g_assert_false (kubus_pane_model_expand_all_pending (call));
}

static void
test_sort_filter_find (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();
  KubusPaneModel *call = pane (b, KUBUS_PANE_CALL);
  g_autoptr (GError) error = NULL;
  guint pos;

  kubus_pane_model_expand_all (call, G_MAXUINT, TRUE);
  kubus_pane_model_set_sort (call, KUBUS_SORT_NAME);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n");
  kubus_pane_model_set_sort (call, KUBUS_SORT_VALUE);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00\n");
  /* Hide rows whose inclusive value is below 30 % of the pane's range (16). */
  kubus_pane_model_set_hide_below (call, 30);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n");
  kubus_pane_model_set_hide_below (call, 0);
  kubus_pane_model_expand_all (call, G_MAXUINT, FALSE);
  assert_pane (b, KUBUS_PANE_CALL, "main 16.00 [+] *\n");

  /* Find reveals matches one after another. */
  g_assert_cmpint (kubus_pane_model_find (call, "^mpi_s", &error), ==, 2);
  g_assert_no_error (error);
  pos = kubus_pane_model_find_next (call, TRUE);
  g_assert_cmpuint (pos, ==, 2);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 4.00 [+]\n");
  {
    g_autoptr (KubusNodeRow) send = kubus_pane_model_get_row (call, 2, NULL);
    g_autoptr (KubusNodeRow) bar = kubus_pane_model_get_row (call, 3, NULL);
    g_autoptr (KubusNodeRow) main_row = kubus_pane_model_get_row (call, 0, NULL);
    g_assert_cmpuint (kubus_pane_model_match_state (call, send), ==, 1);
    g_assert_cmpuint (kubus_pane_model_match_state (call, bar), ==, 2);   /* collapsed, holds a match */
    g_assert_cmpuint (kubus_pane_model_match_state (call, main_row), ==, 2);
  }
  g_assert_cmpuint (kubus_pane_model_find_next (call, TRUE), ==, 4);
  g_assert_cmpuint (kubus_pane_model_find_next (call, FALSE), ==, 2);
  g_assert_cmpint (kubus_pane_model_find (call, "(", &error), ==, -1);
  g_assert_true (error != NULL && error->domain == G_REGEX_ERROR);
}

static void
test_largest_path (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();
  guint pos = kubus_pane_model_expand_largest (pane (b, KUBUS_PANE_CALL), G_MAXUINT);

  g_assert_cmpuint (pos, ==, 2);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 4.00 [+]\n");
}

/* A − B with B = A × 0.5: every Time value is positive, shown as percent of A's total. */
static void
test_difference (void)
{
  g_autoptr (GError) error = NULL;
  CubeReport *a = gui_test_report_new (1.0);
  g_autoptr (CubeReport) bb = gui_test_report_new (1.5);
  CubeReport *diff = cube_algebra_diff (a, bb, &error);
  g_autoptr (KubusBrowser) b = NULL;
  GdkRGBA color;
  gboolean negative;

  g_assert_no_error (error);
  b = kubus_browser_new (diff, a, &error);
  g_assert_no_error (error);
  kubus_browser_select_default (b);
  g_assert_true (kubus_browser_is_difference (b));
  g_assert_cmpint (kubus_pane_model_get_mode (pane (b, KUBUS_PANE_CALL)), ==, KUBUS_MODE_PERCENT);
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  /* A − 1.5 A = −0.5 A: minus half of each share of A's total. */
  assert_pane (b, KUBUS_PANE_CALL,
               "main -6.25 [-] *\n"
               "  foo -31.25 [+]\n"
               "  bar -12.50 [+]\n");
  {
    g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (pane (b, KUBUS_PANE_CALL), 1, NULL);
    g_assert_true (kubus_pane_model_row_color (pane (b, KUBUS_PANE_CALL), row, FALSE, &color, &negative));
    g_assert_true (negative);
    /* Losses are warm, gains cold: a negative value is bluish. */
    g_assert_cmpfloat (color.blue, >, color.red);
  }
}

static void
test_external (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();
  g_autoptr (GError) error = NULL;

  g_assert_false (kubus_pane_model_mode_available (pane (b, KUBUS_PANE_CALL), KUBUS_MODE_EXTERNAL));
  g_assert_true (kubus_browser_set_external (b, gui_test_report_new (2.0), &error));
  g_assert_no_error (error);
  kubus_browser_set_mode (b, KUBUS_MODE_EXTERNAL);
  assert_pane (b, KUBUS_PANE_CALL, "main 50.00 [+] *\n");
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 50.00 [+] *\n"
               "Visits 100.00\n");
}

static void
test_colors (void)
{
  GdkRGBA c;

  g_assert_false (kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, 0.0, FALSE, &c));
  g_assert_true (kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, 1.0, FALSE, &c));
  g_assert_cmpfloat (c.red, ==, 1.0);
  g_assert_cmpfloat (c.green, ==, 0.0);
  g_assert_true (kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, 1e-6, FALSE, &c));
  g_assert_cmpfloat (c.blue, ==, 1.0);
  g_assert_cmpfloat (c.red, <, 0.01);
  /* Lightened (insignificant) is paler than the same value unlightened. */
  {
    GdkRGBA l;
    kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, 0.005, TRUE, &l);
    kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, 0.005, FALSE, &c);
    g_assert_cmpfloat (l.red + l.green + l.blue, >, c.red + c.green + c.blue + 1.0);
  }
  /* Signed: +x and −x never share a colour. */
  for (double x = 0.05; x <= 1.0; x += 0.05)
    {
      GdkRGBA p, n;
      kubus_severity_color (KUBUS_SCALE_RAINBOW, TRUE, x, FALSE, &p);
      kubus_severity_color (KUBUS_SCALE_RAINBOW, TRUE, -x, FALSE, &n);
      g_assert_cmpfloat (p.red, >, p.blue);
      g_assert_cmpfloat (n.blue, >, n.red);
    }
}

/* ---- issue 16: values, number format, system tree colours ----------------------------------------- */

/* A plain report: Time, Visits; main › { comm, work }; 4 locations. Time's exclusive values at
 * main are rounding residues (±4e-16), as Cube 4 summaries hold them after exclusive values
 * are made from inclusive ones. Time per location at work: 10.80, 12.00, 12.50, 13.45 s. */
static CubeReport *
residue_report (void)
{
  CubeReport *r = cube_report_new ();
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeMetric *visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_UINT64, "occ", NULL, NULL);
  CubeCnode *main_c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 9), -1, NULL);
  CubeCnode *comm = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "comm", "a.c", 10, 19), 3, "a.c");
  CubeCnode *work = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "work", "a.c", 20, 29), 4, "a.c");
  CubeSysNode *m = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  CubeSysNode *n = cube_report_add_sysnode (r, m, CUBE_SYS_NODE, "N", -1);
  const double work_time[4] = { 10.80, 12.00, 12.50, 13.45 };

  for (int l = 0; l < 4; l++)
    {
      g_autofree char *name = g_strdup_printf ("rank %d", l);
      CubeSysNode *p = cube_report_add_sysnode (r, n, CUBE_SYS_PROCESS, name, l);
      cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, "thread", 0);
    }
  for (int l = 0; l < 4; l++)
    {
      cube_report_set_value (r, time, main_c, l, l % 2 ? -3.99e-16 : 4.4e-16);
      cube_report_set_value (r, time, comm, l, 1.0);
      cube_report_set_value (r, time, work, l, work_time[l]);
      cube_report_set_value (r, visits, work, l, 123456789);
    }
  return r;
}

/* Defect 3 and "Values": one notation for every pane (counts as integers, times with two
 * decimals), a residue reads 0 (never "-0.00"), and a plain report never turns diverging. */
static void
test_values_plain_report (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) b = kubus_browser_new (residue_report (), NULL, &error);
  KubusLegendInfo legend = { 0 };

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 52.75 *\n"
               "Visits 493827156\n");
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 0 [-] *\n"
               "  comm 4.00\n"
               "  work 48.75\n");
  kubus_pane_model_get_legend (pane (b, KUBUS_PANE_CALL), &legend);
  g_assert_false (legend.is_signed);
  g_assert_cmpstr (legend.low, ==, "0");
  g_assert_cmpstr (legend.high, ==, "52.75");
  kubus_legend_info_clear (&legend);
  /* main's own time (residues) as the selection: the system pane shows 0, not -0.00 or
   * -3.99e-16, in absolute and in percent mode, and nothing is coloured or marked negative. */
  select_only (b, KUBUS_PANE_CALL, 0);
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0 [+]\n"
               "    rank 1 0 [+]\n"
               "    rank 2 0 [+]\n"
               "    rank 3 0 [+]\n");
  kubus_pane_model_get_legend (pane (b, KUBUS_PANE_SYSTEM), &legend);
  g_assert_false (legend.is_signed);
  kubus_legend_info_clear (&legend);
  kubus_pane_model_set_mode (pane (b, KUBUS_PANE_SYSTEM), KUBUS_MODE_PERCENT);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0 [+]\n"
               "    rank 1 0 [+]\n"
               "    rank 2 0 [+]\n"
               "    rank 3 0 [+]\n");
  {
    g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (pane (b, KUBUS_PANE_SYSTEM), 3, NULL);
    GdkRGBA c;
    gboolean negative = TRUE;

    /* rank 1's −3.99e-16: no colour (zero), not negative. */
    g_assert_false (kubus_pane_model_row_color (pane (b, KUBUS_PANE_SYSTEM), row, FALSE, &c, &negative));
    g_assert_false (negative);
  }
}

/* The value's tooltip: full precision and unit; in a percent mode the absolute value too. */
static void
test_value_tooltip (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();
  g_autoptr (KubusNodeRow) row = NULL;
  g_autofree char *abs_text = NULL, *pct_text = NULL, *metric_text = NULL;

  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  row = kubus_pane_model_get_row (pane (b, KUBUS_PANE_CALL), 2, NULL);   /* bar, 4 s */
  abs_text = kubus_pane_model_value_tooltip (pane (b, KUBUS_PANE_CALL), row, FALSE);
  g_assert_cmpstr (abs_text, ==, "4 sec (inclusive)");
  kubus_pane_model_set_mode (pane (b, KUBUS_PANE_CALL), KUBUS_MODE_PERCENT);
  pct_text = kubus_pane_model_value_tooltip (pane (b, KUBUS_PANE_CALL), row, FALSE);
  g_assert_cmpstr (pct_text, ==, "25 % of total\n4 sec (inclusive)");
  {
    g_autoptr (KubusNodeRow) visits = kubus_pane_model_get_row (pane (b, KUBUS_PANE_METRIC), 1, NULL);
    metric_text = kubus_pane_model_value_tooltip (pane (b, KUBUS_PANE_METRIC), visits, FALSE);
    g_assert_cmpstr (metric_text, ==, "36 occ (inclusive)");
  }
}

/* Defect 2: the system tree colours its nodes between the smallest and the largest of their
 * peers: 10.80 … 13.45 s spans the scale instead of being one colour at 13 % of the root. */
static void
test_system_colours_peers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) b = kubus_browser_new (residue_report (), NULL, &error);
  KubusPaneModel *sys;
  KubusLegendInfo legend = { 0 };
  const double expect[4] = { 0, (12.00 - 10.80) / 2.65, (12.50 - 10.80) / 2.65, 1.0 };

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  select_only (b, KUBUS_PANE_CALL, 2);   /* work */
  sys = pane (b, KUBUS_PANE_SYSTEM);
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 10.80 [+]\n"
               "    rank 1 12.00 [+]\n"
               "    rank 2 12.50 [+]\n"
               "    rank 3 13.45 [+]\n");
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (sys, 2 + i, NULL);
      GdkRGBA got, want;
      gboolean negative;

      g_assert_true (kubus_pane_model_row_color (sys, row, FALSE, &got, &negative));
      g_assert_true (kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, expect[i] > 0 ? expect[i] : 1e-9,
                                           FALSE, &want));
      g_assert_cmpfloat_with_epsilon (got.red, want.red, 1e-9);
      g_assert_cmpfloat_with_epsilon (got.green, want.green, 1e-9);
      g_assert_cmpfloat_with_epsilon (got.blue, want.blue, 1e-9);
    }
  /* The legend's ends are the locations' smallest and largest value. */
  kubus_pane_model_get_legend (sys, &legend);
  g_assert_cmpstr (legend.low, ==, "10.80");
  g_assert_cmpstr (legend.high, ==, "13.45");
  g_assert_true (g_str_has_prefix (legend.caption, "sec · "));
  kubus_legend_info_clear (&legend);
  /* Peer percent keeps its own meaning: 10.80 / 13.45 of the scale. */
  kubus_pane_model_set_mode (sys, KUBUS_MODE_PEER_PERCENT);
  {
    g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (sys, 2, NULL);
    GdkRGBA got, want;
    gboolean negative;

    g_assert_true (kubus_pane_model_row_color (sys, row, FALSE, &got, &negative));
    kubus_severity_color (KUBUS_SCALE_RAINBOW, FALSE, 10.80 / 13.45, FALSE, &want);
    g_assert_cmpfloat_with_epsilon (got.red, want.red, 1e-9);
    g_assert_cmpfloat_with_epsilon (got.green, want.green, 1e-9);
  }
}

/* The other number formats of the preferences, and their zero. */
static void
test_number_formats (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) b = kubus_browser_new (residue_report (), NULL, &error);

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    kubus_pane_model_set_precision (pane (b, i), 3, KUBUS_FORMAT_SCIENTIFIC);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 0 [-] *\n"
               "  comm 4\n"
               "  work 48.750\n");
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 52.750 *\n"
               "Visits 4.938e+08\n");
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    kubus_pane_model_set_precision (pane (b, i), 2, KUBUS_FORMAT_COMMON_EXPONENT);
  select_only (b, KUBUS_PANE_METRIC, 1);   /* Visits: 493,827,156 → ×10⁸ */
  assert_pane (b, KUBUS_PANE_CALL,
               "main 0 [-] *\n"
               "  comm 0\n"
               "  work 4.94\n");
}

/* File › Export Values: the visible rows of a pane as CSV, full precision, quoted names. */
static void
test_csv (void)
{
  g_autoptr (KubusBrowser) b = new_browser ();
  g_autofree char *csv = NULL, *pct = NULL;

  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  csv = kubus_browser_to_csv (b, KUBUS_PANE_CALL);
  g_assert_cmpstr (csv, ==,
                   "metric,metric_name,call_path,depth,name,value,mode,unit,inclusive,exclusive,state\r\n"
                   "time,Time,main,0,main,2,absolute,sec,16,2,expanded\r\n"
                   "time,Time,main/foo,1,foo,10,absolute,sec,10,6,collapsed\r\n"
                   "time,Time,main/bar,1,bar,4,absolute,sec,4,2,collapsed\r\n");
  kubus_pane_model_set_mode (pane (b, KUBUS_PANE_CALL), KUBUS_MODE_PERCENT);
  pct = kubus_browser_to_csv (b, KUBUS_PANE_CALL);
  g_assert_nonnull (strstr (pct, "time,Time,main/foo,1,foo,62.5,percent-of-total,% of total,10,6,collapsed\r\n"));
}

/* Issue 24, item 4: an export says which metric and call path its values are of (the system
 * pane: the selection to its left, "(exclusive)" for an expanded one) and carries no float
 * noise: 0.01 + 0.019495444 is written 0.029495444, not 0.029495444000000003. */
static void
test_csv_context (void)
{
  g_autoptr (GError) error = NULL;
  CubeReport *r = cube_report_new ();
  CubeMetric *m = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeCnode *main_c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 9), -1, NULL);
  CubeCnode *leaf = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "MPI_Barrier", "MPI", -1, -1), 3, "a.c");
  CubeSysNode *mach = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  g_autoptr (KubusBrowser) b = NULL;
  g_autofree char *call = NULL, *sys = NULL;

  cube_report_add_sysnode (r, mach, CUBE_SYS_THREAD, "t0", 0);
  cube_report_add_sysnode (r, mach, CUBE_SYS_THREAD, "t1", 1);
  cube_report_set_value (r, m, main_c, 0, 0.01);
  cube_report_set_value (r, m, leaf, 0, 0.019495444);
  cube_report_set_value (r, m, main_c, 1, 1.0);
  b = kubus_browser_new (r, NULL, &error);
  g_assert_no_error (error);
  kubus_browser_select_default (b);
  call = kubus_browser_to_csv (b, KUBUS_PANE_CALL);
  g_assert_cmpstr (call, ==,
                   "metric,metric_name,call_path,depth,name,value,mode,unit,inclusive,exclusive,state\r\n"
                   "time,Time,main,0,main,1.029495444,absolute,sec,1.029495444,1.01,collapsed\r\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  select_only (b, KUBUS_PANE_CALL, 0);
  sys = kubus_browser_to_csv (b, KUBUS_PANE_SYSTEM);
  g_assert_cmpstr (sys, ==,
                   "metric,metric_name,call_path,depth,name,value,mode,unit,inclusive,exclusive,state\r\n"
                   "time,Time,main (exclusive),0,M,0,absolute,sec,1.01,0,expanded\r\n"
                   "time,Time,main (exclusive),1,t0,0.01,absolute,sec,0.01,0.01,leaf\r\n"
                   "time,Time,main (exclusive),1,t1,1,absolute,sec,1,1,leaf\r\n");
  {
    /* the sum on t0 in the system pane of main collapsed: no noise digits */
    g_autofree char *whole = NULL;
    set_expanded (b, KUBUS_PANE_CALL, 0, FALSE);
    whole = kubus_browser_to_csv (b, KUBUS_PANE_SYSTEM);
    g_assert_nonnull (strstr (whole, "time,Time,main,1,t0,0.029495444,absolute,sec,0.029495444,0.029495444,leaf\r\n"));
  }
}

/* A name with a comma and quotes is one quoted CSV field; bytes that are not UTF-8 (a report
 * built in memory may hold them) become U+FFFD, a line break stays inside the quotes. */
static void
test_csv_quoting (void)
{
  g_autoptr (GError) error = NULL;
  CubeReport *r = cube_report_new ();
  CubeMetric *m = cube_report_add_metric (r, NULL, "t", "T", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeCnode *c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "f(int, \"x\")", "a.c", 1, 2), -1, NULL);
  CubeCnode *h = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "a\xE0\x9C\x90\nb", "a.c", 3, 4), -1, NULL);
  g_autoptr (KubusBrowser) b = NULL;
  g_autofree char *csv = NULL;

  cube_report_add_sysnode (r, cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1), CUBE_SYS_THREAD, "t", 0);
  cube_report_set_value (r, m, c, 0, 0.1);
  cube_report_set_value (r, m, h, 0, 0.05);
  b = kubus_browser_new (r, NULL, &error);
  g_assert_no_error (error);
  kubus_browser_select_default (b);
  csv = kubus_browser_to_csv (b, KUBUS_PANE_CALL);
  g_assert_cmpstr (csv, ==,
                   "metric,metric_name,call_path,depth,name,value,mode,unit,inclusive,exclusive,state\r\n"
                   "t,T,\"f(int, \"\"x\"\")\",0,\"f(int, \"\"x\"\")\",0.1,absolute,sec,0.1,0.1,leaf\r\n"
                   "t,T,\"a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\nb\",0,\"a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\nb\",0.05,absolute,sec,0.05,0.05,leaf\r\n");
}

/* ---- issue 13: the profile's min_time / max_time -------------------------------------------------- */

/* A profile as kubus-run writes it: min_time (MINDOUBLE) and max_time (MAXDOUBLE) per call
 * path; main › { comm, work }; 2 processes × 2 threads. The second thread of each process only
 * calls comm (MPI calls of other threads): at main and work it has no value, stored as DBL_MAX
 * for a minimum (cubelib's "no value") and 0 for a maximum. */
static CubeReport *
minmax_report (void)
{
  CubeReport *r = cube_report_new ();
  CubeMetric *mn = cube_report_add_metric (r, NULL, "min_time", "Minimum Inclusive Time", CUBE_DTYPE_MINDOUBLE, "sec", NULL, NULL);
  CubeMetric *mx = cube_report_add_metric (r, NULL, "max_time", "Maximum Inclusive Time", CUBE_DTYPE_MAXDOUBLE, "sec", NULL, NULL);
  CubeCnode *main_c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 9), -1, NULL);
  CubeCnode *comm = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "comm", "a.c", 10, 19), 3, "a.c");
  CubeCnode *work = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "work", "a.c", 20, 29), 4, "a.c");
  CubeSysNode *m = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  CubeSysNode *n = cube_report_add_sysnode (r, m, CUBE_SYS_NODE, "N", -1);
  const double comm_min[4] = { 0.50, 0.25, 0.75, 0.40 };
  const double comm_max[4] = { 1.50, 1.25, 1.75, 1.40 };

  for (int p = 0; p < 2; p++)
    {
      g_autofree char *name = g_strdup_printf ("rank %d", p);
      CubeSysNode *proc = cube_report_add_sysnode (r, n, CUBE_SYS_PROCESS, name, p);
      cube_report_add_sysnode (r, proc, CUBE_SYS_THREAD, "thread 0", 2 * p);
      cube_report_add_sysnode (r, proc, CUBE_SYS_THREAD, "thread 1", 2 * p + 1);
    }
  for (int l = 0; l < 4; l++)
    {
      gboolean main_thread = l % 2 == 0;
      cube_report_set_value (r, mn, main_c, l, main_thread ? 5.0 + l / 2 : G_MAXDOUBLE);
      cube_report_set_value (r, mx, main_c, l, main_thread ? 5.0 + l / 2 : 0.0);
      cube_report_set_value (r, mn, work, l, main_thread ? 2.0 + l / 2 : G_MAXDOUBLE);
      cube_report_set_value (r, mx, work, l, main_thread ? 4.0 + l / 2 : 0.0);
      cube_report_set_value (r, mn, comm, l, comm_min[l]);
      cube_report_set_value (r, mx, comm, l, comm_max[l]);
    }
  return r;
}

/* Minima and maxima aggregate by min and max everywhere: along the call tree (a collapsed node
 * is the extreme of its subtree), over the system tree (a process is the extreme of its
 * threads, never a sum), and a location without a value neither pulls a minimum to 0 nor
 * shows DBL_MAX. */
static void
test_min_max_profile (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) b = kubus_browser_new (minmax_report (), NULL, &error);

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  assert_pane (b, KUBUS_PANE_METRIC,
               "Minimum Inclusive Time 0.250 *\n"
               "Maximum Inclusive Time 6.00\n");
  assert_pane (b, KUBUS_PANE_CALL, "main 0.250 [+] *\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0.250 [+]\n"
               "    rank 1 0.400 [+]\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 2, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 5, TRUE);
  /* main expanded: its own minimum, comm's and work's */
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 5.00 [-] *\n"
               "  comm 0.250\n"
               "  work 2.00\n");
  /* work: only the main threads have a value; each process and the machine take theirs */
  select_only (b, KUBUS_PANE_CALL, 2);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0 [-]\n"
               "      thread 0 2.00\n"
               "      thread 1 0\n"
               "    rank 1 0 [-]\n"
               "      thread 0 3.00\n"
               "      thread 1 0\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 5, FALSE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 2, FALSE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 2.00 [+]\n"
               "    rank 1 3.00 [+]\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, FALSE);
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 2.00 [+]\n");
  /* the same for the maximum */
  kubus_browser_select_metric (b, "max_time");
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 5.00 [+]\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 4.00 [+]\n"
               "    rank 1 5.00 [+]\n");
  /* the whole program: main collapsed is the largest of its subtree */
  set_expanded (b, KUBUS_PANE_CALL, 0, FALSE);
  select_only (b, KUBUS_PANE_CALL, 0);
  assert_pane (b, KUBUS_PANE_CALL, "main 6.00 [+] *\n");
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 5.00 [+]\n"
               "    rank 1 6.00 [+]\n");
  g_assert_true (kubus_browser_select_metric (b, "min_time"));
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0.250 [+]\n"
               "    rank 1 0.400 [+]\n");
}


/* ---- issue 24: residues, numbers, the legend of what is shown ------------------------------------- */

/* time › execution › { comp, mpi } on 4 locations, stored as an analyzer writes them: comp is
 * execution − mpi, so execution's own (metric-exclusive) value is 0 up to rounding residues of
 * either sign. main › MPI_Barrier: 30,000.4 s in all, of which the barrier takes 1.40 s. */
static CubeReport *
metric_residue_report (double scale)
{
  CubeReport *r = cube_report_new ();
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeMetric *exec = cube_report_add_metric (r, time, "execution", "Execution", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeMetric *comp = cube_report_add_metric (r, exec, "comp", "Computation", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeMetric *mpi = cube_report_add_metric (r, exec, "mpi", "MPI", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeCnode *main_c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 9), -1, NULL);
  CubeCnode *barrier = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "MPI_Barrier", "MPI", -1, -1), 5, "a.c");
  CubeSysNode *m = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  const double t[4] = { 7499.3, 7500.1 + 1e-9, 7500.7, 7499.1 };

  for (int l = 0; l < 4; l++)
    {
      g_autofree char *name = g_strdup_printf ("rank %d", l);
      CubeSysNode *p = cube_report_add_sysnode (r, m, CUBE_SYS_PROCESS, name, l);
      double all = t[l] * scale + 0.3, in_mpi = 0.2 + 0.1 * l;

      cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, "thread", 0);
      /* main's own time and the barrier (0.80 s in all) */
      for (CubeMetric *x = time; x != NULL; x = x == time ? exec : NULL)
        {
          cube_report_set_value (r, x, main_c, l, all - in_mpi);
          cube_report_set_value (r, x, barrier, l, in_mpi);
        }
      cube_report_set_value (r, comp, main_c, l, (all - in_mpi) - 0);
      cube_report_set_value (r, comp, barrier, l, in_mpi - in_mpi);
      cube_report_set_value (r, mpi, barrier, l, in_mpi);
    }
  return r;
}

static char *
legend_text (KubusPaneModel *p)
{
  KubusLegendInfo l = { 0 };
  char *text;

  kubus_pane_model_get_legend (p, &l);
  text = g_strdup_printf ("%s … %s %s", l.low, l.high, l.caption);
  kubus_legend_info_clear (&l);
  return text;
}

/* Item 3: metric-exclusive residues (Execution expanded) read 0 everywhere: rows, colours and
 * the legend, which said "−1.33e-15 … 0 sec" while every row read 0. */
static void
test_residues_everywhere (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) b = kubus_browser_new (metric_residue_report (1.0), NULL, &error);
  KubusPaneModel *sys;
  g_autofree char *legend = NULL;
  guint n;

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  set_expanded (b, KUBUS_PANE_METRIC, 0, TRUE);
  set_expanded (b, KUBUS_PANE_METRIC, 1, TRUE);
  select_only (b, KUBUS_PANE_METRIC, 1);   /* Execution, expanded: its own part */
  assert_pane (b, KUBUS_PANE_METRIC,
               "Time 0 [-]\n"
               "  Execution 0 [-] *\n"
               "    Computation 29999.00\n"
               "    MPI 1.40\n");
  sys = pane (b, KUBUS_PANE_SYSTEM);
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  rank 0 0 [+]\n"
               "  rank 1 0 [+]\n"
               "  rank 2 0 [+]\n"
               "  rank 3 0 [+]\n");
  legend = legend_text (sys);
  g_assert_cmpstr (legend, ==, "0 … 0 sec · processes: min → max");
  n = g_list_model_get_n_items (G_LIST_MODEL (kubus_pane_model_get_selection (sys)));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (sys, i, NULL);
      GdkRGBA c;
      gboolean negative = TRUE;

      g_assert_false (kubus_pane_model_row_color (sys, row, FALSE, &c, &negative));
      g_assert_false (negative);
      g_assert_cmpfloat (kubus_pane_model_raw_value (sys, row, FALSE), ==, 0.0);
    }
  {
    /* statistics and the topology see the same zeros */
    guint nl;
    const double *per_location = kubus_browser_get_location_values (b, &nl);
    for (guint l = 0; l < nl; l++)
      g_assert_cmpfloat (per_location[l], ==, 0.0);
  }
}

/* Item 3, difference view: A − B of two runs equal up to rounding on main's own time, with a
 * real loss on MPI_Barrier (the pane is diverging): main reads a black 0 with an empty square,
 * not a blue "0" with a sunken one; the barrier stays a loss. */
static void
test_residues_difference (void)
{
  g_autoptr (GError) error = NULL;
  CubeReport *a = metric_residue_report (1.0);
  g_autoptr (CubeReport) bb = metric_residue_report (1.0 + 4e-16);
  CubeReport *diff = NULL;
  g_autoptr (KubusBrowser) b = NULL;
  KubusPaneModel *call;
  CubeCnode *barrier = cube_report_find_cnode_path (bb, "main/MPI_Barrier");

  /* B waits 1 s longer at the barrier on every rank */
  for (int l = 0; l < 4; l++)
    for (const char *const *m = (const char *const[]) { "time", "execution", "mpi", NULL }; *m != NULL; m++)
      cube_report_set_value (bb, cube_report_find_metric (bb, *m), barrier, l, 0.2 + 0.1 * l + 1.0);
  diff = cube_algebra_diff (a, bb, &error);
  g_assert_no_error (error);
  b = kubus_browser_new (diff, a, &error);
  g_assert_no_error (error);
  kubus_browser_select_default (b);
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  call = pane (b, KUBUS_PANE_CALL);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 0 [-] *\n"
               "  MPI_Barrier -0.0133\n");
  {
    g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (call, 0, NULL);
    GdkRGBA c;
    gboolean negative = TRUE;
    g_autofree char *own = kubus_pane_model_format_value (call, row, TRUE);

    /* main's own part (expanded): residues only */
    g_assert_cmpstr (own, ==, "0");
    g_assert_false (kubus_pane_model_row_color (call, row, TRUE, &c, &negative));
    g_assert_false (negative);
  }
  {
    g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (call, 1, NULL);
    GdkRGBA c;
    gboolean negative = FALSE;

    g_assert_true (kubus_pane_model_row_color (call, row, FALSE, &c, &negative));
    g_assert_true (negative);
  }
}

/* Item 4: one rule. A non-zero percentage never reads "0"; values below 1 keep three
 * significant digits; peers coloured apart read apart; tooltips carry six digits, not 17. */
static void
test_number_rule (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusBrowser) b = kubus_browser_new (metric_residue_report (1.0), NULL, &error);
  KubusPaneModel *call;
  g_autofree char *tip = NULL;

  g_assert_no_error (error);
  kubus_browser_select_default (b);
  set_expanded (b, KUBUS_PANE_CALL, 0, TRUE);
  call = pane (b, KUBUS_PANE_CALL);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 29999.00 [-] *\n"
               "  MPI_Barrier 1.40\n");
  kubus_pane_model_set_mode (call, KUBUS_MODE_PERCENT);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 100.00 [-] *\n"
               "  MPI_Barrier 0.00467\n");
  {
    g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (call, 1, NULL);
    tip = kubus_pane_model_value_tooltip (call, row, FALSE);
    g_assert_cmpstr (tip, ==, "0.0046666 % of total\n1.4 sec (inclusive)");
  }
  /* the system pane of main's own time: 7,499.1 … 7,500.7 s per process; the peer scale is a
   * tenth of the largest wide, so two decimals already tell every colour apart */
  select_only (b, KUBUS_PANE_CALL, 0);
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  rank 0 7499.40 [+]\n"
               "  rank 1 7500.10 [+]\n"
               "  rank 2 7500.60 [+]\n"
               "  rank 3 7498.90 [+]\n");
}

/* Item 4: peers 0.0168 … 0.0240 coloured red, orange and yellow no longer all read "0.02". */
static void
test_number_resolution (void)
{
  g_autoptr (GError) error = NULL;
  CubeReport *r = cube_report_new ();
  CubeMetric *m = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeCnode *c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 9), -1, NULL);
  CubeSysNode *mach = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  const double v[4] = { 0.0168, 0.0221, 0.0232, 0.0240 };
  g_autoptr (KubusBrowser) b = NULL;

  for (int l = 0; l < 4; l++)
    {
      g_autofree char *name = g_strdup_printf ("rank %d", l);
      cube_report_add_sysnode (r, cube_report_add_sysnode (r, mach, CUBE_SYS_PROCESS, name, l), CUBE_SYS_THREAD, "t", 0);
      cube_report_set_value (r, m, c, l, v[l]);
    }
  b = kubus_browser_new (r, NULL, &error);
  g_assert_no_error (error);
  kubus_browser_select_default (b);
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  rank 0 0.0168 [+]\n"
               "  rank 1 0.0221 [+]\n"
               "  rank 2 0.0232 [+]\n"
               "  rank 3 0.0240 [+]\n");
}

/* Item 5: the system tree's legend describes the level shown. Only the machine shown: its
 * value (and its 10 %-wide scale), not the locations' 1 … 1 visits; the processes once they
 * are shown. */
static void
test_legend_level_shown (void)
{
  g_autoptr (GError) error = NULL;
  CubeReport *r = cube_report_new ();
  CubeMetric *visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_UINT64, "occ", NULL, NULL);
  CubeCnode *c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 9), -1, NULL);
  CubeSysNode *mach = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1);
  g_autoptr (KubusBrowser) b = NULL;
  KubusPaneModel *sys;
  g_autofree char *machine = NULL, *procs = NULL, *threads = NULL;

  for (int l = 0; l < 4; l++)
    {
      g_autofree char *name = g_strdup_printf ("rank %d", l);
      cube_report_add_sysnode (r, cube_report_add_sysnode (r, mach, CUBE_SYS_PROCESS, name, l), CUBE_SYS_THREAD, "t", 0);
      cube_report_set_value (r, visits, c, l, 1);
    }
  b = kubus_browser_new (r, NULL, &error);
  g_assert_no_error (error);
  kubus_browser_select_default (b);
  sys = pane (b, KUBUS_PANE_SYSTEM);
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 4 [+]\n");
  machine = legend_text (sys);
  g_assert_cmpstr (machine, ==, "3.60 … 4 occ · machines: min → max");
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  procs = legend_text (sys);
  g_assert_cmpstr (procs, ==, "0.900 … 1 occ · processes: min → max");
}

/* Issue 24, item 2: kubus-sim's summary.json as the result panel reads it; what another version
 * does not write is unknown, and what is not a summary says so, naming the file. */
static void
test_sim_summary (void)
{
  static const char full[] =
    "{\"hypothesis\": \"h.hyp\", \"rules\": [\"balance region w\", \"remove messages with size == 0\"],"
    " \"mode\": \"real-time\", \"original_runtime_s\": 4.94, \"predicted_runtime_s\": 3.28,"
    " \"identity_error_percent\": null, \"identity_mode\": null, \"significant\": null,"
    " \"gains\": [{\"metric\": \"mpi_latesender\", \"metric_name\": \"Late Sender\", \"call_path\": \"a > b\", \"seconds\": 1.5}],"
    " \"losses\": [], \"approximated\": {\"MPI_Ibarrier\": 2}, \"dropped_events\": {\"MPI_Win_fence\": 8},"
    " \"clock_repair\": {\"violations\": 3, \"corrections\": 3, \"largest_correction_s\": 0.002}}";
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusSimSummary) s = kubus_sim_summary_parse (full, sizeof full - 1, "s.json", &error);
  g_autofree char *rules = NULL;

  g_assert_no_error (error);
  rules = kubus_sim_summary_rules_text (s);
  g_assert_cmpstr (rules, ==, "balance region w; remove messages with size == 0");
  g_assert_cmpfloat_with_epsilon (s->change_s, 3.28 - 4.94, 1e-12);
  g_assert_cmpfloat_with_epsilon (s->change_percent, 100 * (3.28 - 4.94) / 4.94, 1e-9);
  g_assert_true (isnan (s->identity_error_percent));
  g_assert_null (s->identity_mode);
  g_assert_cmpint (s->significant, ==, KUBUS_SIM_SIGNIFICANCE_UNKNOWN);
  g_assert_cmpuint (s->gains->len, ==, 1);
  g_assert_cmpstr (((KubusSimChange *) g_ptr_array_index (s->gains, 0))->call_path, ==, "a > b");
  g_assert_cmpuint (s->approximations->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (s->approximations, 0), ==,
                   "MPI_Ibarrier: 2 calls re-enacted by their recorded duration");
  g_assert_cmpstr (g_ptr_array_index (s->approximations, 1), ==, "MPI_Win_fence: 8 events dropped");
  g_assert_cmpstr (g_ptr_array_index (s->approximations, 2), ==,
                   "clock repair before the simulation: 3 events moved, by at most 0.002 s");
  g_assert_cmpuint (s->advice->len, ==, 0);
  {
    /* kubus-sim's advice, mode first, then the identity's (issue 21) */
    static const char advised[] =
      "{\"original_runtime_s\": 1, \"predicted_runtime_s\": 1.3, \"mode_advice\": \"M\xc3\xa9\","
      " \"identity_advice\": \"On this trace the real-time re-enactment misses\"}";
    static const char wrong[] = "{\"original_runtime_s\": 1, \"predicted_runtime_s\": 1.3, \"identity_advice\": 3}";
    g_autoptr (KubusSimSummary) a = kubus_sim_summary_parse (advised, sizeof advised - 1, "a.json", &error);
    g_autoptr (GError) e = NULL;
    g_autoptr (KubusSimSummary) w = kubus_sim_summary_parse (wrong, sizeof wrong - 1, "/w/summary.json", &e);
    g_assert_no_error (error);
    g_assert_cmpuint (a->advice->len, ==, 2);
    g_assert_cmpstr (g_ptr_array_index (a->advice, 0), ==, "M\xc3\xa9");
    g_assert_cmpstr (g_ptr_array_index (a->advice, 1), ==, "On this trace the real-time re-enactment misses");
    g_assert_null (w);
    g_assert_true (e != NULL && g_str_has_prefix (e->message, "/w/summary.json: "));
  }
  {
    /* the headline is the run time after MPI_Init where the summary has it (issue 21), as
     * kubus-sim prints it; change_s is of the same run times */
    static const char after[] =
      "{\"original_runtime_s\": 6.09, \"predicted_runtime_s\": 12.98,"
      " \"original_runtime_after_init_s\": 1.5, \"predicted_runtime_after_init_s\": 2.75,"
      " \"change_s\": 1.25, \"change_percent\": 83.3}";
    g_autoptr (KubusSimSummary) a = kubus_sim_summary_parse (after, sizeof after - 1, "a.json", &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (a->original_s, ==, 1.5);
    g_assert_cmpfloat (a->predicted_s, ==, 2.75);
    g_assert_cmpfloat (a->change_s, ==, 1.25);
  }
  {
    const char *const bad[] = { "{\"rules\": []}", "[1, 2]", "{\"original_runtime_s\": \"4\", \"predicted_runtime_s\": 3}",
                                "{\"original_runtime_s\": 4, \"predicted_runtime_s\": 3, \"significant\": 1}",
                                "{\"original_runtime_s\": 4, \"predicted_runtime_s\": 3, \"gains\": [{\"metric\": 1}]}",
                                "{\"original_runtime_s\": 4, \"predicted_runtime_s\": 3, \"approximated\": {\"x\": -1}}",
                                "{\"original_runtime_s\": 4,", "" };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr (GError) e = NULL;
        g_autoptr (KubusSimSummary) none = kubus_sim_summary_parse (bad[i], strlen (bad[i]), "/x/summary.json", &e);

        g_assert_null (none);
        g_assert_nonnull (e);
        if (!g_str_has_prefix (e->message, "/x/summary.json: "))
          g_error ("%s: the error does not name the file: %s", bad[i], e->message);
      }
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gui/model/initial", test_initial);
  g_test_add_func ("/gui/model/expand-flows-right", test_expand_flows_right);
  g_test_add_func ("/gui/model/lazy-cubex", test_lazy_cubex);
  g_test_add_func ("/gui/model/modes", test_modes);
  g_test_add_func ("/gui/model/multiple-selection", test_multiple_selection);
  g_test_add_func ("/gui/model/flat-and-modules", test_flat_and_modules);
  g_test_add_func ("/gui/model/sort-filter-find", test_sort_filter_find);
  g_test_add_func ("/gui/model/expand-all-in-parts", test_expand_all_in_parts);
  g_test_add_func ("/gui/model/expand-all-parts-collapse", test_expand_all_parts_collapse);
  g_test_add_func ("/gui/model/largest-path", test_largest_path);
  g_test_add_func ("/gui/model/difference", test_difference);
  g_test_add_func ("/gui/model/external", test_external);
  g_test_add_func ("/gui/model/colors", test_colors);
  g_test_add_func ("/gui/model/values-plain-report", test_values_plain_report);
  g_test_add_func ("/gui/model/value-tooltip", test_value_tooltip);
  g_test_add_func ("/gui/model/system-colours-peers", test_system_colours_peers);
  g_test_add_func ("/gui/model/number-formats", test_number_formats);
  g_test_add_func ("/gui/model/csv", test_csv);
  g_test_add_func ("/gui/model/csv-quoting", test_csv_quoting);
  g_test_add_func ("/gui/model/csv-context", test_csv_context);
  g_test_add_func ("/gui/model/residues-everywhere", test_residues_everywhere);
  g_test_add_func ("/gui/model/residues-difference", test_residues_difference);
  g_test_add_func ("/gui/model/number-rule", test_number_rule);
  g_test_add_func ("/gui/model/number-resolution", test_number_resolution);
  g_test_add_func ("/gui/model/legend-level-shown", test_legend_level_shown);
  g_test_add_func ("/gui/model/sim-summary", test_sim_summary);
  g_test_add_func ("/gui/model/min-max-profile", test_min_max_profile);
  return g_test_run ();
}
