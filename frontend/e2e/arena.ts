// A blind side-by-side group made through the HTTP API the page uses, in
// a project of its own (so the Arena page can show its votes alone),
// on the two scripted models: "fake" (smoke-model) and "second"
// (second-model). Shared by arena.spec.ts and the axe suite.
import type { Page } from '@playwright/test';
import { callAPI, expect, uid } from './fixtures';

export const targets = [
  { provider: 'fake', model: 'smoke-model' },
  { provider: 'second', model: 'second-model' },
];
/** The targets' labels (store.GroupTarget.Label), as the board and the columns name them. */
export const labels = ['smoke-model · fake', 'second-model · second'];

interface Column {
  slot: number;
  turn_id: string;
  target: string;
  state: string;
}

export interface BlindGroup {
  projectId: string;
  projectName: string;
  sessionId: string;
  sessionTitle: string;
  groupId: string;
  /** The columns by slot, once every one has finished. */
  columns: Column[];
}

/** Sends one message blind to both targets and waits for both columns to finish. */
export async function blindGroup(page: Page): Promise<BlindGroup> {
  const id = uid();
  const projectName = `Arena ${id}`;
  const sessionTitle = `Blind ${id}`;
  const project = await callAPI<{ id: string }>(page, 'CreateProject', { name: projectName });
  const session = await callAPI<{ id: string }>(page, 'CreateSession', { title: sessionTitle, project_id: project.id });
  const ref = await callAPI<{ group_id: string }>(page, 'SendSideBySide', {
    send: { session_id: session.id, message: `Explain closures in one line ${id}` },
    targets,
    blind: true,
  });
  let columns: Column[] = [];
  await expect
    .poll(
      async () => {
        const chain = await callAPI<Array<{ id: string; columns: Column[] | null }>>(page, 'GroupChain', ref.group_id);
        columns = [...(chain.at(-1)?.columns ?? [])].sort((a, b) => a.slot - b.slot);
        return columns.map((c) => c.state);
      },
      { message: 'both columns finish', timeout: 30_000 },
    )
    .toEqual(['completed', 'completed']);
  return { projectId: project.id, projectName, sessionId: session.id, sessionTitle, groupId: ref.group_id, columns };
}

/** Votes through the API: the column of `label` wins. */
export async function voteFor(page: Page, g: BlindGroup, label: string, note = ''): Promise<void> {
  const winner = g.columns.find((c) => c.target === label);
  expect(winner, `a column runs ${label}`).toBeTruthy();
  await callAPI(page, 'VoteOnGroup', {
    id: '',
    group_id: g.groupId,
    outcome: 'win',
    winner_turn_id: winner!.turn_id,
    note,
    blind: true,
    created_at: new Date().toISOString(),
  });
}
