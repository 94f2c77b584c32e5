/* sim-bench — inputs and timings for the simulator benchmarks (bench/sim/run-bench.sh).
 *
 *   sim-bench gen DIR RANKS ITERATIONS GAP_US   a synthetic trace DIR/traces.otf2: every
 *       iteration each rank computes GAP_US µs in region "compute", sends 8 bytes to its right
 *       neighbour (MPI_Isend) and receives from its left (MPI_Irecv), completes both
 *       (MPI_Waitall); every 100 iterations an MPI_Allreduce; MPI_Init/MPI_Finalize around.
 *       12 events per iteration and rank.
 *   sim-bench gen-comp DIR RANKS EVENTS GAP_NS   computation only: each rank enters and leaves
 *       region "compute" EVENTS/2 times, GAP_NS ns apart (between MPI_Init and MPI_Finalize):
 *       the real-time replay's own cost per event, with nothing else in the way
 *   sim-bench read DIR        reads every rank's events (trace-events.c) — the baseline
 *   sim-bench offline DIR     reads, matches, fits the model, plans and runs the offline engine
 *                             in this one process; prints events/s of the engine alone
 */
#include "sim-private.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void analyze_quiet_otf2 (void);

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

static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };

enum { R_MAIN, R_COMPUTE, R_INIT, R_ISEND, R_IRECV, R_WAITALL, R_ALLREDUCE, R_FINALIZE, N_REG };
static const char *reg_names[N_REG] = { "main", "compute", "MPI_Init", "MPI_Isend", "MPI_Irecv",
                                        "MPI_Waitall", "MPI_Allreduce", "MPI_Finalize" };

static int
gen (const char *dir, int ranks, long iters, double gap_us, long comp_events, long comp_gap)
{
  OTF2_Archive *ar = OTF2_Archive_Open (dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  OTF2_GlobalDefWriter *gw;
  g_autofree uint64_t *n_events = g_new0 (uint64_t, ranks);
  g_autofree uint64_t *members = g_new (uint64_t, ranks);
  uint64_t gap = (uint64_t) (gap_us * 1000);
  enum { S_EMPTY, S_MPI, S_WORLD, S_MACHINE, S_NODE, S_THREAD, S_RANK0 };

  if (!ar)
    return 1;
  OTF2_Archive_SetFlushCallbacks (ar, &flush, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks (ar);
  OTF2_Archive_OpenEvtFiles (ar);
  for (int r = 0; r < ranks; r++)
    {
      OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter (ar, r);
      uint64_t t = 1000;
      OTF2_EvtWriter_Enter (w, NULL, t, R_MAIN);
      OTF2_EvtWriter_Enter (w, NULL, t + 10, R_INIT);
      t = 100000;
      OTF2_EvtWriter_Leave (w, NULL, t, R_INIT);
      for (long i = 0; i < comp_events; i++)
        {
          t += comp_gap;
          if (i % 2 == 0)
            OTF2_EvtWriter_Enter (w, NULL, t, R_COMPUTE);
          else
            OTF2_EvtWriter_Leave (w, NULL, t, R_COMPUTE);
        }
      for (long i = 0; i < iters; i++)
        {
          /* the same schedule on every rank: iteration i starts at 100 µs + i·(gap + 6 µs) */
          t = 100000 + (uint64_t) i * (gap + 6000);
          OTF2_EvtWriter_Enter (w, NULL, t, R_COMPUTE);
          t += gap;
          OTF2_EvtWriter_Leave (w, NULL, t, R_COMPUTE);
          OTF2_EvtWriter_Enter (w, NULL, t, R_IRECV);
          OTF2_EvtWriter_MpiIrecvRequest (w, NULL, t + 200, 2 * i + 1);
          OTF2_EvtWriter_Leave (w, NULL, t + 200, R_IRECV);
          OTF2_EvtWriter_Enter (w, NULL, t + 300, R_ISEND);
          OTF2_EvtWriter_MpiIsend (w, NULL, t + 300, (r + 1) % ranks, 0, 1, 8, 2 * i + 2);
          OTF2_EvtWriter_Leave (w, NULL, t + 600, R_ISEND);
          OTF2_EvtWriter_Enter (w, NULL, t + 700, R_WAITALL);
          OTF2_EvtWriter_MpiIsendComplete (w, NULL, t + 2000, 2 * i + 2);
          OTF2_EvtWriter_MpiIrecv (w, NULL, t + 2000, (r + ranks - 1) % ranks, 0, 1, 8, 2 * i + 1);
          OTF2_EvtWriter_Leave (w, NULL, t + 2000, R_WAITALL);
          if (i % 100 == 99)
            {
              OTF2_EvtWriter_Enter (w, NULL, t + 2100, R_ALLREDUCE);
              OTF2_EvtWriter_MpiCollectiveBegin (w, NULL, t + 2100);
              OTF2_EvtWriter_MpiCollectiveEnd (w, NULL, t + 5000, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                               OTF2_UNDEFINED_UINT32, 8 * ranks, 8 * ranks);
              OTF2_EvtWriter_Leave (w, NULL, t + 5000, R_ALLREDUCE);
            }
        }
      t = 100000 + (uint64_t) iters * (gap + 6000) + (uint64_t) comp_events * comp_gap + 1000;
      OTF2_EvtWriter_Enter (w, NULL, t, R_FINALIZE);
      OTF2_EvtWriter_Leave (w, NULL, t + 1000, R_FINALIZE);
      OTF2_EvtWriter_Leave (w, NULL, t + 1100, R_MAIN);
      OTF2_EvtWriter_GetNumberOfEvents (w, &n_events[r]);
      OTF2_Archive_CloseEvtWriter (ar, w);
    }
  OTF2_Archive_CloseEvtFiles (ar);
  OTF2_Archive_OpenDefFiles (ar);
  for (int r = 0; r < ranks; r++)
    OTF2_Archive_CloseDefWriter (ar, OTF2_Archive_GetDefWriter (ar, r));
  OTF2_Archive_CloseDefFiles (ar);
  gw = OTF2_Archive_GetGlobalDefWriter (ar);
  OTF2_GlobalDefWriter_WriteClockProperties (gw, 1000000000, 0,
                                             200000 + (uint64_t) iters * (gap + 6000)
                                             + (uint64_t) comp_events * comp_gap,
                                             OTF2_UNDEFINED_TIMESTAMP);
  OTF2_GlobalDefWriter_WriteString (gw, S_EMPTY, "");
  OTF2_GlobalDefWriter_WriteString (gw, S_MPI, "MPI");
  OTF2_GlobalDefWriter_WriteString (gw, S_WORLD, "MPI_COMM_WORLD");
  OTF2_GlobalDefWriter_WriteString (gw, S_MACHINE, "machine");
  OTF2_GlobalDefWriter_WriteString (gw, S_NODE, "node");
  OTF2_GlobalDefWriter_WriteString (gw, S_THREAD, "Master thread");
  for (int r = 0; r < ranks; r++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "MPI Rank %d", r);
      OTF2_GlobalDefWriter_WriteString (gw, S_RANK0 + r, name);
    }
  for (int i = 0; i < N_REG; i++)
    OTF2_GlobalDefWriter_WriteString (gw, S_RANK0 + ranks + i, reg_names[i]);
  OTF2_GlobalDefWriter_WriteParadigm (gw, OTF2_PARADIGM_MPI, S_MPI, OTF2_PARADIGM_CLASS_PROCESS);
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 0, S_MACHINE, S_MACHINE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteSystemTreeNode (gw, 1, S_NODE, S_NODE, 0);
  for (int r = 0; r < ranks; r++)
    {
      OTF2_GlobalDefWriter_WriteLocationGroup (gw, r, S_RANK0 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                               OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation (gw, r, S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, n_events[r], r);
      members[r] = r;
    }
  for (int i = 0; i < N_REG; i++)
    OTF2_GlobalDefWriter_WriteRegion (gw, i, S_RANK0 + ranks + i, S_RANK0 + ranks + i, S_EMPTY,
                                      OTF2_REGION_ROLE_FUNCTION, i >= R_INIT ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                      OTF2_REGION_FLAG_NONE, i >= R_INIT ? S_MPI : S_EMPTY, 0, 0);
  OTF2_GlobalDefWriter_WriteGroup (gw, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, ranks, members);
  OTF2_GlobalDefWriter_WriteGroup (gw, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, ranks, members);
  OTF2_GlobalDefWriter_WriteComm (gw, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_Archive_CloseGlobalDefWriter (ar, gw);
  return OTF2_Archive_Close (ar) == OTF2_SUCCESS ? 0 : 1;
}

static int
run (const char *dir, gboolean offline)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *anchor = g_build_filename (dir, "traces.otf2", NULL);
  g_autoptr (TraceDefs) defs = trace_defs_read (anchor, &error);
  Transport *t;
  SimRank **srs;
  guint64 events = 0;
  gint64 t0, t1;

  if (!defs)
    {
      fprintf (stderr, "sim-bench: %s\n", error->message);
      return 1;
    }
  t = transport_local_new (defs->n_ranks);
  srs = g_new0 (SimRank *, defs->n_ranks);
  t0 = g_get_monotonic_time ();
  for (int r = 0; r < defs->n_ranks; r++)
    {
      srs[r] = sim_rank_new (r, defs);
      if (!trace_events_read (anchor, srs[r], NULL, NULL, &error))
        {
          fprintf (stderr, "sim-bench: %s\n", error->message);
          return 1;
        }
      events += srs[r]->ev->len;
    }
  t1 = g_get_monotonic_time ();
  printf ("read: %" G_GUINT64_FORMAT " events in %.3f s (%.0f events/s)\n", events, (t1 - t0) / 1e6,
          events / ((t1 - t0) / 1e6));
  if (offline)
    {
      g_autoptr (Hypothesis) h = sim_hypothesis_parse ("empty", "", 0, NULL);
      SimTransformStats st = { 0 };
      SimPlanNotes notes;
      g_autofree SimPlan **plans = g_new0 (SimPlan *, defs->n_ranks);
      SimModel *m;
      guint64 n = 0;

      sim_plan_sync_tails (t, srs);
      if (!sim_match_messages (t, srs, NULL, NULL, NULL, &error))
        {
          fprintf (stderr, "sim-bench: %s\n", error->message);
          return 1;
        }
      m = sim_model_fit (srs, defs->n_ranks);
      sim_transform (t, srs, h, &st, &error);
      sim_plan_notes_init (&notes);
      for (int r = 0; r < defs->n_ranks; r++)
        plans[r] = sim_plan_build (srs[r], &notes, &error);
      t0 = g_get_monotonic_time ();
      if (!sim_offline_run (srs, plans, defs->n_ranks, m, FALSE, &n, &error))
        {
          fprintf (stderr, "sim-bench: %s\n", error->message);
          return 1;
        }
      t1 = g_get_monotonic_time ();
      printf ("offline engine: %" G_GUINT64_FORMAT " events in %.3f s (%.0f events/s)\n", n, (t1 - t0) / 1e6,
              n / ((t1 - t0) / 1e6));
      for (int r = 0; r < defs->n_ranks; r++)
        sim_plan_free (plans[r]);
      sim_plan_notes_clear (&notes);
      sim_model_free (m);
    }
  for (int r = 0; r < defs->n_ranks; r++)
    sim_rank_free (srs[r]);
  g_free (srs);
  t->free (t);
  return 0;
}

int
main (int argc, char **argv)
{
  analyze_quiet_otf2 ();
  if (argc == 6 && strcmp (argv[1], "gen") == 0)
    {
      g_mkdir_with_parents (argv[2], 0755);
      return gen (argv[2], atoi (argv[3]), atol (argv[4]), g_ascii_strtod (argv[5], NULL), 0, 0);
    }
  if (argc == 6 && strcmp (argv[1], "gen-comp") == 0)
    {
      g_mkdir_with_parents (argv[2], 0755);
      return gen (argv[2], atoi (argv[3]), 0, 0, atol (argv[4]) & ~1L, atol (argv[5]));
    }
  if (argc == 3 && strcmp (argv[1], "read") == 0)
    return run (argv[2], FALSE);
  if (argc == 3 && strcmp (argv[1], "offline") == 0)
    return run (argv[2], TRUE);
  fprintf (stderr, "usage: sim-bench gen DIR RANKS ITERATIONS GAP_US | gen-comp DIR RANKS EVENTS GAP_NS | "
           "read DIR | offline DIR\n");
  return 2;
}
