/* kct-info.c: what a compressed trace holds, without expanding it (kubus-trace info). */
#include "kct.h"

#include <glib/gi18n.h>
#include <string.h>
#include <math.h>

char *
kct_duration_text (double s)
{
  if (s >= 1)
    return g_strdup_printf (_ ("%.3g s"), s);
  if (s >= 1e-3)
    return g_strdup_printf (_ ("%.3g ms"), s * 1e3);
  if (s >= 1e-6)
    return g_strdup_printf (_ ("%.3g µs"), s * 1e6);
  return g_strdup_printf (_ ("%.3g ns"), s * 1e9);
}

char *
kct_bound_text (const KctTrace *t)
{
  double           res = t->h.timer_resolution ? (double)t->h.timer_resolution : 1e9;
  g_autofree char *abs = kct_duration_text ((double)t->h.time_abs / res);
  /* TRANSLATORS: the timing error bound of a compressed trace, e.g. "1 µs or 0.0015 % of the
   * time since the rank's previous event" */
  return g_strdup_printf (_ ("%s or %.2g %% of the time since the rank's previous event"), abs,
                          ldexp (100.0, 1 - (int)t->h.time_bits));
}

/* bytes of an unsigned value in OTF2's compressed integer encoding: a length byte and the
 * significant bytes */
static guint
otf2_uint (guint64 v)
{
  guint n = 1;
  while (v != 0)
    {
      n++;
      v >>= 8;
    }
  return n;
}

/* An OTF2 event record: type byte, length byte, fields.  Peers are assumed to need one
 * significant byte, request ids two. */
static guint
otf2_record (const KctRaw *r)
{
  switch (r->type)
    {
    case KCT_RAW_ENTER:
    case KCT_RAW_LEAVE:
      return 2 + otf2_uint (r->a);
    case KCT_RAW_SEND:
    case KCT_RAW_RECV:
      return 2 + 2 + otf2_uint (r->a) + otf2_uint (r->tag) + otf2_uint (r->bytes);
    case KCT_RAW_ISEND:
    case KCT_RAW_IRECV:
      return 2 + 2 + otf2_uint (r->a) + otf2_uint (r->tag) + otf2_uint (r->bytes) + 3;
    case KCT_RAW_ISEND_COMPLETE:
    case KCT_RAW_IRECV_REQUEST:
    case KCT_RAW_REQUEST_CANCELLED:
      return 2 + 3;
    case KCT_RAW_COLL_BEGIN:
      return 2;
    case KCT_RAW_COLL_END:
      return 2 + 1 + otf2_uint (r->a) + (r->peer < 0 ? 5 : otf2_uint ((guint64)r->peer))
             + otf2_uint (r->bytes) + otf2_uint (r->x);
    case KCT_RAW_NBC_REQUEST:
      return 2 + 3;
    case KCT_RAW_NBC_COMPLETE:
      return 2 + 1 + otf2_uint (r->a) + (r->peer < 0 ? 5 : otf2_uint ((guint64)r->peer))
             + otf2_uint (r->bytes) + otf2_uint (r->y) + 3;
    case KCT_RAW_PROGRAM_BEGIN:
      return 2 + 2 + 2;
    case KCT_RAW_PROGRAM_END:
      return 2 + 9;
    default:
      return 2;
    }
}

/* a leaf's events plus a timestamp record (type byte + 8 bytes) per distinct time in it */
static guint64
otf2_leaf (const KctTrace *t, uint32_t leaf)
{
  uint32_t      n;
  const KctRaw *r = kct_leaf (t, leaf, &n);
  guint64       bytes = 0;
  guint         at = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      bytes += otf2_record (&r[i]);
      at |= 1u << r[i].at;
    }
  return bytes + 9u * (guint)__builtin_popcount (at);
}

guint64
kct_otf2_estimate (const KctTrace *t)
{
  guint64 *leaf_bytes = g_new0 (guint64, t->n_leaves + 1);
  for (uint32_t l = 0; l < t->n_leaves; l++)
    leaf_bytes[l] = otf2_leaf (t, l);
  guint64 total = 0;
  for (uint32_t g = 0; g < t->n_groups; g++)
    {
      uint64_t *runs = kct_group_leaf_runs (t, g);
      guint64   per_rank = 0;
      for (uint32_t l = 0; runs != NULL && l < t->n_leaves; l++)
        per_rank += runs[l] * leaf_bytes[l];
      free (runs);
      total += per_rank * t->groups[g].ranks.n;
    }
  g_free (leaf_bytes);
  /* the CPU samples where ranks outnumbered the cores (one METRIC record each, at an event's
   * time: its type and length, the metric, per member its type and value; about 16 bytes with
   * three members, measured on kct-alltoall at 16 and 32 ranks). Ranks replaying their group's mean keep no samples here but had them in the
   * run: as many as the ranks with samples had on average (at 32 ranks on 2 cores, 15 % of the
   * OTF2 trace, and its share varies from run to run with the waits) */
  if ((t->cpu_flags & KCT_CPU_SAMPLED) && t->n_cpu > 0)
    {
      guint64 samples = 0;
      for (uint32_t i = 0; i < t->n_cpu; i++)
        samples += t->cpu[i].n;
      guint per = (t->cpu_flags & KCT_CPU_WHERE) ? 16 : (t->cpu_flags & KCT_CPU_WAIT) ? 13 : 8;
      total += (guint64) llround ((double) samples / t->n_cpu * MAX (t->h.n_ranks, t->n_cpu)) * per;
    }
  /* definitions: a global part and, per rank, its location and local definition file; the
   * event files' chunk headers.  The global part holds the definitions of every MPI function
   * the collector wraps, called or not: 7.7 KiB for its 199 functions (a 16-rank ring,
   * 2026-11-29; 5.8 KiB before MPI-IO's 43) */
  return total + 7168 + 160u * t->h.n_ranks;
}

void
kct_calls_per_region (const KctTrace *t, guint64 *calls)
{
  guint64 *one = g_new0 (guint64, t->n_regions + 1);
  for (uint32_t g = 0; g < t->n_groups; g++)
    {
      memset (one, 0, sizeof *one * (t->n_regions + 1));
      kct_group_calls (t, g, one);
      for (uint32_t r = 0; r < t->n_regions; r++)
        calls[r] += one[r] * t->groups[g].ranks.n;
    }
  g_free (one);
}

void
kct_stats (const KctTrace *t, KctStats *st)
{
  memset (st, 0, sizeof *st);
  for (uint32_t g = 0; g < t->n_groups; g++)
    st->events += kct_group_events (t, g) * t->groups[g].ranks.n;
  st->leaves = t->n_leaves;
  st->bodies = t->n_bodies;
  for (uint32_t b = 0; b < t->n_bodies; b++)
    {
      uint32_t       n;
      const KctElem *e = kct_body (t, b, &n);
      for (uint32_t i = 0; i < n; i++)
        {
          if ((e[i].ref & KCT_REF_POLL) || e[i].count < 2)
            continue;
          st->rsds++;
          if (!(e[i].ref & KCT_REF_BODY))
            continue;
          /* a loop whose body holds a loop: a power-RSD */
          uint32_t       m;
          const KctElem *inner = kct_body (t, KCT_REF_ID (e[i].ref), &m);
          for (uint32_t k = 0; k < m; k++)
            if (!(inner[k].ref & KCT_REF_POLL) && inner[k].count >= 2)
              {
                st->prsds++;
                break;
              }
        }
    }
  st->otf2_measured = t->h.otf2_bytes != 0;
  st->otf2_bytes = st->otf2_measured ? t->h.otf2_bytes : kct_otf2_estimate (t);
}

char *
kct_info_text (const KctTrace *t, const char *path, guint64 file_bytes, gboolean calls)
{
  KctStats st;
  kct_stats (t, &st);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, _ ("file: %s\n"), path);
  g_string_append_printf (s, _ ("program: %s\n"), t->h.program ? t->h.program : "");
  if (t->h.flags & KCT_FILE_EXTRAPOLATED)
    g_string_append (s, _ ("made by: extrapolation from traces at fewer ranks\n"));
  else if (t->h.flags & KCT_FILE_OFFLINE)
    g_string_append (s, _ ("made by: compression of an OTF2 trace\n"));
  else
    g_string_append (s, _ ("made by: the collector, during the run\n"));
  g_string_append_printf (s, _ ("ranks: %u\n"), t->h.n_ranks);
  g_string_append_printf (s, _ ("events: %llu\n"), (unsigned long long)st.events);
  g_string_append_printf (s, _ ("rank groups: %u\n"), t->n_groups);
  g_string_append_printf (s, _ ("distinct calls (leaves): %llu\n"), (unsigned long long)st.leaves);
  g_string_append_printf (s, _ ("loops (RSDs): %llu\n"), (unsigned long long)st.rsds);
  g_string_append_printf (s, _ ("loops of loops (PRSDs): %llu\n"), (unsigned long long)st.prsds);
  g_string_append_printf (s, _ ("run length: %.6f s\n"),
                          (double)t->h.length / (double)t->h.timer_resolution);
  g_autofree char *bound = kct_bound_text (t);
  g_string_append_printf (s, _ ("timing error bound: %s\n"), bound);
  uint32_t own = 0, mean_ranks = 0, timelines = 0;
  for (uint32_t g = 0; g < t->n_groups; g++)
    {
      uint32_t k = 0;
      for (uint32_t i = 0; i < t->groups[g].n_tl; i++)
        k += t->groups[g].tl[i].rank != KCT_NONE;
      own += k;
      timelines += t->groups[g].n_tl;
      mean_ranks += t->groups[g].ranks.n > k ? t->groups[g].ranks.n - k : 0;
    }
  g_string_append_printf (s, _ ("ranks with times of their own: %u; ranks replaying their group's "
                                "mean: %u (timelines: %u, at most %u)\n"),
                          own, mean_ranks, timelines, t->h.timelines);
  if (t->cpu_flags & KCT_CPU_SAMPLED)
    {
      guint64 samples = 0, bytes = 0;
      for (uint32_t i = 0; i < t->n_cpu; i++)
        {
          samples += t->cpu[i].n;
          bytes += t->cpu[i].n_bytes;
        }
      /* TRANSLATORS: the collector's CPU-time samples where ranks outnumbered the cores */
      g_string_append_printf (s, _ ("CPU samples: %llu of %u ranks in %llu bytes\n"),
                              (unsigned long long)samples, t->n_cpu, (unsigned long long)bytes);
      /* TRANSLATORS: whether the samples say which CPU each rank ran on (kubus-sim's offline
       * model shares each CPU on its own only then) */
      g_string_append (s, (t->cpu_flags & KCT_CPU_WHERE)
                              ? _ ("CPU samples name the CPU each rank ran on: yes\n")
                              : _ ("CPU samples name the CPU each rank ran on: no\n"));
    }
  for (uint32_t h = 0; h < t->n_hosts; h++)
    if (t->hosts[h].cpus > 0)
      {
        g_string_append_printf (s, _ ("host %s: %u ranks on %u CPUs"), t->hosts[h].name,
                                t->hosts[h].ranks.n, t->hosts[h].cpus);
        if (t->hosts[h].other_known)
          g_string_append_printf (s, _ ("; other programs took %.3f s of CPU in %.3f s"),
                                  (double)t->hosts[h].other_cpu_ns / 1e9,
                                  (double)t->hosts[h].other_wall_ns / 1e9);
        g_string_append_c (s, '\n');
      }
  for (uint32_t i = 0; i < t->n_props; i++)
    {
      /* the OTF2 archive's properties, e.g. KUBUS::EAGER_LIMIT_SAME_HOST (the MPI library's
       * eager limit in bytes); escaped: they come from the file */
      g_autofree char *name = g_strescape (t->prop_names[i], NULL);
      g_autofree char *value = g_strescape (t->prop_values[i], NULL);
      /* TRANSLATORS: a property of the trace archive and its value */
      g_string_append_printf (s, _ ("property %s: %s\n"), name, value);
    }
  g_string_append_printf (s, _ ("size: %llu bytes\n"), (unsigned long long)file_bytes);
  g_string_append_printf (s, _ ("size per rank: %.1f bytes\n"),
                          (double)file_bytes / (double)t->h.n_ranks);
  if (st.otf2_measured)
    g_string_append_printf (s, _ ("OTF2 size (measured, same run): %llu bytes\n"),
                            (unsigned long long)st.otf2_bytes);
  g_string_append_printf (s, _ ("OTF2 size (estimated): %llu bytes\n"),
                          (unsigned long long)kct_otf2_estimate (t));
  g_string_append_printf (s, _ ("compression ratio: %.1f\n"),
                          file_bytes ? (double)st.otf2_bytes / (double)file_bytes : 0.0);
  if (calls)
    {
      guint64 *n = g_new0 (guint64, t->n_regions + 1);
      kct_calls_per_region (t, n);
      g_string_append (s, _ ("calls per region:\n"));
      for (uint32_t r = 0; r < t->n_regions; r++)
        if (n[r] > 0)
          g_string_append_printf (s, "  %s %llu\n", t->regions[r].name,
                                  (unsigned long long)n[r]);
      g_free (n);
    }
  return g_string_free (s, FALSE);
}
