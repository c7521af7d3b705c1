/**
 * The AppService's fragment calls, over fleetform's own messages (generated from
 * proto/viam/app/v1/fragments.proto: the same wire as the service's, with every field).
 */
import { MethodKind } from '@bufbuild/protobuf';
import * as f from './generated/viam/app/v1/fragments_pb';

const unary = MethodKind.Unary;

export const FRAGMENT_METHODS = {
  listFragments: { name: 'ListFragments', I: f.ListFragmentsRequest, O: f.ListFragmentsResponse, kind: unary },
  getFragment: { name: 'GetFragment', I: f.GetFragmentRequest, O: f.GetFragmentResponse, kind: unary },
  createFragment: { name: 'CreateFragment', I: f.CreateFragmentRequest, O: f.CreateFragmentResponse, kind: unary },
  updateFragment: { name: 'UpdateFragment', I: f.UpdateFragmentRequest, O: f.UpdateFragmentResponse, kind: unary },
  deleteFragment: { name: 'DeleteFragment', I: f.DeleteFragmentRequest, O: f.DeleteFragmentResponse, kind: unary },
  getFragmentHistory: { name: 'GetFragmentHistory', I: f.GetFragmentHistoryRequest, O: f.GetFragmentHistoryResponse, kind: unary },
  getFragmentUsage: { name: 'GetFragmentUsage', I: f.GetFragmentUsageRequest, O: f.GetFragmentUsageResponse, kind: unary },
  setFragmentTag: { name: 'SetFragmentTag', I: f.SetFragmentTagRequest, O: f.SetFragmentTagResponse, kind: unary },
  deleteFragmentTag: { name: 'DeleteFragmentTag', I: f.DeleteFragmentTagRequest, O: f.DeleteFragmentTagResponse, kind: unary },
  listNestedFragments: { name: 'ListNestedFragments', I: f.ListNestedFragmentsRequest, O: f.ListNestedFragmentsResponse, kind: unary },
  listMachineFragments: { name: 'ListMachineFragments', I: f.ListMachineFragmentsRequest, O: f.ListMachineFragmentsResponse, kind: unary },
} as const;

export type FragmentMethods = typeof FRAGMENT_METHODS;

export * as fragmentMessages from './generated/viam/app/v1/fragments_pb';
