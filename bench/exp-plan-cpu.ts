import { openSession, planAndApply, planOnce } from './session';
async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 2000);
  const s = await openSession(size, 10);
  await planAndApply(s.engine, s.a);
  const cpus: number[] = [];
  for (let r = 0; r < 7; r++) {
    const c0 = process.cpuUsage(); const t0 = performance.now();
    await planOnce(s.engine, s.a);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000 / size);
    console.log(`plan wall ${((performance.now() - t0) / 1000).toFixed(2)} s  engine cpu ${((c.user + c.system) / 1000 / size).toFixed(3)} ms/machine`);
  }
  cpus.sort((a, b) => a - b);
  console.log('median cpu ms/machine', cpus[3]!.toFixed(3));
  await s.close();
  process.exit(0);
}
void main();
