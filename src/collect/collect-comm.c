/* collect-comm.c: communicators.
 *
 * Local ids are dense per rank (0 = MPI_COMM_WORLD, 1 = MPI_COMM_SELF).  A
 * communicator is identified across ranks by a key computed without extra
 * communication: every member of the parent counts the communicators made
 * from it in the same order, so (parent key, that count, world rank of the
 * new communicator's rank 0) is the same on every member.  Unification at
 * finalize maps keys to global ids.
 */
#include "collect.h"
#include "collect-profile.h"

#include <stdlib.h>
#include <string.h>

/* Both tables grow: a program may create (and free) any number of communicators over its
 * run, and every one keeps its definition until finalize. A fixed table used to map every
 * communicator past its end to MPI_COMM_WORLD, so their messages and collectives were recorded
 * on the wrong communicator with the wrong peers. */
static KubusComm *comms;
static int        n_comms, cap_comms;
/* live handle -> local id + 1 (0 = empty), linear probing, backward-shift delete */
static MPI_Comm *slot_comm;
static uint32_t *slot_id;
static uint32_t  n_slots, n_live; /* n_slots: power of two or 0 */
static uint32_t  lazy_counter;
static int       out_of_memory_reported;

static inline uint32_t
slot_of (MPI_Comm c)
{
  uint64_t h = (uint64_t)(uintptr_t)c * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 40) & (n_slots - 1);
}

static void
report_out_of_memory (void)
{
  if (!out_of_memory_reported)
    kubus_log ("out of memory for communicator definitions: some communicators are not recorded");
  out_of_memory_reported = 1;
}

static uint64_t
mix (uint64_t a, uint64_t b, uint64_t c)
{
  uint64_t h = 0xcbf29ce484222325ull;
  uint64_t v[3] = { a, b, c };
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 8; k++)
      {
        h ^= (v[i] >> (8 * k)) & 0xff;
        h *= 0x100000001b3ull;
      }
  return h < 16 ? h + 16 : h; /* small keys are reserved */
}

static void
hash_put (MPI_Comm c, uint32_t id)
{
  uint32_t s = slot_of (c);
  while (slot_id[s] != 0 && slot_comm[s] != c)
    s = (s + 1) & (n_slots - 1);
  if (slot_id[s] == 0)
    n_live++;
  slot_comm[s] = c;
  slot_id[s] = id + 1;
}

/* Keeps the table at most half full; returns 0 when there is room for one more handle. */
static int
hash_reserve (void)
{
  if ((n_live + 1) * 2 <= n_slots)
    return 0;
  uint32_t  old_n = n_slots;
  MPI_Comm *old_comm = slot_comm;
  uint32_t *old_id = slot_id;
  uint32_t  n = old_n ? old_n * 2 : 1024;
  MPI_Comm *nc = malloc (sizeof (MPI_Comm) * n);
  uint32_t *ni = calloc (n, sizeof (uint32_t));
  if (nc == NULL || ni == NULL || n < old_n)
    {
      free (nc);
      free (ni);
      return -1;
    }
  slot_comm = nc;
  slot_id = ni;
  n_slots = n;
  n_live = 0;
  for (uint32_t i = 0; i < old_n; i++)
    if (old_id[i] != 0)
      hash_put (old_comm[i], old_id[i] - 1);
  free (old_comm);
  free (old_id);
  return 0;
}

static void
hash_remove (MPI_Comm c)
{
  if (n_slots == 0)
    return;
  uint32_t s = slot_of (c);
  while (slot_id[s] != 0 && slot_comm[s] != c)
    s = (s + 1) & (n_slots - 1);
  if (slot_id[s] == 0)
    return;
  slot_id[s] = 0;
  n_live--;
  uint32_t j = s;
  for (;;)
    {
      j = (j + 1) & (n_slots - 1);
      if (slot_id[j] == 0)
        return;
      uint32_t home = slot_of (slot_comm[j]);
      /* move j back into the hole at s unless its home lies in (s, j] */
      int keep = (s <= j) ? (s < home && home <= j) : (s < home || home <= j);
      if (!keep)
        {
          slot_comm[s] = slot_comm[j];
          slot_id[s] = slot_id[j];
          slot_id[j] = 0;
          s = j;
        }
    }
}

/* World ranks of the members of @g (@size of them), malloc'd; NULL when out of memory. */
static int *
group_world_ranks (MPI_Group g, int size)
{
  int *members = malloc (sizeof (int) * (size_t)(size > 0 ? size : 1));
  int *idx = malloc (sizeof (int) * (size_t)(size > 0 ? size : 1));
  if (members == NULL || idx == NULL)
    {
      free (members);
      free (idx);
      return NULL;
    }
  MPI_Group wg;
  PMPI_Comm_group (MPI_COMM_WORLD, &wg);
  for (int i = 0; i < size; i++)
    idx[i] = i;
  if (size > 0)
    PMPI_Group_translate_ranks (g, size, idx, wg, members);
  PMPI_Group_free (&wg);
  free (idx);
  return members;
}

static int *
copy_ranks (const int *from, int n)
{
  int *to = malloc (sizeof (int) * (size_t)(n > 0 ? n : 1));
  if (to != NULL && n > 0)
    memcpy (to, from, sizeof (int) * (size_t)n);
  return to;
}

/* Registers @c.  @like >= 0: a communicator with the same groups (MPI_Comm_idup, whose new
 * handle must not be asked anything before its request completes); its groups are copied. */
static int
add_comm_like (MPI_Comm c, uint64_t key, uint64_t parent_key, int like)
{
  if (n_comms == cap_comms)
    {
      int        cap = cap_comms ? cap_comms * 2 : 64;
      KubusComm *n = cap > cap_comms ? realloc (comms, sizeof (KubusComm) * (size_t)cap) : NULL;
      if (n == NULL)
        {
          report_out_of_memory ();
          return -1;
        }
      comms = n;
      cap_comms = cap;
    }
  if (hash_reserve () != 0)
    {
      report_out_of_memory ();
      return -1;
    }
  int  size = 0, rank = 0, rsize = 0;
  int *members = NULL, *remote = NULL;
  if (like >= 0)
    {
      size = comms[like].size;
      rank = comms[like].rank;
      rsize = comms[like].remote_size;
      members = copy_ranks (comms[like].members, size);
      remote = rsize > 0 ? copy_ranks (comms[like].remote_members, rsize) : NULL;
    }
  else
    {
      int inter = 0;
      PMPI_Comm_test_inter (c, &inter);
      PMPI_Comm_size (c, &size);
      PMPI_Comm_rank (c, &rank);
      MPI_Group g;
      PMPI_Comm_group (c, &g); /* an inter-communicator: the local group */
      members = group_world_ranks (g, size);
      PMPI_Group_free (&g);
      if (inter)
        {
          PMPI_Comm_remote_size (c, &rsize);
          PMPI_Comm_remote_group (c, &g);
          remote = group_world_ranks (g, rsize);
          PMPI_Group_free (&g);
        }
    }
  if (members == NULL || (rsize > 0 && remote == NULL))
    {
      free (members);
      free (remote);
      report_out_of_memory ();
      return -1;
    }
  /* Processes outside this MPI_COMM_WORLD (started by MPI_Comm_spawn, joined by
   * MPI_Comm_connect/accept) have no world rank to name in the definitions, which are then
   * refused: said once, as the reason the trace is lost (docs/decisions/2026-11-29-spawned-processes.md) */
  static int outside_said;
  for (int i = 0; i < size + rsize && like < 0 && !outside_said && kubus_trace_wanted (); i++)
    if ((i < size ? members[i] : remote[i - size]) == MPI_UNDEFINED)
      {
        outside_said = 1;
        kubus_incomplete ("a communicator holds processes outside the measured MPI_COMM_WORLD (started "
                          "by MPI_Comm_spawn or joined by MPI_Comm_connect/accept): calls on it cannot "
                          "be traced, and the trace will be refused");
      }
  KubusComm *e = &comms[n_comms];
  e->handle = c;
  e->key = key;
  e->parent_key = parent_key;
  e->children = 0;
  e->size = size;
  e->rank = rank;
  e->members = members;
  e->remote_size = rsize;
  e->remote_members = remote;
  hash_put (c, (uint32_t)n_comms);
  return n_comms++;
}

static int
add_comm (MPI_Comm c, uint64_t key, uint64_t parent_key)
{
  return add_comm_like (c, key, parent_key, -1);
}

/* World rank of rank 0 of @c; for an inter-communicator the smaller of the two groups' rank 0,
 * the same seen from either group. */
static int
comm_leader (MPI_Comm c)
{
  int       leader = 0, zero = 0, inter = 0;
  MPI_Group g, wg;
  PMPI_Comm_group (MPI_COMM_WORLD, &wg);
  PMPI_Comm_group (c, &g);
  PMPI_Group_translate_ranks (g, 1, &zero, wg, &leader);
  PMPI_Group_free (&g);
  PMPI_Comm_test_inter (c, &inter);
  if (inter)
    {
      int remote = 0;
      PMPI_Comm_remote_group (c, &g);
      PMPI_Group_translate_ranks (g, 1, &zero, wg, &remote);
      PMPI_Group_free (&g);
      if (remote < leader)
        leader = remote;
    }
  PMPI_Group_free (&wg);
  return leader;
}

void
kubus_comm_init (void)
{
  add_comm (MPI_COMM_WORLD, 1, 0);
  add_comm (MPI_COMM_SELF, mix (2, (uint64_t)kubus_world_rank, 0), 0);
}

/* A communicator we did not see being created (MPI_Comm_spawn, MPI_Comm_accept/connect, MPI
 * functions we do not wrap): registered on first use, known to this rank
 * only. */
static uint32_t
lazy_register (MPI_Comm comm)
{
  uint64_t key = mix (3, (uint64_t)kubus_world_rank, lazy_counter++);
  int      id = add_comm (comm, key, 0);
  return id < 0 ? KUBUS_COMM_WORLD_ID : (uint32_t)id;
}

static inline uint32_t
lookup (MPI_Comm comm)
{
  if (n_slots == 0)
    return UINT32_MAX;
  uint32_t s = slot_of (comm);
  for (;;)
    {
      uint32_t id = slot_id[s];
      if (id == 0)
        return UINT32_MAX;
      if (slot_comm[s] == comm)
        return id - 1;
      s = (s + 1) & (n_slots - 1);
    }
}

uint32_t
kubus_comm_id (MPI_Comm comm)
{
  if (comm == MPI_COMM_WORLD || comm == MPI_COMM_NULL)
    return KUBUS_COMM_WORLD_ID; /* NULL: an erroneous call MPI will reject */
  uint32_t id = lookup (comm);
  return id != UINT32_MAX ? id : lazy_register (comm);
}

uint32_t
kubus_comm_info (MPI_Comm comm, int *size, int *rank)
{
  uint32_t id = kubus_comm_id (comm);
  *size = comms[id].size;
  *rank = comms[id].rank;
  return id;
}

void
kubus_comm_created (MPI_Comm parent, MPI_Comm comm, const char *cart)
{
  if (!kubus_recording)
    return;
  uint32_t pid = kubus_comm_id (parent);
  uint64_t pkey = comms[pid].key; /* add_comm may move the table */
  uint32_t seq = comms[pid].children++;
  if (comm == MPI_COMM_NULL)
    return;
  /* Every member of the parent (of both groups, for an inter-communicator parent such as
   * MPI_Intercomm_merge's) counts this creation; the leader tells apart the results of one
   * MPI_Comm_split. */
  int      leader = comm_leader (comm);
  uint64_t key = mix (pkey, seq, (uint64_t)(uint32_t)leader);
  if (add_comm (comm, key, pkey) < 0)
    return;
  if (cart != NULL)
    kubus_topology_record_cart (comm, key, cart);
}

/* MPI_Comm_create_group: only the members of the group call it, so the parent's counter
 * cannot be used.  The key is made of the parent, the members (world ranks) and how many
 * communicators with exactly these members were made from this parent before: every member
 * took part in each of those, so all agree. */
#define GROUP_SEQ_SLOTS 256
static uint64_t group_seq_key[GROUP_SEQ_SLOTS];
static uint32_t group_seq_count[GROUP_SEQ_SLOTS];
static int      n_group_seq;

/* How many times @h was seen before (0 the first time). */
static uint32_t
group_seq (uint64_t h)
{
  int k;
  for (k = 0; k < n_group_seq && group_seq_key[k] != h; k++)
    ;
  if (k < n_group_seq)
    return ++group_seq_count[k];
  if (n_group_seq < GROUP_SEQ_SLOTS)
    {
      group_seq_key[n_group_seq] = h;
      group_seq_count[n_group_seq++] = 0;
    }
  else
    kubus_log ("too many MPI_Comm_create_group member sets: communicators may be confused");
  return 0;
}

void
kubus_comm_created_group (MPI_Comm parent, MPI_Comm comm)
{
  if (!kubus_recording || comm == MPI_COMM_NULL)
    return;
  uint64_t pkey = comms[kubus_comm_id (parent)].key;
  int      id = add_comm (comm, 0, pkey);
  if (id < 0)
    return;
  KubusComm *e = &comms[id];
  uint64_t   h = mix (pkey, 4, (uint64_t)e->size);
  for (int i = 0; i < e->size; i++)
    h = mix (h, (uint64_t)(uint32_t)e->members[i], (uint64_t)i);
  e->key = mix (h, 5, group_seq (h));
}

/* MPI_Intercomm_create: the members of both groups call it, each with its own local
 * communicator, so no parent counter is common to all.  As for MPI_Comm_create_group, the key
 * is made of the two member lists (world ranks; group A is the one holding the smallest world
 * rank, the same from either side) and how many inter-communicators between exactly these
 * groups were made before: all members took part in each. */
void
kubus_comm_created_inter (MPI_Comm comm)
{
  if (!kubus_recording || comm == MPI_COMM_NULL)
    return;
  int id = add_comm (comm, 0, 0);
  if (id < 0)
    return;
  KubusComm *e = &comms[id];
  int        min_local = INT32_MAX, min_remote = INT32_MAX;
  for (int i = 0; i < e->size; i++)
    if (e->members[i] < min_local)
      min_local = e->members[i];
  for (int i = 0; i < e->remote_size; i++)
    if (e->remote_members[i] < min_remote)
      min_remote = e->remote_members[i];
  int        local_is_a = min_local < min_remote;
  const int *a = local_is_a ? e->members : e->remote_members;
  const int *b = local_is_a ? e->remote_members : e->members;
  int        na = local_is_a ? e->size : e->remote_size;
  int        nb = local_is_a ? e->remote_size : e->size;
  uint64_t   h = mix (6, (uint64_t)na, (uint64_t)nb);
  for (int i = 0; i < na; i++)
    h = mix (h, (uint64_t)(uint32_t)a[i], (uint64_t)i);
  for (int i = 0; i < nb; i++)
    h = mix (h, (uint64_t)(uint32_t)b[i], (uint64_t)i + 0x100000000ull);
  e->key = mix (h, 7, group_seq (h));
}

void
kubus_comm_created_dup (MPI_Comm parent, MPI_Comm comm)
{
  if (!kubus_recording)
    return;
  uint32_t pid = kubus_comm_id (parent);
  uint64_t pkey = comms[pid].key;
  uint32_t seq = comms[pid].children++;
  if (comm == MPI_COMM_NULL)
    return;
  /* the leader as kubus_comm_created computes it, from the parent's groups */
  int leader = comms[pid].members[0];
  if (comms[pid].remote_size > 0 && comms[pid].remote_members[0] < leader)
    leader = comms[pid].remote_members[0];
  add_comm_like (comm, mix (pkey, seq, (uint64_t)(uint32_t)leader), pkey, (int)pid);
}

void
kubus_comm_freed (MPI_Comm comm)
{
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
    return;
  uint32_t id = lookup (comm);
  if (id == UINT32_MAX)
    return;
  comms[id].handle = MPI_COMM_NULL;
  hash_remove (comm);
}

int
kubus_comm_count (void)
{
  return n_comms;
}

const KubusComm *
kubus_comm_get (int i)
{
  return &comms[i];
}
