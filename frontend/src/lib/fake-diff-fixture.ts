// A re-run and its original, as event logs, for the tests of the "What
// changed" view: the original read a table (3 rows), drew a chart and
// answered; the re-run was started from its first tool result with the
// result edited (5 rows), served its first call from the recordings, and
// went on without the chart.
import type { AgentEvent, TurnDetail } from './types';

function turn(id: string, seq: number, more: Partial<TurnDetail> = {}): TurnDetail {
  return {
    parent_turn_id: '',
    continues: false,
    id,
    session_id: 's1',
    seq,
    user_message: 'How many rows?',
    state: 'completed',
    workflow: 'chat',
    model: 'small-model',
    started_at: '2026-12-07T10:00:00.000Z',
    completed_at: '2026-12-07T10:00:10.000Z',
    final_text: 'Done.',
    outcome: 'success',
    termination: { kind: 'completed' },
    messages: [],
    stages: [],
    plan: null,
    charts: [],
    result: null,
    last_seq: 0,
    ...more,
  } as TurnDetail;
}

type Step = [at: number, type: string, data: unknown];

function events(turnId: string, steps: Step[]): AgentEvent[] {
  return steps.map(
    ([at, type, data], i) =>
      ({
        id: `${turnId}-e${i + 1}`,
        session_id: 's1',
        turn_id: turnId,
        stage_id: '',
        seq: i + 1,
        parent_id: '',
        at: new Date(Date.parse('2026-12-07T10:00:00.000Z') + at).toISOString(),
        phase: '',
        checkpoint: false,
        type,
        data,
      }) as unknown as AgentEvent,
  );
}

const call = (start: number, end: number, text: string, inTok: number, outTok: number, capture = 'recorded'): Step[] => [
  [start, 'think_start', {}],
  [start + 10, 'token', { text }],
  [end, 'think_end', { prompt_tokens: inTok, completion_tokens: outTok, capture }],
];
const tool = (at: number, name: string, output: string, ms: number): Step[] => [
  [at - ms, 'tool_call', { call_id: `c-${name}`, name, args: {} }],
  [at, 'tool_result', { call_id: `c-${name}`, name, output, duration_ms: ms }],
];

/** The original (turn #1) and its re-run from tool1 with the result edited (turn #2). */
export function rerunPair() {
  const a = turn('ta', 1);
  const b = turn('tb', 2, { from_turn_id: 'ta', from_step: 'tool1', from_edit: 'tool_result' });
  const aEvents = events('ta', [
    ...call(0, 1000, 'Let me read the table.', 100, 10),
    ...tool(1100, 'read_table', 'rows: 3', 20),
    ...call(1200, 3200, 'There are 3 rows in the table.', 200, 20),
    ...tool(3300, 'draw_chart', 'chart ok', 20),
    ...call(3400, 4400, 'Done.', 150, 10),
    ...call(4500, 5500, 'Anything else?', 50, 10),
  ]);
  const bEvents = events('tb', [
    ...call(0, 1000, 'Let me read the table.', 100, 10, 'replayed'),
    [1050, 'live_from', { from_turn_id: 'ta', from_step: 'tool1', edit: 'tool_result', recorded_calls: 1, recorded_tools: 0 }],
    ...tool(1100, 'read_table', 'rows: 5', 20),
    ...call(1200, 2700, 'There are 5 rows in the table.', 210, 22),
    ...call(2800, 3800, 'Done.', 150, 10),
    ...call(3900, 4900, 'Anything else?', 250, 10),
  ]);
  return { a, aEvents, b, bEvents };
}
