/* kubus-trace — compressed traces (.kct).
 *
 *   kubus-trace info [--calls] [--check EXPDIR] FILE.kct|EXPDIR
 *   kubus-trace expand FILE.kct|EXPDIR -o DIR [--force]
 *   kubus-trace compress EXPDIR|TRACE.otf2 [-o OUT.kct] [--force]
 *   kubus-trace extrapolate A.kct B.kct [C.kct…] --ranks N [--dims AxB…] -o OUT.kct [--force]
 *
 * Option parsing only; the work is in kct-*.c. */
#include "kct.h"
#include "experiment-files.h"
#include "kubus-program.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <string.h>

static void
usage (FILE *out)
{
  fprintf (out, "%s",
           _ ("Usage: kubus-trace info [--calls] [--check EXPDIR] [FILE.kct|EXPDIR]\n"
              "       kubus-trace expand FILE.kct|EXPDIR -o DIR [--force]\n"
              "       kubus-trace compress EXPDIR|TRACE.otf2 [-o OUT.kct] [--force]\n"
              "                   [--time-error 1us,0.0015%] [--timelines N]\n"
              "       kubus-trace extrapolate A.kct B.kct [C.kct ...] --ranks N [--dims AxB] "
              "-o OUT.kct [--force]\n"
              "\n"
              "  info         ranks, events, loops, size, compression ratio and timing error\n"
              "               bound; --check EXPDIR compares it with the OTF2 trace of the same\n"
              "               run (times per event, analyses per metric)\n"
              "  expand       write the OTF2 trace the compressed trace stands for\n"
              "  compress     compress an OTF2 trace recorded before (default output: "
              "EXPDIR/traces.kct)\n"
              "  extrapolate  a trace at N ranks from traces of the same program at fewer "
              "ranks\n"));
}

static int
fail (GError *error)
{
  fprintf (stderr, "kubus-trace: %s\n", error->message);
  g_error_free (error);
  return 1;
}

static guint64
file_size (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) == 0 ? (guint64)st.st_size : 0;
}

static OTF2_ErrorCode
quiet_otf2 (void *u, const char *f, uint64_t l, const char *fn, OTF2_ErrorCode c, const char *m,
            va_list ap)
{
  (void)u;
  (void)f;
  (void)l;
  (void)fn;
  (void)m;
  (void)ap;
  return c;
}

/* "4x2x3" -> dims; FALSE when malformed */
static gboolean
parse_dims (const char *s, guint32 *dims, guint *n)
{
  g_auto (GStrv) parts = g_strsplit (s, "x", -1);
  *n = 0;
  for (int i = 0; parts[i] != NULL; i++)
    {
      guint64 v;
      if (*n == 16 || !g_ascii_string_to_unsigned (parts[i], 10, 1, G_MAXUINT32, &v, NULL))
        return FALSE;
      dims[(*n)++] = (guint32)v;
    }
  return *n > 0;
}

/* The compressed trace an argument names: FILE.kct itself, or an experiment folder's traces.kct.
 * An OTF2 trace, or a folder with only one, gets an error that says how to compress it. */
static char *
kct_input (const char *arg,
           GError    **error)
{
  if (g_file_test (arg, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *kct = g_build_filename (arg, "traces.kct", NULL);
      g_autofree char *otf2 = g_build_filename (arg, "traces.otf2", NULL);

      g_autofree char *why = NULL;

      if (g_file_test (kct, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&kct);
      if ((why = kubus_experiment_why_no_trace (arg, "traces.kct")) != NULL)
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: %s", arg, why);
      else if (g_file_test (otf2, G_FILE_TEST_EXISTS))
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                     _ ("%s holds an OTF2 trace and no compressed one (traces.kct): “kubus-trace compress %s” "
                        "makes it"),
                     arg, arg);
      else
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                     _ ("%s is a folder without a compressed trace (traces.kct)"), arg);
      return NULL;
    }
  if (g_str_has_suffix (arg, ".otf2") && g_file_test (arg, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _ ("%s is an OTF2 trace, not a compressed one: “kubus-trace compress %s” makes a compressed "
                      "trace of it"),
                   arg, arg);
      return NULL;
    }
  return g_strdup (arg);
}

int
main (int argc, char **argv)
{
  kubus_program_init ("kubus-trace");
  OTF2_Error_RegisterCallback (quiet_otf2, NULL);

  if (argc < 2 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "--help") == 0)
    {
      usage (argc < 2 ? stderr : stdout);
      if (argc >= 2)
        kubus_program_print_common_options (stdout);
      return argc < 2 ? 2 : 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    return kubus_program_print_version ();
  const char *cmd = argv[1];
  g_autoptr (GPtrArray) files = g_ptr_array_new ();
  const char *out = NULL, *dims_arg = NULL, *check = NULL;
  gboolean    force = FALSE, calls = FALSE;
  guint64     ranks = 0;
  KctTimeSettings ts = { 0, 0, 0 };
  for (int i = 2; i < argc; i++)
    {
      const char *a = argv[i];
      if ((strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0) && i + 1 < argc)
        out = argv[++i];
      else if (strcmp (a, "--force") == 0 || strcmp (a, "-f") == 0)
        force = TRUE;
      else if (strcmp (a, "--calls") == 0)
        calls = TRUE;
      else if (strcmp (a, "--ranks") == 0 && i + 1 < argc)
        {
          if (!g_ascii_string_to_unsigned (argv[++i], 10, 1, 1u << 24, &ranks, NULL))
            {
              fprintf (stderr, _ ("kubus-trace: --ranks '%s' is not a rank count\n"), argv[i]);
              return 2;
            }
        }
      else if (strcmp (a, "--dims") == 0 && i + 1 < argc)
        dims_arg = argv[++i];
      else if (strcmp (a, "--check") == 0 && i + 1 < argc)
        check = argv[++i];
      else if (strcmp (a, "--time-error") == 0 && i + 1 < argc)
        {
          if (!kct_parse_time_settings (argv[++i], &ts))
            {
              fprintf (stderr,
                       _ ("kubus-trace: --time-error '%s' is not like 1us,0.0015%% (a time from "
                          "1ns to 1s, a share of at most 12.5%%)\n"),
                       argv[i]);
              return 2;
            }
        }
      else if (strcmp (a, "--timelines") == 0 && i + 1 < argc)
        {
          guint64 v;
          if (!g_ascii_string_to_unsigned (argv[++i], 10, 1, KCT_TIMELINES_MAX, &v, NULL))
            {
              fprintf (stderr, _ ("kubus-trace: --timelines '%s' is not a number of ranks from 1 to %u\n"),
                       argv[i], KCT_TIMELINES_MAX);
              return 2;
            }
          ts.timelines = (guint32)v;
        }
      else if (a[0] == '-' && a[1] != '\0')
        {
          fprintf (stderr, _ ("kubus-trace: unknown option '%s' (or missing value)\n"), a);
          usage (stderr);
          return 2;
        }
      else
        g_ptr_array_add (files, (gpointer)a);
    }

  if (out != NULL && *out == '\0')
    {
      fprintf (stderr, _ ("%s: the output name given with -o is empty\n"), "kubus-trace");
      return 2;
    }
  GError *error = NULL;
  if (strcmp (cmd, "info") == 0 && (files->len == 1 || (files->len == 0 && check != NULL)))
    {
      /* --check EXPDIR alone: its traces.kct */
      g_autofree char *path = kct_input (files->len == 1 ? files->pdata[0] : check, &error);
      KctTrace *t = path != NULL ? kct_load (path, &error) : NULL;
      if (t == NULL)
        return fail (error);
      g_autofree char *text = kct_info_text (t, path, file_size (path), calls);
      fputs (text, stdout);
      fflush (stdout);
      gboolean ok = TRUE;
      if (check != NULL)
        {
          GString *report = g_string_new (NULL);
          ok = kct_check (t, path, check, report, &error);
          fputs (report->str, stdout);
          g_string_free (report, TRUE);
        }
      kct_trace_free (t);
      return ok ? 0 : fail (error);
    }
  if (strcmp (cmd, "expand") == 0 && files->len == 1 && out != NULL)
    {
      g_autofree char *path = kct_input (files->pdata[0], &error);
      KctTrace *t = path != NULL ? kct_load (path, &error) : NULL;
      if (t == NULL)
        return fail (error);
      gboolean ok = kct_expand (t, out, force, &error);
      kct_trace_free (t);
      return ok ? 0 : fail (error);
    }
  if (strcmp (cmd, "compress") == 0 && files->len == 1)
    {
      const char      *in = files->pdata[0];
      g_autofree char *anchor = g_file_test (in, G_FILE_TEST_IS_DIR)
                                    ? g_build_filename (in, "traces.otf2", NULL)
                                    : g_strdup (in);
      g_autofree char *dir = g_path_get_dirname (anchor);
      g_autofree char *target = out ? g_strdup (out) : g_build_filename (dir, "traces.kct", NULL);
      if (g_file_test (target, G_FILE_TEST_EXISTS) && !force)
        {
          fprintf (stderr, _ ("kubus-trace: %s exists already; use --force to replace it\n"),
                   target);
          return 1;
        }
      guint64   skipped = 0;
      KctTrace *t = kct_compress_otf2 (anchor, &ts, &skipped, &error);
      if (t == NULL)
        return fail (error);
      if (skipped > 0)
        fprintf (stderr,
                 _ ("kubus-trace: warning: %llu events of kinds compressed traces do not hold "
                    "(metrics, parameters, ...) were left out\n"),
                 (unsigned long long)skipped);
      gboolean ok = kct_save (t, target, &error);
      kct_trace_free (t);
      return ok ? 0 : fail (error);
    }
  if (strcmp (cmd, "extrapolate") == 0 && files->len >= 2 && out != NULL && ranks > 0)
    {
      guint32 dims[16];
      guint   n_dims = 0;
      if (dims_arg != NULL && !parse_dims (dims_arg, dims, &n_dims))
        {
          fprintf (stderr, _ ("kubus-trace: --dims '%s' is not a grid like 8x4\n"), dims_arg);
          return 2;
        }
      if (g_file_test (out, G_FILE_TEST_EXISTS) && !force)
        {
          fprintf (stderr, _ ("kubus-trace: %s exists already; use --force to replace it\n"), out);
          return 1;
        }
      g_autofree KctTrace **in = g_new0 (KctTrace *, files->len);
      gboolean              ok = TRUE;
      for (guint i = 0; i < files->len && ok; i++)
        {
          g_autofree char *path = kct_input (files->pdata[i], &error);
          ok = path != NULL && (in[i] = kct_load (path, &error)) != NULL;
        }
      KctTrace *t = ok ? kct_extrapolate (in, files->len, (guint32)ranks, dims, n_dims, &error)
                       : NULL;
      for (guint i = 0; i < files->len; i++)
        kct_trace_free (in[i]);
      ok = t != NULL && kct_save (t, out, &error);
      kct_trace_free (t);
      return ok ? 0 : fail (error);
    }
  fprintf (stderr, _ ("kubus-trace: wrong arguments for '%s'\n"), cmd);
  usage (stderr);
  return 2;
}
