/* main.c — the kubus browser. */
#include <glib/gi18n.h>
#include <locale.h>

#include "kubus-application.h"
#include "kubus-loader.h"

/* Reports named on the command line start loading before GTK is up, so that start-up and the
 * window overlap with the read (kubus-loader.c claims the result). Only plain arguments that
 * name an existing report file: an unclaimed prefetch is never freed. */
static void
prefetch_reports (int   argc,
                  char *argv[])
{
  gboolean options = TRUE;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];

      if (options && g_str_equal (a, "--"))
        {
          options = FALSE;
          continue;
        }
      if ((options && a[0] == '-')
          || !(g_str_has_suffix (a, ".cube") || g_str_has_suffix (a, ".cube.gz")
               || g_str_has_suffix (a, ".cubex"))
          || !g_file_test (a, G_FILE_TEST_IS_REGULAR))
        continue;
      kubus_load_prefetch (a);
    }
}

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

  prefetch_reports (argc, argv);
  app = kubus_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status != 0 ? status : kubus_application_get_exit_status (app);
}
