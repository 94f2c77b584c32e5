/* kubus-metric-names.c — see kubus-metric-names.h. */
#include "kubus-metric-names.h"

#include <glib/gi18n.h>

#include "analyze-metrics.h"

typedef struct
{
  const char *uniq;
  const char *name;
  const char *descr;
} MetricText;

/* Scalasca's and Score-P's own wording of the metrics users meet most (their reports name some
 * metrics differently from kubus-analyze: "MPI Late Sender", "Synchronizations"). */
static const MetricText foreign[] = {
  { "time", N_("Time"), N_("Total CPU allocation time (includes time allocated for idle threads)") },
  { "execution", N_("Execution"), N_("Execution time (does not include time allocated for idle threads)") },
  { "mpi", N_("MPI"), N_("Time spent in MPI calls") },
  { "mpi_synchronization", N_("Synchronization"), N_("Time spent in MPI synchronization calls") },
  { "mpi_sync_collective", N_("Collective"), N_("Time spent in MPI barriers") },
  { "mpi_communication", N_("Communication"), N_("Time spent in MPI communication calls") },
  { "mpi_point2point", N_("Point-to-point"), N_("MPI point-to-point communication") },
  { "mpi_collective", N_("Collective"), N_("MPI collective communication") },
  { "mpi_io", N_("File I/O"), N_("Time spent in MPI file I/O calls") },
  { "mpi_io_collective", N_("Collective"), N_("Time spent in collective MPI file I/O calls") },
  { "mpi_init_exit", N_("Init/Exit"), N_("Time spent in MPI initialization calls") },
  { "omp_time", N_("OMP"), N_("Time spent in the OpenMP run-time system and API") },
  { "overhead", N_("Overhead"), N_("Time spent performing tasks related to trace generation") },
  { "omp_idle_threads", N_("Idle threads"), N_("Unused CPU reservation time") },
  { "visits", N_("Visits"), N_("Number of visits") },
  { "syncs", N_("Synchronizations"), N_("Number of synchronization operations") },
  { "comms", N_("Communications"), N_("Number of communication operations") },
  { "bytes", N_("Bytes transferred"), N_("Number of bytes transferred") },
  { "mpi_file_ops", N_("MPI file operations"), N_("Number of MPI file operations") },
  { "imbalance", N_("Computational imbalance"),
    N_("Computational load imbalance heuristic (see Online Description for details)") },
  { "min_time", N_("Minimum Inclusive Time"), N_("Minimum inclusive CPU allocation time") },
  { "max_time", N_("Maximum Inclusive Time"), N_("Maximum inclusive CPU allocation time") },
  { "mpi_init_completion", N_("MPI Initialization Completion"), N_("Time needed to finish MPI initialization") },
  { "mpi_finalize_wait", N_("MPI Wait at Finalize"), N_("Waiting time in front of MPI_Finalize") },
  { "mpi_barrier_wait", N_("MPI Wait at Barrier"), N_("Waiting time in front of MPI barriers") },
  { "mpi_barrier_completion", N_("MPI Barrier Completion"), N_("Time needed to finish MPI barriers") },
  { "mpi_latesender", N_("MPI Late Sender"), N_("Time in MPI point-to-point receive operation waiting for a message") },
  { "mpi_latesender_wo", N_("MPI Late Sender, wrong order"),
    N_("Late Sender situation due to MPI messages received in the wrong order") },
  { "mpi_latereceiver", N_("MPI Late Receiver"),
    N_("Time in MPI point-to-point send operation waiting for the receiver to become ready") },
  { "mpi_earlyreduce", N_("MPI Early Reduce"), N_("Waiting time due to an early receiver in MPI n-to-1 operations") },
  { "mpi_earlyscan", N_("MPI Early Scan"), N_("Waiting time due to an early receiver in an MPI scan operation") },
  { "mpi_latebroadcast", N_("MPI Late Broadcast"), N_("Waiting time due to a late sender in MPI 1-to-n operations") },
  { "mpi_wait_nxn", N_("MPI Wait at N x N"), N_("Time due to inherent synchronization in MPI n-to-n operations") },
  { "mpi_nxn_completion", N_("MPI N x N Completion"), N_("Time needed to finish an MPI n-to-n collective operation") },
  { "syncs_send", N_("MPI P2P send synchronizations"), N_("Number of MPI point-to-point send synchronization operations") },
  { "syncs_recv", N_("MPI P2P recv synchronizations"),
    N_("Number of MPI point-to-point receive synchronization operations") },
  { "syncs_coll", N_("MPI collective synchronizations"), N_("Number of MPI collective synchronization operations") },
  { "comms_send", N_("MPI P2P send communications"), N_("Number of MPI point-to-point send communication operations") },
  { "comms_recv", N_("MPI P2P recv communications"),
    N_("Number of MPI point-to-point receive communication operations") },
  { "bytes_sent", N_("MPI P2P bytes sent"), N_("Number of bytes sent in MPI point-to-point communication operations") },
  { "bytes_rcvd", N_("MPI P2P bytes received"),
    N_("Number of bytes received in MPI point-to-point communication operations") },
  { "bytes_cout", N_("MPI collective bytes outgoing"),
    N_("Number of bytes outgoing in MPI collective communication operations") },
  { "bytes_cin", N_("MPI collective bytes incoming"),
    N_("Number of bytes incoming in MPI collective communication operations") },
};

/* "uniq\nEnglish" → the English msgid, for names and for descriptions. */
static GHashTable *names, *descriptions;

static void
add (GHashTable *table,
     const char *uniq,
     const char *english)
{
  if (uniq != NULL && english != NULL)
    g_hash_table_insert (table, g_strconcat (uniq, "\n", english, NULL), (gpointer) english);
}

static void
ensure_tables (void)
{
  static gsize done = 0;

  if (!g_once_init_enter (&done))
    return;
  names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  descriptions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  /* the analyzer's own table first: it is what Kubus writes */
  for (guint i = 0; i < N_METRICS; i++)
    {
      add (names, analyze_metrics[i].uniq_name, analyze_metrics[i].disp_name);
      add (descriptions, analyze_metrics[i].uniq_name, analyze_metrics[i].descr);
    }
  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    {
      add (names, foreign[i].uniq, foreign[i].name);
      add (descriptions, foreign[i].uniq, foreign[i].descr);
    }
  g_once_init_leave (&done, 1);
}

static const char *
lookup (GHashTable **table,
        const char  *uniq,
        const char  *english)
{
  g_autofree char *key = NULL;
  const char *msgid;

  if (uniq == NULL || english == NULL)
    return english;
  ensure_tables ();
  key = g_strconcat (uniq, "\n", english, NULL);
  msgid = g_hash_table_lookup (*table, key);
  return msgid != NULL ? _(msgid) : english;
}

const char *
kubus_metric_name_for (const char *uniq,
                       const char *english)
{
  if (english == NULL || english[0] == '\0')
    return uniq != NULL ? uniq : "?";
  return lookup (&names, uniq, english);
}

const char *
kubus_metric_description_for (const char *uniq,
                              const char *english)
{
  return lookup (&descriptions, uniq, english);
}

const char *
kubus_metric_name (const CubeMetric *m)
{
  return kubus_metric_name_for (m->uniq_name, m->disp_name);
}

const char *
kubus_metric_description (const CubeMetric *m)
{
  return kubus_metric_description_for (m->uniq_name, m->descr);
}
