/** ANSI styling, off when printing to a pipe or with NO_COLOR set. */
export interface Palette {
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  cyan(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

const wrap = (code: string) => (s: string) => `\u001b[${code}m${s}\u001b[0m`;
const plain = (s: string) => s;

export function palette(enabled: boolean): Palette {
  if (!enabled) return { green: plain, yellow: plain, red: plain, cyan: plain, bold: plain, dim: plain };
  return { green: wrap('32'), yellow: wrap('33'), red: wrap('31'), cyan: wrap('36'), bold: wrap('1'), dim: wrap('2') };
}

export function colorWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}
