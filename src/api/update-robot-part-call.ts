/**
 * UpdateRobotPart's request as fleetform writes and reads it. In binary, `robot_config` is
 * the bytes of its encoded Struct (the same bytes on the wire as the service's message),
 * written and read with every key of the config. In JSON (the Connect protocol's JSON
 * codec) it is the Struct's JSON object, as the service reads it, and either form is read.
 */
import type { BinaryReadOptions, JsonObject, JsonReadOptions, JsonValue, JsonWriteOptions } from '@bufbuild/protobuf';
import { UpdateRobotPartRequestWithEncodedConfig } from './generated/viam/app/v1/robot_part_write_pb';
import { decodeStruct, encodeStruct, type StructObject } from './struct-codec';

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const CONFIG_KEYS = ['robotConfig', 'robot_config'] as const;

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
    if (!isObject(json) || this.robotConfig === undefined) return json;
    const key = options?.useProtoFieldName ? 'robot_config' : 'robotConfig';
    Object.defineProperty(json, key, { value: decodeStruct(this.robotConfig), enumerable: true, writable: true, configurable: true });
    return json;
  }

  override fromJson(json: JsonValue, options?: Partial<JsonReadOptions>): this {
    const key = isObject(json) ? CONFIG_KEYS.find((k) => isObject(json[k])) : undefined;
    if (!isObject(json) || !key) return super.fromJson(json, options);
    const { [key]: config, ...rest } = json;
    super.fromJson(rest, options);
    this.robotConfig = encodeStruct(config as StructObject);
    return this;
  }
}
