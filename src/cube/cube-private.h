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

/* Called by a row scanner for each stored row that is not all zeros: @row (n_locations doubles,
 * as the file stores them) is valid during the call only. */
typedef gboolean (*CubeRowVisitor) (guint         cnode_index,
                                    const double *row,
                                    gpointer      user_data,
                                    GError      **error);

/* Visits every stored row of @metric in the order the file keeps them (bulk reads, nothing
 * kept). Set by lazy readers next to the loader. */
typedef gboolean (*CubeRowScanner) (CubeReport     *report,
                                    CubeMetric     *metric,
                                    CubeRowVisitor  visit,
                                    gpointer        user_data,
                                    GError        **error);

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
  CubeRowScanner scanner;         /* with a loader: optional */
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

  /* Added by cube-model.c (builder bookkeeping). */
  gint64      next_metric_id;     /* default file ids for built nodes: max seen + 1 */
  gint64      next_region_id;
  gint64      next_cnode_id;
  gint64      next_sys_id[CUBE_SYS_TREENODE + 1];
  guint       row_len;            /* length of every allocated row (= locations->len) */
  gboolean    has_rows;           /* some row is allocated: adding a location resizes them */
  gpointer    row_arena;          /* where rows live (cube-model.c); freed with the report */

  guint64     rows_decoded;       /* rows a lazy reader decoded from the file so far (tests) */
};

/* Raw row access honouring the loader: returns a pointer owned by the metric data (NULL for an
 * all-zero row) or sets @error. */
gboolean cube_metric_raw_row (CubeReport    *report,
                              CubeMetric    *metric,
                              guint          cnode_index,
                              const double **row,
                              GError       **error);

/* The raw stored row of (metric, cnode) without keeping it in the model: @row points at the
 * row the model holds, or at @scratch (n_locations doubles) into which a lazy reader decoded
 * it; NULL for an absent or all-zero row (as cube_metric_raw_row). */
gboolean cube_metric_peek_row (CubeReport    *report,
                               CubeMetric    *metric,
                               guint          cnode_index,
                               double        *scratch,
                               const double **row,
                               GError       **error);

/* Visits every stored row of @metric that is not all zeros (raw, as stored), in no particular
 * order, keeping none of them: a lazy reader reads the file in bulk, rows already in memory are
 * visited there. */
gboolean cube_metric_scan_rows (CubeReport     *report,
                                CubeMetric     *metric,
                                CubeRowVisitor  visit,
                                gpointer        user_data,
                                GError        **error);

/* cube_report_get_row without keeping what it reads (lazy rows are decoded into buffers and
 * dropped): for passes over whole metrics (the value engine), whose memory must not grow with
 * the file. */
gboolean cube_report_get_row_transient (CubeReport       *report,
                                        const CubeMetric *metric,
                                        const CubeCnode  *cnode,
                                        double           *out,
                                        GError          **error);

/* TRUE when @diff, the result of a − (c_1 + … + c_n) where b_abs_sum = Σ|c_k|, is no larger
 * than the rounding error of that subtraction: (n + 1) · DBL_EPSILON · max(|a|, Σ|c_k|)
 * (derivation in cube-model.c and docs/decisions/2026-11-25-values-residues.md). Such a value
 * is a residue of the call-tree conversion, not an exclusive value, and is shown as 0. */
gboolean cube_value_is_residue (double diff, double a, double b_abs_sum, guint n_terms);

/* Drops cached view values after a change of stored values. */
void     cube_report_invalidate_values (CubeReport *report);

/* Error helpers that prefix the file name. */
void     cube_set_error (GError    **error,
                         CubeError   code,
                         const char *path,
                         const char *format,
                         ...) G_GNUC_PRINTF (4, 5);

/* ---- additions for readers (cube-model.c) --------------------------------------------------- */

/* Sets the id written in the file and registers it for the *_by_file_id lookups.
 * FALSE (and nothing changed) when another node of the same kind already has @id. */
gboolean cube_metric_set_file_id (CubeReport *report, CubeMetric *metric, gint64 id);
gboolean cube_region_set_file_id (CubeReport *report, CubeRegion *region, gint64 id);
gboolean cube_cnode_set_file_id (CubeReport *report, CubeCnode *cnode, gint64 id);
gboolean cube_sysnode_set_file_id (CubeReport *report, CubeSysNode *node, gint64 id);
CubeRegion  *cube_report_region_by_file_id (const CubeReport *report, gint64 id);
/* @kind: THREAD for threads and Cube 4 locations, PROCESS for processes / location groups. */
CubeSysNode *cube_report_sysnode_by_file_id (const CubeReport *report, CubeSysKind kind, gint64 id);

/* Reorders report->locations by file_id and renumbers CubeSysNode.location.
 * Fails (naming @path) unless the ids are exactly 0..T-1. Call before any row exists. */
gboolean cube_report_sort_locations (CubeReport *report, const char *path, GError **error);

/* The stored row of (metric, cnode_index), allocated zero-filled (row_len doubles) if absent.
 * Owned by the metric. For readers filling rows eagerly. */
double  *cube_metric_alloc_row (CubeReport *report, CubeMetric *metric, guint cnode_index);
/* Drops a row (e.g. all zeros) to save memory. */
void     cube_metric_drop_row (CubeReport *report, CubeMetric *metric, guint cnode_index);

/* Installs a lazy row loader (.cubex). @data is freed with @data_free with the report. */
void     cube_metric_set_loader (CubeReport     *report,
                                 CubeMetric     *metric,
                                 CubeRowLoader   loader,
                                 gpointer        data,
                                 GDestroyNotify  data_free);
/* And its bulk reader for whole-metric passes (after cube_metric_set_loader). */
void     cube_metric_set_scanner (CubeMetric     *metric,
                                  CubeRowScanner  scanner);

/* Setters for fields the public builder does not take. Strings are copied. */
void     cube_metric_set_kind (CubeMetric *metric, CubeMetricKind kind);
/* FALSE when another metric already has @uniq_name. */
gboolean cube_metric_set_uniq_name (CubeReport *report, CubeMetric *metric, const char *uniq_name);
/* Sets dtype_name as written and the parsed dtype (UNSUPPORTED for the rare ones). */
void     cube_metric_set_dtype (CubeMetric *metric, const char *dtype_name);
void     cube_metric_set_string (char **field, const char *value);
void     cube_node_add_attr (GPtrArray **attrs, const char *key, const char *value);

/* Aggregation rule helpers used by the value engine, the algebra and the writer. */
gboolean cube_dtype_is_minmax (CubeDtype dtype);
/* TRUE when @child's value is part of @parent's metric-inclusive value. */
gboolean cube_metric_child_contributes (const CubeMetric *parent, const CubeMetric *child);
/* Metrics whose value kind is <val>VOID</val> (CUBE 3 placeholders such as Scalasca's composed
 * counters "~CYCLES"), and every metric below one: cubelib never reads their stored values, so
 * they are 0 everywhere and the readers skip their rows too. Returns a new array of
 * report->metrics->len flags indexed by metric index (one pre-order pass; g_free it). */
gboolean *cube_report_void_metrics (const CubeReport *report);

/* ---- XML reader (cube-xml-reader.c) ------------------------------------------------------------ */

typedef enum
{
  CUBE_XML_CUBE3,   /* .cube / .cube.gz: version 3.x, severity section expected */
  CUBE_XML_ANCHOR,  /* Cube 4 anchor.xml: version 4.x, no severity */
} CubeXmlMode;

/* Parses a whole XML document held in memory (gzip-compressed data is inflated first).
 * @path_for_errors names the file in messages (e.g. "run.cubex:anchor.xml").
 * The returned report has format CUBE_FORMAT_MEMORY and path NULL: the caller sets them.
 * Locations are sorted by id (dense check done). Stream-parsed with SAX: no DOM. */
CubeReport *cube_xml_parse_memory (const char  *buf,
                                   gsize        len,
                                   const char  *path_for_errors,
                                   CubeXmlMode  mode,
                                   GError     **error);

/* The same, fed to the parser @chunk bytes at a time (tests: values split across chunks). */
CubeReport *cube_xml_parse_memory_chunked (const char  *buf,
                                           gsize        len,
                                           const char  *path_for_errors,
                                           CubeXmlMode  mode,
                                           gsize        chunk,
                                           GError     **error);

/* Parses an XML file, plain or gzip (zlib reads both). Sets format CUBE3 / CUBE3_GZ and path. */
CubeReport *cube_xml_load_file (const char       *path,
                                CubeXmlMode       mode,
                                GCancellable     *cancellable,
                                CubeProgressFunc  progress,
                                gpointer          progress_data,
                                GError          **error);

/* ---- Cube 4 archive reader (cubex-reader.c) ------------------------------------------------------- */

CubeReport *cube_cubex_load (const char       *path,
                             CubeLoadFlags     flags,
                             GCancellable     *cancellable,
                             CubeProgressFunc  progress,
                             gpointer          progress_data,
                             GError          **error);

G_END_DECLS
