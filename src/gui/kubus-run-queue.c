/* kubus-run-queue.c — see kubus-run-queue.h. */
#include "kubus-run-queue.h"

struct _KubusRunQueue
{
  GObject    parent_instance;
  GPtrArray *runs;      /* of KubusRunner*, owned: finished, running, waiting */
  guint      history;
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (KubusRunQueue, kubus_run_queue, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

enum { RUN_STARTED, RUN_FINISHED, BUSY_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static GType
get_item_type (GListModel *model)
{
  (void) model;
  return KUBUS_TYPE_RUNNER;
}

static guint
get_n_items (GListModel *model)
{
  return KUBUS_RUN_QUEUE (model)->runs->len;
}

static gpointer
get_item (GListModel *model,
          guint       position)
{
  KubusRunQueue *self = KUBUS_RUN_QUEUE (model);

  return position < self->runs->len ? g_object_ref (self->runs->pdata[position]) : NULL;
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static guint
n_finished (KubusRunQueue *self)
{
  guint n = 0;

  while (n < self->runs->len && kubus_runner_is_finished (self->runs->pdata[n]))
    n++;
  return n;
}

static void
trim_history (KubusRunQueue *self)
{
  guint done = n_finished (self);

  if (done > self->history)
    {
      guint drop = done - self->history;
      g_ptr_array_remove_range (self->runs, 0, drop);
      g_list_model_items_changed (G_LIST_MODEL (self), 0, drop, 0);
    }
}

static void
start_next (KubusRunQueue *self)
{
  /* A runner that fails to start finishes from an idle, never inside this loop. */
  for (guint i = 0; i < self->runs->len; i++)
    {
      KubusRunner *r = self->runs->pdata[i];
      KubusRunnerState st = kubus_runner_get_state (r);

      if (st == KUBUS_RUNNER_RUNNING || st == KUBUS_RUNNER_CANCELLING)
        return;
      if (st == KUBUS_RUNNER_WAITING)
        {
          g_object_ref (r);
          kubus_runner_start (r);
          g_signal_emit (self, signals[RUN_STARTED], 0, r);
          g_object_unref (r);
          return;
        }
    }
}

static void
on_finished (KubusRunner   *runner,
             KubusRunQueue *self)
{
  guint pos, done;

  g_object_ref (runner);
  /* Finished runs move to the front (after the older finished ones). */
  if (g_ptr_array_find (self->runs, runner, &pos))
    {
      done = n_finished (self);
      if (pos >= done)
        {
          /* runs[0..done) finished and this one is at pos ≥ done: move it to done */
          g_ptr_array_steal_index (self->runs, pos);
          g_ptr_array_insert (self->runs, done, g_object_ref (runner));
          g_object_unref (runner);   /* the stolen reference */
          if (pos != done)
            g_list_model_items_changed (G_LIST_MODEL (self), done, pos - done + 1, pos - done + 1);
          else
            g_list_model_items_changed (G_LIST_MODEL (self), pos, 1, 1);
        }
    }
  g_signal_emit (self, signals[RUN_FINISHED], 0, runner);
  trim_history (self);
  start_next (self);
  if (kubus_run_queue_get_n_active (self) == 0)
    g_signal_emit (self, signals[BUSY_CHANGED], 0, FALSE);
  g_object_unref (runner);
}

void
kubus_run_queue_add (KubusRunQueue *self,
                     KubusRunner   *runner)
{
  gboolean was_idle;

  g_return_if_fail (KUBUS_IS_RUN_QUEUE (self));
  g_return_if_fail (KUBUS_IS_RUNNER (runner) && kubus_runner_get_state (runner) == KUBUS_RUNNER_WAITING);

  was_idle = kubus_run_queue_get_n_active (self) == 0;
  g_ptr_array_add (self->runs, g_object_ref (runner));
  g_signal_connect_object (runner, "finished", G_CALLBACK (on_finished), self, 0);
  g_list_model_items_changed (G_LIST_MODEL (self), self->runs->len - 1, 0, 1);
  if (was_idle)
    g_signal_emit (self, signals[BUSY_CHANGED], 0, TRUE);
  start_next (self);
}

KubusRunner *
kubus_run_queue_get_current (KubusRunQueue *self)
{
  g_return_val_if_fail (KUBUS_IS_RUN_QUEUE (self), NULL);
  for (guint i = 0; i < self->runs->len; i++)
    {
      KubusRunnerState st = kubus_runner_get_state (self->runs->pdata[i]);
      if (st == KUBUS_RUNNER_RUNNING || st == KUBUS_RUNNER_CANCELLING)
        return self->runs->pdata[i];
    }
  return NULL;
}

guint
kubus_run_queue_get_n_active (KubusRunQueue *self)
{
  g_return_val_if_fail (KUBUS_IS_RUN_QUEUE (self), 0);
  return self->runs->len - n_finished (self);
}

void
kubus_run_queue_clear_finished (KubusRunQueue *self)
{
  guint done;

  g_return_if_fail (KUBUS_IS_RUN_QUEUE (self));
  done = n_finished (self);
  if (done == 0)
    return;
  g_ptr_array_remove_range (self->runs, 0, done);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, done, 0);
}

void
kubus_run_queue_cancel_all (KubusRunQueue *self)
{
  g_autoptr (GPtrArray) active = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (KUBUS_IS_RUN_QUEUE (self));
  /* Waiting ones first, so that cancelling the running one starts none of them. */
  for (guint i = self->runs->len; i-- > 0;)
    if (!kubus_runner_is_finished (self->runs->pdata[i]))
      g_ptr_array_add (active, g_object_ref (self->runs->pdata[i]));
  for (guint i = 0; i < active->len; i++)
    kubus_runner_cancel (active->pdata[i]);
}

void
kubus_run_queue_kill_all (KubusRunQueue *self)
{
  g_return_if_fail (KUBUS_IS_RUN_QUEUE (self));
  for (guint i = 0; i < self->runs->len; i++)
    kubus_runner_kill_now (self->runs->pdata[i]);
}

void
kubus_run_queue_set_history (KubusRunQueue *self,
                             guint          n)
{
  g_return_if_fail (KUBUS_IS_RUN_QUEUE (self));
  self->history = n;
  trim_history (self);
}

KubusRunQueue *
kubus_run_queue_new (void)
{
  return g_object_new (KUBUS_TYPE_RUN_QUEUE, NULL);
}

static void
kubus_run_queue_dispose (GObject *object)
{
  KubusRunQueue *self = KUBUS_RUN_QUEUE (object);

  /* No run outlives the application. */
  if (self->runs != NULL)
    kubus_run_queue_kill_all (self);
  g_clear_pointer (&self->runs, g_ptr_array_unref);
  G_OBJECT_CLASS (kubus_run_queue_parent_class)->dispose (object);
}

static void
kubus_run_queue_class_init (KubusRunQueueClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = kubus_run_queue_dispose;

  signals[RUN_STARTED] = g_signal_new ("run-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                       NULL, NULL, NULL, G_TYPE_NONE, 1, KUBUS_TYPE_RUNNER);
  /* After the runner's own "finished" handlers, before the next run starts. */
  signals[RUN_FINISHED] = g_signal_new ("run-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, KUBUS_TYPE_RUNNER);
  /* TRUE when the first run is added to an idle queue, FALSE when the last one has finished. */
  signals[BUSY_CHANGED] = g_signal_new ("busy-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
}

static void
kubus_run_queue_init (KubusRunQueue *self)
{
  self->runs = g_ptr_array_new_with_free_func (g_object_unref);
  self->history = 10;
}
