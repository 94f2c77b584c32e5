/* kubus-severity.h — the severity colour scale of the three trees and the legend. */
#pragma once

#include <gdk/gdk.h>

G_BEGIN_DECLS

typedef enum
{
  KUBUS_SCALE_RAINBOW,   /* blue → cyan → green → yellow → red */
  KUBUS_SCALE_GRAY,      /* light → dark gray, for printing */
} KubusColorScale;

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

G_END_DECLS
