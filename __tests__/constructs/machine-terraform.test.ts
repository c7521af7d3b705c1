/**
 * A Machine writes its Terraform JSON without cdktf's generic resource code when it uses
 * none of the resource features (meta-arguments, provisioners, overrides, imports, moves):
 * resolved, that JSON must be exactly what cdktf's own TerraformResource code gives, with
 * and without those features, tokens included.
 */
import { DefaultTokenResolver, Fn, StringConcat, TerraformResource, TerraformStack, TerraformVariable, Tokenization } from 'cdktf';
import { Dataset, FleetProvider, Machine, ModularResource, Module } from '../../src/constructs';
import { newStack, resourceOf, synth } from './helpers';

function declare(stack: TerraformStack, id: string): Machine {
  const machine = new Machine(stack, id, { locationId: 'loc-1' });
  const sensors = new Module(machine, 'sensors', {
    moduleId: 'acme:sensors',
    version: '~1.2',
    env: { PATH: '/opt/bin:${environment.PATH}', SERVICE_TOKEN: 'abc' },
    sensitiveEnv: { API_KEY: '${environment.KEY}' },
  });
  new ModularResource(machine, 'board', {
    api: 'rdk:component:board',
    model: sensors.model('pi-board'),
    attributes: { pin: '%{x}', n: 1 },
  });
  return machine;
}

/** A value with its tokens resolved, as the stack resolves its elements' JSON. */
function resolved(stack: TerraformStack, value: unknown): unknown {
  return Tokenization.resolve(value, { scope: stack, preparing: false, resolver: new DefaultTokenResolver(new StringConcat()) });
}

/** What cdktf's own TerraformResource code makes of the machine, resolved. */
function cdktfJson(stack: TerraformStack, machine: Machine): { terraform: unknown; metadata: unknown } {
  return {
    terraform: resolved(stack, TerraformResource.prototype.toTerraform.call(machine)),
    metadata: resolved(stack, TerraformResource.prototype.toMetadata.call(machine)),
  };
}

function ownJson(stack: TerraformStack, machine: Machine): { terraform: unknown; metadata: unknown } {
  return { terraform: resolved(stack, machine.toTerraform()), metadata: resolved(stack, machine.toMetadata()) };
}

describe('Machine Terraform JSON', () => {
  test('without resource features: as cdktf writes it, with the attributes and the construct metadata only', () => {
    const { stack } = newStack();
    new FleetProvider(stack, 'cloud');
    const machine = declare(stack, 'm');
    expect(ownJson(stack, machine)).toEqual(cdktfJson(stack, machine));
    expect(Object.keys(machine.toTerraform())).toEqual(['resource']);
    expect(machine.toMetadata()).toEqual({});
  });

  test('a token in the name (a variable, a function) resolves as before', () => {
    const { stack } = newStack();
    const variable = new TerraformVariable(stack, 'prefix', { type: 'string' });
    const machine = new Machine(stack, 'm', { name: Fn.lower(`${variable.stringValue}-m`) });
    expect(ownJson(stack, machine)).toEqual(cdktfJson(stack, machine));
    expect(resourceOf(synth(stack), 'fleetform_machine', 'm').name).toBe('${lower("${var.prefix}-m")}');
  });

  test.each([
    ['dependsOn', (m: Machine, d: Dataset) => (m.dependsOn = [d.fqn])],
    ['lifecycle', (m: Machine) => (m.lifecycle = { preventDestroy: true, ignoreChanges: ['config'] })],
    ['count', (m: Machine) => (m.count = 2)],
    ['an override', (m: Machine) => m.addOverride('lifecycle.create_before_destroy', true)],
    ['an import', (m: Machine) => m.importFrom('machine-17')],
    ['a move by id', (m: Machine) => m.moveToId('fleetform_machine.other')],
  ])('with %s: as cdktf writes it', (_, use) => {
    const { stack } = newStack();
    const dataset = new Dataset(stack, 'd');
    const machine = declare(stack, 'm');
    use(machine, dataset);
    expect(ownJson(stack, machine)).toEqual(cdktfJson(stack, machine));
  });

  test('a subclass synthesizing attributes of its own gets them written', () => {
    class Tagged extends Machine {
      protected override synthesizeAttributes(): Record<string, unknown> {
        return { ...super.synthesizeAttributes(), description: 'tagged' };
      }
    }
    const { stack } = newStack();
    new Tagged(stack, 't');
    expect(resourceOf(synth(stack), 'fleetform_machine', 't').description).toBe('tagged');
  });
});
