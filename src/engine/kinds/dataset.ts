import { randomUUID } from 'node:crypto';
import type { Dataset } from '../../api/client';
import { datasetTypeNumber, DEFAULT_DATASET_TYPE } from '../../domain/dataset-type';
import { datasetResource } from '../../domain/resource-attributes';
import type { JsonObject } from '../json';
import type { Applied, DesiredValue, Judgement, KindContext, Observation, PlanNote, PlanProblem, ResourceKind } from '../kind';
import { defineKind, type ViewOf } from '../kind-declaration';
import { unlessNotFound } from './not-found';

export const datasetDeclaration = defineKind(datasetResource);

type DatasetView = ViewOf<typeof datasetDeclaration>;

/** Why a replace-forcing attribute of a dataset replaces it, as the plan says it. */
const REPLACE_NOTES: Readonly<Record<string, string>> = {
  name: 'a dataset is created under its name: a new name makes a new dataset',
  organization_id: 'a dataset cannot move to another organization: it is created again there',
  type: "a dataset's type is fixed when it is created: a different type makes a new dataset",
};

/** The plan's note for one replace reason, with what replacing costs. */
export function replaceNote(reason: string): PlanNote {
  const why = REPLACE_NOTES[reason] ?? `${reason} cannot change in place`;
  return { level: 'warning', message: `${why}; replacing a dataset deletes the existing one and what it holds` };
}

/** A dataset of a type this version does not know cannot be planned: replacing it would delete it. */
function unknownTypeProblems(kindData: JsonObject | undefined): PlanProblem[] {
  const number = kindData?.unknownType;
  if (number === undefined) return [];
  return [
    {
      path: 'type',
      message: `the service reports a dataset type this version of fleetform does not know (number ${String(number)})`,
      hint: 'upgrade fleetform, or remove the dataset from the stack to leave it as it is',
    },
  ];
}

/** The run's shared read of one dataset (see KindContext.memo). */
export function datasetMemoKey(id: string): string {
  return `dataset:${id}`;
}

/** The dataset with this id, or undefined when the service has none. */
export function readDataset(ctx: KindContext, id: string): Promise<Dataset | undefined> {
  return unlessNotFound(() => ctx.client.datasetClient.getDataset(id));
}

/** A dataset of an organization, which training jobs train on. */
export const datasetKind: ResourceKind<typeof datasetDeclaration> = {
  type: datasetDeclaration.type,
  declaration: datasetDeclaration,
  replaceOrder: 'delete-first',

  async desire(ctx, attributes): Promise<DesiredValue<DatasetView>> {
    return {
      view: {
        name: attributes.name,
        organization_id: attributes.organization_id || ctx.organizationId,
        type: attributes.type ?? DEFAULT_DATASET_TYPE,
      },
      private: {},
      notes: [],
      problems: [],
    };
  },

  /** An id no dataset has, under which the run reads the dataset as planned: the jobs training on it are checked against it. */
  async standIn(ctx, view): Promise<Readonly<Record<string, string>>> {
    const id = randomUUID();
    const planned: Dataset = {
      id,
      name: view.name,
      organizationId: view.organization_id,
      type: view.type,
      typeNumber: datasetTypeNumber(view.type),
    };
    await ctx.memo(datasetMemoKey(id), () => Promise.resolve(planned));
    return { id };
  },

  async observe(ctx, entry): Promise<Observation<DatasetView> | undefined> {
    const id = entry.ids.id;
    const dataset = id ? await unlessNotFound(() => ctx.client.datasetClient.getDataset(id)) : undefined;
    if (!dataset) return undefined;
    const view = { name: dataset.name, organization_id: dataset.organizationId, type: dataset.type ?? DEFAULT_DATASET_TYPE };
    // A type this version does not know is kept for judge, which stops the plan rather than replace the dataset.
    const kindData = dataset.type === undefined ? { unknownType: dataset.typeNumber } : undefined;
    return { view, version: `${dataset.name}`, facts: {}, ...(kindData ? { kindData } : {}) };
  },

  judge({ observation, replaceReasons }): Judgement {
    return { problems: unknownTypeProblems(observation?.kindData), notes: replaceReasons.map(replaceNote) };
  },

  async create(ctx, desired): Promise<Applied> {
    const id = await ctx.client.datasetClient.createDataset(desired.name, desired.organization_id, desired.type);
    return { ids: { id }, outputs: { id } };
  },

  async update(_ctx, entry): Promise<Applied> {
    return { ids: entry.ids, outputs: entry.outputs };
  },

  async delete(ctx, entry) {
    const id = entry.ids.id;
    if (id) await unlessNotFound(() => ctx.client.datasetClient.deleteDataset(id));
    return 'deleted';
  },

  retainOnDelete: () => false,

  identity(view) {
    const name = typeof view.name === 'string' ? view.name : '';
    const organizationId = typeof view.organization_id === 'string' ? view.organization_id : '';
    return name ? { key: { name, organization_id: organizationId }, label: `dataset ${name}` } : undefined;
  },

  async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
    const found = (await ctx.client.datasetClient.listDatasets(String(key.organization_id))).find(
      (d) => d.name === key.name && !managedIds.has(d.id),
    );
    return found ? { ids: { id: found.id }, outputs: { id: found.id } } : undefined;
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const dataset = await ctx.client.datasetClient.getDataset(id);
    return dataset ? { ids: { id }, outputs: { id } } : undefined;
  },
};
