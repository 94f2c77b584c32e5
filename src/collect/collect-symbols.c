/* collect-symbols.c: function names from ELF symbol tables.
 *
 * -finstrument-functions hands us bare addresses.  The first time one is
 * seen we read .symtab (or .dynsym when stripped) of the executable and of
 * every loaded object (dl_iterate_phdr gives their files and load biases),
 * so static functions are named too and -rdynamic is not needed.  An address
 * not found after objects were added (dlopen, seen in dl_iterate_phdr's
 * dlpi_adds counter) reloads the tables once. */
#include "collect-symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct
{
  uintptr_t addr;
  uint64_t  size;
  size_t    name; /* offset into arena */
} Sym;

static Sym               *syms;
static size_t             n_syms, cap_syms;
static char              *arena;
static size_t             arena_len, arena_cap;
static int                loaded;
static unsigned long long loaded_adds; /* dlpi_adds when the tables were read */

static int
add_sym (uintptr_t addr, uint64_t size, const char *name)
{
  size_t len = strlen (name) + 1;
  if (n_syms == cap_syms)
    {
      size_t cap = cap_syms ? 2 * cap_syms : 4096;
      Sym   *n = realloc (syms, cap * sizeof *n);
      if (n == NULL)
        return -1;
      syms = n;
      cap_syms = cap;
    }
  if (arena_len + len > arena_cap)
    {
      size_t cap = arena_cap ? 2 * arena_cap : 1 << 16;
      while (cap < arena_len + len)
        cap *= 2;
      char *n = realloc (arena, cap);
      if (n == NULL)
        return -1;
      arena = n;
      arena_cap = cap;
    }
  memcpy (arena + arena_len, name, len);
  syms[n_syms].addr = addr;
  syms[n_syms].size = size;
  syms[n_syms].name = arena_len;
  n_syms++;
  arena_len += len;
  return 0;
}

static void
read_object (const char *path, uintptr_t bias)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  struct stat st;
  if (fstat (fd, &st) != 0 || (size_t)st.st_size < sizeof (Elf64_Ehdr))
    {
      close (fd);
      return;
    }
  size_t               len = (size_t)st.st_size;
  const unsigned char *map = mmap (NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    return;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
  if (memcmp (eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64
      || eh->e_shoff == 0 || eh->e_shentsize != sizeof (Elf64_Shdr)
      || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof (Elf64_Shdr) > len)
    goto out;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(map + eh->e_shoff);
  const Elf64_Shdr *tab = NULL;
  for (int pass = 0; pass < 2 && tab == NULL; pass++)
    for (unsigned i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
        {
          tab = &sh[i];
          break;
        }
  if (tab == NULL || tab->sh_link >= eh->e_shnum || tab->sh_offset + tab->sh_size > len)
    goto out;
  const Elf64_Shdr *strs = &sh[tab->sh_link];
  if (strs->sh_offset + strs->sh_size > len)
    goto out;
  const char      *strtab = (const char *)map + strs->sh_offset;
  const Elf64_Sym *s = (const Elf64_Sym *)(map + tab->sh_offset);
  size_t           n = tab->sh_size / sizeof (Elf64_Sym);
  for (size_t i = 0; i < n; i++)
    {
      int type = ELF64_ST_TYPE (s[i].st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[i].st_shndx == SHN_UNDEF
          || s[i].st_value == 0 || s[i].st_name >= strs->sh_size)
        continue;
      if (add_sym (bias + s[i].st_value, s[i].st_size, strtab + s[i].st_name) != 0)
        break;
    }
out:
  munmap ((void *)map, len);
}

static int
each_object (struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  (void)data;
  const char *path = info->dlpi_name;
  if (path == NULL || path[0] == '\0')
    path = "/proc/self/exe";
  else if (strstr (path, "linux-vdso") != NULL || path[0] != '/')
    return 0;
  read_object (path, (uintptr_t)info->dlpi_addr);
  return 0;
}

static int
by_addr (const void *a, const void *b)
{
  const Sym *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int
objects_added (struct dl_phdr_info *info, size_t size, void *data)
{
  if (size >= offsetof (struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
    *(unsigned long long *)data = info->dlpi_adds;
  return 1; /* the counter is the same in every entry */
}

static unsigned long long
current_adds (void)
{
  unsigned long long adds = 0;
  dl_iterate_phdr (objects_added, &adds);
  return adds;
}

void
kubus_symbols_load (void)
{
  if (loaded)
    return;
  loaded = 1;
  loaded_adds = current_adds ();
  dl_iterate_phdr (each_object, NULL);
  if (n_syms > 0)
    qsort (syms, n_syms, sizeof *syms, by_addr);
}

static const char *
find (uintptr_t addr)
{
  size_t lo = 0, hi = n_syms;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (syms[mid].addr <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return NULL;
  const Sym *s = &syms[lo - 1];
  if (s->addr != addr && addr >= s->addr + (s->size ? s->size : 1))
    return NULL;
  return arena + s->name;
}

const char *
kubus_symbols_lookup (uintptr_t addr)
{
  kubus_symbols_load ();
  const char *name = find (addr);
  if (name == NULL && current_adds () != loaded_adds)
    {
      /* a library was opened since: read everything again (names already handed out were
       * copied by the caller) */
      n_syms = 0;
      arena_len = 0;
      loaded = 0;
      kubus_symbols_load ();
      name = find (addr);
    }
  return name;
}
