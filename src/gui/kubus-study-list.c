/* kubus-study-list.c — see kubus-study-list.h. */
#include <glib/gi18n.h>

#include "kubus-experiment-study.h"
#include "kubus-study-list.h"
#include "kubus-window-private.h"

static GtkWidget *
study_row (const KubusStudy *study)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  g_autofree char *name = g_path_get_basename (study->experiment);
  g_autofree char *report = g_build_filename (study->experiment, "analysis.cube", NULL);
  g_autofree char *detail = NULL;
  GtkWidget *title = gtk_label_new (name), *sub;

  gtk_widget_set_margin_start (row, 12);
  gtk_widget_set_margin_end (row, 12);
  gtk_widget_set_margin_top (row, 6);
  gtk_widget_set_margin_bottom (row, 6);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (title, "heading");
  gtk_widget_set_tooltip_text (title, study->experiment);
  if (study->simulation != NULL)
    {
      g_autofree char *sim = g_path_get_basename (study->simulation);
      g_autofree char *hyp = study->hypothesis ? g_path_get_basename (study->hypothesis) : NULL;
      /* Translators: a study: the hypothesis file and the folder of its simulation */
      detail = hyp ? g_strdup_printf (_("%s, simulated in %s"), hyp, sim) : g_strdup_printf (_("simulated in %s"), sim);
    }
  else
    detail = g_strdup (_("measured, no simulation yet"));
  sub = gtk_label_new (detail);
  gtk_label_set_xalign (GTK_LABEL (sub), 0);
  gtk_label_set_ellipsize (GTK_LABEL (sub), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (sub, "dim-label");
  gtk_box_append (GTK_BOX (text), title);
  gtk_box_append (GTK_BOX (text), sub);
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (row), text);

  if (g_file_test (report, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *uri = g_filename_to_uri (report, NULL, NULL);
      GtkWidget *b = gtk_button_new_with_mnemonic (_("_Report"));
      gtk_widget_set_valign (b, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (b, report);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (b), "app.open-uri");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (b), "s", uri);
      gtk_box_append (GTK_BOX (row), b);
    }
  else
    {
      GtkWidget *b = gtk_button_new_with_mnemonic (_("_Analyze"));
      gtk_widget_set_valign (b, GTK_ALIGN_CENTER);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (b), "app.analyze");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (b), "s", study->experiment);
      gtk_box_append (GTK_BOX (row), b);
    }
  if (study->simulation != NULL)
    {
      GtkWidget *b = gtk_button_new_with_mnemonic (_("_Comparison"));
      gtk_widget_set_valign (b, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (b, _("Original and simulated run side by side, and their difference"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (b), "app.compare");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (b), "(ss)", study->experiment, study->simulation);
      gtk_box_append (GTK_BOX (row), b);
    }
  return row;
}

static void
refill (GtkWidget *box)
{
  GtkListBox *list = g_object_get_data (G_OBJECT (box), "kubus-rows");
  g_autoptr (GPtrArray) studies = kubus_study_recent ();
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
  for (guint i = 0; i < studies->len; i++)
    gtk_list_box_append (list, study_row (studies->pdata[i]));
  gtk_widget_set_visible (box, studies->len > 0);
}

static void
on_settings_changed (GSettings  *settings,
                     const char *key,
                     GtkWidget  *box)
{
  (void) settings, (void) key;
  refill (box);
}

static void
refill_on_map (GtkWidget *box)
{
  /* Folders may have gone since: look again whenever the start screen shows. */
  refill (box);
}

GtkWidget *
kubus_study_list_new (void)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *heading = gtk_label_new (_("Recent Studies"));
  GtkWidget *list = gtk_list_box_new ();
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = source != NULL
    ? g_settings_schema_source_lookup (source, "org.kubus.Kubus", TRUE) : NULL;

  gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (box, 520, -1);
  gtk_widget_set_margin_top (box, 18);
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_add_css_class (heading, "heading");
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_widget_add_css_class (list, "frame");
  gtk_box_append (GTK_BOX (box), heading);
  gtk_box_append (GTK_BOX (box), list);
  g_object_set_data (G_OBJECT (box), "kubus-rows", list);
  if (schema != NULL && g_settings_schema_has_key (schema, "recent-studies"))
    {
      GSettings *settings = g_settings_new ("org.kubus.Kubus");
      g_signal_connect_object (settings, "changed::recent-studies", G_CALLBACK (on_settings_changed), box, 0);
      g_object_set_data_full (G_OBJECT (box), "kubus-settings", settings, g_object_unref);
    }
  g_signal_connect (box, "map", G_CALLBACK (refill_on_map), NULL);
  refill (box);
  return box;
}

void
kubus_study_list_attach (KubusWindow *window)
{
  GtkWidget *start = gtk_stack_get_child_by_name (GTK_STACK (window->stack), "empty");
  GtkWidget *list;

  g_return_if_fail (GTK_IS_BOX (start));
  if (g_object_get_data (G_OBJECT (window), "kubus-study-list") != NULL)
    return;
  list = kubus_study_list_new ();
  gtk_box_append (GTK_BOX (start), list);
  g_object_set_data (G_OBJECT (window), "kubus-study-list", list);
}

GtkListBox *
kubus_study_list_get_rows (KubusWindow *window)
{
  GtkWidget *box = g_object_get_data (G_OBJECT (window), "kubus-study-list");

  return box != NULL ? g_object_get_data (G_OBJECT (box), "kubus-rows") : NULL;
}
