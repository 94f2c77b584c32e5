/* kubus-run-profile.c: the profile after the run.
 *
 * An aborted run leaves one record per rank that could save it in EXPDIR/.kubus-profile (the
 * aborting rank already merged what it found; by now every rank has ended, so merging again
 * takes them all).  Then the MPI call sites get their source lines (kubus-run-callsites.c),
 * and the user hears about an incomplete profile or the call-path limit. */
#include "kubus-run-profile.h"

#include "collect-profile-write.h"
#include "kubus-run-callsites.h"
#include "kubus-run-frames.h"
#include "symbols.h"

#include <cube.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>

static void
merge_saved (const char *expdir, const char *profile)
{
  g_autofree char *saved = g_build_filename (expdir, ".kubus-profile", NULL);
  if (!g_file_test (saved, G_FILE_TEST_IS_DIR))
    return;
  char skipped[4096], err[1024];
  int  ranks = 0, world = 0;
  KubusRunSiteKeys *keys = kubus_run_site_keys_new ();
  int               rc = kubus_prof_merge_dir_keyed (saved, profile, "Kubus " KUBUS_VERSION,
                                                     keys ? kubus_run_site_key : NULL, keys,
                                                     &ranks, &world, skipped, sizeof skipped,
                                                     err, sizeof err);
  kubus_run_site_keys_free (keys);
  if (rc == 0)
    fprintf (stderr,
             _ ("kubus-run: the run ended early; %s holds the profile of %d of %d ranks, "
                "marked incomplete\n"),
             profile, ranks, world);
  else
    fprintf (stderr, _ ("kubus-run: cannot write the profile: %s\n"), err);
  if (skipped[0] != '\0')
    fprintf (stderr, _ ("kubus-run: profile records left out: %s\n"), skipped);
  g_autoptr (GDir) d = g_dir_open (saved, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (saved, name, NULL);
      g_remove (p);
    }
  g_rmdir (saved);
}

void
kubus_run_name_trace (const char *expdir)
{
  g_autofree char *anchor = g_build_filename (expdir, "traces.otf2", NULL);
  g_autofree char *kct = g_build_filename (expdir, "traces.kct", NULL);
  gboolean         have_otf2 = g_file_test (anchor, G_FILE_TEST_IS_REGULAR);
  gboolean         have_kct = g_file_test (kct, G_FILE_TEST_IS_REGULAR);
  if (!have_otf2 && !have_kct)
    return;
  SymbolsResolver   *symbols = symbols_resolver_new ();
  guint              named = 0, frames = 0;
  g_autoptr (GError) error = NULL;
  /* after an abort: the frames of the ranks that did not write the definitions */
  KubusRunFrames *abort_frames = have_otf2 ? kubus_run_abort_frames_plan (expdir) : NULL;
  if (have_otf2
      && !symbols_name_trace (anchor, symbols, kubus_run_abort_frames_regions (abort_frames),
                              &named, &frames, &error))
    fprintf (stderr, _ ("kubus-run: the functions in the trace keep their addresses: %s\n"),
             error->message);
  else
    kubus_run_abort_frames_apply (abort_frames);
  kubus_run_abort_frames_free (abort_frames);
  g_clear_error (&error);
  if (have_kct && !symbols_name_kct (kct, symbols, &named, &frames, &error))
    fprintf (stderr, _ ("kubus-run: the functions in the trace keep their addresses: %s\n"),
             error->message);
  GPtrArray *stale = symbols_resolver_stale (symbols);
  for (guint i = 0; i < stale->len; i++)
    fprintf (stderr,
             _ ("kubus-run: %s changed since the run; its functions keep their addresses\n"),
             (const char *)g_ptr_array_index (stale, i));
  if (frames > 0 && named < frames && g_getenv ("KUBUS_VERBOSE") != NULL)
    fprintf (stderr, _ ("kubus-run: %u of %u functions found on the stack have no symbol\n"),
             frames - named, frames);
  symbols_resolver_free (symbols);
}

static void
remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_remove (p);
    }
  g_rmdir (dir);
}

/* The records of a finished run, merged again now that the call sites' lines are known: the
 * call instructions that the compiler duplicated from one source line become one call site. */
static void
merge_records (const char *expdir, const char *profile)
{
  g_autofree char *dir = g_build_filename (expdir, ".kubus-profile-records", NULL);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    return;
  char              skipped[4096], err[1024];
  int               ranks = 0, world = 0;
  KubusRunSiteKeys *keys = kubus_run_site_keys_new ();
  if (keys != NULL
      && kubus_prof_merge_dir_keyed (dir, profile, "Kubus " KUBUS_VERSION, kubus_run_site_key,
                                     keys, &ranks, &world, skipped, sizeof skipped, err,
                                     sizeof err)
             != 0)
    fprintf (stderr, _ ("kubus-run: cannot write the profile: %s\n"), err);
  kubus_run_site_keys_free (keys);
  remove_dir (dir);
}

void
kubus_run_profile_finish (const char *expdir)
{
  g_autofree char *profile = g_build_filename (expdir, "profile.cube", NULL);
  merge_records (expdir, profile);
  merge_saved (expdir, profile);
  if (!g_file_test (profile, G_FILE_TEST_EXISTS))
    {
      fprintf (stderr,
               _ ("kubus-run: no profile was written to %s (did the program call "
                  "MPI_Init?)\n"),
               expdir);
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) report
      = cube_report_load (profile, CUBE_LOAD_EAGER, NULL, NULL, NULL, &error);
  if (report == NULL)
    {
      fprintf (stderr, _ ("kubus-run: the profile cannot be read: %s\n"), error->message);
      return;
    }
  const char *ranks = cube_report_get_attr (report, "kubus::profile_folded_ranks");
  if (ranks != NULL && g_ascii_strtoll (ranks, NULL, 10) > 0)
    fprintf (stderr,
             _ ("kubus-run: warning: on %s ranks the profile reached its limit of %s call "
                "paths per thread; %s calls on further call paths are counted under "
                "KUBUS_OVERFLOW (set KUBUS_PROFILE_PATHS to raise the limit)\n"),
             ranks, cube_report_get_attr (report, "kubus::profile_path_limit"),
             cube_report_get_attr (report, "kubus::profile_folded_visits"));
  guint mapped = 0, sites = 0;
  kubus_run_map_callsites (report, &mapped, &sites);
  /* the functions found on the stack: names, files and lines */
  SymbolsResolver *symbols = symbols_resolver_new ();
  guint            frames = symbols_name_report (report, symbols);
  symbols_resolver_free (symbols);
  if ((mapped > 0 || frames > 0) && !cube_report_write (report, profile, &error))
    fprintf (stderr, _ ("kubus-run: cannot add source lines to the profile: %s\n"),
             error->message);
}
