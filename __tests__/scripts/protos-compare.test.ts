/**
 * `npm run protos:compare` over a small fixture tree shaped like viamrobotics/api: the
 * projection under other names matches; each deliberate mismatch is reported, once; the
 * wire-compatible substitutions are notes; a package of the project's own is skipped.
 */
import * as path from 'node:path';
import { compareProtoTrees, upstreamNameOf } from '../../scripts/protos-compare/compare';
import { ProtoParseError, readProtoTree } from '../../scripts/protos-compare/declarations';
import { protosReport } from '../../scripts/protos-compare/report';
import { ProtoTreeMissingError, protoSourcesUnder } from '../../scripts/protos-compare/sources';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'protos-compare');
const project = readProtoTree(protoSourcesUnder(path.join(FIXTURES, 'project')));
const upstream = readProtoTree(protoSourcesUnder(path.join(FIXTURES, 'upstream')));

const PART = 'viam/app/v1/parts.proto: message viam.app.v1.PartWithEncodedConfig (upstream viam.app.v1.Part)';

test('every deliberate mismatch is reported, and nothing else', () => {
  const result = compareProtoTrees(project, upstream);
  expect(result.differences).toEqual([
    `${PART} field 2 title: upstream names field 2 "name"`,
    `${PART} field 4 created_on: type string here, google.protobuf.Timestamp upstream`,
    `${PART} field 7 tags: singular here, repeated upstream`,
    `${PART} field 12 extra: upstream has no field 12`,
    'viam/app/v1/parts.proto: message viam.app.v1.PartSummary: upstream has no message viam.app.v1.PartSummary',
    'viam/app/v1/parts.proto: enum viam.app.v1.Visibility value VISIBILITY_PUBLIC: 3 here, 2 upstream',
    'viam/app/v1/parts.proto: enum viam.app.v1.Visibility value VISIBILITY_SHARED: upstream has no such value',
    'viam/app/v1/parts.proto: service viam.app.v1.PartService rpc TailPart: responseStream false here, true upstream',
    'viam/app/v1/parts.proto: service viam.app.v1.PartService rpc DropPart: upstream has no such method',
  ]);
  expect(result.notes).toEqual([
    `${PART} field 3 config: bytes here, google.protobuf.Struct upstream (its encoded bytes, the same on the wire)`,
    `${PART} field 6 edited_by: int32 here, viam.app.v1.Editor upstream (the same varint on the wire)`,
  ]);
  expect(result.skipped).toEqual(["acme/v1/own.proto: package acme.v1 is not viamrobotics/api's"]);
  // 7 messages, 1 enum at top level and 1 nested, 1 service.
  expect(result.checked).toBe(10);
});

test('a message named otherwise maps by its upstream line, its nested types along with it; its field types map too', () => {
  expect(upstreamNameOf('viam.robot.v1.StatusEntry.State', project)).toBe('viam.robot.v1.ResourceStatus.State');
  expect(upstreamNameOf('viam.robot.v1.StatusName', project)).toBe('viam.common.v1.ResourceName');
  expect(upstreamNameOf('viam.app.v1.GetPartRequest', project)).toBe('viam.app.v1.GetPartRequest');
  // Upstream writes `common.v1.ResourceName` from viam.robot.v1: resolved by the scoping rule.
  expect(upstream.messages.get('viam.robot.v1.ResourceStatus')?.fields[0]?.type).toBe('viam.common.v1.ResourceName');
});

test('a mismatch in the projection that matched is found once it is changed', () => {
  const renumbered = readProtoTree([
    {
      path: 'viam/robot/v1/status.proto',
      text: 'syntax = "proto3";\npackage viam.robot.v1;\n// upstream: viam.robot.v1.ResourceStatus\nmessage StatusEntry { string error = 2; }\n',
    },
  ]);
  expect(compareProtoTrees(renumbered, upstream).differences).toEqual([
    'viam/robot/v1/status.proto: message viam.robot.v1.StatusEntry (upstream viam.robot.v1.ResourceStatus) field 2 error: upstream names field 2 "state"',
    'viam/robot/v1/status.proto: message viam.robot.v1.StatusEntry (upstream viam.robot.v1.ResourceStatus) field 2 error: type string here, viam.robot.v1.ResourceStatus.State upstream',
  ]);
});

test('the report ends with the counts and fails on a difference; a folder without protos and a file that does not parse are named', () => {
  const report = protosReport(path.join(FIXTURES, 'project'), path.join(FIXTURES, 'upstream'));
  expect(report.ok).toBe(false);
  expect(report.text).toContain(`differs  ${PART} field 2 title`);
  expect(report.text.trimEnd().split('\n').at(-1)).toBe('10 declarations compared: 9 difference(s), 2 note(s)');
  const clean = protosReport(path.join(FIXTURES, 'upstream'), path.join(FIXTURES, 'upstream'));
  expect(clean.ok).toBe(true);
  expect(() => protoSourcesUnder(path.join(FIXTURES, 'no-such-folder'))).toThrow(ProtoTreeMissingError);
  expect(() => readProtoTree([{ path: 'bad.proto', text: 'syntax = "proto3"; message { }' }])).toThrow(ProtoParseError);
  expect(() => readProtoTree([{ path: 'bad.proto', text: 'syntax = "proto3"; message { }' }])).toThrow(/^bad\.proto: /);
});
