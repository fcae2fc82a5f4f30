// A workflow turn is laid out as the work that led to the answer and the
// answer itself. The events below have the shape the engine sends for
// critique-revise (backend/workflow/critique.go): write, critique 1 (fails),
// revise 1, critique 2 (passes), each critique_generated carrying the
// critic's stage id, and a result that names the final stage.
import { describe, expect, it } from 'vitest';
import type { AgentEvent, EventType, Result } from '../types';
import { applyEvents } from './reducer';
import { layoutOf, sectionText } from './sections';
import { answerText, emptyTurn, liveTokens } from './turnview';

let seq = 0;
function ev(type: EventType, data: unknown = {}, over: Partial<AgentEvent> = {}): AgentEvent {
  seq++;
  // A test gives only the data it reads: cast, as the backend is what types real events.
  return {
    id: `e${seq}`,
    session_id: 's1',
    turn_id: 't1',
    stage_id: '',
    seq,
    parent_id: '',
    at: '2025-01-01T00:00:00.000Z',
    type,
    phase: 'stage',
    checkpoint: false,
    data,
    ...over,
  } as AgentEvent;
}

function stage(id: string, name: string, agent: string, text: string, extra: () => AgentEvent[] = () => []): AgentEvent[] {
  // Made in order: the reducer drops an event whose seq is not new.
  return [
    ev('stage_start', { stage_id: id, stage: name, phase: 'critique-revise', agent }, { stage_id: id }),
    ev('think_start', {}, { stage_id: id }),
    // Split where a real stream splits: inside words and JSON.
    ...[text.slice(0, 7), text.slice(7, 19), text.slice(19)].filter(Boolean).map((t) => ev('token', { text: t }, { stage_id: id })),
    ev('think_end', { prompt_tokens: 100, completion_tokens: 20 }, { stage_id: id }),
    ...extra(),
    ev(
      'stage_end',
      {
        id,
        name,
        agent,
        phase: 'critique-revise',
        response: null,
        outcome: 'succeeded',
        termination: { kind: 'natural_completion' },
        diagnostics: { duration_ms: 1200, usage: { total_tokens: 120 } },
      },
      { stage_id: id },
    ),
  ];
}

const draft1 = 'Agentdeck runs agents on your machine.';
const critic1 = '{"score": 0.4, "passed": false, "feedback": "Say what it shows."}';
const draft2 = 'Agentdeck runs LLM agents locally and **streams every step**.';
const critic2 = '{"score": 0.9, "passed": true, "feedback": "Good."}';

function critiqueRevise(done: boolean): AgentEvent[] {
  const evs = [
    ...stage('w', 'write', 'writer', draft1),
    ...stage('c1', 'critique 1', 'critic', critic1),
    ev('critique_generated', { score: 0.4, passed: false, feedback: 'Say what it shows.' }, { stage_id: 'c1' }),
    ev('refining', { iteration: 1 }, { stage_id: 'c1' }),
    ...stage('r1', 'revise 1', 'writer', draft2),
    ev('revision_completed', { iteration: 1, text: draft2 }, { stage_id: 'r1' }),
    ...stage('c2', 'critique 2', 'critic', critic2),
    ev('critique_generated', { score: 0.9, passed: true, feedback: 'Good.' }, { stage_id: 'c2' }),
  ];
  if (!done) return evs;
  const result = {
    ok: true,
    cancelled: false,
    final_text: draft2,
    final_stage_id: 'r1',
    outcome: 'succeeded',
    termination: { kind: 'completed' },
  } as Partial<Result>;
  return [...evs, ev('final_answer', { text: draft2 }), ev('turn_completed', result)];
}

describe('layoutOf', () => {
  it('marks the final draft as the answer and folds the drafts and critiques into labelled sections', () => {
    const v = applyEvents(emptyTurn('t1'), critiqueRevise(true));
    const l = layoutOf(v);
    expect(l.staged).toBe(true);
    expect(l.answer?.label).toBe('Draft 2');
    expect(sectionText(l.answer!)).toBe(draft2);
    expect(l.work.map((s) => [s.label, s.verdict, s.tone])).toEqual([
      ['Draft 1', '', ''],
      ['Critique 1', 'needs work, 40%', 'warn'],
      ['Critique 2', 'passed, 90%', 'ok'],
    ]);
    // The critic's raw JSON is in its section, never in the answer.
    expect(sectionText(l.work[1]!)).toBe(critic1);
    expect(l.work.every((s) => !s.running)).toBe(true);
  });

  it('copies the final draft, not every stage joined', () => {
    const v = applyEvents(emptyTurn('t1'), critiqueRevise(true));
    expect(answerText(v)).toBe(draft2);
  });

  it('has no answer yet while a critique-revise turn runs, and keeps the running stage open', () => {
    const evs = critiqueRevise(false);
    // Stop inside critique 2: its stage has started but not ended.
    const v = applyEvents(
      emptyTurn('t1'),
      evs.slice(
        0,
        evs.findIndex((e) => e.type === 'stage_end' && e.stage_id === 'c2'),
      ),
    );
    const l = layoutOf(v);
    expect(l.answer).toBeNull();
    expect(l.work.at(-1)).toMatchObject({ label: 'Critique 2', running: true });
    expect(answerText(v)).toBe('');
  });

  it('shows a stage the workflow marked final as the answer while it streams', () => {
    const evs = [
      ...stage('a', 'research', 'researcher', 'Notes.'),
      ev('stage_start', { stage_id: 'b', stage: 'summarise', phase: 'pipeline', agent: 'writer', final: true }, { stage_id: 'b' }),
      ev('token', { text: 'The sum' }, { stage_id: 'b' }),
    ];
    const l = layoutOf(applyEvents(emptyTurn('t1'), evs));
    expect(l.answer).toMatchObject({ label: 'Summarise', running: true });
    expect(l.work.map((s) => s.label)).toEqual(['Research']);
  });

  it('finds the answer of an older turn whose result names no stage by its text', () => {
    const evs = critiqueRevise(true).map((e) =>
      e.type === 'turn_completed' ? { ...e, data: { ...e.data, final_stage_id: undefined } } : e,
    );
    expect(layoutOf(applyEvents(emptyTurn('t1'), evs)).answer?.label).toBe('Draft 2');
  });

  it('counts the tool calls of a folded section so none is hidden', () => {
    const evs = [
      ...stage('p', 'plan', 'planner', 'Plan.'),
      ...stage('s1', 'step 1', 'executor', 'Read it.', () => [
        ev('tool_call', { call_id: 'c', name: 'read_table', args: {} }, { stage_id: 's1' }),
      ]),
      ...stage('f', 'finish', 'finisher', 'Done.'),
      ev('turn_completed', { ok: true, final_text: 'Done.', final_stage_id: 'f' }),
    ];
    const l = layoutOf(applyEvents(emptyTurn('t1'), evs));
    expect(l.work.map((s) => [s.label, s.toolCalls])).toEqual([
      ['Plan', 0],
      ['Step 1', 1],
    ]);
    expect(l.answer?.label).toBe('Finish');
  });

  it('lays out a one-stage turn as it streamed', () => {
    const v = applyEvents(emptyTurn('t1'), stage('x', 'chat', 'assistant', 'Hello there'));
    expect(layoutOf(v)).toMatchObject({ staged: false, work: [], answer: null });
    expect(layoutOf(v).loose).toHaveLength(v.blocks.length);
  });
});

describe('live tokens', () => {
  it('estimates the call in flight from what it streamed, and takes the exact counts when it ends', () => {
    const streaming = applyEvents(emptyTurn('t1'), [ev('think_start'), ev('token', { text: 'x'.repeat(40) })]);
    expect(liveTokens(streaming.live)).toEqual({ input: 0, output: 10, estimated: true });
    const ended = applyEvents(streaming, [
      ev('think_end', { prompt_tokens: 300, completion_tokens: 12 }),
      ev('think_start'),
      ev('token', { text: 'abcd' }),
    ]);
    expect(liveTokens(ended.live)).toEqual({ input: 300, output: 13, estimated: true });
  });
});
