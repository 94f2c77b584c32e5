/* kubus-mpi-io.h — which MPI-IO functions are collective (2026-11-29).
 *
 * The analyzer (src/core/trace-defs.c) and the lightweight profile
 * (src/collect/collect-profile-write.c) file the time of MPI_File_* calls as Scalasca does:
 * mpi_io ("File I/O") under mpi, and the collective calls in its child mpi_io_collective.
 * Collective here means every process of the file's group calls it (MPI-3.1 chapter 13):
 * opening and closing, the sizes, the views, MPI_File_sync, the shared file pointer's seek,
 * and every _all and _ordered access (the split ones too). */
#pragma once

#include <string.h>

static inline int
kubus_mpi_io_collective (const char *name)
{
  static const char *const named[] = { "MPI_File_open", "MPI_File_close", "MPI_File_set_size",
                                       "MPI_File_preallocate", "MPI_File_set_view",
                                       "MPI_File_set_info", "MPI_File_set_atomicity",
                                       "MPI_File_sync", "MPI_File_seek_shared", NULL };
  for (int i = 0; named[i] != NULL; i++)
    if (strcmp (name, named[i]) == 0)
      return 1;
  return strstr (name, "_all") != NULL || strstr (name, "_ordered") != NULL;
}
