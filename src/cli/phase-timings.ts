/**
 * Where a command's time goes: with FLEETFORM_TIMINGS=1 the command writes one line
 * `fleetform-timings {...}` on stderr at its end, seconds per phase (start-up is the time
 * from the process's start until the command line is parsed).
 */
const phases: Record<string, number> = {};

/** Adds `seconds` to the phase `name`. */
export function recordPhase(name: string, seconds: number): void {
  phases[name] = (phases[name] ?? 0) + seconds;
}

/** Runs `fn`, adding its duration to the phase `name`. */
export async function timePhase<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    recordPhase(name, (performance.now() - started) / 1000);
  }
}

/** Writes the phases when FLEETFORM_TIMINGS=1; `startupS` is the time before the command began. */
export function writePhaseTimings(env: NodeJS.ProcessEnv, startupS: number): void {
  if (env.FLEETFORM_TIMINGS !== '1') return;
  const round = (s: number) => Math.round(s * 1000) / 1000;
  const report = {
    startup_s: round(startupS),
    ...Object.fromEntries(Object.entries(phases).map(([k, v]) => [`${k}_s`, round(v)])),
    total_s: round(performance.now() / 1000),
  };
  process.stderr.write(`fleetform-timings ${JSON.stringify(report)}\n`);
}
