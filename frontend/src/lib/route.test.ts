import { describe, expect, it, vi } from 'vitest';
import { evalsPage, formatRoute, home, parseHash, Router, usagePage, type Route } from './route';
import { FakeWindow } from './routetest';

const sid = '0190d3c4-6a1e-7b2a-9c3d-1234567890ab';
const tid = '0190d3c4-7000-7b2a-9c3d-abcdefabcdef';

describe('parseHash and formatRoute', () => {
  it.each([
    ['', home],
    ['#', home],
    ['#/', home],
    [`#/s/${sid}`, { kind: 'session', sessionId: sid, turnId: '' }],
    [`#/s/${sid}/t/${tid}`, { kind: 'session', sessionId: sid, turnId: tid }],
    ['#/usage', usagePage],
    ['#/evals', evalsPage],
    [`#/evals/${sid}`, { kind: 'evals', runId: sid, otherId: '' }],
    [`#/evals/${sid}/diff/${tid}`, { kind: 'evals', runId: sid, otherId: tid }],
    [`#/p/${sid}`, { kind: 'project', projectId: sid }],
    ['#/p/-', { kind: 'project', projectId: '-' }],
    [`#/diff/${sid}/${tid}`, { kind: 'diff', turnA: sid, turnB: tid }],
  ])('reads %j', (hash, want) => {
    expect(parseHash(hash)).toEqual(want);
  });

  it.each([
    '#/x/1',
    '#/usage/x',
    '#/usages',
    '#/s/',
    '#/s/a/t/',
    '#/s/a/b/c',
    '#/s/a/t/b/extra',
    '#/s/%E0%A4%A',
    '#/s/a%20b',
    '#/s/..',
    '#section',
    '#/s/<img>',
    '#/evals/',
    '#/evals/a/',
    '#/evals/a/b',
    '#/evals/a/diff',
    '#/evals/a/diff/',
    '#/evals/a/diff/b/c',
    '#/evals/a/t/b',
    '#/evals/..',
    '#/evals/a%20b',
    '#/evals/a/diff/<b>',
    '#/evalsx',
    '#/p',
    '#/p/',
    '#/p/a/s/b',
    '#/p/--',
    '#/p/..',
    '#/p/<b>',
    '#/p/a%20b',
    '#/diff',
    '#/diff/a',
    '#/diff/a/',
    '#/diff/a/b/c',
    '#/diff/a/<b>',
  ])('refuses %j', (hash) => {
    expect(parseHash(hash)).toBeNull();
  });

  it('writes what it reads', () => {
    const routes: Route[] = [
      home,
      usagePage,
      { kind: 'session', sessionId: sid, turnId: '' },
      { kind: 'session', sessionId: sid, turnId: tid },
      evalsPage,
      { kind: 'evals', runId: sid, otherId: '' },
      { kind: 'evals', runId: sid, otherId: tid },
      { kind: 'project', projectId: sid },
      { kind: 'project', projectId: '-' },
      { kind: 'diff', turnA: sid, turnB: tid },
    ];
    for (const r of routes) expect(parseHash(formatRoute(r))).toEqual(r);
    expect(formatRoute(home)).toBe('');
    expect(formatRoute(evalsPage)).toBe('#/evals');
    expect(formatRoute({ kind: 'evals', runId: 'r1', otherId: 'r0' })).toBe('#/evals/r1/diff/r0');
    expect(formatRoute({ kind: 'project', projectId: 'p1' })).toBe('#/p/p1');
  });
});

describe('Router', () => {
  it('pushes a new place, replaces a renamed one, and keeps the path and query', () => {
    const w = new FakeWindow('/app/?x=1');
    const r = new Router(w);
    r.go({ kind: 'session', sessionId: 'a', turnId: '' });
    r.go({ kind: 'session', sessionId: 'a', turnId: '' }); // already there: no entry
    r.go({ kind: 'session', sessionId: 'b', turnId: 't1' }, { terms: ['word'] });
    expect(r.terms()).toEqual(['word']);
    r.go({ kind: 'session', sessionId: 'c', turnId: '' }, { replace: true });
    r.go(home);
    expect(w.urls()).toEqual(['/app/?x=1', '/app/?x=1#/s/a', '/app/?x=1#/s/c', '/app/?x=1']);
    expect(r.terms()).toEqual([]);
  });

  it('tells a listener once per change of Back, Forward or the address bar, and not of its own moves', () => {
    const w = new FakeWindow('/');
    const r = new Router(w);
    const seen = vi.fn();
    r.listen(seen);
    r.go({ kind: 'session', sessionId: 'a', turnId: '' });
    r.go({ kind: 'session', sessionId: 'b', turnId: '' });
    expect(seen).not.toHaveBeenCalled();
    w.go(-1);
    expect(seen.mock.calls).toEqual([[{ kind: 'session', sessionId: 'a', turnId: '' }]]);
    w.go(1);
    w.type('/#/nonsense');
    expect(seen.mock.calls.slice(1)).toEqual([[{ kind: 'session', sessionId: 'b', turnId: '' }], [null]]);
    r.stop();
    w.go(-1);
    expect(seen).toHaveBeenCalledTimes(3);
  });

  it('replaces an address that is not a route instead of keeping it in the history', () => {
    const w = new FakeWindow('/#/bogus');
    new Router(w).go(home);
    expect(w.urls()).toEqual(['/']);
  });
});
