import { standingWrites } from '../../src/engine/apply/executor';
import type { MachineOutcome, RolloutOutcome } from '../../src/engine/rollout/events';

const machine = (name: string, result: MachineOutcome['result'], rolledBack?: boolean): MachineOutcome => ({
  machine: name,
  address: `fleetform_machine.${name}`,
  result,
  ...(rolledBack === undefined ? {} : { rollback: { ok: rolledBack, detail: rolledBack ? 'back on the config it had' : 'left as it is' } }),
});

function outcome(machines: MachineOutcome[][]): RolloutOutcome {
  return {
    stack: 's',
    name: 'careful',
    outcome: 'stopped',
    onFailure: 'rollback',
    seconds: 1,
    waves: machines.map((m) => ({ rule: 'r', machines: m })),
  };
}

test('a machine written then rolled back is not applied, a failed one counts as failed only', () => {
  const rolled = outcome([[machine('a', 'healthy', true), machine('b', 'failed', true)], [machine('c', 'not reached')]]);
  const written = new Set(['fleetform_machine.a', 'fleetform_machine.b']);
  expect(standingWrites(rolled, written)).toBe(0);
});

test('what passed and was not rolled back stands; machines of an earlier apply are not counted', () => {
  const halted = outcome([
    [machine('a', 'healthy'), machine('b', 'failed'), machine('d', 'healthy', false)],
    [machine('c', 'stopped'), machine('e', 'healthy')],
  ]);
  const written = new Set(['fleetform_machine.a', 'fleetform_machine.b', 'fleetform_machine.c', 'fleetform_machine.d']);
  expect(standingWrites(halted, written)).toBe(3);
});
