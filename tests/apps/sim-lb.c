/* sim-lb.c — the load-imbalance programs of the simulator tests (tests/sim), built twice:
 *
 *   sim-lb-coll: each iteration foo() (imbalanced), bar() (balanced), then MPI_Allreduce;
 *   sim-lb-p2p:  the same, then every odd rank sends one double to its even partner (rank − 1),
 *                which receives it: a later receive that waits for the slower sender.
 *   sim-lb-nbc:  foo(), then MPI_Iallreduce, bar() overlapping it, MPI_Wait: the imbalance of
 *                foo is waited for in MPI_Wait (a non-blocking collective's wait state).
 *
 * With the argument "balanced" foo() takes on every rank the mean over ranks of what it takes
 * in that iteration without it, so `balance region foo` on a trace of the imbalanced program
 * predicts a measured run of the balanced one. Intervals are nanosleeps of tens of ms (a busy
 * machine with four ranks on two cores keeps them), built with -finstrument-functions so foo
 * and bar are regions of the trace. Even rank counts (LB-P2P pairs ranks). */
#include "ws-common.h"
#include "sim-common.h"

#define ITERATIONS 8

static int rank, size, balanced;

/* foo's length in iteration @it on rank @r; the mean changes from one iteration to the next
 * (per-instance balance differs from global balance). LB-COLL: the slow rank moves around;
 * LB-P2P: odd ranks (the senders) are slower, so their even partners wait every time. */
static double
foo_ms (int r,
        int it)
{
  double base = it % 2 ? 10.0 : 20.0;
#ifdef LB_P2P
  return base + (r % 2 ? 30.0 : 0.0) + 5.0 * ((r / 2 + it) % 2);
#else
  double step = size > 1 ? 40.0 / (size - 1) : 0.0;
  return base + step * ((r + it) % size);
#endif
}

static void __attribute__ ((noinline))
foo (int it)
{
  double ms = foo_ms (rank, it);
  if (balanced)
    {
      ms = 0;
      for (int r = 0; r < size; r++)
        ms += foo_ms (r, it);
      ms /= size;
    }
  ws_sleep_ms (ms);
}

static void __attribute__ ((noinline))
bar (void)
{
  ws_sleep_ms (15);
}

/* the iterations; LB_STACK: in one function of their own, with no instrumentation, so that
 * only the stack (kubus-run's call paths by unwinding) knows it: one visit spans them all */
#ifdef LB_STACK
static void __attribute__ ((noinline)) steps (void);
#endif

int
main (int    argc,
      char **argv)
{
#ifndef LB_STACK
  double v = 1.0;
#endif

  MPI_Init (&argc, &argv);
  sim_app_precise ();
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  balanced = argc > 1 && strcmp (argv[1], "balanced") == 0;
#ifdef LB_P2P
  if (size % 2)
    {
      if (rank == 0)
        fprintf (stderr, "sim-lb-p2p: needs an even number of ranks\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
#endif
#ifdef LB_STACK
  steps ();
  MPI_Finalize ();
  return 0;
}

static void __attribute__ ((noinline))
steps (void)
{
  double v = 1.0;
  /* the time between two MPI calls belongs to the deepest function both stacks share: the
   * computation before the first call made inside steps is main's, so steps starts with one */
  MPI_Barrier (MPI_COMM_WORLD);
#endif
  for (int it = 0; it < ITERATIONS; it++)
    {
      foo (it);
#ifdef LB_NBC
      {
        double sum;
        MPI_Request req;
        MPI_Iallreduce (&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        bar ();
        MPI_Wait (&req, MPI_STATUS_IGNORE);
      }
#else
      bar ();
#endif
#ifdef LB_P2P
      if (rank % 2)
        MPI_Send (&v, 1, MPI_DOUBLE, rank - 1, it, MPI_COMM_WORLD);
      else
        MPI_Recv (&v, 1, MPI_DOUBLE, rank + 1, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#elif !defined(LB_NBC)
      double sum;
      MPI_Allreduce (&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
    }
#ifndef LB_STACK
  MPI_Finalize ();
  return 0;
#endif
}
