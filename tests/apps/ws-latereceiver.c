/* ws-latereceiver.c — Late Receiver in every form PATTERNS.md counts: the sender blocks in
 * MPI_Ssend, in the MPI_Wait after an MPI_Issend, in a standard MPI_Send of a message too big
 * for the eager protocol (rendezvous), and in the MPI_Wait after such an MPI_Isend, until the
 * late receiver posts its receive. Truth: E(recv) − E(send call) (for Isend/Issend: E(MPI_Wait))
 * when the send was still running at E(recv); the receiver sends its E(recv) back afterwards.
 * Pairs 0→1, 2→3, …; even rank count. Every message is counted (ws_count_*). */
#include "ws-common.h"

/* far above Open MPI's eager limits (4 KiB shared memory, 64 KiB TCP): MPI_Send blocks until
 * the receive is posted */
#define BIG (1 << 20)

int
main (int argc, char **argv)
{
  int rank, size, partner;
  double er, e, l;
  char *buf;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size % 2)
    MPI_Abort (MPI_COMM_WORLD, 2);
  partner = rank ^ 1;
  buf = calloc (BIG, 1);
  ws_declare (WS_LATERECEIVER);

  for (int i = 0; i < 8; i++)
    {
      double delay = 60 + 15 * i;
      /* 0: Ssend, 1: Issend + Wait, 2: Send (rendezvous), 3: Isend (rendezvous) + Wait */
      int form = i % 4;
      int count = form >= 2 ? BIG : 8;
      MPI_Barrier (MPI_COMM_WORLD);
      if (rank % 2 == 0)
        {
          MPI_Request req;
          if (form == 0 || form == 2)
            {
              e = ws_now ();
              if (form == 0)
                MPI_Ssend (buf, count, MPI_BYTE, partner, i, MPI_COMM_WORLD);
              else
                MPI_Send (buf, count, MPI_BYTE, partner, i, MPI_COMM_WORLD);
              l = ws_now ();
            }
          else
            {
              if (form == 1)
                MPI_Issend (buf, count, MPI_BYTE, partner, i, MPI_COMM_WORLD, &req);
              else
                MPI_Isend (buf, count, MPI_BYTE, partner, i, MPI_COMM_WORLD, &req);
              e = ws_now ();
              MPI_Wait (&req, MPI_STATUS_IGNORE);
              l = ws_now ();
            }
          ws_count_send (count);
          MPI_Recv (&er, 1, MPI_DOUBLE, partner, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          ws_count_recv (sizeof (double));
          if (l > er)
            ws_add (WS_LATERECEIVER, er - e);
        }
      else
        {
          ws_sleep_ms (delay);
          er = ws_now ();
          MPI_Recv (buf, count, MPI_BYTE, partner, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          ws_count_recv (count);
          MPI_Send (&er, 1, MPI_DOUBLE, partner, 100 + i, MPI_COMM_WORLD);
          ws_count_send (sizeof (double));
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  free (buf);
  ws_write (argc > 1 ? argv[1] : NULL);
  MPI_Finalize ();
  return 0;
}
