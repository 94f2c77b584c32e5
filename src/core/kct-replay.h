/* kct-replay.h: reading a compressed trace without expanding it.
 *
 * A KctReplay walks one rank's sequence (its group's loops) and yields that rank's events
 * one at a time, in order, as OTF2 would have them: absolute peers, global communicator ids,
 * unique request ids and timestamps drawn from the delta-time histograms.  Memory is the
 * nesting depth of the loops plus the rank's open requests, whatever the run length.
 * kubus-trace expand writes these events to OTF2; the simulator can consume them instead of
 * an OTF2 reader (kct_replay_* for each of its ranks).
 *
 * Plain C like the encoding it reads (src/collect/kct-format.h), so the fuzz target runs it. */
#pragma once

#include "kct-format.h"

/* The communicators of a trace as OTF2 numbers them: entry e's instances get consecutive
 * global ids in entry order. */
typedef struct
{
  uint32_t entry, instance;
  uint32_t size, size_b; /* size_b > 0: an inter-communicator */
} KctCommInfo;

typedef struct KctComms KctComms;

KctComms *kct_comms_new (const KctTrace *t, char *err, size_t errlen);
void      kct_comms_free (KctComms *c);
uint32_t  kct_comms_count (const KctComms *c);
const KctCommInfo *kct_comms_info (const KctComms *c, uint32_t gid);
/* world rank of member i of group A (b = 0) or B (b = 1) of communicator gid */
uint32_t kct_comms_member (const KctComms *c, uint32_t gid, int b, uint32_t i);
/* global id of the instance of entry @entry that holds @world_rank, KCT_NONE if none */
uint32_t kct_comms_find (const KctComms *c, uint32_t entry, uint32_t world_rank);

/* Not a raw event: a CPU sample of the collector (format version 4), yielded only after
 * kct_replay_cpu, before the event it stands before and with that event's time. */
#define KCT_EV_CPU 64

typedef struct
{
  uint8_t  type;  /* KCT_RAW_*, KCT_EV_CPU */
  uint8_t  op;    /* COLL_END, NBC_COMPLETE: OTF2_CollectiveOp */
  uint64_t time;  /* ticks, in the trace's time base (global_start is the earliest) */
  uint32_t region; /* ENTER/LEAVE: region id */
  uint32_t comm;   /* global communicator id */
  uint32_t peer;   /* messages: rank in comm (the remote group's, across an inter-communicator);
                      COLL_END, NBC_COMPLETE: root, UINT32_MAX when undefined */
  uint32_t peer_world; /* messages: the peer's world rank */
  uint32_t tag;
  uint64_t bytes;    /* messages: bytes; COLL_END, NBC_COMPLETE: sent */
  uint64_t received; /* COLL_END, NBC_COMPLETE */
  uint64_t request;  /* request events: an id unique within the rank, from 1 */
  int64_t  status;   /* PROGRAM_END */
  uint64_t cpu, wait; /* KCT_EV_CPU: KUBUS_CPU_TIME, KUBUS_CPU_WAIT (UINT64_MAX: unknown), ns */
  uint64_t where;     /* KCT_EV_CPU: KUBUS_CPU_ID, the CPU it ran on (UINT64_MAX: unknown) */
} KctEvent;

typedef struct KctReplay KctReplay;

KctReplay *kct_replay_new (const KctTrace *t, const KctComms *comms, uint32_t rank);
/* Before the first kct_replay_next: yield the rank's CPU samples too (KCT_EV_CPU; counted by
 * kct_replay_count like the other events, as OTF2 counts its Metric events). */
void       kct_replay_cpu (KctReplay *it);
/* 1: *ev holds the next event; 0: the end; -1: the trace is inconsistent (kct_replay_error) */
int         kct_replay_next (KctReplay *it, KctEvent *ev);
const char *kct_replay_error (const KctReplay *it);
uint64_t    kct_replay_count (const KctReplay *it); /* events yielded so far */
void        kct_replay_free (KctReplay *it);
