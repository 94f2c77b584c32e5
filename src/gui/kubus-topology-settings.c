/* kubus-topology-settings.c — see kubus-topology-settings.h. */
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "kubus-topology-settings.h"

static const char *const stacking_names[TOPO_N_STACKINGS] = { "z", "y", "x" };
static const char *const line_names[TOPO_N_LINE_STYLES] = { "black", "grey", "white", "none" };

char *
kubus_topology_settings_path (void)
{
  return g_build_filename (g_get_user_state_dir (), "kubus", "topology-views.ini", NULL);
}

/* Key file groups may not hold "[" or "]": the path goes in escaped. */
static char *
group_name (const char *report_path,
            guint       topology)
{
  g_autofree char *escaped = g_uri_escape_string (report_path, "/", TRUE);

  return g_strdup_printf ("%s#%u", escaped, topology);
}

static int
name_index (const char        *value,
            const char *const *names,
            int                n)
{
  for (int i = 0; value != NULL && i < n; i++)
    if (strcmp (value, names[i]) == 0)
      return i;
  return -1;
}

static double
get_double (GKeyFile   *file,
            const char *group,
            const char *key,
            double      fallback,
            double      lo,
            double      hi)
{
  g_autoptr (GError) error = NULL;
  double v = g_key_file_get_double (file, group, key, &error);

  if (error != NULL || !(v >= lo && v <= hi))
    return fallback;
  return v;
}

gboolean
kubus_topology_settings_load (const char    *report_path,
                              guint          topology,
                              TopoSettings  *settings,
                              char         **layout)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *path = kubus_topology_settings_path ();
  g_autofree char *group = group_name (report_path, topology);
  g_autofree char *stacking = NULL, *lines = NULL;
  TopoCamera *cam = &settings->camera;
  int i;

  *layout = NULL;
  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL)
      || !g_key_file_has_group (file, group))
    return FALSE;
  /* Anything missing or out of range keeps its current value. */
  cam->yaw = get_double (file, group, "yaw", cam->yaw, -1e6, 1e6);
  cam->pitch = get_double (file, group, "pitch", cam->pitch, -90, 90);
  cam->zoom = get_double (file, group, "zoom", cam->zoom, 0.05, 200);
  cam->distance = get_double (file, group, "distance", cam->distance, 0, 4);
  cam->pan_x = get_double (file, group, "pan-x", cam->pan_x, -1e6, 1e6);
  cam->pan_y = get_double (file, group, "pan-y", cam->pan_y, -1e6, 1e6);
  stacking = g_key_file_get_string (file, group, "stacking", NULL);
  if ((i = name_index (stacking, stacking_names, TOPO_N_STACKINGS)) >= 0)
    settings->stacking = (TopoStacking) i;
  lines = g_key_file_get_string (file, group, "lines", NULL);
  if ((i = name_index (lines, line_names, TOPO_N_LINE_STYLES)) >= 0)
    settings->lines = (TopoLineStyle) i;
  if (g_key_file_has_key (file, group, "hide-empty", NULL))
    settings->hide_empty = g_key_file_get_boolean (file, group, "hide-empty", NULL);
  if (g_key_file_has_key (file, group, "high-resolution", NULL))
    settings->high_resolution = g_key_file_get_boolean (file, group, "high-resolution", NULL);
  *layout = g_key_file_get_string (file, group, "layout", NULL);
  return TRUE;
}

/* Drops the least recently used groups beyond TOPO_SETTINGS_KEEP. */
static void
prune (GKeyFile *file)
{
  gsize n;
  g_auto (GStrv) groups = g_key_file_get_groups (file, &n);

  while (n > TOPO_SETTINGS_KEEP)
    {
      gsize oldest = 0;
      gint64 oldest_used = G_MAXINT64;

      for (gsize i = 0; groups[i] != NULL; i++)
        {
          gint64 used;
          if (groups[i][0] == '\0')
            continue;
          used = g_key_file_get_int64 (file, groups[i], "used", NULL);
          if (used < oldest_used)
            oldest_used = used, oldest = i;
        }
      g_key_file_remove_group (file, groups[oldest], NULL);
      groups[oldest][0] = '\0';
      n--;
    }
}

gboolean
kubus_topology_settings_save (const char         *report_path,
                              guint               topology,
                              const TopoSettings *settings,
                              const char         *layout,
                              GError            **error)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *path = kubus_topology_settings_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *group = group_name (report_path, topology);
  const TopoCamera *cam = &settings->camera;

  g_key_file_load_from_file (file, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
  g_key_file_set_double (file, group, "yaw", fmod (cam->yaw, 360.0));
  g_key_file_set_double (file, group, "pitch", cam->pitch);
  g_key_file_set_double (file, group, "zoom", cam->zoom);
  g_key_file_set_double (file, group, "distance", cam->distance);
  g_key_file_set_double (file, group, "pan-x", cam->pan_x);
  g_key_file_set_double (file, group, "pan-y", cam->pan_y);
  g_key_file_set_string (file, group, "stacking", stacking_names[settings->stacking % TOPO_N_STACKINGS]);
  g_key_file_set_string (file, group, "lines", line_names[settings->lines % TOPO_N_LINE_STYLES]);
  g_key_file_set_boolean (file, group, "hide-empty", settings->hide_empty);
  g_key_file_set_boolean (file, group, "high-resolution", settings->high_resolution);
  if (layout != NULL)
    g_key_file_set_string (file, group, "layout", layout);
  g_key_file_set_int64 (file, group, "used", g_get_real_time ());
  prune (file);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  return g_key_file_save_to_file (file, path, error);
}
