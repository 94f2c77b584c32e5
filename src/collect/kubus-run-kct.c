/* kubus-run-kct.c: the compressed trace of an aborted run (kubus-run-kct.h).
 *
 * At MPI_Finalize the ranks merge their compressed traces along a tree and rank 0 writes
 * traces.kct (collect-kct.c).  After an abort no collective can run: each rank that saves
 * writes its own part, .kubus-kct-RANK, with absolute times (collect-kct.c,
 * kubus_kct_save_alone).  Here, once every rank has ended, the parts are put on one time base
 * (the earliest first event of any part), a rank that left no part gets an empty stand-in, and
 * the merge and the final clean-up are those of the collector's own merge.
 */
#include "kubus-run-kct.h"
#include "kubus-run-handover.h"

#include "kct-format.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

static void
free_parts (KctTrace **parts,
            int        n)
{
  for (int r = 0; r < n; r++)
    kct_trace_free (parts[r]);
  g_free (parts);
}

/* Sum of the OTF2 archive's file sizes (the same as collect-kct.c's otf2_size). */
static guint64
otf2_size (const char *expdir)
{
  static const char *files[] = { "traces.otf2", "traces.def" };
  guint64 total = 0;
  GStatBuf st;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *p = g_build_filename (expdir, files[i], NULL);
      if (g_stat (p, &st) == 0)
        total += (guint64) st.st_size;
    }
  g_autofree char *dir = g_build_filename (expdir, "traces", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      if (name[0] != '.' && g_stat (p, &st) == 0 && S_ISREG (st.st_mode))
        total += (guint64) st.st_size;
    }
  return total;
}

/* A rank without a part: no events, no definitions, on the parts' time grid. */
static KctTrace *
stand_in (const KctTrace *like,
          int             rank)
{
  KctTrace *t = kct_trace_new ();
  if (t == NULL)
    return NULL;
  t->h.timer_resolution = like->h.timer_resolution;
  t->h.time_abs = like->h.time_abs;
  t->h.time_bits = like->h.time_bits;
  t->h.timelines = like->h.timelines;
  KctRank *r = kct_rank_new (t, (uint32_t) rank);
  int ok = r != NULL && kct_rank_end (r, 0, 0) == 0;
  kct_rank_free (r);
  if (!ok)
    {
      kct_trace_free (t);
      return NULL;
    }
  return t;
}

int
kubus_run_kct_mend (const char *expdir,
                    int         ranks,
                    int        *stand_ins,
                    GError    **error)
{
  g_autofree char *final = g_build_filename (expdir, "traces.kct", NULL);
  KctTrace **parts = NULL;
  int found = 0, missing = 0, world = 0;
  guint64 start = G_MAXUINT64, end = 0, realtime = 0;
  KctTrace *like = NULL;

  *stand_ins = 0;
  /* the parts there are: .kubus-kct-RANK (not the temporary files beside them) */
  {
    g_autoptr (GDir) d = g_dir_open (expdir, 0, NULL);
    g_autoptr (GArray) have = g_array_new (FALSE, FALSE, sizeof (int));
    const char *name;
    int n = MAX (ranks, 0);
    while (d && (name = g_dir_read_name (d)) != NULL)
      {
        char *tail = NULL;
        gint64 r;
        if (!g_str_has_prefix (name, ".kubus-kct-"))
          continue;
        r = g_ascii_strtoll (name + strlen (".kubus-kct-"), &tail, 10);
        /* (a rank number beyond any run's: not a part of ours) */
        if (tail == name + strlen (".kubus-kct-") || *tail != '\0' || r < 0 || r >= (1 << 24))
          continue;
        {
          int ri = (int) r;
          g_array_append_val (have, ri);
        }
        n = MAX (n, (int) r + 1);
      }
    if (have->len == 0)
      {
        kubus_run_kct_remove_parts (expdir);   /* temporary files of a part cut short */
        return 0;
      }
    parts = g_new0 (KctTrace *, n);
    for (guint k = 0; k < have->len; k++)
      {
        int r = g_array_index (have, int, k);
        g_autofree char *pname = g_strdup_printf (".kubus-kct-%d", r);
        g_autofree char *path = g_build_filename (expdir, pname, NULL);
        g_autofree char *buf = NULL;
        gsize len = 0;
        char err[256];
        g_autoptr (GError) e = NULL;

        if (!g_file_get_contents (path, &buf, &len, &e))
          {
            g_printerr (_ ("kubus-run: %s\n"), e->message);
            continue;
          }
        if (kct_decode ((const uint8_t *) buf, len, &parts[r], err, sizeof err) != 0)
          {
            g_printerr (_ ("kubus-run: %s: not a compressed trace part: %s\n"), path, err);
            parts[r] = NULL;
            continue;
          }
        if (parts[r]->h.n_ranks > (1u << 24))
          {
            g_printerr (_ ("kubus-run: %s: not a compressed trace part: %s\n"), path, "ranks");
            kct_trace_free (parts[r]);
            parts[r] = NULL;
            continue;
          }
        found++;
        /* each part knows the run's size */
        world = MAX (world, (int) parts[r]->h.n_ranks);
      }
    /* a part of a rank beyond the run's size (a stale file) is not this run's */
    world = MAX (world, 1);
    for (int r = world; r < n; r++)
      if (parts[r])
        {
          kct_trace_free (parts[r]);
          parts[r] = NULL;
          found--;
        }
    if (world > n)
      {
        parts = g_renew (KctTrace *, parts, world);
        memset (parts + n, 0, sizeof (KctTrace *) * (gsize) (world - n));
      }
    ranks = world;
  }
  if (found == 0 || g_file_test (final, G_FILE_TEST_EXISTS))
    {
      /* no abort, or the collector's own merge ran after all */
      free_parts (parts, ranks);
      kubus_run_kct_remove_parts (expdir);
      return 0;
    }

  /* one time base: the earliest first event of any part (each part's times are absolute) */
  for (int r = 0; r < ranks; r++)
    {
      KctTrace *p = parts[r];
      if (!p)
        continue;
      like = like ? like : p;
      for (guint32 g = 0; g < p->n_groups; g++)
        for (guint32 k = 0; k < p->groups[g].n_tl; k++)
          if (p->groups[g].tl[k].start > 0 && p->groups[g].tl[k].start < start)
            {
              start = p->groups[g].tl[k].start;
              realtime = p->h.realtime_start;
            }
      end = MAX (end, p->h.global_start + p->h.length);
    }
  if (start == G_MAXUINT64)
    start = 0;
  for (int r = 0; r < ranks; r++)
    {
      KctTrace *p = parts[r];
      if (!p)
        {
          p = parts[r] = stand_in (like, r);
          missing++;
          if (!p)
            {
              free_parts (parts, ranks);
              g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                           _ ("out of memory while merging the compressed trace in %s"), expdir);
              return -1;
            }
        }
      for (guint32 g = 0; g < p->n_groups; g++)
        for (guint32 k = 0; k < p->groups[g].n_tl; k++)
          {
            KctTimeline *tl = &p->groups[g].tl[k];
            tl->start = tl->start > start ? tl->start - start : 0;
          }
      p->h.global_start = start;
      p->h.length = end > start ? end - start : 0;
      p->h.realtime_start = 0;
    }

  /* the collector's merge: rank 0 takes the others in turn */
  KctTrace *all = parts[0];
  int rc = 0;
  for (int r = 1; r < ranks && rc == 0; r++)
    rc = kct_merge (all, parts[r]);
  all->h.n_ranks = (guint32) ranks;
  all->h.global_start = start;
  all->h.length = end > start ? end - start : 0;
  all->h.realtime_start = realtime;
  all->h.otf2_bytes = g_file_test (expdir, G_FILE_TEST_IS_DIR) ? otf2_size (expdir) : 0;
  guint8 *buf = NULL;
  size_t len = 0;
  if (rc == 0)
    rc = kct_finish (all) != 0 || kct_encode (all, &buf, &len) != 0 ? -1 : 0;
  free_parts (parts, ranks);
  if (rc != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                   _ ("out of memory while merging the compressed trace in %s"), expdir);
      return -1;
    }
  /* g_file_set_contents: a temporary file and a rename */
  if (!g_file_set_contents (final, (const char *) buf, (gssize) len, error))
    {
      free (buf);
      return -1;
    }
  free (buf);
  kubus_run_kct_remove_parts (expdir);
  *stand_ins = missing;
  return found;
}

void
kubus_run_kct_remove_parts (const char *expdir)
{
  kubus_run_remove_prefixed (expdir, ".kubus-kct-");
}
