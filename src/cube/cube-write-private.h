/* cube-write-private.h — what the CUBE 3 XML writer (cube-writer.c) and the Cube 4 archive
 * writer (cubex-writer.c) share: buffered XML text output and the dense numbering of every tree.
 * Not installed. */
#pragma once

#include "cube-private.h"

#include <zlib.h>

G_BEGIN_DECLS

/* ---- buffered text output (cube-xml-out.c) ---------------------------------------------------- */

typedef struct
{
  const char *path;  /* final name, for messages */
  int         fd;    /* < 0 and no gz: the text stays in buf (an archive member being built) */
  gzFile      gz;
  GString    *buf;
  GError     *error; /* the first write error; later output is dropped */
} CubeOut;

void cube_out_flush   (CubeOut *o);
void cube_out_puts    (CubeOut *o, const char *s);
void cube_out_printf  (CubeOut *o, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* An attribute value, any bytes, as valid XML (kubus-text.h: entities, U+FFFD for bytes that are
 * not UTF-8 and for characters XML 1.0 cannot carry). */
void cube_out_escaped (CubeOut *o, const char *text);
/* <name>text</name> on its own line, @text as cube_out_escaped but as character data. */
void cube_out_element (CubeOut *o, int indent, const char *name, const char *text);
/* One <attr key="" value=""/> line per CubeAttr of @attrs (may be NULL). */
void cube_out_attrs   (CubeOut *o, int indent, const GPtrArray *attrs);
/* <cart name="" ndims=""> and its <dim/> lines (the same in CUBE 3 and Cube 4 anchors); the
 * caller writes the coordinates and </cart>. */
void cube_out_cart_open (CubeOut *o, const CubeCart *cart);
/* Nesting is indented, but never past a limit: deep call trees would grow the file with the
 * square of their depth. */
int  cube_out_indent  (guint depth, int base);

/* Writes the subtree of @root without recursion (call trees can be deeper than the stack):
 * @open writes a node's start tag and content, its children are @children, a node for which
 * @skip says so is left out with its subtree, every written node is closed with </@tag>. */
typedef void (*CubeOutOpen) (CubeOut *o, gconstpointer node, int indent, gpointer data);
void cube_out_tree (CubeOut      *o,
                    gconstpointer root,
                    int           base,
                    CubeOutOpen   open,
                    GPtrArray  *(*children) (gconstpointer node),
                    gboolean    (*skip) (gconstpointer node),
                    const char   *tag,
                    gpointer      data);

/* ---- dense ids in file order (cube-write-order.c) --------------------------------------------- */

/* Every tree is written with ids 0..n-1 in the order the file lists its nodes, whatever ids the
 * report was read or built with (cubelib indexes arrays by them). */
typedef struct
{
  GPtrArray *metrics;   /* the written metrics, in file order (depth-first pre-order) */
  gint64    *metric_id; /* [metric->index]: written id, -1 when the metric is not written */
  GPtrArray *cnodes;    /* every call path in file order (depth-first pre-order) */
  gint64    *cnode_id;  /* [cnode->index] */
  gint64    *region_id; /* [region->index] */
} CubeWriteOrder;

/* @skip_metric: metrics (with their subtrees) the format cannot hold; NULL writes all. */
void cube_write_order_init  (CubeWriteOrder    *order,
                             const CubeReport  *report,
                             gboolean         (*skip_metric) (gconstpointer metric));
void cube_write_order_clear (CubeWriteOrder *order);

/* ---- Cube 4 archive (cubex-writer.c) ------------------------------------------------------------ */

/* Writes the whole .cubex archive to @fd (a new, empty file). @path names it in messages. */
gboolean cube_cubex_write_fd (CubeReport *report,
                              int         fd,
                              const char *path,
                              GError    **error);

G_END_DECLS
