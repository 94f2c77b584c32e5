/* kubus-legend.h — colour legend under a pane: low end, scale, high end and a caption with the
 * unit (and the common exponent in absolute mode). */
#pragma once

#include <gtk/gtk.h>

#include "kubus-pane-model.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_LEGEND (kubus_legend_get_type ())
G_DECLARE_FINAL_TYPE (KubusLegend, kubus_legend, KUBUS, LEGEND, GtkWidget)

GtkWidget *kubus_legend_new    (void);
void       kubus_legend_update (KubusLegend    *self,
                                KubusPaneModel *pane);

G_END_DECLS
