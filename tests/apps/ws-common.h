/* ws-common.h — helpers for the wait-state test programs (tests/apps/ws-*.c).
 *
 * The programs create wait states of known size with nanosleep and measure the truth
 * themselves: CLOCK_MONOTONIC right before and after each MPI call (one clock for every process
 * on the machine, unlike MPI_Wtime, whose origin may differ between processes). Where a rank
 * needs another rank's time, it travels in the message payload or in one exchange at the end.
 * Rank 0 writes "metric seconds" lines to the file named by argv[1].
 *
 * Computation truth: every ws_sleep_* is computation (outside MPI), so each rank adds up how
 * long its sleeps really took; at exit (after MPI_Finalize) it writes "@path.compute.RANK":
 * "SLEPT START WRITTEN EXIT" — seconds slept, and CLOCK_MONOTONIC when the program's
 * constructors ran, when ws_write finished (before MPI_Finalize) and at exit.
 *
 * Per rank: a program that sets ws_per_rank = 1 before ws_write also writes its own share of
 * every metric it used or declared to "@path.rank.RANK" (same format), and the test checks each
 * rank too (a wait charged to the wrong rank cancels out in the totals). Such a program
 * declares its metrics on every rank. */
#pragma once

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{
  WS_LATESENDER,
  WS_LATESENDER_WO,
  WS_LSWO_SAME,
  WS_LSWO_DIFFERENT,
  WS_LATERECEIVER,
  WS_BARRIER_WAIT,
  WS_WAIT_NXN,
  WS_LATEBROADCAST,
  WS_EARLYREDUCE,
  WS_EARLYSCAN,
  WS_FINALIZE_WAIT,
  /* message counts and bytes (exact): point-to-point only, every rank counts its own */
  WS_COMMS_SEND,
  WS_COMMS_RECV,
  WS_SYNCS_SEND,
  WS_SYNCS_RECV,
  WS_BYTES_SENT,
  WS_BYTES_RCVD,
  WS_N
};

static const char *ws_names[WS_N] = {
  "mpi_latesender", "mpi_latesender_wo", "mpi_lswo_same", "mpi_lswo_different",
  "mpi_latereceiver", "mpi_barrier_wait", "mpi_wait_nxn", "mpi_latebroadcast",
  "mpi_earlyreduce", "mpi_earlyscan", "mpi_finalize_wait", "comms_send", "comms_recv",
  "syncs_send", "syncs_recv", "bytes_sent", "bytes_rcvd",
};

static double ws_expect[WS_N];
static int ws_used[WS_N];
static double ws_slept, ws_start, ws_written;
static const char *ws_path;
static int ws_rank = -1;
static int ws_per_rank;

static inline double
ws_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__ ((constructor)) static void
ws_note_start (void)
{
  ws_start = ws_now ();
}

/* Sleeps @ms milliseconds (resumes after signals); the time it really took is computation. */
static inline void
ws_sleep_ms (double ms)
{
  double from = ws_now ();
  double until = from + ms * 1e-3;
  double left;
  while ((left = until - ws_now ()) > 0)
    {
      struct timespec ts;
      ts.tv_sec = (time_t) left;
      ts.tv_nsec = (long) ((left - ts.tv_sec) * 1e9);
      nanosleep (&ts, NULL);
    }
  ws_slept += ws_now () - from;
}

static inline void
ws_sleep_until (double t)
{
  double left = t - ws_now ();
  if (left > 0)
    ws_sleep_ms (left * 1e3);
}

static inline double
ws_max (double a, double b)
{
  return a > b ? a : b;
}

static inline double
ws_min (double a, double b)
{
  return a < b ? a : b;
}

static inline void
ws_add (int metric, double seconds)
{
  ws_used[metric] = 1;
  if (seconds > 0)
    ws_expect[metric] += seconds;
}

static inline void
ws_declare (int metric)
{
  ws_used[metric] = 1;
}

/* Counts one point-to-point send (or receive) of @bytes bytes on this rank. */
static inline void
ws_count_send (double bytes)
{
  ws_used[WS_COMMS_SEND] = ws_used[WS_SYNCS_SEND] = ws_used[WS_BYTES_SENT] = 1;
  ws_expect[bytes > 0 ? WS_COMMS_SEND : WS_SYNCS_SEND] += 1;
  ws_expect[WS_BYTES_SENT] += bytes;
}

static inline void
ws_count_recv (double bytes)
{
  ws_used[WS_COMMS_RECV] = ws_used[WS_SYNCS_RECV] = ws_used[WS_BYTES_RCVD] = 1;
  ws_expect[bytes > 0 ? WS_COMMS_RECV : WS_SYNCS_RECV] += 1;
  ws_expect[WS_BYTES_RCVD] += bytes;
}

static void
ws_write_compute (void)
{
  char name[4096];
  FILE *f;

  snprintf (name, sizeof name, "%s.compute.%d", ws_path, ws_rank);
  f = fopen (name, "w");
  if (!f)
    return;
  fprintf (f, "%.9f %.9f %.9f %.9f\n", ws_slept, ws_start, ws_written, ws_now ());
  fclose (f);
}

/* Sums the expectations to rank 0, which writes them to @path. Call before MPI_Finalize. */
static inline void
ws_write (const char *path)
{
  double sum[WS_N];
  int used[WS_N];
  int rank;

  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Reduce (ws_expect, sum, WS_N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce (ws_used, used, WS_N, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0 && path)
    {
      FILE *f = fopen (path, "w");
      if (!f)
        {
          perror (path);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      for (int m = 0; m < WS_N; m++)
        if (used[m])
          fprintf (f, "%s %.9f\n", ws_names[m], sum[m]);
      fclose (f);
    }
  if (path && ws_per_rank)
    {
      char name[4096];
      FILE *f;
      snprintf (name, sizeof name, "%s.rank.%d", path, rank);
      f = fopen (name, "w");
      if (!f)
        {
          perror (name);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      for (int m = 0; m < WS_N; m++)
        if (ws_used[m])
          fprintf (f, "%s %.9f\n", ws_names[m], ws_expect[m]);
      fclose (f);
    }
  if (path)
    {
      ws_path = path;
      ws_rank = rank;
      ws_written = ws_now ();
      atexit (ws_write_compute);
    }
}

/* Wait at Finalize needs every rank's arrival at MPI_Finalize, and no MPI call may follow it:
 * each rank takes the time right before MPI_Finalize (ws_finalize) and, once it returns, writes
 * it to "@path.arrival.RANK"; the test computes latest arrival − own arrival per rank. */
static inline void
ws_finalize (const char *path)
{
  int rank;
  double arrival;

  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  arrival = ws_now ();
  MPI_Finalize ();
  if (path)
    {
      char name[4096];
      FILE *f;

      snprintf (name, sizeof name, "%s.arrival.%d", path, rank);
      f = fopen (name, "w");
      if (!f)
        {
          perror (name);
          exit (1);
        }
      fprintf (f, "%.9f\n", arrival);
      fclose (f);
    }
}
