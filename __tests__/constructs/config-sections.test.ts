import { z } from 'zod';
import { Machine, Part } from '../../src/constructs';
import { MachineConfigSchema } from '../../src/domain';
import {
  CONFIG_LANGUAGE,
  PROP_SECTIONS,
  propSection,
  sectionAdoption,
  sectionProp,
  type SectionDeclaration,
} from '../../src/domain/config-language';
import { machineConfigCode } from '../../src/engine/adopt/machine-code';
import { resourcesMarkdown } from '../../src/engine/reference-docs';
import { errorsOf, newStack, resourceOf, synth } from './helpers';

/** A value of the section's own form that its schema takes: what a test writes in code and reads back. */
function sampleOf(schema: z.ZodType): unknown {
  if (schema instanceof z.ZodBoolean) return true;
  if (schema instanceof z.ZodArray) return [];
  return { _comment: 'from code' };
}

/** A value of no section's form. */
const WRONG_FORM = 42;

describe('a config section declared once, in the config language', () => {
  test('the language names a prop for the sections Machine and Part take, each once', () => {
    expect(PROP_SECTIONS.map((s) => s.key)).toEqual(
      Object.keys(CONFIG_LANGUAGE).filter((key) => (CONFIG_LANGUAGE as Record<string, { prop?: string }>)[key]?.prop !== undefined),
    );
    expect(new Set(PROP_SECTIONS.map((s) => s.prop)).size).toBe(PROP_SECTIONS.length);
    for (const { key, prop } of PROP_SECTIONS) {
      expect(sectionProp(key)).toBe(prop);
      expect(propSection(prop)).toBe(key);
      expect(sectionAdoption(key)).toBe('prop');
    }
    expect(sectionAdoption('remotes')).toBe('entries');
    expect(sectionAdoption('components')).toBe('apart');
    expect(sectionAdoption('ui_folder')).toBe('override');
  });

  test.each(PROP_SECTIONS.map((s) => [s.key, s] as const))(
    '%s: a Machine and a Part prop, synthesized under its key',
    (key, { prop, schema }) => {
      const value = sampleOf(schema);
      const { app, stack } = newStack('s');
      const machine = new Machine(stack, 'm', { [prop]: value });
      new Part(machine, 'p', { [prop]: value });
      expect(errorsOf(app)).toEqual([]);
      const doc = synth(stack);
      expect(JSON.parse(resourceOf(doc, 'fleetform_machine', 'm').config as string)[key]).toEqual(value);
      expect(JSON.parse(resourceOf(doc, 'fleetform_machine_part', 'm_p').config as string)[key]).toEqual(value);
    },
  );

  test.each(PROP_SECTIONS.map((s) => [s.prop] as const))('%s: a value of another form is refused, naming the prop', (prop) => {
    const { stack } = newStack('s');
    expect(() => new Machine(stack, 'm', { [prop]: WRONG_FORM })).toThrow(new RegExp(`Machine: .*${prop}`));
  });

  test.each(PROP_SECTIONS.map((s) => [s.key, s] as const))(
    '%s: adoption writes it as its prop, and the schema of a config reads it',
    (key, { prop, schema }) => {
      const value = sampleOf(schema);
      const config = { components: [], services: [], modules: [], [key]: value };
      const adopted = machineConfigCode(config, 'M');
      if (!adopted.ok) throw new Error(adopted.reason);
      expect(adopted.code.settings).toEqual({ [prop]: value });
      expect(adopted.code.overrides).toEqual([]);
      expect(MachineConfigSchema.shape).toHaveProperty(key);
      expect(MachineConfigSchema.safeParse({ [key]: WRONG_FORM }).success).toBe(false);
    },
  );

  test('the reference lists every section with how code declares it and its docs line', () => {
    const docs = resourcesMarkdown([]);
    for (const [key, declared] of Object.entries(CONFIG_LANGUAGE) as Array<[string, SectionDeclaration]>) {
      const prop = sectionProp(key);
      expect(docs).toContain(
        `| \`${key}\` | ${prop === undefined ? declared.construct : `Machine \`${prop}\``} | ${declared.description} |`,
      );
    }
  });
});
