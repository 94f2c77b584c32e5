/* unwind-nocfi-tramp.c — built without unwind tables (tests/collect/meson.build): the unwinder
 * finds no frame description for this function, so a walk through it stops here. The increment
 * after the call keeps it from becoming a tail call (which would leave no frame at all). */
volatile int kubus_test_after;

void kubus_test_trampoline (void (*f) (void));

void
kubus_test_trampoline (void (*f) (void))
{
  f ();
  kubus_test_after++;
}
