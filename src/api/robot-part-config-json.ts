/**
 * `RobotPart.robot_config_json` (field 18, the config as stored from JSON text) on the
 * official SDK's RobotPart messages, which predate it: there it is one of the message's
 * unknown fields, read and written as its bytes, the same on the wire as the service's.
 */
import { BinaryReader, BinaryWriter, WireType, type Message } from '@bufbuild/protobuf';

const ROBOT_CONFIG_JSON = 18;

/** The part's `robot_config_json`, when the message carries one. */
export function robotConfigJsonOf<T extends Message<T>>(message: T): string | undefined {
  const fields = message.getType().runtime.bin.listUnknownFields(message);
  // A field sent twice counts as its last value.
  const field = [...fields].reverse().find((f) => f.no === ROBOT_CONFIG_JSON && f.wireType === WireType.LengthDelimited);
  return field === undefined ? undefined : new BinaryReader(field.data).string();
}

/** `message` with its `robot_config_json` set to `text`. */
export function withRobotConfigJson<T extends Message<T>>(message: T, text: string): T {
  // The field's length-prefixed bytes, after its tag.
  const data = new BinaryWriter().string(text).finish();
  message.getType().runtime.bin.onUnknownField(message, ROBOT_CONFIG_JSON, WireType.LengthDelimited, data);
  return message;
}
