/* collect-more: the less common MPI calls, for the collector tests.  Runs on exactly 4 ranks.
 *
 *   collect-more COUNTS_DIR [exit3]
 *
 * The program counts its own calls: every wrapped MPI call goes through CALL (), every message,
 * request and collective it causes through note_* (bytes computed from its own buffers), and
 * each rank writes COUNTS_DIR/counts.<rank> in collect-check's line format.  The test
 * (tests/collect/collect-test.py, case "more") requires the trace to hold exactly those lines.
 * Communicators other than MPI_COMM_WORLD are written as @split (world ranks 1 2 3), @inter
 * (inter-communicators; peers are ranks of the remote group) or @other,
 * the test maps the trace's communicators the same way.  Unwrapped MPI calls (Comm_rank,
 * Comm_group, …) are called directly and not counted.
 *
 * With "exit3" every rank returns 3 after MPI_Finalize (kubus-run must exit 3 too). */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FACTS 512

typedef struct
{
  char key[160];
  long count, a, b;
  int  kind; /* 0: count only, 1: count + a, 2: count + a + b */
} Fact;

static Fact facts[MAX_FACTS];
static int  n_facts;
static int  me;

static void
fact (int kind, long a, long b, const char *fmt, ...)
{
  char    key[160];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (key, sizeof key, fmt, ap);
  va_end (ap);
  for (int i = 0; i < n_facts; i++)
    if (strcmp (facts[i].key, key) == 0)
      {
        facts[i].count++;
        facts[i].a += a;
        facts[i].b += b;
        return;
      }
  if (n_facts == MAX_FACTS)
    abort ();
  Fact *f = &facts[n_facts++];
  snprintf (f->key, sizeof f->key, "%s", key);
  f->count = 1;
  f->a = a;
  f->b = b;
  f->kind = kind;
}

#define CALL(fn, ...) (fact (0, 0, 0, "enter %s %d", #fn, me), fn (__VA_ARGS__))

static const char *
comm_label (MPI_Comm c, MPI_Comm split)
{
  int inter = 0;
  if (c != MPI_COMM_WORLD)
    MPI_Comm_test_inter (c, &inter);
  return c == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : c == split ? "@split" : inter ? "@inter" : "@other";
}

static MPI_Comm split_comm = MPI_COMM_NULL;

/* a message event on this rank; peer and tag as the collector must record them */
static void
note_msg (const char *kind, int peer, MPI_Comm c, int tag, long bytes)
{
  fact (1, bytes, 0, "%s %d %d %s %d", kind, me, peer, comm_label (c, split_comm), tag);
  if (strcmp (kind, "isend") == 0)
    fact (0, 0, 0, "isendcomplete %d", me);
  else if (strcmp (kind, "irecv") == 0)
    fact (0, 0, 0, "irecvrequest %d", me);
}

static void
note_coll (const char *op, MPI_Comm c, int root, long sent, long recv)
{
  char r[16];
  if (root < 0)
    snprintf (r, sizeof r, "none");
  else
    snprintf (r, sizeof r, "%d", root);
  fact (2, sent, recv, "coll %s %s %d %s", op, comm_label (c, split_comm), me, r);
}

/* a non-blocking collective: its request and its completion (NonBlockingCollectiveComplete) */
static void
note_icoll (const char *op, MPI_Comm c, int root, long sent, long recv)
{
  char r[16];
  if (root < 0)
    snprintf (r, sizeof r, "none");
  else
    snprintf (r, sizeof r, "%d", root);
  fact (0, 0, 0, "icollrequest %d", me);
  fact (2, sent, recv, "icoll %s %s %d %s", op, comm_label (c, split_comm), me, r);
}

static void
write_counts (const char *dir)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/counts.%d", dir, me);
  FILE *f = fopen (path, "w");
  if (f == NULL)
    {
      perror (path);
      exit (1);
    }
  for (int i = 0; i < n_facts; i++)
    if (facts[i].kind == 0)
      fprintf (f, "%s %ld\n", facts[i].key, facts[i].count);
    else if (facts[i].kind == 1)
      fprintf (f, "%s %ld %ld\n", facts[i].key, facts[i].count, facts[i].a);
    else
      fprintf (f, "%s %ld %ld %ld\n", facts[i].key, facts[i].count, facts[i].a, facts[i].b);
  fclose (f);
}

#define I ((long)sizeof (int))
#define D ((long)sizeof (double))

int
main (int argc, char **argv)
{
  int provided;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int n;
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  fact (0, 0, 0, "enter MPI_Init_thread %d", me);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  if (n != 4 || argc < 2)
    {
      if (me == 0)
        fprintf (stderr, "usage: mpirun -n 4 collect-more COUNTS_DIR [exit3]\n");
      MPI_Finalize ();
      return 2;
    }
  const MPI_Comm W = MPI_COMM_WORLD;
  static char    bsend_buffer[1 << 16];
  CALL (MPI_Buffer_attach, bsend_buffer, sizeof bsend_buffer);
  int         buf[64] = { 0 }, rbuf[64] = { 0 };
  double      dbuf[16] = { 0 }, pd[4];
  MPI_Status  st;
  MPI_Request rq[8];
  int         flag = 0, idx = 0, outcount = 0, indices[8];

  /* 1. blocking send modes 0 -> 1, received with wildcards; a send to MPI_PROC_NULL */
  if (me == 1)
    {
      CALL (MPI_Irecv, rbuf + 32, 8, MPI_INT, 0, 22, W, &rq[0]); /* for the Rsend */
      note_msg ("irecv", 0, W, 22, 8 * I);
    }
  CALL (MPI_Barrier, W);
  note_coll ("BARRIER", W, -1, 0, 0);
  if (me == 0)
    {
      CALL (MPI_Bsend, buf, 3, MPI_INT, 1, 21, W);
      note_msg ("send", 1, W, 21, 3 * I);
      CALL (MPI_Rsend, buf, 8, MPI_INT, 1, 22, W);
      note_msg ("send", 1, W, 22, 8 * I);
      CALL (MPI_Ssend, dbuf, 2, MPI_DOUBLE, 1, 23, W);
      note_msg ("send", 1, W, 23, 2 * D);
      CALL (MPI_Send, buf, 5, MPI_INT, MPI_PROC_NULL, 24, W); /* region only */
    }
  else if (me == 1)
    {
      CALL (MPI_Recv, rbuf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, MPI_STATUS_IGNORE);
      note_msg ("recv", 0, W, 21, 3 * I);
      CALL (MPI_Wait, &rq[0], &st);
      CALL (MPI_Recv, dbuf, 16, MPI_DOUBLE, 0, MPI_ANY_TAG, W, &st);
      note_msg ("recv", 0, W, 23, 2 * D);
      CALL (MPI_Recv, rbuf, 5, MPI_INT, MPI_PROC_NULL, 24, W, &st); /* region only */
    }

  /* 2. non-blocking send modes 2 -> 3: receives posted first (Irsend), wildcard sources;
   * the sender polls with Testsome, the receiver completes with Waitany */
  if (me == 3)
    for (int t = 0; t < 4; t++)
      {
        CALL (MPI_Irecv, rbuf + 16 * t, 16, MPI_INT, MPI_ANY_SOURCE, 31 + t, W, &rq[t]);
        note_msg ("irecv", 2, W, 31 + t, (t + 1) * I);
      }
  CALL (MPI_Barrier, W);
  note_coll ("BARRIER", W, -1, 0, 0);
  if (me == 2)
    {
      CALL (MPI_Ibsend, buf, 1, MPI_INT, 3, 31, W, &rq[0]);
      CALL (MPI_Issend, buf, 2, MPI_INT, 3, 32, W, &rq[1]);
      CALL (MPI_Irsend, buf, 3, MPI_INT, 3, 33, W, &rq[2]);
      CALL (MPI_Isend, buf, 4, MPI_INT, 3, 34, W, &rq[3]);
      for (int t = 0; t < 4; t++)
        note_msg ("isend", 3, W, 31 + t, (t + 1) * I);
      int done = 0;
      while (done < 4)
        {
          CALL (MPI_Testsome, 4, rq, &outcount, indices, MPI_STATUSES_IGNORE);
          if (outcount != MPI_UNDEFINED)
            done += outcount;
        }
    }
  else if (me == 3)
    for (int t = 0; t < 4; t++)
      CALL (MPI_Waitany, 4, rq, &idx, t % 2 ? &st : MPI_STATUS_IGNORE);

  /* 3. persistent requests of every send mode 0 -> 1, two rounds (Startall, then Start) */
  if (me == 0)
    {
      CALL (MPI_Bsend_init, buf, 1, MPI_INT, 1, 41, W, &rq[0]);
      CALL (MPI_Ssend_init, buf, 2, MPI_INT, 1, 42, W, &rq[1]);
      CALL (MPI_Rsend_init, buf, 3, MPI_INT, 1, 43, W, &rq[2]);
      CALL (MPI_Send_init, dbuf, 4, MPI_DOUBLE, 1, 44, W, &rq[3]);
    }
  else if (me == 1)
    for (int t = 0; t < 4; t++)
      CALL (MPI_Recv_init, t == 3 ? (void *)pd : (void *)(rbuf + 16 * t), t == 3 ? 4 : 16,
            t == 3 ? MPI_DOUBLE : MPI_INT, t == 0 ? MPI_ANY_SOURCE : 0, 41 + t, W, &rq[t]);
  for (int round = 0; round < 2; round++)
    {
      if (me == 1)
        {
          if (round == 0)
            CALL (MPI_Startall, 4, rq);
          else
            for (int t = 0; t < 4; t++)
              CALL (MPI_Start, &rq[t]);
          for (int t = 0; t < 4; t++)
            note_msg ("irecv", 0, W, 41 + t, t == 3 ? 4 * D : (t + 1) * I);
        }
      CALL (MPI_Barrier, W); /* the receives are posted before the Rsend */
      note_coll ("BARRIER", W, -1, 0, 0);
      if (me == 0)
        {
          if (round == 0)
            CALL (MPI_Startall, 4, rq);
          else
            for (int t = 0; t < 4; t++)
              CALL (MPI_Start, &rq[t]);
          for (int t = 0; t < 4; t++)
            note_msg ("isend", 1, W, 41 + t, t == 3 ? 4 * D : (t + 1) * I);
          CALL (MPI_Waitall, 4, rq, MPI_STATUSES_IGNORE);
        }
      else if (me == 1)
        {
          if (round == 0)
            {
              flag = 0;
              while (!flag)
                CALL (MPI_Testall, 4, rq, &flag, MPI_STATUSES_IGNORE);
            }
          else
            for (int t = 0; t < 4; t++)
              CALL (MPI_Wait, &rq[t], MPI_STATUS_IGNORE);
        }
    }
  if (me <= 1)
    for (int t = 0; t < 4; t++)
      CALL (MPI_Request_free, &rq[t]);

  /* 4. probes: Iprobe + Recv (0 -> 2), Mprobe + Mrecv (1 -> 2 on @split), Improbe + Imrecv +
   * Test (3 -> 2), all with wildcards */
  MPI_Comm split;
  CALL (MPI_Comm_split, W, me > 0 ? 1 : MPI_UNDEFINED, me, &split);
  split_comm = split;
  if (me == 0)
    {
      CALL (MPI_Send, buf, 6, MPI_INT, 2, 51, W);
      note_msg ("send", 2, W, 51, 6 * I);
    }
  else if (me == 1)
    {
      CALL (MPI_Send, dbuf, 7, MPI_DOUBLE, 1, 52, split); /* world 2 is rank 1 of split */
      note_msg ("send", 1, split, 52, 7 * D);
    }
  else if (me == 3)
    {
      CALL (MPI_Send, buf, 9, MPI_INT, 2, 53, W);
      note_msg ("send", 2, W, 53, 9 * I);
    }
  else if (me == 2)
    {
      flag = 0;
      while (!flag)
        CALL (MPI_Iprobe, MPI_ANY_SOURCE, 51, W, &flag, &st);
      CALL (MPI_Recv, rbuf, 64, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, W, MPI_STATUS_IGNORE);
      note_msg ("recv", 0, W, 51, 6 * I);
      MPI_Message m;
      CALL (MPI_Mprobe, MPI_ANY_SOURCE, MPI_ANY_TAG, split, &m, &st);
      CALL (MPI_Mrecv, dbuf, 16, MPI_DOUBLE, &m, MPI_STATUS_IGNORE);
      note_msg ("recv", 0, split, 52, 7 * D);
      flag = 0;
      while (!flag)
        CALL (MPI_Improbe, MPI_ANY_SOURCE, 53, W, &flag, &m, MPI_STATUS_IGNORE);
      CALL (MPI_Imrecv, rbuf, 64, MPI_INT, &m, &rq[0]);
      note_msg ("irecv", 3, W, 53, 9 * I);
      flag = 0;
      while (!flag)
        CALL (MPI_Test, &rq[0], &flag, MPI_STATUS_IGNORE);
      /* a matched probe of MPI_PROC_NULL: no message */
      CALL (MPI_Mprobe, MPI_PROC_NULL, 0, W, &m, &st);
      CALL (MPI_Mrecv, rbuf, 1, MPI_INT, &m, &st);
    }

  /* 5. Sendrecv_replace ring with a wildcard source; Sendrecv with MPI_PROC_NULL */
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  CALL (MPI_Sendrecv_replace, buf, 5, MPI_INT, next, 61, MPI_ANY_SOURCE, 61, W, &st);
  note_msg ("send", next, W, 61, 5 * I);
  note_msg ("recv", prev, W, 61, 5 * I);
  CALL (MPI_Sendrecv, buf, 1, MPI_INT, MPI_PROC_NULL, 62, rbuf, 1, MPI_INT, MPI_PROC_NULL, 62, W,
        MPI_STATUS_IGNORE);
  /* receives from MPI_PROC_NULL, non-blocking and persistent: regions only, no request (Open
   * MPI hands out its shared empty request for the first, the handle an inline send gets too) */
  {
    MPI_Request pn;
    CALL (MPI_Isend, buf, 1, MPI_INT, next, 63, W, &rq[0]);
    note_msg ("isend", next, W, 63, I);
    CALL (MPI_Irecv, rbuf, 1, MPI_INT, MPI_PROC_NULL, 63, W, &rq[1]);
    CALL (MPI_Irecv, rbuf + 1, 1, MPI_INT, prev, 63, W, &rq[2]);
    note_msg ("irecv", prev, W, 63, I);
    CALL (MPI_Wait, &rq[1], &st);
    CALL (MPI_Waitall, 2, rq + 1, MPI_STATUSES_IGNORE);
    CALL (MPI_Wait, &rq[0], &st);
    CALL (MPI_Recv_init, rbuf, 1, MPI_INT, MPI_PROC_NULL, 64, W, &pn);
    CALL (MPI_Start, &pn);
    CALL (MPI_Wait, &pn, &st);
    CALL (MPI_Request_free, &pn);
  }

  /* 6. a cancelled receive; Testany on a message 1 -> 0 */
  if (me == 0)
    {
      CALL (MPI_Irecv, rbuf, 1, MPI_INT, 3, 99, W, &rq[0]); /* never sent */
      fact (0, 0, 0, "irecvrequest %d", me);
      CALL (MPI_Cancel, &rq[0]);
      CALL (MPI_Wait, &rq[0], &st);
      fact (0, 0, 0, "cancelled %d", me);
      CALL (MPI_Irecv, rbuf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &rq[0]);
      note_msg ("irecv", 1, W, 71, 2 * I);
      flag = 0;
      while (!flag)
        CALL (MPI_Testany, 1, rq, &idx, &flag, MPI_STATUS_IGNORE);
    }
  else if (me == 1)
    {
      CALL (MPI_Isend, buf, 2, MPI_INT, 0, 71, W, &rq[0]);
      note_msg ("isend", 0, W, 71, 2 * I);
      outcount = 0;
      while (outcount == 0)
        CALL (MPI_Waitsome, 1, rq, &outcount, indices, MPI_STATUSES_IGNORE);
    }

  /* 7. collectives with unequal counts, mixed types and MPI_IN_PLACE, on MPI_COMM_WORLD */
  int          counts[4], displs[4], rcounts[4], rdispls[4], wd[4], wrd[4];
  MPI_Datatype types[4];
  static int   big[256], big2[256];
  long         sum_counts = 0;
  for (int i = 0; i < n; i++)
    {
      counts[i] = i + 1;
      displs[i] = 8 * i;
      sum_counts += i + 1;
    }
  /* Gatherv at root 1, IN_PLACE at the root: rank r gives r+1 ints */
  if (me == 1)
    CALL (MPI_Gatherv, MPI_IN_PLACE, 0, MPI_INT, big, counts, displs, MPI_INT, 1, W);
  else
    CALL (MPI_Gatherv, big2, me + 1, MPI_INT, big, counts, displs, MPI_INT, 1, W);
  note_coll ("GATHERV", W, 1, (me + 1) * I, me == 1 ? sum_counts * I : 0);
  /* Scatterv from root 3 */
  CALL (MPI_Scatterv, big2, counts, displs, MPI_INT, big, me + 1, MPI_INT, 3, W);
  note_coll ("SCATTERV", W, 3, me == 3 ? sum_counts * I : 0, (me + 1) * I);
  /* Allgatherv in place */
  CALL (MPI_Allgatherv, MPI_IN_PLACE, 0, MPI_INT, big, counts, displs, MPI_INT, W);
  note_coll ("ALLGATHERV", W, -1, n * (me + 1) * I, sum_counts * I);
  /* Alltoallv: rank me sends j+1 ints to rank j and gets me+1 ints from each */
  for (int j = 0; j < n; j++)
    {
      rcounts[j] = me + 1;
      rdispls[j] = 8 * j;
    }
  CALL (MPI_Alltoallv, big2, counts, displs, MPI_INT, big, rcounts, rdispls, MPI_INT, W);
  note_coll ("ALLTOALLV", W, -1, sum_counts * I, n * (me + 1) * I);
  /* Alltoallw: ints to even ranks, doubles to odd ranks (byte displacements) */
  long wsent = 0, wrecv = 0;
  for (int j = 0; j < n; j++)
    {
      types[j] = j % 2 ? MPI_DOUBLE : MPI_INT;
      counts[j] = 2;
      wd[j] = 64 * j;
      wsent += 2 * (j % 2 ? D : I);
    }
  MPI_Datatype rtypes[4];
  for (int j = 0; j < n; j++)
    {
      rtypes[j] = me % 2 ? MPI_DOUBLE : MPI_INT;
      rcounts[j] = 2;
      wrd[j] = 64 * j;
      wrecv += 2 * (me % 2 ? D : I);
    }
  CALL (MPI_Alltoallw, big2, counts, wd, types, big, rcounts, wrd, rtypes, W);
  note_coll ("ALLTOALLW", W, -1, wsent, wrecv);
  /* Reduce_scatter with unequal blocks, Reduce_scatter_block, Scan, Exscan */
  for (int j = 0; j < n; j++)
    counts[j] = j + 1;
  CALL (MPI_Reduce_scatter, big2, big, counts, MPI_INT, MPI_SUM, W);
  note_coll ("REDUCE_SCATTER", W, -1, sum_counts * I, n * (me + 1) * I);
  CALL (MPI_Reduce_scatter_block, dbuf, dbuf + 8, 2, MPI_DOUBLE, MPI_MAX, W);
  note_coll ("REDUCE_SCATTER_BLOCK", W, -1, n * 2 * D, n * 2 * D);
  CALL (MPI_Scan, buf, rbuf, 3, MPI_INT, MPI_SUM, W);
  note_coll ("SCAN", W, -1, (n - me) * 3 * I, (me + 1) * 3 * I);
  CALL (MPI_Exscan, dbuf, dbuf + 4, 2, MPI_DOUBLE, MPI_SUM, W);
  note_coll ("EXSCAN", W, -1, (n - me - 1) * 2 * D, me * 2 * D);
  /* Reduce in place at root 0, Gather in place at root 2, Allgather in place */
  CALL (MPI_Reduce, me == 0 ? MPI_IN_PLACE : (void *)buf, rbuf, 4, MPI_INT, MPI_MAX, 0, W);
  note_coll ("REDUCE", W, 0, 4 * I, me == 0 ? n * 4 * I : 0);
  CALL (MPI_Gather, me == 2 ? MPI_IN_PLACE : (void *)buf, 2, MPI_INT, big, 2, MPI_INT, 2, W);
  note_coll ("GATHER", W, 2, 2 * I, me == 2 ? n * 2 * I : 0);
  CALL (MPI_Allgather, MPI_IN_PLACE, 0, MPI_INT, big, 3, MPI_INT, W);
  note_coll ("ALLGATHER", W, -1, n * 3 * I, n * 3 * I);
  CALL (MPI_Reduce_local, buf, rbuf, 4, MPI_INT, MPI_SUM); /* region only, no communicator */

  /* 8. collectives on @split (world ranks 1 2 3; rank 0 has MPI_COMM_NULL) */
  if (split != MPI_COMM_NULL)
    {
      CALL (MPI_Allreduce, buf, rbuf, 2, MPI_INT, MPI_SUM, split);
      note_coll ("ALLREDUCE", split, -1, 3 * 2 * I, 3 * 2 * I);
      CALL (MPI_Bcast, dbuf, 3, MPI_DOUBLE, 1, split);
      note_coll ("BCAST", split, 1, me == 2 ? 3 * 3 * D : 0, 3 * D);
      CALL (MPI_Scatter, big2, 2, MPI_INT, big, 2, MPI_INT, 0, split);
      note_coll ("SCATTER", split, 0, me == 1 ? 3 * 2 * I : 0, 2 * I);
      CALL (MPI_Alltoall, big2, 1, MPI_INT, big, 1, MPI_INT, split);
      note_coll ("ALLTOALL", split, -1, 3 * I, 3 * I);
      CALL (MPI_Comm_free, &split);
      split_comm = MPI_COMM_NULL; /* its handle may come back for another communicator */
    }

  /* 10. topologies: a periodic 2x2 grid and its rows, a graph ring, distributed graphs;
   * neighbourhood collectives (regions only) */
  int      dims[2] = { 2, 2 }, periods[2] = { 1, 1 }, remain[2] = { 0, 1 };
  MPI_Comm cart, row, graph, dist, adj;
  CALL (MPI_Cart_create, W, 2, dims, periods, 0, &cart);
  CALL (MPI_Cart_sub, cart, remain, &row);
  CALL (MPI_Neighbor_allgather, buf, 1, MPI_INT, big, 1, MPI_INT, cart);
  CALL (MPI_Barrier, row);
  note_coll ("BARRIER", row, -1, 0, 0);
  int index[4] = { 2, 4, 6, 8 }, edges[8] = { 1, 3, 0, 2, 1, 3, 2, 0 };
  CALL (MPI_Graph_create, W, 4, index, edges, 0, &graph);
  CALL (MPI_Barrier, graph);
  note_coll ("BARRIER", graph, -1, 0, 0);
  int src = me, deg = 1, dst = next, wgt = 1;
  CALL (MPI_Dist_graph_create, W, 1, &src, &deg, &dst, &wgt, MPI_INFO_NULL, 0, &dist);
  CALL (MPI_Neighbor_alltoall, buf, 1, MPI_INT, rbuf, 1, MPI_INT, dist);
  int in = prev, inw = 1, outw = 1;
  CALL (MPI_Dist_graph_create_adjacent, W, 1, &in, &inw, 1, &dst, &outw, MPI_INFO_NULL, 0, &adj);
  CALL (MPI_Ineighbor_allgather, buf, 1, MPI_INT, rbuf, 1, MPI_INT, adj, &rq[0]);
  CALL (MPI_Wait, &rq[0], MPI_STATUS_IGNORE);
  CALL (MPI_Allreduce, MPI_IN_PLACE, buf, 1, MPI_INT, MPI_MAX, adj);
  note_coll ("ALLREDUCE", adj, -1, n * I, n * I);
  CALL (MPI_Comm_free, &adj);
  CALL (MPI_Comm_free, &dist);
  CALL (MPI_Comm_free, &graph);
  CALL (MPI_Comm_free, &row);
  CALL (MPI_Comm_free, &cart);
  MPI_Comm dup;
  CALL (MPI_Comm_dup, W, &dup);
  CALL (MPI_Bcast, buf, 1, MPI_INT, 3, dup);
  note_coll ("BCAST", dup, 3, me == 3 ? n * I : 0, I);
  CALL (MPI_Comm_free, &dup);
  /* Comm_create_group: only the members call it; the even and the odd ranks each make two
   * communicators with the same tag */
  MPI_Group wg, pair;
  int       members[2] = { me % 2, me % 2 + 2 };
  MPI_Comm_group (W, &wg);
  MPI_Group_incl (wg, 2, members, &pair);
  for (int k = 0; k < 2; k++)
    {
      MPI_Comm half;
      CALL (MPI_Comm_create_group, W, pair, 7, &half);
      CALL (MPI_Barrier, half);
      note_coll ("BARRIER", half, -1, 0, 0);
      CALL (MPI_Comm_free, &half);
    }
  MPI_Group_free (&pair);
  MPI_Group_free (&wg);

  /* inter-communicators: world ranks {0, 3} (group A) and {1, 2}; local rank i talks to remote
   * rank i (0 <-> 1, 3 <-> 2) */
  {
    int      a = me == 0 || me == 3, lr, mr;
    MPI_Comm local, inter, idup, merged, widup;
    MPI_Request rq;
    static int ibuf[4], sbuf[4] = { 1, 2, 3, 4 }, fbuf[2];
    CALL (MPI_Comm_split, W, a, me, &local);
    MPI_Comm_rank (local, &lr);
    CALL (MPI_Intercomm_create, local, 0, W, a ? 1 : 0, 81, &inter);
    /* a blocking message each way */
    if (a)
      {
        CALL (MPI_Send, sbuf, 3, MPI_INT, lr, 82, inter);
        note_msg ("send", lr, inter, 82, 3 * I);
        CALL (MPI_Recv, ibuf, 4, MPI_INT, lr, 83, inter, MPI_STATUS_IGNORE);
        note_msg ("recv", lr, inter, 83, 4 * I);
      }
    else
      {
        CALL (MPI_Recv, ibuf, 4, MPI_INT, lr, 82, inter, MPI_STATUS_IGNORE);
        note_msg ("recv", lr, inter, 82, 3 * I);
        CALL (MPI_Send, sbuf, 4, MPI_INT, lr, 83, inter);
        note_msg ("send", lr, inter, 83, 4 * I);
      }
    /* MPI_Request_free of active requests: a send freed before completion is still a send
     * (completed in the trace at the free); a receive freed before completion is ended as
     * cancelled (its message is never seen).  The receiver of the freed send waits for it,
     * then the barrier lets the sender of the unseen message reuse nothing early. */
    if (a)
      {
        CALL (MPI_Isend, sbuf, 2, MPI_INT, lr, 84, inter, &rq);
        note_msg ("isend", lr, inter, 84, 2 * I);
        CALL (MPI_Request_free, &rq);
        CALL (MPI_Irecv, fbuf, 2, MPI_INT, lr, 85, inter, &rq);
        fact (0, 0, 0, "irecvrequest %d", me);
        fact (0, 0, 0, "cancelled %d", me);
        CALL (MPI_Request_free, &rq);
      }
    else
      {
        CALL (MPI_Recv, ibuf, 2, MPI_INT, lr, 84, inter, MPI_STATUS_IGNORE);
        note_msg ("recv", lr, inter, 84, 2 * I);
        CALL (MPI_Send, sbuf, 1, MPI_INT, lr, 85, inter);
        note_msg ("send", lr, inter, 85, I);
      }
    CALL (MPI_Barrier, W);
    note_coll ("BARRIER", W, -1, 0, 0);
    /* Comm_idup of the inter-communicator: usable once its request completed */
    CALL (MPI_Comm_idup, inter, &idup, &rq);
    CALL (MPI_Wait, &rq, MPI_STATUS_IGNORE);
    if (a)
      {
        CALL (MPI_Send, sbuf, 1, MPI_INT, lr, 86, idup);
        note_msg ("send", lr, idup, 86, I);
      }
    else
      {
        CALL (MPI_Recv, ibuf, 1, MPI_INT, lr, 86, idup, MPI_STATUS_IGNORE);
        note_msg ("recv", lr, idup, 86, I);
      }
    CALL (MPI_Comm_free, &idup);
    /* merged: group A first (world 0 3 1 2); root merged rank 1 = world rank 3 */
    CALL (MPI_Intercomm_merge, inter, !a, &merged);
    MPI_Comm_rank (merged, &mr);
    CALL (MPI_Bcast, buf, 1, MPI_INT, 1, merged);
    note_coll ("BCAST", merged, 1, mr == 1 ? n * I : 0, I);
    CALL (MPI_Comm_idup, W, &widup, &rq);
    CALL (MPI_Wait, &rq, MPI_STATUS_IGNORE);
    CALL (MPI_Allreduce, MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, widup);
    note_coll ("ALLREDUCE", widup, -1, n * 2 * I, n * 2 * I);
    CALL (MPI_Comm_free, &widup);
    CALL (MPI_Comm_free, &merged);
    CALL (MPI_Comm_free, &inter);
    CALL (MPI_Comm_free, &local);
  }

  /* 11. derived datatypes 0 -> 1: the collector keeps the sizes of predefined types only; a
   * derived type freed and made again (its handle often comes back) with another size must be
   * measured again, on both sides; MPI_INT in between keeps its cached size */
  for (int k = 1; k <= 3; k++)
    {
      MPI_Datatype dt;
      MPI_Type_contiguous (k == 2 ? 5 : k, MPI_INT, &dt);
      MPI_Type_commit (&dt);
      long bytes = (k == 2 ? 5 : k) * I;
      if (me == 0)
        {
          CALL (MPI_Send, buf, 2, dt, 1, 90 + k, W);
          note_msg ("send", 1, W, 90 + k, 2 * bytes);
          CALL (MPI_Send, buf, k, MPI_INT, 1, 95, W);
          note_msg ("send", 1, W, 95, k * I);
        }
      else if (me == 1)
        {
          CALL (MPI_Recv, rbuf, 2, dt, 0, 90 + k, W, MPI_STATUS_IGNORE);
          note_msg ("recv", 0, W, 90 + k, 2 * bytes);
          CALL (MPI_Recv, rbuf, 3, MPI_INT, 0, 95, W, &st);
          note_msg ("recv", 0, W, 95, k * I);
        }
      MPI_Type_free (&dt);
    }

  /* (Section 9 comes last: Open MPI 4.1's MPI_Dist_graph_create exchanges its edges with the
   * fixed tags -50/-51 on the parent communicator, which the non-blocking collectives' tags
   * reach as they count down from -27; a Dist_graph_create at that point hangs in its CID
   * agreement, 1 run in 15 here (open-mpi/ompi#13918, fixed after 4.1). Ahead of section 10
   * these calls brought the count there.) */
  /* 9. non-blocking collectives: requests, completed by Waitall, by Test, by Waitany and
   * Testall, and one freed (erroneous by MPI-3.1 5.12, but the collector must survive it: the
   * request ends as MpiRequestCancelled) */
  CALL (MPI_Ibcast, buf + 16, 4, MPI_INT, 0, W, &rq[0]);
  note_icoll ("BCAST", W, 0, me == 0 ? n * 4 * I : 0, 4 * I);
  CALL (MPI_Ialltoall, big2, 1, MPI_INT, big, 1, MPI_INT, W, &rq[1]);
  note_icoll ("ALLTOALL", W, -1, n * I, n * I);
  CALL (MPI_Ireduce, buf, rbuf, 2, MPI_INT, MPI_SUM, 3, W, &rq[2]);
  note_icoll ("REDUCE", W, 3, 2 * I, me == 3 ? n * 2 * I : 0);
  CALL (MPI_Iallgather, buf, 1, MPI_INT, big + 64, 1, MPI_INT, W, &rq[3]);
  note_icoll ("ALLGATHER", W, -1, n * I, n * I);
  CALL (MPI_Iscan, buf + 8, rbuf + 8, 1, MPI_INT, MPI_SUM, W, &rq[4]);
  note_icoll ("SCAN", W, -1, (n - me) * I, (me + 1) * I);
  CALL (MPI_Waitall, 5, rq, MPI_STATUSES_IGNORE);
  CALL (MPI_Ibarrier, W, &rq[0]);
  note_icoll ("BARRIER", W, -1, 0, 0);
  flag = 0;
  while (!flag)
    CALL (MPI_Test, &rq[0], &flag, MPI_STATUS_IGNORE);
  CALL (MPI_Iallreduce, buf, rbuf, 3, MPI_INT, MPI_SUM, W, &rq[0]);
  note_icoll ("ALLREDUCE", W, -1, n * 3 * I, n * 3 * I);
  CALL (MPI_Iexscan, buf, rbuf + 4, 2, MPI_INT, MPI_SUM, W, &rq[1]);
  note_icoll ("EXSCAN", W, -1, (n - me - 1) * 2 * I, me * 2 * I);
  {
    int got;
    CALL (MPI_Waitany, 2, rq, &got, MPI_STATUS_IGNORE);
    flag = 0;
    while (!flag)
      CALL (MPI_Testall, 2, rq, &flag, MPI_STATUSES_IGNORE);
  }
  /* Open MPI refuses to free it (MPI_ERR_REQUEST) and the request stays active: the trace has
   * ended it all the same, and the MPI_Wait that completes it then records nothing */
  CALL (MPI_Ibarrier, W, &rq[0]);
  fact (0, 0, 0, "icollrequest %d", me);
  fact (0, 0, 0, "cancelled %d", me);
  MPI_Comm_set_errhandler (W, MPI_ERRORS_RETURN);
  MPI_Request keep = rq[0];
  if (CALL (MPI_Request_free, &rq[0]) != MPI_SUCCESS || rq[0] != MPI_REQUEST_NULL)
    {
      rq[0] = keep;
      CALL (MPI_Wait, &rq[0], MPI_STATUS_IGNORE);
    }
  MPI_Comm_set_errhandler (W, MPI_ERRORS_ARE_FATAL);

  void *detached;
  int   detached_size;
  CALL (MPI_Buffer_detach, &detached, &detached_size);
  fact (0, 0, 0, "enter MPI_Finalize %d", me);
  /* before MPI_Finalize: with exit3, mpirun kills the ranks still running when the first
   * returns 3 */
  write_counts (argv[1]);
  if (me == 0)
    {
      printf ("collect-more: done\n");
      fflush (stdout);
    }
  MPI_Finalize ();
  return argc > 2 && strcmp (argv[2], "exit3") == 0 ? 3 : 0;
}
