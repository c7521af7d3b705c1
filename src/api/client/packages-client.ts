/**
 * Registry packages (viam.app.packages.v1.PackageService). Reads are retried on transient
 * errors; uploads and deletes run once. CreatePackage is client-streaming, which only
 * HTTP/2 gRPC carries: the client calls this service over an HTTP/2 transport of its own,
 * opened at its first call.
 */
import { Struct, type JsonObject } from '@bufbuild/protobuf';
import { PackageType, type CreatePackageRequest } from '../generated/viam/app/packages/v1/packages_pb';
import type { PackageServiceType } from '../services';
import type { Invoker } from './call';
import { dateOf, type TimestampLike } from './convert';
import { ServiceError } from './errors';

/** Package types by the name a machine config writes. */
export type RegistryPackageType = 'archive' | 'ml_model' | 'module' | 'slam_map' | 'ml_training';

const TYPE_NUMBERS: Readonly<Record<RegistryPackageType, PackageType>> = {
  archive: PackageType.ARCHIVE,
  ml_model: PackageType.ML_MODEL,
  module: PackageType.MODULE,
  slam_map: PackageType.SLAM_MAP,
  ml_training: PackageType.ML_TRAINING,
};

function typeNameOf(n: PackageType): RegistryPackageType | undefined {
  return (Object.keys(TYPE_NUMBERS) as RegistryPackageType[]).find((k) => TYPE_NUMBERS[k] === n);
}

/** One version of a registry package. */
export interface RegistryPackage {
  /** `<organization id>/<name>`. */
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly version: string;
  readonly type: RegistryPackageType | undefined;
  readonly checksum: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdOn?: Date;
}

/** What an upload says of the package; the contents go apart. */
export interface PackageUpload {
  readonly organizationId: string;
  readonly name: string;
  /** Empty: the service makes one (the upload time in Unix milliseconds). */
  readonly version: string;
  readonly type: RegistryPackageType;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly files?: ReadonlyArray<{ readonly name: string; readonly size: number }>;
}

/** Registry packages of an organization. */
export interface PackagesClient {
  /** Uploads a package version (its `.tar.gz` contents sent in 32 KiB chunks); resolves to its id and version. */
  createPackage(upload: PackageUpload, contents: Uint8Array): Promise<{ id: string; version: string }>;
  /** A version (`latest` or empty: the newest) of a package, or undefined when the service has none. */
  getPackage(id: string, version: string, type?: RegistryPackageType): Promise<RegistryPackage | undefined>;
  listPackages(
    organizationId: string,
    filter?: { name?: string; version?: string; type?: RegistryPackageType },
  ): Promise<RegistryPackage[]>;
  deletePackage(id: string, version: string, type: RegistryPackageType): Promise<void>;
}

/** Size of each contents message of an upload. */
export const UPLOAD_CHUNK_BYTES = 32 * 1024;

function packageOf(m: {
  id: string;
  info?: { organizationId: string; name: string; version: string; type: PackageType; metadata?: Struct };
  checksum: string;
  createdOn?: TimestampLike;
}): RegistryPackage {
  const info = m.info;
  return {
    id: m.id,
    organizationId: info?.organizationId ?? '',
    name: info?.name ?? '',
    version: info?.version ?? '',
    type: info ? typeNameOf(info.type) : undefined,
    checksum: m.checksum,
    metadata: (info?.metadata?.toJson() as Record<string, unknown> | undefined) ?? {},
    ...(m.createdOn ? { createdOn: dateOf(m.createdOn) } : {}),
  };
}

async function* uploadMessages(upload: PackageUpload, contents: Uint8Array): AsyncIterable<Partial<CreatePackageRequest>> {
  yield {
    package: {
      case: 'info',
      value: {
        organizationId: upload.organizationId,
        name: upload.name,
        version: upload.version,
        type: TYPE_NUMBERS[upload.type],
        files: (upload.files ?? []).map((f) => ({ name: f.name, size: BigInt(f.size) })),
        metadata: Struct.fromJson((upload.metadata ?? {}) as JsonObject),
      },
    } as CreatePackageRequest['package'],
  };
  for (let at = 0; at < contents.byteLength; at += UPLOAD_CHUNK_BYTES) {
    yield { package: { case: 'contents', value: contents.subarray(at, at + UPLOAD_CHUNK_BYTES) } };
  }
}

/** The packages client over `call`. */
export function createPackagesClient(call: Invoker<PackageServiceType>): PackagesClient {
  return {
    async createPackage(upload, contents) {
      const res = await call('createPackage', false, (c, o) => c.createPackage(uploadMessages(upload, contents), o));
      return { id: res.id, version: res.version };
    },

    async getPackage(id, version, type) {
      try {
        const res = await call('getPackage', true, (c, o) =>
          c.getPackage({ id, version, ...(type ? { type: TYPE_NUMBERS[type] } : {}) }, o),
        );
        return res.package ? packageOf(res.package) : undefined;
      } catch (e) {
        if (e instanceof ServiceError && e.code === 'NOT_FOUND') return undefined;
        throw e;
      }
    },

    async listPackages(organizationId, filter = {}) {
      const res = await call('listPackages', true, (c, o) =>
        c.listPackages(
          {
            organizationId,
            ...(filter.name !== undefined ? { name: filter.name } : {}),
            ...(filter.version !== undefined ? { version: filter.version } : {}),
            ...(filter.type !== undefined ? { type: TYPE_NUMBERS[filter.type] } : {}),
          },
          o,
        ),
      );
      return res.packages.map(packageOf);
    },

    async deletePackage(id, version, type) {
      await call('deletePackage', false, (c, o) => c.deletePackage({ id, version, type: TYPE_NUMBERS[type] }, o));
    },
  };
}
