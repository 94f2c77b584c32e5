/* kubus-window-topology.c — see kubus-window-topology.h. */
#include <glib/gi18n.h>

#include "kubus-window-private.h"
#include "kubus-window-topology.h"

static void register_topology (KubusWindow *self, KubusTopologyView *view, guint index, const char *name);
static void unregister_topologies (KubusWindow *self);

/* The notebook page of a disabled "Topology" tab (a report without topologies). */
#define NO_TOPOLOGY_KEY "kubus-no-topology"

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
  (void) user_data;
}

void
kubus_window_topology_init (KubusWindow *self)
{
  GtkWidget *pane = GTK_WIDGET (self->panes[KUBUS_PANE_SYSTEM]);
  GtkWidget *label = gtk_label_new_with_mnemonic (_("S_ystem Tree"));

  self->system_notebook = gtk_notebook_new ();
  gtk_notebook_set_scrollable (GTK_NOTEBOOK (self->system_notebook), TRUE);
  gtk_widget_set_size_request (self->system_notebook, 200, -1);
  g_object_ref (pane);
  gtk_paned_set_end_child (GTK_PANED (self->inner_paned), NULL);
  gtk_notebook_append_page (GTK_NOTEBOOK (self->system_notebook), pane, label);
  g_object_unref (pane);
  gtk_paned_set_end_child (GTK_PANED (self->inner_paned), self->system_notebook);
  g_signal_connect (self->system_notebook, "switch-page", G_CALLBACK (on_switch_page), self);
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
  unregister_topologies (self);

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
      register_topology (self, KUBUS_TOPOLOGY_VIEW (view), i, name);
    }
  /* A reload stays on its tab; `kubus --view=topology:N` opens on that one. */
  if (wanted != NULL)
    shown = GPOINTER_TO_INT (wanted) - 1;
  if (shown >= 0)
    kubus_window_show_topology (self, shown);
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

/* Each topology is a view of File › Export View… (kubus_window_add_export_view), drawn by its
 * renderer at any size; the dialog preselects the one on screen. */
static void
draw_view (cairo_t  *cr,
           int       width,
           int       height,
           gpointer  data)
{
  kubus_topology_view_render (data, cr, width, height);
}

static void
register_topology (KubusWindow       *self,
                   KubusTopologyView *view,
                   guint              index,
                   const char        *name)
{
  g_autofree char *id = g_strdup_printf ("topology:%u", index);
  /* TRANSLATORS: a view in File › Export View…, %s is the topology's name */
  g_autofree char *label = g_strdup_printf (_("Topology “%s”"), name);

  kubus_window_add_export_view (self, id, label, kubus_topology_view_get_canvas (view), draw_view,
                                g_object_ref (view), g_object_unref);
}

static void
unregister_topologies (KubusWindow *self)
{
  g_autoptr (GPtrArray) ids = kubus_window_list_export_views (self);
  g_autoptr (GPtrArray) topo = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < ids->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (ids, i), "topology:"))
      g_ptr_array_add (topo, g_strdup (g_ptr_array_index (ids, i)));
  for (guint i = 0; i < topo->len; i++)
    kubus_window_remove_export_view (self, g_ptr_array_index (topo, i));
}
