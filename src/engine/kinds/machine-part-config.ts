/**
 * The config a part of a machine (its main part or another) is to run, as plan desires it:
 * assembled from the part's attributes, checked as the machine server would load it, its
 * modules pinned against the registry, its packages and deployed models awaited, its size
 * held to what the service takes in one message. Each step returns what it found.
 */
import { z } from 'zod';
import { SERVICE_MAX_MESSAGE_BYTES, updateRobotPartRequestSize, updateRobotPartRequestSizeFor } from '../../api/message-size';
import { jsonTextBytesAtMost } from '../../domain/json-text-bound';
import { MODULE_VIAM_SERVER_CODE, validateMachineConfig } from '../../domain';
import { acknowledgmentsOf, inCode, type AcknowledgedAttribute, type Acknowledgment } from '../../domain/certainty';
import { FRAGMENT_RESOLVED_ISSUES } from '../../domain/fragments';
import { withPathPrefix } from '../../domain/issue';
import { machineAttributes } from '../../domain/resource-attributes';
import { isObject, type JsonObject } from '../json';
import type { KindContext, PlanNote, PlanProblem } from '../kind';
import type { StateEntry } from '../state/schema';
import { withResolvedSecrets } from '../secret-references';
import { configView } from './machine-config-view';
import { resolvedConfigChecks, type ConfigRules } from './machine-fragments';
import { importsFragments } from '../fragment-fetch';
import { deployedModelsOf, waitingModel, withDeployedModels, type DeployedModel } from './machine-models';
import { partViamServer, pinModules, pinsOf, runningVersions } from './machine-modules';
import { missingPackageProblem, missingPackages, packageEntries } from './machine-packages';
import { withSecretEnv } from './machine-secrets';
import { heldReloadMessage, withHeldReloads } from '../../domain/module-reload';
import { childPath } from '../../domain/json-path';
import { heldReloadEntries } from './held-reloads';

/** The config attributes a part of a machine gives: its config text, secret env entries, secrets by reference and deployed models. */
export interface PartConfigAttributes {
  readonly config: string;
  readonly secret_env?: Record<string, string> | undefined;
  readonly secrets?: z.infer<typeof machineAttributes.secrets>;
  readonly deploy_models?: Record<string, string> | undefined;
  readonly acknowledged?: AcknowledgedAttribute | undefined;
}

/** A part's desired config: what it will run (modules pinned, secrets and models filled in), the pins to keep, the checks' findings. */
export interface DesiredPartConfig {
  readonly config: JsonObject;
  readonly pins: Record<string, string>;
  /** The version each registry module of `config` runs, by its key there (see runningVersions). */
  readonly running: JsonObject;
  readonly notes: PlanNote[];
  readonly problems: PlanProblem[];
}

/** What a planning step found: problems stop the plan, notes inform it. */
interface Findings {
  readonly problems: PlanProblem[];
  readonly notes: PlanNote[];
}

/**
 * The config a part (the main one or another) is to run, checked as the machine server
 * would load it: modules without a version pinned at their first apply, their policies
 * resolved against the registry, deployed models and packages awaited, the message size
 * the service takes.
 */
export async function desirePartConfig(
  ctx: KindContext,
  name: string,
  attributes: PartConfigAttributes,
  prior: StateEntry | undefined,
): Promise<DesiredPartConfig> {
  const assembled = assembleConfig(ctx, name, attributes);
  const { config, models } = assembled;
  const acknowledged = acknowledgmentsOf(attributes.acknowledged);
  const server = await partViamServer(ctx, prior?.ids.part_id);
  const pinned = await pinModules(ctx, config, pinsOf(prior), { ...(server === undefined ? {} : { server }), acknowledged });
  const checked = await configChecks(ctx, name, config, acknowledged, pinned.providedModels);
  const packages = await packageFindings(ctx, config, models);
  const reloads = withHeldReloads(pinned.modules, await heldReloadEntries(ctx, prior?.ids.part_id));
  const desired = Array.isArray(config.modules) ? { ...config, modules: reloads.modules } : { ...config };
  // A warning: while the reload is in place the machine runs the developer's build, not what code declares.
  const reloadNotes: PlanNote[] = reloads.held.map((r) => ({
    level: 'warning',
    path: childPath('config.modules', r.module),
    message: heldReloadMessage(r),
  }));
  const view = configView(desired);
  return {
    config: view,
    pins: pinned.pins,
    // The registry facts pinning read serve the view's modules, unless a held reload names another.
    running: pinned.runningIn(view) ?? (await runningVersions(ctx, view, server)),
    notes: [...checked.notes, ...pinned.notes, ...packages.notes, ...reloadNotes],
    problems: [...assembled.problems, ...checked.problems, ...pinned.problems, ...packages.problems, ...sizeProblems(name, desired)],
  };
}

/** A part's config from its attributes: the JSON text parsed, secret env entries, secrets by reference and deployed models filled in. */
function assembleConfig(
  ctx: KindContext,
  name: string,
  attributes: PartConfigAttributes,
): { config: Record<string, unknown>; models: DeployedModel[]; problems: PlanProblem[] } {
  const parsed = parseConfig(attributes.config);
  const withEnv = withSecretEnv(parsed.config, attributes.secret_env);
  const withSecrets = withResolvedSecrets(withEnv.config, attributes.secrets, `machine ${name}`);
  const deployed = deployedModelsOf(attributes.deploy_models, ctx.organizationId);
  return {
    config: withDeployedModels(withSecrets.config, deployed.models),
    models: deployed.models,
    problems: [...(parsed.problem ? [parsed.problem] : []), ...withEnv.problems, ...withSecrets.problems, ...deployed.problems],
  };
}

function parseConfig(text: string): { config: Record<string, unknown>; problem?: PlanProblem } {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return { config: parsed };
  } catch {
    /* reported below */
  }
  return { config: {}, problem: { path: 'config', message: 'config is not a JSON object', hint: 'synthesize the app again' } };
}

/** Findings judged against the registry and the machine's viam-server while modules are pinned, not by the config rules. */
const JUDGED_AGAINST_REGISTRY: ReadonlySet<string> = new Set([MODULE_VIAM_SERVER_CODE]);

/**
 * The machine config rules over a config declared in code: a certain failure not
 * acknowledged is an error. A model the registry lists for one of the machine's modules is
 * provided by it, whatever its prefix.
 */
export function partConfigRules(acknowledged: readonly Acknowledgment[], providedModels?: ReadonlySet<string>): ConfigRules {
  return (config, resolution) => {
    const found = validateMachineConfig(config, { allowUnpinnedModules: true, ...(providedModels ? { providedModels } : {}) });
    const judged = inCode(found, config, acknowledged, {
      judgedElsewhere: JUDGED_AGAINST_REGISTRY,
      ...(resolution?.complete === false ? { onlyPossible: FRAGMENT_RESOLVED_ISSUES } : {}),
    });
    return withPathPrefix(judged, 'config');
  };
}

/** The machine config rules over what the part will run: its own entries, with what its fragments bring when it imports any. */
async function configChecks(
  ctx: KindContext,
  name: string,
  config: Record<string, unknown>,
  acknowledged: readonly Acknowledgment[],
  providedModels: ReadonlySet<string>,
): Promise<Findings> {
  const rules = partConfigRules(acknowledged, providedModels);
  if (importsFragments(config)) return resolvedConfigChecks(ctx, name, config, rules);
  const result = rules(config);
  return {
    problems: result.errors.map((e) => ({ path: e.path, message: e.message, ...(e.hint ? { hint: e.hint } : {}) })),
    notes: result.warnings.map((w) => ({ level: 'warning', path: w.path, message: w.message })),
  };
}

/** Packages the service lacks: a deployed model not trained yet is awaited (or noted), any other is a problem. */
async function packageFindings(ctx: KindContext, config: Record<string, unknown>, models: readonly DeployedModel[]): Promise<Findings> {
  const problems: PlanProblem[] = [];
  const notes: PlanNote[] = [];
  for (const absent of await missingPackages(ctx, packageEntries(config))) {
    const model = models.find((m) => m.name === absent.name);
    if (!model) {
      problems.push(await missingPackageProblem(ctx, absent));
      continue;
    }
    const waiting = await waitingModel(ctx, absent, model);
    if (waiting.problem) problems.push(waiting.problem);
    if (waiting.note) notes.push(waiting.note);
  }
  return { problems, notes };
}

/** A config the service cannot take in one message: refused at plan, before a machine is created without it. */
function sizeProblems(name: string, config: Record<string, unknown>): PlanProblem[] {
  // Sized exactly (its text written) only when the bound of its text could be over the limit.
  const textBound = jsonTextBytesAtMost(config, SERVICE_MAX_MESSAGE_BYTES);
  if (textBound <= SERVICE_MAX_MESSAGE_BYTES && updateRobotPartRequestSizeFor(name, textBound) <= SERVICE_MAX_MESSAGE_BYTES) return [];
  const bytes = updateRobotPartRequestSize(name, config);
  if (bytes <= SERVICE_MAX_MESSAGE_BYTES) return [];
  return [
    {
      path: 'config',
      message: `the config needs a ${megabytes(bytes)} UpdateRobotPart message, over the service's message limit of ${megabytes(SERVICE_MAX_MESSAGE_BYTES)}`,
      hint: 'make the config smaller: split the machine, or ship large data (models, lookup tables) as a package or module instead of attributes',
    },
  ];
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB (${bytes.toLocaleString('en-US')} bytes)`;
}
