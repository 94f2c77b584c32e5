/* kubus-row-cell.h — what one tree row shows: severity square, value, name. */
#pragma once

#include <gtk/gtk.h>

#include "kubus-pane-model.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_ROW_CELL (kubus_row_cell_get_type ())
G_DECLARE_FINAL_TYPE (KubusRowCell, kubus_row_cell, KUBUS, ROW_CELL, GtkWidget)

GtkWidget *kubus_row_cell_new    (void);
/* @row: a GtkTreeListRow of @pane's model (borrowed while bound). */
void       kubus_row_cell_bind   (KubusRowCell   *self,
                                  KubusPaneModel *pane,
                                  GtkTreeListRow *row);
void       kubus_row_cell_unbind (KubusRowCell *self);
/* Re-reads value, colour and find state (values, mode or expanded state changed). */
void       kubus_row_cell_update (KubusRowCell *self);

G_END_DECLS
