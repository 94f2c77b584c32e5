/* make-trace — writes small OTF2 traces whose wait states are known by construction
 * (timer: 1000 ticks per second, so one tick is one millisecond).
 *
 * usage: make-trace exact|unmatched|clockviol|forms DIR   → DIR/traces.otf2
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
 * clockviol: as exact, but rank 1 receives the first message at 9, before it was sent (11).
 * cycle: each rank receives from the other before it sends (no real run can do that); both
 *   receives wait (Late Sender rank 0: min(30,14) − 2 = 12, rank 1: min(20,25) − 3 = 17 with
 *   --no-clock-repair), and the root-cause replay finds each rank waiting for the other.
 * forms (2 ranks): every collective kind and every point-to-point form, each instance with its
 *   answer worked out in write_forms() below (ms): Initialization Completion 4, Wait at N x N 7,
 *   N x N Completion 5, Late Broadcast 12 (Bcast, Scatterv), Early Reduce 17 (Reduce, Gatherv,
 *   Reduce on a communicator whose local rank order is the reverse of the world's), Early Scan
 *   15 (Scan, Exscan, Scan on the reversed communicator), Late Sender 53 (Waitall charged once,
 *   MPI_Test never waits, Waitsome, Waitany, wrong order from the same source 15), Late Receiver
 *   11 (MPI_Wait completing an MPI_Isend, a blocking standard MPI_Send, not MPI_Bsend), Wait at
 *   Finalize 5, and the message and byte counts. */
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

/* ---- forms: a 2-rank trace with every collective kind and every point-to-point form ---- */

enum { FR_MAIN, FR_INIT, FR_FINALIZE, FR_ALLREDUCE, FR_BCAST, FR_REDUCE, FR_SCAN, FR_EXSCAN, FR_GATHERV,
       FR_SCATTERV, FR_ALLTOALL, FR_IRECV, FR_ISEND, FR_WAITALL, FR_TEST, FR_WAITSOME, FR_WAITANY, FR_WAIT,
       FR_SEND, FR_RECV, FR_BSEND, FR_N_REGIONS };
static const char *forms_regions[FR_N_REGIONS] = {
  "main", "MPI_Init", "MPI_Finalize", "MPI_Allreduce", "MPI_Bcast", "MPI_Reduce", "MPI_Scan",
  "MPI_Exscan", "MPI_Gatherv", "MPI_Scatterv", "MPI_Alltoall", "MPI_Irecv", "MPI_Isend",
  "MPI_Waitall", "MPI_Test", "MPI_Waitsome", "MPI_Waitany", "MPI_Wait", "MPI_Send", "MPI_Recv",
  "MPI_Bsend" };

typedef struct
{
  OTF2_EvtWriter *w;
  uint64_t        n;   /* events written */
} Loc;

static void
f_enter (Loc *l, uint64_t t, int r)
{
  OTF2_EvtWriter_Enter (l->w, NULL, t, r);
  l->n++;
}

static void
f_leave (Loc *l, uint64_t t, int r)
{
  OTF2_EvtWriter_Leave (l->w, NULL, t, r);
  l->n++;
}

/* a collective call E..L on @comm */
static void
f_coll (Loc *l, int r, OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t e, uint64_t lv,
        uint64_t sent, uint64_t rcvd)
{
  f_enter (l, e, r);
  OTF2_EvtWriter_MpiCollectiveBegin (l->w, NULL, e);
  OTF2_EvtWriter_MpiCollectiveEnd (l->w, NULL, lv, op, comm, root, sent, rcvd);
  l->n += 2;
  f_leave (l, lv, r);
}

/* a blocking send call (MPI_Send, MPI_Bsend) E..L, the send event at @at */
static void
f_send (Loc *l, int r, uint32_t to, uint32_t tag, uint64_t len, uint64_t e, uint64_t at, uint64_t lv)
{
  f_enter (l, e, r);
  OTF2_EvtWriter_MpiSend (l->w, NULL, at, to, 0, tag, len);
  l->n++;
  f_leave (l, lv, r);
}

static void
f_recv (Loc *l, uint32_t from, uint32_t tag, uint64_t len, uint64_t e, uint64_t at, uint64_t lv)
{
  f_enter (l, e, FR_RECV);
  OTF2_EvtWriter_MpiRecv (l->w, NULL, at, from, 0, tag, len);
  l->n++;
  f_leave (l, lv, FR_RECV);
}

static void
f_irecv_post (Loc *l, uint64_t req, uint64_t e)
{
  f_enter (l, e, FR_IRECV);
  OTF2_EvtWriter_MpiIrecvRequest (l->w, NULL, e, req);
  l->n++;
  f_leave (l, e + 1, FR_IRECV);
}

static void
f_irecv_done (Loc *l, uint32_t from, uint32_t tag, uint64_t len, uint64_t req, uint64_t at)
{
  OTF2_EvtWriter_MpiIrecv (l->w, NULL, at, from, 0, tag, len, req);
  l->n++;
}

static int
write_forms (const char *dir)
{
  OTF2_Archive *ar;
  OTF2_FlushCallbacks fcb = { pre_flush, post_flush };
  OTF2_GlobalDefWriter *gw;
  Loc L0, L1, *l0 = &L0, *l1 = &L1;
  const uint64_t members[2] = { 0, 1 }, reversed[2] = { 1, 0 };
  enum { FS_EMPTY, FS_MPI, FS_WORLD, FS_REVERSED, FS_MACHINE, FS_NODE, FS_RANK0, FS_RANK1, FS_THREAD,
         FS_MACHINE_CLASS, FS_NODE_CLASS, FS_REGION0 };
  const char *strings[FS_REGION0] = { "", "MPI", "MPI_COMM_WORLD", "reversed", "Linux", "testnode",
                                      "MPI Rank 0", "MPI Rank 1", "Master thread", "machine", "node" };
  const uint32_t W = 0, REV = 1, U = OTF2_UNDEFINED_UINT32;

  ar = OTF2_Archive_Open (dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!ar)
    return 1;
  OTF2_Archive_SetFlushCallbacks (ar, &fcb, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks (ar);
  OTF2_Archive_OpenEvtFiles (ar);
  L0.w = OTF2_Archive_GetEvtWriter (ar, 0);
  L1.w = OTF2_Archive_GetEvtWriter (ar, 1);
  L0.n = L1.n = 0;

  f_enter (l0, 0, FR_MAIN);
  f_enter (l1, 0, FR_MAIN);
  /* Initialization Completion: earliest leave 10 → rank 1: 14 − 10 = 4 */
  f_enter (l0, 0, FR_INIT); f_leave (l0, 10, FR_INIT);
  f_enter (l1, 1, FR_INIT); f_leave (l1, 14, FR_INIT);

  /* Allreduce: Wait at N x N rank 0: min(26, 30) − 20 = 6; N x N Completion rank 1: 33 − 30 = 3 */
  f_coll (l0, FR_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, W, U, 20, 30, 8, 8);
  f_coll (l1, FR_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, W, U, 26, 33, 8, 8);
  /* Bcast, root 1: Late Broadcast rank 0: min(47, 50) − 40 = 7 */
  f_coll (l0, FR_BCAST, OTF2_COLLECTIVE_OP_BCAST, W, 1, 40, 50, 0, 8);
  f_coll (l1, FR_BCAST, OTF2_COLLECTIVE_OP_BCAST, W, 1, 47, 48, 8, 0);
  /* Reduce, root 0: Early Reduce rank 0: 69 − 60 = 9 */
  f_coll (l0, FR_REDUCE, OTF2_COLLECTIVE_OP_REDUCE, W, 0, 60, 72, 8, 16);
  f_coll (l1, FR_REDUCE, OTF2_COLLECTIVE_OP_REDUCE, W, 0, 69, 70, 8, 0);
  /* Scan: Early Scan rank 1: min(max(80, 75), 91) − 75 = 5; rank 0 (first) none */
  f_coll (l0, FR_SCAN, OTF2_COLLECTIVE_OP_SCAN, W, U, 80, 90, 8, 8);
  f_coll (l1, FR_SCAN, OTF2_COLLECTIVE_OP_SCAN, W, U, 75, 91, 8, 8);
  /* Exscan: Early Scan rank 1: min(100, 104) − 95 = 5 */
  f_coll (l0, FR_EXSCAN, OTF2_COLLECTIVE_OP_EXSCAN, W, U, 100, 101, 8, 8);
  f_coll (l1, FR_EXSCAN, OTF2_COLLECTIVE_OP_EXSCAN, W, U, 95, 104, 8, 8);
  /* Gatherv, root 0: Early Reduce rank 0: 112 − 110 = 2 */
  f_coll (l0, FR_GATHERV, OTF2_COLLECTIVE_OP_GATHERV, W, 0, 110, 120, 8, 16);
  f_coll (l1, FR_GATHERV, OTF2_COLLECTIVE_OP_GATHERV, W, 0, 112, 113, 8, 0);
  /* Scatterv, root 0: Late Broadcast rank 1: min(130, 132) − 125 = 5 */
  f_coll (l0, FR_SCATTERV, OTF2_COLLECTIVE_OP_SCATTERV, W, 0, 130, 131, 16, 8);
  f_coll (l1, FR_SCATTERV, OTF2_COLLECTIVE_OP_SCATTERV, W, 0, 125, 132, 0, 8);
  /* Alltoall: Wait at N x N rank 0: 141 − 140 = 1; N x N Completion rank 1: 152 − 150 = 2 */
  f_coll (l0, FR_ALLTOALL, OTF2_COLLECTIVE_OP_ALLTOALL, W, U, 140, 150, 16, 16);
  f_coll (l1, FR_ALLTOALL, OTF2_COLLECTIVE_OP_ALLTOALL, W, U, 141, 152, 16, 16);
  /* "reversed": local rank 0 is world rank 1. Reduce, root 0 = world rank 1: Early Reduce
   * rank 1: 166 − 160 = 6 (a world-order reading would see rank 0 as root and find 0) */
  f_coll (l0, FR_REDUCE, OTF2_COLLECTIVE_OP_REDUCE, REV, 0, 166, 167, 8, 0);
  f_coll (l1, FR_REDUCE, OTF2_COLLECTIVE_OP_REDUCE, REV, 0, 160, 170, 8, 16);
  /* Scan on "reversed": world 1 comes first in comm order, so world 0 waits:
   * min(max(180, 175), 191) − 175 = 5 (in world order nobody would wait) */
  f_coll (l0, FR_SCAN, OTF2_COLLECTIVE_OP_SCAN, REV, U, 175, 191, 8, 8);
  f_coll (l1, FR_SCAN, OTF2_COLLECTIVE_OP_SCAN, REV, U, 180, 190, 8, 8);

  /* Waitall completes two messages: charged once, the larger wait max(210 − 206, 220 − 206) = 14 */
  f_irecv_post (l0, 1, 202);
  f_irecv_post (l0, 2, 204);
  f_enter (l0, 206, FR_WAITALL);
  f_irecv_done (l0, 1, 1, 8, 1, 212);
  f_irecv_done (l0, 1, 2, 8, 2, 221);
  f_leave (l0, 222, FR_WAITALL);
  f_send (l1, FR_SEND, 0, 1, 8, 210, 210, 211);
  f_send (l1, FR_SEND, 0, 2, 8, 220, 220, 221);
  /* MPI_Test never waits: the completing MPI_Test 238..245 would otherwise count 240 − 238 = 2 */
  f_irecv_post (l0, 3, 230);
  f_enter (l0, 232, FR_TEST); f_leave (l0, 233, FR_TEST);
  f_enter (l0, 238, FR_TEST);
  f_irecv_done (l0, 1, 3, 8, 3, 244);
  f_leave (l0, 245, FR_TEST);
  f_send (l1, FR_SEND, 0, 3, 8, 240, 240, 241);
  /* Waitsome completes two messages: max(260 − 254, 270 − 254) = 16 */
  f_irecv_post (l0, 4, 250);
  f_irecv_post (l0, 5, 252);
  f_enter (l0, 254, FR_WAITSOME);
  f_irecv_done (l0, 1, 4, 8, 4, 262);
  f_irecv_done (l0, 1, 5, 8, 5, 271);
  f_leave (l0, 272, FR_WAITSOME);
  f_send (l1, FR_SEND, 0, 4, 8, 260, 260, 261);
  f_send (l1, FR_SEND, 0, 5, 8, 270, 270, 271);
  /* Waitany, a zero-byte message: 290 − 282 = 8 */
  f_irecv_post (l0, 6, 280);
  f_enter (l0, 282, FR_WAITANY);
  f_irecv_done (l0, 1, 6, 0, 6, 291);
  f_leave (l0, 292, FR_WAITANY);
  f_send (l1, FR_SEND, 0, 6, 0, 290, 290, 291);
  /* Late Receiver, MPI_Isend completed by MPI_Wait: receive posted at 308, Wait entered at 302 → 6 */
  f_enter (l0, 300, FR_ISEND);
  OTF2_EvtWriter_MpiIsend (l0->w, NULL, 300, 1, 0, 7, 8, 7);
  l0->n++;
  f_leave (l0, 301, FR_ISEND);
  f_enter (l0, 302, FR_WAIT);
  OTF2_EvtWriter_MpiIsendComplete (l0->w, NULL, 311, 7);
  l0->n++;
  f_leave (l0, 312, FR_WAIT);
  f_recv (l1, 0, 7, 8, 308, 311, 312);
  /* Late Receiver, a standard MPI_Send that blocks: 325 − 320 = 5 */
  f_send (l0, FR_SEND, 1, 8, 8, 320, 329, 330);
  f_recv (l1, 0, 8, 8, 325, 329, 330);
  /* MPI_Bsend never waits for its receiver (would be 345 − 340 = 5) */
  f_send (l0, FR_BSEND, 1, 9, 8, 340, 349, 350);
  f_recv (l1, 0, 9, 8, 345, 349, 350);
  /* wrong order, same source: rank 1 sends A (tag 10) at 360, B (tag 11) at 370; rank 0 waits
   * for B first (370 − 355 = 15), then receives A, which was sent earlier → 15 is wrong order */
  f_send (l1, FR_SEND, 0, 10, 8, 360, 360, 361);
  f_send (l1, FR_SEND, 0, 11, 8, 370, 370, 371);
  f_recv (l0, 1, 11, 8, 355, 371, 372);
  f_recv (l0, 1, 10, 8, 373, 373, 374);

  /* Wait at Finalize rank 0: 385 − 380 = 5 */
  f_enter (l0, 380, FR_FINALIZE); f_leave (l0, 390, FR_FINALIZE);
  f_enter (l1, 385, FR_FINALIZE); f_leave (l1, 390, FR_FINALIZE);
  f_leave (l0, 391, FR_MAIN);
  f_leave (l1, 391, FR_MAIN);

  OTF2_Archive_CloseEvtWriter (ar, L0.w);
  OTF2_Archive_CloseEvtWriter (ar, L1.w);
  OTF2_Archive_CloseEvtFiles (ar);
  OTF2_Archive_OpenDefFiles (ar);
  for (OTF2_LocationRef l = 0; l < 2; l++)
    OTF2_Archive_CloseDefWriter (ar, OTF2_Archive_GetDefWriter (ar, l));
  OTF2_Archive_CloseDefFiles (ar);

  gw = OTF2_Archive_GetGlobalDefWriter (ar);
  OTF2_GlobalDefWriter_WriteClockProperties (gw, 1000, 0, 392, OTF2_UNDEFINED_TIMESTAMP);
  for (int s = 0; s < FS_REGION0; s++)
    OTF2_GlobalDefWriter_WriteString (gw, s, strings[s]);
  for (int r = 0; r < FR_N_REGIONS; r++)
    {
      OTF2_GlobalDefWriter_WriteString (gw, FS_REGION0 + r, forms_regions[r]);
      OTF2_GlobalDefWriter_WriteRegion (gw, r, FS_REGION0 + r, FS_REGION0 + r, FS_EMPTY,
                                        OTF2_REGION_ROLE_FUNCTION,
                                        r == FR_MAIN ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
                                        OTF2_REGION_FLAG_NONE, r == FR_MAIN ? FS_EMPTY : FS_MPI, 0, 0);
    }
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 0, FS_MACHINE, FS_MACHINE_CLASS, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 1, FS_NODE, FS_NODE_CLASS, 0);
  OTF2_GlobalDefWriter_WriteLocationGroup (gw, 0, FS_RANK0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                           OTF2_UNDEFINED_LOCATION_GROUP);
  OTF2_GlobalDefWriter_WriteLocationGroup (gw, 1, FS_RANK1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                           OTF2_UNDEFINED_LOCATION_GROUP);
  OTF2_GlobalDefWriter_WriteLocation (gw, 0, FS_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, L0.n, 0);
  OTF2_GlobalDefWriter_WriteLocation (gw, 1, FS_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, L1.n, 1);
  OTF2_GlobalDefWriter_WriteGroup (gw, 0, FS_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, 2, members);
  OTF2_GlobalDefWriter_WriteGroup (gw, 1, FS_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, 2, members);
  OTF2_GlobalDefWriter_WriteGroup (gw, 2, FS_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, 2, reversed);
  OTF2_GlobalDefWriter_WriteComm (gw, W, FS_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_GlobalDefWriter_WriteComm (gw, REV, FS_REVERSED, 2, W, OTF2_COMM_FLAG_NONE);
  OTF2_Archive_CloseGlobalDefWriter (ar, gw);
  OTF2_Archive_Close (ar);
  return 0;
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
  gboolean unmatched, clockviol, syscycle, cycle;
  const char *strings[N_STR] = { "", "main", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Ssend",
                                 "MPI_Finalize", "MPI", "MPI_COMM_WORLD", "Linux", "testnode",
                                 "MPI Rank 0", "MPI Rank 1", "Master thread", "machine", "node" };
  const uint64_t members[2] = { 0, 1 };

  if (argc != 3)
    {
      fprintf (stderr, "usage: make-trace exact|unmatched|clockviol|syscycle|cycle|forms DIR\n");
      return 2;
    }
  scenario = argv[1];
  dir = argv[2];
  if (strcmp (scenario, "forms") == 0)
    return write_forms (dir);
  unmatched = strcmp (scenario, "unmatched") == 0;
  clockviol = strcmp (scenario, "clockviol") == 0;
  syscycle = strcmp (scenario, "syscycle") == 0; /* corrupt: machine and node parents of each other */
  cycle = strcmp (scenario, "cycle") == 0;
  ar = OTF2_Archive_Open (dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!ar)
    return 1;
  OTF2_Archive_SetFlushCallbacks (ar, &fcb, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks (ar);
  OTF2_Archive_OpenEvtFiles (ar);
  w0 = OTF2_Archive_GetEvtWriter (ar, 0);
  w1 = OTF2_Archive_GetEvtWriter (ar, 1);

  if (cycle)
    {
      OTF2_EvtWriter_Enter (w0, NULL, 0, R_MAIN);
      OTF2_EvtWriter_Enter (w0, NULL, 2, R_RECV);
      OTF2_EvtWriter_MpiRecv (w0, NULL, 13, 1, 0, 0, 8);
      OTF2_EvtWriter_Leave (w0, NULL, 14, R_RECV);
      OTF2_EvtWriter_Enter (w0, NULL, 20, R_SEND);
      OTF2_EvtWriter_MpiSend (w0, NULL, 21, 1, 0, 0, 8);
      OTF2_EvtWriter_Leave (w0, NULL, 22, R_SEND);
      call (w0, R_FINALIZE, 50, 60);
      OTF2_EvtWriter_Leave (w0, NULL, 61, R_MAIN);
      OTF2_EvtWriter_Enter (w1, NULL, 0, R_MAIN);
      OTF2_EvtWriter_Enter (w1, NULL, 3, R_RECV);
      OTF2_EvtWriter_MpiRecv (w1, NULL, 24, 0, 0, 0, 8);
      OTF2_EvtWriter_Leave (w1, NULL, 25, R_RECV);
      OTF2_EvtWriter_Enter (w1, NULL, 30, R_SEND);
      OTF2_EvtWriter_MpiSend (w1, NULL, 31, 0, 0, 0, 8);
      OTF2_EvtWriter_Leave (w1, NULL, 32, R_SEND);
      call (w1, R_FINALIZE, 55, 60);
      OTF2_EvtWriter_Leave (w1, NULL, 61, R_MAIN);
      n0 = n1 = 12;
      goto written;
    }
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

written:
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
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 0, S_MACHINE, S_MACHINE_CLASS,
                                            syscycle ? 1 : OTF2_UNDEFINED_SYSTEM_TREE_NODE);
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
