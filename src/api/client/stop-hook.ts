/**
 * A test-only hook for crash tests: with FLEETFORM_TEST_KILL_AT_CALL=N the process kills
 * itself with SIGKILL at its Nth service call, before sending it (`N`) or once its answer
 * arrived (`N:after`), so a crash can be placed at every point of an apply. A method name
 * instead of N (`NewRobot:after`, `NewRobot#2:after` for its second call) places it at a
 * call of that RPC: Terraform starts a provider several times a run, each counting anew.
 */
const HOOK_ENV = 'FLEETFORM_TEST_KILL_AT_CALL';

interface StopPoint {
  /** The RPC counted, or undefined for every call. */
  readonly method: string | undefined;
  readonly call: number;
  readonly after: boolean;
}

function stopPoint(): StopPoint | undefined {
  const text = process.env[HOOK_ENV] ?? '';
  const byCount = /^(\d+)(:after)?$/.exec(text);
  if (byCount) return { method: undefined, call: Number(byCount[1]), after: Boolean(byCount[2]) };
  const byMethod = /^([A-Z][A-Za-z]*)(?:#(\d+))?(:after)?$/.exec(text);
  return byMethod ? { method: byMethod[1], call: Number(byMethod[2] ?? 1), after: Boolean(byMethod[3]) } : undefined;
}

const point = stopPoint();
let calls = 0;

/** Runs one service call (of RPC `methodName`), dying at the chosen point when the hook is set. */
export async function underStopHook<T>(call: () => Promise<T>, methodName?: string): Promise<T> {
  if (!point || (point.method !== undefined && point.method !== methodName)) return call();
  calls += 1;
  const n = calls;
  if (n === point.call && !point.after) process.kill(process.pid, 'SIGKILL');
  const result = await call();
  if (n === point.call && point.after) process.kill(process.pid, 'SIGKILL');
  return result;
}
