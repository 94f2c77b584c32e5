! fortran-mpi.F90 — the collector's Fortran test program, one source for the three bindings:
! mpif.h (default), `use mpi` (-DKUBUS_USE_MPI_MODULE) and `use mpi_f08` (-DKUBUS_USE_MPI_F08:
! handles of derived types, TYPE(MPI_Status), the optional ierror left out but where tested).
! fortran-twin.c is the same program in C; the two must stay in step: fortran-test.py compares
! their traces event for event and checks the analyses of both against their own clocks.
!
! Even number of ranks (the test runs 4).  Every phase starts at the same CLOCK_MONOTONIC
! instant on all ranks (t0 + k * step, fortran-clock.c); the waits are made by sleeping:
!   phase 0  Late Sender, MPI_Send / MPI_Recv: even ranks send 100 ms late     (n/2 x 100 ms)
!   phase 1  Late Sender, MPI_Isend / MPI_Irecv + MPI_Wait, 60 ms late; MPI_Waitall exchange
!   phase 2  MPI_Sendrecv_replace ring, rank 0 80 ms late                      (rank 1 waits)
!   phase 3  MPI_IN_PLACE: MPI_Allreduce, MPI_Gather, MPI_Allgather, MPI_Reduce; MPI_Alltoallw
!   phase 4  MPI_Barrier, rank 1 70 ms late                                    (n-1 x 70 ms)
!   phase 5  MPI_Bcast from rank 2, 80 ms late                                 (n-1 x 80 ms)
!   phase 6  MPI_Reduce to rank 0, rank n-1 150 ms late                        (150 ms)
!   phase 7  MPI_Comm_split in two; in each half Late Sender 90 ms, MPI_Allreduce in place
!   phase 8  MPI_Waitany, MPI_Waitsome, MPI_Iprobe, MPI_Test, MPI_Testany (indices, LOGICALs)
! Every result is checked; a wrong one ends the run with MPI_Abort (exit code 3).
! The truth: each rank notes CLOCK_MONOTONIC before and after its MPI calls (rec) and, after
! MPI_Finalize, writes "NAME ENTER LEAVE" lines to ARGV(1).RANK; fortran-test.py derives the
! wait states from them (PATTERNS.md) and compares the analysis with them.
! Lines marked "! site" are the call sites fortran-test.py looks for in the profile.
#ifdef KUBUS_USE_MPI_F08
#define HANDLE(t) type (t)
#define STATUS type (MPI_Status)
#define STATUS_ARRAY(n) type (MPI_Status) :: sts(n)
#define SOURCE(s) s%MPI_SOURCE
#define TAG(s) s%MPI_TAG
#define SOURCE1(s) s(1)%MPI_SOURCE
#define TAG1(s) s(1)%MPI_TAG
#define IERR
#define IERROR_KW ierror = ierr
#define STATUS_IGNORE_UNTOUCHED (MPI_STATUS_IGNORE%MPI_SOURCE == 0 .and. MPI_STATUS_IGNORE%MPI_TAG == 0)
#else
#define HANDLE(t) integer
#define STATUS integer, dimension (MPI_STATUS_SIZE)
#define STATUS_ARRAY(n) integer :: sts(MPI_STATUS_SIZE, n)
#define SOURCE(s) s(MPI_SOURCE)
#define TAG(s) s(MPI_TAG)
#define SOURCE1(s) s(MPI_SOURCE, 1)
#define TAG1(s) s(MPI_TAG, 1)
#define IERR , ierr
#define IERROR_KW ierr
#define STATUS_IGNORE_UNTOUCHED all (MPI_STATUS_IGNORE == 0)
#endif
program fortran_mpi
#if defined (KUBUS_USE_MPI_F08)
  use mpi_f08
#elif defined (KUBUS_USE_MPI_MODULE)
  use mpi
#endif
  use, intrinsic :: iso_c_binding, only : c_double
  implicit none
#if !defined (KUBUS_USE_MPI_MODULE) && !defined (KUBUS_USE_MPI_F08)
  include 'mpif.h'
#endif
  interface
    function kf_now () bind (C, name = 'kf_now')
      import :: c_double
      real (c_double) :: kf_now
    end function kf_now
    subroutine kf_sleep_until (t) bind (C, name = 'kf_sleep_until')
      import :: c_double
      real (c_double), value :: t
    end subroutine kf_sleep_until
  end interface
  real (c_double), parameter :: step = 0.3d0
  integer :: ierr, rank, n, partner, i, k, cnt, srank, ssize, idx, outcount, indices(2)
  HANDLE(MPI_Comm) :: sub
  HANDLE(MPI_Request) :: req, reqs(2)
  HANDLE(MPI_Datatype) :: types(32)
  STATUS :: st
  STATUS_ARRAY(2)
  integer :: a(10), c(5), e_in(3), e_out(3), x(3), g(64), ag(32), bc(6), s7(7), one
  integer :: polls, rv_in(2), rv_out(2), msg(1), ws(32), wr(32), counts(32), displs(32)
  double precision :: b(20), r(4), rd(4)
  real (c_double) :: t0, mine, te
  logical :: flag
  character (len = 16) :: nm
  integer, parameter :: max_rec = 64
  character (len = 16) :: rec_name(max_rec)
  real (c_double) :: rec_enter(max_rec), rec_leave(max_rec)
  integer :: n_rec = 0

  call MPI_Init (ierr)                                          ! site:init
  call check (ierr == MPI_SUCCESS, 'ierror of MPI_Init')
  call MPI_Comm_rank (MPI_COMM_WORLD, rank IERR)
  call MPI_Comm_size (MPI_COMM_WORLD, n IERR)
  if (mod (n, 2) /= 0 .or. n < 4 .or. n > 32) then
    if (rank == 0) print '(a)', 'fortran-mpi: needs an even number of ranks, 4 to 32'
    call MPI_Abort (MPI_COMM_WORLD, 2 IERR)
  end if
  partner = ieor (rank, 1)
  mine = kf_now () + step
  te = kf_now ()
  call MPI_Allreduce (mine, t0, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD IERR)
  call rec ('sync.allreduce', te)

  ! phase 0: Late Sender, blocking
  if (mod (rank, 2) == 0) then
    call kf_sleep_until (t0 + 0.100d0)
    a = [(rank * 100 + i, i = 1, 10)]
    te = kf_now ()
    call MPI_Send (a, 10, MPI_INTEGER, partner, 1, MPI_COMM_WORLD IERR)      ! site:send
    call rec ('p0.send', te)
  else
    call kf_sleep_until (t0)
    te = kf_now ()
    call MPI_Recv (a, 10, MPI_INTEGER, partner, 1, MPI_COMM_WORLD, st IERR)  ! site:recv
    call rec ('p0.recv', te)
    call MPI_Get_count (st, MPI_INTEGER, cnt IERR)
    call check (SOURCE(st) == partner .and. TAG(st) == 1 .and. cnt == 10, 'recv status')
    call check (all (a == [(partner * 100 + i, i = 1, 10)]), 'recv data')
  end if

  ! phase 1: Late Sender, non-blocking; an exchange completed by MPI_Waitall
  if (mod (rank, 2) == 0) then
    call kf_sleep_until (t0 + step + 0.060d0)
    b = [(rank + i * 0.5d0, i = 1, 20)]
    te = kf_now ()
    call MPI_Isend (b, 20, MPI_DOUBLE_PRECISION, partner, 2, MPI_COMM_WORLD, req IERR)
    call rec ('p1.isend', te)
    call MPI_Wait (req, MPI_STATUS_IGNORE IERR)
  else
    call kf_sleep_until (t0 + step)
    call MPI_Irecv (b, 20, MPI_DOUBLE_PRECISION, partner, 2, MPI_COMM_WORLD, req IERR)
    te = kf_now ()
    call MPI_Wait (req, st IERR)                                 ! site:wait
    call rec ('p1.wait', te)
    call check (SOURCE(st) == partner .and. req == MPI_REQUEST_NULL, 'wait status')
    call check (all (abs (b - [(partner + i * 0.5d0, i = 1, 20)]) < 1d-9), 'irecv data')
  end if
  e_out = [rank, rank + 1, rank + 2]
  call MPI_Irecv (e_in, 3, MPI_INTEGER, partner, 9, MPI_COMM_WORLD, reqs(1) IERR)
  te = kf_now ()
  call MPI_Isend (e_out, 3, MPI_INTEGER, partner, 9, MPI_COMM_WORLD, reqs(2) IERR)
  call rec ('p1.isendx', te)
  te = kf_now ()
  call MPI_Waitall (2, reqs, sts IERR)
  call rec ('p1.waitall', te)
  call check (SOURCE1(sts) == partner .and. TAG1(sts) == 9, 'waitall statuses')
  call check (reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL .and. &
              all (e_in == [partner, partner + 1, partner + 2]), 'waitall')

  ! phase 2: MPI_Sendrecv_replace around a ring, rank 0 late
  if (rank == 0) then
    call kf_sleep_until (t0 + 2 * step + 0.080d0)
  else
    call kf_sleep_until (t0 + 2 * step)
  end if
  c = [(rank * 10 + i, i = 1, 5)]
  te = kf_now ()
  call MPI_Sendrecv_replace (c, 5, MPI_INTEGER, mod (rank + 1, n), 3, mod (rank + n - 1, n), 3, &
                             MPI_COMM_WORLD, st IERR)
  call rec ('p2.sr', te)
  call check (all (c == [(mod (rank + n - 1, n) * 10 + i, i = 1, 5)]) .and. &
              SOURCE(st) == mod (rank + n - 1, n), 'sendrecv_replace')

  ! phase 3: collectives with MPI_IN_PLACE, and MPI_Alltoallw
  call kf_sleep_until (t0 + 3 * step)
  x = [rank, 1, 2 * rank]
  te = kf_now ()
  call MPI_Allreduce (MPI_IN_PLACE, x, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD IERR) ! site:allreduce
  call rec ('p3.allreduce', te)
  call check (all (x == [n * (n - 1) / 2, n, n * (n - 1)]), 'allreduce in place')
  g = -1
  g(2 * rank + 1 : 2 * rank + 2) = [rank, -rank]
  te = kf_now ()
  if (rank == 1) then
    call MPI_Gather (MPI_IN_PLACE, 2, MPI_INTEGER, g, 2, MPI_INTEGER, 1, MPI_COMM_WORLD IERR)
  else
    call MPI_Gather (g(2 * rank + 1), 2, MPI_INTEGER, g, 2, MPI_INTEGER, 1, MPI_COMM_WORLD IERR)
  end if
  call rec ('p3.gather', te)
  if (rank == 1) call check (all (g(1 : 2 * n : 2) == [(i, i = 0, n - 1)]), 'gather in place')
  ag = -1
  ag(rank + 1) = 7 * rank
  te = kf_now ()
  call MPI_Allgather (MPI_IN_PLACE, 1, MPI_INTEGER, ag, 1, MPI_INTEGER, MPI_COMM_WORLD IERR)
  call rec ('p3.allgather', te)
  call check (all (ag(1 : n) == [(7 * i, i = 0, n - 1)]), 'allgather in place')
  ws(1 : n) = [(rank * 100 + i, i = 0, n - 1)]
  counts(1 : n) = 1
  displs(1 : n) = [(4 * i, i = 0, n - 1)]
  types(1 : n) = MPI_INTEGER
  te = kf_now ()
  call MPI_Alltoallw (ws, counts, displs, types, wr, counts, displs, types, MPI_COMM_WORLD IERR)
  call rec ('p3.alltoallw', te)
  call check (all (wr(1 : n) == [(i * 100 + rank, i = 0, n - 1)]), 'alltoallw')
  r = [(rank + i, i = 1, 4)]
  te = kf_now ()
  if (rank == 0) then
    call MPI_Reduce (MPI_IN_PLACE, r, 4, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD IERR)
  else
    call MPI_Reduce (r, rd, 4, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD IERR)
  end if
  call rec ('p3.reduce', te)
  if (rank == 0) call check (all (abs (r - [(n * i + n * (n - 1) / 2, i = 1, 4)]) < 1d-9), 'reduce in place')

  ! phase 4: Wait at Barrier
  if (rank == 1) then
    call kf_sleep_until (t0 + 4 * step + 0.070d0)
  else
    call kf_sleep_until (t0 + 4 * step)
  end if
  te = kf_now ()
  call MPI_Barrier (MPI_COMM_WORLD, ierr)                         ! site:barrier
  call check (ierr == MPI_SUCCESS, 'ierror of MPI_Barrier')
  call rec ('p4.barrier', te)

  ! phase 5: Late Broadcast
  bc = 0
  if (rank == 2) then
    call kf_sleep_until (t0 + 5 * step + 0.080d0)
    bc = [(60 + i, i = 1, 6)]
  else
    call kf_sleep_until (t0 + 5 * step)
  end if
  te = kf_now ()
  call MPI_Bcast (bc, 6, MPI_INTEGER, 2, MPI_COMM_WORLD IERR)
  call rec ('p5.bcast', te)
  call check (all (bc == [(60 + i, i = 1, 6)]), 'bcast')

  ! phase 6: Early Reduce
  if (rank == n - 1) then
    call kf_sleep_until (t0 + 6 * step + 0.150d0)
  else
    call kf_sleep_until (t0 + 6 * step)
  end if
  rv_in = [rank, -rank]
  te = kf_now ()
  call MPI_Reduce (rv_in, rv_out, 2, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD IERR)
  call rec ('p6.reduce', te)
  if (rank == 0) call check (all (rv_out == [n - 1, 0]), 'reduce')

  ! phase 7: two halves; Late Sender inside each
  call kf_sleep_until (t0 + 7 * step)
  call MPI_Comm_split (MPI_COMM_WORLD, mod (rank, 2), rank, sub IERR)  ! site:split
  call MPI_Comm_rank (sub, srank IERR)
  call MPI_Comm_size (sub, ssize IERR)
  call check (ssize == n / 2 .and. srank == rank / 2, 'split')
  if (srank == 0) then
    call kf_sleep_until (t0 + 7 * step + 0.090d0)
    s7 = [(rank + i, i = 1, 7)]
    te = kf_now ()
    call MPI_Send (s7, 7, MPI_INTEGER, 1, 5, sub IERR)
    call rec ('p7.send', te)
  else if (srank == 1) then
    te = kf_now ()
    call MPI_Recv (s7, 7, MPI_INTEGER, 0, 5, sub, st IERR)
    call rec ('p7.recv', te)
    call check (SOURCE(st) == 0 .and. all (s7 == [(mod (rank, 2) + i, i = 1, 7)]), 'recv in half')
  end if
  one = 1
  te = kf_now ()
  call MPI_Allreduce (MPI_IN_PLACE, one, 1, MPI_INTEGER, MPI_SUM, sub IERR)
  call rec ('p7.allreduce', te)
  call check (one == n / 2, 'allreduce in half')
  call MPI_Comm_free (sub IERR)
  call check (sub == MPI_COMM_NULL, 'comm_free')

  ! phase 8: indices and LOGICALs; the messages are there before the receives
  if (mod (rank, 2) == 0) then
    call kf_sleep_until (t0 + 8 * step)
    do k = 6, 11
      if (k == 9) cycle
      msg(1) = 1000 * rank + k
      te = kf_now ()
      call MPI_Send (msg, 1, MPI_INTEGER, partner, k, MPI_COMM_WORLD IERR)
      write (nm, '(a, i0)') 'p8.send', k
      call rec (nm, te)
    end do
  else
    call kf_sleep_until (t0 + 8 * step + 0.060d0)
    call MPI_Irecv (e_in(1), 1, MPI_INTEGER, partner, 6, MPI_COMM_WORLD, reqs(1) IERR)
    call MPI_Irecv (e_in(2), 1, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, reqs(2) IERR)
    te = kf_now ()
    call MPI_Waitany (2, reqs, idx, st IERR)
    write (nm, '(a, i0)') 'p8.wait', 5 + idx
    call rec (nm, te)
    call check ((idx == 1 .or. idx == 2) .and. TAG(st) == 5 + idx, 'waitany index')
    call check (reqs(idx) == MPI_REQUEST_NULL .and. reqs(3 - idx) /= MPI_REQUEST_NULL, 'waitany requests')
    te = kf_now ()
    call MPI_Waitsome (2, reqs, outcount, indices, sts IERR)
    write (nm, '(a, i0)') 'p8.wait', 5 + indices(1)
    call rec (nm, te)
    call check (outcount == 1 .and. indices(1) == 3 - idx .and. TAG1(sts) == 8 - idx, 'waitsome')
    flag = .false.
    polls = 0
    do while (.not. flag)
      call MPI_Iprobe (partner, 8, MPI_COMM_WORLD, flag, st IERR)
      polls = polls + 1
    end do
    call rec_count ('n.MPI_Iprobe', polls)
    call check (SOURCE(st) == partner .and. TAG(st) == 8, 'iprobe')
    te = kf_now ()
    call MPI_Recv (msg, 1, MPI_INTEGER, partner, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
    call rec ('p8.wait8', te)
    call MPI_Irecv (msg, 1, MPI_INTEGER, partner, 10, MPI_COMM_WORLD, req IERR)
    flag = .false.
    polls = 0
    do while (.not. flag)
      call MPI_Test (req, flag, st IERR)
      polls = polls + 1
    end do
    call rec_count ('n.MPI_Test', polls)
    call check (req == MPI_REQUEST_NULL .and. msg(1) == 1000 * partner + 10, 'test')
    call MPI_Irecv (msg, 1, MPI_INTEGER, partner, 11, MPI_COMM_WORLD, reqs(1) IERR)
    flag = .false.
    polls = 0
    do while (.not. flag)
      call MPI_Testany (1, reqs, idx, flag, MPI_STATUS_IGNORE IERR)
      polls = polls + 1
    end do
    call rec_count ('n.MPI_Testany', polls)
    call check (idx == 1 .and. reqs(1) == MPI_REQUEST_NULL .and. msg(1) == 1000 * partner + 11, 'testany')
  end if
  ! the calls above that were given MPI_STATUS_IGNORE wrote no status into it
  call check (STATUS_IGNORE_UNTOUCHED, 'MPI_STATUS_IGNORE untouched')

  call MPI_Finalize (IERROR_KW)                                   ! site:finalize
  call check (ierr == MPI_SUCCESS, 'ierror of MPI_Finalize')
  call write_records ()
  if (rank == 0) print '(a)', 'fortran-mpi: done'

contains

  ! one MPI call: its name, the time before it (@enter) and now
  subroutine rec (name, enter)
    character (len = *), intent (in) :: name
    real (c_double), intent (in) :: enter
    n_rec = n_rec + 1
    rec_name(n_rec) = name
    rec_enter(n_rec) = enter
    rec_leave(n_rec) = kf_now ()
  end subroutine rec

  ! how often a polling call was made (it depends on when the message arrived): @count
  subroutine rec_count (name, count)
    character (len = *), intent (in) :: name
    integer, intent (in) :: count
    n_rec = n_rec + 1
    rec_name(n_rec) = name
    rec_enter(n_rec) = count
    rec_leave(n_rec) = 0
  end subroutine rec_count

  subroutine write_records ()
    character (len = 4096) :: path
    integer :: u, j, length
    call get_command_argument (1, path, length)
    if (length == 0) return
    write (path, '(a, a, i0)') trim (path), '.', rank
    open (newunit = u, file = trim (path), status = 'replace', action = 'write')
    do j = 1, n_rec
      write (u, '(a, 1x, f0.9, 1x, f0.9)') trim (rec_name(j)), rec_enter(j), rec_leave(j)
    end do
    close (u)
  end subroutine write_records

  subroutine check (ok, what)
    logical, intent (in) :: ok
    character (len = *), intent (in) :: what
    if (.not. ok) then
      print '(a, i0, 2a)', 'fortran-mpi: rank ', rank, ': wrong result: ', what
      call MPI_Abort (MPI_COMM_WORLD, 3 IERR)
    end if
  end subroutine check

end program fortran_mpi
