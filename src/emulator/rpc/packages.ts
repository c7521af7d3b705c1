/**
 * `viam.app.packages.v1.PackageService`: an organization's registry packages. CreatePackage
 * takes the package's info first and then its `.tar.gz` contents in chunks; a version left
 * empty becomes the upload time in Unix milliseconds. Trained models are `ml_model`
 * packages of their organization (read only here: they go when their model does).
 */
import * as crypto from 'node:crypto';
import { Struct, type JsonObject } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { PackageServiceType } from '../../api/services';
import { PackageType, type CreatePackageRequest } from '../../api/generated/viam/app/packages/v1/packages_pb';
import { PACKAGE_NAME_PATTERN, splitPackageId } from '../../domain/packages';
import type { Principal } from '../auth/principal';
import * as store from '../store/packages';
import { organizationFor } from './access';
import { principalOf, timestamp, type Backend } from './context';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from './errors';

/** Largest package the emulator keeps (its contents live in its database). */
export const MAX_PACKAGE_BYTES = 64 * 1024 * 1024;

const TYPE_NAMES: ReadonlyMap<PackageType, store.StoredPackageType> = new Map([
  [PackageType.ARCHIVE, 'archive'],
  [PackageType.ML_MODEL, 'ml_model'],
  [PackageType.MODULE, 'module'],
  [PackageType.SLAM_MAP, 'slam_map'],
  [PackageType.ML_TRAINING, 'ml_training'],
]);

/** `viam.app.packages.v1.PackageType`'s number of a stored type. */
export function packageTypeNumber(type: store.StoredPackageType): PackageType {
  for (const [n, name] of TYPE_NAMES) if (name === type) return n;
  return PackageType.UNSPECIFIED;
}

function typeName(type: PackageType, field: string): store.StoredPackageType {
  const name = TYPE_NAMES.get(type);
  if (!name) throw invalidArgument(`${field}: a package type is required (archive, ml_model, module, slam_map or ml_training)`);
  return name;
}

/** The organization and name of a package id the caller may read (or write). */
function packageFor(backend: Backend, p: Principal, id: string, need: 'read' | 'write'): { organizationId: string; name: string } {
  const parsed = splitPackageId(id);
  if (!parsed) throw invalidArgument(`id: ${JSON.stringify(id)} is not a package id; write <organization id>/<package name>`);
  organizationFor(backend.db, p, parsed.organizationId, need);
  return parsed;
}

function packageMessage(v: store.PackageVersionRecord) {
  return {
    id: `${v.organizationId}/${v.name}`,
    info: {
      organizationId: v.organizationId,
      name: v.name,
      version: v.version,
      type: packageTypeNumber(v.type),
      files: v.files.map((f) => ({
        name: f.name,
        size: BigInt(f.size),
        ...(f.isDirectory === undefined ? {} : { isDirectory: f.isDirectory }),
      })),
      metadata: Struct.fromJson(v.metadata as JsonObject),
      ...(v.platform ? { platform: v.platform } : {}),
    },
    url: '',
    createdOn: timestamp(v.createdOn),
    checksum: v.checksum,
  };
}

/** Reads the stream: its info (first) and every contents chunk after it. */
async function readUpload(
  requests: AsyncIterable<CreatePackageRequest>,
): Promise<{ info: NonNullable<Extract<CreatePackageRequest['package'], { case: 'info' }>['value']>; contents: Uint8Array }> {
  let info: Extract<CreatePackageRequest['package'], { case: 'info' }>['value'] | undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const req of requests) {
    if (req.package.case === 'info') {
      if (info) throw invalidArgument('package info was sent twice; send it once, first');
      info = req.package.value;
    } else if (req.package.case === 'contents') {
      if (!info) throw invalidArgument('the package info must come first, before its contents');
      size += req.package.value.byteLength;
      if (size > MAX_PACKAGE_BYTES)
        throw failedPrecondition(`the package is larger than ${MAX_PACKAGE_BYTES} bytes, the most this service keeps`);
      chunks.push(req.package.value);
    }
  }
  if (!info) throw invalidArgument('no package info was sent');
  return { info, contents: Buffer.concat(chunks) };
}

export function packageService(backend: Backend): ServiceImpl<PackageServiceType> {
  const { db } = backend;
  return {
    async createPackage(requests: AsyncIterable<CreatePackageRequest>, ctx: HandlerContext) {
      const p = principalOf(ctx);
      const { info, contents } = await readUpload(requests);
      const org = organizationFor(db, p, info.organizationId, 'write');
      if (!PACKAGE_NAME_PATTERN.test(info.name))
        throw invalidArgument(
          `name: invalid package name ${JSON.stringify(info.name)}; start with a letter or digit and use only letters, digits, "_" and "-"`,
        );
      const type = typeName(info.type, 'type');
      const version = info.version === '' ? String(backend.now()) : info.version;
      const taken = (): never => {
        throw alreadyExists(`package ${org.id}/${info.name} already has version ${version}`);
      };
      if (store.packageVersions(db, org.id, info.name).some((v) => v.version === version)) taken();
      const stored = store.insertPackageVersion(
        db,
        {
          organizationId: org.id,
          name: info.name,
          version,
          type,
          platform: info.platform ?? '',
          metadata: (info.metadata?.toJson() as Record<string, unknown> | undefined) ?? {},
          files: info.files.map((f) => ({
            name: f.name,
            size: Number(f.size),
            ...(f.isDirectory === undefined ? {} : { isDirectory: f.isDirectory }),
          })),
          checksum: crypto.createHash('sha256').update(contents).digest('hex'),
          contents,
        },
        backend.now(),
      );
      if (!stored) taken();
      return { id: `${org.id}/${info.name}`, version };
    },

    getPackage(req, ctx) {
      const { organizationId, name } = packageFor(backend, principalOf(ctx), req.id, 'read');
      const found = store.resolvePackageVersion(db, organizationId, name, req.version);
      if (!found || (req.type !== undefined && req.type !== PackageType.UNSPECIFIED && packageTypeNumber(found.type) !== req.type)) {
        throw notFound(
          req.version === '' || req.version === 'latest'
            ? `package ${req.id} not found`
            : `package ${req.id} has no version ${req.version}`,
        );
      }
      return { package: packageMessage(found) };
    },

    listPackages(req, ctx) {
      const org = organizationFor(db, principalOf(ctx), req.organizationId, 'read');
      const all = req.name !== undefined ? store.packageVersions(db, org.id, req.name) : store.organizationPackages(db, org.id);
      const packages = all.filter(
        (v) =>
          (req.version === undefined || v.version === req.version) &&
          (req.type === undefined || req.type === PackageType.UNSPECIFIED || packageTypeNumber(v.type) === req.type),
      );
      return { packages: packages.map(packageMessage) };
    },

    deletePackage(req, ctx) {
      const { organizationId, name } = packageFor(backend, principalOf(ctx), req.id, 'write');
      const found = store.packageVersions(db, organizationId, name).find((v) => v.version === req.version);
      if (!found || (req.type !== PackageType.UNSPECIFIED && packageTypeNumber(found.type) !== req.type))
        throw notFound(`package ${req.id} has no version ${req.version}`);
      if (found.trained) throw failedPrecondition(`version ${req.version} of ${req.id} is a trained model; delete the model instead`);
      store.deletePackageVersion(db, organizationId, name, req.version);
      return {};
    },
  };
}
