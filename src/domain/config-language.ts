import { z } from 'zod';
import { TriggerSchema } from './triggers';

/**
 * The whole machine (part) config language: a schema for every top-level section and every
 * entry field. Every object is loose: a key fleetform does not know yet (a newer section,
 * `_comment`) is kept as written and round-trips untouched. The schemas take what the
 * machine server decodes; the rules on values that only fail one item at run time are
 * checks (validate.ts, config-checks.ts), not schemas.
 */

const json = z.unknown();
const record = z.record(z.string(), json);
const stringMap = z.record(z.string(), z.string());

/** `{x, y, z}`, each optional (0 when left out). */
const Vector3Schema = z.looseObject({ x: z.number().optional(), y: z.number().optional(), z: z.number().optional() });

/** A frame: where a component (or a remote's `world`) sits in the machine's frame system. */
export const FrameSchema = z.looseObject({
  /** The frame this one is placed in (`world` or a component's name); required for the frame to load. */
  parent: z.string().optional(),
  /** Offset in millimetres from the parent. */
  translation: Vector3Schema.optional(),
  /** `{type, value}`: `ov_degrees`, `ov_radians`, `axis_angles`, `euler_angles` or `quaternion`. */
  orientation: z.looseObject({ type: z.string().optional(), value: record.optional() }).optional(),
  /** A collision shape: `box`, `sphere`, `capsule`, `cylinder`, `point` or `mesh`. */
  geometry: record.optional(),
  /** A name for the frame other than the resource's (local files only). */
  id: z.string().optional(),
});
export type Frame = z.infer<typeof FrameSchema>;

/** One data capture method of a resource (data manager `capture_methods[]`). */
export const CaptureMethodSchema = z.looseObject({
  method: z.string().optional(),
  capture_frequency_hz: z.number().optional(),
  capture_queue_size: z.number().int().optional(),
  capture_buffer_size: z.number().int().optional(),
  additional_params: record.optional(),
  disabled: z.boolean().optional(),
  tags: z.array(z.string()).optional(),
  capture_directory: z.string().optional(),
  name: z.string().optional(),
});

/** Config a resource carries for another service (data capture): `{type, attributes}`. */
export const ServiceConfigSchema = z.looseObject({
  /** A service API triplet, or a bare name meaning `rdk:service:<name>` (`data_manager`). */
  type: z.string(),
  attributes: z.looseObject({ capture_methods: z.array(CaptureMethodSchema).optional() }).optional(),
});
export type ServiceConfig = z.infer<typeof ServiceConfigSchema>;

/** The log levels a resource, a module, a job or a log pattern takes (any case; `warning` is `warn`). */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'warning', 'error'] as const;

/** `{level}`: the log level of one resource or job. */
export const LogConfigurationSchema = z.looseObject({ level: z.string().optional() });
export type LogConfiguration = z.infer<typeof LogConfigurationSchema>;

/** An API written as an object, `{namespace, type, subtype}`. */
export const ApiObjectSchema = z.looseObject({ namespace: z.string(), type: z.string(), subtype: z.string() });
/** A model written as an object, `{namespace, model_family, name}`. */
export const ModelObjectSchema = z.looseObject({ namespace: z.string(), model_family: z.string(), name: z.string() });

/**
 * An entry of `components` or `services`: a builtin resource or a module's. Its API is
 * `api` (a triplet or an object) or, when `api` is absent, `type` with an optional
 * `namespace`; its model a triplet, a bare builtin name or an object (see resource-forms.ts).
 */
export const ResourceEntrySchema = z.looseObject({
  /**
   * Name of this instance; unique per API. Left out, a service is the API's default one
   * (`builtin`), and a component is left out by the machine server (a warning).
   */
  name: z.string().optional(),
  /** API triplet `<namespace>:<component|service>:<api-name>`, or its object form. */
  api: z.union([z.string(), ApiObjectSchema]).optional(),
  /** Legacy API form: the API's last part, read only when `api` is absent. */
  type: z.string().optional(),
  /** Legacy API form: the API's namespace (`rdk` when left out). */
  namespace: z.string().optional(),
  /** Model triplet, bare builtin model name, or object. */
  model: z.union([z.string(), ModelObjectSchema]).optional(),
  /** Model-specific attributes. */
  attributes: record.optional(),
  /** Short names of resources that must be available first. */
  depends_on: z.array(z.string()).optional(),
  /** Where the component sits in the frame system (a frame that does not parse is dropped at run time: see FrameSchema, checked as a warning). */
  frame: record.optional(),
  /** Config attached for other services (data capture). */
  service_configs: z.array(ServiceConfigSchema).optional(),
  /** This resource's log level. */
  log_configuration: LogConfigurationSchema.optional(),
  /** The machine does not build this resource (the entry is kept; `false` or absent builds it). */
  disabled: z.boolean().optional(),
});
export type ResourceEntry = z.infer<typeof ResourceEntrySchema>;

/** An entry of `remotes`: another machine whose resources this one uses. */
export const RemoteSchema = z.looseObject({
  name: z.string(),
  address: z.string().optional(),
  /** Older configs write a boolean (prefix with the remote's name). */
  prefix: z.union([z.string(), z.boolean()]).optional(),
  frame: record.optional(),
  auth: z
    .looseObject({
      credentials: z.looseObject({ type: z.string().optional(), payload: z.string().optional() }).optional(),
      entity: z.string().optional(),
    })
    .optional(),
  secret: z.string().optional(),
  insecure: z.boolean().optional(),
  managed_by: z.string().optional(),
  connection_check_interval: z.string().optional(),
  reconnect_interval: z.string().optional(),
  service_configs: z.array(ServiceConfigSchema).optional(),
});
export type RemoteConfig = z.infer<typeof RemoteSchema>;

/** An entry of `processes` (ignored by current machine servers; kept as written). */
export const ProcessSchema = z.looseObject({
  /** Required by the machine servers that still ran processes; current ones ignore the section. */
  id: z.string().optional(),
  name: z.string(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  one_shot: z.boolean().optional(),
  log: z.boolean().optional(),
  username: z.string().optional(),
  env: stringMap.optional(),
  stop_signal: z.union([z.string(), z.number()]).optional(),
  stop_timeout: z.string().optional(),
});
export type ProcessConfig = z.infer<typeof ProcessSchema>;

/** An entry of `jobs`: a method of a resource called on a schedule. */
export const JobSchema = z.looseObject({
  name: z.string().optional(),
  schedule: z.string().optional(),
  resource: z.string().optional(),
  method: z.string().optional(),
  command: record.optional(),
  log_configuration: LogConfigurationSchema.optional(),
});
export type JobConfig = z.infer<typeof JobSchema>;

/** The machine's web server. */
export const NetworkSchema = z.looseObject({
  fqdn: z.string().optional(),
  bind_address: z.string().optional(),
  tls_cert_file: z.string().optional(),
  tls_key_file: z.string().optional(),
  no_tls: z.boolean().optional(),
  sessions: z.looseObject({ heartbeat_window: z.string().optional() }).optional(),
  traffic_tunnel_endpoints: z.array(z.looseObject({ port: z.number().int(), connection_timeout: z.string().optional() })).optional(),
});
export type NetworkConfig = z.infer<typeof NetworkSchema>;

/** The machine's own authentication: API key handlers (their keys are secret). */
export const AuthSchema = z.looseObject({
  handlers: z.array(z.looseObject({ type: z.string(), config: record.optional() })).optional(),
  tls_auth_entities: z.array(z.string()).optional(),
  external_auth_config: record.optional(),
});
export type AuthConfig = z.infer<typeof AuthSchema>;

/** Reconfigures only while a sensor's reading at a key is `true`. */
export const MaintenanceSchema = z.looseObject({ sensor_name: z.string().optional(), maintenance_allowed_key: z.string().optional() });
export type MaintenanceConfig = z.infer<typeof MaintenanceSchema>;

/** An entry of `log`: a log level for the loggers whose names match a pattern. */
export const LogPatternSchema = z.looseObject({ pattern: z.string(), level: z.string() });
export type LogPattern = z.infer<typeof LogPatternSchema>;

/** Tracing of the machine server. */
export const TracingSchema = z.looseObject({
  enabled: z.boolean().optional(),
  disk: z.boolean().optional(),
  console: z.boolean().optional(),
  otlpendpoint: z.string().optional(),
});

/** Settings viam-agent reads (not viam-server): versions, provisioning, networks, the OS. */
export const AgentSchema = z.looseObject({
  version_control: record.optional(),
  advanced_settings: record.optional(),
  network_configuration: record.optional(),
  additional_networks: z.record(z.string(), record).optional(),
  system_configuration: record.optional(),
});
export type AgentConfig = z.infer<typeof AgentSchema>;

/** Who writes a section: code, or the service alone (never declared in code). */
export type SectionOwner = 'code' | 'service';

/**
 * How adoption writes a section: by a construct per entry (`entries`), read by a step of its
 * own (`apart`: the resource lists, modules, packages, fragment imports), or else by the
 * section's prop when it has one, an override when not.
 */
export type SectionAdoption = 'entries' | 'apart';

/** One top-level section: its schema and what the docs and the README say of it. */
export interface SectionDeclaration {
  readonly schema: z.ZodType;
  /** The docs line. */
  readonly description: string;
  readonly owner: SectionOwner;
  /** How code declares it (for a section with a prop: `Machine \`prop\``, written by sectionConstruct). */
  readonly construct?: string;
  /**
   * The prop of Machine (and Part) that declares the section as written (a top-level object,
   * list or scalar): typed and checked by the schema's form, synthesized under the key,
   * written by adoption.
   */
  readonly prop?: string;
  /** Entries compared by name in plans when every entry is an object with a name of its own. */
  readonly namedList?: true;
  readonly adopt?: SectionAdoption;
}

/**
 * Every top-level section of a part's config, in the order a config lists them. Sections
 * owned by code are managed (planned, applied, adopted); `revision` and `cloud` are the
 * service's own. A key not listed here is kept as written and managed as an override.
 */
export const CONFIG_LANGUAGE = {
  components: {
    schema: z.array(json),
    description: "Components: builtin ones and modules' (with frames, data capture, log levels).",
    owner: 'code',
    construct: 'ModularResource, Component',
    adopt: 'apart',
  },
  services: {
    schema: z.array(json),
    description: "Services: builtin ones (data manager, motion, vision, ...) and modules'.",
    owner: 'code',
    construct: 'ModularResource, Service',
    adopt: 'apart',
  },
  modules: {
    schema: z.array(json),
    description: 'Registry and local modules, with env, log level and timeouts.',
    owner: 'code',
    construct: 'Module',
    adopt: 'apart',
  },
  packages: {
    schema: z.array(json),
    description: 'Registry packages: models, archives, SLAM maps, modules.',
    owner: 'code',
    construct: 'Package, Machine.deployModel',
    adopt: 'apart',
  },
  remotes: {
    schema: z.array(RemoteSchema),
    description: 'Other machines whose resources this one uses (credentials secret).',
    owner: 'code',
    construct: 'Remote',
    adopt: 'entries',
  },
  processes: {
    schema: z.array(ProcessSchema),
    description: 'Processes the machine server once started; ignored since viam-server v0.74.0.',
    owner: 'code',
    construct: 'Process',
    adopt: 'entries',
  },
  jobs: { schema: z.array(JobSchema), description: 'Scheduled calls of a resource method.', owner: 'code', prop: 'jobs' },
  network: {
    schema: NetworkSchema,
    description: 'Web server: bind address, TLS, sessions, traffic tunnels.',
    owner: 'code',
    prop: 'network',
  },
  auth: {
    schema: AuthSchema,
    description: 'API key handlers (keys secret), TLS entities, external auth.',
    owner: 'code',
    prop: 'auth',
  },
  maintenance: {
    schema: MaintenanceSchema,
    description: 'A sensor that allows or blocks reconfiguring.',
    owner: 'code',
    prop: 'maintenance',
  },
  log: { schema: z.array(LogPatternSchema), description: 'Log levels by logger name pattern.', owner: 'code', prop: 'log' },
  debug: {
    schema: z.boolean(),
    description: 'Debug logging for the whole machine and its modules.',
    owner: 'code',
    prop: 'debug',
  },
  enable_web_profile: {
    schema: z.boolean(),
    description: 'The pprof profiling server on localhost.',
    owner: 'code',
    prop: 'enableWebProfile',
  },
  disable_log_deduplication: {
    schema: z.boolean(),
    description: 'Turns off the deduplication of repeated log lines.',
    owner: 'code',
    prop: 'disableLogDeduplication',
  },
  tracing: {
    schema: TracingSchema,
    description: 'Tracing to disk, console or an OTLP endpoint.',
    owner: 'code',
    prop: 'tracing',
  },
  agent: {
    schema: AgentSchema,
    description: 'viam-agent settings: versions, provisioning hotspot (password secret), networks (keys secret), OS.',
    owner: 'code',
    prop: 'agent',
  },
  disable_partial_start: {
    schema: z.boolean(),
    description: 'Read by no current machine server; kept as written.',
    owner: 'code',
    construct: 'Machine.addConfigOverride',
  },
  global_log_configuration: {
    schema: json,
    description: 'An older form of `log`, read by no current machine server; kept as written.',
    owner: 'code',
    construct: 'Machine.addConfigOverride',
  },
  triggers: {
    schema: z.array(TriggerSchema),
    description:
      'Notifications (webhook, e-mail) when a part goes online or offline or its data or logs are ingested (webhook URLs with a token secret).',
    owner: 'code',
    construct: 'Trigger',
    namedList: true,
    adopt: 'entries',
  },
  fragments: { schema: z.array(json), description: 'Fragment imports.', owner: 'code', construct: 'Machine.useFragment', adopt: 'apart' },
  fragment_mods: {
    schema: z.array(json),
    description: 'Changes made to imported fragments.',
    owner: 'code',
    construct: 'Machine.useFragment `mods`',
    adopt: 'apart',
  },
  cloud: {
    schema: record,
    description: "The machine's identity and secrets; the service and /etc/viam.json give it.",
    owner: 'service',
    construct: "(none: the service's own)",
  },
  revision: {
    schema: z.string(),
    description: "The service's revision of the config.",
    owner: 'service',
    construct: "(none: the service's own)",
  },
} as const satisfies Readonly<Record<string, SectionDeclaration>>;

export type DeclaredSection = keyof typeof CONFIG_LANGUAGE;

/** Whether code writes this top-level key: every key but those the service alone owns. */
export function isCodeOwnedKey(key: string): boolean {
  const declared = (CONFIG_LANGUAGE as Readonly<Record<string, SectionDeclaration>>)[key];
  return declared === undefined || declared.owner === 'code';
}

/** Whether a top-level key is a section of the language (not an unknown key kept as written). */
export function isDeclaredSection(key: string): key is DeclaredSection {
  return Object.prototype.hasOwnProperty.call(CONFIG_LANGUAGE, key);
}

/** Module fields beyond a module's identity: log level, disabling, reloading and timeouts. */
export const ModuleSettingsShape = {
  /** `debug`, `info`, `warn` or `error`, passed to the module as `--log-level`. */
  log_level: z.string().optional(),
  /** Leaves the module (and its resources) stopped. */
  disabled: z.boolean().optional(),
  /** Timeout of the module's `first_run` script (a duration, default 1h). */
  first_run_timeout: z.string().optional(),
  /** Talks to the module over TCP instead of a Unix socket. */
  tcp_mode: z.boolean().optional(),
  /** Local development: the module is rebuilt from this path on reload. */
  reload_path: z.string().optional(),
  /** Local development: reloading is turned on. */
  reload_enabled: z.boolean().optional(),
  /** Set by a hot reload: who reloaded. Kept as the service holds it unless code declares it. */
  reload_user: z.string().optional(),
  /** Set by a hot reload: when (RFC 3339). */
  reload_time: z.string().optional(),
  /** Set by a hot reload: the developer's note. */
  reload_annotation: z.string().optional(),
  /** Set by the service only (an error it found); kept as written. */
  status: record.optional(),
} as const;

/** The prefix of a remote's resource names: older configs write `true` for the remote's own name, `false` for none. */
export function remoteNamePrefix(name: string, prefix: string | boolean | undefined): string {
  if (typeof prefix === 'string') return prefix;
  return prefix === true ? `${name}.` : '';
}

type Language = typeof CONFIG_LANGUAGE;

/** The sections a prop of Machine (and Part) declares. */
export type PropSection = { [K in DeclaredSection]: Language[K] extends { readonly prop: string } ? K : never }[DeclaredSection];

/** The sections adoption writes as a construct per entry. */
export type EntrySection = { [K in DeclaredSection]: Language[K] extends { readonly adopt: 'entries' } ? K : never }[DeclaredSection];

/** A section a prop declares: its key in the config, its prop, its schema. */
export interface PropSectionDeclaration<K extends PropSection = PropSection> {
  readonly key: K;
  readonly prop: Language[K]['prop'];
  readonly schema: Language[K]['schema'];
}

const DECLARATIONS = Object.entries(CONFIG_LANGUAGE) as ReadonlyArray<[DeclaredSection, SectionDeclaration]>;

/** Every section a prop declares, in the order of the language (the order a machine writes them). */
export const PROP_SECTIONS: readonly PropSectionDeclaration[] = DECLARATIONS.flatMap(([key, d]) =>
  d.prop === undefined ? [] : [{ key, prop: d.prop, schema: d.schema } as PropSectionDeclaration],
);

/** The schemas of the sections props declare, by key, each optional: to spread in a config's schema. */
export const PROP_SECTION_SHAPE = Object.fromEntries(PROP_SECTIONS.map((s) => [s.key, s.schema.optional()])) as {
  readonly [K in PropSection]: z.ZodOptional<Language[K]['schema']>;
};

/** The prop that declares a section, when one does. */
export function sectionProp(key: string): string | undefined {
  return isDeclaredSection(key) ? (CONFIG_LANGUAGE[key] as SectionDeclaration).prop : undefined;
}

/** The section a prop of Machine (and Part) declares, when it declares one. */
export function propSection(prop: string): PropSection | undefined {
  return PROP_SECTIONS.find((s) => s.prop === prop)?.key;
}

/** How adoption writes a top-level key: its prop, a construct per entry, a step of its own, or an override. */
export function sectionAdoption(key: string): SectionAdoption | 'prop' | 'override' {
  const declared = isDeclaredSection(key) ? (CONFIG_LANGUAGE[key] as SectionDeclaration) : undefined;
  if (declared?.adopt !== undefined) return declared.adopt;
  return declared?.prop !== undefined ? 'prop' : 'override';
}

/** How code declares a section, as the docs say it. */
export function sectionConstruct(declared: SectionDeclaration): string {
  return declared.construct ?? `Machine \`${declared.prop ?? ''}\``;
}

/** Sections whose entries plans compare by name (see SectionDeclaration.namedList). */
export const NAMED_LIST_SECTIONS: readonly DeclaredSection[] = DECLARATIONS.filter(([, d]) => d.namedList === true).map(([key]) => key);
