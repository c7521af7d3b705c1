import { existsSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';

/** Resolves with the text of `name` in `dir` (trimmed) once it has some: woken by the folder's change events, not by a timer. */
export function fileWritten(dir: string, name: string): Promise<string> {
  return new Promise((done, reject) => {
    const read = (): string => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8').trim() : '');
    const watcher = watch(dir, () => {
      const text = read();
      if (text === '') return;
      watcher.close();
      done(text);
    });
    watcher.on('error', reject);
    const text = read();
    if (text !== '') {
      watcher.close();
      done(text);
    }
  });
}

/** Running (a killed process waiting to be reaped by its new parent counts as ended). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
