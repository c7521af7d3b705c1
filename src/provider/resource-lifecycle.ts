import {
  type Applied,
  attributesOfView,
  type Desired,
  desireResource,
  digestName,
  findKeptObject,
  type KindContext,
  maskPaths,
  observedSecretPaths,
  planResourceChange,
  type ResourceKind,
  type StateEntry,
  TAKEN_BACK_PRIVATE,
  takenBackEntry,
  viewSecretPaths,
  writeOnlyAttributes,
} from '../engine/provider-core';
import { jsonEqual, type JsonObject } from '../domain/json-value';
import { engineAttributes, isEngineUnknown, terraformAttribute } from './attributes';
import type { Diagnostics } from './diagnostics';
import type { CreateIntents } from './create-intents';
import { newSalt, stateEntry, type ResourcePrivate } from './resource-private';
import { creationSalt, withoutWriteOnly, withWriteOnlyFrom } from './write-only';
import { withReferenceDigest } from './secret-digests';
import { observeWritten, withObserved } from './observed-attributes';
import { unknownValue, UnknownValue, type TerraformObject, type TerraformValue } from './values/terraform-value';

/** A resource's value in Terraform's state and the provider's record of it. */
export interface Stored {
  readonly state: TerraformObject;
  readonly private: ResourcePrivate;
}

/** What a plan decided: the planned state, what forces replacement, the record carried to apply. */
export interface Planned {
  readonly state: TerraformObject;
  readonly requiresReplace: readonly string[];
  readonly private: ResourcePrivate;
}

function same(a: TerraformValue | undefined, b: TerraformValue | undefined): boolean {
  if (a instanceof UnknownValue || b instanceof UnknownValue) return a === b;
  return jsonEqual(a ?? null, b ?? null);
}

/** The new state of an applied object: the planned attributes, the service's own ones from what apply returned. */
function withServiceAttributes(kind: ResourceKind, planned: TerraformObject, applied: Applied): TerraformObject {
  const out: TerraformObject = { ...planned };
  for (const f of Object.values(kind.declaration.attributes)) {
    if (f.presence === 'computed') out[f.name] = terraformAttribute(f, applied.outputs[f.name] ?? applied.ids[f.name] ?? null);
  }
  return out;
}

/** The state of an object a write just made or changed: the service's own attributes, those it changes on its own read again. */
async function writtenState(kind: ResourceKind, ctx: KindContext, planned: TerraformObject, applied: Applied): Promise<TerraformObject> {
  const observation = await observeWritten(kind, ctx, applied, (a) => adoptedEntry(kind, a));
  return withObserved(kind, withServiceAttributes(kind, planned, applied), observation);
}

/** The record of an object after a create, update or import: the view it was made to hold, secrets as digests. */
function recordOf(
  applied: Applied,
  view: JsonObject,
  sensitivePaths: readonly string[],
  kindPrivate: JsonObject,
  salt: string,
  key: Buffer,
): ResourcePrivate {
  return {
    ids: { ...applied.ids },
    outputs: { ...applied.outputs },
    kind_private: kindPrivate,
    applied: maskPaths(view, sensitivePaths, salt, key),
    sensitive_paths: [...sensitivePaths],
    salt,
    version: null,
  };
}

/**
 * Plans one resource the way `fleetform plan` judges it: the kind's desired value (its
 * checks before any write), the declared replace-forcing attributes, the kind's own
 * judgement; Terraform's rules for the planned state: what config sets is kept as set,
 * the service's own attributes are the prior values or unknown, an attribute the
 * service defaults is the value fleetform will send.
 */
export async function planTerraformResource(
  kind: ResourceKind,
  ctx: KindContext,
  input: {
    prior: Stored | undefined;
    config: TerraformObject;
    key: Buffer;
    writeOnly: boolean;
    intents?: CreateIntents | undefined;
    /** For the create half of a replace: the ids of the object it replaces. */
    replacing?: Readonly<Record<string, string>> | undefined;
  },
  diags: Diagnostics,
): Promise<Planned> {
  const { prior, config } = input;
  const declaration = kind.declaration;
  const entry = prior ? stateEntry(kind.type, prior.private) : undefined;
  let desired = await desireResource(kind, ctx, engineAttributes(declaration, config), entry);
  const interrupted = prior ? undefined : await interruptedCreate(kind, ctx, desired.view, input.intents);
  if (interrupted) {
    // Judged as the object it is: its own name or version is no clash.
    desired = await desireResource(kind, ctx, engineAttributes(declaration, config), adoptedEntry(kind, interrupted));
    diags.warning(`an interrupted create made this object (${describeIds(interrupted)}): apply adopts it instead of creating another`);
  }
  if (prior?.private.applied) desired = withRecordedChoices(kind, desired, prior.private.applied, config);
  const kept = prior || interrupted ? undefined : await takenBack(kind, ctx, engineAttributes(declaration, config), input.key, diags);
  if (kept) desired = kept.desired;
  const adopted = interrupted ?? kept?.found;
  // The create half of a replace is planned with no prior state but with the replaced
  // object's record: that object's own name is no clash.
  const replaced = new Set(Object.values(input.replacing ?? {}));
  diags.problems(desired.problems.filter((p) => !(p.existingId && replaced.has(p.existingId))));
  diags.notes(desired.notes);
  const planned: TerraformObject = {};
  for (const f of Object.values(declaration.attributes)) {
    const given = config[f.name] ?? null;
    if (f.presence === 'computed') planned[f.name] = prior ? (prior.state[f.name] ?? null) : unknownValue;
    else if (given !== null) planned[f.name] = given;
    else if (f.presence === 'optional-computed') {
      const v = desired.view[f.name];
      planned[f.name] =
        v !== undefined && !isEngineUnknown(v) ? terraformAttribute(f, v) : prior ? (prior.state[f.name] ?? null) : unknownValue;
    } else planned[f.name] = null;
  }
  if (!prior) {
    // Terraform plans a create again during apply: the new object's salt must come out the
    // same, so it is derived from its configuration (unknown while any of it is).
    const salt = creationSalt(declaration, kind.type, config);
    // An adopted object's ids ride to apply in the planned record.
    const record: ResourcePrivate = {
      ids: { ...adopted?.ids },
      outputs: { ...adopted?.outputs },
      kind_private: kept ? { ...TAKEN_BACK_PRIVATE } : {},
      applied: null,
      sensitive_paths: [],
      salt: salt ?? newSalt(),
      version: null,
    };
    const state = withReferenceDigest(
      declaration,
      withoutWriteOnly(declaration, planned, config, input.key, record.salt, input.writeOnly),
      desired.view,
      engineAttributes(declaration, config),
      input.key,
      salt,
    );
    if (salt === undefined)
      for (const f of writeOnlyAttributes(declaration)) if (state[digestName(f)] !== null) state[digestName(f)] = unknownValue;
    return { state, requiresReplace: [], private: record };
  }
  const plannedState = withReferenceDigest(
    declaration,
    withoutWriteOnly(declaration, planned, config, input.key, prior.private.salt, input.writeOnly),
    desired.view,
    engineAttributes(declaration, config),
    input.key,
    prior.private.salt,
  );

  // An unknown replace-forcing value counts as a change: Terraform's final plan may not turn an update into a replace.
  const requiresReplace = Object.values(declaration.attributes)
    .filter((f) => f.forcesReplacement && !same(prior.state[f.name], planned[f.name]))
    .map((f) => f.name);
  const plan = planResourceChange({
    kind,
    desired,
    attributes: engineAttributes(declaration, config),
    existing: entry,
    observation: undefined,
    salt: prior.private.salt,
    key: input.key,
    forcedReplace: requiresReplace,
    // Terraform shows what a plan says of an object only when the plan changes it.
    unchanged: Object.keys(plannedState).every((name) => same(prior.state[name], plannedState[name])),
  });
  if (plan.action !== 'create') {
    diags.problems(plan.judgement.problems);
    diags.notes(plan.judgement.notes);
  }
  if (requiresReplace.length > 0) {
    for (const f of Object.values(declaration.attributes)) if (f.presence === 'computed') plannedState[f.name] = unknownValue;
  } else if (!Object.keys(plannedState).every((name) => same(prior.state[name], plannedState[name]))) {
    // What the service renews at every update (a revision) or changes on its own (a status) is known only after it.
    for (const f of Object.values(declaration.attributes)) if (f.changesOnUpdate || f.observed) plannedState[f.name] = unknownValue;
  }
  return { state: plannedState, requiresReplace, private: prior.private };
}

/**
 * The entry a delete works from. The delete half of a replace comes with the record
 * planned for the new object (Terraform plans that create with no prior state), which
 * names nothing yet: the old object is then found by the id its state holds.
 * Nothing when the service no longer has it.
 */
async function deletable(kind: ResourceKind, ctx: KindContext, prior: Stored): Promise<StateEntry | undefined> {
  const entry = stateEntry(kind.type, prior.private);
  if (Object.keys(entry.ids).length > 0) return entry;
  const id = prior.state.id;
  const found = typeof id === 'string' && id !== '' ? await kind.importById(ctx, id) : undefined;
  return found ? { ...entry, ids: { ...found.ids }, outputs: { ...found.outputs } } : undefined;
}

/** Whether `ids` holds every id `recorded` names, with the same value (a create records its first id before the rest). */
function holdsIds(ids: Readonly<Record<string, string>>, recorded: Readonly<Record<string, string>>): boolean {
  return Object.entries(recorded).every(([k, v]) => ids[k] === v);
}

function describeIds(applied: Applied): string {
  return Object.entries(applied.ids)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

/**
 * A desired value with what the record holds for each parameter code leaves to the
 * service's choice: an object imported holds what the service chose (a job's container
 * version), which is no change while code leaves it unspecified.
 */
function withRecordedChoices(kind: ResourceKind, desired: Desired, applied: JsonObject, config: TerraformObject): Desired {
  let view = desired.view;
  for (const [key, unspecified] of Object.entries(kind.declaration.serviceChosen)) {
    const recorded = applied[key];
    if ((config[key] ?? null) !== null || recorded === undefined || !jsonEqual(view[key] ?? null, unspecified)) continue;
    if (!jsonEqual(recorded, unspecified)) view = { ...view, [key]: recorded };
  }
  return view === desired.view ? desired : { ...desired, view };
}

/**
 * The object an earlier destroy kept (retain_on_delete) that this create names again, found
 * and judged as `fleetform apply` takes it back: the desired value planned against it, the
 * kind's judgement of what the configuration would change on it. Apply then records it
 * in Terraform's state instead of creating another.
 */
async function takenBack(
  kind: ResourceKind,
  ctx: KindContext,
  attributes: JsonObject,
  key: Buffer,
  diags: Diagnostics,
): Promise<{ found: Applied; desired: Desired } | undefined> {
  const found = await findKeptObject(kind, ctx, attributes, new Set());
  if (!found) return undefined;
  const entry = takenBackEntry(kind.type, found, []);
  const desired = await desireResource(kind, ctx, attributes, entry);
  const observation = await kind.observe(ctx, entry);
  const plan = planResourceChange({ kind, desired, attributes, existing: entry, observation, salt: '', key });
  if (plan.action !== 'create') {
    diags.problems(plan.judgement.problems);
    diags.notes(plan.judgement.notes);
  }
  diags.warning(
    `an earlier destroy kept this object (retain_on_delete; ${describeIds(found)}): apply takes it back into Terraform's state instead of creating another`,
  );
  return { found, desired };
}

/** A state entry standing for an object an interrupted create made, or one an earlier destroy kept. */
function adoptedEntry(kind: ResourceKind, applied: Applied, kindPrivate: JsonObject = {}) {
  return stateEntry(kind.type, {
    ids: { ...applied.ids },
    outputs: { ...applied.outputs },
    kind_private: { ...kindPrivate },
    applied: null,
    sensitive_paths: [],
    salt: '',
    version: null,
  });
}

/**
 * The object an earlier, interrupted create of this identity made, found by its intent the
 * way the engine settles its own intents; an intent whose create made nothing is dropped.
 * An object of that name whose ids differ from those the create recorded is someone else's.
 */
async function interruptedCreate(
  kind: ResourceKind,
  ctx: KindContext,
  view: JsonObject,
  intents: CreateIntents | undefined,
): Promise<Applied | undefined> {
  const identity = kind.identity(view);
  const intent = identity && intents?.find(kind.type, identity.key);
  if (!identity || !intent || !intents) return undefined;
  const found = await kind.findCreated(ctx, identity.key, new Set());
  if (!found) {
    intents.drop(kind.type, identity.key);
    return undefined;
  }
  if (intent.ids && !holdsIds(found.ids, intent.ids)) return undefined;
  return found;
}

/** Drops the intent of a create whose object Terraform's state now holds. */
export function settleIntent(kind: ResourceKind, stored: Stored, intents: CreateIntents | undefined): void {
  const identity = stored.private.applied ? kind.identity(stored.private.applied) : undefined;
  if (!identity || !intents) return;
  const intent = intents.find(kind.type, identity.key);
  if (intent && (!intent.ids || holdsIds(stored.private.ids, intent.ids))) intents.drop(kind.type, identity.key);
}

/** Creates, updates or deletes one object as planned; a create that got as far as the service keeps what it made. */
export async function applyResource(
  kind: ResourceKind,
  ctx: KindContext,
  input: {
    prior: Stored | undefined;
    planned: TerraformObject | null;
    config: TerraformObject | null;
    plannedPrivate: ResourcePrivate | undefined;
    key: Buffer;
    intents?: CreateIntents | undefined;
  },
  diags: Diagnostics,
): Promise<{ state: TerraformObject | null; private: ResourcePrivate | undefined }> {
  const { prior, planned, key, intents } = input;
  if (!planned) {
    if (!prior) return { state: null, private: undefined };
    settleIntent(kind, prior, intents);
    const entry = await deletable(kind, ctx, prior);
    if (!entry) return { state: null, private: undefined };
    if (kind.retainOnDelete(entry)) {
      diags.warning('retain_on_delete: the object is kept on the service; Terraform no longer manages it');
      return { state: null, private: undefined };
    }
    const outcome = await kind.delete(ctx, entry);
    if (outcome === 'pending') diags.warning('deletion started and finishes on the service later (e.g. a canceled training job)');
    return { state: null, private: undefined };
  }
  const plannedIds = input.plannedPrivate?.ids ?? {};
  const adopting =
    !prior && Object.keys(plannedIds).length > 0 ? { ids: plannedIds, outputs: input.plannedPrivate?.outputs ?? {} } : undefined;
  const entry = prior
    ? stateEntry(kind.type, prior.private)
    : adopting
      ? adoptedEntry(kind, adopting, input.plannedPrivate?.kind_private)
      : undefined;
  // Write-only secrets are in the configuration only.
  const attributes = engineAttributes(kind.declaration, withWriteOnlyFrom(kind.declaration, planned, input.config));
  const asDesired = await desireResource(kind, ctx, attributes, entry);
  const desired = prior?.private.applied ? withRecordedChoices(kind, asDesired, prior.private.applied, input.config ?? {}) : asDesired;
  // The state of an applied object: the digest of the secrets references read as this apply read them.
  const appliedState = (state: TerraformObject, salt: string): TerraformObject =>
    withReferenceDigest(kind.declaration, state, desired.view, attributes, key, salt);
  // At apply, the service is the judge of what it holds (a replaced object is gone by now).
  const refused = desired.problems.filter((p) => !p.existingId);
  if (refused.length > 0) {
    diags.problems(refused);
    return { state: prior?.state ?? null, private: prior?.private };
  }
  if (adopting && entry) {
    // The plan found what an interrupted create made: it is brought to the configuration, not made again.
    const salt = input.plannedPrivate?.salt ?? newSalt();
    const applied = await kind.update(ctx, entry, desired.view, null);
    const identity = kind.identity(desired.view);
    if (identity && intents) intents.record(kind.type, identity.key, applied.ids);
    return {
      state: appliedState(await writtenState(kind, ctx, planned, applied), salt),
      private: recordOf(applied, desired.view, desired.sensitivePaths, desired.private, salt, key),
    };
  }
  if (!prior || !entry) {
    const salt = input.plannedPrivate?.salt ?? newSalt();
    let made: Applied | undefined;
    const identity = kind.identity(desired.view);
    // Recorded before the call: a create the run does not live to see answered is found by it.
    if (identity && intents) intents.record(kind.type, identity.key);
    try {
      const applied = await kind.create(ctx, desired.view, async (ids) => {
        made = ids;
        if (identity && intents) intents.record(kind.type, identity.key, ids.ids);
      });
      if (identity && intents) intents.record(kind.type, identity.key, applied.ids);
      return {
        state: appliedState(await writtenState(kind, ctx, planned, applied), salt),
        private: recordOf(applied, desired.view, desired.sensitivePaths, desired.private, salt, key),
      };
    } catch (err) {
      diags.failure(err, `creating ${kind.type}`);
      // What the service already made stays in state (Terraform marks it tainted) instead of being lost.
      if (made)
        return {
          state: appliedState(withServiceAttributes(kind, planned, made), salt),
          private: recordOf(made, desired.view, desired.sensitivePaths, desired.private, salt, key),
        };
      return { state: null, private: undefined };
    }
  }
  const plannedVersion = input.plannedPrivate?.version ?? prior.private.version;
  const applied = await kind.update(ctx, entry, desired.view, plannedVersion);
  const record = recordOf(
    applied,
    desired.view,
    desired.sensitivePaths,
    { ...prior.private.kind_private, ...desired.private },
    prior.private.salt,
    key,
  );
  return { state: appliedState(await writtenState(kind, ctx, planned, applied), prior.private.salt), private: record };
}

/**
 * Reads the object: null when it is gone; the stored attributes when the service holds
 * what was applied; else (drift) the attributes code would give for what it holds.
 */
export async function readResource(
  kind: ResourceKind,
  ctx: KindContext,
  stored: Stored,
  key: Buffer,
  writeOnly: boolean,
): Promise<Stored | null> {
  const entry = stateEntry(kind.type, stored.private);
  const observation = await kind.observe(ctx, entry);
  if (!observation) return null;
  const record: ResourcePrivate = { ...stored.private, version: observation.version };
  const current = engineAttributes(kind.declaration, stored.state);
  const secrets = viewSecretPaths(kind, observation.view, stored.private.sensitive_paths, current);
  if (stored.private.applied && jsonEqual(maskPaths(observation.view, secrets, stored.private.salt, key), stored.private.applied)) {
    // A secret an earlier layout kept in state leaves it at the first read.
    const refreshed = withObserved(kind, stored.state, observation);
    if (!writeOnly) return { state: refreshed, private: record };
    const state = { ...refreshed };
    for (const f of writeOnlyAttributes(kind.declaration)) state[f.name] = null;
    return { state, private: record };
  }
  const attributes = attributesOfView(kind, observation.view, current);
  const state: TerraformObject = withObserved(kind, stored.state, observation);
  for (const f of Object.values(kind.declaration.attributes)) {
    // What the service holds only stands for a value still to be given (a kept job's deleted dataset) leaves state's.
    if (f.presence !== 'computed' && f.name in attributes && !isEngineUnknown(attributes[f.name]))
      state[f.name] = terraformAttribute(f, attributes[f.name]);
  }
  // What the service holds at the referenced paths is digested as a plan digests what the references read.
  const observed = withReferenceDigest(kind.declaration, state, observation.view, current, key, stored.private.salt);
  return { state: withoutWriteOnly(kind.declaration, observed, { ...observed }, key, stored.private.salt, writeOnly), private: record };
}

/** Adopts an object by its service id: its attributes as the service holds them. */
export async function importResource(
  kind: ResourceKind,
  ctx: KindContext,
  id: string,
  key: Buffer,
  writeOnly: boolean,
): Promise<Stored | undefined> {
  const applied = await kind.importById(ctx, id);
  if (!applied) return undefined;
  const salt = newSalt();
  const bare: ResourcePrivate = {
    ids: { ...applied.ids },
    outputs: { ...applied.outputs },
    kind_private: {},
    applied: null,
    sensitive_paths: [],
    salt,
    version: null,
  };
  const observation = await kind.observe(ctx, stateEntry(kind.type, bare));
  if (!observation) return undefined;
  const attributes = attributesOfView(kind, observation.view, undefined);
  const state: TerraformObject = {};
  // A value the object only stands for (a kept job's deleted dataset: the one code gives) is unset until the next apply.
  for (const f of Object.values(kind.declaration.attributes))
    state[f.name] = isEngineUnknown(attributes[f.name]) ? null : terraformAttribute(f, attributes[f.name]);
  const secrets = observedSecretPaths(kind, observation.view, attributes);
  const withIds = withObserved(kind, withServiceAttributes(kind, state, applied), observation);
  return {
    state: withoutWriteOnly(kind.declaration, withIds, { ...withIds }, key, salt, writeOnly),
    private: { ...recordOf(applied, observation.view, secrets, {}, salt, key), version: observation.version },
  };
}
