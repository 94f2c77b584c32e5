/* make-trace — writes small OTF2 traces whose wait states are known by construction
 * (timer: 1000 ticks per second, so one tick is one millisecond).
 *
 * usage: make-trace exact|unmatched|clockviol DIR   → DIR/traces.otf2
 *
 * exact (2 ranks):
 *   rank 0: MPI_Send E=10 L=12 (send @11)          rank 1: MPI_Recv E=2 L=14 (recv @13)
 *           → Late Sender on rank 1: min(10,14) − 2 = 8 ms
 *   rank 0: MPI_Barrier E=20 L=30                   rank 1: MPI_Barrier E=25 L=31
 *           → Wait at Barrier rank 0: min(25,30) − 20 = 5 ms; Barrier Completion rank 1:
 *             31 − max(30, 25) = 1 ms
 *   rank 0: MPI_Ssend E=40 L=48 (send @47)          rank 1: MPI_Recv E=45 L=48 (recv @47)
 *           → Late Receiver on rank 0: 45 − 40 = 5 ms
 *   rank 0: MPI_Finalize E=50 L=60                  rank 1: MPI_Finalize E=55 L=60
 *           → Wait at Finalize rank 0: min(55,60) − 50 = 5 ms
 *   main 0..61 on both: time 122 ms.
 * unmatched: as exact, but rank 0 sends one more message (tag 9) nobody receives.
 * clockviol: as exact, but rank 1 receives the first message at 9, before it was sent (11). */
#include <glib.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <string.h>

enum { S_EMPTY, S_MAIN, S_SEND, S_RECV, S_BARRIER, S_SSEND, S_FINALIZE, S_MPI, S_WORLD, S_MACHINE,
       S_NODE, S_RANK0, S_RANK1, S_THREAD, S_MACHINE_CLASS, S_NODE_CLASS, N_STR };
enum { R_MAIN, R_SEND, R_RECV, R_BARRIER, R_SSEND, R_FINALIZE };

static OTF2_FlushType
pre_flush (void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
  (void) ud; (void) ft; (void) loc; (void) cb; (void) final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
  (void) ud; (void) ft; (void) loc;
  return 0;
}

static void
call (OTF2_EvtWriter *w, OTF2_RegionRef r, uint64_t e, uint64_t l)
{
  OTF2_EvtWriter_Enter (w, NULL, e, r);
  OTF2_EvtWriter_Leave (w, NULL, l, r);
}

int
main (int argc, char **argv)
{
  const char *scenario, *dir;
  OTF2_Archive *ar;
  OTF2_FlushCallbacks fcb = { pre_flush, post_flush };
  OTF2_EvtWriter *w0, *w1;
  OTF2_GlobalDefWriter *gw;
  uint64_t n0 = 0, n1 = 0;
  gboolean unmatched, clockviol;
  const char *strings[N_STR] = { "", "main", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Ssend",
                                 "MPI_Finalize", "MPI", "MPI_COMM_WORLD", "Linux", "testnode",
                                 "MPI Rank 0", "MPI Rank 1", "Master thread", "machine", "node" };
  const uint64_t members[2] = { 0, 1 };

  if (argc != 3)
    {
      fprintf (stderr, "usage: make-trace exact|unmatched|clockviol DIR\n");
      return 2;
    }
  scenario = argv[1];
  dir = argv[2];
  unmatched = strcmp (scenario, "unmatched") == 0;
  clockviol = strcmp (scenario, "clockviol") == 0;
  ar = OTF2_Archive_Open (dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!ar)
    return 1;
  OTF2_Archive_SetFlushCallbacks (ar, &fcb, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks (ar);
  OTF2_Archive_OpenEvtFiles (ar);
  w0 = OTF2_Archive_GetEvtWriter (ar, 0);
  w1 = OTF2_Archive_GetEvtWriter (ar, 1);

  /* rank 0 */
  OTF2_EvtWriter_Enter (w0, NULL, 0, R_MAIN);
  OTF2_EvtWriter_Enter (w0, NULL, 10, R_SEND);
  OTF2_EvtWriter_MpiSend (w0, NULL, 11, 1, 0, 0, 8);
  OTF2_EvtWriter_Leave (w0, NULL, 12, R_SEND);
  OTF2_EvtWriter_Enter (w0, NULL, 20, R_BARRIER);
  OTF2_EvtWriter_MpiCollectiveBegin (w0, NULL, 20);
  OTF2_EvtWriter_MpiCollectiveEnd (w0, NULL, 29, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 0);
  OTF2_EvtWriter_Leave (w0, NULL, 30, R_BARRIER);
  OTF2_EvtWriter_Enter (w0, NULL, 40, R_SSEND);
  OTF2_EvtWriter_MpiSend (w0, NULL, 47, 1, 0, 1, 8);
  OTF2_EvtWriter_Leave (w0, NULL, 48, R_SSEND);
  n0 = 11;
  if (unmatched)
    {
      OTF2_EvtWriter_Enter (w0, NULL, 49, R_SEND);
      OTF2_EvtWriter_MpiSend (w0, NULL, 49, 1, 0, 9, 8);
      OTF2_EvtWriter_Leave (w0, NULL, 49, R_SEND);
      n0 += 3;
    }
  call (w0, R_FINALIZE, 50, 60);
  OTF2_EvtWriter_Leave (w0, NULL, 61, R_MAIN);
  n0 += 3;

  /* rank 1 */
  OTF2_EvtWriter_Enter (w1, NULL, 0, R_MAIN);
  OTF2_EvtWriter_Enter (w1, NULL, 2, R_RECV);
  OTF2_EvtWriter_MpiRecv (w1, NULL, clockviol ? 9 : 13, 0, 0, 0, 8);
  OTF2_EvtWriter_Leave (w1, NULL, 14, R_RECV);
  OTF2_EvtWriter_Enter (w1, NULL, 25, R_BARRIER);
  OTF2_EvtWriter_MpiCollectiveBegin (w1, NULL, 25);
  OTF2_EvtWriter_MpiCollectiveEnd (w1, NULL, 30, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 0);
  OTF2_EvtWriter_Leave (w1, NULL, 31, R_BARRIER);
  OTF2_EvtWriter_Enter (w1, NULL, 45, R_RECV);
  OTF2_EvtWriter_MpiRecv (w1, NULL, 47, 0, 0, 1, 8);
  OTF2_EvtWriter_Leave (w1, NULL, 48, R_RECV);
  call (w1, R_FINALIZE, 55, 60);
  OTF2_EvtWriter_Leave (w1, NULL, 61, R_MAIN);
  n1 = 14;

  OTF2_Archive_CloseEvtWriter (ar, w0);
  OTF2_Archive_CloseEvtWriter (ar, w1);
  OTF2_Archive_CloseEvtFiles (ar);
  OTF2_Archive_OpenDefFiles (ar);
  for (OTF2_LocationRef l = 0; l < 2; l++)
    OTF2_Archive_CloseDefWriter (ar, OTF2_Archive_GetDefWriter (ar, l));
  OTF2_Archive_CloseDefFiles (ar);

  gw = OTF2_Archive_GetGlobalDefWriter (ar);
  OTF2_GlobalDefWriter_WriteClockProperties (gw, 1000, 0, 62, OTF2_UNDEFINED_TIMESTAMP);
  for (int s = 0; s < N_STR; s++)
    OTF2_GlobalDefWriter_WriteString (gw, s, strings[s]);
  OTF2_GlobalDefWriter_WriteRegion (gw, R_MAIN, S_MAIN, S_MAIN, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
                                    OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
  {
    const int names[] = { S_SEND, S_RECV, S_BARRIER, S_SSEND, S_FINALIZE };
    for (int r = 0; r < 5; r++)
      OTF2_GlobalDefWriter_WriteRegion (gw, R_SEND + r, names[r], names[r], S_EMPTY,
                                        OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                        OTF2_REGION_FLAG_NONE, S_MPI, 0, 0);
  }
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 0, S_MACHINE, S_MACHINE_CLASS, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 1, S_NODE, S_NODE_CLASS, 0);
  OTF2_GlobalDefWriter_WriteLocationGroup (gw, 0, S_RANK0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                           OTF2_UNDEFINED_LOCATION_GROUP);
  OTF2_GlobalDefWriter_WriteLocationGroup (gw, 1, S_RANK1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                           OTF2_UNDEFINED_LOCATION_GROUP);
  OTF2_GlobalDefWriter_WriteLocation (gw, 0, S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, n0, 0);
  OTF2_GlobalDefWriter_WriteLocation (gw, 1, S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, n1, 1);
  OTF2_GlobalDefWriter_WriteGroup (gw, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, 2, members);
  OTF2_GlobalDefWriter_WriteGroup (gw, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, 2, members);
  OTF2_GlobalDefWriter_WriteComm (gw, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_Archive_CloseGlobalDefWriter (ar, gw);
  OTF2_Archive_Close (ar);
  return 0;
}
