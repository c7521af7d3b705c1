/**
 * The latency proxy in a process of its own, so that relaying bytes costs the network's
 * CPU, not fleetform's: `latency-proxy-child.ts TARGET RTT_MS BYTES_PER_SECOND` prints one
 * JSON line `{ url }`, answers each IPC message `count` with `{ requests }`, and stops when
 * its stdin closes.
 */
import { startLatencyProxy } from './latency-proxy';

async function main(): Promise<void> {
  const [target, rtt, bps] = process.argv.slice(2);
  const proxy = await startLatencyProxy({ target: target as string, rttMs: Number(rtt), bytesPerSecond: Number(bps) });
  process.on('message', () => process.send?.({ requests: proxy.requests() }));
  process.stdout.write(`${JSON.stringify({ url: proxy.url })}\n`);
  process.stdin.on('end', () => void proxy.close().then(() => process.exit(0)));
  process.stdin.resume();
}

void main();
