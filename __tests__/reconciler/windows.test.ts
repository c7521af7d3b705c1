import { parseWindow, windowVerdict } from '../../src/domain/sync-windows';

const at = (iso: string): number => Date.parse(iso);

test('a deny window is closed for its duration from each cron time, read in its time zone', () => {
  const deny = parseWindow('deny:0 9 * * 1-5:8h:Europe/Berlin');
  // Friday 27 November 2026: 09:00 in Berlin is 08:00 UTC.
  expect(windowVerdict([deny], at('2026-11-27T07:59:00Z')).open).toBe(true);
  const inside = windowVerdict([deny], at('2026-11-27T08:00:00Z'));
  expect(inside.open).toBe(false);
  expect(inside.reason).toContain('deny:0 9 * * 1-5:8h:Europe/Berlin');
  expect(inside.changesAt).toBe(at('2026-11-27T16:00:00Z'));
  expect(windowVerdict([deny], at('2026-11-27T16:00:00Z')).open).toBe(true);
  // Saturday: no window.
  expect(windowVerdict([deny], at('2026-11-28T10:00:00Z')).open).toBe(true);
});

test('with allow windows, applies start only inside one, and never inside a deny window', () => {
  const allow = parseWindow('allow:0 22 * * *:4h');
  const deny = parseWindow('deny:0 23 * * *:30m');
  expect(windowVerdict([allow], at('2026-11-27T12:00:00Z'))).toMatchObject({ open: false, changesAt: at('2026-11-27T22:00:00Z') });
  expect(windowVerdict([allow, deny], at('2026-11-27T22:30:00Z')).open).toBe(true);
  expect(windowVerdict([allow, deny], at('2026-11-27T23:10:00Z')).open).toBe(false);
  expect(windowVerdict([allow, deny], at('2026-11-28T01:00:00Z')).open).toBe(true);
  expect(windowVerdict([], at('2026-11-28T01:00:00Z'))).toEqual({ open: true });
});

test('a bad window names what is wrong and how to write it', () => {
  expect(() => parseWindow('block:0 9 * * *:1h')).toThrow(/"allow" or "deny"/);
  expect(() => parseWindow('deny:0 9 * * *:soon')).toThrow(/not a positive duration/);
  expect(() => parseWindow('deny:0 9 * * *:1h:Mars/Olympus')).toThrow(/unknown time zone/);
  expect(() => parseWindow('deny:0 99 * * *:1h')).toThrow(/cron expression/);
  expect(() => parseWindow('deny')).toThrow(/not a window/);
});
