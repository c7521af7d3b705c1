import { z } from 'zod';
import { DATASET_TYPES, DEFAULT_DATASET_TYPE } from './dataset-type';
import { acknowledgedSchema } from './certainty';
import { DATA_SOURCE_TYPES } from './data-pipelines';
import { declareResource } from './resource-declaration';
import { secretReferencesSchema } from './secret-reference';
import { ORGANIZATION_DEFAULT } from './service-defaults';
import { healthAnalysisSchema } from './health-analysis';

/**
 * The resources whose constructs are derived from their declaration, declared once: each
 * attribute's zod schema, keyed by its name as Terraform writes it, with its facts. The
 * engine's kind declarations are built over these (see defineKind) and the constructs
 * derive their props, run-time checks and synthesized attributes from the same ones, so
 * a rule, a description or a default text is written once.
 */

export { ORGANIZATION_DEFAULT };

const organizationId = (owner: string) =>
  ({
    schema: z.string().optional(),
    description: `Organization ${owner}.`,
    computed: 'when-unset',
    serviceDefault: ORGANIZATION_DEFAULT,
  }) as const;

/** A dataset of an organization. */
export const datasetResource = declareResource({
  type: 'fleetform_dataset',
  description: 'A dataset of an organization: the images and labels training jobs train on.',
  attributes: {
    name: {
      schema: z.string().min(1, 'a dataset needs a name'),
      description: 'Name of the dataset in its organization.',
      forcesReplacement: true,
    },
    organization_id: { ...organizationId('owning the dataset'), forcesReplacement: true },
    type: {
      schema: z.enum(DATASET_TYPES).optional(),
      description:
        'What its members are: `binary` (images and other binary data, what training jobs train on) or `sequence` (sequences); fixed when the dataset is created.',
      computed: 'when-unset',
      serviceDefault: DEFAULT_DATASET_TYPE,
      forcesReplacement: true,
    },
    id: { schema: z.string(), description: 'Id the service assigns to the dataset.', computed: 'always' },
  },
});

/** A model file uploaded to the registry as a version of an ML model (an `ml_model` package). */
export const mlModelResource = declareResource({
  type: 'fleetform_ml_model',
  description:
    'A model file (tflite, onnx, ...) uploaded as one version of an ML model of the registry (an `ml_model` package), deployed like a trained one.',
  attributes: {
    name: {
      schema: z
        .string()
        .regex(/^[a-zA-Z0-9][-\w]*$/, 'a model name starts with a letter or digit and uses only letters, digits, "_" and "-"'),
      description: 'Name of the model in its organization (the package name).',
      forcesReplacement: true,
    },
    version: {
      schema: z.string().min(1, 'a model upload needs a version'),
      description: 'The version this upload makes; a registry version never changes, so a new file is a new version.',
      forcesReplacement: true,
    },
    path: {
      schema: z.string().min(1, 'a model upload needs the path of its file'),
      description: 'The model file on the machine running fleetform; uploaded packed as a `.tar.gz` holding it.',
      forcesReplacement: true,
    },
    model_type: {
      schema: z.string().optional(),
      description: 'What the model does, as its metadata says (e.g. `object_detection`).',
      forcesReplacement: true,
    },
    model_framework: {
      schema: z.string().optional(),
      description: 'Its framework, as its metadata says (e.g. `tflite`, `onnx`).',
      forcesReplacement: true,
    },
    organization_id: { ...organizationId('owning the model'), forcesReplacement: true },
    id: { schema: z.string(), description: 'Package id `<organization id>/<name>`.', computed: 'always' },
  },
});

/** A location of an organization, at the top level or inside another location. */
export const locationResource = declareResource({
  type: 'fleetform_location',
  description: 'A location of an organization, at its top level or inside another location: where machines live.',
  attributes: {
    name: {
      schema: z.string().min(1, 'a location needs a name'),
      description: 'Name of the location; a new name renames it in place (same id).',
    },
    parent_location_id: {
      schema: z.string().optional(),
      description:
        'Id of the location this one sits in; unset for a top-level location. A new parent moves it in place (same id, same machines).',
    },
    organization_id: { ...organizationId('owning the location'), forcesReplacement: true },
    id: { schema: z.string(), description: 'Id the service assigns to the location.', computed: 'always' },
  },
});

/** Who may see and import a fragment: its organization only, anyone (listed), or anyone with its id. */
export const FRAGMENT_VISIBILITIES = ['private', 'public', 'public_unlisted'] as const;

/** A fragment: a config an organization's machines import, saved as numbered revisions. */
export const fragmentResource = declareResource({
  type: 'fleetform_fragment',
  description:
    'A fragment: a config (modules, components, services, nested fragment imports) that machines import; every change saves a new revision.',
  example: `
# A fleet built on one fragment: the pickers import the sensor rig at its stable tag,
# each setting its own pin; a change of the rig is one change reaching every picker.
resource "fleetform_fragment" "rig" {
  name = "sensor-rig"
  config = jsonencode({
    modules    = [{ type = "registry", name = "sensors", module_id = "acme:sensors", version = "~1.2" }]
    components = [{ name = "board", api = "rdk:component:board", model = "acme:sensors:pi-board",
                    attributes = { pin = { "$variable" = { name = "board_pin" } } } }]
  })
}

resource "fleetform_fragment_tag" "rig_stable" {
  fragment_id = fleetform_fragment.rig.id
  tag         = "stable"
  revision    = fleetform_fragment.rig.revision
}

resource "fleetform_machine" "picker" {
  for_each = { "picker-1" = "11", "picker-2" = "12" }
  name     = each.key
  config = jsonencode({
    fragments     = [{ id = fleetform_fragment.rig.id, version = "stable", prefix = "front", variables = { board_pin = each.value } }]
    fragment_mods = [{ fragment_id = fleetform_fragment.rig.id, mods = [{ "$set" = { "components.front-board.attributes.timeout_ms" = 200 } }] }]
  })
  depends_on = [fleetform_fragment_tag.rig_stable]
}`,
  attributes: {
    name: {
      schema: z.string().min(1, 'a fragment needs a name'),
      description: 'Name of the fragment; a new name renames it in place (same id).',
    },
    config: {
      schema: z.string(),
      description:
        'The fragment config as JSON text, in the form of a machine config; `{"$variable":{"name":"..."}}` stands for a variable each importing machine sets.',
    },
    visibility: {
      schema: z.enum(FRAGMENT_VISIBILITIES).optional(),
      description:
        'Who may see and import it: `private` (its organization), `public` (listed to everyone) or `public_unlisted` (anyone with its id).',
      computed: 'when-unset',
      serviceDefault: 'private',
    },
    organization_id: { ...organizationId('owning the fragment'), forcesReplacement: true },
    id: { schema: z.string(), description: 'Id the service assigns to the fragment: what machines import.', computed: 'always' },
    revision: {
      schema: z.string(),
      description: 'The revision the last apply saved (`1` at creation, one more per change).',
      computed: 'always',
      changesOnUpdate: true,
    },
  },
});

/** The Terraform type of a fragment. */
export const FRAGMENT_TYPE = fragmentResource.type;

/** A tag of a fragment, such as `stable`: machines importing the fragment at the tag follow the revision it names. */
export const fragmentTagResource = declareResource({
  type: 'fleetform_fragment_tag',
  description:
    'A tag of a fragment, such as `stable`, naming one of its revisions: machines importing the fragment at the tag run that revision.',
  attributes: {
    fragment_id: {
      schema: z.string().min(1, 'a fragment tag needs a fragment id'),
      description: 'Id of the fragment the tag belongs to.',
      forcesReplacement: true,
    },
    tag: {
      schema: z
        .string()
        .regex(/^[a-z_-][a-z0-9_-]{0,59}$/, 'a tag is lowercase letters, digits, - and _, at most 60 characters, not starting with a digit')
        .refine((t) => !t.startsWith('v'), 'a tag cannot start with v (versions do)'),
      description: 'Name of the tag: lowercase letters, digits, `-` and `_`, not starting with a digit or `v`, at most 60 characters.',
      forcesReplacement: true,
    },
    revision: {
      schema: z.string().optional(),
      description: 'The revision the tag names.',
      computed: 'when-unset',
      serviceDefault: "the fragment's latest revision (a construct's FragmentTag: the revision its Fragment's apply saved)",
    },
    id: { schema: z.string(), description: 'Id of the tag: `<fragment_id>/<tag>`.', computed: 'always' },
  },
});

/** The fragments every machine created in an organization starts with importing: one per organization. */
export const organizationDefaultsResource = declareResource({
  type: 'fleetform_organization_defaults',
  description:
    "An organization's default fragments: the fragments every machine created in it starts with importing, each with its version, prefix and variables. One per organization; removing it from code clears the list.",
  example: `
# Every new machine of the organization starts importing the rig at its stable tag.
resource "fleetform_organization_defaults" "defaults" {
  fragments = jsonencode([
    { id = fleetform_fragment.rig.id, version = "stable", prefix = "front", variables = { board_pin = 11, fast = true } },
  ])
}`,
  attributes: {
    fragments: {
      schema: z.string(),
      description:
        'The imports as JSON text, a list in the form of a machine config\'s `fragments` entries: `[{"id": "<fragment id>", "version": "stable", "prefix": "front", "variables": {"pin": 11}}]`; `version` is a revision or a tag (left out: the latest revision, followed), variables take any JSON value. An empty list leaves the organization none.',
    },
    organization_id: { ...organizationId('whose new machines import them'), forcesReplacement: true },
    id: { schema: z.string(), description: 'The id of the organization.', computed: 'always' },
  },
});

/** A machine and the whole config of its main part. */
export const machineAttributes = {
  name: z.string().min(1, 'a machine needs a name'),
  location_id: z.string().optional(),
  /** The machine config as JSON text: components, services, modules (without the secret env entries). */
  config: z.string(),
  /**
   * The secret env entries of its modules, by `<module>.<KEY>`: those code marks secret and
   * those whose names look secret. Kept out of `config` so that only this attribute is
   * sensitive as a whole and `config` can be shown (and diffed) in the clear.
   */
  secret_env: z.record(z.string(), z.string()).optional(),
  /**
   * Secrets by reference: for a path of the config (as plans name it), where its value is
   * read at plan and apply. The config holds no value there; the service's does.
   */
  secrets: secretReferencesSchema.optional(),
  /**
   * Models of training jobs the machine deploys, by local package name:
   * `[<organization id>/]<model name>@<model version>`. Each is an `ml_model` package of the
   * config, written once that model version exists (the job's organization, else the run's).
   */
  deploy_models: z.record(z.string(), z.string()).optional(),
  /** Create and update wait for the machine's health: `timeout` and `settle`, as durations. */
  health_gate: z.record(z.string(), z.string()).optional(),
  /** After the health gate, analyses of what the machine does, by name: each a map of its keys (bounds only). */
  health_analysis: healthAnalysisSchema.optional(),
  /** Certain failures the machine is left with on purpose: by finding path, then by finding code, the reason. */
  acknowledged: acknowledgedSchema.optional(),
};

/** The attributes both kinds of training job declare alike, before each kind's own. */
const trainingJobCommon = {
  organization_id: organizationId('the job is submitted to'),
  dataset_id: {
    schema: z.string().min(1, 'a training job needs a dataset id'),
    description: "Id of the dataset to train on (a Dataset's id, or an existing one).",
  },
  model_name: { schema: z.string(), description: 'Name of the model to train.', forcesReplacement: true },
  model_version: {
    schema: z.string(),
    description: 'Version of the model, unique among its versions: a new version trains again.',
    forcesReplacement: true,
  },
  retain_on_delete: {
    schema: z.boolean().optional(),
    description:
      'Keep the job on the service when it is removed from code (fleetform only forgets it) instead of canceling or deleting it.',
    computed: 'when-unset',
    serviceDefault: 'false',
    ignoredForChanges: true,
  },
} as const;

/**
 * What the service says of a job as it runs, last in both kinds' tables: its id, its status,
 * the model version it trained (once it has), and why it failed.
 */
const jobOutcome = {
  id: { schema: z.string(), description: 'Id the service assigns to the job.', computed: 'always' },
  status: {
    schema: z.string(),
    description:
      'Status of the job as last read, e.g. `TRAINING_STATUS_IN_PROGRESS`, `TRAINING_STATUS_COMPLETED`, `TRAINING_STATUS_FAILED`, `TRAINING_STATUS_CANCELED`.',
    computed: 'always',
    observed: true,
  },
  trained_version: {
    schema: z.string(),
    description:
      'The model version the job trained, in the registry as `<organization id>/<model name>`: set once the job completed, null before and when it failed or was canceled (a package version to deploy).',
    computed: 'always',
    observed: true,
  },
  error_message: {
    schema: z.string(),
    description: "The service's error for a job that failed or was canceled; null otherwise.",
    computed: 'always',
    observed: true,
  },
  log_tail: {
    schema: z.array(z.string()),
    description: 'The last lines a failed job logged (`<time> <level> <message>`), oldest first; null otherwise.',
    computed: 'always',
    observed: true,
  },
} as const;

/** A job on the service's built-in trainer. */
export const trainingJobResource = declareResource({
  type: 'fleetform_training_job',
  description: "A training job on the service's built-in trainer. Jobs are immutable: a new model version submits a new job.",
  attributes: {
    ...trainingJobCommon,
    /** Wire name, e.g. `MODEL_TYPE_OBJECT_DETECTION` (`OBJECT_DETECTION` and `object-detection` are read too). */
    model_type: { schema: z.string(), description: 'Kind of model, e.g. MODEL_TYPE_OBJECT_DETECTION.' },
    model_framework: {
      schema: z.string().optional(),
      description: 'Framework of the trained model, e.g. MODEL_FRAMEWORK_TFLITE.',
      computed: 'when-unset',
      serviceDefault: "MODEL_FRAMEWORK_UNSPECIFIED: the service's choice",
      serviceChoosesWhen: 'MODEL_FRAMEWORK_UNSPECIFIED',
    },
    tags: { schema: z.array(z.string()), description: 'Labels to train the model on (at least one).' },
    ...jobOutcome,
  },
});

/** A job running a training script from the registry. */
export const customTrainingJobResource = declareResource({
  type: 'fleetform_custom_training_job',
  description: 'A training job running a training script from the registry. Jobs are immutable: a new model version submits a new job.',
  attributes: {
    ...trainingJobCommon,
    registry_item_id: { schema: z.string(), description: 'Registry id of the training script, `<namespace>:<script-name>`.' },
    registry_item_version: { schema: z.string(), description: 'Version of the training script.' },
    arguments: {
      schema: z.record(z.string(), z.string()).optional(),
      description: 'Arguments passed to the training script.',
      computed: 'when-unset',
      serviceDefault: '{}',
    },
    container_version: {
      schema: z.string().optional(),
      description: 'Version of the container the script runs in.',
      computed: 'when-unset',
      serviceDefault: "empty: the service's choice",
      serviceChoosesWhen: '',
    },
    ...jobOutcome,
  },
});

/** The Terraform types of training jobs, of both kinds. */
export const TRAINING_JOB_TYPES: readonly string[] = [trainingJobResource.type, customTrainingJobResource.type];

/** A data pipeline: an MQL aggregation an organization's captured data goes through on a schedule. */
export const dataPipelineResource = declareResource({
  type: 'fleetform_data_pipeline',
  description:
    "A data pipeline: an MQL aggregation run on the organization's captured data on a cron schedule (UTC), each run reading the data since the schedule's previous tick. The service changes no query, schedule or source in place: a new one replaces the pipeline.",
  example: `
resource "fleetform_data_pipeline" "hourly_temperature" {
  name     = "hourly-temperature"
  schedule = "0 * * * *"
  query = [
    jsonencode({ "$match" = { component_name = "thermometer" } }),
    jsonencode({ "$group" = { _id = "$robot_id", avg_temp = { "$avg" = "$data.readings.temperature" } } }),
  ]
}`,
  attributes: {
    name: {
      schema: z.string().min(1, 'a data pipeline needs a name'),
      description: 'Name of the pipeline, unique in its organization; a new name renames it in place (same id, same runs).',
    },
    query: {
      schema: z.array(z.string()),
      description:
        'The MQL aggregation, one stage per entry as JSON text of an object with one `$` operator key (e.g. `{"$match":{...}}`); sent as BSON, keys in their order. A new query replaces the pipeline.',
      forcesReplacement: true,
    },
    schedule: {
      schema: z.string(),
      description:
        'When it runs, as five cron fields in UTC (`0 * * * *`: hourly); each run reads the data since the tick before. A new schedule replaces the pipeline.',
      forcesReplacement: true,
    },
    data_source_type: {
      schema: z.enum(DATA_SOURCE_TYPES).optional(),
      description:
        'What it reads: `standard` (all captured data) or `hot_storage` (the hot store of recent data). A new source replaces the pipeline.',
      computed: 'when-unset',
      serviceDefault: 'standard',
      forcesReplacement: true,
    },
    enable_backfill: {
      schema: z.boolean().optional(),
      description:
        'Also run for the windows before its creation and for data arriving late. Set at creation only (the service does not report it): a new value replaces the pipeline.',
      computed: 'when-unset',
      serviceDefault: 'false',
      forcesReplacement: true,
    },
    enabled: {
      schema: z.boolean().optional(),
      description: 'Whether its schedule runs; changed in place.',
      computed: 'when-unset',
      serviceDefault: 'true',
    },
    organization_id: { ...organizationId('owning the pipeline'), forcesReplacement: true },
    id: { schema: z.string(), description: 'Id the service assigns to the pipeline.', computed: 'always' },
  },
});

/** `organization_id` -> `organizationId`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

export function camelCase<S extends string>(name: S): CamelCase<S> {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) as CamelCase<S>;
}

/** The chosen attributes under their prop names (`organization_id` as `organizationId`). */
export type CamelShape<Shape, Keys extends keyof Shape & string> = { [K in Keys as CamelCase<K>]: Shape[K] };

/**
 * The schemas of the named attributes under the names a construct's props give them:
 * a construct's strict prop schema spreads this and overrides only the props whose form
 * differs from the attribute's (e.g. a Dataset object for `dataset_id`).
 */
export function camelShape<Shape extends Record<string, z.ZodType>, Keys extends keyof Shape & string>(
  shape: Shape,
  keys: readonly Keys[],
): CamelShape<Shape, Keys> {
  const out: Record<string, z.ZodType> = {};
  for (const key of keys) out[camelCase(key)] = shape[key] as z.ZodType;
  return out as CamelShape<Shape, Keys>;
}
