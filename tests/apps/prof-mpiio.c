/* prof-mpiio: MPI-IO calls whose counts the test knows, and computation between them.
 *
 *   prof-mpiio FILE ROUNDS
 *
 * Every rank opens FILE (collective), then ROUNDS times: sleeps 2 ms (computation), writes its
 * 64 doubles individually (MPI_File_write_at) and collectively (MPI_File_write_at_all), reads
 * them back through a non-blocking read (MPI_File_iread_at + MPI_Wait) and a collective read
 * through the individual file pointer (MPI_File_seek + MPI_File_read_all), and checks them.
 * Then MPI_File_sync, MPI_File_close; rank 0 deletes FILE after a barrier.  A wrong value ends
 * the run with MPI_Abort (3).  Prints "prof-mpiio: done" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void
compute (long ns)
{
  struct timespec t = { 0, ns };
  while (nanosleep (&t, &t) != 0)
    ;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (argc < 3)
    {
      if (rank == 0)
        fprintf (stderr, "usage: prof-mpiio FILE ROUNDS\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  int rounds = atoi (argv[2]);
  MPI_File fh;
  if (MPI_File_open (MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh)
      != MPI_SUCCESS)
    {
      fprintf (stderr, "prof-mpiio: cannot open %s\n", argv[1]);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  double     out[64], in[64];
  MPI_Offset at = (MPI_Offset)rank * (MPI_Offset)sizeof out;
  for (int r = 0; r < rounds; r++)
    {
      for (int i = 0; i < 64; i++)
        out[i] = rank * 1000 + r * 64 + i;
      compute (2000000);
      MPI_File_write_at (fh, at, out, 64, MPI_DOUBLE, MPI_STATUS_IGNORE);
      MPI_File_write_at_all (fh, at, out, 64, MPI_DOUBLE, MPI_STATUS_IGNORE);
      MPI_Request req;
      MPI_File_iread_at (fh, at, in, 64, MPI_DOUBLE, &req);
      MPI_Wait (&req, MPI_STATUS_IGNORE);
      for (int i = 0; i < 64; i++)
        if (in[i] != out[i])
          MPI_Abort (MPI_COMM_WORLD, 3);
      MPI_File_seek (fh, at, MPI_SEEK_SET);
      MPI_File_read_all (fh, in, 64, MPI_DOUBLE, MPI_STATUS_IGNORE);
      for (int i = 0; i < 64; i++)
        if (in[i] != out[i])
          MPI_Abort (MPI_COMM_WORLD, 3);
    }
  MPI_File_sync (fh);
  MPI_File_close (&fh);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    {
      MPI_File_delete (argv[1], MPI_INFO_NULL);
      printf ("prof-mpiio: done\n");
    }
  MPI_Finalize ();
  return 0;
}
