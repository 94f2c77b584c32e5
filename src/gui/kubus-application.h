/* kubus-application.h — the kubus GtkApplication: command line, app actions, accelerators. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define KUBUS_TYPE_APPLICATION (kubus_application_get_type ())
G_DECLARE_FINAL_TYPE (KubusApplication, kubus_application, KUBUS, APPLICATION, GtkApplication)

KubusApplication *kubus_application_new             (void);
/* Exit status decided after the main loop (screenshot mode), or 0. */
int               kubus_application_get_exit_status (KubusApplication *self);

G_END_DECLS
