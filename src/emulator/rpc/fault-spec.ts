/**
 * Fault specifications as users write them: `METHOD[:CODE[:COUNT]]`, e.g.
 * `CancelTrainingJob:unavailable:2`. CODE is a gRPC code name (default `unavailable`),
 * COUNT how many calls fail (default: every call).
 */
import { Code } from '@connectrpc/connect';
import { InputError } from '../../domain/errors';
import { nearNames } from '../../domain/suggest';
import type { FaultReport, FaultTable } from './faults';

/** The environment variable holding fault specs (comma-separated) for emulators started without flags. */
export const FAULTS_ENV = 'FLEETFORM_EMULATOR_FAIL';

export interface FaultSpec {
  readonly method: string;
  readonly code: Code;
  readonly count: number;
  /** The flag or variable it came from, named in errors. */
  readonly source: string;
}

/** A service whose methods can be faulted: its type name and its methods' names. */
export interface FaultableService {
  readonly typeName: string;
  readonly methods: Readonly<Record<string, { readonly name: string }>>;
}

function codeNames(): string[] {
  return Object.keys(Code)
    .filter((k) => Number.isNaN(Number(k)) && k !== 'Canceled')
    .map(snake);
}

function snake(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

/** The code's name as specs write it (`deadline_exceeded`). */
export function faultCodeName(code: Code): string {
  return code === Code.Canceled ? 'cancelled' : snake(Code[code]);
}

/** One line per fault for a person or a test: `fault NewRobot:unavailable fired 2 of 2 calls`. */
export function describeFaultReport(report: readonly FaultReport[]): string[] {
  return report.map((f) => {
    const armed = Number.isFinite(f.armed) ? `of ${f.armed} calls` : 'calls (armed for every call)';
    return `fault ${f.method}:${faultCodeName(f.code)} fired ${f.fired} ${armed}`;
  });
}

function codeOf(text: string, path: string): Code {
  const wanted = text.trim().toLowerCase().replace(/-/g, '_');
  for (const [name, value] of Object.entries(Code)) {
    if (typeof value === 'number' && snake(name) === wanted) return value;
  }
  if (wanted === 'cancelled') return Code.Canceled;
  const near = nearNames(wanted, codeNames());
  throw new InputError(`unknown gRPC code ${JSON.stringify(text)}`, {
    path,
    hint: `nearest: ${near.join(', ')}; all codes: ${codeNames().join(', ')}`,
  });
}

/** Reads one `METHOD[:CODE[:COUNT]]`; `path` names the flag or variable in errors. */
export function parseFaultSpec(text: string, path: string): FaultSpec {
  const [method = '', code, count, ...rest] = text.trim().split(':');
  if (!/^[A-Za-z][\w.]*(\/[A-Za-z]\w*)?$/.test(method) || rest.length > 0) {
    throw new InputError(`expected METHOD[:CODE[:COUNT]], not ${JSON.stringify(text)}`, {
      path,
      hint: 'e.g. CancelTrainingJob:unavailable:2',
    });
  }
  let n = Number.POSITIVE_INFINITY;
  if (count !== undefined && count !== '') {
    n = Number(count);
    if (!/^\d+$/.test(count) || n < 1)
      throw new InputError(`COUNT must be a whole number from 1, not ${JSON.stringify(count)}`, {
        path,
        hint: 'leave it out to fail every call',
      });
  }
  return { method, code: code ? codeOf(code, path) : Code.Unavailable, count: n, source: path };
}

/** Specs from the environment variable (comma-separated); none when unset. */
export function faultSpecsFromEnv(env: NodeJS.ProcessEnv): FaultSpec[] {
  const text = env[FAULTS_ENV];
  if (!text) return [];
  return text
    .split(',')
    .filter((s) => s.trim() !== '')
    .map((s) => parseFaultSpec(s, FAULTS_ENV));
}

/** The names a fault may use for the methods of `services`: `Method` and `package.Service/Method`. */
export function faultableMethodNames(services: readonly FaultableService[]): string[] {
  return services.flatMap((s) => Object.values(s.methods).flatMap((m) => [m.name, `${s.typeName}/${m.name}`]));
}

/**
 * Refuses a method no service serves: a fault on it would never fire. The error lists the
 * nearest names (the service's RPCs say Robot where fleetform says machine: `NewRobot`).
 */
export function checkFaultMethod(method: string, known: readonly string[], path: string): void {
  if (known.includes(method)) return;
  const shortNames = method.includes('/') ? known : known.filter((n) => !n.includes('/'));
  // The service's RPCs call a machine a robot: that spelling, when it exists, comes first.
  const robot = method.replace(/Machine/g, 'Robot');
  const near = [...new Set([...(known.includes(robot) ? [robot] : []), ...nearNames(method, shortNames)])].slice(0, 3);
  throw new InputError(`no RPC is named ${JSON.stringify(method)}, so a fault on it would never fire`, {
    path,
    hint: `did you mean ${near.join(', ')}? (METHOD is the RPC's short name, e.g. NewRobot, or package.Service/Method)`,
  });
}

/** Arms `specs` on `table` after checking every method against the served ones. */
export function installFaults(table: FaultTable, specs: readonly FaultSpec[], known: readonly string[]): void {
  for (const s of specs) checkFaultMethod(s.method, known, s.source);
  for (const s of specs) table.add(s.method, s.code, `injected fault (${s.method})`, s.count);
}
