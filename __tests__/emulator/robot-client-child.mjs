// Dials a machine directly with the official SDK's robot client, outside the test runner's
// sandbox (whose separate globals break the SDK's own URL check), and prints its
// GetMachineStatus as one JSON line. Usage: node robot-client-child.mjs HOST KEY_ID KEY
// (SDK 0.61.1's createRobotClient accepts only WebRTC connections as connected, so the
// client dials directly through RobotClient.dial.)
import { RobotClient } from '@viamrobotics/sdk';

const [host, authEntity, payload] = process.argv.slice(2);
const robot = await new RobotClient().dial({
  host,
  credentials: { type: 'api-key', authEntity, payload },
  disableSessions: true,
  noReconnect: true,
});
try {
  const status = await robot.getMachineStatus();
  process.stdout.write(`${status.toJsonString()}\n`);
} finally {
  await robot.disconnect();
}
process.exit(0);
