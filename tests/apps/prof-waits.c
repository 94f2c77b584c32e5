/* prof-waits.c — wait states of known size at call sites that also have wait-free visits, for
 * the profile's min-based estimates (tests/collect/profile-test.py).
 *
 * Built with -finstrument-functions: every phase is a function of its own, so each estimated
 * MPI call is the call path <program>/main/phase_NAME/MPI_X (helpers that exchange the
 * measured times are functions of their own as well).  Every phase runs 6 rounds after a
 * barrier (sync_all): 3 in which nobody waits and 3 in which one side is late by 30–80 ms.
 * The truth is measured as in ws-common.h (CLOCK_MONOTONIC around each call, the other side's
 * enter time in the payload or exchanged afterwards), with PATTERNS.md's formulas.
 *
 * argv[1]: output prefix; rank r writes PREFIX.r with lines "PHASE METRIC VALUE":
 *   METRIC = the wait-state metric (seconds), "visits" (calls of the phase's MPI call) and
 *   "spread": how much the calls' processing varied.  The estimate of a call is its duration
 *   minus the shortest call's; the truth is its wait.  They differ by the call's processing
 *   time (from the end of the wait to the return) minus the shortest call's: on a busy machine
 *   that includes waiting for a processor, which the estimate counts as a wait.  So each call
 *   also measures its processing time p = L - max(E, end of wait), and spread is the sum of
 *   p - min(p) (the minimum of this rank, or of all ranks for a collective).
 * phase_partial is the over-estimation case (docs/decisions/2026-11-25-profile.md): messages
 * of 2048 and 4095 bytes, one size class, received after they were sent (no wait), the larger
 * one by the rendezvous protocol, so its receives take longer than the class's minimum.
 * An even number of ranks, at least 2. */
#include "ws-common.h"

static int rank, size, partner, receiver;

enum
{
  PH_LS_RECV,
  PH_LS_WAIT,
  PH_LS_WAITALL,
  PH_LR_SSEND,
  PH_NXN,
  PH_BARRIER,
  PH_LB,
  PH_ER,
  PH_PARTIAL,
  PH_LS_WAITANY,
  PH_LS_WAITSOME,
  N_PH
};
static const char *ph_name[N_PH] = { "phase_ls_recv", "phase_ls_wait", "phase_ls_waitall",
                                     "phase_lr_ssend", "phase_nxn", "phase_barrier", "phase_lb",
                                     "phase_er", "phase_partial", "phase_ls_waitany",
                                     "phase_ls_waitsome" };
static const char *ph_metric[N_PH]
    = { "mpi_latesender", "mpi_latesender",    "mpi_latesender", "mpi_latereceiver", "mpi_wait_nxn",
        "mpi_barrier_wait", "mpi_latebroadcast", "mpi_earlyreduce", "mpi_latesender",
        "mpi_latesender", "mpi_latesender" };
static double truth[N_PH];
static long   visits[N_PH];
static double proc_sum[N_PH], proc_min[N_PH]; /* processing time after the wait */

/* one call of phase @ph: entered at @e, left at @l, its wait ended at @end */
static void
note (int ph, double e, double l, double end)
{
  double p = l - ws_max (e, ws_min (end, l));
  visits[ph]++;
  truth[ph] += ws_max (0, ws_min (end, l) - e);
  proc_sum[ph] += p;
  proc_min[ph] = visits[ph] == 1 ? p : ws_min (proc_min[ph], p);
}

/* rounds: 0 = nobody waits, else the late side's delay in ms */
static const double delays[6] = { 0, 50, 0, 80, 30, 0 };
#define SETTLE_MS 20 /* how long the early side waits in a wait-free round */

static void
sync_all (void)
{
  MPI_Barrier (MPI_COMM_WORLD);
}

static void
send_time (double t, int to)
{
  MPI_Send (&t, 1, MPI_DOUBLE, to, 900, MPI_COMM_WORLD);
}

static double
recv_time (int from)
{
  double t;
  MPI_Recv (&t, 1, MPI_DOUBLE, from, 900, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return t;
}

/* the latest enter time of all ranks */
static double
latest (double e)
{
  double all[256], last = e;
  MPI_Allgather (&e, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++)
    last = ws_max (last, all[r]);
  return last;
}

static void
phase_ls_recv (double d)
{
  double e, l, es;
  if (!receiver)
    {
      ws_sleep_ms (d);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD);
      return;
    }
  if (d == 0)
    ws_sleep_ms (SETTLE_MS);
  e = ws_now ();
  MPI_Recv (&es, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  l = ws_now ();
  note (PH_LS_RECV, e, l, es);
}

static void
phase_ls_wait (double d)
{
  double      e, l, es;
  MPI_Request rq;
  if (!receiver)
    {
      ws_sleep_ms (d);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD);
      return;
    }
  MPI_Irecv (&es, 1, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD, &rq);
  if (d == 0)
    ws_sleep_ms (SETTLE_MS);
  e = ws_now ();
  MPI_Wait (&rq, MPI_STATUS_IGNORE);
  l = ws_now ();
  note (PH_LS_WAIT, e, l, es);
}

/* two messages, the second @d / 2 after the first: the Waitall waits for the later one */
static void
phase_ls_waitall (double d)
{
  double      e, l, es[2];
  MPI_Request rq[2];
  if (!receiver)
    {
      ws_sleep_ms (d / 2);
      es[0] = ws_now ();
      MPI_Send (&es[0], 1, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD);
      ws_sleep_ms (d / 2);
      es[1] = ws_now ();
      MPI_Send (&es[1], 1, MPI_DOUBLE, partner, 4, MPI_COMM_WORLD);
      return;
    }
  MPI_Irecv (&es[0], 1, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv (&es[1], 1, MPI_DOUBLE, partner, 4, MPI_COMM_WORLD, &rq[1]);
  if (d == 0)
    ws_sleep_ms (SETTLE_MS);
  e = ws_now ();
  MPI_Waitall (2, rq, MPI_STATUSES_IGNORE);
  l = ws_now ();
  note (PH_LS_WAITALL, e, l, ws_max (es[0], es[1]));
}

static void phase_ls_any (double d, int some);

static void
phase_ls_waitany (double d)
{
  phase_ls_any (d, 0);
}

static void
phase_ls_waitsome (double d)
{
  phase_ls_any (d, 1);
}

/* MPI_Waitany and MPI_Waitsome completing one receive (their own minimum); not instrumented,
 * so the MPI call's parent is phase_ls_waitany / phase_ls_waitsome */
__attribute__ ((no_instrument_function)) static void
phase_ls_any (double d, int some)
{
  double      e, l, es;
  int         idx, n, idxs[1];
  MPI_Request rq;
  if (!receiver)
    {
      ws_sleep_ms (d);
      es = ws_now ();
      MPI_Send (&es, 1, MPI_DOUBLE, partner, some ? 8 : 7, MPI_COMM_WORLD);
      return;
    }
  MPI_Irecv (&es, 1, MPI_DOUBLE, partner, some ? 8 : 7, MPI_COMM_WORLD, &rq);
  if (d == 0)
    ws_sleep_ms (SETTLE_MS);
  e = ws_now ();
  if (some)
    MPI_Waitsome (1, &rq, &n, idxs, MPI_STATUSES_IGNORE);
  else
    MPI_Waitany (1, &rq, &idx, MPI_STATUS_IGNORE);
  l = ws_now ();
  note (some ? PH_LS_WAITSOME : PH_LS_WAITANY, e, l, es);
}

/* Late Receiver: the sender's MPI_Ssend waits until the receive is posted */
static void
phase_lr_ssend (double d)
{
  double e, l, er, buf[8] = { 0 };
  if (receiver)
    {
      ws_sleep_ms (d);
      er = ws_now ();
      MPI_Recv (buf, 8, MPI_DOUBLE, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      send_time (er, partner);
      return;
    }
  if (d == 0)
    ws_sleep_ms (SETTLE_MS);
  e = ws_now ();
  MPI_Ssend (buf, 8, MPI_DOUBLE, partner, 5, MPI_COMM_WORLD);
  l = ws_now ();
  er = recv_time (partner);
  note (PH_LR_SSEND, e, l, er);
}

/* the late rank rotates; in wait-free rounds everybody enters together */
static void
phase_nxn (double d, int round)
{
  double e, l, x = rank, y;
  if (rank == round % size)
    ws_sleep_ms (d);
  e = ws_now ();
  MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  l = ws_now ();
  note (PH_NXN, e, l, latest (e));
}

static void
phase_barrier (double d, int round)
{
  double e, l;
  if (rank == (round + 1) % size)
    ws_sleep_ms (d);
  e = ws_now ();
  MPI_Barrier (MPI_COMM_WORLD);
  l = ws_now ();
  note (PH_BARRIER, e, l, latest (e));
}

/* Late Broadcast: the root (0) is late by @d, or the others are (wait-free) */
static void
phase_lb (double d)
{
  double e, l, er = 0;
  if (rank == 0)
    ws_sleep_ms (d);
  else if (d == 0)
    ws_sleep_ms (SETTLE_MS);
  e = ws_now ();
  if (rank == 0)
    er = e;
  MPI_Bcast (&er, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  l = ws_now ();
  if (rank != 0)
    note (PH_LB, e, l, er);
  else
    visits[PH_LB]++; /* the root does not wait for itself */
}

/* Early Reduce: the root (size - 1) waits for the latest sender, or comes last (wait-free) */
static void
phase_er (double d)
{
  double e, l, last = 0;
  int    root = size - 1;
  if (rank == 0)
    ws_sleep_ms (d);
  if (rank == root && d == 0)
    ws_sleep_ms (SETTLE_MS);
  e = ws_now ();
  MPI_Reduce (&e, &last, 1, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
  l = ws_now ();
  if (rank == root)
    note (PH_ER, e, l, last);
  else
    visits[PH_ER]++; /* a sender does not wait in Early Reduce */
}

/* over-estimation: no wait at all, but the 4095-byte messages arrive by rendezvous during the
 * receive while the 2048-byte ones are there already (same size class) */
static void
phase_partial (int round)
{
  static char buf[4096];
  int         n = round % 2 ? 4095 : 2048;
  double      e, l, es;
  if (!receiver)
    {
      es = ws_now ();
      send_time (es, partner);
      MPI_Send (buf, n, MPI_CHAR, partner, 6, MPI_COMM_WORLD);
      return;
    }
  es = recv_time (partner);
  ws_sleep_ms (SETTLE_MS);
  e = ws_now ();
  MPI_Recv (buf, n, MPI_CHAR, partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  l = ws_now ();
  note (PH_PARTIAL, e, l, es);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size % 2 || size > 256 || argc < 2)
    {
      if (rank == 0)
        fprintf (stderr, "prof-waits: needs an even number of ranks (up to 256) and PREFIX\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  partner = rank ^ 1;
  receiver = rank % 2 == 1;
  for (int i = 0; i < 6; i++)
    {
      sync_all ();
      phase_ls_recv (delays[i]);
      sync_all ();
      phase_ls_wait (delays[i]);
      sync_all ();
      phase_ls_waitall (delays[i]);
      sync_all ();
      phase_lr_ssend (delays[i]);
      sync_all ();
      phase_nxn (delays[i], i);
      sync_all ();
      phase_barrier (delays[i], i);
      sync_all ();
      phase_lb (delays[i]);
      sync_all ();
      phase_er (delays[i]);
      sync_all ();
      phase_partial (i);
      sync_all ();
      phase_ls_waitany (delays[i]);
      sync_all ();
      phase_ls_waitsome (delays[i]);
    }
  /* collectives: the estimate takes the shortest call of all ranks */
  double gmin[N_PH];
  for (int p = 0; p < N_PH; p++)
    if (proc_sum[p] == 0 && proc_min[p] == 0)
      proc_min[p] = 1e9; /* no call that waits on this rank */
  MPI_Allreduce (proc_min, gmin, N_PH, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  for (int p = PH_NXN; p <= PH_ER; p++)
    proc_min[p] = gmin[p];
  char  name[4096];
  FILE *f;
  snprintf (name, sizeof name, "%s.%d", argv[1], rank);
  f = fopen (name, "w");
  if (f == NULL)
    {
      perror (name);
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
  for (int p = 0; p < N_PH; p++)
    {
      /* the calls that take part in the estimate: not LB's root, not ER's senders */
      long   n = (p == PH_LB && rank == 0) || (p == PH_ER && rank != size - 1) ? 0 : visits[p];
      double spread = n > 0 ? proc_sum[p] - n * proc_min[p] : 0;
      fprintf (f, "%s %s %.9f\n%s visits %ld\n%s spread %.9f\n", ph_name[p], ph_metric[p],
               truth[p], ph_name[p], visits[p], ph_name[p], spread);
    }
  fclose (f);
  MPI_Finalize ();
  return 0;
}
