/* kubus-types.c — names of the browser's enums (command line, settings, menus). */
#include <glib/gi18n.h>

#include "kubus-types.h"

static const char *const mode_names[KUBUS_N_MODES] = {
  "absolute", "percent", "relative", "peer", "peerdist", "external",
};

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
  for (guint i = 0; i < KUBUS_N_MODES; i++)
    if (g_strcmp0 (name, mode_names[i]) == 0)
      {
        *mode = i;
        return TRUE;
      }
  return FALSE;
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

static const char *const view_names[] = { "tree", "flat", "module" };

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
  for (guint i = 0; i < G_N_ELEMENTS (view_names); i++)
    if (g_strcmp0 (name, view_names[i]) == 0)
      {
        *view = i;
        return TRUE;
      }
  return FALSE;
}
