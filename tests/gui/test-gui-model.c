/* test-gui-model.c — the browser's three trees as text, without a display.
 *
 * GTK test-suite style: build the model, act on it (select, expand, switch modes), render the
 * visible rows as a string and compare with the expected string. Each row prints as
 * "<indent><name> <value>[ [+]| [-]][ *]": [+] collapsed with children, [-] expanded,
 * * selected. */
#include <gtk/gtk.h>

#include "gui-test-report.h"
#include "kubus-browser.h"

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
               "Time 16 [+] *\n"
               "Visits 36\n");
  assert_pane (b, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 16.00 [+]\n");
  set_expanded (b, KUBUS_PANE_SYSTEM, 0, TRUE);
  set_expanded (b, KUBUS_PANE_SYSTEM, 1, TRUE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
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
               "Time 10 [-] *\n"
               "  MPI 6\n"
               "Visits 36\n");
  set_expanded (b, KUBUS_PANE_CALL, 1, TRUE);
  assert_pane (b, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 0.00\n"
               "  bar 2.00 [+]\n");

  select_only (b, KUBUS_PANE_METRIC, 1);   /* MPI */
  select_only (b, KUBUS_PANE_CALL, 2);     /* foo/MPI_Send */
  assert_pane (b, KUBUS_PANE_CALL,
               "main 0.00 [-]\n"
               "  foo 0.00 [-]\n"
               "    MPI_Send 4.00 *\n"
               "  bar 2.00 [+]\n");
  assert_pane (b, KUBUS_PANE_SYSTEM, "M 4.00 [+]\n");
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
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 31.25 [+]\n"
               "    rank 1 31.25 [+]\n");

  /* Percent of the selection to the left: the system pane sums to 100 %. */
  kubus_browser_set_mode (b, KUBUS_MODE_RELATIVE);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
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
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 100.00 [+]\n"
               "    rank 1 100.00 [+]\n");
  kubus_browser_set_mode (b, KUBUS_MODE_ABSOLUTE);
  select_only (b, KUBUS_PANE_CALL, 2);     /* bar collapsed: rank 0 = 1, rank 1 = 3 */
  kubus_pane_model_set_mode (pane (b, KUBUS_PANE_SYSTEM), KUBUS_MODE_PEER_DISTRIBUTION);
  assert_pane (b, KUBUS_PANE_SYSTEM,
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
               "    rank 0 0.00 [+]\n"
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
               "M 0.00 [-]\n"
               "  N 0.00 [-]\n"
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
               "app.c 0.00 [-]\n"
               "  main 2.00\n"
               "  foo 6.00\n"
               "MPI 6.00 [+]\n"
               "lib.c 2.00 [+]\n");
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gui/model/initial", test_initial);
  g_test_add_func ("/gui/model/expand-flows-right", test_expand_flows_right);
  g_test_add_func ("/gui/model/modes", test_modes);
  g_test_add_func ("/gui/model/multiple-selection", test_multiple_selection);
  g_test_add_func ("/gui/model/flat-and-modules", test_flat_and_modules);
  g_test_add_func ("/gui/model/sort-filter-find", test_sort_filter_find);
  g_test_add_func ("/gui/model/largest-path", test_largest_path);
  g_test_add_func ("/gui/model/difference", test_difference);
  g_test_add_func ("/gui/model/external", test_external);
  g_test_add_func ("/gui/model/colors", test_colors);
  return g_test_run ();
}
