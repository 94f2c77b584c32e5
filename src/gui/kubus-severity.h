/* kubus-severity.h — the severity colour scale of the three trees and the legend. */
#pragma once

#include <gdk/gdk.h>

G_BEGIN_DECLS

typedef enum
{
  KUBUS_SCALE_RAINBOW,   /* blue → cyan → green → yellow → red */
  KUBUS_SCALE_GRAY,      /* light → dark gray, for printing */
} KubusColorScale;

/* Which diverging scale a signed pane uses. */
typedef enum
{
  KUBUS_DIVERGING_NONE,         /* unsigned: @scale */
  KUBUS_DIVERGING_DIFFERENCE,   /* A − B: warm for positive, cold for negative */
  KUBUS_DIVERGING_SAVED_ADDED,  /* original − simulated: blue-green for time saved (positive),
                                   orange for time added (negative); neither is red */
} KubusDiverging;

/* @fraction in [-1, 1]: share of the pane's largest magnitude.
 * Unsigned panes use @scale over [0, 1]. Signed panes (@is_signed, differences) use a
 * diverging scale: cold blues for negative values, warm yellow→red for positive ones, so a
 * gain never has a loss's colour. @lighten blends towards white (insignificant values).
 * Returns FALSE (and leaves @out alone) for exactly zero: such squares stay uncoloured. */
gboolean kubus_severity_color (KubusColorScale scale,
                               gboolean        is_signed,
                               double          fraction,
                               gboolean        lighten,
                               GdkRGBA        *out);

/* As kubus_severity_color, with the diverging scale named (NONE: unsigned unless @fraction is
 * negative, then the difference scale). */
gboolean kubus_severity_color_full (KubusColorScale scale,
                                    KubusDiverging  diverging,
                                    double          fraction,
                                    gboolean        lighten,
                                    GdkRGBA        *out);

G_END_DECLS
