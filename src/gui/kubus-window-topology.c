/* kubus-window-topology.c — see kubus-window-topology.h. */
#include <glib/gi18n.h>

#include "kubus-window-private.h"
#include "kubus-window-topology.h"
#include "topology-grid.h"

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
  gtk_label_set_width_chars (GTK_LABEL (label), MIN ((int) g_utf8_strlen (text, -1), 28));
  gtk_label_set_max_width_chars (GTK_LABEL (label), 28);
  gtk_widget_set_tooltip_text (label, text);
  return label;
}

/* Up to this many different topologies get a tab each; more share one tab with a drop-down
 * list (CP2K's 103 topologies, 6 different: a row of tabs no one can read). */
#define TOPOLOGY_TABS_MAX 4

#define GROUPS_KEY "kubus-topology-groups"     /* on the notebook: GPtrArray of TopoGroup* */
#define CHOOSER_VIEW_KEY "kubus-topology-view" /* on the drop-down's page: its one view */
#define CHOOSER_KEY "kubus-topology-chooser"   /* on the drop-down's page: the GtkDropDown */

static GPtrArray *
groups_of (KubusWindow *self)
{
  return g_object_get_data (G_OBJECT (self->system_notebook), GROUPS_KEY);
}

/* The page of the topologies when they share one (a drop-down list above one view), or NULL. */
static GtkWidget *
chooser_page (KubusWindow *self)
{
  GtkWidget *page = gtk_notebook_get_nth_page (GTK_NOTEBOOK (self->system_notebook), 1);

  return page != NULL && g_object_get_data (G_OBJECT (page), CHOOSER_KEY) != NULL ? page : NULL;
}

/* The drop-down chose another group: its view shows that group's first topology, which is the
 * one File › Export View… offers. */
static void
on_group_chosen (GtkDropDown *dropdown,
                 GParamSpec  *pspec,
                 KubusWindow *self)
{
  GPtrArray *groups = groups_of (self);
  guint chosen = gtk_drop_down_get_selected (dropdown);
  GtkWidget *page = gtk_widget_get_parent (GTK_WIDGET (dropdown));
  KubusTopologyView *view = g_object_get_data (G_OBJECT (page), CHOOSER_VIEW_KEY);
  const TopoGroup *g;
  g_autofree char *path = NULL;

  (void) pspec;
  if (groups == NULL || chosen >= groups->len || view == NULL)
    return;
  g = g_ptr_array_index (groups, chosen);
  if (kubus_topology_view_get_topology (view) == g->first)
    return;
  if (self->file != NULL && self->file_b == NULL && !self->batch)
    path = g_file_get_path (self->file);
  kubus_topology_view_set_browser (view, self->browser, g->first, path);
  gtk_widget_set_tooltip_text (GTK_WIDGET (dropdown), g->tooltip);
  unregister_topologies (self);
  register_topology (self, view, g->first, g->label);
}

static GtkWidget *
new_chooser_page (KubusWindow *self,
                  GPtrArray   *groups,
                  const char  *path)
{
  GtkWidget *page = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkStringList *labels = gtk_string_list_new (NULL);
  GtkWidget *dropdown;
  GtkWidget *view = kubus_topology_view_new ();
  const TopoGroup *g = g_ptr_array_index (groups, 0);

  for (guint i = 0; i < groups->len; i++)
    gtk_string_list_append (labels, ((const TopoGroup *) g_ptr_array_index (groups, i))->label);
  dropdown = gtk_drop_down_new (G_LIST_MODEL (labels), NULL);
  /* typing in the open list finds a topology by its name */
  gtk_drop_down_set_expression (GTK_DROP_DOWN (dropdown),
                                gtk_property_expression_new (GTK_TYPE_STRING_OBJECT, NULL, "string"));
  gtk_drop_down_set_enable_search (GTK_DROP_DOWN (dropdown), TRUE);
  gtk_widget_set_tooltip_text (dropdown, g->tooltip);
  gtk_widget_set_margin_start (dropdown, 6);
  gtk_widget_set_margin_end (dropdown, 6);
  gtk_widget_set_margin_top (dropdown, 6);
  gtk_widget_set_margin_bottom (dropdown, 6);
  gtk_accessible_update_property (GTK_ACCESSIBLE (dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Topology shown"), -1);
  gtk_box_append (GTK_BOX (page), dropdown);
  gtk_widget_set_vexpand (view, TRUE);
  gtk_box_append (GTK_BOX (page), view);
  g_object_set_data (G_OBJECT (page), CHOOSER_KEY, dropdown);
  g_object_set_data (G_OBJECT (page), CHOOSER_VIEW_KEY, view);
  kubus_topology_view_set_browser (KUBUS_TOPOLOGY_VIEW (view), self->browser, g->first, path);
  register_topology (self, KUBUS_TOPOLOGY_VIEW (view), g->first, g->label);
  g_signal_connect (dropdown, "notify::selected", G_CALLBACK (on_group_chosen), self);
  return page;
}

void
kubus_window_topology_update (KubusWindow *self)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (self->system_notebook);
  CubeReport *report = self->browser != NULL ? kubus_browser_get_report (self->browser) : NULL;
  int shown = kubus_window_get_shown_topology (self);
  g_autofree char *path = NULL;
  gpointer wanted = g_object_steal_data (G_OBJECT (self), "kubus-topology-view");
  GPtrArray *groups;

  /* Remembered per report; not a difference, not in batch (screenshot) mode. */
  if (self->file != NULL && self->file_b == NULL && !self->batch)
    path = g_file_get_path (self->file);
  gtk_notebook_set_current_page (notebook, 0);
  while (gtk_notebook_get_n_pages (notebook) > 1)
    gtk_notebook_remove_page (notebook, -1);
  unregister_topologies (self);
  g_object_set_data (G_OBJECT (notebook), GROUPS_KEY, NULL);

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
      return;
    }
  /* the same topology defined many times is shown once (topo_groups_new) */
  groups = topo_groups_new (report);
  g_object_set_data_full (G_OBJECT (notebook), GROUPS_KEY, groups, (GDestroyNotify) g_ptr_array_unref);
  if (groups->len > TOPOLOGY_TABS_MAX)
    {
      g_autofree char *text = g_strdup_printf (
        /* TRANSLATORS: the tab of a report's topologies when they share one tab with a list;
         * %u is how many different ones there are */
        g_dngettext (GETTEXT_PACKAGE, "Topologies (%u)", "Topologies (%u)", groups->len), groups->len);
      g_autofree char *tip = g_strdup_printf (
        g_dngettext (GETTEXT_PACKAGE, "%u topology, %u different: choose one in the list",
                     "%u topologies, %u different: choose one in the list", report->topologies->len),
        report->topologies->len, groups->len);
      GtkWidget *label = tab_label (text);

      gtk_widget_set_tooltip_text (label, tip);
      gtk_notebook_append_page (notebook, new_chooser_page (self, groups, path), label);
    }
  else
    for (guint i = 0; i < groups->len; i++)
      {
        const TopoGroup *g = g_ptr_array_index (groups, i);
        GtkWidget *view = kubus_topology_view_new ();
        GtkWidget *label = tab_label (g->label);

        gtk_widget_set_tooltip_text (label, g->tooltip);
        kubus_topology_view_set_browser (KUBUS_TOPOLOGY_VIEW (view), self->browser, g->first, path);
        gtk_notebook_append_page (notebook, view, label);
        register_topology (self, KUBUS_TOPOLOGY_VIEW (view), g->first, g->label);
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
  GPtrArray *groups = groups_of (self);
  GtkWidget *chooser = chooser_page (self);
  int group;

  if (topology < 0)
    {
      gtk_notebook_set_current_page (notebook, 0);
      return TRUE;
    }
  if (groups == NULL || (group = topo_groups_find (groups, (guint) topology)) < 0)
    return FALSE;
  if (chooser != NULL)
    {
      gtk_drop_down_set_selected (g_object_get_data (G_OBJECT (chooser), CHOOSER_KEY), (guint) group);
      gtk_notebook_set_current_page (notebook, 1);
    }
  else
    gtk_notebook_set_current_page (notebook, group + 1);
  return TRUE;
}

int
kubus_window_get_shown_topology (KubusWindow *self)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (self->system_notebook);
  int page = gtk_notebook_get_current_page (notebook);
  GtkWidget *child = page > 0 ? gtk_notebook_get_nth_page (notebook, page) : NULL;

  if (child != NULL && g_object_get_data (G_OBJECT (child), CHOOSER_KEY) != NULL)
    child = g_object_get_data (G_OBJECT (child), CHOOSER_VIEW_KEY);
  return child != NULL && KUBUS_IS_TOPOLOGY_VIEW (child)
           ? (int) kubus_topology_view_get_topology (KUBUS_TOPOLOGY_VIEW (child))
           : -1;
}

KubusTopologyView *
kubus_window_get_topology_view (KubusWindow *self,
                                guint        topology)
{
  GPtrArray *groups = groups_of (self);
  GtkWidget *chooser = chooser_page (self);
  GtkWidget *child;
  int group;

  if (groups == NULL || (group = topo_groups_find (groups, topology)) < 0)
    return NULL;
  if (chooser != NULL)
    {
      /* the one view, when it shows that topology's group */
      KubusTopologyView *view = g_object_get_data (G_OBJECT (chooser), CHOOSER_VIEW_KEY);
      const TopoGroup *g = g_ptr_array_index (groups, group);
      return kubus_topology_view_get_topology (view) == g->first ? view : NULL;
    }
  child = gtk_notebook_get_nth_page (GTK_NOTEBOOK (self->system_notebook), group + 1);
  return child != NULL && KUBUS_IS_TOPOLOGY_VIEW (child) ? KUBUS_TOPOLOGY_VIEW (child) : NULL;
}

GtkDropDown *
kubus_window_get_topology_chooser (KubusWindow *self)
{
  GtkWidget *chooser = chooser_page (self);

  return chooser != NULL ? g_object_get_data (G_OBJECT (chooser), CHOOSER_KEY) : NULL;
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
