/* kubus-browser.h — one opened report as the browser shows it, without widgets.
 *
 * Owns the report (and for a comparison report A, for external percent the external report),
 * the three KubusPaneModels and the selection flow metric → call path → system: when the
 * selection or the expanded state of a selected row changes in one pane, the panes to its right
 * get new values from src/cube (cube_values_*). Recomputation runs from an idle handler so that
 * expanding many rows costs one update; kubus_browser_flush() runs it now (tests, screenshots). */
#pragma once

#include "cube.h"
#include "kubus-pane-model.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_BROWSER (kubus_browser_get_type ())
G_DECLARE_FINAL_TYPE (KubusBrowser, kubus_browser, KUBUS, BROWSER, GObject)

/* Takes ownership of @report and of @base (the minuend A when @report is A − B, else NULL).
 * Returns NULL with @error if the report's values cannot be read. */
KubusBrowser   *kubus_browser_new            (CubeReport  *report,
                                              CubeReport  *base,
                                              GError     **error);
CubeReport     *kubus_browser_get_report     (KubusBrowser *self);
gboolean        kubus_browser_is_difference  (KubusBrowser *self);
KubusPaneModel *kubus_browser_get_pane       (KubusBrowser *self,
                                              KubusPaneKind kind);
/* Takes ownership of @external (NULL to drop). */
gboolean        kubus_browser_set_external   (KubusBrowser *self,
                                              CubeReport   *external,
                                              GError      **error);
gboolean        kubus_browser_has_external   (KubusBrowser *self);
void            kubus_browser_set_call_view  (KubusBrowser *self,
                                              KubusCallView view);
KubusCallView   kubus_browser_get_call_view  (KubusBrowser *self);
/* The metric a report opens with: the "time" root, else the first root shown (NULL: none). */
const CubeMetric *kubus_browser_default_metric (const CubeReport *report);
/* Computes what kubus_browser_new and the first update read of @report (the metric roots'
 * totals, the default metric's call paths), so that a worker thread can do it: any thread,
 * as long as nobody else uses @report meanwhile. */
void            kubus_browser_warm           (CubeReport *report);
/* Selects the "time" metric root (else the first visible one) and the first call tree root. */
void            kubus_browser_select_default (KubusBrowser *self);
gboolean        kubus_browser_select_metric  (KubusBrowser *self,
                                              const char   *uniq_name);
gboolean        kubus_browser_select_cnode   (KubusBrowser *self,
                                              gint64        file_id);
/* Selects only @position in @pane (G_MAXUINT clears). */
void            kubus_browser_select_position (KubusBrowser *self,
                                               KubusPaneKind pane,
                                               guint         position);
void            kubus_browser_set_mode       (KubusBrowser  *self,
                                              KubusValueMode mode);
void            kubus_browser_flush          (KubusBrowser *self);
/* Per location (report->locations order) the value of the current metric and call path
 * selection, as the system pane got it; NULL before the first update. Borrowed. */
const double   *kubus_browser_get_location_values (KubusBrowser *self,
                                                   guint        *n);
/* "Time at main/foo": the selected metrics and call paths (new string). */
char           *kubus_browser_describe_selection  (KubusBrowser *self);

/* The visible rows of @kind's pane as CSV, saying which metric and call path they are of
 * (kubus_pane_model_to_csv). New string. */
char           *kubus_browser_to_csv              (KubusBrowser *self,
                                                   KubusPaneKind kind);

G_END_DECLS
