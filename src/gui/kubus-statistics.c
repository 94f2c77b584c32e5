/* kubus-statistics.c — see kubus-statistics.h. */
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cube-stats.h"
#include "kubus-boxplot.h"
#include "kubus-statistics.h"
#include "kubus-pane-model-private.h"
#include "kubus-window-private.h"

enum { ROW_N, ROW_MIN, ROW_Q1, ROW_MEDIAN, ROW_MEAN, ROW_Q3, ROW_MAX, ROW_STDDEV, ROW_OUTLIERS, N_ROWS };

static const char *const row_names[N_ROWS] = {
  N_("Locations"), N_("Minimum"), N_("Lower quartile"), N_("Median"), N_("Mean"),
  N_("Upper quartile"), N_("Maximum"), N_("Standard deviation"), N_("Outliers (beyond 1.5 × IQR)"),
};

typedef struct
{
  KubusWindow  *window;     /* weak */
  KubusBrowser *browser;    /* the one connected to */
  GtkWidget    *dialog;
  GtkWidget    *title;
  GtkWidget    *values[N_ROWS];
  GtkWidget    *plot;
  CubeStats     stats;
  double       *data;       /* copy of the per-location values */
  guint         n;
  char         *unit;
} Statistics;

static void
disconnect_browser (Statistics *st)
{
  if (st->browser != NULL)
    g_signal_handlers_disconnect_by_data (st->browser, st);
  g_clear_object (&st->browser);
}

static void
statistics_free (gpointer data)
{
  Statistics *st = data;

  disconnect_browser (st);
  if (st->window != NULL)
    {
      g_signal_handlers_disconnect_by_data (st->window, st);
      kubus_window_remove_export_view (st->window, "statistics");
      g_object_set_data (G_OBJECT (st->window), "kubus-statistics", NULL);
    }
  g_clear_weak_pointer (&st->window);
  g_free (st->data);
  g_free (st->unit);
  g_free (st);
}

static void
draw_plot (GtkDrawingArea *area,
           cairo_t        *cr,
           int             width,
           int             height,
           gpointer        user_data)
{
  Statistics *st = user_data;

  (void) area;
  kubus_boxplot_draw (cr, width, height, &st->stats, st->data, st->n, st->unit);
}

/* The export of the box plot at any size: the selection above the plot. */
static void
render_export (cairo_t  *cr,
               int       width,
               int       height,
               gpointer  user_data)
{
  Statistics *st = user_data;
  PangoLayout *layout;
  int title_h = MIN (40, height / 6);

  cairo_save (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  layout = pango_cairo_create_layout (cr);
  pango_layout_set_text (layout, gtk_label_get_text (GTK_LABEL (st->title)), -1);
  pango_layout_set_width (layout, (width - 20) * PANGO_SCALE);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_move_to (cr, 10, 8);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
  cairo_translate (cr, 0, title_h);
  kubus_boxplot_draw (cr, width, height - title_h, &st->stats, st->data, st->n, st->unit);
  cairo_restore (cr);
}

static char *
number (double v)
{
  /* Readable and exact enough to compare locations: six significant digits. */
  return isfinite (v) ? g_strdup_printf ("%.6g", v) : g_strdup ("–");
}

static void
refresh (Statistics *st)
{
  KubusBrowser *browser = st->window != NULL ? kubus_window_get_browser (st->window) : NULL;
  const double *values;
  g_autofree char *title = NULL;
  guint n = 0;

  g_clear_pointer (&st->data, g_free);
  g_clear_pointer (&st->unit, g_free);
  st->n = 0;
  memset (&st->stats, 0, sizeof st->stats);
  if (browser == NULL)
    {
      gtk_label_set_text (GTK_LABEL (st->title), _("No report open"));
      for (guint i = 0; i < N_ROWS; i++)
        gtk_label_set_text (GTK_LABEL (st->values[i]), "–");
      gtk_widget_queue_draw (st->plot);
      return;
    }
  values = kubus_browser_get_location_values (browser, &n);
  st->data = n > 0 ? g_memdup2 (values, sizeof (double) * n) : NULL;
  st->n = n;
  st->unit = g_strdup (kubus_browser_get_pane (browser, KUBUS_PANE_SYSTEM)->unit);
  cube_stats_compute (st->data, st->n, &st->stats);
  title = kubus_browser_describe_selection (browser);
  gtk_label_set_text (GTK_LABEL (st->title), title);
  {
    g_autofree char *count = g_strdup_printf ("%u", st->stats.n);
    g_autofree char *outliers = g_strdup_printf ("%u", st->stats.n_outliers);
    const double figures[N_ROWS] = { 0, st->stats.min, st->stats.q1, st->stats.median, st->stats.mean,
                                     st->stats.q3, st->stats.max, st->stats.stddev, 0 };

    gtk_label_set_text (GTK_LABEL (st->values[ROW_N]), count);
    gtk_label_set_text (GTK_LABEL (st->values[ROW_OUTLIERS]), outliers);
    for (guint i = ROW_MIN; i <= ROW_STDDEV; i++)
      {
        g_autofree char *text = st->stats.n > 0 ? number (figures[i]) : g_strdup ("–");
        gtk_label_set_text (GTK_LABEL (st->values[i]), text);
      }
  }
  gtk_widget_queue_draw (st->plot);
}

static void
on_updated (KubusBrowser *browser,
            guint         from,
            gpointer      user_data)
{
  (void) browser, (void) from;
  refresh (user_data);
}

/* A reload or another report gives the window a new browser. */
static void
follow_browser (Statistics *st)
{
  KubusBrowser *browser = st->window != NULL ? kubus_window_get_browser (st->window) : NULL;

  if (browser != st->browser)
    {
      disconnect_browser (st);
      if (browser != NULL)
        {
          st->browser = g_object_ref (browser);
          g_signal_connect (browser, "updated", G_CALLBACK (on_updated), st);
        }
    }
  refresh (st);
}

static void
on_window_loaded (KubusWindow *window,
                  gpointer     user_data)
{
  (void) window;
  follow_browser (user_data);
}

GtkWidget *
kubus_statistics_show (KubusWindow *window)
{
  Statistics *st = g_object_get_data (G_OBJECT (window), "kubus-statistics");
  GtkWidget *box, *grid;

  if (st != NULL)
    {
      gtk_window_present (GTK_WINDOW (st->dialog));
      return st->dialog;
    }
  st = g_new0 (Statistics, 1);
  g_set_weak_pointer (&st->window, window);
  st->dialog = gtk_window_new ();
  g_object_set_data_full (G_OBJECT (st->dialog), "kubus-statistics", st, statistics_free);
  g_object_set_data (G_OBJECT (window), "kubus-statistics", st);
  gtk_window_set_title (GTK_WINDOW (st->dialog), _("Statistics across Locations"));
  gtk_window_set_transient_for (GTK_WINDOW (st->dialog), GTK_WINDOW (window));
  gtk_window_set_destroy_with_parent (GTK_WINDOW (st->dialog), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (st->dialog), 560, 420);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 18);
  gtk_widget_set_margin_bottom (box, 18);
  st->title = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (st->title), TRUE);
  gtk_label_set_xalign (GTK_LABEL (st->title), 0);
  gtk_widget_add_css_class (st->title, "heading");
  gtk_box_append (GTK_BOX (box), st->title);

  grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (grid), 24);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  for (guint i = 0; i < N_ROWS; i++)
    {
      GtkWidget *name = gtk_label_new (_(row_names[i]));

      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_widget_add_css_class (name, "dim-label");
      st->values[i] = gtk_label_new ("–");
      gtk_label_set_xalign (GTK_LABEL (st->values[i]), 1);
      gtk_widget_add_css_class (st->values[i], "numeric");
      gtk_grid_attach (GTK_GRID (grid), name, 0, i, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), st->values[i], 1, i, 1, 1);
    }
  gtk_box_append (GTK_BOX (box), grid);

  st->plot = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (st->plot), 140);
  gtk_widget_set_vexpand (st->plot, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (st->plot), draw_plot, st, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (st->plot), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Box plot of the values across locations"), -1);
  gtk_box_append (GTK_BOX (box), st->plot);
  gtk_window_set_child (GTK_WINDOW (st->dialog), box);
  {
    GtkEventController *shortcuts = gtk_shortcut_controller_new ();
    GtkShortcutTrigger *trigger = gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                               gtk_keyval_trigger_new (GDK_KEY_w, GDK_CONTROL_MASK));
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                          gtk_shortcut_new (trigger, gtk_named_action_new ("window.close")));
    gtk_widget_add_controller (st->dialog, shortcuts);
  }

  g_signal_connect (window, "loaded", G_CALLBACK (on_window_loaded), st);
  /* Offered by File › Export View… while open: vectors in SVG and PDF. */
  kubus_window_add_export_view (window, "statistics", _("Statistics (box plot)"), st->plot,
                                render_export, st, NULL);
  follow_browser (st);
  gtk_window_present (GTK_WINDOW (st->dialog));
  return st->dialog;
}

char *
kubus_statistics_text (GtkWidget *statistics)
{
  Statistics *st = g_object_get_data (G_OBJECT (statistics), "kubus-statistics");
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (st != NULL, NULL);
  g_string_append_printf (s, "%s\n", gtk_label_get_text (GTK_LABEL (st->title)));
  for (guint i = 0; i < N_ROWS; i++)
    g_string_append_printf (s, "%s: %s\n", _(row_names[i]), gtk_label_get_text (GTK_LABEL (st->values[i])));
  return g_string_free (s, FALSE);
}
