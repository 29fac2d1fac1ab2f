/** How often the parent is looked for (ms): a stopped `npx` leaves its child at most this long. */
export const PARENT_CHECK_MS = 1000;

/**
 * Stops a long-running command (`serve`, `proxy`, `decide`, `answer`) when the process that started
 * it goes, as if it had been sent SIGTERM (the command's own graceful stop): `npx hitl proxy` stopped
 * through its `npx` (SIGTERM or SIGKILL) must not leave the proxy serving as an orphan. An orphan is
 * handed to another parent (init or a subreaper), so `process.ppid` changes. A process started by
 * init itself (a container's or a service manager's main process) has nothing to watch.
 * `HITL_EXIT_WITH_PARENT=0` keeps it running without its parent (`nohup … &` from a shell that exits).
 */
export function exitWithParent(env: NodeJS.ProcessEnv = process.env): void {
  if (env.HITL_EXIT_WITH_PARENT === '0') return;
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, PARENT_CHECK_MS);
  timer.unref();
}
