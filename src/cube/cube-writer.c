/* cube-writer.c — CUBE 3 XML output, in exactly the layout of docs FORMATS.md so that other
 * CUBE tools read it. Written to a temporary file in the target folder and renamed into
 * place: a reader never sees half a report. A name ending in ".gz" is gzip-compressed.
 *
 * CUBE 3 has no place for Cube 4 extras (metric kinds, region paradigm/role, cnode
 * parameters, attributes on tree nodes, derived metrics): they are left out. Cube 4 system
 * trees are written in the CUBE 3 machine / node / process / thread shape.
 */
#include "cube-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct
{
  const char *path; /* final name, for messages */
  int         fd;
  gzFile      gz;
  GString    *buf;
  GError     *error;
} Out;

static void
out_flush (Out *o)
{
  const char *p = o->buf->str;
  gsize       left = o->buf->len;

  if (o->error != NULL)
    {
      g_string_truncate (o->buf, 0);
      return;
    }
  while (left > 0)
    {
      gssize n;
      if (o->gz != NULL)
        n = gzwrite (o->gz, p, (unsigned)MIN (left, G_MAXINT / 2));
      else
        n = write (o->fd, p, left);
      if (n < 0 && errno == EINTR && o->gz == NULL)
        continue;
      if (n <= 0)
        {
          cube_set_error (&o->error, CUBE_ERROR_IO, o->path, _ ("cannot write: %s"),
                          g_strerror (n < 0 ? errno : ENOSPC));
          break;
        }
      p += n;
      left -= (gsize)n;
    }
  g_string_truncate (o->buf, 0);
}

static inline void
out_check (Out *o)
{
  if (o->buf->len >= 1024 * 1024)
    out_flush (o);
}

static void
out_puts (Out *o, const char *s)
{
  g_string_append (o->buf, s);
  out_check (o);
}

static void out_printf (Out *o, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
out_printf (Out *o, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_string_append_vprintf (o->buf, format, args);
  va_end (args);
  out_check (o);
}

/* Text or attribute value with the XML entities; characters XML 1.0 cannot carry are dropped. */
static void
out_escaped (Out *o, const char *text)
{
  g_autofree char *valid = NULL;

  if (text == NULL)
    return;
  if (!g_utf8_validate (text, -1, NULL))
    text = valid = g_utf8_make_valid (text, -1);
  for (const char *p = text; *p; p++)
    {
      switch (*p)
        {
        case '&':
          g_string_append (o->buf, "&amp;");
          break;
        case '<':
          g_string_append (o->buf, "&lt;");
          break;
        case '>':
          g_string_append (o->buf, "&gt;");
          break;
        case '"':
          g_string_append (o->buf, "&quot;");
          break;
        case '\'':
          g_string_append (o->buf, "&apos;");
          break;
        default:
          if ((guchar)*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r')
            g_string_append_c (o->buf, *p);
          break;
        }
    }
  out_check (o);
}

static void
out_element (Out *o, int indent, const char *name, const char *text)
{
  out_printf (o, "%*s<%s>", indent, "", name);
  out_escaped (o, text ? text : "");
  out_printf (o, "</%s>\n", name);
}

/* ---- metrics ------------------------------------------------------------------------------------
 */

static gboolean
metric_written (const CubeMetric *m)
{
  /* Derived metrics are CubePL formulas without data: CUBE 3 cannot express them. */
  return m->kind != CUBE_METRIC_POSTDERIVED && m->kind != CUBE_METRIC_PREDERIVED_INCLUSIVE
         && m->kind != CUBE_METRIC_PREDERIVED_EXCLUSIVE;
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

/* Nesting is indented, but never by more than this: a call tree thousands of levels deep (deep
 * recursion) would otherwise make the file grow with the square of its depth. */
#define MAX_INDENT 40

static int
indent_of (guint depth, int base)
{
  return (int) MIN ((guint) base + 2 * depth, MAX_INDENT);
}

/* One node of an iterative depth-first walk: trees from files can be far deeper than the
 * stack allows recursion. */
typedef struct
{
  gconstpointer node;
  guint         next_child;
} Visit;

static void
write_metric_open (Out *o, gconstpointer node, int indent)
{
  const CubeMetric *m = node;

  out_printf (o, "%*s<metric id=\"%" G_GINT64_FORMAT "\">\n", indent, "", m->file_id);
  out_element (o, indent + 2, "disp_name", m->disp_name);
  out_element (o, indent + 2, "uniq_name", m->uniq_name);
  out_element (o, indent + 2, "dtype", cube3_dtype (m));
  out_element (o, indent + 2, "uom", m->uom);
  if (m->val != NULL && m->val[0] != '\0')
    out_element (o, indent + 2, "val", m->val);
  out_element (o, indent + 2, "url", m->url);
  out_element (o, indent + 2, "descr", m->descr);
}

/* Writes the subtree of @root without recursion (call trees can be deep enough to exhaust the
 * stack): @open writes a node's start tag, its children are @children, a node for which @skip
 * says so is left out with its subtree, and every written node is closed with </@tag>. */
typedef void (*WriteOpen) (Out *o, gconstpointer node, int indent);

static void
write_tree (Out         *o,
            gconstpointer root,
            int          base,
            WriteOpen    open,
            GPtrArray *(*children) (gconstpointer node),
            gboolean   (*skip) (gconstpointer node),
            const char  *tag)
{
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (Visit));
  Visit v = { root, 0 };

  if (skip != NULL && skip (root))
    return;
  open (o, root, base);
  g_array_append_val (stack, v);
  while (stack->len > 0)
    {
      Visit     *top = &g_array_index (stack, Visit, stack->len - 1);
      GPtrArray *kids = children (top->node);

      if (top->next_child < kids->len)
        {
          gconstpointer k = g_ptr_array_index (kids, top->next_child++);

          if (skip != NULL && skip (k))
            continue;
          open (o, k, indent_of (stack->len, base));
          v.node = k;
          g_array_append_val (stack, v);
          continue;
        }
      g_array_set_size (stack, stack->len - 1);
      out_printf (o, "%*s</%s>\n", indent_of (stack->len, base), "", tag);
    }
}

static GPtrArray *
metric_children (gconstpointer m)
{
  return ((const CubeMetric *)m)->children;
}

static gboolean
metric_skipped (gconstpointer m)
{
  return !metric_written (m);
}

static void
write_metric (Out *o, const CubeMetric *root, int base)
{
  write_tree (o, root, base, write_metric_open, metric_children, metric_skipped, "metric");
}

/* ---- program ------------------------------------------------------------------------------------
 */

static void
write_cnode_open (Out *o, gconstpointer node, int indent)
{
  const CubeCnode *c = node;

  out_printf (o, "%*s<cnode id=\"%" G_GINT64_FORMAT "\"", indent, "", c->file_id);
  if (c->line >= 0)
    out_printf (o, " line=\"%" G_GINT64_FORMAT "\"", c->line);
  if (c->mod != NULL && c->mod[0] != '\0')
    {
      out_puts (o, " mod=\"");
      out_escaped (o, c->mod);
      out_puts (o, "\"");
    }
  out_printf (o, " calleeId=\"%" G_GINT64_FORMAT "\">\n", c->callee->file_id);
}

static GPtrArray *
cnode_children (gconstpointer c)
{
  return ((const CubeCnode *)c)->children;
}

static void
write_cnode (Out *o, const CubeCnode *root, int base)
{
  write_tree (o, root, base, write_cnode_open, cnode_children, NULL, "cnode");
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
           gint64            *next_id,
           gboolean          *created)
{
  Group *g = g_hash_table_lookup (index, key);

  *created = g == NULL;
  if (g == NULL)
    {
      g = g_new0 (Group, 1);
      g->src = src;
      g->children = g_ptr_array_new ();
      g->id = (*next_id)++;
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
 * is synthesized. Ids are renumbered in writing order; thread ids are the location indices. */
static void
shape_build (const CubeReport *report, SysShape *sh)
{
  gint64 next_machine = 0, next_node = 0, next_process = 0;

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
                      machine ? (gconstpointer)machine : &sentinel_machine, machine, &next_machine,
                      &created);
      gn = group_get (sh->node_of, gm->children, sh->all,
                      node ? (gconstpointer)node : (gconstpointer)&sentinel_node, node, &next_node,
                      &created);
      gp = group_get (sh->process_of, gn->children, sh->all,
                      proc ? (gconstpointer)proc : (gconstpointer)t, proc, &next_process, &created);
      if (created && proc == NULL)
        gp->thread = t;
      g_ptr_array_add (gp->children, (gpointer)t);
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
write_system (Out *o, const CubeReport *report, SysShape *sh)
{
  for (guint i = 0; i < sh->machines->len; i++)
    {
      Group *gm = g_ptr_array_index (sh->machines, i);
      out_printf (o, "    <machine Id=\"%" G_GINT64_FORMAT "\">\n", gm->id);
      out_element (o, 6, "name", gm->src ? gm->src->name : "machine");
      if (gm->src != NULL && gm->src->descr != NULL && gm->src->descr[0] != '\0')
        out_element (o, 6, "descr", gm->src->descr);
      for (guint j = 0; j < gm->children->len; j++)
        {
          Group *gn = g_ptr_array_index (gm->children, j);
          out_printf (o, "      <node Id=\"%" G_GINT64_FORMAT "\">\n", gn->id);
          out_element (o, 8, "name", gn->src ? gn->src->name : "node");
          for (guint k = 0; k < gn->children->len; k++)
            {
              Group             *gp = g_ptr_array_index (gn->children, k);
              const CubeSysNode *named = gp->src ? gp->src : gp->thread;
              gint64             rank = named->rank >= 0 ? named->rank : gp->id;
              out_printf (o, "        <process Id=\"%" G_GINT64_FORMAT "\">\n", gp->id);
              out_element (o, 10, "name", named->name);
              out_printf (o, "          <rank>%" G_GINT64_FORMAT "</rank>\n", rank);
              for (guint t = 0; t < gp->children->len; t++)
                {
                  const CubeSysNode *th = g_ptr_array_index (gp->children, t);
                  out_printf (o, "          <thread Id=\"%d\">\n", th->location);
                  out_element (o, 12, "name", th->name);
                  out_printf (o, "            <rank>%" G_GINT64_FORMAT "</rank>\n",
                              th->rank >= 0 ? th->rank : (gint64)t);
                  out_puts (o, "          </thread>\n");
                }
              out_puts (o, "        </process>\n");
            }
          out_puts (o, "      </node>\n");
        }
      out_puts (o, "    </machine>\n");
    }

  out_puts (o, "    <topologies>\n");
  for (guint t = 0; t < report->topologies->len; t++)
    {
      const CubeCart *cart = g_ptr_array_index (report->topologies, t);
      out_puts (o, "      <cart");
      if (cart->name != NULL)
        {
          out_puts (o, " name=\"");
          out_escaped (o, cart->name);
          out_puts (o, "\"");
        }
      out_printf (o, " ndims=\"%u\">\n", cart->ndims);
      for (guint d = 0; d < cart->ndims; d++)
        {
          out_puts (o, "        <dim");
          if (cart->dims[d].name != NULL)
            {
              out_puts (o, " name=\"");
              out_escaped (o, cart->dims[d].name);
              out_puts (o, "\"");
            }
          out_printf (o, " size=\"%" G_GINT64_FORMAT "\" periodic=\"%s\"/>\n", cart->dims[d].size,
                      cart->dims[d].periodic ? "true" : "false");
        }
      for (guint i = 0; i < cart->coords->len; i++)
        {
          const CubeCartCoord *c = g_ptr_array_index (cart->coords, i);
          const CubeSysNode   *n = c->node;
          Group               *g;

          if (n->kind == CUBE_SYS_THREAD)
            out_printf (o, "        <coord thrdId=\"%d\">", n->location);
          else if ((g = g_hash_table_lookup (sh->process_of, n)) != NULL)
            out_printf (o, "        <coord procId=\"%" G_GINT64_FORMAT "\">", g->id);
          else if ((g = g_hash_table_lookup (sh->node_of, n)) != NULL)
            out_printf (o, "        <coord nodeId=\"%" G_GINT64_FORMAT "\">", g->id);
          else if ((g = g_hash_table_lookup (sh->machine_of, n)) != NULL)
            out_printf (o, "        <coord machId=\"%" G_GINT64_FORMAT "\">", g->id);
          else
            continue; /* a node the CUBE 3 shape has no place for */
          for (guint d = 0; d < cart->ndims; d++)
            out_printf (o, d == 0 ? "%" G_GINT64_FORMAT : " %" G_GINT64_FORMAT, c->coord[d]);
          out_puts (o, "</coord>\n");
        }
      out_puts (o, "      </cart>\n");
    }
  out_puts (o, "    </topologies>\n");
}

/* ---- severity
 * ------------------------------------------------------------------------------------- */

static gboolean
write_severity (Out *o, CubeReport *report)
{
  guint              len = report->locations->len;
  g_autofree double *row = g_new (double, MAX (len, 1));
  char               num[G_ASCII_DTOSTR_BUF_SIZE];
  /* metrics under a derived one are not written either; parents come before children */
  g_autofree gboolean *skip = g_new0 (gboolean, MAX (report->metrics->len, 1));

  out_puts (o, "  <severity>\n");
  for (guint mi = 0; mi < report->metrics->len && o->error == NULL; mi++)
    {
      CubeMetric *m = g_ptr_array_index (report->metrics, mi);

      skip[mi] = !metric_written (m) || (m->parent != NULL && skip[m->parent->index]);
      if (skip[mi] || !cube_metric_has_data (m))
        continue;
      out_printf (o, "    <matrix metricId=\"%" G_GINT64_FORMAT "\">\n", m->file_id);
      for (guint ci = 0; ci < report->cnodes->len && o->error == NULL; ci++)
        {
          const CubeCnode *c = g_ptr_array_index (report->cnodes, ci);
          gboolean         nonzero = FALSE;

          if (!cube_report_get_row (report, m, c, row, &o->error))
            return FALSE;
          for (guint l = 0; l < len && !nonzero; l++)
            nonzero = row[l] != 0.0;
          if (!nonzero)
            continue;
          out_printf (o, "      <row cnodeId=\"%" G_GINT64_FORMAT "\">\n", c->file_id);
          for (guint l = 0; l < len; l++)
            {
              if (!isfinite (row[l]))
                {
                  cube_set_error (&o->error, CUBE_ERROR_USAGE, o->path,
                                  _ ("metric “%s”, call path %lld"
                                     ", location %u: the value is not a finite number"),
                                  m->uniq_name, (long long) c->file_id, l);
                  return FALSE;
                }
              g_string_append (o->buf, g_ascii_formatd (num, sizeof num, "%.17g", row[l]));
              g_string_append_c (o->buf, '\n');
            }
          out_puts (o, "      </row>\n");
        }
      out_puts (o, "    </matrix>\n");
    }
  out_puts (o, "  </severity>\n");
  return o->error == NULL;
}

static void
write_document (Out *o, CubeReport *report)
{
  SysShape sh;

  out_puts (o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"3.0\">\n");
  for (guint i = 0; i < report->attrs->len; i++)
    {
      const CubeAttr *a = g_ptr_array_index (report->attrs, i);
      out_puts (o, "  <attr key=\"");
      out_escaped (o, a->key);
      out_puts (o, "\" value=\"");
      out_escaped (o, a->value);
      out_puts (o, "\"/>\n");
    }
  out_puts (o, "  <doc>\n    <mirrors>\n");
  for (guint i = 0; i < report->mirrors->len; i++)
    out_element (o, 6, "murl", g_ptr_array_index (report->mirrors, i));
  out_puts (o, "    </mirrors>\n  </doc>\n");

  out_puts (o, "  <metrics>\n");
  for (guint i = 0; i < report->metric_roots->len; i++)
    write_metric (o, g_ptr_array_index (report->metric_roots, i), 4);
  out_puts (o, "  </metrics>\n");

  out_puts (o, "  <program>\n");
  for (guint i = 0; i < report->regions->len; i++)
    {
      const CubeRegion *r = g_ptr_array_index (report->regions, i);
      out_printf (o, "    <region id=\"%" G_GINT64_FORMAT "\" mod=\"", r->file_id);
      out_escaped (o, r->mod ? r->mod : "");
      out_printf (o, "\" begin=\"%" G_GINT64_FORMAT "\" end=\"%" G_GINT64_FORMAT "\">\n",
                  r->begin_line, r->end_line);
      out_element (o, 6, "name", r->name);
      out_element (o, 6, "url", r->url);
      out_element (o, 6, "descr", r->descr);
      out_puts (o, "    </region>\n");
    }
  for (guint i = 0; i < report->cnode_roots->len; i++)
    write_cnode (o, g_ptr_array_index (report->cnode_roots, i), 4);
  out_puts (o, "  </program>\n");

  out_puts (o, "  <system>\n");
  shape_build (report, &sh);
  write_system (o, report, &sh);
  shape_clear (&sh);
  out_puts (o, "  </system>\n");

  if (write_severity (o, report))
    out_puts (o, "</cube>\n");
  out_flush (o);
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
  Out              o = { 0 };
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
  if (g_str_has_suffix (path, ".gz"))
    {
      o.gz = gzdopen (dup (o.fd), "wb6");
      if (o.gz == NULL)
        cube_set_error (&o.error, CUBE_ERROR_IO, path, _ ("cannot start gzip compression"));
    }
  o.buf = g_string_sized_new (1024 * 1024 + 4096);
  if (o.error == NULL)
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
