/* cube.h — the Kubus report library: data model, readers, writer, values, algebra.
 *
 * No GTK here: the browser, the analyzer, kubus-cube and the tests all use this one library,
 * so every number agrees by construction.
 *
 * The model is plain C structs with public read-only fields (Sysprof style). Trees are linked
 * through parent / children; every node also has a dense `index` into the report's flat array,
 * which is what value arrays are indexed by. `file_id` is the id written in the file.
 *
 * Value semantics used throughout the API ("CUBE 3 semantics"): values are inclusive along the
 * metric tree and exclusive along the call tree. Readers convert whatever the file stores
 * (Cube 4 stores some metrics inclusive along the call tree, and metric-exclusive) into this.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>

G_BEGIN_DECLS

#define CUBE_ERROR (cube_error_quark ())
GQuark cube_error_quark (void);

typedef enum
{
  CUBE_ERROR_IO,          /* cannot open / read / write */
  CUBE_ERROR_FORMAT,      /* malformed input: bad XML, bad tar, dangling ids, … */
  CUBE_ERROR_UNSUPPORTED, /* well-formed but a version or feature we do not read */
  CUBE_ERROR_USAGE,       /* invalid argument combination (e.g. incompatible reports) */
} CubeError;

typedef enum
{
  CUBE_FORMAT_MEMORY,   /* built in memory, not read from a file */
  CUBE_FORMAT_CUBE3,    /* CUBE 3 XML */
  CUBE_FORMAT_CUBE3_GZ, /* gzip-compressed CUBE 3 XML */
  CUBE_FORMAT_CUBEX,    /* Cube 4 tar archive */
} CubeFormat;

typedef enum
{
  CUBE_DTYPE_DOUBLE,
  CUBE_DTYPE_INT64,
  CUBE_DTYPE_UINT64,
  CUBE_DTYPE_INT32,
  CUBE_DTYPE_UINT32,
  CUBE_DTYPE_INT16,
  CUBE_DTYPE_UINT16,
  CUBE_DTYPE_INT8,
  CUBE_DTYPE_UINT8,
  CUBE_DTYPE_MINDOUBLE, /* aggregates by min */
  CUBE_DTYPE_MAXDOUBLE, /* aggregates by max */
  CUBE_DTYPE_UNSUPPORTED /* COMPLEX, RATE, TAU_ATOMIC, HISTOGRAM(n), NDOUBLES(n), SCALE_FUNC, … */
} CubeDtype;

typedef enum
{
  CUBE_METRIC_EXCLUSIVE, /* Cube 4 default; CUBE 3 metrics are this too */
  CUBE_METRIC_INCLUSIVE,
  CUBE_METRIC_SIMPLE,
  CUBE_METRIC_POSTDERIVED, /* also DERIVED: CubePL expression, no stored data */
  CUBE_METRIC_PREDERIVED_INCLUSIVE,
  CUBE_METRIC_PREDERIVED_EXCLUSIVE,
} CubeMetricKind;

typedef enum
{
  CUBE_SYS_MACHINE,        /* CUBE 3 */
  CUBE_SYS_NODE,           /* CUBE 3 */
  CUBE_SYS_PROCESS,        /* CUBE 3 process / Cube 4 location group */
  CUBE_SYS_THREAD,         /* CUBE 3 thread / Cube 4 location: the leaves that hold values */
  CUBE_SYS_TREENODE,       /* Cube 4 system tree node (class in `class_name`) */
} CubeSysKind;

typedef struct
{
  char *key;
  char *value;
} CubeAttr;

typedef struct _CubeReport      CubeReport;
typedef struct _CubeMetric      CubeMetric;
typedef struct _CubeRegion      CubeRegion;
typedef struct _CubeCnode       CubeCnode;
typedef struct _CubeSysNode     CubeSysNode;
typedef struct _CubeCart        CubeCart;
typedef struct _CubeMetricData  CubeMetricData;   /* private: cube-private.h */
typedef struct _CubeReportPriv  CubeReportPriv;   /* private: cube-private.h */

struct _CubeMetric
{
  guint           index;      /* position in report->metrics (definition order, depth-first) */
  gint64          file_id;
  char           *uniq_name;
  char           *disp_name;
  char           *dtype_name; /* as written in the file, e.g. "FLOAT", "HISTOGRAM(10)" */
  CubeDtype       dtype;
  char           *uom;
  char           *val;
  char           *url;        /* as written; cube_metric_expand_url() expands @mirror@ */
  char           *descr;
  char           *cubepl;     /* derived metrics: the CubePL expression, else NULL */
  CubeMetricKind  kind;
  gboolean        ghost;      /* viztype GHOST: hidden in views */
  GPtrArray      *attrs;      /* of CubeAttr*, owned */
  CubeMetric     *parent;
  GPtrArray      *children;   /* of CubeMetric*, not owned */
  guint           depth;
  CubeMetricData *data;       /* private: stored values */
  /* Added: Cube 4 anchor attributes (TRUE when absent, as Cube 4 defaults them). */
  gboolean        convertible;
  gboolean        cacheable;
};

struct _CubeRegion
{
  guint   index;
  gint64  file_id;
  char   *name;
  char   *mangled_name;
  char   *mod;
  gint64  begin_line;         /* -1 unknown */
  gint64  end_line;
  char   *paradigm;
  char   *role;
  char   *url;
  char   *descr;
  GPtrArray *attrs;
};

struct _CubeCnode
{
  guint       index;          /* position in report->cnodes (depth-first pre-order) */
  gint64      file_id;
  CubeRegion *callee;
  gint64      line;           /* -1 unknown */
  char       *mod;
  GPtrArray  *params;         /* of CubeAttr* (key = parameter name, value = value) */
  GPtrArray  *attrs;
  CubeCnode  *parent;
  GPtrArray  *children;
  guint       depth;
};

struct _CubeSysNode
{
  guint        index;         /* position in report->sysnodes */
  gint64       file_id;
  CubeSysKind  kind;
  char        *name;
  char        *descr;
  char        *class_name;    /* Cube 4 system tree node class, location group / location type */
  gint64       rank;          /* process rank / thread rank, -1 if none */
  gint         location;      /* for CUBE_SYS_THREAD: index into report->locations, else -1 */
  GPtrArray   *attrs;
  CubeSysNode *parent;
  GPtrArray   *children;
  guint        depth;
};

typedef struct
{
  char     *name;             /* may be NULL */
  gint64    size;
  gboolean  periodic;
} CubeCartDim;

typedef struct
{
  CubeSysNode *node;          /* usually a thread/location; may be a process, node or machine */
  gint64      *coord;         /* ndims entries */
} CubeCartCoord;

struct _CubeCart
{
  char        *name;          /* may be NULL */
  guint        ndims;
  CubeCartDim *dims;
  GPtrArray   *coords;        /* of CubeCartCoord*, owned; only some nodes may have one */
  GHashTable  *coord_of_node; /* private to cube_cart_set_coord: node → its CubeCartCoord */
};

struct _CubeReport
{
  char       *path;           /* file it was read from, or NULL */
  CubeFormat  format;
  char       *version;        /* "3.0", "4.0", … */
  GPtrArray  *attrs;          /* of CubeAttr* */
  GPtrArray  *mirrors;        /* of char* */
  GPtrArray  *metrics;        /* all metrics, index order */
  GPtrArray  *metric_roots;
  GPtrArray  *regions;
  GPtrArray  *cnodes;         /* all call paths, index order = depth-first pre-order */
  GPtrArray  *cnode_roots;
  GPtrArray  *sysnodes;       /* all system tree nodes */
  GPtrArray  *system_roots;
  GPtrArray  *locations;      /* of CubeSysNode* (threads/locations) in id order: value columns */
  GPtrArray  *topologies;     /* of CubeCart* */
  gboolean    ct_aggr_max;    /* CUBE_CT_AGGR = MAX: call-tree roots aggregate by max */
  CubeReportPriv *priv;
};

/* ---- loading and freeing ------------------------------------------------------------------- */

typedef void (*CubeProgressFunc) (double fraction, gpointer user_data);

/* Reads a .cube, .cube.gz or .cubex file (detected by content, not by name).
 * Returns a new report (free with cube_report_free) or NULL with @error naming the file,
 * the line for XML, and what is wrong. @cancellable and @progress may be NULL.
 * .cubex rows are read lazily (mmap) unless CUBE_LOAD_EAGER is given. */
typedef enum
{
  CUBE_LOAD_DEFAULT = 0,
  CUBE_LOAD_EAGER   = 1 << 0, /* read and validate every value now */
} CubeLoadFlags;

CubeReport *cube_report_load (const char       *path,
                              CubeLoadFlags     flags,
                              GCancellable     *cancellable,
                              CubeProgressFunc  progress,
                              gpointer          progress_data,
                              GError          **error);
void        cube_report_free (CubeReport *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CubeReport, cube_report_free)

/* The report an experiment folder stands for, as Scalasca's square picks it: Kubus's wait-state
 * analysis (analysis.cube[x|.gz]), else Scalasca's trace analysis (trace.cubex, scout.cubex), else
 * a summary (summary.cubex), else the profile (profile.cube[x|.gz], Kubus's or Score-P's).
 * A new string: that file's path, or @path itself when it is no folder or holds none of them. */
char        *cube_report_in_folder (const char *path);

/* ---- building (analyzer, algebra, generator) ----------------------------------------------- */

/* All returned nodes are owned by the report. Build the trees and the system tree first;
 * values may be set once every location exists. */
CubeReport  *cube_report_new (void);
void         cube_report_set_attr (CubeReport *report, const char *key, const char *value);
const char  *cube_report_get_attr (const CubeReport *report, const char *key);
void         cube_report_add_mirror (CubeReport *report, const char *url);
CubeMetric  *cube_report_add_metric (CubeReport *report,
                                     CubeMetric *parent,
                                     const char *uniq_name,
                                     const char *disp_name,
                                     CubeDtype   dtype,
                                     const char *uom,
                                     const char *url,
                                     const char *descr);
CubeRegion  *cube_report_add_region (CubeReport *report,
                                     const char *name,
                                     const char *mod,
                                     gint64      begin_line,
                                     gint64      end_line);
CubeCnode   *cube_report_add_cnode (CubeReport *report,
                                    CubeCnode  *parent,
                                    CubeRegion *callee,
                                    gint64      line,
                                    const char *mod);
/* The source position of a call path (its call site): @line (-1 unknown) in file @mod. */
void         cube_cnode_set_source (CubeCnode *cnode, gint64 line, const char *mod);
CubeSysNode *cube_report_add_sysnode (CubeReport  *report,
                                      CubeSysNode *parent,
                                      CubeSysKind  kind,
                                      const char  *name,
                                      gint64       rank);
CubeCart    *cube_report_add_cart (CubeReport     *report,
                                   const char     *name,
                                   guint           ndims,
                                   const gint64   *sizes,
                                   const gboolean *periodic);
void         cube_cart_set_dim_name (CubeCart *cart, guint dim, const char *name);
void         cube_cart_set_coord (CubeCart *cart, CubeSysNode *node, const gint64 *coord);
/* Whether two topologies are the same: name, dimensions (size, periodicity, name) and the
 * coordinate of every node. */
gboolean     cube_cart_same (const CubeCart *a, const CubeCart *b);
/* For each topology of @report, the index of the first topology the same as it (cube_cart_same;
 * its own index for the first of its kind): report->topologies->len entries, g_free them.
 * A code that creates its communicators again and again defines the same grid many times
 * (CP2K 2023.1: 84 topologies, 3 different ones). */
guint       *cube_report_cart_classes (const CubeReport *report);

/* Values in CUBE 3 semantics (metric-inclusive, call-exclusive). */
void         cube_report_set_value (CubeReport *report,
                                    CubeMetric *metric,
                                    CubeCnode  *cnode,
                                    guint       location,
                                    double      value);
void         cube_report_add_value (CubeReport *report,
                                    CubeMetric *metric,
                                    CubeCnode  *cnode,
                                    guint       location,
                                    double      value);

/* The attribute that marks a difference report: cube_algebra_diff sets it ("A − B" with the
 * two reports' file names), the writers keep it, so a difference.cube read back is known. */
#define CUBE_ATTR_DIFFERENCE "kubus::difference"

/* TRUE for a plain report: measured or analysed values, none negative by construction, so a
 * browser colours it on a sequential scale from 0 (never the diverging one). FALSE for a
 * difference report (CUBE_ATTR_DIFFERENCE), whose values have either sign. A negative value in
 * a plain report is a defect of its producer, not a difference. Readers turn rounding residues
 * of Cube 4's call-tree conversion into exact zeros (cube_report_get_row). */
gboolean     cube_report_is_plain (const CubeReport *report);

/* ---- reading stored values ---------------------------------------------------------------- */

/* Fills @out (report->locations->len doubles) with the stored values of (metric, cnode) in
 * CUBE 3 semantics. Returns FALSE with @error if a lazily read row is corrupt; all zeros and
 * TRUE when the row is absent or the metric stores no data (derived). */
gboolean     cube_report_get_row (CubeReport       *report,
                                  const CubeMetric *metric,
                                  const CubeCnode  *cnode,
                                  double           *out,
                                  GError          **error);
gboolean     cube_metric_has_data (const CubeMetric *metric);  /* FALSE for derived/unsupported */
/* TRUE for the "no value" marker of a MINDOUBLE (DBL_MAX and above) or MAXDOUBLE (-DBL_MAX and
 * below) metric: a location that never visited the call path. Aggregates pass over it; views
 * show it as 0. */
gboolean     cube_value_is_none (const CubeMetric *metric, double value);
char        *cube_metric_expand_url (const CubeReport *report, const CubeMetric *metric, guint mirror);

/* Lookup helpers (NULL if absent). */
CubeMetric  *cube_report_find_metric (const CubeReport *report, const char *uniq_name);
CubeMetric  *cube_report_metric_by_file_id (const CubeReport *report, gint64 id);
CubeCnode   *cube_report_cnode_by_file_id (const CubeReport *report, gint64 id);

/* ---- writing ------------------------------------------------------------------------------ */

/* Writes CUBE 3 XML atomically (temp file in the same folder + rename); never leaves a
 * half-written file. Readable by CubeGUI / cube_dump. */
gboolean     cube_report_write (CubeReport *report, const char *path, GError **error);
/* For the signal handlers of single-threaded programs (kubus-cube): removes the temporary file
 * of a cube_report_write in progress, so an interrupted run leaves nothing behind.
 * Async-signal-safe. */
void         cube_report_write_abort (void);

/* ---- values as a browser shows them ---------------------------------------------------------
 *
 * A selection in a tree is a list of (node, expanded) pairs: a collapsed node contributes its
 * inclusive value, an expanded one its exclusive value. Several selected nodes add up (min/max
 * for MINDOUBLE/MAXDOUBLE metrics). A NULL / empty system selection means all locations.
 * The report caches per-metric per-call-path totals, so repeated calls are cheap. */

typedef struct
{
  const CubeMetric *metric;
  gboolean          expanded;
} CubeMetricSel;

typedef struct
{
  const CubeCnode *cnode;
  gboolean         expanded;
} CubeCnodeSel;

typedef struct
{
  const CubeSysNode *node;
  gboolean           expanded;
} CubeSysSel;

/* Metric pane: for every metric m, its value over all call paths and all locations,
 * collapsed (inclusive along the metric tree) into @incl and expanded (exclusive) into @excl
 * (each report->metrics->len doubles; either may be NULL). */
gboolean cube_values_metrics (CubeReport *report, double *incl, double *excl, GError **error);

/* One metric of the metric pane, on demand: @expanded FALSE gives the collapsed value of
 * cube_values_metrics (inclusive along the metric tree), TRUE the expanded one. Reads only the
 * rows it needs (for a metric stored inclusive along the call tree, the roots' rows) and keeps
 * none of them; the value is cached, so a browser can ask for a metric when it becomes visible
 * (its parent expanded) instead of reading every metric when a report opens. */
gboolean cube_values_metric_total (CubeReport       *report,
                                   const CubeMetric *metric,
                                   gboolean          expanded,
                                   double           *value,
                                   GError          **error);

/* Call pane: for the metric selection, per call path (report->cnodes->len doubles) the
 * collapsed (inclusive along the call tree) and expanded (exclusive) values over @sys
 * (NULL/0 = all locations). */
gboolean cube_values_cnodes (CubeReport          *report,
                             const CubeMetricSel *msel,
                             guint                n_msel,
                             const CubeSysSel    *sys,
                             guint                n_sys,
                             double              *incl,
                             double              *excl,
                             GError             **error);

/* System pane: per location (report->locations->len doubles) for the metric and call path
 * selections. Aggregate to system tree nodes with cube_values_sysnodes. */
gboolean cube_values_locations (CubeReport          *report,
                                const CubeMetricSel *msel,
                                guint                n_msel,
                                const CubeCnodeSel  *csel,
                                guint                n_csel,
                                double              *out,
                                GError             **error);
/* The same, but a location without a value of a MINDOUBLE/MAXDOUBLE metric (it never visited
 * the call paths) keeps its marker (±infinity or ±DBL_MAX) instead of 0, so that
 * cube_values_sysnodes passes over it: a process's minimum is its threads' minimum, not 0.
 * cube_values_none_to_zero turns the markers into 0 for display. */
gboolean cube_values_locations_keep_none (CubeReport          *report,
                                          const CubeMetricSel *msel,
                                          guint                n_msel,
                                          const CubeCnodeSel  *csel,
                                          guint                n_csel,
                                          double              *out,
                                          GError             **error);
void     cube_values_none_to_zero (double *values,
                                   guint   n);

/* From per-location values to per system node (report->sysnodes->len) collapsed/expanded values:
 * collapsed = aggregate over the node's leaves, expanded = the node's own value (its own
 * location's value for a leaf, 0 for inner nodes). */
void     cube_values_sysnodes (const CubeReport *report,
                               const CubeMetric *metric_for_aggregation,
                               const double     *per_location,
                               double           *incl,
                               double           *excl);

/* Single value: metric selection × call selection × system selection. */
double   cube_value (CubeReport          *report,
                     const CubeMetricSel *msel,
                     guint                n_msel,
                     const CubeCnodeSel  *csel,
                     guint                n_csel,
                     const CubeSysSel    *sys,
                     guint                n_sys);

/* ---- algebra (Song et al.) ------------------------------------------------------------------
 * Trees are integrated: metrics matched by uniq name, call paths by region name along the path,
 * system by process rank / thread rank. Results are ordinary in-memory reports. */
CubeReport *cube_algebra_diff (CubeReport *a, CubeReport *b, GError **error);   /* a − b */
CubeReport *cube_algebra_merge (CubeReport **reports, guint n, GError **error);
CubeReport *cube_algebra_mean (CubeReport **reports, guint n, GError **error);

/* ---- small helpers -------------------------------------------------------------------------- */
const char *cube_dtype_to_string (CubeDtype dtype);
CubeDtype   cube_dtype_from_string (const char *name);
const char *cube_metric_kind_to_string (CubeMetricKind kind);
const char *cube_format_to_string (CubeFormat format);

G_END_DECLS
