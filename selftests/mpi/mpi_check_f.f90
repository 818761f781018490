! mpi_check_f: the intercepted collectives from Fortran ("use mpi"), each
! result compared with one recomputed here from every rank's inputs (not
! with the PMPI_ Fortran calls: MPICH's are the MPI_ ones, whose C calls
! the interposer takes).  Run with and without LD_PRELOAD=libnetcoll-mpi.so:
! the same checks pass both ways, and NETCOLL_MPI_VERBOSE=1 says where the
! calls went.  Values are integers (in REAL and DOUBLE PRECISION too), so
! every reduction order gives the same bits.  Rank 0 prints "mpi_check_f: P ranks, N checks, M failed";
! the exit status is 1 if any check failed on any rank.
program mpi_check_f
  use mpi
  implicit none
  integer, parameter :: nmax = 40000
  integer :: rank, np, ierr, checks, failed, i, j, n, k, r, root, all_failed
  integer :: counts(3) = (/ 1, 1000, nmax /)
  integer, allocatable :: ia(:), ib(:), ic(:)
  integer(kind=8), allocatable :: la(:), lb(:)
  real, allocatable :: ra(:), rb(:)
  double precision, allocatable :: da(:), db(:), dc(:)
  logical, allocatable :: ga(:), gb(:)
  integer :: pa(2, 100), pb(2, 100)
  real :: qa(2, 10), qb(2, 10)
  integer :: vec, tblocks, sub, subn

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  checks = 0
  failed = 0
  allocate(ia(nmax * np), ib(nmax * np), ic(nmax * np))
  allocate(la(nmax), lb(nmax), ra(nmax), rb(nmax))
  allocate(da(nmax * np), db(nmax * np), dc(nmax * np))
  allocate(ga(nmax), gb(nmax))

  do k = 1, 3
    n = counts(k)
    do i = 1, n
      ia(i) = ia_of(rank, i)
      la(i) = int(mod(i, 3) + 1 + rank, 8)
      ra(i) = real(mod(i * (rank + 1), 977))
      da(i) = da_of(rank, i)
      ga(i) = mod(i + rank, 5) == 0
    end do

    ! MPI_ALLREDUCE: every Fortran type and op the interposer maps
    call MPI_Allreduce(ia, ib, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    ic(1:n) = 0
    do r = 0, np - 1
      ic(1:n) = ic(1:n) + (/ (ia_of(r, i), i = 1, n) /)
    end do
    call check(all(ib(1:n) == ic(1:n)), 'allreduce integer sum')
    call MPI_Allreduce(ia, ib, n, MPI_INTEGER, MPI_BXOR, MPI_COMM_WORLD, ierr)
    ic(1:n) = 0
    do r = 0, np - 1
      ic(1:n) = ieor(ic(1:n), (/ (ia_of(r, i), i = 1, n) /))
    end do
    call check(all(ib(1:n) == ic(1:n)), 'allreduce integer bxor')
    call MPI_Allreduce(la, lb, n, MPI_INTEGER8, MPI_PROD, MPI_COMM_WORLD, ierr)
    call check(all(lb(1:n) == product_of(la(1:n))), 'allreduce integer8 prod')
    call MPI_Allreduce(ra, rb, n, MPI_REAL, MPI_MIN, MPI_COMM_WORLD, ierr)
    call check(all(rb(1:n) == min_of(ra(1:n))), 'allreduce real min')
    call MPI_Allreduce(da, db, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(all(db(1:n) == da_sum(n)), 'allreduce double precision sum')
    call MPI_Allreduce(da, db, n, MPI_REAL8, MPI_MAX, MPI_COMM_WORLD, ierr)
    dc(1:n) = da_of(0, (/ (i, i = 1, n) /))
    do r = 1, np - 1
      dc(1:n) = max(dc(1:n), da_of(r, (/ (i, i = 1, n) /)))
    end do
    call check(all(db(1:n) == dc(1:n)), 'allreduce real8 max')
    call MPI_Allreduce(ga, gb, n, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
    call check(all(gb(1:n) .eqv. any_of(ga(1:n))), 'allreduce logical lor')
    call MPI_Allreduce(ga, gb, n, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    call check(all(gb(1:n) .eqv. all_of(ga(1:n))), 'allreduce logical land')

    ! MPI_IN_PLACE
    ib(1:n) = ia(1:n)
    call MPI_Allreduce(MPI_IN_PLACE, ib, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    ic(1:n) = (/ (ia_of(np - 1, i), i = 1, n) /)  ! ia_of grows with r
    call check(all(ib(1:n) == ic(1:n)), 'allreduce in place integer max')

    ! MPI_REDUCE to rank 1 (in place there), MPI_BCAST from the last rank
    root = min(1, np - 1)
    db(1:n) = da(1:n)
    if (rank == root) then
      call MPI_Reduce(MPI_IN_PLACE, db, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, &
                      MPI_COMM_WORLD, ierr)
    else
      call MPI_Reduce(da, db, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, &
                      MPI_COMM_WORLD, ierr)
    end if
    if (rank == root) then
      call check(all(db(1:n) == da_sum(n)), 'reduce double precision sum, in place at the root')
    else
      call check(all(db(1:n) == da(1:n)), 'reduce: a non-root buffer is left alone')
    end if
    root = np - 1
    if (rank == root) then
      ib(1:n) = ia(1:n)
    else
      ib(1:n) = 0
    end if
    call MPI_Bcast(ib, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    do i = 1, n
      ic(i) = root * 7 + mod(i, 1013) - 500
    end do
    call check(all(ib(1:n) == ic(1:n)), 'bcast integer from the last rank')

    ! MPI_ALLTOALL and MPI_ALLGATHER (in place), MPI_REDUCE_SCATTER_BLOCK
    tblocks = max(n / np, 1)
    do i = 1, tblocks * np
      ia(i) = rank * 100000 + i
    end do
    call MPI_Alltoall(ia, tblocks, MPI_INTEGER, ib, tblocks, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    do r = 0, np - 1  ! block r: rank r's block for this rank
      do j = 1, tblocks
        ic(r * tblocks + j) = r * 100000 + rank * tblocks + j
      end do
    end do
    call check(all(ib(1:tblocks * np) == ic(1:tblocks * np)), 'alltoall integer')
    do i = 1, tblocks
      db(rank * tblocks + i) = dble(rank * 1000 + i)
    end do
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, db, tblocks, &
                       MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    do r = 0, np - 1
      do j = 1, tblocks
        dc(r * tblocks + j) = dble(r * 1000 + j)
      end do
    end do
    call check(all(db(1:tblocks * np) == dc(1:tblocks * np)), 'allgather in place double precision')
    call MPI_Reduce_scatter_block(ia, ib, tblocks, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    do j = 1, tblocks  ! this rank's block of the sum over r of r * 100000 + i
      ic(j) = 100000 * (np * (np - 1) / 2) + np * (rank * tblocks + j)
    end do
    call check(all(ib(1:tblocks) == ic(1:tblocks)), 'reduce_scatter_block integer sum')
  end do

  ! MAXLOC on MPI_2INTEGER (netcoll), MINLOC on MPI_2REAL (MPI: a REAL index)
  do i = 1, 100
    pa(1, i) = mod(i * (rank + 3), 11)
    pa(2, i) = rank
  end do
  call MPI_Allreduce(pa, pb, 100, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(maxloc_ok(pa, pb), 'allreduce 2integer maxloc')
  do i = 1, 10
    qa(1, i) = real(mod(i + rank, 4))
    qa(2, i) = real(rank)
  end do
  call MPI_Allreduce(qa, qb, 10, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(all(qb(1, :) == real(minval_each(qa))), 'allreduce 2real minloc (to MPI)')

  ! a split communicator (its own netcoll communicator), freed after
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_size(sub, subn, ierr)
  ia(1:1000) = rank
  call MPI_Allreduce(ia, ib, 1000, MPI_INTEGER, MPI_SUM, sub, ierr)
  call check(all(ib(1:1000) == sum_parity()), 'allreduce on a split communicator')
  call MPI_Comm_free(sub, ierr)
  call check(sub == MPI_COMM_NULL, 'comm_free: the handle is MPI_COMM_NULL')

  ! a derived type goes to MPI; MPI_BARRIER
  call MPI_Type_contiguous(4, MPI_INTEGER, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  ia(1:400) = rank
  call MPI_Bcast(ia, 100, vec, 0, MPI_COMM_WORLD, ierr)
  call check(all(ia(1:400) == 0), 'bcast of a derived type (to MPI)')
  call MPI_Type_free(vec, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'barrier')

  call PMPI_Allreduce(failed, all_failed, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a,i0,a)', 'mpi_check_f: ', np, ' ranks, ', checks, &
       ' checks, ', all_failed, ' failed'
  call MPI_Finalize(ierr)
  if (all_failed /= 0) call exit(1)

contains

  ! Rank r's inputs at index i (integers; in DOUBLE PRECISION exact).
  elemental integer function ia_of(r, i)
    integer, intent(in) :: r, i

    ia_of = r * 7 + mod(i, 1013) - 500
  end function ia_of

  elemental double precision function da_of(r, i)
    integer, intent(in) :: r, i

    da_of = dble(mod(i * 31 + r * 17, 100003)) - 50000d0
  end function da_of

  ! The sum over every rank of da_of(r, 1 .. n).
  function da_sum(n) result(s)
    integer, intent(in) :: n
    double precision :: s(n)
    integer :: r, i

    s = 0
    do r = 0, np - 1
      s = s + (/ (da_of(r, i), i = 1, n) /)
    end do
  end function da_sum

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what

    checks = checks + 1
    if (.not. ok) then
      failed = failed + 1
      print '(a,i0,a,i0,a,a)', 'not ok: rank ', rank, ' count ', n, ': ', what
    end if
  end subroutine check

  ! Every rank's contribution, recomputed here: ranks 0 .. np-1.
  function product_of(x) result(p)
    integer(kind=8), intent(in) :: x(:)
    integer(kind=8) :: p(size(x))
    integer :: r

    p = 1
    do r = 0, np - 1
      p = p * (x - rank + r)
    end do
  end function product_of

  function min_of(x) result(m)
    real, intent(in) :: x(:)
    real :: m(size(x))
    integer :: r, j

    do j = 1, size(x)
      m(j) = huge(1.0)
      do r = 0, np - 1
        m(j) = min(m(j), real(mod(j * (r + 1), 977)))
      end do
    end do
  end function min_of

  function any_of(x) result(g)
    logical, intent(in) :: x(:)
    logical :: g(size(x))
    integer :: r, j

    do j = 1, size(x)
      g(j) = .false.
      do r = 0, np - 1
        g(j) = g(j) .or. mod(j + r, 5) == 0
      end do
    end do
  end function any_of

  function all_of(x) result(g)
    logical, intent(in) :: x(:)
    logical :: g(size(x))
    integer :: r, j

    do j = 1, size(x)
      g(j) = .true.
      do r = 0, np - 1
        g(j) = g(j) .and. mod(j + r, 5) == 0
      end do
    end do
  end function all_of

  ! MAXLOC: the largest value, and of the ranks that have it the lowest.
  logical function maxloc_ok(a, b)
    integer, intent(in) :: a(:, :), b(:, :)
    integer :: j, r, v, best, who

    maxloc_ok = .true.
    do j = 1, 100
      best = -1
      who = -1
      do r = 0, np - 1
        v = mod(j * (r + 3), 11)
        if (v > best) then
          best = v
          who = r
        end if
      end do
      if (b(1, j) /= best .or. b(2, j) /= who) maxloc_ok = .false.
    end do
    if (a(2, 1) /= rank) maxloc_ok = .false.
  end function maxloc_ok

  ! The sum of the ranks of this rank's parity.
  integer function sum_parity()
    integer :: r

    sum_parity = 0
    do r = mod(rank, 2), np - 1, 2
      sum_parity = sum_parity + r
    end do
  end function sum_parity

  function minval_each(a) result(m)
    real, intent(in) :: a(:, :)
    integer :: m(10)
    integer :: j, r

    do j = 1, 10
      m(j) = 4
      do r = 0, np - 1
        m(j) = min(m(j), mod(j + r, 4))
      end do
    end do
    if (a(2, 1) /= real(rank)) m = -1
  end function minval_each
end program mpi_check_f
