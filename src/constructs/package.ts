import { Construct } from 'constructs';
import { z } from 'zod';
import { LATEST_PACKAGE_VERSION, packagePlaceholder, PACKAGE_TYPES, type PackageConfig, type PackageType } from '../domain/packages';
import { registerChecks } from './checks';
import { constructTypeOf, markConstructType, markConstructTypeOfClass } from './construct-types';
import { machinePartChecks } from './machine-checks';
import type { IMachine, IPackage, ITrainedModelSource } from './machine-parts';
import { owningMachine } from './machine-scope';
import { checkProps, propSchemas } from './props';
import { registerFleetConstruct } from './registry';

/** Properties of a {@link Package}. */
export interface PackageProps {
  /**
   * Local name of the package on the machine (unique there); placeholders refer to it.
   * @default the construct id
   */
  readonly name?: string;
  /** Registry package id `<organization id>/<package name>`, e.g. `acme-org-id/box-detector`. */
  readonly package: string;
  /**
   * The version to download.
   * @default `latest`: the newest version
   */
  readonly version?: string;
  /** `ml_model`, `module`, `slam_map` or `archive`. */
  readonly type: PackageType;
}

/** The run-time check of {@link PackageProps}: strict, without coercion. */
export const packagePropsSchema = z.strictObject({
  name: propSchemas.text.optional(),
  package: propSchemas.text,
  version: propSchemas.text.optional(),
  type: z.enum(PACKAGE_TYPES),
}) satisfies z.ZodType<PackageProps>;

/**
 * A registry package the machine downloads: an entry of its config's `packages`. Declare
 * it inside a {@link Machine}; `path` is the placeholder of the folder the machine puts it
 * in, for attributes, module `env` and `executablePath`:
 *
 * ```ts
 * const detector = new Package(machine, 'detector', { package: 'acme-org-id/box-detector', version: '3', type: 'ml_model' });
 * new ModularResource(machine, 'mlmodel', { ..., attributes: { model_path: `${detector.path}/model.tflite` } });
 * ```
 */
export class Package extends Construct implements IPackage {
  /** Whether x is a Package (of any copy of this library). */
  static isPackage(x: unknown): x is Package {
    return constructTypeOf(x) === 'package';
  }

  /** The machine whose config holds this package. */
  readonly machine: IMachine;
  /** Local name of the package. */
  readonly name: string;
  /** Registry package id. */
  readonly package: string;
  /** The version as given; undefined for the newest one. */
  readonly version: string | undefined;
  readonly type: PackageType;
  /** The training job whose model this package deploys (see Machine.deployModel), if any. */
  readonly trainingJob: ITrainedModelSource | undefined;

  constructor(scope: Construct, id: string, props: PackageProps) {
    super(scope, id);
    markConstructType(this, 'package');
    checkProps(this, 'Package', packagePropsSchema, props);
    this.machine = owningMachine(this, 'Package');
    this.name = props.name ?? id;
    this.package = props.package;
    this.version = props.version;
    this.type = props.type;
    this.trainingJob = deploymentsInConstruction.get(props);
    registerFleetConstruct(this);
  }

  /** The placeholder of the package's folder on the machine: `${packages.<type>.<name>}`. */
  get path(): string {
    return packagePlaceholder(this.type, this.name);
  }

  /** This package's entry of the machine config's `packages` list. */
  toConfig(): PackageConfig {
    return { name: this.name, package: this.package, version: this.version ?? LATEST_PACKAGE_VERSION, type: this.type };
  }
}

/** Props of packages being made by deployedModelPackage, with the job they deploy. */
const deploymentsInConstruction = new WeakMap<PackageProps, ITrainedModelSource>();

/**
 * Stands for the organization in a deployed model's package id until plan, which fills in
 * the organization the job trains in: the id is never synthesized with it.
 */
export const PLAN_TIME_ORGANIZATION = '(organization)';

/** Options of Machine.deployModel. */
export interface DeployModelOptions {
  /**
   * Local name of the package on the machine.
   * @default the job's model name
   */
  readonly name?: string;
}

/** The ml_model package of a machine that deploys the model a training job makes. */
export function deployedModelPackage(machine: IMachine, job: ITrainedModelSource, options: DeployModelOptions = {}): Package {
  const name = options.name ?? job.modelName;
  const props: PackageProps = {
    name,
    package: `${job.organizationId ?? PLAN_TIME_ORGANIZATION}/${job.modelName}`,
    version: job.modelVersion,
    type: 'ml_model',
  };
  deploymentsInConstruction.set(props, job);
  return new Package(machine, `model-${name}`, props);
}

/** What a machine synthesizes in `deploy_models`: `<local name>` -> `[<organization id>/]<model name>@<model version>`. */
export function deployedModels(packages: readonly IPackage[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const p of packages) {
    const job = p.trainingJob;
    if (job) out[p.name] = `${job.organizationId ? `${job.organizationId}/` : ''}${job.modelName}@${job.modelVersion}`;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

markConstructTypeOfClass(Package, 'package');
registerChecks('package', machinePartChecks);
