/**
 * The dashboard's own source, without a reconciler: a poller reads the state and the service
 * on intervals, and the actions that exist without a reconciler act: aborting a rollout, and
 * resuming one or applying the pending plan when it is given a way to.
 */
import { abortRollout, eventLine, type RolloutEvent } from '../engine';
import { FleetPoller, type PollerInput } from './standalone-poller';
import type { DashboardSource, RolloutTarget, SourceEvent } from './source';
import type { ActionResult } from './view';

export interface StandaloneSourceInput extends PollerInput {
  /** Continues an interrupted rollout (e.g. by running apply for its stack), reporting its progress as events. */
  readonly resume?: (target: RolloutTarget, report: (event: SourceEvent) => void) => Promise<ActionResult>;
  /** Applies the pending plan the dashboard shows (the plan last made by `pendingPlan`), reporting its progress as events. */
  readonly approve?: (stack: string, report: (event: SourceEvent) => void) => Promise<ActionResult>;
  /** How long an abort waits for the state lock. */
  readonly lockTimeoutMs?: number;
}

export interface StandaloneSource extends DashboardSource {
  /** Reads everything once now (the intervals go on). */
  refresh(): Promise<void>;
  close(): void;
}

/** Rolls a rollout back under the stack's lock, reporting each machine as an event; the rollouts are read again after. */
async function abortAction(poller: FleetPoller, input: StandaloneSourceInput, target: RolloutTarget): Promise<ActionResult> {
  const lock = await input.backend.lock(target.stack, 'dashboard rollout abort', { timeoutMs: input.lockTimeoutMs ?? 0 });
  try {
    const { journal, machines } = await abortRollout({
      stack: target.stack,
      ...(target.rollout === undefined ? {} : { rollout: target.rollout }),
      journals: input.journals,
      backend: input.backend,
      client: input.client,
      source: await poller.statuses(),
      events: (e: RolloutEvent) =>
        poller.event({
          kind: 'rollout',
          level: e.type === 'rolled-back' && !e.ok ? 'error' : 'info',
          stack: target.stack,
          message: eventLine(e),
        }),
      concurrency: 16,
    });
    const failed = machines.filter((m) => !m.rollback?.ok).length;
    return {
      ok: failed === 0,
      message: `rollout ${journal.plan.policy.name}: ${machines.length - failed} machine(s) rolled back${failed > 0 ? `, ${failed} not` : ''}`,
    };
  } finally {
    await lock.release();
    await poller.readRollouts().catch(() => undefined);
  }
}

/** Applies the pending plan of `stack` as last read, when it has one that changes something. */
function approveAction(
  poller: FleetPoller,
  approve: NonNullable<StandaloneSourceInput['approve']>,
): (stack: string) => Promise<ActionResult> {
  return async (stack) => {
    const plan = poller.plan;
    if (!plan) return { ok: false, message: 'no plan has been made yet' };
    if (!plan.stacks.includes(stack))
      return { ok: false, message: `the pending plan has no stack ${stack} (its stacks: ${plan.stacks.join(', ')})` };
    if (!plan.hasChanges) return { ok: false, message: 'the pending plan changes nothing' };
    return approve(stack, (e) => poller.event(e));
  };
}

export function standaloneSource(input: StandaloneSourceInput): StandaloneSource {
  const { resume, approve } = input;
  const poller = new FleetPoller(input, {
    abort: true,
    resume: resume !== undefined,
    approve: approve !== undefined && input.pendingPlan !== undefined,
    heal: false,
  });
  return {
    snapshot: () => poller.snapshot(),
    subscribe: (listener) => poller.subscribe(listener),
    machine: (key) => poller.machine(key),
    models: () => poller.models(),
    abortRollout: (target) => abortAction(poller, input, target),
    ...(resume ? { resumeRollout: (target: RolloutTarget) => resume(target, (e) => poller.event(e)) } : {}),
    ...(approve && input.pendingPlan ? { approve: approveAction(poller, approve) } : {}),
    refresh: () => poller.refresh(),
    close: () => poller.close(),
  };
}
