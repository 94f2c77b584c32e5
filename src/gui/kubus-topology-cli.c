/* kubus-topology-cli.c — see kubus-topology-cli.h. */
#include <glib/gi18n.h>
#include <stdio.h>

#include "kubus-browser.h"
#include "kubus-cairo-export.h"
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
  g_autofree char *view = NULL, *out = NULL, *size = NULL, *metric = NULL, *mode = NULL;
  g_autofree char *calltree = NULL, *external = NULL;
  gboolean compare = FALSE, expand = FALSE, high = FALSE, have_cnode;
  gint64 cnode = 0;
  int width = 900, height = 700;
  guint n_files = 0, topology = 0;
  KubusValueMode value_mode = KUBUS_MODE_ABSOLUTE;
  KubusCallView call_view = KUBUS_CALL_VIEW_TREE;
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
  g_variant_dict_lookup (options, "metric", "s", &metric);
  have_cnode = g_variant_dict_lookup (options, "cnode", "x", &cnode);
  g_variant_dict_lookup (options, "mode", "s", &mode);
  g_variant_dict_lookup (options, "calltree", "s", &calltree);
  g_variant_dict_lookup (options, "expand-largest", "b", &expand);
  g_variant_dict_lookup (options, "external", "^ay", &external);
  g_variant_dict_lookup (options, "compare", "b", &compare);
  g_variant_dict_lookup (options, "high-resolution", "b", &high);

  if (!kubus_topology_parse_view (view, &topology))
    return usage (_("--view wants topology:N, N counting the report’s topologies from 0"));
  if (size != NULL && (sscanf (size, "%dx%d", &width, &height) != 2 || width < 200 || height < 150
                       || width > 8000 || height > 8000))
    return usage (_("--size wants WxH, for example 1200x700"));
  if (mode != NULL && !kubus_value_mode_from_string (mode, &value_mode))
    return usage (_("--mode wants absolute, percent, relative, peer, peerdist or external"));
  if (value_mode == KUBUS_MODE_EXTERNAL && external == NULL)
    return usage (_("--mode=external needs --external=FILE"));
  if (calltree != NULL && !kubus_call_view_from_string (calltree, &call_view))
    return usage (_("--calltree wants tree, flat or module"));
  if (compare ? n_files != 2 : n_files != 1)
    return usage (compare ? _("--compare wants two reports: A B (shows A − B)")
                          : _("--screenshot shows one report"));
  if (!kubus_cairo_format_from_path (out, &(KubusCairoFormat) { 0 }, &error))
    return usage (error->message);

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
  if (call_view != KUBUS_CALL_VIEW_TREE)
    {
      kubus_browser_set_call_view (browser, call_view);
      kubus_browser_select_position (browser, KUBUS_PANE_CALL, 0);
    }
  if (metric != NULL && !kubus_browser_select_metric (browser, metric))
    {
      g_autofree char *msg = g_strdup_printf (_("no metric with unique name “%s” in the report"), metric);
      return fail (msg);
    }
  if (have_cnode && !kubus_browser_select_cnode (browser, cnode))
    {
      g_autofree char *msg = g_strdup_printf (_("no call path with id %lld in the call tree"),
                                              (long long) cnode);
      return fail (msg);
    }
  if (expand)
    {
      KubusPaneModel *call = kubus_browser_get_pane (browser, KUBUS_PANE_CALL);
      GtkSelectionModel *sel = kubus_pane_model_get_selection (call);
      g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (sel);
      guint from = gtk_bitset_is_empty (set) ? G_MAXUINT : gtk_bitset_get_minimum (set);
      guint pos = kubus_pane_model_expand_largest (call, from);
      if (pos != G_MAXUINT)
        kubus_browser_select_position (browser, KUBUS_PANE_CALL, pos);
    }
  if (mode != NULL)
    {
      gboolean any = FALSE;
      for (guint i = 0; i < KUBUS_N_PANES; i++)
        any = any || kubus_pane_model_mode_available (kubus_browser_get_pane (browser, i), value_mode);
      if (!any)
        return fail (_("the value mode is not available for this report"));
      kubus_browser_set_mode (browser, value_mode);
    }
  kubus_browser_flush (browser);

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
  if (!kubus_cairo_export (out, width, height, draw_scene, scene, &error))
    return fail (error->message);
  return 0;
}
