/* kubus-row-cell.c — see kubus-row-cell.h. */
#include "kubus-node.h"
#include "kubus-row-cell.h"

struct _KubusRowCell
{
  GtkWidget       parent_instance;

  GtkWidget      *square;
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
draw_square (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        user_data)
{
  KubusRowCell *self = user_data;
  double s = MIN (width, height) - 2, x = (width - s) / 2.0, y = (height - s) / 2.0;

  (void) area;
  if (!self->has_color)
    {
      /* Exactly zero: an empty outline, no colour. */
      cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.5);
      cairo_set_line_width (cr, 1);
      cairo_rectangle (cr, x + 0.5, y + 0.5, s - 1, s - 1);
      cairo_stroke (cr);
      return;
    }
  gdk_cairo_set_source_rgba (cr, &self->color);
  cairo_rectangle (cr, x, y, s, s);
  cairo_fill (cr);

  /* Raised for positive, sunken with a minus bar for negative values: gains and losses differ
   * in shape too, not only in colour. */
  cairo_set_line_width (cr, 1.5);
  cairo_set_source_rgba (cr, 1, 1, 1, self->negative ? 0.0 : 0.8);
  if (!self->negative)
    {
      cairo_move_to (cr, x + 0.75, y + s);
      cairo_line_to (cr, x + 0.75, y + 0.75);
      cairo_line_to (cr, x + s, y + 0.75);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, 0, 0, 0, 0.45);
      cairo_move_to (cr, x + s - 0.75, y);
      cairo_line_to (cr, x + s - 0.75, y + s - 0.75);
      cairo_line_to (cr, x, y + s - 0.75);
      cairo_stroke (cr);
    }
  else
    {
      cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
      cairo_move_to (cr, x + 0.75, y + s);
      cairo_line_to (cr, x + 0.75, y + 0.75);
      cairo_line_to (cr, x + s, y + 0.75);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, 1, 1, 1, 0.95);
      cairo_set_line_width (cr, 2);
      cairo_move_to (cr, x + s * 0.25, y + s / 2);
      cairo_line_to (cr, x + s * 0.75, y + s / 2);
      cairo_stroke (cr);
    }
}

static void
kubus_row_cell_dispose (GObject *object)
{
  KubusRowCell *self = KUBUS_ROW_CELL (object);

  kubus_row_cell_unbind (self);
  g_clear_pointer (&self->square, gtk_widget_unparent);
  g_clear_pointer (&self->value, gtk_widget_unparent);
  g_clear_pointer (&self->name, gtk_widget_unparent);
  G_OBJECT_CLASS (kubus_row_cell_parent_class)->dispose (object);
}

static void
kubus_row_cell_class_init (KubusRowCellClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = kubus_row_cell_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "kubus-row");
}

static void
kubus_row_cell_init (KubusRowCell *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 6);

  self->square = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (self->square), 14);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->square), 14);
  gtk_widget_set_valign (self->square, GTK_ALIGN_CENTER);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->square), draw_square, self, NULL);
  gtk_widget_set_parent (self->square, GTK_WIDGET (self));

  self->value = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->value), 1.0);
  /* Room for "-1.234e-05": names stay aligned in the scientific format too. */
  gtk_label_set_width_chars (GTK_LABEL (self->value), 10);
  gtk_widget_add_css_class (self->value, "numeric");
  gtk_widget_add_css_class (self->value, "kubus-value");
  gtk_widget_set_parent (self->value, GTK_WIDGET (self));

  self->name = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->name), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (self->name), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->name, TRUE);
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
  self->has_color = kubus_pane_model_row_color (self->pane, item, expanded, &self->color,
                                                &self->negative);
  if (self->negative)
    gtk_widget_add_css_class (self->value, "kubus-negative");
  else
    gtk_widget_remove_css_class (self->value, "kubus-negative");
  match = kubus_pane_model_match_state (self->pane, item);
  if (match == 1)
    gtk_widget_add_css_class (self->name, "kubus-match");
  else
    gtk_widget_remove_css_class (self->name, "kubus-match");
  if (match == 2 && !expanded)
    gtk_widget_add_css_class (self->name, "kubus-match-inside");
  else
    gtk_widget_remove_css_class (self->name, "kubus-match-inside");
  gtk_widget_queue_draw (self->square);
}
