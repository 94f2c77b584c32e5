/* unwind: the cost of call paths from the stack per MPI call, at a chosen call depth.
 * argv[1]: depth D (1 … 60) of distinct functions between main and the MPI calls; argv[2]: N.
 * One rank: N times a 0-byte MPI_Send to itself and its MPI_Recv, made D functions deep.
 * Prints "unwind_cpu_ns_per_call X" (user + system CPU time per MPI call), so that it can be
 * measured on a busy machine; compare kubus-run --call-paths=unwind with =flat (unwind.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define NOINLINE __attribute__ ((noinline))

static double
cpu_ns (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9
         + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

static volatile int sink;

NOINLINE static void
calls (long n)
{
  char   b = 0;
  double c0 = cpu_ns ();
  for (long i = 0; i < n; i++)
    {
      MPI_Send (&b, 0, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      MPI_Recv (&b, 0, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  double c1 = cpu_ns ();
  printf ("unwind_cpu_ns_per_call %.1f\n", (c1 - c0) / (2.0 * n));
}

typedef void (*Level) (int, long);
static Level levels[62];

/* sixty distinct functions: f(k) calls level k + 1 until the depth is reached */
#define LEVEL(k)                                                                                   \
  NOINLINE static void f##k (int left, long n)                                                     \
  {                                                                                                \
    if (left <= 1)                                                                                 \
      calls (n);                                                                                   \
    else                                                                                           \
      levels[k + 1](left - 1, n);                                                                  \
    sink++;                                                                                        \
  }
#define TEN(t)                                                                                     \
  LEVEL (t##0) LEVEL (t##1) LEVEL (t##2) LEVEL (t##3) LEVEL (t##4) LEVEL (t##5) LEVEL (t##6)       \
  LEVEL (t##7) LEVEL (t##8) LEVEL (t##9)
LEVEL (1) LEVEL (2) LEVEL (3) LEVEL (4) LEVEL (5) LEVEL (6) LEVEL (7) LEVEL (8) LEVEL (9)
TEN (1) TEN (2) TEN (3) TEN (4) TEN (5) LEVEL (60)

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int  depth = argc > 1 ? atoi (argv[1]) : 20;
  long n = argc > 2 ? atol (argv[2]) : 1000000;
  Level all[] = { NULL, f1,  f2,  f3,  f4,  f5,  f6,  f7,  f8,  f9,  f10, f11, f12, f13, f14, f15,
                  f16,  f17, f18, f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31,
                  f32,  f33, f34, f35, f36, f37, f38, f39, f40, f41, f42, f43, f44, f45, f46, f47,
                  f48,  f49, f50, f51, f52, f53, f54, f55, f56, f57, f58, f59, f60 };
  for (int k = 1; k <= 60; k++)
    levels[k] = all[k];
  levels[0] = NULL;
  if (depth < 1 || depth > 60)
    depth = 20;
  /* depth D: main > f1 > … > fD-1 > calls */
  if (depth == 1)
    calls (n);
  else
    f1 (depth - 1, n);
  MPI_Finalize ();
  return 0;
}
