/* kubus-loader.c — see kubus-loader.h. */
#include <glib/gi18n.h>

#include "kubus-loader.h"

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
on_progress (double   fraction,
             gpointer user_data)
{
  LoadJob *job = user_data;

  g_atomic_int_set (&job->permille, (int) (1000 * (job->offset + job->scale * CLAMP (fraction, 0, 1))));
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
  a = cube_report_load (job->path, CUBE_LOAD_DEFAULT, cancellable, on_progress, job, &error);
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
  b = cube_report_load (job->path_b, CUBE_LOAD_DEFAULT, cancellable, on_progress, job, &error);
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
