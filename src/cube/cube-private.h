/* cube-private.h — storage contract shared by the readers, the model and the value engine.
 * Not installed. */
#pragma once

#include "cube.h"

G_BEGIN_DECLS

/* Produces the raw stored row of (metric, cnode) into @out (n_locations doubles), as the file
 * stores it (see the stored_* flags). Returns FALSE with @error on corrupt data.
 * Set by lazy readers (.cubex with mmap); NULL when every row is in `rows`. */
typedef gboolean (*CubeRowLoader) (CubeReport *report,
                                   CubeMetric *metric,
                                   guint       cnode_index,
                                   double     *out,
                                   GError    **error);

struct _CubeMetricData
{
  /* rows[cnode->index]: n_locations doubles, or NULL = zeros (absent) / not loaded yet.
   * Allocated lazily; n_rows may be 0 until a value is set. */
  guint     n_rows;
  double  **rows;
  guint8   *row_loaded;           /* with a loader: 1 once rows[i] is final (may stay NULL) */

  /* How the rows are stored. CUBE 3 XML and cube_report_set_value: both FALSE. */
  gboolean  stored_call_inclusive;   /* inclusive along the call tree (Cube 4 INCLUSIVE) */
  gboolean  stored_metric_exclusive; /* exclusive along the metric tree (Cube 4) */

  CubeRowLoader loader;
  gpointer      loader_data;
  GDestroyNotify loader_data_free;
};

struct _CubeReportPriv
{
  GHashTable *metric_by_uniq;     /* char* → CubeMetric* */
  GHashTable *metric_by_id;       /* gint64* → CubeMetric* */
  GHashTable *region_by_id;
  GHashTable *cnode_by_id;
  GHashTable *sysnode_by_id;      /* key: kind << 56 | id … implementation detail of the model */
  gpointer    value_cache;        /* cube-values.c */
  GDestroyNotify value_cache_free;
  gpointer    source;             /* reader-specific (e.g. the .cubex mmap) */
  GDestroyNotify source_free;
};

/* Raw row access honouring the loader: returns a pointer owned by the metric data (NULL for an
 * all-zero row) or sets @error. */
gboolean cube_metric_raw_row (CubeReport    *report,
                              CubeMetric    *metric,
                              guint          cnode_index,
                              const double **row,
                              GError       **error);

/* Drops cached view values after a change of stored values. */
void     cube_report_invalidate_values (CubeReport *report);

/* Error helpers that prefix the file name. */
void     cube_set_error (GError    **error,
                         CubeError   code,
                         const char *path,
                         const char *format,
                         ...) G_GNUC_PRINTF (4, 5);

G_END_DECLS
