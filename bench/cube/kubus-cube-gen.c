/* kubus-cube-gen — writes a synthetic report of a chosen size for the load benchmarks.
 *
 *   kubus-cube-gen [-m METRICS] [-c CALLPATHS] [-l LOCATIONS] [--cubex [VARIANT…]] -o FILE
 *
 * CUBE 3 XML by default, or a Cube 4 .cubex archive (anchor.xml + dense index + little-endian
 * DOUBLE rows per metric, all metrics EXCLUSIVE). Written straight with stdio: the benchmark
 * measures the readers, so the generator must not be the slow part. Values are deterministic
 * (a small LCG), every value is stored (dense), so the file size is predictable:
 * about 11.5 bytes per value in XML (20 × 1000 × 640 ≈ 150 MB), 8 in .cubex.
 *
 * The .cubex variants Score-P, Scalasca and cubelib write (FORMATS.md), any combination:
 *   --inclusive   metrics of type INCLUSIVE: rows hold the call path's subtree (own value plus
 *                 its children's), in the inclusive row order ("node, then all its children,
 *                 then recurse into each child")
 *   --sparse      a sparse index (format 1) listing every row
 *   --compressed  ZCUBEX.DATA: one zlib stream per row and the row table in front
 *   --big-endian  the byte-order marker and every number big-endian
 *   --padded      the data members 64 kB longer than their rows (pre-allocated files) */
#include <glib.h>
#include <glib/gi18n.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static gint64 n_metrics = 20;
static gint64 n_cnodes = 1000;
static gint64 n_locs = 640;
static gboolean cubex;
static gboolean opt_inclusive, opt_sparse, opt_compressed, opt_big_endian, opt_padded;
static char *out_path;

static guint64 lcg = 88172645463325252ull;

static double
next_value (void)
{
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  /* 0.000000 … 9999.999999, six decimals: ~11 characters, like real timings */
  return (double) ((lcg >> 20) % 10000000000ull) / 1e6;
}

/* Call tree of fan-out 8: cnode i > 0 hangs under (i - 1) / 8 (ids breadth-first; the XML
 * nests them depth-first, which is the order readers see). */
static GPtrArray **
call_tree_children (void)
{
  GPtrArray **kids = g_new0 (GPtrArray *, n_cnodes);

  for (gint64 i = 0; i < n_cnodes; i++)
    kids[i] = g_ptr_array_new ();
  for (gint64 i = 1; i < n_cnodes; i++)
    g_ptr_array_add (kids[(i - 1) / 8], GINT_TO_POINTER ((gint) i));
  return kids;
}

static void
write_cnode (FILE *f, GPtrArray **kids, gint64 i, int depth, gint64 *order, gint64 *n)
{
  fprintf (f, "%*s<cnode id=\"%" G_GINT64_FORMAT "\" line=\"%" G_GINT64_FORMAT
           "\" mod=\"gen.c\" calleeId=\"%" G_GINT64_FORMAT "\">\n",
           depth * 2, "", i, 10 + i, i);
  order[(*n)++] = i;
  for (guint k = 0; k < kids[i]->len; k++)
    write_cnode (f, kids, GPOINTER_TO_INT (g_ptr_array_index (kids[i], k)), depth + 1, order, n);
  fprintf (f, "%*s</cnode>\n", depth * 2, "");
}

/* Writes everything but the severity; fills @order with the cnode ids in pre-order. */
static void
write_definitions (FILE *f, const char *version, gint64 *order)
{
  GPtrArray **kids = call_tree_children ();
  gint64      n = 0;

  fprintf (f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"%s\">\n", version);
  fprintf (f, "  <attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n  <metrics>\n");
  /* metric 0 is the root; the others are its children (sum of children <= root by chance
   * only: the benchmark reads values, it does not interpret them) */
  for (gint64 m = 0; m < n_metrics; m++)
    {
      fprintf (f, "    <metric id=\"%" G_GINT64_FORMAT "\"%s>\n"
               "      <disp_name>Metric %" G_GINT64_FORMAT "</disp_name>\n"
               "      <uniq_name>metric_%" G_GINT64_FORMAT "</uniq_name>\n"
               "      <dtype>FLOAT</dtype><uom>sec</uom><url></url><descr>generated</descr>\n",
               m, !cubex ? "" : opt_inclusive ? " type=\"INCLUSIVE\"" : " type=\"EXCLUSIVE\"", m, m);
      if (m > 0 || n_metrics == 1)
        fprintf (f, "    </metric>\n");
    }
  if (n_metrics > 1)
    fprintf (f, "    </metric>\n");
  fprintf (f, "  </metrics>\n  <program>\n");
  for (gint64 i = 0; i < n_cnodes; i++)
    fprintf (f, "    <region id=\"%" G_GINT64_FORMAT "\" mod=\"gen.c\" begin=\"%" G_GINT64_FORMAT
             "\" end=\"%" G_GINT64_FORMAT "\"><name>func_%" G_GINT64_FORMAT
             "</name><url></url><descr></descr></region>\n",
             i, 10 * i, 10 * i + 9, i);
  if (n_cnodes > 0)
    write_cnode (f, kids, 0, 2, order, &n);
  fprintf (f, "  </program>\n  <system>\n");
  if (cubex)
    {
      fprintf (f, "    <systemtreenode Id=\"0\"><name>machine</name><class>machine</class>\n"
                  "    <systemtreenode Id=\"1\"><name>node</name><class>node</class>\n");
      for (gint64 l = 0; l < n_locs; l++)
        fprintf (f, "      <locationgroup Id=\"%" G_GINT64_FORMAT "\"><name>rank %" G_GINT64_FORMAT
                 "</name><rank>%" G_GINT64_FORMAT "</rank><type>process</type>"
                 "<location Id=\"%" G_GINT64_FORMAT "\"><name>thread 0</name><rank>0</rank>"
                 "<type>thread</type></location></locationgroup>\n",
                 l, l, l, l);
      fprintf (f, "    </systemtreenode>\n    </systemtreenode>\n");
    }
  else
    {
      fprintf (f, "    <machine Id=\"0\"><name>machine</name><node Id=\"0\"><name>node</name>\n");
      for (gint64 l = 0; l < n_locs; l++)
        fprintf (f, "      <process Id=\"%" G_GINT64_FORMAT "\"><name>rank %" G_GINT64_FORMAT
                 "</name><rank>%" G_GINT64_FORMAT "</rank><thread Id=\"%" G_GINT64_FORMAT
                 "\"><name>thread 0</name><rank>0</rank></thread></process>\n",
                 l, l, l, l);
      fprintf (f, "    </node></machine>\n");
    }
  fprintf (f, "  </system>\n");
  for (gint64 i = 0; i < n_cnodes; i++)
    g_ptr_array_unref (kids[i]);
  g_free (kids);
}

static gboolean
write_cube3 (FILE *f)
{
  g_autofree gint64 *order = g_new (gint64, MAX (n_cnodes, 1));
  char               buf[G_ASCII_DTOSTR_BUF_SIZE];

  write_definitions (f, "3.0", order);
  fprintf (f, "  <severity>\n");
  for (gint64 m = 0; m < n_metrics; m++)
    {
      fprintf (f, "    <matrix metricId=\"%" G_GINT64_FORMAT "\">\n", m);
      for (gint64 c = 0; c < n_cnodes; c++)
        {
          fprintf (f, "      <row cnodeId=\"%" G_GINT64_FORMAT "\">\n", c);
          for (gint64 l = 0; l < n_locs; l++)
            {
              fputs (g_ascii_formatd (buf, sizeof buf, "%.6f", next_value ()), f);
              fputc ('\n', f);
            }
          fprintf (f, "      </row>\n");
        }
      fprintf (f, "    </matrix>\n");
    }
  fprintf (f, "  </severity>\n</cube>\n");
  return TRUE;
}

/* ---- .cubex: a minimal ustar writer --------------------------------------------------------- */

static void
tar_header (FILE *f, const char *name, guint64 size)
{
  unsigned char h[512];
  unsigned int  sum = 0;

  memset (h, 0, sizeof h);
  g_strlcpy ((char *) h, name, 100);
  memcpy (h + 100, "0000644", 8);
  memcpy (h + 108, "0000000", 8);
  memcpy (h + 116, "0000000", 8);
  g_snprintf ((char *) h + 124, 12, "%011" G_GINT64_MODIFIER "o", size);
  g_snprintf ((char *) h + 136, 12, "%011o", 1700000000u);
  memset (h + 148, ' ', 8);
  h[156] = '0';
  memcpy (h + 257, "ustar", 6);
  memcpy (h + 263, "00", 2);
  for (int i = 0; i < 512; i++)
    sum += h[i];
  g_snprintf ((char *) h + 148, 8, "%06o", sum);
  h[155] = ' ';
  fwrite (h, 1, 512, f);
}

static void
tar_pad (FILE *f, guint64 size)
{
  static const char zeros[512];

  if (size % 512)
    fwrite (zeros, 1, 512 - size % 512, f);
}

static void
tar_member (FILE *f, const char *name, const void *data, gsize size)
{
  tar_header (f, name, size);
  fwrite (data, 1, size, f);
  tar_pad (f, size);
}

static guint32
u32_out (guint32 v)
{
  return opt_big_endian ? GUINT32_TO_BE (v) : GUINT32_TO_LE (v);
}

static guint64
u64_out (guint64 v)
{
  return opt_big_endian ? GUINT64_TO_BE (v) : GUINT64_TO_LE (v);
}

/* The cnode ids in the inclusive row order: the root, then wide(n) = every child of n, then
 * wide on each child in turn. */
static void
inclusive_order (GPtrArray **kids, gint64 *out)
{
  gint64  n = 0;
  GArray *stack = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64  root = 0;

  out[n++] = 0;
  g_array_append_val (stack, root);
  while (stack->len > 0)
    {
      gint64 c = g_array_index (stack, gint64, stack->len - 1);

      g_array_set_size (stack, stack->len - 1);
      for (guint k = 0; k < kids[c]->len; k++)
        out[n++] = GPOINTER_TO_INT (g_ptr_array_index (kids[c], k));
      for (guint k = kids[c]->len; k > 0; k--)
        {
          gint64 child = GPOINTER_TO_INT (g_ptr_array_index (kids[c], k - 1));
          g_array_append_val (stack, child);
        }
    }
  g_array_unref (stack);
}

static gboolean
write_cubex (FILE *f)
{
  g_autofree gint64 *order = g_new (gint64, MAX (n_cnodes, 1));   /* pre-order: cnode ids */
  g_autofree gint64 *rows = g_new (gint64, MAX (n_cnodes, 1));    /* row k holds this cnode id */
  g_autofree char   *anchor = NULL;
  gsize              anchor_len = 0;
  FILE              *mem = open_memstream (&anchor, &anchor_len);
  guint64            row_bytes = (guint64) n_locs * 8;
  g_autofree double *values = g_new (double, (gsize) n_cnodes * (gsize) n_locs);
  g_autofree guint8 *row = g_new (guint8, row_bytes);
  g_autofree guint8 *packed = g_new (guint8, compressBound ((uLong) row_bytes));
  GPtrArray        **kids = call_tree_children ();
  const guint64      pad = opt_padded ? 65536 : 0;

  write_definitions (mem, "4.4", order);
  fprintf (mem, "</cube>\n");
  fclose (mem);

  /* row k of every metric: the k-th cnode of the metric's order (by id); row ids in the index
   * are positions in that order, which is the pre-order for exclusive metrics */
  if (opt_inclusive)
    inclusive_order (kids, rows);
  else
    memcpy (rows, order, sizeof (gint64) * (gsize) n_cnodes);

  for (gint64 m = 0; m < n_metrics; m++)
    {
      char    name[64];
      guint64 size;
      g_autofree guint8 *zdata = NULL;
      gsize   zlen = 0;
      g_autofree guint64 *table = NULL;

      /* values by cnode id: random exclusive values, summed up the tree for --inclusive */
      for (gint64 i = 0; i < n_cnodes; i++)
        for (gint64 l = 0; l < n_locs; l++)
          values[(gsize) order[i] * n_locs + l] = next_value ();
      if (opt_inclusive)
        for (gint64 i = n_cnodes; i-- > 1;)
          {
            gint64 id = order[i], parent = (id - 1) / 8;
            for (gint64 l = 0; l < n_locs; l++)
              values[(gsize) parent * n_locs + l] += values[(gsize) id * n_locs + l];
          }

      /* index */
      {
        GByteArray *idx = g_byte_array_new ();
        guint32     one = u32_out (1);
        guint8      head[7] = { 0, 0, opt_sparse ? 1 : 3 };

        g_byte_array_append (idx, (const guint8 *) "CUBEX.INDEX", 11);
        g_byte_array_append (idx, (const guint8 *) &one, 4);
        g_byte_array_append (idx, head, 3);
        if (opt_sparse)
          {
            guint32 nr = u32_out ((guint32) n_cnodes);
            g_byte_array_append (idx, (const guint8 *) &nr, 4);
            for (gint64 k = 0; k < n_cnodes; k++)
              {
                /* the k-th row is at position k of the metric's order */
                guint32 id = u32_out ((guint32) k);
                g_byte_array_append (idx, (const guint8 *) &id, 4);
              }
          }
        g_snprintf (name, sizeof name, "%" G_GINT64_FORMAT ".index", m);
        tar_member (f, name, idx->data, idx->len);
        g_byte_array_unref (idx);
      }

      g_snprintf (name, sizeof name, "%" G_GINT64_FORMAT ".data", m);
      if (opt_compressed)
        {
          GByteArray *z = g_byte_array_new ();

          table = g_new (guint64, 3 * (gsize) n_cnodes);
          for (gint64 k = 0; k < n_cnodes; k++)
            {
              uLongf plen = compressBound ((uLong) row_bytes);
              const double *src = values + (gsize) rows[k] * n_locs;

              for (gint64 l = 0; l < n_locs; l++)
                {
                  guint64 bits;
                  memcpy (&bits, &src[l], 8);
                  bits = u64_out (bits);
                  memcpy (row + l * 8, &bits, 8);
                }
              compress2 (packed, &plen, row, (uLong) row_bytes, 1);
              table[3 * k] = u64_out ((guint64) k * row_bytes);
              table[3 * k + 1] = u64_out (z->len);
              table[3 * k + 2] = u64_out (plen);
              g_byte_array_append (z, packed, (guint) plen);
            }
          zlen = z->len;
          zdata = g_byte_array_free (z, FALSE);
          size = 11 + 8 + 24 * (guint64) n_cnodes + zlen + pad;
        }
      else
        size = 10 + row_bytes * (guint64) n_cnodes + pad;
      tar_header (f, name, size);
      if (opt_compressed)
        {
          guint64 nr = u64_out ((guint64) n_cnodes);

          fwrite ("ZCUBEX.DATA", 1, 11, f);
          fwrite (&nr, 8, 1, f);
          fwrite (table, 8, 3 * (gsize) n_cnodes, f);
          fwrite (zdata, 1, zlen, f);
        }
      else
        {
          fwrite ("CUBEX.DATA", 1, 10, f);
          for (gint64 k = 0; k < n_cnodes; k++)
            {
              const double *src = values + (gsize) rows[k] * n_locs;

              for (gint64 l = 0; l < n_locs; l++)
                {
                  guint64 bits;
                  memcpy (&bits, &src[l], 8);
                  bits = u64_out (bits);
                  memcpy (row + l * 8, &bits, 8);
                }
              fwrite (row, 1, row_bytes, f);
            }
        }
      for (guint64 i = 0; i < pad; i++)
        fputc (0, f);
      tar_pad (f, size);
    }
  tar_member (f, "anchor.xml", anchor, anchor_len);
  {
    static const char end[1024];
    fwrite (end, 1, sizeof end, f);
  }
  for (gint64 i = 0; i < n_cnodes; i++)
    g_ptr_array_unref (kids[i]);
  g_free (kids);
  return TRUE;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    { "metrics", 'm', 0, G_OPTION_ARG_INT64, &n_metrics, N_("number of metrics"), "N" },
    { "callpaths", 'c', 0, G_OPTION_ARG_INT64, &n_cnodes, N_("number of call paths"), "N" },
    { "locations", 'l', 0, G_OPTION_ARG_INT64, &n_locs, N_("number of locations"), "N" },
    { "cubex", 0, 0, G_OPTION_ARG_NONE, &cubex, N_("write a Cube 4 .cubex archive"), NULL },
    { "inclusive", 0, 0, G_OPTION_ARG_NONE, &opt_inclusive,
      N_(".cubex: INCLUSIVE metrics (rows hold subtrees, inclusive row order)"), NULL },
    { "sparse", 0, 0, G_OPTION_ARG_NONE, &opt_sparse, N_(".cubex: a sparse index"), NULL },
    { "compressed", 0, 0, G_OPTION_ARG_NONE, &opt_compressed,
      N_(".cubex: zlib-compressed rows (ZCUBEX.DATA)"), NULL },
    { "big-endian", 0, 0, G_OPTION_ARG_NONE, &opt_big_endian, N_(".cubex: big-endian numbers"),
      NULL },
    { "padded", 0, 0, G_OPTION_ARG_NONE, &opt_padded,
      N_(".cubex: data members longer than their rows"), NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, N_("output file"), "FILE" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = NULL;
  FILE            *f;
  static char      buf[1 << 20];

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  textdomain (GETTEXT_PACKAGE);
  ctx = g_option_context_new (_("— write a synthetic CUBE report"));
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("kubus-cube-gen: %s\n", error->message);
      return 2;
    }
  if (out_path == NULL || n_metrics < 1 || n_cnodes < 1 || n_locs < 1 || n_locs > G_MAXINT32
      || n_cnodes > G_MAXINT32 || n_metrics > G_MAXINT32)
    {
      g_printerr (_("kubus-cube-gen: need -o FILE and positive sizes\n"));
      return 2;
    }

  /* temp file + rename: never a half-written report */
  tmp = g_strdup_printf ("%s.tmp-%d", out_path, (int) getpid ());
  f = fopen (tmp, "wb");
  if (f == NULL)
    {
      g_printerr (_("kubus-cube-gen: cannot write %s: %s\n"), tmp, g_strerror (errno));
      return 1;
    }
  setvbuf (f, buf, _IOFBF, sizeof buf);
  if (cubex)
    write_cubex (f);
  else
    write_cube3 (f);
  if (ferror (f) | (fclose (f) != 0) || rename (tmp, out_path) != 0)
    {
      g_printerr (_("kubus-cube-gen: cannot write %s: %s\n"), out_path, g_strerror (errno));
      remove (tmp);
      return 1;
    }
  return 0;
}
