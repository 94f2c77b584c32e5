/* cubex-writer.c — Cube 4 archives (.cubex), as Score-P and Scalasca 2 write them: a ustar tar
 * archive with `<id>.index` and `<id>.data` per metric that holds values and `anchor.xml` last.
 * cube_report_write() calls it for a name ending in ".cubex" (on its temporary file).
 *
 * What is stored (docs/decisions/2026-11-25-cubex-writer.md):
 * - Rows are what cube_report_get_row gives (CUBE 3 semantics: inclusive along the metric tree,
 *   which is how Cube 4 stores metric trees too, exclusive along the call tree), so a metric
 *   is written with type EXCLUSIVE (SIMPLE stays SIMPLE) and its rows in depth-first pre-order:
 *   our reader gives back exactly the doubles it was given. The one exception is a MINDOUBLE /
 *   MAXDOUBLE metric read call-inclusive (a minimum over a subtree cannot be undone): it stays
 *   INCLUSIVE, rows in the "node, its children, then recurse" order.
 * - Only rows with a non-zero value, listed in a sparse index (format 1); a metric without any
 *   has no members (all zeros, as Score-P writes unused metrics). Little-endian, marker 1.
 * - Values as 8-byte DOUBLE (MINDOUBLE, MAXDOUBLE); integer metrics as UINT64, or INT64 when a
 *   value is negative (differences), or DOUBLE when a value is not a whole number (means).
 * - Every tree with ids 0..n-1 in file order; the system tree as Cube 4 system tree nodes,
 *   location groups and locations (a CUBE 3 machine and node become system tree nodes of class
 *   "machine" and "node"); locations are numbered in the order the tree lists them and the
 *   columns of every row follow.
 * - Derived metrics keep their CubePL expression (no data); Cube 4 extras the reader keeps
 *   (metric kinds, viztype, region paradigm/role/mangled name, cnode parameters, attributes on
 *   every node) are written back. */
#include "cube-write-private.h"

#include <glib/gi18n.h>

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* ---- tar ---------------------------------------------------------------------------------------- */

typedef struct
{
  int         fd;
  const char *path;
  GError     *error;
} Tar;

static void
tar_write (Tar *t, const void *data, gsize len)
{
  const char *p = data;

  while (t->error == NULL && len > 0)
    {
      gssize n = write (t->fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          cube_set_error (&t->error, CUBE_ERROR_IO, t->path, _ ("cannot write: %s"),
                          g_strerror (n < 0 ? errno : ENOSPC));
          return;
        }
      p += n;
      len -= (gsize)n;
    }
}

/* One ustar member: header, data, zero padding to the 512-byte block. */
static void
tar_member (Tar *t, const char *name, const void *data, guint64 size)
{
  static const char zeros[512];
  char   h[512] = { 0 };
  guint  sum = 0;

  if (size >= G_GUINT64_CONSTANT (077777777777))
    {
      /* ustar's 11 octal digits end at 8 GiB; one metric's values would have to exceed it */
      cube_set_error (&t->error, CUBE_ERROR_USAGE, t->path,
                      _ ("member %s is too large for a tar archive (%llu bytes)"), name,
                      (unsigned long long) size);
      return;
    }
  g_strlcpy (h, name, 100);
  memcpy (h + 100, "0000644", 8);
  memcpy (h + 108, "0000000", 8);
  memcpy (h + 116, "0000000", 8);
  g_snprintf (h + 124, 12, "%011llo", (unsigned long long) size);
  g_snprintf (h + 136, 12, "%011llo", (unsigned long long) g_get_real_time () / G_USEC_PER_SEC);
  memset (h + 148, ' ', 8);
  h[156] = '0';
  memcpy (h + 257, "ustar", 6);
  memcpy (h + 263, "00", 2);
  for (guint i = 0; i < sizeof h; i++)
    sum += (guchar) h[i];
  g_snprintf (h + 148, 8, "%06o", sum);
  h[155] = ' ';
  tar_write (t, h, sizeof h);
  tar_write (t, data, size);
  if (size % 512)
    tar_write (t, zeros, 512 - size % 512);
}

/* ---- the written system tree -------------------------------------------------------------------- */

typedef enum { W_STN, W_LG, W_LOC } WKind;

typedef struct WNode WNode;
struct WNode
{
  WKind              kind;
  const CubeSysNode *src;       /* NULL: synthesized to hold a node Cube 4 cannot hang here */
  const CubeSysNode *named;     /* where name and rank come from */
  GPtrArray         *children;  /* of WNode*, owned */
  gint64             id;
};

static void
wnode_free (gpointer data)
{
  WNode *w = data;

  g_ptr_array_unref (w->children);
  g_free (w);
}

static WNode *
wnode_new (WKind kind, const CubeSysNode *src, const CubeSysNode *named, GPtrArray *siblings)
{
  WNode *w = g_new0 (WNode, 1);

  w->kind = kind;
  w->src = src;
  w->named = named;
  w->children = g_ptr_array_new_with_free_func (wnode_free);
  g_ptr_array_add (siblings, w);
  return w;
}

/* Places @s (and its subtree) into @siblings, which belong to a parent of kind @parent
 * (W_STN, or -1 for the roots). */
static void
place (const CubeSysNode *s, int parent, GPtrArray *siblings)
{
  WNode *w;

  switch (s->kind)
    {
    case CUBE_SYS_THREAD:
      if (parent != W_LG)
        {
          if (parent != W_STN)
            siblings = wnode_new (W_STN, NULL, s, siblings)->children;
          siblings = wnode_new (W_LG, NULL, s, siblings)->children;
        }
      wnode_new (W_LOC, s, s, siblings);
      return;
    case CUBE_SYS_PROCESS:
      if (parent == W_LG)
        break; /* no nested groups in Cube 4: its threads join the enclosing group */
      if (parent != W_STN)
        siblings = wnode_new (W_STN, NULL, s, siblings)->children;
      w = wnode_new (W_LG, s, s, siblings);
      for (guint i = 0; i < s->children->len; i++)
        place (g_ptr_array_index (s->children, i), W_LG, w->children);
      return;
    default:
      if (parent == W_LG)
        break;
      w = wnode_new (W_STN, s, s, siblings);
      for (guint i = 0; i < s->children->len; i++)
        place (g_ptr_array_index (s->children, i), W_STN, w->children);
      return;
    }
  /* inside a location group: only its locations count */
  for (guint i = 0; i < s->children->len; i++)
    place (g_ptr_array_index (s->children, i), W_LG, siblings);
}

typedef struct
{
  GPtrArray  *roots;        /* of WNode* */
  guint      *column_of;    /* written location id → report location index */
  gint64     *loc_id;       /* report location index → written id (-1: not written) */
  GHashTable *id_of_src;    /* CubeSysNode* → WNode* (for topology coordinates) */
  guint       n_loc;
} WSys;

static void
number (WSys *ws, WNode *w, gint64 next[3])
{
  w->id = next[w->kind]++;
  if (w->src != NULL)
    g_hash_table_insert (ws->id_of_src, (gpointer) w->src, w);
  if (w->kind == W_LOC && w->src->location >= 0 && (guint) w->src->location < ws->n_loc)
    {
      ws->column_of[w->id] = w->src->location;
      ws->loc_id[w->src->location] = w->id;
    }
  for (guint i = 0; i < w->children->len; i++)
    number (ws, g_ptr_array_index (w->children, i), next);
}

static gboolean
wsys_build (WSys *ws, const CubeReport *report, const char *path, GError **error)
{
  gint64 next[3] = { 0, 0, 0 };

  ws->n_loc = report->locations->len;
  ws->roots = g_ptr_array_new_with_free_func (wnode_free);
  ws->column_of = g_new0 (guint, MAX (ws->n_loc, 1));
  ws->loc_id = g_new (gint64, MAX (ws->n_loc, 1));
  ws->id_of_src = g_hash_table_new (NULL, NULL);
  for (guint l = 0; l < ws->n_loc; l++)
    ws->loc_id[l] = -1;
  for (guint i = 0; i < report->system_roots->len; i++)
    place (g_ptr_array_index (report->system_roots, i), -1, ws->roots);
  for (guint i = 0; i < ws->roots->len; i++)
    number (ws, g_ptr_array_index (ws->roots, i), next);
  if ((guint64) next[W_LOC] != ws->n_loc)
    {
      cube_set_error (error, CUBE_ERROR_USAGE, path,
                      _ ("the system tree holds %lld locations but the report has values for %u"),
                      (long long) next[W_LOC], ws->n_loc);
      return FALSE;
    }
  for (guint l = 0; l < ws->n_loc; l++)
    if (ws->loc_id[l] < 0)
      {
        cube_set_error (error, CUBE_ERROR_USAGE, path,
                        _ ("location %u is not in the system tree"), l);
        return FALSE;
      }
  return TRUE;
}

static void
wsys_clear (WSys *ws)
{
  g_clear_pointer (&ws->roots, g_ptr_array_unref);
  g_clear_pointer (&ws->column_of, g_free);
  g_clear_pointer (&ws->loc_id, g_free);
  g_clear_pointer (&ws->id_of_src, g_hash_table_unref);
}

static void
write_wnode (CubeOut *o, const WNode *w, guint depth, guint pos)
{
  static const char *const tags[] = { "systemtreenode", "locationgroup", "location" };
  int                ind = cube_out_indent (depth, 4);
  const CubeSysNode *n = w->named;
  const char        *what;

  cube_out_printf (o, "%*s<%s Id=\"%" G_GINT64_FORMAT "\">\n", ind, "", tags[w->kind], w->id);
  cube_out_element (o, ind + 2, "name",
                    w->kind == W_STN && w->src == NULL ? "machine" : n->name != NULL ? n->name : "");
  if (w->kind == W_STN)
    {
      if (w->src != NULL && w->src->class_name != NULL && w->src->class_name[0] != '\0')
        what = w->src->class_name;
      else if (w->src != NULL && w->src->kind == CUBE_SYS_NODE)
        what = "node";
      else
        what = "machine";
      cube_out_element (o, ind + 2, "class", what);
      if (w->src != NULL && w->src->descr != NULL && w->src->descr[0] != '\0')
        cube_out_element (o, ind + 2, "descr", w->src->descr);
    }
  else
    {
      gint64 rank = n->rank >= 0 ? n->rank : (w->kind == W_LG ? w->id : (gint64) pos);
      cube_out_printf (o, "%*s<rank>%" G_GINT64_FORMAT "</rank>\n", ind + 2, "", rank);
      what = w->src != NULL && w->src->class_name != NULL && w->src->class_name[0] != '\0'
                 ? w->src->class_name
                 : (w->kind == W_LG ? "process" : "thread");
      cube_out_element (o, ind + 2, "type", what);
    }
  if (w->src != NULL)
    cube_out_attrs (o, ind + 2, w->src->attrs);
  for (guint i = 0; i < w->children->len; i++)
    write_wnode (o, g_ptr_array_index (w->children, i), depth + 1, i);
  cube_out_printf (o, "%*s</%s>\n", ind, "", tags[w->kind]);
}

/* ---- metrics ------------------------------------------------------------------------------------ */

typedef struct
{
  const char *type;   /* written `type` */
  const char *dtype;  /* written dtype */
} WMetric;

typedef struct
{
  CubeReport     *report;
  CubeWriteOrder  order;
  WSys            sys;
  WMetric        *wm;     /* [written metric id] */
  GPtrArray      *wide;   /* call paths in the inclusive row order */
} Doc;

static gboolean
is_integer_dtype (CubeDtype d)
{
  return d == CUBE_DTYPE_INT64 || d == CUBE_DTYPE_UINT64 || d == CUBE_DTYPE_INT32
         || d == CUBE_DTYPE_UINT32 || d == CUBE_DTYPE_INT16 || d == CUBE_DTYPE_UINT16
         || d == CUBE_DTYPE_INT8 || d == CUBE_DTYPE_UINT8;
}

static gboolean
is_signed_dtype (CubeDtype d)
{
  return d == CUBE_DTYPE_INT64 || d == CUBE_DTYPE_INT32 || d == CUBE_DTYPE_INT16
         || d == CUBE_DTYPE_INT8;
}

/* "node, then all its children, then recurse into each child", root by root: the row order
 * of inclusive metrics. Iterative (call trees can be deeper than the stack). */
static GPtrArray *
wide_order (const CubeReport *report)
{
  GPtrArray *out = g_ptr_array_new ();
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();

  for (guint r = 0; r < report->cnode_roots->len; r++)
    {
      CubeCnode *root = g_ptr_array_index (report->cnode_roots, r);
      g_ptr_array_add (out, root);
      g_ptr_array_add (stack, root);
      while (stack->len > 0)
        {
          CubeCnode *n = g_ptr_array_steal_index (stack, stack->len - 1);
          for (guint i = 0; i < n->children->len; i++)
            g_ptr_array_add (out, g_ptr_array_index (n->children, i));
          for (guint i = n->children->len; i-- > 0;)
            g_ptr_array_add (stack, g_ptr_array_index (n->children, i));
        }
    }
  return out;
}

static void
put32 (GByteArray *b, guint32 v)
{
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

/* Writes the index and data members of written metric @mi; fills doc->wm[mi]. */
static gboolean
write_metric_data (Doc *doc, Tar *t, guint mi)
{
  CubeReport  *report = doc->report;
  CubeMetric  *m = g_ptr_array_index (doc->order.metrics, mi);
  WMetric     *w = &doc->wm[mi];
  guint        len = report->locations->len;
  gboolean     inclusive = cube_dtype_is_minmax (m->dtype) && m->data != NULL
                           && m->data->stored_call_inclusive;
  GPtrArray   *rows_order = inclusive ? doc->wide : doc->order.cnodes;
  g_autofree double *row = g_new (double, MAX (len, 1));
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GByteArray) index = g_byte_array_new ();
  g_autoptr (GByteArray) data = NULL;
  g_autofree char *iname = NULL, *dname = NULL;
  gboolean whole = TRUE, negative = FALSE;
  guint32  n_rows = 0;

  if (!cube_metric_has_data (m))
    {
      /* derived (a formula) or a dtype we cannot read: definition only */
      w->type = cube_metric_kind_to_string (m->kind);
      w->dtype = m->dtype_name != NULL ? m->dtype_name : cube_dtype_to_string (m->dtype);
      return TRUE;
    }
  w->type = inclusive ? "INCLUSIVE" : m->kind == CUBE_METRIC_SIMPLE ? "SIMPLE" : "EXCLUSIVE";

  for (guint ri = 0; ri < rows_order->len; ri++)
    {
      const CubeCnode *c = g_ptr_array_index (rows_order, ri);
      gboolean         nonzero = FALSE;

      if (!cube_report_get_row (report, m, c, row, &t->error))
        return FALSE;
      for (guint l = 0; l < len && !nonzero; l++)
        nonzero = row[l] != 0.0;
      if (!nonzero)
        continue;
      for (guint k = 0; k < len; k++)
        {
          double v = row[doc->sys.column_of[k]];
          if (!isfinite (v))
            {
              cube_set_error (&t->error, CUBE_ERROR_USAGE, t->path,
                              _ ("metric “%s”, call path %lld"
                                 ", location %u: the value is not a finite number"),
                              m->uniq_name, (long long) doc->order.cnode_id[c->index], k);
              return FALSE;
            }
          whole = whole && v == nearbyint (v) && fabs (v) < 0x1p63;
          negative = negative || v < 0;
          g_array_append_val (values, v);
        }
      n_rows++;
      put32 (index, ri);
    }

  switch (m->dtype)
    {
    case CUBE_DTYPE_MINDOUBLE:
      w->dtype = "MINDOUBLE";
      break;
    case CUBE_DTYPE_MAXDOUBLE:
      w->dtype = "MAXDOUBLE";
      break;
    default:
      if (is_integer_dtype (m->dtype) && whole)
        w->dtype = negative || (n_rows == 0 && is_signed_dtype (m->dtype)) ? "INT64" : "UINT64";
      else
        w->dtype = "DOUBLE";
      break;
    }
  if (n_rows == 0)
    return TRUE; /* all zeros: no members */

  /* integers in place of the doubles (same width) */
  if (g_str_equal (w->dtype, "INT64") || g_str_equal (w->dtype, "UINT64"))
    for (guint i = 0; i < values->len; i++)
      {
        double *p = &g_array_index (values, double, i);
        if (*w->dtype == 'I')
          {
            gint64 v = (gint64) *p;
            memcpy (p, &v, 8);
          }
        else
          {
            guint64 v = (guint64) *p;
            memcpy (p, &v, 8);
          }
      }

  {
    /* "CUBEX.INDEX", endianness marker 1 in our byte order, version 0, format 1 (sparse) */
    g_autoptr (GByteArray) head = g_byte_array_new ();
    guint16 version = 0;
    guint8  format = 1;
    g_byte_array_append (head, (const guint8 *) "CUBEX.INDEX", 11);
    put32 (head, 1);
    g_byte_array_append (head, (const guint8 *) &version, 2);
    g_byte_array_append (head, &format, 1);
    put32 (head, n_rows);
    g_byte_array_prepend (index, head->data, head->len);
  }
  data = g_byte_array_sized_new (10 + values->len * 8);
  g_byte_array_append (data, (const guint8 *) "CUBEX.DATA", 10);
  g_byte_array_append (data, (const guint8 *) values->data, values->len * 8);

  iname = g_strdup_printf ("%u.index", mi);
  dname = g_strdup_printf ("%u.data", mi);
  tar_member (t, iname, index->data, index->len);
  tar_member (t, dname, data->data, data->len);
  return t->error == NULL;
}

/* ---- anchor.xml ---------------------------------------------------------------------------------- */

static GPtrArray *
metric_children (gconstpointer m)
{
  return ((const CubeMetric *)m)->children;
}

static GPtrArray *
cnode_children (gconstpointer c)
{
  return ((const CubeCnode *)c)->children;
}

static void
write_metric_open (CubeOut *o, gconstpointer node, int indent, gpointer data)
{
  const CubeMetric *m = node;
  Doc              *doc = data;
  gint64            id = doc->order.metric_id[m->index];
  const WMetric    *w = &doc->wm[id];

  cube_out_printf (o, "%*s<metric id=\"%" G_GINT64_FORMAT "\" type=\"%s\"", indent, "", id,
                   w->type);
  if (m->ghost)
    cube_out_puts (o, " viztype=\"GHOST\"");
  if (!m->convertible)
    cube_out_puts (o, " convertible=\"false\"");
  if (!m->cacheable)
    cube_out_puts (o, " cacheable=\"false\"");
  cube_out_puts (o, ">\n");
  cube_out_element (o, indent + 2, "disp_name", m->disp_name);
  cube_out_element (o, indent + 2, "uniq_name", m->uniq_name);
  cube_out_element (o, indent + 2, "dtype", w->dtype);
  cube_out_element (o, indent + 2, "uom", m->uom);
  if (m->val != NULL && m->val[0] != '\0')
    cube_out_element (o, indent + 2, "val", m->val);
  cube_out_element (o, indent + 2, "url", m->url);
  cube_out_element (o, indent + 2, "descr", m->descr);
  if (m->cubepl != NULL)
    cube_out_element (o, indent + 2, "cubepl", m->cubepl);
  cube_out_attrs (o, indent + 2, m->attrs);
}

static gboolean
is_number (const char *s)
{
  char *end = NULL;

  if (s == NULL || *s == '\0')
    return FALSE;
  g_ascii_strtod (s, &end);
  return end != NULL && *end == '\0';
}

static void
write_cnode_open (CubeOut *o, gconstpointer node, int indent, gpointer data)
{
  const CubeCnode *c = node;
  Doc             *doc = data;

  cube_out_printf (o, "%*s<cnode id=\"%" G_GINT64_FORMAT "\"", indent, "",
                   doc->order.cnode_id[c->index]);
  if (c->line >= 0)
    cube_out_printf (o, " line=\"%" G_GINT64_FORMAT "\"", c->line);
  if (c->mod != NULL && c->mod[0] != '\0')
    {
      cube_out_puts (o, " mod=\"");
      cube_out_escaped (o, c->mod);
      cube_out_puts (o, "\"");
    }
  cube_out_printf (o, " calleeId=\"%" G_GINT64_FORMAT "\">\n",
                   doc->order.region_id[c->callee->index]);
  for (guint i = 0; c->params != NULL && i < c->params->len; i++)
    {
      const CubeAttr *p = g_ptr_array_index (c->params, i);
      cube_out_printf (o, "%*s<parameter partype=\"%s\" parkey=\"", indent + 2, "",
                       is_number (p->value) ? "numeric" : "string");
      cube_out_escaped (o, p->key);
      cube_out_puts (o, "\" parvalue=\"");
      cube_out_escaped (o, p->value);
      cube_out_puts (o, "\"/>\n");
    }
  cube_out_attrs (o, indent + 2, c->attrs);
}

/* Attributes that describe the library that wrote the file: ours replace them. */
static gboolean
writer_attr (const char *key)
{
  return g_str_equal (key, "CUBE Library version") || g_str_equal (key, "Cube Version")
         || g_str_equal (key, "Cube anchor.xml syntax version");
}

static void
write_anchor (CubeOut *o, Doc *doc)
{
  CubeReport *report = doc->report;

  cube_out_puts (o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n");
  cube_out_puts (o, "  <attr key=\"Cube anchor.xml syntax version\" value=\"4.4\"/>\n");
  for (guint i = 0; i < report->attrs->len; i++)
    {
      const CubeAttr *a = g_ptr_array_index (report->attrs, i);
      if (writer_attr (a->key))
        continue;
      cube_out_puts (o, "  <attr key=\"");
      cube_out_escaped (o, a->key);
      cube_out_puts (o, "\" value=\"");
      cube_out_escaped (o, a->value);
      cube_out_puts (o, "\"/>\n");
    }
  cube_out_puts (o, "  <doc>\n    <mirrors>\n");
  for (guint i = 0; i < report->mirrors->len; i++)
    cube_out_element (o, 6, "murl", g_ptr_array_index (report->mirrors, i));
  cube_out_puts (o, "    </mirrors>\n  </doc>\n");

  cube_out_puts (o, "  <metrics>\n");
  for (guint i = 0; i < report->metric_roots->len; i++)
    cube_out_tree (o, g_ptr_array_index (report->metric_roots, i), 4, write_metric_open,
                   metric_children, NULL, "metric", doc);
  cube_out_puts (o, "  </metrics>\n");

  cube_out_puts (o, "  <program>\n");
  for (guint i = 0; i < report->regions->len; i++)
    {
      const CubeRegion *r = g_ptr_array_index (report->regions, i);
      cube_out_printf (o, "    <region id=\"%u\" mod=\"", i);
      cube_out_escaped (o, r->mod ? r->mod : "");
      cube_out_printf (o, "\" begin=\"%" G_GINT64_FORMAT "\" end=\"%" G_GINT64_FORMAT "\">\n",
                       r->begin_line, r->end_line);
      cube_out_element (o, 6, "name", r->name);
      if (r->mangled_name != NULL)
        cube_out_element (o, 6, "mangled_name", r->mangled_name);
      if (r->paradigm != NULL)
        cube_out_element (o, 6, "paradigm", r->paradigm);
      if (r->role != NULL)
        cube_out_element (o, 6, "role", r->role);
      cube_out_element (o, 6, "url", r->url);
      cube_out_element (o, 6, "descr", r->descr);
      cube_out_attrs (o, 6, r->attrs);
      cube_out_puts (o, "    </region>\n");
    }
  for (guint i = 0; i < report->cnode_roots->len; i++)
    cube_out_tree (o, g_ptr_array_index (report->cnode_roots, i), 4, write_cnode_open,
                   cnode_children, NULL, "cnode", doc);
  cube_out_puts (o, "  </program>\n");

  cube_out_puts (o, "  <system>\n");
  for (guint i = 0; i < doc->sys.roots->len; i++)
    write_wnode (o, g_ptr_array_index (doc->sys.roots, i), 0, i);
  cube_out_puts (o, "    <topologies>\n");
  for (guint t = 0; t < report->topologies->len; t++)
    {
      const CubeCart *cart = g_ptr_array_index (report->topologies, t);
      cube_out_cart_open (o, cart);
      for (guint i = 0; i < cart->coords->len; i++)
        {
          static const char *const attr[] = { "stnId", "lgId", "locId" };
          const CubeCartCoord *c = g_ptr_array_index (cart->coords, i);
          const WNode         *w = g_hash_table_lookup (doc->sys.id_of_src, c->node);

          if (w == NULL)
            continue; /* a node with no place in the Cube 4 tree (a process inside a process) */
          cube_out_printf (o, "        <coord %s=\"%" G_GINT64_FORMAT "\">", attr[w->kind], w->id);
          for (guint d = 0; d < cart->ndims; d++)
            cube_out_printf (o, d == 0 ? "%" G_GINT64_FORMAT : " %" G_GINT64_FORMAT, c->coord[d]);
          cube_out_puts (o, "</coord>\n");
        }
      cube_out_puts (o, "      </cart>\n");
    }
  cube_out_puts (o, "    </topologies>\n");
  cube_out_puts (o, "  </system>\n</cube>\n");
}

gboolean
cube_cubex_write_fd (CubeReport *report, int fd, const char *path, GError **error)
{
  static const char end[1024];
  Doc      doc = { .report = report };
  Tar      t = { .fd = fd, .path = path };
  CubeOut  anchor = { .path = path, .fd = -1 };

  cube_write_order_init (&doc.order, report, NULL);
  if (!wsys_build (&doc.sys, report, path, &t.error))
    goto out;
  doc.wm = g_new0 (WMetric, MAX (doc.order.metrics->len, 1));
  doc.wide = wide_order (report);

  for (guint mi = 0; mi < doc.order.metrics->len && t.error == NULL; mi++)
    write_metric_data (&doc, &t, mi);
  if (t.error == NULL)
    {
      anchor.buf = g_string_sized_new (64 * 1024);
      write_anchor (&anchor, &doc);
      tar_member (&t, "anchor.xml", anchor.buf->str, anchor.buf->len);
      g_string_free (anchor.buf, TRUE);
      tar_write (&t, end, sizeof end);
    }

out:
  cube_write_order_clear (&doc.order);
  wsys_clear (&doc.sys);
  g_free (doc.wm);
  if (doc.wide != NULL)
    g_ptr_array_unref (doc.wide);
  if (t.error != NULL)
    {
      g_propagate_error (error, t.error);
      return FALSE;
    }
  return TRUE;
}
