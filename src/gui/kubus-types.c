/* kubus-types.c — names of the browser's enums (command line, settings, menus). */
#include <glib/gi18n.h>

#include "kubus-types.h"

/* The names follow the labels the panes show ("Percent of total" → percent-of-total), so what
 * a user sees is what the command line takes (issue 16). The short names of the first version
 * stay as aliases. */
static const char *const mode_names[KUBUS_N_MODES] = {
  "absolute", "percent-of-total", "percent-of-selection", "peer-percent", "peer-distribution",
  "external-percent",
};
static const char *const mode_aliases[KUBUS_N_MODES] = {
  "absolute", "percent", "relative", "peer", "peerdist", "external",
};

/* "Percent of total", "percent_of_total", "PERCENT-OF-TOTAL" → "percent-of-total". */
static char *
normalize_name (const char *name)
{
  char *s = g_ascii_strdown (name, -1);

  g_strstrip (s);
  for (char *p = s; *p != '\0'; p++)
    if (*p == ' ' || *p == '_')
      *p = '-';
  return s;
}

const char *
kubus_value_mode_to_string (KubusValueMode mode)
{
  g_return_val_if_fail (mode < KUBUS_N_MODES, "absolute");
  return mode_names[mode];
}

gboolean
kubus_value_mode_from_string (const char     *name,
                              KubusValueMode *mode)
{
  g_autofree char *n = name != NULL ? normalize_name (name) : NULL;

  for (guint i = 0; n != NULL && i < KUBUS_N_MODES; i++)
    if (g_str_equal (n, mode_names[i]) || g_str_equal (n, mode_aliases[i]))
      {
        *mode = i;
        return TRUE;
      }
  return FALSE;
}

const char *
kubus_value_mode_names (void)
{
  return "absolute, percent-of-total, percent-of-selection, peer-percent, peer-distribution, "
         "external-percent";
}

const char *
kubus_value_mode_label (KubusValueMode mode)
{
  switch (mode)
    {
    case KUBUS_MODE_ABSOLUTE:
      return _("Absolute");
    case KUBUS_MODE_PERCENT:
      return _("Percent of total");
    case KUBUS_MODE_RELATIVE:
      return _("Percent of selection");
    case KUBUS_MODE_PEER_PERCENT:
      return _("Peer percent");
    case KUBUS_MODE_PEER_DISTRIBUTION:
      return _("Peer distribution");
    case KUBUS_MODE_EXTERNAL:
      return _("External percent");
    case KUBUS_N_MODES:
    default:
      break;
    }
  return "";
}

/* Also the pane's labels: call-tree, flat-profile, modules. */
static const char *const view_names[] = { "tree", "flat", "module" };
static const char *const view_aliases[] = { "call-tree", "flat-profile", "modules" };

const char *
kubus_call_view_to_string (KubusCallView view)
{
  g_return_val_if_fail (view <= KUBUS_CALL_VIEW_MODULE, "tree");
  return view_names[view];
}

gboolean
kubus_call_view_from_string (const char    *name,
                             KubusCallView *view)
{
  g_autofree char *n = name != NULL ? normalize_name (name) : NULL;

  for (guint i = 0; n != NULL && i < G_N_ELEMENTS (view_names); i++)
    if (g_str_equal (n, view_names[i]) || g_str_equal (n, view_aliases[i]))
      {
        *view = i;
        return TRUE;
      }
  return FALSE;
}

static const char *const format_names[] = { "readable", "common-exponent", "scientific" };

gboolean
kubus_number_format_from_string (const char        *name,
                                 KubusNumberFormat *format)
{
  for (guint i = 0; i < G_N_ELEMENTS (format_names); i++)
    if (g_strcmp0 (name, format_names[i]) == 0)
      {
        *format = i;
        return TRUE;
      }
  return FALSE;
}

