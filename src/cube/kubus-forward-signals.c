/* kubus-forward-signals.c — passing SIGINT, SIGTERM, SIGHUP on to the MPI launcher a Kubus
 * program started (see kubus-forward-signals.h). */
#include "kubus-forward-signals.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const int kubus_stop_signals[KUBUS_STOP_SIGNALS_N] = { SIGINT, SIGTERM, SIGHUP };

static volatile pid_t forward_pid;
static volatile sig_atomic_t first_received;

void
kubus_stop_signals_set (sigset_t *set)
{
  sigemptyset (set);
  for (int i = 0; i < KUBUS_STOP_SIGNALS_N; i++)
    sigaddset (set, kubus_stop_signals[i]);
}

static void
forward (int        sig,
         siginfo_t *info,
         void      *context)
{
  (void) context;
  if (first_received == 0)
    first_received = sig;
  /* a terminal's Ctrl-C already reached the launcher: it is in our process group */
  if (info && info->si_code == SI_KERNEL)
    return;
  if (forward_pid > 0)
    kill (forward_pid, sig);
}

void
kubus_forward_block (KubusForward *fw)
{
  sigset_t set;

  memset (fw, 0, sizeof *fw);
  kubus_stop_signals_set (&set);
  pthread_sigmask (SIG_BLOCK, &set, &fw->entry_mask);
}

void
kubus_forward_child_setup (void *data)
{
  sigset_t set;

  (void) data;
  /* the browser cancels by killing us: the launcher and its ranks must not go on without us */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  kubus_stop_signals_set (&set);
  sigprocmask (SIG_UNBLOCK, &set, NULL);
}

void
kubus_forward_start (KubusForward *fw,
                     pid_t         pid)
{
  struct sigaction sa;
  sigset_t set;

  memset (&sa, 0, sizeof sa);
  first_received = 0;
  forward_pid = pid;
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  for (int i = 0; i < KUBUS_STOP_SIGNALS_N; i++)
    sigaction (kubus_stop_signals[i], &sa, &fw->old[i]);
  fw->started = 1;
  /* what came meanwhile goes to the launcher now */
  kubus_stop_signals_set (&set);
  pthread_sigmask (SIG_UNBLOCK, &set, NULL);
}

int
kubus_forward_stop (KubusForward *fw)
{
  sigset_t set;

  kubus_stop_signals_set (&set);
  pthread_sigmask (SIG_BLOCK, &set, NULL);
  forward_pid = 0;
  if (fw->started)
    for (int i = 0; i < KUBUS_STOP_SIGNALS_N; i++)
      sigaction (kubus_stop_signals[i], &fw->old[i], NULL);
  fw->started = 0;
  return first_received;
}

int
kubus_forward_received (void)
{
  return first_received;
}

void
kubus_forward_unblock (KubusForward *fw)
{
  pthread_sigmask (SIG_SETMASK, &fw->entry_mask, NULL);
}

void
kubus_forward_adopt_orphans (void)
{
  prctl (PR_SET_CHILD_SUBREAPER, 1);
}

/* SIGKILL to every process whose parent is this one (/proc/PID/stat: the field after the
 * command in parentheses is the state, then the parent). Returns how many were signalled. */
static int
kill_children (void)
{
  DIR *d = opendir ("/proc");
  struct dirent *e;
  pid_t self = getpid ();
  int n = 0;

  if (d == NULL)
    return 0;
  while ((e = readdir (d)) != NULL)
    {
      char path[300], buf[512], state;
      char *end = NULL, *close_paren;
      long pid = strtol (e->d_name, &end, 10), ppid;
      FILE *f;
      size_t len;

      if (end == e->d_name || *end != '\0' || pid <= 0 || pid == self)
        continue;
      snprintf (path, sizeof path, "/proc/%ld/stat", pid);
      f = fopen (path, "r");
      if (f == NULL)
        continue;
      len = fread (buf, 1, sizeof buf - 1, f);
      fclose (f);
      buf[len] = '\0';
      close_paren = strrchr (buf, ')');
      if (close_paren && sscanf (close_paren + 1, " %c %ld", &state, &ppid) == 2 && ppid == self
          && state != 'Z' && kill ((pid_t) pid, SIGKILL) == 0)
        n++;
    }
  closedir (d);
  return n;
}

int
kubus_forward_reap_orphans (int grace_ms)
{
  struct timespec step = { 0, 20000000L };
  int waited_ms = 0, killed = 0;

  for (;;)
    {
      pid_t r = waitpid (-1, NULL, WNOHANG);
      if (r > 0 || (r < 0 && errno == EINTR))
        continue;
      if (r < 0)
        break;          /* ECHILD: none left */
      /* still there after the grace: killed, and again each second (a grandchild adopted later) */
      if (waited_ms >= grace_ms && (waited_ms - grace_ms) % 1000 == 0)
        killed += kill_children ();
      nanosleep (&step, NULL);
      waited_ms += 20;
    }
  return killed;
}
