/* analyze-metrics.c — metric table. Order is depth-first, parents before children, so the
 * report writer can add them in table order. Names follow PATTERNS.md exactly. Display names
 * and descriptions are marked N_(): reports stay English (comparable with Scalasca's), the
 * browser translates them where it shows them (src/gui/kubus-metric-names.c). */
#include "analyze-metrics.h"

#include <glib/gi18n.h>

#define T METRIC_UNIT_TIME
#define C METRIC_UNIT_COUNT
#define B METRIC_UNIT_BYTES

/* The wait-state entries leave the last field, group, at METRIC_GROUP_WAIT (0). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const MetricDef analyze_metrics[N_METRICS] = {
  { M_TIME, -1, "time", N_("Time"), T, FALSE, N_("Total time: sum of (leave - enter) of each visit") },
  { M_EXECUTION, M_TIME, "execution", N_("Execution"), T, FALSE, N_("Execution time (all of time)") },
  { M_COMP, M_EXECUTION, "comp", N_("Computation"), T, FALSE, N_("Time outside MPI") },
  { M_MPI, M_EXECUTION, "mpi", N_("MPI"), T, FALSE, N_("Time in MPI functions") },
  { M_MANAGEMENT, M_MPI, "mpi_management", N_("Management"), T, FALSE, N_("MPI management") },
  { M_INIT_EXIT, M_MANAGEMENT, "mpi_init_exit", N_("Init/Finalize"), T, FALSE, N_("MPI_Init and MPI_Finalize") },
  { M_INIT_COMPLETION, M_INIT_EXIT, "mpi_init_completion", N_("Initialization Completion"), T, TRUE,
    N_("Time in MPI_Init after the first rank has left it") },
  { M_FINALIZE_WAIT, M_INIT_EXIT, "mpi_finalize_wait", N_("Wait at Finalize"), T, TRUE,
    N_("Time in MPI_Finalize waiting for the last rank to enter it") },
  { M_MGMT_COMM, M_MANAGEMENT, "mpi_mgmt_comm", N_("Communicator"), T, FALSE,
    N_("Communicator, group and topology management") },
  { M_SYNCHRONIZATION, M_MPI, "mpi_synchronization", N_("Synchronization"), T, FALSE, N_("MPI synchronization") },
  { M_SYNC_COLLECTIVE, M_SYNCHRONIZATION, "mpi_sync_collective", N_("Collective"), T, FALSE, N_("MPI_Barrier") },
  { M_BARRIER_WAIT, M_SYNC_COLLECTIVE, "mpi_barrier_wait", N_("Wait at Barrier"), T, TRUE,
    N_("Time in MPI_Barrier waiting for the last rank to enter it") },
  { M_BARRIER_COMPLETION, M_SYNC_COLLECTIVE, "mpi_barrier_completion", N_("Barrier Completion"), T, TRUE,
    N_("Time in MPI_Barrier after the first rank has left it") },
  { M_COMMUNICATION, M_MPI, "mpi_communication", N_("Communication"), T, FALSE, N_("MPI communication") },
  { M_POINT2POINT, M_COMMUNICATION, "mpi_point2point", N_("Point-to-point"), T, FALSE,
    N_("Sends, receives, MPI_Wait* and MPI_Test*") },
  { M_LATESENDER, M_POINT2POINT, "mpi_latesender", N_("Late Sender"), T, TRUE,
    N_("A receive waits for a send that has not started") },
  { M_LATESENDER_WO, M_LATESENDER, "mpi_latesender_wo", N_("Messages in Wrong Order"), T, TRUE,
    N_("Late Sender while an earlier sent message was still unreceived") },
  { M_LSWO_DIFFERENT, M_LATESENDER_WO, "mpi_lswo_different", N_("From different sources"), T, TRUE,
    N_("Wrong order, messages from different sources") },
  { M_LSWO_SAME, M_LATESENDER_WO, "mpi_lswo_same", N_("From same source"), T, TRUE,
    N_("Wrong order, messages from the same source") },
  { M_LS_WF_NW, M_LATESENDER, "mpi_ls_wavefront_nw", N_("Wavefront from north-west"), T, TRUE,
    N_("Late Sender at a pipeline refill of a wavefront from the north-west corner") },
  { M_LS_WF_SW, M_LATESENDER, "mpi_ls_wavefront_sw", N_("Wavefront from south-west"), T, TRUE,
    N_("Late Sender at a pipeline refill of a wavefront from the south-west corner") },
  { M_LS_WF_NE, M_LATESENDER, "mpi_ls_wavefront_ne", N_("Wavefront from north-east"), T, TRUE,
    N_("Late Sender at a pipeline refill of a wavefront from the north-east corner") },
  { M_LS_WF_SE, M_LATESENDER, "mpi_ls_wavefront_se", N_("Wavefront from south-east"), T, TRUE,
    N_("Late Sender at a pipeline refill of a wavefront from the south-east corner") },
  { M_LATERECEIVER, M_POINT2POINT, "mpi_latereceiver", N_("Late Receiver"), T, TRUE,
    N_("A blocking send waits for its receiver") },
  { M_COLLECTIVE, M_COMMUNICATION, "mpi_collective", N_("Collective"), T, FALSE,
    N_("Every collective but the barrier") },
  { M_EARLYREDUCE, M_COLLECTIVE, "mpi_earlyreduce", N_("Early Reduce"), T, TRUE,
    N_("Root of a reduction waits for the first sender") },
  { M_EARLYSCAN, M_COLLECTIVE, "mpi_earlyscan", N_("Early Scan"), T, TRUE,
    N_("A scan waits for lower ranks") },
  { M_LATEBROADCAST, M_COLLECTIVE, "mpi_latebroadcast", N_("Late Broadcast"), T, TRUE,
    N_("Non-root ranks wait for the root of a broadcast") },
  { M_WAIT_NXN, M_COLLECTIVE, "mpi_wait_nxn", N_("Wait at N x N"), T, TRUE,
    N_("Time in an N x N collective waiting for the last rank") },
  { M_NXN_COMPLETION, M_COLLECTIVE, "mpi_nxn_completion", N_("N x N Completion"), T, TRUE,
    N_("Time in an N x N collective after the first rank has left it") },
  /* Scalasca's place and names for MPI-IO (its MPI-IO adapter; PATTERNS.md has no pattern) */
  { M_IO, M_MPI, "mpi_io", N_("File I/O"), T, FALSE, N_("Time spent in MPI file I/O calls") },
  { M_IO_COLLECTIVE, M_IO, "mpi_io_collective", N_("Collective"), T, FALSE,
    N_("Time spent in collective MPI file I/O calls") },
  { M_VISITS, -1, "visits", N_("Visits"), C, FALSE, N_("Number of visits") },
  { M_SYNCS, -1, "syncs", N_("MPI synchronizations"), C, FALSE, N_("Zero-byte MPI operations") },
  { M_SYNCS_SEND, M_SYNCS, "syncs_send", N_("Send synchronizations"), C, FALSE, N_("Zero-byte sends") },
  { M_SYNCS_RECV, M_SYNCS, "syncs_recv", N_("Receive synchronizations"), C, FALSE, N_("Zero-byte receives") },
  { M_SYNCS_COLL, M_SYNCS, "syncs_coll", N_("Collective synchronizations"), C, FALSE,
    N_("Collectives that move no data") },
  { M_COMMS, -1, "comms", N_("MPI communications"), C, FALSE, N_("Data-carrying MPI operations") },
  { M_COMMS_SEND, M_COMMS, "comms_send", N_("Sends"), C, FALSE, N_("Sends with data") },
  { M_COMMS_RECV, M_COMMS, "comms_recv", N_("Receives"), C, FALSE, N_("Receives with data") },
  { M_COMMS_CXCH, M_COMMS, "comms_cxch", N_("Collective exchanges"), C, FALSE,
    N_("Collectives that send and receive data") },
  { M_COMMS_CSRC, M_COMMS, "comms_csrc", N_("Collective sources"), C, FALSE, N_("Collectives that only send data") },
  { M_COMMS_CDST, M_COMMS, "comms_cdst", N_("Collective destinations"), C, FALSE,
    N_("Collectives that only receive data") },
  { M_BYTES, -1, "bytes", N_("MPI bytes transferred"), B, FALSE, N_("Bytes moved by MPI") },
  { M_BYTES_SENT, M_BYTES, "bytes_sent", N_("Bytes sent"), B, FALSE, N_("Point-to-point bytes sent") },
  { M_BYTES_RCVD, M_BYTES, "bytes_rcvd", N_("Bytes received"), B, FALSE, N_("Point-to-point bytes received") },
  { M_BYTES_COUT, M_BYTES, "bytes_cout", N_("Collective bytes outgoing"), B, FALSE, N_("Collective bytes sent") },
  { M_BYTES_CIN, M_BYTES, "bytes_cin", N_("Collective bytes incoming"), B, FALSE, N_("Collective bytes received") },
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
