/* kubus-export-dialog.c — see kubus-export-dialog.h; also the window's export registry
 * (kubus_window_add_export_view and friends, declared in kubus-window.h). */
#include <glib/gi18n.h>

#include "kubus-export-dialog.h"
#include "kubus-file-chooser.h"
#include "kubus-window-private.h"

typedef struct
{
  char                  *id;
  char                  *label;
  GtkWidget             *widget;      /* weak */
  KubusExportRenderFunc  render;
  gpointer               user_data;
  GDestroyNotify         destroy;
} KubusExportView;

static void
export_view_free (gpointer data)
{
  KubusExportView *v = data;

  if (v->destroy != NULL)
    v->destroy (v->user_data);
  g_clear_weak_pointer (&v->widget);
  g_free (v->id);
  g_free (v->label);
  g_free (v);
}

static KubusExportView *
find_view (KubusWindow *self,
           const char  *id,
           guint       *index)
{
  for (guint i = 0; self->export_views != NULL && i < self->export_views->len; i++)
    {
      KubusExportView *v = g_ptr_array_index (self->export_views, i);
      if (g_str_equal (v->id, id))
        {
          if (index != NULL)
            *index = i;
          return v;
        }
    }
  return NULL;
}

void
kubus_window_add_export_view (KubusWindow           *self,
                              const char            *id,
                              const char            *label,
                              GtkWidget             *widget,
                              KubusExportRenderFunc  render,
                              gpointer               user_data,
                              GDestroyNotify         destroy)
{
  KubusExportView *v = g_new0 (KubusExportView, 1);
  guint index;

  g_return_if_fail (KUBUS_IS_WINDOW (self) && id != NULL && render != NULL);
  v->id = g_strdup (id);
  v->label = g_strdup (label != NULL ? label : id);
  g_set_weak_pointer (&v->widget, widget);
  v->render = render;
  v->user_data = user_data;
  v->destroy = destroy;
  if (self->export_views == NULL)
    self->export_views = g_ptr_array_new_with_free_func (export_view_free);
  if (find_view (self, id, &index) != NULL)
    {
      export_view_free (g_ptr_array_index (self->export_views, index));
      g_ptr_array_index (self->export_views, index) = v;
    }
  else
    g_ptr_array_add (self->export_views, v);
}

void
kubus_window_remove_export_view (KubusWindow *self,
                                 const char  *id)
{
  guint index;

  if (find_view (self, id, &index) != NULL)
    g_ptr_array_remove_index (self->export_views, index);
}

GPtrArray *
kubus_window_list_export_views (KubusWindow *self)
{
  GPtrArray *ids = g_ptr_array_new ();

  for (guint i = 0; self->export_views != NULL && i < self->export_views->len; i++)
    g_ptr_array_add (ids, ((KubusExportView *) g_ptr_array_index (self->export_views, i))->id);
  return ids;
}

const char *
kubus_window_export_view_label (KubusWindow *self,
                                const char  *id)
{
  KubusExportView *v = find_view (self, id, NULL);

  return v != NULL ? v->label : NULL;
}

void
kubus_window_export_view_size (KubusWindow *self,
                               const char  *id,
                               int         *width,
                               int         *height)
{
  KubusExportView *v = find_view (self, id, NULL);

  *width = v != NULL && v->widget != NULL ? gtk_widget_get_width (v->widget) : 0;
  *height = v != NULL && v->widget != NULL ? gtk_widget_get_height (v->widget) : 0;
  if (*width <= 0 || *height <= 0)
    *width = 800, *height = 600;
}

gboolean
kubus_window_export_view (KubusWindow       *self,
                          const char        *id,
                          const char        *path,
                          KubusExportFormat  format,
                          int                width,
                          int                height,
                          GError           **error)
{
  KubusExportView *v = find_view (self, id, NULL);

  if (v == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("Cannot write %s: there is no view “%s”"), path, id);
      return FALSE;
    }
  return kubus_export_to_file (path, format, width, height, v->render, v->user_data, error);
}

void
kubus_window_init_export_views (KubusWindow *self)
{
  kubus_window_add_export_view (self, "panes", _("The three trees"), self->outer_paned,
                                kubus_export_render_widget, self->outer_paned, NULL);
  kubus_window_add_export_view (self, "window", _("The whole window"), GTK_WIDGET (self),
                                kubus_export_render_widget, self, NULL);
}

/* ---- the dialog --------------------------------------------------------------------------------- */

typedef struct
{
  KubusWindow *window;     /* weak */
  GtkWidget   *dialog;
  GtkWidget   *views;
  GtkWidget   *formats;
  GtkWidget   *width;
  GtkWidget   *height;
  GPtrArray   *ids;
} ExportDialog;

static const char *const format_ext[] = { "png", "svg", "pdf" };

static void
export_dialog_free (gpointer data)
{
  ExportDialog *d = data;

  g_clear_weak_pointer (&d->window);
  g_ptr_array_unref (d->ids);
  g_free (d);
}

static const char *
chosen_id (ExportDialog *d)
{
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (d->views));

  return i < d->ids->len ? g_ptr_array_index (d->ids, i) : NULL;
}

static void
on_view_changed (GObject    *dropdown,
                 GParamSpec *pspec,
                 gpointer    user_data)
{
  ExportDialog *d = user_data;
  const char *id = chosen_id (d);
  int w, h;

  (void) dropdown, (void) pspec;
  if (d->window == NULL || id == NULL)
    return;
  kubus_window_export_view_size (d->window, id, &w, &h);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (d->width), w);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (d->height), h);
}

static void
on_file_chosen (GFile    *file,
                gpointer  user_data)
{
  ExportDialog *d = user_data;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (GError) error = NULL;
  KubusExportFormat format = gtk_drop_down_get_selected (GTK_DROP_DOWN (d->formats));
  KubusWindow *window = d->window;

  if (window == NULL || path == NULL)
    return;
  /* The extension the user typed wins over the drop-down. */
  kubus_export_format_from_path (path, &format);
  if (!kubus_window_export_view (window, chosen_id (d), path, format,
                                 gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (d->width)),
                                 gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (d->height)), &error))
    {
      kubus_window_error_dialog (window, _("Could not export the view"), error->message);
      return;
    }
  gtk_window_destroy (GTK_WINDOW (d->dialog));
}

static void
on_export_clicked (GtkButton *button,
                   gpointer   user_data)
{
  ExportDialog *d = user_data;
  guint format = gtk_drop_down_get_selected (GTK_DROP_DOWN (d->formats));
  g_autofree char *name = NULL;

  (void) button;
  if (d->window == NULL || chosen_id (d) == NULL)
    return;
  name = g_strdup_printf ("kubus-%s.%s", chosen_id (d), format_ext[MIN (format, 2)]);
  kubus_choose_save_file (GTK_WINDOW (d->dialog), _("Export View"), name, on_file_chosen, d);
}

static GtkWidget *
labelled (GtkWidget  *grid,
          int         row,
          const char *mnemonic,
          GtkWidget  *control)
{
  GtkWidget *label = gtk_label_new_with_mnemonic (mnemonic);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), control);
  gtk_grid_attach (GTK_GRID (grid), label, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), control, 1, row, 1, 1);
  return control;
}

GtkWidget *
kubus_export_dialog_show (KubusWindow *window)
{
  ExportDialog *d = g_new0 (ExportDialog, 1);
  g_autoptr (GtkStringList) labels = gtk_string_list_new (NULL);
  const char *const formats[] = { _("PNG image (pixels)"), _("SVG drawing (vectors)"), _("PDF document (vectors)"), NULL };
  GtkWidget *grid, *box, *buttons, *cancel, *export;
  guint preselect = 0;

  g_set_weak_pointer (&d->window, window);
  d->ids = kubus_window_list_export_views (window);
  d->dialog = gtk_window_new ();
  g_object_set_data_full (G_OBJECT (d->dialog), "kubus-export-dialog", d, export_dialog_free);
  gtk_window_set_title (GTK_WINDOW (d->dialog), _("Export View"));
  gtk_window_set_transient_for (GTK_WINDOW (d->dialog), GTK_WINDOW (window));
  gtk_window_set_modal (GTK_WINDOW (d->dialog), TRUE);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (d->dialog), TRUE);
  gtk_window_set_resizable (GTK_WINDOW (d->dialog), FALSE);

  for (guint i = 0; i < d->ids->len; i++)
    gtk_string_list_append (labels, kubus_window_export_view_label (window, g_ptr_array_index (d->ids, i)));
  /* The three trees unless another registered view (a topology tab) is the one on screen. */
  for (guint i = 0; i < d->ids->len; i++)
    {
      const char *id = g_ptr_array_index (d->ids, i);
      KubusExportView *v = find_view (window, id, NULL);
      if (!g_str_equal (id, "window") && !g_str_equal (id, "panes") && v->widget != NULL
          && gtk_widget_get_mapped (v->widget)
          && gtk_widget_get_root (v->widget) == GTK_ROOT (window))
        preselect = i;
    }

  grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 12);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 24);
  d->views = labelled (grid, 0, _("_View"), gtk_drop_down_new (G_LIST_MODEL (g_object_ref (labels)), NULL));
  d->formats = labelled (grid, 1, _("_Format"), gtk_drop_down_new_from_strings (formats));
  d->width = labelled (grid, 2, _("_Width"), gtk_spin_button_new_with_range (16, 20000, 1));
  d->height = labelled (grid, 3, _("_Height"), gtk_spin_button_new_with_range (16, 20000, 1));
  gtk_widget_set_tooltip_text (d->width, _("Pixels for PNG, points for SVG and PDF; the view is scaled to fit"));
  gtk_widget_set_tooltip_text (d->height, _("Pixels for PNG, points for SVG and PDF; the view is scaled to fit"));
  g_signal_connect (d->views, "notify::selected", G_CALLBACK (on_view_changed), d);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (d->views), preselect);
  on_view_changed (NULL, NULL, d);

  buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  export = gtk_button_new_with_mnemonic (_("_Export…"));
  gtk_widget_add_css_class (export, "suggested-action");
  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_destroy), d->dialog);
  g_signal_connect (export, "clicked", G_CALLBACK (on_export_clicked), d);
  gtk_box_append (GTK_BOX (buttons), cancel);
  gtk_box_append (GTK_BOX (buttons), export);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  gtk_widget_set_margin_start (box, 24);
  gtk_widget_set_margin_end (box, 24);
  gtk_widget_set_margin_top (box, 24);
  gtk_widget_set_margin_bottom (box, 24);
  gtk_box_append (GTK_BOX (box), grid);
  gtk_box_append (GTK_BOX (box), buttons);
  gtk_window_set_child (GTK_WINDOW (d->dialog), box);
  gtk_window_set_default_widget (GTK_WINDOW (d->dialog), export);
  {
    GtkEventController *shortcuts = gtk_shortcut_controller_new ();
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                            gtk_named_action_new ("window.close")));
    gtk_widget_add_controller (d->dialog, shortcuts);
  }
  gtk_window_present (GTK_WINDOW (d->dialog));
  return d->dialog;
}
