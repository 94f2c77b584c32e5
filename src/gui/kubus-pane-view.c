/* kubus-pane-view.c — see kubus-pane-view.h. */
#include <glib/gi18n.h>

#include "kubus-legend.h"
#include "kubus-pane-view.h"
#include "kubus-row-cell.h"

struct _KubusPaneView
{
  GtkWidget         parent_instance;

  KubusPaneKind     kind;
  KubusPaneModel   *model;
  gulong            values_handler;
  gulong            selection_handler;
  GListModel       *rows;            /* the model whose items-changed moves the legend */
  gulong            rows_handler;
  guint             legend_idle;

  GtkWidget        *header;
  GtkWidget        *title;
  GtkWidget        *view_dropdown;   /* call pane only */
  GtkWidget        *mode_dropdown;
  GtkWidget        *scroller;
  GtkWidget        *list_view;
  GtkWidget        *legend;
  GtkWidget        *info_popover;
  GtkWidget        *info_label;
  GtkWidget        *info_note;     /* when a link could not be opened */

  GHashTable       *bound;           /* KubusRowCell* currently showing a row */
  GArray           *mode_of_item;    /* dropdown position → KubusValueMode */
  gboolean          updating_dropdown;
  double            click_x, click_y;
  gboolean          have_click;
  guint             expand_tick;     /* continues an Expand All in the next frames */
  guint             expand_frame;    /* its frame: index of expand_rows_per_frame */
};

G_DEFINE_FINAL_TYPE (KubusPaneView, kubus_pane_view, GTK_TYPE_WIDGET)

static const char *
pane_title (KubusPaneKind kind)
{
  switch (kind)
    {
    case KUBUS_PANE_METRIC:
      return _("Metric tree");
    case KUBUS_PANE_CALL:
      return _("Call tree");
    case KUBUS_PANE_SYSTEM:
    default:
      return _("System tree");
    }
}

/* ---- rows ------------------------------------------------------------------------------- */

static void
on_row_pressed (GtkGestureClick *gesture,
                int              n_press,
                double           x,
                double           y,
                gpointer         user_data)
{
  KubusPaneView *self = user_data;
  GtkWidget *cell = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));
  GtkListItem *item = g_object_get_data (G_OBJECT (cell), "kubus-list-item");
  GtkWidget *menu;
  graphene_point_t p;

  (void) n_press;
  if (item == NULL || self->model == NULL)
    return;
  /* Right click acts on the row under the pointer, like a left click would select it. */
  if (!gtk_selection_model_is_selected (kubus_pane_model_get_selection (self->model),
                                        gtk_list_item_get_position (item)))
    gtk_selection_model_select_item (kubus_pane_model_get_selection (self->model),
                                     gtk_list_item_get_position (item), TRUE);
  gtk_widget_grab_focus (self->list_view);
  if (!gtk_widget_compute_point (cell, GTK_WIDGET (self), &GRAPHENE_POINT_INIT (x, y), &p))
    p = GRAPHENE_POINT_INIT (x, y);
  self->click_x = p.x;
  self->click_y = p.y;
  self->have_click = TRUE;

  menu = g_object_get_data (G_OBJECT (self), "kubus-row-menu");
  if (menu != NULL)
    {
      gtk_popover_set_pointing_to (GTK_POPOVER (menu),
                                   &(GdkRectangle) { (int) p.x, (int) p.y, 1, 1 });
      gtk_popover_popup (GTK_POPOVER (menu));
    }
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static void
setup_row (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  GtkWidget *expander = gtk_tree_expander_new ();
  GtkWidget *cell = kubus_row_cell_new ();
  GtkGesture *click = gtk_gesture_click_new ();

  (void) factory;
  /* The row is the keyboard's stop, not the expander in it: a focused expander draws no focus
   * ring, and with one per row Tab walked through every row (issue 16, defect 9). The keys
   * Right, Left, plus, minus, asterisk and double clicks open and close rows. */
  gtk_widget_set_focusable (expander, FALSE);
  gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), cell);
  gtk_list_item_set_child (item, expander);
  g_object_set_data (G_OBJECT (cell), "kubus-list-item", item);
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect (click, "pressed", G_CALLBACK (on_row_pressed), user_data);
  gtk_widget_add_controller (cell, GTK_EVENT_CONTROLLER (click));
}

/* How far a row at @depth is indented: 16 px per level for the first 8 levels, then 8 px up
 * to level 24, then 2 px, and never more than 45 % of the pane: a call tree 40 levels deep
 * pushed its rows off the screen and the pane looked empty (issue 16, defect 10). */
static int
indent_for_depth (KubusPaneView *self,
                  guint          depth)
{
  int px = 0, width = gtk_widget_get_width (self->list_view);

  for (guint d = 0; d < depth; d++)
    px += d < 8 ? 16 : d < 24 ? 8 : 2;
  return MIN (px, (width > 0 ? width : 400) * 45 / 100);
}

static void
bind_row (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  user_data)
{
  KubusPaneView *self = user_data;
  GtkWidget *expander = gtk_list_item_get_child (item);
  GtkWidget *cell = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander));
  GtkTreeListRow *row = gtk_list_item_get_item (item);

  (void) factory;
  gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (expander), row);
  gtk_widget_set_margin_start (expander, indent_for_depth (self, gtk_tree_list_row_get_depth (row)));
  if (self->model != NULL)
    {
      kubus_row_cell_bind (KUBUS_ROW_CELL (cell), self->model, row);
      g_hash_table_add (self->bound, cell);
    }
}

static void
unbind_row (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  KubusPaneView *self = user_data;
  GtkWidget *expander = gtk_list_item_get_child (item);
  GtkWidget *cell = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander));

  (void) factory;
  gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (expander), NULL);
  kubus_row_cell_unbind (KUBUS_ROW_CELL (cell));
  g_hash_table_remove (self->bound, cell);
}

static void
teardown_row (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  KubusPaneView *self = user_data;
  GtkWidget *expander = gtk_list_item_get_child (item);

  (void) factory;
  if (expander != NULL)
    g_hash_table_remove (self->bound, gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander)));
}

/* ---- keyboard ------------------------------------------------------------------------------ */

/* Right (or +) expands the selected row, Left (or −) collapses it or, when it is collapsed,
 * goes to its parent; * expands the whole subtree. GtkTreeExpander's own key bindings only
 * work when the expander has the focus, which in a list view the row has. */
static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                gpointer               user_data)
{
  KubusPaneView *self = user_data;
  guint pos = kubus_pane_view_get_selected (self);
  GListModel *rows;
  g_autoptr (GtkTreeListRow) row = NULL;

  (void) controller, (void) keycode;
  /* Tab leaves the tree: GtkListView would step from row to row, every row a stop. */
  if ((keyval == GDK_KEY_Tab || keyval == GDK_KEY_ISO_Left_Tab || keyval == GDK_KEY_KP_Tab)
      && (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) == 0)
    {
      GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (self->list_view));
      gboolean back = keyval == GDK_KEY_ISO_Left_Tab || (state & GDK_SHIFT_MASK) != 0;

      gtk_widget_set_can_focus (self->list_view, FALSE);
      if (!gtk_widget_child_focus (root, back ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD))
        gtk_widget_child_focus (root, back ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD);   /* wrap */
      gtk_widget_set_can_focus (self->list_view, TRUE);
      return TRUE;
    }
  if (self->model == NULL || pos == G_MAXUINT
      || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) != 0)
    return FALSE;
  rows = G_LIST_MODEL (kubus_pane_model_get_selection (self->model));
  row = g_list_model_get_item (rows, pos);
  if (row == NULL)
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
    case GDK_KEY_plus:
    case GDK_KEY_KP_Add:
      if (!gtk_tree_list_row_is_expandable (row))
        return FALSE;
      gtk_tree_list_row_set_expanded (row, TRUE);
      return TRUE;
    case GDK_KEY_asterisk:
    case GDK_KEY_KP_Multiply:
      kubus_pane_view_expand_all (self, pos);
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      if (gtk_tree_list_row_get_expanded (row))
        {
          gtk_tree_list_row_set_expanded (row, FALSE);
          return TRUE;
        }
      {
        g_autoptr (GtkTreeListRow) parent = gtk_tree_list_row_get_parent (row);

        /* The parent is shown above its children (sorting keeps subtrees together). */
        for (guint i = pos; parent != NULL && i-- > 0;)
          {
            g_autoptr (GtkTreeListRow) above = g_list_model_get_item (rows, i);
            if (above == parent)
              {
                gtk_selection_model_select_item (GTK_SELECTION_MODEL (rows), i, TRUE);
                kubus_pane_view_scroll_to (self, i);
                return TRUE;
              }
          }
      }
      return FALSE;
    default:
      return FALSE;
    }
}

/* Double click (or Enter) on a row opens or closes it, as in CubeGUI and file managers: the
 * list view's "activate" (it has no single-click activation, so a click still only selects). */
static void
on_row_activate (GtkListView *list_view,
                 guint        position,
                 gpointer     user_data)
{
  KubusPaneView *self = user_data;
  g_autoptr (GtkTreeListRow) row = NULL;

  (void) list_view;
  if (self->model == NULL)
    return;
  row = g_list_model_get_item (G_LIST_MODEL (kubus_pane_model_get_selection (self->model)), position);
  if (row != NULL && gtk_tree_list_row_is_expandable (row))
    gtk_tree_list_row_set_expanded (row, !gtk_tree_list_row_get_expanded (row));
}

/* ---- mode and view switchers --------------------------------------------------------------- */

/* The modes the pane offers, and last, when no external report is loaded, "External
 * percent…" (KUBUS_N_MODES), which asks for one (issue 16, defect 7). */
static GArray *
offered_modes (KubusPaneView *self)
{
  GArray *modes = g_array_new (FALSE, FALSE, sizeof (KubusValueMode));
  KubusValueMode ask = KUBUS_N_MODES;

  for (KubusValueMode m = 0; m < KUBUS_N_MODES; m++)
    if (self->model != NULL ? kubus_pane_model_mode_available (self->model, m) : m == KUBUS_MODE_ABSOLUTE)
      g_array_append_val (modes, m);
  if (self->model != NULL && !kubus_pane_model_mode_available (self->model, KUBUS_MODE_EXTERNAL))
    g_array_append_val (modes, ask);
  return modes;
}

/* The list view's row widget (GtkListItemWidget) showing @pos, if it is made. */
static GtkWidget *
row_widget_at (KubusPaneView *self,
               guint          pos)
{
  for (GtkWidget *row = gtk_widget_get_first_child (self->list_view); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *expander = gtk_widget_get_first_child (row);
      GtkWidget *cell = GTK_IS_TREE_EXPANDER (expander) ? gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander)) : NULL;
      GtkListItem *item = cell != NULL ? g_object_get_data (G_OBJECT (cell), "kubus-list-item") : NULL;

      if (item != NULL && gtk_list_item_get_item (item) != NULL && gtk_list_item_get_position (item) == pos)
        return row;
    }
  return NULL;
}

static gboolean
focus_selected_idle (gpointer data)
{
  KubusPaneView *self = data;
  guint pos = kubus_pane_view_get_selected (self);
  GtkWidget *row = pos != G_MAXUINT ? row_widget_at (self, pos) : NULL;

  if (row != NULL && gtk_widget_has_focus (row) == FALSE && gtk_widget_is_ancestor (
        gtk_root_get_focus (gtk_widget_get_root (self->list_view)), self->list_view))
    gtk_widget_grab_focus (row);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* Entering the tree with Tab lands on the selected row, not on the row that had the focus
 * last time (GtkListView remembers that one). */
static void
on_list_focus_enter (GtkEventControllerFocus *controller,
                     gpointer                 user_data)
{
  KubusPaneView *self = user_data;
  guint pos = kubus_pane_view_get_selected (self);
  GtkWidget *row;

  (void) controller;
  if (pos == G_MAXUINT)
    return;
  /* Not from inside the focus change; a row scrolled away is made by the next layout. */
  row = row_widget_at (self, pos);
  if (row == NULL)
    gtk_widget_activate_action (self->list_view, "list.scroll-to-item", "u", pos);
  g_idle_add_full (row != NULL ? G_PRIORITY_DEFAULT : G_PRIORITY_DEFAULT_IDLE, focus_selected_idle,
                   g_object_ref (self), NULL);
}

static void
fill_mode_dropdown (KubusPaneView *self)
{
  g_autoptr (GtkStringList) list = NULL;
  g_autoptr (GArray) wanted = offered_modes (self);
  guint selected = 0;

  for (guint i = 0; self->model != NULL && i < wanted->len; i++)
    if (g_array_index (wanted, KubusValueMode, i) == kubus_pane_model_get_mode (self->model))
      selected = i;
  /* Rebuild only when the offered modes change: replacing the model of an open drop-down
   * (or from its own notify::selected) would close it. */
  if (wanted->len == self->mode_of_item->len
      && memcmp (wanted->data, self->mode_of_item->data, sizeof (KubusValueMode) * wanted->len) == 0)
    {
      if (self->model != NULL && gtk_drop_down_get_selected (GTK_DROP_DOWN (self->mode_dropdown)) != selected)
        {
          self->updating_dropdown = TRUE;
          gtk_drop_down_set_selected (GTK_DROP_DOWN (self->mode_dropdown), selected);
          self->updating_dropdown = FALSE;
        }
      return;
    }
  list = gtk_string_list_new (NULL);
  self->updating_dropdown = TRUE;
  g_array_set_size (self->mode_of_item, 0);
  for (guint i = 0; i < wanted->len; i++)
    {
      KubusValueMode m = g_array_index (wanted, KubusValueMode, i);

      /* TRANSLATORS: a value mode that first asks for a report */
      gtk_string_list_append (list, m == KUBUS_N_MODES ? _("External percent…") : kubus_value_mode_label (m));
      g_array_append_val (self->mode_of_item, m);
    }
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->mode_dropdown), G_LIST_MODEL (list));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->mode_dropdown), selected);
  self->updating_dropdown = FALSE;
}

static void
on_mode_selected (GObject    *dropdown,
                  GParamSpec *pspec,
                  gpointer    user_data)
{
  KubusPaneView *self = user_data;
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown));
  KubusValueMode mode;

  (void) pspec;
  if (self->updating_dropdown || self->model == NULL || i >= self->mode_of_item->len)
    return;
  mode = g_array_index (self->mode_of_item, KubusValueMode, i);
  if (mode == KUBUS_N_MODES)
    {
      /* Back to the mode shown until the report is there; the window asks for it. */
      g_array_set_size (self->mode_of_item, 0);
      fill_mode_dropdown (self);
      gtk_widget_activate_action (GTK_WIDGET (self), "win.mode", "s",
                                  kubus_value_mode_to_string (KUBUS_MODE_EXTERNAL));
      return;
    }
  kubus_pane_model_set_mode (self->model, mode);
}

static void
on_view_selected (GObject    *dropdown,
                  GParamSpec *pspec,
                  gpointer    user_data)
{
  KubusPaneView *self = user_data;
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown));

  (void) pspec;
  if (self->updating_dropdown)
    return;
  gtk_widget_activate_action (GTK_WIDGET (self), "win.call-view", "s",
                              kubus_call_view_to_string ((KubusCallView) i));
}

/* ---- info popover ---------------------------------------------------------------------------- */

typedef struct
{
  GWeakRef  view;
  char     *uri;
} LinkLaunch;

static void
on_link_launched (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  LinkLaunch *launch = user_data;
  g_autoptr (KubusPaneView) self = g_weak_ref_get (&launch->view);
  g_autoptr (GError) error = NULL;

  (void) source;
  if (!g_app_info_launch_default_for_uri_finish (result, &error) && self != NULL)
    {
      /* No browser (or none that works): the address is what the user needs. */
      g_autofree char *text = g_strdup_printf (_("No program could open the link (%s). Its address is on the "
                                                 "clipboard:\n%s"), error->message, launch->uri);
      gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), launch->uri);
      gtk_label_set_text (GTK_LABEL (self->info_note), text);
      gtk_label_set_selectable (GTK_LABEL (self->info_note), TRUE);
      gtk_widget_set_visible (self->info_note, TRUE);
    }
  g_weak_ref_clear (&launch->view);
  g_free (launch->uri);
  g_free (launch);
}

/* The metric's documentation link: opened with the default program; when that fails the
 * popover says so and puts the address on the clipboard (it failed silently before). */
static gboolean
on_info_link (GtkLabel   *label,
              const char *uri,
              gpointer    user_data)
{
  KubusPaneView *self = user_data;
  LinkLaunch *launch = g_new0 (LinkLaunch, 1);

  (void) label;
  g_weak_ref_init (&launch->view, self);
  launch->uri = g_strdup (uri);
  g_app_info_launch_default_for_uri_async (uri, NULL, NULL, on_link_launched, launch);
  return TRUE;
}

/* ---- widget -------------------------------------------------------------------------------- */

static void
kubus_pane_view_dispose (GObject *object)
{
  KubusPaneView *self = KUBUS_PANE_VIEW (object);
  GtkWidget *child;

  kubus_pane_view_set_model (self, NULL);
  /* Closed before the window goes: an open popover's scrolled window kept a timer that
   * asked the destroyed surface for the pointer (GTK 4.8). */
  if (self->info_popover != NULL)
    gtk_popover_popdown (GTK_POPOVER (self->info_popover));
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (kubus_pane_view_parent_class)->dispose (object);
}

static void
kubus_pane_view_finalize (GObject *object)
{
  KubusPaneView *self = KUBUS_PANE_VIEW (object);

  g_hash_table_unref (self->bound);
  g_array_unref (self->mode_of_item);
  G_OBJECT_CLASS (kubus_pane_view_parent_class)->finalize (object);
}

static void
kubus_pane_view_constructed (GObject *object)
{
  KubusPaneView *self = KUBUS_PANE_VIEW (object);
  KubusPaneKind kind = self->kind;
  GtkListItemFactory *factory;
  GtkWidget *label;

  self->header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_add_css_class (self->header, "toolbar");
  gtk_widget_set_parent (self->header, GTK_WIDGET (self));
  /* The bar names the tree and holds its switchers. */
  label = self->title = gtk_label_new (pane_title (kind));
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (self->header), label);

  if (kind == KUBUS_PANE_CALL)
    {
      const char *const views[] = { _("Call tree"), _("Flat profile"), _("Modules"), NULL };
      self->view_dropdown = gtk_drop_down_new_from_strings (views);
      gtk_widget_set_tooltip_text (self->view_dropdown, _("How to group call paths"));
      /* The drop-down names the view ("Call tree", "Flat profile", "Modules"): a title saying
       * the same left no room and read "Call …" at the default window size (issue 24, item 11). */
      gtk_widget_set_visible (label, FALSE);
      gtk_widget_set_hexpand (self->view_dropdown, TRUE);
      gtk_widget_set_halign (self->view_dropdown, GTK_ALIGN_START);
      g_signal_connect (self->view_dropdown, "notify::selected", G_CALLBACK (on_view_selected), self);
      gtk_box_append (GTK_BOX (self->header), self->view_dropdown);
    }
  self->mode_dropdown = gtk_drop_down_new (NULL, NULL);
  gtk_widget_set_tooltip_text (self->mode_dropdown, _("Value mode"));
  g_signal_connect (self->mode_dropdown, "notify::selected", G_CALLBACK (on_mode_selected), self);
  gtk_box_append (GTK_BOX (self->header), self->mode_dropdown);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_row), self);
  g_signal_connect (factory, "teardown", G_CALLBACK (teardown_row), self);
  /* A GtkListView, not a one-column GtkColumnView: the column view's per-cell widgets and
   * column measuring made expanding 10,000 children miss the 50 ms frame goal (bench/gui,
   * docs/decisions/gui-speed.md). The pane title sits in the bar above instead of a header. */
  self->list_view = gtk_list_view_new (NULL, factory);
  gtk_widget_add_css_class (self->list_view, "kubus-tree");
  g_signal_connect (self->list_view, "activate", G_CALLBACK (on_row_activate), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, pane_title (kind), -1);
  {
    GtkEventController *keys = gtk_event_controller_key_new ();
    /* Capture phase: before the list view's own Left/Right cursor bindings. */
    gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
    g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
    gtk_widget_add_controller (self->list_view, keys);
  }
  {
    GtkEventController *focus = gtk_event_controller_focus_new ();
    g_signal_connect (focus, "enter", G_CALLBACK (on_list_focus_enter), self);
    gtk_widget_add_controller (self->list_view, focus);
  }

  self->scroller = gtk_scrolled_window_new ();
  gtk_widget_set_vexpand (self->scroller, TRUE);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), self->list_view);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));

  self->legend = kubus_legend_new ();
  gtk_widget_set_parent (self->legend, GTK_WIDGET (self));

  self->info_popover = gtk_popover_new ();
  self->info_label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->info_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->info_label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (self->info_label), 60);
  gtk_label_set_selectable (GTK_LABEL (self->info_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->info_label), 0);
  gtk_label_set_yalign (GTK_LABEL (self->info_label), 0);
  g_signal_connect (self->info_label, "activate-link", G_CALLBACK (on_info_link), self);
  self->info_note = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->info_note), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (self->info_note), 60);
  gtk_label_set_xalign (GTK_LABEL (self->info_note), 0);
  gtk_widget_add_css_class (self->info_note, "dim-label");
  gtk_widget_set_visible (self->info_note, FALSE);
  {
    /* Long descriptions scroll inside the popover instead of running off the window (they
     * were clipped: issue 16, defect 10). */
    GtkWidget *scroller = gtk_scrolled_window_new ();
    GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);

    gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
    gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (scroller), TRUE);
    gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 360);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->info_label);
    gtk_box_append (GTK_BOX (box), scroller);
    gtk_box_append (GTK_BOX (box), self->info_note);
    gtk_popover_set_child (GTK_POPOVER (self->info_popover), box);
  }
  gtk_widget_set_parent (self->info_popover, GTK_WIDGET (self));

  fill_mode_dropdown (self);
  G_OBJECT_CLASS (kubus_pane_view_parent_class)->constructed (object);
}

static void
kubus_pane_view_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  if (prop_id == 1)
    KUBUS_PANE_VIEW (object)->kind = g_value_get_uint (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
kubus_pane_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  if (prop_id == 1)
    g_value_set_uint (value, KUBUS_PANE_VIEW (object)->kind);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
kubus_pane_view_class_init (KubusPaneViewClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = kubus_pane_view_dispose;
  G_OBJECT_CLASS (klass)->finalize = kubus_pane_view_finalize;
  G_OBJECT_CLASS (klass)->constructed = kubus_pane_view_constructed;
  G_OBJECT_CLASS (klass)->set_property = kubus_pane_view_set_property;
  G_OBJECT_CLASS (klass)->get_property = kubus_pane_view_get_property;
  /* Which tree: 0 metric, 1 call, 2 system (KubusPaneKind). */
  g_object_class_install_property (G_OBJECT_CLASS (klass), 1,
                                   g_param_spec_uint ("kind", NULL, NULL, 0, KUBUS_N_PANES - 1, 0,
                                                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY
                                                      | G_PARAM_STATIC_STRINGS));
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "kubus-pane");
}

static void
kubus_pane_view_init (KubusPaneView *self)
{
  self->bound = g_hash_table_new (NULL, NULL);
  self->mode_of_item = g_array_new (FALSE, FALSE, sizeof (KubusValueMode));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
}

GtkWidget *
kubus_pane_view_new (KubusPaneKind kind)
{
  return g_object_new (KUBUS_TYPE_PANE_VIEW, "kind", kind, NULL);
}

KubusPaneKind
kubus_pane_view_get_kind (KubusPaneView *self)
{
  return self->kind;
}

GtkWidget *
kubus_pane_view_get_list_view (KubusPaneView *self)
{
  return self->list_view;
}

static void
refresh_cells (KubusPaneView *self)
{
  GHashTableIter iter;
  gpointer cell;

  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &cell, NULL))
    kubus_row_cell_update (cell);
}

void
kubus_pane_view_refresh (KubusPaneView *self)
{
  if (self->model == NULL)
    return;
  refresh_cells (self);
  kubus_legend_update (KUBUS_LEGEND (self->legend), self->model);
  fill_mode_dropdown (self);
}

static void
on_values_changed (KubusPaneModel *model,
                   gpointer        user_data)
{
  (void) model;
  kubus_pane_view_refresh (user_data);
}

/* The system tree's legend describes the level of the rows shown (issue 24, item 5): expanding
 * or collapsing changes it. Once per main loop turn, not per row, and before GTK's next layout
 * (GTK_PRIORITY_RESIZE is G_PRIORITY_HIGH_IDLE + 10): a label changed after it leaves the
 * window needing a new allocation at the next frame's start, and a screenshot taken then comes
 * out empty. */
static gboolean
legend_idle (gpointer data)
{
  KubusPaneView *self = data;

  self->legend_idle = 0;
  if (self->model != NULL)
    kubus_legend_update (KUBUS_LEGEND (self->legend), self->model);
  return G_SOURCE_REMOVE;
}

static void
on_rows_changed (GListModel *rows,
                 guint       position,
                 guint       removed,
                 guint       added,
                 gpointer    user_data)
{
  KubusPaneView *self = user_data;

  (void) rows, (void) position, (void) removed, (void) added;
  if (self->legend_idle == 0)
    self->legend_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 5, legend_idle, self, NULL);
}

static void
watch_rows (KubusPaneView *self,
            GListModel    *rows)
{
  if (self->rows != NULL)
    g_clear_signal_handler (&self->rows_handler, self->rows);
  g_clear_object (&self->rows);
  g_clear_handle_id (&self->legend_idle, g_source_remove);
  if (rows == NULL || self->kind != KUBUS_PANE_SYSTEM)
    return;
  self->rows = g_object_ref (rows);
  self->rows_handler = g_signal_connect (rows, "items-changed", G_CALLBACK (on_rows_changed), self);
}

static void
on_selection_model_replaced (GObject    *model,
                             GParamSpec *pspec,
                             gpointer    user_data)
{
  KubusPaneView *self = user_data;

  (void) pspec;
  g_hash_table_remove_all (self->bound);
  gtk_list_view_set_model (GTK_LIST_VIEW (self->list_view),
                           kubus_pane_model_get_selection (KUBUS_PANE_MODEL (model)));
  watch_rows (self, G_LIST_MODEL (kubus_pane_model_get_selection (KUBUS_PANE_MODEL (model))));
}

void
kubus_pane_view_set_model (KubusPaneView  *self,
                           KubusPaneModel *model)
{
  if (self->model == model)
    return;
  watch_rows (self, NULL);
  if (self->expand_tick != 0)
    {
      gtk_widget_remove_tick_callback (self->list_view, self->expand_tick);
      self->expand_tick = 0;
      /* The model keeps its rows: an Expand All it started ends as it would have. */
      kubus_pane_model_expand_all_finish (self->model);
    }
  if (self->model != NULL)
    {
      g_clear_signal_handler (&self->values_handler, self->model);
      g_clear_signal_handler (&self->selection_handler, self->model);
      g_clear_object (&self->model);
    }
  if (self->list_view != NULL)
    gtk_list_view_set_model (GTK_LIST_VIEW (self->list_view), NULL);
  if (self->bound != NULL)
    g_hash_table_remove_all (self->bound);
  if (model == NULL)
    return;
  self->model = g_object_ref (model);
  self->values_handler = g_signal_connect (model, "values-changed", G_CALLBACK (on_values_changed), self);
  self->selection_handler = g_signal_connect (model, "notify::selection",
                                              G_CALLBACK (on_selection_model_replaced), self);
  gtk_list_view_set_model (GTK_LIST_VIEW (self->list_view), kubus_pane_model_get_selection (model));
  watch_rows (self, G_LIST_MODEL (kubus_pane_model_get_selection (model)));
  fill_mode_dropdown (self);
  kubus_pane_view_refresh (self);
}

/* Rows an Expand All makes in each frame: first those on screen (and the renderer draws the
 * pane anew), then the rest of the list view's row widgets (GTK 4.8 keeps up to 200, but draws
 * only those on screen), then the rows below them, which the view only counts. On this
 * project's virtual machine each new page of memory costs 18 µs, and all of it in one frame
 * took the first Expand All of a session over 100 ms (docs/benchmarks.md). */
static const guint expand_rows_per_frame[] = { 64, 192, G_MAXUINT };

static gboolean
expand_rest_tick (GtkWidget     *widget,
                  GdkFrameClock *clock,
                  gpointer       user_data)
{
  KubusPaneView *self = user_data;

  (void) widget, (void) clock;
  self->expand_frame = MIN (self->expand_frame + 1, G_N_ELEMENTS (expand_rows_per_frame) - 1);
  if (self->model != NULL
      && kubus_pane_model_expand_all_continue (self->model, expand_rows_per_frame[self->expand_frame]))
    return G_SOURCE_CONTINUE;
  self->expand_tick = 0;
  return G_SOURCE_REMOVE;
}

void
kubus_pane_view_expand_all (KubusPaneView *self,
                            guint          position)
{
  g_return_if_fail (KUBUS_IS_PANE_VIEW (self));
  if (self->model == NULL)
    return;
  /* Not on screen: no frames to spread the work over. */
  if (!gtk_widget_get_mapped (self->list_view))
    {
      kubus_pane_model_expand_all (self->model, position, TRUE);
      return;
    }
  self->expand_frame = 0;
  if (kubus_pane_model_expand_all_start (self->model, position, expand_rows_per_frame[0])
      && self->expand_tick == 0)
    self->expand_tick = gtk_widget_add_tick_callback (self->list_view, expand_rest_tick, self, NULL);
}

KubusPaneModel *
kubus_pane_view_get_model (KubusPaneView *self)
{
  return self->model;
}

void
kubus_pane_view_set_call_view (KubusPaneView *self,
                               KubusCallView  view)
{
  /* The pane's title names the view it shows (it said "Call tree" over the flat profile). */
  const char *title = view == KUBUS_CALL_VIEW_FLAT ? _("Flat profile")
                      : view == KUBUS_CALL_VIEW_MODULE ? _("Modules") : _("Call tree");

  if (self->view_dropdown == NULL)
    return;
  gtk_label_set_text (GTK_LABEL (self->title), title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list_view), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  self->updating_dropdown = TRUE;
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->view_dropdown), view);
  self->updating_dropdown = FALSE;
}

void
kubus_pane_view_scroll_to (KubusPaneView *self,
                           guint          position)
{
  if (position == G_MAXUINT)
    return;
  /* GTK 4.8 has no gtk_list_view_scroll_to: the list view's own action does it. */
  gtk_widget_activate_action (self->list_view, "list.scroll-to-item", "u", position);
  gtk_widget_grab_focus (self->list_view);
}

guint
kubus_pane_view_get_selected (KubusPaneView *self)
{
  g_autoptr (GtkBitset) set = NULL;

  if (self->model == NULL)
    return G_MAXUINT;
  set = gtk_selection_model_get_selection (kubus_pane_model_get_selection (self->model));
  if (gtk_bitset_is_empty (set))
    return G_MAXUINT;
  return gtk_bitset_get_minimum (set);
}

/* Where the selected row's name is drawn, in pane coordinates: the info popover points at
 * the row it describes, also when Ctrl+I opened it. FALSE if the row is scrolled away. */
static gboolean
selected_row_rect (KubusPaneView *self,
                   GdkRectangle  *rect)
{
  guint selected = kubus_pane_view_get_selected (self);
  GHashTableIter iter;
  gpointer cell;

  if (selected == G_MAXUINT)
    return FALSE;
  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &cell, NULL))
    {
      GtkListItem *item = g_object_get_data (G_OBJECT (cell), "kubus-list-item");
      graphene_rect_t b;

      if (item == NULL || gtk_list_item_get_position (item) != selected
          || !gtk_widget_get_mapped (cell)
          || !gtk_widget_compute_bounds (cell, GTK_WIDGET (self), &b)
          || b.origin.y < 0 || b.origin.y + b.size.height > gtk_widget_get_height (GTK_WIDGET (self)))
        continue;
      /* Below the value, at the start of the name, where the eye already is. */
      *rect = (GdkRectangle) { (int) (b.origin.x + MIN (b.size.width, 120)), (int) b.origin.y,
                               1, (int) b.size.height };
      return TRUE;
    }
  return FALSE;
}

void
kubus_pane_view_show_info (KubusPaneView *self,
                           const char    *markup)
{
  GdkRectangle r;

  gtk_label_set_markup (GTK_LABEL (self->info_label), markup);
  gtk_widget_set_visible (self->info_note, FALSE);
  if (!selected_row_rect (self, &r))
    {
      if (self->have_click)
        r = (GdkRectangle) { (int) self->click_x, (int) self->click_y, 1, 1 };
      else
        r = (GdkRectangle) { gtk_widget_get_width (GTK_WIDGET (self)) / 2, 40, 1, 1 };
    }
  gtk_popover_set_pointing_to (GTK_POPOVER (self->info_popover), &r);
  gtk_popover_popup (GTK_POPOVER (self->info_popover));
  /* A selectable label selects all of itself when the popover focuses it: the text should
   * read as text, with copying still possible. */
  gtk_label_select_region (GTK_LABEL (self->info_label), 0, 0);
}

void
kubus_pane_view_set_row_menu (KubusPaneView *self,
                              GMenuModel    *menu)
{
  GtkWidget *popover = gtk_popover_menu_new_from_model (menu);

  gtk_popover_set_has_arrow (GTK_POPOVER (popover), FALSE);
  gtk_widget_set_halign (popover, GTK_ALIGN_START);
  gtk_widget_set_parent (popover, GTK_WIDGET (self));
  g_object_set_data (G_OBJECT (self), "kubus-row-menu", popover);
}
