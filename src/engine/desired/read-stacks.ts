import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FleetformError } from '../../domain/errors';
import { unescapeTemplate } from '../../domain/template-escape';
import { isObject, setOwn, type JsonObject } from '../json';
import { expandInstances } from './instances';
import { NO_LIFECYCLE, parseLifecycle, refuseUnhonoured, unwrapExpression } from './lifecycle';
import { findReferences, refuseUnevaluated } from './references';
import { fragmentRolloutsOf, reconcilePolicyOf, rolloutOf } from './rollout';
import { promotionsOf } from './promotions';
import type { DesiredOutput, DesiredResource, DesiredStack, StackBackend, ProviderSettings } from './stack';

/** Resource types of the fleetform provider begin with its name; the rest belong to other providers. */
const OWN_TYPE_PREFIX = 'fleetform_';

/** The fix for a synthesized output fleetform cannot read. */
const SYNTH_AGAIN = 'synthesize again with `fleetform synth`';

/**
 * Terraform meta-arguments: they steer the engine and are not resource attributes. Each is
 * honoured (depends_on, lifecycle, count, for_each, the default provider) or refused by name.
 */
const META_KEYS = new Set(['depends_on', 'lifecycle', 'provider', 'count', 'for_each', 'provisioner', 'connection', '//']);

async function readJson(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new FleetformError(`${what} not found: ${file}`, { path: file, hint: 'run `fleetform synth` first' });
    }
    throw err;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new FleetformError(`${what} is not valid JSON: ${file}`, { path: file, hint: SYNTH_AGAIN });
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A provider setting: a JSON-syntax template string, its `$${` and `%%{` escapes read as the literals they stand for. */
function setting(value: unknown): string | undefined {
  const s = str(value);
  return s === undefined ? undefined : unescapeTemplate(s);
}

function providerOf(doc: JsonObject): ProviderSettings {
  const block = isObject(doc.provider) ? doc.provider.fleetform : undefined;
  const first = Array.isArray(block) ? block[0] : block;
  if (!isObject(first)) return {};
  const settings: { organizationId?: string; locationId?: string; endpoint?: string } = {};
  const org = setting(first.organization_id);
  const loc = setting(first.location_id);
  const endpoint = setting(first.endpoint);
  if (org) settings.organizationId = org;
  if (loc) settings.locationId = loc;
  if (endpoint) settings.endpoint = endpoint;
  return settings;
}

/** The stack's `moved` blocks as address pairs (references written as `${...}` are unwrapped). */
function movesOf(doc: JsonObject, file: string): Array<{ from: string; to: string }> {
  const blocks = Array.isArray(doc.moved) ? doc.moved : [];
  const unwrap = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v.replace(/^\$\{(.*)\}$/, '$1') : undefined);
  return blocks.map((b, i) => {
    const from = isObject(b) ? unwrap(b.from) : undefined;
    const to = isObject(b) ? unwrap(b.to) : undefined;
    if (!from || !to)
      throw new FleetformError('a moved block needs both from and to', {
        path: `${file}#moved[${i}]`,
        hint: 'synthesize again with cdktf moveTo/moveToId/moveFromId',
      });
    return { from, to };
  });
}

/** The address of a resource block, without an instance key. */
function blockAddress(address: string): string {
  return address.replace(/\[[^\]]*\]$/, '');
}

/**
 * A dependency or trigger naming a resource with count or for_each as a whole stands for
 * each of its instances, as in Terraform.
 */
function expandWholeResourceDependencies(resources: DesiredResource[]): void {
  const declared = new Set(resources.map((r) => r.address));
  const instancesOf = new Map<string, string[]>();
  for (const r of resources) {
    const block = blockAddress(r.address);
    if (block !== r.address) instancesOf.set(block, [...(instancesOf.get(block) ?? []), r.address]);
  }
  if (instancesOf.size === 0) return;
  const expand = (dep: string): string[] => (declared.has(dep) ? [dep] : (instancesOf.get(dep) ?? [dep]));
  resources.forEach((r, i) => {
    const dependsOn = [...new Set(r.dependsOn.flatMap(expand))].filter((d) => d !== r.address);
    const lifecycle = r.lifecycle && {
      ...r.lifecycle,
      replaceTriggeredBy: r.lifecycle.replaceTriggeredBy.flatMap((t) => expand(t.address).map((address) => ({ ...t, address }))),
    };
    resources[i] = { ...r, dependsOn, ...(lifecycle ? { lifecycle } : {}) };
  });
}

/** Parses one synthesized stack document (cdk.tf.json). */
export function parseStackDocument(name: string, raw: unknown, file = `${name}/cdk.tf.json`): DesiredStack {
  if (!isObject(raw)) throw new FleetformError(`stack ${name} is not a JSON object`, { path: file });
  const doc = raw; // parsed JSON: no copy needed
  const resources: DesiredResource[] = [];
  const foreign: string[] = [];
  const blocks = isObject(doc.resource) ? doc.resource : {};
  for (const [type, byName] of Object.entries(blocks)) {
    if (!isObject(byName)) continue;
    if (!type.startsWith(OWN_TYPE_PREFIX)) {
      foreign.push(...Object.keys(byName).map((logicalId) => `${type}.${logicalId}`));
      continue;
    }
    for (const [logicalId, block] of Object.entries(byName)) {
      if (!isObject(block)) continue;
      const at = `${file}#resource.${type}.${logicalId}`;
      for (const { suffix, body } of expandInstances(block, at)) {
        const address = `${type}.${logicalId}${suffix}`;
        refuseUnhonoured(body, at);
        const attributes: JsonObject = {};
        for (const [k, v] of Object.entries(body)) if (!META_KEYS.has(k)) setOwn(attributes, k, v);
        refuseUnevaluated(attributes, at);
        const lifecycle = parseLifecycle(body.lifecycle, `${at}.lifecycle`);
        const explicit = Array.isArray(body.depends_on)
          ? body.depends_on.filter((d): d is string => typeof d === 'string').map(unwrapExpression)
          : [];
        const referenced = findReferences(attributes).map((r) => r.address);
        const triggers = lifecycle.replaceTriggeredBy.map((t) => t.address);
        const dependsOn = [...new Set([...explicit, ...referenced, ...triggers])].filter((d) => d !== address);
        resources.push({
          address,
          type,
          name: `${logicalId}${suffix}`,
          attributes,
          dependsOn,
          ...(lifecycle === NO_LIFECYCLE ? {} : { lifecycle }),
        });
      }
    }
  }
  expandWholeResourceDependencies(resources);
  const known = new Set(resources.map((r) => r.address));
  const others = new Set(foreign);
  for (const r of resources) {
    const text = others.size > 0 ? JSON.stringify(r.attributes) : '';
    const referenced = [...others].filter((o) => text.includes(`\${${o}.`) && !text.includes(`$\${${o}.`));
    for (const ref of findReferences(r.attributes)) {
      if (!known.has(ref.address) && r.dependsOn.some((d) => blockAddress(d) === ref.address)) {
        throw new FleetformError(`${r.address} refers to ${ref.address}.${ref.output}, but ${ref.address} has count or for_each`, {
          path: `${file}#resource.${r.type}.${r.name}`,
          hint: `name one instance, e.g. ${ref.address}[0].${ref.output} or ${ref.address}["key"].${ref.output}`,
        });
      }
    }
    for (const dep of [...referenced, ...r.dependsOn]) {
      if (others.has(dep)) {
        throw new FleetformError(`${r.address} depends on ${dep}, which another provider manages: fleetform's engine cannot wait for it`, {
          path: `${file}#resource.${r.type}.${r.name}`,
          hint: 'deploy this stack with `cdktf deploy` (the fleetform Terraform provider), or move the dependency out of the fleetform resource',
        });
      }
      if (!known.has(dep)) {
        throw new FleetformError(`${r.address} depends on ${dep}, which stack ${name} does not declare`, {
          path: `${file}#resource.${r.type}.${r.name}`,
          hint: 'declare the referenced resource in the same stack',
        });
      }
    }
  }
  const rollout = rolloutOf(doc, file);
  const fragmentRollouts = fragmentRolloutsOf(doc, file);
  const reconcile = reconcilePolicyOf(doc, file);
  const promotions = promotionsOf(doc, file);
  return {
    name,
    provider: providerOf(doc),
    resources,
    foreign,
    outputs: outputsOf(doc),
    moves: movesOf(doc, file),
    backend: backendOf(doc),
    ...(rollout ? { rollout } : {}),
    ...(fragmentRollouts.length > 0 ? { fragmentRollouts } : {}),
    ...(reconcile ? { reconcile } : {}),
    ...(promotions.length > 0 ? { promotions } : {}),
  };
}

/** The stack's `terraform.backend` block: PgBackend's settings, local, or another kind by name. */
export function backendOf(doc: JsonObject): StackBackend {
  const terraform = isObject(doc.terraform) ? doc.terraform : {};
  const backends = isObject(terraform.backend) ? terraform.backend : {};
  const [name, block] = Object.entries(backends)[0] ?? [];
  if (name === undefined || name === 'local') return { type: 'local' };
  if (name !== 'pg') return { type: 'other', name };
  const settings = isObject(block) ? block : {};
  const connStr = str(settings.conn_str);
  const schemaName = str(settings.schema_name);
  return { type: 'pg', ...(connStr ? { connStr } : {}), ...(schemaName ? { schemaName } : {}) };
}

/** The `output` blocks of a stack document (what cdktf's TerraformOutput writes). */
function outputsOf(doc: JsonObject): DesiredOutput[] {
  const blocks = isObject(doc.output) ? doc.output : {};
  return Object.entries(blocks)
    .filter((entry): entry is [string, JsonObject] => isObject(entry[1]))
    .map(([name, block]) => ({ name, value: block.value ?? null, sensitive: block.sensitive === true }));
}

/** Reads every stack (or the named ones) of a synthesized app from its output folder. */
export async function readStacks(outdir: string, only?: readonly string[]): Promise<DesiredStack[]> {
  const manifest = await readJson(path.join(outdir, 'manifest.json'), 'synthesized app manifest');
  const stacks = isObject(manifest) && isObject(manifest.stacks) ? manifest.stacks : undefined;
  if (!stacks) {
    throw new FleetformError(`${outdir}/manifest.json lists no stacks`, { hint: SYNTH_AGAIN });
  }
  const names = Object.keys(stacks);
  for (const wanted of only ?? []) {
    if (!names.includes(wanted)) {
      throw new FleetformError(`no stack named "${wanted}"`, {
        path: '--stack',
        hint: `stacks of this app: ${names.join(', ') || '(none)'}`,
      });
    }
  }
  const selected = only && only.length > 0 ? names.filter((n) => only.includes(n)) : names;
  const result: DesiredStack[] = [];
  for (const name of selected) {
    const entry = stacks[name];
    const rel =
      isObject(entry) && typeof entry.synthesizedStackPath === 'string'
        ? entry.synthesizedStackPath
        : path.join('stacks', name, 'cdk.tf.json');
    const file = path.join(outdir, rel);
    result.push(parseStackDocument(name, await readJson(file, `stack ${name}`), file));
  }
  return result;
}
