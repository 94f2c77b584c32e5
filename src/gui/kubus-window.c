/* kubus-window.c — see kubus-window.h. Actions live in kubus-window-actions.c. */
#include <glib/gi18n.h>

#include "kubus-node.h"
#include "kubus-window-private.h"
#include "kubus-window-causes.h"
#include "kubus-window-sim.h"
#include "kubus-window-topology.h"

enum
{
  LOADED,
  FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (KubusWindow, kubus_window, GTK_TYPE_APPLICATION_WINDOW)

static void
stop_loading (KubusWindow *self)
{
  g_clear_handle_id (&self->progress_id, g_source_remove);
  g_clear_object (&self->task);
  if (self->cancellable != NULL)
    {
      g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
    }
}

static void
kubus_window_dispose (GObject *object)
{
  KubusWindow *self = KUBUS_WINDOW (object);

  stop_loading (self);
  g_clear_handle_id (&self->reload_id, g_source_remove);
  if (self->monitor != NULL)
    g_file_monitor_cancel (self->monitor);
  g_clear_object (&self->monitor);
  if (self->monitor_b != NULL)
    g_file_monitor_cancel (self->monitor_b);
  g_clear_object (&self->monitor_b);
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    if (self->panes[i] != NULL)
      kubus_pane_view_set_model (self->panes[i], NULL);
  if (self->browser != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->browser, self);
      for (guint i = 0; i < KUBUS_N_PANES; i++)
        g_signal_handlers_disconnect_by_data (kubus_browser_get_pane (self->browser, i), self);
    }
  g_clear_object (&self->browser);
  g_clear_object (&self->file);
  g_clear_object (&self->file_b);
  g_clear_object (&self->loading);
  g_clear_object (&self->loading_b);
  g_clear_object (&self->external);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->keep_metric, g_free);
  g_clear_pointer (&self->export_views, g_ptr_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), KUBUS_TYPE_WINDOW);
  G_OBJECT_CLASS (kubus_window_parent_class)->dispose (object);
}

static void
kubus_window_class_init (KubusWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = kubus_window_dispose;

  /* A report is shown (its browser is ready, default selection made). */
  signals[LOADED] = g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* Loading failed or was cancelled; the message names the file and the problem. */
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  g_type_ensure (KUBUS_TYPE_PANE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/kubus/Kubus/kubus-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, search_label);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, find_button);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, progress);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, loading_label);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, outer_paned);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, compare_bar);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, compare_label);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, inner_paned);
  gtk_widget_class_bind_template_child_full (widget_class, "metric_pane", FALSE,
                                             G_STRUCT_OFFSET (KubusWindow, panes[KUBUS_PANE_METRIC]));
  gtk_widget_class_bind_template_child_full (widget_class, "call_pane", FALSE,
                                             G_STRUCT_OFFSET (KubusWindow, panes[KUBUS_PANE_CALL]));
  gtk_widget_class_bind_template_child_full (widget_class, "system_pane", FALSE,
                                             G_STRUCT_OFFSET (KubusWindow, panes[KUBUS_PANE_SYSTEM]));
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, recent_section);
  gtk_widget_class_bind_template_child (widget_class, KubusWindow, row_menu);
}

/* ---- loading ------------------------------------------------------------------------------ */

static gboolean
update_progress (gpointer data)
{
  KubusWindow *self = data;

  if (self->task != NULL)
    gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress),
                                   kubus_load_get_progress (self->task));
  return G_SOURCE_CONTINUE;
}

static void
on_cancel_clicked (GtkButton *button,
                   gpointer   user_data)
{
  KubusWindow *self = user_data;

  (void) button;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

static gboolean
destroy_window_idle (gpointer data)
{
  gtk_window_destroy (data);
  g_object_unref (data);
  return G_SOURCE_REMOVE;
}

static void
on_error_response (GtkDialog *dialog,
                   int        response,
                   gpointer   close_window)
{
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (dialog));

  (void) response;
  /* The window only after the dialog is gone: it still refers to its parent then. */
  if (close_window != NULL && parent != NULL)
    g_idle_add (destroy_window_idle, g_object_ref (parent));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

void
kubus_window_error_dialog_full (KubusWindow *self,
                                const char  *primary,
                                const char  *secondary,
                                gboolean     close_window)
{
  GtkWidget *dialog;

  if (self->batch)
    return;
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", primary);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", secondary);
  g_signal_connect (dialog, "response", G_CALLBACK (on_error_response), close_window ? self : NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
kubus_window_error_dialog (KubusWindow *self,
                           const char  *primary,
                           const char  *secondary)
{
  kubus_window_error_dialog_full (self, primary, secondary, FALSE);
}

static void
on_browser_error (KubusBrowser *browser,
                  const char   *message,
                  gpointer      user_data)
{
  (void) browser;
  kubus_window_error_dialog (user_data, _("Some values could not be read"), message);
}

char *
kubus_window_file_label (GFile *file)
{
  g_autoptr (GFile) parent = g_file_get_parent (file);
  g_autofree char *base = g_file_get_basename (file);
  g_autofree char *dir = parent != NULL ? g_file_get_basename (parent) : NULL;

  /* Every analysis is called analysis.cube: the experiment folder tells them apart. */
  if (dir == NULL || g_str_equal (dir, "/") || g_str_equal (dir, "."))
    return g_steal_pointer (&base);
  return g_build_filename (dir, base, NULL);
}

/* A and B of a difference named by their folders too: they often share a file name. */
static char *
difference_label (GFile *file)
{
  g_autofree char *label = kubus_window_report_label (file);
  g_autofree char *base = g_file_get_basename (file);

  if (g_strcmp0 (label, base) == 0)
    return kubus_window_file_label (file);
  return g_steal_pointer (&label);
}

/* Every analysis is called analysis.cube: the title names the experiment's folder, and a
 * simulation by its hypothesis, so that the original, a second run and the simulated run are
 * told apart (issue 24, item 10). */
static void
update_title (KubusWindow *self)
{
  g_autofree char *title = NULL;

  if (self->file != NULL && self->file_b != NULL)
    {
      g_autofree char *la = difference_label (self->file);
      g_autofree char *lb = difference_label (self->file_b);
      /* TRANSLATORS: window title of a difference A − B of two reports */
      title = g_strdup_printf (_("A − B: %s − %s — Kubus"), la, lb);
    }
  else if (self->file != NULL)
    {
      g_autofree char *label = kubus_window_report_label (self->file);
      title = g_strdup_printf (_("%s — Kubus"), label);
    }
  else
    title = g_strdup (_("Kubus"));
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static void
on_file_changed (GFileMonitor      *monitor,
                 GFile             *file,
                 GFile             *other,
                 GFileMonitorEvent  event,
                 gpointer           user_data);

static void
watch (KubusWindow   *self,
       GFileMonitor **monitor,
       GFile         *file)
{
  if (*monitor != NULL)
    {
      g_file_monitor_cancel (*monitor);
      g_clear_object (monitor);
    }
  if (file == NULL || self->batch)
    return;
  *monitor = g_file_monitor_file (file, G_FILE_MONITOR_WATCH_MOVES, NULL, NULL);
  if (*monitor != NULL)
    g_signal_connect (*monitor, "changed", G_CALLBACK (on_file_changed), self);
}

/* Both reports of a difference are watched: either changing changes A − B. */
static void
watch_files (KubusWindow *self)
{
  watch (self, &self->monitor, self->file);
  watch (self, &self->monitor_b, self->file_b);
}

/* A reload shows the same report again: keep how it was looked at (call view, value modes). */
static void
carry_over_view (KubusBrowser *old,
                 KubusBrowser *browser)
{
  kubus_browser_set_call_view (browser, kubus_browser_get_call_view (old));
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    {
      KubusValueMode mode = kubus_pane_model_get_mode (kubus_browser_get_pane (old, i));
      KubusPaneModel *pane = kubus_browser_get_pane (browser, i);

      if (kubus_pane_model_mode_available (pane, mode))
        kubus_pane_model_set_mode (pane, mode);
    }
}

static void fit_metric_pane (KubusWindow *self);

/* A pane's mode changed (its drop-down, the menu, the command line): the View › Value Mode
 * radio items show the active pane's. */
static void
on_pane_values_changed (KubusPaneModel *pane,
                        gpointer        user_data)
{
  KubusWindow *self = user_data;

  if (kubus_pane_model_get_kind (pane) == self->active_pane)
    kubus_window_update_actions (self);
}

static void
show_browser (KubusWindow  *self,
              KubusBrowser *browser)
{
  if (self->browser != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->browser, self);
      for (guint i = 0; i < KUBUS_N_PANES; i++)
        g_signal_handlers_disconnect_by_data (kubus_browser_get_pane (self->browser, i), self);
      if (self->reloading)
        carry_over_view (self->browser, browser);
    }
  g_set_object (&self->browser, browser);
  g_signal_connect (browser, "error", G_CALLBACK (on_browser_error), self);
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    g_signal_connect (kubus_browser_get_pane (browser, i), "values-changed",
                      G_CALLBACK (on_pane_values_changed), self);
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    kubus_pane_view_set_model (self->panes[i], kubus_browser_get_pane (browser, i));
  kubus_pane_view_set_call_view (self->panes[KUBUS_PANE_CALL], kubus_browser_get_call_view (browser));
  kubus_window_apply_settings (self);
  kubus_browser_select_default (browser);
  if (self->keep_metric != NULL)
    kubus_browser_select_metric (browser, self->keep_metric);
  g_clear_pointer (&self->keep_metric, g_free);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "browser");
  if (!self->reloading)
    fit_metric_pane (self);
  update_title (self);
  kubus_window_sim_update (self);
  kubus_window_update_actions (self);
  kubus_window_topology_update (self);
}

/* Says which report is A and which B of a difference (the title alone cannot: both are often
 * analysis.cube), and warns when they share few call paths: then they come from different
 * programs and A − B is mostly the two programs side by side (issue 16, defect 6). */
static void
show_compare_bar (KubusWindow     *self,
                  KubusLoadResult *loaded)
{
  g_autofree char *a = NULL, *b = NULL;
  GString *text;
  guint smaller;

  if (self->file_b == NULL)
    {
      gtk_widget_set_visible (self->compare_bar, FALSE);
      return;
    }
  a = g_file_get_parse_name (self->file);
  b = g_file_get_parse_name (self->file_b);
  text = g_string_new (NULL);
  g_string_append_printf (text, _("Difference A − B: every value is A’s minus B’s; percentages are of A’s total.\n"
                                  "A: %s\nB: %s"), a, b);
  smaller = MIN (loaded->cnodes_a, loaded->cnodes_b);
  if (loaded->cnodes_common == 0)
    g_string_append_printf (text, "\n%s", _("The two reports have no call path in common: they come from "
                                            "different programs, and their difference shows each program "
                                            "next to the other, not what changed."));
  else if (loaded->cnodes_common * 2 < smaller)
    {
      g_string_append_c (text, '\n');
      g_string_append_printf (text, _("The reports share only %u of their %u and %u call paths: they may "
                                      "come from different programs or versions."),
                              loaded->cnodes_common, loaded->cnodes_a, loaded->cnodes_b);
    }
  gtk_info_bar_set_message_type (GTK_INFO_BAR (self->compare_bar),
                                 loaded->cnodes_common * 2 < smaller ? GTK_MESSAGE_WARNING : GTK_MESSAGE_INFO);
  gtk_label_set_text (GTK_LABEL (self->compare_label), text->str);
  gtk_widget_set_visible (self->compare_bar, TRUE);
  g_string_free (text, TRUE);
}

/* GTK 4.8's gtk_recent_manager_add_full() tests the first BYTE of the groups array (on
 * little-endian machines the low byte of the pointer to the first group) instead of the first
 * group: a group name that happens to sit at an address ending in 0x00 is silently dropped, and
 * the report never shows under Open Recent (seen in the sanitizer build, where globals are
 * 64-byte aligned). The name is kept at an address that does not end in 0x00. */
static const char *
recent_group_name (void)
{
  static char buf[sizeof KUBUS_RECENT_GROUP + 1];
  char *name = ((guintptr) buf & 0xff) == 0 ? buf + 1 : buf;

  if (name[0] == '\0')
    memcpy (name, KUBUS_RECENT_GROUP, sizeof KUBUS_RECENT_GROUP);
  return name;
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr (KubusWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusLoadResult) loaded = kubus_load_finish (result, &error);
  g_autoptr (KubusBrowser) browser = NULL;
  GTask *task = G_TASK (result);

  (void) source;
  if (task != self->task)
    return;   /* superseded by a newer load */
  stop_loading (self);

  if (loaded != NULL)
    {
      browser = kubus_browser_new (loaded->report, loaded->base, &error);
      loaded->report = loaded->base = NULL;   /* the browser owns them (or freed them on error) */
    }
  if (browser == NULL)
    {
      g_autofree char *name = g_file_get_parse_name (self->loading);
      g_autofree char *primary = g_strdup_printf (_("Could not open “%s”"), name);

      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* A window made only for this file, with nothing to show, goes with the message
           * when other windows remain (issue 16, defect 8). */
          gboolean orphan = self->browser == NULL && !self->reloading
                            && g_list_length (gtk_application_get_windows (gtk_window_get_application (GTK_WINDOW (self)))) > 1;
          g_autofree char *uri = g_file_get_uri (self->loading);

          if (!self->batch)
            gtk_recent_manager_remove_item (gtk_recent_manager_get_default (), uri, NULL);
          kubus_window_error_dialog_full (self, primary, error->message, orphan);
        }
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack),
                                        self->browser != NULL ? "browser" : "empty");
      /* The report shown before (if any) stays, with its own file, title and monitor. */
      g_clear_object (&self->loading);
      g_clear_object (&self->loading_b);
      self->reloading = FALSE;
      update_title (self);
      kubus_window_update_actions (self);
      g_signal_emit (self, signals[FAILED], 0, error->message);
      return;
    }

  g_set_object (&self->file, self->loading);
  g_set_object (&self->file_b, self->loading_b);
  g_clear_object (&self->loading);
  g_clear_object (&self->loading_b);
  show_browser (self, browser);
  show_compare_bar (self, loaded);
  if (!self->reloading && !self->batch)
    {
      g_autofree char *uri = g_file_get_uri (self->file);
      const char *groups[] = { recent_group_name (), NULL };
      GtkRecentData data = { NULL, NULL, (char *) "application/x-cube", (char *) g_get_prgname (),
                             (char *) "kubus %u", (char **) groups, FALSE };

      /* Marked as opened by Kubus: the file chooser adds what it was asked for, also files
       * that then failed to open; Open Recent lists only this group. */
      gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
    }
  watch_files (self);
  if (self->reloading && self->external != NULL)
    {
      /* The new browser has no external report yet: read it again (it may have changed too). */
      g_autoptr (GFile) external = g_object_ref (self->external);
      kubus_window_open_external (self, external);
    }
  else if (!self->reloading)
    g_clear_object (&self->external);   /* another report: the old comparison does not apply */
  self->reloading = FALSE;
  {
    /* kubus --external=FILE REPORT: the external report comes once the report is shown. */
    g_autoptr (GFile) external = g_object_steal_data (G_OBJECT (self), "kubus-external");
    if (external != NULL)
      kubus_window_open_external (self, external);
  }
  g_signal_emit (self, signals[LOADED], 0);
}

static void
start_load (KubusWindow *self)
{
  g_autofree char *path = g_file_get_path (self->loading);
  g_autofree char *path_b = self->loading_b != NULL ? g_file_get_path (self->loading_b) : NULL;
  g_autofree char *name = g_file_get_basename (self->loading);
  g_autofree char *text = g_strdup_printf (_("Loading %s…"), name);

  stop_loading (self);
  if (path == NULL)
    path = g_file_get_uri (self->loading);   /* cube_report_load reports it as unreadable */
  self->cancellable = g_cancellable_new ();
  gtk_label_set_text (GTK_LABEL (self->loading_label), text);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "loading");
  self->task = kubus_load_async (path, path_b, self->cancellable, on_loaded, g_object_ref (self));
  self->progress_id = g_timeout_add (100, update_progress, self);
  kubus_window_update_actions (self);
}

void
kubus_window_open (KubusWindow *self,
                   GFile       *file)
{
  g_autoptr (GFile) report = kubus_report_in_folder (file);

  g_set_object (&self->loading, report);
  g_clear_object (&self->loading_b);
  self->reloading = FALSE;
  start_load (self);
}

void
kubus_window_compare (KubusWindow *self,
                      GFile       *a,
                      GFile       *b)
{
  g_autoptr (GFile) ra = kubus_report_in_folder (a);
  g_autoptr (GFile) rb = kubus_report_in_folder (b);

  g_set_object (&self->loading, ra);
  g_set_object (&self->loading_b, rb);
  self->reloading = FALSE;
  start_load (self);
}

void
kubus_window_reload (KubusWindow *self)
{
  if (self->file == NULL)
    return;
  if (self->browser != NULL)
    {
      KubusPaneModel *metric = kubus_browser_get_pane (self->browser, KUBUS_PANE_METRIC);
      guint pos = kubus_pane_view_get_selected (self->panes[KUBUS_PANE_METRIC]);
      g_autoptr (KubusNodeRow) row = pos != G_MAXUINT ? kubus_pane_model_get_row (metric, pos, NULL) : NULL;

      g_clear_pointer (&self->keep_metric, g_free);
      if (row != NULL)
        self->keep_metric = g_strdup (((CubeMetric *) kubus_node_row_get_node (row))->uniq_name);
    }
  g_set_object (&self->loading, self->file);
  g_set_object (&self->loading_b, self->file_b);
  self->reloading = TRUE;
  start_load (self);
}

static gboolean
reload_timeout (gpointer data)
{
  KubusWindow *self = data;

  self->reload_id = 0;
  kubus_window_reload (self);
  return G_SOURCE_REMOVE;
}

static void
on_file_changed (GFileMonitor      *monitor,
                 GFile             *file,
                 GFile             *other,
                 GFileMonitorEvent  event,
                 gpointer           user_data)
{
  KubusWindow *self = user_data;

  (void) monitor, (void) file, (void) other;
  if (event != G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT && event != G_FILE_MONITOR_EVENT_CREATED
      && event != G_FILE_MONITOR_EVENT_RENAMED && event != G_FILE_MONITOR_EVENT_MOVED_IN)
    return;
  /* Writers replace files in several steps (temp file + rename): wait until it settles. */
  g_clear_handle_id (&self->reload_id, g_source_remove);
  self->reload_id = g_timeout_add (700, reload_timeout, self);
}

static void
on_external_loaded (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr (KubusWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusLoadResult) loaded = kubus_load_finish (result, &error);

  (void) source;
  if (loaded == NULL || self->browser == NULL
      || !kubus_browser_set_external (self->browser, g_steal_pointer (&loaded->report), &error))
    {
      g_autofree char *name = self->external != NULL ? g_file_get_parse_name (self->external) : NULL;
      g_autofree char *primary = g_strdup_printf (_("Could not open the external report “%s”"),
                                                  name != NULL ? name : "");

      g_clear_object (&self->external);   /* a reload should not read it again */
      if (error == NULL)
        return;   /* the report was closed meanwhile */
      kubus_window_error_dialog (self, primary, error->message);
      /* The report stays shown; listeners (the screenshot mode) learn that this load failed. */
      g_signal_emit (self, signals[FAILED], 0, error->message);
      return;
    }
  kubus_window_set_mode (self, KUBUS_MODE_EXTERNAL);
  kubus_window_update_actions (self);
  g_signal_emit (self, signals[LOADED], 0);
}

void
kubus_window_open_external (KubusWindow *self,
                            GFile       *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (GTask) task = NULL;

  if (self->browser == NULL || path == NULL)
    return;
  g_set_object (&self->external, file);
  task = kubus_load_async (path, NULL, NULL, on_external_loaded, g_object_ref (self));
}

/* ---- drag and drop ----------------------------------------------------------------------- */

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         gpointer       user_data)
{
  KubusWindow *self = user_data;
  GSList *files;

  (void) target, (void) x, (void) y;
  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = files; l != NULL; l = l->next)
    {
      if (l == files && self->browser == NULL && self->task == NULL)
        kubus_window_open (self, l->data);
      else
        {
          KubusWindow *other = kubus_window_new (gtk_window_get_application (GTK_WINDOW (self)));
          kubus_window_open (other, l->data);
          gtk_window_present (GTK_WINDOW (other));
        }
    }
  g_slist_free (files);
  return TRUE;
}

/* ---- recent files -------------------------------------------------------------------------- */

static gboolean
is_report_name (const char *uri)
{
  return g_str_has_suffix (uri, ".cube") || g_str_has_suffix (uri, ".cube.gz")
         || g_str_has_suffix (uri, ".cubex");
}

/* Newest first: the manager lists its items in no particular order, and the menu shows 10. */
static int
recent_newer_first (gconstpointer a,
                    gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *tb = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  if (ta == NULL || tb == NULL)
    return (ta == NULL) - (tb == NULL);
  return g_date_time_compare (tb, ta);
}

static void
fill_recent (GtkRecentManager *manager,
             gpointer          user_data)
{
  KubusWindow *self = user_data;
  GList *items = g_list_sort (gtk_recent_manager_get_items (manager), recent_newer_first);
  guint n = 0;

  g_menu_remove_all (self->recent_section);
  for (GList *l = items; l != NULL && n < 10; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr (GMenuItem) item = NULL;

      if (!is_report_name (uri) || !gtk_recent_info_exists (info)
          || !gtk_recent_info_has_group (info, KUBUS_RECENT_GROUP))
        continue;
      {
        /* "run-a/analysis.cube": every analysis has the same name. Menu labels take "_" as
         * a mnemonic mark; report names are full of underscores. */
        g_autoptr (GFile) file = g_file_new_for_uri (uri);
        g_autofree char *name = kubus_window_file_label (file);
        g_auto (GStrv) parts = g_strsplit (name, "_", -1);
        g_autofree char *label = g_strjoinv ("__", parts);
        item = g_menu_item_new (label, NULL);
      }
      g_menu_item_set_action_and_target (item, "app.open-uri", "s", uri);
      g_menu_append_item (self->recent_section, item);
      n++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  if (n == 0)
    {
      /* An item without an action shows greyed out: the submenu says why it is empty. */
      g_autoptr (GMenuItem) none = g_menu_item_new (_("No Recent Reports"), "win.no-recent");
      g_menu_append_item (self->recent_section, none);
    }
}

/* ---- panes ------------------------------------------------------------------------------- */

/* The pane the View menu, find and expand commands act on: marked in its header bar (issue
 * 16, defect 7: nothing showed which pane the main menu's value mode would change). */
void
kubus_window_set_active_pane (KubusWindow  *self,
                              KubusPaneKind kind,
                              gboolean      focus)
{
  self->active_pane = kind;
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    if (i == kind)
      gtk_widget_add_css_class (GTK_WIDGET (self->panes[i]), "kubus-active");
    else
      gtk_widget_remove_css_class (GTK_WIDGET (self->panes[i]), "kubus-active");
  if (focus)
    gtk_widget_grab_focus (kubus_pane_view_get_list_view (self->panes[kind]));
  kubus_window_update_actions (self);
}

static void
on_pane_focus (GtkEventControllerFocus *controller,
               gpointer                 user_data)
{
  KubusWindow *self = user_data;
  GtkWidget *pane = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));

  kubus_window_set_active_pane (self, kubus_pane_view_get_kind (KUBUS_PANE_VIEW (pane)), FALSE);
}

/* A click anywhere in a pane (its header, legend, an empty area) makes it the active one,
 * also where nothing takes the focus. */
static void
on_pane_pressed (GtkGestureClick *gesture,
                 int              n_press,
                 double           x,
                 double           y,
                 gpointer         user_data)
{
  GtkWidget *pane = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));

  (void) n_press, (void) x, (void) y;
  kubus_window_set_active_pane (user_data, kubus_pane_view_get_kind (KUBUS_PANE_VIEW (pane)), FALSE);
}

/* Pane widths in proportion to the window (metric 26 %, call 36 %, system the rest), set
 * while the window is not yet shown, i.e. from the template's default size and from --size:
 * fixed positions squeezed the system pane to its minimum in a small window. Afterwards the
 * panes grow and shrink with the window and the user's handles rule. */
static void
on_default_width (GObject    *object,
                  GParamSpec *pspec,
                  gpointer    user_data)
{
  KubusWindow *self = KUBUS_WINDOW (object);
  int width, height, metric = 0, call = 0;

  (void) pspec, (void) user_data;
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);   /* 4.8: both needed */
  if (gtk_widget_get_mapped (GTK_WIDGET (self)) || width <= 0)
    return;
  /* The widths the user left the panes at, when they fit (issue 16, defect 8). */
  if (self->settings != NULL && !self->batch)
    {
      metric = g_settings_get_int (self->settings, "metric-pane-width");
      call = g_settings_get_int (self->settings, "call-pane-width");
    }
  if (metric > 0 && call > 0 && metric + call + 220 <= width)
    {
      gtk_paned_set_position (GTK_PANED (self->outer_paned), metric);
      gtk_paned_set_position (GTK_PANED (self->inner_paned), call);
      return;
    }
  gtk_paned_set_position (GTK_PANED (self->outer_paned), MAX (220, width * 26 / 100));
  gtk_paned_set_position (GTK_PANED (self->inner_paned), MAX (220, width * 36 / 100));
}

/* Window size and pane widths of the last window closed are the next window's (defect 8). */
static gboolean
on_close_request (GtkWindow *window,
                  gpointer   user_data)
{
  KubusWindow *self = KUBUS_WINDOW (window);
  int width, height;

  (void) user_data;
  if (self->settings == NULL || self->batch)
    return FALSE;
  gtk_window_get_default_size (window, &width, &height);
  g_settings_delay (self->settings);
  if (!gtk_window_is_maximized (window) && width > 0 && height > 0)
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  if (gtk_widget_get_mapped (self->outer_paned))
    {
      g_settings_set_int (self->settings, "metric-pane-width", gtk_paned_get_position (GTK_PANED (self->outer_paned)));
      g_settings_set_int (self->settings, "call-pane-width", gtk_paned_get_position (GTK_PANED (self->inner_paned)));
    }
  g_settings_apply (self->settings);
  return FALSE;
}

/* A report's metric tree opens wide enough for its names (up to 40 % of the window), unless
 * the user has set the width: at the default size Scalasca's deeper metric names were cut
 * (issue 16, defect 10). */
static void
fit_metric_pane (KubusWindow *self)
{
  CubeReport *report = kubus_browser_get_report (self->browser);
  GtkWidget *list = kubus_pane_view_get_list_view (self->panes[KUBUS_PANE_METRIC]);
  PangoLayout *layout = gtk_widget_create_pango_layout (list, "0000000000");
  int width, height, value_w, need = 0, window_w;

  if (self->settings != NULL && !self->batch && g_settings_get_int (self->settings, "metric-pane-width") > 0)
    {
      g_object_unref (layout);
      return;
    }
  pango_layout_get_pixel_size (layout, &value_w, &height);
  for (guint i = 0; i < report->metrics->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (report->metrics, i);
      gboolean hidden = FALSE;

      for (const CubeMetric *p = m; p != NULL; p = p->parent)
        hidden |= p->ghost;
      if (hidden)
        continue;
      pango_layout_set_text (layout, kubus_node_name (KUBUS_NODE_METRIC, m), -1);
      pango_layout_get_pixel_size (layout, &width, &height);
      /* indent and expander per level, square, value column, gaps, padding, scroll bar */
      need = MAX (need, (int) (m->depth + 1) * 20 + 20 + value_w + 12 + width + 30);
    }
  g_object_unref (layout);
  window_w = gtk_widget_get_mapped (GTK_WIDGET (self)) ? gtk_widget_get_width (GTK_WIDGET (self)) : 0;
  if (window_w <= 0)
    gtk_window_get_default_size (GTK_WINDOW (self), &window_w, &height);
  need = MIN (need, window_w * 40 / 100);
  if (need > gtk_paned_get_position (GTK_PANED (self->outer_paned)))
    gtk_paned_set_position (GTK_PANED (self->outer_paned), need);
}

static void
kubus_window_init (KubusWindow *self)
{
  GtkDropTarget *drop;
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = source != NULL
    ? g_settings_schema_source_lookup (source, "org.kubus.Kubus", TRUE) : NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  if (schema != NULL)
    {
      self->settings = g_settings_new ("org.kubus.Kubus");
      /* Preferences apply at once, in every window (each has its own GSettings). */
      g_signal_connect_swapped (self->settings, "changed", G_CALLBACK (kubus_window_apply_settings), self);
    }

  g_signal_connect (self->cancel_button, "clicked", G_CALLBACK (on_cancel_clicked), self);
  gtk_search_bar_connect_entry (GTK_SEARCH_BAR (self->search_bar), GTK_EDITABLE (self->search_entry));
  gtk_search_bar_set_key_capture_widget (GTK_SEARCH_BAR (self->search_bar), NULL);

  for (guint i = 0; i < KUBUS_N_PANES; i++)
    {
      GtkEventController *focus = gtk_event_controller_focus_new ();
      GtkGesture *press = gtk_gesture_click_new ();

      g_signal_connect (focus, "enter", G_CALLBACK (on_pane_focus), self);
      gtk_widget_add_controller (GTK_WIDGET (self->panes[i]), focus);
      /* Capture: before the rows and drop-downs claim the press. */
      gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (press), 0);
      gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (press), GTK_PHASE_CAPTURE);
      g_signal_connect (press, "pressed", G_CALLBACK (on_pane_pressed), self);
      gtk_widget_add_controller (GTK_WIDGET (self->panes[i]), GTK_EVENT_CONTROLLER (press));
      kubus_pane_view_set_row_menu (self->panes[i], self->row_menu);
      gtk_widget_set_size_request (GTK_WIDGET (self->panes[i]), 200, -1);
    }
  kubus_window_add_actions (self);
  kubus_window_causes_init (self);
  kubus_window_init_export_views (self);
  kubus_window_sim_init (self);
  kubus_window_set_active_pane (self, KUBUS_PANE_CALL, FALSE);
  kubus_window_topology_init (self);
  fill_recent (gtk_recent_manager_get_default (), self);
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed", G_CALLBACK (fill_recent),
                           self, 0);
  on_default_width (G_OBJECT (self), NULL, NULL);
  g_signal_connect (self, "notify::default-width", G_CALLBACK (on_default_width), NULL);
  g_signal_connect (self, "close-request", G_CALLBACK (on_close_request), NULL);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  kubus_window_update_actions (self);
}

KubusWindow *
kubus_window_new (GtkApplication *app)
{
  KubusWindow *self = g_object_new (KUBUS_TYPE_WINDOW, "application", app, NULL);

  if (self->settings != NULL)
    {
      int width = g_settings_get_int (self->settings, "window-width");
      int height = g_settings_get_int (self->settings, "window-height");

      if (width >= 400 && height >= 300)
        gtk_window_set_default_size (GTK_WINDOW (self), width, height);
      if (g_settings_get_boolean (self->settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
    }
  return self;
}

KubusBrowser *
kubus_window_get_browser (KubusWindow *self)
{
  return self->browser;
}

gboolean
kubus_window_is_busy (KubusWindow *self)
{
  return self->task != NULL;
}

void
kubus_window_set_batch (KubusWindow *self,
                        gboolean     batch)
{
  self->batch = batch;
  if (batch)
    {
      /* Pictures do not depend on how the last window was left. */
      gtk_window_unmaximize (GTK_WINDOW (self));
      gtk_window_set_default_size (GTK_WINDOW (self), 1200, 700);
      on_default_width (G_OBJECT (self), NULL, NULL);
    }
}

void
kubus_window_set_call_view (KubusWindow  *self,
                            KubusCallView view)
{
  if (self->browser == NULL)
    return;
  kubus_browser_set_call_view (self->browser, view);
  kubus_pane_view_set_call_view (self->panes[KUBUS_PANE_CALL], view);
  kubus_browser_select_position (self->browser, KUBUS_PANE_CALL, 0);
  kubus_browser_flush (self->browser);
  kubus_window_update_actions (self);
}

gboolean
kubus_window_set_mode (KubusWindow   *self,
                       KubusValueMode mode)
{
  gboolean any = FALSE;

  if (self->browser == NULL)
    return FALSE;
  for (guint i = 0; i < KUBUS_N_PANES; i++)
    {
      KubusPaneModel *pane = kubus_browser_get_pane (self->browser, i);
      if (kubus_pane_model_mode_available (pane, mode))
        {
          kubus_pane_model_set_mode (pane, mode);
          any = TRUE;
        }
    }
  kubus_window_update_actions (self);
  return any;
}
