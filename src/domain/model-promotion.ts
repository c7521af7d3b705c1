/**
 * Model promotions: a model's new version reaches the machines that deploy it through a
 * rollout whose analysis compares them with the machines still on the previous version.
 * Pure rules: which version a machine is given, and what a finished apply says of a version.
 *
 * - A version its rollout stopped on by the evidence of written machines (a failed or
 *   inconclusive analysis, a machine failing its health gate) is rejected: it is never
 *   deployed again, the machines keep the last promoted version, unless the promotion's
 *   `allow_rejected` names it.
 * - A version every machine that deploys it was written with, its rollout completed (or no
 *   rollout needed), is promoted.
 * - A rollout stopped only by writes that did not happen (a model still training), paused,
 *   or any machine not written, decides nothing: the next apply goes on.
 */
import { z } from 'zod';

/** The key of a stack document's comment block (`//`) holding its model promotions, by name. */
export const PROMOTIONS_DOCUMENT_KEY = 'fleetform_promotions';

/** The text a rollout gives a machine whose config could not be written (not evidence against a version). */
export const WRITE_FAILURE_PREFIX = 'its config could not be written';

/** A promotion as synthesized into its stack. */
export const PromotionPolicySchema = z.strictObject({
  name: z.string().min(1),
  /** The model's name in the registry (the training job's or upload's model name). */
  model: z.string().min(1),
  /** The address of the training job or upload that makes its versions. */
  source: z.string().min(1),
  /** The rollout (of the stack, or of a fragment) its versions reach the machines through. */
  rollout: z.string().min(1),
  /** Rejected versions the code allows to roll out again. */
  allow_rejected: z.array(z.string().min(1)).default([]),
});
export type PromotionPolicy = z.infer<typeof PromotionPolicySchema>;

/** One measurement an analysis took of a version, as its history keeps it. */
export const PromotionEvidenceSchema = z.object({
  wave: z.number().int().positive(),
  analysis: z.string(),
  result: z.string(),
  value: z.number().optional(),
  baseline: z.number().optional(),
  why: z.string(),
});
export type PromotionEvidence = z.infer<typeof PromotionEvidenceSchema>;

export const PROMOTION_STATUSES = ['promoted', 'rejected'] as const;

/** What an apply decided of one model version. */
export const PromotionVerdictSchema = z.object({
  version: z.string().min(1),
  status: z.enum(PROMOTION_STATUSES),
  at: z.string(),
  rollout: z.string().optional(),
  why: z.string(),
  evidence: z.array(PromotionEvidenceSchema).default([]),
});
export type PromotionVerdict = z.infer<typeof PromotionVerdictSchema>;

/** A model's history in state: each decided version, oldest first (one entry per version, the newest verdict). */
export const PromotionRecordSchema = z.object({
  model: z.string(),
  promotion: z.string(),
  versions: z.array(PromotionVerdictSchema).default([]),
});
export type PromotionRecord = z.infer<typeof PromotionRecordSchema>;

/** The version the machines run when none of the code's newer ones was promoted. */
export function promotedVersion(record: PromotionRecord | undefined): string | undefined {
  return [...(record?.versions ?? [])].reverse().find((v) => v.status === 'promoted')?.version;
}

/** The verdict that rejected `version`, unless the code allows it again. */
export function rejection(policy: PromotionPolicy, record: PromotionRecord | undefined, version: string): PromotionVerdict | undefined {
  if (policy.allow_rejected.includes(version)) return undefined;
  const verdict = record?.versions.find((v) => v.version === version);
  return verdict?.status === 'rejected' ? verdict : undefined;
}

/** Which version machines deploying the model are given: the code's, or, for a rejected one, the last promoted (or what they run). */
export type DeployDecision =
  | { readonly kind: 'deploy'; readonly version: string }
  | { readonly kind: 'hold'; readonly version: string; readonly rejected: PromotionVerdict }
  | { readonly kind: 'keep'; readonly rejected: PromotionVerdict };

export function deployDecision(policy: PromotionPolicy, record: PromotionRecord | undefined, version: string): DeployDecision {
  const rejected = rejection(policy, record, version);
  if (!rejected) return { kind: 'deploy', version };
  const promoted = promotedVersion(record);
  return promoted === undefined ? { kind: 'keep', rejected } : { kind: 'hold', version: promoted, rejected };
}

/** The parts of a finished rollout a verdict reads (the engine's outcome has them). */
export interface RolloutEvidence {
  readonly name: string;
  readonly outcome: 'completed' | 'stopped' | 'paused';
  readonly reason?: string;
  readonly waves: readonly {
    readonly machines: readonly { readonly result: string; readonly why?: string }[];
    readonly analysis?: {
      readonly analyses: readonly {
        readonly name: string;
        readonly measurements: readonly {
          readonly result: string;
          readonly value?: number;
          readonly baseline?: number;
          readonly why: string;
        }[];
      }[];
    };
  }[];
}

/** Each wave's measurements, in order. */
export function evidenceOf(rollout: RolloutEvidence | undefined): PromotionEvidence[] {
  return (rollout?.waves ?? []).flatMap((w, i) =>
    (w.analysis?.analyses ?? []).flatMap((a) =>
      a.measurements.map((m) => ({
        wave: i + 1,
        analysis: a.name,
        result: m.result,
        ...(m.value === undefined ? {} : { value: m.value }),
        ...(m.baseline === undefined ? {} : { baseline: m.baseline }),
        why: m.why,
      })),
    ),
  );
}

/** Whether a stopped rollout stopped on evidence: a machine it wrote failed (its gate or its wave's analysis). */
function stoppedOnEvidence(rollout: RolloutEvidence): boolean {
  return rollout.waves.some((w) => w.machines.some((m) => m.result === 'failed' && !(m.why ?? '').startsWith(WRITE_FAILURE_PREFIX)));
}

/** What an apply that wrote machines of a model version says of it; undefined: nothing yet. */
export function promotionVerdict(input: {
  readonly version: string;
  readonly at: string;
  /** Machines that deploy the version and were to be written. */
  readonly machines: number;
  /** Of those, the ones whose write failed or was skipped. */
  readonly notWritten: number;
  /** The rollout they went through, if one ran. */
  readonly rollout?: RolloutEvidence;
}): PromotionVerdict | undefined {
  const { version, at, rollout } = input;
  if (input.machines === 0) return undefined;
  const base = { version, at, evidence: evidenceOf(rollout), ...(rollout ? { rollout: rollout.name } : {}) };
  if (rollout?.outcome === 'stopped' && stoppedOnEvidence(rollout))
    return { ...base, status: 'rejected', why: rollout.reason ?? 'its rollout stopped' };
  if (rollout?.outcome === 'stopped' || rollout?.outcome === 'paused' || input.notWritten > 0) return undefined;
  const why = rollout
    ? `rollout ${rollout.name} completed on ${input.machines} machine(s)`
    : `written to ${input.machines} machine(s) without a rollout`;
  return { ...base, status: 'promoted', why };
}

/** The record with the verdict (a version decided again keeps only its newest verdict). */
export function withVerdict(record: PromotionRecord, verdict: PromotionVerdict): PromotionRecord {
  return { ...record, versions: [...record.versions.filter((v) => v.version !== verdict.version), verdict] };
}

/** `[<organization>/]<model>@<version>`: its model name and version, or undefined when it is not one. */
export function splitDeployedModel(
  text: string,
): { readonly prefix: string; readonly model: string; readonly version: string } | undefined {
  const slash = text.indexOf('/');
  const at = text.indexOf('@', slash + 1);
  if (at < 0 || at === slash + 1 || at === text.length - 1) return undefined;
  return { prefix: text.slice(0, slash + 1), model: text.slice(slash + 1, at), version: text.slice(at + 1) };
}
