/** The words a fragment's note uses for the machines restarting its modules: a short list, capped for big fleets. */
import { cappedList, NAMES_SHOWN, restartsText } from '../../src/engine/kinds/fragment-reach';
import { moduleRestarts } from '../../src/domain/module-restarts';

test('a list longer than NAMES_SHOWN names the first ones and counts the rest', () => {
  const names = Array.from({ length: 1203 }, (_, i) => `robot-${i}`);
  expect(cappedList(names.slice(0, NAMES_SHOWN))).toBe(names.slice(0, NAMES_SHOWN).join(', '));
  expect(cappedList(names)).toBe(`${names.slice(0, NAMES_SHOWN).join(', ')} and 1,198 more`);
});

test('each module with its machines; none restarting said so', () => {
  const byModule = new Map([
    ['acme:sensors', ['picker-1', 'picker-2']],
    ['acme:arm', ['picker-3']],
  ]);
  expect(restartsText(byModule, 3)).toBe('restarts module acme:sensors on picker-1, picker-2 and module acme:arm on picker-3');
  expect(restartsText(new Map(), 2)).toBe('the 2 machines of this stack whose config it changes restart no module');
  expect(restartsText(new Map(), 1)).toBe('the machine of this stack whose config it changes restarts no module');
});

test('a module restarts when the version it runs or its env changes, not for another field', () => {
  const was = {
    s: { module_id: 'acme:sensors', version: '~1.2', env: { A: '1' } },
    v: { module_id: 'acme:vision', version: '1.0.1' },
    g: { module_id: 'acme:gripper', version: '2.1.0' },
  };
  const now = {
    s: { module_id: 'acme:sensors', version: '~1.2', env: { A: '2' } },
    v: { module_id: 'acme:vision', version: '^1' },
    g: { module_id: 'acme:gripper', version: '2.1.0', notes: 'x' },
  };
  // vision's policy changes but it runs the same version: no restart.
  expect(moduleRestarts(was, now, { v: '1.0.1' }, { v: '1.0.1' })).toEqual([
    { name: 's', moduleId: 'acme:sensors', why: 'its environment changes' },
  ]);
  expect(moduleRestarts(was, now, { v: '1.0.1' }, { v: '1.1.0' }).map((r) => r.why)).toEqual([
    'its environment changes',
    'it moves from 1.0.1 to 1.1.0',
  ]);
});
