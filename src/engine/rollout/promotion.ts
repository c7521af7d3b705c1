/**
 * A stack's model promotions in plan and apply: machines are planned with the version the
 * promotion gives them (a rejected one is held back to the last promoted), and after apply
 * each version its machines were written with is promoted or rejected in state.
 */
import {
  deployDecision,
  promotionVerdict,
  splitDeployedModel,
  withVerdict,
  type PromotionPolicy,
  type PromotionRecord,
  type PromotionVerdict,
} from '../../domain/model-promotion';
import type { DesiredResource, DesiredStack } from '../desired/stack';
import { isObject } from '../json';
import type { PlanNote } from '../plan-notes';
import type { ResourceChange } from '../plan-model';
import type { State } from '../state/schema';
import type { RolloutOutcome } from './events';

/** A machine held back from a rejected model version. */
export interface PromotionHold {
  readonly address: string;
  readonly promotion: string;
  readonly model: string;
  /** The version the code names. */
  readonly wanted: string;
  /** The version the machine is given instead (undefined: the one it runs, none being promoted). */
  readonly given: string | undefined;
  readonly rejected: PromotionVerdict;
}

function deployModelsOf(resource: { readonly attributes: Readonly<Record<string, unknown>> | null } | undefined): Record<string, string> {
  const raw = resource?.attributes?.deploy_models;
  if (!isObject(raw)) return {};
  return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** The resource with each rejected model version replaced by what its promotion gives, and the holds made. */
function heldResource(resource: DesiredResource, state: State, policies: readonly PromotionPolicy[]) {
  const models = deployModelsOf(resource);
  const holds: PromotionHold[] = [];
  const deployed = { ...models };
  for (const [name, text] of Object.entries(models)) {
    const split = splitDeployedModel(text);
    const policy = split && policies.find((p) => p.model === split.model);
    if (!split || !policy) continue;
    const decision = deployDecision(policy, state.promotions?.[split.model], split.version);
    if (decision.kind === 'deploy') continue;
    const running = deployModelsOf(state.resources[resource.address])[name];
    const given = decision.kind === 'hold' ? `${split.prefix}${split.model}@${decision.version}` : running;
    if (given !== undefined) deployed[name] = given;
    holds.push({
      address: resource.address,
      promotion: policy.name,
      model: split.model,
      wanted: split.version,
      given: given === undefined ? undefined : splitDeployedModel(given)?.version,
      rejected: decision.rejected,
    });
  }
  if (holds.length === 0) return { resource, holds };
  return { resource: { ...resource, attributes: { ...resource.attributes, deploy_models: deployed } }, holds };
}

/** The stack as its promotions let it deploy: machines keep the last promoted version of a model whose code version was rejected. */
export function heldStack(stack: DesiredStack, state: State): { stack: DesiredStack; holds: PromotionHold[] } {
  const policies = stack.promotions ?? [];
  if (policies.length === 0) return { stack, holds: [] };
  const held = stack.resources.map((r) => heldResource(r, state, policies));
  const holds = held.flatMap((h) => h.holds);
  return holds.length === 0 ? { stack, holds } : { stack: { ...stack, resources: held.map((h) => h.resource) }, holds };
}

/** What the plan says of a held machine. */
export function holdNote(hold: PromotionHold): PlanNote {
  const keeps = hold.given === undefined ? 'keeps the version it runs' : `keeps ${hold.model}@${hold.given}`;
  return {
    level: 'warning',
    path: 'deploy_models',
    message: `model ${hold.model}@${hold.wanted} was rejected by promotion ${hold.promotion} (${hold.rejected.at}: ${hold.rejected.why}): this machine ${keeps}; train a new version, or add '${hold.wanted}' to the promotion's allowRejected to roll it out again`,
  };
}

/** The plan's changes with each held machine's note. */
export function withHoldNotes(changes: readonly ResourceChange[], stack: string, holds: readonly PromotionHold[]): ResourceChange[] {
  if (holds.length === 0) return [...changes];
  return changes.map((c) => {
    const mine = c.stack === stack ? holds.filter((h) => h.address === c.address) : [];
    return mine.length === 0 ? c : { ...c, notes: [...c.notes, ...mine.map(holdNote)] };
  });
}

/** The model versions the (held) stack's machines deploy, by model name. */
function versionsOf(resource: Parameters<typeof deployModelsOf>[0], model: string): Set<string> {
  const out = new Set<string>();
  for (const text of Object.values(deployModelsOf(resource))) {
    const split = splitDeployedModel(text);
    if (split?.model === model) out.add(split.version);
  }
  return out;
}

/** What one apply of a stack decided of its promoted models: the records it changed, by model name. */
export function promotionRecords(input: {
  readonly stack: DesiredStack;
  /** The state before the apply. */
  readonly before: State;
  /** The stack's changes applied (no no-ops). */
  readonly changes: readonly ResourceChange[];
  /** Addresses whose write failed or was skipped. */
  readonly notWritten: ReadonlySet<string>;
  readonly rollouts: readonly RolloutOutcome[];
  readonly at: string;
}): Map<string, PromotionRecord> {
  const out = new Map<string, PromotionRecord>();
  const declared = new Map(input.stack.resources.map((r) => [r.address, r]));
  for (const policy of input.stack.promotions ?? []) {
    const rollout = input.rollouts.find((r) => r.stack === input.stack.name && r.name === policy.rollout);
    let record = input.before.promotions?.[policy.model] ?? { model: policy.model, promotion: policy.name, versions: [] };
    const versions = new Set(input.changes.flatMap((c) => [...versionsOf(declared.get(c.address), policy.model)]));
    for (const version of versions) {
      const touched = input.changes.filter(
        (c) =>
          versionsOf(declared.get(c.address), policy.model).has(version) &&
          !versionsOf(input.before.resources[c.address], policy.model).has(version),
      );
      const verdict = promotionVerdict({
        version,
        at: input.at,
        machines: touched.length,
        notWritten: touched.filter((c) => input.notWritten.has(c.address)).length,
        ...(rollout ? { rollout } : {}),
      });
      if (verdict) record = withVerdict({ ...record, promotion: policy.name }, verdict);
    }
    if (record !== input.before.promotions?.[policy.model]) out.set(policy.model, record);
  }
  return out;
}
