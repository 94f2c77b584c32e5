/* mpit-limits.h — the MPI library's eager limits through MPI_T (mpit-limits.c) */
#pragma once

#include <mpi.h>

/* @limit[0]: between ranks of a host (shared memory), @limit[1]: between hosts (TCP), in bytes;
 * @have[i]: whether the library has that variable (0: @limit[i] is 0) */
void kubus_mpit_eager_limits (unsigned long long limit[2], int have[2]);
