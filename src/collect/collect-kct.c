/* collect-kct.c: the compressed trace inside each rank (--trace-format=compressed|both).
 *
 * Every event reaches kct_rank_record through the taps of collect-kct-tap.h: in the rank's own
 * terms (local communicator ids, peers relative to the own rank, request slots, call sites),
 * so ranks that do the same thing record the same thing.  At MPI_Finalize each rank adds its
 * definitions and the ranks merge their traces along a binary tree (log2 P steps, each rank
 * sends once); rank 0 writes EXPDIR/traces.kct through a temporary file and a rename.
 * Plain C like the rest of the library; the encoding is src/collect/kct-format.c, which
 * src/core builds too.
 */
#include "collect.h"
#include "kct-format.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int   kubus_trace_otf2 = 1;
int   kubus_kct_on;
void *kubus_kct_site;

static int       wanted;
static KctTrace *trace;
static KctRank  *rec;
static int       failed;

/* KUBUS_TRACE_FORMAT=otf2|compressed|both (kubus-run --trace-format); the same on every
 * rank, so the collective steps below are taken by all or none. */
void
kubus_kct_configure (void)
{
  const char *f = getenv ("KUBUS_TRACE_FORMAT");
  wanted = 0;
  kubus_trace_otf2 = 1;
  if (f == NULL || f[0] == '\0' || strcmp (f, "otf2") == 0)
    return;
  if (strcmp (f, "compressed") == 0)
    {
      wanted = 1;
      kubus_trace_otf2 = 0;
    }
  else if (strcmp (f, "both") == 0)
    wanted = 1;
  else
    kubus_log ("KUBUS_TRACE_FORMAT=%s is not otf2, compressed or both: writing OTF2", f);
}

static int
is_poll (const char *name)
{
  static const char *polls[] = { "MPI_Test",   "MPI_Testany", "MPI_Testsome",
                                 "MPI_Testall", "MPI_Iprobe", "MPI_Improbe" };
  for (size_t i = 0; i < sizeof polls / sizeof polls[0]; i++)
    if (strcmp (name, polls[i]) == 0)
      return 1;
  return 0;
}

static void
give_up (const char *what)
{
  if (!failed)
    kubus_incomplete ("compressed trace: %s; no traces.kct will be written", what);
  failed = 1;
  kubus_kct_on = 0;
}

/* Before the first event (MPI_Init). */
void
kubus_kct_start (void)
{
  if (!wanted)
    return;
  trace = kct_trace_new ();
  if (trace != NULL)
    {
      /* KUBUS_KCT_TIME_ERROR=1us,0.0015%, KUBUS_KCT_TIMELINES=16: the same on every rank */
      const char *te = getenv ("KUBUS_KCT_TIME_ERROR");
      const char *tl = getenv ("KUBUS_KCT_TIMELINES");
      double      abs_s = 0;
      uint32_t    bits = 0;
      if (te != NULL && te[0] != '\0' && kct_parse_time_error (te, &abs_s, &bits) != 0)
        kubus_log ("KUBUS_KCT_TIME_ERROR=%s is not like 1us,0.0015%%: the default bound", te);
      if (abs_s > 0)
        {
          uint64_t ticks = (uint64_t)(abs_s * (double)trace->h.timer_resolution + 0.5);
          trace->h.time_abs = ticks ? ticks : 1;
        }
      trace->h.time_bits = bits;
      char *end = NULL;
      long  n = tl != NULL ? strtol (tl, &end, 10) : 0;
      if (tl != NULL && (end == tl || *end != '\0' || n < 1 || n > (long)KCT_TIMELINES_MAX))
        kubus_log ("KUBUS_KCT_TIMELINES=%s is not a number of ranks: %u", tl, KCT_TIMELINES);
      else if (n > 0)
        trace->h.timelines = (uint32_t)n;
    }
  rec = trace ? kct_rank_new (trace, (uint32_t)kubus_world_rank) : NULL;
  if (rec == NULL)
    {
      give_up ("out of memory");
      return;
    }
  for (uint32_t i = 0; i < KUBUS_R_MPI_COUNT; i++)
    kct_rank_region_flags (rec, i,
                           KCT_REGION_CALL
                               | (is_poll (kubus_mpi_regions[i].name) ? KCT_REGION_POLL : 0));
  kubus_kct_on = 1;
}

/* ---- call sites ------------------------------------------------------------------- */

#define SITE_SLOTS 1024
static uintptr_t site_addr[SITE_SLOTS];
static uint32_t  site_sig[SITE_SLOTS];

/* The same call site has the same signature in every process of the program, wherever the
 * loader put the object holding it: the object's name and the offset in it. */
static uint32_t
site_signature (void *addr)
{
  uintptr_t a = (uintptr_t)addr;
  uint32_t  s = (uint32_t)((a * 0x9E3779B97F4A7C15ull) >> 54) & (SITE_SLOTS - 1);
  if (site_addr[s] == a)
    return site_sig[s];
  Dl_info  info;
  uint64_t h = 0xcbf29ce484222325ull;
  if (dladdr (addr, &info) != 0 && info.dli_fname != NULL)
    {
      const char *base = strrchr (info.dli_fname, '/');
      for (const char *c = base ? base + 1 : info.dli_fname; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
      h ^= (uint64_t)(a - (uintptr_t)info.dli_fbase) * 0x9E3779B97F4A7C15ull;
    }
  else
    h ^= (uint64_t)a;
  uint32_t sig = (uint32_t)(h ^ (h >> 32));
  site_addr[s] = a;
  site_sig[s] = sig;
  return sig;
}

/* ---- events ----------------------------------------------------------------------------- */

/* The event is built in place in the recorder's buffer (no copy on the hot path). */
static inline KctRaw *
slot (void)
{
  KctRaw *ev = kct_rank_prepare (rec);
  if (ev == NULL)
    give_up ("out of memory");
  return ev;
}

static inline void
commit (uint64_t t)
{
  if (kct_rank_commit (rec, t) != 0)
    give_up ("out of memory");
}

void
kubus_kct_enter (uint64_t t, uint32_t region)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = KCT_RAW_ENTER;
  ev->a = region;
  if (kubus_kct_site != NULL)
    {
      ev->tag = site_signature (kubus_kct_site);
      kubus_kct_site = NULL;
    }
  commit (t);
}

void
kubus_kct_cpu (uint64_t cpu, uint64_t wait, uint64_t where)
{
  if (kct_rank_cpu (rec, cpu, wait, where) != 0)
    give_up ("out of memory");
}

void
kubus_kct_leave (uint64_t t, uint32_t region)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = KCT_RAW_LEAVE;
  ev->a = region;
  commit (t);
}

void
kubus_kct_p2p (uint64_t t,
               int      type,
               uint32_t comm,
               uint32_t peer,
               uint32_t tag,
               uint64_t bytes,
               uint64_t request)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = (uint8_t)type;
  ev->a = comm;
  /* relative to the own rank (in the own group of an inter-communicator) */
  int me = comm < (uint32_t)kubus_comm_count () ? kubus_comm_get ((int)comm)->rank : 0;
  ev->peer = (int32_t)((int64_t)peer - me);
  ev->tag = tag;
  ev->bytes = bytes;
  ev->x = request;
  commit (t);
}

void
kubus_kct_request (uint64_t t, int type, uint64_t request)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = (uint8_t)type;
  ev->x = request;
  commit (t);
}

void
kubus_kct_coll_begin (uint64_t t)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = KCT_RAW_COLL_BEGIN;
  commit (t);
}

void
kubus_kct_coll_end (
    uint64_t t, uint32_t op, uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = KCT_RAW_COLL_END;
  ev->op = (uint8_t)op;
  ev->a = comm;
  ev->peer = root == OTF2_UNDEFINED_UINT32 ? -1 : (int32_t)root;
  ev->bytes = sent;
  ev->x = received;
  commit (t);
}

void
kubus_kct_nbc_request (uint64_t t, uint64_t request)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = KCT_RAW_NBC_REQUEST;
  ev->x = request;
  commit (t);
}

void
kubus_kct_nbc_complete (uint64_t t,
                        uint32_t op,
                        uint32_t comm,
                        uint32_t root,
                        uint64_t sent,
                        uint64_t received,
                        uint64_t request)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = KCT_RAW_NBC_COMPLETE;
  ev->op = (uint8_t)op;
  ev->a = comm;
  ev->peer = root == OTF2_UNDEFINED_UINT32 ? -1 : (int32_t)root;
  ev->bytes = sent;
  ev->y = received;
  ev->x = request;
  commit (t);
}

void
kubus_kct_program (uint64_t t, int end, int64_t status)
{
  KctRaw *ev = slot ();
  if (ev == NULL)
    return;
  ev->type = end ? KCT_RAW_PROGRAM_END : KCT_RAW_PROGRAM_BEGIN;
  ev->bytes = end ? (uint64_t)status : 0;
  commit (t);
}

/* ---- definitions ------------------------------------------------------------------------- */

static int
add_region (const char *name,
            const char *canonical,
            const char *file,
            const char *descr,
            int         role,
            int         paradigm,
            int         flags)
{
  KctRegion r = { (char *)name, (char *)canonical, (char *)file, (char *)descr,
                  (uint8_t)role, (uint8_t)paradigm, (uint8_t)flags };
  return kct_region_add (trace, &r) == KCT_NONE ? -1 : 0;
}

static int
add_list (KctList *l, const int *v, int n)
{
  for (int i = 0; i < n; i++)
    if (kct_list_add (l, (uint32_t)v[i]) != 0)
      return -1;
  return 0;
}

/* This rank's definitions, in its own ids: regions by the collector's ids, communicators by
 * local id (keyed for the merge), its topology coordinates and its host. */
static int
add_definitions (void)
{
  int err = 0;
  for (uint32_t i = 0; i < KUBUS_R_MPI_COUNT && !err; i++)
    err = add_region (kubus_mpi_regions[i].name, "", "MPI", "", kubus_mpi_regions[i].role,
                      OTF2_PARADIGM_MPI,
                      KCT_REGION_CALL | (is_poll (kubus_mpi_regions[i].name) ? KCT_REGION_POLL : 0));
  const char *base = strrchr (kubus_program_path, '/');
  err = err
        || add_region ("KUBUS_FLUSH", "", "KUBUS", "trace buffer written to disk",
                       OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM, 0)
        || add_region ("KUBUS_UNKNOWN_REGION", "", "KUBUS",
                       "user region of a rank whose names were lost in an abort",
                       OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM, 0)
        || add_region (base ? base + 1 : kubus_program_path, kubus_program_path, "", "",
                       OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM, 0);
  for (uint32_t i = 0; i < kubus_region_count () && !err; i++)
    {
      const char *name = kubus_region_name (KUBUS_R_USER_BASE + i);
      int         kind = kubus_region_kind (KUBUS_R_USER_BASE + i);
      if (kind == KUBUS_REGION_FRAME)
        {
          /* a function found on the stack: named after the run from its key */
          char display[512];
          kubus_frame_display_name (name, display, sizeof display);
          err = add_region (display, name, "", "", OTF2_REGION_ROLE_FUNCTION,
                            OTF2_PARADIGM_SAMPLING, 0);
          continue;
        }
      err = add_region (name, "", "", "", OTF2_REGION_ROLE_FUNCTION,
                        kind == KUBUS_REGION_MANUAL ? OTF2_PARADIGM_USER : OTF2_PARADIGM_COMPILER,
                        0);
    }
  for (int i = 0; i < kubus_comm_count () && !err; i++)
    {
      const KubusComm *c = kubus_comm_get (i);
      KctComm         *k = kct_comm_add (trace);
      if (k == NULL)
        return -1;
      k->key = c->key;
      k->parent_key = c->parent_key;
      k->local_id = (uint32_t)i;
      k->flags = c->remote_size > 0 ? KCT_COMM_INTER : 0;
      err = add_list (&k->members, c->members, c->size)
            || add_list (&k->members_b, c->remote_members, c->remote_size)
            || kct_list_add (&k->users, (uint32_t)kubus_world_rank);
    }
  for (int i = 0; i < kubus_topology_count () && !err; i++)
    {
      const KubusTopology *tp = kubus_topology_get (i);
      KctTopo             *k = kct_topo_add (trace);
      if (k == NULL || kct_set_string (&k->name, tp->name) != 0)
        return -1;
      k->comm_key = tp->comm_key;
      k->ndims = (uint32_t)(tp->ndims > 16 ? 16 : tp->ndims);
      for (uint32_t d = 0; d < k->ndims; d++)
        {
          k->dims[d] = (uint32_t)tp->dims[d];
          k->periods[d] = tp->periods[d] != 0;
        }
      if (tp->have_coords)
        {
          err = kct_list_add (&k->coord_rank, (uint32_t)tp->rank);
          for (uint32_t d = 0; d < k->ndims && !err; d++)
            err = kct_list_add (&k->coords, (uint32_t)tp->coords[d]);
        }
    }
  if (!err)
    {
      const char *host = kubus_hostnames ? kubus_hostnames + (size_t)kubus_world_rank * KUBUS_HOST_LEN
                                         : "localhost";
      KctHost    *h = kct_host_add (trace, host);
      err = h == NULL || kct_list_add (&h->ranks, (uint32_t)kubus_world_rank) != 0;
      /* KUBUS::CPUS, KUBUS::OTHER_CPU_NS, KUBUS::OTHER_WALL_NS as in the OTF2 definitions */
      if (!err)
        h->other_known = kubus_cpu_host (kubus_world_rank, &h->cpus, &h->other_cpu_ns,
                                         &h->other_wall_ns);
    }
  if (!err && kubus_cpu_sampled ())
    {
      /* the collector's metric: KUBUS_CPU_TIME, KUBUS_CPU_WAIT and KUBUS_CPU_ID
       * (collect-cputime.c) */
      trace->cpu_flags = KCT_CPU_SAMPLED | KCT_CPU_WAIT | KCT_CPU_WHERE;
    }
  trace->h.n_ranks = (uint32_t)kubus_world_size;
  trace->h.flags |= KCT_FILE_PARTIAL; /* until rank 0 has merged all */
  err = err || kct_set_string (&trace->h.program, kubus_program_path) != 0
        || kct_set_string (&trace->h.creator, "Kubus " KUBUS_VERSION) != 0;
  return err ? -1 : 0;
}

/* ---- the merge ------------------------------------------------------------------------------ */

#define TAG_KCT 0x4b43 /* "KC" */
#define CHUNK (1 << 30)

static int
send_trace (int to)
{
  uint8_t *buf = NULL;
  size_t   len = 0;
  if (failed || kct_encode (trace, &buf, &len) != 0)
    {
      give_up ("out of memory while merging");
      len = 0;
    }
  uint64_t n = len;
  PMPI_Send (&n, 1, MPI_UINT64_T, to, TAG_KCT, kubus_internal_comm);
  for (size_t off = 0; off < len; off += CHUNK)
    PMPI_Send (buf + off, (int)(len - off < CHUNK ? len - off : CHUNK), MPI_BYTE, to, TAG_KCT,
               kubus_internal_comm);
  free (buf);
  return 0;
}

static void
receive_and_merge (int from)
{
  uint64_t n = 0;
  PMPI_Recv (&n, 1, MPI_UINT64_T, from, TAG_KCT, kubus_internal_comm, MPI_STATUS_IGNORE);
  uint8_t *buf = n > 0 ? malloc ((size_t)n) : NULL;
  for (uint64_t off = 0; off < n; off += CHUNK)
    {
      int   count = (int)(n - off < CHUNK ? n - off : CHUNK);
      char *to = buf ? (char *)buf + off : malloc ((size_t)count); /* drained when out of memory */
      PMPI_Recv (to, count, MPI_BYTE, from, TAG_KCT, kubus_internal_comm, MPI_STATUS_IGNORE);
      if (buf == NULL)
        free (to);
    }
  if (n == 0)
    {
      give_up ("another rank could not record");
      return;
    }
  KctTrace *other = NULL;
  char      err[256];
  if (buf == NULL)
    give_up ("out of memory while merging");
  else if (kct_decode (buf, (size_t)n, &other, err, sizeof err) != 0)
    {
      kubus_incomplete ("compressed trace of rank %d unreadable: %s", from, err);
      give_up ("a rank's trace could not be read");
    }
  else if (!failed && kct_merge (trace, other) != 0)
    give_up ("out of memory while merging");
  kct_trace_free (other);
  free (buf);
}

/* Sum of the OTF2 archive's file sizes (written before this, by every rank). */
static uint64_t
otf2_size (const char *dir)
{
  uint64_t    total = 0;
  char        path[PATH_MAX + 64];
  struct stat st;
  static const char *files[] = { "traces.otf2", "traces.def" };
  for (int i = 0; i < 2; i++)
    {
      snprintf (path, sizeof path, "%s/%s", dir, files[i]);
      if (stat (path, &st) == 0)
        total += (uint64_t)st.st_size;
    }
  snprintf (path, sizeof path, "%s/traces", dir);
  DIR *d = opendir (path);
  if (d == NULL)
    return total;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      if (e->d_name[0] == '.')
        continue;
      char file[PATH_MAX + 512];
      snprintf (file, sizeof file, "%s/%s", path, e->d_name);
      if (stat (file, &st) == 0 && S_ISREG (st.st_mode))
        total += (uint64_t)st.st_size;
    }
  closedir (d);
  return total;
}

/* @buf to DIR/NAME through a temporary file and a rename: readers never see half a file. */
static int
write_atomic (const char *dir, const char *name, const uint8_t *buf, size_t len)
{
  char tmp[PATH_MAX + 64], path[PATH_MAX + 64];
  snprintf (tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name[0] == '.' ? name + 1 : name);
  snprintf (path, sizeof path, "%s/%s", dir, name);
  int fd = mkstemp (tmp);
  int ok = fd >= 0;
  for (size_t off = 0; ok && off < len;)
    {
      ssize_t w = write (fd, buf + off, len - off);
      if (w <= 0)
        ok = 0;
      else
        off += (size_t)w;
    }
  if (fd >= 0)
    {
      ok = ok && fchmod (fd, 0644) == 0;
      ok = close (fd) == 0 && ok;
    }
  ok = ok && rename (tmp, path) == 0;
  if (!ok && fd >= 0)
    unlink (tmp);
  return ok ? 0 : -1;
}

static int
write_file (const char *dir)
{
  uint8_t *buf;
  size_t   len;
  if (kct_finish (trace) != 0 || kct_encode (trace, &buf, &len) != 0)
    return -1;
  char path[PATH_MAX + 64];
  snprintf (path, sizeof path, "%s/traces.kct", dir);
  int rc = write_atomic (dir, "traces.kct", buf, len);
  free (buf);
  if (rc == 0)
    kubus_log ("compressed trace written to %s (%zu bytes, %u rank groups)", path, len,
               trace->n_groups);
  return rc;
}

/* After an abort no collective can run: the rank ends its recording alone (an MPI call still
 * open keeps its events so far), adds its own definitions — its region names and
 * communicators are its own, so nothing is lost to unification — and writes its part to
 * EXPDIR/.kubus-kct-RANK.  Times stay absolute (global start 0): only kubus-run, once every
 * rank has ended, knows the earliest one; it merges the parts into traces.kct
 * (kubus-run-kct.c).  The header's real-time start is that of this rank's first event. */
void
kubus_kct_save_alone (const char *expdir, int initiator)
{
  if (!wanted)
    return;
  kubus_kct_on = 0;
  if (failed || rec == NULL || trace == NULL)
    return;
  /* test hook: the other ranks behave as if mpirun killed them before they saved this */
  if (!initiator && getenv ("KUBUS_TEST_KCT_KILLED") != NULL)
    return;
  uint64_t f = kct_rank_first_time (rec);
  uint64_t now = kubus_now ();
  int64_t  offset = (int64_t)(kubus_clock_correct (f) - f);
  struct timespec rt;
  clock_gettime (CLOCK_REALTIME, &rt);
  uint64_t now_real = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
  uint64_t since = now > f ? now - f : 0;
  uint8_t *buf = NULL;
  size_t   len = 0;
  char     name[64];
  trace->h.realtime_start = now_real > since ? now_real - since : 0;
  /* the run's size, which kubus-run may not know (a hostfile without -n) */
  if (trace->h.n_ranks < (uint32_t)kubus_world_size)
    trace->h.n_ranks = (uint32_t)kubus_world_size;
  if (kct_rank_end (rec, offset, 0) != 0 || add_definitions () != 0
      || kct_encode (trace, &buf, &len) != 0)
    give_up ("out of memory after the abort");
  else
    {
      snprintf (name, sizeof name, ".kubus-kct-%d", kubus_world_rank);
      if (write_atomic (expdir, name, buf, len) != 0)
        give_up ("cannot write this rank's part after the abort");
      else
        kubus_log ("abort: compressed trace of this rank written to %s/%s (%zu bytes)", expdir,
                   name, len);
    }
  free (buf);
  kct_rank_free (rec);
  rec = NULL;
  kct_trace_free (trace);
  trace = NULL;
}

const char *kubus_expdir (void) KUBUS_INTERNAL;

/* MPI_Finalize, after the OTF2 archive (if any) is complete: collective over all ranks. */
void
kubus_kct_finish (void)
{
  if (!wanted)
    return;
  kubus_kct_on = 0;
  MPI_Comm comm = kubus_internal_comm;
  int      me = kubus_world_rank, n = kubus_world_size;
  uint64_t t_enter = kubus_now ();
  /* the OTF2 definitions were written since the last event (MPI_Finalize's Leave) */
  uint64_t t_last = rec != NULL ? kct_rank_last_time (rec) : t_enter;
  if (rec != NULL)
    kubus_log ("compressed trace: %llu events recorded in %zu bytes of memory",
               (unsigned long long)kct_rank_events (rec), kct_rank_memory (rec));

  /* the run's time base: the corrected clock OTF2 readers see (collect-clock.c), from the
   * first event of any rank */
  int64_t offset = 0;
  if (rec != NULL)
    {
      uint64_t f = kct_rank_first_time (rec);
      offset = (int64_t)(kubus_clock_correct (f) - f);
    }
  uint64_t first = rec != NULL && !failed ? (uint64_t)((int64_t)kct_rank_first_time (rec) + offset)
                                          : UINT64_MAX;
  uint64_t global_start = 0;
  PMPI_Allreduce (&first, &global_start, 1, MPI_UINT64_T, MPI_MIN, comm);
  if (!failed && (kct_rank_end (rec, offset, global_start) != 0 || add_definitions () != 0))
    give_up ("out of memory");
  /* test hook: this rank's compressed trace fails as an unreadable one would */
  const char *fail_rank = getenv ("KUBUS_TEST_KCT_FAIL_RANK");
  if (fail_rank != NULL && atoi (fail_rank) == me)
    give_up ("test hook KUBUS_TEST_KCT_FAIL_RANK");
  kct_rank_free (rec);
  rec = NULL;

  uint64_t t0 = kubus_now ();
  for (int step = 1; step < n; step *= 2)
    {
      if (me % (2 * step) == step)
        {
          send_trace (me - step);
          break;
        }
      if (me % (2 * step) == 0 && me + step < n)
        receive_and_merge (me + step);
    }
  if (me == 0)
    {
      uint64_t t1 = kubus_now ();
      struct timespec rt;
      clock_gettime (CLOCK_REALTIME, &rt);
      uint64_t now_real = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
      if (!failed)
        {
          uint64_t since = t1 > global_start ? t1 - global_start : 0;
          trace->h.realtime_start = now_real > since ? now_real - since : 0;
          trace->h.otf2_bytes = kubus_trace_otf2 ? otf2_size (kubus_expdir ()) : 0;
          /* the MPI library's eager limits, as the OTF2 archive's properties */
          char v[32];
          if ((kubus_mpit_limit (0, v) && kct_prop_set (trace, "KUBUS::EAGER_LIMIT_SAME_HOST", v) != 0)
              || (kubus_mpit_limit (1, v) && kct_prop_set (trace, "KUBUS::EAGER_LIMIT_BETWEEN_HOSTS", v) != 0))
            give_up ("out of memory");
          else if (write_file (kubus_expdir ()) != 0)
            give_up ("cannot write traces.kct");
        }
      kubus_log ("compressed trace: merge of %d ranks took %.3f ms (OTF2 definitions before it: "
                 "%.3f ms)",
                 n, (double)(t1 - t0) / 1e6,
                 kubus_trace_otf2 && t_enter > t_last ? (double)(t_enter - t_last) / 1e6 : 0.0);
    }
  kct_trace_free (trace);
  trace = NULL;
}
