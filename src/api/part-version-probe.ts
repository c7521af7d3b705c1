/**
 * A part's version (`last_updated`) read from GetRobotPart's answer without its config:
 * the same call and the same bytes on the wire as any GetRobotPart, read through a message
 * declaring only the part's id and `last_updated` (proto/viam/app/v1/robot_part_version.proto).
 * Every other field, the config's Struct and JSON text first, is stepped over by its length
 * and never decoded nor kept: unknown fields are not read.
 */
import { MethodKind, type BinaryReadOptions } from '@bufbuild/protobuf';
import type { Sdk } from './sdk';
import { GetRobotPartVersionResponse } from './generated/viam/app/v1/robot_part_version_pb';

export { RobotPartVersion } from './generated/viam/app/v1/robot_part_version_pb';

/** GetRobotPart's response read for the version alone, its other fields skipped. */
export class GetRobotPartVersionReply extends GetRobotPartVersionResponse {
  static override fromBinary(bytes: Uint8Array, options?: Partial<BinaryReadOptions>): GetRobotPartVersionReply {
    return new GetRobotPartVersionReply().fromBinary(bytes, { ...options, readUnknownFields: false });
  }

  override fromBinary(bytes: Uint8Array, options?: Partial<BinaryReadOptions>): this {
    return super.fromBinary(bytes, { ...options, readUnknownFields: false });
  }
}

/** viam.app.v1.AppService's GetRobotPart answered as a version probe (a client's descriptor only: the service is served whole). */
export interface PartVersionServiceType {
  readonly typeName: 'viam.app.v1.AppService';
  readonly methods: {
    readonly getRobotPartVersion: {
      readonly name: 'GetRobotPart';
      readonly I: Sdk['appApi']['GetRobotPartRequest'];
      readonly O: typeof GetRobotPartVersionReply;
      readonly kind: MethodKind.Unary;
    };
  };
}

export function partVersionService(sdk: Sdk): PartVersionServiceType {
  return {
    typeName: 'viam.app.v1.AppService',
    methods: {
      getRobotPartVersion: { name: 'GetRobotPart', I: sdk.appApi.GetRobotPartRequest, O: GetRobotPartVersionReply, kind: MethodKind.Unary },
    },
  };
}
