/* sim-patterns.c — communication patterns of codes nobody tuned the simulator for (tests/sim,
 * issue 21), at 2 ranks, each a phase of its own: a blocking MPI_Mprobe/MPI_Mrecv of any source
 * (a server loop), small blocking collectives of many kinds whose members arrive together, a
 * halo exchange of rendezvous messages (MPI_Isend/MPI_Irecv/MPI_Waitall), persistent requests
 * (MPI_Startall) and MPI_Waitsome. Computation is nanosleep (robust on a busy machine), uneven
 * between the ranks so that each phase also waits. The identity simulation of its trace must
 * give the run back in both modes (sim-test.py patterns). With the argument "busy" the
 * computation is CPU time instead (a busy loop on the thread's CPU clock), for more ranks than
 * cores: the ranks then compete for the CPUs and wait for them in MPI (sim-test.py
 * patterns-busy). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 40

static int busy;
static volatile double sink;

/* @us of computation: a sleep, or with "busy" that much CPU time */
static void
nap_us (long us)
{
  if (busy)
    {
      struct timespec a, b;
      double x = 1;
      clock_gettime (CLOCK_THREAD_CPUTIME_ID, &a);
      do
        {
          for (int i = 0; i < 2000; i++)
            x = x * 1.0000001 + 1e-9;
          clock_gettime (CLOCK_THREAD_CPUTIME_ID, &b);
        }
      while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
      sink = x;
      return;
    }
  struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
  while (nanosleep (&t, &t) != 0)
    ;
}

int
main (int    argc,
      char **argv)
{
  static double sb[1 << 14], rb[1 << 14], rb2[1 << 14];
  int rank, size, left, right;

  MPI_Init (&argc, &argv);
  busy = argc > 1 && strcmp (argv[1], "busy") == 0;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  left = (rank + size - 1) % size;
  right = (rank + 1) % size;
  MPI_Barrier (MPI_COMM_WORLD);

  /* 1. a server loop: rank 0 probes for whatever comes, sized by the probe */
  for (int i = 0; i < ROUNDS; i++)
    {
      if (rank == 0)
        for (int p = 1; p < size; p++)
          {
            MPI_Message msg;
            MPI_Status st;
            int n;
            MPI_Mprobe (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
            MPI_Get_count (&st, MPI_DOUBLE, &n);
            MPI_Mrecv (rb, n, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
          }
      else
        {
          nap_us (400 + 100 * (i % 3));
          MPI_Send (sb, 100 * rank, MPI_DOUBLE, 0, i, MPI_COMM_WORLD);
        }
      nap_us (300);
      MPI_Barrier (MPI_COMM_WORLD);
    }

  /* 2. small collectives, the members arriving together */
  for (int i = 0; i < ROUNDS; i++)
    {
      int cnt[64], dsp[64], ci[64];
      double v = rank, s;
      for (int p = 0; p < size && p < 64; p++)
        {
          cnt[p] = 500 * (1 + p % 2);
          dsp[p] = p ? dsp[p - 1] + cnt[p - 1] : 0;
        }
      nap_us (300);
      MPI_Gatherv (sb, cnt[rank], MPI_DOUBLE, rb, cnt, dsp, MPI_DOUBLE, i % size, MPI_COMM_WORLD);
      MPI_Scatterv (rb, cnt, dsp, MPI_DOUBLE, sb, cnt[rank], MPI_DOUBLE, (i + 1) % size, MPI_COMM_WORLD);
      MPI_Scan (&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      MPI_Exscan (&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      MPI_Reduce_scatter_block (sb, rb, 256, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      MPI_Bcast (rb, 64, MPI_DOUBLE, i % size, MPI_COMM_WORLD);
      MPI_Alltoall (ci, 1, MPI_INT, ci + 32, 1, MPI_INT, MPI_COMM_WORLD);
      MPI_Allreduce (&v, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

  /* 3. a halo exchange of 16 KiB each way (rendezvous over shared memory) */
  for (int i = 0; i < ROUNDS; i++)
    {
      MPI_Request q[4];
      nap_us (500 + 300 * ((rank + i) % 2));
      MPI_Irecv (rb, 2048, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &q[0]);
      MPI_Irecv (rb2, 2048, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &q[1]);
      MPI_Isend (sb, 2048, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &q[2]);
      MPI_Isend (sb + 2048, 2048, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &q[3]);
      MPI_Waitall (4, q, MPI_STATUSES_IGNORE);
    }

  /* 4. persistent requests around the ring */
  {
    MPI_Request q[2];
    MPI_Send_init (sb, 4096, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &q[0]);
    MPI_Recv_init (rb, 4096, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &q[1]);
    for (int i = 0; i < ROUNDS; i++)
      {
        nap_us (rank == 0 ? 900 : 600);
        MPI_Startall (2, q);
        MPI_Waitall (2, q, MPI_STATUSES_IGNORE);
      }
    MPI_Request_free (&q[0]);
    MPI_Request_free (&q[1]);
  }

  /* 5. rank 0 takes the others' messages as they come (MPI_Waitsome) */
  for (int i = 0; i < ROUNDS; i++)
    {
      if (rank == 0)
        {
          MPI_Request q[64];
          int idx[64], out, left_n = size - 1;
          for (int p = 1; p < size && p <= 64; p++)
            MPI_Irecv (rb + p * 512, 512, MPI_DOUBLE, p, 0, MPI_COMM_WORLD, &q[p - 1]);
          while (left_n > 0)
            {
              MPI_Waitsome (size - 1, q, &out, idx, MPI_STATUSES_IGNORE);
              left_n -= out;
              nap_us (100);
            }
        }
      else
        {
          nap_us (200 * rank + (i % 3) * 100);
          MPI_Send (sb, 512, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
  MPI_Finalize ();
  return 0;
}
