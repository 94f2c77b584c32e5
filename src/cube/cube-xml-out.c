/* cube-xml-out.c — buffered XML text output for the report writers (cube-write-private.h). */
#include "cube-write-private.h"
#include "kubus-text.h"

#include <glib/gi18n.h>

#include <errno.h>
#include <unistd.h>

void
cube_out_flush (CubeOut *o)
{
  const char *p = o->buf->str;
  gsize       left = o->buf->len;

  if (o->fd < 0 && o->gz == NULL)
    return; /* memory: the caller takes buf */
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
out_check (CubeOut *o)
{
  if (o->buf->len >= 1024 * 1024)
    cube_out_flush (o);
}

void
cube_out_puts (CubeOut *o, const char *s)
{
  g_string_append (o->buf, s);
  out_check (o);
}

void
cube_out_printf (CubeOut *o, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_string_append_vprintf (o->buf, format, args);
  va_end (args);
  out_check (o);
}

static void
out_sink (void *ctx, const char *p, size_t n)
{
  g_string_append_len (((CubeOut *) ctx)->buf, p, (gssize) n);
}

/* Names, paths, descriptions: any bytes, written as valid XML by kubus-text.c. */
void
cube_out_escaped (CubeOut *o, const char *text)
{
  kubus_text_xml (text, KUBUS_TEXT_XML_ATTR, out_sink, o);
  out_check (o);
}

void
cube_out_element (CubeOut *o, int indent, const char *name, const char *text)
{
  cube_out_printf (o, "%*s<%s>", indent, "", name);
  kubus_text_xml (text, KUBUS_TEXT_XML_TEXT, out_sink, o);
  cube_out_printf (o, "</%s>\n", name);
}

void
cube_out_attrs (CubeOut *o, int indent, const GPtrArray *attrs)
{
  for (guint i = 0; attrs != NULL && i < attrs->len; i++)
    {
      const CubeAttr *a = g_ptr_array_index (attrs, i);
      cube_out_printf (o, "%*s<attr key=\"", indent, "");
      cube_out_escaped (o, a->key);
      cube_out_puts (o, "\" value=\"");
      cube_out_escaped (o, a->value);
      cube_out_puts (o, "\"/>\n");
    }
}

#define MAX_INDENT 40

int
cube_out_indent (guint depth, int base)
{
  return (int) MIN ((guint) base + 2 * depth, MAX_INDENT);
}

typedef struct
{
  gconstpointer node;
  guint         next_child;
} Visit;

void
cube_out_tree (CubeOut      *o,
               gconstpointer root,
               int           base,
               CubeOutOpen   open,
               GPtrArray  *(*children) (gconstpointer node),
               gboolean    (*skip) (gconstpointer node),
               const char   *tag,
               gpointer      data)
{
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (Visit));
  Visit v = { root, 0 };

  if (skip != NULL && skip (root))
    return;
  open (o, root, base, data);
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
          open (o, k, cube_out_indent (stack->len, base), data);
          v.node = k;
          g_array_append_val (stack, v);
          continue;
        }
      g_array_set_size (stack, stack->len - 1);
      cube_out_printf (o, "%*s</%s>\n", cube_out_indent (stack->len, base), "", tag);
    }
}

void
cube_out_cart_open (CubeOut *o, const CubeCart *cart)
{
  cube_out_puts (o, "      <cart");
  if (cart->name != NULL)
    {
      cube_out_puts (o, " name=\"");
      cube_out_escaped (o, cart->name);
      cube_out_puts (o, "\"");
    }
  cube_out_printf (o, " ndims=\"%u\">\n", cart->ndims);
  for (guint d = 0; d < cart->ndims; d++)
    {
      cube_out_puts (o, "        <dim");
      if (cart->dims[d].name != NULL)
        {
          cube_out_puts (o, " name=\"");
          cube_out_escaped (o, cart->dims[d].name);
          cube_out_puts (o, "\"");
        }
      cube_out_printf (o, " size=\"%" G_GINT64_FORMAT "\" periodic=\"%s\"/>\n", cart->dims[d].size,
                       cart->dims[d].periodic ? "true" : "false");
    }
}
