import { asTerraformAdvice, Diagnostics } from '../../src/provider/diagnostics';
import { Diagnostic_Severity } from '../../src/provider/protocol/generated/tfplugin6/tfplugin6_pb';

test("the kinds' advice names Terraform's commands under Terraform", () => {
  expect(asTerraformAdvice('to manage it with this resource: fleetform import <this address> m-1; or choose another name')).toBe(
    'to manage it with this resource: terraform import <this address> m-1; or choose another name',
  );
  expect(asTerraformAdvice('move it: `fleetform state mv a b`')).toBe('move it: `terraform state mv a b`');
  expect(asTerraformAdvice('fleetform manages: fleetform_machine')).toBe('fleetform manages: fleetform_machine');
});

test('a problem at a deep path points Terraform at its attribute and leads the summary with the whole path', () => {
  const d = new Diagnostics(new Set(['config', 'name']));
  d.problems([{ path: 'config.modules.arm.version', message: 'no such version', hint: 'run fleetform plan again' }]);
  d.notes([
    { level: 'info', message: 'shown only by fleetform plan' },
    { level: 'warning', path: 'name', message: 'renamed' },
  ]);
  expect(d.hasErrors).toBe(true);
  expect(d.list.map((x) => [x.severity, x.summary, x.detail, x.attribute?.steps.map((s) => s.selector.value)])).toEqual([
    [Diagnostic_Severity.ERROR, 'config.modules.arm.version: no such version', 'hint: run terraform plan again', ['config']],
    [Diagnostic_Severity.WARNING, 'name: renamed', '', ['name']],
  ]);
});

test('a hint naming the resource names its address, looked up only when a hint needs it', () => {
  const d = new Diagnostics(new Set(['name']));
  let lookups = 0;
  d.addressOf = () => {
    lookups++;
    return 'fleetform_machine.picker-1';
  };
  d.warning('renamed', { path: 'name' });
  expect(lookups).toBe(0);
  d.problems([{ path: 'name', message: 'name taken', hint: 'to manage it: fleetform import <this address> m-1' }]);
  expect(d.list[1]?.detail).toBe('hint: to manage it: terraform import fleetform_machine.picker-1 m-1');
  expect(lookups).toBe(1);
});
