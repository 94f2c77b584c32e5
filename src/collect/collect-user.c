/* collect-user.c: user regions: -finstrument-functions hooks, the manual
 * region API (kubus/region.h) and the filter file.
 *
 * A stack of open user regions is kept from the first instrumented call
 * on, even before MPI_Init: main() is entered long before tracing starts,
 * so MPI_Init replays the open frames as Enter events and MPI_Finalize
 * closes them, keeping the trace balanced.  Function addresses are resolved
 * once and cached in a fixed open-addressing table. */
#include "collect.h"
#include "collect-symbols.h"
#include "kubus/region.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_INSTR __attribute__ ((no_instrument_function))

void __cyg_profile_func_enter (void *fn, void *site);
void __cyg_profile_func_exit (void *fn, void *site);
#define CACHE_SLOTS 65536 /* power of two */
#define MAX_DEPTH KUBUS_USER_MAX_DEPTH
#define FILTERED UINT32_MAX
#define MAX_RULES 256

static uintptr_t cache_addr[CACHE_SLOTS];
static uint32_t  cache_region[CACHE_SLOTS];
static uint32_t  cache_used;

static uint32_t stack[MAX_DEPTH];
static uint64_t stack_enter[MAX_DEPTH]; /* enter time of frames opened before MPI_Init */
static uintptr_t stack_cfa[MAX_DEPTH];  /* CFA of the hook the opening code called */
int             kubus_user_level;       /* may exceed MAX_DEPTH: deeper frames are not recorded */
static int      started;                /* MPI_Init seen */
static int      done;                   /* MPI_Finalize seen */

static struct
{
  int  include;
  char pattern[256];
} rules[MAX_RULES];
static int n_rules;
static int filter_loaded;

static void NO_INSTR
load_filter (void)
{
  filter_loaded = 1;
  const char *path = getenv ("KUBUS_FILTER");
  if (path == NULL || path[0] == '\0')
    return;
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return;
  char line[512];
  while (fgets (line, sizeof line, f) != NULL && n_rules < MAX_RULES)
    {
      char word[16], pat[256];
      if (sscanf (line, "%15s %255s", word, pat) != 2 || word[0] == '#')
        continue;
      for (char *p = word; *p; p++)
        *p = (char)toupper ((unsigned char)*p);
      if (strcmp (word, "EXCLUDE") != 0 && strcmp (word, "INCLUDE") != 0)
        continue;
      rules[n_rules].include = word[0] == 'I';
      snprintf (rules[n_rules].pattern, sizeof rules[n_rules].pattern, "%s", pat);
      n_rules++;
    }
  fclose (f);
}

static int NO_INSTR
included (const char *name)
{
  if (!filter_loaded)
    load_filter ();
  int inc = 1;
  for (int i = 0; i < n_rules; i++)
    if (fnmatch (rules[i].pattern, name, 0) == 0)
      inc = rules[i].include;
  return inc;
}

static uint32_t NO_INSTR
resolve (uintptr_t addr)
{
  uint32_t s = (uint32_t)((addr * 0x9E3779B97F4A7C15ull) >> 40) & (CACHE_SLOTS - 1);
  while (cache_addr[s] != 0)
    {
      if (cache_addr[s] == addr)
        return cache_region[s];
      s = (s + 1) & (CACHE_SLOTS - 1);
    }
  /* first sighting: name it, filter it, remember the answer */
  const char *name = kubus_symbols_lookup (addr);
  char        buf[32];
  if (name == NULL)
    {
      snprintf (buf, sizeof buf, "0x%lx", (unsigned long)addr);
      name = buf;
    }
  uint32_t region = included (name) ? kubus_region_intern (name) : FILTERED;
  if (cache_used < CACHE_SLOTS / 2)
    {
      cache_addr[s] = addr;
      cache_region[s] = region;
      cache_used++;
    }
  return region;
}

/* @early: the enter time of a frame opened before MPI_Init (written then), 0 when recording;
 * @cfa: the CFA of the hook (frames found on the stack deeper than it are inside the region);
 * @site: the hook's return address when the stack above the region is to be unwound (a manual
 * region, or the outermost instrumented function), NULL otherwise */
static inline void NO_INSTR
push (uint32_t region, int record, uint64_t early, uintptr_t cfa, const void *site)
{
  /* from now on other threads' MPI calls are not recorded (collect-state.c) */
  kubus_user_seen = 1;
  if (kubus_user_level < MAX_DEPTH)
    {
      stack[kubus_user_level] = region;
      stack_enter[kubus_user_level] = early;
      stack_cfa[kubus_user_level] = cfa;
    }
  if (record && __builtin_expect (kubus_flush_pending, 0))
    kubus_record_flush ();
  if (record && kubus_user_level < MAX_DEPTH)
    {
      uint64_t t = kubus_now ();
      if (kubus_unwind_on && site != NULL)
        kubus_unwind_update (site, t); /* the functions the region opens in */
      else if (kubus_unwind_on)
        kubus_unwind_user_push (cfa, kubus_user_level);
      kubus_alive = t;
      if (kubus_recording)
        kubus_check (OTF2_EvtWriter_Enter (kubus_evt, NULL, t, region), "Enter");
      if (kubus_profiling)
        kubus_prof_push (region, t);
    }
  kubus_user_level++;
}

static inline void NO_INSTR
pop (int record)
{
  if (kubus_user_level == 0)
    return;
  kubus_user_level--;
  if (record && __builtin_expect (kubus_flush_pending, 0))
    kubus_record_flush ();
  if (record && kubus_user_level < MAX_DEPTH)
    {
      if (kubus_unwind_on)
        kubus_unwind_user_pop (kubus_user_level + 1);
      uint64_t t = kubus_now ();
      kubus_alive = t;
      if (kubus_recording)
        kubus_check (OTF2_EvtWriter_Leave (kubus_evt, NULL, t, stack[kubus_user_level]), "Leave");
      if (kubus_profiling)
        kubus_prof_pop (t);
    }
}

__attribute__ ((visibility ("default"))) void NO_INSTR
__cyg_profile_func_enter (void *fn, void *site)
{
  (void)site;
  if (KUBUS_ON ())
    {
      uint32_t r = resolve ((uintptr_t)fn);
      if (r != FILTERED)
        push (r, 1, 0, (uintptr_t)__builtin_dwarf_cfa (),
              kubus_user_level == 0 ? __builtin_return_address (0) : NULL);
    }
  else if (!started && !done)
    {
      uint64_t t = kubus_now (); /* before resolving: the first lookup reads the ELF tables */
      uint32_t r = resolve ((uintptr_t)fn);
      if (r != FILTERED)
        push (r, 0, t, (uintptr_t)__builtin_dwarf_cfa (), NULL);
    }
}

__attribute__ ((visibility ("default"))) void NO_INSTR
__cyg_profile_func_exit (void *fn, void *site)
{
  (void)site;
  if (KUBUS_ON ())
    {
      if (resolve ((uintptr_t)fn) != FILTERED)
        pop (1);
    }
  else if (kubus_main_thread || !started)
    {
      if (resolve ((uintptr_t)fn) != FILTERED)
        pop (0);
    }
}

void
kubus_region_begin (const char *name)
{
  if (name == NULL)
    return;
  /* like an instrumented function: a region opened before MPI_Init is written at MPI_Init
   * with its own enter time */
  int      on = KUBUS_ON ();
  uint64_t t = on ? 0 : kubus_now ();
  if (!on && (started || done))
    return;
  uint32_t r = kubus_region_intern (name);
  kubus_region_set_manual (r);
  push (r, on, t, (uintptr_t)__builtin_dwarf_cfa (), __builtin_return_address (0));
}

void
kubus_region_end (const char *name)
{
  if (name == NULL || kubus_user_level == 0)
    return;
  if (KUBUS_ON ())
    {
      uint32_t r = kubus_region_intern (name);
      if (kubus_user_level <= MAX_DEPTH && stack[kubus_user_level - 1] != r)
        kubus_log ("kubus_region_end(\"%s\") does not match the open region", name);
      pop (1);
    }
  else if (kubus_main_thread || !started)
    pop (0);
}

void
kubus_user_init (void)
{
  started = 1;
}

void
kubus_user_open_frames (uint64_t not_before, uint64_t not_after)
{
  uint64_t t = not_before;
  for (int i = 0; i < kubus_user_level && i < MAX_DEPTH; i++)
    {
      /* frames were pushed in time order; clamping keeps them so */
      if (stack_enter[i] > t)
        t = stack_enter[i];
      if (t > not_after)
        t = not_after;
      if (kubus_recording)
        kubus_check (OTF2_EvtWriter_Enter (kubus_evt, NULL, t, stack[i]), "Enter");
      if (kubus_profiling)
        kubus_prof_push (stack[i], t);
    }
}

void
kubus_user_close_frames (uint64_t time)
{
  done = 1;
  if (!kubus_recording)
    return;
  /* each user region with the frames found on the stack above it */
  for (int i = (kubus_user_level < MAX_DEPTH ? kubus_user_level : MAX_DEPTH) - 1; i >= 0; i--)
    {
      kubus_unwind_close_segment (i + 1, time);
      kubus_check (OTF2_EvtWriter_Leave (kubus_evt, NULL, time, stack[i]), "Leave");
    }
  kubus_unwind_close_segment (0, time);
}

uintptr_t
kubus_user_cfa (int i)
{
  return i >= 0 && i < MAX_DEPTH ? stack_cfa[i] : 0;
}
