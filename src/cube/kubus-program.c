/* kubus-program.c — locale, catalogue, name and --version of every Kubus program (see
 * kubus-program.h).
 *
 * The catalogue is looked up from /proc/self/exe rather than only in the configured LOCALEDIR:
 * a program in the build tree (scripts/demo runs them there) has never been installed, and an
 * installed prefix may have been staged with DESTDIR or moved. KUBUS_PREFIX_FROM_BINDIR ("../"
 * for bin) and the prefix-relative KUBUS_LOCALEDIR_REL and KUBUS_DATADIR_REL come from meson;
 * they are empty when the configured folders are absolute (no relocation then). */
#include "kubus-program.h"

#include <glib/gi18n.h>
#include <libintl.h>
#include <locale.h>

static const char *program_name = "kubus";
static char *localedir;

const char *
kubus_program_name (void)
{
  return program_name;
}

static char *
exe_dir (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  return self ? g_path_get_dirname (self) : NULL;
}

/* The folder @rel under the prefix this program is installed in, if that folder exists. */
static char *
installed_dir (const char *rel)
{
  g_autofree char *dir = exe_dir ();
  g_autofree char *path = NULL;

  if (!dir || !rel[0] || !KUBUS_PREFIX_FROM_BINDIR[0])
    return NULL;
  path = g_build_filename (dir, KUBUS_PREFIX_FROM_BINDIR, rel, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return NULL;
  return g_canonicalize_filename (path, NULL);
}

/* The meson build folder this program was built in, when it runs from there: the nearest
 * folder above it with meson-private/ (programs sit at most a few levels deep). */
static char *
build_root (void)
{
  g_autofree char *dir = exe_dir ();

  for (int up = 0; dir && up < 4; up++)
    {
      g_autofree char *marker = g_build_filename (dir, "meson-private", "coredata.dat", NULL);
      char *parent;
      if (g_file_test (marker, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&dir);
      parent = g_path_get_dirname (dir);
      if (g_str_equal (parent, dir))
        {
          g_free (parent);
          break;
        }
      g_free (dir);
      dir = parent;
    }
  return NULL;
}

static char *
build_dir (const char *rel)
{
  g_autofree char *root = build_root ();
  g_autofree char *path = root ? g_build_filename (root, rel, NULL) : NULL;

  return path && g_file_test (path, G_FILE_TEST_IS_DIR) ? g_steal_pointer (&path) : NULL;
}

const char *
kubus_program_localedir (void)
{
  if (!localedir)
    {
      localedir = installed_dir (KUBUS_LOCALEDIR_REL);
      if (!localedir)
        localedir = build_dir ("po");
      if (!localedir)
        localedir = g_strdup (LOCALEDIR);
    }
  return localedir;
}

char *
kubus_program_find_data (const char *installed,
                         const char *in_build)
{
  char *path = NULL;

  if (installed && KUBUS_DATADIR_REL[0])
    {
      g_autofree char *rel = g_build_filename (KUBUS_DATADIR_REL, installed, NULL);
      path = installed_dir (rel);
    }
  if (!path && in_build)
    path = build_dir (in_build);
  return path;
}

void
kubus_program_init (const char *name)
{
  g_return_if_fail (name != NULL);

  program_name = name;
  g_set_prgname (name);
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, kubus_program_localedir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

int
kubus_program_print_version (void)
{
  /* one format for every program, like GNU's "ls (GNU coreutils) 9.1" */
  printf ("%s (Kubus) %s\n", program_name, KUBUS_VERSION);
  fflush (stdout);
  return 0;
}

const GOptionEntry *
kubus_program_option_entries (gboolean *version)
{
  static GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version and exit"), NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };

  entries[0].arg_data = version;
  return entries;
}

void
kubus_program_print_common_options (FILE *out)
{
  fprintf (out, "%s", _("  -h, --help      Show this help and exit\n"
                        "  --version       Show the version and exit\n"));
}
