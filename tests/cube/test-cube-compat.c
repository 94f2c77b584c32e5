/* test-cube-compat.c — CUBE 3 files that real writers produce and cubelib (so CubeGUI) reads,
 * although they bend the format: a bare '&' in names, rows with fewer values than locations,
 * <val>VOID</val> metrics whose stored values cubelib ignores, processes and threads without a
 * name. Found while checking Kubus against reports from public repositories (see
 * tests/cube/unseen/README.md); every expectation below is worked out from the XML by hand. */
#include "cube-private.h"

#include <glib/gstdio.h>
#include <string.h>

/* Parses @xml fed in every chunk size from 1 to 64 bytes and whole; all must agree, so a
 * reference, a CDATA marker or a number cut by a chunk border is handled. Returns the whole-
 * buffer parse. */
static CubeReport *
parse_all_chunkings (const char *xml, void (*check) (CubeReport *r))
{
  GError     *error = NULL;
  CubeReport *whole = cube_xml_parse_memory (xml, strlen (xml), "t.cube", CUBE_XML_CUBE3, &error);

  g_assert_no_error (error);
  g_assert_nonnull (whole);
  check (whole);
  for (gsize chunk = 1; chunk <= 64; chunk++)
    {
      CubeReport *r
          = cube_xml_parse_memory_chunked (xml, strlen (xml), "t.cube", CUBE_XML_CUBE3, chunk, &error);
      g_assert_no_error (error);
      g_assert_nonnull (r);
      check (r);
      cube_report_free (r);
    }
  return whole;
}

static double
value (CubeReport *r, const char *metric, gint64 cnode_id, guint location)
{
  g_autoptr (GError) error = NULL;
  CubeMetric *m = cube_report_find_metric (r, metric);
  CubeCnode  *c = cube_report_cnode_by_file_id (r, cnode_id);
  double      row[8] = { 0 };

  g_assert_nonnull (m);
  g_assert_nonnull (c);
  g_assert_cmpuint (r->locations->len, <=, G_N_ELEMENTS (row));
  g_assert_true (cube_report_get_row (r, m, c, row, &error));
  g_assert_no_error (error);
  return row[location];
}

#define SYSTEM_2                                                                                  \
  "<system><machine Id=\"0\"><name>m</name><node Id=\"0\"><name>n</name>"                         \
  "<process Id=\"0\"><name>p</name><rank>0</rank>"                                               \
  "<thread Id=\"0\"><name>t0</name><rank>0</rank></thread>"                                       \
  "<thread Id=\"1\"><name>t1</name><rank>1</rank></thread>"                                       \
  "</process></node></machine></system>\n"

/* ---- a bare '&' ------------------------------------------------------------------------------
 * cubelib's test report cube_is_empty/empty.cube names a region
 *   parallel &quot; &lt; --&amp;--&apos; & ggg&gt;   &amp;   &gt;&gt;
 * and C++ names such as "operator&" or "f(int&)" reach files unescaped from some writers.
 * cubelib keeps such an '&' as it is; so does Kubus now. References stay references, an '&'
 * in a CDATA section stays literal (no "&amp;" is smuggled in), and line numbers are kept. */
static const char amp_xml[]
    = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<cube version=\"3.0\">\n"
      "<attr key=\"k&\" value=\"a & b &amp; c\"/>\n"
      "<metrics><metric id=\"0\"><disp_name>T&T</disp_name><uniq_name>t</uniq_name>"
      "<dtype>FLOAT</dtype><uom>sec</uom><url>a.html#x&y=1</url>"
      "<descr><![CDATA[x & y &amp; z ]] ]]></descr></metric></metrics>\n"
      "<program>\n"
      "<region id=\"0\" mod=\"m&m.c\" begin=\"1\" end=\"2\">"
      "<name>parallel &quot; &lt; --&amp;--&apos; & ggg&gt;   &amp;   &gt;&gt;</name></region>\n"
      "<region id=\"1\" mod=\"\" begin=\"-1\" end=\"-1\"><name>operator&</name></region>\n"
      "<region id=\"2\" mod=\"\" begin=\"-1\" end=\"-1\"><name>f(int&, &#38;&#x26;&#9;)&</name></region>\n"
      "<region id=\"3\" mod=\"\" begin=\"-1\" end=\"-1\"><name>&&;&#;&#x;&1;&a b;&</name></region>\n"
      "<cnode id=\"0\" calleeId=\"0\"><cnode id=\"1\" calleeId=\"1\"/><cnode id=\"2\" calleeId=\"2\"/>"
      "<cnode id=\"3\" calleeId=\"3\"/></cnode>\n"
      "</program>\n" SYSTEM_2 "<severity><matrix metricId=\"0\">\n"
      "<row cnodeId=\"1\">1.25 2.5</row>\n"
      "</matrix></severity>\n"
      "</cube>\n";

static void
check_amp (CubeReport *r)
{
  CubeMetric *t = cube_report_find_metric (r, "t");
  const CubeAttr *a = g_ptr_array_index (r->attrs, 0);

  g_assert_cmpstr (a->key, ==, "k&");
  g_assert_cmpstr (a->value, ==, "a & b & c");
  g_assert_cmpstr (t->disp_name, ==, "T&T");
  g_assert_cmpstr (t->url, ==, "a.html#x&y=1");
  g_assert_cmpstr (t->descr, ==, "x & y &amp; z ]] ");
  g_assert_cmpstr (cube_report_region_by_file_id (r, 0)->mod, ==, "m&m.c");
  g_assert_cmpstr (cube_report_region_by_file_id (r, 0)->name, ==,
                   "parallel \" < --&--' & ggg>   &   >>");
  g_assert_cmpstr (cube_report_region_by_file_id (r, 1)->name, ==, "operator&");
  g_assert_cmpstr (cube_report_region_by_file_id (r, 2)->name, ==, "f(int&, &&\t)&");
  g_assert_cmpstr (cube_report_region_by_file_id (r, 3)->name, ==, "&&;&#;&#x;&1;&a b;&");
  g_assert_cmpfloat (value (r, "t", 1, 0), ==, 1.25);
  g_assert_cmpfloat (value (r, "t", 1, 1), ==, 2.5);
}

static void
test_bare_ampersand (void)
{
  g_autoptr (CubeReport) r = parse_all_chunkings (amp_xml, check_amp);
  g_assert_nonnull (r);   /* checked per chunking; freed here */
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) bad = NULL;
  /* an entity that looks like one but is not defined is still refused, with its line */
  const char *undefined = "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n"
                          "<attr key=\"a\" value=\"&bogus;\"/>\n</cube>\n";
  /* and the line of a later error is not shifted by the inserted "amp;" */
  const char *later = "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n"
                      "<attr key=\"a & b\" value=\"&\"/>\n<metrics>\n<metric/>\n</metrics></cube>\n";

  bad = cube_xml_parse_memory (undefined, strlen (undefined), "u.cube", CUBE_XML_CUBE3, &error);
  g_assert_null (bad);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "u.cube:3:"));
  g_assert_nonnull (strstr (error->message, "bogus"));
  g_clear_error (&error);
  bad = cube_xml_parse_memory (later, strlen (later), "l.cube", CUBE_XML_CUBE3, &error);
  g_assert_null (bad);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "l.cube:5: <metric> lacks the attribute “id”"));
}

/* ---- short and empty rows --------------------------------------------------------------------
 * cubelib gives the values of a row to the locations in id order and leaves the rest at 0; only
 * more values than locations is an error. empty.cube (32 threads) has the row "0.0". */
static const char rows_xml[]
    = "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n"
      "<metrics><metric id=\"0\"><disp_name>T</disp_name><uniq_name>t</uniq_name>"
      "<dtype>FLOAT</dtype><uom>sec</uom></metric></metrics>\n"
      "<program><region id=\"0\" mod=\"\" begin=\"-1\" end=\"-1\"><name>main</name></region>"
      "<cnode id=\"0\" calleeId=\"0\"><cnode id=\"1\" calleeId=\"0\"/><cnode id=\"2\" calleeId=\"0\"/>"
      "</cnode></program>\n"
      "<system><machine Id=\"0\"><name>m</name><node Id=\"0\"><name>n</name>"
      "<process Id=\"0\"><name>p</name><rank>0</rank>"
      /* threads defined out of id order: values still go by id */
      "<thread Id=\"2\"><name>t2</name><rank>2</rank></thread>"
      "<thread Id=\"0\"><name>t0</name><rank>0</rank></thread>"
      "<thread Id=\"1\"><name>t1</name><rank>1</rank></thread>"
      "</process></node></machine></system>\n"
      "<severity><matrix metricId=\"0\">\n"
      "<row cnodeId=\"0\">\n7.5\n</row>\n"      /* one value: location 0 */
      "<row cnodeId=\"1\"></row>\n"             /* no value at all */
      "<row cnodeId=\"2\">  1e1\r\n-2  </row>\n" /* two of three, CRLF inside */
      "</matrix></severity></cube>\n";

static void
check_rows (CubeReport *r)
{
  g_assert_cmpuint (r->locations->len, ==, 3);
  g_assert_cmpfloat (value (r, "t", 0, 0), ==, 7.5);
  g_assert_cmpfloat (value (r, "t", 0, 1), ==, 0);
  g_assert_cmpfloat (value (r, "t", 0, 2), ==, 0);
  for (guint l = 0; l < 3; l++)
    g_assert_cmpfloat (value (r, "t", 1, l), ==, 0);
  g_assert_cmpfloat (value (r, "t", 2, 0), ==, 10);
  g_assert_cmpfloat (value (r, "t", 2, 1), ==, -2);
  g_assert_cmpfloat (value (r, "t", 2, 2), ==, 0);
}

static void
test_short_rows (void)
{
  g_autoptr (CubeReport) r = parse_all_chunkings (rows_xml, check_rows);
  g_assert_nonnull (r);   /* checked per chunking; freed here */
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) bad = NULL;
  g_auto (GStrv) parts = g_strsplit (rows_xml, "7.5", 2);
  g_autofree char *too_long = g_strjoinv ("1 2 3 4", parts); /* one value too many */

  bad = cube_xml_parse_memory (too_long, strlen (too_long), "l.cube", CUBE_XML_CUBE3, &error);
  g_assert_null (bad);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "has more values than the 3 locations"));
}

/* ---- <val>VOID</val> -------------------------------------------------------------------------
 * Scalasca 1.x writes composed hardware-counter metrics ("~CYCLES = BUSY + STALL + IDLE") with
 * <val>VOID</val>. cubelib skips the matrix of every metric that is VOID or lies below a VOID
 * one, so all their values are 0; other metrics are read as usual.
 *   time (no val)            rows: c0 = 3 4
 *   ~void (VOID)             rows: c0 = 100 100   → ignored
 *     measured (MEASURED)    rows: c0 = 5 5       → ignored (under a VOID metric)
 *   instr (MEASURED)         rows: c0 = 10 20
 *     ~mem (" VOID ")        rows: c0 = 1 1       → ignored
 * So instr collapsed = 30 and, expanded, also 30 (its child contributes 0). */
static const char void_xml[]
    = "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n<metrics>"
      "<metric id=\"0\"><disp_name>T</disp_name><uniq_name>time</uniq_name><dtype>FLOAT</dtype>"
      "<uom>sec</uom></metric>"
      "<metric id=\"1\"><disp_name>V</disp_name><uniq_name>~void</uniq_name><dtype>INTEGER</dtype>"
      "<uom>occ</uom><val>VOID</val>"
      "<metric id=\"2\"><disp_name>M</disp_name><uniq_name>measured</uniq_name>"
      "<dtype>INTEGER</dtype><uom>occ</uom><val>MEASURED</val></metric></metric>"
      "<metric id=\"3\"><disp_name>I</disp_name><uniq_name>instr</uniq_name><dtype>INTEGER</dtype>"
      "<uom>occ</uom><val>MEASURED</val>"
      "<metric id=\"4\"><disp_name>Mem</disp_name><uniq_name>~mem</uniq_name><dtype>INTEGER</dtype>"
      "<uom>occ</uom><val> VOID </val></metric></metric>"
      "</metrics>\n<program><region id=\"0\" mod=\"\" begin=\"-1\" end=\"-1\"><name>main</name>"
      "</region><cnode id=\"0\" calleeId=\"0\"/></program>\n" SYSTEM_2 "<severity>"
      "<matrix metricId=\"0\"><row cnodeId=\"0\">3 4</row></matrix>"
      "<matrix metricId=\"1\"><row cnodeId=\"0\">100 100</row></matrix>"
      "<matrix metricId=\"2\"><row cnodeId=\"0\">5 5</row></matrix>"
      "<matrix metricId=\"3\"><row cnodeId=\"0\">10 20</row></matrix>"
      "<matrix metricId=\"4\"><row cnodeId=\"0\">1 1</row></matrix>"
      "</severity></cube>\n";

static void
check_void (CubeReport *r)
{
  g_autoptr (GError) error = NULL;
  g_autofree double *incl = g_new0 (double, r->metrics->len);
  g_autofree double *excl = g_new0 (double, r->metrics->len);
  g_autofree gboolean *is_void = cube_report_void_metrics (r);
  CubeMetric *instr = cube_report_find_metric (r, "instr");

  g_assert_false (is_void[cube_report_find_metric (r, "time")->index]);
  g_assert_true (is_void[cube_report_find_metric (r, "~void")->index]);
  g_assert_true (is_void[cube_report_find_metric (r, "measured")->index]);
  g_assert_false (is_void[instr->index]);
  g_assert_true (is_void[cube_report_find_metric (r, "~mem")->index]);
  g_assert_cmpfloat (value (r, "time", 0, 1), ==, 4);
  g_assert_cmpfloat (value (r, "~void", 0, 0), ==, 0);
  g_assert_cmpfloat (value (r, "measured", 0, 0), ==, 0);
  g_assert_cmpfloat (value (r, "instr", 0, 1), ==, 20);
  g_assert_cmpfloat (value (r, "~mem", 0, 0), ==, 0);
  g_assert_true (cube_values_metrics (r, incl, excl, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (incl[instr->index], ==, 30);
  g_assert_cmpfloat (excl[instr->index], ==, 30);
}

static void
test_void_metrics (void)
{
  g_autoptr (CubeReport) r = parse_all_chunkings (void_xml, check_void);
  g_assert_nonnull (r);   /* checked per chunking; freed here */
}

/* ---- processes and threads without a name ---------------------------------------------------
 * tau2cube writes <name></name>; cubelib shows "Process <rank>" / "Thread <rank>" (rank 0 when
 * there is none). Named ones keep their names; Cube 4 location groups are not renamed. */
static const char names_xml[]
    = "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n<metrics/>\n<program/>\n"
      "<system><machine Id=\"0\"><name>Machine</name><descr>Created by tau2cube</descr>"
      "<node Id=\"1\"><name>Node</name>"
      "<process Id=\"0\"><name></name><rank>3</rank>"
      "<thread Id=\"0\"><name></name><rank>1</rank></thread>"
      "<thread Id=\"1\"><rank>2</rank><name>worker</name></thread></process>"
      "<process Id=\"1\"><thread Id=\"2\"/></process>"
      "</node></machine></system>\n</cube>\n";

static void
check_names (CubeReport *r)
{
  g_assert_cmpuint (r->locations->len, ==, 3);
  g_assert_cmpstr (((CubeSysNode *)g_ptr_array_index (r->locations, 0))->name, ==, "Thread 1");
  g_assert_cmpstr (((CubeSysNode *)g_ptr_array_index (r->locations, 1))->name, ==, "worker");
  g_assert_cmpstr (((CubeSysNode *)g_ptr_array_index (r->locations, 2))->name, ==, "Thread 0");
  g_assert_cmpstr (((CubeSysNode *)g_ptr_array_index (r->locations, 0))->parent->name, ==,
                   "Process 3");
  g_assert_cmpstr (((CubeSysNode *)g_ptr_array_index (r->locations, 2))->parent->name, ==,
                   "Process 0");
  g_assert_cmpstr (((CubeSysNode *)g_ptr_array_index (r->system_roots, 0))->descr, ==,
                   "Created by tau2cube");
}

static void
test_unnamed_sysnodes (void)
{
  g_autoptr (CubeReport) r = parse_all_chunkings (names_xml, check_names);
  g_assert_nonnull (r);   /* checked per chunking; freed here */
}

/* ---- unquoted attributes of derived metrics in anchors --------------------------------------
 * cubew (Score-P's writer) writes <cubepl locationwise=false> and <cubeplaggr
 * cubeplaggrtype=plus|minus|aggr>, cubelib's writer <cubepl rowwise=false>: unquoted values,
 * not well-formed XML, but cubelib reads them. Kubus must open such a .cubex: the values get
 * quotes before libxml2 sees them; the expressions are kept, the init/aggr parts ignored. */
static const char derived_anchor[]
    = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.5\">\n<metrics>\n"
      "<metric id=\"0\" type=\"EXCLUSIVE\"><disp_name>T</disp_name><uniq_name>time</uniq_name>"
      "<dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr></metric>\n"
      "<metric id=\"1\" type=\"POSTDERIVED\"><disp_name>D</disp_name><uniq_name>d</uniq_name>"
      "<dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr>\n"
      "<cubepl locationwise=false>metric::time(i) * 2 &lt; 3</cubepl>\n"
      "<cubeplinit>{ ${x} = 1; }</cubeplinit>\n"
      "<cubeplaggr cubeplaggrtype=plus>arg1 + arg2</cubeplaggr>\n"
      "<cubeplaggr cubeplaggrtype=aggr>arg1</cubeplaggr>\n</metric>\n"
      "<metric id=\"2\" type=\"PREDERIVED_EXCLUSIVE\"><disp_name>E</disp_name><uniq_name>e</uniq_name>"
      "<dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr>\n"
      "<cubepl rowwise=false>1</cubepl><cubeplaggr cubeplaggrtype=minus/></metric>\n"
      "</metrics>\n<program><region id=\"0\" mod=\"\" begin=\"-1\" end=\"-1\"><name>main</name>"
      "</region><cnode id=\"0\" calleeId=\"0\"/></program>\n"
      "<system><systemtreenode Id=\"0\"><name>m</name><class>machine</class>"
      "<locationgroup Id=\"0\"><name>p</name><rank>0</rank><type>process</type>"
      "<location Id=\"0\"><name>t</name><rank>0</rank><type>thread</type></location>"
      "</locationgroup></systemtreenode></system>\n</cube>\n";

static void
test_unquoted_cubepl_attributes (void)
{
  for (gsize chunk = 1; chunk <= sizeof derived_anchor; chunk++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CubeReport) r = cube_xml_parse_memory_chunked (
          derived_anchor, strlen (derived_anchor), "a.cubex:anchor.xml", CUBE_XML_ANCHOR, chunk,
          &error);
      CubeMetric *d, *e;

      g_assert_no_error (error);
      g_assert_nonnull (r);
      d = cube_report_find_metric (r, "d");
      e = cube_report_find_metric (r, "e");
      g_assert_cmpint (d->kind, ==, CUBE_METRIC_POSTDERIVED);
      g_assert_cmpstr (d->cubepl, ==, "metric::time(i) * 2 < 3");
      g_assert_false (cube_metric_has_data (d));
      g_assert_cmpint (e->kind, ==, CUBE_METRIC_PREDERIVED_EXCLUSIVE);
      g_assert_cmpstr (e->cubepl, ==, "1");
      g_assert_cmpuint (r->locations->len, ==, 1);
      if (chunk > 64)
        chunk += 13; /* every size up to 64, then a sample */
    }
}

/* ---- the same in a real .cubex ------------------------------------------------------------
 * A minimal archive written here (ustar, dense index, uncompressed doubles): metric "time"
 * stores 5, metric "~void" (<val>VOID</val>) stores 7 in its data member, which cubelib ignores;
 * the derived metric uses cubew's unquoted attributes. Lazy and eager loads must give 5 and 0. */
static void
tar_member (GByteArray *tar, const char *name, const void *data, gsize size)
{
  guint8 h[512] = { 0 };
  guint  sum = 0;

  g_strlcpy ((char *)h, name, 100);
  memcpy (h + 100, "0000644", 8);
  memcpy (h + 108, "0000000", 8);
  memcpy (h + 116, "0000000", 8);
  g_snprintf ((char *)h + 124, 12, "%011o", (unsigned)size);
  memcpy (h + 136, "00000000000", 12);
  h[156] = '0';
  memcpy (h + 257, "ustar", 6);
  memcpy (h + 263, "00", 2);
  memset (h + 148, ' ', 8);
  for (guint i = 0; i < 512; i++)
    sum += h[i];
  g_snprintf ((char *)h + 148, 8, "%06o", sum);
  g_byte_array_append (tar, h, 512);
  g_byte_array_append (tar, data, (guint)size);
  g_byte_array_set_size (tar, (tar->len + 511) / 512 * 512);
}

static void
metric_members (GByteArray *tar, int id, double value)
{
  guint8           index[18];
  guint8           data[18];
  guint32          one = GUINT32_TO_LE (1);
  guint16          version = 0;
  g_autofree char *iname = g_strdup_printf ("%d.index", id);
  g_autofree char *dname = g_strdup_printf ("%d.data", id);
  guint64          bits;

  memcpy (index, "CUBEX.INDEX", 11);
  memcpy (index + 11, &one, 4);
  memcpy (index + 15, &version, 2);
  index[17] = 3; /* dense: one row per call path */
  memcpy (data, "CUBEX.DATA", 10);
  memcpy (&bits, &value, 8);
  bits = GUINT64_TO_LE (bits);
  memcpy (data + 10, &bits, 8);
  tar_member (tar, iname, index, sizeof index);
  tar_member (tar, dname, data, sizeof data);
}

static const char void_anchor[]
    = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n<metrics>\n"
      "<metric id=\"0\" type=\"EXCLUSIVE\"><disp_name>T</disp_name><uniq_name>time</uniq_name>"
      "<dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr></metric>\n"
      "<metric id=\"1\" type=\"EXCLUSIVE\"><disp_name>V</disp_name><uniq_name>~void</uniq_name>"
      "<dtype>DOUBLE</dtype><uom>occ</uom><val>VOID</val><url></url><descr></descr></metric>\n"
      "<metric id=\"2\" type=\"POSTDERIVED\"><disp_name>D</disp_name><uniq_name>d</uniq_name>"
      "<dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr>\n"
      "<cubepl locationwise=false>metric::time(i)</cubepl>\n"
      "<cubeplaggr cubeplaggrtype=plus>arg1 + arg2</cubeplaggr>\n</metric>\n"
      "</metrics>\n<program><region id=\"0\" mod=\"\" begin=\"-1\" end=\"-1\"><name>main</name>"
      "</region><cnode id=\"0\" calleeId=\"0\"/></program>\n"
      "<system><systemtreenode Id=\"0\"><name>m</name><class>machine</class>"
      "<locationgroup Id=\"0\"><name>p</name><rank>0</rank><type>process</type>"
      "<location Id=\"0\"><name>t</name><rank>0</rank><type>thread</type></location>"
      "</locationgroup></systemtreenode></system>\n</cube>\n";

static void
test_cubex_void_and_cubepl (void)
{
  g_autoptr (GByteArray) tar = g_byte_array_new ();
  g_autofree char *dir = g_dir_make_tmp ("kubus-compat-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "void.cubex", NULL);
  guint8           end[1024] = { 0 };

  metric_members (tar, 0, 5.0);
  metric_members (tar, 1, 7.0);
  tar_member (tar, "anchor.xml", void_anchor, strlen (void_anchor));
  g_byte_array_append (tar, end, sizeof end);
  g_assert_true (g_file_set_contents (path, (const char *)tar->data, tar->len, NULL));

  for (int eager = 0; eager < 2; eager++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CubeReport) r
          = cube_report_load (path, eager ? CUBE_LOAD_EAGER : CUBE_LOAD_DEFAULT, NULL, NULL, NULL,
                              &error);
      g_assert_no_error (error);
      g_assert_nonnull (r);
      g_assert_cmpfloat (value (r, "time", 0, 0), ==, 5);
      g_assert_cmpfloat (value (r, "~void", 0, 0), ==, 0);
      g_assert_cmpstr (cube_report_find_metric (r, "d")->cubepl, ==, "metric::time(i)");
    }
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cube/compat/bare-ampersand", test_bare_ampersand);
  g_test_add_func ("/cube/compat/short-rows", test_short_rows);
  g_test_add_func ("/cube/compat/void-metrics", test_void_metrics);
  g_test_add_func ("/cube/compat/unnamed-sysnodes", test_unnamed_sysnodes);
  g_test_add_func ("/cube/compat/unquoted-cubepl-attributes", test_unquoted_cubepl_attributes);
  g_test_add_func ("/cube/compat/cubex-void-and-cubepl", test_cubex_void_and_cubepl);
  return g_test_run ();
}
