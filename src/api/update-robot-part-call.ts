/**
 * UpdateRobotPart's request as fleetform writes and reads it: fleetform sends the config as
 * `robot_config_json` (JSON text), the emulator reads either form. In binary, `robot_config` is
 * the bytes of its encoded Struct (the same bytes on the wire as the service's message),
 * written and read with every key of the config. In JSON (the Connect protocol's JSON
 * codec) it is the Struct's JSON object, as the service reads it, and either form is read.
 */
import type { BinaryReadOptions, JsonReadOptions, JsonValue, JsonWriteOptions } from '@bufbuild/protobuf';
import { configKeyIn, isJsonObject, takeConfigJson, writeConfigJson } from './encoded-config-json';
import { UpdateRobotPartRequestWithEncodedConfig } from './generated/viam/app/v1/robot_part_write_pb';

export class UpdateRobotPartCall extends UpdateRobotPartRequestWithEncodedConfig {
  static override fromBinary(bytes: Uint8Array, options?: Partial<BinaryReadOptions>): UpdateRobotPartCall {
    return new UpdateRobotPartCall().fromBinary(bytes, options);
  }

  static override fromJson(json: JsonValue, options?: Partial<JsonReadOptions>): UpdateRobotPartCall {
    return new UpdateRobotPartCall().fromJson(json, options);
  }

  static override fromJsonString(json: string, options?: Partial<JsonReadOptions>): UpdateRobotPartCall {
    return new UpdateRobotPartCall().fromJsonString(json, options);
  }

  override toJson(options?: Partial<JsonWriteOptions>): JsonValue {
    const json = super.toJson(options);
    if (isJsonObject(json) && this.robotConfig !== undefined) writeConfigJson(json, this.robotConfig, options?.useProtoFieldName);
    return json;
  }

  override fromJson(json: JsonValue, options?: Partial<JsonReadOptions>): this {
    const key = isJsonObject(json) ? configKeyIn(json) : undefined;
    if (!isJsonObject(json) || !key) return super.fromJson(json, options);
    const { rest, encoded } = takeConfigJson(json, key);
    super.fromJson(rest, options);
    this.robotConfig = encoded;
    return this;
  }
}
