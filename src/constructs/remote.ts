import { Construct } from 'constructs';
import { z } from 'zod';
import type { Frame, RemoteConfig, ServiceConfig } from '../domain/config-language';
import { checkProps, propSchemas } from './props';
import { textOrSecret, type Secret } from './secret';
import { owningMachine } from './machine-scope';
import { sectionsOf } from './machine-sections';

/** Properties of a {@link Remote}. */
export interface RemoteProps {
  /** Name of the remote. @default the construct id */
  readonly name?: string;
  /** Address of the other machine, e.g. `arm-pi.local:8080` or its cloud address. */
  readonly address: string;
  /** Prepended to the names of the remote's resources (and frames); older configs write `true` (the remote's name). */
  readonly prefix?: string | boolean;
  /** Places the remote's `world` frame in this machine's frame system. */
  readonly frame?: Frame;
  /**
   * Credentials: `{ type: 'api-key' | 'robot-location-secret' | 'robot-secret', payload }`;
   * `payload` is a secret (masked in plans, state and logs), but for a value that is wholly
   * an environment placeholder (`${environment.NAME}`, `${NAME}`), which the machine fills in
   * and which is shown as written.
   */
  readonly credentials?: { readonly type?: string; readonly payload?: string | Secret };
  /** With `api-key` credentials: the API key's id. */
  readonly entity?: string;
  /** Shorthand for a location secret (a secret: give a `Secret.fromEnv` or `Secret.fromFile` reference, or an environment placeholder the machine fills in). */
  readonly secret?: string | Secret;
  /** Allows a plaintext connection. @default false */
  readonly insecure?: boolean;
  /** How often the connection is checked, a duration. @default 10s */
  readonly connectionCheckInterval?: string;
  /** How soon a lost connection is tried again, a duration. @default 1s */
  readonly reconnectInterval?: string;
  /** Data capture of the remote's resources (each with its `name`). */
  readonly serviceConfigs?: readonly ServiceConfig[];
}

const remotePropsSchema = z.strictObject({
  name: propSchemas.text.optional(),
  address: z.string(),
  prefix: z.union([z.string(), z.boolean()]).optional(),
  frame: propSchemas.jsonObject.optional(),
  credentials: z.strictObject({ type: z.string().optional(), payload: propSchemas.secretOrString.optional() }).optional(),
  entity: z.string().optional(),
  secret: propSchemas.secretOrString.optional(),
  insecure: z.boolean().optional(),
  connectionCheckInterval: z.string().optional(),
  reconnectInterval: z.string().optional(),
  serviceConfigs: z.array(propSchemas.jsonObject).optional(),
});

/** Another machine whose resources this one uses: an entry of `remotes`. Declare it inside a Machine. */
export class Remote extends Construct {
  readonly name: string;
  private readonly props: RemoteProps;

  constructor(scope: Construct, id: string, props: RemoteProps) {
    super(scope, id);
    checkProps(this, 'Remote', remotePropsSchema, props);
    this.name = props.name ?? id;
    this.props = props;
    sectionsOf(owningMachine(this, 'Remote')).entries.push({ section: 'remotes', entry: () => this.toConfig() });
  }

  /** This remote's entry of the machine config: only what was given. */
  toConfig(): RemoteConfig {
    const p = this.props;
    const entry: RemoteConfig = { name: this.name, address: p.address };
    if (p.prefix !== undefined) entry.prefix = p.prefix;
    if (p.frame !== undefined) entry.frame = p.frame;
    if (p.credentials !== undefined || p.entity !== undefined) {
      entry.auth = {};
      if (p.credentials !== undefined) {
        const { payload, ...rest } = p.credentials;
        entry.auth.credentials = payload === undefined ? rest : { ...rest, payload: textOrSecret(payload) };
      }
      if (p.entity !== undefined) entry.auth.entity = p.entity;
    }
    if (p.secret !== undefined) entry.secret = textOrSecret(p.secret);
    if (p.insecure !== undefined) entry.insecure = p.insecure;
    if (p.connectionCheckInterval !== undefined) entry.connection_check_interval = p.connectionCheckInterval;
    if (p.reconnectInterval !== undefined) entry.reconnect_interval = p.reconnectInterval;
    if (p.serviceConfigs !== undefined) entry.service_configs = [...p.serviceConfigs];
    return entry;
  }
}
