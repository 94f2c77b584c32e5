/* delay-propagation.c — after the backward replay: indirect and propagating wait states.
 *
 * Indirect: the part of a wait that the late partner's own earlier waits explain (the backward
 * replay put it on the partner's send, for Late Sender, or receive request, for Late Receiver);
 * one personalised exchange takes it to the rank that waited, where it is charged to the waiting
 * call. Propagating: the part of a wait that made its rank late for a later synchronization and
 * so caused a wait elsewhere; it is charged where it happened (Late Sender receives, Late
 * Receiver send completions; scout charges no collective here). */
#include "delay-private.h"
#include "replay-msg.h"

#include <string.h>

typedef struct
{
  guint32 id;      /* the send index on the sender */
  guint32 pad;
  double  pw;
} PwMsg;

gboolean
delay_propagation_run (Transport  *t,
                       RankData  **rds,
                       GError    **error)
{
  GByteArray ***out = replay_buffers_new (t);
  GByteArray ***in = replay_buffers_new (t);
  gboolean ok;

  for (int i = 0; i < t->n_local; i++)
    {
      RankData *rd = rds[i];
      Causes *c = rd->causes;
      for (guint k = 0; k < c->sps->len; k++)
        {
          const SyncPoint *s = &g_array_index (c->sps, SyncPoint, k);
          guint32 cn = c->tl->marks[s->mark].cnode;
          PwMsg m = { 0 };

          /* propagating: local */
          if (c->pw_prop[k] > 0)
            {
              if (s->kind == SP_LS_RECV)
                causes_row (rd, cn)[M_WAIT_PROPAGATING_LS - M_FIRST_CAUSE] += c->pw_prop[k];
              else if (s->kind == SP_LR_SEND)
                causes_row (rd, cn)[M_WAIT_PROPAGATING_LR - M_FIRST_CAUSE] += c->pw_prop[k];
            }
          /* indirect: to the rank that waited */
          if (!(c->pw_ind[k] > 0) || s->peer < 0 || s->peer >= t->n_ranks)
            continue;
          if (s->kind == SP_LS_SEND)
            m.id = s->rec;
          else if (s->kind == SP_LR_RECV)
            m.id = g_array_index (rd->recv_send, guint32, s->rec);
          else
            continue;
          m.pad = s->kind;
          m.pw = c->pw_ind[k];
          if (!out[i][s->peer])
            out[i][s->peer] = g_byte_array_new ();
          g_byte_array_append (out[i][s->peer], (guint8 *) &m, sizeof m);
        }
    }
  ok = t->alltoallv (t, out, in, error);
  replay_buffers_free (t, out);
  if (!ok)
    {
      replay_buffers_free (t, in);
      return FALSE;
    }
  for (int i = 0; i < t->n_local; i++)
    {
      RankData *rd = rds[i];
      Causes *c = rd->causes;
      /* (source, send index) -> indirect wait, one table per kind */
      g_autoptr (GHashTable) ls = g_hash_table_new_full (key64_hash, g_direct_equal, NULL, g_free);
      g_autoptr (GHashTable) lr = g_hash_table_new_full (key64_hash, g_direct_equal, NULL, g_free);
      for (int src = 0; src < t->n_ranks; src++)
        {
          const PwMsg *m = (const PwMsg *) in[i][src]->data;
          guint nm = in[i][src]->len / sizeof (PwMsg);
          for (guint q = 0; q < nm; q++)
            {
              GHashTable *h = m[q].pad == SP_LS_SEND ? ls : lr;
              gpointer key = GSIZE_TO_POINTER (((gsize) src << 32) | m[q].id);
              double *v = g_hash_table_lookup (h, key);
              if (!v)
                {
                  v = g_new0 (double, 1);
                  g_hash_table_insert (h, key, v);
                }
              *v += m[q].pw;
            }
        }
      for (guint k = 0; k < c->sps->len; k++)
        {
          const SyncPoint *s = &g_array_index (c->sps, SyncPoint, k);
          guint32 cn, id;
          double *v;
          if (s->kind == SP_LS_RECV)
            id = g_array_index (rd->recv_send, guint32, s->rec);
          else if (s->kind == SP_LR_SEND)
            id = s->rec;
          else
            continue;
          v = g_hash_table_lookup (s->kind == SP_LS_RECV ? ls : lr,
                                   GSIZE_TO_POINTER (((gsize) s->peer << 32) | id));
          if (!v)
            continue;
          cn = c->tl->marks[s->mark].cnode;
          causes_row (rd, cn)[(s->kind == SP_LS_RECV ? M_WAIT_INDIRECT_LS : M_WAIT_INDIRECT_LR)
                              - M_FIRST_CAUSE] += *v;
        }
    }
  replay_buffers_free (t, in);
  return TRUE;
}
