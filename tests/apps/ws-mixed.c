/* ws-mixed.c — the MPI forms the other wait-state programs do not use, on any rank count ≥ 2
 * (the tests run it on 3 and 4):
 *
 *  A  persistent requests: MPI_Send_init / MPI_Recv_init (MPI_ANY_SOURCE) + MPI_Startall +
 *     MPI_Waitall over the send and the receive, three rounds, a different rank late in each
 *  B  MPI_Sendrecv_replace around the ring, ranks staggered
 *  C  MPI_Bsend (attached buffer); a 64 KiB MPI_Bsend to a receiver 150 ms late, after which
 *     MPI_Buffer_detach waits until it has gone out (MPI time, not computation); MPI_Rsend on
 *     receives posted before a barrier
 *  D  MPI_Probe / MPI_Iprobe, then MPI_Recv; MPI_Recv from MPI_ANY_SOURCE with MPI_ANY_TAG
 *  E  MPI_Mprobe + MPI_Mrecv
 *  F  MPI_Waitall over two MPI_Isend and two MPI_Irecv, one rank late, plus a send to and a
 *     receive from MPI_PROC_NULL
 *  -  4200 × MPI_Comm_dup + MPI_Comm_free: more communicators than the collector once held, so
 *     the communicators of G and I come after all of them
 *  G  MPI_Comm_split (rank 0 MPI_UNDEFINED, key reversing the order): MPI_Bcast and MPI_Reduce
 *     with root 1 (a local rank that is neither 0 nor the world rank)
 *  H  MPI_Alltoallv with unequal counts, MPI_Reduce_scatter_block
 *  I  MPI_Cart_create + MPI_Cart_sub: MPI_Barrier on the grid, MPI_Allreduce on the sub-grid
 *  J  MPI_Ibarrier + MPI_Wait, MPI_Iallreduce + MPI_Wait, ranks staggered, 10 ms of work between
 *     start and completion: Wait at Barrier / Wait at N x N in MPI_Wait (the rule of
 *     docs/decisions/2026-11-29-nonblocking-collectives.md; every other form of them is in
 *     ws-nonblocking.c). Back since the compressed trace, which kct-accuracy-ws-mixed compares
 *     with the OTF2 trace, holds them (format version 3).
 *
 * Truth (ws-common.h): point-to-point — the sender's enter time travels in the payload, the
 * receiver applies max(0, min(E(send), L(recv)) − E(recv)) to the call that completes the
 * message (for MPI_Waitall the largest among its messages, charged once); the blocking probes
 * are not that call, so their waiting is no Late Sender. Collectives — every rank records
 * enter/leave of each instance, one MPI_Allgather at the end shares them, and each rank applies
 * the PATTERNS.md formula to its own calls. Messages and bytes are counted exactly. No send
 * here can be a Late Receiver (MPI_Bsend, MPI_Rsend, MPI_Sendrecv_replace, sends completed by
 * MPI_Waitall): that is declared as 0, and so is Messages in Wrong Order (every rank receives
 * its messages in the order they were sent). */
#include "ws-common.h"

enum
{
  I_SUB_BCAST,
  I_SUB_REDUCE,
  I_ALLTOALLV,
  I_RSB,
  I_CART_BARRIER,
  I_ROW_ALLREDUCE,
  I_J_IBARRIER_START,  /* J: E holds the start (enter of the MPI_I* call), L nothing */
  I_J_IBARRIER,        /*    E and L of the MPI_Wait that completes it */
  I_J_IALLREDUCE_START,
  I_J_IALLREDUCE,
  I_SYNC0,          /* the barriers that separate the stages: waits there count too */
  N_INST = I_SYNC0 + 32
};

static int rank, size, left, right;
static double mine[2 * N_INST];
static int n_sync;

#define E(i) mine[2 * (i)]
#define L(i) mine[2 * (i) + 1]

static void
sync_point (void)
{
  int i = I_SYNC0 + n_sync++;
  if (i >= N_INST)
    MPI_Abort (MPI_COMM_WORLD, 2);
  E (i) = ws_now ();
  MPI_Barrier (MPI_COMM_WORLD);
  L (i) = ws_now ();
}

/* A: persistent ring; in round k rank k % size starts late, its right neighbour waits in
 * MPI_Waitall. The receive is posted with MPI_ANY_SOURCE (only the left neighbour sends tag 100). */
static void
stage_persistent (void)
{
  double sbuf, rbuf;
  MPI_Request pr[2];
  MPI_Status st[2];

  MPI_Recv_init (&rbuf, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 100, MPI_COMM_WORLD, &pr[0]);
  MPI_Send_init (&sbuf, 1, MPI_DOUBLE, right, 100, MPI_COMM_WORLD, &pr[1]);
  for (int k = 0; k < 3; k++)
    {
      double e, l;
      sync_point ();
      ws_sleep_ms (rank == k % size ? 150 - 30 * k : 0);
      sbuf = ws_now ();
      MPI_Startall (2, pr);
      e = ws_now ();
      MPI_Waitall (2, pr, st);
      l = ws_now ();
      if (st[0].MPI_SOURCE != left)
        MPI_Abort (MPI_COMM_WORLD, 3);
      ws_count_send (sizeof sbuf);
      ws_count_recv (sizeof rbuf);
      ws_add (WS_LATESENDER, ws_min (rbuf, l) - e);
    }
  MPI_Request_free (&pr[0]);
  MPI_Request_free (&pr[1]);
}

/* B: rank r enters r·60 ms late; rank 0 waits for the last one. */
static void
stage_sendrecv_replace (void)
{
  double buf[2], e, l;

  sync_point ();
  ws_sleep_ms (60.0 * rank);
  buf[0] = e = ws_now ();
  buf[1] = rank;
  MPI_Sendrecv_replace (buf, 2, MPI_DOUBLE, right, 200, left, 200, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
  l = ws_now ();
  if (buf[1] != left)
    MPI_Abort (MPI_COMM_WORLD, 3);
  ws_count_send (sizeof buf);
  ws_count_recv (sizeof buf);
  ws_add (WS_LATESENDER, ws_min (buf[0], l) - e);
}

/* C: MPI_Bsend around the ring, rank r sending (size − 1 − r)·50 ms late (each rank but 0 waits
 * 50 ms for its left neighbour); then MPI_Rsend to receives posted before a barrier, rank 1
 * sending 100 ms late. */
static void
stage_bsend_rsend (void)
{
  double es, v, e, l;
  MPI_Request req;

  sync_point ();
  ws_sleep_ms (50.0 * (size - 1 - rank));
  es = ws_now ();
  MPI_Bsend (&es, 1, MPI_DOUBLE, right, 300, MPI_COMM_WORLD);
  e = ws_now ();
  MPI_Recv (&v, 1, MPI_DOUBLE, left, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_count_send (sizeof es);
  ws_count_recv (sizeof v);
  ws_add (WS_LATESENDER, ws_min (v, l) - e);

  /* a message far above the eager limit to a receiver 150 ms late: MPI_Buffer_detach waits
   * until it has gone out, and that is MPI time, not computation */
  if (size > 1)
    {
      enum { BIG = 1 << 13 };   /* doubles: 64 KiB */
      double *big = calloc (BIG, sizeof (double));
      void *old;
      int old_size;
      sync_point ();
      if (rank == 0)
        {
          big[0] = ws_now ();
          MPI_Bsend (big, BIG, MPI_DOUBLE, 1, 350, MPI_COMM_WORLD);
          ws_count_send (BIG * sizeof (double));
          MPI_Buffer_detach (&old, &old_size);
          MPI_Buffer_attach (old, old_size);
        }
      else if (rank == 1)
        {
          ws_sleep_ms (150);
          e = ws_now ();
          MPI_Recv (big, BIG, MPI_DOUBLE, 0, 350, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          l = ws_now ();
          ws_count_recv (BIG * sizeof (double));
          ws_add (WS_LATESENDER, ws_min (big[0], l) - e);
        }
      free (big);
    }

  MPI_Irecv (&v, 1, MPI_DOUBLE, left, 400, MPI_COMM_WORLD, &req);
  sync_point ();   /* every receive is posted: MPI_Rsend is correct */
  ws_sleep_ms (rank == 1 ? 100 : 0);
  es = ws_now ();
  MPI_Rsend (&es, 1, MPI_DOUBLE, right, 400, MPI_COMM_WORLD);
  e = ws_now ();
  MPI_Wait (&req, MPI_STATUS_IGNORE);
  l = ws_now ();
  ws_count_send (sizeof es);
  ws_count_recv (sizeof v);
  ws_add (WS_LATESENDER, ws_min (v, l) - e);
}

/* D: rank 0 takes one message from every other rank, rank r sending 40 + 50·r ms late with
 * r + 1 doubles and tag 500 + r; odd messages are found by MPI_Probe, even ones by an MPI_Iprobe
 * loop, then received from MPI_ANY_SOURCE with MPI_ANY_TAG. Then the last rank receives from
 * every other rank with MPI_ANY_SOURCE / MPI_ANY_TAG directly, rank r sending 30 + 60·r ms late. */
static void
stage_probe_wildcard (void)
{
  double buf[64];
  MPI_Status st;

  if (size > 60)
    MPI_Abort (MPI_COMM_WORLD, 2);
  sync_point ();
  if (rank == 0)
    {
      for (int k = 1; k < size; k++)
        {
          double e, l;
          int n = 0;
          if (k % 2)
            MPI_Probe (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
          else
            {
              int flag = 0;
              for (;;)
                {
                  MPI_Iprobe (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                  if (flag)
                    break;
                  ws_sleep_ms (1);
                }
            }
          if (st.MPI_TAG != 500 + st.MPI_SOURCE)
            MPI_Abort (MPI_COMM_WORLD, 3);
          e = ws_now ();
          MPI_Recv (buf, size, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
          l = ws_now ();
          MPI_Get_count (&st, MPI_DOUBLE, &n);
          if (n != st.MPI_SOURCE + 1 || st.MPI_TAG != 500 + st.MPI_SOURCE)
            MPI_Abort (MPI_COMM_WORLD, 3);
          ws_count_recv (sizeof (double) * n);
          ws_add (WS_LATESENDER, ws_min (buf[0], l) - e);
        }
    }
  else
    {
      ws_sleep_ms (40 + 50.0 * rank);
      buf[0] = ws_now ();
      for (int i = 1; i <= rank; i++)
        buf[i] = i;
      MPI_Bsend (buf, rank + 1, MPI_DOUBLE, 0, 500 + rank, MPI_COMM_WORLD);
      ws_count_send (sizeof (double) * (rank + 1));
    }

  sync_point ();
  if (rank == size - 1)
    {
      for (int k = 0; k < size - 1; k++)
        {
          double e = ws_now (), l;
          MPI_Recv (buf, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
          l = ws_now ();
          if (st.MPI_TAG != 550 + st.MPI_SOURCE || buf[1] != st.MPI_SOURCE)
            MPI_Abort (MPI_COMM_WORLD, 3);
          ws_count_recv (2 * sizeof (double));
          ws_add (WS_LATESENDER, ws_min (buf[0], l) - e);
        }
    }
  else
    {
      ws_sleep_ms (30 + 60.0 * rank);
      buf[0] = ws_now ();
      buf[1] = rank;
      MPI_Bsend (buf, 2, MPI_DOUBLE, size - 1, 550 + rank, MPI_COMM_WORLD);
      ws_count_send (2 * sizeof (double));
    }
}

/* E: MPI_Mprobe + MPI_Mrecv around the ring, rank 0 sending 90 ms late: its right neighbour
 * waits in MPI_Mprobe; MPI_Mrecv, which completes the message, does not wait. */
static void
stage_mprobe (void)
{
  double es, v, e, l;
  MPI_Message msg;
  MPI_Status st;

  sync_point ();
  ws_sleep_ms (rank == 0 ? 90 : 0);
  es = ws_now ();
  MPI_Bsend (&es, 1, MPI_DOUBLE, right, 600, MPI_COMM_WORLD);
  MPI_Mprobe (MPI_ANY_SOURCE, 600, MPI_COMM_WORLD, &msg, &st);
  e = ws_now ();
  MPI_Mrecv (&v, 1, MPI_DOUBLE, &msg, &st);
  l = ws_now ();
  if (st.MPI_SOURCE != left)
    MPI_Abort (MPI_COMM_WORLD, 3);
  ws_count_send (sizeof es);
  ws_count_recv (sizeof v);
  ws_add (WS_LATESENDER, ws_min (v, l) - e);
}

/* F: both neighbours exchange with MPI_Isend / MPI_Irecv, one MPI_Waitall over all four
 * requests; the last rank starts 110 ms late, so both of its neighbours wait. */
static void
stage_waitall_mixed (void)
{
  double es, from_left, from_right, nothing, e, l;
  MPI_Request req[6];

  sync_point ();
  ws_sleep_ms (rank == size - 1 ? 110 : 0);
  /* and a receive from / a send to MPI_PROC_NULL, as at the edge of a non-periodic grid:
   * no message */
  MPI_Isend (&es, 1, MPI_DOUBLE, MPI_PROC_NULL, 700, MPI_COMM_WORLD, &req[4]);
  MPI_Irecv (&from_left, 1, MPI_DOUBLE, left, 700, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv (&nothing, 1, MPI_DOUBLE, MPI_PROC_NULL, 700, MPI_COMM_WORLD, &req[5]);
  MPI_Irecv (&from_right, 1, MPI_DOUBLE, right, 701, MPI_COMM_WORLD, &req[1]);
  es = ws_now ();
  MPI_Isend (&es, 1, MPI_DOUBLE, right, 700, MPI_COMM_WORLD, &req[2]);
  MPI_Isend (&es, 1, MPI_DOUBLE, left, 701, MPI_COMM_WORLD, &req[3]);
  e = ws_now ();
  MPI_Waitall (6, req, MPI_STATUSES_IGNORE);
  l = ws_now ();
  ws_count_send (sizeof es);
  ws_count_send (sizeof es);
  ws_count_recv (sizeof from_left);
  ws_count_recv (sizeof from_right);
  ws_add (WS_LATESENDER, ws_max (ws_min (from_left, l) - e, ws_min (from_right, l) - e));
}

/* Communicator churn: more communicators over the run than the collector's table once held
 * (4096; the ones past its end were recorded as MPI_COMM_WORLD), each freed at once. The
 * communicators of the stages after this one come after all of them. */
static void
stage_churn (void)
{
  for (int k = 0; k < 4200; k++)
    {
      MPI_Comm c;
      MPI_Comm_dup (MPI_COMM_WORLD, &c);
      MPI_Comm_free (&c);
    }
}

/* G: world ranks 1 … size − 1 in reverse order (key size − rank), rank 0 not a member.
 * Root = local rank 1, world rank size − 2. Bcast: the root comes 130 ms late. Reduce: the
 * root comes first, the others 60 + 30·local rank ms later. Returns the world ranks of the
 * members in local order through @members (n = *n_members). */
static void
stage_split (int *members, int *n_members)
{
  MPI_Comm sub;
  double x = rank, y;

  MPI_Comm_split (MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, size - rank, &sub);
  *n_members = 0;
  sync_point ();
  if (sub != MPI_COMM_NULL)
    {
      int ssize;
      MPI_Group g, wg;
      int idx[64];
      MPI_Comm_size (sub, &ssize);
      MPI_Comm_group (sub, &g);
      MPI_Comm_group (MPI_COMM_WORLD, &wg);
      for (int i = 0; i < ssize; i++)
        idx[i] = i;
      MPI_Group_translate_ranks (g, ssize, idx, wg, members);
      MPI_Group_free (&g);
      MPI_Group_free (&wg);
      *n_members = ssize;
      if (ssize >= 2 && members[1] != size - 2)
        MPI_Abort (MPI_COMM_WORLD, 3);
    }
  if (*n_members >= 2)   /* with 2 ranks the communicator has one member: no root 1 */
    {
      int srank;
      MPI_Comm_rank (sub, &srank);
      ws_sleep_ms (srank == 1 ? 130 : 0);
      E (I_SUB_BCAST) = ws_now ();
      MPI_Bcast (&x, 1, MPI_DOUBLE, 1, sub);
      L (I_SUB_BCAST) = ws_now ();
    }
  sync_point ();
  if (*n_members >= 2)
    {
      int srank;
      MPI_Comm_rank (sub, &srank);
      ws_sleep_ms (srank == 1 ? 0 : 60 + 30.0 * srank);
      E (I_SUB_REDUCE) = ws_now ();
      MPI_Reduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, 1, sub);
      L (I_SUB_REDUCE) = ws_now ();
    }
  if (sub != MPI_COMM_NULL)
    MPI_Comm_free (&sub);
}

/* H: Alltoallv (rank r sends r + j + 1 doubles to rank j), ranks arriving r·40 ms late;
 * Reduce_scatter_block, ranks arriving (size − 1 − r)·40 ms late. */
static void
stage_alltoallv (void)
{
  int *sc = malloc (sizeof (int) * size), *sd = malloc (sizeof (int) * size);
  int *rc = malloc (sizeof (int) * size), *rd = malloc (sizeof (int) * size);
  int ns = 0, nr = 0;
  double *sbuf, *rbuf;

  for (int j = 0; j < size; j++)
    {
      sc[j] = rank + j + 1;
      rc[j] = j + rank + 1;
      sd[j] = ns;
      rd[j] = nr;
      ns += sc[j];
      nr += rc[j];
    }
  sbuf = calloc (ns, sizeof (double));
  rbuf = calloc (nr > 2 * size ? nr : 2 * size, sizeof (double));
  sync_point ();
  ws_sleep_ms (40.0 * rank);
  E (I_ALLTOALLV) = ws_now ();
  MPI_Alltoallv (sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
  L (I_ALLTOALLV) = ws_now ();

  sync_point ();
  ws_sleep_ms (40.0 * (size - 1 - rank));
  E (I_RSB) = ws_now ();
  MPI_Reduce_scatter_block (rbuf, sbuf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  L (I_RSB) = ws_now ();
  free (sbuf);
  free (rbuf);
  free (sc);
  free (sd);
  free (rc);
  free (rd);
}

/* I: a 2-D grid over all ranks (MPI_Dims_create), no reorder: a barrier on it with rank 1
 * 120 ms late; then the sub-grids along dimension 0, an Allreduce there with local rank 0
 * 90 ms late. Returns the members (world ranks) of my sub-grid. */
static void
stage_cart (int *members, int *n_members)
{
  int dims[2] = { 0, 0 }, periods[2] = { 0, 1 }, remain[2] = { 1, 0 };
  MPI_Comm cart, row;
  int crank, rsize;
  double x = 1, y;

  MPI_Dims_create (size, 2, dims);
  MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Comm_rank (cart, &crank);
  if (crank != rank)
    MPI_Abort (MPI_COMM_WORLD, 3);
  sync_point ();
  ws_sleep_ms (rank == 1 ? 120 : 15.0 * rank);
  E (I_CART_BARRIER) = ws_now ();
  MPI_Barrier (cart);
  L (I_CART_BARRIER) = ws_now ();

  MPI_Cart_sub (cart, remain, &row);
  MPI_Comm_rank (row, &crank);
  MPI_Comm_size (row, &rsize);
  {
    MPI_Group g, wg;
    int idx[64];
    MPI_Comm_group (row, &g);
    MPI_Comm_group (MPI_COMM_WORLD, &wg);
    for (int i = 0; i < rsize; i++)
      idx[i] = i;
    MPI_Group_translate_ranks (g, rsize, idx, wg, members);
    MPI_Group_free (&g);
    MPI_Group_free (&wg);
    *n_members = rsize;
  }
  sync_point ();
  ws_sleep_ms (crank == 0 ? 90 : 0);
  E (I_ROW_ALLREDUCE) = ws_now ();
  MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, row);
  L (I_ROW_ALLREDUCE) = ws_now ();
  MPI_Comm_free (&row);
  MPI_Comm_free (&cart);
}

/* J: non-blocking collectives, ranks staggered; the wait happens in MPI_Wait. */
static void
stage_nonblocking (void)
{
  MPI_Request req;
  double x = rank, y;

  sync_point ();
  ws_sleep_ms (30.0 * rank);
  E (I_J_IBARRIER_START) = ws_now ();
  MPI_Ibarrier (MPI_COMM_WORLD, &req);
  ws_sleep_ms (10);
  E (I_J_IBARRIER) = ws_now ();
  MPI_Wait (&req, MPI_STATUS_IGNORE);
  L (I_J_IBARRIER) = ws_now ();

  sync_point ();
  ws_sleep_ms (30.0 * (size - 1 - rank));
  E (I_J_IALLREDUCE_START) = ws_now ();
  MPI_Iallreduce (&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req);
  ws_sleep_ms (10);
  E (I_J_IALLREDUCE) = ws_now ();
  MPI_Wait (&req, MPI_STATUS_IGNORE);
  L (I_J_IALLREDUCE) = ws_now ();
  if (y != size - 1)
    MPI_Abort (MPI_COMM_WORLD, 3);
}

int
main (int argc, char **argv)
{
  int sub_members[64], n_sub = 0, row_members[64], n_row = 0;
  double *all, t0;
  void *bsend_buf;
  int bsend_size;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size < 2 || size > 60)
    {
      if (rank == 0)
        fprintf (stderr, "ws-mixed: needs 2 to 60 ranks\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  left = (rank + size - 1) % size;
  right = (rank + 1) % size;
  ws_per_rank = 1;   /* every rank declares every metric: the test checks each rank */
  ws_declare (WS_LATESENDER);
  ws_declare (WS_LATESENDER_WO);
  ws_declare (WS_LATERECEIVER);
  ws_declare (WS_BARRIER_WAIT);
  ws_declare (WS_WAIT_NXN);
  ws_declare (WS_LATEBROADCAST);
  ws_declare (WS_EARLYREDUCE);
  ws_declare (WS_EARLYSCAN);
  bsend_size = 8 * (MPI_BSEND_OVERHEAD + 64 * (int) sizeof (double))
               + MPI_BSEND_OVERHEAD + (1 << 13) * (int) sizeof (double);
  bsend_buf = malloc (bsend_size);
  MPI_Buffer_attach (bsend_buf, bsend_size);

  stage_persistent ();
  stage_sendrecv_replace ();
  stage_bsend_rsend ();
  stage_probe_wildcard ();
  stage_mprobe ();
  stage_waitall_mixed ();
  stage_churn ();
  stage_split (sub_members, &n_sub);
  stage_alltoallv ();
  stage_cart (row_members, &n_row);
  stage_nonblocking ();
  MPI_Buffer_detach (&bsend_buf, &bsend_size);
  free (bsend_buf);

  /* everybody arrives together at the Allgather that shares the times (its own wait is not
   * measured) */
  sync_point ();
  all = malloc (sizeof (double) * 2 * N_INST * size);
  MPI_Allgather (mine, 2 * N_INST, MPI_DOUBLE, all, 2 * N_INST, MPI_DOUBLE, MPI_COMM_WORLD);
#define AE(r, i) all[(r) * 2 * N_INST + 2 * (i)]
  {
    double maxe;
    for (int k = 0; k < n_sync; k++)
      {
        maxe = 0;
        for (int r = 0; r < size; r++)
          maxe = ws_max (maxe, AE (r, I_SYNC0 + k));
        ws_add (WS_BARRIER_WAIT, ws_min (maxe, L (I_SYNC0 + k)) - E (I_SYNC0 + k));
      }
    /* the grid holds every rank */
    maxe = 0;
    for (int r = 0; r < size; r++)
      maxe = ws_max (maxe, AE (r, I_CART_BARRIER));
    ws_add (WS_BARRIER_WAIT, ws_min (maxe, L (I_CART_BARRIER)) - E (I_CART_BARRIER));
    {
      int nxn[] = { I_ALLTOALLV, I_RSB };
      for (int k = 0; k < 2; k++)
        {
          maxe = 0;
          for (int r = 0; r < size; r++)
            maxe = ws_max (maxe, AE (r, nxn[k]));
          ws_add (WS_WAIT_NXN, ws_min (maxe, L (nxn[k])) - E (nxn[k]));
        }
    }
    /* J: the latest start among all ranks, against the MPI_Wait's enter and leave */
    {
      int j[][2] = { { I_J_IBARRIER_START, I_J_IBARRIER }, { I_J_IALLREDUCE_START, I_J_IALLREDUCE } };
      for (int k = 0; k < 2; k++)
        {
          maxe = 0;
          for (int r = 0; r < size; r++)
            maxe = ws_max (maxe, AE (r, j[k][0]));
          ws_add (k == 0 ? WS_BARRIER_WAIT : WS_WAIT_NXN,
                  ws_min (maxe, L (j[k][1])) - E (j[k][1]));
        }
    }
    if (n_row > 1)
      {
        maxe = 0;
        for (int m = 0; m < n_row; m++)
          maxe = ws_max (maxe, AE (row_members[m], I_ROW_ALLREDUCE));
        ws_add (WS_WAIT_NXN, ws_min (maxe, L (I_ROW_ALLREDUCE)) - E (I_ROW_ALLREDUCE));
      }
    if (n_sub > 1)
      {
        int root = sub_members[1];
        if (rank != root)
          ws_add (WS_LATEBROADCAST,
                  ws_min (AE (root, I_SUB_BCAST), L (I_SUB_BCAST)) - E (I_SUB_BCAST));
        else
          {
            maxe = 0;
            for (int m = 0; m < n_sub; m++)
              if (sub_members[m] != root)
                maxe = ws_max (maxe, AE (sub_members[m], I_SUB_REDUCE));
            ws_add (WS_EARLYREDUCE, ws_min (maxe, L (I_SUB_REDUCE)) - E (I_SUB_REDUCE));
          }
      }
  }
  free (all);

  /* Wait at Finalize: rank r enters at t0 + r·40 ms (the test uses the measured arrivals) */
  t0 = ws_now () + 0.1;
  MPI_Bcast (&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  ws_add (WS_FINALIZE_WAIT, 0.04 * (size - 1 - rank));
  ws_write (argc > 1 ? argv[1] : NULL);
  ws_sleep_until (t0 + 0.04 * rank);
  ws_finalize (argc > 1 ? argv[1] : NULL);
  return 0;
}
