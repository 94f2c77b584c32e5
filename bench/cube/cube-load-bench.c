/* cube-load-bench — times opening a report, then reading every stored row.
 *
 *   cube-load-bench [--eager] FILE
 *
 * Prints one line: "open_s=… open_rss_kb=… open_cur_rss_kb=… touch_s=… peak_rss_kb=… values=…",
 * where open_rss is the peak resident set after opening, open_cur_rss the resident set right
 * after opening, and peak_rss the peak after reading every (metric, call path) row through
 * cube_report_get_row. Lets load-bench compare lazy and eager .cubex opening. */
#include "cube.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

static long
status_kb (const char *field)
{
  g_autofree char *status = NULL;
  const char      *p;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  p = strstr (status, field);
  return p ? strtol (p + strlen (field), NULL, 10) : -1;
}

static long
peak_rss_kb (void)
{
  return status_kb ("VmHWM:");
}

int
main (int argc, char **argv)
{
  CubeLoadFlags      flags = CUBE_LOAD_DEFAULT;
  const char        *path;
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) r = NULL;
  g_autofree double *row = NULL;
  gint64             t0, t1, t2;
  long               open_rss, open_cur_rss;
  guint64            values = 0;
  double             checksum = 0.0;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  textdomain (GETTEXT_PACKAGE);
  if (argc == 3 && strcmp (argv[1], "--eager") == 0)
    flags = CUBE_LOAD_EAGER;
  else if (argc != 2)
    {
      g_printerr (_("usage: cube-load-bench [--eager] FILE\n"));
      return 2;
    }
  path = argv[argc - 1];

  t0 = g_get_monotonic_time ();
  r = cube_report_load (path, flags, NULL, NULL, NULL, &error);
  t1 = g_get_monotonic_time ();
  if (r == NULL)
    {
      g_printerr ("cube-load-bench: %s\n", error->message);
      return 1;
    }
  open_rss = peak_rss_kb ();
  open_cur_rss = status_kb ("VmRSS:");

  row = g_new (double, MAX (r->locations->len, 1));
  for (guint m = 0; m < r->metrics->len; m++)
    for (guint c = 0; c < r->cnodes->len; c++)
      {
        if (!cube_report_get_row (r, g_ptr_array_index (r->metrics, m),
                                  g_ptr_array_index (r->cnodes, c), row, &error))
          {
            g_printerr ("cube-load-bench: %s\n", error->message);
            return 1;
          }
        for (guint l = 0; l < r->locations->len; l++)
          checksum += row[l];
        values += r->locations->len;
      }
  t2 = g_get_monotonic_time ();

  printf ("open_s=%.3f open_rss_kb=%ld open_cur_rss_kb=%ld touch_s=%.3f peak_rss_kb=%ld values=%" G_GUINT64_FORMAT
          " checksum=%.6e\n",
          (t1 - t0) / 1e6, open_rss, open_cur_rss, (t2 - t1) / 1e6, peak_rss_kb (), values, checksum);
  return 0;
}
