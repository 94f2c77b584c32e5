/* unwind-nocfi.c — a stack the unwinder cannot walk to main (tests/collect, unwind-test.py
 * c-nocfi): main calls kubus_test_trampoline (unwind-nocfi-tramp.c, built without unwind
 * tables, as an interpreter's or a JIT's frames are), which calls work, which calls MPI. The
 * walk from that MPI_Barrier ends in the trampoline; main's own calls reach main. On x86-64,
 * main also calls jitted, which calls MPI_Allreduce, through a trampoline of machine code
 * copied into anonymous memory (as a JIT compiler's code is: no module, no unwind table). */
#include <mpi.h>
#include <string.h>
#include <sys/mman.h>

void kubus_test_trampoline (void (*f) (void));

static volatile int done;

/* the increment after the call keeps it from becoming a tail call */
static void __attribute__ ((noinline))
work (void)
{
  MPI_Barrier (MPI_COMM_WORLD);
  done++;
}

static void __attribute__ ((noinline))
jitted (void)
{
  int one = 1, sum = 0;
  MPI_Allreduce (&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  done += sum;
}

/* calls @f from code in anonymous memory; 0 where that cannot be made */
static int
call_from_anonymous_code (void (*f) (void))
{
#if defined(__x86_64__)
  /* sub $8,%rsp; call *%rdi; add $8,%rsp; ret */
  static const unsigned char code[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd7, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
  void *page = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED)
    return 0;
  memcpy (page, code, sizeof code);
  if (mprotect (page, 4096, PROT_READ | PROT_EXEC) != 0)
    return 0;
  ((void (*) (void (*) (void))) page) (f);
  return 1;
#else
  (void) f;
  return 0;
#endif
}

int
main (int    argc,
      char **argv)
{
  MPI_Init (&argc, &argv);
  kubus_test_trampoline (work);
  if (!call_from_anonymous_code (jitted))
    jitted ();
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
