/* fuzz-kct — compressed traces (.kct) through the decoder, and whatever decodes through the
 * structure statistics, the replay iterator (a bounded number of events of a few ranks), the
 * encoder (a decoded trace must encode to bytes that decode again, identically), merging and
 * finishing.  Seeds: tests/fuzz/seeds/kct (ring-3-cpu.kct: format version 4 with CPU samples;
 * ring-3-cpu5.kct: version 5, the samples with the CPUs they ran on; ring-3-props.kct: the same
 * with the optional section PROP, the archive's properties).  Errors are fine; crashes, leaks,
 * hangs and sanitizer reports are not. */
#include "kct-format.h"
#include "kct-replay.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
replay_some (const KctTrace *t)
{
  char      err[256];
  KctComms *comms = kct_comms_new (t, err, sizeof err);
  if (comms == NULL)
    return;
  for (uint32_t r = 0; r < t->h.n_ranks && r < 8; r++)
    {
      KctReplay *it = kct_replay_new (t, comms, r);
      KctEvent   ev;
      if (r % 2 == 0)
        kct_replay_cpu (it); /* the CPU samples too (format version 4) */
      for (int i = 0; i < 20000 && kct_replay_next (it, &ev) == 1; i++)
        ;
      kct_replay_free (it);
    }
  for (uint32_t c = 0; c < kct_comms_count (comms) && c < 64; c++)
    {
      const KctCommInfo *in = kct_comms_info (comms, c);
      if (in->size > 0)
        (void)kct_comms_member (comms, c, 0, 0);
      (void)kct_comms_find (comms, in->entry, 0);
    }
  kct_comms_free (comms);
}

/* A copy with every section's checksum made right, so that mutations inside payloads reach
 * the payload readers instead of stopping at the checksum. */
static uint8_t *
fix_checksums (const uint8_t *data, size_t size)
{
  uint8_t *c = malloc (size ? size : 1);
  if (c == NULL)
    return NULL;
  memcpy (c, data, size);
  for (size_t pos = 16; size >= 16 && pos + 16 <= size;)
    {
      uint64_t len = 0;
      for (int i = 0; i < 8; i++)
        len |= (uint64_t)c[pos + 4 + i] << (8 * i);
      if (len > size - pos - 16)
        break;
      uint32_t crc = kct_crc32 (c + pos + 16, (size_t)len);
      for (int i = 0; i < 4; i++)
        c[pos + 12 + i] = (uint8_t)(crc >> (8 * i));
      pos += 16 + (size_t)len;
    }
  return c;
}

static int one_input (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  one_input (data, size);
  uint8_t *fixed = fix_checksums (data, size);
  if (fixed != NULL)
    one_input (fixed, size);
  free (fixed);
  return 0;
}

static int
one_input (const uint8_t *data, size_t size)
{
  KctTrace *t = NULL;
  char      err[512];
  if (kct_decode (data, size, &t, err, sizeof err) != 0)
    {
      if (t != NULL || err[0] == '\0')
        abort (); /* a failure always says why and returns nothing */
      return 0;
    }
  for (uint32_t g = 0; g < t->n_groups; g++)
    {
      uint64_t *calls = calloc ((size_t)t->n_regions + 1, sizeof *calls);
      (void)kct_group_events (t, g);
      kct_group_calls (t, g, calls);
      free (calls);
    }
  replay_some (t);

  /* encode -> decode -> encode gives the same bytes */
  uint8_t *a = NULL, *b = NULL;
  size_t   la = 0, lb = 0;
  KctTrace *u = NULL;
  if (kct_encode (t, &a, &la) != 0 || kct_decode (a, la, &u, err, sizeof err) != 0
      || kct_encode (u, &b, &lb) != 0 || la != lb || memcmp (a, b, la) != 0)
    abort ();
  free (a);
  free (b);

  /* merge a copy into it, then finish both (what kubus-trace compress does) */
  if (kct_merge (u, t) == 0 && kct_finish (u) == 0)
    {
      if (kct_encode (u, &a, &la) == 0)
        {
          KctTrace *v = NULL;
          if (kct_decode (a, la, &v, err, sizeof err) == 0)
            {
              replay_some (v);
              kct_trace_free (v);
            }
          free (a);
        }
    }
  kct_trace_free (u);
  kct_trace_free (t);
  return 0;
}
