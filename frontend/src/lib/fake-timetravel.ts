// Time travel in the fake backend: a turn's steps and a re-run from one.
//
// turnSteps reads a stored turn's events as backend/timeline.Steps does:
// "start", then "stageN" (stage_start), "callN" (think_start) and "toolN"
// (tool_result or tool_error), each numbered from 1, with how many
// recorded calls and tool results came before it, and Live after a
// live_from. rerunFrom checks the edit fits the step (runner.checkEdit's
// table and words), then starts a new version of the turn whose script is
// the original's events before the step (the recording), a live_from, the
// edit at the step (a typed tool result is the tool's result, a typed reply
// the call's answer) and the original's events after it, streamed as any
// fake turn is.
import { BackendError } from './api';
import type { Step } from './fake-script';
import type { AgentEvent, RerunFromRequest, TimelineStep, TurnDetail, TurnRef } from './types';

/** What the time-travel fake reads and starts. */
export interface FakeTimeTravelDeps {
  turn: (id: string) => TurnDetail | undefined;
  events: (id: string) => AgentEvent[];
  /** Whether a turn runs in the session (a second one is refused). */
  busy: (sessionId: string) => boolean;
  /** A new version of a turn (beside it, after its parent), not started. */
  newVersion: (orig: TurnDetail, message: string) => TurnDetail;
  /** Streams a turn from a script. */
  start: (turn: TurnDetail, steps: Step[]) => void;
}

/** A turn's steps, as timeline.Steps. */
export function fakeTurnSteps(events: readonly AgentEvent[]): TimelineStep[] {
  const steps: TimelineStep[] = [{ id: 'start', kind: 'start', n: 0, seq: 0, recorded_calls: 0, tools: 0 }];
  let stage = { stage: '', agent: '', id: '' };
  let recorded = 0;
  let tools = 0;
  let stages = 0;
  let calls = 0;
  let call: TimelineStep | null = null;
  let live = false;
  for (const ev of events) {
    const inStage = ev.stage_id === stage.id;
    const base: TimelineStep = {
      id: '',
      kind: 'start',
      n: 0,
      seq: ev.seq,
      event_id: ev.id,
      at: ev.at,
      stage_id: ev.stage_id || undefined,
      stage: inStage ? stage.stage || undefined : undefined,
      agent: inStage ? stage.agent || undefined : undefined,
      recorded_calls: recorded,
      tools,
      live: live || undefined,
    };
    switch (ev.type) {
      case 'stage_start':
        stages++;
        stage = { stage: ev.data.stage, agent: ev.data.agent, id: ev.stage_id };
        steps.push({
          ...base,
          id: `stage${stages}`,
          kind: 'stage',
          n: stages,
          stage: stage.stage || undefined,
          agent: stage.agent || undefined,
        });
        break;
      case 'think_start':
        calls++;
        call = { ...base, id: `call${calls}`, kind: 'call', n: calls };
        steps.push(call);
        break;
      case 'think_end':
        // A call with no capture said (before issue 45, and the fake's) is taken as recorded.
        if (ev.data.capture !== '' || !('capture' in ev.data)) {
          recorded++;
          if (call) call.recorded = true;
        }
        call = null;
        break;
      case 'context_compressed':
        if (ev.data.summarized) recorded++;
        break;
      case 'tool_result':
      case 'tool_error':
        tools++;
        steps.push({
          ...base,
          id: `tool${tools}`,
          kind: 'tool',
          n: tools,
          tool: ev.data.name,
          call_id: ev.data.call_id,
          error: ev.type === 'tool_error' || undefined,
        });
        break;
      case 'live_from':
        live = true;
        break;
    }
  }
  return steps;
}

/** The edits each kind of step takes (runner.checkEdit). */
const fits: Record<string, TimelineStep['kind'][]> = {
  '': ['start', 'stage', 'call', 'tool'],
  message: ['start'],
  system_prompt: ['start'],
  tool_result: ['tool'],
  reply: ['call'],
  settings: ['start', 'call'],
  stage: ['stage'],
};

export class FakeTimeTravel {
  #d: FakeTimeTravelDeps;

  constructor(deps: FakeTimeTravelDeps) {
    this.#d = deps;
  }

  steps(turnId: string): TimelineStep[] {
    if (!this.#d.turn(turnId)) throw new BackendError('not_found', `There is no turn ${turnId}.`);
    return fakeTurnSteps(this.#d.events(turnId));
  }

  rerunFrom(req: RerunFromRequest): TurnRef {
    const orig = this.#d.turn(req.turn_id);
    if (!orig) throw new BackendError('not_found', `There is no turn ${req.turn_id}. It may have been deleted.`);
    if (orig.state === 'running')
      throw new BackendError('conflict', 'The turn is still running: wait for it to finish, then re-run from a step.');
    const events = this.#d.events(orig.id);
    const steps = fakeTurnSteps(events);
    const step = steps.find((s) => s.id === req.step.trim().toLowerCase());
    if (!step)
      throw new BackendError('invalid', `Turn #${orig.seq} has no step ${req.step}: its steps are ${steps.map((s) => s.id).join(', ')}.`);
    const kind = req.edit.kind ?? '';
    if (!fits[kind]) throw new BackendError('invalid', `"${kind}" is not an edit a re-run can make.`);
    if (!fits[kind].includes(step.kind)) throw new BackendError('invalid', `A ${kind} edit does not fit ${step.id}.`);
    if (kind === 'message' && !req.edit.text?.trim())
      throw new BackendError('invalid', 'The edited message is empty: type the message the turn should have been sent.');
    if (kind === 'stage' && Object.keys(req.edit.stage ?? {}).length === 0)
      throw new BackendError(
        'invalid',
        'A stage edit needs at least one KEY=VALUE (system_prompt, model, temperature, top_p, max_tokens, seed, reasoning_effort).',
      );
    if (this.#d.busy(orig.session_id))
      throw new BackendError('conflict', 'A turn is already running in this session. Stop it or wait for it to finish.');

    const message = kind === 'message' ? req.edit.text!.trim() : orig.user_message;
    const turn = this.#d.newVersion(orig, message);
    Object.assign(turn, { from_turn_id: orig.id, from_step: step.id, from_edit: kind });
    this.#d.start(turn, rerunScript(events, step, req));
    return { turn_id: turn.id, session_id: turn.session_id, seq: turn.seq };
  }
}

/** The re-run's script: the recording before the step, live_from, the edit, the rest. */
function rerunScript(events: readonly AgentEvent[], step: TimelineStep, req: RerunFromRequest): Step[] {
  const at = step.kind === 'start' ? 0 : step.seq;
  const kept = events.filter((e) => e.type !== 'turn_completed' && e.type !== 'live_from');
  const before = kept.filter((e) => e.seq < at).map(toStep);
  const out: Step[] = [...before];
  out.push({
    type: 'live_from',
    delay: 120,
    data: {
      from_turn_id: req.turn_id,
      from_step: step.id,
      edit: req.edit.kind || undefined,
      recorded_calls: step.recorded_calls,
      recorded_tools: step.tools,
    },
  });
  const rest = kept.filter((e) => e.seq >= at);
  switch (req.edit.kind) {
    case 'tool_result': {
      const [result, ...after] = rest;
      if (result?.type === 'tool_result' || result?.type === 'tool_error') {
        const d = result.data;
        out.push({
          type: 'tool_result',
          stage: result.stage_id,
          parent: d.call_id,
          data: { call_id: d.call_id, name: d.name, output: req.edit.text ?? '', duration_ms: 0 },
        });
      }
      // The model reads the typed result: its next answer says so.
      const answered = after.filter((e) => e.type !== 'token' && e.type !== 'final_answer').map(toStep);
      const end = answered.findIndex((s) => s.type === 'think_end');
      const said: Step[] = tokensOf(`The tool said: ${req.edit.text ?? ''}`, result?.stage_id ?? '');
      if (end >= 0) answered.splice(end, 0, ...said);
      else answered.push({ type: 'think_start' }, ...said, { type: 'think_end', data: { prompt_tokens: 300, completion_tokens: 40 } });
      out.push(...answered);
      break;
    }
    case 'reply': {
      // The call answers the typed reply, then the turn ends.
      const stage = rest[0]?.stage_id ?? '';
      out.push({ type: 'think_start', stage }, ...tokensOf(req.edit.text ?? '', stage), {
        type: 'think_end',
        stage,
        data: { prompt_tokens: 0 },
      });
      break;
    }
    default:
      out.push(...rest.map(toStep));
  }
  out.push({ type: 'turn_completed' });
  return out;
}

function toStep(e: AgentEvent): Step {
  if (e.type === 'token') return { type: 'token', text: e.data.text ?? '', stage: e.stage_id };
  const parent = e.type === 'tool_result' || e.type === 'tool_error' || e.type === 'guard_triggered' ? callIdOf(e) : undefined;
  return { type: e.type as Exclude<Step['type'], 'token' | 'approval' | 'turn_completed'>, data: e.data, stage: e.stage_id, parent };
}

function callIdOf(e: AgentEvent): string | undefined {
  const d = e.data as { call_id?: string };
  return d.call_id || undefined;
}

function tokensOf(text: string, stage: string): Step[] {
  return (text.match(/\S+\s*|\s+/g) ?? []).map((t) => ({ type: 'token' as const, text: t, stage }));
}
