import { FleetformError } from '../domain/errors';
import {
  attributeProblems,
  IMPORT_ID_HINT,
  kindContext,
  type KindContext,
  type KindRegistry,
  resolveTarget,
  type ResourceKind,
  terraformResourceSchema,
} from '../engine/provider-core';
import { engineAttributes, objectType } from './attributes';
import { digestKey } from './write-only';
import { attributePath, Diagnostics } from './diagnostics';
import {
  PROVIDER_BLOCK_TYPE,
  providerBlock,
  providerBlockSchema,
  trainingWaitOf,
  type Connect,
  type ProviderConnection,
} from './provider-block';
import * as tf from './protocol/generated/tfplugin6/tfplugin6_pb';
import type { ProviderHandlers } from './protocol/services';
import { configAddress } from './config-address';
import { CreateIntents } from './create-intents';
import { applyResource, importResource, planTerraformResource, readResource, settleIntent, type Stored } from './resource-lifecycle';
import { readPrivate, writePrivate } from './resource-private';
import {
  conform,
  decodeMsgpack,
  encodeMsgpack,
  hasUnknown,
  UnknownValue,
  type TerraformObject,
  type TerraformValue,
} from './values/terraform-value';

function resourceSchema(kind: ResourceKind): tf.Schema {
  const s = terraformResourceSchema(kind.declaration);
  const attributes = s.attributes.map(
    (a) =>
      new tf.Schema_Attribute({
        name: a.name,
        type: Buffer.from(JSON.stringify(a.type)),
        description: a.writeOnly ? `${a.description} Write-only: never kept in Terraform's plan or state.` : a.description,
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        writeOnly: a.writeOnly,
      }),
  );
  return new tf.Schema({ version: BigInt(s.version), block: new tf.Schema_Block({ description: s.description, attributes }) });
}

/** Terraform 1.11 and later take write-only attributes; other clients keep secrets as sensitive attributes. */
function takesWriteOnly(capabilities: tf.ClientCapabilities | undefined): boolean {
  return capabilities?.writeOnlyAttributesAllowed === true;
}

function asObject(value: TerraformValue): TerraformObject | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof UnknownValue) ? value : null;
}

/** The provider's answers to Terraform, over the engine's kinds and a connection opened on first need. */
export function providerHandlers(options: {
  kinds: KindRegistry;
  connect: Connect;
  env: NodeJS.ProcessEnv;
  onStop?: () => void;
  /** Where intents of creates are recorded (see CreateIntents); none: creates record nothing. */
  intentsDir?: string;
}): { handlers: ProviderHandlers; close(): Promise<void> } {
  const { kinds } = options;
  let configured:
    Promise<{ connection: ProviderConnection; ctx: KindContext; key: Buffer; intents: CreateIntents | undefined }> | undefined;
  let block = providerBlock(null, options.env);

  /** The connection, the kinds' context and the digest key, opened on first need. */
  const runtime = (): Promise<{ ctx: KindContext; key: Buffer; intents: CreateIntents | undefined }> => {
    configured ??= (async () => {
      const connection = await options.connect(block);
      const target = await resolveTarget(
        connection.client,
        {
          ...(block.organizationId ? { organizationId: block.organizationId } : {}),
          ...(block.locationId ? { locationId: block.locationId } : {}),
        },
        connection.defaults,
      );
      const ctx = kindContext(connection.client, target, { trainingWaitMs: trainingWaitOf(block) });
      const intents = options.intentsDir ? new CreateIntents(options.intentsDir, ctx.organizationId) : undefined;
      return { connection, ctx, key: digestKey(connection.apiKey), intents };
    })();
    return configured;
  };

  /** A resource RPC: an unknown type is answered with a diagnostic listing the types; else `run` gets the kind and diagnostics at its attributes. */
  const forKind = async <R>(
    typeName: string,
    answer: (diagnostics: tf.Diagnostic[]) => R,
    run: (kind: ResourceKind, diags: Diagnostics) => Promise<R>,
  ): Promise<R> => {
    const kind = kinds.get(typeName);
    if (kind) return run(kind, new Diagnostics(new Set(Object.keys(kind.declaration.attributes))));
    const diags = new Diagnostics();
    diags.error(`fleetform has no resource type ${typeName}`, { hint: `its types: ${kinds.types().join(', ')}` });
    return answer(diags.list);
  };
  const decode = (kind: ResourceKind, value: tf.DynamicValue | undefined): TerraformObject | null =>
    asObject(decodeMsgpack(value?.msgpack ?? new Uint8Array(), objectType(kind.declaration)));
  const encode = (kind: ResourceKind, value: TerraformObject | null): tf.DynamicValue =>
    new tf.DynamicValue({ msgpack: encodeMsgpack(value, objectType(kind.declaration)) });
  const stored = (kind: ResourceKind, value: tf.DynamicValue | undefined, privateBytes: Uint8Array): Stored | undefined => {
    const state = decode(kind, value);
    const record = readPrivate(privateBytes);
    if (!state) return undefined;
    if (!record) {
      throw new FleetformError(`${kind.type} has no record of fleetform in its state`, {
        hint: 'remove it from state (terraform state rm) and import it again by its id',
      });
    }
    return { state, private: record };
  };

  const close = async (): Promise<void> => {
    const open = configured;
    configured = undefined;
    if (open)
      await open.then(
        (c) => c.connection.close(),
        () => undefined,
      );
  };

  const handlers: ProviderHandlers = {
    async GetProviderSchema() {
      const resourceSchemas: Record<string, tf.Schema> = {};
      for (const type of kinds.types()) resourceSchemas[type] = resourceSchema(kinds.require(type, type));
      return new tf.GetProviderSchema_Response({
        provider: providerBlockSchema(),
        resourceSchemas,
        // The schema is the same for every start of one executable: a host that caches it (Terraform 1.6 and
        // later, within one command) need not ask again each time it starts the provider.
        serverCapabilities: new tf.ServerCapabilities({ planDestroy: true, getProviderSchemaOptional: true }),
      });
    },

    async ValidateProviderConfig(req) {
      const diags = new Diagnostics();
      try {
        decodeMsgpack(req.config?.msgpack ?? new Uint8Array(), PROVIDER_BLOCK_TYPE);
      } catch (err) {
        diags.failure(err, 'provider block');
      }
      return new tf.ValidateProviderConfig_Response({ diagnostics: diags.list });
    },

    async ConfigureProvider(req) {
      const diags = new Diagnostics();
      try {
        block = providerBlock(asObject(decodeMsgpack(req.config?.msgpack ?? new Uint8Array(), PROVIDER_BLOCK_TYPE)), options.env);
        // A wait that is no duration is refused here, naming the setting, before any resource is planned.
        trainingWaitOf(block);
        configured = undefined;
      } catch (err) {
        diags.failure(err, 'provider block');
      }
      return new tf.ConfigureProvider_Response({ diagnostics: diags.list });
    },

    ValidateResourceConfig: (req) =>
      forKind(
        req.typeName,
        (diagnostics) => new tf.ValidateResourceConfig_Response({ diagnostics }),
        async (kind, diags) => {
          try {
            const config = decode(kind, req.config) ?? {};
            // Values known only after apply are checked at plan, once they are known.
            const known: TerraformObject = {};
            for (const [k, v] of Object.entries(config)) if (!hasUnknown(v)) known[k] = v;
            const attributes = engineAttributes(kind.declaration, known);
            const parsed = kind.declaration.schema.safeParse(attributes);
            if (!parsed.success) {
              const unknownNames = new Set(Object.keys(config).filter((k) => hasUnknown(config[k] ?? null)));
              diags.problems(
                attributeProblems(
                  kind.declaration,
                  attributes,
                  parsed.error.issues.filter((i) => !unknownNames.has(String(i.path[0]))),
                ),
              );
            }
          } catch (err) {
            diags.failure(err, req.typeName);
          }
          return new tf.ValidateResourceConfig_Response({ diagnostics: diags.list });
        },
      ),

    UpgradeResourceState: (req) =>
      forKind(
        req.typeName,
        (diagnostics) => new tf.UpgradeResourceState_Response({ diagnostics }),
        async (kind, diags) => {
          if (req.version > BigInt(kind.declaration.schemaVersion)) {
            diags.error(
              `the state of this ${kind.type} was written by a newer fleetform (schema ${req.version}, this one knows ${kind.declaration.schemaVersion})`,
              {
                hint: 'upgrade fleetform (fleetform provider install) and run terraform init -upgrade',
              },
            );
            return new tf.UpgradeResourceState_Response({ diagnostics: diags.list });
          }
          try {
            const raw: unknown = JSON.parse(Buffer.from(req.rawState?.json ?? new Uint8Array()).toString('utf8') || 'null');
            // Attributes a former layout had and this one has not are dropped; new ones start null.
            const state = asObject(conform(raw, objectType(kind.declaration), ''));
            return new tf.UpgradeResourceState_Response({ upgradedState: encode(kind, state), diagnostics: diags.list });
          } catch (err) {
            diags.failure(err, `reading the stored state of ${kind.type}`);
            return new tf.UpgradeResourceState_Response({ diagnostics: diags.list });
          }
        },
      ),

    ReadResource: (req) =>
      forKind(
        req.typeName,
        (diagnostics) => new tf.ReadResource_Response({ diagnostics }),
        async (kind, diags) => {
          try {
            const current = stored(kind, req.currentState, req.private);
            if (!current) return new tf.ReadResource_Response({ newState: encode(kind, null), diagnostics: diags.list });
            const { ctx, key, intents } = await runtime();
            const read = await readResource(kind, ctx, current, key, takesWriteOnly(req.clientCapabilities));
            if (read) settleIntent(kind, current, intents);
            return new tf.ReadResource_Response({
              newState: encode(kind, read?.state ?? null),
              private: read ? writePrivate(read.private) : new Uint8Array(),
              diagnostics: diags.list,
            });
          } catch (err) {
            diags.failure(err, `reading ${kind.type}`);
            return new tf.ReadResource_Response({ newState: req.currentState, private: req.private, diagnostics: diags.list });
          }
        },
      ),

    PlanResourceChange: (req) =>
      forKind(
        req.typeName,
        (diagnostics) => new tf.PlanResourceChange_Response({ diagnostics }),
        async (kind, diags) => {
          try {
            const prior = stored(kind, req.priorState, req.priorPrivate);
            const config = decode(kind, req.config);
            // A destroy is planned as nothing, without the service: nothing is read or written until apply.
            if (!decode(kind, req.proposedNewState) || !config)
              return new tf.PlanResourceChange_Response({
                plannedState: encode(kind, null),
                plannedPrivate: req.priorPrivate,
                diagnostics: diags.list,
              });
            const { ctx, key, intents } = await runtime();
            diags.addressOf = () => configAddress(kind.type, config);
            // Terraform plans the create half of a replace with no prior state and the replaced object's record.
            const replacing = prior ? undefined : readPrivate(req.priorPrivate)?.ids;
            const planned = await planTerraformResource(
              kind,
              ctx,
              { prior, config, key, writeOnly: takesWriteOnly(req.clientCapabilities), intents, replacing },
              diags,
            );
            return new tf.PlanResourceChange_Response({
              plannedState: encode(kind, planned.state),
              requiresReplace: planned.requiresReplace.map(attributePath),
              plannedPrivate: writePrivate(planned.private),
              diagnostics: diags.list,
            });
          } catch (err) {
            diags.failure(err, `planning ${kind.type}`);
            return new tf.PlanResourceChange_Response({ diagnostics: diags.list });
          }
        },
      ),

    ApplyResourceChange: (req) =>
      forKind(
        req.typeName,
        (diagnostics) => new tf.ApplyResourceChange_Response({ diagnostics }),
        async (kind, diags) => {
          try {
            // An object in state without the provider's record is an error, never taken for a new one.
            const prior = stored(kind, req.priorState, req.plannedPrivate);
            const config = decode(kind, req.config);
            if (config) diags.addressOf = () => configAddress(kind.type, config);
            const { ctx, key, intents } = await runtime();
            const result = await applyResource(
              kind,
              ctx,
              {
                prior,
                planned: decode(kind, req.plannedState),
                config,
                plannedPrivate: readPrivate(req.plannedPrivate),
                key,
                intents,
              },
              diags,
            );
            return new tf.ApplyResourceChange_Response({
              newState: encode(kind, result.state),
              private: result.private ? writePrivate(result.private) : new Uint8Array(),
              diagnostics: diags.list,
            });
          } catch (err) {
            diags.failure(err, `applying ${kind.type}`);
            // A failed update or delete leaves the object as it was.
            return new tf.ApplyResourceChange_Response({
              newState: req.priorState ?? encode(kind, null),
              private: req.plannedPrivate,
              diagnostics: diags.list,
            });
          }
        },
      ),

    ImportResourceState: (req) =>
      forKind(
        req.typeName,
        (diagnostics) => new tf.ImportResourceState_Response({ diagnostics }),
        async (kind, diags) => {
          try {
            const { ctx, key } = await runtime();
            const found = await importResource(kind, ctx, req.id, key, takesWriteOnly(req.clientCapabilities));
            if (!found) {
              diags.error(`the service has no ${kind.type} with id ${JSON.stringify(req.id)}`, { hint: IMPORT_ID_HINT });
              return new tf.ImportResourceState_Response({ diagnostics: diags.list });
            }
            return new tf.ImportResourceState_Response({
              importedResources: [
                new tf.ImportResourceState_ImportedResource({
                  typeName: kind.type,
                  state: encode(kind, found.state),
                  private: writePrivate(found.private),
                }),
              ],
              diagnostics: diags.list,
            });
          } catch (err) {
            diags.failure(err, `importing ${kind.type} ${req.id}`);
            return new tf.ImportResourceState_Response({ diagnostics: diags.list });
          }
        },
      ),

    async StopProvider() {
      options.onStop?.();
      return new tf.StopProvider_Response();
    },
  };
  return { handlers, close };
}
