/**
 * GetRobotPart's response as fleetform reads and writes it. In binary, the part's
 * `robot_config` stays the bytes of its encoded Struct (the same bytes on the wire as the
 * service's message). In JSON (the Connect protocol's JSON codec) it is the Struct's JSON
 * object, as the service writes it, and either form is read.
 */
import type { BinaryReadOptions, JsonObject, JsonReadOptions, JsonValue, JsonWriteOptions } from '@bufbuild/protobuf';
import { configKeyIn, isJsonObject, takeConfigJson, writeConfigJson } from './encoded-config-json';
import { GetRobotPartResponseWithEncodedConfig } from './generated/viam/app/v1/robot_part_read_pb';

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
    if (isJsonObject(json) && isJsonObject(json.part) && encoded !== undefined)
      writeConfigJson(json.part, encoded, options?.useProtoFieldName);
    return json;
  }

  override fromJson(json: JsonValue, options?: Partial<JsonReadOptions>): this {
    const part = isJsonObject(json) && isJsonObject(json.part) ? json.part : undefined;
    const key = part && configKeyIn(part);
    if (!part || !key) return super.fromJson(json, options);
    const { rest, encoded } = takeConfigJson(part, key);
    super.fromJson({ ...(json as JsonObject), part: rest }, options);
    if (this.part) this.part.robotConfig = encoded;
    return this;
  }
}
