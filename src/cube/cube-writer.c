/* cube-writer.c — CUBE 3 XML output, in exactly the layout of docs FORMATS.md so that other
 * CUBE tools read it, and cube_report_write(), which writes every report file: CUBE 3 XML, a
 * gzip-compressed one for a name ending in ".gz", a Cube 4 archive (cubex-writer.c) for one
 * ending in ".cubex". Written to a temporary file in the target folder and renamed into
 * place: a reader never sees half a report.
 *
 * CUBE 3 has no place for Cube 4 extras (metric kinds, region paradigm/role, cnode
 * parameters, attributes on tree nodes, derived metrics): they are left out. Cube 4 system
 * trees are written in the CUBE 3 machine / node / process / thread shape. Every tree is
 * written with ids 0..n-1 in file order (cube-write-order.c); threads are renumbered in the
 * order the system tree lists them, and the values of each row follow.
 */
#include "cube-write-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- metrics ------------------------------------------------------------------------------------
 */

static gboolean
metric_skipped (gconstpointer node)
{
  const CubeMetric *m = node;

  /* Derived metrics are CubePL formulas without data: CUBE 3 cannot express them. */
  return m->kind == CUBE_METRIC_POSTDERIVED || m->kind == CUBE_METRIC_PREDERIVED_INCLUSIVE
         || m->kind == CUBE_METRIC_PREDERIVED_EXCLUSIVE;
}

static const char *
cube3_dtype (const CubeMetric *m)
{
  switch (m->dtype)
    {
    case CUBE_DTYPE_DOUBLE:
      return "FLOAT";
    case CUBE_DTYPE_MINDOUBLE:
      return "MINDOUBLE";
    case CUBE_DTYPE_MAXDOUBLE:
      return "MAXDOUBLE";
    case CUBE_DTYPE_UNSUPPORTED:
      return m->dtype_name ? m->dtype_name : "UNSUPPORTED";
    default:
      return "INTEGER";
    }
}

typedef struct
{
  CubeReport     *report;
  CubeWriteOrder  order;
  /* threads in written order: thread id k holds report location column_of[k] */
  guint          *column_of;
  gint           *thread_id;   /* [location index] → written thread id */
} Doc;

static void
write_metric_open (CubeOut *o, gconstpointer node, int indent, gpointer data)
{
  const CubeMetric *m = node;
  Doc              *doc = data;

  cube_out_printf (o, "%*s<metric id=\"%" G_GINT64_FORMAT "\">\n", indent, "",
                   doc->order.metric_id[m->index]);
  cube_out_element (o, indent + 2, "disp_name", m->disp_name);
  cube_out_element (o, indent + 2, "uniq_name", m->uniq_name);
  cube_out_element (o, indent + 2, "dtype", cube3_dtype (m));
  cube_out_element (o, indent + 2, "uom", m->uom);
  if (m->val != NULL && m->val[0] != '\0')
    cube_out_element (o, indent + 2, "val", m->val);
  cube_out_element (o, indent + 2, "url", m->url);
  cube_out_element (o, indent + 2, "descr", m->descr);
}

static GPtrArray *
metric_children (gconstpointer m)
{
  return ((const CubeMetric *)m)->children;
}

/* ---- program ------------------------------------------------------------------------------------
 */

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
}

static GPtrArray *
cnode_children (gconstpointer c)
{
  return ((const CubeCnode *)c)->children;
}

/* ---- system -------------------------------------------------------------------------------------
 */

/* The CUBE 3 shape built from whatever system tree the report has. */
typedef struct
{
  const CubeSysNode *src;    /* NULL: synthesized */
  const CubeSysNode *thread; /* for a synthesized process: the thread it wraps */
  GPtrArray         *children;
  gint64             id;
} Group;

static void
group_free (gpointer data)
{
  Group *g = data;

  g_ptr_array_unref (g->children);
  g_free (g);
}

static Group *
group_get (GHashTable        *index,
           GPtrArray         *list,
           GPtrArray         *all,
           gconstpointer      key,
           const CubeSysNode *src,
           gboolean          *created)
{
  Group *g = g_hash_table_lookup (index, key);

  *created = g == NULL;
  if (g == NULL)
    {
      g = g_new0 (Group, 1);
      g->src = src;
      g->children = g_ptr_array_new ();
      g_hash_table_insert (index, (gpointer)key, g);
      g_ptr_array_add (list, g);
      g_ptr_array_add (all, g);
    }
  return g;
}

typedef struct
{
  GPtrArray  *machines;   /* Group*, children = node Groups */
  GPtrArray  *all;        /* owns every Group */
  GHashTable *machine_of; /* src (or sentinel) → Group */
  GHashTable *node_of;
  GHashTable *process_of;
} SysShape;

static const char sentinel_machine, sentinel_node;

/* Threads under their process; a process under its parent as "node" and the root above it as
 * "machine" (the same node twice if the process hangs right under a root). Anything missing
 * is synthesized. Ids of every level, threads included, are numbered in writing order. */
static void
shape_build (Doc *doc, SysShape *sh)
{
  const CubeReport *report = doc->report;
  gint64 next_node = 0, next_process = 0;
  guint  next_thread = 0;

  sh->machines = g_ptr_array_new ();
  sh->all = g_ptr_array_new_with_free_func (group_free);
  sh->machine_of = g_hash_table_new (NULL, NULL);
  sh->node_of = g_hash_table_new (NULL, NULL);
  sh->process_of = g_hash_table_new (NULL, NULL);

  for (guint l = 0; l < report->locations->len; l++)
    {
      const CubeSysNode *t = g_ptr_array_index (report->locations, l);
      const CubeSysNode *proc
          = t->parent != NULL && t->parent->kind == CUBE_SYS_PROCESS ? t->parent : NULL;
      const CubeSysNode *node = proc != NULL ? proc->parent : t->parent;
      const CubeSysNode *machine = node;
      Group             *gm, *gn, *gp;
      gboolean           created;

      while (machine != NULL && machine->parent != NULL)
        machine = machine->parent;
      gm = group_get (sh->machine_of, sh->machines, sh->all,
                      machine ? (gconstpointer)machine : &sentinel_machine, machine, &created);
      gn = group_get (sh->node_of, gm->children, sh->all,
                      node ? (gconstpointer)node : (gconstpointer)&sentinel_node, node, &created);
      gp = group_get (sh->process_of, gn->children, sh->all,
                      proc ? (gconstpointer)proc : (gconstpointer)t, proc, &created);
      if (created && proc == NULL)
        gp->thread = t;
      g_ptr_array_add (gp->children, (gpointer)t);
    }

  /* ids in the order the file lists them */
  for (guint i = 0; i < sh->machines->len; i++)
    {
      Group *gm = g_ptr_array_index (sh->machines, i);
      gm->id = i;
      for (guint j = 0; j < gm->children->len; j++)
        {
          Group *gn = g_ptr_array_index (gm->children, j);
          gn->id = next_node++;
          for (guint k = 0; k < gn->children->len; k++)
            {
              Group *gp = g_ptr_array_index (gn->children, k);
              gp->id = next_process++;
              for (guint t = 0; t < gp->children->len; t++)
                {
                  const CubeSysNode *th = g_ptr_array_index (gp->children, t);
                  doc->thread_id[th->location] = next_thread;
                  doc->column_of[next_thread++] = th->location;
                }
            }
        }
    }
}

static void
shape_clear (SysShape *sh)
{
  g_ptr_array_unref (sh->machines);
  g_ptr_array_unref (sh->all);
  g_hash_table_unref (sh->machine_of);
  g_hash_table_unref (sh->node_of);
  g_hash_table_unref (sh->process_of);
}

static void
write_system (CubeOut *o, Doc *doc, SysShape *sh)
{
  const CubeReport *report = doc->report;

  for (guint i = 0; i < sh->machines->len; i++)
    {
      Group *gm = g_ptr_array_index (sh->machines, i);
      cube_out_printf (o, "    <machine Id=\"%" G_GINT64_FORMAT "\">\n", gm->id);
      cube_out_element (o, 6, "name", gm->src ? gm->src->name : "machine");
      if (gm->src != NULL && gm->src->descr != NULL && gm->src->descr[0] != '\0')
        cube_out_element (o, 6, "descr", gm->src->descr);
      for (guint j = 0; j < gm->children->len; j++)
        {
          Group *gn = g_ptr_array_index (gm->children, j);
          cube_out_printf (o, "      <node Id=\"%" G_GINT64_FORMAT "\">\n", gn->id);
          cube_out_element (o, 8, "name", gn->src ? gn->src->name : "node");
          for (guint k = 0; k < gn->children->len; k++)
            {
              Group             *gp = g_ptr_array_index (gn->children, k);
              const CubeSysNode *named = gp->src ? gp->src : gp->thread;
              gint64             rank = named->rank >= 0 ? named->rank : gp->id;
              cube_out_printf (o, "        <process Id=\"%" G_GINT64_FORMAT "\">\n", gp->id);
              cube_out_element (o, 10, "name", named->name);
              cube_out_printf (o, "          <rank>%" G_GINT64_FORMAT "</rank>\n", rank);
              for (guint t = 0; t < gp->children->len; t++)
                {
                  const CubeSysNode *th = g_ptr_array_index (gp->children, t);
                  cube_out_printf (o, "          <thread Id=\"%d\">\n", doc->thread_id[th->location]);
                  cube_out_element (o, 12, "name", th->name);
                  cube_out_printf (o, "            <rank>%" G_GINT64_FORMAT "</rank>\n",
                                   th->rank >= 0 ? th->rank : (gint64)t);
                  cube_out_puts (o, "          </thread>\n");
                }
              cube_out_puts (o, "        </process>\n");
            }
          cube_out_puts (o, "      </node>\n");
        }
      cube_out_puts (o, "    </machine>\n");
    }

  cube_out_puts (o, "    <topologies>\n");
  for (guint t = 0; t < report->topologies->len; t++)
    {
      const CubeCart *cart = g_ptr_array_index (report->topologies, t);
      cube_out_cart_open (o, cart);
      for (guint i = 0; i < cart->coords->len; i++)
        {
          const CubeCartCoord *c = g_ptr_array_index (cart->coords, i);
          const CubeSysNode   *n = c->node;
          Group               *g;

          if (n->kind == CUBE_SYS_THREAD)
            cube_out_printf (o, "        <coord thrdId=\"%d\">", doc->thread_id[n->location]);
          else if ((g = g_hash_table_lookup (sh->process_of, n)) != NULL)
            cube_out_printf (o, "        <coord procId=\"%" G_GINT64_FORMAT "\">", g->id);
          else if ((g = g_hash_table_lookup (sh->node_of, n)) != NULL)
            cube_out_printf (o, "        <coord nodeId=\"%" G_GINT64_FORMAT "\">", g->id);
          else if ((g = g_hash_table_lookup (sh->machine_of, n)) != NULL)
            cube_out_printf (o, "        <coord machId=\"%" G_GINT64_FORMAT "\">", g->id);
          else
            continue; /* a node the CUBE 3 shape has no place for */
          for (guint d = 0; d < cart->ndims; d++)
            cube_out_printf (o, d == 0 ? "%" G_GINT64_FORMAT : " %" G_GINT64_FORMAT, c->coord[d]);
          cube_out_puts (o, "</coord>\n");
        }
      cube_out_puts (o, "      </cart>\n");
    }
  cube_out_puts (o, "    </topologies>\n");
}

/* ---- severity
 * ------------------------------------------------------------------------------------- */

static gboolean
write_severity (CubeOut *o, Doc *doc)
{
  CubeReport        *report = doc->report;
  guint              len = report->locations->len;
  g_autofree double *row = g_new (double, MAX (len, 1));
  char               num[G_ASCII_DTOSTR_BUF_SIZE];

  cube_out_puts (o, "  <severity>\n");
  for (guint mi = 0; mi < doc->order.metrics->len && o->error == NULL; mi++)
    {
      CubeMetric *m = g_ptr_array_index (doc->order.metrics, mi);

      if (!cube_metric_has_data (m))
        continue;
      cube_out_printf (o, "    <matrix metricId=\"%u\">\n", mi);
      for (guint ci = 0; ci < doc->order.cnodes->len && o->error == NULL; ci++)
        {
          const CubeCnode *c = g_ptr_array_index (doc->order.cnodes, ci);
          gboolean         nonzero = FALSE;

          if (!cube_report_get_row (report, m, c, row, &o->error))
            return FALSE;
          for (guint l = 0; l < len && !nonzero; l++)
            nonzero = row[l] != 0.0;
          if (!nonzero)
            continue;
          cube_out_printf (o, "      <row cnodeId=\"%u\">\n", ci);
          for (guint k = 0; k < len; k++)
            {
              double v = row[doc->column_of[k]];
              if (!isfinite (v))
                {
                  cube_set_error (&o->error, CUBE_ERROR_USAGE, o->path,
                                  _ ("metric “%s”, call path %lld"
                                     ", location %u: the value is not a finite number"),
                                  m->uniq_name, (long long) ci, k);
                  return FALSE;
                }
              g_string_append (o->buf, g_ascii_formatd (num, sizeof num, "%.17g", v));
              g_string_append_c (o->buf, '\n');
            }
          cube_out_puts (o, "      </row>\n");
        }
      cube_out_puts (o, "    </matrix>\n");
    }
  cube_out_puts (o, "  </severity>\n");
  return o->error == NULL;
}

static void
write_document (CubeOut *o, CubeReport *report)
{
  Doc      doc = { .report = report };
  SysShape sh;

  cube_write_order_init (&doc.order, report, metric_skipped);
  doc.column_of = g_new0 (guint, MAX (report->locations->len, 1));
  doc.thread_id = g_new0 (gint, MAX (report->locations->len, 1));

  cube_out_puts (o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"3.0\">\n");
  cube_out_attrs (o, 2, report->attrs);
  cube_out_puts (o, "  <doc>\n    <mirrors>\n");
  for (guint i = 0; i < report->mirrors->len; i++)
    cube_out_element (o, 6, "murl", g_ptr_array_index (report->mirrors, i));
  cube_out_puts (o, "    </mirrors>\n  </doc>\n");

  cube_out_puts (o, "  <metrics>\n");
  for (guint i = 0; i < report->metric_roots->len; i++)
    cube_out_tree (o, g_ptr_array_index (report->metric_roots, i), 4, write_metric_open,
                   metric_children, metric_skipped, "metric", &doc);
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
      cube_out_element (o, 6, "url", r->url);
      cube_out_element (o, 6, "descr", r->descr);
      cube_out_puts (o, "    </region>\n");
    }
  for (guint i = 0; i < report->cnode_roots->len; i++)
    cube_out_tree (o, g_ptr_array_index (report->cnode_roots, i), 4, write_cnode_open,
                   cnode_children, NULL, "cnode", &doc);
  cube_out_puts (o, "  </program>\n");

  cube_out_puts (o, "  <system>\n");
  shape_build (&doc, &sh);
  write_system (o, &doc, &sh);
  shape_clear (&sh);
  cube_out_puts (o, "  </system>\n");

  if (write_severity (o, &doc))
    cube_out_puts (o, "</cube>\n");
  cube_out_flush (o);
  cube_write_order_clear (&doc.order);
  g_free (doc.column_of);
  g_free (doc.thread_id);
}

/* The temporary file being written, for cube_report_write_abort. One slot: the signal case is
 * a command-line program writing one report at a time. */
static char                  pending_tmp[4096];
static volatile sig_atomic_t pending_set;

void
cube_report_write_abort (void)
{
  if (pending_set)
    unlink (pending_tmp); /* async-signal-safe; harmless if it was renamed meanwhile */
}

gboolean
cube_report_write (CubeReport *report, const char *path, GError **error)
{
  CubeOut          o = { 0 };
  g_autofree char *tmpl = NULL;
  sigset_t         block, saved;
  mode_t           mask;
  int              rc;

  g_return_val_if_fail (report != NULL && path != NULL, FALSE);

  tmpl = g_strdup_printf ("%s.tmp-XXXXXX", path);
  o.path = path;
  /* No termination signal between creating the file and recording its name for
   * cube_report_write_abort: a pending one is delivered right after, and finds the name. */
  sigemptyset (&block);
  sigaddset (&block, SIGINT);
  sigaddset (&block, SIGTERM);
  sigaddset (&block, SIGHUP);
  pthread_sigmask (SIG_BLOCK, &block, &saved);
  o.fd = g_mkstemp_full (tmpl, O_WRONLY | O_CLOEXEC, 0600);
  pending_set = 0;
  if (o.fd >= 0 && strlen (tmpl) < sizeof pending_tmp)
    {
      memcpy (pending_tmp, tmpl, strlen (tmpl) + 1);
      pending_set = 1;
    }
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  if (o.fd < 0)
    {
      cube_set_error (error, CUBE_ERROR_IO, path, _ ("cannot create a file next to it: %s"),
                      g_strerror (errno));
      return FALSE;
    }
  /* mkstemp makes 0600 files; a report is an ordinary document. */
  mask = umask (0);
  umask (mask);
  if (fchmod (o.fd, 0666 & ~mask) != 0)
    { /* not fatal: the report is still written */
    }
  if (g_str_has_suffix (path, ".cubex"))
    {
      cube_cubex_write_fd (report, o.fd, path, &o.error);
    }
  else if (g_str_has_suffix (path, ".gz"))
    {
      o.gz = gzdopen (dup (o.fd), "wb6");
      if (o.gz == NULL)
        cube_set_error (&o.error, CUBE_ERROR_IO, path, _ ("cannot start gzip compression"));
    }
  o.buf = g_string_sized_new (1024 * 1024 + 4096);
  if (o.error == NULL && !g_str_has_suffix (path, ".cubex"))
    write_document (&o, report);
  if (o.gz != NULL && (rc = gzclose (o.gz)) != Z_OK && o.error == NULL)
    cube_set_error (&o.error, CUBE_ERROR_IO, path,
                    _ ("cannot finish gzip compression (zlib error %d)"), rc);
  if (o.error == NULL && fsync (o.fd) != 0 && errno != EINVAL)
    cube_set_error (&o.error, CUBE_ERROR_IO, path, _ ("cannot write: %s"), g_strerror (errno));
  if (close (o.fd) != 0 && o.error == NULL)
    cube_set_error (&o.error, CUBE_ERROR_IO, path, _ ("cannot write: %s"), g_strerror (errno));
  g_string_free (o.buf, TRUE);
  if (o.error == NULL && g_rename (tmpl, path) != 0)
    cube_set_error (&o.error, CUBE_ERROR_IO, path,
                    _ ("cannot rename the finished file into place: %s"), g_strerror (errno));
  pending_set = 0;
  if (o.error != NULL)
    {
      g_unlink (tmpl);
      g_propagate_error (error, o.error);
      return FALSE;
    }
  return TRUE;
}
