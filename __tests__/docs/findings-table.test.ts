/**
 * docs/config-language.md lists every finding that can be a certain failure, with when it is
 * certain, and says how a machine acknowledges one.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CERTAIN_FAILURE_CODES, UNMATCHED_ACKNOWLEDGMENT } from '../../src/domain/certainty';

const DOC = readFileSync(path.resolve(__dirname, '../../docs/config-language.md'), 'utf8');

/** The section under a heading, up to the next heading of that level or above. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/config-language.md has no section "${heading}"`);
  const next = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, next < 0 ? undefined : next);
}

/** Each row of the findings table: the codes of its first cell, and its "certain when" cell. */
function rows(text: string): { codes: string[]; certain: string }[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return { codes: [...(cells[1] ?? '').matchAll(/`([a-z-]+)`/g)].map((m) => m[1] as string), certain: cells[2] ?? '' };
    });
}

const FINDINGS = section('Findings and their certainty');

test.each(CERTAIN_FAILURE_CODES.map((code) => [code]))('the findings table says when %s is certain', (code) => {
  const row = rows(FINDINGS).find((r) => r.codes.includes(code));
  expect(row).toBeDefined();
  expect(row?.certain).not.toBe('');
});

test('the section says how to acknowledge a certain failure, and that an unmatched acknowledgment warns', () => {
  expect(FINDINGS).toContain("acknowledged: [{ code: '");
  expect(FINDINGS).toContain('machine.acknowledge(');
  expect(FINDINGS).toContain(`\`${UNMATCHED_ACKNOWLEDGMENT}\``);
  expect(FINDINGS).toContain('fleetform adopt');
});
