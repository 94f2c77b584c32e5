/* cube-model.c — the report data model: builder, lookups, attributes, stored rows.
 *
 * Rows are plain arrays of doubles, one per location, allocated only for (metric, call path)
 * pairs that have values: the big reports are mostly sparse and a double per stored value is
 * the memory budget.
 */
#include "cube-private.h"

#include <float.h>
#include <math.h>

#include <glib/gi18n.h>
#include <string.h>
#include <sys/mman.h>

G_DEFINE_QUARK (cube - error - quark, cube_error)

/* ---- small helpers ----------------------------------------------------------------------- */

static void
cube_attr_free (gpointer data)
{
  CubeAttr *attr = data;

  g_free (attr->key);
  g_free (attr->value);
  g_free (attr);
}

void
cube_node_add_attr (GPtrArray **attrs, const char *key, const char *value)
{
  CubeAttr *attr;

  if (*attrs == NULL)
    *attrs = g_ptr_array_new_with_free_func (cube_attr_free);
  attr = g_new0 (CubeAttr, 1);
  attr->key = g_strdup (key ? key : "");
  attr->value = g_strdup (value ? value : "");
  g_ptr_array_add (*attrs, attr);
}

void
cube_metric_set_string (char **field, const char *value)
{
  g_free (*field);
  *field = g_strdup (value);
}

void
cube_set_error (GError **error, CubeError code, const char *path, const char *format, ...)
{
  va_list          args;
  g_autofree char *msg = NULL;

  if (error == NULL)
    return;
  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  if (path != NULL)
    g_set_error (error, CUBE_ERROR, code, "%s: %s", path, msg);
  else
    g_set_error_literal (error, CUBE_ERROR, code, msg);
}

static GHashTable *
id_table_new (void)
{
  return g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

static void
id_table_insert (GHashTable *table, gint64 id, gpointer node)
{
  gint64 *key = g_new (gint64, 1);

  *key = id;
  g_hash_table_insert (table, key, node);
}

/* Moves @node from @old_id to @new_id in @table; FALSE if @new_id belongs to another node. */
static gboolean
id_table_move (GHashTable *table, gint64 old_id, gint64 new_id, gpointer node)
{
  gpointer other = g_hash_table_lookup (table, &new_id);

  if (other == node)
    return TRUE;
  if (other != NULL)
    return FALSE;
  if (g_hash_table_lookup (table, &old_id) == node)
    g_hash_table_remove (table, &old_id);
  id_table_insert (table, new_id, node);
  return TRUE;
}

static gint64
sys_key (CubeSysKind kind, gint64 id)
{
  return (gint64)(((guint64)kind << 56) | ((guint64)id & G_GUINT64_CONSTANT (0x00ffffffffffffff)));
}

/* CUBE 3 machine/node and Cube 4 system tree nodes share id spaces per kind; process and
 * location group share PROCESS, thread and location share THREAD. */

/* ---- row memory -------------------------------------------------------------------------------
 *
 * A big report is ~100 MB of rows of a few kB each. From malloc every 4 kB page of that costs
 * a page fault; carved out of large blocks that ask for transparent huge pages it costs one
 * fault per 2 MB, which is a good part of the load time. Rows all have the same length, so a
 * dropped row goes onto a free list and is reused. Under AddressSanitizer every row is its own
 * heap block, so overruns are still caught.
 */

#if defined(__SANITIZE_ADDRESS__)
#define ROW_ARENA_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROW_ARENA_HEAP 1
#endif
#endif

#define HUGE_SIZE ((gsize)2 * 1024 * 1024)

typedef struct
{
  char    *base;
  gsize    size;
  gboolean mapped;
} RowBlock;

typedef struct
{
  GArray  *blocks; /* RowBlock */
  char    *cur;
  gsize    left;
  gboolean cur_zero;  /* the rest of the current block is untouched zero memory */
  guint    row_len;   /* row length the free list holds */
  gpointer free_head; /* dropped rows, linked through their first bytes */
  gsize    next_size;
} RowArena;

static void
row_arena_free_all (gpointer data)
{
  RowArena *a = data;

  for (guint i = 0; a->blocks != NULL && i < a->blocks->len; i++)
    {
      RowBlock *b = &g_array_index (a->blocks, RowBlock, i);
      if (b->mapped)
        munmap (b->base, b->size);
      else
        g_free (b->base);
    }
  if (a->blocks != NULL)
    g_array_unref (a->blocks);
  g_free (a);
}

#ifndef ROW_ARENA_HEAP
static gboolean
row_arena_new_block (RowArena *a, gsize need)
{
  gsize    size = MAX (a->next_size, need);
  RowBlock b = { 0 };

  a->next_size = MIN (a->next_size * 2, (gsize)32 * 1024 * 1024);
  if (size >= 2 * HUGE_SIZE)
    {
      /* 2 MB aligned, so that the kernel can back it with huge pages. */
      gsize len = size + HUGE_SIZE;
      char *raw = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (raw != MAP_FAILED)
        {
          char *start = (char *)(((guintptr)raw + HUGE_SIZE - 1) & ~(guintptr)(HUGE_SIZE - 1));
          gsize head = (gsize)(start - raw);
          if (head > 0)
            munmap (raw, head);
          if (len - head > size)
            munmap (start + size, len - head - size);
#ifdef MADV_HUGEPAGE
          madvise (start, size, MADV_HUGEPAGE);
#endif
          b.base = start;
          b.size = size;
          b.mapped = TRUE;
        }
    }
  if (b.base == NULL)
    {
      b.base = g_malloc0 (size);
      b.size = size;
    }
  g_array_append_val (a->blocks, b);
  a->cur = b.base;
  a->left = size;
  a->cur_zero = TRUE;
  return TRUE;
}
#endif

static double *
row_new (CubeReport *report, guint len)
{
  gsize bytes = (gsize)MAX (len, 1) * sizeof (double);

#ifdef ROW_ARENA_HEAP
  (void)report;
  return g_malloc0 (bytes);
#else
  RowArena *a = report->priv->row_arena;
  double   *row;

  if (a == NULL)
    {
      a = g_new0 (RowArena, 1);
      a->blocks = g_array_new (FALSE, FALSE, sizeof (RowBlock));
      a->next_size = 64 * 1024;
      report->priv->row_arena = a;
    }
  if (a->row_len != len)
    {
      a->row_len = len;
      a->free_head = NULL;
    }
  if (a->free_head != NULL)
    {
      row = a->free_head;
      memcpy (&a->free_head, row, sizeof (gpointer));
      memset (row, 0, bytes);
      return row;
    }
  if (a->left < bytes)
    row_arena_new_block (a, bytes);
  row = (double *)a->cur;
  a->cur += bytes;
  a->left -= bytes;
  if (!a->cur_zero)
    memset (row, 0, bytes);
  return row;
#endif
}

static void
row_release (CubeReport *report, double *row, guint len)
{
#ifdef ROW_ARENA_HEAP
  (void)report;
  (void)len;
  g_free (row);
#else
  RowArena *a = report->priv->row_arena;

  if (row == NULL || a == NULL || len != a->row_len)
    return; /* stays in its block until the report goes */
  memcpy (row, &a->free_head, sizeof (gpointer));
  a->free_head = row;
#endif
}

/* ---- report -------------------------------------------------------------------------------- */

CubeReport *
cube_report_new (void)
{
  CubeReport *report = g_new0 (CubeReport, 1);

  report->format = CUBE_FORMAT_MEMORY;
  report->version = g_strdup ("3.0");
  report->attrs = g_ptr_array_new_with_free_func (cube_attr_free);
  report->mirrors = g_ptr_array_new_with_free_func (g_free);
  report->metrics = g_ptr_array_new ();
  report->metric_roots = g_ptr_array_new ();
  report->regions = g_ptr_array_new ();
  report->cnodes = g_ptr_array_new ();
  report->cnode_roots = g_ptr_array_new ();
  report->sysnodes = g_ptr_array_new ();
  report->system_roots = g_ptr_array_new ();
  report->locations = g_ptr_array_new ();
  report->topologies = g_ptr_array_new ();
  report->priv = g_new0 (CubeReportPriv, 1);
  report->priv->metric_by_uniq = g_hash_table_new (g_str_hash, g_str_equal);
  report->priv->metric_by_id = id_table_new ();
  report->priv->region_by_id = id_table_new ();
  report->priv->cnode_by_id = id_table_new ();
  report->priv->sysnode_by_id = id_table_new ();
  return report;
}

static void
metric_data_free (CubeReport *report, CubeMetricData *data)
{
  if (data == NULL)
    return;
#ifdef ROW_ARENA_HEAP
  for (guint i = 0; i < data->n_rows; i++)
    row_release (report, data->rows[i], report->priv->row_len);
#else
  (void)report; /* the rows go with the arena */
#endif
  g_free (data->rows);
  g_free (data->row_loaded);
  if (data->loader_data_free != NULL && data->loader_data != NULL)
    data->loader_data_free (data->loader_data);
  g_free (data);
}

static void
metric_free (CubeReport *report, CubeMetric *m)
{
  g_free (m->uniq_name);
  g_free (m->disp_name);
  g_free (m->dtype_name);
  g_free (m->uom);
  g_free (m->val);
  g_free (m->url);
  g_free (m->descr);
  g_free (m->cubepl);
  g_clear_pointer (&m->attrs, g_ptr_array_unref);
  g_clear_pointer (&m->children, g_ptr_array_unref);
  metric_data_free (report, m->data);
  g_free (m);
}

static void
region_free (CubeRegion *r)
{
  g_free (r->name);
  g_free (r->mangled_name);
  g_free (r->mod);
  g_free (r->paradigm);
  g_free (r->role);
  g_free (r->url);
  g_free (r->descr);
  g_clear_pointer (&r->attrs, g_ptr_array_unref);
  g_free (r);
}

static void
cnode_free (CubeCnode *c)
{
  g_free (c->mod);
  g_clear_pointer (&c->params, g_ptr_array_unref);
  g_clear_pointer (&c->attrs, g_ptr_array_unref);
  g_clear_pointer (&c->children, g_ptr_array_unref);
  g_free (c);
}

static void
sysnode_free (CubeSysNode *s)
{
  g_free (s->name);
  g_free (s->descr);
  g_free (s->class_name);
  g_clear_pointer (&s->attrs, g_ptr_array_unref);
  g_clear_pointer (&s->children, g_ptr_array_unref);
  g_free (s);
}

static void
cart_free (CubeCart *cart)
{
  for (guint d = 0; d < cart->ndims; d++)
    g_free (cart->dims[d].name);
  g_free (cart->dims);
  for (guint i = 0; i < cart->coords->len; i++)
    {
      CubeCartCoord *coord = g_ptr_array_index (cart->coords, i);
      g_free (coord->coord);
      g_free (coord);
    }
  g_ptr_array_unref (cart->coords);
  g_clear_pointer (&cart->coord_of_node, g_hash_table_unref);
  g_free (cart->name);
  g_free (cart);
}

void
cube_report_free (CubeReport *report)
{
  if (report == NULL)
    return;
  /* The value cache and the reader source may refer to metrics: free them first. */
  if (report->priv->value_cache_free != NULL && report->priv->value_cache != NULL)
    report->priv->value_cache_free (report->priv->value_cache);
  for (guint i = 0; i < report->metrics->len; i++)
    {
      CubeMetric *m = g_ptr_array_index (report->metrics, i);
      /* Loader data may hold pointers into the source (mmap): free it before the source. */
      if (m->data != NULL && m->data->loader_data_free != NULL && m->data->loader_data != NULL)
        {
          m->data->loader_data_free (m->data->loader_data);
          m->data->loader_data = NULL;
        }
    }
  if (report->priv->source_free != NULL && report->priv->source != NULL)
    report->priv->source_free (report->priv->source);
  for (guint i = 0; i < report->metrics->len; i++)
    metric_free (report, g_ptr_array_index (report->metrics, i));
  g_clear_pointer (&report->priv->row_arena, row_arena_free_all);
  for (guint i = 0; i < report->regions->len; i++)
    region_free (g_ptr_array_index (report->regions, i));
  for (guint i = 0; i < report->cnodes->len; i++)
    cnode_free (g_ptr_array_index (report->cnodes, i));
  for (guint i = 0; i < report->sysnodes->len; i++)
    sysnode_free (g_ptr_array_index (report->sysnodes, i));
  for (guint i = 0; i < report->topologies->len; i++)
    cart_free (g_ptr_array_index (report->topologies, i));
  g_ptr_array_unref (report->metrics);
  g_ptr_array_unref (report->metric_roots);
  g_ptr_array_unref (report->regions);
  g_ptr_array_unref (report->cnodes);
  g_ptr_array_unref (report->cnode_roots);
  g_ptr_array_unref (report->sysnodes);
  g_ptr_array_unref (report->system_roots);
  g_ptr_array_unref (report->locations);
  g_ptr_array_unref (report->topologies);
  g_ptr_array_unref (report->attrs);
  g_ptr_array_unref (report->mirrors);
  g_hash_table_unref (report->priv->metric_by_uniq);
  g_hash_table_unref (report->priv->metric_by_id);
  g_hash_table_unref (report->priv->region_by_id);
  g_hash_table_unref (report->priv->cnode_by_id);
  g_hash_table_unref (report->priv->sysnode_by_id);
  g_free (report->priv);
  g_free (report->path);
  g_free (report->version);
  g_free (report);
}

void
cube_report_set_attr (CubeReport *report, const char *key, const char *value)
{
  g_return_if_fail (report != NULL && key != NULL);

  if (g_strcmp0 (key, "CUBE_CT_AGGR") == 0)
    {
      report->ct_aggr_max = value != NULL && g_ascii_strcasecmp (value, "MAX") == 0;
      cube_report_invalidate_values (report); /* the totals of every metric change */
    }
  for (guint i = 0; i < report->attrs->len; i++)
    {
      CubeAttr *attr = g_ptr_array_index (report->attrs, i);
      if (strcmp (attr->key, key) == 0)
        {
          cube_metric_set_string (&attr->value, value ? value : "");
          return;
        }
    }
  cube_node_add_attr (&report->attrs, key, value);
}

gboolean
cube_report_is_plain (const CubeReport *report)
{
  g_return_val_if_fail (report != NULL, TRUE);
  return cube_report_get_attr (report, CUBE_ATTR_DIFFERENCE) == NULL;
}

const char *
cube_report_get_attr (const CubeReport *report, const char *key)
{
  g_return_val_if_fail (report != NULL && key != NULL, NULL);

  for (guint i = 0; i < report->attrs->len; i++)
    {
      CubeAttr *attr = g_ptr_array_index (report->attrs, i);
      if (strcmp (attr->key, key) == 0)
        return attr->value;
    }
  return NULL;
}

void
cube_report_add_mirror (CubeReport *report, const char *url)
{
  g_return_if_fail (report != NULL && url != NULL);
  g_ptr_array_add (report->mirrors, g_strdup (url));
}

/* ---- metrics -------------------------------------------------------------------------------- */

CubeMetric *
cube_report_add_metric (CubeReport *report,
                        CubeMetric *parent,
                        const char *uniq_name,
                        const char *disp_name,
                        CubeDtype   dtype,
                        const char *uom,
                        const char *url,
                        const char *descr)
{
  CubeMetric *m;
  guint       pos;

  g_return_val_if_fail (report != NULL, NULL);
  g_return_val_if_fail (uniq_name != NULL, NULL);

  m = g_new0 (CubeMetric, 1);
  m->file_id = report->priv->next_metric_id++;
  m->uniq_name = g_strdup (uniq_name);
  m->disp_name = g_strdup (disp_name ? disp_name : uniq_name);
  m->dtype = dtype;
  m->dtype_name = g_strdup (dtype == CUBE_DTYPE_DOUBLE  ? "FLOAT"
                            : dtype == CUBE_DTYPE_INT64 ? "INTEGER"
                                                        : cube_dtype_to_string (dtype));
  m->uom = g_strdup (uom ? uom : "");
  m->url = g_strdup (url ? url : "");
  m->descr = g_strdup (descr ? descr : "");
  m->kind = CUBE_METRIC_EXCLUSIVE;
  m->convertible = TRUE;
  m->cacheable = TRUE;
  m->children = g_ptr_array_new ();
  m->parent = parent;
  m->data = g_new0 (CubeMetricData, 1);

  /* Keep report->metrics in depth-first pre-order: a child goes after its parent's last
   * descendant. Metric data is per metric, so only the indices move. */
  if (parent != NULL)
    {
      const CubeMetric *last = parent;
      while (last->children->len > 0)
        last = g_ptr_array_index (last->children, last->children->len - 1);
      pos = last->index + 1;
      m->depth = parent->depth + 1;
      g_ptr_array_add (parent->children, m);
    }
  else
    {
      pos = report->metrics->len;
      g_ptr_array_add (report->metric_roots, m);
    }
  g_ptr_array_insert (report->metrics, pos, m);
  for (guint i = pos; i < report->metrics->len; i++)
    ((CubeMetric *)g_ptr_array_index (report->metrics, i))->index = i;

  if (!g_hash_table_contains (report->priv->metric_by_uniq, m->uniq_name))
    g_hash_table_insert (report->priv->metric_by_uniq, m->uniq_name, m);
  id_table_insert (report->priv->metric_by_id, m->file_id, m);
  cube_report_invalidate_values (report);
  return m;
}

gboolean
cube_metric_set_file_id (CubeReport *report, CubeMetric *metric, gint64 id)
{
  if (!id_table_move (report->priv->metric_by_id, metric->file_id, id, metric))
    return FALSE;
  metric->file_id = id;
  if (id >= report->priv->next_metric_id)
    report->priv->next_metric_id = id + 1;
  return TRUE;
}

void
cube_metric_set_kind (CubeMetric *metric, CubeMetricKind kind)
{
  metric->kind = kind;
}

gboolean
cube_metric_set_uniq_name (CubeReport *report, CubeMetric *metric, const char *uniq_name)
{
  GHashTable *table = report->priv->metric_by_uniq;
  CubeMetric *other = g_hash_table_lookup (table, uniq_name);

  if (other != NULL && other != metric)
    return FALSE;
  if (g_hash_table_lookup (table, metric->uniq_name) == metric)
    g_hash_table_remove (table, metric->uniq_name);
  cube_metric_set_string (&metric->uniq_name, uniq_name);
  g_hash_table_insert (table, metric->uniq_name, metric);
  return TRUE;
}

void
cube_metric_set_dtype (CubeMetric *metric, const char *dtype_name)
{
  metric->dtype = cube_dtype_from_string (dtype_name);
  cube_metric_set_string (&metric->dtype_name, dtype_name);
}

CubeMetric *
cube_report_find_metric (const CubeReport *report, const char *uniq_name)
{
  g_return_val_if_fail (report != NULL && uniq_name != NULL, NULL);
  return g_hash_table_lookup (report->priv->metric_by_uniq, uniq_name);
}

CubeMetric *
cube_report_metric_by_file_id (const CubeReport *report, gint64 id)
{
  g_return_val_if_fail (report != NULL, NULL);
  return g_hash_table_lookup (report->priv->metric_by_id, &id);
}

gboolean
cube_metric_has_data (const CubeMetric *metric)
{
  g_return_val_if_fail (metric != NULL, FALSE);
  if (metric->dtype == CUBE_DTYPE_UNSUPPORTED)
    return FALSE;
  switch (metric->kind)
    {
    case CUBE_METRIC_POSTDERIVED:
    case CUBE_METRIC_PREDERIVED_INCLUSIVE:
    case CUBE_METRIC_PREDERIVED_EXCLUSIVE:
      return FALSE;
    default:
      return TRUE;
    }
}

static gboolean
metric_val_is_void (const CubeMetric *m)
{
  const char *v = m->val;
  gsize       n;

  if (v == NULL)
    return FALSE;
  while (g_ascii_isspace (*v))
    v++;
  n = strlen (v);
  while (n > 0 && g_ascii_isspace (v[n - 1]))
    n--;
  return n == 4 && strncmp (v, "VOID", 4) == 0;
}

gboolean *
cube_report_void_metrics (const CubeReport *report)
{
  gboolean *is_void = g_new0 (gboolean, MAX (report->metrics->len, 1));

  /* report->metrics is in pre-order: a parent's flag is known before its children's. */
  for (guint i = 0; i < report->metrics->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (report->metrics, i);
      is_void[i] = metric_val_is_void (m) || (m->parent != NULL && is_void[m->parent->index]);
    }
  return is_void;
}

gboolean
cube_dtype_is_minmax (CubeDtype dtype)
{
  return dtype == CUBE_DTYPE_MINDOUBLE || dtype == CUBE_DTYPE_MAXDOUBLE;
}

/* cubelib's "no value" of a minimum is DBL_MAX (of a maximum -DBL_MAX): what a writer stores
 * for a location that never visited a call path (Kubus's profile does; Score-P writes 0). */
gboolean
cube_value_is_none (const CubeMetric *metric, double value)
{
  if (metric == NULL)
    return FALSE;
  if (metric->dtype == CUBE_DTYPE_MINDOUBLE)
    return value >= G_MAXDOUBLE;
  if (metric->dtype == CUBE_DTYPE_MAXDOUBLE)
    return value <= -G_MAXDOUBLE;
  return FALSE;
}

gboolean
cube_metric_child_contributes (const CubeMetric *parent, const CubeMetric *child)
{
  /* A min or a max is not a part of a sum: such children stand on their own. */
  return cube_metric_has_data (child) && cube_metric_has_data (parent)
         && !cube_dtype_is_minmax (child->dtype) && !cube_dtype_is_minmax (parent->dtype);
}

char *
cube_metric_expand_url (const CubeReport *report, const CubeMetric *metric, guint mirror)
{
  const char *at;

  g_return_val_if_fail (report != NULL && metric != NULL, NULL);
  if (metric->url == NULL)
    return NULL;
  at = strstr (metric->url, "@mirror@");
  if (at == NULL)
    return g_strdup (metric->url);
  if (mirror >= report->mirrors->len)
    return NULL;
  return g_strdup_printf ("%.*s%s%s", (int)(at - metric->url), metric->url,
                          (const char *)g_ptr_array_index (report->mirrors, mirror),
                          at + strlen ("@mirror@"));
}

/* ---- regions and call tree ----------------------------------------------------------------- */

CubeRegion *
cube_report_add_region (
    CubeReport *report, const char *name, const char *mod, gint64 begin_line, gint64 end_line)
{
  CubeRegion *r;

  g_return_val_if_fail (report != NULL, NULL);

  r = g_new0 (CubeRegion, 1);
  r->index = report->regions->len;
  r->file_id = report->priv->next_region_id++;
  r->name = g_strdup (name ? name : "");
  r->mod = g_strdup (mod ? mod : "");
  r->begin_line = begin_line;
  r->end_line = end_line;
  r->url = g_strdup ("");
  r->descr = g_strdup ("");
  g_ptr_array_add (report->regions, r);
  id_table_insert (report->priv->region_by_id, r->file_id, r);
  return r;
}

gboolean
cube_region_set_file_id (CubeReport *report, CubeRegion *region, gint64 id)
{
  if (!id_table_move (report->priv->region_by_id, region->file_id, id, region))
    return FALSE;
  region->file_id = id;
  if (id >= report->priv->next_region_id)
    report->priv->next_region_id = id + 1;
  return TRUE;
}

CubeRegion *
cube_report_region_by_file_id (const CubeReport *report, gint64 id)
{
  return g_hash_table_lookup (report->priv->region_by_id, &id);
}

CubeCnode *
cube_report_add_cnode (
    CubeReport *report, CubeCnode *parent, CubeRegion *callee, gint64 line, const char *mod)
{
  CubeCnode *c;
  guint      pos;

  g_return_val_if_fail (report != NULL, NULL);
  g_return_val_if_fail (callee != NULL, NULL);

  c = g_new0 (CubeCnode, 1);
  c->file_id = report->priv->next_cnode_id++;
  c->callee = callee;
  c->line = line;
  c->mod = g_strdup (mod ? mod : "");
  c->children = g_ptr_array_new ();
  c->parent = parent;

  /* Depth-first pre-order, as the readers produce it: a subtree is then the index range
   * [index, index + size). Appending in pre-order (the usual case) costs nothing extra. */
  if (parent != NULL)
    {
      const CubeCnode *last = parent;
      while (last->children->len > 0)
        last = g_ptr_array_index (last->children, last->children->len - 1);
      pos = last->index + 1;
      c->depth = parent->depth + 1;
      g_ptr_array_add (parent->children, c);
    }
  else
    {
      pos = report->cnodes->len;
      g_ptr_array_add (report->cnode_roots, c);
    }
  g_ptr_array_insert (report->cnodes, pos, c);
  for (guint i = pos; i < report->cnodes->len; i++)
    ((CubeCnode *)g_ptr_array_index (report->cnodes, i))->index = i;

  /* Rows are indexed by call path: shift the ones behind the insertion point. Appending at
   * the end (the readers' case) shifts nothing, so skip the walk over all metrics. */
  for (guint mi = 0; pos + 1 < report->cnodes->len && mi < report->metrics->len; mi++)
    {
      CubeMetricData *d = ((CubeMetric *)g_ptr_array_index (report->metrics, mi))->data;
      if (d == NULL || d->n_rows <= pos)
        continue;
      d->rows = g_renew (double *, d->rows, d->n_rows + 1);
      memmove (d->rows + pos + 1, d->rows + pos, (d->n_rows - pos) * sizeof (double *));
      d->rows[pos] = NULL;
      if (d->row_loaded != NULL)
        {
          d->row_loaded = g_renew (guint8, d->row_loaded, d->n_rows + 1);
          memmove (d->row_loaded + pos + 1, d->row_loaded + pos, d->n_rows - pos);
          d->row_loaded[pos] = 0;
        }
      d->n_rows++;
    }

  id_table_insert (report->priv->cnode_by_id, c->file_id, c);
  cube_report_invalidate_values (report);
  return c;
}

gboolean
cube_cnode_set_file_id (CubeReport *report, CubeCnode *cnode, gint64 id)
{
  if (!id_table_move (report->priv->cnode_by_id, cnode->file_id, id, cnode))
    return FALSE;
  cnode->file_id = id;
  if (id >= report->priv->next_cnode_id)
    report->priv->next_cnode_id = id + 1;
  return TRUE;
}

CubeCnode *
cube_report_cnode_by_file_id (const CubeReport *report, gint64 id)
{
  g_return_val_if_fail (report != NULL, NULL);
  return g_hash_table_lookup (report->priv->cnode_by_id, &id);
}

/* ---- system tree ---------------------------------------------------------------------------- */

static void
resize_rows (CubeReport *report, guint new_len)
{
  guint old_len = report->priv->row_len;

  report->priv->row_len = new_len;
  if (!report->priv->has_rows || new_len == old_len)
    return;
  for (guint mi = 0; mi < report->metrics->len; mi++)
    {
      CubeMetricData *d = ((CubeMetric *)g_ptr_array_index (report->metrics, mi))->data;
      for (guint r = 0; d != NULL && r < d->n_rows; r++)
        if (d->rows[r] != NULL)
          {
            double *wider = row_new (report, new_len);
            memcpy (wider, d->rows[r], MIN (old_len, new_len) * sizeof (double));
            row_release (report, d->rows[r], old_len);
            d->rows[r] = wider;
          }
    }
}

void
cube_cnode_set_source (CubeCnode *cnode, gint64 line, const char *mod)
{
  g_return_if_fail (cnode != NULL);
  cnode->line = line;
  g_free (cnode->mod);
  cnode->mod = g_strdup (mod ? mod : "");
}

CubeSysNode *
cube_report_add_sysnode (
    CubeReport *report, CubeSysNode *parent, CubeSysKind kind, const char *name, gint64 rank)
{
  CubeSysNode *s;

  g_return_val_if_fail (report != NULL, NULL);
  g_return_val_if_fail (kind <= CUBE_SYS_TREENODE, NULL);

  s = g_new0 (CubeSysNode, 1);
  s->index = report->sysnodes->len;
  s->kind = kind;
  s->file_id = report->priv->next_sys_id[kind]++;
  s->name = g_strdup (name ? name : "");
  s->rank = rank;
  s->location = -1;
  s->children = g_ptr_array_new ();
  s->parent = parent;
  if (parent != NULL)
    {
      s->depth = parent->depth + 1;
      g_ptr_array_add (parent->children, s);
    }
  else
    g_ptr_array_add (report->system_roots, s);
  g_ptr_array_add (report->sysnodes, s);
  if (kind == CUBE_SYS_THREAD)
    {
      /* Built reports: file id == location index (next_sys_id counts the threads).
       * Readers renumber with cube_sysnode_set_file_id + cube_report_sort_locations. */
      s->location = report->locations->len;
      g_ptr_array_add (report->locations, s);
      resize_rows (report, report->locations->len);
    }
  id_table_insert (report->priv->sysnode_by_id, sys_key (kind, s->file_id), s);
  cube_report_invalidate_values (report);
  return s;
}

gboolean
cube_sysnode_set_file_id (CubeReport *report, CubeSysNode *node, gint64 id)
{
  if (!id_table_move (report->priv->sysnode_by_id, sys_key (node->kind, node->file_id),
                      sys_key (node->kind, id), node))
    return FALSE;
  node->file_id = id;
  if (id >= report->priv->next_sys_id[node->kind])
    report->priv->next_sys_id[node->kind] = id + 1;
  return TRUE;
}

CubeSysNode *
cube_report_sysnode_by_file_id (const CubeReport *report, CubeSysKind kind, gint64 id)
{
  gint64 key = sys_key (kind, id);

  return g_hash_table_lookup (report->priv->sysnode_by_id, &key);
}

static int
compare_location_ids (gconstpointer a, gconstpointer b)
{
  const CubeSysNode *x = *(CubeSysNode *const *)a;
  const CubeSysNode *y = *(CubeSysNode *const *)b;

  return (x->file_id > y->file_id) - (x->file_id < y->file_id);
}

gboolean
cube_report_sort_locations (CubeReport *report, const char *path, GError **error)
{
  g_ptr_array_sort (report->locations, compare_location_ids);
  for (guint i = 0; i < report->locations->len; i++)
    {
      CubeSysNode *s = g_ptr_array_index (report->locations, i);
      if (s->file_id != (gint64)i)
        {
          cube_set_error (
              error, CUBE_ERROR_FORMAT, path,
              _ ("thread/location ids must be 0 … %u without gaps, but id %u is missing "
                 "(the next id is %lld)"),
              report->locations->len - 1, i, (long long) s->file_id);
          return FALSE;
        }
      s->location = i;
    }
  return TRUE;
}

/* ---- topologies ------------------------------------------------------------------------------ */

CubeCart *
cube_report_add_cart (CubeReport     *report,
                      const char     *name,
                      guint           ndims,
                      const gint64   *sizes,
                      const gboolean *periodic)
{
  CubeCart *cart;

  g_return_val_if_fail (report != NULL, NULL);

  cart = g_new0 (CubeCart, 1);
  cart->name = g_strdup (name);
  cart->ndims = ndims;
  cart->dims = g_new0 (CubeCartDim, MAX (ndims, 1));
  for (guint d = 0; d < ndims; d++)
    {
      cart->dims[d].size = sizes ? sizes[d] : 0;
      cart->dims[d].periodic = periodic ? periodic[d] : FALSE;
    }
  cart->coords = g_ptr_array_new ();
  cart->coord_of_node = g_hash_table_new (NULL, NULL);
  g_ptr_array_add (report->topologies, cart);
  return cart;
}

void
cube_cart_set_dim_name (CubeCart *cart, guint dim, const char *name)
{
  g_return_if_fail (cart != NULL && dim < cart->ndims);
  cube_metric_set_string (&cart->dims[dim].name, name);
}

void
cube_cart_set_coord (CubeCart *cart, CubeSysNode *node, const gint64 *coord)
{
  CubeCartCoord *c;

  g_return_if_fail (cart != NULL && node != NULL && coord != NULL);

  /* A hash, not a scan of the coordinates: a topology of 100 000 threads took 8 s to read. */
  c = g_hash_table_lookup (cart->coord_of_node, node);
  if (c != NULL)
    {
      memcpy (c->coord, coord, cart->ndims * sizeof (gint64));
      return;
    }
  c = g_new0 (CubeCartCoord, 1);
  c->node = node;
  c->coord = g_new0 (gint64, MAX (cart->ndims, 1));
  memcpy (c->coord, coord, cart->ndims * sizeof (gint64));
  g_ptr_array_add (cart->coords, c);
  g_hash_table_insert (cart->coord_of_node, node, c);
}

gboolean
cube_cart_same (const CubeCart *a, const CubeCart *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  if (g_strcmp0 (a->name, b->name) != 0 || a->ndims != b->ndims || a->coords->len != b->coords->len)
    return FALSE;
  for (guint d = 0; d < a->ndims; d++)
    if (a->dims[d].size != b->dims[d].size || !a->dims[d].periodic != !b->dims[d].periodic
        || g_strcmp0 (a->dims[d].name, b->dims[d].name) != 0)
      return FALSE;
  for (guint i = 0; i < a->coords->len; i++)
    {
      const CubeCartCoord *ca = g_ptr_array_index (a->coords, i);
      const CubeCartCoord *cb = g_hash_table_lookup (b->coord_of_node, ca->node);
      if (cb == NULL || memcmp (ca->coord, cb->coord, a->ndims * sizeof (gint64)) != 0)
        return FALSE;
    }
  return TRUE;
}

guint *
cube_report_cart_classes (const CubeReport *report)
{
  guint n = report->topologies->len;
  guint *classes = g_new0 (guint, MAX (n, 1));
  g_autoptr (GArray) firsts = g_array_new (FALSE, FALSE, sizeof (guint));

  /* against each different topology seen so far: few of them in the codes that repeat one */
  for (guint i = 0; i < n; i++)
    {
      const CubeCart *c = g_ptr_array_index (report->topologies, i);
      classes[i] = i;
      for (guint k = 0; k < firsts->len; k++)
        {
          guint f = g_array_index (firsts, guint, k);
          if (cube_cart_same (g_ptr_array_index (report->topologies, f), c))
            {
              classes[i] = f;
              break;
            }
        }
      if (classes[i] == i)
        g_array_append_val (firsts, i);
    }
  return classes;
}

/* ---- stored rows ---------------------------------------------------------------------------- */

static void
ensure_rows (CubeReport *report, CubeMetricData *d)
{
  guint n = report->cnodes->len;

  if (d->n_rows >= n)
    return;
  d->rows = g_renew (double *, d->rows, n);
  memset (d->rows + d->n_rows, 0, (n - d->n_rows) * sizeof (double *));
  if (d->loader != NULL || d->row_loaded != NULL)
    {
      d->row_loaded = g_renew (guint8, d->row_loaded, n);
      memset (d->row_loaded + d->n_rows, 0, n - d->n_rows);
    }
  d->n_rows = n;
}

double *
cube_metric_alloc_row (CubeReport *report, CubeMetric *metric, guint cnode_index)
{
  CubeMetricData *d = metric->data;

  g_return_val_if_fail (cnode_index < report->cnodes->len, NULL);
  ensure_rows (report, d);
  if (d->rows[cnode_index] == NULL)
    {
      report->priv->row_len = report->locations->len;
      d->rows[cnode_index] = row_new (report, report->priv->row_len);
      report->priv->has_rows = TRUE;
    }
  return d->rows[cnode_index];
}

void
cube_metric_drop_row (CubeReport *report, CubeMetric *metric, guint cnode_index)
{
  CubeMetricData *d = metric->data;

  if (cnode_index < d->n_rows && d->rows[cnode_index] != NULL)
    {
      row_release (report, d->rows[cnode_index], report->priv->row_len);
      d->rows[cnode_index] = NULL;
    }
}

void
cube_metric_set_loader (CubeReport    *report,
                        CubeMetric    *metric,
                        CubeRowLoader  loader,
                        gpointer       data,
                        GDestroyNotify data_free)
{
  CubeMetricData *d = metric->data;

  if (d->loader_data_free != NULL && d->loader_data != NULL)
    d->loader_data_free (d->loader_data);
  d->loader = loader;
  d->loader_data = data;
  d->loader_data_free = data_free;
  ensure_rows (report, d);
  if (d->row_loaded == NULL)
    d->row_loaded = g_new0 (guint8, MAX (d->n_rows, 1));
}

gboolean
cube_metric_raw_row (
    CubeReport *report, CubeMetric *metric, guint cnode_index, const double **row, GError **error)
{
  CubeMetricData *d = metric->data;

  *row = NULL;
  if (d == NULL || !cube_metric_has_data (metric))
    return TRUE;
  if (d->loader != NULL && (cnode_index >= d->n_rows || !d->row_loaded[cnode_index]))
    {
      double  *buf;
      gboolean nonzero = FALSE;
      guint    len = report->locations->len;

      ensure_rows (report, d);
      if (cnode_index >= d->n_rows)
        return TRUE;
      report->priv->row_len = len;
      report->priv->has_rows = TRUE;
      buf = row_new (report, len);
      if (!d->loader (report, metric, cnode_index, buf, error))
        {
          row_release (report, buf, len);
          return FALSE;
        }
      for (guint l = 0; l < len && !nonzero; l++)
        nonzero = buf[l] != 0.0;
      row_release (report, d->rows[cnode_index], len);
      d->rows[cnode_index] = nonzero ? buf : (row_release (report, buf, len), NULL);
      d->row_loaded[cnode_index] = 1;
    }
  if (cnode_index < d->n_rows)
    *row = d->rows[cnode_index];
  return TRUE;
}

void
cube_metric_set_scanner (CubeMetric *metric, CubeRowScanner scanner)
{
  metric->data->scanner = scanner;
}

gboolean
cube_metric_peek_row (CubeReport    *report,
                      CubeMetric    *metric,
                      guint          cnode_index,
                      double        *scratch,
                      const double **row,
                      GError       **error)
{
  CubeMetricData *d = metric->data;

  *row = NULL;
  if (d == NULL || !cube_metric_has_data (metric))
    return TRUE;
  if (d->loader == NULL || (cnode_index < d->n_rows && d->row_loaded[cnode_index]))
    {
      if (cnode_index < d->n_rows)
        *row = d->rows[cnode_index];
      return TRUE;
    }
  if (cnode_index >= report->cnodes->len)
    return TRUE;
  if (!d->loader (report, metric, cnode_index, scratch, error))
    return FALSE;
  for (guint l = 0; l < report->locations->len; l++)
    if (scratch[l] != 0.0)
      {
        *row = scratch;
        break;
      }
  return TRUE;
}

typedef struct
{
  const guint8  *loaded;   /* rows the model holds: visited from there, not from the file */
  CubeRowVisitor visit;
  gpointer       user_data;
} ScanFilter;

static gboolean
scan_unloaded (guint cnode_index, const double *row, gpointer user_data, GError **error)
{
  ScanFilter *f = user_data;

  if (f->loaded[cnode_index])
    return TRUE;
  return f->visit (cnode_index, row, f->user_data, error);
}

gboolean
cube_metric_scan_rows (CubeReport     *report,
                       CubeMetric     *metric,
                       CubeRowVisitor  visit,
                       gpointer        user_data,
                       GError        **error)
{
  CubeMetricData    *d = metric->data;
  g_autofree double *scratch = NULL;

  if (d == NULL || !cube_metric_has_data (metric))
    return TRUE;
  if (d->loader != NULL && d->scanner != NULL)
    {
      ScanFilter f = { d->row_loaded, visit, user_data };
      gboolean   any_loaded = FALSE;

      /* Rows the model holds (read before, or set since) count as they are there. */
      for (guint c = 0; c < d->n_rows; c++)
        if (d->row_loaded[c])
          {
            any_loaded = TRUE;
            if (d->rows[c] != NULL && !visit (c, d->rows[c], user_data, error))
              return FALSE;
          }
      return any_loaded ? d->scanner (report, metric, scan_unloaded, &f, error)
                        : d->scanner (report, metric, visit, user_data, error);
    }
  if (d->loader != NULL)
    scratch = g_new (double, MAX (report->locations->len, 1));
  for (guint c = 0; c < report->cnodes->len; c++)
    {
      const double *row;

      if (!cube_metric_peek_row (report, metric, c, scratch, &row, error))
        return FALSE;
      if (row != NULL && !visit (c, row, user_data, error))
        return FALSE;
    }
  return TRUE;
}

/* Exclusive-along-the-call-tree row of @metric as stored (metric dimension untouched). @keep:
 * rows read lazily stay in the model (cube_metric_raw_row); else they are decoded into
 * buffers and dropped (cube_metric_peek_row). */
static gboolean
call_exclusive_row (CubeReport      *report,
                    CubeMetric      *metric,
                    const CubeCnode *cnode,
                    gboolean         keep,
                    double          *out,
                    GError         **error)
{
  guint              len = report->locations->len;
  const double      *row;
  g_autofree double *scratch = keep ? NULL : g_new (double, MAX (len, 1));

  if (keep ? !cube_metric_raw_row (report, metric, cnode->index, &row, error)
           : !cube_metric_peek_row (report, metric, cnode->index, out, &row, error))
    return FALSE;
  if (row == NULL)
    memset (out, 0, len * sizeof (double));
  else if (row != out)
    memcpy (out, row, len * sizeof (double));
  /* A min or max over a subtree cannot be undone: such rows are shown as stored. */
  if (metric->data->stored_call_inclusive && !cube_dtype_is_minmax (metric->dtype)
      && cnode->children->len > 0)
    {
      g_autofree double *own = g_memdup2 (out, MAX (len, 1) * sizeof (double));
      g_autofree double *mag = g_new0 (double, MAX (len, 1));
      guint              n = 0;

      for (guint k = 0; k < cnode->children->len; k++)
        {
          const CubeCnode *child = g_ptr_array_index (cnode->children, k);
          if (keep ? !cube_metric_raw_row (report, metric, child->index, &row, error)
                   : !cube_metric_peek_row (report, metric, child->index, scratch, &row, error))
            return FALSE;
          if (row == NULL)
            continue;
          n++;
          for (guint l = 0; l < len; l++)
            {
              out[l] -= row[l];
              mag[l] += fabs (row[l]);
            }
        }
      if (n > 0)
        for (guint l = 0; l < len; l++)
          if (out[l] == 0.0 /* also -0 */ || cube_value_is_residue (out[l], own[l], mag[l], n))
            out[l] = 0.0;
    }
  return TRUE;
}

gboolean
cube_value_is_residue (double diff, double a, double b_abs_sum, guint n_terms)
{
  double m;


  /* a stored inclusive value a, minus n children c_1..c_n: when the true exclusive part is
   * zero, a and every c_k are roundings (relative error u = DBL_EPSILON / 2 each) of exact
   * values with A = sum C_k, the producer formed a by adding n terms (n u error, first order),
   * and we subtract n terms (another n u): |diff| <= (u + n u + n u + n u) max(|a|, sum |c_k|)
   * < 2 (n + 1) u M = (n + 1) DBL_EPSILON M. The last subtraction is exact (Sterbenz). */
  m = MAX (fabs (a), b_abs_sum);
  return diff != 0.0 && fabs (diff) <= (double) (n_terms + 1) * DBL_EPSILON * m;
}

static gboolean
get_row (CubeReport       *report,
         const CubeMetric *metric,
         const CubeCnode  *cnode,
         gboolean          keep,
         double           *out,
         GError          **error)
{
  CubeMetric *m = (CubeMetric *)metric;
  guint       len;

  g_return_val_if_fail (report != NULL && metric != NULL && cnode != NULL && out != NULL, FALSE);

  len = report->locations->len;
  if (!cube_metric_has_data (m))
    {
      memset (out, 0, len * sizeof (double));
      return TRUE;
    }
  if (!call_exclusive_row (report, m, cnode, keep, out, error))
    return FALSE;
  if (m->data->stored_metric_exclusive && !cube_dtype_is_minmax (m->dtype))
    {
      g_autofree double *tmp = g_new (double, MAX (len, 1));
      for (guint k = 0; k < m->children->len; k++)
        {
          const CubeMetric *child = g_ptr_array_index (m->children, k);
          if (!cube_metric_child_contributes (m, child))
            continue;
          if (!get_row (report, child, cnode, keep, tmp, error))
            return FALSE;
          for (guint l = 0; l < len; l++)
            out[l] += tmp[l];
        }
    }
  return TRUE;
}

gboolean
cube_report_get_row (CubeReport       *report,
                     const CubeMetric *metric,
                     const CubeCnode  *cnode,
                     double           *out,
                     GError          **error)
{
  return get_row (report, metric, cnode, TRUE, out, error);
}

gboolean
cube_report_get_row_transient (CubeReport       *report,
                               const CubeMetric *metric,
                               const CubeCnode  *cnode,
                               double           *out,
                               GError          **error)
{
  return get_row (report, metric, cnode, FALSE, out, error);
}

static double *
writable_row (CubeReport *report, CubeMetric *metric, CubeCnode *cnode, guint location)
{
  g_return_val_if_fail (report != NULL && metric != NULL && cnode != NULL, NULL);
  g_return_val_if_fail (location < report->locations->len, NULL);
  g_return_val_if_fail (cnode->index < report->cnodes->len
                            && g_ptr_array_index (report->cnodes, cnode->index) == cnode,
                        NULL);
  /* Values set through the API are CUBE 3 semantics: they cannot go into a row stored the
   * Cube 4 way without converting the whole metric. */
  g_return_val_if_fail (
      !metric->data->stored_call_inclusive && !metric->data->stored_metric_exclusive, NULL);
  return cube_metric_alloc_row (report, metric, cnode->index);
}

void
cube_report_set_value (
    CubeReport *report, CubeMetric *metric, CubeCnode *cnode, guint location, double value)
{
  double *row = writable_row (report, metric, cnode, location);

  if (row == NULL)
    return;
  row[location] = value;
  cube_report_invalidate_values (report);
}

void
cube_report_add_value (
    CubeReport *report, CubeMetric *metric, CubeCnode *cnode, guint location, double value)
{
  double *row = writable_row (report, metric, cnode, location);

  if (row == NULL)
    return;
  row[location] += value;
  cube_report_invalidate_values (report);
}

/* ---- names of enums -------------------------------------------------------------------------- */

static const struct
{
  const char *name;
  CubeDtype   dtype;
} dtype_names[] = {
  { "DOUBLE", CUBE_DTYPE_DOUBLE },       { "FLOAT", CUBE_DTYPE_DOUBLE },
  { "INT64", CUBE_DTYPE_INT64 },         { "INTEGER", CUBE_DTYPE_INT64 },
  { "UINT64", CUBE_DTYPE_UINT64 },       { "INT32", CUBE_DTYPE_INT32 },
  { "UINT32", CUBE_DTYPE_UINT32 },       { "INT16", CUBE_DTYPE_INT16 },
  { "UINT16", CUBE_DTYPE_UINT16 },       { "INT8", CUBE_DTYPE_INT8 },
  { "UINT8", CUBE_DTYPE_UINT8 },         { "CHAR", CUBE_DTYPE_UINT8 },
  { "MINDOUBLE", CUBE_DTYPE_MINDOUBLE }, { "MAXDOUBLE", CUBE_DTYPE_MAXDOUBLE },
};

const char *
cube_dtype_to_string (CubeDtype dtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtype_names); i++)
    if (dtype_names[i].dtype == dtype)
      return dtype_names[i].name;
  return "UNSUPPORTED";
}

CubeDtype
cube_dtype_from_string (const char *name)
{
  if (name == NULL)
    return CUBE_DTYPE_UNSUPPORTED;
  for (guint i = 0; i < G_N_ELEMENTS (dtype_names); i++)
    if (g_ascii_strcasecmp (dtype_names[i].name, name) == 0)
      return dtype_names[i].dtype;
  return CUBE_DTYPE_UNSUPPORTED;
}

const char *
cube_metric_kind_to_string (CubeMetricKind kind)
{
  switch (kind)
    {
    case CUBE_METRIC_EXCLUSIVE:
      return "EXCLUSIVE";
    case CUBE_METRIC_INCLUSIVE:
      return "INCLUSIVE";
    case CUBE_METRIC_SIMPLE:
      return "SIMPLE";
    case CUBE_METRIC_POSTDERIVED:
      return "POSTDERIVED";
    case CUBE_METRIC_PREDERIVED_INCLUSIVE:
      return "PREDERIVED_INCLUSIVE";
    case CUBE_METRIC_PREDERIVED_EXCLUSIVE:
      return "PREDERIVED_EXCLUSIVE";
    default:
      return "UNKNOWN";
    }
}

const char *
cube_format_to_string (CubeFormat format)
{
  switch (format)
    {
    case CUBE_FORMAT_MEMORY:
      return "memory";
    case CUBE_FORMAT_CUBE3:
      return "CUBE 3 XML";
    case CUBE_FORMAT_CUBE3_GZ:
      return "CUBE 3 XML (gzip)";
    case CUBE_FORMAT_CUBEX:
      return "Cube 4 (.cubex)";
    default:
      return "unknown";
    }
}
