// unwind-cxx: a C++ program (namespaces, a class template, an inlined helper) for the call paths
// found by unwinding.  2 ranks.  Expected call paths of its MPI calls (unwind-test.py):
//   main > physics::Solver::run(int) > physics::Halo<double>::exchange(int) > MPI_Sendrecv
//   main > physics::Solver::run(int) > physics::Solver::norm() const > MPI_Allreduce
//   main > physics::Solver::run(int) > MPI_Barrier   (through an always-inlined helper)
#include <mpi.h>
#include <vector>

#define NOINLINE __attribute__ ((noinline))

namespace physics
{
template <typename T> class Halo
{
public:
  explicit Halo (int n) : buf_ (n), in_ (n) {}
  NOINLINE void exchange (int rank)
  {
    int peer = 1 - rank;
    MPI_Sendrecv (buf_.data (), (int)buf_.size () * (int)sizeof (T), MPI_BYTE, peer, 0,
                  in_.data (), (int)in_.size () * (int)sizeof (T), MPI_BYTE, peer, 0,
                  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }

private:
  std::vector<T> buf_, in_;
};

static inline __attribute__ ((always_inline)) void
sync_all ()
{
  MPI_Barrier (MPI_COMM_WORLD);
}

class Solver
{
public:
  NOINLINE double norm () const
  {
    double x = value_, y = 0;
    MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return y;
  }
  NOINLINE void run (int rank)
  {
    Halo<double> halo (64);
    for (int s = 0; s < 5; s++)
      {
        halo.exchange (rank);
        value_ += norm ();
      }
    sync_all ();
  }

private:
  double value_ = 1.0;
};
} // namespace physics

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  physics::Solver s;
  s.run (rank);
  MPI_Finalize ();
  return 0;
}
