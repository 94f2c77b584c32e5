/* fortran-twin.c — the C program that does what fortran-mpi.F90 does (for all three Fortran
 * bindings), call for call: phases, sizes, peers, sleeps, the records of ARGV[1].RANK.
 * fortran-test.py compares the Fortran programs' traces with this one's, event for event. Keep
 * the two in step. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double kf_now (void);
void   kf_sleep_until (double t);

#define STEP 0.3
#define MAX_REC 64

static int    rank, n;
static char   rec_name[MAX_REC][24];
static double rec_enter[MAX_REC], rec_leave[MAX_REC];
static int    n_rec;

static void
rec (const char *name, double enter)
{
  snprintf (rec_name[n_rec], sizeof rec_name[n_rec], "%s", name);
  rec_enter[n_rec] = enter;
  rec_leave[n_rec] = kf_now ();
  n_rec++;
}

/* how often a polling call was made (it depends on when the message arrived): @count */
static void
rec_count (const char *name, int count)
{
  snprintf (rec_name[n_rec], sizeof rec_name[n_rec], "%s", name);
  rec_enter[n_rec] = count;
  rec_leave[n_rec] = 0;
  n_rec++;
}

static void
check (int ok, const char *what)
{
  if (!ok)
    {
      printf ("fortran-twin: rank %d: wrong result: %s\n", rank, what);
      fflush (stdout);
      MPI_Abort (MPI_COMM_WORLD, 3);
    }
}

static void
write_records (const char *prefix)
{
  char path[4096];
  if (prefix == NULL)
    return;
  snprintf (path, sizeof path, "%s.%d", prefix, rank);
  FILE *f = fopen (path, "w");
  if (f == NULL)
    return;
  for (int j = 0; j < n_rec; j++)
    fprintf (f, "%s %.9f %.9f\n", rec_name[j], rec_enter[j], rec_leave[j]);
  fclose (f);
}

int
main (int argc, char **argv)
{
  int        polls, partner, cnt, srank, ssize, idx, outcount, indices[2], flag;
  int        a[10], c[5], e_in[3], e_out[3], x[3], g[64], ag[32], bc[6], s7[7], one;
  int        rv_in[2], rv_out[2], msg[1], ws[32], wr[32], counts[32], displs[32];
  double     b[20], r[4], rd[4], t0, mine, te;
  char       nm[24];
  MPI_Request req, reqs[2];
  MPI_Status  st, sts[2];
  MPI_Datatype types[32];
  MPI_Comm    sub;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  if (n % 2 != 0 || n < 4 || n > 32)
    {
      if (rank == 0)
        printf ("fortran-twin: needs an even number of ranks, 4 to 32\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  partner = rank ^ 1;
  mine = kf_now () + STEP;
  te = kf_now ();
  MPI_Allreduce (&mine, &t0, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  rec ("sync.allreduce", te);

  /* phase 0: Late Sender, blocking */
  if (rank % 2 == 0)
    {
      kf_sleep_until (t0 + 0.100);
      for (int i = 0; i < 10; i++)
        a[i] = rank * 100 + i + 1;
      te = kf_now ();
      MPI_Send (a, 10, MPI_INT, partner, 1, MPI_COMM_WORLD);
      rec ("p0.send", te);
    }
  else
    {
      kf_sleep_until (t0);
      te = kf_now ();
      MPI_Recv (a, 10, MPI_INT, partner, 1, MPI_COMM_WORLD, &st);
      rec ("p0.recv", te);
      MPI_Get_count (&st, MPI_INT, &cnt);
      check (st.MPI_SOURCE == partner && st.MPI_TAG == 1 && cnt == 10, "recv status");
      for (int i = 0; i < 10; i++)
        check (a[i] == partner * 100 + i + 1, "recv data");
    }

  /* phase 1: Late Sender, non-blocking; an exchange completed by MPI_Waitall */
  if (rank % 2 == 0)
    {
      kf_sleep_until (t0 + STEP + 0.060);
      for (int i = 0; i < 20; i++)
        b[i] = rank + (i + 1) * 0.5;
      te = kf_now ();
      MPI_Isend (b, 20, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD, &req);
      rec ("p1.isend", te);
      MPI_Wait (&req, MPI_STATUS_IGNORE);
    }
  else
    {
      kf_sleep_until (t0 + STEP);
      MPI_Irecv (b, 20, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD, &req);
      te = kf_now ();
      MPI_Wait (&req, &st);
      rec ("p1.wait", te);
      check (st.MPI_SOURCE == partner && req == MPI_REQUEST_NULL, "wait status");
      for (int i = 0; i < 20; i++)
        check (b[i] == partner + (i + 1) * 0.5, "irecv data");
    }
  e_out[0] = rank;
  e_out[1] = rank + 1;
  e_out[2] = rank + 2;
  MPI_Irecv (e_in, 3, MPI_INT, partner, 9, MPI_COMM_WORLD, &reqs[0]);
  te = kf_now ();
  MPI_Isend (e_out, 3, MPI_INT, partner, 9, MPI_COMM_WORLD, &reqs[1]);
  rec ("p1.isendx", te);
  te = kf_now ();
  MPI_Waitall (2, reqs, sts);
  rec ("p1.waitall", te);
  check (sts[0].MPI_SOURCE == partner && sts[0].MPI_TAG == 9, "waitall statuses");
  check (reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL && e_in[0] == partner
             && e_in[1] == partner + 1 && e_in[2] == partner + 2,
         "waitall");

  /* phase 2: MPI_Sendrecv_replace around a ring, rank 0 late */
  kf_sleep_until (t0 + 2 * STEP + (rank == 0 ? 0.080 : 0));
  for (int i = 0; i < 5; i++)
    c[i] = rank * 10 + i + 1;
  te = kf_now ();
  MPI_Sendrecv_replace (c, 5, MPI_INT, (rank + 1) % n, 3, (rank + n - 1) % n, 3, MPI_COMM_WORLD,
                        &st);
  rec ("p2.sr", te);
  for (int i = 0; i < 5; i++)
    check (c[i] == (rank + n - 1) % n * 10 + i + 1, "sendrecv_replace");
  check (st.MPI_SOURCE == (rank + n - 1) % n, "sendrecv_replace");

  /* phase 3: collectives with MPI_IN_PLACE, and MPI_Alltoallw */
  kf_sleep_until (t0 + 3 * STEP);
  x[0] = rank;
  x[1] = 1;
  x[2] = 2 * rank;
  te = kf_now ();
  MPI_Allreduce (MPI_IN_PLACE, x, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  rec ("p3.allreduce", te);
  check (x[0] == n * (n - 1) / 2 && x[1] == n && x[2] == n * (n - 1), "allreduce in place");
  for (int i = 0; i < 64; i++)
    g[i] = -1;
  g[2 * rank] = rank;
  g[2 * rank + 1] = -rank;
  te = kf_now ();
  if (rank == 1)
    MPI_Gather (MPI_IN_PLACE, 2, MPI_INT, g, 2, MPI_INT, 1, MPI_COMM_WORLD);
  else
    MPI_Gather (&g[2 * rank], 2, MPI_INT, g, 2, MPI_INT, 1, MPI_COMM_WORLD);
  rec ("p3.gather", te);
  if (rank == 1)
    for (int i = 0; i < n; i++)
      check (g[2 * i] == i, "gather in place");
  for (int i = 0; i < 32; i++)
    ag[i] = -1;
  ag[rank] = 7 * rank;
  te = kf_now ();
  MPI_Allgather (MPI_IN_PLACE, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD);
  rec ("p3.allgather", te);
  for (int i = 0; i < n; i++)
    check (ag[i] == 7 * i, "allgather in place");
  for (int i = 0; i < n; i++)
    {
      ws[i] = rank * 100 + i;
      counts[i] = 1;
      displs[i] = 4 * i;
      types[i] = MPI_INT;
    }
  te = kf_now ();
  MPI_Alltoallw (ws, counts, displs, types, wr, counts, displs, types, MPI_COMM_WORLD);
  rec ("p3.alltoallw", te);
  for (int i = 0; i < n; i++)
    check (wr[i] == i * 100 + rank, "alltoallw");
  for (int i = 0; i < 4; i++)
    r[i] = rank + i + 1;
  te = kf_now ();
  if (rank == 0)
    MPI_Reduce (MPI_IN_PLACE, r, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  else
    MPI_Reduce (r, rd, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  rec ("p3.reduce", te);
  if (rank == 0)
    for (int i = 0; i < 4; i++)
      check (r[i] == n * (i + 1) + n * (n - 1) / 2, "reduce in place");

  /* phase 4: Wait at Barrier */
  kf_sleep_until (t0 + 4 * STEP + (rank == 1 ? 0.070 : 0));
  te = kf_now ();
  MPI_Barrier (MPI_COMM_WORLD);
  rec ("p4.barrier", te);

  /* phase 5: Late Broadcast */
  memset (bc, 0, sizeof bc);
  if (rank == 2)
    {
      kf_sleep_until (t0 + 5 * STEP + 0.080);
      for (int i = 0; i < 6; i++)
        bc[i] = 60 + i + 1;
    }
  else
    kf_sleep_until (t0 + 5 * STEP);
  te = kf_now ();
  MPI_Bcast (bc, 6, MPI_INT, 2, MPI_COMM_WORLD);
  rec ("p5.bcast", te);
  for (int i = 0; i < 6; i++)
    check (bc[i] == 60 + i + 1, "bcast");

  /* phase 6: Early Reduce */
  kf_sleep_until (t0 + 6 * STEP + (rank == n - 1 ? 0.150 : 0));
  rv_in[0] = rank;
  rv_in[1] = -rank;
  te = kf_now ();
  MPI_Reduce (rv_in, rv_out, 2, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  rec ("p6.reduce", te);
  if (rank == 0)
    check (rv_out[0] == n - 1 && rv_out[1] == 0, "reduce");

  /* phase 7: two halves; Late Sender inside each */
  kf_sleep_until (t0 + 7 * STEP);
  MPI_Comm_split (MPI_COMM_WORLD, rank % 2, rank, &sub);
  MPI_Comm_rank (sub, &srank);
  MPI_Comm_size (sub, &ssize);
  check (ssize == n / 2 && srank == rank / 2, "split");
  if (srank == 0)
    {
      kf_sleep_until (t0 + 7 * STEP + 0.090);
      for (int i = 0; i < 7; i++)
        s7[i] = rank + i + 1;
      te = kf_now ();
      MPI_Send (s7, 7, MPI_INT, 1, 5, sub);
      rec ("p7.send", te);
    }
  else if (srank == 1)
    {
      te = kf_now ();
      MPI_Recv (s7, 7, MPI_INT, 0, 5, sub, &st);
      rec ("p7.recv", te);
      check (st.MPI_SOURCE == 0, "recv in half");
      for (int i = 0; i < 7; i++)
        check (s7[i] == rank % 2 + i + 1, "recv in half");
    }
  one = 1;
  te = kf_now ();
  MPI_Allreduce (MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, sub);
  rec ("p7.allreduce", te);
  check (one == n / 2, "allreduce in half");
  MPI_Comm_free (&sub);
  check (sub == MPI_COMM_NULL, "comm_free");

  /* phase 8: indices and flags; the messages are there before the receives */
  if (rank % 2 == 0)
    {
      kf_sleep_until (t0 + 8 * STEP);
      for (int k = 6; k <= 11; k++)
        {
          if (k == 9)
            continue;
          msg[0] = 1000 * rank + k;
          te = kf_now ();
          MPI_Send (msg, 1, MPI_INT, partner, k, MPI_COMM_WORLD);
          snprintf (nm, sizeof nm, "p8.send%d", k);
          rec (nm, te);
        }
    }
  else
    {
      kf_sleep_until (t0 + 8 * STEP + 0.060);
      MPI_Irecv (&e_in[0], 1, MPI_INT, partner, 6, MPI_COMM_WORLD, &reqs[0]);
      MPI_Irecv (&e_in[1], 1, MPI_INT, partner, 7, MPI_COMM_WORLD, &reqs[1]);
      te = kf_now ();
      MPI_Waitany (2, reqs, &idx, &st);
      snprintf (nm, sizeof nm, "p8.wait%d", 6 + idx);
      rec (nm, te);
      check ((idx == 0 || idx == 1) && st.MPI_TAG == 6 + idx, "waitany index");
      check (reqs[idx] == MPI_REQUEST_NULL && reqs[1 - idx] != MPI_REQUEST_NULL, "waitany requests");
      te = kf_now ();
      MPI_Waitsome (2, reqs, &outcount, indices, sts);
      snprintf (nm, sizeof nm, "p8.wait%d", 6 + indices[0]);
      rec (nm, te);
      check (outcount == 1 && indices[0] == 1 - idx && sts[0].MPI_TAG == 7 - idx, "waitsome");
      flag = 0;
      for (polls = 0; !flag; polls++)
        MPI_Iprobe (partner, 8, MPI_COMM_WORLD, &flag, &st);
      rec_count ("n.MPI_Iprobe", polls);
      check (st.MPI_SOURCE == partner && st.MPI_TAG == 8, "iprobe");
      te = kf_now ();
      MPI_Recv (msg, 1, MPI_INT, partner, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      rec ("p8.wait8", te);
      MPI_Irecv (msg, 1, MPI_INT, partner, 10, MPI_COMM_WORLD, &req);
      flag = 0;
      for (polls = 0; !flag; polls++)
        MPI_Test (&req, &flag, &st);
      rec_count ("n.MPI_Test", polls);
      check (req == MPI_REQUEST_NULL && msg[0] == 1000 * partner + 10, "test");
      MPI_Irecv (msg, 1, MPI_INT, partner, 11, MPI_COMM_WORLD, &reqs[0]);
      flag = 0;
      for (polls = 0; !flag; polls++)
        MPI_Testany (1, reqs, &idx, &flag, MPI_STATUS_IGNORE);
      rec_count ("n.MPI_Testany", polls);
      check (idx == 0 && reqs[0] == MPI_REQUEST_NULL && msg[0] == 1000 * partner + 11, "testany");
    }

  MPI_Finalize ();
  write_records (argc > 1 ? argv[1] : NULL);
  if (rank == 0)
    printf ("fortran-twin: done\n");
  return 0;
}
