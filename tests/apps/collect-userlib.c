/* collect-userlib: user functions in a shared library, for the collector tests.  Built with
 * -finstrument-functions twice: linked into collect-user (LIB_PREFIX lib_) and as a module
 * that collect-user dlopens after MPI_Init (LIB_PREFIX plugin_).  The static helper must be
 * named from the library's own symbol table. */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2 (a, b)
#define NAME(x) CAT (LIB_PREFIX, x)

int NAME (step) (int x);

static int
NAME (helper) (int x)
{
  return 2 * x + 1;
}

int
NAME (step) (int x)
{
  return NAME (helper) (x) - x;
}
