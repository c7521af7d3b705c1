import { Construct } from 'constructs';
import { z } from 'zod';
import { TerraformStack } from './cdk';
import { FleetformError } from '../domain/errors';
import { parseGoDuration } from '../domain/duration';
import {
  DEFAULT_GATE_SETTLE_MS,
  DEFAULT_GATE_TIMEOUT_MS,
  ROLLOUT_FAILURE_POLICIES,
  ROLLOUT_OFFLINE_POLICIES,
  ROLLOUT_DOCUMENT_KEY,
  FRAGMENT_ROLLOUTS_DOCUMENT_KEY,
  RolloutPolicySchema,
  type RolloutPolicy,
  type RolloutWave,
} from '../domain/rollout';
import { constructTypeOf } from './construct-types';
import { checkProps, propSchemas } from './props';
import { locationReference, type ILocation } from './location';
import type { Machine } from './machine';
import { FRAGMENT_KIND } from './machine-scope';
import type { Fragment } from './fragment';
import { pacingOf, pacingPropsShape, splitSteps, type RolloutPacingProps, type RolloutStep } from './rollout-pacing';
import { analysisPolicy, analysisPropsSchema, type AnalysisProps } from './metric';

/** One wave of a {@link Rollout}: named machines, a location, a count, or the share of changed machines reached by its end. */
export type RolloutWaveProps =
  | { readonly machines: readonly Machine[] }
  | { readonly location: ILocation | string }
  | { readonly count: number }
  | { readonly fraction: number };

/** Properties of a {@link Rollout}. */
export interface RolloutProps extends RolloutPacingProps {
  /**
   * Roll out this fragment's revisions instead of the stack's machine configs: when a plan
   * changes it, apply saves the new revision, pins each wave's machines (those importing it
   * at its latest revision or at a tag following it) to that revision, gates them, and only
   * after the last wave is healthy moves the tags and lifts the pins. A Fragment of the stack.
   * @default the stack's machine config changes
   */
  readonly fragment?: Fragment;
  /**
   * The waves, in order; changed machines no wave takes go in a last wave. A wave may have
   * its own rate (`{ fraction: 0.5, perMinute: 20 }`); `{ pause: true }` between waves holds
   * the rollout there until released (`fleetform rollout resume`).
   */
  readonly waves: readonly RolloutStep<RolloutWaveProps>[];
  /**
   * When a wave's machine passes: healthy within `timeout` of its write, and staying so for
   * `settle` (durations like `10m`, `1m30s`, `500ms`). With `jobsSucceed`, each named job of
   * the machine's config must also have succeeded on the new config, its newest run not failed.
   * @default { timeout: '10m', settle: '1m' }
   */
  readonly gate?: { readonly timeout?: string; readonly settle?: string; readonly jobsSucceed?: readonly string[] };
  /**
   * When the rollout stops: more failed machines than `maxFailed`, or a failed share of the
   * machines written so far above `maxFailedFraction`. With several waves the first is the
   * canary: any failure in it stops the rollout, whatever those allow, unless
   * `canaryMaxFailed` tolerates it.
   * @default any failed machine stops it
   */
  readonly abort?: { readonly maxFailed?: number; readonly maxFailedFraction?: number; readonly canaryMaxFailed?: number };
  /**
   * A machine offline when its wave starts: written and waited for (`wait`), left for a
   * later apply (`skip`), or counted as failed (`fail`).
   * @default 'wait'
   */
  readonly offline?: (typeof ROLLOUT_OFFLINE_POLICIES)[number];
  /**
   * Once stopped: the machines changed so far go back to the config they had (`rollback`),
   * or stay as they are (`halt`).
   * @default 'rollback'
   */
  readonly onFailure?: (typeof ROLLOUT_FAILURE_POLICIES)[number];
  /**
   * Metrics each wave must pass once its machines are healthy (see {@link Metric}): a failed
   * or inconclusive analysis stops the rollout as a failed gate does.
   * @default none
   */
  readonly analysis?: readonly AnalysisProps[];
}

const isMachine = z.custom<Machine>((x) => constructTypeOf(x) === 'machine', 'expected a Machine');

/** The run-time check of {@link RolloutProps}: strict, without coercion. */
export const rolloutPropsSchema = z.strictObject({
  fragment: z.custom<Fragment>((x) => constructTypeOf(x) === FRAGMENT_KIND, 'expected a Fragment of the stack').optional(),
  waves: z
    .array(
      z.union([
        z.strictObject({ machines: z.array(isMachine).min(1) }),
        z.strictObject({ location: locationReference }),
        z.strictObject({ count: z.number().int().positive() }),
        z.strictObject({ fraction: z.number().gt(0).lte(1) }),
      ]),
    )
    .min(1),
  gate: z
    .strictObject({
      timeout: propSchemas.text.optional(),
      settle: propSchemas.text.optional(),
      jobsSucceed: z.array(z.string().min(1)).min(1).optional(),
    })
    .optional(),
  abort: z
    .strictObject({
      maxFailed: z.number().int().nonnegative().optional(),
      maxFailedFraction: z.number().gte(0).lte(1).optional(),
      canaryMaxFailed: z.number().int().nonnegative().optional(),
    })
    .optional(),
  offline: z.enum(ROLLOUT_OFFLINE_POLICIES).optional(),
  onFailure: z.enum(ROLLOUT_FAILURE_POLICIES).optional(),
  analysis: z.array(analysisPropsSchema).min(1).optional(),
  ...pacingPropsShape,
});

const rollouts = new WeakMap<TerraformStack, Rollout>();
const fragmentRollouts = new WeakMap<TerraformStack, Map<Fragment, Rollout>>();
const fragmentPolicies = new WeakMap<TerraformStack, Record<string, RolloutPolicy>>();

/**
 * A staged rollout of a stack's machine config changes: `fleetform apply` writes them wave
 * by wave, waits for each wave's machines to be healthy, and stops (rolling back by
 * default) once too many fail. Given a `fragment`, the fragment's new revisions are
 * staged instead (waves pin machines to the new revision; tags move after the last).
 * One per stack and one per fragment; synthesized into the stack document's `//` block,
 * which Terraform ignores.
 */
export class Rollout extends Construct {
  /** The policy as the engine reads it. */
  readonly policy: RolloutPolicy;

  constructor(scope: Construct, id: string, props: RolloutProps) {
    super(scope, id);
    const steps = splitSteps<RolloutWaveProps>(this, props.waves);
    const { waves } = steps;
    checkProps(this, 'Rollout', rolloutPropsSchema, { ...props, waves: Array.isArray(props.waves) ? waves : props.waves });
    const pacing = pacingOf(this, props, steps);
    const stack = TerraformStack.of(this);
    const fragment = props.fragment;
    const other = fragment ? fragmentRollouts.get(stack)?.get(fragment) : rollouts.get(stack);
    if (other) {
      const hint = 'one rollout policy per stack and per fragment: give it all the waves';
      throw new FleetformError(
        fragment
          ? `fragment ${fragment.node.path} already has the rollout ${other.node.path}`
          : `stack ${stack.node.id} already has the rollout ${other.node.path}`,
        { path: this.node.path, hint },
      );
    }
    if (fragment && TerraformStack.of(fragment) !== stack) {
      throw new FleetformError(`Rollout: fragment ${fragment.node.path} belongs to another stack`, {
        path: this.node.path,
        hint: 'declare the rollout in the stack of its Fragment',
      });
    }
    this.policy = {
      name: id,
      waves: waves.map((w, i) => this.wave(stack, w, i)),
      gate: {
        timeout_ms: this.duration('gate.timeout', props.gate?.timeout, DEFAULT_GATE_TIMEOUT_MS),
        settle_ms: this.duration('gate.settle', props.gate?.settle, DEFAULT_GATE_SETTLE_MS),
        ...(props.gate?.jobsSucceed ? { jobs_succeed: [...new Set(props.gate.jobsSucceed)] } : {}),
      },
      abort: {
        ...(props.abort?.maxFailed === undefined ? {} : { max_failed: props.abort.maxFailed }),
        ...(props.abort?.maxFailedFraction === undefined ? {} : { max_failed_fraction: props.abort.maxFailedFraction }),
        ...(props.abort?.canaryMaxFailed === undefined ? {} : { canary_max_failed: props.abort.canaryMaxFailed }),
      },
      offline: props.offline ?? 'wait',
      on_failure: props.onFailure ?? 'rollback',
      ...(fragment ? { fragment: `${fragment.terraformResourceType}.${fragment.friendlyUniqueId}` } : {}),
      ...(pacing ? { pacing } : {}),
      ...(props.analysis ? { analysis: analysisPolicy(props.analysis, { path: this.node.path, field: 'Rollout: analysis' }) } : {}),
    };
    if (this.policy.gate.timeout_ms === 0)
      throw new FleetformError('Rollout: "gate.timeout" must be above zero', { path: this.node.path, hint: "write a duration like '10m'" });
    RolloutPolicySchema.parse(this.policy);
    if (fragment) {
      const byFragment = fragmentRollouts.get(stack) ?? new Map<Fragment, Rollout>();
      fragmentRollouts.set(stack, byFragment.set(fragment, this));
      const policies = fragmentPolicies.get(stack) ?? {};
      policies[id] = this.policy;
      fragmentPolicies.set(stack, policies);
      stack.addOverride(`//.${FRAGMENT_ROLLOUTS_DOCUMENT_KEY}`, policies);
    } else {
      stack.addOverride(`//.${ROLLOUT_DOCUMENT_KEY}`, this.policy);
      rollouts.set(stack, this);
    }
  }

  private wave(stack: TerraformStack, wave: RolloutWaveProps, index: number): RolloutWave {
    if ('machines' in wave) {
      return {
        machines: wave.machines.map((m) => {
          if (TerraformStack.of(m) !== stack) {
            throw new FleetformError(`Rollout: machine ${m.node.path} of waves[${index}] belongs to another stack`, {
              path: this.node.path,
              hint: 'a rollout orders the machines of its own stack',
            });
          }
          return `${m.terraformResourceType}.${m.friendlyUniqueId}`;
        }),
      };
    }
    if ('location' in wave) return { location: typeof wave.location === 'string' ? wave.location : wave.location.locationId };
    return 'count' in wave ? { count: wave.count } : { fraction: wave.fraction };
  }

  private duration(field: string, text: string | undefined, fallback: number): number {
    if (text === undefined) return fallback;
    const ms = parseGoDuration(text);
    if (ms === undefined || ms < 0) {
      throw new FleetformError(`Rollout: "${field}" is not a duration: ${JSON.stringify(text)}`, {
        path: this.node.path,
        hint: "write a duration like '10m', '1m30s' or '500ms'",
      });
    }
    return Math.round(ms);
  }
}
