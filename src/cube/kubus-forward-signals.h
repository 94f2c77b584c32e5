/* kubus-forward-signals.h — the signals that stop a Kubus program (SIGINT, SIGTERM, SIGHUP) and
 * passing them on to the MPI launcher it started (2026-11-29).
 *
 * kubus-run (src/collect) starts the user's mpirun; kubus-analyze and kubus-sim (src/core,
 * launch-mpi.c) start mpirun with themselves. A Cancel (the browser's, a batch system's, a
 * terminal's) must reach that launcher, which ends its ranks; the program itself stays to clean
 * up. One definition of the list and of the forwarding, here beside kubus-program.h, where every
 * program links it (forward_signals_dep in src/cube/meson.build; plain libc, no GLib):
 *
 *   KubusForward fw;
 *   kubus_forward_block (&fw);          // before the launcher starts: nothing is lost meanwhile
 *   pid = spawn (…, child_setup = kubus_forward_child_setup, …);
 *   kubus_forward_start (&fw, pid);     // from now on they reach the launcher
 *   waitpid (pid, …);
 *   sig = kubus_forward_stop (&fw);     // the first one received (0: none); still blocked
 *   …clean up…
 *   kubus_forward_unblock (&fw);        // the caller's mask again: a pending one acts now
 *
 * One launcher at a time per process (the handler keeps its pid in a static variable). A
 * terminal's Ctrl-C (sent by the kernel to the whole foreground process group) is counted as
 * received but not passed on: the launcher has it already. */
#pragma once

#include <signal.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KUBUS_STOP_SIGNALS_N 3

/* SIGINT, SIGTERM, SIGHUP */
extern const int kubus_stop_signals[KUBUS_STOP_SIGNALS_N];

/* Empties @set and adds the stop signals. */
void kubus_stop_signals_set (sigset_t *set);

typedef struct
{
  sigset_t         entry_mask;                    /* the caller's mask before kubus_forward_block */
  struct sigaction old[KUBUS_STOP_SIGNALS_N];     /* the handlers before kubus_forward_start */
  int              started;
} KubusForward;

/* Blocks the stop signals in the calling thread, remembering the mask it had. */
void kubus_forward_block     (KubusForward *fw);

/* For the launcher's process, between fork and exec (a GSpawnChildSetupFunc; @data unused):
 * the launcher gets SIGTERM when this process dies (even by SIGKILL), and the stop signals are
 * unblocked again. */
void kubus_forward_child_setup (void *data);

/* Passes every stop signal received from now on to @pid, and unblocks them: one received since
 * kubus_forward_block() goes to @pid now. */
void kubus_forward_start     (KubusForward *fw,
                              pid_t         pid);

/* Blocks the stop signals again and puts the handlers back. Returns the first stop signal
 * received since kubus_forward_start() (passed on or not), 0 if none. */
int  kubus_forward_stop      (KubusForward *fw);

/* The first stop signal received so far (0 if none); async-signal-safe. */
int  kubus_forward_received  (void);

/* Back to the mask of before kubus_forward_block(). */
void kubus_forward_unblock   (KubusForward *fw);

/* Makes this process the reaper of orphans among its descendants (PR_SET_CHILD_SUBREAPER): ranks
 * that outlive their launcher (one that a second signal made exit at once) become its children
 * instead of init's. Call before the launcher starts. */
void kubus_forward_adopt_orphans (void);

/* After the launcher was reaped: waits for every remaining child (the adopted ranks) to end,
 * sending SIGKILL to those still there after @grace_ms. Returns how many had to be killed. */
int  kubus_forward_reap_orphans  (int grace_ms);

#ifdef __cplusplus
}
#endif
