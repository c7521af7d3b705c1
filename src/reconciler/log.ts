/** The reconciler's log: one line per record, as text or as JSON (`--log-format json`), every line passed through the redactor. */
import { processRedactor, type Redactor } from '../engine/redactor';

export type LogFormat = 'text' | 'json';
export type LogLevel = 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export function streamLogger(format: LogFormat, out: (line: string) => void, redactor: Redactor = processRedactor): Logger {
  const write = (line: string): void => out(redactor.redact(line));
  return {
    log(level, message, fields = {}) {
      if (format === 'json') {
        write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
        return;
      }
      const extra = Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      write(`${new Date().toISOString()} ${level.toUpperCase()} ${message}${extra ? ` ${extra}` : ''}\n`);
    },
  };
}
