/* replay-msg.h — a message-driven replay over the transport: every local rank runs a step
 * function over its own events (in any order it likes, e.g. backwards); a step that needs a
 * message another rank has not sent yet stops there, and runs again when the message is in.
 *
 * Messages are addressed by (source rank, key): the receiver asks for exactly the message it
 * needs, whatever order they arrive in, so the results do not depend on the transport or on the
 * scheduling. In one process (--serial, transport-local.c) the ranks take turns; over MPI each
 * process runs its rank and the messages travel as MPI point-to-point messages. A replay in
 * which every rank waits for a message nobody will send (a trace whose recorded messages
 * depend on each other in a cycle, which no real run can produce) stops and says so instead of
 * hanging: in one process when no rank can run, over MPI by a termination wave (two rounds of
 * a non-blocking sum over every process with the same message counts and nobody running). */
#pragma once

#include "analyze-private.h"

/* A key: 8 bits of kind, 56 bits of identifier. */
#define MSG_KEY(kind, id) (((guint64) (kind) << 56) | ((guint64) (id) & G_GUINT64_CONSTANT (0x00ffffffffffffff)))

typedef struct _MsgReplay MsgReplay;

/* Runs local rank @local as far as it can. Returns TRUE when the rank has nothing left to do,
 * FALSE when it stopped at a message that is not there yet (msg_replay_peek or _take returned
 * NULL just before). */
typedef gboolean (*MsgStep) (MsgReplay *mr, int local, gpointer user);

/* Collective over the transport. */
MsgReplay *msg_replay_new (Transport *t);
void       msg_replay_free (MsgReplay *mr);
/* Sends @len bytes from local rank @from_local to world rank @dst under @key (copied). */
void       msg_replay_send (MsgReplay *mr, int from_local, int dst, guint64 key, const void *data, gsize len);
/* The message from @src under @key for local rank @local (the replay keeps it: valid until the
 * next _take of it), or NULL: not arrived yet, and the rank waits for it. */
GBytes    *msg_replay_peek (MsgReplay *mr, int local, int src, guint64 key);
/* Like _peek, but the message is the caller's (unref it). */
GBytes    *msg_replay_take (MsgReplay *mr, int local, int src, guint64 key);
/* Runs every local rank to its end. Collective. FALSE with @error when an exchange failed;
 * TRUE with *@stuck set when the ranks wait for each other in a cycle (same on every process). */
gboolean   msg_replay_run (MsgReplay *mr, MsgStep step, gpointer user, gboolean *stuck, GError **error);
guint64    msg_replay_count (MsgReplay *mr);

/* Buffers for the transport's personalised exchange: [local rank][world rank]. */
GByteArray ***replay_buffers_new (Transport *t);
void          replay_buffers_free (Transport *t, GByteArray ***b);
