/**
 * Allow and deny windows: a cron expression says when a window opens, a duration how long
 * it stays open, a time zone how the expression is read. Applies start only while the
 * windows allow it: inside an allow window (when any is given) and outside every deny window.
 */
import type { CronExpressionParser as Parser } from 'cron-parser';
import { parseGoDuration } from './duration';
import { InputError, errorMessage } from './errors';

/** cron-parser, loaded when a window is first read: an app that declares none never loads it. */
function cronParser(): typeof Parser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, synchronously
  return (require('cron-parser') as typeof import('cron-parser')).CronExpressionParser;
}

export interface SyncWindow {
  readonly kind: 'allow' | 'deny';
  readonly cron: string;
  readonly durationMs: number;
  readonly timeZone: string;
  /** The text it was read from, for messages. */
  readonly text: string;
}

const HINT = "write KIND:CRON:DURATION[:TIME_ZONE], e.g. 'deny:0 9 * * 1-5:8h:Europe/Berlin' (KIND allow or deny; DURATION like 90m or 8h)";

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Reads `allow|deny:CRON:DURATION[:TIME_ZONE]` (time zone UTC by default). */
export function parseWindow(text: string, where = '--window'): SyncWindow {
  const parts = text.split(':').map((p) => p.trim());
  const [kind, cron, duration, zone = 'UTC', ...rest] = parts;
  if (rest.length > 0 || cron === undefined || duration === undefined)
    throw new InputError(`not a window: ${JSON.stringify(text)}`, { path: where, hint: HINT });
  if (kind !== 'allow' && kind !== 'deny')
    throw new InputError(`a window is "allow" or "deny", not ${JSON.stringify(kind)}`, { path: where, hint: HINT });
  const durationMs = parseGoDuration(duration);
  if (durationMs === undefined || durationMs <= 0)
    throw new InputError(`the window's duration ${JSON.stringify(duration)} is not a positive duration`, { path: where, hint: HINT });
  if (!validZone(zone))
    throw new InputError(`unknown time zone ${JSON.stringify(zone)}`, {
      path: where,
      hint: 'an IANA time zone such as Europe/Berlin or UTC',
    });
  try {
    cronParser().parse(cron, { tz: zone });
  } catch (err) {
    throw new InputError(`the window's cron expression ${JSON.stringify(cron)} is not valid: ${errorMessage(err)}`, {
      path: where,
      hint: HINT,
    });
  }
  return { kind, cron, durationMs, timeZone: zone, text };
}

/** When the window last opened at or before `now` (epoch ms). */
function lastStart(w: SyncWindow, now: number): number {
  return cronParser()
    .parse(w.cron, { tz: w.timeZone, currentDate: new Date(now + 1) })
    .prev()
    .getTime();
}

function nextStart(w: SyncWindow, now: number): number {
  return cronParser()
    .parse(w.cron, { tz: w.timeZone, currentDate: new Date(now) })
    .next()
    .getTime();
}

/** Whether the window is open at `now`. */
export function isOpen(w: SyncWindow, now: number): boolean {
  return now < lastStart(w, now) + w.durationMs;
}

export interface WindowVerdict {
  readonly open: boolean;
  /** Why applies wait, when they do. */
  readonly reason?: string;
  /** The next time (epoch ms) the verdict may change; undefined without windows. */
  readonly changesAt?: number;
}

/** Whether applies may start at `now` under these windows. */
export function windowVerdict(windows: readonly SyncWindow[], now: number): WindowVerdict {
  if (windows.length === 0) return { open: true };
  const denying = windows.filter((w) => w.kind === 'deny' && isOpen(w, now));
  const allows = windows.filter((w) => w.kind === 'allow');
  const allowing = allows.filter((w) => isOpen(w, now));
  const edges = windows.map((w) => (isOpen(w, now) ? lastStart(w, now) + w.durationMs : nextStart(w, now)));
  const changesAt = Math.min(...edges);
  if (denying.length > 0) return { open: false, reason: `inside the deny window ${denying.map((w) => w.text).join(', ')}`, changesAt };
  if (allows.length > 0 && allowing.length === 0)
    return { open: false, reason: `outside every allow window (${allows.map((w) => w.text).join(', ')})`, changesAt };
  return { open: true, changesAt };
}

/** How far ahead an opening of windows is looked for. */
const OPENING_HORIZON_MS = 366 * 24 * 3_600_000;

/**
 * When applies may next start under these windows: `now` when they may now, else the first
 * edge at which the verdict turns open; undefined when none comes within a year (an allow
 * window every deny window covers, say).
 */
export function opensAt(windows: readonly SyncWindow[], now: number): number | undefined {
  let at = now;
  for (let step = 0; step < 1_000; step++) {
    const v = windowVerdict(windows, at);
    if (v.open) return at;
    if (v.changesAt === undefined || v.changesAt <= at || v.changesAt - now > OPENING_HORIZON_MS) return undefined;
    at = v.changesAt;
  }
  return undefined;
}
