/* test-gui-widgets.c — the browser window on a display (Xvfb): open, select, expand, switch
 * modes and views, external percent, compare, bad reports.
 *
 * The test drives a real KubusWindow the way a user does: row expanders
 * ("listitem.toggle-expand"), selection of the list view's model, the mode drop-downs in the
 * pane headers and the window's GActions (each has a menu item and an accelerator). It reads
 * back what the rows SHOW: the labels of the KubusRowCell widgets bound in each pane, one line
 * per visible row, "<indent><name> <value>[ [+]| [-]][ *][ neg]" — [+] collapsed with children,
 * [-] expanded, * selected, "neg" when the value label has the negative style.
 *
 * Rows appear after layout (a frame later), so every check waits (spinning the main loop) until
 * the rows show the expected text, failing with the last text seen after a generous timeout.
 * Run under tests/gui/xvfb-wrap.sh; exits 77 without a display. */
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "gui-test-report.h"
#include "gui-test-ui.h"
#include "topology-test-report.h"
#include "kubus-application.h"
#include "kubus-legend.h"
#include "kubus-loader.h"
#include "kubus-pane-view.h"
#include "kubus-row-cell.h"
#include "kubus-window-private.h"   /* the Cancel button and the Open Recent menu section */


/* ---- tests ------------------------------------------------------------------------------------ */

static void
test_open (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("open.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "open.cube — Kubus");
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 16.00 [+] *\n"
               "Visits 36\n");
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 16.00 [+]\n");
  /* Without a topology in the report the Topology command stays off. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "topology"));
  close_window (window, &ev);
}

/* Expanding shows exclusive values; selections flow to the right. */
static void
test_select_expand (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("select.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 2.00 [+]\n");

  toggle_row (window, KUBUS_PANE_SYSTEM, "M");
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 2.00 [+]\n");
  toggle_row (window, KUBUS_PANE_SYSTEM, "N");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 5.00 [+]\n"
               "    rank 1 5.00 [+]\n");

  /* Metric MPI (under Time): the call pane shows where MPI time is. */
  toggle_row (window, KUBUS_PANE_METRIC, "Time");
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 10.00 [-] *\n"
               "  MPI 6.00\n"
               "Visits 36\n");
  select_row (window, KUBUS_PANE_METRIC, "MPI", 0);
  toggle_row (window, KUBUS_PANE_CALL, "foo");
  toggle_row (window, KUBUS_PANE_CALL, "bar");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 0 [-]\n"
               "  foo 0 [-] *\n"
               "    MPI_Send 4.00\n"
               "  bar 0 [-]\n"
               "    MPI_Send 2.00\n");
  select_row (window, KUBUS_PANE_CALL, "MPI_Send", 1);   /* bar's: [0 2] */
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0 [+]\n"
               "    rank 1 2.00 [+]\n");

  /* Collapse all / expand largest / expand all act on the call pane (the active one); the
   * selection hidden by Collapse All moves to the visible ancestor (issue 16, defect 4). */
  activate (window, "collapse-all", NULL);
  assert_pane (window, KUBUS_PANE_CALL, "main 6.00 [+] *\n");
  activate (window, "expand-largest", NULL);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 0 [-]\n"
               "  foo 0 [-]\n"
               "    MPI_Send 4.00 *\n"
               "  bar 2.00 [+]\n");
  activate (window, "expand-all", NULL);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 0 [-]\n"
               "  foo 0 [-]\n"
               "    MPI_Send 4.00 *\n"
               "  bar 0 [-]\n"
               "    MPI_Send 2.00\n");
  close_window (window, &ev);
}

static void
test_modes (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("modes.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  g_autoptr (GVariant) state = NULL;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  toggle_row (window, KUBUS_PANE_SYSTEM, "M");
  toggle_row (window, KUBUS_PANE_SYSTEM, "N");
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 5.00 [+]\n"
               "    rank 1 5.00 [+]\n");

  /* The View › Value Mode menu (win.mode) sets the active pane: the call pane. */
  activate (window, "mode", g_variant_new_string ("percent"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 12.50 [-]\n"
               "  foo 62.50 [+] *\n"
               "  bar 25.00 [+]\n");
  state = g_action_group_get_action_state (G_ACTION_GROUP (window), "mode");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "percent-of-total");
  /* … and only the call pane. */
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 5.00 [+]\n"
               "    rank 1 5.00 [+]\n");

  /* The system pane's own drop-down: percent of the selection to the left sums to 100. */
  choose_mode (window, KUBUS_PANE_SYSTEM, kubus_value_mode_label (KUBUS_MODE_RELATIVE));
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 50.00 [+]\n"
               "    rank 1 50.00 [+]\n");
  select_row (window, KUBUS_PANE_CALL, "bar", 0);   /* bar: [1 3] */
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 25.00 [+]\n"
               "    rank 1 75.00 [+]\n");
  choose_mode (window, KUBUS_PANE_SYSTEM, kubus_value_mode_label (KUBUS_MODE_PEER_PERCENT));
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 33.33 [+]\n"
               "    rank 1 100.00 [+]\n");
  choose_mode (window, KUBUS_PANE_SYSTEM, kubus_value_mode_label (KUBUS_MODE_ABSOLUTE));
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 1.00 [+]\n"
               "    rank 1 3.00 [+]\n");
  /* Back to absolute in the call pane through its drop-down. */
  choose_mode (window, KUBUS_PANE_CALL, kubus_value_mode_label (KUBUS_MODE_ABSOLUTE));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+] *\n");
  close_window (window, &ev);
}

/* File › Open External: percent of another report's total, in every pane. */
static void
test_external (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("ext-a.cube", 1.0);
  g_autoptr (GFile) external = report_file ("ext-b.cube", 2.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  kubus_window_open_external (window, external);
  wait_events (&ev, 2, 0);
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 50.00 [+] *\n"
               "Visits 100.00\n");
  assert_pane (window, KUBUS_PANE_CALL, "main 50.00 [+] *\n");
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 6.25 [-] *\n"
               "  foo 31.25 [+]\n"
               "  bar 12.50 [+]\n");
  close_window (window, &ev);
}

/* kubus --compare A B: A − B, signed, percent of A by default, losses marked negative. */
static void
test_compare (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) a = report_file ("cmp-a.cube", 1.0);
  g_autoptr (GFile) b = report_file ("cmp-b.cube", 1.5);
  KubusWindow *window = new_window (&ev);

  kubus_window_compare (window, a, b);
  wait_events (&ev, 1, 0);
  {
    /* Which is A and which B, by folder and name (issue 16, defect 6). */
    g_autofree char *dir = g_path_get_basename (tmpdir);
    g_autofree char *title = g_strdup_printf ("A − B: %s/cmp-a.cube − %s/cmp-b.cube — Kubus", dir, dir);
    g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, title);
  }
  assert_pane (window, KUBUS_PANE_CALL, "main -50.00 [+] * neg\n");
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main -6.25 [-] * neg\n"
               "  foo -31.25 [+] neg\n"
               "  bar -12.50 [+] neg\n");
  /* A difference cannot be compared again. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "compare"));
  close_window (window, &ev);

  /* B − A: gains, not marked negative. */
  window = new_window (&ev);
  kubus_window_compare (window, b, a);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 4.17 [-] *\n"
               "  foo 20.83 [+]\n"
               "  bar 8.33 [+]\n");
  close_window (window, &ev);
}

static void
test_call_views (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("views.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  activate (window, "call-view", g_variant_new_string ("flat"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 16.00 [+] *\n"
               "foo 10.00 [+]\n"
               "MPI_Send 6.00\n"
               "bar 4.00 [+]\n");
  toggle_row (window, KUBUS_PANE_CALL, "foo");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 16.00 [+]\n"
               "foo 6.00 [-] *\n"
               "  MPI_Send 4.00\n"
               "MPI_Send 6.00\n"
               "bar 4.00 [+]\n");
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 6.00 [+]\n");
  activate (window, "call-view", g_variant_new_string ("module"));
  toggle_row (window, KUBUS_PANE_CALL, "app.c");
  assert_pane (window, KUBUS_PANE_CALL,
               "app.c 0 [-] *\n"
               "  main 2.00\n"
               "  foo 6.00\n"
               "MPI 6.00 [+]\n"
               "lib.c 2.00 [+]\n");
  activate (window, "call-view", g_variant_new_string ("tree"));
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  close_window (window, &ev);
}

static gboolean
is_search_label (GtkWidget *w,
                 gpointer   data)
{
  (void) data;
  return GTK_IS_LABEL (w) && g_str_has_suffix (gtk_label_get_text (GTK_LABEL (w)), "matches");
}

static gboolean
is_search_entry (GtkWidget *w,
                 gpointer   data)
{
  (void) data;
  return GTK_IS_SEARCH_ENTRY (w);
}

static gboolean
has_match_label (gpointer data)
{
  return find_widget (data, is_search_label, NULL) != NULL;
}

static void
test_find (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("find.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *entry, *label;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  activate (window, "find", NULL);
  entry = find_widget (GTK_WIDGET (window), is_search_entry, NULL);
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), "^mpi_s");
  /* The search entry reports changes after a short delay. */
  g_assert_true (spin_until (has_match_label, window, WAIT_MS));
  label = find_widget (GTK_WIDGET (window), is_search_label, NULL);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "2 matches");
  activate (window, "find-next", NULL);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00 *\n"
               "  bar 4.00 [+]\n");
  activate (window, "find-next", NULL);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00 *\n");
  close_window (window, &ev);
}

/* ---- legend, popovers, accelerators ------------------------------------------------------------ */

static void
test_legend (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("legend.cube", 1.0);
  g_autoptr (GFile) a = report_file ("legend-a.cube", 1.0);
  g_autoptr (GFile) b = report_file ("legend-b.cube", 1.5);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_legend (window, KUBUS_PANE_CALL, "0|16.00|sec");
  activate (window, "mode", g_variant_new_string ("percent"));
  assert_legend (window, KUBUS_PANE_CALL, "0|100.00|% of total");
  close_window (window, &ev);

  /* A difference: a signed range, both ends labelled. */
  window = new_window (&ev);
  kubus_window_compare (window, a, b);
  wait_events (&ev, 1, 0);
  assert_legend (window, KUBUS_PANE_CALL, "−50.00|+50.00|% of total");
  close_window (window, &ev);
}

/* Several selected call paths add up in the system pane. */
static void
test_multiple_selection (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("multi.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *cv;
  GtkListItem *item;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  /* Ctrl+click on bar: add to the selection. */
  item = g_object_get_data (G_OBJECT (row_cell (window, KUBUS_PANE_CALL, "bar", 0)), "kubus-list-item");
  cv = kubus_pane_view_get_list_view (pane_view (window, KUBUS_PANE_CALL));
  gtk_selection_model_select_item (gtk_list_view_get_model (GTK_LIST_VIEW (cv)),
                                   gtk_list_item_get_position (item), FALSE);
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+] *\n"
               "  bar 4.00 [+] *\n");
  assert_pane (window, KUBUS_PANE_SYSTEM, "M 14.00 [+]\n");
  close_window (window, &ev);
}

/* Expand All of a large tree on screen comes in parts, one per frame, the rows on screen first
 * (issue 25 §6: no frame over 100 ms), and ends with the rows and the selection of an Expand
 * All in one go. System tree of 8 × 8 × 8 ranks: 1,026 rows. */
static gboolean
expand_all_done (gpointer data)
{
  return !kubus_pane_model_expand_all_pending (data);
}

static void
test_expand_all_frames (void)
{
  static const gint64 dims[3] = { 8, 8, 8 };
  Events ev = { 0 };
  g_autofree char *path = g_build_filename (tmpdir, "grid.cube", NULL);
  g_autoptr (CubeReport) report = topology_test_report_new (dims, 90, 100, TOPOLOGY_TEST_PLAIN);
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) file = NULL;
  g_autofree char *in_parts = NULL, *at_once = NULL;
  KubusWindow *window;
  KubusPaneModel *sys;
  GListModel *rows;
  GdkFrameClock *clock;
  gint64 frame;

  g_assert_true (cube_report_write (report, path, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (path);
  window = new_window (&ev);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  sys = kubus_browser_get_pane (kubus_window_get_browser (window), KUBUS_PANE_SYSTEM);
  rows = G_LIST_MODEL (kubus_pane_model_get_selection (sys));
  kubus_window_set_active_pane (window, KUBUS_PANE_SYSTEM, TRUE);
  activate (window, "collapse-all", NULL);
  select_row (window, KUBUS_PANE_SYSTEM, "machine", 0);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 1);

  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  frame = gdk_frame_clock_get_frame_counter (clock);
  activate (window, "expand-all", NULL);
  /* the first part: 64 rows in tree order, machine and node one level each, then processes
   * with their thread; every process shows */
  g_assert_true (kubus_pane_model_expand_all_pending (sys));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 2 + 512 + 31);
  if (!spin_until (expand_all_done, sys, WAIT_MS))
    g_error ("Expand All did not end");
  /* two more frames: 192 rows, then the rest */
  g_assert_cmpint (gdk_frame_clock_get_frame_counter (clock) - frame, <=, 3);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 1026);
  in_parts = kubus_pane_model_to_string (sys);

  activate (window, "collapse-all", NULL);
  kubus_pane_model_expand_all (sys, G_MAXUINT, TRUE);
  at_once = kubus_pane_model_to_string (sys);
  g_assert_cmpstr (in_parts, ==, at_once);
  g_assert_nonnull (strstr (in_parts, "machine 0 [-] *\n"));
  close_window (window, &ev);
}

static void
test_sort (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("sort.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  activate (window, "expand-all", NULL);
  activate (window, "sort", g_variant_new_string ("name"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n");
  activate (window, "sort", g_variant_new_string ("value"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00\n");
  /* Issue 24, item 6: the View menu acts on the active tree only (the call tree here); the
   * metric tree keeps its file order, and the menu's check mark follows the active tree. */
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 16.00 [+] *\n"
               "Visits 36\n");
  kubus_window_set_active_pane (window, KUBUS_PANE_METRIC, FALSE);
  {
    g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window), "sort");
    g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "none");
  }
  activate (window, "sort", g_variant_new_string ("value"));
  assert_pane (window, KUBUS_PANE_METRIC,
               "Visits 36\n"
               "Time 16.00 [+] *\n");
  activate (window, "hide-zero", NULL);
  kubus_window_set_active_pane (window, KUBUS_PANE_CALL, FALSE);
  {
    g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window), "sort");
    g_autoptr (GVariant) zero = g_action_group_get_action_state (G_ACTION_GROUP (window), "hide-zero");
    g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "value");
    g_assert_false (g_variant_get_boolean (zero));
  }
  g_assert_true (kubus_pane_model_get_sort (kubus_browser_get_pane (kubus_window_get_browser (window), KUBUS_PANE_SYSTEM))
                 == KUBUS_SORT_NONE);
  activate (window, "sort", g_variant_new_string ("none"));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 6.00 [-]\n"
               "    MPI_Send 4.00\n"
               "  bar 2.00 [-]\n"
               "    MPI_Send 2.00\n");
  close_window (window, &ev);
}

static gboolean
is_open_info (GtkWidget *w,
              gpointer   data)
{
  (void) data;
  return GTK_IS_POPOVER (w) && !GTK_IS_POPOVER_MENU (w) && gtk_widget_get_visible (w);
}

static gboolean
info_shown (gpointer data)
{
  return find_widget (data, is_open_info, NULL) != NULL;
}

static gboolean
is_label (GtkWidget *w,
          gpointer   data)
{
  (void) data;
  return GTK_IS_LABEL (w);
}

/* Info (Ctrl+I) on a call path: its path with file and line. */
static void
test_info (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("info.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *pane, *popover, *label;
  const char *text;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  activate (window, "info", NULL);
  pane = GTK_WIDGET (pane_view (window, KUBUS_PANE_CALL));
  g_assert_true (spin_until (info_shown, pane, WAIT_MS));
  popover = find_widget (pane, is_open_info, NULL);
  label = find_widget (popover, is_label, NULL);
  g_assert_nonnull (label);
  text = gtk_label_get_text (GTK_LABEL (label));
  if (strstr (text, "main") == NULL || strstr (text, "foo") == NULL || strstr (text, "app.c:12") == NULL)
    g_error ("info popover does not show the call path main › foo at app.c:12:\n%s", text);
  gtk_popover_popdown (GTK_POPOVER (popover));
  close_window (window, &ev);
}

/* Every command has an accelerator (issue #3: "every command is a GAction with an accelerator"). */
static void
test_accelerators (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  g_auto (GStrv) described = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  /* Not commands: a menu's target (Open Recent items) and the empty Recent placeholder.
   * About has no shortcut in GNOME applications (HIG) and none here. */
  const char *const exempt[] = { "app.open-uri", "win.no-recent", "app.about", NULL };
  struct { GActionGroup *group; const char *prefix; } groups[] = {
    { G_ACTION_GROUP (window), "win" },
    { G_ACTION_GROUP (app), "app" },
  };
  GString *missing = g_string_new (NULL);

  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    {
      g_auto (GStrv) names = g_action_group_list_actions (groups[g].group);

      for (guint i = 0; names[i] != NULL; i++)
        {
          g_autofree char *full = g_strdup_printf ("%s.%s", groups[g].prefix, names[i]);
          g_autofree char *detailed = g_strdup_printf ("%s::", full);
          g_autofree char *with_target = g_strdup_printf ("%s(", full);   /* app.compare(('', '')) */
          gboolean found = g_strv_contains (exempt, full);

          for (guint k = 0; !found && described[k] != NULL; k++)
            if (g_str_equal (described[k], full) || g_str_has_prefix (described[k], detailed)
                || g_str_has_prefix (described[k], with_target))
              {
                g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), described[k]);
                found = accels[0] != NULL;
              }
          if (!found)
            g_string_append_printf (missing, " %s", full);
        }
    }
  if (missing->len > 0)
    g_error ("commands without an accelerator:%s", missing->str);
  g_string_free (missing, TRUE);
  close_window (window, &ev);
}

/* The Topology command is on exactly for reports with a Cartesian topology. */
static void
test_topology_enabled (void)
{
  const char *shared = g_getenv ("KUBUS_SHARED_DATA");
  g_autofree char *path = shared != NULL
    ? g_build_filename (shared, "cube", "cubelib_test32_example_multitopo.cube", NULL) : NULL;
  g_autoptr (GFile) file = NULL;
  Events ev = { 0 };
  KubusWindow *window;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("needs KUBUS_SHARED_DATA/cube/cubelib_test32_example_multitopo.cube");
      return;
    }
  file = g_file_new_for_path (path);
  window = new_window (&ev);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "topology"));
  assert_pane (window, KUBUS_PANE_METRIC, "Time 6827.10 [+] *\n");
  close_window (window, &ev);
}

/* ---- bad reports -------------------------------------------------------------------------------- */

static GtkWidget *
error_dialog_of (KubusWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (GTK_IS_MESSAGE_DIALOG (w) && gtk_window_get_transient_for (GTK_WINDOW (w)) == GTK_WINDOW (window)
          && gtk_widget_get_visible (w))
        return w;
    }
  return NULL;
}

static gboolean
dialog_gone (gpointer data)
{
  return error_dialog_of (data) == NULL;
}

/* The dialog names the file and the problem; closing it leaves a working window. */
static void
check_error_dialog (KubusWindow *window,
                    const char  *basename,
                    const char  *problem)
{
  GtkWidget *dialog = error_dialog_of (window);
  g_autofree char *text = NULL, *secondary = NULL;

  g_assert_nonnull (dialog);
  g_object_get (dialog, "text", &text, "secondary-text", &secondary, NULL);
  if (strstr (text, basename) == NULL || strstr (secondary, problem) == NULL)
    g_error ("error dialog “%s” / “%s” does not name %s and “%s”", text, secondary, basename, problem);
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  g_assert_true (spin_until (dialog_gone, window, WAIT_MS));
}

static void
test_bad_report (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) bad = bad_file ("broken.cube", "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n<metrics>\n<oops");
  g_autoptr (GFile) missing = g_file_new_build_filename (tmpdir, "missing.cube", NULL);
  g_autoptr (GFile) good = report_file ("good.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, bad);
  wait_events (&ev, 0, 1);
  g_assert_nonnull (strstr (ev.message, "broken.cube"));
  check_error_dialog (window, "broken.cube", "broken.cube");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Kubus");
  g_assert_null (kubus_window_get_browser (window));

  /* The same window opens a good report afterwards … */
  kubus_window_open (window, good);
  wait_events (&ev, 1, 1);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");

  /* … and a failing open keeps the report shown. */
  kubus_window_open (window, missing);
  wait_events (&ev, 1, 2);
  g_assert_nonnull (strstr (ev.message, "missing.cube"));
  check_error_dialog (window, "missing.cube", "missing.cube");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "good.cube — Kubus");
  toggle_row (window, KUBUS_PANE_CALL, "main");
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");

  /* A bad B of a comparison is named too. */
  kubus_window_compare (window, good, bad);
  wait_events (&ev, 1, 3);
  check_error_dialog (window, "good.cube", "broken.cube");
  close_window (window, &ev);
}

/* Reports named on the command line are read ahead (kubus_load_prefetch, from the
 * application's handle-local-options): they load like any other, a bad one is named in the
 * error dialog, and Cancel works on a read-ahead load and on an ordinary one alike, leaving the
 * report shown before (and the window) working. */
static void
test_prefetch_cancel (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) good = report_file ("pre-good.cube", 1.0);
  g_autoptr (GFile) other = report_file ("pre-other.cube", 2.0);
  g_autoptr (GFile) bad = bad_file ("pre-bad.cube", "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n<metrics><oops");
  g_autofree char *good_path = g_file_get_path (good);
  g_autofree char *other_path = g_file_get_path (other);
  g_autofree char *bad_path = g_file_get_path (bad);
  KubusWindow *window = new_window (&ev);

  kubus_load_prefetch (good_path);
  kubus_window_open (window, good);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");

  kubus_load_prefetch (bad_path);
  kubus_window_open (window, bad);
  wait_events (&ev, 1, 1);
  g_assert_nonnull (strstr (ev.message, "pre-bad.cube"));
  check_error_dialog (window, "pre-bad.cube", "pre-bad.cube");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "pre-good.cube — Kubus");

  /* Cancel while a read-ahead load runs: no error dialog, the shown report stays. */
  kubus_load_prefetch (other_path);
  kubus_window_open (window, other);
  g_assert_true (gtk_widget_get_sensitive (window->cancel_button));
  g_signal_emit_by_name (window->cancel_button, "clicked");
  wait_events (&ev, 1, 2);
  g_assert_nonnull (strstr (ev.message, "cancelled"));
  g_assert_null (error_dialog_of (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "pre-good.cube — Kubus");
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");

  /* The same with an ordinary load. */
  kubus_window_open (window, other);
  g_signal_emit_by_name (window->cancel_button, "clicked");
  wait_events (&ev, 1, 3);
  g_assert_nonnull (strstr (ev.message, "cancelled"));
  g_assert_null (error_dialog_of (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "pre-good.cube — Kubus");

  /* And the window still opens reports. */
  kubus_window_open (window, other);
  wait_events (&ev, 2, 3);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "pre-other.cube — Kubus");
  assert_pane (window, KUBUS_PANE_CALL, "main 32.00 [+] *\n");
  close_window (window, &ev);
}

typedef struct
{
  KubusWindow *window;
  const char  *uri;
  char        *label;
} RecentFind;

static gboolean
recent_listed (gpointer data)
{
  RecentFind *f = data;
  GMenuModel *section = G_MENU_MODEL (f->window->recent_section);

  for (int i = 0; i < g_menu_model_get_n_items (section); i++)
    {
      g_autoptr (GVariant) target = g_menu_model_get_item_attribute_value (section, i, G_MENU_ATTRIBUTE_TARGET,
                                                                          G_VARIANT_TYPE_STRING);
      g_autofree char *action = NULL;

      if (target == NULL || !g_str_equal (g_variant_get_string (target, NULL), f->uri)
          || !g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action)
          || !g_str_equal (action, "app.open-uri"))
        continue;
      g_free (f->label);
      g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_LABEL, "s", &f->label);
      return TRUE;
    }
  return FALSE;
}

typedef struct
{
  const char  *title;
  KubusWindow *other_than;
  KubusWindow *found;
} TitleFind;

static gboolean
window_titled (gpointer data)
{
  TitleFind *f = data;

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (KUBUS_IS_WINDOW (l->data) && l->data != f->other_than && kubus_window_get_browser (l->data) != NULL
        && g_strcmp0 (gtk_window_get_title (l->data), f->title) == 0)
      {
        f->found = l->data;
        return TRUE;
      }
  return FALSE;
}

/* An opened report is listed under File › Open Recent by folder and name (underscores doubled:
 * they are menu mnemonics), and the item opens it again in the window it was chosen from
 * (issue 16, defect 8: Open always made another window). Files the file chooser recorded but
 * Kubus never opened (e.g. one that failed) are not listed. */
static void
test_recent (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("recent_run.cube", 1.0);
  g_autoptr (GFile) other = report_file ("recent_other.cube", 2.0);
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *other_uri = g_file_get_uri (other);
  g_autofree char *dir = g_path_get_basename (tmpdir);
  g_autofree char *expected = g_strdup_printf ("%s/recent__run.cube", dir);
  RecentFind rf = { NULL, uri, NULL };
  RecentFind rf_other = { NULL, other_uri, NULL };
  KubusWindow *window = new_window (&ev);

  /* What GtkFileChooser does with a chosen file, opened or not. */
  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), other_uri);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  rf.window = window;
  rf_other.window = window;
  if (!spin_until (recent_listed, &rf, WAIT_MS))
    g_error ("%s is not in the Open Recent menu", uri);
  g_assert_cmpstr (rf.label, ==, expected);
  g_free (rf.label);
  g_assert_false (recent_listed (&rf_other));

  gtk_window_present (GTK_WINDOW (window));
  g_action_group_activate_action (G_ACTION_GROUP (app), "open-uri", g_variant_new_string (other_uri));
  wait_events (&ev, 2, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "recent_other.cube — Kubus");
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 1);
  close_window (window, &ev);
}

static GtkDropTarget *
drop_target_of (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_DROP_TARGET (c))
        return GTK_DROP_TARGET (c);
    }
  return NULL;
}

static gboolean
drop_files (KubusWindow *window,
            GFile      **files,
            guint        n)
{
  GtkDropTarget *target = drop_target_of (GTK_WIDGET (window));
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;

  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_array (files, n));
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);
  return handled;
}

/* Dropping a report on an empty window opens it there; dropping one on a window that shows a
 * report opens a new window. */
static void
test_drop (void)
{
  Events ev = { 0 };
  GFile *files[1];
  g_autoptr (GFile) first = report_file ("drop_a.cube", 1.0);
  g_autoptr (GFile) second = report_file ("drop_b.cube", 2.0);
  TitleFind tf = { "drop_b.cube — Kubus", NULL, NULL };
  KubusWindow *window = new_window (&ev);

  files[0] = first;
  g_assert_true (drop_files (window, files, 1));
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "drop_a.cube — Kubus");

  files[0] = second;
  tf.other_than = window;
  g_assert_true (drop_files (window, files, 1));
  g_assert_true (spin_until (window_titled, &tf, WAIT_MS));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "drop_a.cube — Kubus");
  gtk_window_destroy (GTK_WINDOW (tf.found));
  close_window (window, &ev);
}

static char *
clipboard_text (KubusWindow *window)
{
  GdkContentProvider *content = gdk_clipboard_get_content (gtk_widget_get_clipboard (GTK_WIDGET (window)));
  GValue value = G_VALUE_INIT;
  g_autoptr (GError) error = NULL;
  char *text;

  g_assert_nonnull (content);
  g_value_init (&value, G_TYPE_STRING);
  if (!gdk_content_provider_get_value (content, &value, &error))
    g_error ("clipboard: %s", error->message);
  text = g_value_dup_string (&value);
  g_value_unset (&value);
  return text;
}

/* Copy value and name of the selected row of the active pane (the call pane by default), hide
 * zero rows (selected rows stay) and show them again. */
static void
test_copy_hide_zero (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("copy.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  g_autofree char *value = NULL, *name = NULL;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  activate (window, "copy-value", NULL);
  value = clipboard_text (window);
  g_assert_cmpstr (value, ==, "16");
  activate (window, "copy-name", NULL);
  name = clipboard_text (window);
  g_assert_cmpstr (name, ==, "main");

  /* MPI at bar's MPI_Send: rank 0 spent nothing there. */
  toggle_row (window, KUBUS_PANE_METRIC, "Time");
  select_row (window, KUBUS_PANE_METRIC, "MPI", 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  toggle_row (window, KUBUS_PANE_CALL, "bar");
  select_row (window, KUBUS_PANE_CALL, "MPI_Send", 0);
  toggle_row (window, KUBUS_PANE_SYSTEM, "M");
  toggle_row (window, KUBUS_PANE_SYSTEM, "N");
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0 [+]\n"
               "    rank 1 2.00 [+]\n");
  /* Hide Zero Rows acts on the active tree (issue 24, item 6) */
  kubus_window_set_active_pane (window, KUBUS_PANE_SYSTEM, FALSE);
  activate (window, "hide-zero", NULL);
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 1 2.00 [+]\n");
  /* Hide Zero Rows acts on the active tree (issue 24, item 6) */
  kubus_window_set_active_pane (window, KUBUS_PANE_SYSTEM, FALSE);
  activate (window, "hide-zero", NULL);
  assert_pane (window, KUBUS_PANE_SYSTEM,
               "M 0 [-]\n"
               "  N 0 [-]\n"
               "    rank 0 0 [+]\n"
               "    rank 1 2.00 [+]\n");
  close_window (window, &ev);
}

static gboolean
press_key (KubusWindow  *window,
           KubusPaneKind kind,
           guint         keyval)
{
  GtkWidget *list = kubus_pane_view_get_list_view (pane_view (window, kind));
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (list);
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_KEY (c))
        {
          g_signal_emit_by_name (c, "key-pressed", keyval, 0, (GdkModifierType) 0, &handled);
          return handled;
        }
    }
  g_error ("the pane's list view has no key controller");
  return FALSE;
}

/* Right / Left expand and collapse the selected row; Left on a collapsed row goes to its
 * parent; * expands the subtree. */
static void
test_keyboard_expand (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("keys.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 16.00 [+] *\n");
  g_assert_true (press_key (window, KUBUS_PANE_CALL, GDK_KEY_Right));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-] *\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+]\n");
  select_row (window, KUBUS_PANE_CALL, "bar", 0);
  g_assert_true (press_key (window, KUBUS_PANE_CALL, GDK_KEY_asterisk));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 2.00 [-] *\n"
               "    MPI_Send 2.00\n");
  select_row (window, KUBUS_PANE_CALL, "MPI_Send", 0);
  /* A leaf: Right does nothing (and leaves the key to others), Left goes to the parent. */
  g_assert_false (press_key (window, KUBUS_PANE_CALL, GDK_KEY_Right));
  g_assert_true (press_key (window, KUBUS_PANE_CALL, GDK_KEY_Left));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 2.00 [-] *\n"
               "    MPI_Send 2.00\n");
  g_assert_true (press_key (window, KUBUS_PANE_CALL, GDK_KEY_minus));
  assert_pane (window, KUBUS_PANE_CALL,
               "main 2.00 [-]\n"
               "  foo 10.00 [+]\n"
               "  bar 4.00 [+] *\n");
  close_window (window, &ev);
}

static gboolean
shortcuts_window_shown (gpointer data)
{
  return (*(GtkWidget **) data = shown_toplevel (GTK_TYPE_SHORTCUTS_WINDOW)) != NULL;
}

/* Ctrl+? shows the shortcuts window: gtk/help-overlay.ui parses and lays out without
 * warnings (they are fatal here; style.css works around GTK 4.8's theme, whose page switcher
 * labels measured -4 px). */
static void
test_shortcuts_window (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  GtkWidget *shortcuts = NULL;
  g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.show-help-overlay");

  g_assert_nonnull (accels);
  g_assert_cmpstr (accels[0], ==, "<Control>question");
  activate (window, "show-help-overlay", NULL);
  g_assert_true (spin_until (shortcuts_window_shown, &shortcuts, WAIT_MS));
  spin (100);
  gtk_window_close (GTK_WINDOW (shortcuts));
  spin (50);
  close_window (window, &ev);
}

static gboolean
file_chooser_shown (gpointer data)
{
  return (*(GtkWidget **) data = shown_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG)) != NULL;
}

static gboolean
file_chooser_gone (gpointer data)
{
  GtkWidget *w = NULL;

  (void) data;
  return !file_chooser_shown (&w);
}

/* File › Open (Ctrl+O) offers CUBE reports by name and MIME type, and all files; Cancel
 * leaves everything as it was. (Without a portal, as here, GtkFileChooserNative shows GTK's
 * own dialog.) */
static void
test_open_dialog_filters (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  GtkWidget *dialog = NULL;
  g_autoptr (GListModel) filters = NULL;
  g_autoptr (GtkFileFilter) reports = NULL, all = NULL;
  g_autoptr (GVariant) spec = NULL;
  g_autofree char *text = NULL;

  g_action_group_activate_action (G_ACTION_GROUP (app), "open", NULL);
  g_assert_true (spin_until (file_chooser_shown, &dialog, WAIT_MS));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Open Report");
  filters = gtk_file_chooser_get_filters (GTK_FILE_CHOOSER (dialog));
  g_assert_cmpuint (g_list_model_get_n_items (filters), ==, 2);
  reports = g_list_model_get_item (filters, 0);
  all = g_list_model_get_item (filters, 1);
  g_assert_cmpstr (gtk_file_filter_get_name (reports), ==, "CUBE reports (.cube, .cube.gz, .cubex)");
  g_assert_cmpstr (gtk_file_filter_get_name (all), ==, "All files");
  spec = g_variant_ref_sink (gtk_file_filter_to_gvariant (reports));
  text = g_variant_print (spec, FALSE);
  g_assert_cmpstr (text, ==, "('CUBE reports (.cube, .cube.gz, .cubex)', [(0, '*.cube'), (0, '*.cube.gz'), "
                             "(0, '*.cubex'), (1, 'application/x-cube'), (1, 'application/x-cube-compressed'), "
                             "(1, 'application/x-cubex')])");
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_assert_true (spin_until (file_chooser_gone, NULL, WAIT_MS));
  g_assert_null (kubus_window_get_browser (window));
  g_assert_cmpuint (ev.loaded + ev.failed, ==, 0);
  close_window (window, &ev);
}

/* Rewriting the shown file reloads it, keeping the selected metric. */
static void
test_reload (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("reload.cube", 1.0);
  g_autoptr (GFile) again = NULL;
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  select_row (window, KUBUS_PANE_METRIC, "Visits", 0);
  assert_pane (window, KUBUS_PANE_CALL, "main 36 [+] *\n");
  again = report_file ("reload.cube", 2.0);   /* written atomically: temp file + rename */
  wait_events (&ev, 2, 0);
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 32.00 [+]\n"
               "Visits 36 *\n");
  activate (window, "reload", NULL);
  wait_events (&ev, 3, 0);
  assert_pane (window, KUBUS_PANE_METRIC,
               "Time 32.00 [+]\n"
               "Visits 36 *\n");
  close_window (window, &ev);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if ((status = gui_test_ui_init (&argc, &argv, "gui-widgets")) != 0)
    return status;
  g_test_add_func ("/gui/widgets/open", test_open);
  g_test_add_func ("/gui/widgets/select-expand", test_select_expand);
  g_test_add_func ("/gui/widgets/expand-all-frames", test_expand_all_frames);
  g_test_add_func ("/gui/widgets/modes", test_modes);
  g_test_add_func ("/gui/widgets/external", test_external);
  g_test_add_func ("/gui/widgets/compare", test_compare);
  g_test_add_func ("/gui/widgets/call-views", test_call_views);
  g_test_add_func ("/gui/widgets/find", test_find);
  g_test_add_func ("/gui/widgets/bad-report", test_bad_report);
  g_test_add_func ("/gui/widgets/reload", test_reload);
  g_test_add_func ("/gui/widgets/legend", test_legend);
  g_test_add_func ("/gui/widgets/multiple-selection", test_multiple_selection);
  g_test_add_func ("/gui/widgets/sort", test_sort);
  g_test_add_func ("/gui/widgets/info", test_info);
  g_test_add_func ("/gui/widgets/accelerators", test_accelerators);
  g_test_add_func ("/gui/widgets/topology-enabled", test_topology_enabled);
  g_test_add_func ("/gui/widgets/prefetch-cancel", test_prefetch_cancel);
  g_test_add_func ("/gui/widgets/recent", test_recent);
  g_test_add_func ("/gui/widgets/drop", test_drop);
  g_test_add_func ("/gui/widgets/copy-hide-zero", test_copy_hide_zero);
  g_test_add_func ("/gui/widgets/keyboard-expand", test_keyboard_expand);
  g_test_add_func ("/gui/widgets/shortcuts-window", test_shortcuts_window);
  g_test_add_func ("/gui/widgets/open-dialog-filters", test_open_dialog_filters);
  status = g_test_run ();
  gui_test_ui_finish ();
  return status;
}
