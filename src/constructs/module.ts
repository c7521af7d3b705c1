import { Construct } from 'constructs';
import { ModuleTypeSchema, type ModuleConfig, type ModuleType } from '../domain';
import { isSecretEnvEntry } from '../domain/module-env';
import { conventionalModuleName } from '../domain/names';
import { formatVersionPolicy, tryParseVersionPolicy, type VersionPolicy } from '../domain/version-policy';
import { FleetformError } from '../domain/errors';
import { rememberedByText } from '../domain/remembered';
import { constructTypeOf, markConstructType, markConstructTypeOfClass } from './construct-types';
import type { IMachine, IModule } from './machine-parts';
import { owningMachine } from './machine-scope';
import { registerChecks } from './checks';
import { machinePartChecks } from './machine-checks';
import { registerFleetConstruct } from './registry';
import { checkProps, PropsError, propSchemas } from './props';
import { givesCheckedEntries } from './machine-config';
import { z } from 'zod';
import type { Secret } from './secret';
import { describeSecretReference, type SecretReference } from '../domain/secret-reference';
import { overridePath, withOverrides, type ConfigOverride } from './config-overrides';

/** Properties of a {@link Module}. */
export interface ModuleProps {
  /**
   * Registry id `<namespace or organization id>:<module-name>`, e.g. `acme:sensors`.
   * Required for registry modules; optional for local ones (without it, their models'
   * prefixes cannot be checked and `model()` is unavailable).
   */
  readonly moduleId?: string;
  /**
   * Name of this module instance on the machine.
   * @default `<namespace>_<module-name>` from `moduleId` (the documented convention), else the construct id
   */
  readonly name?: string;
  /**
   * Version or update policy, in any form the domain accepts: `1.2.3` (pinned), `~1.2` or
   * `1.2.*` (newer patches of 1.2), `^1` or `1.*` (newer minors of 1), `latest`,
   * `latest-with-prerelease`. Written in its stored form (`1.2.*` becomes `~1.2`).
   * @default pinned, at the first apply, to the newest release then, and kept there
   */
  readonly version?: string;
  /**
   * Path of the module's executable on the machine: makes this a local module. Values may
   * use `${environment.NAME}`.
   * @default none: a registry module
   */
  readonly executablePath?: string;
  /**
   * `registry` or `local`, as the service's config names them: optional, since
   * `executablePath` already says which; when given, it must agree with it.
   * @default `local` with `executablePath`, else `registry`
   */
  readonly type?: ModuleType;
  /**
   * Extra environment of the module process. Values may use `${environment.NAME}`, e.g.
   * `{ PATH: '/opt/acme/bin:${environment.PATH}' }`. Keys that look secret (API_KEY,
   * TOKEN, PASSWORD, ...) are treated as `sensitiveEnv` automatically, and take their values
   * as it does: by reference, `Secret.fromEnv('NAME')` or `Secret.fromFile('/path')` (synthesis
   * writes the reference, never the value). A value that is wholly `${environment.NAME}` is
   * no secret (the machine fills it in from its own environment): it stays in `config`.
   * @default {}
   */
  readonly env?: Readonly<Record<string, string | Secret>>;
  /**
   * Environment entries that are secrets: the module gets them with `env`, but they are
   * synthesized in the machine's `secret_env` (sensitive as a whole), not in its `config`,
   * so plans and state never show them. Give each by reference, `Secret.fromEnv('NAME')` or
   * `Secret.fromFile('/path')`, or as `${environment.NAME}`, which the machine fills in from
   * its own environment. Other text (here, or under a secret-looking `env` key) is an error
   * at synth, since it would be written in clear to the synthesized stack, unless wrapped in
   * `Secret.plainText(value)`, which accepts that on purpose.
   * @default {}
   */
  readonly sensitiveEnv?: Readonly<Record<string, string | Secret>>;
  /** The module's log level (`debug`, `info`, `warn`, `error`), passed as `--log-level`. @default the machine's */
  readonly logLevel?: string;
  /** Leaves the module and its resources stopped. @default false */
  readonly disabled?: boolean;
  /** Timeout of the module's first-run script, a duration such as `30m`. @default 1h */
  readonly firstRunTimeout?: string;
  /** Talks to the module over TCP instead of a Unix socket. @default false */
  readonly tcpMode?: boolean;
  /** Local development: the path the module is reloaded from. */
  readonly reloadPath?: string;
  /** Local development: reloading is on. */
  readonly reloadEnabled?: boolean;
}

/** The run-time check of {@link ModuleProps}: strict, without coercion. */
export const modulePropsSchema = z.strictObject({
  moduleId: propSchemas.text.optional(),
  name: propSchemas.text.optional(),
  version: propSchemas.text.optional(),
  executablePath: propSchemas.text.optional(),
  env: propSchemas.secretOrStringMap.optional(),
  sensitiveEnv: propSchemas.secretOrStringMap.optional(),
  type: ModuleTypeSchema.optional(),
  logLevel: propSchemas.text.optional(),
  disabled: z.boolean().optional(),
  firstRunTimeout: propSchemas.text.optional(),
  tcpMode: z.boolean().optional(),
  reloadPath: propSchemas.text.optional(),
  reloadEnabled: z.boolean().optional(),
}) satisfies z.ZodType<ModuleProps>;

/** Module props written as they are, by their config key. */
const MODULE_SETTINGS = [
  ['logLevel', 'log_level'],
  ['disabled', 'disabled'],
  ['firstRunTimeout', 'first_run_timeout'],
  ['tcpMode', 'tcp_mode'],
  ['reloadPath', 'reload_path'],
  ['reloadEnabled', 'reload_enabled'],
] as const;

/** The env of a module given none: one object for them all. */
const NO_ENV: Readonly<Record<string, string>> = Object.freeze({});
const NO_KEYS: readonly string[] = Object.freeze([]);
const NO_REFERENCES: Readonly<Record<string, SecretReference>> = Object.freeze({});

/** The text entries of an env prop; its Secrets' references go to `references`. */
function textEntries(env: Readonly<Record<string, string | Secret>>, references: Record<string, SecretReference>): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value === 'string') text[key] = value;
    else references[key] = value.reference;
  }
  return text;
}

/** The text a reference's entry takes in a config assembled for checks: never a value. */
function secretText(ref: SecretReference): string {
  return `<secret from ${describeSecretReference(ref)}>`;
}

/** A `version` prop: its policy (undefined when it is none) and its stored form (the text as given then). */
interface ModuleVersion {
  readonly policy: VersionPolicy | undefined;
  readonly stored: string;
}

/** A `version` prop read (remembered by text: a fleet declares a handful of versions; policies shared, so frozen). */
const versionOf = rememberedByText((text): ModuleVersion => {
  const parsed = tryParseVersionPolicy(text);
  const policy = parsed === undefined ? undefined : Object.freeze(parsed);
  return { policy, stored: policy === undefined ? text : formatVersionPolicy(policy) };
});

/**
 * A module on a machine: an entry of its config's `modules` list. Declare it inside a
 * {@link Machine}; `model(name)` gives the full model triplet of one of its models.
 *
 * ```ts
 * const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
 * new ModularResource(machine, 'board', { api: 'rdk:component:board', model: sensors.model('pi-board') });
 * ```
 */
export class Module extends Construct implements IModule {
  /** Whether x is a Module (of any copy of this library). */
  static isModule(x: unknown): x is Module {
    return constructTypeOf(x) === 'module';
  }

  /** The machine whose config holds this module. */
  readonly machine: IMachine;
  /** `registry`, or `local` when `executablePath` is given. */
  readonly type: ModuleType;
  /** Name of this module instance. */
  readonly name: string;
  /** Registry module id, when given. */
  readonly moduleId: string | undefined;
  /** The version in its stored form (as written when it is not a valid policy), or undefined: pinned at first apply. */
  readonly version: string | undefined;
  /** The parsed update policy, when `version` is a valid one. */
  readonly versionPolicy: VersionPolicy | undefined;
  /** Local modules: the executable path. */
  readonly executablePath: string | undefined;
  /** The `env` entries as given (text; a Secret's entry is in secretReferences). */
  readonly env: Readonly<Record<string, string>>;
  /** The `sensitiveEnv` entries as given (text; a Secret's entry is in secretReferences). */
  readonly sensitiveEnv: Readonly<Record<string, string>>;
  /** The env entries given as a Secret: their references by env key. */
  readonly secretReferences: Readonly<Record<string, SecretReference>>;

  constructor(scope: Construct, id: string, props: ModuleProps = {}) {
    super(scope, id);
    markConstructType(this, 'module');
    checkProps(this, 'Module', modulePropsSchema, props);
    this.machine = owningMachine(this, 'Module');
    this.type = props.executablePath === undefined ? 'registry' : 'local';
    if (props.type !== undefined && props.type !== this.type) {
      throw new PropsError(`Module: type "${props.type}" disagrees with executablePath`, {
        path: this.node.path,
        hint:
          props.type === 'local'
            ? 'a local module runs the executable at executablePath: give it'
            : 'a registry module has no executablePath: remove it, or set type "local"',
      });
    }
    this.moduleId = props.moduleId;
    this.name = props.name ?? (props.moduleId !== undefined ? conventionalModuleName(props.moduleId) : undefined) ?? id;
    const version = props.version === undefined ? undefined : versionOf(props.version);
    this.versionPolicy = version?.policy;
    this.version = version?.stored;
    this.executablePath = props.executablePath;
    const references: Record<string, SecretReference> = {};
    this.env = props.env === undefined ? NO_ENV : textEntries(props.env, references);
    this.sensitiveEnv = props.sensitiveEnv === undefined ? NO_ENV : textEntries(props.sensitiveEnv, references);
    this.secretReferences = Object.keys(references).length === 0 ? NO_REFERENCES : references;
    this.settings = props;
    registerFleetConstruct(this);
  }

  /** The props beyond identity and env (log level, timeouts, ...), as given. */
  private readonly settings: ModuleProps;
  /** Keys set or removed in this module's entry after the typed ones: see addConfigOverride. */
  private readonly overrides: ConfigOverride[] = [];

  /**
   * Sets a key of this module's config entry (a dotted path into it) after the typed ones, or
   * removes it with `undefined` (e.g. `type`, for the older form that has none).
   */
  addConfigOverride(path: string, value: unknown): this {
    this.overrides.push({ path: overridePath(path, this.node.path), value });
    return this;
  }

  /**
   * The full model triplet `<moduleId>:<modelName>` of one of this module's models, e.g.
   * `sensors.model('hc-sr04')` is `acme:sensors:hc-sr04`.
   */
  model(modelName: string): string {
    if (this.moduleId === undefined) {
      throw new FleetformError(`module ${this.name} has no moduleId, so its model triplets are unknown`, {
        path: this.node.path,
        hint: 'give the module a moduleId, or write the model triplet in full',
      });
    }
    return `${this.moduleId}:${modelName}`;
  }

  /** Names of the environment entries that are secrets: `sensitiveEnv` keys and secret-looking `env` keys (but those whose value is wholly an environment placeholder). */
  get sensitiveEnvKeys(): readonly string[] {
    if (this.env === NO_ENV && this.sensitiveEnv === NO_ENV) return NO_KEYS;
    // Found once: the env props are fixed at construction, and a synth asks for them per check and per synthesis.
    if (this.sensitiveKeys !== undefined) return this.sensitiveKeys;
    const keys = new Set(Object.keys(this.sensitiveEnv));
    for (const [key, value] of Object.entries(this.env)) if (isSecretEnvEntry(key, value)) keys.add(key);
    this.sensitiveKeys = keys.size === 0 ? NO_KEYS : [...keys].sort();
    return this.sensitiveKeys;
  }

  /** The names of the secret env entries, once found (see sensitiveEnvKeys). */
  private sensitiveKeys: readonly string[] | undefined;

  /** @internal Whether this module's entry is made of its props alone (no override), each checked as `modules` would. */
  get entryOfCheckedProps(): boolean {
    return this.overrides.length === 0;
  }

  /**
   * This module's entry of the machine config's `modules` list, its whole env (secrets
   * included; a Secret's entry as its text, which synthesis leaves out: see secretReferences).
   */
  toConfig(): ModuleConfig {
    const entry: ModuleConfig = { type: this.type, name: this.name };
    if (this.moduleId !== undefined) entry.module_id = this.moduleId;
    if (this.version !== undefined) entry.version = this.version;
    if (this.executablePath !== undefined) entry.executable_path = this.executablePath;
    // Settings and overrides are read from this copy's own fields (a module of another copy has none).
    for (const [prop, key] of this.settings === undefined ? [] : MODULE_SETTINGS)
      if (this.settings[prop] !== undefined) (entry as Record<string, unknown>)[key] = this.settings[prop];
    if (this.env !== NO_ENV || this.sensitiveEnv !== NO_ENV || this.secretReferences !== NO_REFERENCES) {
      const env = { ...this.env, ...this.sensitiveEnv };
      for (const [key, ref] of Object.entries(this.secretReferences)) env[key] = secretText(ref);
      if (Object.keys(env).length > 0) entry.env = env;
    }
    return this.overrides === undefined ? entry : withOverrides(entry, this.overrides);
  }
}

// A module's fields are text, its flags booleans and its env text (a Secret's entry as its text): the form of `modules`, but for overrides.
givesCheckedEntries<Module>(Module.prototype.toConfig, (module) => module.entryOfCheckedProps);

markConstructTypeOfClass(Module, 'module');
registerChecks('module', machinePartChecks);
