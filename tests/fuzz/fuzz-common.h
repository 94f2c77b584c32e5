/* fuzz-common.h — shared by the libFuzzer targets: an in-memory file for readers that want a
 * path, and a walk over a loaded report that touches every stored value (lazy rows, the
 * CUBE 3 conversion, the value engine and the algebra). Errors are fine; crashes, leaks,
 * hangs and sanitizer reports are not. */
#pragma once

#include "cube-private.h"

#include <sys/mman.h>
#include <unistd.h>

/* Writes @data into a memfd and returns its /proc path (valid until the next call). */
G_GNUC_UNUSED static const char *
fuzz_file (const guint8 *data, size_t size)
{
  static int  fd = -1;
  static char path[64];

  if (fd < 0)
    {
      fd = memfd_create ("kubus-fuzz", 0);
      if (fd < 0)
        abort ();
      g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
    }
  if (ftruncate (fd, 0) != 0 || (size > 0 && pwrite (fd, data, size, 0) != (ssize_t) size))
    abort ();
  return path;
}

/* Reads every (metric, call path) row, computes the metric pane and, for small reports,
 * diff (r, r), which must come out all zero. */
static void
fuzz_exercise (CubeReport *r)
{
  guint              nl = r->locations->len;
  g_autofree double *row = g_new0 (double, MAX (nl, 1));
  guint64            budget = 2000000; /* values: keeps each input fast */
  gboolean           ok = TRUE;

  for (guint i = 0; i < r->metrics->len && budget > 0; i++)
    for (guint c = 0; c < r->cnodes->len && budget > 0; c++)
      {
        g_autoptr (GError) error = NULL;

        if (!cube_report_get_row (r, g_ptr_array_index (r->metrics, i),
                                  g_ptr_array_index (r->cnodes, c), row, &error))
          {
            if (error == NULL)
              abort (); /* FALSE must come with an error */
            ok = FALSE;
          }
        budget = budget > nl + 1 ? budget - nl - 1 : 0;
      }
  if (!ok || budget == 0)
    return;

  {
    g_autofree double *incl = g_new0 (double, MAX (r->metrics->len, 1));
    g_autoptr (GError) error = NULL;

    (void) cube_values_metrics (r, incl, NULL, &error);
  }

  if ((guint64) r->metrics->len * r->cnodes->len * MAX (nl, 1) < 200000)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CubeReport) d = cube_algebra_diff (r, r, &error);

      if (d == NULL && error == NULL)
        abort ();
      if (d != NULL)
        for (guint i = 0; i < d->metrics->len; i++)
          {
            CubeMetric     *dm = g_ptr_array_index (d->metrics, i);
            CubeMetricData *md = dm->data;
            for (guint c = 0; c < md->n_rows; c++)
              if (md->rows[c] != NULL)
                {
                  /* NaN and infinities do not cancel, and a minimum's or maximum's "no value"
                   * stays one; everything else must */
                  for (guint l = 0; l < d->locations->len; l++)
                    if (md->rows[c][l] == md->rows[c][l] && md->rows[c][l] != 0.0
                        && md->rows[c][l] - md->rows[c][l] == 0.0
                        && !cube_value_is_none (dm, md->rows[c][l]))
                      abort ();
                }
          }
    }
}
