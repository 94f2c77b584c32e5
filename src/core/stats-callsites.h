/* stats-callsites.h — mpiP-style statistics of the MPI call sites of a report.
 *
 * A call site is a call path whose region is an MPI function (MPI_*). A Kubus profile gives
 * its file and line when the program had debug information (module+offset without), all of
 * them when the call path is called from several places in the source. */
#pragma once

#include <cube.h>
#include <stdio.h>

typedef struct
{
  gint64 rank;           /* process rank; -1 for the aggregate over all ranks */
  double count;          /* visits */
  double min, max;       /* shortest and longest call (inclusive); NAN when unknown */
  double total;          /* time, inclusive of anything inside the call */
  double bytes_sent;     /* point-to-point and collective */
  double bytes_received;
} StatsCallsiteRow;

typedef struct
{
  const CubeCnode *cnode;
  char            *function; /* MPI_Send */
  char            *path;     /* region names from the root to the function, "/"-separated */
  char            *source;   /* "file:line", "module+0xOFFSET", several "; "-separated, or "" */
  GArray          *ranks;    /* of StatsCallsiteRow, by rank; ranks that never called it left out */
  StatsCallsiteRow all;
} StatsCallsite;

/* Every MPI call site of @report, most total time first. Returns a GPtrArray of
 * StatsCallsite* (free with g_ptr_array_unref), or NULL with @error. */
GPtrArray *stats_callsites (CubeReport *report, GError **error);

/* Prints the table of @report (text, or CSV with a header line) to @out. */
void stats_callsites_print (GPtrArray *sites, gboolean csv, FILE *out);
