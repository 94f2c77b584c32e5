/* collect-profile-write.h: the lightweight profile's per-rank record and its CUBE 3 writer.
 *
 * Plain C (no MPI, no GLib, no locale-dependent number formatting): the same code is built into
 * libkubus-collect (rank 0 writes EXPDIR/profile.cube at MPI_Finalize), into kubus-run (after
 * an aborted run it merges the records the ranks saved) and into the fuzzer, so writer and
 * reader of the record cannot drift.
 *
 * A rank's record is an array of 64-bit words (host byte order):
 *   magic, version, rank, world size, flags, path limit, visits folded into the overflow call
 *   path, profile bytes, host name, why the run ended early ("" normally), n strings, strings, n threads, then per thread: thread number, n nodes, and per
 *   node (parents before children): parent + 1 (0 = a root), region string, the number of
 *   its call sites and for each its module string + 1 and the return address's offset in the
 *   module, a bit mask of the non-zero values (KP_* bits) and those values.  A call path is
 *   (parent, region): the MPI calls of one function at several places in the source are one
 *   call path with several call sites.
 * A string is its length in bytes and the bytes in ceil(len / 8) words.  Module strings are
 * "BUILD-ID PATH" ("-" when the module has no build id).  Times are nanoseconds. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define KUBUS_PROF_MAGIC 0x454c49464f52504bull /* "KPROFILE" */
#define KUBUS_PROF_VERSION 1u

/* record flags */
#define KUBUS_PROF_FLAG_INCOMPLETE 1u /* saved on an abort path: no cross-rank minima */

/* The values of one call path on one location. */
enum
{
  KP_VISITS,
  KP_TIME, /* exclusive time, ns */
  KP_MIN,  /* shortest visit (inclusive), ns */
  KP_MAX,  /* longest visit (inclusive), ns */
  KP_BYTES_SENT,
  KP_BYTES_RCVD,
  KP_BYTES_COUT,
  KP_BYTES_CIN,
  KP_SYNCS_SEND,
  KP_SYNCS_RECV,
  KP_SYNCS_COLL,
  KP_COMMS_SEND,
  KP_COMMS_RECV,
  KP_COMMS_CXCH,
  KP_COMMS_CSRC,
  KP_COMMS_CDST,
  KP_LS, /* wait-state estimates, ns */
  KP_LR,
  KP_BARRIER,
  KP_NXN,
  KP_LB,
  KP_ER,
  KP_N
};

/* Growing word buffer (the record being built). */
typedef struct
{
  uint64_t *w;
  size_t    n, cap;
  int       failed; /* out of memory: the buffer is incomplete */
} KubusWords;

void kubus_words_put (KubusWords *b, uint64_t v);
void kubus_words_put_str (KubusWords *b, const char *s);
void kubus_words_clear (KubusWords *b);

/* Merging the records of all ranks into one report. */
typedef struct KubusProfMerge KubusProfMerge;

/* @world_size: ranks of the run (every rank gets a location, with or without a record). */
KubusProfMerge *kubus_prof_merge_new (int world_size);
void            kubus_prof_merge_free (KubusProfMerge *m);
/* Adds one rank's record.  Returns 0, or -1 with what is wrong in @err (the record is then
 * ignored as a whole). */
int kubus_prof_merge_add (KubusProfMerge *m, const uint64_t *words, size_t n, char *err, size_t errlen);
/* Ranks whose record was added. */
int kubus_prof_merge_ranks (const KubusProfMerge *m);
/* Writes the CUBE 3 report to @path atomically (a temporary file in the same folder, then a
 * rename).  @incomplete: NULL, or why the run ended early (an attribute kubus::incomplete).
 * Returns 0, or -1 with the reason in @err (nothing is left behind then). */
int kubus_prof_merge_write (KubusProfMerge *m,
                            const char     *path,
                            const char     *creator,
                            const char     *incomplete,
                            char           *err,
                            size_t          errlen);

/* Merges the record files rank.<N> of folder @dir (an aborted run's) into @out_path.
 * @ranks and @world (may be NULL) receive how many records were merged, of how many ranks.
 * Returns 0, or -1 with the reason in @err (no record readable, cannot write). A record that
 * cannot be read is skipped and named in @skipped (may be NULL; "" when none). */
int kubus_prof_merge_dir (const char *dir,
                          const char *out_path,
                          const char *creator,
                          int        *ranks,
                          int        *world,
                          char       *skipped,
                          size_t      skippedlen,
                          char       *err,
                          size_t      errlen);

/* Call sites that the compiler made two calls out of (a duplicated block) are one call site
 * of the source: after the run, kubus-run maps every (module, offset) to a key offset — the
 * first offset seen with the same source line — and call paths whose first sites have the same
 * key merge.  @module is the record's module string ("BUILD-ID PATH"). */
typedef uint64_t (*KubusSiteKeyFunc) (void *data, const char *module, uint64_t offset);
void kubus_prof_merge_set_site_key (KubusProfMerge *m, KubusSiteKeyFunc fn, void *data);
/* kubus_prof_merge_dir with a site key (@fn may be NULL). */
int kubus_prof_merge_dir_keyed (const char      *dir,
                                const char      *out_path,
                                const char      *creator,
                                KubusSiteKeyFunc fn,
                                void            *data,
                                int             *ranks,
                                int             *world,
                                char            *skipped,
                                size_t           skippedlen,
                                char            *err,
                                size_t           errlen);

/* Categories of MPI functions, as the analyzer's metric tree files them (PATTERNS.md; the
 * same lists as classify_region in src/core/trace-defs.c). */
enum
{
  KUBUS_CAT_USER = 1,
  KUBUS_CAT_INIT_EXIT = 2,
  KUBUS_CAT_MGMT = 4,
  KUBUS_CAT_BARRIER = 8,
  KUBUS_CAT_P2P = 16,
  KUBUS_CAT_COLL = 32,
  KUBUS_CAT_OTHER = 64,
  KUBUS_CAT_IO = 128,      /* MPI_File_*: mpi_io */
  KUBUS_CAT_IO_COLL = 256, /* the collective ones (kubus-mpi-io.h): mpi_io_collective */
};
int kubus_prof_category (const char *region_name);
