! unwind-f: a Fortran program whose module procedure calls a C helper that calls MPI
! (unwind-f-helper.c), for the call paths found by unwinding.  2 ranks.  Expected:
!   main > unwind_f > solver::step > c_allreduce > MPI_Allreduce   (names from DWARF: -g)
module solver
  use iso_c_binding
  implicit none
  interface
    subroutine c_allreduce(x) bind(C, name='c_allreduce')
      import :: c_double
      real(c_double), intent(inout) :: x
    end subroutine
    subroutine c_init() bind(C, name='c_init')
    end subroutine
    subroutine c_finalize() bind(C, name='c_finalize')
    end subroutine
  end interface
contains
  subroutine step(x)
    real(c_double), intent(inout) :: x
    call c_allreduce(x)
  end subroutine
end module

program unwind_f
  use solver
  implicit none
  real(c_double) :: x
  integer :: i
  x = 1.0d0
  call c_init()
  do i = 1, 5
    call step(x)
  end do
  call c_finalize()
end program
