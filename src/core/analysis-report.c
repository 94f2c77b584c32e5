/* analysis-report.c — every rank serialises its results (call paths, severities, most severe
 * instances, diagnostics); rank 0 merges the call trees by region-name path, builds the CUBE
 * report (metric table, call tree, system tree, Cartesian topologies) and writes it and the
 * statistics file atomically. */
#include "analyze-private.h"
#include "delay-private.h"
#include "critical-impact.h"
#include "kubus-text-gstring.h"

#include <cube.h>
#include <cube-path.h>
#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#define BLOB_MAGIC 0x4b55424bu

typedef struct
{
  guint32 magic;
  gint32  rank;
  guint32 n_cnodes;
  guint32 n_entries;
  guint64 n_events;
  guint64 unmatched_recvs;
  guint64 unmatched_sends;
  guint64 clock_violations;
  guint64 collective_mismatch;
  guint64 record_bytes;     /* the rank's compact records and severity rows */
  guint64 maxrss_kb;        /* peak resident set of the process that analysed the rank */
  /* clock repair (replay-clock.c) */
  guint64 clock_found_p2p;
  guint64 clock_found_coll;
  guint64 clock_corrections;
  gint64  clock_largest;
  guint32 clock_repair_ran;
  guint32 clock_passes;
  guint32 clock_converged;
  guint32 groups;           /* METRIC_GROUP bits that ran */
  guint32 causes_stuck;     /* the backward replay found the ranks waiting for each other */
  guint32 pad;
  guint64 causes_msgs;      /* its messages */
} BlobHeader;

typedef struct
{
  guint32 cnode;
  guint32 metric;
  gint64  value;
} BlobEntry;

/* A root-cause or critical-path value (ticks, fractional); metric LTIMES_METRIC carries the
 * rank's time less waits per call path, which rank 0 needs for the critical-path impacts. */
typedef struct
{
  guint32 cnode;
  guint32 metric;
  double  value;
} BlobCause;

#define LTIMES_METRIC N_METRICS

GByteArray *
analysis_serialize (RankData *rd)
{
  GByteArray *b = g_byte_array_new ();
  BlobHeader h = { 0 };
  guint32 n_entries = 0;

  for (guint c = 0; c < rd->cnodes->len; c++)
    {
      gint64 *row = rank_data_row (rd, c);
      for (int m = 0; m < N_METRICS; m++)
        if (row[m])
          n_entries++;
    }
  h.magic = BLOB_MAGIC;
  h.rank = rd->rank;
  h.n_cnodes = rd->cnodes->len;
  h.n_entries = n_entries;
  h.n_events = rd->n_events;
  h.unmatched_recvs = rd->unmatched_recvs;
  h.unmatched_sends = rd->unmatched_sends;
  h.clock_violations = rd->clock_violations;
  h.collective_mismatch = rd->collective_mismatch;
  h.clock_found_p2p = rd->clock_found_p2p;
  h.clock_found_coll = rd->clock_found_coll;
  h.clock_corrections = rd->clock_corrections;
  h.clock_largest = rd->clock_largest;
  h.clock_repair_ran = rd->clock_repair_ran;
  h.clock_passes = rd->clock_passes;
  h.clock_converged = rd->clock_converged;
  h.groups = METRIC_GROUP_BIT (METRIC_GROUP_WAIT) | (rd->causes ? rd->causes->groups : 0);
  h.causes_stuck = rd->causes && rd->causes->sps && !rd->causes->finished;
  h.causes_msgs = rd->causes ? rd->causes->n_msgs : 0;
  h.record_bytes = (guint64) rd->calls->len * sizeof (CallRec) + (guint64) rd->sends->len * sizeof (SendRec)
                   + (guint64) rd->recvs->len * sizeof (RecvRec) + (guint64) rd->colls->len * sizeof (CollRec)
                   + (guint64) rd->cnodes->len * (sizeof (LocalCnode) + sizeof (gint64) * N_METRICS);
  {
    struct rusage ru;
    if (getrusage (RUSAGE_SELF, &ru) == 0)
      h.maxrss_kb = ru.ru_maxrss;
  }
  g_byte_array_append (b, (guint8 *) &h, sizeof h);
  g_byte_array_append (b, (const guint8 *) rd->cnodes->data, rd->cnodes->len * sizeof (LocalCnode));
  for (guint c = 0; c < rd->cnodes->len; c++)
    {
      gint64 *row = rank_data_row (rd, c);
      for (int m = 0; m < N_METRICS; m++)
        if (row[m])
          {
            BlobEntry e = { c, (guint32) m, row[m] };
            g_byte_array_append (b, (guint8 *) &e, sizeof e);
          }
    }
  for (int m = 0; m < N_METRICS; m++)
    {
      guint64 n = rd->n_top[m];   /* 8 bytes: keeps the Instances aligned */
      g_byte_array_append (b, (guint8 *) &n, sizeof n);
      g_byte_array_append (b, (guint8 *) rd->top[m], n * sizeof (Instance));
    }
  {
    guint64 n = 0;
    gsize at = b->len;
    Causes *c = rd->causes;
    g_byte_array_append (b, (guint8 *) &n, sizeof n);
    for (guint cn = 0; c && cn < rd->cnodes->len && cn < c->sev->len; cn++)
      {
        const double *row = causes_row (rd, cn);
        for (int m = 0; m < N_CAUSE_METRICS; m++)
          if (row[m] != 0.0)
            {
              BlobCause e = { cn, (guint32) (M_FIRST_CAUSE + m), row[m] };
              g_byte_array_append (b, (guint8 *) &e, sizeof e);
              n++;
            }
        if (c->ltimes && c->ltimes[cn] != 0.0)
          {
            BlobCause e = { cn, LTIMES_METRIC, c->ltimes[cn] };
            g_byte_array_append (b, (guint8 *) &e, sizeof e);
            n++;
          }
      }
    memcpy (b->data + at, &n, sizeof n);
  }
  return b;
}

typedef struct
{
  const BlobHeader *h;
  const LocalCnode *cnodes;
  const BlobEntry  *entries;
  guint32           n_top[N_METRICS];
  const Instance   *top[N_METRICS];
  guint64           n_causes;
  const BlobCause  *causes;
  guint            *gmap;       /* local cnode -> global cnode */
} Blob;

typedef struct
{
  guint       parent;          /* G_MAXUINT for a root */
  const char *name;
  guint32     region;          /* first region id seen under this path */
  GArray     *children;        /* guint */
  CubeCnode  *cube;
} GCnode;

static gboolean
parse_blob (GByteArray *b,
            Blob       *out)
{
  gsize off = sizeof (BlobHeader);

  if (b->len < sizeof (BlobHeader))
    return FALSE;
  out->h = (const BlobHeader *) b->data;
  if (out->h->magic != BLOB_MAGIC)
    return FALSE;
  if (off + (gsize) out->h->n_cnodes * sizeof (LocalCnode) + (gsize) out->h->n_entries * sizeof (BlobEntry) > b->len)
    return FALSE;
  out->cnodes = (const LocalCnode *) (b->data + off);
  off += (gsize) out->h->n_cnodes * sizeof (LocalCnode);
  out->entries = (const BlobEntry *) (b->data + off);
  off += (gsize) out->h->n_entries * sizeof (BlobEntry);
  for (int m = 0; m < N_METRICS; m++)
    {
      guint64 n;
      if (off + sizeof (guint64) > b->len)
        return FALSE;
      memcpy (&n, b->data + off, sizeof (guint64));
      out->n_top[m] = (guint32) MIN (n, G_MAXUINT32);
      off += sizeof (guint64);
      if (out->n_top[m] > TOP_N || off + out->n_top[m] * sizeof (Instance) > b->len)
        return FALSE;
      out->top[m] = (const Instance *) (b->data + off);
      off += out->n_top[m] * sizeof (Instance);
    }
  if (off + sizeof (guint64) > b->len)
    return FALSE;
  memcpy (&out->n_causes, b->data + off, sizeof (guint64));
  off += sizeof (guint64);
  if (out->n_causes > (b->len - off) / sizeof (BlobCause))
    return FALSE;
  out->causes = (const BlobCause *) (b->data + off);
  for (guint64 k = 0; k < out->n_causes; k++)
    if (out->causes[k].cnode >= out->h->n_cnodes || out->causes[k].metric < M_FIRST_CAUSE
        || out->causes[k].metric > LTIMES_METRIC)
      return FALSE;
  return TRUE;
}

static const char *
region_name (TraceDefs *defs,
             guint32    region)
{
  TraceRegion *r = trace_defs_region (defs, region);
  return r ? r->name : "(unknown region)";
}

static void
add_cube_cnodes (CubeReport *report,
                 GArray     *gnodes,
                 GHashTable *cube_regions,
                 guint       g,
                 CubeCnode  *parent)
{
  GCnode *n = &g_array_index (gnodes, GCnode, g);
  CubeRegion *reg = g_hash_table_lookup (cube_regions, n->name);

  n->cube = cube_report_add_cnode (report, parent, reg, -1, NULL);
  for (guint k = 0; k < n->children->len; k++)
    add_cube_cnodes (report, gnodes, cube_regions, g_array_index (n->children, guint, k), n->cube);
}

/* The call sites' source (file:line) of the experiment's profile.cube, on the same call paths of
 * @report: kubus-run resolved them after the run (kubus-run-callsites.c), and the trace carries
 * only the region names. The profile has a call path per call site, the trace one per region
 * path: where several call sites share a path, its first source becomes the call path's and all
 * of them its kubus::sources list ("FILE:LINE; FILE:LINE", as the profile writes it). A trace
 * outside an experiment, or a profile that cannot be read, leaves the call paths without source. */
typedef struct
{
  CubeCnode *first;   /* the first call site with a source line, or NULL */
  GPtrArray *sources; /* "FILE:LINE", each once, in the profile's order */
  GPtrArray *sites;   /* without debug information: "MODULE+0xOFFSET", each once */
} PathSources;

static void
path_sources_free (gpointer p)
{
  PathSources *ps = p;
  g_ptr_array_unref (ps->sources);
  g_ptr_array_unref (ps->sites);
  g_free (ps);
}

static char *
joined (GPtrArray  *parts,
        const char *separator)
{
  GString *s = g_string_new (NULL);
  for (guint k = 0; k < parts->len; k++)
    g_string_append_printf (s, "%s%s", k ? separator : "", (const char *)parts->pdata[k]);
  return g_string_free (s, FALSE);
}

/* Adds @source to @sources unless it is there. */
static void
add_source (GPtrArray  *sources,
            const char *source)
{
  for (guint k = 0; k < sources->len; k++)
    if (g_str_equal (sources->pdata[k], source))
      return;
  g_ptr_array_add (sources, g_strdup (source));
}

/* Adds each non-empty part of @list (split at @separator) to @to. */
static void
add_sources (GPtrArray  *to,
             const char *list,
             const char *separator)
{
  g_auto (GStrv) parts = g_strsplit (list, separator, -1);
  for (guint k = 0; parts[k] != NULL; k++)
    if (parts[k][0] != '\0')
      add_source (to, parts[k]);
}

static void
copy_profile_sources (CubeReport *report,
                      const char *trace_path)
{
  g_autofree char *dir = g_path_get_dirname (trace_path);
  g_autofree char *path = g_build_filename (dir, "profile.cube", NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (CubeReport) profile = cube_report_load (path, CUBE_LOAD_DEFAULT, NULL, NULL, NULL, &error);
  if (profile == NULL)
    {
      g_printerr (_("kubus-analyze: the call sites' source lines of %s are not copied: %s\n"), path,
                  error->message);
      return;
    }
  g_autoptr (GHashTable) by_path = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, path_sources_free);
  for (guint i = 0; i < profile->cnodes->len; i++)
    {
      CubeCnode       *c = g_ptr_array_index (profile->cnodes, i);
      gboolean         has_line = c->line >= 0 && c->mod != NULL && c->mod[0] != '\0';
      g_autofree char *skey = g_strdup_printf ("kubus::sources::%" G_GINT64_FORMAT, c->file_id);
      g_autofree char *sitekey = g_strdup_printf ("kubus::site::%" G_GINT64_FORMAT, c->file_id);
      const char      *all = cube_report_get_attr (profile, skey);
      const char      *sites = cube_report_get_attr (profile, sitekey);
      if (!has_line && all == NULL && sites == NULL)
        continue;
      char        *p = cube_cnode_path (c);
      PathSources *ps = g_hash_table_lookup (by_path, p);
      if (ps == NULL)
        {
          ps = g_new0 (PathSources, 1);
          ps->sources = g_ptr_array_new_with_free_func (g_free);
          ps->sites = g_ptr_array_new_with_free_func (g_free);
          g_hash_table_insert (by_path, p, ps);
        }
      else
        g_free (p);
      if (has_line && ps->first == NULL)
        ps->first = c;
      if (all != NULL)
        add_sources (ps->sources, all, "; ");
      else if (has_line)
        {
          g_autofree char *one = g_strdup_printf ("%s:%" G_GINT64_FORMAT, c->mod, c->line);
          add_source (ps->sources, one);
        }
      else
        add_sources (ps->sites, sites, " ");
    }
  gboolean any_site = FALSE;
  for (guint i = 0; g_hash_table_size (by_path) > 0 && i < report->cnodes->len; i++)
    {
      CubeCnode       *c = g_ptr_array_index (report->cnodes, i);
      g_autofree char *p = cube_cnode_path (c);
      PathSources     *ps = g_hash_table_lookup (by_path, p);
      if (ps == NULL)
        continue;
      if (ps->first != NULL)
        cube_cnode_set_source (c, ps->first->line, ps->first->mod);
      if (ps->sources->len > 1 || (ps->first == NULL && ps->sources->len > 0))
        {
          g_autofree char *key = g_strdup_printf ("kubus::sources::%" G_GINT64_FORMAT, c->file_id);
          g_autofree char *value = joined (ps->sources, "; ");
          cube_report_set_attr (report, key, value);
        }
      else if (ps->sources->len == 0 && ps->sites->len > 0)
        {
          /* read with the modules' attributes, copied below (stats-callsites.c) */
          g_autofree char *key = g_strdup_printf ("kubus::site::%" G_GINT64_FORMAT, c->file_id);
          g_autofree char *value = joined (ps->sites, " ");
          cube_report_set_attr (report, key, value);
          any_site = TRUE;
        }
    }
  for (guint k = 0; any_site && k < profile->attrs->len; k++)
    {
      CubeAttr *a = g_ptr_array_index (profile->attrs, k);
      if (g_str_has_prefix (a->key, "kubus::module::"))
        cube_report_set_attr (report, a->key, a->value);
    }
}

static char *
cnode_path (GArray *gnodes,
            guint   g)
{
  GString *s = g_string_new (NULL);
  GPtrArray *names = g_ptr_array_new ();

  for (guint cur = g; cur != G_MAXUINT; cur = g_array_index (gnodes, GCnode, cur).parent)
    g_ptr_array_add (names, (gpointer) g_array_index (gnodes, GCnode, cur).name);
  for (guint k = names->len; k > 0; k--)
    {
      if (s->len)
        g_string_append (s, "/");
      g_string_append (s, names->pdata[k - 1]);
    }
  g_ptr_array_unref (names);
  return g_string_free (s, FALSE);
}

static int
instance_sort (gconstpointer pa,
               gconstpointer pb)
{
  const Instance *a = pa, *b = pb;
  if (a->value != b->value)
    return a->value > b->value ? -1 : 1;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  if (a->when != b->when)
    return a->when < b->when ? -1 : 1;
  return 0;
}

/* The leaf category metric that holds an MPI region's time. */
int
analyze_category_metric (const TraceRegion *r)
{
  if (!r)
    return M_COMP;
  switch ((RegionClass) r->klass)
    {
    case RC_USER:
      return M_COMP;
    case RC_MPI_INIT:
    case RC_MPI_FINALIZE:
      return M_INIT_EXIT;
    case RC_MPI_MGMT_COMM:
      return M_MGMT_COMM;
    case RC_MPI_BARRIER:
      return M_SYNC_COLLECTIVE;
    case RC_MPI_P2P:
      return M_POINT2POINT;
    case RC_MPI_COLL:
      return M_COLLECTIVE;
    case RC_MPI_IO:
      return M_IO;
    case RC_MPI_IO_COLL:
      return M_IO_COLLECTIVE;
    case RC_MPI_OTHER:
    default:
      return M_MPI;
    }
}

static void
build_system_tree (CubeReport  *report,
                   TraceDefs   *defs,
                   CubeSysNode **threads)
{
  GHashTable *machines = g_hash_table_new (g_direct_hash, g_direct_equal);
  GHashTable *nodes = g_hash_table_new (g_direct_hash, g_direct_equal);
  /* by id (the first member of both structs): one lookup per rank, not a scan */
  GHashTable *groups_by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTable *sys_by_id = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (guint k = 0; k < defs->locgroups->len; k++)
    {
      TraceLocGroup *g = defs->locgroups->pdata[k];
      if (!g_hash_table_contains (groups_by_id, &g->id)) /* the first of a duplicate id wins */
        g_hash_table_insert (groups_by_id, &g->id, g);
    }
  for (guint k = 0; k < defs->sysnodes->len; k++)
    {
      TraceSysNode *sn = defs->sysnodes->pdata[k];
      if (!g_hash_table_contains (sys_by_id, &sn->id))
        g_hash_table_insert (sys_by_id, &sn->id, sn);
    }

  for (int r = 0; r < defs->n_ranks; r++)
    {
      TraceLocation *loc = defs->rank_loc[r];
      TraceLocGroup *lg = g_hash_table_lookup (groups_by_id, &loc->group);
      TraceSysNode *node = lg ? g_hash_table_lookup (sys_by_id, &lg->sys_parent) : NULL;
      TraceSysNode *machine = node;
      CubeSysNode *cm, *cn, *cp;

      /* the root above the node; a cycle in a corrupt trace ends after one round */
      for (guint steps = 0; machine && steps < defs->sysnodes->len; steps++)
        {
          TraceSysNode *up = g_hash_table_lookup (sys_by_id, &machine->parent);
          if (!up || up == machine)
            break;
          machine = up;
        }
      cm = g_hash_table_lookup (machines, machine);
      if (!cm)
        {
          cm = cube_report_add_sysnode (report, NULL, CUBE_SYS_MACHINE,
                                        machine ? machine->name : "machine", -1);
          g_hash_table_insert (machines, machine, cm);
        }
      cn = g_hash_table_lookup (nodes, node);
      if (!cn)
        {
          cn = cube_report_add_sysnode (report, cm, CUBE_SYS_NODE, node ? node->name : "node", -1);
          g_hash_table_insert (nodes, node, cn);
        }
      {
        g_autofree char *pname = lg ? g_strdup (lg->name) : g_strdup_printf ("MPI Rank %d", r);
        cp = cube_report_add_sysnode (report, cn, CUBE_SYS_PROCESS, pname, r);
      }
      threads[r] = cube_report_add_sysnode (report, cp, CUBE_SYS_THREAD,
                                            loc->name && *loc->name ? loc->name : "Master thread", 0);
    }
  g_hash_table_unref (machines);
  g_hash_table_unref (nodes);
  g_hash_table_unref (groups_by_id);
  g_hash_table_unref (sys_by_id);
}

static void
build_topologies (CubeReport   *report,
                  TraceDefs    *defs,
                  CubeSysNode **threads)
{
  for (guint i = 0; i < defs->carts->len; i++)
    {
      TraceCart *c = defs->carts->pdata[i];
      g_autofree gint64 *sizes = g_new0 (gint64, MAX (c->ndims, 1));
      g_autofree gboolean *periodic = g_new0 (gboolean, MAX (c->ndims, 1));
      g_autofree gint64 *coord = g_new0 (gint64, MAX (c->ndims, 1));
      CubeCart *cart;

      if (c->ndims == 0)
        continue;
      for (guint d = 0; d < c->ndims; d++)
        {
          TraceCartDim *dim = g_hash_table_lookup (defs->cart_dims, GUINT_TO_POINTER (c->dims[d]));
          sizes[d] = dim ? dim->size : 0;
          periodic[d] = dim ? dim->periodic : FALSE;
        }
      cart = cube_report_add_cart (report, c->name && *c->name ? c->name : NULL, c->ndims, sizes, periodic);
      for (guint d = 0; d < c->ndims; d++)
        {
          TraceCartDim *dim = g_hash_table_lookup (defs->cart_dims, GUINT_TO_POINTER (c->dims[d]));
          if (dim && dim->name && *dim->name)
            cube_cart_set_dim_name (cart, d, dim->name);
        }
      for (int r = 0; r < defs->n_ranks; r++)
        {
          gboolean ok = TRUE;
          for (guint d = 0; d < c->ndims; d++)
            {
              coord[d] = c->coords[(gsize) r * c->ndims + d];
              if (coord[d] < 0)
                ok = FALSE;
            }
          if (ok)
            cube_cart_set_coord (cart, threads[r], coord);
        }
    }
}

/* The root-cause and critical-path metrics: every rank's values on the merged call tree, and
 * the critical-path impacts derived from all of them (three passes over the ranks, so that
 * only one rank's dense rows are held at a time). */
static void
cause_rows (const Blob *b,
            gsize       ng,
            double     *rows)     /* [(metric − M_FIRST_CAUSE) * ng + g], LTIMES_METRIC last */
{
  memset (rows, 0, sizeof (double) * (N_CAUSE_METRICS + 1) * MAX (ng, 1));
  for (guint64 k = 0; k < b->n_causes; k++)
    {
      const BlobCause *e = &b->causes[k];
      rows[(gsize) (e->metric - M_FIRST_CAUSE) * ng + b->gmap[e->cnode]] += e->value;
    }
}

/* The largest delay costs (all kinds, per call path and rank), for the summary. */
typedef struct
{
  guint  g;
  int    rank;
  double cost;
} TopCause;

#define TOP_CAUSES 3

static void
note_cause (TopCause *top,
            guint     g,
            int       rank,
            double    cost)
{
  int k = TOP_CAUSES;
  while (k > 0 && (top[k - 1].cost < cost || top[k - 1].rank < 0))
    k--;
  if (k == TOP_CAUSES)
    return;
  memmove (&top[k + 1], &top[k], sizeof (TopCause) * (TOP_CAUSES - 1 - k));
  top[k].g = g;
  top[k].rank = rank;
  top[k].cost = cost;
}

static void
add_cause_values (CubeReport  *report,
                  CubeMetric **metrics,
                  TraceDefs   *defs,
                  Blob        *bl,
                  int          n,
                  GArray      *gnodes,
                  double      *totals,
                  guint        groups,
                  TopCause    *top)
{
  gsize ng = gnodes->len;
  double res = (double) defs->resolution;
  g_autofree double *rows = g_new (double, (gsize) (N_CAUSE_METRICS + 1) * MAX (ng, 1));
  gboolean cp = (groups & METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH)) != 0;
  CriticalImpact ci;
#define ROW(m) (rows + (gsize) ((m) - M_FIRST_CAUSE) * ng)

  critical_impact_init (&ci, ng);
  if (cp)
    {
      for (int r = 0; r < n; r++)
        {
          cause_rows (&bl[r], ng, rows);
          critical_impact_add_path (&ci, ROW (M_CRITICAL_PATH));
        }
      for (int r = 0; r < n; r++)
        {
          cause_rows (&bl[r], ng, rows);
          critical_impact_add_rank (&ci, ROW (LTIMES_METRIC));
        }
    }
  for (int r = 0; r < n; r++)
    {
      cause_rows (&bl[r], ng, rows);
      if (cp)
        critical_impact_rank (&ci, ROW (M_CRITICAL_PATH), ROW (LTIMES_METRIC), ROW (M_CP_ACTIVITIES),
                              ROW (M_CP_IMBALANCE), ROW (M_CP_INTER_PARTITION), ROW (M_CP_NON_CRITICAL));
      for (gsize g = 0; g < ng && (groups & METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE)); g++)
        {
          double cost = 0;
          for (int m = M_DELAY_LS; m <= M_DELAY_N21_LT; m++)
            cost += ROW (m)[g];
          if (cost > 0)
            note_cause (top, (guint) g, r, cost / res);
        }
      for (int m = M_FIRST_CAUSE; m < N_METRICS; m++)
        {
          if (!metrics[m])
            continue;
          for (gsize g = 0; g < ng; g++)
            {
              double x = ROW (m)[g];
              if (x == 0.0)
                continue;
              cube_report_set_value (report, metrics[m], g_array_index (gnodes, GCnode, g).cube, r, x / res);
              totals[m] += x / res;
            }
        }
    }
  critical_impact_clear (&ci);
#undef ROW
}

/* KUBUS::UNTRACED_THREAD_CALLS: "RANK:COUNT" pairs, comma-separated (collect-state.c) */
static void
untraced_threads_warning (GString   *summary,
                          TraceDefs *defs)
{
  g_auto (GStrv) pairs = g_strsplit (defs->untraced_threads, ",", -1);
  g_autoptr (GString) list = g_string_new (NULL);
  guint64 total = 0;
  guint n = 0;
  for (guint i = 0; pairs[i]; i++)
    {
      char *colon = strchr (pairs[i], ':'), *end = NULL;
      if (colon == NULL || !g_ascii_isdigit (pairs[i][0]) || !g_ascii_isdigit (colon[1]))
        break;
      guint64 r = g_ascii_strtoull (pairs[i], &end, 10);
      if (end != colon)
        break;
      guint64 c = g_ascii_strtoull (colon + 1, &end, 10);
      if (*end != '\0' || c == 0 || total + c < total)
        break;
      total += c;
      n++;
      if (n <= 8)
        {
          if (n > 1)
            g_string_append (list, ", ");
          /* TRANSLATORS: a rank and its number of MPI calls */
          g_string_append_printf (list, _("rank %llu: %llu"), (unsigned long long) r,
                                  (unsigned long long) c);
        }
      else if (n == 9)
        g_string_append (list, ", …");
    }
  if (n == 0 || n != g_strv_length (pairs))
    {
      g_string_append_printf (summary,
                              _("warning: %s: the property KUBUS::UNTRACED_THREAD_CALLS (\"%s\") is "
                                "not a list of RANK:COUNT; ignored\n"),
                              defs->path, defs->untraced_threads);
      return;
    }
  g_string_append_printf (summary,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "warning: %llu MPI call came from another thread than "
                                       "MPI_Init's and is not in the trace (%s): its messages "
                                       "and waits are missing from this analysis\n",
                                       "warning: %llu MPI calls came from other threads than "
                                       "MPI_Init's and are not in the trace (%s): their messages "
                                       "and waits are missing from this analysis\n",
                                       (gulong) MIN (total, G_MAXULONG)),
                          (unsigned long long) total, list->str);
}

gboolean
analysis_write_report (TraceDefs   *defs,
                       GPtrArray   *blobs,
                       const char  *cube_path,
                       const char  *stats_path,
                       GString     *summary,
                       GError     **error)
{
  g_autoptr (CubeReport) report = cube_report_new ();
  int n = defs->n_ranks;
  g_autofree Blob *bl = g_new0 (Blob, n);
  GArray *gnodes = g_array_new (FALSE, TRUE, sizeof (GCnode));
  GHashTable *gindex = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *cube_regions = g_hash_table_new (g_str_hash, g_str_equal);
  GArray *roots = g_array_new (FALSE, FALSE, sizeof (guint));
  CubeMetric *metrics[N_METRICS];
  guint groups = 0;
  TopCause top_causes[TOP_CAUSES] = { { 0, -1, 0 }, { 0, -1, 0 }, { 0, -1, 0 } };
  guint64 causes_msgs = 0;
  gboolean causes_stuck = FALSE;
  g_autofree CubeSysNode **threads = g_new0 (CubeSysNode *, n);
  double totals[N_METRICS] = { 0 };
  double res = (double) defs->resolution;
  guint64 unmatched_recvs = 0, unmatched_sends = 0, clock_violations = 0, mismatch = 0, events = 0;
  /* clock repair: found as recorded (point-to-point, collective), events moved, largest move */
  guint64 clock_found = 0, clock_found_coll = 0, clock_moved = 0, clock_remaining = 0;
  gint64 clock_largest = 0;
  guint clock_passes = 0;
  gboolean clock_repair = FALSE, clock_converged = TRUE;
  guint64 max_records = 0, max_rss = 0;
  g_autoptr (GString) js = g_string_new ("{\n");
  g_autofree char *stats_tmp = NULL;
  g_autofree char *cube_backup = NULL;   /* a link to the report this one replaces */
  gboolean ok = FALSE;

  if (blobs->len != (guint) n)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("internal error: %u result sets for %d ranks"),
                   blobs->len, n);
      goto out;
    }
  for (int r = 0; r < n; r++)
    if (!parse_blob (blobs->pdata[r], &bl[r]) || bl[r].h->rank != r)
      {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("internal error: bad result set of rank %d"), r);
        goto out;
      }

  /* merge call trees: identity = sequence of region names from the root */
  for (int r = 0; r < n; r++)
    {
      bl[r].gmap = g_new (guint, MAX (bl[r].h->n_cnodes, 1));
      for (guint c = 0; c < bl[r].h->n_cnodes; c++)
        {
          const LocalCnode *lc = &bl[r].cnodes[c];
          guint gparent = lc->parent == NO_INDEX ? G_MAXUINT : bl[r].gmap[lc->parent];
          const char *name = region_name (defs, lc->region);
          g_autofree char *key = g_strdup_printf ("%u\x1f%s", gparent, name);
          gpointer v = g_hash_table_lookup (gindex, key);
          if (v)
            bl[r].gmap[c] = GPOINTER_TO_UINT (v) - 1;
          else
            {
              GCnode g = { 0 };
              guint id = gnodes->len;
              g.parent = gparent;
              g.name = name;
              g.region = lc->region;
              g.children = g_array_new (FALSE, FALSE, sizeof (guint));
              g_array_append_val (gnodes, g);
              if (gparent == G_MAXUINT)
                g_array_append_val (roots, id);
              else
                g_array_append_val (g_array_index (gnodes, GCnode, gparent).children, id);
              g_hash_table_insert (gindex, g_steal_pointer (&key), GUINT_TO_POINTER (id + 1));
              bl[r].gmap[c] = id;
            }
        }
    }

  /* metric tree: the groups that ran */
  groups = bl[0].h->groups;
  for (int m = 0; m < N_METRICS; m++)
    {
      const MetricDef *d = &analyze_metrics[m];
      const char *uom = d->unit == METRIC_UNIT_TIME ? "sec" : d->unit == METRIC_UNIT_BYTES ? "bytes" : "occ";
      CubeDtype dt = d->unit == METRIC_UNIT_TIME ? CUBE_DTYPE_DOUBLE : CUBE_DTYPE_UINT64;
      if (!(groups & METRIC_GROUP_BIT (d->group)))
        {
          metrics[m] = NULL;
          continue;
        }
      metrics[m] = cube_report_add_metric (report, d->parent >= 0 ? metrics[d->parent] : NULL, d->uniq_name,
                                           d->disp_name, dt, uom, "", d->descr);
    }
  /* regions (one per name) and the call tree in pre-order */
  for (guint g = 0; g < gnodes->len; g++)
    {
      GCnode *gn = &g_array_index (gnodes, GCnode, g);
      if (!g_hash_table_contains (cube_regions, gn->name))
        {
          TraceRegion *tr = trace_defs_region (defs, gn->region);
          CubeRegion *cr = cube_report_add_region (report, gn->name, tr ? tr->file : "",
                                                   tr && tr->begin_line ? (gint64) tr->begin_line : -1,
                                                   tr && tr->end_line ? (gint64) tr->end_line : -1);
          g_hash_table_insert (cube_regions, (gpointer) gn->name, cr);
        }
    }
  for (guint k = 0; k < roots->len; k++)
    add_cube_cnodes (report, gnodes, cube_regions, g_array_index (roots, guint, k), NULL);
  copy_profile_sources (report, defs->path);
  build_system_tree (report, defs, threads);
  build_topologies (report, defs, threads);

  /* values */
  {
    gsize ng = gnodes->len;
    g_autofree gint64 *vals = g_new0 (gint64, MAX (ng, 1) * N_METRICS);

    for (int r = 0; r < n; r++)
      {
        Blob *b = &bl[r];
        memset (vals, 0, MAX (ng, 1) * N_METRICS * sizeof (gint64));
        for (guint e = 0; e < b->h->n_entries; e++)
          {
            const BlobEntry *be = &b->entries[e];
            guint g = b->gmap[be->cnode];
            gint64 *row = vals + (gsize) g * N_METRICS;
            if (be->metric >= N_METRICS)
              continue;
            if (be->metric == M_TIME)
              {
                /* the time of a call path goes to its category and every ancestor metric */
                const TraceRegion *tr = trace_defs_region (defs, b->cnodes[be->cnode].region);
                for (int m = analyze_category_metric (tr); m >= 0; m = analyze_metrics[m].parent)
                  row[m] += be->value;
              }
            else
              {
                row[be->metric] += be->value;
                if (be->metric >= M_SYNCS && analyze_metrics[be->metric].parent >= 0)
                  row[analyze_metrics[be->metric].parent] += be->value;
              }
          }
        for (gsize g = 0; g < ng; g++)
          {
            GCnode *gn = &g_array_index (gnodes, GCnode, g);
            for (int m = 0; m < N_METRICS; m++)
              {
                gint64 v = vals[g * N_METRICS + m];
                double d;
                if (!v)
                  continue;
                d = analyze_metrics[m].unit == METRIC_UNIT_TIME ? (double) v / res : (double) v;
                cube_report_set_value (report, metrics[m], gn->cube, r, d);
                totals[m] += d;
              }
          }
        unmatched_recvs += b->h->unmatched_recvs;
        unmatched_sends += b->h->unmatched_sends;
        clock_violations += b->h->clock_violations;
        mismatch += b->h->collective_mismatch;
        clock_repair |= b->h->clock_repair_ran != 0;
        clock_found += b->h->clock_found_p2p;
        clock_found_coll += b->h->clock_found_coll;
        clock_moved += b->h->clock_corrections;
        clock_largest = MAX (clock_largest, b->h->clock_largest);
        clock_passes = MAX (clock_passes, b->h->clock_passes);
        clock_converged &= b->h->clock_converged != 0 || !b->h->clock_repair_ran;
        events += b->h->n_events;
        max_records = MAX (max_records, b->h->record_bytes);
        max_rss = MAX (max_rss, b->h->maxrss_kb);
        causes_msgs += b->h->causes_msgs;
        causes_stuck |= b->h->causes_stuck != 0;
      }
    if (groups & (METRIC_GROUP_BIT (METRIC_GROUP_ROOT_CAUSE) | METRIC_GROUP_BIT (METRIC_GROUP_CRITICAL_PATH)))
      add_cause_values (report, metrics, defs, bl, n, gnodes, totals, groups, top_causes);
  }
  cube_report_set_attr (report, "kubus::trace", defs->path);
  cube_report_set_attr (report, "kubus::analyzer", "kubus-analyze " KUBUS_VERSION);
  /* the MPI library's eager limits as the collector read them (collect-mpit.c), in bytes */
  for (int t = 0; t < 2; t++)
    if (defs->eager_limit_lib[t] > 0)
      {
        char v[32];
        g_snprintf (v, sizeof v, "%" G_GUINT64_FORMAT, defs->eager_limit_lib[t]);
        cube_report_set_attr (report, t == 0 ? "kubus::eager_limit_same_host" : "kubus::eager_limit_between_hosts", v);
      }
  {
    /* violations as recorded; after a repair, the p2p replay's count is what remains */
    g_autofree char *s = NULL;
    if (clock_repair)
      {
        clock_remaining = clock_violations;
        clock_violations = clock_found;
      }
    s = g_strdup_printf ("%" G_GUINT64_FORMAT, clock_violations);
    cube_report_set_attr (report, "kubus::clock_violations", s);
    cube_report_set_attr (report, "kubus::clock_repair",
                          clock_repair ? "controlled logical clock" : "off");
    if (clock_repair)
      {
        g_autofree char *m = g_strdup_printf ("%" G_GUINT64_FORMAT, clock_moved);
        g_autofree char *l = g_strdup_printf ("%.9f", (double) clock_largest / res);
        cube_report_set_attr (report, "kubus::clock_corrections", m);
        cube_report_set_attr (report, "kubus::clock_largest_correction", l);
      }
  }

  /* statistics: the most severe instances per wait-state metric */
  g_string_append_printf (js, "  \"trace\": ");
  kubus_text_append_json (js, defs->path);
  g_string_append_printf (js, ",\n  \"ranks\": %d,\n  \"events\": %" G_GUINT64_FORMAT ",\n", n, events);
  g_string_append_printf (js, "  \"unmatched_receives\": %" G_GUINT64_FORMAT ",\n  \"unmatched_sends\": %"
                          G_GUINT64_FORMAT ",\n  \"clock_violations\": %" G_GUINT64_FORMAT ",\n",
                          unmatched_recvs, unmatched_sends, clock_violations);
  if (clock_repair)
    g_string_append_printf (js, "  \"clock_repair\": {\"method\": \"controlled logical clock\", "
                            "\"violations_p2p\": %" G_GUINT64_FORMAT ", \"violations_collective\": %"
                            G_GUINT64_FORMAT ", \"corrected_events\": %" G_GUINT64_FORMAT
                            ", \"largest_correction\": %.9f, \"passes\": %u, \"converged\": %s, "
                            "\"remaining_p2p\": %" G_GUINT64_FORMAT "},\n",
                            clock_violations, clock_found_coll, clock_moved, (double) clock_largest / res,
                            clock_passes, clock_converged ? "true" : "false", clock_remaining);
  else
    g_string_append (js, "  \"clock_repair\": null,\n");
  g_string_append (js, "  \"metrics\": [");
  {
    gboolean first = TRUE;
    for (int m = 0; m < N_METRICS; m++)
      {
        g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (Instance));
        if (!analyze_metrics[m].wait_state)
          continue;
        for (int r = 0; r < n; r++)
          for (guint k = 0; k < bl[r].n_top[m]; k++)
            {
              Instance in = bl[r].top[m][k];
              in.cnode = bl[r].gmap[in.cnode];
              g_array_append_val (all, in);
            }
        g_array_sort (all, instance_sort);
        g_string_append_printf (js, "%s\n    {\"metric\": \"%s\", \"name\": ", first ? "" : ",",
                                analyze_metrics[m].uniq_name);
        kubus_text_append_json (js, analyze_metrics[m].disp_name);
        g_string_append_printf (js, ", \"total\": %.17g, \"top\": [", totals[m]);
        for (guint k = 0; k < MIN (all->len, TOP_N); k++)
          {
            Instance *in = &g_array_index (all, Instance, k);
            g_autofree char *path = cnode_path (gnodes, in->cnode);
            g_string_append_printf (js, "%s\n      {\"callpath\": ", k ? "," : "");
            kubus_text_append_json (js, path);
            g_string_append_printf (js, ", \"rank\": %d, \"when\": %.9f, \"duration\": %.17g}", in->rank,
                                    (double) (in->when - (Tick) defs->global_offset) / res,
                                    (double) in->value / res);
          }
        g_string_append (js, all->len ? "\n    ]}" : "]}");
        first = FALSE;
      }
  }
  g_string_append (js, "\n  ]\n}\n");

  /* Both files or neither: the statistics go to a temporary file first, the report is written
   * atomically, and only then the statistics take their name. */
  if (stats_path)
    {
      stats_tmp = g_strdup_printf ("%s.tmp-%d", stats_path, (int) getpid ());
      g_autoptr (GError) local = NULL;
      if (!g_file_set_contents (stats_tmp, js->str, js->len, &local))
        {
          g_set_error (error, G_FILE_ERROR, local->code, _("cannot write %s: %s"), stats_path,
                       local->message);
          g_unlink (stats_tmp);
          goto out;
        }
    }
  /* "neither" must not cost the report an earlier run wrote there: keep a link to it until the
   * statistics have their name too */
  if (stats_tmp && g_file_test (cube_path, G_FILE_TEST_IS_REGULAR))
    {
      cube_backup = g_strdup_printf ("%s.old-%d", cube_path, (int) getpid ());
      if (link (cube_path, cube_backup) != 0)
        g_clear_pointer (&cube_backup, g_free);
    }
  if (!cube_report_write (report, cube_path, error))
    {
      if (stats_tmp)
        g_unlink (stats_tmp);
      if (cube_backup)
        g_unlink (cube_backup);
      goto out;
    }
  if (stats_tmp && g_rename (stats_tmp, stats_path) != 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), _("cannot write %s: %s"),
                   stats_path, g_strerror (err));
      g_unlink (stats_tmp);
      /* the earlier report back in place (or, failing that, kept under its backup name) */
      if (cube_backup == NULL || g_rename (cube_backup, cube_path) != 0)
        g_unlink (cube_path);
      goto out;
    }
  if (cube_backup)
    g_unlink (cube_backup);

  /* summary for the user */
  if (summary)
    {
      int order[N_METRICS];
      int k = 0;
      g_string_append_printf (summary, _("Analysed %d ranks, %llu events.\n"), n, (unsigned long long) events);
      g_string_append_printf (summary, _("Total time: %.6f s (computation %.6f s, MPI %.6f s)\n"),
                              totals[M_TIME], totals[M_COMP], totals[M_MPI]);
      /* Without user regions every root of the call tree is an MPI call: the time between the
       * calls is in no region, so "computation 0" would mislead. */
      if (totals[M_MPI] > 0 && totals[M_COMP] <= 0)
        g_string_append (summary,
                         _("note: the trace has no regions outside MPI calls, so the time between them "
                           "(computation) is not measured; compile with -finstrument-functions or mark "
                           "regions with kubus_region_begin/kubus_region_end\n"));
      for (int m = 0; m < N_METRICS; m++)
        if (analyze_metrics[m].wait_state && totals[m] > 0)
          order[k++] = m;
      for (int a = 1; a < k; a++)
        for (int b = a; b > 0 && totals[order[b]] > totals[order[b - 1]]; b--)
          {
            int tmp = order[b];
            order[b] = order[b - 1];
            order[b - 1] = tmp;
          }
      if (k == 0)
        g_string_append (summary, _("No wait states found.\n"));
      else
        g_string_append (summary, _("Top wait states:\n"));
      for (int a = 0; a < MIN (k, 6); a++)
        g_string_append_printf (summary, "  %-28s %12.6f s  %5.1f%%\n", analyze_metrics[order[a]].disp_name,
                                totals[order[a]], totals[M_TIME] > 0 ? 100.0 * totals[order[a]] / totals[M_TIME] : 0.0);
      if (top_causes[0].rank >= 0)
        {
          g_string_append (summary, _("Largest causes of waiting (delay costs, short- and long-term):\n"));
          for (int k = 0; k < TOP_CAUSES && top_causes[k].rank >= 0; k++)
            {
              g_autofree char *path = cnode_path (gnodes, top_causes[k].g);
              g_autofree char *where = g_strdup_printf (_("%s on rank %d"), path, top_causes[k].rank);
              g_string_append_printf (summary, "  %-40s %12.6f s\n", where, top_causes[k].cost);
            }
        }
      if (unmatched_recvs == 0 && unmatched_sends > 0)
        /* a program may leave messages in flight at MPI_Finalize (Ray does): not an abort */
        g_string_append_printf (summary,
                                g_dngettext (GETTEXT_PACKAGE,
                                             "note: %llu message was sent and never received (left in flight when "
                                             "the program ended, or cut off by an abort)\n",
                                             "note: %llu messages were sent and never received (left in flight when "
                                             "the program ended, or cut off by an abort)\n",
                                             unmatched_sends),
                                (unsigned long long) unmatched_sends);
      else if (unmatched_recvs || unmatched_sends)
        g_string_append_printf (summary,
                                _("warning: %llu receives without a matching send and %llu"
                                  " sends never received (aborted run?); analysed what matches\n"),
                                (unsigned long long) unmatched_recvs, (unsigned long long) unmatched_sends);
      if (defs->untraced_threads != NULL)
        untraced_threads_warning (summary, defs);
      if (clock_repair && (clock_violations || clock_found_coll || clock_moved))
        g_string_append_printf (summary,
                                _("Clock condition: %llu receives before their send and %llu "
                                  "collective ends before an enter they depend on, as recorded; "
                                  "repaired with the controlled logical clock (%llu events moved, "
                                  "the largest by %.9f s)\n"),
                                (unsigned long long) clock_violations,
                                (unsigned long long) clock_found_coll, (unsigned long long) clock_moved,
                                (double) clock_largest / res);
      if (clock_repair && !clock_converged)
        g_string_append_printf (summary,
                                _("warning: the clock repair stopped after %u passes (the trace's "
                                  "messages depend on each other in a cycle)\n"), clock_passes);
      if (clock_repair ? clock_remaining : clock_violations)
        g_string_append_printf (summary,
                                _("warning: %llu receives happen before their send "
                                  "(clock violations); waits are clamped at zero, never negative\n"),
                                (unsigned long long) (clock_repair ? clock_remaining : clock_violations));
      if (causes_stuck)
        g_string_append (summary,
                         _("warning: the root-cause analysis stopped: the recorded messages depend on each "
                           "other in a cycle (no real run can do that), so its delay costs and critical "
                           "path are left at zero\n"));
      if (mismatch)
        g_string_append_printf (summary,
                                _("warning: %llu collective calls have no partner on "
                                  "every member rank; they were skipped\n"), (unsigned long long) mismatch);
      g_string_append_printf (summary, _("Memory per rank: %.1f MiB of records, peak resident %.1f MiB\n"),
                              max_records / 1048576.0, max_rss / 1024.0);
      g_string_append_printf (summary, _("Report: %s\n"), cube_path);
      if (stats_path)
        g_string_append_printf (summary, _("Statistics: %s\n"), stats_path);
    }
  ok = TRUE;

out:
  for (int r = 0; r < n; r++)
    g_free (bl[r].gmap);
  for (guint g = 0; g < gnodes->len; g++)
    g_array_unref (g_array_index (gnodes, GCnode, g).children);
  g_array_unref (gnodes);
  g_array_unref (roots);
  g_hash_table_unref (gindex);
  g_hash_table_unref (cube_regions);
  return ok;
}
