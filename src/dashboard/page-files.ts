/**
 * The page's built files (index.html, app.js, app.css), made by `npm run build` into
 * dist/dashboard/page and served from memory: only those names are served, so no request
 * path reaches the file system.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { FleetformError } from '../domain/errors';

export interface PageFile {
  readonly body: Buffer;
  readonly contentType: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** Where the build puts the page, from this file's folder in src/ and in dist/ alike. */
export function defaultPageDir(): string {
  return path.resolve(__dirname, '..', '..', 'dist', 'dashboard', 'page');
}

/** The page's files by name; an error saying how to build them when they are missing. */
export function loadPageFiles(dir = defaultPageDir()): ReadonlyMap<string, PageFile> {
  if (!existsSync(path.join(dir, 'index.html'))) {
    throw new FleetformError(`the dashboard page is not built: ${dir} has no index.html`, {
      path: dir,
      hint: 'run `npm run build` (npm install runs it)',
    });
  }
  const files = new Map<string, PageFile>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type) files.set(name, { body: readFileSync(path.join(dir, name)), contentType: type });
  }
  return files;
}
