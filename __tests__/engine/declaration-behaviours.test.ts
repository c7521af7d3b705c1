import { z } from 'zod';
import { ORGANIZATION_DEFAULT } from '../../src/domain/resource-attributes';
import { defineKind, ignoredForChangesOf, keepServiceChoices } from '../../src/engine/kind-declaration';
import { customTrainingJobDeclaration, trainingJobDeclaration } from '../../src/engine/kinds/training-job';
import { kindDeclarations } from '../../src/engine/kinds';

describe('plan behaviours declared on the attribute', () => {
  const declaration = defineKind({
    type: 'fleetform_job',
    description: 'd',
    attributes: {
      engine: { schema: z.string().optional(), description: 'e', computed: 'when-unset', serviceChoosesWhen: 'ANY' },
      keep: { schema: z.boolean().optional(), description: 'k', computed: 'when-unset', ignoredForChanges: true },
      name: { schema: z.string(), description: 'n' },
    },
  });

  test('what the service chooses and what is ignored for changes are facts of the declaration', () => {
    expect(declaration.serviceChosen).toEqual({ engine: 'ANY' });
    expect([...ignoredForChangesOf(declaration)]).toEqual(['keep']);
    expect(declaration.attributes.engine).toMatchObject({ serviceChoosesWhen: 'ANY', ignoredForChanges: false });
    expect(trainingJobDeclaration.serviceChosen).toEqual({ model_framework: 'MODEL_FRAMEWORK_UNSPECIFIED' });
    expect(customTrainingJobDeclaration.serviceChosen).toEqual({ container_version: '' });
    expect([...ignoredForChangesOf(customTrainingJobDeclaration)]).toEqual(['retain_on_delete']);
  });

  test('a service choice needs an attribute computed when unset', () => {
    expect(() =>
      defineKind({
        type: 'fleetform_x',
        description: 'd',
        attributes: { f: { schema: z.string().optional(), description: 'f', serviceChoosesWhen: '' } },
      }),
    ).toThrow(/fleetform_x\.f leaves the choice to the service/);
  });

  test('what the service chose for an attribute applied unspecified is a fact, not drift', () => {
    expect(keepServiceChoices(declaration, { engine: 'FAST', name: 'a' }, { engine: 'ANY', name: 'a' })).toEqual({
      view: { engine: 'ANY', name: 'a' },
      facts: { engine: 'FAST' },
    });
    // Applied with a value of its own: what the service holds is compared as it is.
    expect(keepServiceChoices(declaration, { engine: 'FAST', name: 'a' }, { engine: 'SLOW', name: 'a' })).toEqual({
      view: { engine: 'FAST', name: 'a' },
      facts: {},
    });
    expect(keepServiceChoices(declaration, { name: 'a' }, null)).toEqual({ view: { name: 'a' }, facts: {} });
  });

  test("an organization left out reads the same in every kind's docs", () => {
    const defaults = kindDeclarations.flatMap((d) => (d.attributes.organization_id ? [d.attributes.organization_id.serviceDefault] : []));
    // Datasets, locations, both training job kinds, uploaded ML models, fragments, data pipelines and organization defaults.
    expect(defaults.length).toBe(8);
    for (const text of defaults) expect(text).toBe(ORGANIZATION_DEFAULT);
  });
});
