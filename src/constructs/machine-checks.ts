import { Token } from './cdk';
import type { IConstruct } from 'constructs';
import type { Issue, ValidationResult } from '../domain';
import { MANAGED_CONFIG_SECTIONS } from '../domain/config';
import { childPath } from '../domain/json-path';
import { FRAGMENT_RESOLVED_ISSUES } from '../domain/fragments';
import { scanJson, type JsonScan } from '../domain/json-limits';
import { hasOwnKeys } from '../domain/own-keys';
import { someStringIncludes } from '../domain/strings-within';
import { validateMachineConfig } from '../domain/validate';
import { inCode } from '../domain/certainty';
import type { IssueSink, KindChecks } from './checks';
import { camelFirstSegment } from './field-names';
import { constructTypeOf } from './construct-types';
import { FRAGMENT_KIND } from './machine-scope';
import type { AssembledMachine, ConfigEntrySource } from './machine-config';
import { fragmentImportsOf } from './fragment-imports';
import { judgedResolved, resolvedInCode } from './machine-resolved-checks';
import { isPlainTextSecret, PLAIN_TEXT_SECRET_HINT } from './secret';
import type { IMachine, IModularResource, IModule } from './machine-parts';

/** The key of an `env.KEY` or `env["KEY"]` path, if it is one. */
function envKeyOf(path: string): string | undefined {
  const dotted = /^env\.([A-Za-z_$][\w$]*)$/.exec(path);
  if (dotted) return dotted[1];
  const bracketed = /^env\[("(?:[^"\\]|\\.)*")\]$/.exec(path);
  if (bracketed) return JSON.parse(bracketed[1] as string) as string;
  return undefined;
}

/** The construct's own field name for the wire path of a value inside its config entry. */
function fieldOfEntry(source: ConfigEntrySource, rest: string): string {
  if (constructTypeOf(source.construct) === 'module') {
    const module = source.construct as IModule;
    const key = envKeyOf(rest);
    if (key !== undefined && key in module.sensitiveEnv && !(key in module.env)) {
      return `sensitiveEnv${rest.slice('env'.length)}`;
    }
  }
  return camelFirstSegment(rest);
}

/** How cdktf marks a string token inside a string: `${TfToken[TOKEN.12]}`. */
const STRING_TOKEN_MARK = '${TfToken[';

const ENTRY_PATH = new RegExp(`^((?:${MANAGED_CONFIG_SECTIONS.join('|')})\\[\\d+\\])(?:\\.(.*)|(\\[.*))?$`);

/** Strings holding unresolved CDKTF tokens, by wire path: a machine config takes literal values only. */
function tokenPaths(value: unknown, path: string, into: string[]): string[] {
  if (typeof value === 'string') {
    if (Token.isUnresolved(value)) into.push(path);
  } else if (Array.isArray(value)) value.forEach((v, i) => tokenPaths(v, childPath(path, i), into));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) tokenPaths(v, childPath(path, k), into);
  }
  return into;
}

/** Adds issues found at wire paths of a machine config to the construct behind each entry. */
class EntryAttribution {
  private byPath: Map<string, ConfigEntrySource> | undefined;

  constructor(
    private readonly machine: IConstruct,
    private readonly sources: readonly ConfigEntrySource[],
    private readonly sink: IssueSink,
  ) {}

  add(path: string, issue: Omit<Issue, 'path'>): void {
    const m = ENTRY_PATH.exec(path);
    this.byPath ??= new Map(this.sources.map((s) => [s.path, s]));
    const source = m ? this.byPath.get(m[1] as string) : undefined;
    if (!m || !source) {
      this.sink.add(this.machine, path, issue);
      return;
    }
    this.sink.add(source.construct, fieldOfEntry(source, m[2] ?? m[3] ?? ''), issue);
  }
}

const NO_PATHS: ReadonlySet<string> = new Set();

/** Reports each string of the config holding an unresolved token; returns their paths. */
function reportTokens(config: AssembledMachine['config'], scan: JsonScan, attribution: EntryAttribution): ReadonlySet<string> {
  // A token's mark starts as a placeholder does: only a config that may hold one is looked through.
  const tokens = scan.mayHoldTemplate && someStringIncludes(config, STRING_TOKEN_MARK) ? new Set(tokenPaths(config, '', [])) : NO_PATHS;
  for (const path of tokens) {
    attribution.add(path, {
      severity: 'error',
      code: 'unresolved-token',
      message: 'a machine config takes literal values; this one is a reference resolved only at apply',
      hint: 'write the value itself; references to other resources are not supported inside machine configs',
    });
  }
  return tokens;
}

/**
 * What the parts of a machine say of themselves, beyond its config: dependencies on
 * resources of other machines (their config paths, not reported again as missing names)
 * and env keys given twice or secrets given as text, reported after the config's issues.
 */
class PartFindings {
  foreign: Set<string> | undefined;
  private reports: Array<() => void> | undefined;

  constructor(
    private readonly machine: IMachine,
    private readonly sink: IssueSink,
  ) {}

  /** Reports what was found. */
  report(): void {
    if (this.reports !== undefined) for (const report of this.reports) report();
  }

  private later(report: () => void): void {
    (this.reports ??= []).push(report);
  }

  /** A resource's dependencies on resources of other machines. */
  resource(source: ConfigEntrySource, resource: IModularResource): void {
    const { dependsOn } = resource;
    for (let i = 0; i < dependsOn.length; i++) {
      const dep = dependsOn[i] as IModularResource | string;
      if (typeof dep === 'string' || dep.machine === this.machine) continue;
      (this.foreign ??= new Set()).add(`${source.path}.depends_on[${i}]`);
      this.later(() =>
        this.sink.error(
          resource,
          `dependsOn[${i}]`,
          'depends-on-other-machine',
          `depends on ${dep.node.path}, a resource of another machine (${dep.machine.node.path})`,
          'dependencies are between resources of one machine',
        ),
      );
    }
  }

  /** A module's secrets given as text and its env keys given in both env and sensitiveEnv. */
  module(module: IModule): void {
    // A fragment takes no secret at all (its own check says so).
    for (const key of constructTypeOf(this.machine) === FRAGMENT_KIND ? [] : module.sensitiveEnvKeys) {
      const field = key in module.sensitiveEnv ? 'sensitiveEnv' : 'env';
      const value = field === 'sensitiveEnv' ? module.sensitiveEnv[key] : module.env[key];
      if (typeof value !== 'string' || !isPlainTextSecret(value)) continue;
      this.later(() =>
        this.sink.error(
          module,
          `${field}.${key}`,
          'plain-text-secret',
          `${key} is a secret given as text: it would be written in clear to the synthesized stack`,
          PLAIN_TEXT_SECRET_HINT,
        ),
      );
    }
    if (!hasOwnKeys(module.sensitiveEnv)) return;
    for (const key of Object.keys(module.sensitiveEnv)) {
      if (!(key in module.env)) continue;
      this.later(() =>
        this.sink.error(
          module,
          `sensitiveEnv.${key}`,
          'duplicate-env',
          `${key} is set in both env and sensitiveEnv`,
          'keep it in sensitiveEnv only',
        ),
      );
    }
  }
}

/** What the machine's parts find of themselves, in one pass over them. */
function partFindingsOf(machine: IMachine, sources: readonly ConfigEntrySource[], sink: IssueSink): PartFindings {
  const findings = new PartFindings(machine, sink);
  for (let s = 0; s < sources.length; s++) {
    const source = sources[s] as ConfigEntrySource;
    const kind = constructTypeOf(source.construct);
    if (kind === 'modular-resource') findings.resource(source, source.construct as IModularResource);
    else if (kind === 'module') findings.module(source.construct as IModule);
  }
  return findings;
}

/** The machine's config document as assembled, checked by the domain rules, each issue on the part that declared it. */
export function checkMachineConfig(machine: IMachine, { config, sources, parsedEntries }: AssembledMachine, sink: IssueSink): void {
  const attribution = new EntryAttribution(machine, sources, sink);
  // One walk of the config for the limits and placeholders.
  const scan = scanJson(config);
  const tokens = reportTokens(config, scan, attribution);
  const parts = partFindingsOf(machine, sources, sink);
  // A machine's registry modules may omit their version: apply pins them.
  const found = validateMachineConfig(config, { allowUnpinnedModules: true, scan, parsed: parsedEntries });
  const result = judgedInCode(machine, config, found);
  if (result.errors.length > 0 || result.warnings.length > 0) {
    for (const issues of [result.errors, result.warnings]) {
      for (const issue of issues) {
        if (issue.code === 'placeholder' && tokens.has(issue.path)) continue;
        if (result.judgedAtPlan && FRAGMENT_RESOLVED_ISSUES.has(issue.code)) continue;
        if (parts.foreign?.has(issue.path)) continue;
        attribution.add(issue.path, issue);
      }
    }
  }
  parts.report();
}

/**
 * The findings of a machine's config as code declares it. A fragment is part of other
 * configs: what it certainly fails is judged in each machine importing it. What a machine's
 * fragments bring (a module, a dependency's target) is judged on its config resolved with
 * them: here when the stack declares each, else at plan.
 */
function judgedInCode(
  machine: IMachine,
  config: AssembledMachine['config'],
  found: ValidationResult,
): ValidationResult & { judgedAtPlan: boolean } {
  if (constructTypeOf(machine) === FRAGMENT_KIND) return { ...found, judgedAtPlan: false };
  const acknowledged = machine.acknowledgments ?? [];
  if (fragmentImportsOf(machine).length === 0) return { ...inCode(found, config, acknowledged), judgedAtPlan: false };
  const resolution = resolvedInCode(machine, config as Record<string, unknown>);
  if (resolution) return { ...judgedResolved(found, config as Record<string, unknown>, resolution, acknowledged), judgedAtPlan: false };
  return { ...inCode(found, config, acknowledged, { judgedElsewhere: FRAGMENT_RESOLVED_ISSUES }), judgedAtPlan: true };
}

/** Machine names: not empty, unique per location. */
export function checkMachineNames(machines: readonly IMachine[], sink: IssueSink): void {
  const seen = new Map<string, IMachine>();
  for (const machine of machines) {
    if (machine.name.trim() === '') {
      sink.error(machine, 'name', 'machine-name', 'machine name is empty', 'name the machine, or leave name out to use the construct id');
      continue;
    }
    const key = `${machine.locationId ?? ''}\u0000${machine.name}`;
    const first = seen.get(key);
    if (first) {
      sink.error(
        machine,
        'name',
        'duplicate-machine-name',
        `machine name "${machine.name}" is also used by ${first.node.path}`,
        'machine names are unique per location; rename one',
      );
    } else seen.set(key, machine);
  }
}

/** Modules and modular resources are checked with the machine whose config holds them. */
export const machinePartChecks: KindChecks<IConstruct> = { acrossStack: 'checked-elsewhere' };
