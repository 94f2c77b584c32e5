/* collect-fortran.h: what the generated Fortran entry points (mpi-wrappers-f.c) need to turn
 * the arguments of a Fortran MPI call into C ones before they call the same recording
 * functions as the C entry points.
 *
 * The Fortran sentinels (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_UNWEIGHTED,
 * MPI_WEIGHTS_EMPTY) are variables in common blocks or bind(C) module variables: the program
 * passes their addresses.  Open MPI names them mpi_fortran_in_place_ etc., and the dynamic
 * linker resolves every copy (libmpi, the module libraries, the program's own common block) to
 * one address, the one dlsym (RTLD_DEFAULT) finds; all four manglings are looked up, as Open
 * MPI's own bindings compare against all four. */
#pragma once

#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#define KUBUS_F_HIDDEN __attribute__ ((visibility ("hidden")))

/* gfortran's LOGICAL values (Open MPI's OMPI_FORTRAN_VALUE_TRUE for gfortran); inputs count
 * any non-zero value as true */
#define KUBUS_F_TRUE  1
#define KUBUS_F_FALSE 0
/* MPI_STATUS_SIZE: Open MPI's Fortran status is the C MPI_Status seen as INTEGERs */
#define KUBUS_F_STATUS_INTS ((int)(sizeof (MPI_Status) / sizeof (MPI_Fint)))
/* arrays of this many handles or statuses live on the stack, longer ones on the heap */
#define KUBUS_F_STACK 32

_Static_assert (sizeof (MPI_Fint) == sizeof (int),
                "Fortran INTEGER arrays are passed to C as int arrays");

enum
{
  KUBUS_F_BOTTOM,
  KUBUS_F_IN_PLACE,
  KUBUS_F_STATUS_IGNORE,
  KUBUS_F_STATUSES_IGNORE,
  KUBUS_F_UNWEIGHTED,
  KUBUS_F_WEIGHTS_EMPTY,
  KUBUS_F_N_SENTINELS
};
/* four manglings, and the C-side MPI_F_STATUS(ES)_IGNORE */
#define KUBUS_F_ADDRS 5
extern const void *kubus_f_sentinels[KUBUS_F_N_SENTINELS][KUBUS_F_ADDRS] KUBUS_F_HIDDEN;
extern int         kubus_f_ready KUBUS_F_HIDDEN;
void               kubus_f_setup (void) KUBUS_F_HIDDEN;

/* first Fortran call of the process: find the sentinels (the Fortran libraries are loaded by
 * then, whether the program or a library it dlopened calls MPI from Fortran) */
#define KUBUS_F_SETUP()                                                                     \
  do                                                                                        \
    {                                                                                       \
      if (__builtin_expect (!__atomic_load_n (&kubus_f_ready, __ATOMIC_ACQUIRE), 0))        \
        kubus_f_setup ();                                                                   \
    }                                                                                       \
  while (0)

static inline int
kubus_f_is (const void *p, int which)
{
  const void *const *s = kubus_f_sentinels[which];
  return p != NULL && (p == s[0] || p == s[1] || p == s[2] || p == s[3] || p == s[4]);
}

/* a choice buffer: Fortran's MPI_BOTTOM and MPI_IN_PLACE become C's */
static inline void *
kubus_f_buf (void *p)
{
  if (kubus_f_is (p, KUBUS_F_BOTTOM))
    return MPI_BOTTOM;
  if (kubus_f_is (p, KUBUS_F_IN_PLACE))
    return MPI_IN_PLACE;
  return p;
}

static inline const int *
kubus_f_weights (const MPI_Fint *w)
{
  if (kubus_f_is (w, KUBUS_F_UNWEIGHTED))
    return MPI_UNWEIGHTED;
  if (kubus_f_is (w, KUBUS_F_WEIGHTS_EMPTY))
    return MPI_WEIGHTS_EMPTY;
  return w;
}

/* the calls after which the output arguments hold something to hand back */
static inline int
kubus_f_ok (int ret)
{
  return ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS;
}

/* ierror: always passed by mpif.h and use mpi, optional (NULL when absent) in mpi_f08 */
static inline void
kubus_f_set_error (MPI_Fint *ierror, int ret)
{
  if (ierror != NULL)
    *ierror = (MPI_Fint)ret;
}

/* the length of an array of datatypes: a communicator's peers (the remote group of an
 * inter-communicator), or its topology's in- or out-degree (neighbourhood collectives) */
enum
{
  KUBUS_F_PEERS,
  KUBUS_F_INDEGREE,
  KUBUS_F_OUTDEGREE
};
int kubus_f_peers (MPI_Comm comm, int how) KUBUS_F_HIDDEN;

/* @n elements of @size bytes: @stack (@stack_n elements) when they fit, else the heap;
 * NULL when out of memory */
void *kubus_f_array (void *stack, size_t stack_n, long n, size_t size) KUBUS_F_HIDDEN;
void  kubus_f_array_free (void *p, void *stack) KUBUS_F_HIDDEN;
/* a CHARACTER(LEN=@len) argument as a C string without its trailing blanks (MPI-3.1 section
 * 17.1.13: MPI_File_open's file name, MPI_File_set_view's data representation), to be freed;
 * NULL when out of memory */
char *kubus_f_string (const char *s, size_t len) KUBUS_F_HIDDEN;
/* MPI_ERR_NO_MEM, after MPI_COMM_WORLD's error handler saw it (as Open MPI's bindings do) */
int   kubus_f_no_memory (void) KUBUS_F_HIDDEN;
