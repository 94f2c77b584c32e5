/* test-topology-view.c — the Topology tabs of a real KubusWindow on a display (Xvfb): tabs per
 * topology, the disabled tab, Ctrl+T, a real click on a cell selecting its location in the
 * system tree, the tree's selection outlined, hover text, zoom and rotation, value modes,
 * axis layouts and settings remembered per report. Exits 77 without a display. */
#include <gdk/x11/gdkx.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "gui-test-report.h"
#include "kubus-application.h"
#include "kubus-topology-values.h"
#include "kubus-window-private.h"
#include "kubus-window-topology.h"
#include "remove-tree.h"
#include "topology-test-report.h"

#define WAIT_MS 20000

static KubusApplication *app;
static char *tmpdir;
static const gint64 dims444[3] = { 4, 4, 4 };

static gboolean
keep_awake (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

typedef gboolean (*Condition) (gpointer data);

static gboolean
spin_until (Condition cond,
            gpointer  data,
            guint     ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;
  guint awake = g_timeout_add (10, keep_awake, NULL);
  gboolean ok;

  while (!(ok = cond (data)) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (awake);
  return ok;
}

static gboolean
never (gpointer data)
{
  (void) data;
  return FALSE;
}

static void
spin (guint ms)
{
  spin_until (never, NULL, ms);
}

static void
on_loaded (KubusWindow *window,
           guint       *loaded)
{
  (void) window;
  (*loaded)++;
}

static gboolean
is_loaded (gpointer data)
{
  return *(guint *) data > 0;
}

static GFile *
write_report (const char *name,
              CubeReport *report)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (cube_report_write (report, path, &error));
  g_assert_no_error (error);
  cube_report_free (report);
  return g_file_new_for_path (path);
}

/* Opens @file in a new shown window and waits until it is loaded and drawn. */
static KubusWindow *
open_window (GFile *file)
{
  KubusWindow *window = kubus_window_new (GTK_APPLICATION (app));
  guint loaded = 0;

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  g_signal_connect (window, "loaded", G_CALLBACK (on_loaded), &loaded);
  gtk_window_present (GTK_WINDOW (window));
  kubus_window_open (window, file);
  if (!spin_until (is_loaded, &loaded, WAIT_MS))
    g_error ("timed out loading a report");
  g_signal_handlers_disconnect_by_func (window, on_loaded, &loaded);
  spin (100);
  return window;
}

static void
close_window (KubusWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  spin (50);
}

static const CubeSysNode *
thread_of_rank (CubeReport *report, gint64 rank)
{
  for (guint i = 0; i < report->sysnodes->len; i++)
    {
      const CubeSysNode *n = g_ptr_array_index (report->sysnodes, i);
      if (n->kind == CUBE_SYS_THREAD && n->parent->rank == rank)
        return n;
    }
  g_assert_not_reached ();
}

/* Selected system-tree nodes, "rank R" of their processes, space-separated. */
static char *
selected_ranks (KubusWindow *window)
{
  KubusPaneModel *system = kubus_browser_get_pane (kubus_window_get_browser (window), KUBUS_PANE_SYSTEM);
  GtkSelectionModel *model = kubus_pane_model_get_selection (system);
  g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (model);
  GString *s = g_string_new (NULL);
  GtkBitsetIter iter;
  guint pos;

  if (gtk_bitset_iter_init_first (&iter, set, &pos))
    do
      {
        g_autoptr (GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (model), pos);
        g_autoptr (KubusNodeRow) item = gtk_tree_list_row_get_item (row);
        const CubeSysNode *n = kubus_node_row_get_node (item);
        g_string_append_printf (s, "%s%lld", s->len > 0 ? " " : "",
                                (long long) (n->kind == CUBE_SYS_THREAD ? n->parent->rank : n->rank));
      }
    while (gtk_bitset_iter_next (&iter, &pos));
  return g_string_free (s, FALSE);
}

typedef struct
{
  KubusWindow *window;
  const char  *expected;
} RanksWanted;

static gboolean
ranks_are (gpointer data)
{
  RanksWanted *w = data;
  g_autofree char *got = selected_ranks (w->window);

  return g_strcmp0 (got, w->expected) == 0;
}

static void
assert_selected (KubusWindow *window,
                 const char  *expected)
{
  RanksWanted w = { window, expected };

  if (!spin_until (ranks_are, &w, WAIT_MS))
    {
      g_autofree char *got = selected_ranks (window);
      g_assert_cmpstr (got, ==, expected);
    }
}

/* ---- tests ------------------------------------------------------------------------------- */

static void
test_no_topology (void)
{
  g_autoptr (GFile) file = write_report ("plain.cube", gui_test_report_new (1.0));
  KubusWindow *window = open_window (file);
  GtkNotebook *notebook = GTK_NOTEBOOK (window->system_notebook);
  GtkWidget *tab;

  /* System tree and one disabled Topology tab that cannot be switched to. */
  g_assert_cmpint (gtk_notebook_get_n_pages (notebook), ==, 2);
  tab = gtk_notebook_get_tab_label (notebook, gtk_notebook_get_nth_page (notebook, 1));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (tab)), ==, "Topology");
  g_assert_false (gtk_widget_get_sensitive (tab));
  gtk_notebook_set_current_page (notebook, 1);
  g_assert_cmpint (gtk_notebook_get_current_page (notebook), ==, 0);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "topology"));
  {
    /* No topology to offer File › Export View… */
    g_autoptr (GPtrArray) views = kubus_window_list_export_views (window);
    for (guint i = 0; i < views->len; i++)
      g_assert_false (g_str_has_prefix (g_ptr_array_index (views, i), "topology:"));
  }
  close_window (window);
}

static void
test_tabs (void)
{
  const char *shared = g_getenv ("KUBUS_SHARED_DATA");
  g_autofree char *path = g_build_filename (shared != NULL ? shared : "/nonexistent", "cube",
                                            "cubelib_test32_example_multitopo.cube", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  KubusWindow *window;
  GtkNotebook *notebook;
  const char *names[] = { "Topology 1", "2D Dim", "4D Dim", "14D Dim!",
                          "Topology 4", "Topology 5", "Topology 6", "Topology 7" };
  GtkDropDown *chooser;
  GListModel *items;

  if (!g_file_query_exists (file, NULL))
    {
      g_test_skip ("shared multi-topology report not found");
      return;
    }
  window = open_window (file);
  notebook = GTK_NOTEBOOK (window->system_notebook);
  /* Eight different topologies, more than tabs: one tab "Topologies (8)" with a drop-down list
   * of them, named after them ("Topology N", from 0, when unnamed). */
  g_assert_cmpint (gtk_notebook_get_n_pages (notebook), ==, 2);
  {
    GtkWidget *tab = gtk_notebook_get_tab_label (notebook, gtk_notebook_get_nth_page (notebook, 1));
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (tab)), ==, "Topologies (8)");
  }
  chooser = kubus_window_get_topology_chooser (window);
  g_assert_nonnull (chooser);
  items = gtk_drop_down_get_model (chooser);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), i), ==, names[i]);
  /* File › Export View… is in the File section of the main menu. */
  {
    GMenuModel *menu = kubus_window_get_primary_menu (window);
    g_autoptr (GMenuModel) file = NULL;
    gboolean found = FALSE;

    g_assert_nonnull (menu);
    file = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
    for (int i = 0; i < g_menu_model_get_n_items (file); i++)
      {
        g_autofree char *action = NULL;
        if (g_menu_model_get_item_attribute (file, i, G_MENU_ATTRIBUTE_ACTION, "s", &action))
          found = found || g_str_equal (action, "win.export-view");
      }
    g_assert_true (found);
  }
  /* Ctrl+T (win.topology) goes to the first topology and back. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "topology", NULL);
  g_assert_cmpint (kubus_window_get_shown_topology (window), ==, 0);
  /* The topology chosen is the view of File › Export View… (the export dialog's registry). */
  g_assert_cmpstr (kubus_window_export_view_label (window, "topology:0"), ==, "Topology “Topology 1”");
  gtk_drop_down_set_selected (chooser, 1);
  g_assert_cmpint (kubus_window_get_shown_topology (window), ==, 1);
  {
    g_autoptr (GPtrArray) views = kubus_window_list_export_views (window);
    guint n = 0;
    for (guint i = 0; i < views->len; i++)
      n += g_str_has_prefix (g_ptr_array_index (views, i), "topology:");
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpstr (kubus_window_export_view_label (window, "topology:1"), ==, "Topology “2D Dim”");
  }
  gtk_drop_down_set_selected (chooser, 0);
  g_action_group_activate_action (G_ACTION_GROUP (window), "topology", NULL);
  g_assert_cmpint (kubus_window_get_shown_topology (window), ==, -1);
  /* The 14-D topology draws (folded and sliced by default) without error. */
  g_assert_true (kubus_window_show_topology (window, 3));
  spin (200);
  {
    KubusTopologyView *view = kubus_window_get_topology_view (window, 3);
    TopoGrid *grid = topo_scene_get_grid (kubus_topology_view_get_scene (view));
    g_assert_nonnull (grid);
    g_assert_cmpint (grid->n_cells, <=, TOPO_DEFAULT_MAX_CELLS);
    g_assert_cmpuint (grid->n_placed + grid->n_elsewhere, ==, 2);
  }
  close_window (window);
}

/* Adds topology @name of @ndims dimensions @sizes (periodic) to @report, with ranks @ranks
 * (@n of them, the threads of topology_test_report_new) at coordinates r → (i mod sizes[0],
 * i / sizes[0]) for the i-th of them. */
static void
add_cart (CubeReport   *report,
          const char   *name,
          guint         ndims,
          const gint64 *sizes,
          const gint64 *ranks,
          guint         n)
{
  const gboolean periodic[2] = { TRUE, TRUE };
  CubeCart *cart = cube_report_add_cart (report, name, ndims, sizes, periodic);

  for (guint i = 0; i < n; i++)
    {
      gint64 coord[2] = { (gint64) i % sizes[0], ndims > 1 ? (gint64) i / sizes[0] : 0 };
      cube_cart_set_coord (cart, (CubeSysNode *) thread_of_rank (report, ranks[i]), coord);
    }
}

/* A code that creates its communicators again and again (CP2K: 103 topologies, 6 different):
 * the grid of topology_test_report_new (2×2×1), then 37 times MPI_Cart_create 2×2 followed by
 * its two rows (MPI_Cart_sub of ranks 0, 1 and of 2, 3; the last time without the second row),
 * then MPI_Cart_create 4×1 and one MPI_Cart_sub of one rank for each rank: 82 topologies, 9
 * different. */
static CubeReport *
many_topologies_report (guint *n_topologies)
{
  static const gint64 dims221[3] = { 2, 2, 1 };
  static const gint64 all[4] = { 0, 1, 2, 3 }, row0[2] = { 0, 1 }, row1[2] = { 2, 3 };
  const gint64 s22[2] = { 2, 2 }, s41[2] = { 4, 1 }, s2[1] = { 2 }, s1[1] = { 1 };
  CubeReport *report = topology_test_report_new (dims221, 1, 4, 0);

  for (guint k = 0; k < 37; k++)
    {
      add_cart (report, "MPI_Cart_create", 2, s22, all, 4);
      add_cart (report, "MPI_Cart_sub", 1, s2, row0, 2);
      if (k < 36)
        add_cart (report, "MPI_Cart_sub", 1, s2, row1, 2);
    }
  add_cart (report, "MPI_Cart_create", 2, s41, all, 4);
  for (guint r = 0; r < 4; r++)
    add_cart (report, "MPI_Cart_sub", 1, s1, &all[r], 1);
  *n_topologies = report->topologies->len;
  return report;
}

static void
test_many (void)
{
  guint n = 0;
  g_autoptr (GFile) file = write_report ("many.cube", many_topologies_report (&n));
  KubusWindow *window = open_window (file);
  GtkNotebook *notebook = GTK_NOTEBOOK (window->system_notebook);
  const char *labels[] = { "Synthetic grid", "MPI_Cart_create 2×2 ×37", "MPI_Cart_sub 2 (ranks 0, 1) ×37",
                           "MPI_Cart_sub 2 (ranks 2, 3) ×36", "MPI_Cart_create 4×1",
                           "MPI_Cart_sub 1 (rank 0)", "MPI_Cart_sub 1 (rank 1)", "MPI_Cart_sub 1 (rank 2)",
                           "MPI_Cart_sub 1 (rank 3)" };
  GtkDropDown *chooser;
  GListModel *items;
  KubusTopologyView *view;

  g_assert_cmpuint (n, ==, 1 + 37 * 3 - 1 + 1 + 4);
  /* One tab for all of them, a drop-down list of the 9 different ones. */
  g_assert_cmpint (gtk_notebook_get_n_pages (notebook), ==, 2);
  {
    GtkWidget *tab = gtk_notebook_get_tab_label (notebook, gtk_notebook_get_nth_page (notebook, 1));
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (tab)), ==, "Topologies (9)");
    g_assert_cmpstr (gtk_widget_get_tooltip_text (tab), ==,
                     "116 topologies, 9 different: choose one in the list");
  }
  chooser = kubus_window_get_topology_chooser (window);
  g_assert_nonnull (chooser);
  items = gtk_drop_down_get_model (chooser);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, G_N_ELEMENTS (labels));
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), i), ==, labels[i]);

  /* Any topology of a group shows that group: topology 40 is the 14th MPI_Cart_create 2×2
   * (1 + 13 · 3), shown as the first of them, topology 1. */
  g_assert_true (kubus_window_show_topology (window, 40));
  g_assert_cmpuint (gtk_drop_down_get_selected (chooser), ==, 1);
  g_assert_cmpint (kubus_window_get_shown_topology (window), ==, 1);
  view = kubus_window_get_topology_view (window, 40);
  g_assert_nonnull (view);
  g_assert_cmpuint (kubus_topology_view_get_topology (view), ==, 1);
  g_assert_null (kubus_window_get_topology_view (window, 0));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (chooser)), ==,
                   "MPI_Cart_create\n2×2, periodic\n4 locations\n37 identical topologies: 1, 4, 7, 10, 13, "
                   "16, 19, 22, 25, 28, 31, 34, …");
  spin (200);
  {
    TopoGrid *grid = topo_scene_get_grid (kubus_topology_view_get_scene (view));
    g_assert_nonnull (grid);
    g_assert_cmpuint (grid->n_placed, ==, 4);
    /* the grid's own title tells it from the other MPI_Cart_create, as the list does */
    g_assert_cmpstr (topo_scene_get_title (kubus_topology_view_get_scene (view)), ==, "MPI_Cart_create 2×2");
  }
  /* Choosing in the list: the view and File › Export View… follow. */
  gtk_drop_down_set_selected (chooser, 4);
  g_assert_cmpint (kubus_window_get_shown_topology (window), ==, 1 + 37 * 3 - 1);
  {
    g_autoptr (GPtrArray) views = kubus_window_list_export_views (window);
    guint k = 0;
    for (guint i = 0; i < views->len; i++)
      k += g_str_has_prefix (g_ptr_array_index (views, i), "topology:");
    g_assert_cmpuint (k, ==, 1);
    g_assert_cmpstr (kubus_window_export_view_label (window, "topology:111"), ==,
                     "Topology “MPI_Cart_create 4×1”");
  }
  gtk_drop_down_set_selected (chooser, 2);
  spin (200);
  view = kubus_window_get_topology_view (window, kubus_window_get_shown_topology (window));
  g_assert_nonnull (view);
  g_assert_cmpstr (topo_scene_get_title (kubus_topology_view_get_scene (view)), ==,
                   "MPI_Cart_sub 2 (ranks 0, 1)");
  /* A topology that is not there. */
  g_assert_false (kubus_window_show_topology (window, (int) n));
  close_window (window);
}

/* A few different topologies keep a tab each, the same ones as one. */
static void
test_few_grouped (void)
{
  static const gint64 dims221[3] = { 2, 2, 1 };
  static const gint64 all[4] = { 0, 1, 2, 3 };
  const gint64 s22[2] = { 2, 2 };
  CubeReport *report = topology_test_report_new (dims221, 1, 4, 0);
  const char *names[] = { "System Tree", "Synthetic grid", "MPI_Cart_create ×10" };

  for (guint k = 0; k < 10; k++)
    add_cart (report, "MPI_Cart_create", 2, s22, all, 4);
  {
    g_autoptr (GFile) file = write_report ("few.cube", report);
    KubusWindow *window = open_window (file);
    GtkNotebook *notebook = GTK_NOTEBOOK (window->system_notebook);

    g_assert_null (kubus_window_get_topology_chooser (window));
    g_assert_cmpint (gtk_notebook_get_n_pages (notebook), ==, G_N_ELEMENTS (names));
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        GtkWidget *tab = gtk_notebook_get_tab_label (notebook, gtk_notebook_get_nth_page (notebook, i));
        g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (tab)), ==, names[i]);
      }
    /* topology 7 is on the second tab, shown as topology 1 */
    g_assert_true (kubus_window_show_topology (window, 7));
    g_assert_cmpint (gtk_notebook_get_current_page (notebook), ==, 2);
    g_assert_cmpint (kubus_window_get_shown_topology (window), ==, 1);
    g_assert_true (kubus_window_get_topology_view (window, 7) == kubus_window_get_topology_view (window, 1));
    close_window (window);
  }
}

/* Clicks at (@x, @y) of @widget with a real X pointer event (xdotool). */
static void
click_widget (GtkWidget       *widget,
              double           x,
              double           y,
              gboolean         ctrl)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GdkSurface *surface = gtk_native_get_surface (native);
  graphene_point_t p;
  double sx, sy;
  g_autofree char *cmd = NULL;
  int status;

  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &GRAPHENE_POINT_INIT (x, y), &p));
  gtk_native_get_surface_transform (native, &sx, &sy);
  cmd = g_strdup_printf ("xdotool mousemove --window %lu %d %d %s click 1 %s",
                         (unsigned long) gdk_x11_surface_get_xid (surface),
                         (int) (p.x + sx), (int) (p.y + sy),
                         ctrl ? "keydown ctrl" : "", ctrl ? "keyup ctrl" : "");
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
}

static void
test_click_and_outline (void)
{
  g_autoptr (GFile) file = write_report ("grid.cube", topology_test_report_new (dims444, 90, 100, 0));
  KubusWindow *window = open_window (file);
  KubusTopologyView *view;
  GtkWidget *canvas;
  TopoScene *scene;
  CubeReport *report = kubus_browser_get_report (kubus_window_get_browser (window));
  double x, y;
  int w, h;

  g_assert_true (kubus_window_show_topology (window, 0));
  spin (200);
  view = kubus_window_get_topology_view (window, 0);
  canvas = kubus_topology_view_get_canvas (view);
  scene = kubus_topology_view_get_scene (view);
  w = gtk_widget_get_width (canvas), h = gtk_widget_get_height (canvas);
  g_assert_cmpint (w, >, 200);

  /* A click on rank 21's cell selects it in the system tree; Ctrl+click adds rank 2. */
  g_assert_true (topo_scene_cell_center (scene, w, h, 21, &x, &y));
  click_widget (canvas, x, y, FALSE);
  assert_selected (window, "21");
  g_assert_true (topo_scene_cell_center (scene, w, h, 2, &x, &y));
  click_widget (canvas, x, y, TRUE);
  assert_selected (window, "2 21");

  /* Selecting in the system tree outlines the cells (after the next draw). */
  {
    KubusPaneModel *system = kubus_browser_get_pane (kubus_window_get_browser (window), KUBUS_PANE_SYSTEM);
    GtkSelectionModel *sel = kubus_pane_model_get_selection (system);
    guint p40 = kubus_pane_model_reveal (system, KUBUS_NODE_SYSNODE, thread_of_rank (report, 40));
    guint p41 = kubus_pane_model_reveal (system, KUBUS_NODE_SYSNODE, thread_of_rank (report, 41));
    g_autoptr (GArray) cells = g_array_new (FALSE, FALSE, sizeof (gint64));

    gtk_selection_model_select_item (sel, p40, TRUE);
    gtk_selection_model_select_item (sel, p41, FALSE);
    spin (100);
    kubus_topology_view_flush (view);
    kubus_topology_selected_cells (kubus_window_get_browser (window),
                                   topo_scene_get_grid (scene), cells);
    g_assert_cmpuint (cells->len, ==, 2);
    g_assert_cmpint (g_array_index (cells, gint64, 0), ==, 40);
    g_assert_cmpint (g_array_index (cells, gint64, 1), ==, 41);
  }

  /* Hover text: location, rank, value, coordinates with sizes and periodicity. */
  {
    g_autofree char *markup = kubus_topology_view_cell_markup (view, 21);
    g_assert_nonnull (strstr (markup, "<b>thread 0</b> · rank 21"));
    g_assert_nonnull (strstr (markup, "Value: 93.33 sec"));
    g_assert_nonnull (strstr (markup, "x = 1  (of 4, periodic)"));
    g_assert_nonnull (strstr (markup, "y = 1  (of 4)"));
    g_assert_nonnull (strstr (markup, "z = 1  (of 4)"));
  }
  close_window (window);
}

static void
test_navigation_and_modes (void)
{
  g_autoptr (GFile) file = write_report ("grid2.cube", topology_test_report_new (dims444, 90, 100, 0));
  KubusWindow *window = open_window (file);
  KubusTopologyView *view;
  TopoSettings s;

  kubus_window_show_topology (window, 0);
  spin (100);
  view = kubus_window_get_topology_view (window, 0);
  s = *kubus_topology_view_get_settings (view);
  g_assert_cmpfloat (s.camera.zoom, ==, 1.0);
  /* Zoom in/out and fit (Ctrl+plus / Ctrl+minus / Ctrl+0 are these actions' shortcuts). */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "topology.zoom-in", NULL));
  g_assert_cmpfloat_with_epsilon (kubus_topology_view_get_settings (view)->camera.zoom, 1.25, 1e-12);
  gtk_widget_activate_action (GTK_WIDGET (view), "topology.zoom-out", NULL);
  gtk_widget_activate_action (GTK_WIDGET (view), "topology.zoom-out", NULL);
  g_assert_cmpfloat_with_epsilon (kubus_topology_view_get_settings (view)->camera.zoom, 0.8, 1e-12);
  gtk_widget_activate_action (GTK_WIDGET (view), "topology.zoom-fit", NULL);
  g_assert_cmpfloat (kubus_topology_view_get_settings (view)->camera.zoom, ==, 1.0);
  /* Arrow keys rotate (real key events to the focused canvas). */
  gtk_widget_grab_focus (kubus_topology_view_get_canvas (view));
  spin (50);
  {
    int status;
    g_autofree char *cmd = g_strdup_printf ("xdotool key --window %lu Left Up",
                                            (unsigned long) gdk_x11_surface_get_xid (
                                              gtk_native_get_surface (GTK_NATIVE (window))));
    g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  }
  spin (300);
  g_assert_cmpfloat (kubus_topology_view_get_settings (view)->camera.yaw, ==, s.camera.yaw + 5);
  g_assert_cmpfloat (kubus_topology_view_get_settings (view)->camera.pitch, ==, s.camera.pitch + 5);

  /* The cells follow the value mode of the system tree. */
  kubus_window_set_mode (window, KUBUS_MODE_PERCENT);
  kubus_topology_view_flush (view);
  g_assert_cmpfloat_with_epsilon (topo_scene_get_grid (kubus_topology_view_get_scene (view))->values[0],
                                  90.0 / 6080 * 100, 1e-12);

  /* Another layout: z folded into x, y a slice at 2. */
  g_assert_true (kubus_topology_view_set_layout (view, "x s2 x"));
  kubus_topology_view_flush (view);
  {
    TopoGrid *grid = topo_scene_get_grid (kubus_topology_view_get_scene (view));
    g_assert_cmpint (grid->n_cells, ==, 16);
    g_assert_cmpuint (grid->n_placed, ==, 16);
    /* x = x_index · 4 + z_index; rank at (x 1, y 2, z 3) is 1 + 4·2 + 16·3 = 57. */
    g_assert_cmpfloat_with_epsilon (grid->values[1 * 4 + 3], (90 + 10.0 * 57 / 63) / 6080 * 100, 1e-12);
  }
  close_window (window);
}

static gboolean
has_name (GtkWidget *w, gpointer name)
{
  return g_strcmp0 (gtk_widget_get_name (w), name) == 0;
}

static GtkWidget *
find_named (GtkWidget *root, const char *name)
{
  if (has_name (root, (gpointer) name))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_named (c, name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The toolbar's controls (the popovers' widgets are the menu buttons' children). */
static void
test_controls (void)
{
  g_autoptr (GFile) file = write_report ("grid5.cube", topology_test_report_new (dims444, 90, 100, 0));
  KubusWindow *window = open_window (file);
  KubusTopologyView *view = kubus_window_get_topology_view (window, 0);
  GtkWidget *w;
  TopoGrid *grid;

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (find_named (GTK_WIDGET (view), "topology-high-resolution")), TRUE);
  g_assert_true (kubus_topology_view_get_settings (view)->high_resolution);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_named (GTK_WIDGET (view), "topology-stacking")), TOPO_STACK_X);
  g_assert_cmpint (kubus_topology_view_get_settings (view)->stacking, ==, TOPO_STACK_X);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_named (GTK_WIDGET (view), "topology-lines")), TOPO_LINES_WHITE);
  g_assert_cmpint (kubus_topology_view_get_settings (view)->lines, ==, TOPO_LINES_WHITE);
  gtk_range_set_value (GTK_RANGE (find_named (GTK_WIDGET (view), "topology-distance")), 2.5);
  g_assert_cmpfloat (kubus_topology_view_get_settings (view)->camera.distance, ==, 2.5);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (GTK_WIDGET (view), "topology-hide-empty")), TRUE);
  g_assert_true (kubus_topology_view_get_settings (view)->hide_empty);

  /* Axes: z becomes a slice at index 3 — the grid is plane z = 3, ranks 48 … 63. */
  w = find_named (GTK_WIDGET (view), "topology-axis-slice-2");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (w), 3);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_named (GTK_WIDGET (view), "topology-axis-role-2")),
                              TOPO_AXIS_SLICE);
  g_assert_true (gtk_widget_get_sensitive (find_named (GTK_WIDGET (view), "topology-axis-slice-2")));
  kubus_topology_view_flush (view);
  grid = topo_scene_get_grid (kubus_topology_view_get_scene (view));
  g_assert_cmpint (grid->n_cells, ==, 16);
  g_assert_cmpfloat (grid->values[0], ==, 90 + 10.0 * 48 / 63);
  /* … and y folded into x: 16 × 1 cells, x = x_index · 4 + y_index. */
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_named (GTK_WIDGET (view), "topology-axis-role-1")),
                              TOPO_AXIS_X);
  kubus_topology_view_flush (view);
  grid = topo_scene_get_grid (kubus_topology_view_get_scene (view));
  g_assert_cmpint (grid->layout->extent[0], ==, 16);
  g_assert_cmpint (grid->layout->extent[1], ==, 1);
  g_assert_cmpfloat (grid->values[1 * 4 + 2], ==, 90 + 10.0 * (48 + 1 + 4 * 2) / 63);
  close_window (window);
}

static void
test_remembered (void)
{
  g_autoptr (GFile) file = write_report ("grid3.cube", topology_test_report_new (dims444, 90, 100, 0));
  KubusWindow *window = open_window (file);
  KubusTopologyView *view = kubus_window_get_topology_view (window, 0);
  TopoSettings s = *kubus_topology_view_get_settings (view);

  s.high_resolution = TRUE;
  s.stacking = TOPO_STACK_Y;
  s.lines = TOPO_LINES_NONE;
  s.camera.yaw = 77;
  kubus_topology_view_set_settings (view, &s);
  kubus_topology_view_set_layout (view, "y x z");
  close_window (window);   /* saves what was changed */

  window = open_window (file);
  view = kubus_window_get_topology_view (window, 0);
  g_assert_true (kubus_topology_view_get_settings (view)->high_resolution);
  g_assert_cmpint (kubus_topology_view_get_settings (view)->stacking, ==, TOPO_STACK_Y);
  g_assert_cmpint (kubus_topology_view_get_settings (view)->lines, ==, TOPO_LINES_NONE);
  g_assert_cmpfloat (kubus_topology_view_get_settings (view)->camera.yaw, ==, 77);
  {
    g_autofree char *layout = topo_layout_to_string (topo_scene_get_grid (kubus_topology_view_get_scene (view))->layout);
    g_assert_cmpstr (layout, ==, "y x z");
  }
  close_window (window);

  /* Another report starts from the defaults. */
  {
    g_autoptr (GFile) other = write_report ("grid4.cube", topology_test_report_new (dims444, 90, 100, 0));
    window = open_window (other);
    view = kubus_window_get_topology_view (window, 0);
    g_assert_false (kubus_topology_view_get_settings (view)->high_resolution);
    g_assert_cmpint (kubus_topology_view_get_settings (view)->stacking, ==, TOPO_STACK_Z);
    close_window (window);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autofree char *state = NULL, *data_home = NULL;
  int status;

  if (g_getenv ("DISPLAY") == NULL || g_getenv ("DISPLAY")[0] == '\0')
    {
      g_print ("1..0 # SKIP no display (run under tests/gui/xvfb-wrap.sh)\n");
      return 77;
    }
  if (!g_find_program_in_path ("xdotool"))
    {
      g_print ("1..0 # SKIP xdotool not installed\n");
      return 77;
    }
  tmpdir = g_dir_make_tmp ("kubus-topology-view-XXXXXX", &error);
  g_assert_no_error (error);
  state = g_build_filename (tmpdir, "state", NULL);
  data_home = g_build_filename (tmpdir, "data-home", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);

  gtk_test_init (&argc, &argv, NULL);
  app = kubus_application_new ();
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("cannot register the application: %s", error->message);
  g_application_hold (G_APPLICATION (app));

  g_test_add_func ("/topology/view/no-topology", test_no_topology);
  g_test_add_func ("/topology/view/tabs", test_tabs);
  g_test_add_func ("/topology/view/many", test_many);
  g_test_add_func ("/topology/view/few-grouped", test_few_grouped);
  g_test_add_func ("/topology/view/click-and-outline", test_click_and_outline);
  g_test_add_func ("/topology/view/navigation-and-modes", test_navigation_and_modes);
  g_test_add_func ("/topology/view/controls", test_controls);
  g_test_add_func ("/topology/view/remembered", test_remembered);
  status = g_test_run ();
  g_application_release (G_APPLICATION (app));
  /* the test's files and settings go with it (they were left in /tmp after every run) */
  kubus_remove_tree (tmpdir);
  return status;
}
