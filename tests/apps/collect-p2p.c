/* collect-p2p: MPI calls with counts known by construction, for the
 * collector tests (tests/collect/collect-test.py lists the expected trace).
 * Needs at least 4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define K 10 /* blocking sends 0 -> 1 */

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size < 4)
    {
      if (rank == 0)
        fprintf (stderr, "collect-p2p needs 4 or more ranks\n");
      MPI_Finalize ();
      return 2;
    }
  int        next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int        buf[100] = { 0 };
  double     d[8] = { 0 }, e[8];
  MPI_Status st;

  /* K blocking sends of 100 ints, received with wildcards and no status */
  for (int i = 0; i < K; i++)
    {
      if (rank == 0)
        MPI_Send (buf, 100, MPI_INT, 1, 5, MPI_COMM_WORLD);
      else if (rank == 1)
        MPI_Recv (buf, 100, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    }

  /* ring of Isend/Irecv of 8 doubles, completed by Waitall without status */
  MPI_Request rq[2];
  MPI_Irecv (e, 8, MPI_DOUBLE, prev, 9, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend (d, 8, MPI_DOUBLE, next, 9, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall (2, rq, MPI_STATUSES_IGNORE);

  /* Sendrecv ring of 4 ints */
  int s4[4] = { 0 }, r4[4];
  MPI_Sendrecv (s4, 4, MPI_INT, next, 11, r4, 4, MPI_INT, prev, 11, MPI_COMM_WORLD, &st);

  /* persistent requests: 3 rounds of 2 ints 0 -> 1 */
  MPI_Request p = MPI_REQUEST_NULL;
  if (rank == 0)
    MPI_Send_init (buf, 2, MPI_INT, 1, 13, MPI_COMM_WORLD, &p);
  else if (rank == 1)
    MPI_Recv_init (buf, 2, MPI_INT, 0, 13, MPI_COMM_WORLD, &p);
  if (rank <= 1)
    {
      for (int i = 0; i < 3; i++)
        {
          MPI_Start (&p);
          MPI_Wait (&p, MPI_STATUS_IGNORE);
        }
      MPI_Request_free (&p);
    }

  /* Probe then Recv of one int */
  if (rank == 0)
    MPI_Send (buf, 1, MPI_INT, 1, 30, MPI_COMM_WORLD);
  else if (rank == 1)
    {
      MPI_Probe (0, 30, MPI_COMM_WORLD, &st);
      MPI_Recv (buf, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
    }

  /* Ssend 2 -> 3, received by Irecv + Wait */
  if (rank == 2)
    MPI_Ssend (buf, 3, MPI_INT, 3, 3, MPI_COMM_WORLD);
  else if (rank == 3)
    {
      MPI_Request r;
      MPI_Irecv (buf, 3, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &r);
      MPI_Wait (&r, MPI_STATUS_IGNORE);
    }

  /* the other completion calls: Waitany, Testall, Testany, Waitsome */
  if (rank == 0)
    {
      MPI_Request r2[2];
      int         x[2], idx;
      MPI_Irecv (&x[0], 1, MPI_INT, 3, 40, MPI_COMM_WORLD, &r2[0]);
      MPI_Irecv (&x[1], 1, MPI_INT, 3, 41, MPI_COMM_WORLD, &r2[1]);
      MPI_Waitany (2, r2, &idx, MPI_STATUS_IGNORE);
      MPI_Waitany (2, r2, &idx, &st);
    }
  else if (rank == 3)
    {
      MPI_Request r2[2];
      int         x[2] = { 1, 2 }, done = 0;
      MPI_Isend (&x[0], 1, MPI_INT, 0, 40, MPI_COMM_WORLD, &r2[0]);
      MPI_Isend (&x[1], 1, MPI_INT, 0, 41, MPI_COMM_WORLD, &r2[1]);
      while (!done)
        MPI_Testall (2, r2, &done, MPI_STATUSES_IGNORE);
    }
  else if (rank == 2)
    {
      MPI_Request r1;
      int         x, done = 0, idx;
      MPI_Irecv (&x, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, &r1);
      while (!done)
        MPI_Testany (1, &r1, &idx, &done, MPI_STATUS_IGNORE);
    }
  else if (rank == 1)
    {
      MPI_Request r1;
      int         x = 7, outcount = 0, idx[1];
      MPI_Isend (&x, 1, MPI_INT, 2, 42, MPI_COMM_WORLD, &r1);
      while (outcount == 0)
        MPI_Waitsome (1, &r1, &outcount, idx, MPI_STATUSES_IGNORE);
    }

  /* Sendrecv_replace ring of 2 ints */
  int two[2] = { rank, rank };
  MPI_Sendrecv_replace (two, 2, MPI_INT, next, 12, prev, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  /* blocking collectives */
  int          counts[64], displs[64], rcounts[64], rdispls[64];
  MPI_Datatype types[64];
  static int   big[4096], big2[4096];
  for (int i = 0; i < size; i++)
    {
      counts[i] = 1;
      displs[i] = i;
      rcounts[i] = 1;
      rdispls[i] = i;
      types[i] = MPI_INT;
    }
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Bcast (buf, 10, MPI_INT, 1, MPI_COMM_WORLD);
  MPI_Reduce (d, e, 3, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
  MPI_Allreduce (MPI_IN_PLACE, buf, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Gather (buf, 2, MPI_INT, big, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gatherv (buf, 1, MPI_INT, big, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Scatter (big, 1, MPI_INT, buf, 1, MPI_INT, 3, MPI_COMM_WORLD);
  MPI_Scatterv (big, counts, displs, MPI_INT, buf, 1, MPI_INT, 3, MPI_COMM_WORLD);
  MPI_Allgather (buf, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgatherv (buf, 1, MPI_INT, big, counts, displs, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoall (big2, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoallv (big2, counts, displs, MPI_INT, big, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++)
    {
      displs[i] = i * (int)sizeof (int); /* Alltoallw displs are bytes */
      rdispls[i] = i * (int)sizeof (int);
    }
  MPI_Alltoallw (big2, counts, displs, types, big, rcounts, rdispls, types, MPI_COMM_WORLD);
  MPI_Reduce_scatter (big2, buf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block (big2, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan (buf, buf + 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan (buf, buf + 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier (MPI_COMM_WORLD);

  /* communicators */
  MPI_Comm half, dup;
  MPI_Comm_split (MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Bcast (buf, 1, MPI_INT, 0, half);
  MPI_Comm_dup (MPI_COMM_WORLD, &dup);
  MPI_Barrier (dup);
  MPI_Comm_free (&dup);
  MPI_Comm_free (&half);

  /* non-blocking collectives: regions only */
  MPI_Request nb;
  MPI_Ibarrier (MPI_COMM_WORLD, &nb);
  MPI_Wait (&nb, MPI_STATUS_IGNORE);
  MPI_Iallreduce (MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &nb);
  MPI_Wait (&nb, MPI_STATUS_IGNORE);

  if (rank == 0)
    printf ("collect-p2p: done on %d ranks\n", size);
  MPI_Finalize ();
  return 0;
}
