import type { BacklogIssue } from '@waves/planner';

let clock = Date.parse('2026-01-01T00:00:00Z');

/** A backlog issue with sensible defaults; `createdAt` increases with each call unless given. */
export function issue(number: number, fields: Partial<BacklogIssue> = {}): BacklogIssue {
  clock += 60_000;
  return {
    number,
    title: fields.title ?? `Issue ${number}`,
    body: fields.body ?? '',
    labels: fields.labels ?? [],
    state: fields.state ?? 'open',
    createdAt: fields.createdAt === undefined ? new Date(clock).toISOString() : fields.createdAt,
    url: fields.url ?? null,
    sortOrder: fields.sortOrder ?? null,
  };
}

export const NOW = '2026-11-29T12:00:00.000Z';
