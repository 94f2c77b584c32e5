/* kubus-window-topology.c — see kubus-window-topology.h. */
#include <glib/gi18n.h>

#include "kubus-cairo-export.h"
#include "kubus-window-private.h"
#include "kubus-window-topology.h"

/* The notebook page of a disabled "Topology" tab (a report without topologies). */
#define NO_TOPOLOGY_KEY "kubus-no-topology"

static void update_export_action (KubusWindow *self);

/* A disabled tab cannot be switched to (mouse or keyboard). */
static void
on_switch_page (GtkNotebook *notebook,
                GtkWidget   *page,
                guint        page_num,
                gpointer     user_data)
{
  (void) page_num;
  if (g_object_get_data (G_OBJECT (page), NO_TOPOLOGY_KEY) != NULL)
    {
      g_signal_stop_emission_by_name (notebook, "switch-page");
      return;
    }
  update_export_action (user_data);
}

static void
on_page_switched (GtkNotebook *notebook,
                  GtkWidget   *page,
                  guint        page_num,
                  gpointer     user_data)
{
  (void) notebook, (void) page, (void) page_num;
  update_export_action (user_data);
}

static void
action_export (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  (void) a, (void) p;
  kubus_window_export_topology (user_data);
}

static void
update_export_action (KubusWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "export-topology");

  if (action != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action),
                                 self->browser != NULL && kubus_window_get_shown_topology (self) >= 0);
}

void
kubus_window_topology_init (KubusWindow *self)
{
  GtkWidget *pane = GTK_WIDGET (self->panes[KUBUS_PANE_SYSTEM]);
  GtkWidget *label = gtk_label_new_with_mnemonic (_("S_ystem Tree"));
  GMenuModel *menu = kubus_window_get_primary_menu (self);
  static const GActionEntry entries[] = {
    { "export-topology", action_export, NULL, NULL, NULL, { 0 } },
  };

  self->system_notebook = gtk_notebook_new ();
  gtk_notebook_set_scrollable (GTK_NOTEBOOK (self->system_notebook), TRUE);
  gtk_widget_set_size_request (self->system_notebook, 200, -1);
  g_object_ref (pane);
  gtk_paned_set_end_child (GTK_PANED (self->inner_paned), NULL);
  gtk_notebook_append_page (GTK_NOTEBOOK (self->system_notebook), pane, label);
  g_object_unref (pane);
  gtk_paned_set_end_child (GTK_PANED (self->inner_paned), self->system_notebook);
  g_signal_connect (self->system_notebook, "switch-page", G_CALLBACK (on_switch_page), self);
  g_signal_connect_after (self->system_notebook, "switch-page", G_CALLBACK (on_page_switched), self);

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  /* File › Export View… for the shown topology. The item goes at the end of the template's
   * File section from here, so that kubus-window.ui stays as it is. */
  if (menu != NULL)
    {
      GMenuModel *file = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
      if (G_IS_MENU (file))
        g_menu_append (G_MENU (file), _("_Export View…"), "win.export-topology");
      g_clear_object (&file);
    }
  update_export_action (self);
}

/* The main menu: the model of the header bar's primary menu button (the template's
 * "primary_menu", which is not bound to the class). */
static GMenuModel *
find_primary_menu (GtkWidget *widget)
{
  if (GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_primary (GTK_MENU_BUTTON (widget)))
    return gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GMenuModel *menu = find_primary_menu (c);
      if (menu != NULL)
        return menu;
    }
  return NULL;
}

GMenuModel *
kubus_window_get_primary_menu (KubusWindow *self)
{
  GtkWidget *titlebar = gtk_window_get_titlebar (GTK_WINDOW (self));

  return titlebar != NULL ? find_primary_menu (titlebar) : NULL;
}

static GtkWidget *
tab_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  /* The notebook scrolls its tabs: ellipsize only long names. */
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_width_chars (GTK_LABEL (label), MIN ((int) g_utf8_strlen (text, -1), 22));
  gtk_label_set_max_width_chars (GTK_LABEL (label), 22);
  gtk_widget_set_tooltip_text (label, text);
  return label;
}

void
kubus_window_topology_update (KubusWindow *self)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (self->system_notebook);
  CubeReport *report = self->browser != NULL ? kubus_browser_get_report (self->browser) : NULL;
  int shown = kubus_window_get_shown_topology (self);
  g_autofree char *path = NULL;
  gpointer wanted = g_object_steal_data (G_OBJECT (self), "kubus-topology-view");

  /* Remembered per report; not a difference, not in batch (screenshot) mode. */
  if (self->file != NULL && self->file_b == NULL && !self->batch)
    path = g_file_get_path (self->file);
  gtk_notebook_set_current_page (notebook, 0);
  while (gtk_notebook_get_n_pages (notebook) > 1)
    gtk_notebook_remove_page (notebook, -1);

  if (report == NULL)
    return;
  if (report->topologies->len == 0)
    {
      GtkWidget *page = gtk_label_new (_("This report has no Cartesian topology."));
      GtkWidget *label = tab_label (_("Topology"));

      gtk_widget_add_css_class (page, "dim-label");
      g_object_set_data (G_OBJECT (page), NO_TOPOLOGY_KEY, GINT_TO_POINTER (1));
      gtk_widget_set_sensitive (label, FALSE);
      gtk_widget_set_tooltip_text (label, _("This report has no Cartesian topology"));
      gtk_notebook_append_page (notebook, page, label);
    }
  for (guint i = 0; i < report->topologies->len; i++)
    {
      g_autofree char *name = topo_cart_display_name (g_ptr_array_index (report->topologies, i), i);
      GtkWidget *view = kubus_topology_view_new ();

      kubus_topology_view_set_browser (KUBUS_TOPOLOGY_VIEW (view), self->browser, i, path);
      gtk_notebook_append_page (notebook, view, tab_label (name));
    }
  /* A reload stays on its tab; `kubus --view=topology:N` opens on that one. */
  if (wanted != NULL)
    shown = GPOINTER_TO_INT (wanted) - 1;
  if (shown >= 0)
    kubus_window_show_topology (self, shown);
  update_export_action (self);
}

gboolean
kubus_window_show_topology (KubusWindow *self,
                            int          topology)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (self->system_notebook);

  if (topology < 0)
    {
      gtk_notebook_set_current_page (notebook, 0);
      return TRUE;
    }
  if (kubus_window_get_topology_view (self, (guint) topology) == NULL)
    return FALSE;
  gtk_notebook_set_current_page (notebook, topology + 1);
  return TRUE;
}

int
kubus_window_get_shown_topology (KubusWindow *self)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (self->system_notebook);
  int page = gtk_notebook_get_current_page (notebook);
  GtkWidget *child = page > 0 ? gtk_notebook_get_nth_page (notebook, page) : NULL;

  return child != NULL && KUBUS_IS_TOPOLOGY_VIEW (child) ? page - 1 : -1;
}

KubusTopologyView *
kubus_window_get_topology_view (KubusWindow *self,
                                guint        topology)
{
  GtkWidget *child = gtk_notebook_get_nth_page (GTK_NOTEBOOK (self->system_notebook), (int) topology + 1);

  return child != NULL && KUBUS_IS_TOPOLOGY_VIEW (child) ? KUBUS_TOPOLOGY_VIEW (child) : NULL;
}

void
kubus_window_toggle_topology (KubusWindow *self)
{
  if (kubus_window_get_shown_topology (self) >= 0)
    kubus_window_show_topology (self, -1);
  else if (kubus_window_show_topology (self, 0))
    {
      KubusTopologyView *view = kubus_window_get_topology_view (self, 0);
      gtk_widget_grab_focus (kubus_topology_view_get_canvas (view));
    }
}

/* ---- File › Export View… ------------------------------------------------------------------ */

static const struct
{
  const char *id;
  int         width, height;
} sizes[] = {
  { "shown", 0, 0 },
  { "1200x900", 1200, 900 },
  { "1920x1440", 1920, 1440 },
  { "3840x2880", 3840, 2880 },
};

typedef struct
{
  KubusWindow       *window;   /* ref */
  KubusTopologyView *view;     /* ref */
} ExportJob;

static void
draw_view (cairo_t  *cr,
           int       width,
           int       height,
           gpointer  data)
{
  kubus_topology_view_render (data, cr, width, height);
}

static void
on_export_response (GtkNativeDialog *native,
                    int              response,
                    gpointer         data)
{
  ExportJob *job = data;
  g_autoptr (GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  const char *size = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (native), "size");
  KubusCairoFormat format;
  GtkWidget *canvas = kubus_topology_view_get_canvas (job->view);
  int width = gtk_widget_get_width (canvas), height = gtk_widget_get_height (canvas);

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
  if (file != NULL)
    path = g_file_get_path (file);
  if (path != NULL)
    {
      /* No known extension: PNG. */
      if (!kubus_cairo_format_from_path (path, &format, NULL))
        {
          char *png = g_strconcat (path, ".png", NULL);
          g_free (path);
          path = png;
        }
      for (guint i = 0; size != NULL && i < G_N_ELEMENTS (sizes); i++)
        if (g_str_equal (size, sizes[i].id) && sizes[i].width > 0)
          width = sizes[i].width, height = sizes[i].height;
      if (width <= 0 || height <= 0)
        width = 1200, height = 900;
      if (!kubus_cairo_export (path, width, height, draw_view, job->view, &error))
        kubus_window_error_dialog (job->window, _("Could not export the view"), error->message);
    }
  g_object_unref (job->window);
  g_object_unref (job->view);
  g_free (job);
  g_object_unref (native);
}

void
kubus_window_export_topology (KubusWindow *self)
{
  int shown = kubus_window_get_shown_topology (self);
  KubusTopologyView *view = shown >= 0 ? kubus_window_get_topology_view (self, shown) : NULL;
  GtkFileChooserNative *native;
  ExportJob *job;
  GtkFileFilter *filter;
  const char *ids[G_N_ELEMENTS (sizes) + 1];
  const char *labels[G_N_ELEMENTS (sizes) + 1];
  g_autofree char *shown_label = NULL;

  if (view == NULL)
    return;
  native = gtk_file_chooser_native_new (_("Export View"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, _("Images (.png, .svg, .pdf)"));
  gtk_file_filter_add_pattern (filter, "*.png");
  gtk_file_filter_add_pattern (filter, "*.svg");
  gtk_file_filter_add_pattern (filter, "*.pdf");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  g_object_unref (filter);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), "topology.png");
  {
    GtkWidget *canvas = kubus_topology_view_get_canvas (view);
    shown_label = g_strdup_printf (_("As shown (%d × %d)"), gtk_widget_get_width (canvas),
                                   gtk_widget_get_height (canvas));
  }
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      ids[i] = sizes[i].id;
      labels[i] = i == 0 ? shown_label : sizes[i].id;
    }
  ids[G_N_ELEMENTS (sizes)] = labels[G_N_ELEMENTS (sizes)] = NULL;
  gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (native), "size", _("Size"), ids, labels);
  gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (native), "size", "shown");

  job = g_new0 (ExportJob, 1);
  job->window = g_object_ref (self);
  job->view = g_object_ref (view);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (on_export_response), job);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}
