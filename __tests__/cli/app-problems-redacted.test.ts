import { processRedactor } from '../../src/engine/redactor';
import { printAppProblems } from '../../src/cli/commands/validate-run';

test('what validate and synth print of an app passes the redactor: an app that printed a secret shows none of it', () => {
  const secret = 'tok-5f3a9c2e7d1b4a68';
  processRedactor.add(secret);
  const written: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    const ok = printAppProblems({
      ok: false,
      errors: [
        {
          severity: 'error',
          code: 'app-failed',
          constructPath: '',
          field: '',
          message: `the app exited with code 1; it wrote to stderr:\nkey=${secret} b64=${Buffer.from(secret).toString('base64')}`,
        },
      ],
      warnings: [{ severity: 'warning', code: 'app-warning', constructPath: '', field: '', message: `token ${secret}` }],
    });
    expect(ok).toBe(false);
  } finally {
    spy.mockRestore();
  }
  const text = written.join('');
  expect(text).toContain('the app exited with code 1');
  expect(text).not.toContain(secret);
  expect(text).not.toContain(Buffer.from(secret).toString('base64'));
  expect(text).toContain('1 error, 1 warning');
});
