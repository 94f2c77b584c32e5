/* main.c — the kubus browser. */
#include <glib/gi18n.h>
#include <locale.h>

#include "kubus-application.h"
#include "kubus-program.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr (KubusApplication) app = NULL;
  int status;

  kubus_program_init ("kubus");
  {
    /* the settings schema of the prefix (or build tree) this program runs from, when the
     * default search (XDG_DATA_DIRS) would not find it */
    g_autofree char *schemas = kubus_program_find_data ("glib-2.0/schemas", "data");
    g_autofree char *compiled = schemas ? g_build_filename (schemas, "gschemas.compiled", NULL) : NULL;
    if (compiled && g_file_test (compiled, G_FILE_TEST_IS_REGULAR) && !g_getenv ("GSETTINGS_SCHEMA_DIR"))
      g_setenv ("GSETTINGS_SCHEMA_DIR", schemas, TRUE);
  }

  app = kubus_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status != 0 ? status : kubus_application_get_exit_status (app);
}
