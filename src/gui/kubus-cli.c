/* kubus-cli.c — see kubus-cli.h. */
#include <glib/gi18n.h>

#include "cube-path.h"
#include "kubus-cli.h"
#include "kubus-window-private.h"

static const GOptionEntry entries[] = {
  { "compare", 'c', 0, G_OPTION_ARG_NONE, NULL, N_("Show the difference A − B of two reports"), NULL },
  { "external", 'e', 0, G_OPTION_ARG_FILENAME, NULL, N_("Report for the external percent mode"), N_("FILE") },
  { "size", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Window size"), N_("WxH") },
  { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    N_("Render the window once into OUT (PNG, SVG or PDF, by its extension) and exit"), N_("OUT.png") },
  { "metric", 'm', 0, G_OPTION_ARG_STRING, NULL, N_("Select the metric with this unique name"), N_("UNIQ") },
  { "cnode", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Select a call path: its id, or its region names from the root (main/solve/MPI_Recv)"), N_("PATH") },
  { "mode", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Value mode: absolute, percent-of-total, percent-of-selection, peer-percent, peer-distribution or external-percent"),
    N_("MODE") },
  { "calltree", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Call pane view: tree, flat or module"), N_("VIEW") },
  { "expand-largest", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Expand the largest call path"), NULL },
  { "version", 'v', 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
  { "view", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Show this view: topology:N (the report’s topologies count from 0)"), N_("VIEW") },
  { "high-resolution", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Topology colours span the grid’s minimum … maximum"), NULL },
  /* The "[FILE…]" of the usage line comes from the parameter string (kubus_application_init). */
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, NULL },
  { NULL, 0, 0, 0, NULL, NULL, NULL }
};

const GOptionEntry *
kubus_cli_entries (void)
{
  return entries;
}

/* Storage for one parsed value of any type the entries use. */
typedef union
{
  gboolean  flag;
  char     *string;
  char    **strv;
  gint64    int64;
} Slot;

gboolean
kubus_cli_check_args (char   **argv,
                      GError **error)
{
  /* GApplication's own options, and --help (its help is GApplication's to print). */
  static const char *const known[] = { "help", "help-all", "help-gapplication", "gapplication-service" };
  guint n = 0, k = 0;
  g_autofree GOptionEntry *copy = NULL;
  g_autofree Slot *slots = NULL;
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_auto (GStrv) args = g_strdupv (argv);
  int argc = args != NULL ? (int) g_strv_length (args) : 0;
  char **parse = args;
  gboolean ok;

  while (entries[n].long_name != NULL)
    n++;
  copy = g_new0 (GOptionEntry, n + G_N_ELEMENTS (known) + 1);
  slots = g_new0 (Slot, n + G_N_ELEMENTS (known));
  for (guint i = 0; i < n; i++, k++)
    {
      copy[k] = entries[i];
      copy[k].arg_data = &slots[k];
    }
  for (guint i = 0; i < G_N_ELEMENTS (known); i++, k++)
    copy[k] = (GOptionEntry) { known[i], 0, 0, G_OPTION_ARG_NONE, &slots[k], NULL, NULL };
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_add_main_entries (context, copy, NULL);
  ok = g_option_context_parse (context, &argc, &parse, error);
  for (guint i = 0; i < k; i++)
    switch (copy[i].arg)
      {
      case G_OPTION_ARG_STRING:
      case G_OPTION_ARG_FILENAME:
        g_free (slots[i].string);
        break;
      case G_OPTION_ARG_STRING_ARRAY:
      case G_OPTION_ARG_FILENAME_ARRAY:
        g_strfreev (slots[i].strv);
        break;
      default:
        break;
      }
  return ok;
}

KubusViewOptions *
kubus_view_options_new (GVariantDict *options,
                        GError      **error)
{
  g_autoptr (KubusViewOptions) opts = g_new0 (KubusViewOptions, 1);
  g_autofree char *mode = NULL, *calltree = NULL;

  g_variant_dict_lookup (options, "metric", "s", &opts->metric);
  g_variant_dict_lookup (options, "cnode", "s", &opts->cnode);
  g_variant_dict_lookup (options, "mode", "s", &mode);
  g_variant_dict_lookup (options, "calltree", "s", &calltree);
  g_variant_dict_lookup (options, "expand-largest", "b", &opts->expand_largest);
  if (mode != NULL)
    {
      if (!kubus_value_mode_from_string (mode, &opts->mode))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--mode wants %s"),
                       kubus_value_mode_names ());
          return NULL;
        }
      opts->have_mode = TRUE;
      if (opts->mode == KUBUS_MODE_EXTERNAL && !g_variant_dict_contains (options, "external"))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--mode=external-percent needs --external=FILE"));
          return NULL;
        }
    }
  if (calltree != NULL)
    {
      if (!kubus_call_view_from_string (calltree, &opts->view))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--calltree wants tree, flat or module"));
          return NULL;
        }
      opts->have_view = TRUE;
    }
  if (opts->cnode != NULL && opts->have_view && opts->view != KUBUS_CALL_VIEW_TREE)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--cnode selects a call path of the call tree; it does not go with --calltree=%s"),
                   kubus_call_view_to_string (opts->view));
      return NULL;
    }
  return g_steal_pointer (&opts);
}

void
kubus_view_options_free (KubusViewOptions *opts)
{
  if (opts == NULL)
    return;
  g_free (opts->metric);
  g_free (opts->cnode);
  g_free (opts);
}

gboolean
kubus_view_options_empty (const KubusViewOptions *opts)
{
  return opts->metric == NULL && opts->cnode == NULL && !opts->have_mode && !opts->have_view
         && !opts->expand_largest;
}

/* A call path by id ("42") or by name ("main/solve/MPI_Recv"). */
static CubeCnode *
find_cnode (CubeReport *report,
            const char *spec)
{
  gint64 id;
  char *end = NULL;

  id = g_ascii_strtoll (spec, &end, 10);
  if (end != spec && *end == '\0')
    {
      CubeCnode *c = cube_report_cnode_by_file_id (report, id);
      if (c != NULL)
        return c;
    }
  return cube_report_find_cnode_path (report, spec);
}

/* "time, visits, …": what --metric could have named (the first dozen). */
static char *
metric_names (CubeReport *report)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < report->metrics->len && i < 12; i++)
    g_string_append_printf (s, "%s%s", i > 0 ? ", " : "",
                            ((CubeMetric *) g_ptr_array_index (report->metrics, i))->uniq_name);
  if (report->metrics->len > 12)
    g_string_append (s, ", …");
  return g_string_free (s, FALSE);
}

gboolean
kubus_view_options_apply_browser (const KubusViewOptions *opts,
                                  KubusBrowser           *browser,
                                  const char             *name,
                                  GError                **error)
{
  CubeReport *report = kubus_browser_get_report (browser);

  if (opts->have_view)
    {
      kubus_browser_set_call_view (browser, opts->view);
      kubus_browser_select_position (browser, KUBUS_PANE_CALL, 0);
      kubus_browser_flush (browser);
    }
  if (opts->metric != NULL && !kubus_browser_select_metric (browser, opts->metric))
    {
      g_autofree char *known = metric_names (report);
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s: no metric with unique name “%s” (the report has %s)"), name, opts->metric, known);
      return FALSE;
    }
  if (opts->cnode != NULL)
    {
      CubeCnode *c = find_cnode (report, opts->cnode);

      if (c == NULL || !kubus_browser_select_cnode (browser, c->file_id))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("%s: no call path “%s” in the call tree (give an id or region names from the root, e.g. main/solve/MPI_Recv)"),
                       name, opts->cnode);
          return FALSE;
        }
    }
  if (opts->expand_largest)
    {
      KubusPaneModel *call = kubus_browser_get_pane (browser, KUBUS_PANE_CALL);
      g_autoptr (GtkBitset) set = gtk_selection_model_get_selection (kubus_pane_model_get_selection (call));
      guint from = gtk_bitset_is_empty (set) ? G_MAXUINT : gtk_bitset_get_minimum (set);
      guint pos = kubus_pane_model_expand_largest (call, from);

      if (pos != G_MAXUINT)
        kubus_browser_select_position (browser, KUBUS_PANE_CALL, pos);
      kubus_browser_flush (browser);
      /* Also open the system tree down to its largest location. */
      kubus_pane_model_expand_largest (kubus_browser_get_pane (browser, KUBUS_PANE_SYSTEM), G_MAXUINT);
    }
  if (opts->have_mode)
    {
      gboolean any = FALSE;

      for (guint i = 0; i < KUBUS_N_PANES; i++)
        any = any || kubus_pane_model_mode_available (kubus_browser_get_pane (browser, i), opts->mode);
      if (!any)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("%s: the value mode %s is not available for this report"), name,
                       kubus_value_mode_to_string (opts->mode));
          return FALSE;
        }
      kubus_browser_set_mode (browser, opts->mode);
    }
  kubus_browser_flush (browser);
  return TRUE;
}

gboolean
kubus_view_options_apply (const KubusViewOptions *opts,
                          KubusWindow            *window,
                          GError                **error)
{
  KubusBrowser *browser = kubus_window_get_browser (window);
  g_autofree char *name = NULL;

  g_return_val_if_fail (browser != NULL, FALSE);
  name = window->file != NULL ? g_file_get_parse_name (window->file) : g_strdup ("?");
  if (opts->have_view)
    kubus_window_set_call_view (window, opts->view);
  if (!kubus_view_options_apply_browser (opts, browser, name, error))
    return FALSE;
  if (opts->cnode != NULL || opts->expand_largest)
    kubus_pane_view_scroll_to (window->panes[KUBUS_PANE_CALL],
                               kubus_pane_view_get_selected (window->panes[KUBUS_PANE_CALL]));
  /* The window's menus and drop-downs follow the panes' modes. */
  if (opts->have_mode)
    kubus_window_set_mode (window, opts->mode);
  return TRUE;
}
