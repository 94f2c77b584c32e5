/* collect-regions.c: names of this rank's user regions.
 *
 * Names are interned once (the first time a function or manual region is
 * seen); the ids are local and mapped to global ids at finalize. */
#include "collect.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS 65536 /* power of two: upper bound on distinct user regions */

static char         *names[SLOTS];
static unsigned char manual[SLOTS]; /* from kubus_region_begin, not -finstrument-functions */
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
    manual[local_id - KUBUS_R_USER_BASE] = 1;
}

int
kubus_region_is_manual (uint32_t local_id)
{
  return manual[local_id - KUBUS_R_USER_BASE];
}
