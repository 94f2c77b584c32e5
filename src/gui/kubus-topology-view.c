/* kubus-topology-view.c — see kubus-topology-view.h. */
#include <glib/gi18n.h>
#include <math.h>

#include "kubus-topology-settings.h"
#include "kubus-topology-values.h"
#include "kubus-topology-view.h"

#define ZOOM_STEP   1.25
#define ROTATE_STEP 5.0
#define SAVE_DELAY  1000   /* ms after the last change */

struct _KubusTopologyView
{
  GtkWidget          parent_instance;

  KubusBrowser      *browser;
  KubusPaneModel    *system;
  GtkSelectionModel *system_selection;
  gulong             values_handler;
  gulong             selection_handler;
  guint              topology;
  char              *report_path;

  TopoLayout        *layout;      /* what the user chose; the grid holds a copy */
  TopoGrid          *grid;        /* NULL when the layout has too many cells */
  TopoScene         *scene;
  GArray            *cells;
  gboolean           values_dirty;
  gboolean           selection_dirty;
  guint              save_id;

  GtkWidget         *toolbar;
  GtkWidget         *canvas;
  GtkWidget         *high_button;
  GtkWidget         *stacking_dropdown;
  GtkWidget         *lines_dropdown;
  GtkWidget         *distance_scale;
  GtkWidget         *hide_check;
  GtkWidget         *axes_button;
  GtkWidget         *axes_box;
  gboolean           syncing;

  gint64             hover;       /* cell under the pointer, -1 */
  TopoCamera         drag_camera;
  gboolean           dragged;
  double             pinch_zoom;
};

G_DEFINE_FINAL_TYPE (KubusTopologyView, kubus_topology_view, GTK_TYPE_WIDGET)

/* ---- settings ---------------------------------------------------------------------------- */

static gboolean
save_now (gpointer data)
{
  KubusTopologyView *self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *layout = NULL;

  self->save_id = 0;
  if (self->report_path == NULL || self->layout == NULL)
    return G_SOURCE_REMOVE;
  layout = topo_layout_to_string (self->layout);
  if (!kubus_topology_settings_save (self->report_path, self->topology,
                                     topo_scene_get_settings (self->scene), layout, &error))
    g_warning ("Could not remember the topology view settings: %s", error->message);
  return G_SOURCE_REMOVE;
}

static void
settings_changed (KubusTopologyView *self)
{
  gtk_widget_queue_draw (self->canvas);
  if (self->report_path == NULL)
    return;
  g_clear_handle_id (&self->save_id, g_source_remove);
  self->save_id = g_timeout_add (SAVE_DELAY, save_now, self);
}

/* Widgets follow the settings (not the other way round while this runs). */
static void
sync_controls (KubusTopologyView *self)
{
  const TopoSettings *s = topo_scene_get_settings (self->scene);

  self->syncing = TRUE;
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->high_button), s->high_resolution);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->stacking_dropdown), s->stacking);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->lines_dropdown), s->lines);
  gtk_range_set_value (GTK_RANGE (self->distance_scale), s->camera.distance);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->hide_check), s->hide_empty);
  self->syncing = FALSE;
}

void
kubus_topology_view_set_settings (KubusTopologyView  *self,
                                  const TopoSettings *settings)
{
  topo_scene_set_settings (self->scene, settings);
  sync_controls (self);
  self->selection_dirty = TRUE;
  settings_changed (self);
}

const TopoSettings *
kubus_topology_view_get_settings (KubusTopologyView *self)
{
  return topo_scene_get_settings (self->scene);
}

static void
edit_settings (KubusTopologyView *self,
               void (*edit) (TopoSettings *s, gpointer data),
               gpointer data)
{
  TopoSettings s = *topo_scene_get_settings (self->scene);

  if (self->syncing)
    return;
  edit (&s, data);
  topo_scene_set_settings (self->scene, &s);
  self->selection_dirty = TRUE;
  settings_changed (self);
}

/* ---- values and selection ---------------------------------------------------------------- */

void
kubus_topology_view_flush (KubusTopologyView *self)
{
  if (self->browser == NULL || self->grid == NULL)
    return;
  if (self->values_dirty)
    {
      kubus_topology_values_apply (self->browser, self->topology, self->grid, self->scene);
      self->values_dirty = FALSE;
    }
  if (self->selection_dirty)
    {
      g_array_set_size (self->cells, 0);
      kubus_topology_selected_cells (self->browser, self->grid, self->cells);
      topo_scene_set_selection (self->scene, (gint64 *) self->cells->data, self->cells->len);
      self->selection_dirty = FALSE;
    }
}

static void
on_values_changed (gpointer user_data)
{
  KubusTopologyView *self = user_data;

  /* Recomputed when next drawn: a hidden tab costs nothing. */
  self->values_dirty = TRUE;
  gtk_widget_queue_draw (self->canvas);
}

static void
on_selection_changed (GtkSelectionModel *model,
                      guint              position,
                      guint              n_items,
                      gpointer           user_data)
{
  KubusTopologyView *self = user_data;

  (void) model, (void) position, (void) n_items;
  self->selection_dirty = TRUE;
  gtk_widget_queue_draw (self->canvas);
}

static void
disconnect_browser (KubusTopologyView *self)
{
  if (self->system != NULL)
    g_clear_signal_handler (&self->values_handler, self->system);
  if (self->system_selection != NULL)
    g_clear_signal_handler (&self->selection_handler, self->system_selection);
  g_clear_object (&self->system_selection);
  g_clear_object (&self->system);
  g_clear_object (&self->browser);
}

/* (Re)builds the grid for self->layout; a layout with too many cells shows why instead. */
static void
rebuild_grid (KubusTopologyView *self)
{
  g_autoptr (GError) error = NULL;

  topo_scene_set_grid (self->scene, NULL);
  self->hover = -1;
  g_clear_pointer (&self->grid, topo_grid_free);
  self->grid = kubus_topology_grid_new (self->browser, self->topology, topo_layout_copy (self->layout),
                                        &error);
  topo_scene_set_message (self->scene, self->grid == NULL ? error->message : NULL);
  topo_scene_set_grid (self->scene, self->grid);
  if (self->grid == NULL)
    {
      /* Still name the topology above the message. */
      CubeReport *report = kubus_browser_get_report (self->browser);
      g_autofree char *title = topo_cart_title (report, self->topology);
      topo_scene_set_texts (self->scene, title, NULL, NULL, NULL, NULL);
    }
  self->values_dirty = TRUE;
  self->selection_dirty = TRUE;
}

static void rebuild_axes (KubusTopologyView *self);

void
kubus_topology_view_set_browser (KubusTopologyView *self,
                                 KubusBrowser      *browser,
                                 guint              topology,
                                 const char        *report_path)
{
  CubeReport *report;
  TopoSettings settings;
  g_autofree char *layout = NULL;
  gint64 nu, nv, np;

  if (self->save_id != 0)
    {
      g_clear_handle_id (&self->save_id, g_source_remove);
      save_now (self);
    }
  disconnect_browser (self);
  topo_scene_set_grid (self->scene, NULL);
  g_clear_pointer (&self->grid, topo_grid_free);
  g_clear_pointer (&self->layout, topo_layout_free);
  g_clear_pointer (&self->report_path, g_free);
  topo_scene_set_message (self->scene, NULL);
  self->topology = topology;
  if (browser == NULL)
    {
      gtk_widget_queue_draw (self->canvas);
      return;
    }
  report = kubus_browser_get_report (browser);
  g_return_if_fail (topology < report->topologies->len);

  self->browser = g_object_ref (browser);
  self->system = g_object_ref (kubus_browser_get_pane (browser, KUBUS_PANE_SYSTEM));
  self->system_selection = g_object_ref (kubus_pane_model_get_selection (self->system));
  self->values_handler = g_signal_connect_swapped (self->system, "values-changed",
                                                   G_CALLBACK (on_values_changed), self);
  self->selection_handler = g_signal_connect (self->system_selection, "selection-changed",
                                              G_CALLBACK (on_selection_changed), self);
  self->report_path = g_strdup (report_path);
  self->layout = kubus_topology_default_layout (g_ptr_array_index (report->topologies, topology));
  topo_stacking_plane_size (TOPO_STACK_Z, self->layout->extent, &nu, &nv, &np);
  topo_settings_init_default (&settings, (guint) MIN (np, G_MAXUINT));
  if (report_path != NULL && kubus_topology_settings_load (report_path, topology, &settings, &layout))
    {
      /* A remembered layout that no longer fits the topology is ignored. */
      g_autoptr (TopoLayout) remembered = topo_layout_copy (self->layout);
      if (layout != NULL && topo_layout_from_string (remembered, layout)
          && topo_layout_n_cells (remembered) <= TOPO_MAX_CELLS)
        {
          topo_layout_free (self->layout);
          self->layout = g_steal_pointer (&remembered);
        }
    }
  topo_scene_set_settings (self->scene, &settings);
  rebuild_grid (self);
  sync_controls (self);
  rebuild_axes (self);
  gtk_widget_queue_draw (self->canvas);
}

guint
kubus_topology_view_get_topology (KubusTopologyView *self)
{
  return self->topology;
}

gboolean
kubus_topology_view_set_layout (KubusTopologyView *self,
                                const char        *layout)
{
  if (self->layout == NULL || !topo_layout_from_string (self->layout, layout))
    return FALSE;
  rebuild_grid (self);
  rebuild_axes (self);
  settings_changed (self);
  return TRUE;
}

TopoScene *
kubus_topology_view_get_scene (KubusTopologyView *self)
{
  return self->scene;
}

GtkWidget *
kubus_topology_view_get_canvas (KubusTopologyView *self)
{
  return self->canvas;
}

/* ---- drawing ----------------------------------------------------------------------------- */

void
kubus_topology_view_render (KubusTopologyView *self,
                            cairo_t           *cr,
                            int                width,
                            int                height)
{
  kubus_topology_view_flush (self);
  topo_scene_render (self->scene, cr, width, height);
}

static void
draw_canvas (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        user_data)
{
  (void) area;
  kubus_topology_view_render (user_data, cr, width, height);
}

/* ---- cells ------------------------------------------------------------------------------- */

static const CubeSysNode *
cell_node (KubusTopologyView *self,
           gint64             cell)
{
  CubeReport *report;

  if (self->grid == NULL || cell < 0 || cell >= self->grid->n_cells || self->grid->cell_node[cell] < 0)
    return NULL;
  report = kubus_browser_get_report (self->browser);
  return g_ptr_array_index (report->sysnodes, self->grid->cell_node[cell]);
}

gboolean
kubus_topology_view_select_cell (KubusTopologyView *self,
                                 gint64             cell,
                                 gboolean           add)
{
  const CubeSysNode *node = cell_node (self, cell);
  guint pos;

  if (node == NULL)
    return FALSE;
  pos = kubus_pane_model_reveal (self->system, KUBUS_NODE_SYSNODE, node);
  if (pos == G_MAXUINT)
    return FALSE;
  if (add && gtk_selection_model_is_selected (self->system_selection, pos))
    gtk_selection_model_unselect_item (self->system_selection, pos);
  else
    gtk_selection_model_select_item (self->system_selection, pos, !add);
  return TRUE;
}

char *
kubus_topology_view_cell_markup (KubusTopologyView *self,
                                 gint64             cell)
{
  const CubeSysNode *node = cell_node (self, cell);
  TopoGrid *grid = self->grid;
  GString *s = g_string_new (NULL);
  g_autofree gint64 *coord = NULL;
  gint64 xyz[3];

  if (grid == NULL || cell < 0 || cell >= grid->n_cells)
    return g_string_free (s, FALSE);
  kubus_topology_view_flush (self);
  if (node != NULL)
    {
      g_autofree char *name = g_markup_escape_text (node->name != NULL ? node->name : "", -1);
      g_autofree char *value = kubus_pane_model_format_number (self->system, grid->values[cell]);
      g_autofree char *caption = kubus_topology_caption (self->browser);
      g_autofree char *unit = g_markup_escape_text (caption, -1);
      /* A thread shows its process's rank (its own name says which thread it is). */
      gint64 rank = node->kind == CUBE_SYS_THREAD && node->parent != NULL ? node->parent->rank
                                                                         : node->rank;

      g_string_append_printf (s, "<b>%s</b>", name);
      if (rank >= 0)
        /* TRANSLATORS: the MPI rank of a location in the topology's hover text */
        g_string_append_printf (s, _(" · rank %lld"), (long long) rank);
      g_string_append_c (s, '\n');
      g_string_append_printf (s, _("Value: %s %s"), value, unit);
    }
  else
    g_string_append (s, _("No location at this position"));
  topo_layout_cell_xyz (grid->layout, cell, xyz);
  coord = g_new (gint64, MAX (grid->layout->ndims, 1));
  topo_layout_unmap (grid->layout, xyz, coord);
  for (guint d = 0; d < grid->layout->ndims; d++)
    {
      g_autofree char *dname = topo_grid_dim_name (grid, d);
      g_autofree char *esc = g_markup_escape_text (dname, -1);
      const CubeCartDim *dim = &grid->cart->dims[d];

      g_string_append_c (s, '\n');
      if (dim->periodic)
        /* TRANSLATORS: coordinate of a cell: dimension name = index (size, periodic) */
        g_string_append_printf (s, _("%s = %lld  (of %lld, periodic)"), esc, (long long) coord[d],
                                (long long) dim->size);
      else
        /* TRANSLATORS: coordinate of a cell: dimension name = index (size) */
        g_string_append_printf (s, _("%s = %lld  (of %lld)"), esc, (long long) coord[d],
                                (long long) dim->size);
    }
  return g_string_free (s, FALSE);
}

static gboolean
on_query_tooltip (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip,
                  gpointer    user_data)
{
  KubusTopologyView *self = user_data;
  g_autofree char *markup = NULL;
  gint64 cell;

  (void) keyboard;
  if (!topo_scene_pick (self->scene, gtk_widget_get_width (widget), gtk_widget_get_height (widget),
                        x, y, &cell))
    return FALSE;
  markup = kubus_topology_view_cell_markup (self, cell);
  if (markup == NULL || markup[0] == '\0')
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* ---- input ------------------------------------------------------------------------------- */

static void
on_motion (GtkEventControllerMotion *motion,
           double                    x,
           double                    y,
           gpointer                  user_data)
{
  KubusTopologyView *self = user_data;
  gint64 cell = -1;

  (void) motion;
  if (!topo_scene_pick (self->scene, gtk_widget_get_width (self->canvas),
                        gtk_widget_get_height (self->canvas), x, y, &cell))
    cell = -1;
  if (cell == self->hover)
    return;
  self->hover = cell;
  topo_scene_set_hover (self->scene, cell);
  gtk_widget_queue_draw (self->canvas);
}

static void
on_leave (GtkEventControllerMotion *motion,
          gpointer                  user_data)
{
  KubusTopologyView *self = user_data;

  (void) motion;
  self->hover = -1;
  topo_scene_set_hover (self->scene, -1);
  gtk_widget_queue_draw (self->canvas);
}

static void
on_drag_begin (GtkGestureDrag *gesture,
               double          x,
               double          y,
               gpointer        user_data)
{
  KubusTopologyView *self = user_data;

  (void) gesture, (void) x, (void) y;
  self->drag_camera = topo_scene_get_settings (self->scene)->camera;
  self->dragged = FALSE;
  gtk_widget_grab_focus (self->canvas);
}

static void
on_drag_update (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                gpointer        user_data)
{
  KubusTopologyView *self = user_data;
  TopoSettings s = *topo_scene_get_settings (self->scene);
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  if (!self->dragged && hypot (dx, dy) < 4)
    return;
  self->dragged = TRUE;
  s.camera = self->drag_camera;
  if (mods & GDK_SHIFT_MASK
      || gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture)) == GDK_BUTTON_MIDDLE)
    {
      s.camera.pan_x += dx;
      s.camera.pan_y += dy;
    }
  else
    {
      /* Half a degree per pixel: across a typical pane is a half turn. */
      s.camera.yaw = self->drag_camera.yaw - dx * 0.5;
      s.camera.pitch = CLAMP (self->drag_camera.pitch + dy * 0.5, -90, 90);
    }
  topo_scene_set_settings (self->scene, &s);
  settings_changed (self);
}

static void
on_click_released (GtkGestureClick *gesture,
                   int              n_press,
                   double           x,
                   double           y,
                   gpointer         user_data)
{
  KubusTopologyView *self = user_data;
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  gint64 cell;

  (void) n_press;
  gtk_widget_grab_focus (self->canvas);
  if (self->dragged)
    return;
  if (topo_scene_pick (self->scene, gtk_widget_get_width (self->canvas),
                       gtk_widget_get_height (self->canvas), x, y, &cell))
    kubus_topology_view_select_cell (self, cell, (mods & GDK_CONTROL_MASK) != 0);
}

static void
zoom_about (KubusTopologyView *self,
            double             x,
            double             y,
            double             factor)
{
  topo_scene_zoom_at (self->scene, gtk_widget_get_width (self->canvas),
                      gtk_widget_get_height (self->canvas), x, y, factor);
  settings_changed (self);
}

static gboolean
on_scroll (GtkEventControllerScroll *scroll,
           double                    dx,
           double                    dy,
           gpointer                  user_data)
{
  KubusTopologyView *self = user_data;
  GtkWidget *canvas = self->canvas;
  double x = gtk_widget_get_width (canvas) / 2.0, y = gtk_widget_get_height (canvas) / 2.0;
  GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (scroll));

  (void) dx;
  if (event != NULL)
    {
      double ex, ey;
      if (gdk_event_get_position (event, &ex, &ey))
        {
          graphene_point_t p;
          GtkNative *native = gtk_widget_get_native (canvas);
          double nx, ny;
          gtk_native_get_surface_transform (native, &nx, &ny);
          if (gtk_widget_compute_point (GTK_WIDGET (native), canvas,
                                        &GRAPHENE_POINT_INIT (ex - nx, ey - ny), &p))
            x = p.x, y = p.y;
        }
    }
  zoom_about (self, x, y, pow (ZOOM_STEP, -dy));
  return TRUE;
}

static void
on_pinch_begin (GtkGesture       *gesture,
                GdkEventSequence *sequence,
                gpointer          user_data)
{
  KubusTopologyView *self = user_data;

  (void) gesture, (void) sequence;
  self->pinch_zoom = 1.0;
}

static void
on_pinch (GtkGestureZoom *gesture,
          double          scale,
          gpointer        user_data)
{
  KubusTopologyView *self = user_data;
  double x, y;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y))
    x = gtk_widget_get_width (self->canvas) / 2.0, y = gtk_widget_get_height (self->canvas) / 2.0;
  if (scale > 0)
    zoom_about (self, x, y, scale / self->pinch_zoom);
  self->pinch_zoom = scale;
}

static void
rotate (KubusTopologyView *self,
        double             dyaw,
        double             dpitch)
{
  TopoSettings s = *topo_scene_get_settings (self->scene);

  s.camera.yaw += dyaw;
  s.camera.pitch = CLAMP (s.camera.pitch + dpitch, -90, 90);
  topo_scene_set_settings (self->scene, &s);
  settings_changed (self);
}

static gboolean
on_key_pressed (GtkEventControllerKey *key,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                gpointer               user_data)
{
  KubusTopologyView *self = user_data;

  (void) key, (void) keycode;
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      rotate (self, ROTATE_STEP, 0);
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      rotate (self, -ROTATE_STEP, 0);
      return TRUE;
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      rotate (self, 0, ROTATE_STEP);
      return TRUE;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      rotate (self, 0, -ROTATE_STEP);
      return TRUE;
    case GDK_KEY_plus:
    case GDK_KEY_KP_Add:
      zoom_about (self, gtk_widget_get_width (self->canvas) / 2.0,
                  gtk_widget_get_height (self->canvas) / 2.0, ZOOM_STEP);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      zoom_about (self, gtk_widget_get_width (self->canvas) / 2.0,
                  gtk_widget_get_height (self->canvas) / 2.0, 1 / ZOOM_STEP);
      return TRUE;
    default:
      return FALSE;
    }
}

/* ---- actions ----------------------------------------------------------------------------- */

static void
action_zoom (GtkWidget  *widget,
             const char *name,
             GVariant   *param)
{
  KubusTopologyView *self = KUBUS_TOPOLOGY_VIEW (widget);

  (void) param;
  if (g_str_equal (name, "topology.zoom-fit"))
    {
      TopoSettings s = *topo_scene_get_settings (self->scene);
      s.camera.zoom = 1.0;
      s.camera.pan_x = s.camera.pan_y = 0;
      topo_scene_set_settings (self->scene, &s);
      settings_changed (self);
      return;
    }
  zoom_about (self, gtk_widget_get_width (self->canvas) / 2.0, gtk_widget_get_height (self->canvas) / 2.0,
              g_str_equal (name, "topology.zoom-in") ? ZOOM_STEP : 1 / ZOOM_STEP);
}

static void
action_reset (GtkWidget  *widget,
              const char *name,
              GVariant   *param)
{
  KubusTopologyView *self = KUBUS_TOPOLOGY_VIEW (widget);
  TopoSettings s = *topo_scene_get_settings (self->scene);
  const gint64 *planes;
  guint n = topo_scene_get_shown_planes (self->scene, &planes);

  (void) name, (void) param;
  topo_camera_init_default (&s.camera, n);
  kubus_topology_view_set_settings (self, &s);
}

/* ---- controls ---------------------------------------------------------------------------- */

static void
set_high (TopoSettings *s, gpointer data)
{
  s->high_resolution = GPOINTER_TO_INT (data);
}

static void
on_high_toggled (GtkToggleButton *button,
                 gpointer         user_data)
{
  edit_settings (user_data, set_high, GINT_TO_POINTER (gtk_toggle_button_get_active (button)));
}

static void
set_stacking (TopoSettings *s, gpointer data)
{
  s->stacking = (TopoStacking) GPOINTER_TO_UINT (data);
}

static void
set_lines (TopoSettings *s, gpointer data)
{
  s->lines = (TopoLineStyle) GPOINTER_TO_UINT (data);
}

static void
on_dropdown (GObject    *dropdown,
             GParamSpec *pspec,
             gpointer    user_data)
{
  KubusTopologyView *self = user_data;
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown));

  (void) pspec;
  if (i == GTK_INVALID_LIST_POSITION)
    return;
  edit_settings (self, GTK_WIDGET (dropdown) == self->stacking_dropdown ? set_stacking : set_lines,
                 GUINT_TO_POINTER (i));
}

static void
set_distance (TopoSettings *s, gpointer data)
{
  s->camera.distance = *(double *) data;
}

static void
on_distance (GtkRange *range,
             gpointer  user_data)
{
  double d = gtk_range_get_value (range);

  edit_settings (user_data, set_distance, &d);
}

static void
set_hide (TopoSettings *s, gpointer data)
{
  s->hide_empty = GPOINTER_TO_INT (data);
}

static void
on_hide_toggled (GtkCheckButton *button,
                 gpointer        user_data)
{
  edit_settings (user_data, set_hide, GINT_TO_POINTER (gtk_check_button_get_active (button)));
}

static GtkWidget *
string_dropdown (const char *const *items,
                 guint              n)
{
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);

  for (guint i = 0; i < n; i++)
    gtk_string_list_append (list, _(items[i]));
  return gtk_drop_down_new (G_LIST_MODEL (g_steal_pointer (&list)), NULL);
}

static GtkWidget *
labelled (const char *text,
          GtkWidget  *control)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *label = gtk_label_new_with_mnemonic (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), control);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), control);
  return box;
}

static GtkWidget *
make_view_popover (KubusTopologyView *self)
{
  static const char *const stackings[] = { N_("Along z"), N_("Along y"), N_("Along x") };
  static const char *const lines[] = { N_("Black"), N_("Grey"), N_("White"), N_("None") };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  GtkWidget *popover = gtk_popover_new ();
  GtkWidget *reset;

  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);

  self->stacking_dropdown = string_dropdown (stackings, G_N_ELEMENTS (stackings));
  /* Widget names: for CSS and for the tests, which look controls up by name. */
  gtk_widget_set_name (self->stacking_dropdown, "topology-stacking");
  g_signal_connect (self->stacking_dropdown, "notify::selected", G_CALLBACK (on_dropdown), self);
  gtk_box_append (GTK_BOX (box), labelled (_("_Planes"), self->stacking_dropdown));

  self->distance_scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 4, 0.05);
  gtk_widget_set_size_request (self->distance_scale, 180, -1);
  gtk_scale_set_draw_value (GTK_SCALE (self->distance_scale), FALSE);
  gtk_widget_set_name (self->distance_scale, "topology-distance");
  g_signal_connect (self->distance_scale, "value-changed", G_CALLBACK (on_distance), self);
  gtk_box_append (GTK_BOX (box), labelled (_("Plane _distance"), self->distance_scale));

  self->lines_dropdown = string_dropdown (lines, G_N_ELEMENTS (lines));
  gtk_widget_set_name (self->lines_dropdown, "topology-lines");
  g_signal_connect (self->lines_dropdown, "notify::selected", G_CALLBACK (on_dropdown), self);
  gtk_box_append (GTK_BOX (box), labelled (_("Cell _borders"), self->lines_dropdown));

  self->hide_check = gtk_check_button_new_with_mnemonic (_("_Hide planes without locations"));
  gtk_widget_set_name (self->hide_check, "topology-hide-empty");
  g_signal_connect (self->hide_check, "toggled", G_CALLBACK (on_hide_toggled), self);
  gtk_box_append (GTK_BOX (box), self->hide_check);

  reset = gtk_button_new_with_mnemonic (_("_Reset View"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (reset), "topology.reset-view");
  gtk_box_append (GTK_BOX (box), reset);

  gtk_popover_set_child (GTK_POPOVER (popover), box);
  return popover;
}

/* Axis assignment: one row per dimension with its role and, for a slice, its index. */
static void
on_axis_changed (KubusTopologyView *self)
{
  GtkWidget *row;
  guint d = 0;

  if (self->syncing || self->layout == NULL)
    return;
  for (row = gtk_widget_get_first_child (self->axes_box); row != NULL; row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *dropdown = g_object_get_data (G_OBJECT (row), "kubus-role");
      GtkWidget *spin = g_object_get_data (G_OBJECT (row), "kubus-slice");
      guint role;

      if (dropdown == NULL)
        continue;
      role = gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown));
      gtk_widget_set_sensitive (spin, role == TOPO_AXIS_SLICE);
      if (d < self->layout->ndims)
        topo_layout_set_role (self->layout, d, (TopoAxis) MIN (role, TOPO_AXIS_SLICE),
                              gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (spin)));
      d++;
    }
  rebuild_grid (self);
  settings_changed (self);
}

static void
rebuild_axes (KubusTopologyView *self)
{
  static const char *const roles[] = { N_("x axis"), N_("y axis"), N_("z axis"), N_("Slice") };
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->axes_box)) != NULL)
    gtk_box_remove (GTK_BOX (self->axes_box), child);
  gtk_widget_set_sensitive (self->axes_button, self->layout != NULL);
  if (self->layout == NULL || self->browser == NULL)
    return;
  self->syncing = TRUE;
  {
    GtkWidget *note = gtk_label_new (_("Several dimensions on one axis are folded into it."));
    gtk_label_set_wrap (GTK_LABEL (note), TRUE);
    gtk_label_set_max_width_chars (GTK_LABEL (note), 36);
    gtk_label_set_xalign (GTK_LABEL (note), 0);
    gtk_widget_add_css_class (note, "dim-label");
    gtk_box_append (GTK_BOX (self->axes_box), note);
  }
  for (guint d = 0; d < self->layout->ndims; d++)
    {
      const CubeCartDim *dim = &((const CubeCart *) g_ptr_array_index (
                                   kubus_browser_get_report (self->browser)->topologies, self->topology))->dims[d];
      g_autofree char *name = dim->name != NULL && dim->name[0] != '\0' ? g_strdup (dim->name)
                                                                       : g_strdup_printf (_("dimension %u"), d);
      g_autofree char *text = dim->periodic ? g_strdup_printf (_("%s (%lld, periodic)"), name, (long long) dim->size)
                                            : g_strdup_printf ("%s (%lld)", name, (long long) dim->size);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *label = gtk_label_new (text);
      GtkWidget *dropdown = string_dropdown (roles, G_N_ELEMENTS (roles));
      GtkWidget *spin = gtk_spin_button_new_with_range (0, MAX (dim->size - 1, 0), 1);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_width_chars (GTK_LABEL (label), 18);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), self->layout->axis[d]);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), (double) self->layout->slice[d]);
      gtk_widget_set_sensitive (spin, self->layout->axis[d] == TOPO_AXIS_SLICE);
      gtk_widget_set_tooltip_text (spin, _("Index shown of a dimension used as a slice"));
      g_signal_connect_swapped (dropdown, "notify::selected", G_CALLBACK (on_axis_changed), self);
      g_signal_connect_swapped (spin, "value-changed", G_CALLBACK (on_axis_changed), self);
      {
        g_autofree char *rname = g_strdup_printf ("topology-axis-role-%u", d);
        g_autofree char *sname = g_strdup_printf ("topology-axis-slice-%u", d);
        gtk_widget_set_name (dropdown, rname);
        gtk_widget_set_name (spin, sname);
      }
      g_object_set_data (G_OBJECT (row), "kubus-role", dropdown);
      g_object_set_data (G_OBJECT (row), "kubus-slice", spin);
      gtk_box_append (GTK_BOX (row), label);
      gtk_box_append (GTK_BOX (row), dropdown);
      gtk_box_append (GTK_BOX (row), spin);
      gtk_box_append (GTK_BOX (self->axes_box), row);
    }
  self->syncing = FALSE;
}

static GtkWidget *
icon_button (const char *icon,
             const char *tooltip,
             const char *action)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  return button;
}

static void
build_toolbar (KubusTopologyView *self)
{
  GtkWidget *view_button, *axes_popover, *scroller, *zoom_box;

  self->toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_add_css_class (self->toolbar, "toolbar");

  self->high_button = gtk_toggle_button_new_with_mnemonic (_("_High Resolution"));
  gtk_widget_set_tooltip_text (self->high_button,
                               _("Spread the whole colour scale over this grid’s minimum … maximum"));
  gtk_widget_set_name (self->high_button, "topology-high-resolution");
  g_signal_connect (self->high_button, "toggled", G_CALLBACK (on_high_toggled), self);
  gtk_box_append (GTK_BOX (self->toolbar), self->high_button);

  view_button = gtk_menu_button_new ();
  gtk_menu_button_set_label (GTK_MENU_BUTTON (view_button), _("View"));
  gtk_widget_set_tooltip_text (view_button, _("Planes, distance, cell borders"));
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (view_button), make_view_popover (self));
  gtk_box_append (GTK_BOX (self->toolbar), view_button);

  self->axes_button = gtk_menu_button_new ();
  gtk_menu_button_set_label (GTK_MENU_BUTTON (self->axes_button), _("Axes"));
  gtk_widget_set_tooltip_text (self->axes_button, _("Which dimension runs along x, y and z; slices"));
  self->axes_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 420);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->axes_box);
  axes_popover = gtk_popover_new ();
  gtk_popover_set_child (GTK_POPOVER (axes_popover), scroller);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (self->axes_button), axes_popover);
  gtk_box_append (GTK_BOX (self->toolbar), self->axes_button);

  zoom_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (zoom_box, "linked");
  gtk_widget_set_hexpand (zoom_box, TRUE);
  gtk_widget_set_halign (zoom_box, GTK_ALIGN_END);
  gtk_box_append (GTK_BOX (zoom_box), icon_button ("zoom-out-symbolic", _("Zoom Out (Ctrl+−)"), "topology.zoom-out"));
  gtk_box_append (GTK_BOX (zoom_box), icon_button ("zoom-fit-best-symbolic", _("Fit (Ctrl+0)"), "topology.zoom-fit"));
  gtk_box_append (GTK_BOX (zoom_box), icon_button ("zoom-in-symbolic", _("Zoom In (Ctrl++)"), "topology.zoom-in"));
  gtk_box_append (GTK_BOX (self->toolbar), zoom_box);
}

static void
build_canvas (KubusTopologyView *self)
{
  GtkEventController *motion, *scroll, *key;
  GtkGesture *drag, *click, *pinch;

  self->canvas = gtk_drawing_area_new ();
  gtk_widget_set_hexpand (self->canvas, TRUE);
  gtk_widget_set_vexpand (self->canvas, TRUE);
  gtk_widget_set_focusable (self->canvas, TRUE);
  gtk_widget_set_has_tooltip (self->canvas, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->canvas), draw_canvas, self, NULL);
  g_signal_connect (self->canvas, "query-tooltip", G_CALLBACK (on_query_tooltip), self);

  motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (self->canvas, motion);

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (self->canvas, GTK_EVENT_CONTROLLER (drag));

  click = gtk_gesture_click_new ();
  g_signal_connect (click, "released", G_CALLBACK (on_click_released), self);
  gtk_widget_add_controller (self->canvas, GTK_EVENT_CONTROLLER (click));
  /* Drag and click see the same press: neither claims it from the other. */
  gtk_gesture_group (drag, click);

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL
                                            | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (self->canvas, scroll);

  pinch = gtk_gesture_zoom_new ();
  g_signal_connect (pinch, "begin", G_CALLBACK (on_pinch_begin), self);
  g_signal_connect (pinch, "scale-changed", G_CALLBACK (on_pinch), self);
  gtk_widget_add_controller (self->canvas, GTK_EVENT_CONTROLLER (pinch));

  key = gtk_event_controller_key_new ();
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (self->canvas, key);
}

/* ---- object ------------------------------------------------------------------------------ */

static void
kubus_topology_view_dispose (GObject *object)
{
  KubusTopologyView *self = KUBUS_TOPOLOGY_VIEW (object);
  GtkWidget *child;

  if (self->save_id != 0)
    {
      g_clear_handle_id (&self->save_id, g_source_remove);
      save_now (self);
    }
  disconnect_browser (self);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (kubus_topology_view_parent_class)->dispose (object);
}

static void
kubus_topology_view_finalize (GObject *object)
{
  KubusTopologyView *self = KUBUS_TOPOLOGY_VIEW (object);

  topo_scene_free (self->scene);
  topo_grid_free (self->grid);
  topo_layout_free (self->layout);
  g_free (self->report_path);
  g_array_unref (self->cells);
  G_OBJECT_CLASS (kubus_topology_view_parent_class)->finalize (object);
}

static void
kubus_topology_view_class_init (KubusTopologyViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = kubus_topology_view_dispose;
  object_class->finalize = kubus_topology_view_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "kubus-topology-view");

  gtk_widget_class_install_action (widget_class, "topology.zoom-in", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "topology.zoom-out", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "topology.zoom-fit", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "topology.reset-view", NULL, action_reset);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "topology.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "topology.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "topology.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "topology.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK, "topology.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "topology.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, GDK_CONTROL_MASK, "topology.zoom-fit", NULL);
}

static void
kubus_topology_view_init (KubusTopologyView *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
  self->scene = topo_scene_new ();
  self->hover = -1;
  self->cells = g_array_new (FALSE, FALSE, sizeof (gint64));
  build_toolbar (self);
  build_canvas (self);
  gtk_widget_set_parent (self->toolbar, GTK_WIDGET (self));
  gtk_widget_set_parent (self->canvas, GTK_WIDGET (self));
  sync_controls (self);
  rebuild_axes (self);
}

GtkWidget *
kubus_topology_view_new (void)
{
  return g_object_new (KUBUS_TYPE_TOPOLOGY_VIEW, NULL);
}
