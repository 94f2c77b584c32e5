/* kubus-types.h — enums shared by the browser's models and widgets. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  KUBUS_PANE_METRIC,
  KUBUS_PANE_CALL,
  KUBUS_PANE_SYSTEM,
  KUBUS_N_PANES
} KubusPaneKind;

/* What a row stands for. The flat and module kinds are views of the call tree that the
 * browser derives from per-call-path values (kubus-profile.c). */
typedef enum
{
  KUBUS_NODE_METRIC,        /* CubeMetric */
  KUBUS_NODE_CNODE,         /* CubeCnode */
  KUBUS_NODE_SYSNODE,       /* CubeSysNode */
  KUBUS_NODE_FLAT_REGION,   /* KubusFlatRegion in the flat profile (children: callees) */
  KUBUS_NODE_FLAT_CALLEE,   /* KubusFlatCallee (leaf) */
  KUBUS_NODE_MODULE,        /* KubusModule (children: regions) */
  KUBUS_NODE_MODULE_REGION, /* KubusFlatRegion as a leaf of a module */
} KubusNodeKind;

typedef enum
{
  KUBUS_CALL_VIEW_TREE,
  KUBUS_CALL_VIEW_FLAT,
  KUBUS_CALL_VIEW_MODULE,
} KubusCallView;

typedef enum
{
  KUBUS_MODE_ABSOLUTE,
  KUBUS_MODE_PERCENT,           /* of the metric root (of report A when comparing) */
  KUBUS_MODE_RELATIVE,          /* of the selection in the pane to the left */
  KUBUS_MODE_PEER_PERCENT,      /* system pane: of the largest node at the same depth */
  KUBUS_MODE_PEER_DISTRIBUTION, /* system pane: (v - min) / (max - min) at the same depth */
  KUBUS_MODE_EXTERNAL,          /* of the metric root of the external report */
  KUBUS_N_MODES
} KubusValueMode;

typedef enum
{
  KUBUS_SORT_NONE,   /* file order */
  KUBUS_SORT_VALUE,  /* largest inclusive value first */
  KUBUS_SORT_NAME,
} KubusSortKind;

/* How values are written (GSettings number-format). */
typedef enum
{
  KUBUS_FORMAT_READABLE,          /* each value in full: 30,812.45; 130,023,456; 1.20e-05 */
  KUBUS_FORMAT_COMMON_EXPONENT,   /* the pane's power of ten once, in the legend */
  KUBUS_FORMAT_SCIENTIFIC,        /* each value with its own exponent when large or small */
} KubusNumberFormat;

const char    *kubus_value_mode_to_string   (KubusValueMode mode);   /* "percent-of-total", … */
/* Takes the names, the short names of version 0.1 ("percent", "peerdist", …) and the English
 * labels ("Percent of total"), in any case. */
gboolean       kubus_value_mode_from_string (const char *name, KubusValueMode *mode);
const char    *kubus_value_mode_names       (void);   /* "absolute, percent-of-total, …" */
const char    *kubus_value_mode_label       (KubusValueMode mode);   /* translated */
const char    *kubus_call_view_to_string    (KubusCallView view);
gboolean       kubus_call_view_from_string  (const char *name, KubusCallView *view);

gboolean       kubus_number_format_from_string (const char *name, KubusNumberFormat *format);
G_END_DECLS
