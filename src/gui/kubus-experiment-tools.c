/* kubus-experiment-tools.c — see kubus-experiment-tools.h. */
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "kubus-experiment-tools.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- preferences ------------------------------------------------------------------------------ */

static GSettings *
settings_or_null (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = source != NULL
    ? g_settings_schema_source_lookup (source, "org.kubus.Kubus", TRUE) : NULL;

  if (schema == NULL || !g_settings_schema_has_key (schema, "mpirun-command"))
    return NULL;
  return g_settings_new ("org.kubus.Kubus");
}

void
kubus_tool_prefs_load (KubusToolPrefs *prefs)
{
  g_autoptr (GSettings) settings = settings_or_null ();

  memset (prefs, 0, sizeof *prefs);
  if (settings != NULL)
    {
      prefs->mpirun_command = g_settings_get_string (settings, "mpirun-command");
      prefs->mpirun_options = g_settings_get_string (settings, "mpirun-options");
      prefs->default_ranks = g_settings_get_int (settings, "default-ranks");
      prefs->experiments_folder = g_settings_get_string (settings, "experiments-folder");
    }
  if (prefs->mpirun_command == NULL || *g_strstrip (prefs->mpirun_command) == '\0')
    {
      g_free (prefs->mpirun_command);
      prefs->mpirun_command = g_strdup ("mpirun");
    }
  if (prefs->mpirun_options == NULL)
    prefs->mpirun_options = g_strdup ("--oversubscribe");
  if (prefs->default_ranks <= 0)
    prefs->default_ranks = 4;
  if (prefs->experiments_folder != NULL
      && (g_str_equal (prefs->experiments_folder, "~") || g_str_has_prefix (prefs->experiments_folder, "~/")))
    {
      /* written as in a shell */
      char *home = g_build_filename (g_get_home_dir (), prefs->experiments_folder + 1, NULL);
      g_free (prefs->experiments_folder);
      prefs->experiments_folder = home;
    }
  if (prefs->experiments_folder == NULL || *prefs->experiments_folder == '\0')
    {
      g_free (prefs->experiments_folder);
      prefs->experiments_folder = g_build_filename (g_get_home_dir (), "kubus-experiments", NULL);
    }
}

void
kubus_tool_prefs_clear (KubusToolPrefs *prefs)
{
  g_clear_pointer (&prefs->mpirun_command, g_free);
  g_clear_pointer (&prefs->mpirun_options, g_free);
  g_clear_pointer (&prefs->experiments_folder, g_free);
}

/* ---- finding the tools ------------------------------------------------------------------------- */

char *
kubus_tool_find (const char  *name,
                 GError     **error)
{
  g_autofree char *var = NULL, *exe = NULL;
  const char *env;

  g_return_val_if_fail (g_str_has_prefix (name, "kubus-"), NULL);
  /* kubus-analyze → KUBUS_ANALYZE_PROGRAM */
  {
    g_autofree char *up = g_ascii_strup (name, -1);
    g_strdelimit (up, "-", '_');
    var = g_strdup_printf ("%s_PROGRAM", up);
  }
  env = g_getenv (var);
  if (env != NULL && *env != '\0')
    return g_strdup (env);

  exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);
      /* installed: one bindir; build tree: src/gui/kubus, src/collect/kubus-run, src/core/… */
      const char *const sub[] = { ".", "../collect", "../core" };

      for (guint i = 0; i < G_N_ELEMENTS (sub); i++)
        {
          g_autofree char *p = g_build_filename (dir, sub[i], name, NULL);
          if (g_file_test (p, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (p, G_FILE_TEST_IS_DIR))
            return g_canonicalize_filename (p, NULL);
        }
    }
  {
    char *found = g_find_program_in_path (name);
    if (found != NULL)
      return found;
  }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("%s was not found next to kubus or in PATH. Install Kubus with MPI support, or set %s "
                 "to the program."), name, var);
  return NULL;
}

/* ---- measure ----------------------------------------------------------------------------------- */

void
kubus_measure_params_clear (KubusMeasureParams *params)
{
  g_clear_pointer (&params->executable, g_free);
  g_clear_pointer (&params->arguments, g_strfreev);
  g_clear_pointer (&params->mpirun_options, g_strfreev);
  g_clear_pointer (&params->folder, g_free);
  g_clear_pointer (&params->working_folder, g_free);
}

gboolean
kubus_measure_params_parse (GVariant            *parameter,
                            KubusMeasureParams  *params,
                            GError             **error)
{
  g_autoptr (GVariantDict) dict = NULL;
  static const struct { const char *key; const char *type; } known[] = {
    { "executable", "s" }, { "arguments", "as" }, { "ranks", "i" }, { "mpirun-options", "as" },
    { "folder", "s" }, { "working-folder", "s" }, { "analyze", "b" }, { "replace", "b" },
  };
  GVariantIter iter;
  const char *key;
  GVariant *value;

  memset (params, 0, sizeof *params);
  g_return_val_if_fail (g_variant_is_of_type (parameter, G_VARIANT_TYPE_VARDICT), FALSE);

  /* A misspelt key or a wrong type is an error, not a silent default. */
  g_variant_iter_init (&iter, parameter);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
      guint i;
      for (i = 0; i < G_N_ELEMENTS (known); i++)
        if (g_str_equal (key, known[i].key))
          break;
      if (i == G_N_ELEMENTS (known))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("measure: unknown parameter “%s” (known: executable, arguments, ranks, "
                         "mpirun-options, folder, working-folder, analyze, replace)"), key);
          return FALSE;
        }
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE (known[i].type)))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("measure: parameter “%s” must have type %s, not %s"), key, known[i].type,
                       g_variant_get_type_string (value));
          return FALSE;
        }
    }

  dict = g_variant_dict_new (parameter);
  g_variant_dict_lookup (dict, "executable", "s", &params->executable);
  g_variant_dict_lookup (dict, "arguments", "^as", &params->arguments);
  g_variant_dict_lookup (dict, "ranks", "i", &params->ranks);
  g_variant_dict_lookup (dict, "mpirun-options", "^as", &params->mpirun_options);
  g_variant_dict_lookup (dict, "folder", "s", &params->folder);
  g_variant_dict_lookup (dict, "working-folder", "s", &params->working_folder);
  g_variant_dict_lookup (dict, "analyze", "b", &params->analyze);
  g_variant_dict_lookup (dict, "replace", "b", &params->replace);
  if (params->arguments == NULL)
    params->arguments = g_new0 (char *, 1);
  if (params->mpirun_options == NULL)
    params->mpirun_options = g_new0 (char *, 1);
  if (params->executable == NULL || *params->executable == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("measure: no executable given"));
      kubus_measure_params_clear (params);
      return FALSE;
    }
  if (params->ranks < 0 || params->ranks > 1 << 20)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("measure: %d is not a number of ranks"), params->ranks);
      kubus_measure_params_clear (params);
      return FALSE;
    }
  return TRUE;
}

GVariant *
kubus_measure_params_build (const KubusMeasureParams *params)
{
  GVariantBuilder b;
  const char *const empty[] = { NULL };

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "executable", g_variant_new_string (params->executable ? params->executable : ""));
  g_variant_builder_add (&b, "{sv}", "arguments",
                         g_variant_new_strv (params->arguments ? (const char *const *) params->arguments : empty, -1));
  g_variant_builder_add (&b, "{sv}", "ranks", g_variant_new_int32 (params->ranks));
  g_variant_builder_add (&b, "{sv}", "mpirun-options",
                         g_variant_new_strv (params->mpirun_options ? (const char *const *) params->mpirun_options : empty, -1));
  if (params->folder != NULL)
    g_variant_builder_add (&b, "{sv}", "folder", g_variant_new_string (params->folder));
  if (params->working_folder != NULL)
    g_variant_builder_add (&b, "{sv}", "working-folder", g_variant_new_string (params->working_folder));
  g_variant_builder_add (&b, "{sv}", "analyze", g_variant_new_boolean (params->analyze));
  g_variant_builder_add (&b, "{sv}", "replace", g_variant_new_boolean (params->replace));
  return g_variant_builder_end (&b);
}

char *
kubus_measure_default_folder (const char *dir,
                              const char *executable,
                              int         ranks)
{
  g_autofree char *base = g_path_get_basename (executable);
  g_autofree char *name = g_strdup_printf ("kubus_%s_%d", base, ranks);
  char *path = g_build_filename (dir, name, NULL);

  for (int i = 2; g_file_test (path, G_FILE_TEST_EXISTS) && i < 10000; i++)
    {
      g_autofree char *n = g_strdup_printf ("%s-%d", name, i);
      g_free (path);
      path = g_build_filename (dir, n, NULL);
    }
  return path;
}

static gboolean
append_command_line (GPtrArray   *args,
                     const char  *line,
                     const char  *what,
                     GError     **error)
{
  g_auto (GStrv) v = NULL;
  g_autoptr (GError) local = NULL;

  if (line == NULL || *line == '\0')
    return TRUE;
  /* g_shell_parse_argv fails on a blank line; that means nothing here */
  for (const char *p = line; ; p++)
    {
      if (*p == '\0')
        return TRUE;
      if (!g_ascii_isspace (*p))
        break;
    }
  if (!g_shell_parse_argv (line, NULL, &v, &local))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: “%s” is not a command line: %s (see Preferences)"), what, line, local->message);
      return FALSE;
    }
  for (guint i = 0; v[i] != NULL; i++)
    g_ptr_array_add (args, g_strdup (v[i]));
  return TRUE;
}

char **
kubus_measure_argv (const char               *tool,
                    const KubusToolPrefs     *prefs,
                    const KubusMeasureParams *params,
                    int                       ranks,
                    const char               *tmp_folder,
                    GError                  **error)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (args, g_strdup (tool));
  g_ptr_array_add (args, g_strdup ("-o"));
  g_ptr_array_add (args, g_strdup (tmp_folder));
  g_ptr_array_add (args, g_strdup ("--force"));
  g_ptr_array_add (args, g_strdup ("--"));
  if (!append_command_line (args, prefs->mpirun_command, _("MPI launcher"), error)
      || !append_command_line (args, prefs->mpirun_options, _("Launcher options"), error))
    return NULL;
  for (guint i = 0; params->mpirun_options != NULL && params->mpirun_options[i] != NULL; i++)
    g_ptr_array_add (args, g_strdup (params->mpirun_options[i]));
  g_ptr_array_add (args, g_strdup ("-n"));
  g_ptr_array_add (args, g_strdup_printf ("%d", ranks));
  g_ptr_array_add (args, g_strdup (params->executable));
  for (guint i = 0; params->arguments != NULL && params->arguments[i] != NULL; i++)
    g_ptr_array_add (args, g_strdup (params->arguments[i]));
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&args), FALSE);
}

/* ---- analyze and simulate ----------------------------------------------------------------------- */

char *
kubus_tool_launcher_line (const KubusToolPrefs *prefs,
                          GError              **error)
{
  g_autoptr (GPtrArray) check = g_ptr_array_new_with_free_func (g_free);

  if (!append_command_line (check, prefs->mpirun_command, _("MPI launcher"), error)
      || !append_command_line (check, prefs->mpirun_options, _("Launcher options"), error))
    return NULL;
  /* Both are command-line fragments: joined with a blank they parse as the two did. */
  if (prefs->mpirun_options == NULL || *prefs->mpirun_options == '\0')
    return g_strdup (prefs->mpirun_command);
  return g_strdup_printf ("%s %s", prefs->mpirun_command, prefs->mpirun_options);
}

char *
kubus_analyze_report_path (const char *input)
{
  if (g_file_test (input, G_FILE_TEST_IS_DIR))
    return g_build_filename (input, "analysis.cube", NULL);
  if (g_str_has_suffix (input, ".otf2"))
    return g_strdup_printf ("%.*s.cube", (int) (strlen (input) - 5), input);
  if (g_str_has_suffix (input, ".kct"))
    return g_strdup_printf ("%.*s.cube", (int) (strlen (input) - 4), input);
  return g_strdup_printf ("%s.cube", input);
}

char **
kubus_analyze_argv (const char           *tool,
                    const KubusToolPrefs *prefs,
                    const char           *input,
                    GError              **error)
{
  g_autofree char *line = kubus_tool_launcher_line (prefs, error);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  if (line == NULL)
    return NULL;
  g_ptr_array_add (args, g_strdup (tool));
  g_ptr_array_add (args, g_strdup ("--mpirun"));
  g_ptr_array_add (args, g_steal_pointer (&line));
  if (!g_file_test (input, G_FILE_TEST_IS_DIR))
    {
      /* for an anchor, the report goes next to it (kubus-analyze's default is the current folder) */
      g_ptr_array_add (args, g_strdup ("-o"));
      g_ptr_array_add (args, kubus_analyze_report_path (input));
    }
  /* "--": a name that starts with "-" is a name, not an option */
  g_ptr_array_add (args, g_strdup ("--"));
  g_ptr_array_add (args, g_strdup (input));
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&args), FALSE);
}

char *
kubus_simulate_default_output (const char *experiment,
                               const char *hypothesis)
{
  g_autofree char *base = g_path_get_basename (hypothesis);
  g_autofree char *name = NULL;
  char *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  name = g_strdup_printf ("sim-%s", base);
  return g_build_filename (experiment, name, NULL);
}

char **
kubus_simulate_argv (const char           *tool,
                     const KubusToolPrefs *prefs,
                     const char           *experiment,
                     const char           *hypothesis,
                     const char           *output,
                     GError              **error)
{
  g_autofree char *line = kubus_tool_launcher_line (prefs, error);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  if (line == NULL)
    return NULL;
  g_ptr_array_add (args, g_strdup (tool));
  g_ptr_array_add (args, g_strdup ("--hypothesis"));
  g_ptr_array_add (args, g_strdup (hypothesis));
  g_ptr_array_add (args, g_strdup ("-o"));
  g_ptr_array_add (args, g_strdup (output));
  g_ptr_array_add (args, g_strdup ("--mpirun"));
  g_ptr_array_add (args, g_steal_pointer (&line));
  /* not after "--": for kubus-sim (as for kubus-run) what follows "--" is the launcher; a
   * name that starts with "-" becomes "./-…" so that it stays a name */
  g_ptr_array_add (args, experiment[0] == '-' ? g_strconcat ("./", experiment, NULL) : g_strdup (experiment));
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&args), FALSE);
}

char *
kubus_compare_report_path (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return g_build_filename (path, "analysis.cube", NULL);
  return g_strdup (path);
}

/* ---- folders ------------------------------------------------------------------------------------- */

gboolean
kubus_tool_remove_tree (const char  *path,
                        GError     **error)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return errno == ENOENT ? TRUE : (g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                                                  _("Cannot remove %s: %s"), path, g_strerror (errno)), FALSE);
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, error);
      const char *name;

      if (dir == NULL)
        return FALSE;
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          if (!kubus_tool_remove_tree (child, error))
            return FALSE;
        }
      if (g_rmdir (path) != 0)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), _("Cannot remove %s: %s"), path,
                       g_strerror (errno));
          return FALSE;
        }
      return TRUE;
    }
  if (g_unlink (path) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), _("Cannot remove %s: %s"), path,
                   g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

gboolean
kubus_tool_move_folder (const char  *from,
                        const char  *to,
                        gboolean     replace,
                        GError     **error)
{
  /* renameat2 (RENAME_NOREPLACE) never replaces; RENAME_EXCHANGE swaps the two folders in one
   * step, so the experiment is the old one or the new one, never neither. */
  if (renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return TRUE;
  if (errno == EEXIST && replace && g_file_test (to, G_FILE_TEST_IS_DIR))
    {
      if (renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0)
        return kubus_tool_remove_tree (from, error);   /* now the old folder */
    }
  else if (errno == EINVAL)
    {
      /* a file system without renameat2 flags */
      if (!g_file_test (to, G_FILE_TEST_EXISTS) && g_rename (from, to) == 0)
        return TRUE;
    }
  if (errno == EEXIST || errno == ENOTEMPTY)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                 _("%s exists already: choose another folder or replace it."), to);
  else
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), _("Cannot move %s to %s: %s"), from, to,
                 g_strerror (errno));
  return FALSE;
}

gboolean
kubus_experiment_has_trace (const char *folder)
{
  g_autofree char *otf2 = g_build_filename (folder, "traces.otf2", NULL);
  g_autofree char *kct = g_build_filename (folder, "traces.kct", NULL);
  return g_file_test (otf2, G_FILE_TEST_IS_REGULAR) || g_file_test (kct, G_FILE_TEST_IS_REGULAR);
}
