// The fake backend keeps the turn tree as the store does (store/branch.go):
// a turn follows the active turn or the one it names, switching to a
// version shows its newest continuation, a delete takes what follows, a
// fork copies the branch.
import { describe, expect, it } from 'vitest';
import { FakeBackend } from './fake';

describe('the fake turn tree', () => {
  it('branches, switches, deletes and forks like the store', async () => {
    const fake = new FakeBackend();
    const s = fake.addSession('tree', new Date('2026-01-01T00:00:00Z'), 2);
    const [one, two] = [...fake.turns.values()].filter((t) => t.session_id === s.id).sort((a, b) => a.seq - b.seq);
    expect(two!.parent_turn_id).toBe(one!.id);

    // An edit of the second message: a sibling that follows the first turn.
    for (const t of [one!, two!]) t.state = 'completed';
    const ref = await fake.sendMessage({ session_id: s.id, message: 'two, edited', parent: one!.id });
    const edit = fake.turns.get(ref.turn_id)!;
    expect(edit.parent_turn_id).toBe(one!.id);
    let tree = await fake.sessionTree(s.id);
    expect(tree.active_path).toEqual([one!.id, edit.id]);

    expect((await fake.switchBranch(two!.id)).turn_id).toBe(two!.id);
    tree = await fake.sessionTree(s.id);
    expect(tree.active_path).toEqual([one!.id, two!.id]);

    const fork = await fake.forkSession(two!.id);
    expect(fork.forked_from_turn).toBe(two!.id);
    expect((await fake.sessionTree(fork.id)).active_path).toHaveLength(2);

    expect(await fake.countTurnsFrom(one!.id)).toBe(3);
    expect(await fake.deleteTurn(two!.id)).toBe(1);
    tree = await fake.sessionTree(s.id);
    expect(tree.turns.map((t) => t.id).sort()).toEqual([one!.id, edit.id].sort());
    expect(tree.active_path).toEqual([one!.id, edit.id]);
  });
});
