/**
 * `RobotPart.robot_config_json` (field 18) on the official SDK's RobotPart messages, which
 * predate it: set as the field's bytes among the message's unknown fields, so the binary
 * form carries it as the service's does.
 */
import { BinaryWriter, WireType, type Message } from '@bufbuild/protobuf';

/** `RobotPart.robot_config_json`: the config as stored from JSON text. */
const ROBOT_CONFIG_JSON = 18;

/** `message` with its `robot_config_json` set to `text`. */
export function withRobotConfigJson<T extends Message<T>>(message: T, text: string): T {
  // The field's length-prefixed bytes, after its tag.
  const data = new BinaryWriter().string(text).finish();
  message.getType().runtime.bin.onUnknownField(message, ROBOT_CONFIG_JSON, WireType.LengthDelimited, data);
  return message;
}
