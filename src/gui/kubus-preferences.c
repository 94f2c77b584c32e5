/* kubus-preferences.c — see kubus-preferences.h. */
#include <glib/gi18n.h>

#include "kubus-experiment-prefs.h"
#include "kubus-preferences.h"

/* Drop-down position ↔ string key (choices in the order of @data, NULL-terminated). */
static gboolean
choice_get (GValue   *value,
            GVariant *variant,
            gpointer  data)
{
  const char *const *choices = data;
  const char *s = g_variant_get_string (variant, NULL);

  for (guint i = 0; choices[i] != NULL; i++)
    if (g_str_equal (choices[i], s))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
choice_set (const GValue       *value,
            const GVariantType *type,
            gpointer            data)
{
  const char *const *choices = data;
  guint i = g_value_get_uint (value);

  (void) type;
  if (i >= g_strv_length ((char **) choices))
    return NULL;
  return g_variant_new_string (choices[i]);
}

static const char *const scale_keys[] = { "rainbow", "gray", NULL };
static const char *const format_keys[] = { "readable", "common-exponent", "scientific", NULL };

static void
add_row (GtkGrid    *grid,
         int         row,
         const char *label,
         const char *help,
         GtkWidget  *control)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (label);

  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), control);
  gtk_widget_set_hexpand (l, TRUE);
  gtk_widget_set_tooltip_text (l, help);
  gtk_widget_set_tooltip_text (control, help);
  gtk_widget_set_halign (control, GTK_ALIGN_END);
  gtk_grid_attach (grid, l, 0, row, 1, 1);
  gtk_grid_attach (grid, control, 1, row, 1, 1);
}

static GtkWidget *
choice_dropdown (GSettings         *settings,
                 const char        *key,
                 const char *const *labels,
                 const char *const *keys)
{
  GtkWidget *dropdown = gtk_drop_down_new_from_strings (labels);

  g_object_set_data (G_OBJECT (dropdown), "kubus-settings", settings);
  g_object_set_data (G_OBJECT (dropdown), "kubus-key", (gpointer) key);
  g_object_set_data (G_OBJECT (dropdown), "kubus-choices", (gpointer) keys);
  return dropdown;
}

/* As wide as its widest choice: the window kept changing its width with the choice shown
 * (issue 16, defect 10). Measured once the drop-down is in the window (styled). */
static void
fix_width (GtkWidget *dropdown)
{
  GListModel *items = gtk_drop_down_get_model (GTK_DROP_DOWN (dropdown));
  guint shown = gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown));
  int widest = 0;

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      int natural;

      gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), i);
      gtk_widget_measure (dropdown, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      widest = MAX (widest, natural);
    }
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), shown);
  gtk_widget_set_size_request (dropdown, widest, -1);
  /* Bound only now: trying each choice must not change the setting. */
  g_settings_bind_with_mapping (g_object_get_data (G_OBJECT (dropdown), "kubus-settings"),
                                g_object_get_data (G_OBJECT (dropdown), "kubus-key"), dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, choice_get, choice_set,
                                g_object_get_data (G_OBJECT (dropdown), "kubus-choices"), NULL);
}

static GtkWidget *
spin (GSettings  *settings,
      const char *key,
      double      max,
      double      step,
      guint       digits)
{
  GtkWidget *button = gtk_spin_button_new_with_range (0, max, step);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (button), digits);
  g_settings_bind (settings, key, button, "value", G_SETTINGS_BIND_DEFAULT);
  return button;
}

void
kubus_preferences_show (GtkWindow *parent)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = source != NULL
    ? g_settings_schema_source_lookup (source, "org.kubus.Kubus", TRUE) : NULL;
  g_autoptr (GSettings) settings = NULL;
  const char *scale_labels[] = { _("Rainbow (blue → red)"), _("Gray (for printing)"), NULL };
  const char *format_labels[] = { _("Every value in full"), _("Common exponent in the legend"),
                                  _("Scientific, per value"), NULL };
  GtkWidget *window, *grid, *scale_choice, *format_choice;

  if (schema == NULL)
    {
      GtkWidget *dialog = gtk_message_dialog_new (parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                                  GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s",
                                                  _("Preferences are not available"));
      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s",
                                                _("The settings schema org.kubus.Kubus is not installed. "
                                                  "Install Kubus (meson install) or set GSETTINGS_SCHEMA_DIR "
                                                  "to the build folder’s data directory."));
      g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
      gtk_window_present (GTK_WINDOW (dialog));
      return;
    }
  settings = g_settings_new ("org.kubus.Kubus");

  window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (window), _("Preferences"));
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (window), TRUE);
  gtk_window_set_resizable (GTK_WINDOW (window), FALSE);

  grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 12);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 24);
  gtk_widget_set_margin_start (grid, 24);
  gtk_widget_set_margin_end (grid, 24);
  gtk_widget_set_margin_top (grid, 24);
  gtk_widget_set_margin_bottom (grid, 24);
  add_row (GTK_GRID (grid), 0, _("_Colour scale"),
           _("Severity colours of the three trees. Differences always use the diverging blue/red scale."),
           scale_choice = choice_dropdown (settings, "color-scale", scale_labels, scale_keys));
  add_row (GTK_GRID (grid), 1, _("_Lighten values below (%)"),
           _("Squares of values below this share of the pane’s range are drawn pale."),
           spin (settings, "insignificant-threshold", 100, 0.1, 1));
  add_row (GTK_GRID (grid), 2, _("_Hide threshold (%)"),
           _("With “Hide Rows Below Threshold”, rows below this share of the pane’s range are hidden."),
           spin (settings, "hide-threshold", 100, 0.1, 1));
  add_row (GTK_GRID (grid), 3, _("_Number format"),
           _("How absolute values are written in the call and system trees."),
           format_choice = choice_dropdown (settings, "number-format", format_labels, format_keys));
  add_row (GTK_GRID (grid), 4, _("_Digits after the point"),
           _("Precision of every value shown."),
           spin (settings, "precision", 12, 1, 0));
  kubus_experiment_preferences_add (GTK_GRID (grid), settings, 5);
  gtk_window_set_child (GTK_WINDOW (window), grid);
  fix_width (scale_choice);
  fix_width (format_choice);
  {
    /* Escape and Ctrl+W close it, as every dialog (issue 16, defect 9). */
    GtkEventController *shortcuts = gtk_shortcut_controller_new ();
    GtkShortcutTrigger *trigger = gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                               gtk_keyval_trigger_new (GDK_KEY_w, GDK_CONTROL_MASK));

    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                          gtk_shortcut_new (trigger, gtk_named_action_new ("window.close")));
    gtk_widget_add_controller (window, shortcuts);
  }
  /* The bindings hold the settings object for as long as the widgets live. */
  gtk_window_present (GTK_WINDOW (window));
}
