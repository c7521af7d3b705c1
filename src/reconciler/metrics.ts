/** The reconciler's Prometheus metrics, on a registry of its own (prom-client). */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MachineHealthName } from '../dashboard/view';
import { WAITING_FOR, type ReconcilerEvent, type WaitingFor } from './events';

/** Every health a machine can be in, each a series of the machines gauge (0 when none is). */
const HEALTHS: readonly MachineHealthName[] = ['healthy', 'starting', 'held', 'unhealthy', 'behind', 'unreachable'];

export class ReconcilerMetrics {
  readonly registry = new Registry();
  private readonly cycles = new Counter({
    name: 'fleetform_reconcile_cycles_total',
    help: 'Reconcile cycles, by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly cycleSeconds = new Histogram({
    name: 'fleetform_reconcile_cycle_seconds',
    help: 'How long a reconcile cycle took',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private readonly drifted = new Gauge({
    name: 'fleetform_reconcile_drifted_objects',
    help: 'Objects that drifted from the code at the last check, by stack',
    labelNames: ['stack'] as const,
    registers: [this.registry],
  });
  private readonly pendingChanges = new Gauge({
    name: 'fleetform_reconcile_pending_changes',
    help: 'Changes the last plan had, by stack',
    labelNames: ['stack'] as const,
    registers: [this.registry],
  });
  private readonly applies = new Counter({
    name: 'fleetform_reconcile_applies_total',
    help: 'Applies started, by stack and cause',
    labelNames: ['stack', 'cause'] as const,
    registers: [this.registry],
  });
  private readonly waves = new Counter({
    name: 'fleetform_reconcile_waves_passed_total',
    help: 'Rollout waves passed',
    labelNames: ['stack', 'rollout'] as const,
    registers: [this.registry],
  });
  private readonly rollouts = new Gauge({
    name: 'fleetform_reconcile_rollout_state',
    help: 'Rollouts by their last state (1 for the state it is in)',
    labelNames: ['stack', 'rollout', 'state'] as const,
    registers: [this.registry],
  });
  private readonly leader = new Gauge({
    name: 'fleetform_reconcile_leader',
    help: '1 while this reconciler leads, 0 on standby',
    registers: [this.registry],
  });
  private readonly waiting = new Gauge({
    name: 'fleetform_reconcile_waiting_stacks',
    help: 'Stacks waiting, by what for',
    labelNames: ['for'] as const,
    registers: [this.registry],
  });
  private readonly held = new Gauge({
    name: 'fleetform_reconcile_held_machines',
    help: "Machines held back from an apply by their location's closed windows, by stack and location",
    labelNames: ['stack', 'location'] as const,
    registers: [this.registry],
  });
  private readonly machines = new Gauge({
    name: 'fleetform_reconcile_machines',
    help: 'Managed machines by health, as last read',
    labelNames: ['health'] as const,
    registers: [this.registry],
  });

  /** What the failing gauge reads at each scrape: the failures in a row now (0 while cycles succeed). */
  private failuresNow: () => number = () => 0;
  private readonly failing: Gauge = new Gauge({
    name: 'fleetform_reconcile_failing_cycles',
    help: 'Cycles failed in a row, 0 while cycles succeed (every failure counts; a webhook says each cause once per commit)',
    registers: [this.registry],
    collect: (): void => this.failing.set(this.failuresNow()),
  });

  /** Reads the failures in a row from `read` at each scrape. */
  watchFailures(read: () => number): void {
    this.failuresNow = read;
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'fleetform_reconcile_process_' });
  }

  /** Counts what an event says. */
  observe(e: ReconcilerEvent): void {
    switch (e.type) {
      case 'cycle-finished':
        this.cycles.inc({ result: 'ok' });
        this.cycleSeconds.observe(e.seconds);
        break;
      case 'cycle-failed':
        this.cycles.inc({ result: 'failed' });
        break;
      case 'apply-started':
        this.applies.inc({ stack: e.stack, cause: e.heal ? 'drift' : 'change' });
        this.setRollouts(e.stack, undefined);
        break;
      case 'wave-passed':
        this.waves.inc({ stack: e.stack, rollout: e.rollout });
        this.setRollout(e.stack, e.rollout, 'running');
        break;
      case 'rollout-paused':
        this.setRollout(e.stack, e.rollout, 'paused');
        break;
      case 'rollout-stopped':
        this.setRollout(e.stack, e.rollout, 'stopped');
        break;
      case 'leader':
        this.leader.set(e.leading ? 1 : 0);
        break;
      default:
        break;
    }
  }

  private readonly rolloutNames = new Map<string, Set<string>>();
  private setRollout(stack: string, rollout: string, state: 'running' | 'paused' | 'stopped' | 'completed'): void {
    const names = this.rolloutNames.get(stack) ?? new Set<string>();
    this.rolloutNames.set(stack, names.add(rollout));
    for (const s of ['running', 'paused', 'stopped', 'completed'] as const)
      this.rollouts.set({ stack, rollout, state: s }, s === state ? 1 : 0);
  }

  private setRollouts(stack: string, state: 'completed' | undefined): void {
    if (!state) return;
    for (const r of this.rolloutNames.get(stack) ?? []) this.setRollout(stack, r, state);
  }

  rolloutCompleted(stack: string, rollout: string): void {
    this.setRollout(stack, rollout, 'completed');
  }

  /** What the last plan of a stack found. */
  stackChecked(stack: string, changes: number, drifted: number): void {
    this.pendingChanges.set({ stack }, changes);
    this.drifted.set({ stack }, drifted);
  }

  /** How many stacks wait, from their statuses. */
  waitingStacks(stacks: ReadonlyArray<{ readonly waiting?: { readonly for: WaitingFor } }>): void {
    for (const what of WAITING_FOR) this.waiting.set({ for: what }, stacks.filter((s) => s.waiting?.for === what).length);
  }

  /** The machines each stack's locations hold, from their statuses (a location that holds none any more is dropped). */
  heldMachines(
    stacks: ReadonlyArray<{
      readonly stack: string;
      readonly held?: ReadonlyArray<{ readonly location: string; readonly machines: readonly string[] }>;
    }>,
  ): void {
    this.held.reset();
    for (const s of stacks) for (const h of s.held ?? []) this.held.set({ stack: s.stack, location: h.location }, h.machines.length);
  }

  /** The machines' health as last read: one series per health, those none is in at 0. */
  machinesByHealth(machines: ReadonlyArray<{ readonly health: MachineHealthName }>): void {
    for (const health of HEALTHS) this.machines.set({ health }, machines.filter((m) => m.health === health).length);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
