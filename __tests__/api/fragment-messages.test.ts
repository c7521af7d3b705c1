/**
 * fleetform's fragment messages are the service's wire: every field, filled, encodes to
 * bytes the official SDK's message of the same name reads back field for field, and the
 * SDK's bytes read back the same through ours (Fragment.public_namespace, which the pinned
 * SDK lacks, is the one field only ours reads).
 */
import type { JsonValue } from '@bufbuild/protobuf';
import * as ours from '../../src/api/generated/viam/app/v1/fragments_pb';
import { loadSdk, type Sdk } from '../../src/api/sdk';

let sdk: Sdk;
beforeAll(async () => {
  sdk = await loadSdk();
});

const time = '2026-11-24T20:21:04.117Z';
const config = { components: [{ name: 'cam', attributes: { fps: 30, on: true, tags: ['a', null] } }] };
const fragment = {
  id: 'f1',
  name: 'rig',
  fragment: config,
  organizationOwner: 'org-1',
  public: true,
  createdOn: time,
  organizationName: 'Acme',
  robotPartCount: 3,
  organizationCount: 2,
  onlyUsedByOwner: true,
  visibility: 'FRAGMENT_VISIBILITY_PUBLIC_UNLISTED',
  lastUpdated: time,
  revision: '7',
};
const usage = { fragmentId: 'f1', organizations: 2, machines: 5, machinesInCurrentOrg: 4, version: 'stable' };
const resolved = {
  fragmentId: 'f1',
  resolvedConfig: config,
  error: { errorType: 'FRAGMENT_ERROR_TYPE_CYCLE_DETECTED', fragmentId: 'f2', detail: 'loop' },
  revision: '2',
};

/** Each message by name with every field set, in the proto JSON form both read. */
const SAMPLES: Record<string, JsonValue> = {
  Fragment: fragment,
  // The editor's type is a number in ours (2: API_KEY), the AuthenticationType enum in the SDK's.
  FragmentHistoryEntry: {
    fragment: 'f1',
    editedOn: time,
    old: fragment,
    editedBy: { type: 2, value: 'key-1', isDeactivated: true },
    revision: '8',
    config,
  },
  FragmentRevision: { revision: '3', createdAt: time },
  FragmentTag: { tag: 'stable', revision: '3' },
  FragmentError: resolved.error,
  FragmentUsage: usage,
  ResolvedFragment: resolved,
  AdditionalFragment: { fragmentId: 'f1', version: 'stable' },
  ListFragmentsRequest: {
    organizationId: 'org-1',
    showPublic: true,
    fragmentVisibility: ['FRAGMENT_VISIBILITY_PRIVATE', 'FRAGMENT_VISIBILITY_PUBLIC'],
  },
  ListFragmentsResponse: { fragments: [fragment], fragmentUsages: [usage] },
  GetFragmentRequest: { id: 'f1', currentOrganizationId: 'org-1', version: '3' },
  GetFragmentResponse: {
    fragment,
    fragmentUsage: usage,
    revisions: [{ revision: '3', createdAt: time }],
    tags: [{ tag: 'stable', revision: '3' }],
  },
  CreateFragmentRequest: { name: 'rig', config, organizationId: 'org-1', visibility: 'FRAGMENT_VISIBILITY_PRIVATE' },
  CreateFragmentResponse: { fragment },
  UpdateFragmentRequest: { id: 'f1', name: 'rig', config, public: false, visibility: 'FRAGMENT_VISIBILITY_PUBLIC', lastKnownUpdate: time },
  UpdateFragmentResponse: { fragment },
  DeleteFragmentRequest: { id: 'f1' },
  GetFragmentHistoryRequest: { id: 'f1', pageToken: '5', pageLimit: '10' },
  GetFragmentHistoryResponse: { history: [{ fragment: 'f1', revision: '2', config }], nextPageToken: '2' },
  GetFragmentUsageRequest: { fragmentId: 'f1' },
  GetFragmentUsageResponse: { versionUsages: [usage, { ...usage, version: undefined } as unknown as JsonValue] },
  SetFragmentTagRequest: { fragmentId: 'f1', tag: 'stable', revision: '3' },
  SetFragmentTagResponse: { tags: [{ tag: 'stable', revision: '3' }] },
  DeleteFragmentTagRequest: { fragmentId: 'f1', tag: 'stable' },
  DeleteFragmentTagResponse: { tags: [{ tag: 'dev', revision: '4' }] },
  ListNestedFragmentsRequest: { fragmentId: 'f1', additionalFragments: [{ fragmentId: 'f2', version: '1' }] },
  ListNestedFragmentsResponse: { fragments: [fragment], resolvedFragments: [resolved] },
  ListMachineFragmentsRequest: { machineId: 'm1', additionalFragmentIds: ['f3'], additionalFragments: [{ fragmentId: 'f2' }] },
  ListMachineFragmentsResponse: { fragments: [fragment], resolvedFragments: [resolved] },
};

type MessageClass = {
  fromJson(json: JsonValue): { toBinary(): Uint8Array; toJson(): JsonValue };
  fromBinary(bytes: Uint8Array): { toBinary(): Uint8Array; toJson(): JsonValue };
};

test.each(Object.keys(SAMPLES))('%s reads the same through ours and the SDK', (name) => {
  const mine = (ours as unknown as Record<string, MessageClass>)[name] as MessageClass;
  const theirs = (sdk.appApi as unknown as Record<string, MessageClass>)[name] as MessageClass;
  const sample = JSON.parse(JSON.stringify(SAMPLES[name])) as JsonValue;
  const sdkForm =
    name === 'FragmentHistoryEntry'
      ? { ...(sample as object), editedBy: { type: 'AUTHENTICATION_TYPE_API_KEY', value: 'key-1', isDeactivated: true } }
      : sample;
  const sent = mine.fromJson(sample);
  expect(sent.toJson()).toEqual(sample);
  expect(theirs.fromBinary(sent.toBinary()).toJson()).toEqual(sdkForm);
  expect(mine.fromBinary(theirs.fromJson(sdkForm).toBinary()).toJson()).toEqual(sample);
});

test('Fragment.public_namespace travels as field 15, which only ours reads', () => {
  const withNamespace = ours.Fragment.fromJson({ ...fragment, publicNamespace: 'acme' });
  const bytes = withNamespace.toBinary();
  expect(ours.Fragment.fromBinary(bytes).publicNamespace).toBe('acme');
  // The SDK keeps it as an unknown field and writes it back unchanged.
  const relayed = sdk.appApi.Fragment.fromBinary(bytes).toBinary();
  expect(ours.Fragment.fromBinary(relayed).publicNamespace).toBe('acme');
});
