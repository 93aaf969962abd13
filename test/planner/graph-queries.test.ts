import { describe, expect, it } from 'vitest';
import { dependenciesOf, dependentsOf, fanIn, rollUpGraph } from '@waves/planner';
import { makeRepo } from '../helpers/repo.js';

const repo = makeRepo({
  files: ['a/x.ts', 'a/y.ts', 'b/z.ts', 'c/w.ts'],
  imports: [
    ['a/x.ts', 'a/y.ts'],
    ['a/y.ts', 'b/z.ts'],
    ['b/z.ts', 'c/w.ts'],
    ['c/w.ts', 'a/x.ts'],
  ],
  packages: [
    { name: 'pa', dir: 'a' },
    { name: 'pb', dir: 'b' },
  ],
});

describe('graph queries', () => {
  it('follows imports forward and backward to a depth, with distances', () => {
    expect(dependenciesOf(repo.graph, ['a/x.ts'], 2)).toEqual(new Map([['a/y.ts', 1], ['b/z.ts', 2]]));
    expect(dependenciesOf(repo.graph, ['a/x.ts'])).toEqual(new Map([['a/y.ts', 1], ['b/z.ts', 2], ['c/w.ts', 3]]));
    expect(dependentsOf(repo.graph, ['b/z.ts'], 1)).toEqual(new Map([['a/y.ts', 1]]));
    expect(fanIn(repo.graph, 'a/x.ts')).toBe(1);
    expect(fanIn(repo.graph, 'missing.ts')).toBe(0);
  });

  it('rolls the graph up to directories and to packages', () => {
    const dirs = rollUpGraph(repo.graph, 'dir');
    expect(dirs.mapEdges((_e, a, s, t) => `${s}->${t}:${a.imports}`).sort()).toEqual(['a->b:1', 'b->c:1', 'c->a:1']);
    const packages = rollUpGraph(repo.graph, 'package');
    expect(packages.nodes().sort()).toEqual(['(no package)', 'pa', 'pb']);
    expect(packages.getNodeAttribute('pa', 'files')).toBe(2);
  });
});
