/**
 * The waves a plan shows for a stack's rollout: its machine updates split by the policy's
 * wave rules. Apply runs exactly these waves (a saved plan carries them).
 */
import { waveAnalysisLines } from './analysis-plan';
import { describeWave, importedVersion, splitWaves, type RolloutPlan, type RolloutPolicy } from '../../domain/rollout';
import type { DesiredStack } from '../desired/stack';
import { isObject } from '../json';
import { fragmentDeclaration } from '../kinds/fragment';
import { fragmentTagDeclaration } from '../kinds/fragment-tag';
import { machineDeclaration } from '../kinds/machine';
import type { ResourceChange } from '../plan-model';
import { unconfiguredMaintenanceSensor } from '../../domain/maintenance';
import { pauseStepText, pacingOfPlan, pacingPlanLines, wavePaceText } from './pacing-text';
import { resumeCommand } from '../state/rollout-journal-pacing';

/** A planned machine config, as the change holds it (an object, or its JSON text). */
export function plannedConfig(after: Readonly<Record<string, unknown>> | null | undefined): unknown {
  const config = after?.config;
  if (typeof config !== 'string') return config;
  try {
    return JSON.parse(config) as unknown;
  } catch {
    return undefined;
  }
}

/** The resource type whose updates a rollout stages. */
export const ROLLED_OUT_TYPE = machineDeclaration.type;

/** Whether the change is one a rollout stages: a machine updated in place. */
export function isRolledOut(change: ResourceChange): boolean {
  return change.type === ROLLED_OUT_TYPE && change.action === 'update';
}

/** The rollout plan of each stack with a policy and machine updates to stage. */
export function planRollouts(stacks: readonly DesiredStack[], changes: readonly ResourceChange[]): RolloutPlan[] {
  const out: RolloutPlan[] = [];
  for (const stack of stacks) {
    if (!stack.rollout) continue;
    const staged = changes.filter((c) => c.stack === stack.name && isRolledOut(c));
    if (staged.length === 0) continue;
    const declared = new Map(stack.resources.map((r) => [r.address, r]));
    const candidates = staged.map((c) => {
      const locations = [declared.get(c.address)?.attributes.location_id, c.after?.location_id].filter(
        (l): l is string => typeof l === 'string',
      );
      return { address: c.address, locations };
    });
    const names = new Map(staged.map((c) => [c.address, typeof c.after?.name === 'string' ? c.after.name : c.address]));
    const windows = new Map(staged.map((c) => [c.address, unconfiguredMaintenanceSensor(plannedConfig(c.after))]));
    const waves = splitWaves(candidates, stack.rollout.waves).map((w) => ({
      rule: w.rule,
      from: w.from,
      machines: w.machines.map((address) => {
        const maintenance = windows.get(address);
        return { address, name: names.get(address) ?? address, ...(maintenance ? { maintenance } : {}) };
      }),
    }));
    out.push({ stack: stack.name, policy: stack.rollout, waves });
  }
  return out;
}

/**
 * The rollout plan of each fragment rollout whose fragment's config the plan changes (or
 * whose saved revision is still to reach its machines: a tag following it moves, a machine's
 * pin is lifted): the
 * stack's existing machines importing it at its latest revision or at a tag that follows it
 * (a FragmentTag of the stack naming the revision its apply saves), split by the policy's
 * wave rules, and those tags. Machines created or replaced by the plan, and those pinned to
 * a revision or another tag, are not in it.
 */
export function planFragmentRollouts(stacks: readonly DesiredStack[], changes: readonly ResourceChange[]): RolloutPlan[] {
  const out: RolloutPlan[] = [];
  for (const stack of stacks) {
    for (const policy of stack.fragmentRollouts ?? []) {
      const address = policy.fragment ?? '';
      const change = changes.find((c) => c.stack === stack.name && c.address === address && c.type === fragmentDeclaration.type);
      if (change && change.action !== 'update' && change.action !== 'no-op') continue;
      const reference = (output: string): string => `\${${address}.${output}}`;
      const tags = stack.resources
        .filter(
          (r) =>
            r.type === fragmentTagDeclaration.type &&
            r.attributes.fragment_id === reference('id') &&
            (r.attributes.revision === undefined || r.attributes.revision === reference('revision')),
        )
        .map((r) => ({ address: r.address, tag: typeof r.attributes.tag === 'string' ? r.attributes.tag : '' }));
      const following = new Set(['', ...tags.map((t) => t.tag)]);
      const planned = new Map(changes.filter((c) => c.stack === stack.name).map((c) => [c.address, c.action]));
      const machines = stack.resources.flatMap((r) => {
        if (r.type !== machineDeclaration.type || planned.get(r.address) === 'create' || planned.get(r.address) === 'replace') return [];
        const follows = importedVersion(parseConfig(r.attributes.config), reference('id'));
        if (follows === undefined || !following.has(follows)) return [];
        const name = typeof r.attributes.name === 'string' ? r.attributes.name : r.address;
        const locations = [r.attributes.location_id].filter((l): l is string => typeof l === 'string');
        return [{ address: r.address, name, follows, locations }];
      });
      // A new revision to reach the machines: the fragment's config changes, or a revision saved
      // before (by a rollout that stopped) is still to reach them: its tags move, or pins are lifted.
      const configChanges = change?.changes.some((c) => c.path === 'config' || c.path.startsWith('config.')) ?? false;
      const pending = [...tags.map((t) => t.address), ...machines.map((m) => m.address)].some((a) => planned.get(a) === 'update');
      if (machines.length === 0 || (!configChanges && !pending)) continue;
      const byAddress = new Map(machines.map((m) => [m.address, m]));
      const waves = splitWaves(machines, policy.waves).map((w) => ({
        rule: w.rule,
        from: w.from,
        machines: w.machines.map((a) => {
          const m = byAddress.get(a);
          return { address: a, name: m?.name ?? a, follows: m?.follows ?? '' };
        }),
      }));
      const declared = stack.resources.find((r) => r.address === address)?.attributes.name;
      const name = typeof change?.after?.name === 'string' ? change.after.name : typeof declared === 'string' ? declared : address;
      const from = change?.facts.revision;
      // Without a config change the revision to roll out is the one saved already.
      const revisions = from ? { from_revision: from, ...(configChanges ? {} : { to_revision: from }) } : {};
      const importing = Number(change?.facts.machines ?? '0');
      const unstaged = Number.isInteger(importing) && importing > machines.length ? { unstaged: importing - machines.length } : {};
      out.push({ stack: stack.name, policy, waves, fragment: { address, name, tags, ...revisions, ...unstaged } });
    }
  }
  return out;
}

const IMPORT_VERSION = /^config\.fragments\[\d+\]\.version$/;

/**
 * Whether a machine's change is only the version of a fragment import: a pin a fragment's
 * rollout set and lifts itself (its machines' changes of this sort are left to it).
 */
export function isFragmentPinChange(change: ResourceChange): boolean {
  return (
    change.type === ROLLED_OUT_TYPE &&
    change.action === 'update' &&
    change.changes.length > 0 &&
    change.changes.every((c) => IMPORT_VERSION.test(c.path))
  );
}

function parseConfig(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return isObject(text) ? text : {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** The policy's gate, abort and failure rules in one line. */
export function describePolicy(policy: RolloutPolicy): string {
  const { max_failed: n, max_failed_fraction: f } = policy.abort;
  const limits = [
    n === undefined ? undefined : `more than ${n} failed`,
    f === undefined ? undefined : `more than ${f * 100}% of written machines failed`,
  ].filter(Boolean);
  const abort = limits.length > 0 ? limits.join(' or ') : 'any failed machine';
  const jobs = policy.gate.jobs_succeed ? ` with job(s) ${policy.gate.jobs_succeed.join(', ')} succeeding on the new config` : '';
  return `gate: healthy${jobs} for ${seconds(policy.gate.settle_ms)} within ${seconds(policy.gate.timeout_ms)}; stops on ${abort}, then ${policy.on_failure === 'rollback' ? 'rolls back' : 'halts'}; offline machines: ${policy.offline}`;
}

/** What a rollout writes, in its plan's words: a headline, and how its waves write their machines. */
function whatItWrites(r: RolloutPlan): { headline: string; how: string[] } {
  const count = r.waves.reduce((n, w) => n + w.machines.length, 0);
  const waves = `${count} machine${r.fragment ? '(s)' : ' update(s)'} in ${r.waves.length} wave(s)`;
  if (!r.fragment) return { headline: `Rollout ${r.policy.name} (stack ${r.stack}): ${waves}`, how: [] };
  const f = r.fragment;
  const revision =
    f.to_revision !== undefined
      ? `revision ${f.to_revision}`
      : `new revision${f.from_revision ? ` (from revision ${f.from_revision})` : ''}`;
  const tags = f.tags.map((t) => t.tag);
  return {
    headline: `Rollout ${r.policy.name} (stack ${r.stack}): fragment ${f.name}'s ${revision} reaches ${waves}`,
    how: [
      `  each wave's machines are pinned to the new revision and gated; after the last wave ${tags.length > 0 ? `the tag(s) ${tags.join(', ')} move to it and ` : ''}the pins are lifted`,
      ...(f.unstaged
        ? [
            `  ${f.unstaged} other machine(s) import it outside the waves (pinned to a revision or another tag, or not in this stack): they run what they import, ungated`,
          ]
        : []),
    ],
  };
}

/** Where an unfinished run of the rollout goes on: interrupted, or held by its pacing. */
function resumeLine(r: RolloutPlan): string {
  const at = r.resumes;
  if (!at) return '';
  const kept = `a run started ${at.startedAt}; its waves, machines and baselines are kept`;
  if (at.held === 'paused')
    return `  paused at wave ${at.wave} (${kept}): the apply writes nothing of its waves until \`${resumeCommand(r.stack, r.policy.name, r.fragment !== undefined)}\` releases it`;
  if (at.held === 'waiting') return `  waiting for its schedule's start at wave ${at.wave} (${kept})`;
  return `  resumes at wave ${at.wave}: a run started ${at.startedAt} was interrupted (its waves, machines and baselines are kept)`;
}

/**
 * The plan text of the rollouts, each described the same way: what it writes, whether it
 * resumes, its gate, then its waves in order with their machines.
 */
export function rolloutPlanLines(rollouts: readonly RolloutPlan[]): string[] {
  const lines: string[] = [];
  for (const r of rollouts) {
    const { headline, how } = whatItWrites(r);
    lines.push(headline, ...how);
    if (r.resumes) lines.push(resumeLine(r));
    lines.push(`  ${describePolicy(r.policy)}`);
    const { max_failed: n, max_failed_fraction: f, canary_max_failed: c } = r.policy.abort;
    if (r.waves.length > 1 && (n !== undefined || f !== undefined)) {
      lines.push(
        `  wave 1 is the canary: it stops on ${c ? `more than ${c} failed` : 'any failed machine'}; the limits above apply from wave 2`,
      );
    }
    const follows = (m: { name: string; follows?: string }): string =>
      r.fragment ? ` (${m.follows ? `tag ${m.follows}` : 'latest'})` : '';
    const steps = pacingOfPlan(r);
    lines.push(...pacingPlanLines(r.policy));
    r.waves.forEach((w, i) => {
      if (steps[i]?.pauseBefore) lines.push(`  ${pauseStepText(r.stack, r.policy.name, r.fragment !== undefined)}`);
      lines.push(`  wave ${i + 1} (${w.rule})${wavePaceText(steps, i)}: ${w.machines.map((m) => `${m.name}${follows(m)}`).join(', ')}`);
      lines.push(...waveAnalysisLines(r.policy.analysis, i, r.waves.length));
    });
    r.waves.forEach((w, i) => {
      for (const m of w.machines) {
        if (m.maintenance)
          lines.push(
            `  warning: wave ${i + 1}: ${m.name}: ${m.maintenance}, so its maintenance window never holds the change (the machine reconfigures at once)`,
          );
      }
    });
    const unmatched = r.policy.waves.filter((w) => !r.waves.some((x) => x.rule === describeWave(w)));
    for (const w of unmatched) lines.push(`  (no changed machine for ${describeWave(w)})`);
    lines.push('');
  }
  return lines;
}
