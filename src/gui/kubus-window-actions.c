/* kubus-window-actions.c — the window's GActions (win.*): find, expand, modes, views, copy,
 * info, external/compare. Each has an accelerator (set in kubus-application.c). */
#include <glib/gi18n.h>

#include "cube-format.h"
#include "kubus-export-dialog.h"
#include "kubus-file-chooser.h"
#include "kubus-node.h"
#include "kubus-source-view.h"
#include "kubus-statistics.h"
#include "kubus-window-causes.h"
#include "kubus-window-private.h"
#include "kubus-window-topology.h"

static KubusPaneView *
active_view (KubusWindow *self)
{
  return self->panes[self->active_pane];
}

static KubusPaneModel *
active_model (KubusWindow *self)
{
  return self->browser != NULL ? kubus_browser_get_pane (self->browser, self->active_pane) : NULL;
}

/* ---- find -------------------------------------------------------------------------------- */

static void
run_find (KubusWindow *self)
{
  const char *pattern = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  KubusPaneModel *pane = active_model (self);
  g_autoptr (GError) error = NULL;
  int n;

  if (pane == NULL)
    return;
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    if (i != self->active_pane)
      kubus_pane_model_find (kubus_browser_get_pane (self->browser, i), NULL, NULL);
  n = kubus_pane_model_find (pane, pattern, &error);
  if (n < 0)
    gtk_label_set_text (GTK_LABEL (self->search_label), _("Invalid regular expression"));
  else if (pattern[0] == '\0')
    gtk_label_set_text (GTK_LABEL (self->search_label), "");
  else
    {
      g_autofree char *text = g_strdup_printf (ngettext ("%d match", "%d matches", n), n);
      gtk_label_set_text (GTK_LABEL (self->search_label), text);
    }
}

static void
on_search_changed (GtkSearchEntry *entry,
                   gpointer        user_data)
{
  (void) entry;
  run_find (user_data);
}

/* "4 of 33": which match is selected, not only how many there are (issue 24, item 14). */
static void
show_find_position (KubusWindow    *self,
                    KubusPaneModel *pane)
{
  guint n, at = kubus_pane_model_find_position (pane, &n);
  g_autofree char *text = NULL;

  if (at == 0 || n == 0)
    return;
  /* TRANSLATORS: the find bar: the current match of all matches, e.g. "4 of 33" */
  text = g_strdup_printf (ngettext ("%u of %u match", "%u of %u matches", n), at, n);
  gtk_label_set_text (GTK_LABEL (self->search_label), text);
}

static void
find_step (KubusWindow *self,
           gboolean     forward)
{
  KubusPaneModel *pane = active_model (self);
  guint pos;

  if (pane == NULL)
    return;
  pos = kubus_pane_model_find_next (pane, forward);
  show_find_position (self, pane);
  if (pos == G_MAXUINT)
    return;
  gtk_selection_model_select_item (kubus_pane_model_get_selection (pane), pos, TRUE);
  kubus_pane_view_scroll_to (active_view (self), pos);
}

static void
on_search_activate (GtkSearchEntry *entry,
                    gpointer        user_data)
{
  (void) entry;
  find_step (user_data, TRUE);
}

static void
action_find (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  KubusWindow *self = user_data;

  (void) action, (void) param;
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_widget_grab_focus (self->search_entry);
}

static void
action_find_next (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  (void) action, (void) param;
  find_step (user_data, TRUE);
}

static void
action_find_previous (GSimpleAction *action,
                      GVariant      *param,
                      gpointer       user_data)
{
  (void) action, (void) param;
  find_step (user_data, FALSE);
}

/* ---- expand ------------------------------------------------------------------------------ */

static void
action_expand_largest (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  KubusWindow *self = user_data;
  KubusPaneModel *pane = active_model (self);
  guint pos;

  (void) action, (void) param;
  if (pane == NULL)
    return;
  pos = kubus_pane_model_expand_largest (pane, kubus_pane_view_get_selected (active_view (self)));
  if (pos != G_MAXUINT)
    {
      gtk_selection_model_select_item (kubus_pane_model_get_selection (pane), pos, TRUE);
      kubus_pane_view_scroll_to (active_view (self), pos);
    }
}

static void
expand (KubusWindow *self,
        gboolean     subtree,
        gboolean     open)
{
  KubusPaneModel *pane = active_model (self);
  guint pos;

  if (pane == NULL)
    return;
  pos = subtree ? kubus_pane_view_get_selected (active_view (self)) : G_MAXUINT;
  if (subtree && pos == G_MAXUINT)
    return;
  if (open && kubus_pane_view_get_model (active_view (self)) == pane)
    kubus_pane_view_expand_all (active_view (self), pos);
  else
    kubus_pane_model_expand_all (pane, pos, open);
}

static void
action_expand_subtree (GSimpleAction *a, GVariant *p, gpointer self)
{
  (void) a, (void) p;
  expand (self, TRUE, TRUE);
}

static void
action_collapse_subtree (GSimpleAction *a, GVariant *p, gpointer self)
{
  (void) a, (void) p;
  expand (self, TRUE, FALSE);
}

static void
action_expand_all (GSimpleAction *a, GVariant *p, gpointer self)
{
  (void) a, (void) p;
  expand (self, FALSE, TRUE);
}

static void
action_collapse_all (GSimpleAction *a, GVariant *p, gpointer self)
{
  (void) a, (void) p;
  expand (self, FALSE, FALSE);
}

/* ---- modes, views, filters --------------------------------------------------------------- */

static void
action_mode (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  KubusWindow *self = user_data;
  KubusValueMode mode;
  KubusPaneModel *pane = active_model (self);

  if (!kubus_value_mode_from_string (g_variant_get_string (param, NULL), &mode) || pane == NULL)
    return;
  /* External percent without an external report showed "–" everywhere: ask for the report;
   * loading it switches to the mode (issue 16, defect 7). */
  if (mode == KUBUS_MODE_EXTERNAL && !kubus_browser_has_external (self->browser))
    {
      g_action_group_activate_action (G_ACTION_GROUP (self), "open-external", NULL);
      kubus_window_update_actions (self);
      return;
    }
  /* The active pane gets the mode. If it does not offer it (the peer modes live in the
   * system pane), the first pane that does gets it and becomes the active one, so that the
   * menu's radio item and the marked pane agree. */
  if (kubus_pane_model_mode_available (pane, mode))
    kubus_pane_model_set_mode (pane, mode);
  else
    for (guint i = 0; i < KUBUS_N_PANES; i++)
      {
        KubusPaneModel *other = kubus_browser_get_pane (self->browser, i);
        if (kubus_pane_model_mode_available (other, mode))
          {
            kubus_pane_model_set_mode (other, mode);
            kubus_window_set_active_pane (self, i, TRUE);
            break;
          }
      }
  (void) action;
  kubus_window_update_actions (self);
}

static void
action_call_view (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  KubusCallView view;

  if (!kubus_call_view_from_string (g_variant_get_string (param, NULL), &view))
    return;
  kubus_window_set_call_view (user_data, view);
  g_simple_action_set_state (action, param);
}

static KubusSortKind
sort_from_string (const char *name)
{
  return g_str_equal (name, "value") ? KUBUS_SORT_VALUE
         : g_str_equal (name, "name") ? KUBUS_SORT_NAME : KUBUS_SORT_NONE;
}

static const char *
sort_to_string (KubusSortKind sort)
{
  return sort == KUBUS_SORT_VALUE ? "value" : sort == KUBUS_SORT_NAME ? "name" : "none";
}

static void
action_sort (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  KubusWindow *self = user_data;

  /* The active tree's order (the View menu acts on it). It belongs to the window, not to the
   * report: kubus_window_apply_settings() applies it to this tree of the next report too. */
  self->pane_sort[self->active_pane] = sort_from_string (g_variant_get_string (param, NULL));
  g_simple_action_set_state (action, param);
  kubus_window_apply_settings (self);
}

static void
action_hide_zero (GSimpleAction *action,
                  GVariant      *state,
                  gpointer       user_data)
{
  KubusWindow *self = user_data;

  self->pane_hide_zero[self->active_pane] = g_variant_get_boolean (state);
  g_simple_action_set_state (action, state);
  kubus_window_apply_settings (self);
}

static void
action_hide_below (GSimpleAction *action,
                   GVariant      *state,
                   gpointer       user_data)
{
  KubusWindow *self = user_data;

  self->pane_hide_below[self->active_pane] = g_variant_get_boolean (state);
  g_simple_action_set_state (action, state);
  kubus_window_apply_settings (self);
}

/* ---- copy and info ----------------------------------------------------------------------- */

static KubusNodeRow *
selected_row (KubusWindow *self,
              gboolean    *expanded)
{
  KubusPaneModel *pane = active_model (self);
  guint pos = kubus_pane_view_get_selected (active_view (self));

  if (pane == NULL || pos == G_MAXUINT)
    return NULL;
  return kubus_pane_model_get_row (pane, pos, expanded);
}

/* Ctrl+C is an application accelerator and so runs before the focused widget sees the key:
 * give text fields (the search entry) and labels (the info popover) their own copy back. */
static gboolean
copy_from_text_focus (KubusWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (focus == NULL || !(GTK_IS_TEXT (focus) || GTK_IS_EDITABLE (focus) || GTK_IS_LABEL (focus)))
    return FALSE;
  return gtk_widget_activate_action (focus, "clipboard.copy", NULL);
}

static void
action_copy_value (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  KubusWindow *self = user_data;
  gboolean expanded;
  g_autoptr (KubusNodeRow) row = NULL;
  g_autofree char *text = NULL;

  (void) a, (void) p;
  if (copy_from_text_focus (self))
    return;
  row = selected_row (self, &expanded);
  if (row == NULL)
    return;
  /* Full precision, shortest form, "." as the decimal point: the clipboard feeds
   * spreadsheets and scripts, not eyes. */
  text = cube_format_shortest (kubus_pane_model_display_value (active_model (self), row, expanded));
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
}

static void
action_copy_name (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  KubusWindow *self = user_data;
  g_autoptr (KubusNodeRow) row = selected_row (self, NULL);

  (void) a, (void) p;
  if (row == NULL)
    return;
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)),
                          kubus_node_name (kubus_node_row_get_kind (row), kubus_node_row_get_node (row)));
}

static void
action_info (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  KubusWindow *self = user_data;
  g_autoptr (KubusNodeRow) row = selected_row (self, NULL);
  g_autofree char *markup = NULL;

  (void) a, (void) p;
  if (row == NULL)
    return;
  markup = kubus_node_info_markup (kubus_browser_get_report (self->browser),
                                   kubus_node_row_get_kind (row), kubus_node_row_get_node (row));
  kubus_pane_view_show_info (active_view (self), markup);
}

/* ---- files ------------------------------------------------------------------------------- */

static void
on_external_chosen (GFile    *file,
                    gpointer  user_data)
{
  kubus_window_open_external (user_data, file);
}

static void
action_open_external (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_choose_report (GTK_WINDOW (user_data), _("Open External Report"), on_external_chosen, user_data);
}

static void
on_compare_chosen (GFile    *file,
                   gpointer  user_data)
{
  KubusWindow *self = user_data;
  KubusWindow *target = self;

  if (self->file == NULL)
    return;
  /* Keep the report open here and show the difference in a new window. */
  if (self->browser != NULL)
    {
      target = kubus_window_new (gtk_window_get_application (GTK_WINDOW (self)));
      gtk_window_present (GTK_WINDOW (target));
    }
  kubus_window_compare (target, self->file, file);
}

static void
action_compare (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_choose_report (GTK_WINDOW (user_data), _("Compare With (Subtract) Report"),
                       on_compare_chosen, user_data);
}

static void
action_reload (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_window_reload (user_data);
}

static void
action_close (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  gtk_window_close (GTK_WINDOW (user_data));
}

/* ---- CubeGUI's extras: export, statistics, source ------------------------------------------------ */

static void
action_export_view (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_export_dialog_show (user_data);
}

static void
on_csv_chosen (GFile    *file,
               gpointer  user_data)
{
  KubusWindow *self = user_data;
  KubusPaneModel *pane = active_model (self);
  g_autofree char *csv = pane != NULL ? kubus_browser_to_csv (self->browser, self->active_pane) : NULL;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (GError) error = NULL;

  /* g_file_set_contents writes a temporary file and renames it. */
  if (csv != NULL && path != NULL && !g_file_set_contents (path, csv, -1, &error))
    kubus_window_error_dialog (self, _("Could not export the values"), error->message);
}

static void
action_export_values (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  KubusWindow *self = user_data;
  static const char *const names[] = { "metric-tree.csv", "call-tree.csv", "system-tree.csv" };

  (void) a, (void) p;
  kubus_choose_save_file (GTK_WINDOW (self), _("Export the Values of the Active Tree"),
                          names[self->active_pane], on_csv_chosen, self);
}

static void
action_statistics (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_statistics_show (user_data);
}

/* The source around the selected call path (the call pane's selection, whichever pane is
 * active): the file the report names, if it can be found here; else the window says why. */
static void
action_source (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  KubusWindow *self = user_data;
  KubusPaneModel *call = kubus_browser_get_pane (self->browser, KUBUS_PANE_CALL);
  guint pos = kubus_pane_view_get_selected (self->panes[KUBUS_PANE_CALL]);
  g_autoptr (KubusNodeRow) row = pos != G_MAXUINT ? kubus_pane_model_get_row (call, pos, NULL) : NULL;
  CubeReport *report = kubus_browser_get_report (self->browser);
  g_autofree char *path = NULL, *message = NULL, *title = NULL;
  g_autoptr (GError) error = NULL;
  const char *file, *name;
  gint64 line;

  (void) a, (void) p;
  if (row == NULL)
    return;
  name = kubus_node_name (kubus_node_row_get_kind (row), kubus_node_row_get_node (row));
  if (!kubus_source_location (kubus_node_row_get_kind (row), kubus_node_row_get_node (row), &file, &line))
    message = g_strdup_printf (_("The report gives no source location (file and line) for “%s”, so there is "
                                 "no source to show. Regions of libraries such as MPI usually have none."), name);
  else if ((path = kubus_source_find (report->path, file, &error)) == NULL)
    message = g_strdup (error->message);
  /* TRANSLATORS: window title, e.g. "foo — Source" */
  title = g_strdup_printf (_("%s — Source"), name);
  kubus_source_view_show (GTK_WINDOW (self), title, path, line, message);
}

/* F6 / Shift+F6: the next or previous tree gets the keyboard (issue 16, defect 9). */
static void
move_pane (KubusWindow *self,
           int          step)
{
  kubus_window_set_active_pane (self, (self->active_pane + KUBUS_N_PANES + step) % KUBUS_N_PANES, TRUE);
}

static void
action_next_pane (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  move_pane (user_data, 1);
}

static void
action_previous_pane (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  move_pane (user_data, -1);
}

static void
action_topology (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_window_toggle_topology (user_data);
}

static const GActionEntry win_entries[] = {
  { "find", action_find, NULL, NULL, NULL, { 0 } },
  { "find-next", action_find_next, NULL, NULL, NULL, { 0 } },
  { "find-previous", action_find_previous, NULL, NULL, NULL, { 0 } },
  { "expand-largest", action_expand_largest, NULL, NULL, NULL, { 0 } },
  { "expand-subtree", action_expand_subtree, NULL, NULL, NULL, { 0 } },
  { "collapse-subtree", action_collapse_subtree, NULL, NULL, NULL, { 0 } },
  { "expand-all", action_expand_all, NULL, NULL, NULL, { 0 } },
  { "collapse-all", action_collapse_all, NULL, NULL, NULL, { 0 } },
  { "mode", action_mode, "s", "'absolute'", NULL, { 0 } },
  { "call-view", action_call_view, "s", "'tree'", NULL, { 0 } },
  { "sort", action_sort, "s", "'none'", NULL, { 0 } },
  { "hide-zero", NULL, NULL, "false", action_hide_zero, { 0 } },
  { "hide-below", NULL, NULL, "false", action_hide_below, { 0 } },
  { "copy-value", action_copy_value, NULL, NULL, NULL, { 0 } },
  { "copy-name", action_copy_name, NULL, NULL, NULL, { 0 } },
  { "info", action_info, NULL, NULL, NULL, { 0 } },
  { "open-external", action_open_external, NULL, NULL, NULL, { 0 } },
  { "compare", action_compare, NULL, NULL, NULL, { 0 } },
  { "reload", action_reload, NULL, NULL, NULL, { 0 } },
  { "close", action_close, NULL, NULL, NULL, { 0 } },
  { "topology", action_topology, NULL, NULL, NULL, { 0 } },
  { "next-pane", action_next_pane, NULL, NULL, NULL, { 0 } },
  { "export-view", action_export_view, NULL, NULL, NULL, { 0 } },
  { "export-values", action_export_values, NULL, NULL, NULL, { 0 } },
  { "statistics", action_statistics, NULL, NULL, NULL, { 0 } },
  { "source", action_source, NULL, NULL, NULL, { 0 } },
  { "previous-pane", action_previous_pane, NULL, NULL, NULL, { 0 } },
};

static const char *const needs_report[] = {
  "find", "find-next", "find-previous", "expand-largest", "expand-subtree", "collapse-subtree",
  "expand-all", "collapse-all", "mode", "call-view", "sort", "hide-zero", "hide-below",
  "copy-value", "copy-name", "info", "open-external", "compare", "reload", "next-pane",
  "previous-pane", "export-view", "export-values", "statistics", "source",
};

static void
enable (KubusWindow *self,
        const char  *name,
        gboolean     enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  if (action != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
kubus_window_update_actions (KubusWindow *self)
{
  gboolean have = self->browser != NULL && self->task == NULL;
  CubeReport *report = self->browser != NULL ? kubus_browser_get_report (self->browser) : NULL;
  KubusPaneModel *pane = active_model (self);

  for (guint i = 0; i < G_N_ELEMENTS (needs_report); i++)
    enable (self, needs_report[i], have);
  enable (self, "topology", have && report != NULL && report->topologies != NULL
                            && report->topologies->len > 0);
  enable (self, "compare", have && self->file_b == NULL);
  kubus_window_causes_update (self);
  /* The header bar's find button follows Find (it worked with no report open). */
  gtk_widget_set_sensitive (self->find_button, have);
  if (!have)
    gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), FALSE);
  if (pane != NULL)
    {
      GAction *mode = g_action_map_lookup_action (G_ACTION_MAP (self), "mode");
      g_simple_action_set_state (G_SIMPLE_ACTION (mode),
                                 g_variant_new_string (kubus_value_mode_to_string (kubus_pane_model_get_mode (pane))));
    }
  /* The check marks of Sort and Hide follow the active tree. */
  g_simple_action_set_state (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "sort")),
                             g_variant_new_string (sort_to_string (self->pane_sort[self->active_pane])));
  g_simple_action_set_state (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "hide-zero")),
                             g_variant_new_boolean (self->pane_hide_zero[self->active_pane]));
  g_simple_action_set_state (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "hide-below")),
                             g_variant_new_boolean (self->pane_hide_below[self->active_pane]));
  if (self->browser != NULL)
    {
      GAction *view = g_action_map_lookup_action (G_ACTION_MAP (self), "call-view");
      g_simple_action_set_state (G_SIMPLE_ACTION (view),
                                 g_variant_new_string (kubus_call_view_to_string (
                                   kubus_browser_get_call_view (self->browser))));
    }
}

void
kubus_window_apply_settings (KubusWindow *self)
{
  double threshold = 1.0, insignificant = 1.0;
  KubusColorScale scale = KUBUS_SCALE_RAINBOW;
  guint digits = 2;
  KubusNumberFormat format = KUBUS_FORMAT_READABLE;

  if (self->browser == NULL)
    return;
  if (self->settings != NULL)
    {
      g_autofree char *s = g_settings_get_string (self->settings, "color-scale");
      g_autofree char *f = g_settings_get_string (self->settings, "number-format");

      threshold = g_settings_get_double (self->settings, "hide-threshold");
      insignificant = g_settings_get_double (self->settings, "insignificant-threshold");
      scale = g_str_equal (s, "gray") ? KUBUS_SCALE_GRAY : KUBUS_SCALE_RAINBOW;
      digits = g_settings_get_uint (self->settings, "precision");
      if (!kubus_number_format_from_string (f, &format))
        format = KUBUS_FORMAT_READABLE;
    }
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    {
      KubusPaneModel *pane = kubus_browser_get_pane (self->browser, i);
      kubus_pane_model_set_sort (pane, self->pane_sort[i]);
      kubus_pane_model_set_hide_zero (pane, self->pane_hide_zero[i]);
      kubus_pane_model_set_hide_below (pane, self->pane_hide_below[i] ? threshold : 0);
      kubus_pane_model_set_color_scale (pane, scale, insignificant / 100.0);
      kubus_pane_model_set_precision (pane, digits, format);
    }
}

/* Escape closes the find bar wherever the focus is (it did only in the search entry). */
static gboolean
on_window_key (GtkEventControllerKey *controller,
               guint                  keyval,
               guint                  keycode,
               GdkModifierType        state,
               gpointer               user_data)
{
  KubusWindow *self = user_data;

  (void) controller, (void) keycode;
  if (keyval != GDK_KEY_Escape || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SHIFT_MASK)) != 0
      || !gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (self->search_bar)))
    return FALSE;
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), FALSE);
  gtk_widget_grab_focus (kubus_pane_view_get_list_view (self->panes[self->active_pane]));
  return TRUE;
}

void
kubus_window_add_actions (KubusWindow *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();

  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_window_key), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_entries, G_N_ELEMENTS (win_entries), self);
  g_signal_connect (self->search_entry, "search-changed", G_CALLBACK (on_search_changed), self);
  g_signal_connect (self->search_entry, "activate", G_CALLBACK (on_search_activate), self);
}
