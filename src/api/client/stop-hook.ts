/**
 * A test-only hook for crash tests: with FLEETFORM_TEST_KILL_AT_CALL=N the process kills
 * itself with SIGKILL at its Nth service call, before sending it (`N`) or once its answer
 * arrived (`N:after`), so a crash can be placed at every point of an apply.
 */
const HOOK_ENV = 'FLEETFORM_TEST_KILL_AT_CALL';

interface StopPoint {
  readonly call: number;
  readonly after: boolean;
}

function stopPoint(): StopPoint | undefined {
  const m = /^(\d+)(:after)?$/.exec(process.env[HOOK_ENV] ?? '');
  return m ? { call: Number(m[1]), after: Boolean(m[2]) } : undefined;
}

const point = stopPoint();
let calls = 0;

/** Runs one service call, dying at the chosen point when the hook is set. */
export async function underStopHook<T>(call: () => Promise<T>): Promise<T> {
  if (!point) return call();
  calls += 1;
  const n = calls;
  if (n === point.call && !point.after) process.kill(process.pid, 'SIGKILL');
  const result = await call();
  if (n === point.call && point.after) process.kill(process.pid, 'SIGKILL');
  return result;
}
