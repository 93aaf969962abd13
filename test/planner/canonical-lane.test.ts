import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalLane, checkLane, checkPathSpelling, decideAcquire, foldLeases, lanesOverlap, LeaseEventSchema, type LeaseEvent } from '@waves/planner';
import { noisySpellingArb, repoPathArb } from '../arbitraries.js';

const NOW = Date.parse('2026-11-29T12:00:00.000Z');

describe('the canonical spelling of a lane', () => {
  it('collapses `.` and empty segments, reads backslashes as separators and drops trailing slashes', () => {
    expect(canonicalLane('packages//payments/src/stripe.ts')).toBe('packages/payments/src/stripe.ts');
    expect(canonicalLane('packages/./payments/src/refunds.ts')).toBe('packages/payments/src/refunds.ts');
    expect(canonicalLane('packages\\payments')).toBe('packages/payments');
    expect(canonicalLane('./packages/payments///')).toBe('packages/payments');
    expect(canonicalLane('.')).toBe('.');
    expect(canonicalLane('./')).toBe('.');
  });

  it('takes a lane in its composed Unicode form: café typed on Linux and as macOS hands it out (NFD) are one lane (red team 4 D9)', () => {
    const nfd = 'src/cafe\u0301';
    expect(canonicalLane(nfd)).toBe('src/caf\u00e9');
    expect(lanesOverlap('src/caf\u00e9', `${nfd}/menu.ts`)).toBe(true);
    expect(decideAcquire([{ id: 'l-1', lane: 'src/caf\u00e9', holder: 'alice', since: '2026-11-29T12:00:00.000Z', until: '2026-11-29T13:00:00.000Z' }], `${nfd}/menu.ts`, 'bob')).toMatchObject({ status: 'refused' });
    // The file system's own spelling stays available, for walking the names as they are stored.
    expect(checkPathSpelling(nfd)).toEqual({ ok: true, lane: nfd });
  });

  it('refuses what is not a place inside the repository, instead of meaning the whole of it', () => {
    for (const lane of ['', '  ', '/', '//', '../x', 'a/../b', 'a/..', '/etc', 'C:\\x', 'c:/x', '\\\\server\\x', '~', '~/x', '~alice/x']) {
      expect(checkLane(lane).ok, JSON.stringify(lane)).toBe(false);
      expect(() => canonicalLane(lane), JSON.stringify(lane)).toThrow(/^lane /);
    }
  });

  it('should always treat two spellings of one path as overlapping', () => {
    fc.assert(
      fc.property(
        repoPathArb.chain((path) => fc.tuple(fc.constant(path), noisySpellingArb(path), noisySpellingArb(path))),
        ([path, a, b]) => {
          expect(canonicalLane(a)).toBe(path);
          expect(lanesOverlap(a, b)).toBe(true);
          expect(lanesOverlap(a, `${path}/inner.ts`)).toBe(true);
        },
      ),
    );
  });

  it('refuses every noisy spelling of a path inside another holder\'s lease', () => {
    fc.assert(
      fc.property(
        repoPathArb.chain((path) => fc.tuple(fc.constant(path), noisySpellingArb(`${path}/src/x.ts`))),
        ([path, spelling]) => {
          const held = foldLeases([{ v: 1, op: 'acquire', id: 'a', lane: path, holder: 'alice', at: new Date(NOW).toISOString(), ttlMs: 60_000 }], NOW);
          expect(decideAcquire(held, spelling, 'bob').status).toBe('refused');
        },
      ),
    );
  });
});

describe('the lease fold and the journal schema', () => {
  const acquire = (lane: string, at = '2026-11-29T12:00:00.000Z'): LeaseEvent => ({ v: 1, op: 'acquire', id: lane, lane, holder: 'alice', at, ttlMs: 3_600_000 });

  it('lets no acquire or renew dated in the future hold a lane', () => {
    expect(foldLeases([acquire('packages/payments', '2100-01-01T00:00:00.000Z')], NOW)).toEqual([]);
    const renewed: LeaseEvent[] = [acquire('packages/payments'), { v: 1, op: 'renew', id: 'packages/payments', at: '2100-01-01T00:00:00.000Z', ttlMs: 3_600_000 }];
    expect(foldLeases(renewed, NOW + 2 * 3_600_000)).toEqual([]);
    // A few seconds ahead is another process's clock, not a forged line; a release always counts.
    expect(foldLeases([acquire('a', new Date(NOW + 5_000).toISOString())], NOW)).toHaveLength(1);
    expect(foldLeases([acquire('a'), { v: 1, op: 'release', id: 'a', at: '2100-01-01T00:00:00.000Z' }], NOW)).toEqual([]);
  });

  it('reads a journal lane in its canonical spelling, and a lane that has none as no event at all', () => {
    const line = (lane: string) => LeaseEventSchema.safeParse({ v: 1, op: 'acquire', id: 'x', lane, holder: 'h', at: '2026-11-29T12:00:00.000Z', ttlMs: 1000 });
    expect(line('packages//payments/').data).toMatchObject({ lane: 'packages/payments' });
    for (const lane of ['', '/', '../x', '/etc', '~']) expect(line(lane).success, JSON.stringify(lane)).toBe(false);
  });
});
