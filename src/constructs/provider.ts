import { TerraformProvider } from './cdk';
import type { Construct } from 'constructs';
import { packageVersion } from './package-version';
import { registerChecks, type IssueSink } from './checks';
import { constructTypeOf, markConstructType } from './construct-types';
import { registerFleetConstruct } from './registry';
import { checkProps, propSchemas } from './props';
import { z } from 'zod';
import { terraformLiterals } from './terraform-literal';

/**
 * Properties of a {@link FleetProvider}. There are deliberately no credentials here: the
 * API key and its id are read from the environment at plan time (`FLEETFORM_API_KEY`,
 * `FLEETFORM_API_KEY_ID`), never written in code or in the synthesized output.
 */
export interface FleetProviderProps {
  /**
   * Organization that owns the stack's datasets and training jobs.
   * @default at plan time, the organization the API key belongs to
   */
  readonly organizationId?: string;
  /**
   * Default location of the stack's machines.
   * @default at plan time, the organization's only location (an error names the choices when there are several)
   */
  readonly locationId?: string;
  /**
   * Service endpoint, e.g. `https://app.example.com:443`.
   * @default `FLEETFORM_ENDPOINT` at plan time, else the embedded local emulator
   */
  readonly endpoint?: string;
}

/** The run-time check of {@link FleetProviderProps}: strict, without coercion. */
export const fleetProviderPropsSchema = z.strictObject({
  organizationId: propSchemas.text.optional(),
  locationId: propSchemas.text.optional(),
  endpoint: propSchemas.text.optional(),
}) satisfies z.ZodType<FleetProviderProps>;

/** The connection of a stack to the fleet service: the `fleetform` provider. */
export class FleetProvider extends TerraformProvider {
  /** The provider type, also the prefix of every resource type. */
  static readonly tfProviderType = 'fleetform';
  /** The provider source written to `required_providers`. */
  static readonly tfProviderSource = 'fleetform/fleetform';

  /** Whether x is a FleetProvider (of any copy of this library). */
  static isFleetProvider(x: unknown): x is FleetProvider {
    return constructTypeOf(x) === 'provider';
  }

  /** Organization, when given. */
  readonly organizationId: string | undefined;
  /** Default location, when given. */
  readonly locationId: string | undefined;
  /** Endpoint, when given. */
  readonly endpoint: string | undefined;

  constructor(scope: Construct, id: string, props: FleetProviderProps = {}) {
    super(scope, id, {
      terraformResourceType: FleetProvider.tfProviderType,
      terraformProviderSource: FleetProvider.tfProviderSource,
      // The provider of this very package: Terraform and the cdktf-cli want its version in required_providers.
      terraformGeneratorMetadata: {
        providerName: FleetProvider.tfProviderType,
        providerVersion: packageVersion(),
        providerVersionConstraint: packageVersion(),
      },
    });
    markConstructType(this, 'provider');
    checkProps(this, 'FleetProvider', fleetProviderPropsSchema, props);
    this.organizationId = props.organizationId;
    this.locationId = props.locationId;
    this.endpoint = props.endpoint;
    registerFleetConstruct(this);
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes: Record<string, unknown> = {};
    if (this.organizationId !== undefined) attributes.organization_id = this.organizationId;
    if (this.locationId !== undefined) attributes.location_id = this.locationId;
    if (this.endpoint !== undefined) attributes.endpoint = this.endpoint;
    return terraformLiterals(attributes);
  }
}

/** One provider per stack. */
function checkProviders(providers: readonly FleetProvider[], sink: IssueSink): void {
  const [first, ...rest] = providers;
  for (const extra of rest) {
    sink.error(
      extra,
      '',
      'duplicate-provider',
      `a stack has one FleetProvider; ${first?.node.path} is already one`,
      'remove this one, or move it to a stack of its own',
    );
  }
}

registerChecks<FleetProvider>('provider', { acrossStack: checkProviders });
