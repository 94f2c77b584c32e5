/* kubus-run-panel.c — see kubus-run-panel.h. */
#include <glib/gi18n.h>

#include "kubus-run-panel.h"
#include "kubus-window-private.h"

#define LOG_LINE_CAP 5000
#define PULSE_MS     150

struct _KubusRunPanel
{
  GtkWidget      parent_instance;

  KubusRunQueue *queue;
  KubusRunner   *shown;         /* the run whose progress and log are shown */
  gboolean       pinned;        /* the user picked it: do not follow the running run */
  gulong         output_id;
  gulong         state_id;
  gulong         progress_id;
  gulong         phase_id;
  guint          pulse_id;

  GtkWidget     *revealer;
  GtkWidget     *title;
  GtkWidget     *progress;
  GtkWidget     *waiting;
  GtkWidget     *cancel;
  GtkWidget     *log_toggle;
  GtkWidget     *close;
  GtkWidget     *log_revealer;
  GtkWidget     *list;
  GtkWidget     *log_view;
  GtkTextBuffer *log;
};

G_DEFINE_FINAL_TYPE (KubusRunPanel, kubus_run_panel, GTK_TYPE_WIDGET)

static const char *
state_text (KubusRunnerState state)
{
  switch (state)
    {
    case KUBUS_RUNNER_WAITING:
      return _("waiting");
    case KUBUS_RUNNER_RUNNING:
      return _("running");
    case KUBUS_RUNNER_CANCELLING:
      return _("cancelling");
    case KUBUS_RUNNER_SUCCEEDED:
      return _("done");
    case KUBUS_RUNNER_FAILED:
      return _("failed");
    case KUBUS_RUNNER_CANCELLED:
      return _("cancelled");
    }
  return "";
}

/* ---- the shown run ------------------------------------------------------------------------------ */

static gboolean
pulse (gpointer data)
{
  KubusRunPanel *self = data;

  gtk_progress_bar_pulse (GTK_PROGRESS_BAR (self->progress));
  return G_SOURCE_CONTINUE;
}

static void
update_status (KubusRunPanel *self)
{
  KubusRunner *r = self->shown;
  guint n_active = kubus_run_queue_get_n_active (self->queue);
  KubusRunner *current = kubus_run_queue_get_current (self->queue);
  guint n_waiting = n_active - (current != NULL ? 1 : 0);
  g_autofree char *title = NULL, *waiting = NULL;

  if (r == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->title), "");
      gtk_widget_set_sensitive (self->cancel, FALSE);
      g_clear_handle_id (&self->pulse_id, g_source_remove);
      return;
    }
  {
    KubusRunnerState st = kubus_runner_get_state (r);
    const char *phase = kubus_runner_get_phase (r);
    double p = kubus_runner_get_progress (r);
    gboolean active = st == KUBUS_RUNNER_RUNNING || st == KUBUS_RUNNER_CANCELLING;

    if (active && phase != NULL && st == KUBUS_RUNNER_RUNNING)
      title = g_strdup_printf ("%s — %s", kubus_runner_get_title (r), phase);
    else
      title = g_strdup_printf ("%s — %s", kubus_runner_get_title (r), state_text (st));
    gtk_label_set_text (GTK_LABEL (self->title), title);
    gtk_widget_set_tooltip_text (self->title, kubus_runner_get_message (r));

    if (active && p < 0)
      {
        gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress), state_text (st));
        if (self->pulse_id == 0)
          self->pulse_id = g_timeout_add (PULSE_MS, pulse, self);
      }
    else
      {
        g_autofree char *pct = NULL;
        g_clear_handle_id (&self->pulse_id, g_source_remove);
        if (active)
          {
            /* Translators: progress of a run, e.g. "42 %" */
            pct = g_strdup_printf (_("%.0f %%"), 100 * p);
            gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), p);
          }
        else
          gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress),
                                         st == KUBUS_RUNNER_SUCCEEDED ? 1.0 : MAX (p, 0.0));
        gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress), pct ? pct : state_text (st));
      }
    gtk_widget_set_sensitive (self->cancel, st == KUBUS_RUNNER_RUNNING || st == KUBUS_RUNNER_WAITING);
    gtk_widget_remove_css_class (self->progress, "error");
    if (st == KUBUS_RUNNER_FAILED)
      gtk_widget_add_css_class (self->progress, "error");
  }
  if (n_waiting > 0)
    waiting = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u waiting", "%u waiting", n_waiting), n_waiting);
  gtk_label_set_text (GTK_LABEL (self->waiting), waiting ? waiting : "");
}

static void
trim_log (KubusRunPanel *self)
{
  int lines = gtk_text_buffer_get_line_count (self->log);

  if (lines > LOG_LINE_CAP + 1)
    {
      GtkTextIter start, cut;
      gtk_text_buffer_get_start_iter (self->log, &start);
      gtk_text_buffer_get_iter_at_line (self->log, &cut, lines - 1 - LOG_LINE_CAP);
      gtk_text_buffer_delete (self->log, &start, &cut);
    }
}

static void
scroll_to_end (KubusRunPanel *self)
{
  GtkTextIter end;

  gtk_text_buffer_get_end_iter (self->log, &end);
  gtk_text_view_scroll_to_iter (GTK_TEXT_VIEW (self->log_view), &end, 0, FALSE, 0, 0);
}

static gboolean
at_end (KubusRunPanel *self)
{
  GtkAdjustment *adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->log_view));

  return adj == NULL || gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj)
                          >= gtk_adjustment_get_upper (adj) - 4;
}

static void
on_output (KubusRunner   *runner,
           const char    *text,
           KubusRunPanel *self)
{
  GtkTextIter end;
  gboolean follow = at_end (self);

  (void) runner;
  gtk_text_buffer_get_end_iter (self->log, &end);
  gtk_text_buffer_insert (self->log, &end, text, -1);
  trim_log (self);
  if (follow)
    scroll_to_end (self);
}

static void
on_runner_changed (KubusRunner   *runner,
                   GParamSpec    *pspec,
                   KubusRunPanel *self)
{
  (void) runner, (void) pspec;
  update_status (self);
}

/* The list's row of the shown run is the selected one. */
static void
mark_row (KubusRunPanel *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->queue));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (KubusRunner) r = g_list_model_get_item (G_LIST_MODEL (self->queue), i);
      if (r == self->shown)
        {
          gtk_list_box_select_row (GTK_LIST_BOX (self->list), gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->list), i));
          return;
        }
    }
  gtk_list_box_unselect_all (GTK_LIST_BOX (self->list));
}

static void
show_runner (KubusRunPanel *self,
             KubusRunner   *runner)
{
  if (self->shown == runner)
    {
      update_status (self);
      return;
    }
  if (self->shown != NULL)
    {
      g_clear_signal_handler (&self->output_id, self->shown);
      g_clear_signal_handler (&self->state_id, self->shown);
      g_clear_signal_handler (&self->progress_id, self->shown);
      g_clear_signal_handler (&self->phase_id, self->shown);
    }
  g_set_object (&self->shown, runner);
  if (runner != NULL)
    {
      g_autofree char *log = kubus_runner_dup_log (runner);
      gtk_text_buffer_set_text (self->log, log, -1);
      self->output_id = g_signal_connect (runner, "output", G_CALLBACK (on_output), self);
      self->state_id = g_signal_connect (runner, "notify::state", G_CALLBACK (on_runner_changed), self);
      self->progress_id = g_signal_connect (runner, "notify::progress", G_CALLBACK (on_runner_changed), self);
      self->phase_id = g_signal_connect (runner, "notify::phase", G_CALLBACK (on_runner_changed), self);
      scroll_to_end (self);
    }
  else
    gtk_text_buffer_set_text (self->log, "", -1);
  mark_row (self);
  update_status (self);
}

/* ---- the queue ---------------------------------------------------------------------------------- */

static void
follow_queue (KubusRunPanel *self)
{
  KubusRunner *current = kubus_run_queue_get_current (self->queue);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->queue));

  if (self->pinned && self->shown != NULL)
    {
      /* the picked run may have left the history */
      gboolean present = FALSE;
      for (guint i = 0; i < n && !present; i++)
        {
          g_autoptr (KubusRunner) r = g_list_model_get_item (G_LIST_MODEL (self->queue), i);
          present = r == self->shown;
        }
      if (present)
        {
          update_status (self);
          return;
        }
      self->pinned = FALSE;
    }
  if (current != NULL)
    show_runner (self, current);
  else if (self->shown == NULL || !kubus_runner_is_finished (self->shown))
    {
      /* nothing runs: show the last run that ended */
      KubusRunner *last = NULL;
      for (guint i = 0; i < n; i++)
        {
          g_autoptr (KubusRunner) r = g_list_model_get_item (G_LIST_MODEL (self->queue), i);
          if (kubus_runner_is_finished (r))
            last = r;
        }
      show_runner (self, last);
    }
  else
    update_status (self);
}

static void
on_items_changed (GListModel    *model,
                  guint          position,
                  guint          removed,
                  guint          added,
                  KubusRunPanel *self)
{
  (void) model, (void) position, (void) removed;
  if (added > 0 && kubus_run_queue_get_n_active (self->queue) > 0)
    gtk_revealer_set_reveal_child (GTK_REVEALER (self->revealer), TRUE);
  follow_queue (self);
  mark_row (self);
}

static void
on_run_started (KubusRunQueue *queue,
                KubusRunner   *runner,
                KubusRunPanel *self)
{
  (void) queue;
  /* a new run takes the panel over, unless the user is reading another one's log */
  if (!self->pinned || self->shown == NULL)
    {
      self->pinned = FALSE;
      show_runner (self, runner);
    }
  else
    update_status (self);
}

static gboolean
follow_later (gpointer data)
{
  follow_queue (data);
  return G_SOURCE_REMOVE;
}

static void
on_run_finished (KubusRunQueue *queue,
                 KubusRunner   *runner,
                 KubusRunPanel *self)
{
  (void) queue;
  if (runner == self->shown)
    update_status (self);
  /* the next run starts right after this signal */
  g_idle_add_full (G_PRIORITY_DEFAULT, follow_later, g_object_ref (self), g_object_unref);
}

/* A row of the run list: title and state. */
static void
update_row (KubusRunner *runner,
            GParamSpec  *pspec,
            GtkWidget   *label)
{
  g_autofree char *text = NULL;

  (void) pspec;
  text = g_strdup_printf ("%s — %s", kubus_runner_get_title (runner), state_text (kubus_runner_get_state (runner)));
  gtk_label_set_text (GTK_LABEL (label), text);
}

static GtkWidget *
create_row (gpointer item,
            gpointer user_data)
{
  KubusRunner *runner = item;
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *row = gtk_list_box_row_new ();

  (void) user_data;
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_margin_start (label, 6);
  gtk_widget_set_margin_end (label, 6);
  gtk_widget_set_margin_top (label, 3);
  gtk_widget_set_margin_bottom (label, 3);
  update_row (runner, NULL, label);
  g_signal_connect_object (runner, "notify::state", G_CALLBACK (update_row), label, 0);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
  g_object_set_data_full (G_OBJECT (row), "kubus-runner", g_object_ref (runner), g_object_unref);
  return row;
}

static void
on_row_activated (GtkListBox    *list,
                  GtkListBoxRow *row,
                  KubusRunPanel *self)
{
  KubusRunner *runner = g_object_get_data (G_OBJECT (row), "kubus-runner");

  (void) list;
  self->pinned = runner != kubus_run_queue_get_current (self->queue);
  show_runner (self, runner);
}

/* ---- buttons ------------------------------------------------------------------------------------ */

static void
on_cancel (GtkButton     *button,
           KubusRunPanel *self)
{
  (void) button;
  if (self->shown != NULL)
    kubus_runner_cancel (self->shown);
}

static void
on_close (GtkButton     *button,
          KubusRunPanel *self)
{
  (void) button;
  gtk_revealer_set_reveal_child (GTK_REVEALER (self->revealer), FALSE);
}

/* ---- construction ------------------------------------------------------------------------------- */

static void
kubus_run_panel_dispose (GObject *object)
{
  KubusRunPanel *self = KUBUS_RUN_PANEL (object);

  g_clear_handle_id (&self->pulse_id, g_source_remove);
  if (self->shown != NULL)
    {
      g_clear_signal_handler (&self->output_id, self->shown);
      g_clear_signal_handler (&self->state_id, self->shown);
      g_clear_signal_handler (&self->progress_id, self->shown);
      g_clear_signal_handler (&self->phase_id, self->shown);
    }
  g_clear_object (&self->shown);
  if (self->queue != NULL)
    g_signal_handlers_disconnect_by_data (self->queue, self);
  g_clear_object (&self->queue);
  g_clear_pointer (&self->revealer, gtk_widget_unparent);
  G_OBJECT_CLASS (kubus_run_panel_parent_class)->dispose (object);
}

static void
kubus_run_panel_class_init (KubusRunPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = kubus_run_panel_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "kubusrunpanel");
}

static void
kubus_run_panel_init (KubusRunPanel *self)
{
  GtkWidget *box, *bar, *logbox, *scrolled;

  self->revealer = gtk_revealer_new ();
  gtk_revealer_set_transition_type (GTK_REVEALER (self->revealer), GTK_REVEALER_TRANSITION_TYPE_SLIDE_UP);
  gtk_widget_set_parent (self->revealer, GTK_WIDGET (self));

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_revealer_set_child (GTK_REVEALER (self->revealer), box);
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));

  bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_margin_start (bar, 8);
  gtk_widget_set_margin_end (bar, 8);
  gtk_widget_set_margin_top (bar, 4);
  gtk_widget_set_margin_bottom (bar, 4);
  gtk_box_append (GTK_BOX (box), bar);

  self->title = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_width_chars (GTK_LABEL (self->title), 30);
  gtk_widget_set_hexpand (self->title, TRUE);
  gtk_box_append (GTK_BOX (bar), self->title);

  self->progress = gtk_progress_bar_new ();
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (self->progress), TRUE);
  gtk_progress_bar_set_pulse_step (GTK_PROGRESS_BAR (self->progress), 0.1);
  gtk_widget_set_size_request (self->progress, 220, -1);
  gtk_widget_set_valign (self->progress, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (bar), self->progress);

  self->waiting = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->waiting, "dim-label");
  gtk_box_append (GTK_BOX (bar), self->waiting);

  self->cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  gtk_widget_set_tooltip_text (self->cancel, _("Stop this run: its processes end and it writes nothing"));
  g_signal_connect (self->cancel, "clicked", G_CALLBACK (on_cancel), self);
  gtk_box_append (GTK_BOX (bar), self->cancel);

  self->log_toggle = gtk_toggle_button_new_with_mnemonic (_("_Log"));
  gtk_widget_set_tooltip_text (self->log_toggle, _("Show the output of the runs"));
  gtk_box_append (GTK_BOX (bar), self->log_toggle);

  self->close = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_widget_set_tooltip_text (self->close, _("Hide the runs"));
  gtk_widget_add_css_class (self->close, "flat");
  g_signal_connect (self->close, "clicked", G_CALLBACK (on_close), self);
  gtk_box_append (GTK_BOX (bar), self->close);

  self->log_revealer = gtk_revealer_new ();
  g_object_bind_property (self->log_toggle, "active", self->log_revealer, "reveal-child", G_BINDING_SYNC_CREATE);
  gtk_box_append (GTK_BOX (box), self->log_revealer);

  logbox = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_position (GTK_PANED (logbox), 280);
  gtk_revealer_set_child (GTK_REVEALER (self->log_revealer), logbox);

  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  self->list = gtk_list_box_new ();
  gtk_list_box_set_activate_on_single_click (GTK_LIST_BOX (self->list), TRUE);
  gtk_widget_add_css_class (self->list, "navigation-sidebar");
  g_signal_connect (self->list, "row-activated", G_CALLBACK (on_row_activated), self);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->list);
  gtk_paned_set_start_child (GTK_PANED (logbox), scrolled);
  gtk_paned_set_shrink_start_child (GTK_PANED (logbox), FALSE);

  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 180);
  self->log_view = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->log_view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (self->log_view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (self->log_view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (self->log_view), GTK_WRAP_CHAR);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (self->log_view), 6);
  self->log = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->log_view));
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->log_view);
  gtk_paned_set_end_child (GTK_PANED (logbox), scrolled);
}

GtkWidget *
kubus_run_panel_new (KubusRunQueue *queue)
{
  KubusRunPanel *self;

  g_return_val_if_fail (KUBUS_IS_RUN_QUEUE (queue), NULL);
  self = g_object_new (KUBUS_TYPE_RUN_PANEL, NULL);
  self->queue = g_object_ref (queue);
  gtk_list_box_bind_model (GTK_LIST_BOX (self->list), G_LIST_MODEL (queue), create_row, NULL, NULL);
  g_signal_connect (queue, "items-changed", G_CALLBACK (on_items_changed), self);
  g_signal_connect (queue, "run-started", G_CALLBACK (on_run_started), self);
  g_signal_connect (queue, "run-finished", G_CALLBACK (on_run_finished), self);
  gtk_revealer_set_reveal_child (GTK_REVEALER (self->revealer), kubus_run_queue_get_n_active (queue) > 0);
  follow_queue (self);
  return GTK_WIDGET (self);
}

void
kubus_run_panel_attach (KubusWindow   *window,
                        KubusRunQueue *queue)
{
  GtkWidget *content = gtk_widget_get_parent (window->stack);
  GtkWidget *panel;

  g_return_if_fail (GTK_IS_BOX (content));
  if (kubus_run_panel_get (window) != NULL)
    return;
  panel = kubus_run_panel_new (queue);
  gtk_box_append (GTK_BOX (content), panel);
  g_object_set_data (G_OBJECT (window), "kubus-run-panel", panel);
}

KubusRunPanel *
kubus_run_panel_get (KubusWindow *window)
{
  return g_object_get_data (G_OBJECT (window), "kubus-run-panel");
}

KubusRunner *
kubus_run_panel_get_shown (KubusRunPanel *self)
{
  g_return_val_if_fail (KUBUS_IS_RUN_PANEL (self), NULL);
  return self->shown;
}

gboolean
kubus_run_panel_is_revealed (KubusRunPanel *self)
{
  g_return_val_if_fail (KUBUS_IS_RUN_PANEL (self), FALSE);
  return gtk_revealer_get_reveal_child (GTK_REVEALER (self->revealer));
}

GtkTextBuffer *
kubus_run_panel_get_log (KubusRunPanel *self)
{
  g_return_val_if_fail (KUBUS_IS_RUN_PANEL (self), NULL);
  return self->log;
}

GtkWidget *
kubus_run_panel_get_cancel_button (KubusRunPanel *self)
{
  g_return_val_if_fail (KUBUS_IS_RUN_PANEL (self), NULL);
  return self->cancel;
}

GtkWidget *
kubus_run_panel_get_progress_bar (KubusRunPanel *self)
{
  g_return_val_if_fail (KUBUS_IS_RUN_PANEL (self), NULL);
  return self->progress;
}

void
kubus_run_panel_set_log_visible (KubusRunPanel *self,
                                 gboolean       visible)
{
  g_return_if_fail (KUBUS_IS_RUN_PANEL (self));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->log_toggle), visible);
}
