! fortran-all-cptr.f90 — the TYPE(C_PTR) overloads of `use mpi`'s window functions
! (MPI_Win_allocate, MPI_Win_allocate_shared, MPI_Win_shared_query with a TYPE(C_PTR) baseptr),
! which Open MPI binds to symbols of their own (mpi_win_allocate_cptr_ …).  fortran-all.f90
! (use mpi_f08) calls cptr_windows and counts these calls as its own.
module fortran_all_cptr
  use mpi
  use, intrinsic :: iso_c_binding, only : c_ptr, c_associated, c_f_pointer
  implicit none
  private
  public :: cptr_windows

contains

  ! On the communicator @comm (a use mpi INTEGER handle), with @partner: MPI_Win_allocate (with
  ! MPI_ERRORS_RETURN; @allocated tells whether it worked, then the window was freed with
  ! MPI_Win_free), MPI_Win_allocate_shared, MPI_Win_shared_query of the partner's memory, a
  ! value written there (between two MPI_Barrier) and read back by the partner, and
  ! MPI_Win_free.  @ok is .false. when a result was wrong.
  subroutine cptr_windows (comm, rank, partner, allocated, ok)
    integer, intent (in) :: comm, rank, partner
    logical, intent (out) :: allocated, ok
    type (c_ptr) :: base, pbase
    integer (kind = MPI_ADDRESS_KIND) :: wsize
    integer :: win, disp, ierr
    integer, pointer, volatile :: mine(:)
    integer, pointer :: theirs(:)

    ok = .true.
    call MPI_Comm_set_errhandler (comm, MPI_ERRORS_RETURN, ierr)
    call MPI_Win_allocate (16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, comm, base, win, ierr)
    allocated = ierr == MPI_SUCCESS
    if (allocated) then
      ok = ok .and. c_associated (base)
      call MPI_Win_free (win, ierr)
    end if
    call MPI_Comm_set_errhandler (comm, MPI_ERRORS_ARE_FATAL, ierr)
    call MPI_Win_allocate_shared (16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, comm, base, win, ierr)
    ok = ok .and. ierr == MPI_SUCCESS .and. c_associated (base)
    call c_f_pointer (base, mine, [4])
    mine = 0
    call MPI_Barrier (comm, ierr)  ! zero before the partner writes
    call MPI_Win_shared_query (win, partner, wsize, disp, pbase, ierr)
    ok = ok .and. ierr == MPI_SUCCESS .and. wsize == 16 .and. disp == 4 .and. c_associated (pbase)
    call c_f_pointer (pbase, theirs, [4])
    ! into the partner's memory directly (a shared-memory window), seen after the barrier
    theirs(1) = 100 + rank
    call MPI_Barrier (comm, ierr)
    ok = ok .and. mine(1) == 100 + partner
    call MPI_Win_free (win, ierr)
    ok = ok .and. win == MPI_WIN_NULL
  end subroutine cptr_windows

end module fortran_all_cptr
