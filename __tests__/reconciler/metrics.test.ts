import { ReconcilerMetrics } from '../../src/reconciler/metrics';

test('machines are counted by health, each health a series (0 when no machine is in it); waiting stacks by what for', async () => {
  const metrics = new ReconcilerMetrics();
  metrics.machinesByHealth([{ health: 'healthy' }, { health: 'healthy' }, { health: 'unreachable' }]);
  metrics.waitingStacks([{ waiting: { for: 'retry' } }, {}, { waiting: { for: 'approval' } }]);
  let text = await metrics.text();
  expect(text).toContain('# TYPE fleetform_reconcile_machines gauge');
  expect(text).toContain('fleetform_reconcile_machines{health="healthy"} 2');
  expect(text).toContain('fleetform_reconcile_machines{health="unreachable"} 1');
  expect(text).toContain('fleetform_reconcile_machines{health="starting"} 0');
  expect(text).toContain('fleetform_reconcile_waiting_stacks{for="retry"} 1');
  expect(text).toContain('fleetform_reconcile_waiting_stacks{for="window"} 0');

  // A later reading replaces the counts.
  metrics.machinesByHealth([{ health: 'unhealthy' }]);
  text = await metrics.text();
  expect(text).toContain('fleetform_reconcile_machines{health="healthy"} 0');
  expect(text).toContain('fleetform_reconcile_machines{health="unhealthy"} 1');
});

test("machines held by their location's windows are counted by stack and location; a location that holds none any more is dropped", async () => {
  const metrics = new ReconcilerMetrics();
  metrics.heldMachines([{ stack: 'fleet', held: [{ location: 'south', machines: ['a', 'b'] }] }, { stack: 'other' }]);
  expect(await metrics.text()).toContain('fleetform_reconcile_held_machines{stack="fleet",location="south"} 2');
  metrics.heldMachines([{ stack: 'fleet' }]);
  expect(await metrics.text()).not.toContain('location="south"');
});
