/* main.c — the kubus browser. */
#include <glib/gi18n.h>
#include <locale.h>

#include "kubus-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr (KubusApplication) app = NULL;
  int status;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = kubus_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status != 0 ? status : kubus_application_get_exit_status (app);
}
