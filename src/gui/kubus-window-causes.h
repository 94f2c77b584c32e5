/* kubus-window-causes.h — Show Its Causes and Verify Causes (kubus-window-causes.c). */
#pragma once

#include "kubus-window.h"

G_BEGIN_DECLS

/* Adds the actions and their row-menu entries (from kubus_window_init). */
void kubus_window_causes_init   (KubusWindow *self);
/* Enables them for a report with delay costs (from kubus_window_update_actions). */
void kubus_window_causes_update (KubusWindow *self);
/* The actions themselves (for tests). */
void kubus_window_show_causes   (KubusWindow *self);
void kubus_window_verify_causes (KubusWindow *self);

G_END_DECLS
