/* kubus-run-frames.c: after an abort, the functions found on the stacks of the ranks that did
 * not write the global definitions.
 *
 * Such a rank maps its user regions to KUBUS_UNKNOWN_REGION (nobody can unify them any more),
 * but a function found on the stack is named by its key alone, the same on every rank: the rank
 * leaves its frame keys in EXPDIR/.kubus-frames-<rank> ("LOCAL-ID KEY" lines,
 * collect-unify.c).  Here each key becomes a region of the global definitions (the one the
 * writer defined with the same key, or a new one), and the rank's local definition file is
 * written again, through OTF2 in a scratch archive, with its region mapping pointing there. */
#include "kubus-run-frames.h"
#include "kubus-run-repair.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  GArray *regions; /* guint64 global id per local id */
  GArray *comms;
  GArray *offsets; /* guint64 time, gint64 offset, double stddev */
} LocalDefs;

typedef struct
{
  guint64 time;
  gint64  offset;
  double  stddev;
} Offset;

static void
traverse (uint64_t local, uint64_t global, void *data)
{
  GArray *a = data;
  if (local >= (1u << 24))
    return;
  if (local >= a->len)
    {
      guint old = a->len;
      g_array_set_size (a, (guint)local + 1);
      for (guint i = old; i < a->len; i++)
        g_array_index (a, guint64, i) = i; /* identity where the map says nothing */
    }
  g_array_index (a, guint64, local) = global;
}

static OTF2_CallbackCode
on_mapping (void *ud, OTF2_MappingType type, const OTF2_IdMap *map)
{
  LocalDefs *l = ud;
  if (type == OTF2_MAPPING_REGION)
    OTF2_IdMap_Traverse (map, traverse, l->regions);
  else if (type == OTF2_MAPPING_COMM)
    OTF2_IdMap_Traverse (map, traverse, l->comms);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_offset (void *ud, OTF2_TimeStamp time, int64_t offset, double stddev)
{
  LocalDefs *l = ud;
  Offset     o = { time, offset, stddev };
  g_array_append_val (l->offsets, o);
  return OTF2_CALLBACK_SUCCESS;
}

static gboolean
read_local (const char *anchor, int rank, LocalDefs *l, uint64_t *evt_chunk, uint64_t *def_chunk)
{
  OTF2_Reader *reader = OTF2_Reader_Open (anchor);
  if (reader == NULL)
    return FALSE;
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  OTF2_Reader_GetChunkSize (reader, evt_chunk, def_chunk);
  OTF2_Reader_SelectLocation (reader, (OTF2_LocationRef)rank);
  gboolean ok = OTF2_Reader_OpenDefFiles (reader) == OTF2_SUCCESS;
  OTF2_DefReader *dr = ok ? OTF2_Reader_GetDefReader (reader, (OTF2_LocationRef)rank) : NULL;
  if (dr != NULL)
    {
      OTF2_DefReaderCallbacks *cbs = OTF2_DefReaderCallbacks_New ();
      OTF2_DefReaderCallbacks_SetMappingTableCallback (cbs, on_mapping);
      OTF2_DefReaderCallbacks_SetClockOffsetCallback (cbs, on_offset);
      OTF2_Reader_RegisterDefCallbacks (reader, dr, cbs, l);
      OTF2_DefReaderCallbacks_Delete (cbs);
      uint64_t n = 0;
      ok = OTF2_Reader_ReadAllLocalDefinitions (reader, dr, &n) == OTF2_SUCCESS;
      OTF2_Reader_CloseDefReader (reader, dr);
    }
  else
    ok = FALSE;
  OTF2_Reader_CloseDefFiles (reader);
  OTF2_Reader_Close (reader);
  return ok;
}

static void
write_map (OTF2_DefWriter *dw, OTF2_MappingType type, GArray *a)
{
  if (a->len == 0)
    return;
  OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array (a->len, (const uint64_t *)a->data, true);
  if (m != NULL)
    {
      OTF2_DefWriter_WriteMappingTable (dw, type, m);
      OTF2_IdMap_Free (m);
    }
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_remove (child);
    }
  g_rmdir (path);
}

/* Writes rank @rank's local definitions @l into EXPDIR/traces/<rank>.def. */
static gboolean
write_local (const char *expdir, int rank, LocalDefs *l, uint64_t evt_chunk, uint64_t def_chunk)
{
  g_autofree char *tmpl = g_build_filename (expdir, ".kubus-frames-XXXXXX", NULL);
  if (g_mkdtemp (tmpl) == NULL)
    return FALSE;
  OTF2_Archive *ar = OTF2_Archive_Open (tmpl, "traces", OTF2_FILEMODE_WRITE, evt_chunk, def_chunk,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  gboolean ok = ar != NULL;
  if (ok)
    {
      OTF2_Archive_SetFlushCallbacks (ar, &kubus_run_flush_callbacks, NULL);
      OTF2_Archive_SetSerialCollectiveCallbacks (ar);
      OTF2_Archive_OpenDefFiles (ar);
      OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (ar, (OTF2_LocationRef)rank);
      ok = dw != NULL;
      if (ok)
        {
          write_map (dw, OTF2_MAPPING_REGION, l->regions);
          write_map (dw, OTF2_MAPPING_COMM, l->comms);
          for (guint i = 0; i < l->offsets->len; i++)
            {
              const Offset *o = &g_array_index (l->offsets, Offset, i);
              OTF2_DefWriter_WriteClockOffset (dw, o->time, o->offset, o->stddev);
            }
          OTF2_Archive_CloseDefWriter (ar, dw);
        }
      OTF2_Archive_CloseDefFiles (ar);
      OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter (ar);
      if (gw)
        OTF2_Archive_CloseGlobalDefWriter (ar, gw);
      OTF2_Archive_Close (ar);
    }
  g_autofree char *from = g_strdup_printf ("%s/traces/%d.def", tmpl, rank);
  g_autofree char *to = g_strdup_printf ("%s/traces/%d.def", expdir, rank);
  ok = ok && g_rename (from, to) == 0;
  remove_tree (tmpl);
  return ok;
}

struct KubusRunFrames
{
  char      *expdir;
  GArray    *add;     /* SymbolsNewRegion: regions to define */
  GPtrArray *patches; /* per rank: GArray of guint64 pairs (local, global); index = position */
  GArray    *ranks;   /* int, the rank of each patch */
};

KubusRunFrames *
kubus_run_abort_frames_plan (const char *expdir)
{
  g_autofree char *anchor = g_build_filename (expdir, "traces.otf2", NULL);
  g_autoptr (GDir) d = g_dir_open (expdir, 0, NULL);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, ".kubus-frames-") && g_ascii_isdigit (name[14]))
      g_ptr_array_add (files, g_strdup (name));
  if (files->len == 0)
    return NULL;
  KubusRunFrames *p = g_new0 (KubusRunFrames, 1);
  p->expdir = g_strdup (expdir);
  p->add = g_array_new (FALSE, FALSE, sizeof (SymbolsNewRegion));
  p->patches = g_ptr_array_new_with_free_func ((GDestroyNotify)g_array_unref);
  p->ranks = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint32  max_region = 0;
  gboolean have_defs = g_file_test (anchor, G_FILE_TEST_IS_REGULAR)
                       && symbols_trace_frames (anchor, by_key, &max_region, NULL);
  for (guint f = 0; f < files->len; f++)
    {
      const char      *file = g_ptr_array_index (files, f);
      g_autofree char *path = g_build_filename (expdir, file, NULL);
      g_autofree char *text = NULL;
      int              rank = atoi (file + 14);
      if (have_defs && g_file_get_contents (path, &text, NULL, NULL))
        {
          GArray *patch = g_array_new (FALSE, FALSE, sizeof (guint64));
          g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
          for (int i = 0; lines[i] != NULL; i++)
            {
              char   *end = NULL;
              guint64 local = g_ascii_strtoull (lines[i], &end, 10);
              if (end == lines[i] || *end != ' '
                  || !g_str_has_prefix (end + 1, SYMBOLS_FRAME_PREFIX) || local >= (1u << 24))
                continue;
              const char *key = end + 1;
              gpointer    id = g_hash_table_lookup (by_key, key);
              if (id == NULL)
                {
                  SymbolsNewRegion a = { ++max_region, g_strdup (key) };
                  g_array_append_val (p->add, a);
                  id = GUINT_TO_POINTER (a.id + 1);
                  g_hash_table_insert (by_key, g_strdup (key), id);
                }
              guint64 pair[2] = { local, GPOINTER_TO_UINT (id) - 1 };
              g_array_append_vals (patch, pair, 2);
            }
          g_ptr_array_add (p->patches, patch);
          g_array_append_val (p->ranks, rank);
        }
      g_remove (path);
    }
  return p;
}

const GArray *
kubus_run_abort_frames_regions (const KubusRunFrames *p)
{
  return p != NULL ? p->add : NULL;
}

void
kubus_run_abort_frames_apply (const KubusRunFrames *p)
{
  if (p == NULL)
    return;
  g_autofree char *anchor = g_build_filename (p->expdir, "traces.otf2", NULL);
  for (guint k = 0; k < p->patches->len; k++)
    {
      const GArray *patch = g_ptr_array_index (p->patches, k);
      int           rank = g_array_index (p->ranks, int, k);
      LocalDefs     l = { g_array_new (FALSE, FALSE, sizeof (guint64)),
                          g_array_new (FALSE, FALSE, sizeof (guint64)),
                          g_array_new (FALSE, FALSE, sizeof (Offset)) };
      uint64_t      evt_chunk = OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
               def_chunk = OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT;
      if (read_local (anchor, rank, &l, &evt_chunk, &def_chunk) && l.regions->len > 0)
        {
          for (guint i = 0; i + 1 < patch->len; i += 2)
            {
              guint64 local = g_array_index (patch, guint64, i);
              if (local < l.regions->len)
                g_array_index (l.regions, guint64, local) = g_array_index (patch, guint64, i + 1);
            }
          write_local (p->expdir, rank, &l, evt_chunk, def_chunk);
        }
      g_array_unref (l.regions);
      g_array_unref (l.comms);
      g_array_unref (l.offsets);
    }
}

void
kubus_run_abort_frames_free (KubusRunFrames *p)
{
  if (p == NULL)
    return;
  for (guint i = 0; i < p->add->len; i++)
    g_free (g_array_index (p->add, SymbolsNewRegion, i).key);
  g_array_unref (p->add);
  g_ptr_array_unref (p->patches);
  g_array_unref (p->ranks);
  g_free (p->expdir);
  g_free (p);
}
