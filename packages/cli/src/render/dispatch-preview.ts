/**
 * The dry run, for people and as JSON. For people, every line is a command or a `#` comment, so
 * the whole preview can be saved and run with `sh` and does exactly what the JSON says: each
 * command stands on its own line starting with the agent's executable (a prompt holding line
 * breaks continues inside its quotes, control characters are written as `printf` pieces — see
 * shell-quote.ts), preceded by its worktree's `git worktree add`, `cd` and setup commands and the
 * `export` of its own variables (opencode's per-run permissions), each quoted the same way; every
 * other line is a comment whose text has its line breaks and control characters escaped, on a
 * terminal or not: a title cannot end its comment and start a command.
 */
import { shellQuote, type WaveDispatch } from '@waves/dispatch';
import type { Plan } from '@waves/planner';
import { safeText } from './safe-text.js';

/** A line of text that a shell reads as a comment, whatever the text holds. */
function comment(text: string): string {
  return `# ${safeText(text)}`;
}

export function renderDispatch(plan: Plan, waves: WaveDispatch[], options: { agent: string; modelOverride: string | null }): string {
  const out: string[] = [];
  out.push(comment(`Dry run: agent ${options.agent}; nothing is started, written or leased.`));
  if (options.modelOverride) out.push(comment(`--model ${options.modelOverride} overrides routing for every agent of this run.`));
  out.push('');
  if (waves.length === 0) out.push(comment('No wave to dispatch.'));
  for (const wave of waves) {
    out.push(comment(`Wave ${wave.index} · ${wave.kind} · ${wave.issues.length} agent(s)`));
    for (const issue of wave.issues) {
      out.push(comment(`#${issue.number} ${issue.title} — tier ${issue.tier}, model ${issue.model ?? '(agent default)'}: ${issue.modelRule}`));
      if (issue.worktree) out.push(shellQuote(issue.worktree.argv));
      if (issue.cwd) out.push(`cd ${shellQuote([issue.cwd])}`);
      if (issue.setup.length > 0) out.push(comment('worktree setup, before the agent starts:'));
      for (const argv of issue.setup) out.push(shellQuote(argv));
      // The agent's own variables (opencode's per-run permissions), as the supervisor sets them.
      for (const [name, value] of Object.entries(issue.env)) out.push(`export ${shellQuote([`${name}=${value}`])}`);
      out.push(shellQuote(issue.command));
      for (const name of Object.keys(issue.env)) out.push(`unset ${name}`);
      if (issue.cwd) out.push('cd - >/dev/null');
      out.push('');
    }
  }
  out.push(comment(plan.summaryLine));
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
          return d ? { ...issue, command: d.command, model: d.model, modelRule: d.modelRule, worktree: d.worktree, setup: d.setup, env: d.env, prompt: d.prompt } : issue;
        }),
        ...(rendered ? { commands: rendered.issues.map((i) => i.command) } : {}),
      };
    }),
    dispatch: { waves: waves.map((w) => w.index) },
  };
}
