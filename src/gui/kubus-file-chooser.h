/* kubus-file-chooser.h — "choose a CUBE report" with GtkFileChooserNative (GTK 4.8 has no
 * GtkFileDialog). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef void (*KubusFileChosen) (GFile *file, gpointer user_data);

/* Calls @chosen with the file (borrowed) unless the user cancels. */
void kubus_choose_report (GtkWindow       *parent,
                          const char      *title,
                          KubusFileChosen  chosen,
                          gpointer         user_data);

/* Asks where to save, starting with @suggested_name in the current folder; calls @chosen
 * with the file unless the user cancels (the chooser asks before overwriting). */
void kubus_choose_save_file (GtkWindow       *parent,
                             const char      *title,
                             const char      *suggested_name,
                             KubusFileChosen  chosen,
                             gpointer         user_data);

G_END_DECLS
