/**
 * Triggers of simulated machines: a part that comes online (its first check-in, or back
 * after being offline) or goes offline (no check-in past the offline threshold) fires the
 * enabled triggers of its config on that event; so does what a check-in ingests: the
 * tabular points it captured (`part_data_ingested` listing `tabular`; a
 * `conditional_data_ingested` whose capture method a point is of and whose condition the
 * point meets) and the log lines it wrote (`conditional_logs_ingested` at their level).
 * Each notification goes out at most once per its `seconds_between_notifications`: a webhook
 * is requested as the service documents (GET for liveness, POST with what was ingested for
 * data and logs, the part's ids and names in headers), an e-mail is a log line of the part
 * (no mail is sent). What a webhook's URL holds past its origin never reaches a log.
 */
import { isObject } from '../../domain/json-value';
import { NOTIFICATION_TYPES, webhookShown, webhookUrl, type NotificationType } from '../../domain/triggers';
import { notificationKey, type PartIdentity, type SeenLiveness } from '../store/triggers';

/** The events of a part's online state. */
export type LivenessEvent = 'part_online' | 'part_offline';

/** The events of what a check-in ingests. */
export type IngestionEvent = 'part_data_ingested' | 'conditional_data_ingested' | 'conditional_logs_ingested';

/** Every event the emulator fires. */
export type FiredEvent = LivenessEvent | IngestionEvent;

/** The event a part's online state fires, given how triggers last saw it; undefined while it never checked in, or when nothing changed. */
export function livenessEvent(seen: SeenLiveness | undefined, online: boolean | undefined): LivenessEvent | undefined {
  if (online === undefined || seen === 'unseen') return undefined;
  if (online) return seen === 'online' ? undefined : 'part_online';
  return seen === 'online' ? 'part_offline' : undefined;
}

/** One notification a trigger sends now. */
export interface DueNotification {
  readonly triggerName: string;
  /** Its index among the trigger's notifications. */
  readonly index: number;
  readonly type: NotificationType;
  readonly value: string;
}

/**
 * The notifications the config's triggers send on `event` at `now`: those of enabled
 * triggers on that event whose last one (by `sent`, keyed notificationKey) is at least
 * `seconds_between_notifications` old. Entries the service could not read are skipped.
 */
export function dueNotifications(
  triggers: unknown,
  event: FiredEvent,
  sent: ReadonlyMap<string, number>,
  now: number,
  fired: (triggerName: string) => boolean = () => true,
): DueNotification[] {
  if (!Array.isArray(triggers)) return [];
  const due: DueNotification[] = [];
  for (const trigger of triggers) {
    if (!isObject(trigger) || typeof trigger.name !== 'string' || trigger.disabled === true) continue;
    if (!isObject(trigger.event) || trigger.event.type !== event || !Array.isArray(trigger.notifications)) continue;
    if (!fired(trigger.name)) continue;
    trigger.notifications.forEach((n: unknown, index: number) => {
      if (!isObject(n) || typeof n.value !== 'string' || !(NOTIFICATION_TYPES as readonly unknown[]).includes(n.type)) return;
      const seconds = typeof n.seconds_between_notifications === 'number' ? Math.max(0, n.seconds_between_notifications) : 0;
      const last = sent.get(notificationKey(trigger.name as string, index));
      if (last !== undefined && now - last < seconds * 1000) return;
      due.push({ triggerName: trigger.name as string, index, type: n.type as NotificationType, value: n.value });
    });
  }
  return due;
}

/** A header value as HTTP carries it: printable ASCII as it is, anything else percent-encoded. */
export function headerValue(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text);
}

/** The headers the service sends a webhook for a liveness event: who the part is. */
export function livenessHeaders(who: PartIdentity): Record<string, string> {
  return {
    'Org-Id': who.organizationId,
    'Organization-Name': headerValue(who.organizationName),
    'Location-Id': who.locationId,
    'Location-Name': headerValue(who.locationName),
    'Part-Id': who.partId,
    'Part-Name': headerValue(who.partName),
    'Robot-Id': who.robotId,
    'Machine-Name': headerValue(who.machineName),
  };
}

/** What the e-mail notification of an event would say, as the part's log line. */
export function emailLine(address: string, event: FiredEvent, who: PartIdentity): string {
  return `would e-mail ${address}: ${event} of machine ${who.machineName}, part ${who.partName}`;
}

/** A webhook request to make once the check-in that fired it is stored. */
export interface WebhookRequest {
  readonly partId: string;
  readonly triggerName: string;
  readonly event: FiredEvent;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A POST's JSON body (data and logs events); none: a GET. */
  readonly body?: string;
}

/** Where a delivery's failure is told: the part's log. */
export type TriggerLog = (partId: string, logger: string, message: string) => void;

/** The logger of a trigger's lines, as the service names it. */
export function triggerLogger(triggerName: string): string {
  return `app.trigger.${triggerName}`;
}

/** Why a request failed, in words that hold nothing of its URL. */
function failure(err: unknown): string {
  const cause = isObject(err) && isObject(err.cause) && typeof err.cause.code === 'string' ? err.cause.code : undefined;
  if (cause !== undefined) return `the request failed: ${cause}`;
  if (err instanceof Error && err.name === 'TimeoutError') return 'the request timed out';
  return 'the request failed';
}

/**
 * Makes a webhook request: user info in the URL goes as basic authorization (never in the
 * request line), redirects are not followed, and a status other than 2xx, a failure or a
 * timeout is logged on the part, naming the webhook by its origin alone.
 */
export async function deliverWebhook(request: WebhookRequest, log: TriggerLog, timeoutMs = 10_000): Promise<void> {
  const url = webhookUrl(request.url);
  const told = (why: string): void =>
    log(
      request.partId,
      triggerLogger(request.triggerName),
      `Trigger failed to notify ${webhookShown(request.url)} for robotPartId ${request.partId}. TriggerType: ${request.event}, NotificationType: webhook, Error: ${why}`,
    );
  if (url === undefined) return told('the webhook is not an http or https URL');
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  try {
    const response = await fetch(url, {
      method: request.body === undefined ? 'GET' : 'POST',
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    if (response.status < 200 || response.status > 299) told(`received status code ${response.status} in webhook response`);
  } catch (err) {
    told(failure(err));
  }
}
