/* analyze-metrics.c — metric table. Order is depth-first, parents before children, so the
 * report writer can add them in table order. Names follow PATTERNS.md exactly. */
#include "analyze-metrics.h"

#include <glib/gi18n.h>

#define T METRIC_UNIT_TIME
#define C METRIC_UNIT_COUNT
#define B METRIC_UNIT_BYTES

/* The wait-state entries leave the last field, group, at METRIC_GROUP_WAIT (0). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const MetricDef analyze_metrics[N_METRICS] = {
  { M_TIME, -1, "time", "Time", T, FALSE, "Total time: sum of (leave - enter) of each visit" },
  { M_EXECUTION, M_TIME, "execution", "Execution", T, FALSE, "Execution time (all of time)" },
  { M_COMP, M_EXECUTION, "comp", "Computation", T, FALSE, "Time outside MPI" },
  { M_MPI, M_EXECUTION, "mpi", "MPI", T, FALSE, "Time in MPI functions" },
  { M_MANAGEMENT, M_MPI, "mpi_management", "Management", T, FALSE, "MPI management" },
  { M_INIT_EXIT, M_MANAGEMENT, "mpi_init_exit", "Init/Finalize", T, FALSE, "MPI_Init and MPI_Finalize" },
  { M_INIT_COMPLETION, M_INIT_EXIT, "mpi_init_completion", "Initialization Completion", T, TRUE,
    "Time in MPI_Init after the first rank has left it" },
  { M_FINALIZE_WAIT, M_INIT_EXIT, "mpi_finalize_wait", "Wait at Finalize", T, TRUE,
    "Time in MPI_Finalize waiting for the last rank to enter it" },
  { M_MGMT_COMM, M_MANAGEMENT, "mpi_mgmt_comm", "Communicator", T, FALSE,
    "Communicator, group and topology management" },
  { M_SYNCHRONIZATION, M_MPI, "mpi_synchronization", "Synchronization", T, FALSE, "MPI synchronization" },
  { M_SYNC_COLLECTIVE, M_SYNCHRONIZATION, "mpi_sync_collective", "Collective", T, FALSE, "MPI_Barrier" },
  { M_BARRIER_WAIT, M_SYNC_COLLECTIVE, "mpi_barrier_wait", "Wait at Barrier", T, TRUE,
    "Time in MPI_Barrier waiting for the last rank to enter it" },
  { M_BARRIER_COMPLETION, M_SYNC_COLLECTIVE, "mpi_barrier_completion", "Barrier Completion", T, TRUE,
    "Time in MPI_Barrier after the first rank has left it" },
  { M_COMMUNICATION, M_MPI, "mpi_communication", "Communication", T, FALSE, "MPI communication" },
  { M_POINT2POINT, M_COMMUNICATION, "mpi_point2point", "Point-to-point", T, FALSE,
    "Sends, receives, MPI_Wait* and MPI_Test*" },
  { M_LATESENDER, M_POINT2POINT, "mpi_latesender", "Late Sender", T, TRUE,
    "A receive waits for a send that has not started" },
  { M_LATESENDER_WO, M_LATESENDER, "mpi_latesender_wo", "Messages in Wrong Order", T, TRUE,
    "Late Sender while an earlier sent message was still unreceived" },
  { M_LSWO_DIFFERENT, M_LATESENDER_WO, "mpi_lswo_different", "From different sources", T, TRUE,
    "Wrong order, messages from different sources" },
  { M_LSWO_SAME, M_LATESENDER_WO, "mpi_lswo_same", "From same source", T, TRUE,
    "Wrong order, messages from the same source" },
  { M_LS_WF_NW, M_LATESENDER, "mpi_ls_wavefront_nw", "Wavefront from north-west", T, TRUE,
    "Late Sender at a pipeline refill of a wavefront from the north-west corner" },
  { M_LS_WF_SW, M_LATESENDER, "mpi_ls_wavefront_sw", "Wavefront from south-west", T, TRUE,
    "Late Sender at a pipeline refill of a wavefront from the south-west corner" },
  { M_LS_WF_NE, M_LATESENDER, "mpi_ls_wavefront_ne", "Wavefront from north-east", T, TRUE,
    "Late Sender at a pipeline refill of a wavefront from the north-east corner" },
  { M_LS_WF_SE, M_LATESENDER, "mpi_ls_wavefront_se", "Wavefront from south-east", T, TRUE,
    "Late Sender at a pipeline refill of a wavefront from the south-east corner" },
  { M_LATERECEIVER, M_POINT2POINT, "mpi_latereceiver", "Late Receiver", T, TRUE,
    "A blocking send waits for its receiver" },
  { M_COLLECTIVE, M_COMMUNICATION, "mpi_collective", "Collective", T, FALSE,
    "Every collective but the barrier" },
  { M_EARLYREDUCE, M_COLLECTIVE, "mpi_earlyreduce", "Early Reduce", T, TRUE,
    "Root of a reduction waits for the first sender" },
  { M_EARLYSCAN, M_COLLECTIVE, "mpi_earlyscan", "Early Scan", T, TRUE,
    "A scan waits for lower ranks" },
  { M_LATEBROADCAST, M_COLLECTIVE, "mpi_latebroadcast", "Late Broadcast", T, TRUE,
    "Non-root ranks wait for the root of a broadcast" },
  { M_WAIT_NXN, M_COLLECTIVE, "mpi_wait_nxn", "Wait at N x N", T, TRUE,
    "Time in an N x N collective waiting for the last rank" },
  { M_NXN_COMPLETION, M_COLLECTIVE, "mpi_nxn_completion", "N x N Completion", T, TRUE,
    "Time in an N x N collective after the first rank has left it" },
  { M_VISITS, -1, "visits", "Visits", C, FALSE, "Number of visits" },
  { M_SYNCS, -1, "syncs", "MPI synchronizations", C, FALSE, "Zero-byte MPI operations" },
  { M_SYNCS_SEND, M_SYNCS, "syncs_send", "Send synchronizations", C, FALSE, "Zero-byte sends" },
  { M_SYNCS_RECV, M_SYNCS, "syncs_recv", "Receive synchronizations", C, FALSE, "Zero-byte receives" },
  { M_SYNCS_COLL, M_SYNCS, "syncs_coll", "Collective synchronizations", C, FALSE,
    "Collectives that move no data" },
  { M_COMMS, -1, "comms", "MPI communications", C, FALSE, "Data-carrying MPI operations" },
  { M_COMMS_SEND, M_COMMS, "comms_send", "Sends", C, FALSE, "Sends with data" },
  { M_COMMS_RECV, M_COMMS, "comms_recv", "Receives", C, FALSE, "Receives with data" },
  { M_COMMS_CXCH, M_COMMS, "comms_cxch", "Collective exchanges", C, FALSE,
    "Collectives that send and receive data" },
  { M_COMMS_CSRC, M_COMMS, "comms_csrc", "Collective sources", C, FALSE, "Collectives that only send data" },
  { M_COMMS_CDST, M_COMMS, "comms_cdst", "Collective destinations", C, FALSE,
    "Collectives that only receive data" },
  { M_BYTES, -1, "bytes", "MPI bytes transferred", B, FALSE, "Bytes moved by MPI" },
  { M_BYTES_SENT, M_BYTES, "bytes_sent", "Bytes sent", B, FALSE, "Point-to-point bytes sent" },
  { M_BYTES_RCVD, M_BYTES, "bytes_rcvd", "Bytes received", B, FALSE, "Point-to-point bytes received" },
  { M_BYTES_COUT, M_BYTES, "bytes_cout", "Collective bytes outgoing", B, FALSE, "Collective bytes sent" },
  { M_BYTES_CIN, M_BYTES, "bytes_cin", "Collective bytes incoming", B, FALSE, "Collective bytes received" },

  /* Root causes and the critical path: Scalasca's scout names, units, places in the metric tree
   * (roots, as in scout's report) and descriptions; PATTERNS.md documents the definitions.
   * Display names and descriptions are translated where they are shown, never in a report. */
  { M_CRITICAL_PATH, -1, "critical_path", N_("Critical path profile"), T, FALSE,
    N_("Profile of the application's critical path"), METRIC_GROUP_CRITICAL_PATH },
  { M_CP_ACTIVITIES, -1, "critical_path_activities", N_("Activity impact"), T, FALSE,
    N_("Resource consumption of activities on the critical path"), METRIC_GROUP_CRITICAL_PATH },
  { M_CP_IMBALANCE, -1, "critical_imbalance_impact", N_("Critical-path imbalance impact"), T, FALSE,
    N_("Performance impact of load imbalance on the critical path"), METRIC_GROUP_CRITICAL_PATH },
  { M_CP_INTER_PARTITION, M_CP_IMBALANCE, "inter_partition_imbalance", N_("Inter-partition imbalance"), T, FALSE,
    N_("Performance impact of load imbalance between process partitions that perform different activities"),
    METRIC_GROUP_CRITICAL_PATH },
  { M_CP_NON_CRITICAL, -1, "non_critical_path_activities", N_("Non-critical-path activities"), T, FALSE,
    N_("Overall resource consumption of activities that are not on the critical path"),
    METRIC_GROUP_CRITICAL_PATH },
  { M_DELAY_LS, -1, "delay_latesender", N_("MPI short-term Late Sender delay costs"), T, FALSE,
    N_("Delays that directly cause MPI Late Sender wait states"), METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_LS_LT, -1, "delay_latesender_longterm", N_("MPI long-term Late Sender delay costs"), T, FALSE,
    N_("Delays that indirectly cause MPI Late Sender wait states through wait-state propagation"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_LR, -1, "delay_latereceiver", N_("MPI short-term Late Receiver delay costs"), T, FALSE,
    N_("Delays that directly cause MPI Late Receiver wait states"), METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_LR_LT, -1, "delay_latereceiver_longterm", N_("MPI long-term Late Receiver delay costs"), T, FALSE,
    N_("Delays that indirectly cause MPI Late Receiver wait states through wait-state propagation"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_BARRIER, -1, "delay_barrier", N_("MPI short-term barrier delay costs"), T, FALSE,
    N_("Delays that directly cause wait states in MPI barriers"), METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_BARRIER_LT, -1, "delay_barrier_longterm", N_("MPI long-term barrier delay costs"), T, FALSE,
    N_("Delays that indirectly cause wait states in MPI barriers through wait-state propagation"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_N2N, -1, "delay_n2n", N_("MPI short-term N x N delay costs"), T, FALSE,
    N_("Delays that directly cause wait states in MPI n-to-n collective communications"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_N2N_LT, -1, "delay_n2n_longterm", N_("MPI long-term N x N delay costs"), T, FALSE,
    N_("Delays that indirectly cause wait states in MPI n-to-n collective communications through "
       "wait-state propagation"), METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_12N, -1, "delay_12n", N_("MPI short-term 1-to-N delay costs"), T, FALSE,
    N_("Delays that directly cause wait states in MPI 1-to-n collective communications"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_12N_LT, -1, "delay_12n_longterm", N_("MPI long-term 1-to-N delay costs"), T, FALSE,
    N_("Delays that indirectly cause wait states in MPI 1-to-n collective communications through "
       "wait-state propagation"), METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_N21, -1, "delay_n21", N_("MPI short-term N-to-1 delay costs"), T, FALSE,
    N_("Delays that directly cause wait states in MPI n-to-1 collective communications"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_DELAY_N21_LT, -1, "delay_n21_longterm", N_("MPI long-term N-to-1 delay costs"), T, FALSE,
    N_("Delays that indirectly cause wait states in MPI n-to-1 collective communications through "
       "wait-state propagation"), METRIC_GROUP_ROOT_CAUSE },
  { M_WAIT_INDIRECT_LS, -1, "mpi_wait_indirect_latesender", N_("Indirect MPI Late Sender wait states"), T, FALSE,
    N_("Indirect waiting time in MPI Late Sender wait states that results from propagation"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_WAIT_INDIRECT_LR, -1, "mpi_wait_indirect_latereceiver", N_("Indirect MPI Late Receiver wait states"), T,
    FALSE, N_("Indirect waiting time in MPI Late Receiver wait states that results from propagation"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_WAIT_PROPAGATING_LS, -1, "mpi_wait_propagating_ls", N_("Propagating MPI Late Sender wait states"), T, FALSE,
    N_("MPI Late Sender wait states which cause further waiting time on other processes"),
    METRIC_GROUP_ROOT_CAUSE },
  { M_WAIT_PROPAGATING_LR, -1, "mpi_wait_propagating_lr", N_("Propagating MPI Late Receiver wait states"), T,
    FALSE, N_("MPI Late Receiver wait states which cause further waiting time on other processes"),
    METRIC_GROUP_ROOT_CAUSE },
};
#pragma GCC diagnostic pop

gboolean
analyze_metric_is_below (MetricId m,
                         MetricId ancestor)
{
  for (int cur = (int) m; cur >= 0; cur = analyze_metrics[cur].parent)
    if (cur == (int) ancestor)
      return TRUE;
  return FALSE;
}
