/* cube-xml-reader.c — CUBE 3 XML (.cube, .cube.gz) and Cube 4 anchor.xml reader.
 *
 * A SAX2 push parser: the document is never held as a tree. The severity section is most of
 * a big file, so row text is parsed in place from the parser's character chunks into the row
 * array (no per-value allocation; a token split across two chunks goes through a small carry
 * buffer). Entities other than the five predefined ones are never expanded and a DOCTYPE is
 * refused outright, so entity bombs and external entities cannot do anything.
 */
#include "cube-private.h"
#include "kubus-text.h"

#include <glib/gi18n.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <zlib.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>

static void
silent_generic_error (void       *ctx,
                      const char *msg,
                      ...)
{
  (void) ctx;
  (void) msg;
}
#include <sys/stat.h>
#include <unistd.h>

typedef enum
{
  T_OTHER,
  T_CUBE,
  T_ATTR,
  T_MURL,
  T_METRIC,
  T_DISP_NAME,
  T_UNIQ_NAME,
  T_DTYPE,
  T_UOM,
  T_VAL,
  T_URL,
  T_DESCR,
  T_CUBEPL,
  T_REGION,
  T_NAME,
  T_MANGLED_NAME,
  T_PARADIGM,
  T_ROLE,
  T_CNODE,
  T_PARAMETER,
  T_SYSTEM,
  T_MACHINE,
  T_NODE,
  T_PROCESS,
  T_THREAD,
  T_TREENODE,
  T_LOCATIONGROUP,
  T_LOCATION,
  T_RANK,
  T_CLASS,
  T_TYPE,
  T_CART,
  T_DIM,
  T_COORD,
  T_SEVERITY,
  T_MATRIX,
  T_ROW,
} Tag;

static const struct
{
  const char *name;
  Tag         tag;
} tag_names[] = {
  { "cube", T_CUBE },
  { "attr", T_ATTR },
  { "murl", T_MURL },
  { "metric", T_METRIC },
  { "disp_name", T_DISP_NAME },
  { "uniq_name", T_UNIQ_NAME },
  { "dtype", T_DTYPE },
  { "uom", T_UOM },
  { "val", T_VAL },
  { "url", T_URL },
  { "descr", T_DESCR },
  { "cubepl", T_CUBEPL },
  { "region", T_REGION },
  { "name", T_NAME },
  { "mangled_name", T_MANGLED_NAME },
  { "paradigm", T_PARADIGM },
  { "role", T_ROLE },
  { "cnode", T_CNODE },
  { "parameter", T_PARAMETER },
  { "system", T_SYSTEM },
  { "machine", T_MACHINE },
  { "node", T_NODE },
  { "process", T_PROCESS },
  { "thread", T_THREAD },
  { "systemtreenode", T_TREENODE },
  { "locationgroup", T_LOCATIONGROUP },
  { "location", T_LOCATION },
  { "rank", T_RANK },
  { "class", T_CLASS },
  { "type", T_TYPE },
  { "cart", T_CART },
  { "dim", T_DIM },
  { "coord", T_COORD },
  { "severity", T_SEVERITY },
  { "matrix", T_MATRIX },
  { "row", T_ROW },
};

#define MAX_DIMS 64
#define CARRY_MAX 128

typedef struct
{
  CubeCnode *cnode;
  gint64     callee_id;
  int        line;
} PendingCallee;

typedef struct
{
  CubeReport      *report;
  const char      *path;
  CubeXmlMode      mode;
  xmlParserCtxtPtr ctxt;
  GError          *error;

  GByteArray *tags; /* open elements, innermost last */
  gboolean    seen_root;
  gboolean    system_done;
  GString    *text;
  gboolean    collecting;

  GPtrArray   *metric_stack; /* CubeMetric* */
  GPtrArray   *cnode_stack;  /* CubeCnode* */
  GPtrArray   *sys_stack;    /* CubeSysNode* */
  CubeRegion  *region;
  CubeCart    *cart;
  guint        cart_dims_seen;
  CubeSysNode *coord_node;
  GArray      *pending; /* PendingCallee: calleeId resolved at the end */
  gboolean    *void_metrics; /* per metric index: VOID here or above (cube_report_void_metrics) */
  guint        void_metrics_len;

  /* severity */
  CubeMetric *matrix_metric; /* NULL outside a matrix or for a metric that stores no data */
  double     *row;           /* row being filled, or NULL */
  guint       row_cnode;
  guint       row_count;
  guint       row_len;
  char        carry[CARRY_MAX];
  guint       carry_len;
  gboolean    carry_overflow;
  const char *chunk_end;     /* end of the text chunk row_characters is scanning, or NULL */
  int         line_back;     /* lines between a bad value and the parser's position */
} ParseState;

/* The one region every cnode points to until its calleeId is resolved at the end, so that
 * regions may follow the call tree in the file. Never part of a report. */
static CubeRegion pending_region;

static Tag
tag_from_name (const xmlChar *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (tag_names); i++)
    if (strcmp ((const char *)name, tag_names[i].name) == 0)
      return tag_names[i].tag;
  return T_OTHER;
}

static int
current_line (ParseState *st)
{
  return xmlSAX2GetLineNumber (st->ctxt);
}

static void fail (ParseState *st, CubeError code, const char *format, ...) G_GNUC_PRINTF (3, 4);

/* Records the first error with file and line, and stops the parser. */
static void
fail (ParseState *st, CubeError code, const char *format, ...)
{
  va_list          args;
  g_autofree char *msg = NULL;

  if (st->error == NULL)
    {
      va_start (args, format);
      msg = g_strdup_vprintf (format, args);
      va_end (args);
      st->error = g_error_new (CUBE_ERROR, code, "%s:%d: %s", st->path,
                               current_line (st) - st->line_back, msg);
    }
  xmlStopParser (st->ctxt);
}

static Tag
parent_tag (ParseState *st, guint up)
{
  if (st->tags->len < up + 1)
    return T_OTHER;
  return (Tag)st->tags->data[st->tags->len - 1 - up];
}

/* ---- attributes -------------------------------------------------------------------------- */

/* Attribute value of @name (NULL if absent), newly allocated.
 * Without entity substitution libxml2 hands "&amp;" in attribute values over as "&#38;"
 * (to keep it apart from entity references); every '&' it delivers starts such a sequence,
 * so turning each "&#38;" back into '&' is exact. */
static char *
attr_dup (int nb, const xmlChar **attrs, const char *name)
{
  for (int i = 0; i < nb; i++)
    if (strcmp ((const char *)attrs[5 * i], name) == 0)
      {
        char *v = g_strndup ((const char *)attrs[5 * i + 3], attrs[5 * i + 4] - attrs[5 * i + 3]);
        char *r = v, *w = v;
        if (strchr (v, '&') == NULL)
          return v;
        while (*r)
          {
            if (strncmp (r, "&#38;", 5) == 0)
              {
                *w++ = '&';
                r += 5;
              }
            else
              *w++ = *r++;
          }
        *w = '\0';
        return v;
      }
  return NULL;
}

static gboolean
attr_present (int nb, const xmlChar **attrs, const char *name)
{
  for (int i = 0; i < nb; i++)
    if (strcmp ((const char *)attrs[5 * i], name) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
parse_int (const char *text, gint64 *out)
{
  char  *end;
  gint64 v;

  if (text == NULL)
    return FALSE;
  while (g_ascii_isspace (*text))
    text++;
  if (*text == '\0')
    return FALSE;
  /* Only ERANGE counts: g_ascii_strtoll may leave another errno behind on success (e.g. from
   * waiting on a lock while GLib sets up its C locale for the first time in another thread). */
  errno = 0;
  v = g_ascii_strtoll (text, &end, 10);
  if (end == text || errno == ERANGE)
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;
  if (*end != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

/* Integer attribute: absent → @def (or an error when @required), malformed → error. */
static gboolean
int_attr (ParseState     *st,
          int             nb,
          const xmlChar **attrs,
          const char     *element,
          const char     *name,
          gboolean        required,
          gint64          def,
          gint64         *out)
{
  g_autofree char *text = attr_dup (nb, attrs, name);

  if (text == NULL)
    {
      if (required)
        {
          fail (st, CUBE_ERROR_FORMAT, _ ("<%s> lacks the attribute “%s”"), element, name);
          return FALSE;
        }
      *out = def;
      return TRUE;
    }
  if (!parse_int (text, out))
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("<%s %s=\"%s\">: not an integer"), element, name, text);
      return FALSE;
    }
  return TRUE;
}

/* System tree ids are spelled Id in CUBE files; accept id too. */
static gboolean
sys_id_attr (ParseState *st, int nb, const xmlChar **attrs, const char *element, gint64 *out)
{
  if (attr_present (nb, attrs, "Id"))
    return int_attr (st, nb, attrs, element, "Id", TRUE, 0, out);
  return int_attr (st, nb, attrs, element, "id", TRUE, 0, out);
}

/* ---- numbers ------------------------------------------------------------------------------- */

static const double pow10_table[] = {
  1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Decimal number in [s, s+n). The common case (≤ 15-16 significant digits, small exponent)
 * is exact: an integer mantissa below 2^53 times or divided by an exact power of ten rounds
 * once, which is what strtod gives. Everything else goes to g_ascii_strtod (locale-proof). */
static gboolean
parse_number (const char *s, gsize n, double *out)
{
  const char *p = s, *e = s + n;
  gboolean    neg = FALSE, any = FALSE, exact = TRUE;
  guint64     mant = 0;
  int         exp10 = 0;

  if (p < e && (*p == '-' || *p == '+'))
    neg = *p++ == '-';
  for (; p < e && *p >= '0' && *p <= '9'; p++)
    {
      any = TRUE;
      if (mant < G_GUINT64_CONSTANT (900000000000000000))
        mant = mant * 10 + (guint64)(*p - '0');
      else
        exact = FALSE;
    }
  if (p < e && *p == '.')
    for (p++; p < e && *p >= '0' && *p <= '9'; p++)
      {
        any = TRUE;
        if (mant < G_GUINT64_CONSTANT (900000000000000000))
          {
            mant = mant * 10 + (guint64)(*p - '0');
            exp10--;
          }
        else
          exact = FALSE;
      }
  if (any && p < e && (*p == 'e' || *p == 'E'))
    {
      gboolean eneg = FALSE;
      int      ev = 0;
      gboolean edig = FALSE;

      p++;
      if (p < e && (*p == '-' || *p == '+'))
        eneg = *p++ == '-';
      for (; p < e && *p >= '0' && *p <= '9'; p++)
        {
          edig = TRUE;
          if (ev < 100000)
            ev = ev * 10 + (*p - '0');
        }
      if (!edig)
        any = FALSE;
      exp10 += eneg ? -ev : ev;
    }
  if (any && p == e && exact && mant <= (G_GUINT64_CONSTANT (1) << 53) && exp10 >= -22
      && exp10 <= 22)
    {
      double v = (double)mant;
      v = exp10 < 0 ? v / pow10_table[-exp10] : v * pow10_table[exp10];
      *out = neg ? -v : v;
      return TRUE;
    }
  else
    {
      char   buf[CARRY_MAX + 1];
      char  *end;
      double v;

      if (n == 0 || n > CARRY_MAX)
        return FALSE;
      memcpy (buf, s, n);
      buf[n] = '\0';
      v = g_ascii_strtod (buf, &end);
      if (end != buf + n || !isfinite (v))
        return FALSE;
      *out = v;
      return TRUE;
    }
}

/* libxml2 reports the line where a text chunk ends; a value inside the chunk lies as many
 * lines earlier as there are newlines after it (a Scalasca row has one value per line). */
static void
locate_value (ParseState *st, const char *tok, gsize n)
{
  st->line_back = 0;
  if (st->chunk_end == NULL || tok == st->carry)
    return;
  for (const char *q = tok + n; q < st->chunk_end; q++)
    st->line_back += *q == '\n';
}

static void
row_value (ParseState *st, const char *tok, gsize n)
{
  double v;

  if (n > CARRY_MAX)
    { /* say so, rather than calling a long but well-formed number "not a number" */
      locate_value (st, tok, n);
      fail (st, CUBE_ERROR_FORMAT, _ ("a value in a row is longer than %d characters"),
            CARRY_MAX);
      return;
    }
  if (!parse_number (tok, n, &v))
    {
      locate_value (st, tok, n);
      fail (st, CUBE_ERROR_FORMAT,
            _ ("row of call path %lld: “%.*s” is not a finite number"),
            (long long) ((CubeCnode *)g_ptr_array_index (st->report->cnodes, st->row_cnode))->file_id,
            (int)kubus_text_cut (tok, MIN (n, 40)), tok); /* whole characters only */
      return;
    }
  if (st->row_count >= st->row_len)
    {
      locate_value (st, tok, n);
      fail (st, CUBE_ERROR_FORMAT,
            _ ("row of call path %lld has more values than the %u locations"),
            (long long) ((CubeCnode *)g_ptr_array_index (st->report->cnodes, st->row_cnode))->file_id,
            st->row_len);
      return;
    }
  st->row[st->row_count++] = v;
}

static inline gboolean
is_space (char c)
{
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static const guint64 pow10_int[] = {
  G_GUINT64_CONSTANT (1),       G_GUINT64_CONSTANT (10),       G_GUINT64_CONSTANT (100),
  G_GUINT64_CONSTANT (1000),    G_GUINT64_CONSTANT (10000),    G_GUINT64_CONSTANT (100000),
  G_GUINT64_CONSTANT (1000000), G_GUINT64_CONSTANT (10000000), G_GUINT64_CONSTANT (100000000),
};

/* Digits from *pp into *mant; returns how many (more than 19 overflow: caller falls back). */
static inline int
scan_digits (const char **pp, const char *end, guint64 *mant)
{
  const char *p = *pp;
  guint64     m = *mant;
  int         n = 0;

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  /* Up to eight digits per step without a branch per digit: find the first non-digit byte
   * of an 8-byte load, move the digits to the top and combine them SWAR-style. */
  while (end - p >= 8 && n <= 11)
    {
      guint64 v, mask, d;
      int     k;

      memcpy (&v, p, 8);
      mask = ((v + G_GUINT64_CONSTANT (0x4646464646464646))
              | (v - G_GUINT64_CONSTANT (0x3030303030303030)) | v)
             & G_GUINT64_CONSTANT (0x8080808080808080);
      k = mask == 0 ? 8 : __builtin_ctzll (mask) >> 3;
      if (k == 0)
        break;
      d = (v - G_GUINT64_CONSTANT (0x3030303030303030)) << (8 * (8 - k));
      d = (d * 10) + (d >> 8);
      d = (((d & G_GUINT64_CONSTANT (0x000000FF000000FF)) * G_GUINT64_CONSTANT (0x000F424000000064))
           + (((d >> 16) & G_GUINT64_CONSTANT (0x000000FF000000FF))
              * G_GUINT64_CONSTANT (0x0000271000000001)))
          >> 32;
      m = m * pow10_int[k] + d;
      p += k;
      n += k;
      if (k < 8)
        {
          *pp = p;
          *mant = m;
          return n;
        }
    }
#endif
  while (p < end && (guchar)(*p - '0') < 10)
    {
      if (n < 19)
        m = m * 10 + (guint64)(*p - '0');
      p++;
      n++;
    }
  *pp = p;
  *mant = m;
  return n;
}

/* One pass over a chunk of row text: numbers are parsed as they are scanned. A number that
 * reaches the end of the chunk may go on in the next one: it moves to the carry buffer. */
static void
row_characters (ParseState *st, const char *p, const char *end)
{
  if (st->carry_len > 0)
    {
      while (p < end && !is_space (*p))
        {
          if (st->carry_len < CARRY_MAX)
            st->carry[st->carry_len++] = *p;
          else
            st->carry_overflow = TRUE;
          p++;
        }
      if (p == end)
        return;
      if (st->carry_overflow)
        {
          fail (st, CUBE_ERROR_FORMAT, _ ("a value in a row is longer than %d characters"),
                CARRY_MAX);
          return;
        }
      row_value (st, st->carry, st->carry_len);
      st->carry_len = 0;
    }
  while (st->error == NULL)
    {
      const char *tok;
      guint64     mant = 0;
      int         ndig, exp10 = 0;
      gboolean    neg = FALSE;

      while (p < end && is_space (*p))
        p++;
      if (p == end)
        return;
      tok = p;
      if (*p == '-' || *p == '+')
        neg = *p++ == '-';
      ndig = scan_digits (&p, end, &mant);
      if (p < end && *p == '.')
        {
          const char *frac = ++p;
          ndig += scan_digits (&p, end, &mant);
          exp10 = -(int)(p - frac);
        }
      if (p < end && (*p == 'e' || *p == 'E') && ndig > 0)
        {
          gboolean eneg = FALSE;
          int      ev = 0;
          p++;
          if (p < end && (*p == '-' || *p == '+'))
            eneg = *p++ == '-';
          while (p < end && (guchar)(*p - '0') < 10)
            {
              if (ev < 100000)
                ev = ev * 10 + (*p - '0');
              p++;
            }
          exp10 += eneg ? -ev : ev;
        }
      if (p < end && is_space (*p) && ndig > 0 && ndig <= 19
          && mant <= (G_GUINT64_CONSTANT (1) << 53) && exp10 >= -22 && exp10 <= 22
          && st->row_count < st->row_len)
        {
          /* Exact operands, one rounding: the same double strtod gives. */
          double v = (double)mant;
          v = exp10 < 0 ? v / pow10_table[-exp10] : v * pow10_table[exp10];
          st->row[st->row_count++] = neg ? -v : v;
          continue;
        }
      /* Slow path: whole token, then the careful parser (and its error messages). */
      while (p < end && !is_space (*p))
        p++;
      if (p == end)
        {
          gsize n = (gsize)(p - tok);
          st->carry_overflow = n > CARRY_MAX;
          st->carry_len = MIN (n, CARRY_MAX);
          memcpy (st->carry, tok, st->carry_len);
          return;
        }
      row_value (st, tok, (gsize)(p - tok));
    }
}

/* ---- SAX callbacks ------------------------------------------------------------------------ */

static gboolean
is_text_tag (Tag tag)
{
  switch (tag)
    {
    case T_MURL:
    case T_DISP_NAME:
    case T_UNIQ_NAME:
    case T_DTYPE:
    case T_UOM:
    case T_VAL:
    case T_URL:
    case T_DESCR:
    case T_CUBEPL:
    case T_NAME:
    case T_MANGLED_NAME:
    case T_PARADIGM:
    case T_ROLE:
    case T_RANK:
    case T_CLASS:
    case T_TYPE:
    case T_COORD:
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
is_sys_tag (Tag tag)
{
  return tag == T_MACHINE || tag == T_NODE || tag == T_PROCESS || tag == T_THREAD
         || tag == T_TREENODE || tag == T_LOCATIONGROUP || tag == T_LOCATION;
}

static gpointer
stack_top (GPtrArray *stack)
{
  return stack->len > 0 ? g_ptr_array_index (stack, stack->len - 1) : NULL;
}

static void
start_cube (ParseState *st, int nb, const xmlChar **attrs)
{
  g_autofree char *version = attr_dup (nb, attrs, "version");
  gboolean         ok;

  if (version == NULL)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("<cube> has no version attribute"));
      return;
    }
  if (st->mode == CUBE_XML_CUBE3)
    ok = strcmp (version, "3") == 0 || g_str_has_prefix (version, "3.");
  else
    ok = strcmp (version, "4") == 0 || g_str_has_prefix (version, "4.");
  if (!ok)
    {
      fail (st, CUBE_ERROR_UNSUPPORTED,
            st->mode == CUBE_XML_CUBE3
                ? _ ("CUBE version “%s” is not supported here (expected 3.x for a .cube file)")
                : _ ("Cube anchor version “%s” is not supported (expected 4.x)"),
            version);
      return;
    }
  cube_metric_set_string (&st->report->version, version);
}

static void
start_attr (ParseState *st, Tag parent, int nb, const xmlChar **attrs)
{
  g_autofree char *key = attr_dup (nb, attrs, "key");
  g_autofree char *value = attr_dup (nb, attrs, "value");
  GPtrArray      **target = NULL;

  if (key == NULL)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("<attr> lacks the attribute “key”"));
      return;
    }
  if (parent == T_CUBE)
    {
      cube_report_set_attr (st->report, key, value ? value : "");
      return;
    }
  if (parent == T_METRIC)
    target = &((CubeMetric *)stack_top (st->metric_stack))->attrs;
  else if (parent == T_REGION && st->region != NULL)
    target = &st->region->attrs;
  else if (parent == T_CNODE)
    target = &((CubeCnode *)stack_top (st->cnode_stack))->attrs;
  else if (is_sys_tag (parent))
    target = &((CubeSysNode *)stack_top (st->sys_stack))->attrs;
  if (target != NULL)
    cube_node_add_attr (target, key, value);
}

static void
start_metric (ParseState *st, int nb, const xmlChar **attrs)
{
  CubeMetric      *parent = stack_top (st->metric_stack);
  CubeMetric      *m;
  gint64           id;
  g_autofree char *type = attr_dup (nb, attrs, "type");
  g_autofree char *viztype = attr_dup (nb, attrs, "viztype");
  g_autofree char *convertible = attr_dup (nb, attrs, "convertible");
  g_autofree char *cacheable = attr_dup (nb, attrs, "cacheable");

  if (!int_attr (st, nb, attrs, "metric", "id", TRUE, 0, &id))
    return;
  m = cube_report_add_metric (st->report, parent, "", "", CUBE_DTYPE_DOUBLE, "", "", "");
  g_ptr_array_add (st->metric_stack, m);
  if (!cube_metric_set_file_id (st->report, m, id))
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("metric id %lld is defined twice"), (long long) id);
      return;
    }
  if (type != NULL)
    {
      if (g_ascii_strcasecmp (type, "EXCLUSIVE") == 0)
        m->kind = CUBE_METRIC_EXCLUSIVE;
      else if (g_ascii_strcasecmp (type, "INCLUSIVE") == 0)
        m->kind = CUBE_METRIC_INCLUSIVE;
      else if (g_ascii_strcasecmp (type, "SIMPLE") == 0)
        m->kind = CUBE_METRIC_SIMPLE;
      else if (g_ascii_strcasecmp (type, "POSTDERIVED") == 0
               || g_ascii_strcasecmp (type, "DERIVED") == 0)
        m->kind = CUBE_METRIC_POSTDERIVED;
      else if (g_ascii_strcasecmp (type, "PREDERIVED_INCLUSIVE") == 0)
        m->kind = CUBE_METRIC_PREDERIVED_INCLUSIVE;
      else if (g_ascii_strcasecmp (type, "PREDERIVED_EXCLUSIVE") == 0)
        m->kind = CUBE_METRIC_PREDERIVED_EXCLUSIVE;
      else
        {
          fail (st, CUBE_ERROR_UNSUPPORTED,
                _ ("metric id %lld: unknown metric type “%s”"), (long long) id, type);
          return;
        }
    }
  m->ghost = viztype != NULL && g_ascii_strcasecmp (viztype, "GHOST") == 0;
  m->convertible = convertible == NULL || g_ascii_strcasecmp (convertible, "false") != 0;
  m->cacheable = cacheable == NULL || g_ascii_strcasecmp (cacheable, "false") != 0;
  /* Cube 4 INCLUSIVE metrics are stored inclusive along the call tree; along the metric tree
   * Cube 4 stores inclusive values like CUBE 3 (docs/decisions/cubex-semantics.md). The .cubex
   * reader has the last word. */
  if (st->mode == CUBE_XML_ANCHOR)
    {
      m->data->stored_metric_exclusive = FALSE;
      m->data->stored_call_inclusive = m->kind == CUBE_METRIC_INCLUSIVE;
    }
}

static void
start_region (ParseState *st, int nb, const xmlChar **attrs)
{
  gint64           id, begin, end;
  g_autofree char *mod = attr_dup (nb, attrs, "mod");

  if (!int_attr (st, nb, attrs, "region", "id", TRUE, 0, &id)
      || !int_attr (st, nb, attrs, "region", "begin", FALSE, -1, &begin)
      || !int_attr (st, nb, attrs, "region", "end", FALSE, -1, &end))
    return;
  st->region = cube_report_add_region (st->report, "", mod, begin, end);
  if (!cube_region_set_file_id (st->report, st->region, id))
    fail (st, CUBE_ERROR_FORMAT, _ ("region id %lld is defined twice"), (long long) id);
}

static void
start_cnode (ParseState *st, int nb, const xmlChar **attrs)
{
  gint64           id, callee, line;
  g_autofree char *mod = attr_dup (nb, attrs, "mod");
  CubeCnode       *c;
  PendingCallee    pc;

  if (!int_attr (st, nb, attrs, "cnode", "id", TRUE, 0, &id)
      || !int_attr (st, nb, attrs, "cnode", "calleeId", TRUE, 0, &callee)
      || !int_attr (st, nb, attrs, "cnode", "line", FALSE, -1, &line))
    return;
  c = cube_report_add_cnode (st->report, stack_top (st->cnode_stack), &pending_region, line, mod);
  g_ptr_array_add (st->cnode_stack, c);
  if (!cube_cnode_set_file_id (st->report, c, id))
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("call path (cnode) id %lld is defined twice"),
            (long long) id);
      return;
    }
  pc.cnode = c;
  pc.callee_id = callee;
  pc.line = current_line (st);
  g_array_append_val (st->pending, pc);
}

static void
start_parameter (ParseState *st, int nb, const xmlChar **attrs)
{
  CubeCnode       *c = stack_top (st->cnode_stack);
  g_autofree char *key = attr_dup (nb, attrs, "parkey");
  g_autofree char *value = attr_dup (nb, attrs, "parvalue");

  if (c == NULL)
    return;
  if (key == NULL)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("<parameter> lacks the attribute “parkey”"));
      return;
    }
  cube_node_add_attr (&c->params, key, value);
}

static void
start_sysnode (ParseState *st, Tag tag, const char *element, int nb, const xmlChar **attrs)
{
  CubeSysKind  kind;
  CubeSysNode *s;
  gint64       id;

  switch (tag)
    {
    case T_MACHINE:
      kind = CUBE_SYS_MACHINE;
      break;
    case T_NODE:
      kind = CUBE_SYS_NODE;
      break;
    case T_PROCESS:
    case T_LOCATIONGROUP:
      kind = CUBE_SYS_PROCESS;
      break;
    case T_THREAD:
    case T_LOCATION:
      kind = CUBE_SYS_THREAD;
      break;
    default:
      kind = CUBE_SYS_TREENODE;
      break;
    }
  if (!sys_id_attr (st, nb, attrs, element, &id))
    return;
  if (st->system_done)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("<%s> after the end of the system tree"), element);
      return;
    }
  s = cube_report_add_sysnode (st->report, stack_top (st->sys_stack), kind, "", -1);
  g_ptr_array_add (st->sys_stack, s);
  if (!cube_sysnode_set_file_id (st->report, s, id))
    fail (st, CUBE_ERROR_FORMAT, _ ("<%s Id=\"%lld\"> is defined twice"), element,
          (long long) id);
}

static gboolean
finish_system (ParseState *st)
{
  GError *error = NULL;

  if (st->system_done)
    return TRUE;
  st->system_done = TRUE;
  if (!cube_report_sort_locations (st->report, NULL, &error))
    {
      fail (st, CUBE_ERROR_FORMAT, "%s", error->message);
      g_error_free (error);
      return FALSE;
    }
  return TRUE;
}

static void
start_cart (ParseState *st, int nb, const xmlChar **attrs)
{
  g_autofree char *name = attr_dup (nb, attrs, "name");
  gint64           ndims;

  if (!int_attr (st, nb, attrs, "cart", "ndims", TRUE, 0, &ndims))
    return;
  if (ndims < 1 || ndims > MAX_DIMS)
    {
      fail (st, CUBE_ERROR_FORMAT,
            _ ("topology has %lld dimensions (1 … %d supported)"), (long long) ndims, MAX_DIMS);
      return;
    }
  st->cart = cube_report_add_cart (st->report, name, (guint)ndims, NULL, NULL);
  st->cart_dims_seen = 0;
}

static void
start_dim (ParseState *st, int nb, const xmlChar **attrs)
{
  g_autofree char *name = attr_dup (nb, attrs, "name");
  g_autofree char *periodic = attr_dup (nb, attrs, "periodic");
  gint64           size;
  CubeCartDim     *dim;

  if (st->cart == NULL)
    return;
  if (!int_attr (st, nb, attrs, "dim", "size", TRUE, 0, &size))
    return;
  if (st->cart_dims_seen >= st->cart->ndims)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("topology has more <dim> elements than ndims=%u"),
            st->cart->ndims);
      return;
    }
  if (size < 0)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("topology dimension size %lld is negative"),
            (long long) size);
      return;
    }
  dim = &st->cart->dims[st->cart_dims_seen++];
  dim->size = size;
  dim->periodic = periodic != NULL
                  && (g_ascii_strcasecmp (periodic, "true") == 0 || strcmp (periodic, "1") == 0);
  cube_metric_set_string (&dim->name, name);
}

static void
start_coord (ParseState *st, int nb, const xmlChar **attrs)
{
  static const struct
  {
    const char *attr;
    CubeSysKind kind;
  } kinds[] = {
    { "thrdId", CUBE_SYS_THREAD },  { "locId", CUBE_SYS_THREAD }, { "procId", CUBE_SYS_PROCESS },
    { "lgId", CUBE_SYS_PROCESS },   { "nodeId", CUBE_SYS_NODE },  { "machId", CUBE_SYS_MACHINE },
    { "stnId", CUBE_SYS_TREENODE },
  };

  st->coord_node = NULL;
  if (st->cart == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (attr_present (nb, attrs, kinds[i].attr))
      {
        gint64 id;
        if (!int_attr (st, nb, attrs, "coord", kinds[i].attr, TRUE, 0, &id))
          return;
        st->coord_node = cube_report_sysnode_by_file_id (st->report, kinds[i].kind, id);
        if (st->coord_node == NULL)
          fail (st, CUBE_ERROR_FORMAT,
                _ ("<coord %s=\"%lld\"> refers to an unknown system tree node"),
                kinds[i].attr, (long long) id);
        return;
      }
  fail (st, CUBE_ERROR_FORMAT, _ ("<coord> names no thread, process, node or location"));
}

static void
end_coord (ParseState *st, const char *text)
{
  gint64     *coord;
  const char *p = text;
  guint       n = 0;

  if (st->cart == NULL || st->coord_node == NULL)
    return;
  coord = g_newa (gint64, st->cart->ndims);
  while (TRUE)
    {
      char  *end;
      gint64 v;

      while (g_ascii_isspace (*p))
        p++;
      if (*p == '\0')
        break;
      errno = 0;
      v = g_ascii_strtoll (p, &end, 10);
      if (end == p || errno == ERANGE || (*end != '\0' && !g_ascii_isspace (*end)))
        {
          fail (st, CUBE_ERROR_FORMAT, _ ("coordinate “%s” is not a list of integers"), text);
          return;
        }
      if (n >= st->cart->ndims)
        {
          fail (st, CUBE_ERROR_FORMAT, _ ("coordinate “%s” has more than %u entries"), text,
                st->cart->ndims);
          return;
        }
      if (v < 0 || (st->cart->dims[n].size > 0 && v >= st->cart->dims[n].size))
        {
          fail (st, CUBE_ERROR_FORMAT, _ ("coordinate “%s” lies outside the topology"), text);
          return;
        }
      coord[n++] = v;
      p = end;
    }
  if (n != st->cart->ndims)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("coordinate “%s” has %u entries, the topology %u dimensions"),
            text, n, st->cart->ndims);
      return;
    }
  cube_cart_set_coord (st->cart, st->coord_node, coord);
}

static void
start_matrix (ParseState *st, int nb, const xmlChar **attrs)
{
  gint64 id;

  if (!int_attr (st, nb, attrs, "matrix", "metricId", TRUE, 0, &id))
    return;
  st->matrix_metric = cube_report_metric_by_file_id (st->report, id);
  if (st->matrix_metric == NULL)
    {
      fail (st, CUBE_ERROR_FORMAT,
            _ ("<matrix metricId=\"%lld\"> refers to an unknown metric"), (long long) id);
      return;
    }
  if (!cube_metric_has_data (st->matrix_metric))
    st->matrix_metric = NULL; /* values of a type we cannot read: skipped, shown as unsupported */
  else
    {
      /* <val>VOID</val> here or above: cubelib ignores these values */
      if (st->void_metrics == NULL || st->void_metrics_len != st->report->metrics->len)
        {
          g_free (st->void_metrics);
          st->void_metrics = cube_report_void_metrics (st->report);
          st->void_metrics_len = st->report->metrics->len;
        }
      if (st->void_metrics[st->matrix_metric->index])
        st->matrix_metric = NULL;
    }
}

static void
start_row (ParseState *st, int nb, const xmlChar **attrs)
{
  gint64     id;
  CubeCnode *c;

  st->row = NULL;
  if (!int_attr (st, nb, attrs, "row", "cnodeId", TRUE, 0, &id))
    return;
  c = cube_report_cnode_by_file_id (st->report, id);
  if (c == NULL)
    {
      fail (st, CUBE_ERROR_FORMAT,
            _ ("<row cnodeId=\"%lld\"> refers to an unknown call path"), (long long) id);
      return;
    }
  if (st->matrix_metric == NULL)
    return;
  if (!finish_system (st))
    return;
  if (c->index < st->matrix_metric->data->n_rows && st->matrix_metric->data->rows[c->index] != NULL)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("metric “%s” has two rows for call path %lld"),
            st->matrix_metric->uniq_name, (long long) id);
      return;
    }
  st->row = cube_metric_alloc_row (st->report, st->matrix_metric, c->index);
  st->row_cnode = c->index;
  st->row_count = 0;
  st->row_len = st->report->locations->len;
  st->carry_len = 0;
  st->carry_overflow = FALSE;
}

static void
end_row (ParseState *st)
{
  gboolean nonzero = FALSE;

  if (st->row == NULL)
    return;
  if (st->carry_len > 0)
    {
      if (st->carry_overflow)
        {
          fail (st, CUBE_ERROR_FORMAT, _ ("a value in a row is longer than %d characters"),
                CARRY_MAX);
          return;
        }
      row_value (st, st->carry, st->carry_len);
      st->carry_len = 0;
      if (st->error != NULL)
        return;
    }
  /* A row with fewer values than locations (even none at all) gives its values to the first
   * locations in id order; the rest stay 0. That is how cubelib (and so CubeGUI) reads such
   * rows, and its own test reports have them. More values than locations is an error
   * (row_value). */
  for (guint i = 0; i < st->row_len && !nonzero; i++)
    nonzero = st->row[i] != 0.0;
  /* All-zero rows cost memory and mean the same as no row. The duplicate check above is
   * then blind to a repeated all-zero row, which is harmless. */
  if (!nonzero)
    cube_metric_drop_row (st->report, st->matrix_metric, st->row_cnode);
  st->row = NULL;
}

static void
on_start_element (void           *ctx,
                  const xmlChar  *localname,
                  const xmlChar  *prefix,
                  const xmlChar  *uri,
                  int             nb_namespaces,
                  const xmlChar **namespaces,
                  int             nb_attributes,
                  int             nb_defaulted,
                  const xmlChar **attributes)
{
  ParseState *st = ctx;
  Tag         tag = tag_from_name (localname);
  Tag         parent = parent_tag (st, 0);

  (void)prefix;
  (void)uri;
  (void)nb_namespaces;
  (void)namespaces;
  (void)nb_defaulted;

  if (st->error != NULL)
    return;
  if (!st->seen_root)
    {
      st->seen_root = TRUE;
      if (tag != T_CUBE)
        {
          fail (st, CUBE_ERROR_FORMAT, _ ("not a CUBE file: the root element is <%s>, not <cube>"),
                (const char *)localname);
          return;
        }
    }
  g_byte_array_append (st->tags, (const guint8 *)&(guint8){ (guint8)tag }, 1);
  if (st->row != NULL)
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("unexpected <%s> inside a <row>"), (const char *)localname);
      return;
    }
  if (is_text_tag (tag))
    {
      g_string_truncate (st->text, 0);
      st->collecting = TRUE;
    }

  switch (tag)
    {
    case T_CUBE:
      if (st->tags->len == 1)
        start_cube (st, nb_attributes, attributes);
      break;
    case T_ATTR:
      start_attr (st, parent, nb_attributes, attributes);
      break;
    case T_METRIC:
      start_metric (st, nb_attributes, attributes);
      break;
    case T_REGION:
      start_region (st, nb_attributes, attributes);
      break;
    case T_CNODE:
      start_cnode (st, nb_attributes, attributes);
      break;
    case T_PARAMETER:
      if (parent == T_CNODE)
        start_parameter (st, nb_attributes, attributes);
      break;
    case T_MACHINE:
    case T_NODE:
    case T_PROCESS:
    case T_THREAD:
    case T_TREENODE:
    case T_LOCATIONGROUP:
    case T_LOCATION:
      start_sysnode (st, tag, (const char *)localname, nb_attributes, attributes);
      break;
    case T_CART:
      if (finish_system (st))
        start_cart (st, nb_attributes, attributes);
      break;
    case T_DIM:
      if (parent == T_CART)
        start_dim (st, nb_attributes, attributes);
      break;
    case T_COORD:
      if (parent == T_CART)
        start_coord (st, nb_attributes, attributes);
      break;
    case T_SEVERITY:
      finish_system (st);
      break;
    case T_MATRIX:
      if (parent == T_SEVERITY)
        start_matrix (st, nb_attributes, attributes);
      break;
    case T_ROW:
      if (parent == T_MATRIX)
        start_row (st, nb_attributes, attributes);
      break;
    default:
      break;
    }
}

static void
set_rank (ParseState *st, CubeSysNode *s, const char *text)
{
  gint64 rank;

  if (!parse_int (text, &rank))
    {
      fail (st, CUBE_ERROR_FORMAT, _ ("rank “%s” is not an integer"), text);
      return;
    }
  s->rank = rank;
}

/* A text element ended: store it where its parent says. */
static void
end_text (ParseState *st, Tag tag, Tag parent)
{
  const char *text = st->text->str;

  if (tag == T_MURL)
    {
      g_ptr_array_add (st->report->mirrors, g_strdup (g_strstrip (st->text->str)));
      return;
    }
  if (tag == T_COORD)
    {
      if (parent == T_CART)
        end_coord (st, text);
      return;
    }
  if (parent == T_METRIC)
    {
      CubeMetric *m = stack_top (st->metric_stack);
      switch (tag)
        {
        case T_DISP_NAME:
          cube_metric_set_string (&m->disp_name, text);
          break;
        case T_UNIQ_NAME:
          if (!cube_metric_set_uniq_name (st->report, m, text))
            fail (st, CUBE_ERROR_FORMAT, _ ("two metrics have the unique name “%s”"), text);
          break;
        case T_DTYPE:
          cube_metric_set_dtype (m, g_strstrip (st->text->str));
          break;
        case T_UOM:
          cube_metric_set_string (&m->uom, text);
          break;
        case T_VAL:
          cube_metric_set_string (&m->val, text);
          break;
        case T_URL:
          cube_metric_set_string (&m->url, text);
          break;
        case T_DESCR:
          cube_metric_set_string (&m->descr, text);
          break;
        case T_CUBEPL:
          cube_metric_set_string (&m->cubepl, text);
          break;
        default:
          break;
        }
      return;
    }
  if (parent == T_REGION && st->region != NULL)
    {
      CubeRegion *r = st->region;
      switch (tag)
        {
        case T_NAME:
          cube_metric_set_string (&r->name, text);
          break;
        case T_MANGLED_NAME:
          cube_metric_set_string (&r->mangled_name, text);
          break;
        case T_PARADIGM:
          cube_metric_set_string (&r->paradigm, text);
          break;
        case T_ROLE:
          cube_metric_set_string (&r->role, text);
          break;
        case T_URL:
          cube_metric_set_string (&r->url, text);
          break;
        case T_DESCR:
          cube_metric_set_string (&r->descr, text);
          break;
        default:
          break;
        }
      return;
    }
  if (is_sys_tag (parent))
    {
      CubeSysNode *s = stack_top (st->sys_stack);
      switch (tag)
        {
        case T_NAME:
          cube_metric_set_string (&s->name, text);
          break;
        case T_DESCR:
          cube_metric_set_string (&s->descr, text);
          break;
        case T_CLASS:
        case T_TYPE:
          cube_metric_set_string (&s->class_name, text);
          break;
        case T_RANK:
          set_rank (st, s, text);
          break;
        default:
          break;
        }
    }
}

static void
on_end_element (void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
  ParseState *st = ctx;
  Tag         tag, parent;

  (void)localname;
  (void)prefix;
  (void)uri;

  if (st->error != NULL || st->tags->len == 0)
    return;
  tag = parent_tag (st, 0);
  parent = parent_tag (st, 1);
  if (is_text_tag (tag) && st->collecting)
    {
      st->collecting = FALSE;
      end_text (st, tag, parent);
    }
  switch (tag)
    {
    case T_METRIC:
      g_ptr_array_set_size (st->metric_stack, MAX (st->metric_stack->len, 1) - 1);
      break;
    case T_REGION:
      st->region = NULL;
      break;
    case T_CNODE:
      g_ptr_array_set_size (st->cnode_stack, MAX (st->cnode_stack->len, 1) - 1);
      break;
    case T_PROCESS:
    case T_THREAD:
      {
        /* CUBE 3 processes and threads may come without a name (tau2cube writes empty ones):
         * cubelib names them "Process <rank>" / "Thread <rank>", so the trees look the same. */
        CubeSysNode *s = stack_top (st->sys_stack);
        if (s != NULL && (s->name == NULL || s->name[0] == '\0'))
          {
            g_autofree char *name
                = g_strdup_printf ("%s %" G_GINT64_FORMAT, tag == T_PROCESS ? "Process" : "Thread",
                                   MAX (s->rank, 0));
            cube_metric_set_string (&s->name, name);
          }
      }
      G_GNUC_FALLTHROUGH;
    case T_MACHINE:
    case T_NODE:
    case T_TREENODE:
    case T_LOCATIONGROUP:
    case T_LOCATION:
      g_ptr_array_set_size (st->sys_stack, MAX (st->sys_stack->len, 1) - 1);
      break;
    case T_SYSTEM:
      finish_system (st);
      break;
    case T_CART:
      if (st->cart != NULL && st->cart_dims_seen != st->cart->ndims)
        fail (st, CUBE_ERROR_FORMAT, _ ("topology has %u <dim> elements but ndims=%u"),
              st->cart_dims_seen, st->cart->ndims);
      st->cart = NULL;
      break;
    case T_MATRIX:
      st->matrix_metric = NULL;
      break;
    case T_ROW:
      end_row (st);
      break;
    default:
      break;
    }
  g_byte_array_set_size (st->tags, st->tags->len - 1);
}

static void
on_characters (void *ctx, const xmlChar *ch, int len)
{
  ParseState *st = ctx;

  if (st->error != NULL)
    return;
  if (st->row != NULL)
    {
      st->chunk_end = (const char *)ch + len;
      row_characters (st, (const char *)ch, st->chunk_end);
      st->chunk_end = NULL;
    }
  else if (st->collecting)
    g_string_append_len (st->text, (const char *)ch, len);
}

static void
on_internal_subset (void          *ctx,
                    const xmlChar *name,
                    const xmlChar *external_id,
                    const xmlChar *system_id)
{
  ParseState *st = ctx;

  (void)name;
  (void)external_id;
  (void)system_id;
  /* CUBE files never carry a DTD; refusing it is the simplest defence against entity tricks. */
  fail (st, CUBE_ERROR_FORMAT,
        _ ("document type declarations (DOCTYPE) are not allowed in CUBE files"));
}

static void
on_reference (void *ctx, const xmlChar *name)
{
  ParseState *st = ctx;

  fail (st, CUBE_ERROR_FORMAT, _ ("undefined entity “&%s;”"), (const char *)name);
}

static void
on_structured_error (void *ctx, xmlErrorPtr err)
{
  ParseState      *st = ctx;
  g_autofree char *msg = NULL;

  if (err == NULL || err->level < XML_ERR_ERROR || st->error != NULL)
    return;
  msg = g_strdup (err->message ? err->message : "XML error");
  g_strchomp (msg);
  st->error = g_error_new (CUBE_ERROR, CUBE_ERROR_FORMAT, _ ("%s:%d: malformed XML: %s"), st->path,
                           err->line, msg);
}

/* ---- stray ampersands ------------------------------------------------------------------------ */

/* Some CUBE 3 writers put a bare '&' into names ("operator&", "f(int&)", cubelib's own test
 * reports: "parallel &quot; & ggg"), which is not well-formed XML. cubelib reads such files and
 * shows the '&' as it is, so the bytes are filtered before libxml2 sees them: an '&' that does
 * not start a reference ("&name;", "&#123;", "&#x7b;") becomes "&amp;". References that look
 * right go through unchanged (an undefined one is still an error), CDATA sections are copied
 * untouched, and no newline is added, so line numbers in messages stay right. */

#define AMP_LOOKAHEAD 64 /* longer "&name" runs without ';' are taken as text */
#define CUBEPL_TAG_MAX 256 /* longest <cubepl…> start tag that gets its attributes quoted */

typedef struct
{
  gboolean    in_cdata;
  char        hold[CUBEPL_TAG_MAX + 16]; /* undecided tail of the previous chunk */
  guint       hold_len;
  GByteArray *out;
  GByteArray *work;
} AmpFilter;

static const char cdata_open[] = "<![CDATA[";
static const char cubepl_open[] = "<cubepl"; /* also <cubeplinit>, <cubeplaggr …> */

/* Both Cube writers put unquoted attribute values into the derived-metric elements of an
 * anchor: cubew (Score-P) writes <cubepl locationwise=false> and <cubeplaggr
 * cubeplaggrtype=plus>, cubelib <cubepl rowwise=false>. cubelib's scanner reads them; so quote
 * them: copies the start tag d[0..len) to @out with every unquoted value in quotes. */
static void
quote_cubepl_tag (const char *d, gsize len, GByteArray *out)
{
  gsize i = 0;

  while (i < len)
    {
      if (d[i] == '=' && i + 1 < len && d[i + 1] != '"' && d[i + 1] != '\''
          && !g_ascii_isspace (d[i + 1]))
        {
          gsize j = i + 1;
          while (j < len && !g_ascii_isspace (d[j]) && d[j] != '>'
                 && !(d[j] == '/' && j + 1 < len && d[j + 1] == '>'))
            j++;
          g_byte_array_append (out, (const guint8 *)"=\"", 2);
          g_byte_array_append (out, (const guint8 *)d + i + 1, (guint)(j - i - 1));
          g_byte_array_append (out, (const guint8 *)"\"", 1);
          i = j;
          continue;
        }
      g_byte_array_append (out, (const guint8 *)d + i, 1);
      i++;
    }
}

/* Is d[0..n) (n may be short) a prefix of @marker? */
static gboolean
prefix_of (const char *d, gsize n, const char *marker)
{
  gsize m = strlen (marker);
  return memcmp (d, marker, MIN (n, m)) == 0;
}

static inline gboolean
is_name_start (guchar c)
{
  return g_ascii_isalpha (c) || c == '_' || c == ':' || c >= 0x80;
}

static inline gboolean
is_name_char (guchar c)
{
  return is_name_start (c) || g_ascii_isdigit (c) || c == '.' || c == '-';
}

/* Length of the reference starting at d[0] == '&' (through ';'), 0 if it is no reference, or
 * -1 if the data ends before that can be told. */
static gssize
reference_length (const char *d, gsize len)
{
  gsize i = 1;

  if (i < len && d[i] == '#')
    {
      gboolean hex = FALSE;
      gsize    digits = 0;

      i++;
      if (i < len && d[i] == 'x')
        {
          hex = TRUE;
          i++;
        }
      for (; i < len && i < AMP_LOOKAHEAD; i++, digits++)
        if (!(hex ? g_ascii_isxdigit (d[i]) : g_ascii_isdigit (d[i])))
          break;
      if (i >= len && i < AMP_LOOKAHEAD)
        return -1;
      return digits > 0 && i < len && d[i] == ';' ? (gssize)i + 1 : 0;
    }
  if (i >= len)
    return -1;
  if (!is_name_start ((guchar)d[i]))
    return 0;
  for (i++; i < len && i < AMP_LOOKAHEAD; i++)
    if (!is_name_char ((guchar)d[i]))
      break;
  if (i >= len && i < AMP_LOOKAHEAD)
    return -1;
  return i < len && d[i] == ';' ? (gssize)i + 1 : 0;
}

/* Does the chunk need the careful pass? Only when it holds an '&' or a CDATA opening, or ends
 * in what may be the start of one. */
static gboolean
amp_filter_needed (const AmpFilter *f, const char *in, gsize n)
{
  if (f->in_cdata || f->hold_len > 0)
    return TRUE;
  if (memchr (in, '&', n) != NULL || memmem (in, n, cdata_open, 3) != NULL
      || memmem (in, n, cubepl_open, sizeof cubepl_open - 1) != NULL)
    return TRUE;
  for (gsize k = 1; k < sizeof cdata_open - 1 && k <= n; k++)
    if (in[n - k] == '<'
        && (prefix_of (in + n - k, k, cdata_open) || prefix_of (in + n - k, k, cubepl_open)))
      return TRUE;
  return FALSE;
}

/* Filters @in (@n bytes; @last: no more input follows). The result is @in itself when nothing
 * had to change, else f->out's data; its length goes to *out_len. */
static const char *
amp_filter_run (AmpFilter *f, const char *in, gsize n, gboolean last, gsize *out_len)
{
  const char *d;
  gsize       len, i = 0;

  if (!amp_filter_needed (f, in, n))
    {
      *out_len = n;
      return in;
    }
  g_byte_array_set_size (f->work, 0);
  g_byte_array_append (f->work, (const guint8 *)f->hold, f->hold_len);
  g_byte_array_append (f->work, (const guint8 *)in, (guint)n);
  f->hold_len = 0;
  d = (const char *)f->work->data;
  len = f->work->len;
  g_byte_array_set_size (f->out, 0);

  while (i < len)
    {
      if (f->in_cdata)
        {
          const char *e = memmem (d + i, len - i, "]]>", 3);
          gsize       keep = 0;

          if (e != NULL)
            {
              g_byte_array_append (f->out, (const guint8 *)d + i, (guint)(e + 3 - (d + i)));
              i = (gsize)(e + 3 - d);
              f->in_cdata = FALSE;
              continue;
            }
          /* "]" or "]]" at the very end may begin the closing "]]>" */
          while (!last && keep < 2 && keep < len - i && d[len - 1 - keep] == ']')
            keep++;
          g_byte_array_append (f->out, (const guint8 *)d + i, (guint)(len - i - keep));
          memcpy (f->hold, d + len - keep, keep);
          f->hold_len = (guint)keep;
          break;
        }
      if (d[i] == '&')
        {
          gssize r = reference_length (d + i, len - i);

          if (r < 0 && !last)
            {
              memcpy (f->hold, d + i, len - i); /* < AMP_LOOKAHEAD bytes */
              f->hold_len = (guint)(len - i);
              break;
            }
          if (r > 0)
            {
              g_byte_array_append (f->out, (const guint8 *)d + i, (guint)r);
              i += (gsize)r;
            }
          else
            {
              g_byte_array_append (f->out, (const guint8 *)"&amp;", 5);
              i++;
            }
          continue;
        }
      if (d[i] == '<')
        {
          gsize avail = MIN (len - i, sizeof cdata_open - 1);

          if (memcmp (d + i, cdata_open, avail) == 0)
            {
              if (avail < sizeof cdata_open - 1 && !last)
                {
                  memcpy (f->hold, d + i, avail);
                  f->hold_len = (guint)avail;
                  break;
                }
              if (avail == sizeof cdata_open - 1)
                {
                  g_byte_array_append (f->out, (const guint8 *)d + i, (guint)avail);
                  i += avail;
                  f->in_cdata = TRUE;
                  continue;
                }
            }
          avail = MIN (len - i, sizeof cubepl_open - 1);
          if (memcmp (d + i, cubepl_open, avail) == 0)
            {
              const char *gt;

              if (avail < sizeof cubepl_open - 1 && !last)
                {
                  memcpy (f->hold, d + i, avail);
                  f->hold_len = (guint)avail;
                  break;
                }
              gt = memchr (d + i, '>', MIN (len - i, CUBEPL_TAG_MAX));
              if (gt == NULL && !last && len - i < CUBEPL_TAG_MAX)
                {
                  memcpy (f->hold, d + i, len - i);
                  f->hold_len = (guint)(len - i);
                  break;
                }
              if (gt != NULL)
                {
                  quote_cubepl_tag (d + i, (gsize)(gt + 1 - (d + i)), f->out);
                  i = (gsize)(gt + 1 - d);
                  continue;
                }
            }
        }
      {
        /* plain text up to the next '&' or '<' */
        gsize j = i + 1;
        while (j < len && d[j] != '&' && d[j] != '<')
          j++;
        g_byte_array_append (f->out, (const guint8 *)d + i, (guint)(j - i));
        i = j;
      }
    }
  *out_len = f->out->len;
  return (const char *)f->out->data;
}

/* ---- driving the parser --------------------------------------------------------------------- */

typedef gssize (*ReadFunc) (gpointer source, char *buf, gsize cap, GError **error);

static void
parse_state_clear (ParseState *st)
{
  g_clear_pointer (&st->tags, g_byte_array_unref);
  if (st->text != NULL)
    g_string_free (st->text, TRUE);
  st->text = NULL;
  g_clear_pointer (&st->metric_stack, g_ptr_array_unref);
  g_clear_pointer (&st->cnode_stack, g_ptr_array_unref);
  g_clear_pointer (&st->sys_stack, g_ptr_array_unref);
  g_clear_pointer (&st->pending, g_array_unref);
  g_clear_pointer (&st->void_metrics, g_free);
  if (st->ctxt != NULL)
    xmlFreeParserCtxt (st->ctxt);
  st->ctxt = NULL;
  g_clear_error (&st->error);
  if (st->report != NULL)
    cube_report_free (st->report);
  st->report = NULL;
}

static gboolean
finish_document (ParseState *st)
{
  for (guint i = 0; i < st->pending->len; i++)
    {
      PendingCallee *pc = &g_array_index (st->pending, PendingCallee, i);
      CubeRegion    *r = cube_report_region_by_file_id (st->report, pc->callee_id);
      if (r == NULL)
        {
          st->error = g_error_new (CUBE_ERROR, CUBE_ERROR_FORMAT,
                                   _ ("%s:%d: call path %lld"
                                      " has calleeId=\"%lld\", which is no region"),
                                   st->path, pc->line, (long long) pc->cnode->file_id, (long long) pc->callee_id);
          return FALSE;
        }
      pc->cnode->callee = r;
    }
  if (!st->seen_root)
    {
      st->error = g_error_new (CUBE_ERROR, CUBE_ERROR_FORMAT, _ ("%s: no XML content"), st->path);
      return FALSE;
    }
  if (!st->system_done)
    {
      GError *error = NULL;
      if (!cube_report_sort_locations (st->report, st->path, &error))
        {
          st->error = error;
          return FALSE;
        }
    }
  return TRUE;
}

static CubeReport *
parse_stream (ReadFunc      read_func,
              gpointer      source,
              const char   *path,
              CubeXmlMode   mode,
              gsize         cap,
              GCancellable *cancellable,
              void (*progress_tick) (gpointer source, gpointer data),
              gpointer progress_data,
              GError **error)
{
  xmlSAXHandler    sax;
  ParseState       st = { 0 };
  g_autofree char *buf = NULL;
  gssize           n;
  gboolean         any = FALSE;
  CubeReport      *report;
  AmpFilter        amp = { 0 };
  g_autoptr (GByteArray) amp_out = g_byte_array_new ();
  g_autoptr (GByteArray) amp_work = g_byte_array_new ();

  /* libxml2 wants its global set-up done once before parsers run in several threads. */
  static gsize libxml_ready = 0;
  if (g_once_init_enter (&libxml_ready))
    {
      xmlInitParser ();
      g_once_init_leave (&libxml_ready, 1);
    }

  memset (&sax, 0, sizeof sax);
  sax.initialized = XML_SAX2_MAGIC;
  sax.startElementNs = on_start_element;
  sax.endElementNs = on_end_element;
  sax.characters = on_characters;
  sax.ignorableWhitespace = on_characters;
  sax.cdataBlock = on_characters;
  sax.internalSubset = on_internal_subset;
  sax.reference = on_reference;
  sax.serror = on_structured_error;

  st.path = path;
  st.mode = mode;
  st.report = cube_report_new ();
  st.tags = g_byte_array_new ();
  st.text = g_string_sized_new (256);
  st.metric_stack = g_ptr_array_new ();
  st.cnode_stack = g_ptr_array_new ();
  st.sys_stack = g_ptr_array_new ();
  st.pending = g_array_new (FALSE, FALSE, sizeof (PendingCallee));

  /* Errors reach the user through GError; keep libxml2's own printer (per thread) quiet. */
  xmlSetGenericErrorFunc (NULL, silent_generic_error);
  st.ctxt = xmlCreatePushParserCtxt (&sax, &st, NULL, 0, path);
  if (st.ctxt == NULL)
    {
      cube_set_error (error, CUBE_ERROR_IO, path, _ ("cannot create an XML parser"));
      parse_state_clear (&st);
      return NULL;
    }
  /* No network, no entity substitution, no DTD loading; keep libxml2's size limits. */
  xmlCtxtUseOptions (st.ctxt, XML_PARSE_NONET | XML_PARSE_NOCDATA);
  st.ctxt->replaceEntities = 0;

  buf = g_malloc (cap);
  amp.out = amp_out;
  amp.work = amp_work;
  while (st.error == NULL)
    {
      GError     *read_error = NULL;
      const char *data;
      gsize       data_len;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          parse_state_clear (&st);
          return NULL;
        }
      n = read_func (source, buf, cap, &read_error);
      if (n < 0)
        {
          g_propagate_error (error, read_error);
          parse_state_clear (&st);
          return NULL;
        }
      if (n == 0 && !any)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, path, _ ("the file is empty"));
          parse_state_clear (&st);
          return NULL;
        }
      any = TRUE;
      data = amp_filter_run (&amp, buf, (gsize)n, n == 0, &data_len);
      if (n == 0 && data_len > 0 && xmlParseChunk (st.ctxt, data, (int)data_len, 0) != 0
          && st.error == NULL)
        st.error = g_error_new (CUBE_ERROR, CUBE_ERROR_FORMAT, _ ("%s:%d: malformed XML"), path,
                                current_line (&st));
      if (n == 0 && st.error == NULL && st.tags->len > 0)
        {
          /* Whatever libxml2 says about a document that stops in the middle, this is clearer. */
          st.error = g_error_new (
              CUBE_ERROR, CUBE_ERROR_FORMAT,
              _ ("%s:%d: the file ends in the middle of the XML document (truncated?)"), path,
              current_line (&st));
          break;
        }
      if (st.error == NULL
          && xmlParseChunk (st.ctxt, data, n == 0 ? 0 : (int)data_len, n == 0) != 0
          && st.error == NULL)
        st.error = g_error_new (CUBE_ERROR, CUBE_ERROR_FORMAT, _ ("%s:%d: malformed XML"), path,
                                current_line (&st));
      if (progress_tick != NULL)
        progress_tick (source, progress_data);
      if (n == 0)
        break;
    }
  if (st.error == NULL && !st.ctxt->wellFormed)
    st.error = g_error_new (CUBE_ERROR, CUBE_ERROR_FORMAT, _ ("%s:%d: malformed XML"), path,
                            current_line (&st));
  if (st.error == NULL)
    finish_document (&st);
  if (st.error != NULL)
    {
      g_propagate_error (error, st.error);
      st.error = NULL;
      parse_state_clear (&st);
      return NULL;
    }
  report = st.report;
  st.report = NULL;
  parse_state_clear (&st);
  return report;
}

/* ---- memory source (anchors) ---------------------------------------------------------------- */

typedef struct
{
  const char *data;
  gsize       len;
  gsize       pos;
  gboolean    gzip;
  gboolean    done;
  z_stream    z;
  const char *path;
} MemSource;

static gssize
mem_read (gpointer source, char *buf, gsize cap, GError **error)
{
  MemSource *m = source;

  if (!m->gzip)
    {
      gsize n = MIN (cap, m->len - m->pos);
      memcpy (buf, m->data + m->pos, n);
      m->pos += n;
      return (gssize)n;
    }
  if (m->done)
    return 0;
  m->z.next_out = (Bytef *)buf;
  m->z.avail_out = (uInt)cap;
  while (m->z.avail_out > 0)
    {
      int rc = inflate (&m->z, Z_NO_FLUSH);
      if (rc == Z_STREAM_END)
        {
          m->done = TRUE;
          break;
        }
      if (rc != Z_OK)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, m->path, _ ("corrupt gzip data (%s)"),
                          m->z.msg ? m->z.msg : "inflate failed");
          return -1;
        }
      if (m->z.avail_in == 0)
        {
          cube_set_error (error, CUBE_ERROR_FORMAT, m->path, _ ("gzip data is truncated"));
          return -1;
        }
    }
  return (gssize)(cap - m->z.avail_out);
}

CubeReport *
cube_xml_parse_memory (
    const char *buf, gsize len, const char *path_for_errors, CubeXmlMode mode, GError **error)
{
  return cube_xml_parse_memory_chunked (buf, len, path_for_errors, mode, 256 * 1024, error);
}

CubeReport *
cube_xml_parse_memory_chunked (const char *buf,
                               gsize       len,
                               const char *path_for_errors,
                               CubeXmlMode mode,
                               gsize       chunk,
                               GError    **error)
{
  MemSource   m = { 0 };
  CubeReport *report;
  const char *path = path_for_errors ? path_for_errors : "(memory)";

  g_return_val_if_fail (buf != NULL || len == 0, NULL);

  m.data = buf;
  m.len = len;
  m.path = path;
  m.gzip = len >= 2 && (guchar)buf[0] == 0x1f && (guchar)buf[1] == 0x8b;
  if (m.gzip)
    {
      if (inflateInit2 (&m.z, 16 + MAX_WBITS) != Z_OK)
        {
          cube_set_error (error, CUBE_ERROR_IO, path, _ ("cannot start zlib"));
          return NULL;
        }
      m.z.next_in = (Bytef *)buf;
      m.z.avail_in = (uInt)len;
    }
  report = parse_stream (mem_read, &m, path, mode, MAX (chunk, 1), NULL, NULL, NULL, error);
  if (m.gzip)
    inflateEnd (&m.z);
  return report;
}

/* ---- file source ----------------------------------------------------------------------------- */

typedef struct
{
  int              fd;
  gzFile           gz;
  const char      *path;
  goffset          size;
  CubeProgressFunc progress;
} FileSource;

static gssize
file_read (gpointer source, char *buf, gsize cap, GError **error)
{
  FileSource *f = source;
  gssize      n;

  if (f->gz != NULL)
    {
      int errnum = 0;
      n = gzread (f->gz, buf, (unsigned)cap);
      if (n < 0)
        {
          gzerror (f->gz, &errnum);
          if (errnum == Z_ERRNO)
            cube_set_error (error, CUBE_ERROR_IO, f->path, _ ("cannot read: %s"),
                            g_strerror (errno));
          else
            cube_set_error (error, CUBE_ERROR_FORMAT, f->path,
                            _ ("the gzip data is corrupt (zlib error %d)"), errnum);
          return -1;
        }
      if (n == 0)
        {
          /* zlib reports a cut-off gzip member only through gzerror. */
          gzerror (f->gz, &errnum);
          if (errnum != Z_OK)
            {
              cube_set_error (error, CUBE_ERROR_FORMAT, f->path,
                              _ ("the gzip data ends early or is corrupt (truncated file?)"));
              return -1;
            }
        }
      return n;
    }
  do
    n = read (f->fd, buf, cap);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    {
      cube_set_error (error, CUBE_ERROR_IO, f->path, _ ("cannot read: %s"), g_strerror (errno));
      return -1;
    }
  return n;
}

static void
file_tick (gpointer source, gpointer data)
{
  FileSource *f = source;
  goffset     pos;

  if (f->progress == NULL || f->size <= 0)
    return;
  pos = f->gz != NULL ? gzoffset (f->gz) : lseek (f->fd, 0, SEEK_CUR);
  f->progress (CLAMP ((double)pos / (double)f->size, 0.0, 1.0), data);
}

CubeReport *
cube_xml_load_file (const char      *path,
                    CubeXmlMode      mode,
                    GCancellable    *cancellable,
                    CubeProgressFunc progress,
                    gpointer         progress_data,
                    GError         **error)
{
  FileSource    f = { 0 };
  struct stat   sb;
  unsigned char magic[2];
  gssize        got;
  CubeReport   *report;
  gboolean      gzip;

  f.path = path;
  f.progress = progress;
  f.fd = open (path, O_RDONLY | O_CLOEXEC);
  if (f.fd < 0)
    {
      cube_set_error (error, CUBE_ERROR_IO, path, _ ("cannot open: %s"), g_strerror (errno));
      return NULL;
    }
  if (fstat (f.fd, &sb) == 0)
    f.size = sb.st_size;
  if (S_ISDIR (sb.st_mode))
    {
      cube_set_error (error, CUBE_ERROR_IO, path, _ ("is a folder, not a report"));
      close (f.fd);
      return NULL;
    }
  got = pread (f.fd, magic, 2, 0);
  gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (gzip)
    {
      f.gz = gzdopen (f.fd, "rb");
      if (f.gz == NULL)
        {
          cube_set_error (error, CUBE_ERROR_IO, path, _ ("cannot open gzip stream"));
          close (f.fd);
          return NULL;
        }
      gzbuffer (f.gz, 256 * 1024);
    }
  else
    posix_fadvise (f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  report = parse_stream (file_read, &f, path, mode, 256 * 1024, cancellable, file_tick,
                         progress_data, error);
  if (f.gz != NULL)
    gzclose (f.gz); /* closes fd */
  else
    close (f.fd);
  if (report != NULL)
    {
      report->path = g_strdup (path);
      report->format = gzip ? CUBE_FORMAT_CUBE3_GZ : CUBE_FORMAT_CUBE3;
      if (progress != NULL)
        progress (1.0, progress_data);
    }
  return report;
}
