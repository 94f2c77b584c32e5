/* kct-irregular.c — data-dependent communication for the compressed-trace tests: in every
 * step each rank sends one message of a pseudo-random size and tag to a pseudo-random other
 * rank (a hash of rank and step), the ranks learn how many messages to expect from an
 * MPI_Alltoall of counts, receive them from MPI_ANY_SOURCE and poll for the last one with
 * MPI_Test.  Nothing repeats, so the compressed trace is barely smaller than OTF2; it must
 * still hold exactly these calls.
 * usage: kct-irregular [STEPS] */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint32_t
hash (uint32_t a, uint32_t b)
{
  uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 33);
}

int
main (int argc, char **argv)
{
  int steps = argc > 1 ? atoi (argv[1]) : 12;
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int  *send = calloc ((size_t)size, sizeof *send), *recv = calloc ((size_t)size, sizeof *recv);
  char *buf = calloc (4096, 1), *rbuf = calloc ((size_t)size * 4096, 1);
  for (int s = 0; s < steps; s++)
    {
      uint32_t h = hash ((uint32_t)rank, (uint32_t)s);
      int      peer = (rank + 1 + (int)(h % (uint32_t)(size - 1))) % size;
      int      bytes = 1 + (int)(h >> 8) % 4000;
      for (int i = 0; i < size; i++)
        send[i] = i == peer;
      MPI_Alltoall (send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
      int expect = 0;
      for (int i = 0; i < size; i++)
        expect += recv[i];
      MPI_Request *req = calloc ((size_t)expect + 1, sizeof *req);
      for (int i = 0; i < expect; i++)
        MPI_Irecv (rbuf + (size_t)i * 4096, 4096, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG,
                   MPI_COMM_WORLD, &req[i]);
      MPI_Send (buf, bytes, MPI_CHAR, peer, (int)(h % 100), MPI_COMM_WORLD);
      if (expect > 1)
        MPI_Waitall (expect - 1, req, MPI_STATUSES_IGNORE);
      if (expect > 0)
        {
          int done = 0;
          while (!done)
            MPI_Test (&req[expect - 1], &done, MPI_STATUS_IGNORE);
        }
      free (req);
      struct timespec us = { 0, 200000 };
      nanosleep (&us, NULL);
    }
  free (send);
  free (recv);
  free (buf);
  free (rbuf);
  MPI_Finalize ();
  return 0;
}
