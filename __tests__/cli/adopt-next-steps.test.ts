import { adoptedCodeInstall, missingSecrets, refuseMissingSecrets, terraformNextSteps } from '../../src/cli/commands/adopt-run';
import { InputError } from '../../src/domain/errors';

const record = {
  stack: 'line-a',
  secrets: [
    { variable: 'ROVER_1_NAV_TOKEN', where: 'rover-1: module nav, TOKEN' },
    { variable: 'UPLINK_API_TOKEN', where: 'arm-2: import of fragment uplink, variable api_token' },
    { variable: 'ROVER_1_NAV_TOKEN', where: 'rover-2: module nav, TOKEN' },
  ],
};

test('a secret variable unset or empty is missing, each named once', () => {
  expect(missingSecrets(record, { UPLINK_API_TOKEN: 'x' }).map((m) => m.variable)).toEqual(['ROVER_1_NAV_TOKEN']);
  expect(missingSecrets(record, { UPLINK_API_TOKEN: '', ROVER_1_NAV_TOKEN: 'y' }).map((m) => m.variable)).toEqual(['UPLINK_API_TOKEN']);
  expect(missingSecrets(record, { UPLINK_API_TOKEN: 'x', ROVER_1_NAV_TOKEN: 'y' })).toEqual([]);
  expect(missingSecrets({}, {})).toEqual([]);
});

test('--finish refuses while one is missing, naming each, where it is and how to set it', () => {
  let thrown: unknown;
  try {
    refuseMissingSecrets(record, {});
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(InputError);
  const err = thrown as InputError;
  expect(err.message).toBe(
    '2 secret variable(s) the adopted code reads are not set: ROVER_1_NAV_TOKEN (rover-1: module nav, TOKEN), UPLINK_API_TOKEN (arm-2: import of fragment uplink, variable api_token)',
  );
  expect(err.path).toBe('ROVER_1_NAV_TOKEN');
  expect(err.hint).toContain('export ROVER_1_NAV_TOKEN=...');
  expect(err.hint).toContain('fleetform adopt --finish --stack-name line-a');
  expect(err.hint).toContain('--allow-missing-secrets');
  expect(() => refuseMissingSecrets(record, { UPLINK_API_TOKEN: 'x', ROVER_1_NAV_TOKEN: 'y' })).not.toThrow();
});

test('adopt --terraform says what to install and run next, for the CDK the code is written for', () => {
  const text = terraformNextSteps('cdktf', 'adopted');
  expect(text).toContain('`cdktf deploy` (or `terraform apply`) adopts them');
  expect(text).toContain('  fleetform provider install ');
  expect(text).toContain("  npx cdktf deploy adopted    # with the CDK's command line: npm install --save-dev cdktf-cli");
  expect(text).toContain('terraform -chdir=cdktf.out/stacks/adopted init && terraform -chdir=cdktf.out/stacks/adopted apply');
  expect(terraformNextSteps('cdktn', 'line-a')).toContain('npx cdktn deploy line-a');
});

test('the adopted code is installed with the fleetform that adopted it, by its spec, never `npm install fleetform`', () => {
  expect(adoptedCodeInstall('file:../fleetform', 'cdktn')).toBe(
    'npm install file:../fleetform cdktn constructs && npm install --save-dev tsx typescript',
  );
});
