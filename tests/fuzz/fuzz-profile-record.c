/* fuzz-profile-record — bytes as a rank's profile record (src/collect/collect-profile-write.c,
 * what kubus-run reads back after an aborted run): refused with a message or merged, and what
 * is merged is written as a CUBE 3 report that the report library reads. */
#include "collect-profile-write.h"
#include "fuzz-common.h"

#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  size_t    n = size / 8;
  uint64_t *w = g_malloc (n * 8 + 8);
  char      err[256] = "";
  memcpy (w, data, n * 8);
  int             world = n >= 4 && w[3] >= 1 && w[3] <= 64 ? (int)w[3] : 4;
  KubusProfMerge *m = kubus_prof_merge_new (world);
  if (kubus_prof_merge_add (m, w, n, err, sizeof err) != 0)
    {
      if (err[0] == '\0')
        abort (); /* a refusal must say why */
    }
  else if (n < 65536)
    {
      char path[64];
      snprintf (path, sizeof path, "/tmp/fuzz-profile-%d.cube", (int)getpid ());
      if (kubus_prof_merge_write (m, path, "fuzz", NULL, err, sizeof err) != 0)
        abort ();
      g_autoptr (GError) error = NULL;
      g_autoptr (CubeReport) r = cube_report_load (path, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
      unlink (path);
      if (r == NULL)
        {
          fprintf (stderr, "written profile unreadable: %s\n", error->message);
          abort ();
        }
      fuzz_exercise (r);
    }
  kubus_prof_merge_free (m);
  g_free (w);
  return 0;
}
