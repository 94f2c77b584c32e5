! fortran-all.f90 — every MPI function of the collector's table (src/collect/mpi-functions.def)
! called from Fortran through `use mpi_f08`, whose entry points share their conversions with
! mpif.h and `use mpi` (gen-wrappers.py): persistent and cancelled requests, matched probes,
! buffered sends and MPI_Buffer_detach's TYPE(C_PTR), every completion call, every blocking and
! non-blocking collective, Cartesian, graph and distributed-graph topologies (LOGICAL arrays,
! MPI_UNWEIGHTED, neighbourhood collectives whose datatype arrays are as long as the degree),
! inter-communicators, MPI-IO (strings with their hidden lengths, MPI_Offset arguments, the
! split collectives; the file is COUNTS.io), one-sided communication (a shared-memory window:
! fence, passive and general active target, request-based calls; MPI_Win_create, _allocate and
! _create_dynamic are called with MPI_ERRORS_RETURN, as Open MPI may refuse them where only
! shared memory is available; and `use mpi`'s TYPE(C_PTR) overloads of the window functions,
! fortran-all-cptr.f90).  Runs on exactly 4 ranks.
!
!   fortran-all COUNTS [abort]
!
! The program counts its own calls of wrapped functions (note) and writes "enter NAME RANK N"
! lines to COUNTS.RANK after MPI_Finalize; fortran-test.py (mode all) requires the trace to hold
! exactly these.  Every result is checked; a wrong one ends the run with MPI_Abort (exit 3).
! With "abort", rank 1 calls MPI_Abort (errorcode 5) after the point-to-point part instead of
! going on: the trace must still be readable, with that MPI_Abort in it.
program fortran_all
  use mpi_f08
  use fortran_all_cptr, only : cptr_windows
  use, intrinsic :: iso_c_binding, only : c_ptr, c_loc, c_associated, c_f_pointer
  implicit none
  integer, parameter :: max_names = 256
  character (len = 32) :: names(max_names)
  integer :: counts(max_names) = 0, n_names = 0
  integer :: rank, n, partner, provided, i, k, idx, outcount, indices(8), sz, ierr
  integer, target :: bbuf(1000)
  integer :: a(8), b(8), m(4), big(128), cnt(4), dsp(4), bdsp(4), rcnt(4), nbr_in(4), nbr_out(4)
  integer (kind = MPI_ADDRESS_KIND) :: adsp(4)
  integer :: dims(2), idx_graph(4), srcs(1), dsts(1), wts(1), degs(1)
  integer :: indeg, outdeg
  logical :: flag, periods(2), remain(2), weighted, abort_run, cptr_ok
  character (len = 16) :: arg
  type (c_ptr) :: detached, bbuf_addr
  type (MPI_Request) :: req, reqs(20), preqs(4), many(80)
  type (MPI_Status) :: st, sts(20), many_st(80)
  integer :: many_in(40), many_out(40)
  type (MPI_Message) :: msg
  type (MPI_Datatype) :: types(4)
  type (MPI_Comm) :: dup, dupi, split, stype, created, cgroup, idup, cart, csub, graph, dgraph, &
                     dgraph2, half, inter, merged
  type (MPI_Group) :: wgroup, g01
  type (MPI_File) :: fh
  integer (kind = MPI_OFFSET_KIND) :: fsize
  integer :: io(4)
  character (len = 4096) :: counts_path
  type (MPI_Win) :: win, win2
  type (MPI_Group) :: gpartner
  type (c_ptr) :: wbase, wbase2
  integer, pointer :: wmem(:)
  integer, target :: wlocal(4)
  integer (kind = MPI_ADDRESS_KIND) :: wsize
  integer :: wdisp
  integer, volatile :: v, res, one, val, cmp7, cmp0

  call get_command_argument (2, arg)
  abort_run = arg == 'abort'
  call note ('MPI_Init_thread')
  call MPI_Init_thread (MPI_THREAD_SINGLE, provided)
  call MPI_Comm_rank (MPI_COMM_WORLD, rank)
  call MPI_Comm_size (MPI_COMM_WORLD, n)
  if (n /= 4) then
    if (rank == 0) print '(a)', 'fortran-all: needs 4 ranks'
    call note ('MPI_Abort')
    call MPI_Abort (MPI_COMM_WORLD, 2)
  end if
  partner = ieor (rank, 1)

  ! ---------------------------------------------------------------- point to point
  call note ('MPI_Buffer_attach')
  call MPI_Buffer_attach (bbuf, 4000)
  if (mod (rank, 2) == 0) then
    a = [(rank * 10 + i, i = 1, 8)]
    call note ('MPI_Send')
    call MPI_Send (a, 8, MPI_INTEGER, partner, 1, MPI_COMM_WORLD)
    call note ('MPI_Bsend')
    call MPI_Bsend (a, 2, MPI_INTEGER, partner, 2, MPI_COMM_WORLD)
    call note ('MPI_Ibsend')
    call MPI_Ibsend (a, 3, MPI_INTEGER, partner, 3, MPI_COMM_WORLD, req)
    call wait1 (req)
    call note ('MPI_Ssend')
    call MPI_Ssend (a, 4, MPI_INTEGER, partner, 4, MPI_COMM_WORLD)
    call barrier ()
    call note ('MPI_Rsend')
    call MPI_Rsend (a, 5, MPI_INTEGER, partner, 5, MPI_COMM_WORLD)
    call note ('MPI_Isend')
    call MPI_Isend (a, 6, MPI_INTEGER, partner, 6, MPI_COMM_WORLD, reqs(1))
    call note ('MPI_Issend')
    call MPI_Issend (a, 7, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, reqs(2))
    call barrier ()
    call note ('MPI_Irsend')
    call MPI_Irsend (a, 8, MPI_INTEGER, partner, 8, MPI_COMM_WORLD, reqs(3))
    call note ('MPI_Waitall')
    call MPI_Waitall (3, reqs, MPI_STATUSES_IGNORE)
    call check (all (reqs(1 : 3) == MPI_REQUEST_NULL), 'isend waitall')
  else
    call recv (8, 1)
    call recv (2, 2)
    call recv (3, 3)
    call recv (4, 4)
    call note ('MPI_Irecv')
    call MPI_Irecv (b, 5, MPI_INTEGER, partner, 5, MPI_COMM_WORLD, req)
    call barrier ()
    call wait1 (req)
    call check (all (b(1 : 5) == [(partner * 10 + i, i = 1, 5)]), 'rsend')
    do k = 6, 8
      call note ('MPI_Irecv')
      call MPI_Irecv (big(8 * k + 1), k, MPI_INTEGER, partner, k, MPI_COMM_WORLD, reqs(k - 5))
    end do
    call barrier ()
    call note ('MPI_Waitall')
    call MPI_Waitall (3, reqs, sts)
    call check (all (sts(1 : 3)%MPI_TAG == [6, 7, 8]) .and. all (reqs(1 : 3) == MPI_REQUEST_NULL), &
                'irecv waitall')
    call check (big(8 * 8 + 8) == partner * 10 + 8, 'irsend data')
  end if
  call note ('MPI_Sendrecv')
  call MPI_Sendrecv (rank, 1, MPI_INTEGER, partner, 9, k, 1, MPI_INTEGER, partner, 9, &
                     MPI_COMM_WORLD, st)
  call check (k == partner .and. st%MPI_SOURCE == partner, 'sendrecv')
  m(1) = rank
  call note ('MPI_Sendrecv_replace')
  call MPI_Sendrecv_replace (m, 1, MPI_INTEGER, partner, 10, partner, 10, MPI_COMM_WORLD, &
                             MPI_STATUS_IGNORE)
  call check (m(1) == partner, 'sendrecv_replace')

  ! probes, matched probes
  if (mod (rank, 2) == 0) then
    do k = 11, 14
      a(1) = 100 * k
      call note ('MPI_Send')
      call MPI_Send (a, 1, MPI_INTEGER, partner, k, MPI_COMM_WORLD)
    end do
  else
    call note ('MPI_Probe')
    call MPI_Probe (partner, 11, MPI_COMM_WORLD, st)
    call check (st%MPI_TAG == 11, 'probe')
    call recv (1, 11)
    flag = .false.
    do while (.not. flag)
      call note ('MPI_Iprobe')
      call MPI_Iprobe (MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, flag, st)
    end do
    call check (st%MPI_SOURCE == partner, 'iprobe')
    call recv (1, 12)
    call note ('MPI_Mprobe')
    call MPI_Mprobe (partner, 13, MPI_COMM_WORLD, msg, st)
    call note ('MPI_Mrecv')
    call MPI_Mrecv (b, 1, MPI_INTEGER, msg, st)
    call check (b(1) == 1300 .and. msg == MPI_MESSAGE_NULL .and. st%MPI_TAG == 13, 'mrecv')
    flag = .false.
    do while (.not. flag)
      call note ('MPI_Improbe')
      call MPI_Improbe (partner, 14, MPI_COMM_WORLD, flag, msg, st)
    end do
    call note ('MPI_Imrecv')
    call MPI_Imrecv (b, 1, MPI_INTEGER, msg, req)
    call wait1 (req)
    call check (b(1) == 1400, 'imrecv')
  end if

  ! persistent requests
  if (mod (rank, 2) == 0) then
    call note ('MPI_Send_init')
    call MPI_Send_init (a, 1, MPI_INTEGER, partner, 15, MPI_COMM_WORLD, preqs(1))
    call note ('MPI_Bsend_init')
    call MPI_Bsend_init (a, 2, MPI_INTEGER, partner, 16, MPI_COMM_WORLD, preqs(2))
    call note ('MPI_Ssend_init')
    call MPI_Ssend_init (a, 3, MPI_INTEGER, partner, 17, MPI_COMM_WORLD, preqs(3))
    call note ('MPI_Rsend_init')
    call MPI_Rsend_init (a, 4, MPI_INTEGER, partner, 18, MPI_COMM_WORLD, preqs(4))
    call note ('MPI_Start')
    call MPI_Start (preqs(1))
    call note ('MPI_Startall')
    call MPI_Startall (2, preqs(2 : 3))
    call note ('MPI_Waitall')
    call MPI_Waitall (3, preqs, MPI_STATUSES_IGNORE)
    call barrier ()
    call note ('MPI_Start')
    call MPI_Start (preqs(4))
    call note ('MPI_Wait')
    call MPI_Wait (preqs(4), MPI_STATUS_IGNORE)
  else
    do k = 1, 4
      call note ('MPI_Recv_init')
      call MPI_Recv_init (big(8 * k + 1), k, MPI_INTEGER, partner, 14 + k, MPI_COMM_WORLD, preqs(k))
    end do
    call note ('MPI_Startall')
    call MPI_Startall (4, preqs)
    call barrier ()
    call note ('MPI_Waitall')
    call MPI_Waitall (4, preqs, sts)
    call check (all (sts(1 : 4)%MPI_TAG == [15, 16, 17, 18]), 'persistent receives')
  end if
  do k = 1, 4
    call check (preqs(k) /= MPI_REQUEST_NULL, 'persistent request kept')
    call note ('MPI_Request_free')
    call MPI_Request_free (preqs(k))
    call check (preqs(k) == MPI_REQUEST_NULL, 'request_free')
  end do

  ! a cancelled receive
  call note ('MPI_Irecv')
  call MPI_Irecv (b, 1, MPI_INTEGER, partner, 99, MPI_COMM_WORLD, req)
  call note ('MPI_Cancel')
  call MPI_Cancel (req)
  call note ('MPI_Wait')
  call MPI_Wait (req, st)
  call MPI_Test_cancelled (st, flag)
  call check (flag, 'cancel')

  ! every completion call
  if (mod (rank, 2) == 0) then
    do k = 20, 26
      a(1) = k
      call note ('MPI_Send')
      call MPI_Send (a, 1, MPI_INTEGER, partner, k, MPI_COMM_WORLD)
    end do
  else
    do k = 20, 26
      call note ('MPI_Irecv')
      call MPI_Irecv (big(k), 1, MPI_INTEGER, partner, k, MPI_COMM_WORLD, reqs(k - 19))
    end do
    call note ('MPI_Waitany')
    call MPI_Waitany (2, reqs, idx, st)
    call check ((idx == 1 .or. idx == 2) .and. st%MPI_TAG == 19 + idx, 'waitany')
    call wait1 (reqs(3 - idx))
    call note ('MPI_Waitsome')
    call MPI_Waitsome (1, reqs(3 : 3), outcount, indices, sts)
    call check (outcount == 1 .and. indices(1) == 1 .and. sts(1)%MPI_TAG == 22, 'waitsome')
    flag = .false.
    do while (.not. flag)
      call note ('MPI_Test')
      call MPI_Test (reqs(4), flag, st)
    end do
    call check (st%MPI_TAG == 23, 'test')
    flag = .false.
    do while (.not. flag)
      call note ('MPI_Testall')
      call MPI_Testall (1, reqs(5 : 5), flag, sts)
    end do
    call check (sts(1)%MPI_TAG == 24, 'testall')
    flag = .false.
    do while (.not. flag)
      call note ('MPI_Testany')
      call MPI_Testany (1, reqs(6 : 6), idx, flag, st)
    end do
    call check (idx == 1 .and. st%MPI_TAG == 25, 'testany')
    outcount = 0
    do while (outcount == 0)
      call note ('MPI_Testsome')
      call MPI_Testsome (1, reqs(7 : 7), outcount, indices, sts)
    end do
    call check (outcount == 1 .and. indices(1) == 1 .and. sts(1)%MPI_TAG == 26, 'testsome')
    call check (all (big(20 : 26) == [(k, k = 20, 26)]), 'completion data')
  end if
  ! more requests than the entry points keep on the stack (32): both directions at once
  do k = 1, 40
    call note ('MPI_Irecv')
    call MPI_Irecv (many_in(k), 1, MPI_INTEGER, partner, 100 + k, MPI_COMM_WORLD, many(k))
    many_out(k) = 1000 * rank + k
    call note ('MPI_Isend')
    call MPI_Isend (many_out(k), 1, MPI_INTEGER, partner, 100 + k, MPI_COMM_WORLD, many(40 + k))
  end do
  call note ('MPI_Waitall')
  call MPI_Waitall (80, many, many_st)
  call check (all (many == MPI_REQUEST_NULL) .and. all (many_st(1 : 40)%MPI_TAG == [(100 + k, k = 1, 40)]) &
              .and. all (many_in == [(1000 * partner + k, k = 1, 40)]), 'waitall of 80')
  call note ('MPI_Buffer_detach')
  call MPI_Buffer_detach (detached, sz)
  bbuf_addr = c_loc (bbuf)
  call check (sz == 4000 .and. c_associated (detached, bbuf_addr), 'buffer_detach')

  if (abort_run .and. rank == 1) then
    call note ('MPI_Abort')
    call MPI_Abort (MPI_COMM_WORLD, 5)
  end if

  ! ---------------------------------------------------------------- collectives
  call barrier ()
  a = rank + 1
  call note ('MPI_Bcast')
  call MPI_Bcast (a, 2, MPI_INTEGER, 3, MPI_COMM_WORLD)
  call check (all (a(1 : 2) == 4), 'bcast')
  a = rank + 1
  call note ('MPI_Reduce')
  call MPI_Reduce (a, b, 3, MPI_INTEGER, MPI_SUM, 1, MPI_COMM_WORLD)
  if (rank == 1) call check (all (b(1 : 3) == 10), 'reduce')
  call note ('MPI_Allreduce')
  call MPI_Allreduce (MPI_IN_PLACE, a, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check (all (a(1 : 4) == 4), 'allreduce')
  m = -1
  m(rank + 1) = rank
  call note ('MPI_Gather')
  call MPI_Gather (rank, 1, MPI_INTEGER, m, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check (all (m == [0, 1, 2, 3]), 'gather')
  cnt = [1, 2, 1, 2]
  dsp = [0, 1, 3, 4]
  big = -1
  big(1 : cnt(rank + 1)) = rank
  call note ('MPI_Gatherv')
  call MPI_Gatherv (big, cnt(rank + 1), MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, 2, MPI_COMM_WORLD)
  if (rank == 2) call check (all (b(1 : 6) == [0, 1, 1, 2, 3, 3]), 'gatherv')
  m = [10, 11, 12, 13]
  call note ('MPI_Scatter')
  call MPI_Scatter (m, 1, MPI_INTEGER, k, 1, MPI_INTEGER, 1, MPI_COMM_WORLD)
  call check (k == 10 + rank, 'scatter')
  b(1 : 6) = [0, 1, 1, 2, 3, 3]
  call note ('MPI_Scatterv')
  call MPI_Scatterv (b, cnt, dsp, MPI_INTEGER, a, cnt(rank + 1), MPI_INTEGER, 2, MPI_COMM_WORLD)
  call check (all (a(1 : cnt(rank + 1)) == rank), 'scatterv')
  m = -1
  m(rank + 1) = 5 * rank
  call note ('MPI_Allgather')
  call MPI_Allgather (MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check (all (m == [0, 5, 10, 15]), 'allgather')
  call note ('MPI_Allgatherv')
  call MPI_Allgatherv (big, cnt(rank + 1), MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD)
  call check (all (b(1 : 6) == [0, 1, 1, 2, 3, 3]), 'allgatherv')
  m = [(4 * rank + i, i = 0, 3)]
  call note ('MPI_Alltoall')
  call MPI_Alltoall (m, 1, MPI_INTEGER, a, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check (all (a(1 : 4) == [(4 * i + rank, i = 0, 3)]), 'alltoall')
  cnt = 1
  dsp = [0, 1, 2, 3]
  call note ('MPI_Alltoallv')
  call MPI_Alltoallv (m, cnt, dsp, MPI_INTEGER, a, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD)
  call check (all (a(1 : 4) == [(4 * i + rank, i = 0, 3)]), 'alltoallv')
  types = MPI_INTEGER
  dsp = [0, 4, 8, 12]
  call note ('MPI_Alltoallw')
  call MPI_Alltoallw (MPI_IN_PLACE, cnt, dsp, types, a, cnt, dsp, types, MPI_COMM_WORLD)
  call check (all (a(1 : 4) == [(4 * rank + i, i = 0, 3)]), 'alltoallw in place')
  m = rank
  rcnt = 1
  call note ('MPI_Reduce_scatter')
  call MPI_Reduce_scatter (m, k, rcnt, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check (k == 6, 'reduce_scatter')
  call note ('MPI_Reduce_scatter_block')
  call MPI_Reduce_scatter_block (m, k, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check (k == 3, 'reduce_scatter_block')
  call note ('MPI_Scan')
  call MPI_Scan (rank, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check (k == rank * (rank + 1) / 2, 'scan')
  call note ('MPI_Exscan')
  i = rank + 1
  call MPI_Exscan (i, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank > 0) call check (k == rank * (rank + 1) / 2, 'exscan')
  m = 1
  a(1 : 4) = 2
  call note ('MPI_Reduce_local')
  call MPI_Reduce_local (m, a, 4, MPI_INTEGER, MPI_SUM)
  call check (all (a(1 : 4) == 3), 'reduce_local')

  ! the non-blocking ones, completed by one MPI_Waitall
  a = rank
  m = rank
  cnt = 1
  dsp = [0, 1, 2, 3]
  k = 0
  call inote ('MPI_Ibarrier')
  call MPI_Ibarrier (MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Ibcast')
  call MPI_Ibcast (big(1), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Ireduce')
  call MPI_Ireduce (a(1), big(2), 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Iallreduce')
  call MPI_Iallreduce (a(2), big(3), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Igather')
  call MPI_Igather (a(3), 1, MPI_INTEGER, big(5), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Igatherv')
  call MPI_Igatherv (a(4), 1, MPI_INTEGER, big(9), cnt, dsp, MPI_INTEGER, 0, MPI_COMM_WORLD, &
                     reqs(k))
  call inote ('MPI_Iscatter')
  call MPI_Iscatter (m, 1, MPI_INTEGER, big(13), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Iscatterv')
  call MPI_Iscatterv (m, cnt, dsp, MPI_INTEGER, big(14), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, &
                      reqs(k))
  call inote ('MPI_Iallgather')
  call MPI_Iallgather (a(5), 1, MPI_INTEGER, big(17), 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Iallgatherv')
  call MPI_Iallgatherv (a(6), 1, MPI_INTEGER, big(21), cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, &
                        reqs(k))
  call inote ('MPI_Ialltoall')
  call MPI_Ialltoall (m, 1, MPI_INTEGER, big(25), 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Ialltoallv')
  call MPI_Ialltoallv (m, cnt, dsp, MPI_INTEGER, big(29), cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, &
                       reqs(k))
  bdsp = [0, 4, 8, 12]
  call inote ('MPI_Ialltoallw')
  call MPI_Ialltoallw (m, cnt, bdsp, types, big(33), cnt, bdsp, types, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Ireduce_scatter')
  call MPI_Ireduce_scatter (m, big(37), cnt, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Ireduce_scatter_block')
  call MPI_Ireduce_scatter_block (m, big(38), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Iscan')
  call MPI_Iscan (a(7), big(39), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(k))
  call inote ('MPI_Iexscan')
  call MPI_Iexscan (a(8), big(40), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(k))
  call note ('MPI_Waitall')
  call MPI_Waitall (k, reqs, MPI_STATUSES_IGNORE)
  call check (k == 17 .and. all (reqs(1 : k) == MPI_REQUEST_NULL), 'non-blocking collectives')
  call check (big(3) == 6 .and. all (big(17 : 20) == [0, 1, 2, 3]) .and. &
              all (big(25 : 28) == [0, 1, 2, 3]) .and. all (big(33 : 36) == [0, 1, 2, 3]) .and. &
              big(37) == 6 .and. big(38) == 6 .and. big(39) == rank * (rank + 1) / 2, &
              'non-blocking collective results')

  ! ---------------------------------------------------------------- communicators
  call note ('MPI_Comm_dup')
  call MPI_Comm_dup (MPI_COMM_WORLD, dup)
  call note ('MPI_Comm_dup_with_info')
  call MPI_Comm_dup_with_info (dup, MPI_INFO_NULL, dupi)
  call note ('MPI_Comm_split')
  call MPI_Comm_split (dupi, rank / 2, -rank, split)
  call MPI_Comm_rank (split, k)
  call check (k == 1 - mod (rank, 2), 'split key')
  call note ('MPI_Comm_split_type')
  call MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, stype)
  call MPI_Comm_size (stype, k)
  call check (k == 4, 'split_type')
  call MPI_Comm_group (MPI_COMM_WORLD, wgroup)
  call MPI_Group_incl (wgroup, 2, [0, 1], g01)
  call note ('MPI_Comm_create')
  call MPI_Comm_create (MPI_COMM_WORLD, g01, created)
  call check ((rank < 2) .eqv. (created /= MPI_COMM_NULL), 'comm_create')
  if (rank < 2) then
    call note ('MPI_Comm_create_group')
    call MPI_Comm_create_group (MPI_COMM_WORLD, g01, 7, cgroup)
    call MPI_Comm_size (cgroup, k)
    call check (k == 2, 'comm_create_group')
    call note ('MPI_Barrier')
    call MPI_Barrier (cgroup)
  end if
  call note ('MPI_Comm_idup')
  call MPI_Comm_idup (split, idup, req)
  call wait1 (req)
  call note ('MPI_Allreduce')
  call MPI_Allreduce (rank, k, 1, MPI_INTEGER, MPI_SUM, idup)
  call check (k == 4 * (rank / 2) + 1, 'idup')

  ! a 2 x 2 grid, periodic in the first dimension only (a LOGICAL array)
  dims = [2, 2]
  periods = [.true., .false.]
  call note ('MPI_Cart_create')
  call MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, .false., cart)
  call MPI_Cart_get (cart, 2, dims, periods, a(1 : 2))
  call check (periods(1) .and. .not. periods(2), 'cart periods')
  remain = [.true., .false.]
  call note ('MPI_Cart_sub')
  call MPI_Cart_sub (cart, remain, csub)
  call MPI_Comm_size (csub, k)
  call check (k == 2, 'cart_sub')
  ! neighbourhood collectives on the grid: 2 x ndims neighbours, MPI_PROC_NULL at the open ends
  nbr_out = rank
  cnt = 1
  dsp = [0, 1, 2, 3]
  adsp = [0, 4, 8, 12]
  call note ('MPI_Neighbor_allgather')
  call MPI_Neighbor_allgather (rank, 1, MPI_INTEGER, nbr_in, 1, MPI_INTEGER, cart)
  call note ('MPI_Neighbor_allgatherv')
  call MPI_Neighbor_allgatherv (rank, 1, MPI_INTEGER, nbr_in, cnt, dsp, MPI_INTEGER, cart)
  call note ('MPI_Neighbor_alltoall')
  call MPI_Neighbor_alltoall (nbr_out, 1, MPI_INTEGER, nbr_in, 1, MPI_INTEGER, cart)
  call note ('MPI_Neighbor_alltoallv')
  call MPI_Neighbor_alltoallv (nbr_out, cnt, dsp, MPI_INTEGER, nbr_in, cnt, dsp, MPI_INTEGER, cart)
  nbr_in = -1
  call note ('MPI_Neighbor_alltoallw')
  call MPI_Neighbor_alltoallw (nbr_out, cnt, adsp, types, nbr_in, cnt, adsp, types, cart)
  ! first dimension periodic over 2: both neighbours are the other row
  call check (nbr_in(1) == ieor (rank, 2) .and. nbr_in(2) == ieor (rank, 2), 'neighbor_alltoallw')
  k = 0
  call inote ('MPI_Ineighbor_allgather')
  call MPI_Ineighbor_allgather (rank, 1, MPI_INTEGER, big(1), 1, MPI_INTEGER, cart, reqs(k))
  call inote ('MPI_Ineighbor_allgatherv')
  call MPI_Ineighbor_allgatherv (rank, 1, MPI_INTEGER, big(5), cnt, dsp, MPI_INTEGER, cart, reqs(k))
  call inote ('MPI_Ineighbor_alltoall')
  call MPI_Ineighbor_alltoall (nbr_out, 1, MPI_INTEGER, big(9), 1, MPI_INTEGER, cart, reqs(k))
  call inote ('MPI_Ineighbor_alltoallv')
  call MPI_Ineighbor_alltoallv (nbr_out, cnt, dsp, MPI_INTEGER, big(13), cnt, dsp, MPI_INTEGER, &
                                cart, reqs(k))
  call inote ('MPI_Ineighbor_alltoallw')
  call MPI_Ineighbor_alltoallw (nbr_out, cnt, adsp, types, big(17), cnt, adsp, types, cart, &
                                reqs(k))
  call note ('MPI_Waitall')
  call MPI_Waitall (k, reqs, sts)
  call check (big(17) == ieor (rank, 2), 'ineighbor_alltoallw')

  ! a ring as a graph, and as distributed graphs (unweighted, weighted)
  idx_graph = [2, 4, 6, 8]
  call note ('MPI_Graph_create')
  call MPI_Graph_create (MPI_COMM_WORLD, 4, idx_graph, [1, 3, 0, 2, 1, 3, 0, 2], .false., graph)
  call MPI_Graph_neighbors_count (graph, rank, k)
  call check (k == 2, 'graph_create')
  srcs = mod (rank + 3, 4)
  dsts = mod (rank + 1, 4)
  call note ('MPI_Dist_graph_create_adjacent')
  call MPI_Dist_graph_create_adjacent (MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, &
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, .false., dgraph)
  call MPI_Dist_graph_neighbors_count (dgraph, indeg, outdeg, weighted)
  call check (indeg == 1 .and. outdeg == 1 .and. .not. weighted, 'dist_graph unweighted')
  call note ('MPI_Neighbor_alltoallw')
  call MPI_Neighbor_alltoallw (rank, cnt, adsp, types, k, cnt, adsp, types, dgraph)
  call check (k == mod (rank + 3, 4), 'neighbor_alltoallw on a distributed graph')
  degs = 1
  wts = 5
  call note ('MPI_Dist_graph_create')
  call MPI_Dist_graph_create (MPI_COMM_WORLD, 1, [rank], degs, dsts, wts, MPI_INFO_NULL, .false., &
                              dgraph2)
  call MPI_Dist_graph_neighbors_count (dgraph2, indeg, outdeg, weighted)
  call check (indeg == 1 .and. outdeg == 1 .and. weighted, 'dist_graph weighted')

  ! an inter-communicator between the even and the odd ranks, merged back
  call note ('MPI_Comm_split')
  call MPI_Comm_split (MPI_COMM_WORLD, mod (rank, 2), rank, half)
  call note ('MPI_Intercomm_create')
  call MPI_Intercomm_create (half, 0, MPI_COMM_WORLD, 1 - mod (rank, 2), 42, inter)
  call MPI_Comm_remote_size (inter, k)
  call check (k == 2, 'intercomm_create')
  call note ('MPI_Intercomm_merge')
  call MPI_Intercomm_merge (inter, mod (rank, 2) == 1, merged)
  call MPI_Comm_rank (merged, k)
  call check (k == rank / 2 + 2 * mod (rank, 2), 'intercomm_merge high')

  call comm_free (merged)
  call note ('MPI_Comm_disconnect')
  call MPI_Comm_disconnect (inter)
  call check (inter == MPI_COMM_NULL, 'comm_disconnect')
  call comm_free (half)
  call comm_free (dgraph2)
  call comm_free (dgraph)
  call comm_free (graph)
  call comm_free (csub)
  call comm_free (cart)
  call comm_free (idup)
  if (rank < 2) then
    call comm_free (cgroup)
    call comm_free (created)
  end if
  call comm_free (stype)
  call comm_free (split)
  call comm_free (dupi)
  call comm_free (dup)

  ! ---------------------------------------------------------------- MPI-IO
  ! every rank owns the 4 INTEGERs at 16 * rank: written individually, collectively, through
  ! the shared and the individual file pointer; read back and checked
  call get_command_argument (1, counts_path)
  call note ('MPI_File_open')
  call MPI_File_open (MPI_COMM_WORLD, trim (counts_path) // '.io', &
                      ior (MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, fh, ierr)
  call check (ierr == MPI_SUCCESS, 'file open')
  call note ('MPI_File_set_size')
  call MPI_File_set_size (fh, 0_MPI_OFFSET_KIND)
  call note ('MPI_File_preallocate')
  call MPI_File_preallocate (fh, int (64 * n, MPI_OFFSET_KIND))
  call note ('MPI_File_set_view')
  ! a file's errors return (MPI_ERRORS_RETURN): every call that takes a string checks ierror
  call MPI_File_set_view (fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native    ', &
                          MPI_INFO_NULL, ierr)
  call check (ierr == MPI_SUCCESS, 'file set_view (a data representation with trailing blanks)')
  fsize = int (16 * rank, MPI_OFFSET_KIND)
  io = [(100 * rank + i, i = 1, 4)]
  call note ('MPI_File_write_at')
  call MPI_File_write_at (fh, fsize / 4, io, 4, MPI_INTEGER, MPI_STATUS_IGNORE)
  call note ('MPI_File_write_at_all')
  call MPI_File_write_at_all (fh, fsize / 4, io, 4, MPI_INTEGER, st)
  call note ('MPI_File_sync')
  call MPI_File_sync (fh)
  io = 0
  call note ('MPI_File_read_at')
  call MPI_File_read_at (fh, fsize / 4, io, 4, MPI_INTEGER, st)
  call check (all (io == [(100 * rank + i, i = 1, 4)]), 'file read_at')
  io = 0
  call note ('MPI_File_read_at_all')
  call MPI_File_read_at_all (fh, fsize / 4, io, 4, MPI_INTEGER, st)
  call check (all (io == [(100 * rank + i, i = 1, 4)]), 'file read_at_all')
  call note ('MPI_File_iwrite_at')
  call MPI_File_iwrite_at (fh, fsize / 4, io, 4, MPI_INTEGER, req)
  call wait1 (req)
  call note ('MPI_File_iread_at')
  call MPI_File_iread_at (fh, fsize / 4, io, 4, MPI_INTEGER, req)
  call wait1 (req)
  call note ('MPI_File_iwrite_at_all')
  call MPI_File_iwrite_at_all (fh, fsize / 4, io, 4, MPI_INTEGER, req)
  call wait1 (req)
  call note ('MPI_File_iread_at_all')
  call MPI_File_iread_at_all (fh, fsize / 4, io, 4, MPI_INTEGER, req)
  call wait1 (req)
  call check (all (io == [(100 * rank + i, i = 1, 4)]), 'file iread_at_all')
  ! the individual file pointer
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_write')
  call MPI_File_write (fh, io, 4, MPI_INTEGER, MPI_STATUS_IGNORE)
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_read')
  call MPI_File_read (fh, io, 4, MPI_INTEGER, st)
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_write_all')
  call MPI_File_write_all (fh, io, 4, MPI_INTEGER, st)
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_read_all')
  call MPI_File_read_all (fh, io, 4, MPI_INTEGER, st)
  call check (all (io == [(100 * rank + i, i = 1, 4)]), 'file read_all')
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_iwrite')
  call MPI_File_iwrite (fh, io, 4, MPI_INTEGER, req)
  call wait1 (req)
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_iread')
  call MPI_File_iread (fh, io, 4, MPI_INTEGER, req)
  call wait1 (req)
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_iwrite_all')
  call MPI_File_iwrite_all (fh, io, 4, MPI_INTEGER, req)
  call wait1 (req)
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_iread_all')
  call MPI_File_iread_all (fh, io, 4, MPI_INTEGER, req)
  call wait1 (req)
  call check (all (io == [(100 * rank + i, i = 1, 4)]), 'file iread_all')
  ! split collectives
  call note ('MPI_File_write_at_all_begin')
  call MPI_File_write_at_all_begin (fh, fsize / 4, io, 4, MPI_INTEGER)
  call note ('MPI_File_write_at_all_end')
  call MPI_File_write_at_all_end (fh, io, st)
  call note ('MPI_File_read_at_all_begin')
  call MPI_File_read_at_all_begin (fh, fsize / 4, io, 4, MPI_INTEGER)
  call note ('MPI_File_read_at_all_end')
  call MPI_File_read_at_all_end (fh, io, st)
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_write_all_begin')
  call MPI_File_write_all_begin (fh, io, 4, MPI_INTEGER)
  call note ('MPI_File_write_all_end')
  call MPI_File_write_all_end (fh, io, st)
  call note ('MPI_File_seek')
  call MPI_File_seek (fh, fsize / 4, MPI_SEEK_SET)
  call note ('MPI_File_read_all_begin')
  call MPI_File_read_all_begin (fh, io, 4, MPI_INTEGER)
  call note ('MPI_File_read_all_end')
  call MPI_File_read_all_end (fh, io, st)
  call check (all (io == [(100 * rank + i, i = 1, 4)]), 'file read_all_end')
  ! the shared file pointer: ordered accesses in rank order, then one at a time
  call note ('MPI_File_seek_shared')
  call MPI_File_seek_shared (fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET)
  call note ('MPI_File_write_ordered')
  call MPI_File_write_ordered (fh, io, 4, MPI_INTEGER, st)
  call note ('MPI_File_seek_shared')
  call MPI_File_seek_shared (fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET)
  call note ('MPI_File_read_ordered')
  call MPI_File_read_ordered (fh, io, 4, MPI_INTEGER, st)
  call check (all (io == [(100 * rank + i, i = 1, 4)]), 'file read_ordered')
  call note ('MPI_File_seek_shared')
  call MPI_File_seek_shared (fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET)
  call note ('MPI_File_write_ordered_begin')
  call MPI_File_write_ordered_begin (fh, io, 4, MPI_INTEGER)
  call note ('MPI_File_write_ordered_end')
  call MPI_File_write_ordered_end (fh, io, st)
  call note ('MPI_File_seek_shared')
  call MPI_File_seek_shared (fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET)
  call note ('MPI_File_read_ordered_begin')
  call MPI_File_read_ordered_begin (fh, io, 4, MPI_INTEGER)
  call note ('MPI_File_read_ordered_end')
  call MPI_File_read_ordered_end (fh, io, st)
  call check (all (io == [(100 * rank + i, i = 1, 4)]), 'file read_ordered_end')
  do i = 0, n - 1
    if (i == rank) then
      call note ('MPI_File_write_shared')
      call MPI_File_write_shared (fh, io, 4, MPI_INTEGER, st)
      call note ('MPI_File_iwrite_shared')
      call MPI_File_iwrite_shared (fh, io, 4, MPI_INTEGER, req)
      call wait1 (req)
    end if
    call note ('MPI_Barrier')
    call MPI_Barrier (MPI_COMM_WORLD)
  end do
  call note ('MPI_File_seek_shared')
  call MPI_File_seek_shared (fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET)
  do i = 0, n - 1
    if (i == rank) then
      call note ('MPI_File_read_shared')
      call MPI_File_read_shared (fh, io, 4, MPI_INTEGER, st)
      call note ('MPI_File_iread_shared')
      call MPI_File_iread_shared (fh, io, 4, MPI_INTEGER, req)
      call wait1 (req)
    end if
    call note ('MPI_Barrier')
    call MPI_Barrier (MPI_COMM_WORLD)
  end do
  call note ('MPI_File_close')
  call MPI_File_close (fh)
  call check (fh == MPI_FILE_NULL, 'file close')
  call note ('MPI_Barrier')
  call MPI_Barrier (MPI_COMM_WORLD)
  if (rank == 0) then
    call note ('MPI_File_delete')
    call MPI_File_delete (trim (counts_path) // '.io  ', MPI_INFO_NULL, ierr)
    call check (ierr == MPI_SUCCESS, 'file delete (a name with trailing blanks)')
    inquire (file = trim (counts_path) // '.io', exist = flag)
    call check (.not. flag, 'file delete left the file')
  end if

  ! ---------------------------------------------------------------- one-sided (RMA)
  call MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler (MPI_COMM_SELF, MPI_ERRORS_RETURN)
  call note ('MPI_Win_create')
  call MPI_Win_create (wlocal, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win2, ierr)
  if (ierr == MPI_SUCCESS) then
    call note ('MPI_Win_free')
    call MPI_Win_free (win2)
  end if
  call note ('MPI_Win_allocate')
  call MPI_Win_allocate (16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, wbase, win2, ierr)
  if (ierr == MPI_SUCCESS) then
    call note ('MPI_Win_free')
    call MPI_Win_free (win2)
  end if
  call note ('MPI_Win_create_dynamic')
  call MPI_Win_create_dynamic (MPI_INFO_NULL, MPI_COMM_WORLD, win2, ierr)
  if (ierr /= MPI_SUCCESS) win2 = MPI_WIN_NULL
  call note ('MPI_Win_attach')
  call MPI_Win_attach (win2, wlocal, 16_MPI_ADDRESS_KIND, ierr)
  call note ('MPI_Win_detach')
  call MPI_Win_detach (win2, wlocal, ierr)
  if (win2 /= MPI_WIN_NULL) then
    call note ('MPI_Win_free')
    call MPI_Win_free (win2)
  end if
  call MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  call MPI_Comm_set_errhandler (MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL)
  call note ('MPI_Win_allocate_shared')
  call MPI_Win_allocate_shared (16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, wbase, win)
  call c_f_pointer (wbase, wmem, [4])
  wmem = 0
  one = 1
  cmp7 = 7
  cmp0 = 0
  call note ('MPI_Win_shared_query')
  call MPI_Win_shared_query (win, partner, wsize, wdisp, wbase2)
  call check (wsize == 16 .and. wdisp == 4 .and. c_associated (wbase2), 'win shared_query')
  ! active target, fence: each rank puts rank + 1 into its partner's first element
  call note ('MPI_Win_fence')
  call MPI_Win_fence (0, win)
  call note ('MPI_Put')
  val = rank + 1
  call MPI_Put (val, 1, MPI_INTEGER, partner, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
  call note ('MPI_Win_fence')
  call MPI_Win_fence (0, win)
  call check (wmem(1) == partner + 1, 'win put')
  call note ('MPI_Get')
  call MPI_Get (v, 1, MPI_INTEGER, partner, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
  call note ('MPI_Accumulate')
  call MPI_Accumulate (one, 1, MPI_INTEGER, partner, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_SUM, win)
  call note ('MPI_Win_fence')
  call MPI_Win_fence (0, win)
  call check (v == rank + 1 .and. wmem(2) == 1, 'win get, accumulate')
  call note ('MPI_Barrier')
  call MPI_Barrier (MPI_COMM_WORLD)
  ! passive target: the partner's second element 1 → 2 → 3, its third 0 → 7
  call note ('MPI_Win_lock')
  call MPI_Win_lock (MPI_LOCK_EXCLUSIVE, partner, 0, win)
  call note ('MPI_Get_accumulate')
  call MPI_Get_accumulate (one, 1, MPI_INTEGER, res, 1, MPI_INTEGER, partner, 1_MPI_ADDRESS_KIND, 1, &
                           MPI_INTEGER, MPI_SUM, win)
  call note ('MPI_Win_flush')
  call MPI_Win_flush (partner, win)
  call check (res == 1, 'win get_accumulate')
  call note ('MPI_Fetch_and_op')
  call MPI_Fetch_and_op (one, res, MPI_INTEGER, partner, 1_MPI_ADDRESS_KIND, MPI_SUM, win)
  call note ('MPI_Win_flush_local')
  call MPI_Win_flush_local (partner, win)
  call check (res == 2, 'win fetch_and_op')
  call note ('MPI_Compare_and_swap')
  call MPI_Compare_and_swap (cmp7, cmp0, res, MPI_INTEGER, partner, 2_MPI_ADDRESS_KIND, win)
  call note ('MPI_Win_unlock')
  call MPI_Win_unlock (partner, win)
  call check (res == 0, 'win compare_and_swap')
  call note ('MPI_Barrier')
  call MPI_Barrier (MPI_COMM_WORLD)
  call note ('MPI_Win_sync')
  call MPI_Win_sync (win)
  call check (wmem(2) == 3 .and. wmem(3) == 7, 'win passive target')
  ! request-based calls in a lock_all epoch: the fourth element 0 → rank + 1 → + 1 + 1
  call note ('MPI_Win_lock_all')
  call MPI_Win_lock_all (0, win)
  call note ('MPI_Rput')
  call MPI_Rput (val, 1, MPI_INTEGER, partner, 3_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, req)
  call wait1 (req)
  call note ('MPI_Win_flush_all')
  call MPI_Win_flush_all (win)
  call note ('MPI_Raccumulate')
  call MPI_Raccumulate (one, 1, MPI_INTEGER, partner, 3_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_SUM, win, req)
  call wait1 (req)
  call note ('MPI_Win_flush_all')
  call MPI_Win_flush_all (win)
  call note ('MPI_Rget_accumulate')
  call MPI_Rget_accumulate (one, 1, MPI_INTEGER, res, 1, MPI_INTEGER, partner, 3_MPI_ADDRESS_KIND, 1, &
                            MPI_INTEGER, MPI_SUM, win, req)
  call wait1 (req)
  call note ('MPI_Win_flush_local_all')
  call MPI_Win_flush_local_all (win)
  call note ('MPI_Rget')
  call MPI_Rget (v, 1, MPI_INTEGER, partner, 3_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, req)
  call wait1 (req)
  call note ('MPI_Win_unlock_all')
  call MPI_Win_unlock_all (win)
  call check (res == rank + 2 .and. v == rank + 3, 'win request-based calls')
  ! general active target with the partner: post, start, put, complete, wait; then Win_test
  call MPI_Comm_group (MPI_COMM_WORLD, wgroup)
  call MPI_Group_incl (wgroup, 1, [partner], gpartner)
  call note ('MPI_Win_post')
  call MPI_Win_post (gpartner, 0, win)
  call note ('MPI_Win_start')
  call MPI_Win_start (gpartner, 0, win)
  call note ('MPI_Put')
  val = rank + 10
  call MPI_Put (val, 1, MPI_INTEGER, partner, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
  call note ('MPI_Win_complete')
  call MPI_Win_complete (win)
  call note ('MPI_Win_wait')
  call MPI_Win_wait (win)
  call check (wmem(1) == partner + 10, 'win post/start/complete/wait')
  call note ('MPI_Win_post')
  call MPI_Win_post (gpartner, 0, win)
  call note ('MPI_Win_start')
  call MPI_Win_start (gpartner, 0, win)
  call note ('MPI_Win_complete')
  call MPI_Win_complete (win)
  flag = .false.
  do while (.not. flag)
    call note ('MPI_Win_test')
    call MPI_Win_test (win, flag)
  end do
  call MPI_Group_free (gpartner)
  call MPI_Group_free (wgroup)
  call note ('MPI_Win_free')
  call MPI_Win_free (win)
  call check (win == MPI_WIN_NULL, 'win free')
  ! use mpi's TYPE(C_PTR) overloads, own symbols in Open MPI (fortran-all-cptr.f90)
  call cptr_windows (MPI_COMM_WORLD%MPI_VAL, rank, partner, flag, cptr_ok)
  call note ('MPI_Win_allocate')
  if (flag) call note ('MPI_Win_free')
  call note ('MPI_Win_allocate_shared')
  call note ('MPI_Win_shared_query')
  call note ('MPI_Barrier')
  call note ('MPI_Barrier')
  call note ('MPI_Win_free')
  call check (cptr_ok, 'use mpi windows with a TYPE(C_PTR) baseptr')

  call note ('MPI_Finalize')
  call MPI_Finalize (ierror = ierr)
  call check (ierr == MPI_SUCCESS, 'finalize')
  call write_counts ()
  if (rank == 0) print '(a)', 'fortran-all: done'

contains

  subroutine note (name)
    character (len = *), intent (in) :: name
    integer :: j
    do j = 1, n_names
      if (names(j) == name) then
        counts(j) = counts(j) + 1
        return
      end if
    end do
    n_names = n_names + 1
    names(n_names) = name
    counts(n_names) = 1
  end subroutine note

  ! a non-blocking call: noted, and the next element of reqs for its request
  subroutine inote (name)
    character (len = *), intent (in) :: name
    call note (name)
    k = k + 1
  end subroutine inote

  subroutine wait1 (r)
    type (MPI_Request), intent (inout) :: r
    call note ('MPI_Wait')
    call MPI_Wait (r, MPI_STATUS_IGNORE)
    call check (r == MPI_REQUEST_NULL, 'wait')
  end subroutine wait1

  subroutine barrier ()
    call note ('MPI_Barrier')
    call MPI_Barrier (MPI_COMM_WORLD)
  end subroutine barrier

  ! a message of @count INTEGERs with @tag from the partner: a(i) = partner * 10 + i
  subroutine recv (count, tag)
    integer, intent (in) :: count, tag
    type (MPI_Status) :: s
    integer :: got
    call note ('MPI_Recv')
    call MPI_Recv (b, count, MPI_INTEGER, partner, tag, MPI_COMM_WORLD, s)
    call MPI_Get_count (s, MPI_INTEGER, got)
    call check (got == count .and. s%MPI_TAG == tag, 'recv status')
    if (tag < 10) call check (all (b(1 : count) == [(partner * 10 + i, i = 1, count)]), 'recv data')
  end subroutine recv

  subroutine comm_free (c)
    type (MPI_Comm), intent (inout) :: c
    call note ('MPI_Comm_free')
    call MPI_Comm_free (c)
    call check (c == MPI_COMM_NULL, 'comm_free')
  end subroutine comm_free

  subroutine check (ok, what)
    logical, intent (in) :: ok
    character (len = *), intent (in) :: what
    if (.not. ok) then
      print '(a, i0, 2a)', 'fortran-all: rank ', rank, ': wrong result: ', what
      call MPI_Abort (MPI_COMM_WORLD, 3)
    end if
  end subroutine check

  subroutine write_counts ()
    character (len = 4096) :: path
    integer :: u, j, length
    call get_command_argument (1, path, length)
    if (length == 0) return
    write (path, '(a, a, i0)') trim (path), '.', rank
    open (newunit = u, file = trim (path), status = 'replace', action = 'write')
    do j = 1, n_names
      write (u, '(a, 1x, i0, 1x, i0)') 'enter ' // trim (names(j)), rank, counts(j)
    end do
    close (u)
  end subroutine write_counts

end program fortran_all
