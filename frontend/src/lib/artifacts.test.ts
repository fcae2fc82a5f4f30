import { describe, expect, it } from 'vitest';
import { codeArtifacts, fileName, frameDocument, indexOf, sessionArtifacts, titleOf, turnArtifacts, versionsOf } from './artifacts';
import { emptyTurn, type Block, type TurnView } from './stores/turnview';

const page = (n: number) => `<!doctype html><html><head><title>Counter</title></head><body><p>v${n}</p></body></html>`;
const fence = (lang: string, body: string) => '```' + lang + '\n' + body + '\n```';

function turn(id: string, seq: number, blocks: Block[]): TurnView {
  return { ...emptyTurn(id), seq, blocks };
}
const text = (t: string): Block => ({ kind: 'text', id: `t${Math.random()}`, stageId: '', text: t });
const event = (content: string, key = 'html', source = 'block', title = ''): Block => ({
  kind: 'artifact',
  id: `a${Math.random()}`,
  stageId: '',
  data: { key, title, kind: key === 'svg' ? 'svg' : 'html', content, source },
});

describe('codeArtifacts', () => {
  it.each([
    ['an html block', `Here:\n\n${fence('html', page(1))}\n\nDone.`, [{ kind: 'html', content: page(1) }]],
    ['an svg block', fence('svg', '<svg></svg>'), [{ kind: 'svg', content: '<svg></svg>' }]],
    ['a block of another language', fence('js', 'alert(1)'), []],
    ['a block in a list', `- one\n\n  ${fence('HTML', '<p>x</p>').replace(/\n/g, '\n  ')}`, [{ kind: 'html', content: '<p>x</p>' }]],
    ['an empty block', fence('html', ' '), []],
    ['no block', 'plain <b>text</b>', []],
  ])('%s', (_, md, want) => {
    expect(codeArtifacts(md)).toEqual(want);
  });
});

describe('titleOf', () => {
  it.each([
    ['html', page(1), 'Counter'],
    ['html', '<title>A &amp; B</title>', 'A & B'],
    ['html', '<p>no title</p>', 'HTML page'],
    ['svg', '<svg><title>Chart</title></svg>', 'Chart'],
    ['svg', '<svg></svg>', 'SVG image'],
  ] as const)('%s %s', (kind, content, want) => {
    expect(titleOf(kind, content)).toBe(want);
  });
});

describe('turnArtifacts: events and blocks merge by content', () => {
  it('an event made from a block is one version, in the block place', () => {
    const v = turn('t1', 1, [text(fence('html', page(1))), event(page(1) + '\n')]);
    const got = turnArtifacts(v);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ key: 'html', title: 'Counter', source: 'block', turnId: 't1', turnSeq: 1 });
  });
  it('a tool artifact and a different block are two', () => {
    const v = turn('t1', 1, [text(fence('svg', '<svg/>')), event(page(2), 'report', 'tool', 'Report')]);
    expect(turnArtifacts(v).map((a) => a.key)).toEqual(['svg', 'report']);
  });
  it('two events with one content are one', () => {
    expect(turnArtifacts(turn('t', 1, [event(page(1)), event(page(1))]))).toHaveLength(1);
  });
});

describe('sessionArtifacts and versions', () => {
  const views = [
    turn('a', 1, [text(fence('html', page(1)))]),
    turn('b', 2, [text('no artifact')]),
    turn('c', 3, [text(fence('html', page(2))), event(page(2))]),
    turn('d', 4, [text(fence('html', page(3)) + '\n' + fence('svg', '<svg/>'))]),
  ];
  const all = sessionArtifacts(views);
  const html = versionsOf(all, 'html');
  it('numbers versions per key, in turn order', () => {
    expect(html.map((v) => [v.turnId, v.n])).toEqual([
      ['a', 1],
      ['c', 2],
      ['d', 3],
    ]);
    expect(versionsOf(all, 'svg').map((v) => v.n)).toEqual([1]);
  });
  it('finds a target by turn and content, by content alone, or falls back to the newest', () => {
    expect(indexOf(html, { key: 'html', turnId: 'c', content: page(2) })).toBe(1);
    expect(indexOf(html, { key: 'html', turnId: '', content: page(1) })).toBe(0);
    expect(indexOf(html, { key: 'html', turnId: 'd', content: 'gone' })).toBe(2);
    expect(indexOf(html, { key: 'html', turnId: 'x', content: 'gone' })).toBe(2);
  });
});

describe('files and frames', () => {
  it('names a download from its title, version and kind', () => {
    expect(fileName({ title: 'Counter', kind: 'html', n: 3 })).toBe('counter-v3.html');
    expect(fileName({ title: '../../etc/passwd <x>', kind: 'svg', n: 1 })).toBe('etc-passwd-x-v1.svg');
    expect(fileName({ title: '', kind: 'html', n: 2 })).toBe('artifact-v2.html');
  });
  it('gives an SVG a page of its own, an HTML page as it is', () => {
    expect(frameDocument('html', page(1))).toBe(page(1));
    expect(frameDocument('svg', '<svg/>')).toMatch(/^<!doctype html>.*<body><svg\/><\/body><\/html>$/);
  });
});
