/* sim-identity.c — the error bar of every prediction. The identity simulation (an empty
 * hypothesis) of a trace must give the run back as it was; how far it misses on this trace, in
 * this mode and on this machine, is the error bar of every other prediction on the same trace.
 * kubus-sim measures it once per trace and mode and keeps the figure in the user's cache folder
 * ($XDG_CACHE_HOME/kubus/sim-identity/KEY.json): KEY hashes the trace's files (paths, sizes,
 * modification times), the mode, the clock repair setting, the launcher and the simulator's
 * version and sources (SIM_SOURCES_HASH, made at build time by sim-sources-hash.py), so a
 * changed trace or another simulator measures again. Experiments on read-only
 * media get an error bar too, and nothing is written beside the user's trace. */
#include "sim-private.h"
#include "sim-sources-hash.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static void
hash_file (GChecksum  *ck,
           const char *path)
{
  GStatBuf st;
  g_checksum_update (ck, (const guchar *) path, -1);
  if (g_stat (path, &st) == 0)
    {
      char b[96];
      g_snprintf (b, sizeof b, "|%lld|%lld|", (long long) st.st_size, (long long) st.st_mtime);
      g_checksum_update (ck, (const guchar *) b, -1);
    }
  g_checksum_update (ck, (const guchar *) "\n", 1);
}

static int
cmp_names (gconstpointer a,
           gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Every file of the archive: the anchor, the global definitions, the per-location files. */
static void
hash_archive (GChecksum  *ck,
              const char *anchor)
{
  g_autofree char *dir = g_path_get_dirname (anchor);
  g_autofree char *base = g_path_get_basename (anchor);
  g_autofree char *stem = g_str_has_suffix (base, ".otf2") ? g_strndup (base, strlen (base) - 5) : g_strdup (base);
  g_autofree char *def = g_strdup_printf ("%s/%s.def", dir, stem);
  g_autofree char *sub = g_build_filename (dir, stem, NULL);
  g_autoptr (GDir) d = g_dir_open (sub, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  hash_file (ck, anchor);
  hash_file (ck, def);
  while (d && (name = g_dir_read_name (d)))
    g_ptr_array_add (names, g_build_filename (sub, name, NULL));
  g_ptr_array_sort (names, cmp_names);
  for (guint i = 0; i < names->len; i++)
    hash_file (ck, names->pdata[i]);
}

char *
sim_identity_cache_path (const SimOptions *opt)
{
  return sim_identity_cache_path_for (opt, opt->offline);
}

char *
sim_identity_cache_path_for (const SimOptions *opt,
                             gboolean          offline)
{
  g_autoptr (GChecksum) ck = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *abs = NULL;
  const char *dir = g_getenv ("KUBUS_SIM_CACHE_DIR");
  g_autofree char *folder = NULL;
  g_autofree char *file = NULL;

  if (opt->kct)
    {
      abs = g_canonicalize_filename (opt->kct, NULL);
      hash_file (ck, abs);
    }
  else
    {
      abs = g_canonicalize_filename (opt->anchor, NULL);
      hash_archive (ck, abs);
    }
  g_checksum_update (ck, (const guchar *) (offline ? "offline" : "real-time"), -1);
  g_checksum_update (ck, (const guchar *) (opt->no_clock_repair ? "|raw" : "|repaired"), -1);
  g_checksum_update (ck, (const guchar *) "|", 1);
  if (!offline)
    {
      /* where the re-enactment runs decides how it performs */
      if (opt->launcher)
        g_checksum_update (ck, (const guchar *) opt->launcher, -1);
      for (guint i = 0; opt->launcher_argv && opt->launcher_argv[i]; i++)
        {
          g_checksum_update (ck, (const guchar *) opt->launcher_argv[i], -1);
          g_checksum_update (ck, (const guchar *) "\x1f", 1);
        }
    }
  g_checksum_update (ck, (const guchar *) "|" KUBUS_VERSION "|" SIM_SOURCES_HASH, -1);
  folder = dir && *dir ? g_strdup (dir) : g_build_filename (g_get_user_cache_dir (), "kubus", "sim-identity", NULL);
  file = g_strdup_printf ("%s.json", g_checksum_get_string (ck));
  return g_build_filename (folder, file, NULL);
}

gboolean
sim_identity_cache_load (const char *path,
                         double     *error_percent)
{
  g_autofree char *text = NULL;
  const char *key = "\"identity_error_percent\":";
  const char *p;
  char *end = NULL;
  double v;

  if (!path || !g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  p = strstr (text, key);
  if (!p)
    return FALSE;
  p += strlen (key);
  while (*p == ' ')
    p++;
  v = g_ascii_strtod (p, &end);
  if (end == p || !isfinite (v))
    return FALSE;
  *error_percent = v;
  return TRUE;
}

int
sim_identity_cache_rt_advised_against (const char *path)
{
  g_autofree char *text = NULL;
  const char *key = "\"real_time_advised_against\":";
  const char *p;

  if (!path || !g_file_get_contents (path, &text, NULL, NULL) || !(p = strstr (text, key)))
    return -1;
  p += strlen (key);
  while (*p == ' ')
    p++;
  return g_str_has_prefix (p, "true") ? 1 : g_str_has_prefix (p, "false") ? 0 : -1;
}

void
sim_identity_cache_store (const char *path,
                          const SimOptions *opt,
                          double      error_percent,
                          double      original_s,
                          double      predicted_s,
                          int         rt_advised_against)
{
  g_autofree char *dir = NULL;
  g_autoptr (GString) js = g_string_new (NULL);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = now ? g_date_time_format_iso8601 (now) : g_strdup ("");
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *trace = g_canonicalize_filename (opt->kct ? opt->kct : opt->anchor, NULL);

  if (!path || !isfinite (error_percent))
    return;
  dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    return;   /* no cache: the next simulation measures again */
  g_string_append (js, "{\n  \"trace\": \"");
  for (const char *c = trace; *c; c++)
    {
      if (*c == '"' || *c == '\\')
        g_string_append_c (js, '\\');
      if ((guchar) *c < 0x20)
        g_string_append_printf (js, "\\u%04x", (guchar) *c);
      else
        g_string_append_c (js, *c);
    }
  g_string_append_printf (js, "\",\n  \"mode\": \"%s\",\n  \"date\": \"%s\",\n", opt->offline ? "offline" : "real-time",
                          date);
  g_string_append_printf (js, "  \"original_runtime_after_init_s\": %s,\n", g_ascii_formatd (b, sizeof b, "%.9g", original_s));
  g_string_append_printf (js, "  \"predicted_runtime_after_init_s\": %s,\n", g_ascii_formatd (b, sizeof b, "%.9g", predicted_s));
  if (rt_advised_against >= 0)
    g_string_append_printf (js, "  \"real_time_advised_against\": %s,\n", rt_advised_against ? "true" : "false");
  g_string_append_printf (js, "  \"identity_error_percent\": %s\n}\n", g_ascii_formatd (b, sizeof b, "%.17g", error_percent));
  /* atomically: a concurrent simulation of the same trace reads the old file or the new one */
  g_file_set_contents (path, js->str, js->len, NULL);
}

gboolean
sim_hypothesis_is_identity (const Hypothesis *h)
{
  return h == NULL || h->rules->len == 0;
}

int
sim_significance (double change_percent,
                  gboolean have_identity,
                  double identity_percent)
{
  if (!have_identity || !isfinite (change_percent) || !isfinite (identity_percent))
    return -1;
  return fabs (change_percent) > fabs (identity_percent) ? 1 : 0;
}

/* Large messages move at the speed of the memory (one host) or the network; a machine whose
 * speed for them differs from launch to launch (the CI machine of 2026-11-29: whole runs of
 * plain MPI 4x slower than others, bench/sim/exchange-modes.sh) makes the re-enactment miss
 * through no fault of the model. Said where they took half as long again, over at least 8 calls;
 * not where they were faster (the copy floors of sim-replay.c give them the original's time). */
char *
sim_large_messages_note (guint64 calls,
                         double  ratio)
{
  if (calls < 8 || !isfinite (ratio) || ratio < 1.5)
    return NULL;
  return g_strdup_printf (_("Its large messages (1 MiB and more, %u calls) took %.1f× as long as in "
                            "the original run: the machine moved them at another speed this time (some machines "
                            "do from launch to launch; bench/sim/exchange-modes.sh measures it). Another "
                            "re-enactment may come closer."),
                          (guint) MIN (calls, G_MAXUINT), ratio);
}

double
sim_identity_goal (const SimHosts *h)
{
  return h->oversubscribed ? 5.0 : 2.0;
}

char *
sim_identity_advice (gboolean offline,
                     const SimHosts *h,
                     double   error_percent,
                     gboolean other_known,
                     double   other_percent,
                     gboolean rt_advised_against)
{
  double goal = sim_identity_goal (h);
  const char *why = h->oversubscribed ? _("the goal where ranks share cores") : _("the goal where every rank has a core");
  g_autofree char *mine = NULL, *other = NULL;

  if (!isfinite (error_percent) || fabs (error_percent) <= goal)
    return NULL;
  mine = sim_signed_figure (error_percent, 1, " %");
  other = sim_signed_figure (other_percent, 1, " %");
  if (other_known && isfinite (other_percent) && fabs (other_percent) < fabs (error_percent))
    return g_strdup_printf (offline ? _("On this trace the offline model misses the run as it was by %s (its "
                                        "identity error; %s is %.0f %%), the real-time re-enactment by %s: "
                                        "simulate without --offline.")
                                    : _("On this trace the real-time re-enactment misses the run as it was by %s "
                                        "(its identity error; %s is %.0f %%), the offline model by %s: "
                                        "simulate with --offline."),
                            mine, why, goal, other);
  if (other_known && isfinite (other_percent))
    /* the other mode does no better: both figures, and this mode as the closer */
    return g_strdup_printf (offline ? _("On this trace the offline model misses the run as it was by %s (its "
                                        "identity error; %s is %.0f %%), the real-time re-enactment by %s: "
                                        "the offline model is the closer of the two.")
                                    : _("On this trace the real-time re-enactment misses the run as it was by %s "
                                        "(its identity error; %s is %.0f %%), the offline model by %s: "
                                        "the real-time re-enactment is the closer of the two."),
                            mine, why, goal, other);
  if (offline && rt_advised_against)
    /* the real-time re-enactment is known to miss runs of this kind by more (sim_rt_advised_against):
     * naming it as the one to try sent users to the worse mode (LAMMPS at 4 ranks on 2 cores,
     * offline -7.2 % where real time misses such runs by up to +21 %) */
    return g_strdup_printf (_("On this trace the offline model misses the run as it was by %s (its identity "
                              "error; %s is %.0f %%). The real-time re-enactment misses runs like this one by more "
                              "(a simulation without --offline says why before it starts), so the offline model stays the closer: a "
                              "prediction smaller than this error is not significant."),
                            mine, why, goal);
  return g_strdup_printf (offline ? _("On this trace the offline model misses the run as it was by %s (its "
                                      "identity error; %s is %.0f %%). The real-time re-enactment may do better: "
                                      "an identity simulation without --offline measures it (an empty hypothesis "
                                      "file).")
                                  : _("On this trace the real-time re-enactment misses the run as it was by %s "
                                      "(its identity error; %s is %.0f %%). The offline model may do better: "
                                      "an identity simulation with --offline measures it in a fraction of the run's "
                                      "time (an empty hypothesis file)."),
                          mine, why, goal);
}
