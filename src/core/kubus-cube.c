/* kubus-cube — inspect, convert and combine CUBE reports from the command line.
 *
 * Exit status: 0 success, 1 usage error, 2 an input cannot be read, 3 the result cannot be
 * computed or written. Every message names the file it is about.
 */
#include "cube.h"
#include "kubus-text.h"
#include "kubus-program.h"
#include "stats-callsites.h"
#include "stats-scaling.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

enum
{
  EXIT_OK = 0,
  EXIT_USAGE = 1,
  EXIT_INPUT = 2,
  EXIT_OUTPUT = 3,
};

static void
usage (FILE *out)
{
  fprintf (out, "%s",
           _ ("Usage:\n"
              "  kubus-cube info FILE\n"
              "  kubus-cube dump [--csv] [--metric UNIQ_NAME] FILE\n"
              "  kubus-cube diff A B -o OUT\n"
              "  kubus-cube merge A B … -o OUT\n"
              "  kubus-cube mean A B … -o OUT\n"
              "  kubus-cube convert IN -o OUT\n"
              "\n"
              "FILE may be a CUBE 3 XML report (.cube, .cube.gz), a Cube 4 archive (.cubex),\n"
              "or an experiment folder (its analysis.cube, Scalasca's trace.cubex or\n"
              "summary.cubex, else its profile).\n"
              "OUT is written as a Cube 4 archive when its name ends in .cubex, else as\n"
              "CUBE 3 XML (gzip-compressed for .gz).\n"));
  fprintf (out, "%s",
           _ ("\nWhich MPI callsites stop scaling, from runs at three or more task counts:\n"
              "  kubus-cube scaling [--csv] [--metric UNIQ_NAME] [-o OUT.cube] EXP_OR_REPORT …\n"
              "EXP_OR_REPORT: an experiment folder (its profile.cube, else its analysis.cube), a\n"
              "folder of experiment folders, or a report.\n"));
  fprintf (out, "%s",
           _ ("\n"
              "  kubus-cube callsites [--csv] FILE\n"
              "    the MPI call sites (mpiP style): per rank and for all ranks the calls, the\n"
              "    shortest, mean and longest call, total time and bytes, most time first\n"));
  kubus_program_print_common_options (out);
}

static int usage_error (const char *format, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const char *format, ...)
{
  va_list args;

  fprintf (stderr, "kubus-cube: ");
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fprintf (stderr, "\n");
  usage (stderr);
  return EXIT_USAGE;
}

static CubeReport *
load_with (const char *path, CubeLoadFlags flags, int *status)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *report_path = cube_report_in_folder (path);   /* an experiment folder: its report */
  CubeReport *report = cube_report_load (report_path, flags, NULL, NULL, NULL, &error);

  if (report == NULL)
    {
      fprintf (stderr, "kubus-cube: %s\n", error->message);
      *status = EXIT_INPUT;
    }
  return report;
}

/* Commands that read every value: a .cubex is decoded at once (and checked whole). */
static CubeReport *
load (const char *path, int *status)
{
  return load_with (path, CUBE_LOAD_EAGER, status);
}

/* ---- info ------------------------------------------------------------------------------------ */

static void
print_number (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  fputs (g_ascii_formatd (buf, sizeof buf, "%.17g", v), stdout);
}

/* "; N the same: 1-5, 8, 11, …" for the topologies after @first that are the same as it
 * (@classes: cube_report_cart_classes), ranges joined, at most 8 listed. */
static void
print_same_topologies (const guint *classes,
                       guint        n,
                       guint        first)
{
  guint count = 0, listed = 0;

  for (guint t = first + 1; t < n; t++)
    count += classes[t] == first;
  if (count == 0)
    return;
  printf ("; %u the same:", count);
  for (guint t = first + 1; t < n; t++)
    {
      guint end = t;
      if (classes[t] != first)
        continue;
      if (listed++ == 8)
        {
          printf (", …");
          return;
        }
      while (end + 1 < n && classes[end + 1] == first)
        end++;
      if (end > t)
        printf ("%s%u-%u", listed > 1 ? ", " : " ", t, end);
      else
        printf ("%s%u", listed > 1 ? ", " : " ", t);
      t = end;
    }
}

static int
cmd_info (const char *path)
{
  int status = EXIT_OK;
  /* Lazily: the totals of the root metrics need only their rows (a .cubex metric stored
   * inclusive along the call tree: only the roots' rows), not the whole file. */
  g_autoptr (CubeReport) report = load_with (path, CUBE_LOAD_DEFAULT, &status);

  if (report == NULL)
    return status;

  {
    g_autofree char *shown = cube_report_in_folder (path);   /* the report a folder stood for */
    printf ("file: %s\n", shown);
  }
  printf ("format: %s\n", cube_format_to_string (report->format));
  printf ("version: %s\n", report->version ? report->version : "");
  printf ("metrics: %u\n", report->metrics->len);
  printf ("regions: %u\n", report->regions->len);
  printf ("call paths: %u\n", report->cnodes->len);
  printf ("system tree nodes: %u\n", report->sysnodes->len);
  printf ("locations: %u\n", report->locations->len);
  /* a topology defined again and again (CP2K: 84, 3 different) is listed once, with the
   * indices of the same ones */
  g_autofree guint *classes = cube_report_cart_classes (report);
  guint different = 0;
  for (guint t = 0; t < report->topologies->len; t++)
    different += classes[t] == t;
  if (different < report->topologies->len)
    printf ("topologies: %u (%u different)\n", report->topologies->len, different);
  else
    printf ("topologies: %u\n", report->topologies->len);
  printf ("call tree aggregation: %s\n", report->ct_aggr_max ? "MAX" : "SUM");
  for (guint t = 0; t < report->topologies->len; t++)
    {
      const CubeCart *cart = g_ptr_array_index (report->topologies, t);
      if (classes[t] != t)
        continue;
      printf ("topology %u: name \"%s\", %u dimensions,", t, cart->name ? cart->name : "",
              cart->ndims);
      for (guint d = 0; d < cart->ndims; d++)
        printf ("%s%s%s%" G_GINT64_FORMAT "%s", d == 0 ? " " : " x ",
                cart->dims[d].name ? cart->dims[d].name : "", cart->dims[d].name ? "=" : "",
                cart->dims[d].size, cart->dims[d].periodic ? "(periodic)" : "");
      printf (", %u coordinates", cart->coords->len);
      print_same_topologies (classes, report->topologies->len, t);
      printf ("\n");
    }
  for (guint i = 0; i < report->metrics->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (report->metrics, i);
      if (m->dtype == CUBE_DTYPE_UNSUPPORTED)
        printf (_ ("unsupported: metric %s has data type %s; its values are not read\n"),
                m->uniq_name, m->dtype_name ? m->dtype_name : "?");
      else if (!cube_metric_has_data (m))
        printf (_ ("derived: metric %s (%s) stores no data\n"), m->uniq_name,
                cube_metric_kind_to_string (m->kind));
    }

  for (guint i = 0; i < report->metric_roots->len; i++)
    {
      const CubeMetric *m = g_ptr_array_index (report->metric_roots, i);
      g_autoptr (GError) error = NULL;
      double total;

      if (!cube_metric_has_data (m))
        continue;
      if (!cube_values_metric_total (report, m, FALSE, &total, &error))
        {
          fflush (stdout);
          fprintf (stderr, "kubus-cube: %s\n", error->message);
          return EXIT_INPUT;
        }
      printf ("total %s: ", m->uniq_name);
      print_number (total);
      printf (" %s\n", m->uom ? m->uom : "");
    }
  return EXIT_OK;
}

/* ---- dump ------------------------------------------------------------------------------------ */

static int
cmd_dump (const char *path, const char *metric_name)
{
  int status = EXIT_OK;
  g_autoptr (CubeReport) report = load (path, &status);
  g_autofree double *row = NULL;
  CubeMetric        *only = NULL;
  char               num[G_ASCII_DTOSTR_BUF_SIZE];
  static char        outbuf[1 << 16];

  if (report == NULL)
    return status;
  if (metric_name != NULL)
    {
      only = cube_report_find_metric (report, metric_name);
      if (only == NULL)
        {
          fprintf (stderr, _ ("kubus-cube: %s: there is no metric with the unique name “%s”\n"),
                   path, metric_name);
          return EXIT_USAGE;
        }
    }
  /* Metrics without stored values are left out; say so, on stderr so the CSV stays clean. */
  for (guint mi = 0; mi < report->metrics->len; mi++)
    {
      const CubeMetric *m = g_ptr_array_index (report->metrics, mi);
      if ((only != NULL && m != only) || cube_metric_has_data (m))
        continue;
      if (m->dtype == CUBE_DTYPE_UNSUPPORTED)
        fprintf (stderr,
                 _ ("kubus-cube: %s: note: metric “%s” has the unsupported data type %s; its "
                    "values are not dumped\n"),
                 path, m->uniq_name, m->dtype_name ? m->dtype_name : "?");
      else
        fprintf (stderr,
                 _ ("kubus-cube: %s: note: metric “%s” is derived (%s): it has no stored "
                    "values to dump\n"),
                 path, m->uniq_name, cube_metric_kind_to_string (m->kind));
    }
  setvbuf (stdout, outbuf, _IOFBF, sizeof outbuf);
  row = g_new0 (double, MAX (report->locations->len, 1));
  printf ("metric,cnode,location,value\n");
  for (guint mi = 0; mi < report->metrics->len; mi++)
    {
      CubeMetric *m = g_ptr_array_index (report->metrics, mi);
      if ((only != NULL && m != only) || !cube_metric_has_data (m))
        continue;
      for (guint ci = 0; ci < report->cnodes->len; ci++)
        {
          const CubeCnode *c = g_ptr_array_index (report->cnodes, ci);
          g_autoptr (GError) error = NULL;
          if (!cube_report_get_row (report, m, c, row, &error))
            {
              fflush (stdout);
              fprintf (stderr, "kubus-cube: %s\n", error->message);
              return EXIT_INPUT;
            }
          for (guint l = 0; l < report->locations->len; l++)
            {
              if (row[l] == 0.0 || cube_value_is_none (m, row[l]))
                continue; /* zero, or a location without a minimum/maximum */
              kubus_text_csv (m->uniq_name, kubus_text_to_file, stdout);
              printf (",%" G_GINT64_FORMAT ",%u,%s\n", c->file_id, l,
                      g_ascii_formatd (num, sizeof num, "%.17g", row[l]));
            }
        }
    }
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, _ ("kubus-cube: cannot write the dump to standard output\n"));
      return EXIT_OUTPUT;
    }
  return EXIT_OK;
}

/* ---- callsites ------------------------------------------------------------------------------- */

static int
cmd_callsites (const char *path, gboolean csv)
{
  int status = EXIT_OK;
  g_autoptr (CubeReport) report = load (path, &status);
  if (report == NULL)
    return status;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) sites = stats_callsites (report, &error);
  if (sites == NULL)
    {
      fprintf (stderr, "kubus-cube: %s\n", error->message);
      return EXIT_INPUT;
    }
  stats_callsites_print (sites, csv, stdout);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, _ ("kubus-cube: cannot write the table to standard output\n"));
      return EXIT_OUTPUT;
    }
  return EXIT_OK;
}

/* ---- writing results --------------------------------------------------------------------------
 */

static int
write_result (CubeReport *report, const char *out)
{
  g_autoptr (GError) error = NULL;

  if (!cube_report_write (report, out, &error))
    {
      fprintf (stderr, "kubus-cube: %s\n", error->message);
      return EXIT_OUTPUT;
    }
  return EXIT_OK;
}

static int
cmd_convert (const char *in, const char *out)
{
  int status = EXIT_OK;
  g_autoptr (CubeReport) report = load (in, &status);

  if (report == NULL)
    return status;
  return write_result (report, out);
}

/* merge takes a metric that several inputs have from the first of them (cubelib's cube_merge:
 * from the last, cell by cell): say so when it happens, so nobody mistakes the result for a sum
 * or a mix of runs. */
static void
note_merge_overlap (GPtrArray *reports)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GString) names = g_string_new (NULL);
  guint n = 0;

  for (guint k = 0; k < reports->len; k++)
    {
      CubeReport *r = g_ptr_array_index (reports, k);

      for (guint i = 0; i < r->metrics->len; i++)
        {
          const CubeMetric *m = g_ptr_array_index (r->metrics, i);

          if (!cube_metric_has_data (m) || g_hash_table_contains (seen, m->uniq_name))
            continue;
          g_hash_table_add (seen, m->uniq_name);
          for (guint j = k + 1; j < reports->len; j++)
            {
              const CubeMetric *o = cube_report_find_metric (g_ptr_array_index (reports, j),
                                                             m->uniq_name);

              if (o != NULL && cube_metric_has_data (o))
                {
                  if (n < 3)
                    g_string_append_printf (names, "%s“%s”", n > 0 ? ", " : "", m->uniq_name);
                  else if (n == 3)
                    g_string_append (names, ", …");
                  n++;
                  break;
                }
            }
        }
    }
  if (n > 0)
    fprintf (stderr,
             ngettext ("kubus-cube: merge: note: %u metric (%s) is in more than one input; "
                          "it takes its values from the first input that has it\n",
                          "kubus-cube: merge: note: %u metrics (%s) are in more than one input; "
                          "each takes its values from the first input that has it\n",
                          n),
             n, names->str);
}

static int
cmd_algebra (const char *op, GPtrArray *inputs, const char *out)
{
  g_autoptr (GPtrArray) reports = g_ptr_array_new_with_free_func ((GDestroyNotify)cube_report_free);
  g_autoptr (CubeReport) result = NULL;
  g_autoptr (GError) error = NULL;
  int status = EXIT_OK;

  for (guint i = 0; i < inputs->len; i++)
    {
      CubeReport *r = load (g_ptr_array_index (inputs, i), &status);
      if (r == NULL)
        return status;
      g_ptr_array_add (reports, r);
    }
  if (strcmp (op, "diff") == 0)
    result = cube_algebra_diff (g_ptr_array_index (reports, 0), g_ptr_array_index (reports, 1),
                                &error);
  else if (strcmp (op, "merge") == 0)
    {
      note_merge_overlap (reports);
      result = cube_algebra_merge ((CubeReport **)reports->pdata, reports->len, &error);
    }
  else
    result = cube_algebra_mean ((CubeReport **)reports->pdata, reports->len, &error);
  if (result == NULL)
    {
      fprintf (stderr, "kubus-cube: %s: %s\n", op, error ? error->message : _ ("failed"));
      return error != NULL && g_error_matches (error, CUBE_ERROR, CUBE_ERROR_USAGE) ? EXIT_USAGE
                                                                                    : EXIT_OUTPUT;
    }
  return write_result (result, out);
}

/* ---- scaling ----------------------------------------------------------------------------------
 */

static int
cmd_scaling (GPtrArray *inputs, const char *metric, gboolean csv, const char *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (StatsScaling) scaling = NULL;
  gboolean printed;

  scaling = stats_scaling_compute ((const char *const *) inputs->pdata, inputs->len, metric, NULL,
                                   &error);
  if (scaling == NULL)
    {
      fprintf (stderr, "kubus-cube: scaling: %s\n", error->message);
      if (g_error_matches (error, STATS_ERROR, STATS_ERROR_METRIC))
        return EXIT_USAGE;
      if (error->domain == STATS_ERROR && error->code == STATS_ERROR_DATA)
        return EXIT_OUTPUT;
      return EXIT_INPUT;
    }
  if (out != NULL)
    {
      g_autoptr (CubeReport) report = stats_scaling_to_report (scaling);
      int status = write_result (report, out);

      if (status != EXIT_OK)
        return status;
    }
  printed = csv ? stats_scaling_print_csv (scaling, stdout)
                : stats_scaling_print_text (scaling, stdout);
  if (!printed)
    {
      fprintf (stderr, _ ("kubus-cube: cannot write the result to standard output\n"));
      return EXIT_OUTPUT;
    }
  return EXIT_OK;
}

/* Ctrl-C or a kill while a result is being written: remove the temporary file, then die of
 * the signal as usual (the target is never touched before the final rename). */
static void
on_fatal_signal (int sig)
{
  cube_report_write_abort ();
  signal (sig, SIG_DFL);
  raise (sig);
}

/* ---- main ---------------------------------------------------------------------------------------
 */

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new ();
  const char *cmd;
  const char *out = NULL;
  const char *metric = NULL;
  gboolean    csv = FALSE;

  kubus_program_init ("kubus-cube");
  {
    struct sigaction sa = { 0 };

    sa.sa_handler = on_fatal_signal;
    sigemptyset (&sa.sa_mask);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
    sigaction (SIGHUP, &sa, NULL);
  }

  if (argc < 2)
    return usage_error (_ ("no command given"));
  cmd = argv[1];
  if (strcmp (cmd, "-h") == 0 || strcmp (cmd, "--help") == 0 || strcmp (cmd, "help") == 0)
    {
      usage (stdout);
      return EXIT_OK;
    }
  if (strcmp (cmd, "--version") == 0)
    return kubus_program_print_version ();

  for (int i = 2; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "-h") == 0 || strcmp (a, "--help") == 0)
        {
          usage (stdout);
          return EXIT_OK;
        }
      else if (strcmp (a, "--version") == 0)
        return kubus_program_print_version ();
      else if (strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0)
        {
          if (i + 1 >= argc)
            return usage_error (_ ("%s needs a file name"), a);
          out = argv[++i];
          if (!*out)
            return usage_error (_ ("%s needs a file name"), "-o");
        }
      else if (g_str_has_prefix (a, "--output="))
        {
          out = a + strlen ("--output=");
          if (!*out)
            return usage_error (_ ("%s needs a file name"), "-o");
        }
      else if (strcmp (a, "--metric") == 0)
        {
          if (i + 1 >= argc)
            return usage_error (_ ("%s needs a metric unique name"), a);
          metric = argv[++i];
        }
      else if (g_str_has_prefix (a, "--metric="))
        metric = a + strlen ("--metric=");
      else if (strcmp (a, "--csv") == 0)
        csv = TRUE;
      else if (strcmp (a, "--") == 0)
        {
          for (i++; i < argc; i++)
            g_ptr_array_add (files, argv[i]);
        }
      else if (a[0] == '-' && a[1] != '\0')
        return usage_error (_ ("unknown option “%s”"), a);
      else
        g_ptr_array_add (files, (gpointer)a);
    }

  if (strcmp (cmd, "info") == 0)
    {
      if (files->len != 1 || out != NULL || metric != NULL || csv)
        return usage_error (_ ("info takes exactly one FILE and no options"));
      return cmd_info (g_ptr_array_index (files, 0));
    }
  if (strcmp (cmd, "dump") == 0)
    {
      if (files->len != 1 || out != NULL)
        return usage_error (_ ("dump takes exactly one FILE"));
      (void)csv; /* CSV is the only dump format */
      return cmd_dump (g_ptr_array_index (files, 0), metric);
    }
  if (strcmp (cmd, "scaling") == 0)
    {
      if (files->len == 0)
        return usage_error (_ ("scaling needs experiments or reports at three or more task counts"));
      return cmd_scaling (files, metric, csv, out);
    }
  if (strcmp (cmd, "callsites") == 0)
    {
      if (files->len != 1 || out != NULL || metric != NULL)
        return usage_error (_ ("callsites takes exactly one FILE (and --csv)"));
      return cmd_callsites (g_ptr_array_index (files, 0), csv);
    }
  if (metric != NULL || csv)
    return usage_error (_ ("--metric and --csv belong to dump"));
  if (strcmp (cmd, "convert") == 0)
    {
      if (files->len != 1 || out == NULL)
        return usage_error (_ ("convert takes one input FILE and -o OUT"));
      return cmd_convert (g_ptr_array_index (files, 0), out);
    }
  if (strcmp (cmd, "diff") == 0 || strcmp (cmd, "merge") == 0 || strcmp (cmd, "mean") == 0)
    {
      if (out == NULL)
        return usage_error (_ ("%s needs -o OUT"), cmd);
      if (strcmp (cmd, "diff") == 0 && files->len != 2)
        return usage_error (_ ("diff takes exactly two reports"));
      if (files->len < 2)
        return usage_error (_ ("%s takes two or more reports"), cmd);
      return cmd_algebra (cmd, files, out);
    }
  return usage_error (_ ("unknown command “%s”"), cmd);
}
