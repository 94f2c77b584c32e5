/* test-gui-second-look.c — issue 24 on a display (Xvfb): what a new user still tripped over.
 * Each test drives the real widgets (tests/gui/gui-test-ui.h) and fails on the code before the
 * fix: menus, window and pane titles, the find bar, translated metric names, the source view,
 * the simulation result panel and the Simulate dialog's hypothesis check.
 * Run under tests/gui/xvfb-wrap.sh; exits 77 without a display. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "gui-test-report.h"
#include "gui-test-ui.h"
#include "kubus-window-topology.h"

/* ---- items 1 and 13: the main menu ------------------------------------------------------------ */

/* Depth-first: does @menu (or a section or submenu of it) hold an item for @action? */
static gboolean
menu_has_action (GMenuModel *menu,
                 const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *a = NULL;
      g_autoptr (GMenuLinkIter) links = g_menu_model_iterate_item_links (menu, i);
      GMenuModel *linked;

      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &a) && g_str_equal (a, action))
        return TRUE;
      while (g_menu_link_iter_get_next (links, NULL, &linked))
        {
          gboolean found = menu_has_action (linked, action);
          g_object_unref (linked);
          if (found)
            return TRUE;
        }
    }
  return FALSE;
}

/* Item 1: File › Scalability… is in the File section of the main menu, in the empty window and
 * in a report's window (an item carried two actions; the second won). */
static void
test_menu_scalability (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("menu.cube", 1.0);
  KubusWindow *empty = new_window (&ev);
  KubusWindow *window;
  g_autoptr (GMenuModel) section = NULL;

  section = g_menu_model_get_item_link (kubus_window_get_primary_menu (empty), 0, G_MENU_LINK_SECTION);
  g_assert_true (menu_has_action (section, "app.scalability"));
  g_assert_true (menu_has_action (section, "win.export-view"));
  close_window (empty, &ev);

  window = new_window (&ev);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  g_clear_object (&section);
  section = g_menu_model_get_item_link (kubus_window_get_primary_menu (window), 0, G_MENU_LINK_SECTION);
  g_assert_true (menu_has_action (section, "app.scalability"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (app), "scalability"));
  close_window (window, &ev);
}

static gboolean
is_menu_button (GtkWidget *w,
                gpointer   data)
{
  (void) data;
  return GTK_IS_MENU_BUTTON (w) && gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (w)) != NULL;
}

static gboolean
popover_has_height (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_height (data) > 0;
}

/* Item 13: the main menu fits a 768-px screen below the header bar (it was taller than 1000 px:
 * About and Quit needed scrolling), and every action is still in it. */
static void
test_menu_height (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("menu-height.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  GtkWidget *button = find_widget (gtk_window_get_titlebar (GTK_WINDOW (window)), is_menu_button, NULL);
  GtkPopover *popover;
  GMenuModel *menu = kubus_window_get_primary_menu (window);
  int natural = 0;
  const char *const actions[] = { "app.new-window", "app.open", "win.compare", "win.reload", "app.scalability",
                                  "win.export-view", "win.export-values", "win.mode", "win.call-view", "win.sort",
                                  "win.hide-zero", "win.hide-below", "win.find", "win.expand-largest",
                                  "win.expand-all", "win.collapse-all", "win.topology", "win.statistics",
                                  "win.source", "app.measure", "app.analyze", "app.simulate", "app.compare",
                                  "app.preferences", "win.show-help-overlay", "app.about", "app.quit" };

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    if (!menu_has_action (menu, actions[i]))
      g_error ("the main menu lost %s", actions[i]);
  g_assert_nonnull (button);
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));
  g_assert_true (spin_until (popover_has_height, popover, WAIT_MS));
  gtk_widget_measure (GTK_WIDGET (popover), GTK_ORIENTATION_VERTICAL, -1, NULL, &natural, NULL, NULL);
  g_test_message ("main menu: %d px tall", natural);
  /* 768 px, less the header bar (~50 px) and the panel of a desktop (~40 px) */
  if (natural > 670)
    g_error ("the main menu is %d px tall: it does not fit a 768-px screen", natural);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  close_window (window, &ev);
}

/* ---- item 14: the find bar says which match is shown ------------------------------------------- */

typedef struct
{
  GtkWidget  *label;
  const char *want;
} LabelWait;

static gboolean
label_says (gpointer data)
{
  LabelWait *w = data;

  return g_strcmp0 (gtk_label_get_text (GTK_LABEL (w->label)), w->want) == 0;
}

static void
wait_label (GtkWidget  *label,
            const char *want)
{
  LabelWait w = { label, want };

  if (!spin_until (label_says, &w, WAIT_MS))
    g_error ("the label says “%s”, not “%s”", gtk_label_get_text (GTK_LABEL (label)), want);
}

static void
test_find_position (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("find.cube", 1.0);
  KubusWindow *window = new_window (&ev);

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  kubus_window_set_active_pane (window, KUBUS_PANE_CALL, FALSE);
  activate (window, "find", NULL);
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "MPI");
  wait_label (window->search_label, "2 matches");
  activate (window, "find-next", NULL);
  wait_label (window->search_label, "1 of 2 matches");
  activate (window, "find-next", NULL);
  wait_label (window->search_label, "2 of 2 matches");
  activate (window, "find-next", NULL);
  wait_label (window->search_label, "1 of 2 matches");
  activate (window, "find-previous", NULL);
  wait_label (window->search_label, "2 of 2 matches");
  close_window (window, &ev);
}

/* ---- item 11: pane titles at the default size --------------------------------------------------- */

/* The first visible label under @w whose text is cut ("Call …"), or NULL. */
static const char *
cut_label (GtkWidget *w)
{
  if (!gtk_widget_get_visible (w))
    return NULL;
  if (GTK_IS_LABEL (w) && gtk_widget_get_mapped (w) && gtk_label_get_text (GTK_LABEL (w))[0] != '\0'
      && pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (w))))
    return gtk_label_get_text (GTK_LABEL (w));
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      const char *cut = cut_label (c);
      if (cut != NULL)
        return cut;
    }
  return NULL;
}

static gboolean
headers_laid_out (gpointer data)
{
  KubusWindow *window = data;

  for (guint i = 0; i < KUBUS_N_PANES; i++)
    {
      GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (pane_view (window, i)));
      if (!gtk_widget_get_mapped (header) || gtk_widget_get_width (header) <= 0)
        return FALSE;
    }
  return TRUE;
}

/* A report with kubus-analyze's metric roots (their names widen the metric tree as they did in
 * the report where the call tree's title read "Call …"). */
static GFile *
analysis_like_file (const char *name)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (CubeReport) r = cube_report_new ();
  g_autoptr (GError) error = NULL;
  const char *const metrics[][3] = { { "time", "Time", "sec" }, { "visits", "Visits", "occ" },
                                     { "syncs", "MPI synchronizations", "occ" },
                                     { "comms", "MPI communications", "occ" },
                                     { "bytes", "MPI bytes transferred", "bytes" } };
  CubeCnode *main_c = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "a.c", 1, 9), -1, NULL);
  CubeCnode *send = cube_report_add_cnode (r, main_c, cube_report_add_region (r, "MPI_Send", "MPI", -1, -1), 4, "a.c");
  CubeSysNode *m = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "machine", -1);

  for (int l = 0; l < 4; l++)
    {
      g_autofree char *rank = g_strdup_printf ("MPI Rank %d", l);
      cube_report_add_sysnode (r, cube_report_add_sysnode (r, m, CUBE_SYS_PROCESS, rank, l), CUBE_SYS_THREAD,
                               "Master thread", 0);
    }
  for (guint i = 0; i < G_N_ELEMENTS (metrics); i++)
    {
      CubeMetric *metric = cube_report_add_metric (r, NULL, metrics[i][0], metrics[i][1],
                                                   i == 0 ? CUBE_DTYPE_DOUBLE : CUBE_DTYPE_UINT64,
                                                   metrics[i][2], NULL, NULL);
      for (int l = 0; l < 4; l++)
        {
          cube_report_set_value (r, metric, main_c, l, 1 + l);
          cube_report_set_value (r, metric, send, l, 2 + l);
        }
    }
  g_assert_true (cube_report_write (r, path, &error));
  return g_file_new_for_path (path);
}

/* Item 11: at the default 1200×700 no pane header is cut ("Call …", in German "Aufrufba…"),
 * also in the percent mode a comparison opens in. */
static void
check_pane_headers (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = analysis_like_file ("titles.cube");
  KubusWindow *window = new_window (&ev);

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 700);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  kubus_window_set_mode (window, KUBUS_MODE_PERCENT);
  g_assert_true (spin_until (headers_laid_out, window, WAIT_MS));
  spin (200);
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    {
      GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (pane_view (window, i)));
      const char *cut = cut_label (header);

      if (cut != NULL)
        g_error ("pane %u: “%s” is cut off at 1200×700 (header %d px wide)", i, cut, gtk_widget_get_width (header));
    }
  close_window (window, &ev);
}

static void
test_pane_titles (void)
{
  check_pane_headers ();
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if ((status = gui_test_ui_init (&argc, &argv, "gui-second-look")) != 0)
    return status;
  g_test_add_func ("/gui/second-look/menu-scalability", test_menu_scalability);
  g_test_add_func ("/gui/second-look/menu-height", test_menu_height);
  g_test_add_func ("/gui/second-look/find-position", test_find_position);
  g_test_add_func ("/gui/second-look/pane-titles", test_pane_titles);
  status = g_test_run ();
  gui_test_ui_finish ();
  return status;
}
