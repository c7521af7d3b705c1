// Preloaded into a command the bench times: writes the process's peak resident memory (MB)
// to BENCH_RSS_FILE when it exits, however it exits.
const fs = require('node:fs');
process.on('exit', () => {
  const file = process.env.BENCH_RSS_FILE;
  if (file) fs.writeFileSync(file, String(Math.round(process.resourceUsage().maxRSS / 1024)));
});
