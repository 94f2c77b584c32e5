/* collect-regions.c: names of this rank's user regions.
 *
 * Names are interned once (the first time a function or manual region is
 * seen); the ids are local and mapped to global ids at finalize. */
#include "collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 65536 /* power of two: upper bound on distinct user regions */

static char         *names[SLOTS];
static unsigned char kind[SLOTS]; /* KUBUS_REGION_*: -finstrument-functions, kubus_region_begin, stack */
static uint32_t      count;
static uint32_t      slot_region[SLOTS]; /* region index + 1 */

static uint32_t
hash (const char *s)
{
  uint32_t h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

uint32_t
kubus_region_intern (const char *name)
{
  uint32_t s = hash (name) & (SLOTS - 1);
  for (uint32_t n = 0; n < SLOTS; n++)
    {
      uint32_t r = slot_region[s];
      if (r == 0)
        break;
      if (strcmp (names[r - 1], name) == 0)
        return KUBUS_R_USER_BASE + r - 1;
      s = (s + 1) & (SLOTS - 1);
    }
  if (count >= SLOTS / 2)
    return KUBUS_R_UNKNOWN;
  char *copy = strdup (name);
  if (copy == NULL)
    return KUBUS_R_UNKNOWN;
  names[count] = copy;
  slot_region[s] = ++count;
  return KUBUS_R_USER_BASE + count - 1;
}

uint32_t
kubus_region_count (void)
{
  return count;
}

const char *
kubus_region_name (uint32_t local_id)
{
  return names[local_id - KUBUS_R_USER_BASE];
}

void
kubus_region_set_manual (uint32_t local_id)
{
  if (local_id >= KUBUS_R_USER_BASE && local_id - KUBUS_R_USER_BASE < count)
    kind[local_id - KUBUS_R_USER_BASE] = KUBUS_REGION_MANUAL;
}

int
kubus_region_is_manual (uint32_t local_id)
{
  return kind[local_id - KUBUS_R_USER_BASE] == KUBUS_REGION_MANUAL;
}

void
kubus_region_set_frame (uint32_t local_id)
{
  if (local_id >= KUBUS_R_USER_BASE && local_id - KUBUS_R_USER_BASE < count)
    kind[local_id - KUBUS_R_USER_BASE] = KUBUS_REGION_FRAME;
}

int
kubus_region_kind (uint32_t local_id)
{
  return kind[local_id - KUBUS_R_USER_BASE];
}

void
kubus_frame_display_name (const char *key, char *out, size_t len)
{
  /* kubus-frame:BUILDID:PATH+0xOFFSET */
  const char *p = key;
  if (strncmp (p, "kubus-frame:", 12) == 0)
    {
      p += 12;
      const char *colon = strchr (p, ':');
      p = colon ? colon + 1 : p;
    }
  size_t n = strlen (p);
  if (n >= 5 && strcmp (p + n - 5, ";main") == 0)
    {
      snprintf (out, len, "main");
      return;
    }
  const char *plus = strrchr (p, '+');
  const char *slash = strrchr (p, '/');
  const char *base = slash != NULL && (plus == NULL || slash < plus) ? slash + 1 : p;
  snprintf (out, len, "%s", base);
}
