/**
 * GetRobotPart's response as fleetform reads and writes it. In binary, the part's
 * `robot_config` stays the bytes of its encoded Struct (the same bytes on the wire as the
 * service's message). In JSON (the Connect protocol's JSON codec) it is the Struct's JSON
 * object, as the service writes it, and either form is read.
 */
import { Struct, type BinaryReadOptions, type JsonObject, type JsonReadOptions, type JsonValue, type JsonWriteOptions } from '@bufbuild/protobuf';
import { GetRobotPartResponseWithEncodedConfig } from './generated/viam/app/v1/robot_part_read_pb';

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const CONFIG_KEYS = ['robotConfig', 'robot_config'] as const;

export class GetRobotPartReply extends GetRobotPartResponseWithEncodedConfig {
  static override fromBinary(bytes: Uint8Array, options?: Partial<BinaryReadOptions>): GetRobotPartReply {
    return new GetRobotPartReply().fromBinary(bytes, options);
  }

  static override fromJson(json: JsonValue, options?: Partial<JsonReadOptions>): GetRobotPartReply {
    return new GetRobotPartReply().fromJson(json, options);
  }

  static override fromJsonString(json: string, options?: Partial<JsonReadOptions>): GetRobotPartReply {
    return new GetRobotPartReply().fromJsonString(json, options);
  }

  override toJson(options?: Partial<JsonWriteOptions>): JsonValue {
    const json = super.toJson(options);
    const encoded = this.part?.robotConfig;
    if (!isObject(json) || !isObject(json.part) || encoded === undefined) return json;
    const key = options?.useProtoFieldName ? 'robot_config' : 'robotConfig';
    json.part[key] = Struct.fromBinary(encoded).toJson(options);
    return json;
  }

  override fromJson(json: JsonValue, options?: Partial<JsonReadOptions>): this {
    const part = isObject(json) && isObject(json.part) ? json.part : undefined;
    const key = part && CONFIG_KEYS.find((k) => isObject(part[k]));
    if (!part || !key) return super.fromJson(json, options);
    const { [key]: config, ...rest } = part;
    super.fromJson({ ...(json as JsonObject), part: rest }, options);
    if (this.part) this.part.robotConfig = Struct.fromJson(config as JsonValue, options).toBinary();
    return this;
  }
}
