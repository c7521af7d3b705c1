import type { ServiceClient } from '../api/client';
import { parseDuration } from '../domain/duration';
import type { Target, TerraformType } from '../engine/provider-core';
import { Schema, Schema_Attribute, Schema_Block } from './protocol/generated/tfplugin6/tfplugin6_pb';
import type { TerraformObject } from './values/terraform-value';

/** The provider block's settings, each falling back to its FLEETFORM_* environment variable. */
export interface ProviderBlock {
  readonly organizationId?: string;
  readonly locationId?: string;
  readonly endpoint?: string;
  readonly apiKeyId?: string;
  readonly apiKey?: string;
  /** How long an apply waits for training, as `fleetform apply --wait-for-training` takes it. */
  readonly waitForTraining?: string;
}

/** A connected service; `defaults` names the embedded emulator's organization and location. */
export interface ProviderConnection {
  readonly client: ServiceClient;
  readonly endpoint: string;
  readonly defaults: Partial<Target>;
  /** The API key in use: keys the digests that stand for write-only secrets in Terraform's state. */
  readonly apiKey: string;
  close(): Promise<void>;
}

/** Opens the service a provider block names: its endpoint, else the embedded emulator. */
export type Connect = (block: ProviderBlock) => Promise<ProviderConnection>;

interface BlockAttribute {
  readonly name: string;
  readonly key: keyof ProviderBlock;
  readonly env: string;
  readonly description: string;
  readonly sensitive?: boolean;
}

const BLOCK_ATTRIBUTES: readonly BlockAttribute[] = [
  {
    name: 'organization_id',
    key: 'organizationId',
    env: 'FLEETFORM_ORGANIZATION_ID',
    description: 'Organization resources are created in; default the only one the API key sees.',
  },
  {
    name: 'location_id',
    key: 'locationId',
    env: 'FLEETFORM_LOCATION_ID',
    description: 'Location machines are created in; default the only one of the organization.',
  },
  {
    name: 'endpoint',
    key: 'endpoint',
    env: 'FLEETFORM_ENDPOINT',
    description: 'Address of the service; unset: the embedded emulator, with its data in .fleetform/emulator of the working directory.',
  },
  { name: 'api_key_id', key: 'apiKeyId', env: 'FLEETFORM_API_KEY_ID', description: 'Id of the API key of an organization owner.' },
  { name: 'api_key', key: 'apiKey', env: 'FLEETFORM_API_KEY', description: 'The API key of an organization owner.', sensitive: true },
  {
    name: 'wait_for_training',
    key: 'waitForTraining',
    env: 'FLEETFORM_WAIT_FOR_TRAINING',
    description:
      'How long an apply waits for a training job it submits to end (so its status and trained_version are final), and a machine for the model version it deploys, e.g. `10m`; unset: no wait, and a machine deploying a model still training fails its apply saying so.',
  },
];

/** The run settings a provider block gives: its training wait in milliseconds (0: none). */
export function trainingWaitOf(block: ProviderBlock): number {
  return block.waitForTraining === undefined ? 0 : parseDuration(block.waitForTraining, 'wait_for_training');
}

export const PROVIDER_BLOCK_TYPE: TerraformType = ['object', Object.fromEntries(BLOCK_ATTRIBUTES.map((a) => [a.name, 'string' as const]))];

/** The provider block's schema: every attribute optional, the key sensitive. */
export function providerBlockSchema(): Schema {
  return new Schema({
    version: 0n,
    block: new Schema_Block({
      description:
        'fleetform: robot fleet configuration and ML training jobs. Settings left out come from FLEETFORM_* environment variables.',
      attributes: BLOCK_ATTRIBUTES.map(
        (a) =>
          new Schema_Attribute({
            name: a.name,
            type: Buffer.from(JSON.stringify('string')),
            description: `${a.description} Environment: ${a.env}.`,
            optional: true,
            sensitive: a.sensitive === true,
          }),
      ),
    }),
  });
}

/** The settings of a decoded provider block, unset ones from the environment. */
export function providerBlock(value: TerraformObject | null, env: NodeJS.ProcessEnv): ProviderBlock {
  const block: Record<string, string> = {};
  for (const a of BLOCK_ATTRIBUTES) {
    const given = value?.[a.name];
    const v = typeof given === 'string' && given !== '' ? given : env[a.env];
    if (v) block[a.key] = v;
  }
  return block;
}
