import { spawn, type ChildProcess } from 'node:child_process';

/** How an app's process ended. */
export interface AppExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The end of what the app wrote to stderr. */
  readonly stderr: string;
  /** What the app wrote to its secret channel (see APP_SECRET_CHANNEL_FD), held in memory only. */
  readonly channel: string;
  /** Set when the app ran past its timeout and its process group was ended: the timeout, ms. */
  readonly timedOutMs?: number;
}

/** An app's process running: how it ends, and a way to end it early. */
export interface AppProcess {
  readonly exit: Promise<AppExit>;
  /** Ends the shell and everything it started, with one signal to their process group. */
  stop(): void;
}

const STDERR_LIMIT = 64 * 1024;

/** The descriptor of the app's process that is its private channel to this process: a pipe (a socket pair), never a file. */
export const APP_SECRET_CHANNEL_FD = 3;

/** Signals that end this process by default: the app's group goes with it. */
const ENDING_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs the app command in a shell, as `cdktf synth` does, in a process group of its own:
 * the shell does not pass a signal on to the app it started, so the group is ended as one.
 * The group is also ended when this process exits or is ended by a signal meanwhile, and
 * when the app runs longer than `timeoutMs` (with every process it started in the group).
 */
export function startAppProcess(command: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs?: number): AppProcess {
  // Windows has no process groups to signal (and a detached child gets a console of its own): there the shell is ended alone.
  const groups = process.platform !== 'win32';
  let child: ChildProcess | undefined;
  let running = true;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    clearTimeout(timer);
    if (!running) return;
    running = false;
    if (child?.pid === undefined) return;
    try {
      if (groups) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      // The group has ended already.
    }
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    stop();
    unwatch();
    // Nobody else handles the signal: it ends this process, as it would have.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const unwatch = (): void => {
    process.off('exit', stop);
    for (const signal of ENDING_SIGNALS) process.off(signal, onSignal);
  };
  // Watched before the app starts: it may run (and be waited on) before spawn returns.
  process.on('exit', stop);
  for (const signal of ENDING_SIGNALS) process.on(signal, onSignal);
  try {
    child = spawn(command, { cwd, shell: true, env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'], detached: groups, windowsHide: true });
  } catch (err) {
    unwatch();
    throw err;
  }
  if (timeoutMs !== undefined && timeoutMs > 0)
    timer = setTimeout(() => {
      timedOut = running;
      stop();
    }, timeoutMs);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_LIMIT);
  });
  const received: Buffer[] = [];
  const secretChannel = child.stdio[APP_SECRET_CHANNEL_FD];
  secretChannel?.on('data', (chunk: Buffer) => received.push(chunk));
  const started = child;
  const exit = new Promise<AppExit>((resolve, reject) => {
    started.on('error', (err) => {
      running = false;
      unwatch();
      reject(err);
    });
    // What the shell left running may hold the secret channel open: it is ended with the
    // shell, so the channel (and stderr) reach their end.
    started.on('exit', stop);
    started.on('close', (code, signal) => {
      // The shell has ended; what it left running in the group is ended with it.
      stop();
      unwatch();
      resolve({
        code,
        signal,
        stderr,
        channel: Buffer.concat(received).toString('utf8'),
        ...(timedOut && timeoutMs !== undefined ? { timedOutMs: timeoutMs } : {}),
      });
    });
  });
  return { exit, stop };
}
