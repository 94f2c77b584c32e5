/* kubus-experiment-study.c — see kubus-experiment-study.h. */
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "kubus-experiment-study.h"

#include <sys/stat.h>

#define MAX_RECENT 8

KubusStudy *
kubus_study_new (const char *experiment,
                 const char *simulation,
                 const char *hypothesis)
{
  KubusStudy *s = g_new0 (KubusStudy, 1);

  s->experiment = g_strdup (experiment);
  s->simulation = simulation != NULL && *simulation != '\0' ? g_strdup (simulation) : NULL;
  s->hypothesis = hypothesis != NULL && *hypothesis != '\0' ? g_strdup (hypothesis) : NULL;
  return s;
}

void
kubus_study_free (KubusStudy *study)
{
  if (study == NULL)
    return;
  g_free (study->experiment);
  g_free (study->simulation);
  g_free (study->hypothesis);
  g_free (study);
}

static gboolean
has_file (const char *dir,
          const char *name)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  return g_file_test (p, G_FILE_TEST_IS_REGULAR);
}

static gboolean
is_experiment (const char *folder)
{
  return has_file (folder, "traces.otf2") || has_file (folder, "traces.kct");
}

gboolean
kubus_study_is_simulation (const char *folder)
{
  return has_file (folder, "analysis.cube") && has_file (folder, "difference.cube");
}

KubusStudy *
kubus_study_for_report (const char *report_path)
{
  g_autofree char *abs = g_canonicalize_filename (report_path, NULL);
  g_autofree char *dir = g_path_get_dirname (abs);
  g_autofree char *parent = g_path_get_dirname (dir);

  if (kubus_study_is_simulation (dir) && is_experiment (parent))
    return kubus_study_new (parent, dir, NULL);
  if (is_experiment (dir))
    return kubus_study_new (dir, NULL, NULL);
  return NULL;
}

static int
newest_first (gconstpointer a,
              gconstpointer b)
{
  const char *pa = *(const char *const *) a, *pb = *(const char *const *) b;
  GStatBuf sa = { 0 }, sb = { 0 };
  g_autofree char *ca = g_build_filename (pa, "analysis.cube", NULL);
  g_autofree char *cb = g_build_filename (pb, "analysis.cube", NULL);

  g_stat (ca, &sa);
  g_stat (cb, &sb);
  if (sa.st_mtime != sb.st_mtime)
    return sa.st_mtime < sb.st_mtime ? 1 : -1;
  return g_strcmp0 (pa, pb);
}

char **
kubus_study_simulations (const char *experiment)
{
  g_autoptr (GDir) dir = g_dir_open (experiment, 0, NULL);
  GPtrArray *out = g_ptr_array_new ();
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (experiment, name, NULL);
      if (name[0] != '.' && g_file_test (p, G_FILE_TEST_IS_DIR) && kubus_study_is_simulation (p))
        g_ptr_array_add (out, g_steal_pointer (&p));
    }
  g_ptr_array_sort (out, newest_first);
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static GSettings *
settings_or_null (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = source != NULL
    ? g_settings_schema_source_lookup (source, "org.kubus.Kubus", TRUE) : NULL;

  if (schema == NULL || !g_settings_schema_has_key (schema, "recent-studies"))
    return NULL;
  return g_settings_new ("org.kubus.Kubus");
}

void
kubus_study_remember (const KubusStudy *study)
{
  g_autoptr (GSettings) settings = settings_or_null ();
  g_autoptr (GVariant) old = NULL;
  GVariantBuilder b;
  GVariantIter iter;
  const char *e, *s, *h;
  guint n = 1;

  g_return_if_fail (study != NULL && study->experiment != NULL);
  if (settings == NULL)
    return;
  old = g_settings_get_value (settings, "recent-studies");
  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&b, "(sss)", study->experiment, study->simulation ? study->simulation : "",
                         study->hypothesis ? study->hypothesis : "");
  g_variant_iter_init (&iter, old);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &e, &s, &h) && n < MAX_RECENT)
    {
      /* one entry per experiment and simulation; the bare experiment goes once it has one */
      if (g_str_equal (e, study->experiment)
          && (g_str_equal (s, study->simulation ? study->simulation : "") || *s == '\0'))
        continue;
      g_variant_builder_add (&b, "(sss)", e, s, h);
      n++;
    }
  g_settings_set_value (settings, "recent-studies", g_variant_builder_end (&b));
}

GPtrArray *
kubus_study_recent (void)
{
  g_autoptr (GSettings) settings = settings_or_null ();
  g_autoptr (GVariant) list = NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) kubus_study_free);
  GVariantIter iter;
  const char *e, *s, *h;

  if (settings == NULL)
    return out;
  list = g_settings_get_value (settings, "recent-studies");
  g_variant_iter_init (&iter, list);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &e, &s, &h))
    if (g_file_test (e, G_FILE_TEST_IS_DIR))
      g_ptr_array_add (out, kubus_study_new (e, s != NULL && g_file_test (s, G_FILE_TEST_IS_DIR) ? s : NULL, h));
  return out;
}
