import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { mlModelResource } from '../../domain/resource-attributes';
import { FleetformError } from '../../domain/errors';
import type { RegistryPackage } from '../../api/client';
import type { Applied, DesiredValue, KindContext, Observation, PlanProblem, ResourceKind } from '../kind';
import { defineKind, type ViewOf } from '../kind-declaration';
import type { JsonObject } from '../json';
import { packFile } from './model-archive';
import { unlessNotFound } from './not-found';

export const mlModelDeclaration = defineKind(mlModelResource);

type MlModelView = ViewOf<typeof mlModelDeclaration>;

function packageOfView(view: JsonObject | MlModelView): { id: string; version: string } {
  return { id: `${String(view.organization_id)}/${String(view.name)}`, version: String(view.version) };
}

function viewOf(pkg: RegistryPackage, filePath: unknown): MlModelView {
  const view: MlModelView = {
    name: pkg.name,
    version: pkg.version,
    path: typeof filePath === 'string' ? filePath : '',
    organization_id: pkg.organizationId,
  };
  if (typeof pkg.metadata.model_type === 'string') view.model_type = pkg.metadata.model_type;
  if (typeof pkg.metadata.model_framework === 'string') view.model_framework = pkg.metadata.model_framework;
  return view;
}

function registryPackage(ctx: KindContext, id: string, version: string): Promise<RegistryPackage | undefined> {
  return ctx.client.packagesClient.getPackage(id, version, 'ml_model');
}

async function unreadableFile(file: string): Promise<PlanProblem | undefined> {
  try {
    const stat = await fs.stat(file);
    if (stat.isFile()) return undefined;
    return { path: 'path', message: `${file} is not a file`, hint: 'give the path of the model file itself (e.g. model.tflite)' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    return {
      path: 'path',
      message: `the model file ${file} cannot be read (${code})`,
      hint: 'give a path relative to the app, or an absolute one',
    };
  }
}

/** A model file uploaded as a version of an ML model. */
export const mlModelKind: ResourceKind<typeof mlModelDeclaration> = {
  type: mlModelDeclaration.type,
  declaration: mlModelDeclaration,
  replaceOrder: 'create-first',

  async desire(ctx, attributes, prior): Promise<DesiredValue<MlModelView>> {
    const view: MlModelView = {
      name: attributes.name,
      version: attributes.version,
      path: attributes.path,
      organization_id: attributes.organization_id || ctx.organizationId,
    };
    if (attributes.model_type !== undefined) view.model_type = attributes.model_type;
    if (attributes.model_framework !== undefined) view.model_framework = attributes.model_framework;
    const problems: PlanProblem[] = [];
    const unreadable = await unreadableFile(attributes.path);
    if (unreadable) problems.push(unreadable);
    const { id, version } = packageOfView(view);
    if (!prior && (await registryPackage(ctx, id, version))) {
      problems.push({
        path: 'version',
        message: `model ${id} already has version ${version} in the registry`,
        hint:
          'a registry version never changes: give this upload a new version, or manage the existing one with fleetform import <this address> ' +
          `${id}@${version}`,
        existingId: `${id}@${version}`,
      });
    }
    return { view, private: {}, notes: [], problems };
  },

  async observe(ctx, entry): Promise<Observation<MlModelView> | undefined> {
    const id = entry.ids.id;
    const version = entry.ids.version;
    if (!id || !version) return undefined;
    const pkg = await registryPackage(ctx, id, version);
    if (!pkg) return undefined;
    return { view: viewOf(pkg, entry.attributes?.path), version: `${pkg.version}:${pkg.checksum}`, facts: { checksum: pkg.checksum } };
  },

  async create(ctx, desired): Promise<Applied> {
    const file = desired.path;
    const archive = packFile(path.basename(file), await fs.readFile(file));
    const metadata: Record<string, string> = {};
    if (typeof desired.model_type === 'string') metadata.model_type = desired.model_type;
    if (typeof desired.model_framework === 'string') metadata.model_framework = desired.model_framework;
    const made = await ctx.client.packagesClient.createPackage(
      {
        organizationId: desired.organization_id,
        name: desired.name,
        version: desired.version,
        type: 'ml_model',
        metadata,
        files: [{ name: path.basename(file), size: archive.byteLength }],
      },
      archive,
    );
    return { ids: { id: made.id, version: made.version }, outputs: { id: made.id } };
  },

  async update(_ctx, entry): Promise<Applied> {
    // Every attribute replaces: nothing changes in place.
    return { ids: entry.ids, outputs: entry.outputs };
  },

  async delete(ctx, entry) {
    const { id, version } = entry.ids;
    if (id && version) await unlessNotFound(() => ctx.client.packagesClient.deletePackage(id, version, 'ml_model'));
    return 'deleted';
  },

  retainOnDelete: () => false,

  identity(view) {
    const { id, version } = packageOfView(view);
    return typeof view.name === 'string' && view.name !== '' ? { key: { id, version }, label: `ML model ${id}@${version}` } : undefined;
  },

  async findCreated(ctx, key): Promise<Applied | undefined> {
    const found = await registryPackage(ctx, String(key.id), String(key.version));
    return found ? { ids: { id: found.id, version: found.version }, outputs: { id: found.id } } : undefined;
  },

  async importById(ctx, text): Promise<Applied | undefined> {
    const at = text.lastIndexOf('@');
    if (at <= 0)
      throw new FleetformError(`${JSON.stringify(text)} is not an ML model version`, {
        hint: 'import it by <organization id>/<name>@<version>',
      });
    const found = await registryPackage(ctx, text.slice(0, at), text.slice(at + 1));
    return found ? { ids: { id: found.id, version: found.version }, outputs: { id: found.id } } : undefined;
  },
};
