import { z } from 'zod';
import { certainIssue, warningIssue, type Issue } from './issue';
import { childPath } from './json-path';
import { isObject } from './json-value';
import { isSecretStandIn } from './secret-reference';

/**
 * The `triggers` section: what the service does when a part comes online, goes offline, or
 * its data or logs are ingested. The service alone reads it (the machine server ignores the
 * section), and it stores any JSON there: a trigger that cannot work is a finding on the
 * trigger (certain when it certainly cannot notify), never a refusal of the config.
 */

/** The events a trigger fires on. */
export const TRIGGER_EVENT_TYPES = [
  'part_online',
  'part_offline',
  'part_data_ingested',
  'conditional_data_ingested',
  'conditional_logs_ingested',
] as const;
export type TriggerEventType = (typeof TRIGGER_EVENT_TYPES)[number];

/** The events of a part's liveness: they fire when its online state changes. */
export const LIVENESS_EVENT_TYPES: readonly TriggerEventType[] = ['part_online', 'part_offline'];

/** The kinds of data a `part_data_ingested` trigger fires on. */
export const TRIGGER_DATA_TYPES = ['binary', 'tabular', 'file', 'unspecified'] as const;
export type TriggerDataType = (typeof TRIGGER_DATA_TYPES)[number];

/** The log levels a `conditional_logs_ingested` trigger fires on. */
export const TRIGGER_LOG_LEVELS = ['info', 'warn', 'error'] as const;
export type TriggerLogLevel = (typeof TRIGGER_LOG_LEVELS)[number];

/** The operators of a condition's eval. */
export const TRIGGER_OPERATORS = ['lt', 'lte', 'gt', 'gte', 'eq', 'neq', 'regex'] as const;
export type TriggerOperator = (typeof TRIGGER_OPERATORS)[number];

/** The ways a trigger notifies. */
export const NOTIFICATION_TYPES = ['webhook', 'email'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The e-mail value that notifies every owner of the machine. */
export const ALL_MACHINE_OWNERS = 'all_machine_owners';

/** One eval of a condition: the data's field (the value's one key, nested or dotted) compared with the value's value. */
export const TriggerEvalSchema = z.looseObject({ operator: z.string().optional(), value: z.unknown().optional() });
export type TriggerEval = z.infer<typeof TriggerEvalSchema>;

/** The event a trigger fires on; its other fields depend on `type`. */
export const TriggerEventSchema = z.looseObject({
  type: z.string().optional(),
  /** `part_data_ingested`: the kinds of data. */
  data_ingested: z.looseObject({ data_types: z.array(z.string()).optional() }).optional(),
  /** `conditional_data_ingested`: the capture method `subtype:name:method`, and the condition the data meets. */
  conditional: z
    .looseObject({
      data_capture_method: z.string().optional(),
      condition: z.looseObject({ evals: z.array(TriggerEvalSchema).optional() }).optional(),
    })
    .optional(),
  /** `conditional_logs_ingested`: the levels of the log lines. */
  log_levels: z.array(z.string()).optional(),
});
export type TriggerEvent = z.infer<typeof TriggerEventSchema>;

/** How a trigger notifies: a webhook URL (a secret when it carries a token), an e-mail address or `all_machine_owners`. */
export const TriggerNotificationSchema = z.looseObject({
  type: z.string().optional(),
  value: z.string().optional(),
  /** At most one notification per this many seconds. */
  seconds_between_notifications: z.number().optional(),
});
export type TriggerNotification = z.infer<typeof TriggerNotificationSchema>;

/** An entry of `triggers`. */
export const TriggerSchema = z.looseObject({
  name: z.string().optional(),
  event: TriggerEventSchema.optional(),
  notifications: z.array(TriggerNotificationSchema).optional(),
  /** The trigger is kept but does not fire. */
  disabled: z.boolean().optional(),
  /** A note on what the trigger is for. */
  notes: z.string().optional(),
});
export type TriggerConfig = z.infer<typeof TriggerSchema>;

/** A webhook URL as the service sends to it: http or https with a host; undefined otherwise. */
export function webhookUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a webhook URL carries a token: user info or a query string (a secret: masked, given by reference). */
export function webhookCarriesToken(value: unknown): boolean {
  const url = webhookUrl(value);
  return url !== undefined && (url.username !== '' || url.password !== '' || url.search !== '');
}

/** What text leaving a process may say of a webhook URL: its origin alone (`https://hooks.example.com/…`), never its path, user info or query. */
export function webhookShown(value: unknown): string {
  const url = webhookUrl(value);
  return url === undefined ? '(not a URL)' : `${url.protocol}//${url.host}/…`;
}

/** Whether a notification is a webhook (by its `type`). */
export function isWebhookNotification(notification: unknown): boolean {
  return isObject(notification) && notification.type === 'webhook';
}

const CAPTURE_METHOD = /^[^:]+:[^:]+:[^:]+$/;

function oneOf(value: unknown, allowed: readonly string[]): boolean {
  return typeof value === 'string' && allowed.includes(value);
}

function triggerLabel(trigger: Record<string, unknown>, index: number): string {
  return typeof trigger.name === 'string' && trigger.name !== '' ? `trigger "${trigger.name}"` : `trigger #${index}`;
}

function checkEvent(event: unknown, path: string, label: string, issues: Issue[]): void {
  const at = childPath(path, 'event');
  if (!isObject(event)) {
    issues.push(certainIssue('trigger-event', at, `${label} never fires: it has no event`, 'give "event": {"type": "part_online"}'));
    return;
  }
  const type = event.type;
  if (!oneOf(type, TRIGGER_EVENT_TYPES)) {
    issues.push(
      warningIssue(
        'trigger-event',
        childPath(at, 'type'),
        `${label} has event type ${JSON.stringify(type)}, which the service may not know: it may never fire`,
        `use one of ${TRIGGER_EVENT_TYPES.join(', ')}`,
      ),
    );
    return;
  }
  if (type === 'part_data_ingested') {
    const types = isObject(event.data_ingested) ? event.data_ingested.data_types : undefined;
    if (!Array.isArray(types) || types.length === 0)
      issues.push(
        certainIssue(
          'trigger-event',
          childPath(at, 'data_ingested'),
          `${label} never fires: a part_data_ingested event needs "data_ingested": {"data_types": [...]}`,
          `list some of ${TRIGGER_DATA_TYPES.join(', ')}`,
        ),
      );
    else
      types.forEach((t, i) => {
        if (!oneOf(t, TRIGGER_DATA_TYPES))
          issues.push(
            warningIssue(
              'trigger-event',
              childPath(childPath(childPath(at, 'data_ingested'), 'data_types'), i),
              `${label} names data type ${JSON.stringify(t)}, which no data is`,
              `use ${TRIGGER_DATA_TYPES.join(', ')}`,
            ),
          );
      });
  }
  if (type === 'conditional_data_ingested') {
    const conditional = isObject(event.conditional) ? event.conditional : undefined;
    const method = conditional?.data_capture_method;
    if (typeof method !== 'string' || !CAPTURE_METHOD.test(method))
      issues.push(
        certainIssue(
          'trigger-capture-method',
          childPath(childPath(at, 'conditional'), 'data_capture_method'),
          `${label} never fires: its data_capture_method ${JSON.stringify(method)} is not subtype:name:method`,
          'write it as the capture is named, e.g. sensor:my-sensor:Readings',
        ),
      );
    const evals = isObject(conditional?.condition) ? conditional.condition.evals : undefined;
    if (Array.isArray(evals))
      evals.forEach((e, i) => {
        if (isObject(e) && !oneOf(e.operator, TRIGGER_OPERATORS))
          issues.push(
            certainIssue(
              'trigger-condition',
              childPath(childPath(childPath(childPath(at, 'conditional'), 'condition'), 'evals'), i),
              `${label} never fires: operator ${JSON.stringify(e.operator)} is none the service evaluates`,
              `use ${TRIGGER_OPERATORS.join(', ')}`,
            ),
          );
      });
  }
  if (type === 'conditional_logs_ingested') {
    const levels = event.log_levels;
    if (!Array.isArray(levels) || levels.length === 0 || !levels.every((l) => oneOf(l, TRIGGER_LOG_LEVELS)))
      issues.push(
        certainIssue(
          'trigger-event',
          childPath(at, 'log_levels'),
          `${label} never fires on the levels ${JSON.stringify(levels)}`,
          `list some of ${TRIGGER_LOG_LEVELS.join(', ')}`,
        ),
      );
  }
}

function checkNotification(n: unknown, path: string, label: string, liveness: boolean, issues: Issue[]): void {
  if (!isObject(n)) return;
  if (!oneOf(n.type, NOTIFICATION_TYPES)) {
    issues.push(
      warningIssue(
        'trigger-notification',
        childPath(path, 'type'),
        `${label} notifies by ${JSON.stringify(n.type)}, which the service may not send`,
        'use "webhook" or "email"',
      ),
    );
    return;
  }
  // A URL given by reference is read only where the plan runs: nothing to check here.
  if (n.type === 'webhook' && webhookUrl(n.value) === undefined && !isSecretStandIn(n.value))
    issues.push(
      certainIssue(
        'trigger-webhook',
        childPath(path, 'value'),
        `${label} cannot notify: its webhook is not an http or https URL with a host`,
        'give the full URL, e.g. https://hooks.example.com/machines',
      ),
    );
  if (n.type === 'email' && (typeof n.value !== 'string' || (n.value !== ALL_MACHINE_OWNERS && !n.value.includes('@'))))
    issues.push(
      certainIssue(
        'trigger-email',
        childPath(path, 'value'),
        `${label} cannot notify: ${JSON.stringify(n.value)} is no e-mail address`,
        `give an address, or "${ALL_MACHINE_OWNERS}"`,
      ),
    );
  const seconds = n.seconds_between_notifications;
  if (typeof seconds === 'number' && (seconds < 0 || (liveness && seconds === 0)))
    issues.push(
      warningIssue(
        'trigger-interval',
        childPath(path, 'seconds_between_notifications'),
        `${label} has seconds_between_notifications ${seconds}, which the official CLI refuses${liveness ? ' for a liveness trigger (it wants more than 0)' : ''}`,
        liveness ? 'give a number of seconds above 0' : 'give 0 or more seconds',
      ),
    );
}

/** The findings of a config's `triggers` (already of the section's shape): a trigger that certainly cannot notify is a certain failure of that trigger. */
export function checkTriggers(triggers: readonly unknown[]): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  triggers.forEach((trigger, i) => {
    if (!isObject(trigger)) return;
    const path = childPath('triggers', i);
    const label = triggerLabel(trigger, i);
    if (typeof trigger.name !== 'string' || trigger.name === '')
      issues.push(warningIssue('trigger-name', childPath(path, 'name'), `${label} has no name`, 'give each trigger a name'));
    else if (seen.has(trigger.name))
      issues.push(warningIssue('trigger-name', childPath(path, 'name'), `${label} is named twice`, 'give each trigger a name of its own'));
    else seen.add(trigger.name);
    checkEvent(trigger.event, path, label, issues);
    const liveness = isObject(trigger.event) && LIVENESS_EVENT_TYPES.includes(trigger.event.type as TriggerEventType);
    const notifications = trigger.notifications;
    if (!Array.isArray(notifications) || notifications.length === 0)
      issues.push(
        certainIssue(
          'trigger-notification',
          childPath(path, 'notifications'),
          `${label} notifies no one: it has no notifications`,
          'add a webhook or an e-mail notification',
        ),
      );
    else notifications.forEach((n, j) => checkNotification(n, childPath(childPath(path, 'notifications'), j), label, liveness, issues));
  });
  return issues;
}
