/* calls: the collector's cost per MPI call in one rank, in CPU time, so that it can be measured
 * on a machine other processes keep busy (wall-clock loops there measure the scheduler).
 * argv[1]: N (default 2000000).  N times MPI_Iprobe (Enter and Leave only), then N times a
 * 0-byte MPI_Send to itself followed by its MPI_Recv (a message each: the send and receive
 * bookkeeping, and in the profile a Late Sender candidate).  Every rank measures itself (meant
 * for one rank; with more, each sends to itself).  Prints the user + system CPU
 * time per call, "iprobe_cpu_ns X" and "sendrecv_cpu_ns_per_call Y", and the Send/Recv part's
 * user and system shares apart ("sendrecv_user_ns_per_call", "sendrecv_sys_ns_per_call") with
 * its minor page faults per 1000 calls: the system part is mostly the kernel giving the trace
 * buffer fresh memory, which costs 10-100x more in some virtual machines than natively. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double
cpu_ns (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9
         + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* user CPU, system CPU (ns) and minor faults so far */
static void
cpu_parts (double part[3])
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  part[0] = ru.ru_utime.tv_sec * 1e9 + ru.ru_utime.tv_usec * 1e3;
  part[1] = ru.ru_stime.tv_sec * 1e9 + ru.ru_stime.tv_usec * 1e3;
  part[2] = (double) ru.ru_minflt;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  long n = argc > 1 ? atol (argv[1]) : 2000000;
  int  flag;
  char b = 0;
  int  me = 0;
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  double c0 = cpu_ns ();
  for (long i = 0; i < n; i++)
    MPI_Iprobe (MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  double c1 = cpu_ns (), p1[3], p2[3];
  cpu_parts (p1);
  for (long i = 0; i < n; i++)
    {
      MPI_Send (&b, 0, MPI_CHAR, me, 1, MPI_COMM_WORLD);
      MPI_Recv (&b, 0, MPI_CHAR, me, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  double c2 = cpu_ns ();
  cpu_parts (p2);
  printf ("iprobe_cpu_ns %.1f\nsendrecv_cpu_ns_per_call %.1f\n", (c1 - c0) / n, (c2 - c1) / (2.0 * n));
  printf ("sendrecv_user_ns_per_call %.1f\nsendrecv_sys_ns_per_call %.1f\nsendrecv_faults_per_1000_calls %.2f\n",
          (p2[0] - p1[0]) / (2.0 * n), (p2[1] - p1[1]) / (2.0 * n), (p2[2] - p1[2]) * 1000.0 / (2.0 * n));
  MPI_Finalize ();
  return 0;
}
