/**
 * The config an UpdateRobotPart request sends: `robot_config_json` (JSON text) when set,
 * else `robot_config` (a Struct); as the service reads it and as it stores it.
 */
import { decodeStruct, type StructObject } from '../../api/struct-codec';
import { storedFromStruct, storedFromText, type StoredConfig } from '../logic/stored-config';
import { invalidArgument } from './errors';

/** The field a config was sent in: validation problems name it. */
export type ConfigField = 'robot_config' | 'robot_config_json';

export interface SentConfig {
  readonly field: ConfigField;
  /** The config as a JSON object, every key kept. */
  readonly json: StructObject;
  readonly stored: StoredConfig;
}

function isJsonObject(value: unknown): value is StructObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The config of JSON text: invalid JSON, or JSON that is not an object, is refused naming the field. */
function fromText(text: string): SentConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw invalidArgument(`robot_config_json: not valid JSON (${why}); send the config as the text of a JSON object`);
  }
  if (!isJsonObject(json)) throw invalidArgument('robot_config_json: the config must be a JSON object ({...})');
  return { field: 'robot_config_json', json, stored: storedFromText(text) };
}

/**
 * The request's config: its JSON text when set and not empty (an empty string is the
 * field's zero value, read as unset), else its Struct, else refused.
 */
export function sentConfig(req: { readonly robotConfig?: Uint8Array; readonly robotConfigJson?: string }): SentConfig {
  if (req.robotConfigJson !== undefined && req.robotConfigJson !== '') return fromText(req.robotConfigJson);
  if (!req.robotConfig) throw invalidArgument('robot_config_json (or robot_config) is required: the config to store');
  // Read with every key of the config (`__proto__` included), from the bytes as sent.
  const json = decodeStruct(req.robotConfig);
  return { field: 'robot_config', json, stored: storedFromStruct(json) };
}
