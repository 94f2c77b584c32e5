/* kubus-file-chooser.c — see kubus-file-chooser.h. */
#include <glib/gi18n.h>

#include "kubus-file-chooser.h"

typedef struct
{
  KubusFileChosen chosen;
  gpointer        user_data;
} Pending;

static void
on_response (GtkNativeDialog *native,
             int              response,
             gpointer         data)
{
  Pending *pending = data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      if (file != NULL)
        pending->chosen (file, pending->user_data);
    }
  g_free (pending);
  g_object_unref (native);
}

void
kubus_choose_report (GtkWindow       *parent,
                     const char      *title,
                     KubusFileChosen  chosen,
                     gpointer         user_data)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new (title, parent,
                                                              GTK_FILE_CHOOSER_ACTION_OPEN,
                                                              _("_Open"), _("_Cancel"));
  GtkFileFilter *reports = gtk_file_filter_new ();
  GtkFileFilter *all = gtk_file_filter_new ();
  Pending *pending = g_new0 (Pending, 1);

  gtk_file_filter_set_name (reports, _("CUBE reports (.cube, .cube.gz, .cubex)"));
  gtk_file_filter_add_pattern (reports, "*.cube");
  gtk_file_filter_add_pattern (reports, "*.cube.gz");
  gtk_file_filter_add_pattern (reports, "*.cubex");
  gtk_file_filter_add_mime_type (reports, "application/x-cube");
  gtk_file_filter_add_mime_type (reports, "application/x-cube-compressed");
  gtk_file_filter_add_mime_type (reports, "application/x-cubex");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), reports);
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), all);
  g_object_unref (reports);
  g_object_unref (all);

  pending->chosen = chosen;
  pending->user_data = user_data;
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (on_response), pending);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

void
kubus_choose_save_file (GtkWindow       *parent,
                        const char      *title,
                        const char      *suggested_name,
                        KubusFileChosen  chosen,
                        gpointer         user_data)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new (title, parent,
                                                              GTK_FILE_CHOOSER_ACTION_SAVE,
                                                              _("_Save"), _("_Cancel"));
  Pending *pending = g_new0 (Pending, 1);

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), suggested_name);
  pending->chosen = chosen;
  pending->user_data = user_data;
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (on_response), pending);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}
