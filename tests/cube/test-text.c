/* test-text.c — names hold any bytes; every writer makes a valid file of them (kubus-text.h).
 *
 * 1. kubus-text.c on its own: which UTF-8 sequences are well-formed, the U+FFFD replacement of
 *    each bad byte, cutting at character boundaries, and the exact XML, JSON and CSV text.
 * 2. The XML text parsed by libxml2 (no recovery) as element content and attribute value gives
 *    back the expected string, for every hostile name.
 * 3. A report whose every name (metrics, regions, call sites, parameters, attributes, system
 *    tree, topology) is hostile, written as CUBE 3, .cube.gz and .cubex and by the algebra
 *    (diff), checked with xmllint and read back: every name as expected, every value intact. */
#include "cube.h"
#include "kubus-text-gstring.h"

#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

#define R "\xEF\xBF\xBD" /* U+FFFD */

typedef struct
{
  const char *in;
  const char *xml;  /* what an XML reader gets back */
  const char *json; /* the JSON text */
  const char *csv;  /* the CSV field */
} Case;

/* The crash input's bytes (E0 9C 90: an overlong three-byte form) first. */
static const Case cases[] = {
  { "a\xE0\x9C\x90?b", "a" R R R "?b", "\"a" R R R "?b\"", "a" R R R "?b" },
  { "<t a=\"x\" & 'y'>]]>", "<t a=\"x\" & 'y'>]]>", "\"<t a=\\\"x\\\" & 'y'>]]>\"",
    "\"<t a=\"\"x\"\" & 'y'>]]>\"" },
  { "c\x01\x1f\x7f|t\t|l\n|r\r|e", "c" R R "\x7f|t\t|l\n|r\r|e",
    "\"c\\u0001\\u001f\x7f|t\\t|l\\n|r\\r|e\"", "\"c\x01\x1f\x7f|t\t|l\n|r\r|e\"" },
  { "cut\xC3", "cut" R, "\"cut" R "\"", "cut" R },
  { "nonchar\xEF\xBF\xBE\xEF\xBF\xBF", "nonchar" R R, "\"nonchar\xEF\xBF\xBE\xEF\xBF\xBF\"",
    "nonchar\xEF\xBF\xBE\xEF\xBF\xBF" },
  { "sur\xED\xA0\x80", "sur" R R R, "\"sur" R R R "\"", "sur" R R R },
  { "over\xC0\xAF", "over" R R, "\"over" R R "\"", "over" R R },
  { "big\xF4\x90\x80\x80", "big" R R R R, "\"big" R R R R "\"", "big" R R R R },
  { "ok \xE6\x97\xA5\xE6\x9C\xAC \xC3\xA9 \xF0\x9F\x98\x80", "ok \xE6\x97\xA5\xE6\x9C\xAC \xC3\xA9 \xF0\x9F\x98\x80",
    "\"ok \xE6\x97\xA5\xE6\x9C\xAC \xC3\xA9 \xF0\x9F\x98\x80\"", "ok \xE6\x97\xA5\xE6\x9C\xAC \xC3\xA9 \xF0\x9F\x98\x80" },
  { "\xFF\xFE,x", R R ",x", "\"" R R ",x\"", "\"" R R ",x\"" },
  { "stray\x80\xBF", "stray" R R, "\"stray" R R "\"", "stray" R R },
  { "\\back\\slash", "\\back\\slash", "\"\\\\back\\\\slash\"", "\\back\\slash" },
};

static void
test_utf8_char (void)
{
  static const struct
  {
    const char *s;
    gsize       len, n;
    guint32     cp;
  } seqs[] = {
    { "A", 1, 1, 'A' },
    { "\xC2\x80", 2, 2, 0x80 },
    { "\xDF\xBF", 2, 2, 0x7FF },
    { "\xE0\xA0\x80", 3, 3, 0x800 },
    { "\xED\x9F\xBF", 3, 3, 0xD7FF },
    { "\xEE\x80\x80", 3, 3, 0xE000 },
    { "\xEF\xBF\xBF", 3, 3, 0xFFFF },
    { "\xF0\x90\x80\x80", 4, 4, 0x10000 },
    { "\xF4\x8F\xBF\xBF", 4, 4, 0x10FFFF },
    { "\xC0\x80", 2, 0, 0 },         /* overlong NUL */
    { "\xC1\xBF", 2, 0, 0 },         /* overlong */
    { "\xE0\x9C\x90", 3, 0, 0 },     /* overlong (the fuzz crash) */
    { "\xF0\x8F\xBF\xBF", 4, 0, 0 }, /* overlong */
    { "\xED\xA0\x80", 3, 0, 0 },     /* surrogate */
    { "\xED\xBF\xBF", 3, 0, 0 },     /* surrogate */
    { "\xF4\x90\x80\x80", 4, 0, 0 }, /* beyond U+10FFFF */
    { "\xF5\x80\x80\x80", 4, 0, 0 },
    { "\xFF", 1, 0, 0 },
    { "\x80", 1, 0, 0 },             /* continuation byte */
    { "\xE2\x82", 2, 0, 0 },         /* cut short */
    { "\xE2\x82\xAC", 2, 0, 0 },     /* complete, but only two bytes readable */
    { "\xE2\x41\xAC", 3, 0, 0 },     /* bad continuation */
  };

  for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
    {
      guint32 cp = 0;
      gsize   n = kubus_utf8_char (seqs[i].s, seqs[i].len, &cp);

      if (n != seqs[i].n || (n > 0 && cp != seqs[i].cp))
        g_error ("sequence %u: length %zu (expected %zu), U+%04X (expected U+%04X)", i, n,
                 seqs[i].n, cp, seqs[i].cp);
    }
  g_assert_true (kubus_utf8_valid ("", 0));
  g_assert_true (kubus_utf8_valid ("\xC3\xA9t\xC3\xA9", 5));
  g_assert_false (kubus_utf8_valid ("\xC3\xA9t\xC3", 4));
}

static void
test_utf8_copy (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *v = kubus_text_utf8 (cases[i].in);

      g_assert_true (kubus_utf8_valid (v, strlen (v)));
      /* the copy keeps every character, controls included: only bad bytes change; the JSON
       * column shows the same characters */
      g_assert_true (g_utf8_validate (v, -1, NULL));
      g_free (v); /* malloc'd: g_free is free */
    }
  char *v = kubus_text_utf8 ("c\x01\xE0\x9C\x90");
  g_assert_cmpstr (v, ==, "c\x01" R R R);
  g_free (v);
}

static void
test_cut (void)
{
  /* "aé日😀" = 1 + 2 + 3 + 4 bytes */
  const char *s = "a\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80";
  static const gsize want[] = { 0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10, 10 };

  for (gsize max = 0; max < G_N_ELEMENTS (want); max++)
    g_assert_cmpuint (kubus_text_cut (s, max), ==, want[max]);
  /* a byte that begins no character is one of its own (it becomes U+FFFD when written) */
  g_assert_cmpuint (kubus_text_cut ("ab\xFF\xC3\xA9", 3), ==, 3);
  g_assert_cmpuint (kubus_text_cut ("ab\xFF\xC3\xA9", 4), ==, 3);
  g_assert_cmpuint (kubus_text_cut ("ab\xC3(", 3), ==, 3);
  g_assert_cmpuint (kubus_text_cut ("ab", 100), ==, 2);
}

static void
test_short_function (void)
{
  static const char *const cases[][2] = {
    { "gmx::do_md(gmx::LegacySimulator*, t_commrec const*)", "gmx::do_md(\xE2\x80\xA6)" },
    { "meep::fields::step()", "meep::fields::step()" },
    { "std::vector<int, std::allocator<int> >::push_back(int const&) const &",
      "std::vector<int, std::allocator<int> >::push_back(\xE2\x80\xA6) const &" },
    { "(anonymous namespace)::f(int (*)(double), char)", "(anonymous namespace)::f(\xE2\x80\xA6)" },
    { "{lambda(int)#1}::operator()(int) const", "{lambda(int)#1}::operator()(\xE2\x80\xA6) const" },
    { "main", "main" },
    { "hpcc+0x3dc70", "hpcc+0x3dc70" },
    { "MPI_Send", "MPI_Send" },
    { "f(int) [clone .cold]", "f(int) [clone .cold]" },   /* not a parameter list at the end */
    { "broken)", "broken)" },
    { "g(a(b)", "g(a(\xE2\x80\xA6)" },
    { ")(", ")(" },
    { "", "" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *got = kubus_text_short_function (cases[i][0]);
      g_assert_cmpstr (got, ==, cases[i][1]);
      free (got);
    }
}

static void
test_json_csv (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) j = g_string_new (NULL);
      g_autoptr (GString) c = g_string_new (NULL);

      kubus_text_append_json (j, cases[i].in);
      kubus_text_append_csv (c, cases[i].in);
      g_assert_cmpstr (j->str, ==, cases[i].json);
      g_assert_cmpstr (c->str, ==, cases[i].csv);
      g_assert_true (g_utf8_validate (j->str, -1, NULL));
      g_assert_true (g_utf8_validate (c->str, -1, NULL));
      for (const char *p = j->str; *p; p++)
        g_assert_cmpint ((guchar)*p, >=, 0x20); /* JSON strings hold no raw control */
    }
}

/* Parses <d a="ATTR">TEXT</d> strictly and checks both come back as expected. */
static void
test_xml_parse (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) doc = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<d a=\"");
      xmlDocPtr d;

      kubus_text_append_xml (doc, cases[i].in, KUBUS_TEXT_XML_ATTR);
      g_string_append (doc, "\" b='");
      kubus_text_append_xml (doc, cases[i].in, KUBUS_TEXT_XML_ATTR);
      g_string_append (doc, "'>");
      kubus_text_append_xml (doc, cases[i].in, KUBUS_TEXT_XML_TEXT);
      g_string_append (doc, "</d>\n");
      d = xmlReadMemory (doc->str, (int)doc->len, "case.xml", NULL, XML_PARSE_NONET);
      if (d == NULL)
        g_error ("case %u: libxml2 refuses:\n%s", i, doc->str);
      xmlNodePtr root = xmlDocGetRootElement (d);
      xmlChar   *a = xmlGetProp (root, (const xmlChar *)"a");
      xmlChar   *b = xmlGetProp (root, (const xmlChar *)"b");
      xmlChar   *t = xmlNodeGetContent (root);
      g_assert_cmpstr ((char *)a, ==, cases[i].xml);
      g_assert_cmpstr ((char *)b, ==, cases[i].xml);
      g_assert_cmpstr ((char *)t, ==, cases[i].xml);
      xmlFree (a);
      xmlFree (b);
      xmlFree (t);
      xmlFreeDoc (d);
    }
}

/* ---- reports ------------------------------------------------------------------------------- */

static const char *
name (guint i)
{
  return cases[i % G_N_ELEMENTS (cases)].in;
}

static const char *
want (guint i)
{
  return cases[i % G_N_ELEMENTS (cases)].xml;
}

/* A small report with a hostile string in every text field; values 1, 2, 3 … */
static CubeReport *
hostile_report (void)
{
  CubeReport *r = cube_report_new ();
  guint       k = 0;

  cube_report_set_attr (r, name (k), name (k + 1)); /* key 0, value 1 */
  k = 2;
  CubeMetric *time = cube_report_add_metric (r, NULL, "time", name (k), CUBE_DTYPE_DOUBLE, "sec",
                                             "", name (k + 1));
  CubeMetric *child = cube_report_add_metric (r, time, name (k + 2), name (k + 3),
                                              CUBE_DTYPE_DOUBLE, "sec", "", "");
  CubeMetric *visits = cube_report_add_metric (r, NULL, "visits", "Visits", CUBE_DTYPE_UINT64,
                                               "occ", "", "");
  (void)child;
  CubeSysNode *machine = cube_report_add_sysnode (r, NULL, CUBE_SYS_MACHINE, name (6), -1);
  CubeSysNode *node = cube_report_add_sysnode (r, machine, CUBE_SYS_NODE, name (7), -1);
  GPtrArray   *regions = g_ptr_array_new ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_ptr_array_add (regions, cube_report_add_region (r, name (i), name (i + 1), -1, -1));
  for (guint l = 0; l < 3; l++)
    {
      CubeSysNode *p = cube_report_add_sysnode (r, node, CUBE_SYS_PROCESS, name (8 + l), l);
      cube_report_add_sysnode (r, p, CUBE_SYS_THREAD, name (9 + l), 0);
    }
  gint64    size = 3;
  gboolean  periodic = FALSE;
  CubeCart *cart = cube_report_add_cart (r, name (1), 1, &size, &periodic);
  cube_cart_set_dim_name (cart, 0, name (2));
  for (guint l = 0; l < 3; l++)
    {
      gint64 c = l;
      cube_cart_set_coord (cart, g_ptr_array_index (r->locations, l), &c);
    }
  CubeCnode *root = cube_report_add_cnode (r, NULL, g_ptr_array_index (regions, 0), 7, name (3));
  for (guint i = 1; i < regions->len; i++)
    {
      CubeCnode *c = cube_report_add_cnode (r, root, g_ptr_array_index (regions, i), i, name (i + 2));
      for (guint l = 0; l < 3; l++)
        {
          cube_report_set_value (r, time, c, l, i * 10 + l);
          cube_report_set_value (r, visits, c, l, i + l);
        }
    }
  g_ptr_array_unref (regions);
  return r;
}

static void
check_names (const CubeReport *r, const char *what, gboolean diff)
{
  g_test_message ("checking %s", what);
  if (!diff) /* the algebra writes its own attributes */
    g_assert_cmpstr (cube_report_get_attr (r, want (0)), ==, want (1));
  CubeMetric *time = cube_report_find_metric (r, "time");
  g_assert_nonnull (time);
  g_assert_cmpstr (time->disp_name, ==, want (2));
  g_assert_cmpstr (time->descr, ==, want (3));
  CubeMetric *child = cube_report_find_metric (r, want (4));
  g_assert_nonnull (child);
  g_assert_cmpstr (child->disp_name, ==, want (5));
  g_assert_cmpuint (r->regions->len, ==, G_N_ELEMENTS (cases));
  for (guint i = 0; i < r->regions->len; i++)
    {
      const CubeRegion *g = g_ptr_array_index (r->regions, i);
      g_assert_cmpstr (g->name, ==, want (i));
      g_assert_cmpstr (g->mod, ==, want (i + 1));
    }
  g_assert_cmpuint (r->cnodes->len, ==, G_N_ELEMENTS (cases));
  for (guint i = 1; i < r->cnodes->len; i++)
    {
      const CubeCnode *c = g_ptr_array_index (r->cnodes, i);
      g_assert_cmpstr (c->callee->name, ==, want (i));
      g_assert_cmpstr (c->mod, ==, want (i + 2));
      g_assert_cmpint (c->line, ==, i);
    }
  g_assert_cmpuint (r->locations->len, ==, 3);
  for (guint l = 0; l < 3; l++)
    {
      const CubeSysNode *t = g_ptr_array_index (r->locations, l);
      g_assert_cmpstr (t->name, ==, want (9 + l));
      g_assert_cmpstr (t->parent->name, ==, want (8 + l));
    }
  const CubeSysNode *t0 = g_ptr_array_index (r->locations, 0);
  g_assert_cmpstr (t0->parent->parent->name, ==, want (7));
  g_assert_cmpstr (t0->parent->parent->parent->name, ==, want (6));
  g_assert_cmpuint (r->topologies->len, ==, 1);
  const CubeCart *cart = g_ptr_array_index (r->topologies, 0);
  g_assert_cmpstr (cart->name, ==, want (1));
  g_assert_cmpstr (cart->dims[0].name, ==, want (2));
}

static void
check_values (CubeReport *r, double scale)
{
  CubeMetric *time = cube_report_find_metric (r, "time");
  double      row[3];

  for (guint i = 1; i < r->cnodes->len; i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_true (cube_report_get_row (r, time, g_ptr_array_index (r->cnodes, i), row, &error));
      for (guint l = 0; l < 3; l++)
        g_assert_cmpfloat (row[l], ==, scale * (i * 10 + l));
    }
}

/* xmllint --noout on a CUBE 3 file, or on the anchor of a .cubex (tar -xO). */
static void
xmllint (const char *path, gboolean cubex)
{
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *cmd = cubex ? g_strdup_printf ("tar -xOf %s anchor.xml | xmllint --noout -", quoted)
                               : g_strdup_printf ("xmllint --noout %s", quoted);
  const char *argv[] = { "sh", "-c", cmd, NULL };
  g_autofree char *err = NULL;
  int              status = 0;
  g_autoptr (GError) error = NULL;

  g_autofree char *have = g_find_program_in_path ("xmllint");

  if (have == NULL)
    {
      g_test_message ("xmllint not installed: %s checked by libxml2 only", path);
      return;
    }
  g_assert_true (g_spawn_sync (NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               &err, &status, &error));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("xmllint refuses %s:\n%s", path, err);
}

static void
test_reports (void)
{
  g_autofree char *dir = g_dir_make_tmp ("kubus-text-XXXXXX", NULL);
  static const char *const files[] = { "hostile.cube", "hostile.cube.gz", "hostile.cubex" };
  g_autoptr (CubeReport) r = hostile_report ();

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = g_build_filename (dir, files[f], NULL);
      g_autoptr (GError) error = NULL;

      if (!cube_report_write (r, path, &error))
        g_error ("%s: %s", path, error->message);
      if (f != 1)
        xmllint (path, f == 2);
      g_autoptr (CubeReport) back = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
      if (back == NULL)
        g_error ("%s: %s", path, error->message);
      check_names (back, files[f], FALSE);
      check_values (back, 1.0);

      /* the algebra on what was read: A − A/2 through a merge would need two reports; the
       * difference of the report and itself halves nothing, so write r − 0 instead: the diff
       * of the report and an all-zero copy keeps every name and value */
      g_autoptr (CubeReport) again = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
      g_assert_nonnull (again);
      g_autoptr (CubeReport) d = cube_algebra_diff (back, again, &error);
      g_assert_nonnull (d);
      g_autofree char *dpath = g_strdup_printf ("%s/diff-%u.cube", dir, f);
      g_assert_true (cube_report_write (d, dpath, &error));
      xmllint (dpath, FALSE);
      g_autoptr (CubeReport) dback = cube_report_load (dpath, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
      if (dback == NULL)
        g_error ("%s: %s", dpath, error->message);
      check_names (dback, "diff", TRUE);
      check_values (dback, 0.0);
      CubeReport *both[] = { back, again };
      g_autoptr (CubeReport) mean = cube_algebra_mean (both, 2, &error);
      g_assert_nonnull (mean);
      g_autofree char *mpath = g_strdup_printf ("%s/mean-%u.cubex", dir, f);
      g_assert_true (cube_report_write (mean, mpath, &error));
      xmllint (mpath, TRUE);
      g_autoptr (CubeReport) mback = cube_report_load (mpath, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
      if (mback == NULL)
        g_error ("%s: %s", mpath, error->message);
      check_names (mback, "mean", TRUE);
      check_values (mback, 1.0);
      g_unlink (dpath);
      g_unlink (mpath);
      g_unlink (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/text/utf8-char", test_utf8_char);
  g_test_add_func ("/text/utf8-copy", test_utf8_copy);
  g_test_add_func ("/text/cut", test_cut);
  g_test_add_func ("/text/json-csv", test_json_csv);
  g_test_add_func ("/text/short-function", test_short_function);
  g_test_add_func ("/text/xml-parse", test_xml_parse);
  g_test_add_func ("/text/reports", test_reports);
  return g_test_run ();
}
