/* test-gui-second-look.c — issue 24 on a display (Xvfb): what a new user still tripped over.
 * Each test drives the real widgets (tests/gui/gui-test-ui.h) and fails on the code before the
 * fix: menus, window and pane titles, the find bar, translated metric names, the source view,
 * the simulation result panel and the Simulate dialog's hypothesis check.
 * Run under tests/gui/xvfb-wrap.sh; exits 77 without a display. */
#include <glib/gi18n.h>
#include <locale.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "gui-test-report.h"
#include "gui-test-ui.h"
#include "kubus-experiment-dialogs.h"
#include "kubus-legend.h"
#include "kubus-source-view.h"
#include "kubus-window-private.h"
#include "kubus-window-sim.h"
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

/* The mnemonic of @label (the character after a single '_'), lower-cased; 0 without one. */
static gunichar
label_mnemonic (const char *label)
{
  for (const char *p = label; *p != '\0'; p++)
    if (p[0] == '_')
      {
        if (p[1] == '_')
          p++;
        else if (p[1] != '\0')
          return g_unichar_tolower (g_utf8_get_char (p + 1));
      }
  return 0;
}

/* One level of a popover menu: the items of @menu and of its sections (shown together); each
 * submenu is a level of its own, checked recursively.  Every item has a mnemonic and no two
 * items of a level share one, so F10 and a letter reach every action. */
static void
check_menu_level (GMenuModel *menu,
                  GHashTable *seen,
                  const char *where)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *label = NULL;
      g_autofree char *action = NULL;
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);
      g_autoptr (GMenuModel) submenu = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SUBMENU);
      gunichar m;

      if (section != NULL)
        {
          check_menu_level (section, seen, where);
          continue;
        }
      if (!g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        continue;
      /* Open Recent lists file names (their underscores escaped), reached with the arrow keys */
      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &action)
          && (g_str_equal (action, "app.open-uri") || g_str_equal (action, "win.no-recent")))
        continue;
      m = label_mnemonic (label);
      if (m == 0)
        g_error ("%s: “%s” has no mnemonic", where, label);
      if (g_hash_table_contains (seen, GUINT_TO_POINTER (m)))
        g_error ("%s: “%s” and “%s” share the mnemonic", where, label,
                 (char *) g_hash_table_lookup (seen, GUINT_TO_POINTER (m)));
      g_hash_table_insert (seen, GUINT_TO_POINTER (m), g_strdup (label));
      if (submenu != NULL)
        {
          g_autoptr (GHashTable) inner = g_hash_table_new_full (NULL, NULL, NULL, g_free);
          g_autofree char *path = g_strdup_printf ("%s › %s", where, label);

          check_menu_level (submenu, inner, path);
        }
    }
}

/* Keyboard-only use (the second look's session): in the Experiment submenu "_Measure…" and
 * "Si_mulate…" shared M, in the Trees submenu "_Statistics…" and "Show _Source…" shared S and
 * the File section's two exports shared V: the letter went to the first item only.  A row's
 * context menu had the same S twice. */
static void
test_menu_mnemonics (void)
{
  Events ev = { 0 };
  KubusWindow *window = new_window (&ev);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (NULL, NULL, NULL, g_free);

  g_autoptr (GHashTable) row_seen = g_hash_table_new_full (NULL, NULL, NULL, g_free);

  check_menu_level (kubus_window_get_primary_menu (window), seen, "main menu");
  check_menu_level (window->row_menu, row_seen, "a row's menu");
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
  /* kubus-analyze's deepest chain of time metrics: it widens the metric tree */
  const char *const chain[][2] = { { "execution", "Execution" }, { "mpi", "MPI" },
                                   { "mpi_communication", "Communication" },
                                   { "mpi_point2point", "Point-to-point" }, { "mpi_latesender", "Late Sender" },
                                   { "mpi_latesender_wo", "Messages in Wrong Order" },
                                   { "mpi_lswo_different", "From different sources" } };
  CubeMetric *parent = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (metrics); i++)
    {
      CubeMetric *metric = cube_report_add_metric (r, NULL, metrics[i][0], metrics[i][1],
                                                   i == 0 ? CUBE_DTYPE_DOUBLE : CUBE_DTYPE_UINT64,
                                                   metrics[i][2], NULL, NULL);
      if (i == 0)
        parent = metric;
      for (int l = 0; l < 4; l++)
        {
          cube_report_set_value (r, metric, main_c, l, 1 + l);
          cube_report_set_value (r, metric, send, l, 2 + l);
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (chain); i++)
    {
      parent = cube_report_add_metric (r, parent, chain[i][0], chain[i][1], CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
      cube_report_set_value (r, parent, send, 0, 1);
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

/* ---- items 2 and 10: a simulation explains itself, windows say what they show ------------------ */

static const char summary_json[] =
  "{\n"
  "  \"hypothesis\": \"/somewhere/exp/half.hyp\",\n"
  "  \"rules\": [\"scale region foo by 0.5\"],\n"
  "  \"mode\": \"offline\",\n"
  "  \"original_runtime_s\": 4,\n"
  "  \"predicted_runtime_s\": 3.0,\n"
  "  \"change_s\": -1.0,\n"
  "  \"change_percent\": -25,\n"
  "  \"identity_error_percent\": 1.5,\n"
  "  \"identity_mode\": \"offline\",\n"
  "  \"significant\": true,\n"
  "  \"identity_advice\": \"On this trace the offline model misses the run as it was by +6.0 % …\",\n"
  "  \"approximated\": {\"MPI_Cart_create\": 4},\n"
  "  \"substitutions\": {},\n"
  "  \"dropped_events\": {},\n"
  "  \"gains\": [{\"metric\": \"time\", \"metric_name\": \"Time\", \"call_path\": \"main > foo > MPI_Send\", \"seconds\": 2.0},\n"
  "            {\"metric\": \"time\", \"metric_name\": \"Time\", \"call_path\": \"main > bar\", \"seconds\": 0.5}],\n"
  "  \"losses\": [{\"metric\": \"time\", \"metric_name\": \"Time\", \"call_path\": \"main\", \"seconds\": -0.25},\n"
  "             {\"metric\": \"time\", \"metric_name\": \"Time\", \"call_path\": \"main > baz\", \"seconds\": -0.000241},\n"
  "             {\"metric\": \"time\", \"metric_name\": \"Time\", \"call_path\": \"main > qux\", \"seconds\": -3.5e-06}]\n"
  "}\n";

/* EXP/analysis.cube (the test report), EXP/sim-half/{analysis,difference}.cube (half the
 * time) and the summary.json above; returns EXP. */
static char *
study_folder (const char *name,
              const char *json)
{
  g_autofree char *exp = g_build_filename (tmpdir, name, NULL);
  g_autofree char *sim = g_build_filename (exp, "sim-half", NULL);
  g_autofree char *a = g_build_filename (exp, "analysis.cube", NULL);
  g_autofree char *b = g_build_filename (sim, "analysis.cube", NULL);
  g_autofree char *d = g_build_filename (sim, "difference.cube", NULL);
  g_autofree char *j = g_build_filename (sim, "summary.json", NULL);
  g_autoptr (CubeReport) ra = gui_test_report_new (1.0);
  g_autoptr (CubeReport) rb = gui_test_report_new (0.5);
  g_autoptr (CubeReport) rd = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (sim, 0755), ==, 0);
  g_assert_true (cube_report_write (ra, a, &error));
  g_assert_true (cube_report_write (rb, b, &error));
  rd = cube_algebra_diff (ra, rb, &error);
  g_assert_no_error (error);
  g_assert_true (cube_report_write (rd, d, &error));
  if (json != NULL)
    g_assert_true (g_file_set_contents (j, json, -1, &error));
  return g_steal_pointer (&exp);
}

static GFile *
child_file (const char *dir,
            const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  return g_file_new_for_path (path);
}

static char *
legend_words (KubusWindow  *window,
              KubusPaneKind kind)
{
  KubusLegendInfo info = { 0 };
  char *text;

  kubus_pane_model_get_legend (kubus_browser_get_pane (kubus_window_get_browser (window), kind), &info);
  text = g_strdup_printf ("%s %s … %s %s", info.low_word ? info.low_word : "", info.low, info.high,
                          info.high_word ? info.high_word : "");
  kubus_legend_info_clear (&info);
  return text;
}

static gboolean
is_change_button (GtkWidget *w,
                  gpointer   data)
{
  return GTK_IS_BUTTON (w) && gtk_widget_has_css_class (w, "kubus-sim-change")
         && g_str_has_prefix (gtk_button_get_label (GTK_BUTTON (w)), data);
}

static void
test_simulation_panel (void)
{
  Events ev = { 0 };
  g_autofree char *exp = study_folder ("exp", summary_json);
  g_autoptr (GFile) a = child_file (exp, "analysis.cube");
  g_autoptr (GFile) b = child_file (exp, "sim-half/analysis.cube");
  KubusWindow *window = new_window (&ev);
  KubusSimPanel *panel = kubus_window_get_sim_panel (window);
  g_autofree char *text = NULL, *words = NULL;
  GtkWidget *gain;

  kubus_window_compare (window, a, b);
  wait_events (&ev, 1, 0);
  /* the window says what it compares (item 10) */
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==,
                   "A − B: exp − exp · simulated: scale region foo by 0.5 — Kubus");
  /* what the simulation predicts, in words (item 2) */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (panel)));
  text = kubus_sim_panel_get_text (panel);
  if (strstr (text, "Simulated: scale region foo by 0.5\n") == NULL
      || strstr (text, "Run time 4.00 s → 3.00 s: 1.00 s faster (−25.00 %)\n") == NULL
      || strstr (text, "Significant: the change is larger than the simulator's identity error (±1.50 % offline).\n"
                       "On this trace the offline model misses the run as it was by +6.0 % …\n") == NULL
      || strstr (text, "Approximations: MPI_Cart_create: 4 calls re-enacted by their recorded duration.\n") == NULL
      || strstr (text, "Largest gains (time saved)\n2.00 s  Time at … > foo > MPI_Send\n0.500 s  Time at main > bar\n") == NULL
      || strstr (text, "Largest losses (time added)\n0.250 s  Time at main\n0.241 ms  Time at main > baz\n3.50 µs  Time at main > qux\n") == NULL)
    g_error ("the simulation panel says:\n%s", text);
  /* original − simulated: saved and added, in words and in colours that are not red */
  words = legend_words (window, KUBUS_PANE_CALL);
  g_assert_cmpstr (words, ==, "added −50.00 … +50.00 saved");
  {
    KubusPaneModel *call = kubus_browser_get_pane (kubus_window_get_browser (window), KUBUS_PANE_CALL);
    g_autoptr (KubusNodeRow) row = kubus_pane_model_get_row (call, 0, NULL);
    g_autofree char *tip = kubus_pane_model_value_tooltip (call, row, FALSE);
    GdkRGBA c;
    gboolean negative;

    g_assert_true (kubus_pane_model_get_saved_added (call));
    g_assert_true (kubus_pane_model_row_color (call, row, FALSE, &c, &negative));
    g_assert_false (negative);
    g_assert_cmpfloat (c.red, <, c.green);
    g_assert_cmpstr (tip, ==, "50 % of total\n8 sec saved (inclusive)");
  }
  /* a gain clicked is selected in the trees */
  gain = find_widget (GTK_WIDGET (panel), is_change_button, (gpointer) "2.00 s");
  g_assert_nonnull (gain);
  g_signal_emit_by_name (gain, "clicked");
  kubus_browser_flush (kubus_window_get_browser (window));
  {
    g_autofree char *sel = kubus_browser_describe_selection (kubus_window_get_browser (window));
    g_assert_cmpstr (sel, ==, "Time at main/foo/MPI_Send");
  }
  close_window (window, &ev);

  /* the original alone: titled by its experiment, no panel */
  ev = (Events) { 0 };
  window = new_window (&ev);
  kubus_window_open (window, a);
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "exp — Kubus");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (kubus_window_get_sim_panel (window))));
  close_window (window, &ev);

  /* the simulated run alone: its panel, plain colours */
  ev = (Events) { 0 };
  window = new_window (&ev);
  kubus_window_open (window, b);
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "exp · simulated: scale region foo by 0.5 — Kubus");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (kubus_window_get_sim_panel (window))));
  g_assert_false (kubus_pane_model_get_saved_added (kubus_browser_get_pane (kubus_window_get_browser (window),
                                                                            KUBUS_PANE_CALL)));
  close_window (window, &ev);
}

static gboolean
is_named (GtkWidget *w,
          gpointer   data)
{
  return g_strcmp0 (gtk_widget_get_name (w), data) == 0;
}

static gboolean
is_label_starting (GtkWidget *w,
                   gpointer   data)
{
  return GTK_IS_LABEL (w) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (w)), data);
}

/* A long note of kubus-sim (the one on shared cores is some 1,400 characters) shows its first
 * three lines and a button for the rest; the short identity note stays whole, without one. */
static void
test_simulation_long_note (void)
{
  Events ev = { 0 };
  g_autoptr (GString) longer = g_string_new ("The original's ranks shared 2 CPUs of a host.");
  g_autofree char *json = NULL, *exp = NULL, *text = NULL;
  g_autoptr (GFile) d = NULL;
  KubusWindow *window;
  KubusSimPanel *panel;
  GtkWidget *more, *note, *ident;

  for (int i = 0; i < 12; i++)
    g_string_append (longer, " On 146 traces of 2 to 6 ranks on 2 cores it missed 122 by at most 5 %.");
  json = g_strdup_printf ("{\"rules\": [], \"original_runtime_s\": 2, \"predicted_runtime_s\": 2.0, "
                          "\"identity_error_percent\": -6.0, \"identity_mode\": \"offline\", "
                          "\"mode_advice\": \"%s\", \"identity_advice\": \"On this trace the offline model misses "
                          "the run as it was by -6.0 %%.\"}", longer->str);
  exp = study_folder ("long-note", json);
  d = child_file (exp, "sim-half/difference.cube");
  window = new_window (&ev);
  kubus_window_open (window, d);
  wait_events (&ev, 1, 0);
  panel = kubus_window_get_sim_panel (window);
  /* the whole text stays the label's (selectable, and in the panel's text) */
  text = kubus_sim_panel_get_text (panel);
  if (strstr (text, longer->str) == NULL || strstr (text, "Show the whole note\n") == NULL
      || strstr (text, "by -6.0 %.\n") == NULL)
    g_error ("the simulation panel says:\n%s", text);
  note = find_widget (GTK_WIDGET (panel), is_label_starting, (gpointer) "The original's ranks");
  ident = find_widget (GTK_WIDGET (panel), is_label_starting, (gpointer) "On this trace");
  more = find_widget (GTK_WIDGET (panel), is_named, (gpointer) "sim-note-more");
  g_assert_nonnull (note);
  g_assert_nonnull (ident);
  g_assert_nonnull (more);
  g_assert_cmpint (gtk_label_get_lines (GTK_LABEL (note)), ==, 3);
  g_assert_cmpint (gtk_label_get_ellipsize (GTK_LABEL (note)), ==, PANGO_ELLIPSIZE_END);
  g_assert_cmpint (gtk_label_get_lines (GTK_LABEL (ident)), ==, -1);
  /* one button: the short note has none */
  g_assert_true (gtk_widget_get_next_sibling (note) == more);
  g_assert_false (GTK_IS_BUTTON (gtk_widget_get_next_sibling (ident)));
  /* the button shows all of it, and then the first lines again */
  g_signal_emit_by_name (more, "clicked");
  g_assert_cmpint (gtk_label_get_lines (GTK_LABEL (note)), ==, -1);
  g_assert_cmpint (gtk_label_get_ellipsize (GTK_LABEL (note)), ==, PANGO_ELLIPSIZE_NONE);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (more)), ==, "Show less of the note");
  g_signal_emit_by_name (more, "clicked");
  g_assert_cmpint (gtk_label_get_lines (GTK_LABEL (note)), ==, 3);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (more)), ==, "Show the whole note");
  close_window (window, &ev);
}

/* A summary of an older kubus-sim (no identity fields): the panel says it does not know. */
static void
test_simulation_unknown_identity (void)
{
  Events ev = { 0 };
  g_autofree char *json = g_strdup ("{\"rules\": [], \"original_runtime_s\": 2, \"predicted_runtime_s\": 2.5}");
  g_autofree char *exp = study_folder ("old", json);
  g_autoptr (GFile) d = child_file (exp, "sim-half/difference.cube");
  KubusWindow *window = new_window (&ev);
  g_autofree char *text = NULL;

  kubus_window_open (window, d);
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==,
                   "old · original − simulated: identity (no change) — Kubus");
  text = kubus_sim_panel_get_text (kubus_window_get_sim_panel (window));
  if (strstr (text, "Run time 2.00 s → 2.50 s: 0.500 s slower (+25.00 %)\n") == NULL
      || strstr (text, "Identity error unknown") == NULL || strstr (text, "Approximations: none.") == NULL)
    g_error ("the simulation panel says:\n%s", text);
  /* difference.cube is original − simulated too */
  g_assert_true (kubus_pane_model_get_saved_added (kubus_browser_get_pane (kubus_window_get_browser (window),
                                                                           KUBUS_PANE_CALL)));
  close_window (window, &ev);

  /* an identity that ran short: the error bar is its size, not "±-14.37 %" */
  {
    g_autofree char *short_json = g_strdup ("{\"rules\": [], \"original_runtime_s\": 2, \"predicted_runtime_s\": 1.8, "
                                            "\"identity_error_percent\": -14.37, \"identity_mode\": \"offline\"}");
    g_autofree char *short_exp = study_folder ("short", short_json);
    g_autoptr (GFile) sd = child_file (short_exp, "sim-half/difference.cube");
    g_autofree char *short_text = NULL;
    ev = (Events) { 0 };
    window = new_window (&ev);
    kubus_window_open (window, sd);
    wait_events (&ev, 1, 0);
    short_text = kubus_sim_panel_get_text (kubus_window_get_sim_panel (window));
    if (strstr (short_text, "The simulator's identity error on this run: ±14.37 % offline.") == NULL
        || strstr (short_text, "±-") != NULL)
      g_error ("the simulation panel says:\n%s", short_text);
    close_window (window, &ev);
  }

  /* a simulation written beside the experiment (kubus-sim -o lb-sim): its own folder names it,
   * not the folder that holds both (the session's window read "wtb-study · simulated: …") */
  {
    g_autofree char *sim = g_build_filename (tmpdir, "beside", "lb-sim", NULL);
    g_autofree char *j = g_build_filename (sim, "summary.json", NULL);
    g_autoptr (GFile) b = NULL;
    g_autofree char *label = NULL;

    g_assert_cmpint (g_mkdir_with_parents (sim, 0755), ==, 0);
    g_assert_true (g_file_set_contents (j, json, -1, NULL));
    b = child_file (sim, "analysis.cube");
    label = kubus_window_report_label (b);
    g_assert_cmpstr (label, ==, "lb-sim · simulated: identity (no change)");
  }
  /* a Scalasca experiment: its trace analysis is named by the folder, as an analysis.cube; its
   * summary and Score-P's profile say what they are; any other report keeps its name */
  {
    static const char *const cases[][2] = {
      { "trace.cubex", "scorep_app_4_trace" },
      { "scout.cubex", "scorep_app_4_trace" },
      { "summary.cubex", "scorep_app_4_trace · summary" },
      { "profile.cubex", "scorep_app_4_trace · profile" },
      { "other.cubex", "other.cubex" },
    };
    g_autofree char *exp = g_build_filename (tmpdir, "scorep_app_4_trace", NULL);

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autoptr (GFile) f = child_file (exp, cases[i][0]);
        g_autofree char *label = kubus_window_report_label (f);

        g_assert_cmpstr (label, ==, cases[i][1]);
      }
  }
}

/* ---- item 7: the source view ------------------------------------------------------------------ */

static GtkWidget *
shown_window_titled (const char *prefix)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (GTK_IS_WINDOW (w) && gtk_widget_get_visible (w) && gtk_window_get_title (GTK_WINDOW (w)) != NULL
          && g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (w)), prefix))
        return w;
    }
  return NULL;
}

static gboolean
titled_shown (gpointer data)
{
  return shown_window_titled (data) != NULL;
}

static GtkWidget *
wait_window (const char *prefix)
{
  if (!spin_until (titled_shown, (gpointer) prefix, WAIT_MS))
    g_error ("no window “%s…” shown", prefix);
  return shown_window_titled (prefix);
}

static gboolean
is_text_view (GtkWidget *w,
              gpointer   data)
{
  (void) data;
  return GTK_IS_TEXT_VIEW (w);
}

static gboolean
is_label_with (GtkWidget *w,
               gpointer   data)
{
  return GTK_IS_LABEL (w) && strstr (gtk_label_get_text (GTK_LABEL (w)), data) != NULL;
}

/* An analysis report as kubus-analyze writes it for a program with debug information: regions
 * with their file and first line, call paths with the line of the call but no file of their
 * own. main.c: main (lines 1–20) calls foo at line 3; def.c: foo (lines 5–9), bar (11–15);
 * main calls bar from a line the report does not know. */
static GFile *
source_report (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "src-report.cube", NULL);
  g_autofree char *main_c = g_build_filename (tmpdir, "main.c", NULL);
  g_autofree char *def_c = g_build_filename (tmpdir, "def.c", NULL);
  g_autoptr (CubeReport) r = cube_report_new ();
  g_autoptr (GError) error = NULL;
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", "Time", CUBE_DTYPE_DOUBLE, "sec", NULL, NULL);
  CubeCnode *m = cube_report_add_cnode (r, NULL, cube_report_add_region (r, "main", "main.c", 1, 20), -1, NULL);
  CubeCnode *foo = cube_report_add_cnode (r, m, cube_report_add_region (r, "foo", "def.c", 5, 9), 3, NULL);
  CubeCnode *bar = cube_report_add_cnode (r, m, cube_report_add_region (r, "bar", "def.c", 11, 15), -1, NULL);
  GString *code = g_string_new (NULL);

  cube_report_add_sysnode (r, cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, "M", -1), CUBE_SYS_THREAD, "t", 0);
  cube_report_set_value (r, time, m, 0, 1);
  cube_report_set_value (r, time, foo, 0, 2);
  cube_report_set_value (r, time, bar, 0, 3);
  g_assert_true (cube_report_write (r, path, &error));
  for (int i = 1; i <= 20; i++)
    g_string_append_printf (code, "int main_line_%d;\n", i);
  g_assert_true (g_file_set_contents (main_c, code->str, -1, NULL));
  g_string_truncate (code, 0);
  for (int i = 1; i <= 20; i++)
    g_string_append_printf (code, "int def_line_%d;\n", i);
  g_assert_true (g_file_set_contents (def_c, code->str, -1, NULL));
  g_string_free (code, TRUE);
  return g_file_new_for_path (path);
}

static void
test_source_view (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = source_report ();
  KubusWindow *window = new_window (&ev);
  GtkWidget *view, *text_view;

  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  toggle_row (window, KUBUS_PANE_CALL, "main");
  /* foo's call is in main's file, at line 3 (not in foo's own file def.c) */
  select_row (window, KUBUS_PANE_CALL, "foo", 0);
  activate (window, "source", NULL);
  view = wait_window ("foo — Source");
  g_assert_cmpint (kubus_source_view_line (view), ==, 3);
  g_assert_nonnull (strstr (kubus_source_view_text (view), "     3  int main_line_3;\n"));
  g_assert_nonnull (find_widget (view, is_label_with, (gpointer) "main.c, line 3"));
  gtk_window_destroy (GTK_WINDOW (view));
  /* bar: no line of the call, so where bar is defined (def.c, line 11) */
  select_row (window, KUBUS_PANE_CALL, "bar", 0);
  activate (window, "source", NULL);
  view = wait_window ("bar — Source");
  g_assert_cmpint (kubus_source_view_line (view), ==, 11);
  g_assert_nonnull (find_widget (view, is_label_with, (gpointer) "def.c, line 11"));
  gtk_window_destroy (GTK_WINDOW (view));
  close_window (window, &ev);

  /* "Source not available": the message keeps off the window's edges */
  view = kubus_source_view_show (NULL, "x — Source", NULL, 0, "The report gives no source location.");
  text_view = find_widget (view, is_text_view, NULL);
  g_assert_nonnull (text_view);
  g_assert_cmpint (gtk_text_view_get_left_margin (GTK_TEXT_VIEW (text_view)), >=, 12);
  g_assert_cmpint (gtk_text_view_get_right_margin (GTK_TEXT_VIEW (text_view)), >=, 12);
  gtk_window_destroy (GTK_WINDOW (view));
}

/* ---- item 15: hypotheses checked as the user types; a folder opened as a report ---------------- */

typedef struct
{
  GtkWidget  *label;
  const char *want;
} ShowsCheck;

static gboolean
check_shows (gpointer data)
{
  ShowsCheck *c = data;

  return gtk_widget_get_visible (c->label) == (c->want != NULL)
         && (c->want == NULL || g_strcmp0 (gtk_label_get_text (GTK_LABEL (c->label)), c->want) == 0);
}

static void
test_simulate_check (void)
{
  g_autofree char *exp = g_build_filename (tmpdir, "check-exp", NULL);
  g_autoptr (CubeReport) report = gui_test_report_new (1.0);
  GtkWindow *dialog;
  GtkWidget *text, *check, *run, *name;
  ShowsCheck c = { NULL, NULL };

  g_assert_cmpint (g_mkdir_with_parents (exp, 0755), ==, 0);
  dialog = kubus_simulate_dialog_show (NULL, GTK_APPLICATION (app), exp, report);
  text = g_object_get_data (G_OBJECT (dialog), "text");
  check = g_object_get_data (G_OBJECT (dialog), "check");
  run = g_object_get_data (G_OBJECT (dialog), "run");
  name = g_object_get_data (G_OBJECT (dialog), "name");
  g_assert_nonnull (check);
  gtk_editable_set_text (GTK_EDITABLE (name), "typos");
  /* a keyword typo and a region typo in one line, a bad number, an MPI function: all at once,
   * each with its line, while the user types (before: one per kubus-sim run, after it started) */
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (text)),
                            "balance region fo globaly\nscale region foo by x\nscale region MPI_Send by 2\n"
                            "balanse regon fo\n", -1);
  c.label = check;
  c.want = "typos.hyp:1:16: region fo is not in the report; did you mean foo?\n"
           "typos.hyp:1:19: expected “globally” after “fo”, found “globaly” (did you mean “globally”?)\n"
           "typos.hyp:2:21: “x” is not a number (a factor such as 0.5 or 2)\n"
           "typos.hyp:3:14: MPI_Send is an MPI function: its time comes from the re-enacted communication; "
           "scale or balance the code around it instead\n"
           "typos.hyp:4:1: unknown rule “balanse” (did you mean “balance”?)\n"
           "typos.hyp:4:15: region fo is not in the report; did you mean foo?";
  if (!spin_until (check_shows, &c, WAIT_MS))
    g_error ("the Simulate dialog says:\n%s", gtk_label_get_text (GTK_LABEL (check)));
  g_assert_false (gtk_widget_get_sensitive (run));
  /* fixed: no message, Simulate possible */
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (text)), "balance region foo globally\n", -1);
  c.want = NULL;
  g_assert_true (spin_until (check_shows, &c, WAIT_MS));
  g_assert_true (gtk_widget_get_sensitive (run));
  gtk_window_destroy (dialog);
}

static void
test_open_folder (void)
{
  Events ev = { 0 };
  g_autofree char *exp = study_folder ("folder-exp", NULL);
  g_autofree char *empty = g_build_filename (tmpdir, "empty-folder", NULL);
  g_autoptr (GFile) exp_file = g_file_new_for_path (exp);
  g_autoptr (GFile) empty_file = NULL;
  KubusWindow *window;

  /* an experiment folder opens its analysis.cube */
  window = new_window (&ev);
  kubus_window_open (window, exp_file);
  wait_events (&ev, 1, 0);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "folder-exp — Kubus");
  close_window (window, &ev);
  /* a folder without a report says what a folder should hold */
  g_assert_cmpint (g_mkdir_with_parents (empty, 0755), ==, 0);
  empty_file = g_file_new_for_path (empty);
  ev = (Events) { 0 };
  window = new_window (&ev);
  kubus_window_set_batch (window, TRUE);   /* no dialog */
  kubus_window_open (window, empty_file);
  wait_events (&ev, 0, 1);
  if (strstr (ev.message, "is a folder, not a report") == NULL || strstr (ev.message, "analysis.cube") == NULL
      || strstr (ev.message, "profile.cube") == NULL)
    g_error ("a folder without a report: %s", ev.message);
  close_window (window, &ev);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if ((status = gui_test_ui_init (&argc, &argv, "gui-second-look")) != 0)
    return status;
  /* gui-second-look-de: the same checks in German, from the build's catalogue */
  if (g_getenv ("KUBUS_TEST_LANGUAGE") != NULL && g_getenv ("KUBUS_BUILD_ROOT") != NULL)
    {
      g_autofree char *po = g_build_filename (g_getenv ("KUBUS_BUILD_ROOT"), "po", NULL);

      g_setenv ("LANGUAGE", g_getenv ("KUBUS_TEST_LANGUAGE"), TRUE);
      /* gtk_test_init set the "C" locale, in which LANGUAGE is ignored */
      setlocale (LC_ALL, "C.UTF-8");
      bindtextdomain (GETTEXT_PACKAGE, po);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      textdomain (GETTEXT_PACKAGE);
      /* the catalogue is there and is used */
      g_assert_cmpstr (_("Call tree"), ==, "Aufrufbaum");
    }
  g_test_add_func ("/gui/second-look/menu-scalability", test_menu_scalability);
  g_test_add_func ("/gui/second-look/menu-height", test_menu_height);
  g_test_add_func ("/gui/second-look/menu-mnemonics", test_menu_mnemonics);
  g_test_add_func ("/gui/second-look/find-position", test_find_position);
  g_test_add_func ("/gui/second-look/pane-titles", test_pane_titles);
  g_test_add_func ("/gui/second-look/simulation-panel", test_simulation_panel);
  g_test_add_func ("/gui/second-look/simulation-unknown-identity", test_simulation_unknown_identity);
  g_test_add_func ("/gui/second-look/simulation-long-note", test_simulation_long_note);
  g_test_add_func ("/gui/second-look/source-view", test_source_view);
  g_test_add_func ("/gui/second-look/simulate-check", test_simulate_check);
  g_test_add_func ("/gui/second-look/open-folder", test_open_folder);
  status = g_test_run ();
  gui_test_ui_finish ();
  return status;
}
