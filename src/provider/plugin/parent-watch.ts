/**
 * The host (Terraform, OpenTofu) normally stops its providers through Shutdown. A host that
 * is killed never does, and its providers would live on, each holding its memory and its
 * connections. A provider whose parent process is gone has no host left: the system has
 * moved it to another parent (init or a subreaper), which `process.ppid` shows.
 *
 * Stdin is not watched: go-plugin gives a provider the host's own stdin, so reading it to
 * notice its end would take bytes meant for the host (the answer to `Enter a value:`), and
 * its end says nothing about the host (a terminal never ends; /dev/null ends at once).
 */

/** Calls `onGone` once the process that started this one has exited; returns a function that stops watching. */
export function watchParent(onGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  // Started by init itself: no parent to outlive.
  if (parent <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
