/* launch-mpi.h — starts a Kubus MPI program (kubus-analyze, kubus-sim) under mpirun with one
 * rank per traced rank, and owns what the user sees when it stops: the program's own messages
 * and exit status, never the launcher's "Primary job terminated normally…" banners.
 *
 * A program's main() does:
 *
 *   if (!launch_mpi_in_launcher () && n_ranks > 1)
 *     {
 *       LaunchMpi lm = { .program = "kubus-sim", .launcher = opt_mpirun, .n_ranks = n,
 *                        .argv = (const char *const *) saved_argv,
 *                        .env = (const char *const[]) { "KUBUS_SIM_RELAUNCHED=1", NULL } };
 *       int status = launch_mpi_run (&lm, &error);
 *       if (status >= 0)
 *         return status;          // the ranks have said everything; nothing to add
 *       … error: mpirun could not be started (fall back to --serial or report it)
 *     }
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char        *program;   /* "kubus-analyze": prefix of the launcher's own messages */
  const char        *launcher;  /* the user's launcher command line (--mpirun); NULL: "mpirun" */
  const char *const *launcher_argv; /* or the launcher as words (kubus-run's "-- mpirun --hostfile
                                 * H"); used instead of @launcher when set. "-n N" is added unless
                                 * it names the rank count itself (-n/-np/--np/-c N, the same N) */
  int                n_ranks;
  const char *const *argv;      /* this program's argv, NULL-terminated; argv[0] is replaced by
                                 * /proc/self/exe so the ranks run the same binary */
  const char *const *env;       /* "KEY=VALUE" set for the launcher and the ranks; may be NULL */
} LaunchMpi;

/* TRUE when this process is a rank that an MPI launcher started. */
gboolean launch_mpi_in_launcher (void);

/* The launcher's argv (NULL-terminated, free with g_strfreev): the launcher command split like
 * a shell would, "-n N", "--oversubscribe" for the default launcher, then the program. NULL and
 * @error when the launcher command cannot be parsed, or names a rank count other than N. */
char   **launch_mpi_build_argv (const LaunchMpi *lm,
                                GError         **error);

/* Runs the program under the launcher and waits for it. Standard output passes through; the
 * launcher's standard error passes through line by line except the banners it adds when a rank
 * exits non-zero, calls MPI_Abort or dies on a signal (for a signal, one line of ours replaces
 * them). SIGINT, SIGTERM, SIGHUP sent to this process reach the launcher, and the launcher gets
 * SIGTERM if this process dies. Returns the exit status for main(): 0, the ranks' non-zero
 * status, or 128 + N when a rank was killed by signal N; -1 and @error when the launcher
 * cannot be started at all. */
int      launch_mpi_run        (const LaunchMpi *lm,
                                GError         **error);

/* The stderr filter on its own (for tests): feed the launcher's standard error in pieces; what
 * the user should see is appended to @out. launch_mpi_filter_finish() flushes an unterminated
 * last line or block and returns the rank the launcher said died on a signal (-1 if none). */
typedef struct _LaunchMpiFilter LaunchMpiFilter;

LaunchMpiFilter *launch_mpi_filter_new    (void);
void             launch_mpi_filter_feed   (LaunchMpiFilter *f,
                                           const char      *data,
                                           gsize            len,
                                           GString         *out);
int              launch_mpi_filter_finish (LaunchMpiFilter *f,
                                           GString         *out);
void             launch_mpi_filter_free   (LaunchMpiFilter *f);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LaunchMpiFilter, launch_mpi_filter_free)

G_END_DECLS
