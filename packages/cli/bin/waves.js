#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv[0] === 'fence' && argv[1] === 'check' && !argv.includes('--help') && !argv.includes('-h')) {
  // An agent's hook runs this before every edit: the thin client alone, none of waves' planner.
  const { runFenceCheck } = await import('@waves/dispatch/fence-client');
  const stdin = async () => {
    const chunks = [];
    let total = 0;
    for await (const chunk of process.stdin) {
      total += chunk.length;
      if (total > 1024 * 1024) break;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  };
  process.exitCode = await runFenceCheck(argv.slice(2), { stdin, stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), env: process.env });
} else {
  const { main } = await import('../dist/main.js');
  process.exitCode = await main(argv);
}
