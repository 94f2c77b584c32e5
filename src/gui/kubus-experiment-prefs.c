/* kubus-experiment-prefs.c — see kubus-experiment-prefs.h. */
#include <glib/gi18n.h>

#include "kubus-experiment-prefs.h"

static void
row (GtkGrid    *grid,
     int         at,
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
  gtk_grid_attach (grid, l, 0, at, 1, 1);
  gtk_grid_attach (grid, control, 1, at, 1, 1);
}

static GtkWidget *
entry (GSettings  *settings,
       const char *key,
       const char *placeholder)
{
  GtkWidget *e = gtk_entry_new ();

  gtk_entry_set_placeholder_text (GTK_ENTRY (e), placeholder);
  gtk_editable_set_width_chars (GTK_EDITABLE (e), 28);
  g_settings_bind (settings, key, e, "text", G_SETTINGS_BIND_DEFAULT);
  return e;
}

static GtkWidget *
spin (GSettings  *settings,
      const char *key,
      double      min,
      double      max)
{
  GtkWidget *s = gtk_spin_button_new_with_range (min, max, 1);

  gtk_widget_set_halign (s, GTK_ALIGN_END);
  g_settings_bind (settings, key, s, "value", G_SETTINGS_BIND_DEFAULT);
  return s;
}

int
kubus_experiment_preferences_add (GtkGrid   *grid,
                                  GSettings *settings,
                                  int        at)
{
  g_autoptr (GSettingsSchema) schema = NULL;
  GtkWidget *heading;
  g_autofree char *home = g_build_filename (g_get_home_dir (), "kubus-experiments", NULL);

  g_object_get (settings, "settings-schema", &schema, NULL);
  if (schema == NULL || !g_settings_schema_has_key (schema, "notify-after"))
    return at;
  heading = gtk_label_new (_("Experiments"));
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_add_css_class (heading, "heading");
  gtk_widget_set_margin_top (heading, 12);
  gtk_grid_attach (grid, heading, 0, at++, 2, 1);
  row (grid, at++, _("MPI _launcher"), _("The command that starts MPI programs, as on a command line"),
       entry (settings, "mpirun-command", "mpirun"));
  row (grid, at++, _("Launcher _options"), _("Options for every run, as on a command line, e.g. --oversubscribe"),
       entry (settings, "mpirun-options", ""));
  row (grid, at++, _("Default _ranks"), _("How many MPI processes a measurement starts"),
       spin (settings, "default-ranks", 1, 4096));
  row (grid, at++, _("Experiments _folder"), _("Where new experiment folders go"),
       entry (settings, "experiments-folder", home));
  row (grid, at++, _("_Notify after (s)"),
       _("A run at least this long sends a desktop notification when it ends while Kubus is in the background"),
       spin (settings, "notify-after", 0, 86400));
  return at;
}
