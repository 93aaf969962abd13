/**
 * A fake GitHub REST API for the tests, on 127.0.0.1 and a random port: issues (with pull
 * requests mixed in) paginated with `Link` headers, filtered by state, labels, milestone and
 * assignee, sorted by creation; labels; milestones; single issues. Faults on demand: a 502, a
 * secondary rate limit (403 with `retry-after`), 401 for a wrong token, 404 for other
 * repositories, a raw body (HTML, JSON of the wrong shape), a connection that is accepted and
 * never answered. Every request is recorded, with its Authorization header.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeIssue {
  number: number;
  title: string;
  body?: string | null;
  labels?: string[];
  state?: 'open' | 'closed';
  created_at: string;
  milestone?: { number: number; title: string } | null;
  assignees?: string[];
  pull_request?: boolean;
}

/** An issue as `gh issue list --json …` prints it (the issues file of examples/backlog.json). */
export interface IssuesFileEntry {
  number: number;
  title: string;
  body: string;
  labels: { name: string }[];
  state: string;
  createdAt: string;
  url?: string | null;
  pull_request?: unknown;
}

/** The same issue as the GitHub REST API serves it. */
export function toFakeIssue(i: IssuesFileEntry): FakeIssue {
  return {
    number: i.number,
    title: i.title,
    body: i.body,
    labels: i.labels.map((l) => l.name),
    state: i.state.toLowerCase() === 'closed' ? 'closed' : 'open',
    created_at: i.createdAt,
    ...(i.pull_request ? { pull_request: true } : {}),
  };
}

export interface Fault {
  /** Which requests it hits (a substring of the path and query). */
  match: string;
  status: number;
  headers?: Record<string, string>;
  message?: string;
  /** How many times it answers before the request succeeds (default 1). */
  times?: number;
  /** Sent as it is instead of `{"message": …}` (set the content type in `headers`). */
  body?: string;
  /** Accept the request and never answer it (`status` is then ignored). */
  hang?: boolean;
}

export interface FakeGithubOptions {
  owner: string;
  repo: string;
  issues: FakeIssue[];
  /** When set, requests must carry `authorization: token <token>` (or `bearer`). */
  token?: string;
  faults?: Fault[];
}

export class FakeGithub {
  readonly requests: { method: string; url: string; authorization: string | undefined }[] = [];
  private server: Server | null = null;
  private faults: (Fault & { left: number })[];

  constructor(private readonly options: FakeGithubOptions) {
    this.faults = (options.faults ?? []).map((f) => ({ ...f, left: f.times ?? 1 }));
  }

  get url(): string {
    const address = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    // Hung requests keep their connections open: close them, or close() would wait for ever.
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push({ method: req.method ?? 'GET', url: `${url.pathname}${url.search}`, authorization: req.headers.authorization });
    const fault = this.faults.find((f) => f.left > 0 && `${url.pathname}${url.search}`.includes(f.match));
    if (fault) {
      fault.left--;
      if (fault.hang) return;
      if (fault.body !== undefined) {
        res.writeHead(fault.status, fault.headers ?? {});
        res.end(fault.body);
      } else this.send(res, fault.status, { message: fault.message ?? 'fault' }, fault.headers);
      return;
    }
    if (this.options.token !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (auth !== `token ${this.options.token}` && auth !== `bearer ${this.options.token}` && auth !== `Bearer ${this.options.token}`) {
        this.send(res, 401, { message: 'Bad credentials' });
        return;
      }
    }
    const prefix = `/repos/${this.options.owner}/${this.options.repo}`;
    if (!url.pathname.startsWith(`${prefix}/`) && url.pathname !== prefix) {
      this.send(res, 404, { message: 'Not Found' });
      return;
    }
    const rest = url.pathname.slice(prefix.length);
    if (rest === '/labels') {
      const names = [...new Set(this.options.issues.flatMap((i) => i.labels ?? []))].sort();
      this.paginate(res, url, names.map((name, id) => ({ id, name })));
      return;
    }
    if (rest === '/milestones') {
      const milestones = new Map<number, { number: number; title: string }>();
      for (const i of this.options.issues) if (i.milestone) milestones.set(i.milestone.number, i.milestone);
      this.paginate(res, url, [...milestones.values()]);
      return;
    }
    const single = /^\/issues\/(\d+)$/.exec(rest);
    if (single) {
      const issue = this.options.issues.find((i) => i.number === Number(single[1]));
      if (issue) this.send(res, 200, this.render(issue));
      else this.send(res, 404, { message: 'Not Found' });
      return;
    }
    if (rest === '/issues') {
      const q = url.searchParams;
      let items = this.options.issues.filter((i) => (q.get('state') ?? 'open') === 'all' || (i.state ?? 'open') === (q.get('state') ?? 'open'));
      const labels = (q.get('labels') ?? '').split(',').filter(Boolean).map((l) => l.toLowerCase());
      items = items.filter((i) => labels.every((l) => (i.labels ?? []).some((x) => x.toLowerCase() === l)));
      const milestone = q.get('milestone');
      if (milestone && milestone !== '*') items = items.filter((i) => (milestone === 'none' ? !i.milestone : String(i.milestone?.number) === milestone));
      const assignee = q.get('assignee');
      if (assignee && assignee !== '*') items = items.filter((i) => (assignee === 'none' ? (i.assignees ?? []).length === 0 : (i.assignees ?? []).includes(assignee)));
      const direction = q.get('direction') === 'asc' ? 1 : -1;
      items = [...items].sort((a, b) => direction * (Date.parse(a.created_at) - Date.parse(b.created_at)) || direction * (a.number - b.number));
      this.paginate(res, url, items.map((i) => this.render(i)));
      return;
    }
    this.send(res, 404, { message: 'Not Found' });
  }

  private render(issue: FakeIssue): Record<string, unknown> {
    const html = `https://github.com/${this.options.owner}/${this.options.repo}/${issue.pull_request ? 'pull' : 'issues'}/${issue.number}`;
    return {
      number: issue.number,
      title: issue.title,
      body: issue.body ?? null,
      labels: (issue.labels ?? []).map((name, id) => ({ id, name })),
      state: issue.state ?? 'open',
      created_at: issue.created_at,
      html_url: html,
      user: { login: 'someone' },
      milestone: issue.milestone ?? null,
      assignees: (issue.assignees ?? []).map((login) => ({ login })),
      ...(issue.pull_request ? { pull_request: { url: `${this.url}/repos/${this.options.owner}/${this.options.repo}/pulls/${issue.number}` } } : {}),
    };
  }

  private paginate(res: ServerResponse, url: URL, items: unknown[]): void {
    const perPage = Math.max(1, Math.min(100, Number(url.searchParams.get('per_page') ?? 30)));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (p: number, rel: string) => {
      const next = new URL(url.toString());
      next.searchParams.set('page', String(p));
      return `<${next.toString()}>; rel="${rel}"`;
    };
    const links = [];
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
    if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
    this.send(res, 200, items.slice((page - 1) * perPage, page * perPage), links.length > 0 ? { link: links.join(', ') } : {});
  }
}
