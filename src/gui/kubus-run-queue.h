/* kubus-run-queue.h — the application's runs of Kubus tools, one at a time: MPI runs share the
 * machine's cores, and a measurement next to another run would measure the other run too.
 *
 * A GListModel of KubusRunner: the finished runs (the most recent few), the running one, then
 * the waiting ones in order. Signals: "run-started" (runner), "run-finished" (runner, after
 * the runner's own "finished" handlers, before the next run starts), "busy-changed" (TRUE
 * when a run is added to an idle queue, FALSE when the last one has ended). */
#pragma once

#include <gio/gio.h>

#include "kubus-runner.h"

G_BEGIN_DECLS

#define KUBUS_TYPE_RUN_QUEUE (kubus_run_queue_get_type ())
G_DECLARE_FINAL_TYPE (KubusRunQueue, kubus_run_queue, KUBUS, RUN_QUEUE, GObject)

KubusRunQueue *kubus_run_queue_new         (void);
/* Appends @runner (a reference is taken) and starts it when nothing else runs. */
void           kubus_run_queue_add         (KubusRunQueue *self,
                                            KubusRunner   *runner);
/* The running (or cancelling) run, or NULL. */
KubusRunner   *kubus_run_queue_get_current (KubusRunQueue *self);
/* Runs not finished yet (running or waiting). */
guint          kubus_run_queue_get_n_active (KubusRunQueue *self);
/* Forgets finished runs. */
void           kubus_run_queue_clear_finished (KubusRunQueue *self);
/* Cancels every waiting and running run. */
void           kubus_run_queue_cancel_all  (KubusRunQueue *self);
/* Ends every run now, blocking (application shutdown). */
void           kubus_run_queue_kill_all    (KubusRunQueue *self);
/* Finished runs kept in the model (default 10). */
void           kubus_run_queue_set_history (KubusRunQueue *self,
                                            guint          n);

G_END_DECLS
