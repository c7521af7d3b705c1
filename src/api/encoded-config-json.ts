/**
 * The JSON form (the Connect protocol's JSON codec) of a message whose `robot_config` fleetform
 * keeps as the bytes of its encoded Struct: there it is the Struct's JSON object, read under
 * either field name, written and read with every key kept.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { setOwn } from '../domain/own-keys';
import { decodeStruct, encodeStruct, type StructObject } from './struct-codec';

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The name `robot_config` has in `holder`, when it holds the config as an object. */
export function configKeyIn(holder: JsonObject): 'robotConfig' | 'robot_config' | undefined {
  return (['robotConfig', 'robot_config'] as const).find((k) => isJsonObject(holder[k]));
}

/** Puts the encoded config into `holder` as its JSON object, under the name the write options ask for. */
export function writeConfigJson(holder: JsonObject, encoded: Uint8Array, useProtoFieldName: boolean | undefined): void {
  setOwn(holder, useProtoFieldName ? 'robot_config' : 'robotConfig', decodeStruct(encoded));
}

/** The holder without its config, and the config's encoded bytes. */
export function takeConfigJson(holder: JsonObject, key: 'robotConfig' | 'robot_config'): { rest: JsonObject; encoded: Uint8Array } {
  const { [key]: config, ...rest } = holder;
  return { rest, encoded: encodeStruct(config as StructObject) };
}
