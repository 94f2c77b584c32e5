/* kubus-legend.c — see kubus-legend.h. */
#include "kubus-legend.h"
#include "kubus-pane-model-private.h"

struct _KubusLegend
{
  GtkWidget       parent_instance;
  GtkWidget      *low;
  GtkWidget      *bar;
  GtkWidget      *high;
  GtkWidget      *caption;
  gboolean        is_signed;
  KubusDiverging  diverging;
  KubusColorScale scale;
};

G_DEFINE_FINAL_TYPE (KubusLegend, kubus_legend, GTK_TYPE_WIDGET)

static void
draw_bar (GtkDrawingArea *area,
          cairo_t        *cr,
          int             width,
          int             height,
          gpointer        user_data)
{
  KubusLegend *self = user_data;

  (void) area;
  for (int x = 0; x < width; x++)
    {
      double t = width > 1 ? (double) x / (width - 1) : 0;
      GdkRGBA c;

      if (self->is_signed)
        t = 2 * t - 1;   /* −1 … +1 */
      if (!kubus_severity_color_full (self->scale, self->diverging, t == 0 ? 1e-9 : t, FALSE, &c))
        continue;
      gdk_cairo_set_source_rgba (cr, &c);
      cairo_rectangle (cr, x, 2, 1, height - 4);
      cairo_fill (cr);
    }
}

static void
kubus_legend_dispose (GObject *object)
{
  KubusLegend *self = KUBUS_LEGEND (object);

  g_clear_pointer (&self->low, gtk_widget_unparent);
  g_clear_pointer (&self->bar, gtk_widget_unparent);
  g_clear_pointer (&self->high, gtk_widget_unparent);
  g_clear_pointer (&self->caption, gtk_widget_unparent);
  G_OBJECT_CLASS (kubus_legend_parent_class)->dispose (object);
}

static void
kubus_legend_class_init (KubusLegendClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = kubus_legend_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "kubus-legend");
}

static GtkWidget *
small_label (KubusLegend *self)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "numeric");
  gtk_widget_set_parent (label, GTK_WIDGET (self));
  return label;
}

static void
kubus_legend_init (KubusLegend *self)
{
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self))), 6);
  self->low = small_label (self);
  self->bar = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->bar), 14);
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (self->bar), 80);
  gtk_widget_set_hexpand (self->bar, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->bar), draw_bar, self, NULL);
  gtk_widget_set_parent (self->bar, GTK_WIDGET (self));
  self->high = small_label (self);
  self->caption = small_label (self);
  gtk_widget_add_css_class (self->caption, "dim-label");
  gtk_label_set_ellipsize (GTK_LABEL (self->caption), PANGO_ELLIPSIZE_END);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 6);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 6);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 3);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 3);
}

GtkWidget *
kubus_legend_new (void)
{
  return g_object_new (KUBUS_TYPE_LEGEND, NULL);
}

void
kubus_legend_update (KubusLegend    *self,
                     KubusPaneModel *pane)
{
  KubusLegendInfo info = { 0 };

  kubus_pane_model_get_legend (pane, &info);
  self->is_signed = info.is_signed;
  self->diverging = !info.is_signed ? KUBUS_DIVERGING_NONE
                    : kubus_pane_model_get_saved_added (pane) ? KUBUS_DIVERGING_SAVED_ADDED
                    : KUBUS_DIVERGING_DIFFERENCE;
  self->scale = pane->scale;
  if (info.low_word != NULL && info.high_word != NULL)
    {
      /* "added −0.38 … +0.38 saved": the ends in words, not only a sign */
      g_autofree char *lo = g_strdup_printf ("%s %s", info.low_word, info.low);
      g_autofree char *hi = g_strdup_printf ("%s %s", info.high, info.high_word);
      gtk_label_set_text (GTK_LABEL (self->low), lo);
      gtk_label_set_text (GTK_LABEL (self->high), hi);
    }
  else
    {
      gtk_label_set_text (GTK_LABEL (self->low), info.low);
      gtk_label_set_text (GTK_LABEL (self->high), info.high);
    }
  gtk_label_set_text (GTK_LABEL (self->caption), info.caption);
  /* What the colours mean, and the exact ends of the scale. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), info.tooltip);
  gtk_widget_queue_draw (self->bar);
  kubus_legend_info_clear (&info);
}
