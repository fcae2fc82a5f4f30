// A turn asked for (a search hit, a link) is paged in with every turn after
// it, so the list can scroll to it, and becomes the conversation's focus.
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../fake';
import { conversationOf } from './testing';

const at = new Date(2025, 5, 18, 9);

function turnOf(b: FakeBackend, sessionId: string, seq: number) {
  return [...b.turns.values()].find((t) => t.session_id === sessionId && t.seq === seq)!;
}

function contiguous(seqs: number[]) {
  return seqs.every((s, i) => i === 0 || s === seqs[i - 1]! + 1);
}

describe('focus on a turn', () => {
  it('pages in an old turn of a long session in as few pages as it can, with the turns after it', async () => {
    const b = new FakeBackend();
    const s = b.addSession('Long', at, 1200);
    const { conversation: c, rows } = conversationOf(b);
    const target = turnOf(b, s.id, 3);
    const res = await c.open(s.id, { turnId: target.id, seq: 3, terms: ['squared'] });
    expect(res).toEqual({ ok: true, found: true });
    const st = c;
    const seqs = rows().map((t) => t.seq);
    expect(seqs[seqs.length - 1]).toBe(1200);
    expect(seqs[0]).toBe(1);
    expect(contiguous(seqs)).toBe(true);
    expect(st.focus).toMatchObject({ turnId: target.id, terms: ['squared'] });
    // 50, then 1,000 (the most a page holds), then the rest.
    expect(b.calls.filter((x) => x.method === 'listBranch').map((x) => (x.args[1] as { limit: number }).limit)).toEqual([50, 1000, 158]);
    expect(st.nextCursor).toBe('');
  });

  it('finds a linked turn’s place by reading it when its number is not known', async () => {
    const b = new FakeBackend();
    const s = b.addSession('Long', at, 300);
    const { conversation: c, rows } = conversationOf(b);
    const target = turnOf(b, s.id, 100);
    expect(await c.open(s.id, { turnId: target.id })).toEqual({ ok: true, found: true });
    expect(b.calls.some((x) => x.method === 'getTurn' && x.args[0] === target.id)).toBe(true);
    const seqs = rows().map((t) => t.seq);
    expect(seqs[0]).toBe(90);
    expect(contiguous(seqs)).toBe(true);
  });

  it('focuses a turn of the open session again, keeping the turns shown and asking anew each time', async () => {
    const b = new FakeBackend();
    const s = b.addSession('Long', at, 120);
    const { conversation: c, rows } = conversationOf(b);
    await c.open(s.id);
    expect(rows()).toHaveLength(50);
    const target = turnOf(b, s.id, 20);
    expect(await c.focusTurn({ turnId: target.id, seq: 20 })).toBe(true);
    const first = c.focus!;
    expect(first.turnId).toBe(target.id);
    expect(rows().map((t) => t.seq)).toEqual(Array.from({ length: 111 }, (_, i) => i + 10));
    expect(await c.focusTurn({ turnId: target.id, seq: 20 })).toBe(true);
    expect(c.focus!.n).toBeGreaterThan(first.n);
    c.clearFocus();
    expect(c.focus).toBeNull();
  });

  it('says a turn is not in the session and keeps the session at its latest turn', async () => {
    const b = new FakeBackend();
    const s = b.addSession('Short', at, 3);
    const other = b.addSession('Other', at, 1);
    const { conversation: c, rows } = conversationOf(b);
    expect(await c.open(s.id, { turnId: turnOf(b, other.id, 1).id })).toEqual({ ok: true, found: false });
    expect(rows()).toHaveLength(3);
    expect(c.focus).toBeNull();
    expect(c.error).toMatch(/^There is no turn t\d+ in this session/);
  });
});
