import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProjectSettings } from '../../src/cli/app-settings';
import { InputError } from '../../src/domain/errors';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetform-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function settingsOf(text: string, outdir?: string) {
  writeFileSync(join(dir, 'cdktf.json'), text);
  return readProjectSettings(dir, outdir);
}

function refusal(text: string): InputError {
  try {
    settingsOf(text);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('cdktf.json was accepted');
}

describe('cdktf.json', () => {
  test("fleetform.passEnv names the variables of the project the app reads; fleetform's own are refused", () => {
    expect(settingsOf(JSON.stringify({ app: 'node main.js', fleetform: { passEnv: ['STAGE'] } })).cdktf.passEnv).toEqual(['STAGE']);
    const own = refusal(JSON.stringify({ app: 'node main.js', fleetform: { passEnv: ['FLEETFORM_API_KEY'] } }));
    expect(own.message).toContain('fleetform.passEnv asks for FLEETFORM_API_KEY');
    expect(own.hint).toContain('--pass-env FLEETFORM_API_KEY');
    expect(refusal(JSON.stringify({ app: 'node main.js', fleetform: { passEnv: ['NOT A NAME'] } })).message).toContain('passEnv');
  });

  test('gives the app command, the output folder, the context and the modules; other keys pass unread', () => {
    const settings = settingsOf(
      JSON.stringify({
        language: 'typescript',
        app: '  npx tsx main.ts ',
        output: 'out',
        context: { site: 'lab' },
        terraformModules: ['./m'],
        projectId: 'x',
      }),
    );
    expect(settings).toEqual({
      cdktf: { app: 'npx tsx main.ts', context: { site: 'lab' }, terraformModules: ['./m'] },
      outdir: join(dir, 'out'),
    });
  });

  test('defaults: cdktf.out, no context, no modules; --output wins over "output"', () => {
    expect(settingsOf('{"app": "node main.js"}')).toEqual({
      cdktf: { app: 'node main.js', context: {}, terraformModules: [] },
      outdir: join(dir, 'cdktf.out'),
    });
    expect(settingsOf('{"app": "node main.js", "output": "a"}', 'b').outdir).toBe(join(dir, 'b'));
  });

  test.each([
    ['{"language": "typescript"}', 'cdktf.json has no "app": the command that runs the app', /^add "app" to cdktf.json/],
    ['{"app": 5}', 'cdktf.json: "app" must be a string: the command that runs the app', /^add "app" to cdktf.json/],
    ['{"app": "  "}', 'cdktf.json: "app" is empty: it is the command that runs the app', /^add "app" to cdktf.json/],
    ['{"app": "x", "output": 3}', 'cdktf.json: "output" must be a string: the output folder', /^fix the key/],
    ['{"app": "x", "context": []}', 'cdktf.json: "context" must be an object of values the app reads with node.getContext', /^fix the key/],
    ['{"app": "x", "terraformModules": {}}', 'cdktf.json: "terraformModules" must be an array of module sources', /^fix the key/],
    ['["npx tsx main.ts"]', 'cdktf.json must hold an object, e.g. {"app": "npx ts-node main.ts"}', /^fix the key/],
  ])('%s is refused by name', (text, message, hint) => {
    const err = refusal(text);
    expect(err.message).toBe(message);
    expect(err.path).toBe(join(dir, 'cdktf.json'));
    expect(err.hint).toMatch(hint);
  });

  test('invalid JSON and a missing file are refused with what to do', () => {
    expect(refusal('{app: x}').message).toMatch(/^cdktf.json is not valid JSON: /);
    rmSync(join(dir, 'cdktf.json'));
    expect(() => readProjectSettings(dir, undefined)).toThrow('no cdktf.json here: it names the command that runs the app');
  });
});
