import { unknownValue } from '../../src/engine/json';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { defineKind, replaceReasonsOf, sensitivePathsOf } from '../../src/engine/kind-declaration';
import { allKinds, kindDeclarations } from '../../src/engine/kinds';
import { resourcesMarkdown } from '../../src/engine/reference-docs';
import { terraformResourceSchema } from '../../src/engine/terraform-schema';
import { noteDeclaration } from './fake-kind';

describe('kind declarations', () => {
  test('facts are derived from each attribute: type from its schema, presence from optionality and computed', () => {
    expect(noteDeclaration.attributes).toEqual({
      title: expect.objectContaining({ type: 'string', presence: 'required', forcesReplacement: true, sensitive: 'no' }),
      text: expect.objectContaining({ presence: 'optional-computed', serviceDefault: 'empty' }),
      secret: expect.objectContaining({ presence: 'optional', sensitive: 'whole' }),
      parent_id: expect.objectContaining({ presence: 'optional' }),
      id: expect.objectContaining({ presence: 'computed' }),
    });
    expect(Object.keys(noteDeclaration.schema.shape)).toEqual(['title', 'text', 'secret', 'parent_id']);
    expect(noteDeclaration.schema.safeParse({ title: 't', id: 'x' }).success).toBe(false);
  });

  test('nested types are Terraform types; a schema Terraform cannot express, or computed-when-unset on a required one, is refused', () => {
    const d = defineKind({
      type: 'fleetform_shapes',
      description: 'd',
      attributes: {
        limits: { schema: z.object({ cpu: z.number(), tags: z.array(z.string()) }).optional(), description: 'l' },
        labels: { schema: z.record(z.string(), z.boolean()), description: 'b' },
      },
    });
    expect(d.attributes.limits?.type).toEqual(['object', { cpu: 'number', tags: ['list', 'string'] }]);
    expect(d.attributes.labels?.type).toEqual(['map', 'bool']);
    expect(() =>
      defineKind({
        type: 'fleetform_x',
        description: 'd',
        attributes: { f: { schema: z.union([z.string(), z.number()]), description: 'f' } },
      }),
    ).toThrow(/fleetform_x\.f.*union/);
    expect(() =>
      defineKind({
        type: 'fleetform_x',
        description: 'd',
        attributes: { f: { schema: z.string(), description: 'f', computed: 'when-unset' } },
      }),
    ).toThrow(/requires a value/);
  });

  test('replace reasons and secret paths come from the declaration', () => {
    expect(replaceReasonsOf(noteDeclaration, { title: 'a', text: 'x' }, { title: 'b', text: 'y' })).toEqual(['title']);
    expect(replaceReasonsOf(noteDeclaration, { title: 'a' }, { title: unknownValue })).toEqual([]);
    // Text that reads like an unknown is text: a change like any other.
    expect(replaceReasonsOf(noteDeclaration, { title: 'a' }, { title: '(known after apply)' })).toEqual(['title']);
    expect(sensitivePathsOf(noteDeclaration, { title: 'a', secret: 's' }, {})).toEqual(['secret']);
    expect(sensitivePathsOf(noteDeclaration, { title: 'a' }, {})).toEqual([]);
  });

  test("every kind's Terraform schema: replace-forcing, computed ids, secrets", () => {
    const schemas = Object.fromEntries(kindDeclarations.map((d) => [d.type, terraformResourceSchema(d)]));
    expect(Object.keys(schemas)).toEqual([
      'fleetform_machine',
      'fleetform_machine_part',
      'fleetform_dataset',
      'fleetform_training_job',
      'fleetform_custom_training_job',
      'fleetform_location',
      'fleetform_ml_model',
      'fleetform_fragment',
      'fleetform_fragment_tag',
      'fleetform_data_pipeline',
      'fleetform_organization_defaults',
    ]);
    expect(schemas.fleetform_data_pipeline?.requiresReplace).toEqual([
      'query',
      'schedule',
      'data_source_type',
      'enable_backfill',
      'organization_id',
    ]);
    expect(schemas.fleetform_organization_defaults?.requiresReplace).toEqual(['organization_id']);
    expect(schemas.fleetform_fragment_tag?.requiresReplace).toEqual(['fragment_id', 'tag']);
    expect(schemas.fleetform_machine_part?.requiresReplace).toEqual(['machine_id']);
    expect(schemas.fleetform_location?.requiresReplace).toEqual(['organization_id']);
    expect(schemas.fleetform_training_job?.requiresReplace).toEqual(['model_name', 'model_version']);
    expect(schemas.fleetform_machine?.requiresReplace).toEqual(['location_id']);
    // config has secret parts in the view, which come from secret_env: only secret_env is sensitive to Terraform.
    expect(schemas.fleetform_machine?.attributes.find((a) => a.name === 'config')).toMatchObject({
      required: true,
      sensitive: false,
      type: 'string',
    });
    expect(schemas.fleetform_machine?.attributes.find((a) => a.name === 'secret_env')).toMatchObject({
      optional: true,
      sensitive: true,
      type: ['map', 'string'],
    });
    expect(schemas.fleetform_machine?.attributes.some((a) => a.name === 'sensitive_env')).toBe(false);
    expect(schemas.fleetform_machine?.attributes.find((a) => a.name === 'location_id')).toMatchObject({
      optional: true,
      computed: true,
      required: false,
    });
    for (const s of Object.values(schemas))
      expect(s.attributes.find((a) => a.name === 'id')).toMatchObject({ computed: true, optional: false, required: false });
    for (const kind of allKinds) expect(kind.type).toBe(kind.declaration.type);
  });

  test('machine config: secret-looking env names and flagged entries are secret parts', () => {
    const machine = kindDeclarations.find((d) => d.type === 'fleetform_machine');
    const view = { name: 'm', config: { modules: { cam: { env: { API_TOKEN: 'x', PATH: '/bin', REGION: 'eu' } } } } };
    expect(sensitivePathsOf(machine as NonNullable<typeof machine>, view, { secret_env: { 'cam.REGION': 'eu' } })).toEqual([
      'config.modules.cam.env.API_TOKEN',
      'config.modules.cam.env.REGION',
    ]);
  });

  test('docs/resources.md is what `npm run docs` writes from the declarations', async () => {
    const checkedIn = await fs.readFile(path.resolve(__dirname, '../../docs/resources.md'), 'utf8');
    expect(checkedIn).toBe(resourcesMarkdown(kindDeclarations));
  });
});
