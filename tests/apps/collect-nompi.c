/* collect-nompi.c — a program for mpirun that does not use MPI (not linked with it), as Debian's
 * mrbayes-mpi 3.2.7a turned out to be: every process prints one line and exits 0. kubus-run must
 * say that the program is not linked with MPI and that nothing was measured, and exit 3
 * (collect-test.py nompi). */
#include <stdio.h>

int
main (void)
{
  printf ("collect-nompi: done\n");
  return 0;
}
