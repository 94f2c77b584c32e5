/* kubus-row-cell.c — see kubus-row-cell.h. */
#include <math.h>

#include "kubus-node.h"
#include "kubus-row-cell.h"

/* The severity square is drawn by the cell itself (render nodes, no cairo surface), not by a
 * GtkDrawingArea child: one widget less per bound row, which is what expanding 10,000
 * children and scrolling through them pay for (bench/gui). */
#define SQUARE     14   /* room for the square, px */
#define SQUARE_GAP 6    /* between square and value */

struct _KubusRowCell
{
  GtkWidget       parent_instance;

  GtkWidget      *value;
  GtkWidget      *name;

  KubusPaneModel *pane;
  GtkTreeListRow *row;
  gulong          expanded_handler;

  gboolean        has_color;
  gboolean        negative;
  GdkRGBA         color;
};

G_DEFINE_FINAL_TYPE (KubusRowCell, kubus_row_cell, GTK_TYPE_WIDGET)

static void
append_frame (GtkSnapshot           *snapshot,
              const graphene_rect_t *r,
              float                  width,
              const GdkRGBA         *top_left,
              const GdkRGBA         *bottom_right)
{
  GskRoundedRect rr;
  const float widths[4] = { width, width, width, width };
  const GdkRGBA colors[4] = { *top_left, *bottom_right, *bottom_right, *top_left };

  gsk_rounded_rect_init_from_rect (&rr, r, 0);
  gtk_snapshot_append_border (snapshot, &rr, widths, colors);
}

static void
kubus_row_cell_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  KubusRowCell *self = KUBUS_ROW_CELL (widget);
  GtkBorder padding;
  float s = SQUARE - 2, x, y;
  graphene_rect_t r;

  gtk_style_context_get_padding (gtk_widget_get_style_context (widget), &padding);
  /* At the start of the row, where the value label's start margin leaves room. */
  if (gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL)
    x = gtk_widget_get_width (widget) - padding.right - 1 - s;
  else
    x = padding.left + 1;
  y = floorf ((gtk_widget_get_height (widget) - s) / 2);
  r = GRAPHENE_RECT_INIT (x, y, s, s);
  if (!self->has_color)
    {
      /* Exactly zero: an empty outline, no colour. */
      const GdkRGBA gray = { 0.5, 0.5, 0.5, 0.5 };
      append_frame (snapshot, &r, 1, &gray, &gray);
    }
  else
    {
      const GdkRGBA light = { 1, 1, 1, 0.8 }, shade = { 0, 0, 0, 0.45 }, dark = { 0, 0, 0, 0.6 };
      const GdkRGBA bar = { 1, 1, 1, 0.95 };

      gtk_snapshot_append_color (snapshot, &self->color, &r);
      /* Raised for positive, sunken with a minus bar for negative values: gains and losses
       * differ in shape too, not only in colour. */
      if (!self->negative)
        append_frame (snapshot, &r, 1.5, &light, &shade);
      else
        {
          /* sunken: the shade above and left, the light below and right, all four sides
           * drawn (a square with two borders looked broken: issue 24, item 3) */
          append_frame (snapshot, &r, 1.5, &dark, &light);
          gtk_snapshot_append_color (snapshot, &bar,
                                     &GRAPHENE_RECT_INIT (x + s * 0.25f, y + s / 2 - 1, s * 0.5f, 2));
        }
    }
  GTK_WIDGET_CLASS (kubus_row_cell_parent_class)->snapshot (widget, snapshot);
}

/* Long names are ellipsized; the whole name shows when the pointer rests on one. */
static gboolean
on_name_query_tooltip (GtkWidget  *label,
                       int         x,
                       int         y,
                       gboolean    keyboard,
                       GtkTooltip *tooltip,
                       gpointer    user_data)
{
  (void) x, (void) y, (void) keyboard, (void) user_data;
  if (!pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))))
    return FALSE;
  gtk_tooltip_set_text (tooltip, gtk_label_get_text (GTK_LABEL (label)));
  return TRUE;
}

/* Every value in full precision, with its unit (and in a percent mode the absolute value
 * too): the label shows what fits, the tooltip what was measured (issue 16, defect 3). */
static gboolean
on_value_query_tooltip (GtkWidget  *label,
                        int         x,
                        int         y,
                        gboolean    keyboard,
                        GtkTooltip *tooltip,
                        gpointer    user_data)
{
  KubusRowCell *self = user_data;
  g_autoptr (KubusNodeRow) item = NULL;
  g_autofree char *text = NULL;

  (void) label, (void) x, (void) y, (void) keyboard;
  if (self->row == NULL || self->pane == NULL
      || (item = gtk_tree_list_row_get_item (self->row)) == NULL)
    return FALSE;
  text = kubus_pane_model_value_tooltip (self->pane, item, gtk_tree_list_row_get_expanded (self->row));
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
kubus_row_cell_dispose (GObject *object)
{
  KubusRowCell *self = KUBUS_ROW_CELL (object);

  kubus_row_cell_unbind (self);
  g_clear_pointer (&self->value, gtk_widget_unparent);
  g_clear_pointer (&self->name, gtk_widget_unparent);
  G_OBJECT_CLASS (kubus_row_cell_parent_class)->dispose (object);
}

static void
kubus_row_cell_class_init (KubusRowCellClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = kubus_row_cell_dispose;
  GTK_WIDGET_CLASS (klass)->snapshot = kubus_row_cell_snapshot;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "kubus-row");
}

static void
kubus_row_cell_init (KubusRowCell *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 6);
  gtk_widget_set_size_request (GTK_WIDGET (self), -1, SQUARE);

  self->value = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->value), 1.0);
  /* Room for "-1.23e-05" and "30,812.45": names stay aligned in every format. */
  gtk_label_set_width_chars (GTK_LABEL (self->value), 10);
  gtk_widget_set_margin_start (self->value, SQUARE + SQUARE_GAP);
  gtk_widget_add_css_class (self->value, "numeric");
  gtk_widget_add_css_class (self->value, "kubus-value");
  gtk_widget_set_has_tooltip (self->value, TRUE);
  g_signal_connect (self->value, "query-tooltip", G_CALLBACK (on_value_query_tooltip), self);
  gtk_widget_set_parent (self->value, GTK_WIDGET (self));

  self->name = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->name), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (self->name), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->name, TRUE);
  gtk_widget_set_has_tooltip (self->name, TRUE);
  g_signal_connect (self->name, "query-tooltip", G_CALLBACK (on_name_query_tooltip), NULL);
  gtk_widget_set_parent (self->name, GTK_WIDGET (self));
}

GtkWidget *
kubus_row_cell_new (void)
{
  return g_object_new (KUBUS_TYPE_ROW_CELL, NULL);
}

static void
on_expanded (GObject    *row,
             GParamSpec *pspec,
             gpointer    user_data)
{
  (void) row, (void) pspec;
  kubus_row_cell_update (user_data);
}

void
kubus_row_cell_bind (KubusRowCell   *self,
                     KubusPaneModel *pane,
                     GtkTreeListRow *row)
{
  kubus_row_cell_unbind (self);
  self->pane = pane;
  self->row = g_object_ref (row);
  self->expanded_handler = g_signal_connect (row, "notify::expanded", G_CALLBACK (on_expanded), self);
  kubus_row_cell_update (self);
}

void
kubus_row_cell_unbind (KubusRowCell *self)
{
  if (self->row != NULL)
    {
      g_clear_signal_handler (&self->expanded_handler, self->row);
      g_clear_object (&self->row);
    }
  self->pane = NULL;
}

void
kubus_row_cell_update (KubusRowCell *self)
{
  g_autoptr (KubusNodeRow) item = NULL;
  g_autofree char *text = NULL;
  gboolean expanded;
  guint match;

  if (self->row == NULL || self->pane == NULL)
    return;
  item = gtk_tree_list_row_get_item (self->row);
  if (item == NULL)
    return;
  expanded = gtk_tree_list_row_get_expanded (self->row);
  text = kubus_pane_model_format_value (self->pane, item, expanded);
  gtk_label_set_text (GTK_LABEL (self->value), text);
  gtk_label_set_text (GTK_LABEL (self->name), kubus_node_name (kubus_node_row_get_kind (item),
                                                               kubus_node_row_get_node (item)));
  /* Module names are file paths: the file name at the end is the part that tells them apart. */
  gtk_label_set_ellipsize (GTK_LABEL (self->name), kubus_node_row_get_kind (item) == KUBUS_NODE_MODULE
                                                   ? PANGO_ELLIPSIZE_MIDDLE : PANGO_ELLIPSIZE_END);
  self->has_color = kubus_pane_model_row_color (self->pane, item, expanded, &self->color,
                                                &self->negative);
  if (self->negative)
    gtk_widget_add_css_class (self->value, "kubus-negative");
  else
    gtk_widget_remove_css_class (self->value, "kubus-negative");
  if (kubus_pane_model_get_saved_added (self->pane))
    gtk_widget_add_css_class (self->value, "kubus-added");
  else
    gtk_widget_remove_css_class (self->value, "kubus-added");
  match = kubus_pane_model_match_state (self->pane, item);
  if (match == 1)
    gtk_widget_add_css_class (self->name, "kubus-match");
  else
    gtk_widget_remove_css_class (self->name, "kubus-match");
  if (match == 2 && !expanded)
    gtk_widget_add_css_class (self->name, "kubus-match-inside");
  else
    gtk_widget_remove_css_class (self->name, "kubus-match-inside");
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
