// Plans a backlog with one build's planner and nothing else (no rendering, no JSON): prints the
// seconds `analyzePlan` took, so that the process's peak RSS is the planner's own.
// Usage: node analyze-plan.mjs WAVES_CHECKOUT ROOT BACKLOG.json TOP
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, root, backlog, top] = process.argv.slice(2);
const { analyzePlan, loadRepo, parseIssues } = await import(pathToFileURL(path.join(checkout, 'packages/planner/dist/index.js')).href);
const parsed = parseIssues(JSON.parse(readFileSync(backlog, 'utf8')));
if (!parsed.ok) throw new Error(`${backlog}: not a backlog`);
const repo = await loadRepo(root);
const started = performance.now();
const { plan } = analyzePlan({ issues: parsed.value, repo, options: { top: Number(top), maxWaves: Number(top) }, now: '2026-11-29T00:00:00Z' });
console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000, waves: plan.summary.waves, conflicts: plan.conflicts.length }));
