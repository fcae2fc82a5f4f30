// A recorded turn and its re-run from its last model call with the reply
// edited, made through the HTTP API the page uses (SendMessage, then
// RerunFrom), on the scripted model's default scenario: update_plan
// (call1, tool1), render_chart (call2, tool2), update_plan (call3, tool3),
// then the answer (call4). (A tool_result edit at tool2 stored the
// original's result when this was written: see the report of issue 45.)
// Shared by turndiff.spec.ts and the axe suite.
import type { Page } from '@playwright/test';
import { callAPI, expect, uid } from './fixtures';

export interface RerunPair {
  sessionId: string;
  /** The original turn, and the re-run of it. */
  original: string;
  rerun: string;
  /** What the answer was edited to. */
  edited: string;
}

interface TurnRef {
  turn_id: string;
  session_id: string;
}

/** Waits until the turn is no longer running. */
async function ended(page: Page, turnId: string): Promise<void> {
  await expect
    .poll(async () => (await callAPI<{ state: string }>(page, 'GetTurn', turnId, false)).state, {
      message: `turn ${turnId} ends`,
      timeout: 30_000,
    })
    .toBe('completed');
}

/** Sends a message that charts, then re-runs it from its answer with the answer edited. */
export async function rerunPair(page: Page): Promise<RerunPair> {
  const id = uid();
  const session = await callAPI<{ id: string }>(page, 'CreateSession', { title: `Time travel ${id}` });
  const sent = await callAPI<TurnRef>(page, 'SendMessage', { session_id: session.id, message: `Chart revenue by region ${id}` });
  await ended(page, sent.turn_id);
  const edited = 'Here is revenue by region for Q3: North leads, and the South figures are missing.';
  const rerun = await callAPI<TurnRef>(page, 'RerunFrom', {
    turn_id: sent.turn_id,
    step: 'call4',
    edit: { kind: 'reply', text: edited },
    no_side_effects: false,
  });
  await ended(page, rerun.turn_id);
  return { sessionId: session.id, original: sent.turn_id, rerun: rerun.turn_id, edited };
}
