/* delay-timeline.c — one rank's exclusive time between its communication events, recorded by the
 * trace reader (trace-reader.c) when the root-cause or critical-path pass will run.
 *
 * The time between two consecutive enter/leave events belongs to the innermost open call path
 * (its exclusive time). A mark is set at every event that may become a synchronization point
 * (sends, receives, their requests and completions, collective ends, the leave of MPI_Init and
 * MPI_Finalize) and closes a segment: the time flushed since the previous mark, per call path.
 * The time between two synchronization points is then the sum of the segments between their
 * marks, exactly as Scalasca's time-map cache saves its map at each synchronization point. */
#include "delay-private.h"

#include <string.h>

DelayTimeline *
delay_timeline_new (guint32 reserve)
{
  DelayTimeline *tl = g_new0 (DelayTimeline, 1);

  /* untouched reserve costs address space, not memory */
  tl->cap_marks = MAX (reserve, 64);
  tl->marks = g_new (DelayMark, tl->cap_marks);
  tl->cap_seg = MAX (reserve, 64);
  tl->seg = g_new (DelaySeg, tl->cap_seg);
  tl->cap_pending = 16;
  tl->pending = g_new (DelaySeg, tl->cap_pending);
  tl->send_mark = g_array_sized_new (FALSE, FALSE, sizeof (guint32), reserve);
  tl->send_cmark = g_array_sized_new (FALSE, FALSE, sizeof (guint32), reserve);
  tl->recv_mark = g_array_sized_new (FALSE, FALSE, sizeof (guint32), reserve);
  tl->recv_qmark = g_array_sized_new (FALSE, FALSE, sizeof (guint32), reserve);
  tl->coll_mark = g_array_new (FALSE, FALSE, sizeof (guint32));
  tl->coll_begin = g_array_new (FALSE, FALSE, sizeof (Tick));
  tl->nbc_smark = g_array_new (FALSE, FALSE, sizeof (guint32));
  tl->nbc_cmark = g_array_new (FALSE, FALSE, sizeof (guint32));
  tl->req_mark = g_hash_table_new (key64_hash, g_direct_equal);
  tl->last = TL_UNSET;
  tl->begin_time = TL_UNSET;
  tl->init_mark = NO_INDEX;
  tl->finalize_mark = NO_INDEX;
  return tl;
}

void
delay_timeline_free (DelayTimeline *tl)
{
  if (!tl)
    return;
  g_free (tl->marks);
  g_free (tl->seg);
  g_free (tl->pending);
  g_free (tl->pend_idx);
  g_array_unref (tl->send_mark);
  g_array_unref (tl->send_cmark);
  g_array_unref (tl->recv_mark);
  g_array_unref (tl->recv_qmark);
  g_array_unref (tl->coll_mark);
  g_array_unref (tl->coll_begin);
  g_array_unref (tl->nbc_smark);
  g_array_unref (tl->nbc_cmark);
  g_hash_table_unref (tl->req_mark);
  g_free (tl);
}

gsize
delay_timeline_bytes (const DelayTimeline *tl)
{
  return tl->n_marks * sizeof (DelayMark) + tl->n_seg * sizeof (DelaySeg)
         + (tl->send_mark->len * 2 + tl->recv_mark->len * 2 + tl->coll_mark->len
            + tl->nbc_smark->len * 2) * sizeof (guint32)
         + tl->coll_begin->len * sizeof (Tick);
}

void
delay_timeline_flush (DelayTimeline *tl,
                      guint32        cnode,
                      Tick           t)
{
  if (cnode != NO_INDEX && tl->last != TL_UNSET)
    {
      guint32 *idx;
      if (cnode >= tl->cap_pend_idx)
        {
          guint32 cap = MAX (cnode + 1, tl->cap_pend_idx * 2);
          tl->pend_idx = g_renew (guint32, tl->pend_idx, cap);
          memset (tl->pend_idx + tl->cap_pend_idx, 0, sizeof (guint32) * (cap - tl->cap_pend_idx));
          tl->cap_pend_idx = cap;
        }
      idx = &tl->pend_idx[cnode];
      if (*idx)
        tl->pending[*idx - 1].t += t - tl->last;
      else
        {
          if (tl->n_pending == tl->cap_pending)
            {
              tl->cap_pending *= 2;
              tl->pending = g_renew (DelaySeg, tl->pending, tl->cap_pending);
            }
          tl->pending[tl->n_pending].cnode = cnode;
          tl->pending[tl->n_pending].pad = 0;
          tl->pending[tl->n_pending].t = t - tl->last;
          *idx = ++tl->n_pending;
        }
    }
  tl->last = t;
}

/* The pending time becomes the segment that ends here. */
static void
close_segment (DelayTimeline *tl)
{
  if (tl->n_seg + tl->n_pending > tl->cap_seg)
    {
      tl->cap_seg = MAX (tl->cap_seg * 2, tl->n_seg + tl->n_pending);
      tl->seg = g_renew (DelaySeg, tl->seg, tl->cap_seg);
    }
  for (guint32 k = 0; k < tl->n_pending; k++)
    {
      const DelaySeg *s = &tl->pending[k];
      tl->pend_idx[s->cnode] = 0;
      if (s->t != 0)
        tl->seg[tl->n_seg++] = *s;
    }
  tl->n_pending = 0;
}

guint32
delay_timeline_mark (DelayTimeline *tl,
                     guint32        cnode,
                     Tick           enter)
{
  DelayMark *m;

  close_segment (tl);
  if (tl->n_marks == tl->cap_marks)
    {
      tl->cap_marks *= 2;
      tl->marks = g_renew (DelayMark, tl->marks, tl->cap_marks);
    }
  m = &tl->marks[tl->n_marks];
  m->cnode = cnode;
  m->seg_end = tl->n_seg;
  m->enter = enter;
  m->leave = TL_UNSET;
  return tl->n_marks++;
}

void
delay_timeline_leave (DelayTimeline *tl,
                      guint32        mark0,
                      Tick           leave)
{
  for (guint32 k = tl->n_marks; k > mark0; k--)
    if (tl->marks[k - 1].leave == TL_UNSET)
      tl->marks[k - 1].leave = leave;
}

void
delay_timeline_finish (DelayTimeline *tl)
{
  close_segment (tl);
  tl->tail_end = tl->n_seg;
  /* calls still open at the end (an aborted run) end where they started */
  for (guint k = 0; k < tl->n_marks; k++)
    if (tl->marks[k].leave == TL_UNSET)
      tl->marks[k].leave = tl->marks[k].enter;
  g_hash_table_remove_all (tl->req_mark);
}
