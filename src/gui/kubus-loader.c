/* kubus-loader.c — see kubus-loader.h.
 *
 * Speed (issue #3: open to first paint within 1.2 × the time `kubus-cube info` needs):
 * - The worker thread does everything the main thread would otherwise do first with a fresh
 *   report: it warms the value cache (the metric roots' totals, the default metric's call-path
 *   totals and subtree rows: kubus_browser_warm), so the browser's first update on the main
 *   thread is cheap. Other metrics are read when the user expands or selects them.
 * - kubus_load_prefetch() starts reading a file before GTK is up; kubus_load_async() for the
 *   same file then waits for that read instead of starting a second one, so GTK start-up and
 *   window construction overlap with the load. */
#include <glib/gi18n.h>

#include "kubus-browser.h"
#include "kubus-loader.h"

/* ---- prefetch ------------------------------------------------------------------------------ */

typedef struct
{
  char         *path;        /* canonical */
  GMutex        lock;
  GCond         cond;
  gboolean      done;
  CubeReport   *report;
  GError       *error;
  int           permille;    /* atomic */
  GCancellable *cancellable;
} Prefetch;

static GMutex      prefetch_lock;
static GHashTable *prefetches;   /* canonical path → Prefetch*, not yet claimed */

static char *
canonical_path (const char *path)
{
  return g_canonicalize_filename (path, NULL);
}

static void
prefetch_free (Prefetch *p)
{
  g_free (p->path);
  g_clear_pointer (&p->report, cube_report_free);
  g_clear_error (&p->error);
  g_clear_object (&p->cancellable);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
  g_free (p);
}

/* The work a fresh report needs before it is shown: values the browser asks for at once. */
static void
warm_values (CubeReport *report)
{
  kubus_browser_warm (report);
}

static void
on_prefetch_progress (double   fraction,
                      gpointer user_data)
{
  Prefetch *p = user_data;

  g_atomic_int_set (&p->permille, (int) (1000 * CLAMP (fraction, 0, 1)));
}

static gpointer
prefetch_thread (gpointer data)
{
  Prefetch *p = data;
  GError *error = NULL;
  CubeReport *report = cube_report_load (p->path, CUBE_LOAD_DEFAULT, p->cancellable,
                                         on_prefetch_progress, p, &error);

  if (report != NULL)
    warm_values (report);
  g_mutex_lock (&p->lock);
  p->report = report;
  p->error = error;
  p->done = TRUE;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return NULL;
}

void
kubus_load_prefetch (const char *path)
{
  Prefetch *p;
  GThread *thread;

  g_return_if_fail (path != NULL);
  p = g_new0 (Prefetch, 1);
  p->path = canonical_path (path);
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  p->cancellable = g_cancellable_new ();

  g_mutex_lock (&prefetch_lock);
  if (prefetches == NULL)
    prefetches = g_hash_table_new (g_str_hash, g_str_equal);
  if (g_hash_table_contains (prefetches, p->path))
    {
      g_mutex_unlock (&prefetch_lock);
      prefetch_free (p);
      return;
    }
  thread = g_thread_try_new ("kubus-prefetch", prefetch_thread, p, NULL);
  if (thread == NULL)
    {
      /* No thread: the ordinary load will read the file. */
      g_mutex_unlock (&prefetch_lock);
      prefetch_free (p);
      return;
    }
  g_thread_unref (thread);   /* detached: the claimer (or nobody) frees p once done */
  g_hash_table_insert (prefetches, p->path, p);
  g_mutex_unlock (&prefetch_lock);
}

void
kubus_load_prefetch_cancel_all (void)
{
  GHashTableIter iter;
  gpointer p;

  g_mutex_lock (&prefetch_lock);
  if (prefetches != NULL)
    {
      g_hash_table_iter_init (&iter, prefetches);
      while (g_hash_table_iter_next (&iter, NULL, &p))
        g_cancellable_cancel (((Prefetch *) p)->cancellable);
    }
  g_mutex_unlock (&prefetch_lock);
}

/* Removes and returns the running prefetch of @path, or NULL. */
static Prefetch *
claim_prefetch (const char *path)
{
  g_autofree char *key = canonical_path (path);
  Prefetch *p = NULL;

  g_mutex_lock (&prefetch_lock);
  if (prefetches != NULL && g_hash_table_steal_extended (prefetches, key, NULL, (gpointer *) &p))
    {
      if (g_hash_table_size (prefetches) == 0)
        g_clear_pointer (&prefetches, g_hash_table_unref);
    }
  g_mutex_unlock (&prefetch_lock);
  return p;
}

/* ---- loading ------------------------------------------------------------------------------- */

typedef struct
{
  char *path;
  char *path_b;
  int   permille;   /* atomic: progress for the main thread to poll */
  double offset;    /* share of the whole job done before the current file */
  double scale;     /* share of the current file */
} LoadJob;

static void
load_job_free (gpointer data)
{
  LoadJob *job = data;

  g_free (job->path);
  g_free (job->path_b);
  g_free (job);
}

void
kubus_load_result_free (KubusLoadResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->report, cube_report_free);
  g_clear_pointer (&result->base, cube_report_free);
  g_free (result);
}

static void
set_progress (LoadJob *job,
              double   fraction)
{
  g_atomic_int_set (&job->permille, (int) (1000 * (job->offset + job->scale * CLAMP (fraction, 0, 1))));
}

static void
on_progress (double   fraction,
             gpointer user_data)
{
  set_progress (user_data, fraction);
}

/* Waits for a claimed prefetch, passing its progress on and its cancellation back. */
static CubeReport *
finish_prefetch (Prefetch     *p,
                 LoadJob      *job,
                 GCancellable *cancellable,
                 GError      **error)
{
  CubeReport *report;

  g_mutex_lock (&p->lock);
  while (!p->done)
    {
      if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
        g_cancellable_cancel (p->cancellable);
      g_cond_wait_until (&p->cond, &p->lock, g_get_monotonic_time () + 50 * G_TIME_SPAN_MILLISECOND);
      set_progress (job, g_atomic_int_get (&p->permille) / 1000.0);
    }
  g_mutex_unlock (&p->lock);
  report = g_steal_pointer (&p->report);
  if (report == NULL)
    g_propagate_error (error, g_steal_pointer (&p->error));
  prefetch_free (p);
  if (report != NULL && g_cancellable_set_error_if_cancelled (cancellable, error))
    g_clear_pointer (&report, cube_report_free);
  return report;
}

/* @warm: the report will be shown (or is A of a difference, whose totals the browser reads). */
static CubeReport *
load_one (LoadJob      *job,
          const char   *path,
          gboolean      warm,
          GCancellable *cancellable,
          GError      **error)
{
  Prefetch *p = claim_prefetch (path);
  CubeReport *report;

  if (p != NULL)
    return finish_prefetch (p, job, cancellable, error);
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      /* kubus_report_in_folder found no report in it: say what a folder should hold, not
       * "cannot read: Is a directory" (issue 24, item 15) */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   _("%s is a folder, not a report. Kubus opens the report of an experiment folder: its "
                     "analysis.cube (written by kubus-analyze), Scalasca's trace.cubex or summary.cubex, or "
                     "else its profile.cube (written by kubus-run) or profile.cubex (Score-P); this folder "
                     "holds none of them. Open a .cube, .cube.gz or .cubex file."),
                   path);
      return NULL;
    }
  report = cube_report_load (path, CUBE_LOAD_DEFAULT, cancellable, on_progress, job, error);
  if (report != NULL && warm)
    warm_values (report);
  return report;
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadJob *job = task_data;
  g_autoptr (KubusLoadResult) result = g_new0 (KubusLoadResult, 1);
  g_autoptr (CubeReport) a = NULL;
  g_autoptr (CubeReport) b = NULL;
  GError *error = NULL;

  (void) source_object;
  job->offset = 0;
  job->scale = job->path_b != NULL ? 0.45 : 1.0;
  a = load_one (job, job->path, TRUE, cancellable, &error);
  if (a == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (job->path_b == NULL)
    {
      result->report = g_steal_pointer (&a);
      g_task_return_pointer (task, g_steal_pointer (&result), (GDestroyNotify) kubus_load_result_free);
      return;
    }
  job->offset = 0.45;
  b = load_one (job, job->path_b, FALSE, cancellable, &error);
  if (b == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  g_atomic_int_set (&job->permille, 900);
  result->report = cube_algebra_diff (a, b, &error);
  if (result->report == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  warm_values (result->report);
  /* The difference's call tree is the union of both: what is not in it twice is common. */
  result->cnodes_a = a->cnodes->len;
  result->cnodes_b = b->cnodes->len;
  result->cnodes_common = a->cnodes->len + b->cnodes->len > result->report->cnodes->len
                          ? a->cnodes->len + b->cnodes->len - result->report->cnodes->len : 0;
  result->base = g_steal_pointer (&a);
  g_atomic_int_set (&job->permille, 1000);
  g_task_return_pointer (task, g_steal_pointer (&result), (GDestroyNotify) kubus_load_result_free);
}

GTask *
kubus_load_async (const char          *path,
                  const char          *path_b,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  LoadJob *job = g_new0 (LoadJob, 1);

  job->path = g_strdup (path);
  job->path_b = g_strdup (path_b);
  g_task_set_task_data (task, job, load_job_free);
  g_task_set_source_tag (task, kubus_load_async);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, load_thread);
  return task;   /* the caller holds a ref to poll progress */
}

double
kubus_load_get_progress (GTask *task)
{
  LoadJob *job = g_task_get_task_data (task);

  return g_atomic_int_get (&job->permille) / 1000.0;
}

KubusLoadResult *
kubus_load_finish (GAsyncResult  *result,
                   GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

GFile *
kubus_report_in_folder (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *report = NULL;

  if (path == NULL)
    return g_object_ref (file);
  /* the analysis has the wait states; the profile is what every measurement has */
  report = cube_report_in_folder (path);
  return strcmp (report, path) == 0 ? g_object_ref (file) : g_file_new_for_path (report);
}
