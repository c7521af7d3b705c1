/** The comparison of two folders of protos as the text `protos:compare` prints. */
import { compareProtoTrees } from './compare';
import { readProtoTree } from './declarations';
import { protoSourcesUnder } from './sources';

/** The report of the project's tree in `projectDir` against upstream's in `upstreamDir`, and whether nothing differs. */
export function protosReport(projectDir: string, upstreamDir: string): { text: string; ok: boolean } {
  const result = compareProtoTrees(readProtoTree(protoSourcesUnder(projectDir)), readProtoTree(protoSourcesUnder(upstreamDir)));
  const lines = [
    ...result.skipped.map((s) => `skipped  ${s}`),
    ...result.notes.map((n) => `note     ${n}`),
    ...result.differences.map((d) => `differs  ${d}`),
    `${result.checked} declarations compared: ${result.differences.length} difference(s), ${result.notes.length} note(s)`,
  ];
  return { text: `${lines.join('\n')}\n`, ok: result.differences.length === 0 };
}
