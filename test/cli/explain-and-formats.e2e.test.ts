import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { JSDOM } from 'jsdom';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzePlan, explainIssue, IssueExplanationSchema, type Plan } from '@waves/planner';
import { renderExplanation, renderPlanMarkdown, renderPlanMermaid } from '@waves/cli';
import { issue, NOW } from '../helpers/issues.js';
import { makeRepo } from '../helpers/repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');
const EXAMPLE = ['--from-issues', path.join(ROOT, 'examples/backlog.json'), '--root', path.join(ROOT, 'examples/shop')];

function waves(args: string[]) {
  return execa('node', [BIN, ...args], { cwd: ROOT, reject: false, stdin: 'ignore' });
}

describe('waves explain', () => {
  it('names the bucket, each path with the text that produced it, every conflict and why not an earlier wave', async () => {
    const result = await waves(['explain', '103', ...EXAMPLE]);
    expect(result.exitCode, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^#103 Refund partial amounts — wave 2 \(parallel\)/);
    expect(out).toContain('packages/payments/');
    expect(out).toContain('← area:payments (label, label-lane)');
    expect(out).toContain('#101 import: packages/api/src/routes/checkout.ts imports packages/payments/src/index.ts');
    expect(out).toContain('#108 dependency: #108 depends on #103');
    const wave1 = out.split('\n').find((l) => l.startsWith('  wave 1: '))!;
    expect(wave1).toContain('conflicts with #101 (path: packages/payments/ contains packages/payments/src/stripe.ts)');
    expect(wave1).toContain('conflicts with #101 (import: packages/api/src/routes/checkout.ts imports packages/payments/src/index.ts)');
  });

  it('prints the explanation as JSON, and explains issues outside the plan', async () => {
    const json = await waves(['explain', '106', ...EXAMPLE, '--json']);
    const explanation = IssueExplanationSchema.parse(JSON.parse(json.stdout));
    expect(explanation).toMatchObject({ number: 106, bucket: 'triage', reason: 'no path, lane or label names what it touches' });
    const closed = IssueExplanationSchema.parse(JSON.parse((await waves(['explain', '111', ...EXAMPLE, '--json'])).stdout));
    expect(closed).toMatchObject({ bucket: 'not-selected', reason: 'closed: only open issues are planned' });
  });

  it('rejects an issue that is not in the backlog with exit code 2', async () => {
    const result = await waves(['explain', '999', ...EXAMPLE]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toMatch(/^waves: explain: issue #999 is not in the backlog/);
    expect((await waves(['explain', 'abc', ...EXAMPLE])).exitCode).toBe(2);
  });

  it('says a path of the title once as the title, and lists at most twenty dropped paths, then how many more (red team N)', () => {
    const repo = makeRepo({ files: ['src/a.ts', 'src/b.ts'] });
    const body = Array.from({ length: 30 }, (_, i) => `Error in /abs/x${i}.ts:1:1`).join('\n');
    const issues = [issue(1, { title: 'Fix `src/a.ts`', body })];
    const explanation = explainIssue(analyzePlan({ issues, repo, options: {}, now: NOW }), 1, issues)!;
    expect(explanation.rejected).toHaveLength(30);
    const out = renderExplanation(explanation);
    expect(out).toMatch(/← `?src\/a\.ts`? \(title, /);
    expect(out).not.toContain('(title, title,');
    expect(out.split('\n').filter((l) => l.startsWith('  dropped: '))).toHaveLength(20);
    expect(out).toContain('  … and 10 more dropped (--json lists them all)');
  });

  it('shows the import chain when the contention depth is more than one', () => {
    const repo = makeRepo({ files: ['a.ts', 'b.ts', 'c.ts'], imports: [['a.ts', 'b.ts'], ['b.ts', 'c.ts']] });
    const issues = [issue(1, { body: '`a.ts`' }), issue(2, { body: '`c.ts`' })];
    const analysis = analyzePlan({ issues, repo, options: { contentionDepth: 2 }, now: NOW });
    const explanation = explainIssue(analysis, 2, issues)!;
    expect(explanation.conflicts).toEqual([{ with: 1, kind: 'import', detail: 'a.ts → b.ts → c.ts', chain: ['a.ts', 'b.ts', 'c.ts'] }]);
    expect(explanation.earlierWaves).toEqual([{ index: 1, reason: 'conflicts with #1 (import: a.ts → b.ts → c.ts)' }]);
  });
});

const HOSTILE = [
  'Pipes | and <b>html</b> & @someone `ticks`',
  'Mermaid breakers: "quotes" ]) end; subgraph x %% #35; `md` [[x]] {y} (z) -->',
  'New\nline and \u202e RTL and \u0007 bell',
];

function hostilePlan(): Plan {
  const repo = makeRepo({ files: ['a.ts', 'b.ts', 'c.ts', 'package.json'], imports: [['a.ts', 'b.ts']] });
  const issues = [
    issue(1, { title: HOSTILE[0]!, body: '`a.ts`' }),
    issue(2, { title: HOSTILE[1]!, body: '`b.ts`' }),
    issue(3, { title: HOSTILE[2]!, body: '`package.json`\nDepends on #1' }),
    issue(4, { title: 'vague', body: 'nothing' }),
  ];
  return analyzePlan({ issues, repo, options: { maxWaves: 5 }, now: NOW }).plan;
}

describe('plans people read on GitHub', () => {
  it('renders a comment-ready markdown plan whose tables issue text cannot break', () => {
    const md = renderPlanMarkdown(hostilePlan());
    expect(md).toContain('**4 total issue(s) evaluated · 3 dispatchable · 0 subdivide · 1 triage**');
    expect(md).toContain('#### Wave 1 · parallel');
    expect(md).toContain('| #1 | Pipes &#124; and &lt;b&gt;html&lt;/b&gt; &amp; &#64;someone \\`ticks\\` | <code>a.ts</code> | parallel |');
    expect(md).toContain('<details>');
    expect(md).toContain('<summary>Conflicts (');
    for (const line of md.split('\n').filter((l) => l.startsWith('|'))) {
      // Every row of a table has as many cells as its header.
      expect(line.split(/(?<!\\)\|/).length).toBeGreaterThanOrEqual(4);
    }
    expect(md).not.toMatch(/[\u0007\u202e]/);
    expect(md).not.toContain('@someone');
  });

  it('leaves nothing in a title that GitHub would link by itself: URLs, www. names, issue references (red team 4)', () => {
    const repo = makeRepo({ files: ['a.ts'], imports: [] });
    const title = 'Re-login at https://evil.example/login, see www.evil.example, _www.under.example and (WWW.paren.example, fixes other-org/other-repo#1 and GH-2 and #3';
    const md = renderPlanMarkdown(analyzePlan({ issues: [issue(1, { title, body: '`a.ts`' })], repo, options: {}, now: NOW }).plan);
    const row = md.split('\n').find((line) => line.startsWith('| #1 |'))!.split(' | ')[1]!;
    expect(row).not.toMatch(/https?:\/\/|www\.|[\w-]+\/[\w.-]+#\d|\bGH-\d|(?<!&)#\d/i);
    expect(row).toContain('https&#58;//evil.example/login');
  });

  let mermaid: { parse: (text: string) => Promise<unknown> };
  beforeAll(async () => {
    // Mermaid's parser sanitises labels with DOMPurify, which needs a DOM.
    const dom = new JSDOM('<!doctype html><html><body></body></html>');
    Object.assign(globalThis, { window: dom.window, document: dom.window.document });
    mermaid = (await import('mermaid')).default;
  }, 60_000);

  it('renders a Mermaid flowchart that Mermaid parses, whatever the titles', async () => {
    const text = renderPlanMermaid(hostilePlan());
    expect(text.startsWith('flowchart TB\n')).toBe(true);
    expect(text).toContain('subgraph w1["Wave 1 · parallel"]');
    expect(text).toContain('subgraph rest["Not in a wave"]');
    expect(text).toMatch(/i1 -->\|"before"\| i3/);
    await expect(mermaid.parse(text)).resolves.toBeTruthy();
  });

  it('draws at most 400 edges, so that Mermaid (and GitHub) still renders a plan whose 33 issues all conflict, and counts the rest', async () => {
    const issues = Array.from({ length: 33 }, (_, i) => issue(i + 1, { body: '## Files\n- `packages/core/src/cart.ts`' }));
    const plan = analyzePlan({ issues, repo: makeRepo({ files: ['packages/core/src/cart.ts'] }), options: { top: 33, maxWaves: 33 }, now: NOW }).plan;
    expect(plan.conflicts.length).toBe((33 * 32) / 2);
    const text = renderPlanMermaid(plan);
    expect(text.split('\n').filter((l) => / -\.-\|/.test(l))).toHaveLength(400);
    expect(text).toContain(`more["${(33 * 32) / 2 - 400} more conflicts not drawn, Mermaid draws at most 500 edges: see --format json"]`);
    await expect(mermaid.parse(text)).resolves.toBeTruthy();
  });

  it('stays under the 50,000 characters Mermaid renders: 500 issues with long titles keep their numbers, and their titles go', async () => {
    const issues = Array.from({ length: 500 }, (_, i) => issue(i + 1, { title: `A long title ${'x'.repeat(240)}`, body: '## Files\n- `packages/core/src/cart.ts`' }));
    const plan = analyzePlan({ issues, repo: makeRepo({ files: ['packages/core/src/cart.ts'] }), options: { top: 500, maxWaves: 500 }, now: NOW }).plan;
    const text = renderPlanMermaid(plan);
    expect(text.length).toBeLessThanOrEqual(45_000);
    expect(text).toContain('i500["#35;500"]');
    await expect(mermaid.parse(text)).resolves.toBeTruthy();
    // A plan that fits keeps its titles.
    expect(renderPlanMermaid(analyzePlan({ issues: issues.slice(0, 3), repo: makeRepo({ files: ['packages/core/src/cart.ts'] }), options: { top: 3 }, now: NOW }).plan)).toContain('#35;1 A long title');
  });

  it('renders the example plan as Mermaid that parses', async () => {
    const result = await waves(['plan', ...EXAMPLE, '--format', 'mermaid']);
    expect(result.exitCode).toBe(0);
    await expect(mermaid.parse(result.stdout)).resolves.toBeTruthy();
    const md = await waves(['plan', ...EXAMPLE, '--format', 'markdown']);
    expect(md.stdout).toContain('### Wave plan');
    const json = await waves(['plan', ...EXAMPLE, '--format', 'json']);
    expect(JSON.parse(json.stdout).schemaVersion).toBe(1);
  });
});
