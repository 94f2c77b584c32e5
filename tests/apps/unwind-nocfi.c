/* unwind-nocfi.c — a stack the unwinder cannot walk to main (tests/collect, unwind-test.py
 * c-nocfi): main calls kubus_test_trampoline (unwind-nocfi-tramp.c, built without unwind
 * tables, as an interpreter's or a JIT's frames are), which calls work, which calls MPI. The
 * walk from that MPI_Barrier ends in the trampoline; main's own calls reach main. */
#include <mpi.h>

void kubus_test_trampoline (void (*f) (void));

static volatile int done;

/* the increment after the call keeps it from becoming a tail call */
static void __attribute__ ((noinline))
work (void)
{
  MPI_Barrier (MPI_COMM_WORLD);
  done++;
}

int
main (int    argc,
      char **argv)
{
  MPI_Init (&argc, &argv);
  kubus_test_trampoline (work);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
