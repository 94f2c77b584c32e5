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
delay_timeline_new (void)
{
  DelayTimeline *tl = g_new0 (DelayTimeline, 1);

  tl->marks = g_array_new (FALSE, FALSE, sizeof (DelayMark));
  tl->seg = g_array_new (FALSE, FALSE, sizeof (DelaySeg));
  tl->pending = g_array_new (FALSE, FALSE, sizeof (DelaySeg));
  tl->pend_idx = g_array_new (FALSE, TRUE, sizeof (guint32));
  tl->send_mark = g_array_new (FALSE, FALSE, sizeof (guint32));
  tl->send_cmark = g_array_new (FALSE, FALSE, sizeof (guint32));
  tl->recv_mark = g_array_new (FALSE, FALSE, sizeof (guint32));
  tl->recv_qmark = g_array_new (FALSE, FALSE, sizeof (guint32));
  tl->coll_mark = g_array_new (FALSE, FALSE, sizeof (guint32));
  tl->coll_begin = g_array_new (FALSE, FALSE, sizeof (Tick));
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
  g_array_unref (tl->marks);
  g_array_unref (tl->seg);
  g_array_unref (tl->pending);
  g_array_unref (tl->pend_idx);
  g_array_unref (tl->send_mark);
  g_array_unref (tl->send_cmark);
  g_array_unref (tl->recv_mark);
  g_array_unref (tl->recv_qmark);
  g_array_unref (tl->coll_mark);
  g_array_unref (tl->coll_begin);
  g_hash_table_unref (tl->req_mark);
  g_free (tl);
}

gsize
delay_timeline_bytes (const DelayTimeline *tl)
{
  return tl->marks->len * sizeof (DelayMark) + tl->seg->len * sizeof (DelaySeg)
         + (tl->send_mark->len * 2 + tl->recv_mark->len * 2 + tl->coll_mark->len) * sizeof (guint32)
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
      if (cnode >= tl->pend_idx->len)
        g_array_set_size (tl->pend_idx, cnode + 64);
      idx = &g_array_index (tl->pend_idx, guint32, cnode);
      if (*idx)
        g_array_index (tl->pending, DelaySeg, *idx - 1).t += t - tl->last;
      else
        {
          DelaySeg s = { cnode, 0, t - tl->last };
          g_array_append_val (tl->pending, s);
          *idx = tl->pending->len;
        }
    }
  tl->last = t;
}

/* The pending time becomes the segment that ends here. */
static void
close_segment (DelayTimeline *tl)
{
  for (guint k = 0; k < tl->pending->len; k++)
    {
      DelaySeg *s = &g_array_index (tl->pending, DelaySeg, k);
      g_array_index (tl->pend_idx, guint32, s->cnode) = 0;
      if (s->t != 0)
        g_array_append_val (tl->seg, *s);
    }
  g_array_set_size (tl->pending, 0);
}

guint32
delay_timeline_mark (DelayTimeline *tl,
                     guint32        cnode,
                     Tick           enter)
{
  DelayMark m;

  close_segment (tl);
  m.cnode = cnode;
  m.seg_end = tl->seg->len;
  m.enter = enter;
  m.leave = TL_UNSET;
  g_array_append_val (tl->marks, m);
  return tl->marks->len - 1;
}

void
delay_timeline_leave (DelayTimeline *tl,
                      guint32        mark0,
                      Tick           leave)
{
  DelayMark *m = (DelayMark *) tl->marks->data;

  for (guint32 k = tl->marks->len; k > mark0; k--)
    if (m[k - 1].leave == TL_UNSET)
      m[k - 1].leave = leave;
}

void
delay_timeline_finish (DelayTimeline *tl)
{
  DelayMark *m = (DelayMark *) tl->marks->data;

  close_segment (tl);
  tl->tail_end = tl->seg->len;
  /* calls still open at the end (an aborted run) end where they started */
  for (guint k = 0; k < tl->marks->len; k++)
    if (m[k].leave == TL_UNSET)
      m[k].leave = m[k].enter;
  g_hash_table_remove_all (tl->req_mark);
}
