/**
 * Webhooks: every event is POSTed as JSON (the event itself) to each URL, or, for a URL
 * marked `slack:`, as a Slack-compatible `{ "text": ... }`. Each delivery runs on its own,
 * retried with exponential backoff, so a slow or failing receiver never holds a cycle
 * back. A URL is never logged: receivers are named by their position (`webhook #2`).
 */
import { processRedactor, type Redactor } from '../engine/redactor';
import { formatValue } from '../domain/rollout-analysis';
import type { ReconcilerEvent } from './events';

export interface WebhookTarget {
  readonly url: string;
  readonly format: 'json' | 'slack';
}

/** Reads `URL` or `slack:URL`. */
export function webhookTarget(text: string): WebhookTarget {
  const trimmed = text.trim();
  return trimmed.startsWith('slack:') ? { url: trimmed.slice('slack:'.length), format: 'slack' } : { url: trimmed, format: 'json' };
}

/** The targets from FLEETFORM_WEBHOOK_URL / FLEETFORM_WEBHOOK_URLS (comma- or space-separated), for URLs that carry a token. */
export function webhooksFromEnv(env: NodeJS.ProcessEnv): WebhookTarget[] {
  const text = [env.FLEETFORM_WEBHOOK_URL, env.FLEETFORM_WEBHOOK_URLS].filter(Boolean).join(',');
  return text
    .split(/[\s,]+/)
    .filter((t) => t !== '')
    .map(webhookTarget);
}

/** A measurement's values: `72.1 (baseline 100.4)`. */
export function measuredText(e: { readonly value?: number; readonly baseline?: number }): string {
  return `${formatValue(e.value)}${e.baseline === undefined ? '' : ` (baseline ${formatValue(e.baseline)})`}`;
}

/** The Slack text of an event: one line. */
export function eventText(e: ReconcilerEvent): string {
  const stack = 'stack' in e ? `stack ${e.stack}: ` : '';
  switch (e.type) {
    case 'cycle-started':
      return `fleetform: cycle ${e.cycle} started (${e.reason})`;
    case 'cycle-finished':
      return `fleetform: cycle ${e.cycle} finished in ${e.seconds.toFixed(1)}s: ${e.changes} change(s), ${e.drifted} drifted`;
    case 'cycle-failed':
      return `fleetform: cycle ${e.cycle} FAILED${e.commit ? ` at ${e.commit.slice(0, 12)}` : ''}: ${e.error}${e.hint ? ` (${e.hint})` : ''}; the fleet is left as it is`;
    case 'drift-found':
      return `fleetform: ${stack}drift on ${e.objects.length} object(s) (${e.objects.slice(0, 5).join(', ')}${e.objects.length > 5 ? ', ...' : ''}); ${e.policy === 'heal' ? 'healing' : 'reported only'}`;
    case 'drift-healed':
      return `fleetform: ${stack}healed drift on ${e.objects.length} object(s)`;
    case 'approval-needed':
      return `fleetform: ${stack}approval needed (${e.reason}): ${e.add} to add, ${e.change} to change, ${e.destroy} to destroy. Approve: fleetform reconcile approve ${e.stack}`;
    case 'apply-waiting':
      return `fleetform: ${stack}apply waits: ${e.reason}`;
    case 'apply-started':
      return `fleetform: ${stack}applying ${e.changes} change(s)${e.heal ? ' (healing drift)' : ''}`;
    case 'apply-finished':
      return `fleetform: ${stack}apply finished: ${e.applied} applied${e.failed.length > 0 ? `, ${e.failed.length} FAILED` : ''} in ${e.seconds.toFixed(1)}s`;
    case 'wave-passed':
      return `fleetform: ${stack}rollout ${e.rollout}: wave ${e.wave} ${e.outcome} in ${e.seconds.toFixed(1)}s`;
    case 'rollout-paused':
      return `fleetform: ${stack}rollout ${e.rollout} paused before wave ${e.wave}: ${e.reason}`;
    case 'rollout-measurement':
      return `fleetform: ${stack}rollout ${e.rollout}: wave ${e.wave} analysis ${e.analysis}: ${e.result.toUpperCase()} ${measuredText(e)}: ${e.why}`;
    case 'rollout-stopped':
      return `fleetform: ${stack}rollout ${e.rollout} STOPPED in wave ${e.wave}: ${e.reason}${e.rolledBack ? '; rolled back' : ''}`;
    case 'leader':
      return `fleetform: ${e.holder} ${e.leading ? 'leads' : 'stands by'}`;
    case 'dashboard-action':
      return `fleetform: ${e.stack ? `stack ${e.stack}: ` : ''}dashboard action${e.ok ? '' : ' FAILED'}: ${e.message}`;
  }
}

export interface WebhookOptions {
  /** Attempts per delivery (default 6). */
  readonly attempts?: number;
  /** First backoff (default 500 ms), doubled each retry. */
  readonly backoffMs?: number;
  /** Each attempt's timeout (default 10 s). */
  readonly timeoutMs?: number;
  /** What every body passes before it is sent (default the process's). */
  readonly redactor?: Redactor;
  /** Told of a delivery that gave up (the receiver named by position, never its URL). */
  readonly onGiveUp?: (receiver: string, event: ReconcilerEvent, why: string) => void;
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Posts events to webhooks in the background; `drain` waits for deliveries under way. */
export class WebhookNotifier {
  private readonly pending = new Set<Promise<void>>();
  constructor(
    private readonly targets: readonly WebhookTarget[],
    private readonly options: WebhookOptions = {},
  ) {}

  get count(): number {
    return this.targets.length;
  }

  notify(event: ReconcilerEvent): void {
    this.targets.forEach((t, i) => {
      const p = this.deliver(t, `webhook #${i + 1}`, event).finally(() => this.pending.delete(p));
      this.pending.add(p);
    });
  }

  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async deliver(target: WebhookTarget, name: string, event: ReconcilerEvent): Promise<void> {
    const attempts = this.options.attempts ?? 6;
    let backoff = this.options.backoffMs ?? 500;
    const redactor = this.options.redactor ?? processRedactor;
    const body = redactor.redact(JSON.stringify(target.format === 'slack' ? { text: eventText(event) } : event));
    let why = '';
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      try {
        const res = await fetch(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'fleetform-reconciler' },
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) return;
        why = `HTTP ${res.status}`;
        // A request the receiver refuses as malformed is not sent again (but 408 and 429 are).
        if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) break;
      } catch (err) {
        // The error's text may hold the URL: only its kind is kept.
        why = err instanceof Error ? err.name : 'error';
      }
      if (attempt < attempts) {
        await wait(backoff);
        backoff *= 2;
      }
    }
    this.options.onGiveUp?.(name, event, why);
  }
}
