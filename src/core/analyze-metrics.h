/* analyze-metrics.h — the one table that drives the analyzer's metric tree (PATTERNS.md). */
#pragma once

#include <glib.h>

typedef enum
{
  M_TIME,
  M_EXECUTION,
  M_COMP,
  M_MPI,
  M_MANAGEMENT,
  M_INIT_EXIT,
  M_INIT_COMPLETION,
  M_FINALIZE_WAIT,
  M_MGMT_COMM,
  M_SYNCHRONIZATION,
  M_SYNC_COLLECTIVE,
  M_BARRIER_WAIT,
  M_BARRIER_COMPLETION,
  M_COMMUNICATION,
  M_POINT2POINT,
  M_LATESENDER,
  M_LATESENDER_WO,
  M_LSWO_DIFFERENT,
  M_LSWO_SAME,
  M_LS_WF_NW,
  M_LS_WF_SW,
  M_LS_WF_NE,
  M_LS_WF_SE,
  M_LATERECEIVER,
  M_COLLECTIVE,
  M_EARLYREDUCE,
  M_EARLYSCAN,
  M_LATEBROADCAST,
  M_WAIT_NXN,
  M_NXN_COMPLETION,
  M_IO,
  M_IO_COLLECTIVE,
  M_VISITS,
  M_SYNCS,
  M_SYNCS_SEND,
  M_SYNCS_RECV,
  M_SYNCS_COLL,
  M_COMMS,
  M_COMMS_SEND,
  M_COMMS_RECV,
  M_COMMS_CXCH,
  M_COMMS_CSRC,
  M_COMMS_CDST,
  M_BYTES,
  M_BYTES_SENT,
  M_BYTES_RCVD,
  M_BYTES_COUT,
  M_BYTES_CIN,
  /* root causes and the critical path (delay-*.c, critical-*.c): fractional, stored apart */
  M_CRITICAL_PATH,
  M_CP_ACTIVITIES,
  M_CP_IMBALANCE,
  M_CP_INTER_PARTITION,
  M_CP_NON_CRITICAL,
  M_DELAY_LS,
  M_DELAY_LS_LT,
  M_DELAY_LR,
  M_DELAY_LR_LT,
  M_DELAY_BARRIER,
  M_DELAY_BARRIER_LT,
  M_DELAY_N2N,
  M_DELAY_N2N_LT,
  M_DELAY_12N,
  M_DELAY_12N_LT,
  M_DELAY_N21,
  M_DELAY_N21_LT,
  M_WAIT_INDIRECT_LS,
  M_WAIT_INDIRECT_LR,
  M_WAIT_PROPAGATING_LS,
  M_WAIT_PROPAGATING_LR,
  N_METRICS
} MetricId;

/* The first of the metrics the root-cause and critical-path passes compute; they hold fractions
 * of a timer tick (delay costs are shares of waits), so they are kept as doubles, not in the
 * integer severity rows. */
#define M_FIRST_CAUSE M_CRITICAL_PATH
#define N_CAUSE_METRICS (N_METRICS - M_FIRST_CAUSE)

typedef enum
{
  METRIC_UNIT_TIME,   /* stored in timer ticks while analysing, written in seconds */
  METRIC_UNIT_COUNT,
  METRIC_UNIT_BYTES,
} MetricUnit;

/* Which pass computes a metric; a report holds only the groups that ran. */
typedef enum
{
  METRIC_GROUP_WAIT = 0,        /* the wait-state analysis: always */
  METRIC_GROUP_ROOT_CAUSE,      /* delay costs, indirect and propagating waits (--no-root-cause) */
  METRIC_GROUP_CRITICAL_PATH,   /* critical path and its impacts (--no-critical-path) */
} MetricGroup;

#define METRIC_GROUP_BIT(g) (1u << (g))

typedef struct
{
  MetricId    id;
  int         parent;        /* MetricId or -1 */
  const char *uniq_name;
  const char *disp_name;
  MetricUnit  unit;
  gboolean    wait_state;    /* listed in the statistics file */
  const char *descr;
  MetricGroup group;
} MetricDef;

extern const MetricDef analyze_metrics[N_METRICS];

/* TRUE if @m is @ancestor or lies below it. */
gboolean analyze_metric_is_below (MetricId m, MetricId ancestor);
