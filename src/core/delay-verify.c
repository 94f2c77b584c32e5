/* delay-verify.c — kubus-analyze --verify-causes N: does removing a blamed delay save the
 * time its costs promise?
 *
 * From the report just written: the N largest delay costs (short- plus long-term, all kinds)
 * per call path and rank, outside MPI calls (a hypothesis can only change computation) and
 * at least a hundredth of the largest. For
 * each, a hypothesis that removes the cause — `balance region NAME` when the function runs on
 * several ranks (an imbalance), `scale region NAME by 0` when only the blamed rank runs it
 * (extra work of one rank) — written to REPORT-causes/cause-K.hyp, and simulated with the
 * kubus-sim library (offline by default) next to an identity simulation of the same trace: the
 * saving is the identity's predicted run time minus the hypothesis's, so the model's own error
 * cancels; the waiting time the hypothesis removes is the identity's covered wait states minus
 * the hypothesis's. A cause whose removal saves much less waiting than its delay cost is
 * flagged: the wait moved elsewhere. Results: the table on standard error and
 * REPORT-causes/verify.json (the browser reads it). */
#include "delay-verify.h"
#include "remove-tree.h"
#include "sim-private.h"

#include <cube.h>
#include <errno.h>
#include <glib/gi18n.h>
#include <math.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

static const char *const delay_metrics[] = {
  "delay_latesender", "delay_latesender_longterm", "delay_latereceiver", "delay_latereceiver_longterm",
  "delay_barrier", "delay_barrier_longterm", "delay_n2n", "delay_n2n_longterm", "delay_12n",
  "delay_12n_longterm", "delay_n21", "delay_n21_longterm", NULL
};

/* The wait states the delay costs explain (each once: Late Sender holds its sub-patterns). */
static const char *const wait_metrics[] = {
  "mpi_latesender", "mpi_latereceiver", "mpi_barrier_wait", "mpi_wait_nxn", "mpi_latebroadcast",
  "mpi_earlyreduce", NULL
};

typedef struct
{
  const CubeCnode *cnode;
  int              rank;
  double           cost;
  double           cost_short;
  char            *callpath;
  char            *region;
  char            *rule;        /* the hypothesis */
  char            *hyp_path;
  char            *sim_dir;
  double           saved;       /* run time, seconds */
  double           wait_saved;  /* waiting time, seconds (all ranks) */
  gboolean         simulated;
  char            *error;
} Cause;

static void
cause_clear (Cause *c)
{
  g_free (c->callpath);
  g_free (c->region);
  g_free (c->rule);
  g_free (c->hyp_path);
  g_free (c->sim_dir);
  g_free (c->error);
}

static char *
cnode_path (const CubeCnode *c)
{
  if (!c)
    return g_strdup ("");
  g_autofree char *up = cnode_path (c->parent);
  return c->parent ? g_strconcat (up, "/", c->callee->name, NULL) : g_strdup (c->callee->name);
}

/* The sum of @names over every call path and location (the report's stored values). */
static gboolean
metric_total (CubeReport        *r,
              const char *const *names,
              double            *out,
              GError           **error)
{
  g_autofree double *row = g_new (double, MAX (r->locations->len, 1));
  *out = 0;
  for (guint k = 0; names[k]; k++)
    {
      CubeMetric *m = cube_report_find_metric (r, names[k]);
      if (!m)
        continue;
      for (guint c = 0; c < r->cnodes->len; c++)
        {
          if (!cube_report_get_row (r, m, r->cnodes->pdata[c], row, error))
            return FALSE;
          for (guint l = 0; l < r->locations->len; l++)
            *out += row[l];
        }
    }
  return TRUE;
}

/* A region name as a hypothesis word: bare when it is one, else quoted. */
static char *
hyp_name (const char *name)
{
  GString *s = g_string_new (NULL);
  gboolean bare = *name != '\0' && *name != '"' && *name != '#';
  for (const char *p = name; *p; p++)
    if (g_ascii_isspace (*p) || *p == '"' || *p == '#' || *p == '\\')
      bare = FALSE;
  if (bare)
    return g_string_free (g_string_append (s, name), FALSE);
  g_string_append_c (s, '"');
  for (const char *p = name; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (s, '\\');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

static gint
cause_cmp (gconstpointer a,
           gconstpointer b)
{
  const Cause *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return strcmp (x->callpath, y->callpath);
}

/* Whether @region is a frame above @cn (a rule on it also acts on @cn's computation) */
static gboolean
encloses (const char      *region,
          const CubeCnode *cn)
{
  for (const CubeCnode *p = cn->parent; p; p = p->parent)
    if (strcmp (p->callee->name, region) == 0)
      return TRUE;
  return FALSE;
}

/* The candidates, largest first; @n_mpi gets how many of the largest N lie in MPI calls,
 * @n_enclosing how many were left out because their function encloses a larger cause,
 * @n_enclosed how many because they lie inside a larger cause's function (its rule would
 * change them too): the causes verified never overlap, whichever order their costs have. */
static GArray *
find_causes (CubeReport *r,
             int         n,
             guint      *n_mpi,
             guint      *n_enclosing,
             guint      *n_enclosed,
             GError    **error)
{
  GArray *all = g_array_new (FALSE, TRUE, sizeof (Cause));
  guint nl = r->locations->len, nc = r->cnodes->len;
  g_autofree double *cost = g_new0 (double, (gsize) MAX (nl, 1) * MAX (nc, 1));
  g_autofree double *shrt = g_new0 (double, (gsize) MAX (nl, 1) * MAX (nc, 1));
  g_autofree double *row = g_new (double, MAX (nl, 1));
  g_autoptr (GHashTable) ranks_of = g_hash_table_new (g_str_hash, g_str_equal);   /* region -> bitmask count */
  CubeMetric *visits = cube_report_find_metric (r, "visits");
  GArray *out = g_array_new (FALSE, TRUE, sizeof (Cause));

  *n_mpi = *n_enclosing = *n_enclosed = 0;
  for (guint k = 0; delay_metrics[k]; k++)
    {
      CubeMetric *m = cube_report_find_metric (r, delay_metrics[k]);
      if (!m)
        continue;
      for (guint c = 0; c < nc; c++)
        {
          if (!cube_report_get_row (r, m, r->cnodes->pdata[c], row, error))
            goto fail;
          for (guint l = 0; l < nl; l++)
            {
              cost[(gsize) c * nl + l] += row[l];
              if (!g_str_has_suffix (delay_metrics[k], "_longterm"))
                shrt[(gsize) c * nl + l] += row[l];
            }
        }
    }
  /* on how many ranks each region runs */
  if (visits)
    {
      g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint c = 0; c < nc; c++)
        {
          const CubeCnode *cn = r->cnodes->pdata[c];
          if (!cube_report_get_row (r, visits, cn, row, error))
            goto fail;
          for (guint l = 0; l < nl; l++)
            if (row[l] > 0)
              {
                g_autofree char *key = g_strdup_printf ("%u\x1f%s", l, cn->callee->name);
                if (!g_hash_table_contains (seen, key))
                  {
                    g_hash_table_add (seen, g_steal_pointer (&key));
                    g_hash_table_insert (ranks_of, cn->callee->name,
                                         GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (ranks_of, cn->callee->name)) + 1));
                  }
              }
        }
    }
  for (guint c = 0; c < nc; c++)
    for (guint l = 0; l < nl; l++)
      if (cost[(gsize) c * nl + l] > 0)
        {
          const CubeCnode *cn = r->cnodes->pdata[c];
          const CubeSysNode *loc = r->locations->pdata[l];
          const CubeSysNode *proc = loc->parent;
          Cause x = { 0 };
          x.cnode = cn;
          x.rank = proc && proc->rank >= 0 ? (int) proc->rank : (int) l;
          x.cost = cost[(gsize) c * nl + l];
          x.cost_short = shrt[(gsize) c * nl + l];
          x.callpath = cnode_path (cn);
          x.region = g_strdup (cn->callee->name);
          g_array_append_val (all, x);
        }
  g_array_sort (all, cause_cmp);
  for (guint k = 0; k < all->len; k++)
    {
      Cause *x = &g_array_index (all, Cause, k);
      /* costs of a hundredth of the largest explain no wait worth a simulation (and their
       * rules, e.g. a balance of main's own few microseconds, would change much more) */
      if (out->len >= (guint) n || x->cost < 0.01 * g_array_index (all, Cause, 0).cost)
        {
          cause_clear (x);
          continue;
        }
      if (g_str_has_prefix (x->region, "MPI_"))
        {
          /* a delay in communication: no scale or balance rule can remove it */
          (*n_mpi)++;
          cause_clear (x);
          continue;
        }
      {
        /* e.g. main's own time in a code whose computation is known from the stack: its rule
         * would balance or remove the larger cause's computation too, not test this one */
        gboolean outer = FALSE;
        for (guint j = 0; j < out->len && !outer; j++)
          outer = encloses (x->region, g_array_index (out, Cause, j).cnode);
        if (outer)
          {
            (*n_enclosing)++;
            cause_clear (x);
            continue;
          }
        /* and inside a larger cause's function (main's own time first, then a function
         * main calls): the larger one's rule acts on this one's computation as well */
        for (guint j = 0; j < out->len && !outer; j++)
          outer = encloses (g_array_index (out, Cause, j).region, x->cnode);
        if (outer)
          {
            (*n_enclosed)++;
            cause_clear (x);
            continue;
          }
      }
      {
        g_autofree char *word = hyp_name (x->region);
        guint on = GPOINTER_TO_UINT (g_hash_table_lookup (ranks_of, x->region));
        x->rule = on > 1 ? g_strdup_printf ("balance region %s", word)
                         : g_strdup_printf ("scale region %s by 0", word);
      }
      g_array_append_val (out, *x);
    }
  g_array_unref (all);
  return out;

fail:
  for (guint k = 0; k < all->len; k++)
    cause_clear (&g_array_index (all, Cause, k));
  g_array_unref (all);
  g_array_unref (out);
  return NULL;
}

/* A number from kubus-sim's summary.json ("key": value); NAN when absent. */
static double
summary_number (const char *json,
                const char *key)
{
  g_autofree char *pat = g_strdup_printf ("\"%s\"\\s*:\\s*(-?[0-9.eE+-]+)", key);
  g_autoptr (GRegex) re = g_regex_new (pat, 0, 0, NULL);
  g_autoptr (GMatchInfo) mi = NULL;
  if (re && g_regex_match (re, json, 0, &mi))
    {
      g_autofree char *v = g_match_info_fetch (mi, 1);
      return g_ascii_strtod (v, NULL);
    }
  return NAN;
}

typedef struct
{
  double runtime;     /* predicted run time after MPI_Init, s */
  double waits;       /* covered wait states in the simulated trace's analysis, s */
} SimResult;

static gboolean
simulate (const VerifyOptions *vo,
          const char          *hyp,
          const char          *simdir,
          SimResult           *res,
          GError             **error)
{
  SimOptions opt = { 0 };
  g_autofree char *summary = g_build_filename (simdir, "summary.json", NULL);
  g_autofree char *cube = g_build_filename (simdir, "analysis.cube", NULL);
  g_autofree char *json = NULL;
  g_autoptr (CubeReport) r = NULL;
  char *argv[] = { (char *) "kubus-sim", NULL };
  int rc;

  opt.expdir = (char *) vo->expdir;
  opt.anchor = (char *) vo->anchor;
  opt.kct = (char *) vo->kct;
  opt.hypothesis = (char *) hyp;
  opt.simdir = (char *) simdir;
  opt.offline = TRUE;
  opt.quiet = TRUE;
  opt.no_clock_repair = vo->no_clock_repair;
  opt.argc = 1;
  opt.argv = argv;
  if (vo->real_time)
    {
      /* the real-time replay runs one MPI process per rank: kubus-sim starts them */
      g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *dir = self ? g_path_get_dirname (self) : g_strdup (".");
      g_autofree char *sim = g_build_filename (dir, "kubus-sim", NULL);
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_ptr_array_add (args, sim);
      g_ptr_array_add (args, (gpointer) (vo->expdir ? vo->expdir : vo->anchor));
      g_ptr_array_add (args, (gpointer) "--hypothesis");
      g_ptr_array_add (args, (gpointer) hyp);
      g_ptr_array_add (args, (gpointer) "-o");
      g_ptr_array_add (args, (gpointer) simdir);
      g_ptr_array_add (args, (gpointer) "-q");
      if (vo->no_clock_repair)
        g_ptr_array_add (args, (gpointer) "--no-clock-repair");
      if (vo->launcher)
        {
          /* the launcher the user gave kubus-analyze, not the default mpirun */
          g_ptr_array_add (args, (gpointer) "--mpirun");
          g_ptr_array_add (args, (gpointer) vo->launcher);
        }
      g_ptr_array_add (args, NULL);
      g_autofree char *err = NULL;
      int status = 0;
      if (!g_spawn_sync (NULL, (char **) args->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err, &status, error))
        return FALSE;
      rc = g_spawn_check_wait_status (status, NULL) ? 0 : 1;
      if (rc != 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", err && *err ? g_strstrip (err) : "kubus-sim failed");
          return FALSE;
        }
    }
  else
    {
      /* the library, in this process: the offline model needs no MPI */
      kubus_remove_tree (simdir);
      rc = sim_main (&opt);
      if (rc != 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("the simulation of %s failed (see above)"), hyp);
          return FALSE;
        }
    }
  if (!g_file_get_contents (summary, &json, NULL, error))
    return FALSE;
  res->runtime = summary_number (json, "predicted_runtime_after_init_s");
  if (!(res->runtime >= 0))
    res->runtime = summary_number (json, "predicted_runtime_s");
  r = cube_report_load (cube, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, error);
  if (!r)
    return FALSE;
  return metric_total (r, wait_metrics, &res->waits, error);
}

static void
json_str (GString    *s,
          const char *str)
{
  g_string_append_c (s, '"');
  for (const unsigned char *p = (const unsigned char *) str; *p; p++)
    if (*p == '"' || *p == '\\')
      g_string_append_printf (s, "\\%c", *p);
    else if (*p < 0x20)
      g_string_append_printf (s, "\\u%04x", *p);
    else
      g_string_append_c (s, (char) *p);
  g_string_append_c (s, '"');
}

char *
causes_verify_dir (const char *report)
{
  g_autofree char *dir = g_path_get_dirname (report);
  g_autofree char *base = g_path_get_basename (report);
  char *dot = strrchr (base, '.');
  if (dot && dot != base)
    *dot = '\0';
  {
    g_autofree char *name = g_strconcat (base, "-causes", NULL);
    return g_build_filename (dir, name, NULL);
  }
}

gboolean
causes_verify (const VerifyOptions *vo,
               GString             *out,
               GError             **error)
{
  g_autoptr (CubeReport) r = NULL;
  g_autoptr (GArray) causes = NULL;
  g_autofree char *dir = causes_verify_dir (vo->report);
  g_autofree char *ident_hyp = g_build_filename (dir, "identity.hyp", NULL);
  g_autofree char *ident_dir = g_build_filename (dir, "sim-identity", NULL);
  g_autofree char *json_path = g_build_filename (dir, "verify.json", NULL);
  g_autoptr (GString) js = g_string_new ("{\n");
  g_autoptr (GHashTable) done = g_hash_table_new (g_str_hash, g_str_equal);   /* rule -> Cause* */
  SimResult ident = { 0 };
  guint n_mpi = 0, n_enclosing = 0, n_enclosed = 0;
  gboolean ok = TRUE;

  r = cube_report_load (vo->report, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, error);
  if (!r)
    return FALSE;
  if (!cube_report_find_metric (r, "delay_latesender"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s has no delay costs (analysed with --no-root-cause?): nothing to verify"), vo->report);
      return FALSE;
    }
  causes = find_causes (r, vo->n, &n_mpi, &n_enclosing, &n_enclosed, error);
  if (!causes)
    return FALSE;
  g_clear_pointer (&r, cube_report_free);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), _("cannot create %s: %s"), dir,
                   g_strerror (errno));
      ok = FALSE;
      goto out;
    }
  g_string_append_printf (out, _("Verifying the %u largest delay costs by simulation (%s): %s\n"),
                          causes->len, vo->real_time ? _("real time") : _("offline model"), dir);
  if (n_mpi)
    g_string_append_printf (out, _("  (%u of the largest lie in MPI calls: communication, which no hypothesis "
                                   "of scale or balance removes)\n"), n_mpi);
  if (n_enclosing)
    g_string_append_printf (out, _("  (%u of the largest lie in a function that encloses a larger cause: its "
                                   "hypothesis would change that one too)\n"), n_enclosing);
  if (n_enclosed)
    g_string_append_printf (out, _("  (%u of the largest lie inside the function of a larger cause: its "
                                   "hypothesis changes them too)\n"), n_enclosed);
  if (causes->len == 0)
    {
      g_string_append (out, _("  no delay costs in computation: nothing to simulate\n"));
      goto write;
    }
  if (!g_file_set_contents (ident_hyp, "# the run as it was: the baseline of every saving\n", -1, error))
    {
      ok = FALSE;
      goto out;
    }
  if (vo->progress)
    vo->progress (0, causes->len + 1, _("simulating the run as it was"), vo->progress_data);
  if (!simulate (vo, ident_hyp, ident_dir, &ident, error))
    {
      ok = FALSE;
      goto out;
    }
  for (guint k = 0; k < causes->len; k++)
    {
      Cause *c = &g_array_index (causes, Cause, k);
      Cause *same = g_hash_table_lookup (done, c->rule);
      g_autofree char *name = g_strdup_printf ("cause-%u", k + 1);
      g_autofree char *file = g_strconcat (name, ".hyp", NULL);
      g_autofree char *sim = g_strconcat ("sim-", name, NULL);
      SimResult res = { 0 };
      GError *local = NULL;

      if (same)
        {
          /* the same rule as a larger cause: its simulation answers for both */
          c->hyp_path = g_strdup (same->hyp_path);
          c->sim_dir = g_strdup (same->sim_dir);
          c->saved = same->saved;
          c->wait_saved = same->wait_saved;
          c->simulated = same->simulated;
          c->error = g_strdup (same->error);
          continue;
        }
      c->hyp_path = g_build_filename (dir, file, NULL);
      c->sim_dir = g_build_filename (dir, sim, NULL);
      {
        g_autofree char *text = g_strdup_printf ("# kubus-analyze --verify-causes: removes the delay of %s on rank %d\n"
                                                 "# (delay costs %.6f s, of them short-term %.6f s)\n%s\n",
                                                 c->callpath, c->rank, c->cost, c->cost_short, c->rule);
        if (!g_file_set_contents (c->hyp_path, text, -1, error))
          {
            ok = FALSE;
            goto out;
          }
      }
      if (vo->progress)
        vo->progress (k + 1, causes->len + 1, c->rule, vo->progress_data);
      if (simulate (vo, c->hyp_path, c->sim_dir, &res, &local))
        {
          c->simulated = TRUE;
          c->saved = ident.runtime - res.runtime;
          c->wait_saved = ident.waits - res.waits;
        }
      else
        {
          c->error = g_strdup (local->message);
          g_error_free (local);
        }
      g_hash_table_insert (done, c->rule, c);
    }

  /* the table */
  g_string_append_printf (out, "  %-4s %-5s %12s %12s %12s  %s\n", "", _("rank"), _("delay cost"),
                          _("run time"), _("waiting"), _("cause, hypothesis"));
  g_string_append_printf (out, "  %-4s %-5s %12s %12s %12s\n", "", "", "", _("saved"), _("saved"));
  for (guint k = 0; k < causes->len; k++)
    {
      Cause *c = &g_array_index (causes, Cause, k);
      gboolean moved = c->simulated && c->wait_saved < 0.5 * c->cost;
      if (c->simulated)
        g_string_append_printf (out, "  %-4u %-5d %10.6f s %10.6f s %10.6f s  %s\n", k + 1, c->rank, c->cost,
                                c->saved, c->wait_saved, c->callpath);
      else
        g_string_append_printf (out, "  %-4u %-5d %10.6f s %12s %12s  %s\n", k + 1, c->rank, c->cost, "-", "-",
                                c->callpath);
      g_string_append_printf (out, "  %-4s %-5s %12s %12s %12s  %s  (%s)\n", "", "", "", "", "", c->rule,
                              c->hyp_path);
      if (!c->simulated)
        g_string_append_printf (out, _("        not simulated: %s\n"), c->error);
      else if (moved)
        g_string_append_printf (out, _("        flagged: removing it saves %.0f %% of the waiting it is blamed for; "
                                       "the wait moved elsewhere (see %s/difference.cube)\n"),
                                c->cost > 0 ? 100.0 * c->wait_saved / c->cost : 0.0, c->sim_dir);
    }

write:
  g_string_append (js, "  \"report\": ");
  json_str (js, vo->report);
  g_string_append_printf (js, ",\n  \"mode\": \"%s\",\n  \"mpi_causes_skipped\": %u,\n"
                          "  \"enclosing_causes_skipped\": %u,\n  \"enclosed_causes_skipped\": %u,\n",
                          vo->real_time ? "real-time" : "offline", n_mpi, n_enclosing, n_enclosed);
  g_string_append_printf (js, "  \"identity_runtime_s\": %.9g,\n  \"identity_waits_s\": %.9g,\n  \"causes\": [",
                          ident.runtime, ident.waits);
  for (guint k = 0; k < causes->len; k++)
    {
      Cause *c = &g_array_index (causes, Cause, k);
      g_string_append_printf (js, "%s\n    {\"callpath\": ", k ? "," : "");
      json_str (js, c->callpath);
      g_string_append_printf (js, ", \"rank\": %d, \"delay_cost_s\": %.9g, \"short_term_s\": %.9g, \"hypothesis\": ",
                              c->rank, c->cost, c->cost_short);
      json_str (js, c->rule);
      g_string_append (js, ", \"hypothesis_file\": ");
      json_str (js, c->hyp_path ? c->hyp_path : "");
      g_string_append (js, ", \"simulation\": ");
      json_str (js, c->sim_dir ? c->sim_dir : "");
      if (c->simulated)
        g_string_append_printf (js, ", \"runtime_saved_s\": %.9g, \"waiting_saved_s\": %.9g, \"moved\": %s}",
                                c->saved, c->wait_saved, c->wait_saved < 0.5 * c->cost ? "true" : "false");
      else
        {
          g_string_append (js, ", \"runtime_saved_s\": null, \"waiting_saved_s\": null, \"moved\": null, \"error\": ");
          json_str (js, c->error ? c->error : "");
          g_string_append (js, "}");
        }
    }
  g_string_append (js, causes->len ? "\n  ]\n}\n" : "]\n}\n");
  if (g_mkdir_with_parents (dir, 0755) != 0 || !g_file_set_contents (json_path, js->str, js->len, error))
    {
      if (error && !*error)
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("cannot write %s"), json_path);
      ok = FALSE;
    }
  else
    g_string_append_printf (out, _("Verification: %s\n"), json_path);

out:
  for (guint k = 0; k < causes->len; k++)
    cause_clear (&g_array_index (causes, Cause, k));
  return ok;
}
