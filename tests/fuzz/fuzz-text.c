/* fuzz-text — any bytes as a name (src/cube/kubus-text.c): the XML text is parsed strictly by
 * libxml2 as element content and as attribute value and gives back the same string, the
 * UTF-8 copy keeps every well-formed character, the JSON string is UTF-8 without raw controls,
 * the CSV field is UTF-8, and a cut never splits a character. Any failure aborts. */
#include "kubus-text-gstring.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
quiet (void *ctx, const char *msg, ...)
{
  (void)ctx;
  (void)msg;
}

/* What an XML reader must get back: the UTF-8 copy with the characters XML cannot hold
 * replaced, computed here independently of kubus_text_xml. */
static char *
expected_xml (const char *s)
{
  g_autofree char *v = kubus_text_utf8 (s);
  GString         *out = g_string_new (NULL);

  for (const char *p = v; *p;)
    {
      gunichar c = g_utf8_get_char (p);
      const char *next = g_utf8_next_char (p);
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xFFFE || c == 0xFFFF)
        g_string_append (out, "\xEF\xBF\xBD");
      else
        g_string_append_len (out, p, next - p);
      p = next;
    }
  return g_string_free (out, FALSE);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static gboolean init;
  g_autofree char *s = g_strndup ((const char *)data, size); /* a name ends at NUL */
  size_t           len = strlen (s);

  if (!init)
    {
      xmlSetGenericErrorFunc (NULL, quiet);
      init = TRUE;
    }

  /* the UTF-8 copy: well-formed, and equal to the input when that was well-formed */
  g_autofree char *v = kubus_text_utf8 (s);
  if (!g_utf8_validate (v, -1, NULL) || !kubus_utf8_valid (v, strlen (v)))
    abort ();
  if (kubus_utf8_valid (s, len) != (g_utf8_validate (s, (gssize)len, NULL) != 0))
    abort (); /* the two validators agree */
  if (kubus_utf8_valid (s, len) && strcmp (v, s) != 0)
    abort ();

  /* a cut keeps exactly the whole characters (a byte that begins none counts as one) that fit */
  {
    size_t boundary[65];
    size_t n = 0, at = 0;
    boundary[n++] = 0;
    while (at < len && n < G_N_ELEMENTS (boundary))
      {
        size_t k = kubus_utf8_char (s + at, len - at, NULL);
        at += k ? k : 1;
        boundary[n++] = at;
      }
    for (size_t max = 0; max <= len && max < 64; max++)
      {
        size_t want = 0;
        for (size_t i = 0; i < n && boundary[i] <= max; i++)
          want = boundary[i];
        if (kubus_text_cut (s, max) != want)
          abort ();
      }
  }

  /* XML, as element content and in both kinds of attribute quotes */
  {
    g_autoptr (GString) doc = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><d a=\"");
    g_autofree char *want = expected_xml (s);

    kubus_text_append_xml (doc, s, KUBUS_TEXT_XML_ATTR);
    g_string_append (doc, "\" b='");
    kubus_text_append_xml (doc, s, KUBUS_TEXT_XML_ATTR);
    g_string_append (doc, "'>");
    kubus_text_append_xml (doc, s, KUBUS_TEXT_XML_TEXT);
    g_string_append (doc, "</d>");
    xmlDocPtr d = xmlReadMemory (doc->str, (int)doc->len, "fuzz.xml", NULL, XML_PARSE_NONET);
    if (d == NULL)
      abort ();
    xmlNodePtr root = xmlDocGetRootElement (d);
    xmlChar   *a = xmlGetProp (root, (const xmlChar *)"a");
    xmlChar   *b = xmlGetProp (root, (const xmlChar *)"b");
    xmlChar   *t = xmlNodeGetContent (root);
    if (a == NULL || b == NULL || t == NULL || strcmp ((char *)a, want) != 0
        || strcmp ((char *)b, want) != 0 || strcmp ((char *)t, want) != 0)
      abort ();
    xmlFree (a);
    xmlFree (b);
    xmlFree (t);
    xmlFreeDoc (d);
  }

  /* JSON and CSV */
  {
    g_autoptr (GString) j = g_string_new (NULL);
    g_autoptr (GString) c = g_string_new (NULL);

    kubus_text_append_json (j, s);
    kubus_text_append_csv (c, s);
    if (!g_utf8_validate (j->str, -1, NULL) || !g_utf8_validate (c->str, -1, NULL))
      abort ();
    if (j->len < 2 || j->str[0] != '"' || j->str[j->len - 1] != '"')
      abort ();
    for (size_t i = 0; i < j->len; i++)
      if ((guchar)j->str[i] < 0x20)
        abort ();
    /* a CSV field with a line break, a comma or a quote is quoted, and its quotes doubled */
    if (strpbrk (s, ",\"\r\n") != NULL && (c->str[0] != '"' || c->str[c->len - 1] != '"'))
      abort ();
  }
  return 0;
}
