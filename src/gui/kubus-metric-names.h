/* kubus-metric-names.h — metric display names and descriptions in the user's language.
 *
 * Reports stay English (comparable with Scalasca's and CubeGUI's); the browser translates where
 * it shows a metric. A metric is translated when its unique name and its English text are those
 * of kubus-analyze's metric table (src/core/analyze-metrics.c, marked N_()) or of a Scalasca or
 * Score-P metric Kubus knows; any other text (a tool's own wording, a user's metric) is shown as
 * written. */
#pragma once

#include "cube.h"

G_BEGIN_DECLS

/* @english as the user reads it, when (@uniq, @english) is a known metric name; else @english
 * (or @uniq when @english is NULL or empty). Borrowed: static or @english itself. */
const char *kubus_metric_name_for        (const char *uniq,
                                          const char *english);
/* The same for a metric's description; NULL stays NULL. */
const char *kubus_metric_description_for (const char *uniq,
                                          const char *english);

const char *kubus_metric_name            (const CubeMetric *metric);
const char *kubus_metric_description     (const CubeMetric *metric);

G_END_DECLS
