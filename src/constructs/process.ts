import { Construct } from 'constructs';
import { z } from 'zod';
import type { ProcessConfig } from '../domain/config-language';
import { checkProps, propSchemas } from './props';
import { owningMachine } from './machine-scope';
import { sectionsOf } from './machine-sections';

/** Properties of a {@link Process}. */
export interface ProcessProps {
  /** Id of the process. @default the construct id */
  readonly id?: string;
  /** The executable to run. */
  readonly name: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Runs once instead of being kept running. */
  readonly oneShot?: boolean;
  /** Logs the process's output. */
  readonly log?: boolean;
  /** Runs as this user. */
  readonly username?: string;
  /** Environment of the process (values may be secret). */
  readonly env?: Readonly<Record<string, string>>;
  /** `TERM`, `SIGINT`, ... or the signal's number. */
  readonly stopSignal?: string | number;
  /** How long a stop may take, a duration. @default 10s */
  readonly stopTimeout?: string;
}

const processPropsSchema = z.strictObject({
  id: propSchemas.text.optional(),
  name: z.string(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  oneShot: z.boolean().optional(),
  log: z.boolean().optional(),
  username: z.string().optional(),
  env: propSchemas.stringMap.optional(),
  stopSignal: z.union([z.string(), z.number()]).optional(),
  stopTimeout: z.string().optional(),
});

/**
 * A process the machine server once started beside itself: an entry of `processes`.
 * viam-server v0.74.0 and later ignore this section (the plan warns); it is kept so a
 * config that has it is declared exactly.
 */
export class Process extends Construct {
  private readonly props: ProcessProps;

  constructor(scope: Construct, id: string, props: ProcessProps) {
    super(scope, id);
    checkProps(this, 'Process', processPropsSchema, props);
    this.props = props;
    sectionsOf(owningMachine(this, 'Process')).entries.push({ section: 'processes', entry: () => this.toConfig() });
  }

  /** This process's entry of the machine config: only what was given. */
  toConfig(): ProcessConfig {
    const p = this.props;
    const entry: ProcessConfig = { id: p.id ?? this.node.id, name: p.name };
    if (p.args !== undefined) entry.args = [...p.args];
    if (p.cwd !== undefined) entry.cwd = p.cwd;
    if (p.oneShot !== undefined) entry.one_shot = p.oneShot;
    if (p.log !== undefined) entry.log = p.log;
    if (p.username !== undefined) entry.username = p.username;
    if (p.env !== undefined) entry.env = { ...p.env };
    if (p.stopSignal !== undefined) entry.stop_signal = p.stopSignal;
    if (p.stopTimeout !== undefined) entry.stop_timeout = p.stopTimeout;
    return entry;
  }
}
