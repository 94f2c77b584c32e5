/* make-sim-trace — usage: make-sim-trace exact|unmatched|omp|approx|clockviol|cutcoll|threadcoll DIR → DIR/traces.otf2
 * (the traces are described in sim-trace-gen.c). */
#include "sim-trace-gen.h"

#include <stdio.h>

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: make-sim-trace exact|unmatched|omp|approx|clockviol|cutcoll|threadcoll DIR\n");
      return 2;
    }
  if (g_mkdir_with_parents (argv[2], 0755) != 0 || !sim_trace_gen_write (argv[2], argv[1]))
    {
      fprintf (stderr, "make-sim-trace: cannot write %s trace into %s\n", argv[1], argv[2]);
      return 1;
    }
  return 0;
}
