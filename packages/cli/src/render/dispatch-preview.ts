/**
 * The dry run, for people and as JSON. For people, each command stands on its own line starting
 * with the agent's executable (a prompt holding line breaks continues inside its quotes), so it
 * can be pasted into a POSIX shell and runs exactly the argv of the JSON.
 */
import { shellQuote, type WaveDispatch } from '@waves/dispatch';
import type { Plan } from '@waves/planner';
import { safeText } from './safe-text.js';

export function renderDispatch(plan: Plan, waves: WaveDispatch[], options: { agent: string; modelOverride: string | null; terminal: boolean }): string {
  const out: string[] = [];
  // On a terminal, control characters of issue text are shown escaped (they could rewrite the
  // screen); piped, the output is exact. --json always carries the exact argv.
  const show = (text: string) => (options.terminal ? safeText(text) : text);
  out.push(`Dry run: agent ${options.agent}; nothing is started, written or leased.`);
  if (options.modelOverride) out.push(`--model ${options.modelOverride} overrides routing for every agent of this run.`);
  out.push('');
  if (waves.length === 0) out.push('No wave to dispatch.');
  for (const wave of waves) {
    out.push(`# Wave ${wave.index} · ${wave.kind} · ${wave.issues.length} agent(s)`);
    for (const issue of wave.issues) {
      out.push(`# #${issue.number} ${show(issue.title)} — tier ${issue.tier}, model ${issue.model ?? '(agent default)'}: ${show(issue.modelRule)}`);
      if (issue.worktree) out.push(show(shellQuote(issue.worktree.argv)));
      if (issue.cwd) out.push(`cd ${shellQuote([issue.cwd])}`);
      out.push(show(shellQuote(issue.command)));
      if (issue.cwd) out.push('cd - >/dev/null');
      out.push('');
    }
  }
  out.push(plan.summaryLine);
  return `${out.join('\n')}\n`;
}

export function dispatchJson(plan: Plan, waves: WaveDispatch[]): Plan & { dispatch: unknown } {
  const byNumber = new Map(waves.flatMap((w) => w.issues.map((i) => [i.number, i] as const)));
  return {
    ...plan,
    waves: plan.waves.map((wave) => {
      const rendered = waves.find((w) => w.index === wave.index);
      return {
        ...wave,
        issues: wave.issues.map((issue) => {
          const d = byNumber.get(issue.number);
          return d ? { ...issue, command: d.command, model: d.model, modelRule: d.modelRule, worktree: d.worktree, prompt: d.prompt } : issue;
        }),
        ...(rendered ? { commands: rendered.issues.map((i) => i.command) } : {}),
      };
    }),
    dispatch: { waves: waves.map((w) => w.index) },
  };
}
