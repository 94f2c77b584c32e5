/* kct-replay-check: replays every rank of a compressed trace with the iterator the simulator
 * uses (kct-replay.h), without writing anything, and prints
 *   events N        all ranks
 *   length SECONDS  last minus first timestamp
 *   calls REGION N  Enter events per region
 * Exit 1 when the trace cannot be read or replayed, or a rank's times go backwards.
 * With --defs DIR it also writes the definitions-only OTF2 archive a replaying reader uses
 * (kct_expand_definitions) to DIR.
 *
 *   kct-replay-check FILE.kct [--defs DIR] */
#include "kct.h"

#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  if (argc != 2 && !(argc == 4 && strcmp (argv[2], "--defs") == 0))
    {
      fprintf (stderr, "usage: kct-replay-check FILE.kct [--defs DIR]\n");
      return 2;
    }
  GError   *error = NULL;
  KctTrace *t = kct_load (argv[1], &error);
  if (t == NULL)
    {
      fprintf (stderr, "kct-replay-check: %s\n", error->message);
      return 1;
    }
  if (argc == 4 && !kct_expand_definitions (t, argv[3], FALSE, &error))
    {
      fprintf (stderr, "kct-replay-check: %s\n", error->message);
      return 1;
    }
  char      err[256];
  KctComms *comms = kct_comms_new (t, err, sizeof err);
  guint64   events = 0, first = G_MAXUINT64, last = 0;
  guint64  *calls = g_new0 (guint64, t->n_regions + 1);
  for (guint32 r = 0; r < t->h.n_ranks; r++)
    {
      KctReplay *it = kct_replay_new (t, comms, r);
      KctEvent   ev;
      guint64    prev = 0;
      int        rc;
      while ((rc = kct_replay_next (it, &ev)) == 1)
        {
          if (ev.time < prev)
            {
              fprintf (stderr, "kct-replay-check: rank %u: time goes backwards\n", r);
              return 1;
            }
          prev = ev.time;
          first = MIN (first, ev.time);
          last = MAX (last, ev.time);
          if (ev.type == KCT_RAW_ENTER && ev.region < t->n_regions)
            calls[ev.region]++;
        }
      if (rc < 0)
        {
          fprintf (stderr, "kct-replay-check: %s\n", kct_replay_error (it));
          return 1;
        }
      events += kct_replay_count (it);
      kct_replay_free (it);
    }
  printf ("events %" G_GUINT64_FORMAT "\n", events);
  printf ("length %.9f\n", last >= first ? (double)(last - first) / (double)t->h.timer_resolution : 0.0);
  for (guint32 i = 0; i < t->n_regions; i++)
    if (calls[i])
      printf ("calls %s %" G_GUINT64_FORMAT "\n", t->regions[i].name, calls[i]);
  g_free (calls);
  kct_comms_free (comms);
  kct_trace_free (t);
  return 0;
}
