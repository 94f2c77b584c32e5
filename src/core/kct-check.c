/* kct-check.c: kubus-trace info --check EXPDIR — a compressed trace against the OTF2 trace of
 * the same run (kubus-run --trace-format=both).
 *
 * Times: every event of every rank that keeps its own times is compared with the same event
 * of the OTF2 trace (the sequences are the same, event by event); reported are the largest and
 * the mean error and how many events lie outside the bound the file states.  The calls inside
 * a run of unsuccessful polls are not compared (the run keeps its start, end, number of calls
 * and time inside them; the calls are spread evenly).  Ranks that replay their group's mean
 * are reported apart.  Analyses: kubus-analyze runs on both (in a temporary folder); the
 * report compares every time metric over the whole run and at every call path that holds at
 * least 1 % of the time. */
#include "kct.h"

#include <cube.h>
#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* ---- events of the OTF2 trace ------------------------------------------------------------ */

typedef struct
{
  guint64 time;
  guint8  type;
} Ev;

static void
observe (guint32 rank, guint64 time, const KctRaw *ev, gpointer data)
{
  GPtrArray *per_rank = data;
  if (rank >= per_rank->len)
    return;
  Ev e = { time, ev->type };
  g_array_append_val ((GArray *)per_rank->pdata[rank], e);
}

static const char *
type_name (guint8 type)
{
  static const char *names[] = { "?",        "Enter",    "Leave",           "MpiSend",
                                 "MpiRecv",  "MpiIsend", "MpiIsendComplete", "MpiIrecvRequest",
                                 "MpiIrecv", "MpiRequestCancelled", "MpiCollectiveBegin",
                                 "MpiCollectiveEnd", "ProgramBegin", "ProgramEnd",
                                 "NonBlockingCollectiveRequest",
                                 "NonBlockingCollectiveComplete" };
  return type < G_N_ELEMENTS (names) ? names[type] : "?";
}

typedef struct
{
  guint64 compared, skipped_polls, outside, ranks_own, ranks_mean, ranks_differ;
  guint64 own_differ;       /* ranks with a timeline of their own whose events differ */
  guint32 first_own_differ;
  double  largest, sum;
  guint32 largest_rank;
  guint64 largest_index;
  guint8  largest_type;
  double  mean_largest, mean_sum; /* ranks replaying their group's mean */
  guint64 mean_compared;
} TimeStats;

/* one rank: its replayed events against the recorded ones */
static gboolean
compare_rank (const KctTrace *t, const KctComms *comms, guint32 rank, const GArray *rec,
              TimeStats *st, GError **error)
{
  const KctGroup *g = NULL;
  for (uint32_t i = 0; i < t->n_groups && g == NULL; i++)
    if (kct_list_contains_sorted (&t->groups[i].ranks, rank))
      g = &t->groups[i];
  const KctTimeline *tl = g != NULL ? kct_group_timeline (g, rank) : NULL;
  gboolean           own = tl != NULL && tl->rank == rank;
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (KctEvent));
  KctReplay *it = kct_replay_new (t, comms, rank);
  KctEvent   ev;
  int        rc;
  while ((rc = kct_replay_next (it, &ev)) == 1)
    g_array_append_val (got, ev);
  if (rc < 0)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_CORRUPT, _ ("the compressed trace is inconsistent: %s"),
                   kct_replay_error (it));
      kct_replay_free (it);
      return FALSE;
    }
  kct_replay_free (it);
  if (own)
    st->ranks_own++;
  else
    st->ranks_mean++;
  gboolean same = got->len == rec->len;
  for (guint i = 0; same && i < got->len; i++)
    same = g_array_index (got, KctEvent, i).type == g_array_index (rec, Ev, i).type;
  if (!same)
    {
      /* a mean's poll runs may have other lengths than the rank's own; a rank replaying its
       * own timeline has the recorded events, each of them, in the same run */
      st->ranks_differ++;
      if (own && st->own_differ++ == 0)
        st->first_own_differ = rank;
      return TRUE;
    }
  /* the calls inside a run of polls (Enter and Leave of a test or probe with nothing
   * between, the same region again and again): only the run's first Enter and last Leave */
  g_autofree gboolean *skip = g_new0 (gboolean, got->len + 1);
  for (guint i = 0; i + 1 < got->len; i++)
    {
      const KctEvent *a = &g_array_index (got, KctEvent, i);
      if (a->type != KCT_RAW_ENTER || a->region >= t->n_regions
          || !(t->regions[a->region].flags & KCT_REGION_POLL))
        continue;
      guint j = i;
      while (j + 1 < got->len && g_array_index (got, KctEvent, j).type == KCT_RAW_ENTER
             && g_array_index (got, KctEvent, j).region == a->region
             && g_array_index (got, KctEvent, j + 1).type == KCT_RAW_LEAVE)
        j += 2;
      for (guint k = i + 1; j > i + 2 && k + 1 < j; k++)
        skip[k] = TRUE;
      if (j > i)
        i = j - 1;
    }
  double   res = t->h.timer_resolution ? (double)t->h.timer_resolution : 1e9;
  double   s_prev = -1;
  guint64  x_prev = 0;
  for (guint i = 0; i < got->len; i++)
    {
      if (skip[i])
        {
          st->skipped_polls++;
          continue;
        }
      double s = (double)g_array_index (got, KctEvent, i).time;
      double x = (double)g_array_index (rec, Ev, i).time;
      double err = fabs (s - x);
      if (own)
        {
          st->compared++;
          st->sum += err;
          if (err > st->largest)
            {
              st->largest = err;
              st->largest_rank = rank;
              st->largest_index = i;
              st->largest_type = g_array_index (got, KctEvent, i).type;
            }
          /* the bound: against the time stored before (a time before it takes its place) */
          if (s_prev >= 0 && (guint64)x != x_prev)
            {
              double bound = fmax ((double)t->h.time_abs,
                                   ldexp (fmax (0, x - s_prev), 1 - (int)t->h.time_bits));
              if (err > bound + 0.5 && !(x < s_prev && s == s_prev))
                st->outside++;
            }
        }
      else
        {
          st->mean_compared++;
          st->mean_sum += err;
          st->mean_largest = fmax (st->mean_largest, err);
        }
      if (s_prev < 0 || (guint64)x != x_prev)
        s_prev = s;
      x_prev = (guint64)x;
    }
  (void)res;
  return TRUE;
}

/* ---- the analyses ------------------------------------------------------------------------ */

static char *
find_analyze (GError **error)
{
  const char *env = g_getenv ("KUBUS_ANALYZE_PROGRAM");
  if (env != NULL && *env != '\0')
    return g_strdup (env);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);
      g_autofree char *p = g_build_filename (dir, "kubus-analyze", NULL);
      if (g_file_test (p, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&p);
    }
  char *found = g_find_program_in_path ("kubus-analyze");
  if (found == NULL)
    g_set_error (error, KCT_ERROR, KCT_ERROR_FILE,
                 _ ("kubus-analyze was not found next to kubus-trace or in PATH (or set "
                    "KUBUS_ANALYZE_PROGRAM)"));
  return found;
}

/* In one process up to 64 ranks (the same results, without starting an MPI job), else one
 * analysis rank per traced rank. */
static CubeReport *
analyze (const char *prog, const char *input, const char *out, guint32 ranks, GError **error)
{
  const char *argv[] = { prog, "-q", input, "-o", out, ranks <= 64 ? "--serial" : NULL, NULL };
  g_autofree char *err = NULL;
  int              status = 0;
  if (!g_spawn_sync (NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                     &status, error))
    return NULL;
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("kubus-analyze %s failed: %s"), input,
                   err ? g_strstrip (err) : "");
      return NULL;
    }
  return cube_report_load (out, CUBE_LOAD_EAGER, NULL, NULL, NULL, error);
}

/* "main/MPI_Recv": a call path by its regions, to match the two reports' trees */
static char *
path_of (const CubeCnode *c)
{
  GString *s = g_string_new (NULL);
  for (; c != NULL; c = c->parent)
    {
      g_string_prepend (s, c->callee && c->callee->name ? c->callee->name : "?");
      if (c->parent != NULL)
        g_string_prepend_c (s, '/');
    }
  return g_string_free (s, FALSE);
}

static gboolean
is_time (const CubeMetric *m)
{
  return m->uom != NULL && strcmp (m->uom, "sec") == 0 && cube_metric_has_data (m);
}

static gboolean
compare_reports (CubeReport *o, CubeReport *k, GString *out, GError **error)
{
  guint   nm = o->metrics->len;
  double *oi = g_new0 (double, nm), *ki = g_new0 (double, k->metrics->len);
  gboolean ok = cube_values_metrics (o, oi, NULL, error) && cube_values_metrics (k, ki, NULL, error);
  if (!ok)
    {
      g_free (oi);
      g_free (ki);
      return FALSE;
    }
  CubeMetric *time_m = cube_report_find_metric (o, "time");
  double      total = time_m ? oi[time_m->index] : 0;
  g_string_append (out, _ ("analyses (kubus-analyze), all call paths and ranks, in seconds:\n"));
  g_string_append_printf (out, "  %-44s %14s %14s %11s\n", _ ("metric"), _ ("OTF2"),
                          _ ("compressed"), _ ("difference"));
  for (guint i = 0; i < nm; i++)
    {
      const CubeMetric *m = o->metrics->pdata[i];
      const CubeMetric *km = cube_report_find_metric (k, m->uniq_name);
      double            a = oi[i], b = km ? ki[km->index] : 0;
      if (!is_time (m) || (a == 0 && b == 0))
        continue;
      g_autofree char *name = g_strdup_printf ("%s (%s)", m->disp_name, m->uniq_name);
      if (a != 0)
        g_string_append_printf (out, "  %-44s %14.6f %14.6f %+10.2f %%\n", name, a, b,
                                100 * (b - a) / fabs (a));
      else
        g_string_append_printf (out, "  %-44s %14.6f %14.6f %11s\n", name, a, b, "-");
    }
  /* per call path holding >= 1 % of the time */
  GHashTable *kpath = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint c = 0; c < k->cnodes->len; c++)
    g_hash_table_insert (kpath, path_of (k->cnodes->pdata[c]), GUINT_TO_POINTER (c + 1));
  double *orow = g_new0 (double, o->locations->len + 1), *krow = g_new0 (double, k->locations->len + 1);
  double  worst_rel = 0, worst_abs = 0;
  guint   n_paths = 0;
  g_autofree char *worst_where = NULL;
  for (guint c = 0; c < o->cnodes->len && ok && time_m != NULL; c++)
    {
      const CubeCnode *cn = o->cnodes->pdata[c];
      ok = cube_report_get_row (o, time_m, cn, orow, error);
      double t = 0;
      for (guint l = 0; l < o->locations->len; l++)
        t += orow[l];
      if (!ok || t < 0.01 * total)
        continue;
      n_paths++;
      g_autofree char *path = path_of (cn);
      guint            kc = GPOINTER_TO_UINT (g_hash_table_lookup (kpath, path));
      for (guint i = 0; i < nm && ok; i++)
        {
          const CubeMetric *m = o->metrics->pdata[i];
          const CubeMetric *km = cube_report_find_metric (k, m->uniq_name);
          if (!is_time (m))
            continue;
          double a = 0, b = 0;
          ok = cube_report_get_row (o, m, cn, orow, error)
               && (km == NULL || kc == 0 || cube_report_get_row (k, km, k->cnodes->pdata[kc - 1], krow, error));
          for (guint l = 0; l < o->locations->len; l++)
            a += orow[l];
          for (guint l = 0; km != NULL && kc != 0 && l < k->locations->len; l++)
            b += krow[l];
          double d = fabs (b - a);
          worst_abs = fmax (worst_abs, d);
          /* relative to the value, for values that are not negligible (0.1 % of the run) */
          if (fabs (a) >= 1e-3 * total && d / fabs (a) > worst_rel)
            {
              worst_rel = d / fabs (a);
              g_free (worst_where);
              worst_where = g_strdup_printf ("%s, %s", m->disp_name, path);
            }
        }
    }
  if (ok)
    {
      g_string_append_printf (out, _ ("call paths holding at least 1 %% of the time: %u\n"), n_paths);
      g_string_append_printf (out, _ ("largest difference there: %.2f %% (%s); largest in seconds: %.6f\n"),
                              100 * worst_rel, worst_where ? worst_where : "-", worst_abs);
    }
  g_free (orow);
  g_free (krow);
  g_hash_table_unref (kpath);
  g_free (oi);
  g_free (ki);
  return ok;
}

/* ---- the whole ----------------------------------------------------------------------------- */

gboolean
kct_check (const KctTrace *t, const char *kct_path, const char *expdir, GString *out, GError **error)
{
  g_autofree char *anchor = g_build_filename (expdir, "traces.otf2", NULL);
  if (!g_file_test (anchor, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE,
                   _ ("%s: no OTF2 trace to check against (record with kubus-run "
                      "--trace-format=both)"),
                   expdir);
      return FALSE;
    }
  g_autoptr (GPtrArray) per_rank = g_ptr_array_new_with_free_func ((GDestroyNotify)g_array_unref);
  for (guint32 r = 0; r < t->h.n_ranks; r++)
    g_ptr_array_add (per_rank, g_array_new (FALSE, FALSE, sizeof (Ev)));
  guint32 otf2_ranks = 0;
  if (!kct_otf2_events (anchor, observe, per_rank, &otf2_ranks, error))
    return FALSE;
  /* the comparison means something only for the same run: as many ranks, and the same events
   * where a rank replays its own timeline (an unrelated run gave figures and exit status 0) */
  if (otf2_ranks != t->h.n_ranks)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("%s holds %u ranks, %s %u: not the same run"), anchor,
                   otf2_ranks, kct_path, t->h.n_ranks);
      return FALSE;
    }
  KctComms *comms = kct_comms_open (t, error);
  if (comms == NULL)
    return FALSE;
  TimeStats st;
  memset (&st, 0, sizeof st);
  gboolean ok = TRUE;
  for (guint32 r = 0; r < t->h.n_ranks && ok; r++)
    ok = compare_rank (t, comms, r, per_rank->pdata[r], &st, error);
  kct_comms_free (comms);
  if (!ok)
    return FALSE;
  if (st.own_differ > 0 || (t->h.n_ranks > 0 && st.ranks_differ == t->h.n_ranks))
    {
      if (st.own_differ > 0)
        g_set_error (error, KCT_ERROR, KCT_ERROR_FILE,
                     _ ("the events of rank %u (and of %llu ranks in all) differ between %s and %s: not the "
                        "same run"),
                     st.first_own_differ, (unsigned long long)st.own_differ, kct_path, anchor);
      else
        g_set_error (error, KCT_ERROR, KCT_ERROR_FILE,
                     _ ("the events of every rank differ between %s and %s: not the same run"), kct_path,
                     anchor);
      return FALSE;
    }
  double res = t->h.timer_resolution ? (double)t->h.timer_resolution : 1e9;
  g_string_append_printf (out, _ ("check against: %s\n"), anchor);
  g_string_append_printf (out, _ ("ranks with times of their own: %llu, replaying their group's mean: %llu\n"),
                          (unsigned long long)st.ranks_own, (unsigned long long)st.ranks_mean);
  if (st.ranks_differ > 0)
    g_string_append_printf (out, _ ("ranks whose events differ from the OTF2 trace's: %llu\n"),
                            (unsigned long long)st.ranks_differ);
  g_string_append_printf (out, _ ("events compared: %llu (inside runs of polls, not compared: %llu)\n"),
                          (unsigned long long)st.compared, (unsigned long long)st.skipped_polls);
  g_autofree char *largest = kct_duration_text (st.largest / res);
  g_autofree char *mean = kct_duration_text (st.compared ? st.sum / (double)st.compared / res : 0);
  g_string_append_printf (out, _ ("largest time error: %s (%.9f s; rank %u, event %llu, %s)\n"), largest,
                          st.largest / res, st.largest_rank, (unsigned long long)st.largest_index,
                          type_name (st.largest_type));
  g_string_append_printf (out, _ ("mean time error: %s\n"), mean);
  g_string_append_printf (out, _ ("events outside the bound: %llu\n"), (unsigned long long)st.outside);
  if (st.mean_compared > 0)
    {
      g_autofree char *ml = kct_duration_text (st.mean_largest / res);
      g_string_append_printf (out, _ ("ranks replaying their group's mean: largest time error %s\n"), ml);
    }
  KctExpandStats xs;
  if (!kct_expand_check (t, &xs, error))
    return FALSE;
  g_autofree char *moved = kct_duration_text ((double)xs.largest_move / res);
  g_string_append_printf (out, _ ("receives the expansion moves to their send: %llu (by up to %s)\n"),
                          (unsigned long long)xs.receives_moved, moved);

  g_autofree char *prog = find_analyze (error);
  if (prog == NULL)
    return FALSE;
  g_autoptr (GError) local = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("kubus-check-XXXXXX", &local);
  if (tmp == NULL)
    {
      g_set_error (error, KCT_ERROR, KCT_ERROR_FILE, _ ("cannot create a temporary directory: %s"),
                   local->message);
      return FALSE;
    }
  g_autofree char *o_cube = g_build_filename (tmp, "otf2.cube", NULL);
  g_autofree char *k_cube = g_build_filename (tmp, "kct.cube", NULL);
  CubeReport *o = analyze (prog, anchor, o_cube, t->h.n_ranks, error);
  CubeReport *k = o ? analyze (prog, kct_path, k_cube, t->h.n_ranks, error) : NULL;
  ok = o != NULL && k != NULL && compare_reports (o, k, out, error);
  if (o != NULL)
    cube_report_free (o);
  if (k != NULL)
    cube_report_free (k);
  kct_remove_temporary (tmp);
  return ok;
}
