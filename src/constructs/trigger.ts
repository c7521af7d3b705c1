import { Construct } from 'constructs';
import { z } from 'zod';
import {
  NOTIFICATION_TYPES,
  TRIGGER_DATA_TYPES,
  TRIGGER_LOG_LEVELS,
  TRIGGER_OPERATORS,
  type TriggerConfig,
  type TriggerDataType,
  type TriggerEvent as TriggerEventConfig,
  type TriggerLogLevel,
  type TriggerNotification,
  type TriggerOperator,
} from '../domain/triggers';
import type { JsonValue } from './json-value';
import { checkProps, propSchemas } from './props';
import { textOrSecret, type Secret } from './secret';
import { owningMachine } from './machine-scope';
import { sectionsOf } from './machine-sections';

/** One eval of a condition: `value` holds the data's field (one key, nested or dotted) and the right operand. */
export interface TriggerEval {
  readonly operator: TriggerOperator;
  readonly value: JsonValue;
}

/** What a trigger fires on. */
export type TriggerEventProps =
  | { readonly type: 'part_online' }
  | { readonly type: 'part_offline' }
  | { readonly type: 'part_data_ingested'; readonly dataTypes: readonly TriggerDataType[] }
  | {
      readonly type: 'conditional_data_ingested';
      /** `subtype:name:method`, e.g. `sensor:my-sensor:Readings`. */
      readonly dataCaptureMethod: string;
      /** Left out, the trigger fires on every capture of that method. */
      readonly evals?: readonly TriggerEval[];
    }
  | { readonly type: 'conditional_logs_ingested'; readonly logLevels: readonly TriggerLogLevel[] };

/** The events, made by name. */
export const TriggerEvent = {
  /** The part comes online (its first check-in, or back after being offline). */
  partOnline: (): TriggerEventProps => ({ type: 'part_online' }),
  /** The part stops checking in past the service's offline threshold. */
  partOffline: (): TriggerEventProps => ({ type: 'part_offline' }),
  /** Data of these types is ingested from the part. */
  dataIngested: (...dataTypes: TriggerDataType[]): TriggerEventProps => ({ type: 'part_data_ingested', dataTypes }),
  /** Data of this capture method is ingested, and (when evals are given) meets them. */
  conditionalDataIngested: (dataCaptureMethod: string, evals?: readonly TriggerEval[]): TriggerEventProps =>
    evals === undefined
      ? { type: 'conditional_data_ingested', dataCaptureMethod }
      : { type: 'conditional_data_ingested', dataCaptureMethod, evals },
  /** Log lines of these levels are ingested from the part. */
  logsIngested: (...logLevels: TriggerLogLevel[]): TriggerEventProps => ({ type: 'conditional_logs_ingested', logLevels }),
} as const;

/** How a trigger notifies. */
export type TriggerNotificationProps =
  | {
      readonly type: 'webhook';
      /** The URL the service sends to. One carrying a token (user info or a query string) is a secret: give it by reference (`Secret.fromEnv`). */
      readonly url: string | Secret;
      readonly secondsBetweenNotifications?: number;
    }
  | {
      readonly type: 'email';
      /** An e-mail address, or `all_machine_owners`. */
      readonly address: string;
      readonly secondsBetweenNotifications?: number;
    };

/** Properties of a {@link Trigger}. */
export interface TriggerProps {
  /** Name of the trigger. @default the construct id */
  readonly name?: string;
  readonly event: TriggerEventProps;
  readonly notifications: readonly TriggerNotificationProps[];
  /** Keeps the trigger without firing it. */
  readonly disabled?: boolean;
  /** A note on what the trigger is for. */
  readonly notes?: string;
}

const evalSchema = z.strictObject({ operator: z.enum(TRIGGER_OPERATORS), value: z.unknown() });
const eventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('part_online') }),
  z.strictObject({ type: z.literal('part_offline') }),
  z.strictObject({ type: z.literal('part_data_ingested'), dataTypes: z.array(z.enum(TRIGGER_DATA_TYPES)).min(1) }),
  z.strictObject({
    type: z.literal('conditional_data_ingested'),
    dataCaptureMethod: z.string(),
    evals: z.array(evalSchema).optional(),
  }),
  z.strictObject({ type: z.literal('conditional_logs_ingested'), logLevels: z.array(z.enum(TRIGGER_LOG_LEVELS)).min(1) }),
]);
const notificationSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal(NOTIFICATION_TYPES[0]),
    url: propSchemas.secretOrString,
    secondsBetweenNotifications: z.number().optional(),
  }),
  z.strictObject({ type: z.literal(NOTIFICATION_TYPES[1]), address: z.string(), secondsBetweenNotifications: z.number().optional() }),
]);
const triggerPropsSchema = z.strictObject({
  name: propSchemas.text.optional(),
  event: eventSchema,
  notifications: z.array(notificationSchema),
  disabled: z.boolean().optional(),
  notes: z.string().optional(),
});

function eventConfig(event: TriggerEventProps): TriggerEventConfig {
  switch (event.type) {
    case 'part_data_ingested':
      return { type: event.type, data_ingested: { data_types: [...event.dataTypes] } };
    case 'conditional_data_ingested':
      return {
        type: event.type,
        conditional: {
          data_capture_method: event.dataCaptureMethod,
          ...(event.evals === undefined
            ? {}
            : { condition: { evals: event.evals.map((e) => ({ operator: e.operator, value: e.value })) } }),
        },
      };
    case 'conditional_logs_ingested':
      return { type: event.type, log_levels: [...event.logLevels] };
    default:
      return { type: event.type };
  }
}

function notificationConfig(n: TriggerNotificationProps): TriggerNotification {
  const value = n.type === 'webhook' ? textOrSecret(n.url) : n.address;
  return n.secondsBetweenNotifications === undefined
    ? { type: n.type, value }
    : { type: n.type, value, seconds_between_notifications: n.secondsBetweenNotifications };
}

/**
 * What the service does when the part comes online, goes offline, or its data or logs are
 * ingested: an entry of `triggers`, notifying webhooks and e-mail addresses. Declare it
 * inside a Machine or a Part.
 *
 * ```ts
 * new Trigger(machine, 'offline-alert', {
 *   event: TriggerEvent.partOffline(),
 *   notifications: [{ type: 'webhook', url: Secret.fromEnv('ALERT_HOOK_URL'), secondsBetweenNotifications: 300 }],
 * });
 * ```
 */
export class Trigger extends Construct {
  readonly name: string;
  private readonly props: TriggerProps;

  constructor(scope: Construct, id: string, props: TriggerProps) {
    super(scope, id);
    checkProps(this, 'Trigger', triggerPropsSchema, props);
    this.name = props.name ?? id;
    this.props = props;
    sectionsOf(owningMachine(this, 'Trigger')).entries.push({ section: 'triggers', entry: () => this.toConfig() });
  }

  /** This trigger's entry of the machine config: only what was given. */
  toConfig(): TriggerConfig {
    const p = this.props;
    const entry: TriggerConfig = { name: this.name, event: eventConfig(p.event), notifications: p.notifications.map(notificationConfig) };
    if (p.disabled !== undefined) entry.disabled = p.disabled;
    if (p.notes !== undefined) entry.notes = p.notes;
    return entry;
  }
}
