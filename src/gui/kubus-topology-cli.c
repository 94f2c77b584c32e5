/* kubus-topology-cli.c — see kubus-topology-cli.h. */
#include <glib/gi18n.h>
#include <stdio.h>

#include "kubus-browser.h"
#include "kubus-cli.h"
#include "kubus-export.h"
#include "kubus-loader.h"
#include "kubus-topology-cli.h"
#include "kubus-topology-values.h"

gboolean
kubus_topology_parse_view (const char *view,
                           guint      *topology)
{
  guint64 n;

  if (view == NULL || !g_str_has_prefix (view, "topology:"))
    return FALSE;
  if (!g_ascii_string_to_unsigned (view + strlen ("topology:"), 10, 0, G_MAXUINT, &n, NULL))
    return FALSE;
  *topology = (guint) n;
  return TRUE;
}

typedef struct
{
  GMainLoop       *loop;
  KubusLoadResult *result;
  GError          *error;
} Wait;

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Wait *wait = user_data;

  (void) source;
  wait->result = kubus_load_finish (result, &wait->error);
  g_main_loop_quit (wait->loop);
}

/* Loads @path (and @path_b: A − B) in the loader's worker thread and waits. */
static KubusLoadResult *
load (const char  *path,
      const char  *path_b,
      GError     **error)
{
  Wait wait = { g_main_loop_new (NULL, FALSE), NULL, NULL };
  g_autoptr (GTask) task = kubus_load_async (path, path_b, NULL, on_loaded, &wait);

  g_main_loop_run (wait.loop);
  g_main_loop_unref (wait.loop);
  if (wait.result == NULL)
    g_propagate_error (error, wait.error);
  return wait.result;
}

static int
fail (const char *message)
{
  g_printerr ("kubus: %s\n", message);
  kubus_load_prefetch_cancel_all ();
  return 1;
}

static int
usage (const char *message)
{
  g_printerr ("kubus: %s\n", message);
  kubus_load_prefetch_cancel_all ();
  return 2;
}

static void
draw_scene (cairo_t  *cr,
            int       width,
            int       height,
            gpointer  data)
{
  topo_scene_render (data, cr, width, height);
}

int
kubus_topology_screenshot_run (GVariantDict *options)
{
  g_autofree const char **files = NULL;
  g_autofree char *view = NULL, *out = NULL, *size = NULL, *external = NULL;
  gboolean compare = FALSE, high = FALSE;
  int width = 900, height = 700;
  guint n_files = 0, topology = 0;
  KubusExportFormat format;
  g_autoptr (KubusViewOptions) opts = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KubusLoadResult) loaded = NULL;
  g_autoptr (KubusBrowser) browser = NULL;
  g_autoptr (TopoScene) scene = NULL;
  g_autoptr (TopoGrid) grid = NULL;
  CubeReport *report;
  TopoSettings settings;

  g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &files);
  n_files = files != NULL ? g_strv_length ((char **) files) : 0;
  g_variant_dict_lookup (options, "view", "s", &view);
  g_variant_dict_lookup (options, "screenshot", "^ay", &out);
  g_variant_dict_lookup (options, "size", "s", &size);
  g_variant_dict_lookup (options, "external", "^ay", &external);
  g_variant_dict_lookup (options, "compare", "b", &compare);
  g_variant_dict_lookup (options, "high-resolution", "b", &high);

  if (!kubus_topology_parse_view (view, &topology))
    return usage (_("--view wants topology:N, N counting the report’s topologies from 0"));
  if (size != NULL && (sscanf (size, "%dx%d", &width, &height) != 2 || width < 200 || height < 150
                       || width > 8000 || height > 8000))
    return usage (_("--size wants WxH, for example 1200x700"));
  /* --metric, --cnode, --mode, --calltree, --expand-largest as for the window (kubus-cli.c). */
  opts = kubus_view_options_new (options, &error);
  if (opts == NULL)
    return usage (error->message);
  if (compare ? n_files != 2 : n_files != 1)
    return usage (compare ? _("--compare wants two reports: A B (shows A − B)")
                          : _("--screenshot shows one report"));
  if (!kubus_export_format_from_path (out, &format))
    return usage (_("--screenshot writes .png, .svg or .pdf files"));

  loaded = load (files[0], compare ? files[1] : NULL, &error);
  if (loaded == NULL)
    return fail (error->message);
  report = loaded->report;
  if (topology >= report->topologies->len)
    {
      g_autofree char *msg = NULL;
      if (report->topologies->len == 0)
        msg = g_strdup_printf (_("%s has no Cartesian topology"), files[0]);
      else
        msg = g_strdup_printf (ngettext ("%s has %u topology: --view=topology:N wants N from 0 to %u",
                                         "%s has %u topologies: --view=topology:N wants N from 0 to %u",
                                         report->topologies->len),
                               files[0], report->topologies->len, report->topologies->len - 1);
      return fail (msg);
    }
  browser = kubus_browser_new (loaded->report, loaded->base, &error);
  loaded->report = loaded->base = NULL;   /* the browser owns them now */
  if (browser == NULL)
    return fail (error->message);
  if (external != NULL)
    {
      g_autoptr (KubusLoadResult) ext = load (external, NULL, &error);
      if (ext == NULL || !kubus_browser_set_external (browser, g_steal_pointer (&ext->report), &error))
        return fail (error->message);
    }

  kubus_browser_select_default (browser);
  if (!kubus_view_options_apply_browser (opts, browser, files[0], &error))
    return usage (error->message);

  grid = kubus_topology_grid_new (browser, topology, NULL, &error);
  scene = topo_scene_new ();
  if (grid == NULL)
    topo_scene_set_message (scene, error->message);
  else
    {
      gint64 nu, nv, np;
      topo_stacking_plane_size (TOPO_STACK_Z, grid->layout->extent, &nu, &nv, &np);
      topo_settings_init_default (&settings, (guint) np);
      settings.high_resolution = high;
      topo_scene_set_settings (scene, &settings);
      topo_scene_set_grid (scene, grid);
      kubus_topology_values_apply (browser, topology, grid, scene);
    }
  g_clear_error (&error);
  if (!kubus_export_to_file (out, format, width, height, draw_scene, scene, &error))
    return fail (error->message);
  return 0;
}
