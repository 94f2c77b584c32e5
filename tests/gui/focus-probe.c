#include <gtk/gtk.h>
#include "gui-test-ui.h"
static void
probe (void)
{
  Events ev = { 0 };
  g_autoptr (GFile) file = report_file ("probe.cube", 1.0);
  KubusWindow *window = new_window (&ev);
  kubus_window_open (window, file);
  wait_events (&ev, 1, 0);
  spin (300);
  for (int i = 0; i < 25; i++)
    {
      GtkWidget *f;
      graphene_rect_t b;
      {
        GtkWidget *cur = gtk_root_get_focus (GTK_ROOT (window));
        gboolean handled = FALSE;
        GtkWidget *lv = cur;
        while (lv && !GTK_IS_LIST_VIEW (lv)) lv = gtk_widget_get_parent (lv);
        if (lv) {
          g_autoptr (GListModel) cs = gtk_widget_observe_controllers (lv);
          for (guint k = 0; k < g_list_model_get_n_items (cs); k++) {
            g_autoptr (GObject) c = g_list_model_get_item (cs, k);
            if (GTK_IS_EVENT_CONTROLLER_KEY (c)) g_signal_emit_by_name (c, "key-pressed", GDK_KEY_Tab, 0, (GdkModifierType) 0, &handled);
          }
        }
        if (!handled) gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD);
      }
      spin (30);
      f = gtk_root_get_focus (GTK_ROOT (window));
      if (f == NULL) { g_print ("%d: none\n", i); continue; }
      if (!gtk_widget_compute_bounds (f, GTK_WIDGET (window), &b)) b = GRAPHENE_RECT_INIT (-1,-1,0,0);
      g_print ("%d: %s css=%s vis=%d mapped=%d %gx%g at %g,%g parent=%s/%s\n", i, G_OBJECT_TYPE_NAME (f), gtk_widget_get_css_name (f),
               gtk_widget_get_visible (f), gtk_widget_get_mapped (f), b.size.width, b.size.height, b.origin.x, b.origin.y,
               G_OBJECT_TYPE_NAME (gtk_widget_get_parent (f)), gtk_widget_get_css_name (gtk_widget_get_parent (f)));
    }
  close_window (window, &ev);
}
int main (int argc, char **argv)
{
  int st;
  if ((st = gui_test_ui_init (&argc, &argv, "probe")) != 0) return st;
  g_test_add_func ("/probe", probe);
  st = g_test_run ();
  gui_test_ui_finish ();
  return st;
}
