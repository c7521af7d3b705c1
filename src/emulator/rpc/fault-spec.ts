/**
 * Fault specifications as users write them: `METHOD[:CODE[:COUNT]]`, e.g.
 * `CancelTrainingJob:unavailable:2`. CODE is a gRPC code name (default `unavailable`),
 * COUNT how many calls fail (default: every call).
 */
import { Code } from '@connectrpc/connect';
import { InputError } from '../../domain/errors';
import type { FaultTable } from './faults';

/** The environment variable holding fault specs (comma-separated) for emulators started without flags. */
export const FAULTS_ENV = 'FLEETFORM_EMULATOR_FAIL';

export interface FaultSpec {
  readonly method: string;
  readonly code: Code;
  readonly count: number;
}

function codeNames(): string[] {
  return Object.keys(Code).filter((k) => Number.isNaN(Number(k)) && k !== 'Canceled').map(snake);
}

function snake(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

function codeOf(text: string, path: string): Code {
  const wanted = text.trim().toLowerCase().replace(/-/g, '_');
  for (const [name, value] of Object.entries(Code)) {
    if (typeof value === 'number' && snake(name) === wanted) return value;
  }
  if (wanted === 'cancelled') return Code.Canceled;
  throw new InputError(`unknown gRPC code ${JSON.stringify(text)}`, { path, hint: `use one of ${codeNames().join(', ')}` });
}

/** Reads one `METHOD[:CODE[:COUNT]]`; `path` names the flag or variable in errors. */
export function parseFaultSpec(text: string, path: string): FaultSpec {
  const [method = '', code, count, ...rest] = text.trim().split(':');
  if (!/^[A-Za-z][\w.]*(\/[A-Za-z]\w*)?$/.test(method) || rest.length > 0) {
    throw new InputError(`expected METHOD[:CODE[:COUNT]], not ${JSON.stringify(text)}`, { path, hint: 'e.g. CancelTrainingJob:unavailable:2' });
  }
  let n = Number.POSITIVE_INFINITY;
  if (count !== undefined && count !== '') {
    n = Number(count);
    if (!/^\d+$/.test(count) || n < 1) throw new InputError(`COUNT must be a whole number from 1, not ${JSON.stringify(count)}`, { path, hint: 'leave it out to fail every call' });
  }
  return { method, code: code ? codeOf(code, path) : Code.Unavailable, count: n };
}

/** Specs from the environment variable (comma-separated); none when unset. */
export function faultSpecsFromEnv(env: NodeJS.ProcessEnv): FaultSpec[] {
  const text = env[FAULTS_ENV];
  if (!text) return [];
  return text.split(',').filter((s) => s.trim() !== '').map((s) => parseFaultSpec(s, FAULTS_ENV));
}

export function installFaults(table: FaultTable, specs: readonly FaultSpec[]): void {
  for (const s of specs) table.add(s.method, s.code, `injected fault (${s.method})`, s.count);
}
