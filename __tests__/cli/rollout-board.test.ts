import { rolloutBoard, rolloutPrinter } from '../../src/cli/rollout-output';
import type { RolloutEvent } from '../../src/engine/rollout/events';

const events: RolloutEvent[] = [
  { type: 'wave', rollout: 'r', wave: 1, waves: 2, rule: 'count 2', machines: ['a', 'b'] },
  { type: 'written', rollout: 'r', wave: 1, machines: 2, seconds: 0.2 },
  { type: 'healthy', rollout: 'r', wave: 1, machine: 'a', seconds: 1 },
  {
    type: 'failed',
    rollout: 'r',
    wave: 1,
    machine: 'b',
    why: 'unhealthy for 300 ms',
    problems: [{ what: 'module m', error: 'crashed' }],
    log: ['t rdk: crashed'],
  },
  { type: 'stopping', rollout: 'r', wave: 1, reason: '1 of 2 failed', then: 'rollback' },
  { type: 'rolled-back', rollout: 'r', machine: 'a', ok: true, detail: 'back on the config it had' },
];

test('on a terminal, a wave line is updated in place and kept; failures and rollbacks are lines of their own', () => {
  let text = '';
  const board = rolloutBoard({ write: (t: string) => (text += t) });
  for (const e of events) board(e);
  // What the terminal shows: each carriage return and line clear rewrites the current line.
  const shown = text.split('\n').map((l) => l.split('\r\x1b[2K').pop() ?? '');
  expect(shown).toContain('wave 1/2 (count 2): 1/2 healthy, 1 failed, 0 skipped, 0 waiting');
  expect(shown).toContain('rollout r: wave 1: b FAILED: unhealthy for 300 ms; module m: crashed; log: t rdk: crashed');
  expect(shown).toContain('rollout r: stopping in wave 1: 1 of 2 failed; rolling the changed machines back');
  expect(shown).toContain('rollout r: a rolled back: back on the config it had');
});

test('without a terminal, one line per event', () => {
  const lines: string[] = [];
  const printer = rolloutPrinter((l) => lines.push(l));
  for (const e of events) printer(e);
  expect(lines).toHaveLength(events.length);
  expect(lines[0]).toBe('rollout r: wave 1/2 (count 2): 2 machine(s): a, b');
});
