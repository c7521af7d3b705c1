import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packFile } from '../../src/engine/kinds/model-archive';

test('a packed model file is a .tar.gz that tar unpacks to the same bytes, packed the same way every time', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-archive-'));
  try {
    const contents = Buffer.from(Array.from({ length: 1500 }, (_, i) => (i * 13) % 256));
    const archive = packFile('model.tflite', contents);
    expect(Buffer.from(packFile('model.tflite', contents)).equals(Buffer.from(archive))).toBe(true);
    await fs.writeFile(path.join(dir, 'model.tar.gz'), archive);
    expect(execFileSync('tar', ['-tzf', 'model.tar.gz'], { cwd: dir, encoding: 'utf8' }).trim()).toBe('model.tflite');
    execFileSync('tar', ['-xzf', 'model.tar.gz'], { cwd: dir });
    expect((await fs.readFile(path.join(dir, 'model.tflite'))).equals(contents)).toBe(true);
    expect(() => packFile('x'.repeat(101), contents)).toThrow(/longer than 100 bytes/);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
