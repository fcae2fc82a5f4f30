// Folds a turn's events into its view. Pure: every call returns a new view
// and never changes the one it was given (changed blocks are copied, the
// others shared), so Svelte sees exactly what changed.
import { EventTypeValues } from '../generated';
import type { AgentEvent, EventType, Message, PlanStep, Result, TurnDetail, TurnState } from '../types';
import { emptyTurn, type Block, type NoteBlock, type ToolBlock, type TurnView, type UserImage } from './turnview';

/** Applies one event. Events at or before view.lastSeq are ignored. */
export function applyEvent(view: TurnView, ev: AgentEvent): TurnView {
  if (ev.seq > 0 && ev.seq <= view.lastSeq) return view;
  const next: TurnView = { ...view, lastSeq: Math.max(view.lastSeq, ev.seq), loaded: true };
  if (!next.sessionId && ev.session_id) next.sessionId = ev.session_id;
  if (!next.startedAt && ev.at) next.startedAt = ev.at;
  // Anything the waiting call sends ends its wait, and so does the turn's end.
  if (next.waiting && ev.type !== 'model_waiting' && (ev.stage_id === next.waiting.stageId || ENDS_TURN.has(ev.type))) next.waiting = null;
  fold(next, ev);
  return next;
}

/** Applies events in order. */
export function applyEvents(view: TurnView, evs: readonly AgentEvent[]): TurnView {
  let v = view;
  for (const e of evs) v = applyEvent(v, e);
  return v;
}

/** The state a finished turn is stored with (store.StateOf). */
export function stateOfResult(r: Pick<Result, 'cancelled' | 'ok'>): TurnState {
  if (r.cancelled) return 'cancelled';
  return r.ok ? 'completed' : 'failed';
}

/** Builds a turn's view from its stored detail: its events when it has them, else its messages. */
export function fromDetail(d: TurnDetail): TurnView {
  let v = emptyTurn(d.id, {
    sessionId: d.session_id,
    seq: d.seq,
    userMessage: d.user_message,
    userImages: userImagesOf(d.messages ?? []),
    continues: d.continues,
    copied: d.copied ?? '',
    importedFrom: d.imported_from ?? '',
    parentId: d.parent_turn_id,
    state: d.state,
    model: d.model,
    workflow: d.workflow,
    startedAt: d.started_at,
    completedAt: d.completed_at,
    finalText: d.final_text,
    termination: d.termination?.kind ? d.termination : null,
    plan: d.plan ?? [],
    loaded: true,
  });
  const events = d.events ?? [];
  if (events.length > 0) {
    v = applyEvents({ ...v, plan: [] }, events);
    if (v.plan.length === 0 && (d.plan?.length ?? 0) > 0) v = { ...v, plan: d.plan ?? [] };
  } else {
    v = { ...v, blocks: blocksFromMessages(d.messages ?? []), lastSeq: d.last_seq };
    if ((d.plan?.length ?? 0) > 0) v.blocks = [{ kind: 'plan', id: `${d.id}:plan`, stageId: '' }, ...v.blocks];
    for (const c of d.charts ?? []) v.blocks.push({ kind: 'chart', id: c.event_id, stageId: '', title: c.title, spec: c.spec });
    if (d.state === 'failed' && d.result?.error) {
      v.blocks.push({
        kind: 'error',
        id: `${d.id}:error`,
        stageId: '',
        data: { source: d.result.error_source ?? 'internal', message: d.result.error },
      });
    }
    if (d.result) v = withResult(v, d.result);
  }
  // The stored state wins: a turn interrupted by a crash has no terminal event.
  if (d.state !== 'running')
    v = { ...v, state: d.state, thinking: false, callStartedAt: '', waiting: null, blocks: settleThinking(v.blocks) };
  if (!v.result && d.result) v = { ...v, result: d.result };
  v.lastSeq = Math.max(v.lastSeq, d.last_seq ?? 0);
  return v;
}

/** The images of the turn's own message: its first user message's. */
export function userImagesOf(msgs: readonly Message[]): UserImage[] {
  const m = msgs.find((x) => x.role === 'user');
  return (m?.images ?? [])
    .filter((im) => im.id)
    .map((im, i) => ({
      id: im.id!,
      name: im.name || `Image ${i + 1}`,
      mime: im.mime,
      width: im.width ?? 0,
      height: im.height ?? 0,
      size: im.size,
    }));
}

function blocksFromMessages(msgs: readonly Message[]): Block[] {
  const out: Block[] = [];
  msgs.forEach((m, i) => {
    if (m.role === 'assistant') {
      // No events, so no times: the block says it thought, not for how long.
      if (m.reasoning)
        out.push({ kind: 'thinking', id: `m${i}:thinking`, stageId: '', text: m.reasoning, firstAt: '', lastAt: '', done: true });
      if (m.content) out.push({ kind: 'text', id: `m${i}`, stageId: '', text: m.content });
      for (const c of m.tool_calls ?? []) {
        out.push({
          kind: 'tool',
          id: `m${i}:${c.id}`,
          stageId: '',
          callId: c.id,
          name: c.name,
          args: parseArgs(c.arguments),
          status: 'ok',
          guards: [],
        });
      }
    } else if (m.role === 'tool') {
      const idx = findTool(out, m.tool_call_id ?? '');
      const b = out[idx];
      if (b?.kind === 'tool') out[idx] = { ...b, output: m.content };
    }
  });
  return out;
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function withResult(v: TurnView, r: Result): TurnView {
  const steps = r.plan_steps ?? [];
  return {
    ...v,
    result: r,
    state: stateOfResult(r),
    thinking: false,
    stageId: '',
    termination: r.termination?.kind ? r.termination : v.termination,
    completedAt: r.completed_at || v.completedAt,
    finalText: r.final_text || v.finalText,
    plan: steps.length > 0 ? steps : v.plan,
  };
}

/**
 * The event types the view deliberately does not fold, with why. Every
 * other type of the generated list (EventTypeValues) has a case in fold:
 * its switch must cover every type to compile, and reducer.test.ts
 * checks that these fold nothing.
 */
export const unrendered = {
  revision_completed:
    "the reviser's new draft already streamed as the tokens of its stage; the event repeats it whole for the CLI and exports",
} satisfies Partial<Record<EventType, string>>;

/** The event types the view folds: every one the backend sends but those in unrendered. */
export function folds(type: EventType): boolean {
  return KNOWN.has(type) && !Object.hasOwn(unrendered, type);
}

const KNOWN = new Set<string>(EventTypeValues);

/**
 * Folds one event into the fresh copy of the view it is given; blocks are
 * replaced, never edited. Each case sees the event narrowed by its type,
 * so ev.data is that type's payload.
 */
function fold(v: TurnView, ev: AgentEvent) {
  switch (ev.type) {
    case 'token': {
      const text = ev.data.text ?? '';
      if (!text) return;
      v.blocks = settleThinking(v.blocks, ev.stage_id);
      const last = v.blocks[v.blocks.length - 1];
      if (last?.kind === 'text' && last.stageId === ev.stage_id) {
        v.blocks = [...v.blocks.slice(0, -1), { ...last, text: last.text + text }];
      } else {
        v.blocks = [...v.blocks, { kind: 'text', id: ev.id || `t${ev.seq}`, stageId: ev.stage_id, text, call: v.callEvent }];
      }
      v.live = { ...v.live, streamingChars: v.live.streamingChars + text.length };
      return;
    }
    case 'reasoning': {
      const text = ev.data.text ?? '';
      if (!text) return;
      const idx = openThinking(v.blocks, ev.stage_id);
      const b = v.blocks[idx];
      if (b?.kind === 'thinking') {
        v.blocks = replaceAt(v.blocks, idx, { ...b, text: b.text + text, lastAt: ev.at || b.lastAt });
      } else {
        v.blocks = [
          ...v.blocks,
          {
            kind: 'thinking',
            id: ev.id || `th${ev.seq}`,
            stageId: ev.stage_id,
            text,
            firstAt: ev.at,
            lastAt: ev.at,
            done: false,
            call: v.callEvent,
          },
        ];
      }
      // Reasoning is output the call is billed for, like its answer.
      v.live = { ...v.live, streamingChars: v.live.streamingChars + text.length };
      return;
    }
    case 'model_waiting': {
      const waitedMs = ev.data.waited_ms ?? 0;
      const at = Date.parse(ev.at);
      const since = v.callStartedAt || (Number.isFinite(at) ? new Date(at - waitedMs).toISOString() : ev.at);
      v.waiting = { stageId: ev.stage_id, since, waitedMs };
      return;
    }
    case 'model_retry':
      // A call that failed before its answer began and is tried again: a
      // note that stays where it happened, so a turn that was slow to start
      // says why, live and when read back.
      pushNote(v, ev, { type: 'retry', data: ev.data });
      return;
    case 'think_start':
      v.thinking = true;
      v.callStartedAt = ev.at;
      v.callEvent = ev.id;
      v.blocks = settleThinking(v.blocks, ev.stage_id);
      return;
    case 'think_end': {
      const d = ev.data;
      v.thinking = false;
      v.callStartedAt = '';
      v.blocks = settleThinking(v.blocks, ev.stage_id);
      // The call's exact counts replace the estimate of what it streamed.
      v.live = {
        inputTokens: v.live.inputTokens + (d.prompt_tokens ?? 0),
        outputTokens: v.live.outputTokens + (d.completion_tokens ?? 0),
        streamingChars: 0,
      };
      return;
    }
    case 'tool_call': {
      const d = ev.data;
      v.blocks = [
        ...settleThinking(v.blocks, ev.stage_id),
        {
          kind: 'tool',
          id: ev.id || `c${ev.seq}`,
          stageId: ev.stage_id,
          callId: d.call_id,
          name: d.name,
          args: d.args,
          status: 'running',
          guards: [],
        },
      ];
      return;
    }
    case 'tool_result': {
      const d = ev.data;
      updateTool(v, ev, d.call_id, d.name, { status: 'ok', output: d.output, durationMs: d.duration_ms });
      return;
    }
    case 'tool_error': {
      const d = ev.data;
      updateTool(v, ev, d.call_id, d.name, { status: 'error', error: d.error, durationMs: d.duration_ms });
      return;
    }
    case 'guard_triggered': {
      const d = ev.data;
      const idx = toolOf(v.blocks, ev, '');
      const b = v.blocks[idx];
      if (b?.kind === 'tool') {
        v.blocks = replaceAt(v.blocks, idx, { ...b, guards: [...b.guards, d] });
      } else {
        pushNote(v, ev, { type: 'guard', data: d });
      }
      return;
    }
    case 'plan_generated':
      v.plan = (ev.data.steps ?? []).map((s) => ({ ...s, status: s.status || 'pending' }));
      if (!v.blocks.some((b) => b.kind === 'plan'))
        v.blocks = [...v.blocks, { kind: 'plan', id: ev.id || `p${ev.seq}`, stageId: ev.stage_id }];
      return;
    case 'step_start': {
      const d = ev.data;
      setStep(v, d.step_index, 'running', d.description);
      if (!v.blocks.some((b) => b.kind === 'plan'))
        v.blocks = [...v.blocks, { kind: 'plan', id: ev.id || `p${ev.seq}`, stageId: ev.stage_id }];
      return;
    }
    case 'step_end': {
      const d = ev.data;
      setStep(v, d.step_index, d.success ? 'done' : 'error');
      return;
    }
    case 'memory_recalled':
      pushNote(v, ev, { type: 'memory', count: ev.data.count ?? 0 });
      return;
    case 'context_compressed':
      pushNote(v, ev, { type: 'compressed', data: ev.data });
      return;
    case 'handoff_start': {
      const d = ev.data;
      pushNote(v, ev, { type: 'handoff', from: d.from, to: d.to, done: false });
      return;
    }
    case 'handoff_end': {
      const d = ev.data;
      const idx = lastNote(v.blocks, (n) => n.type === 'handoff' && !n.done && n.to === d.to);
      const b = v.blocks[idx];
      if (b?.kind === 'note' && b.note.type === 'handoff')
        v.blocks = replaceAt(v.blocks, idx, { ...b, note: { ...b.note, done: true, outcome: d.outcome } });
      return;
    }
    case 'reflection_start':
      pushNote(v, ev, { type: 'reflection', iteration: ev.data.iteration, done: false });
      return;
    case 'reflection_end': {
      const d = ev.data;
      const note: NoteBlock['note'] = { type: 'reflection', iteration: d.iteration, score: d.score, passed: d.passed, done: true };
      const idx = lastNote(v.blocks, (n) => n.type === 'reflection' && n.iteration === d.iteration && !n.done);
      const b = v.blocks[idx];
      if (b?.kind === 'note') v.blocks = replaceAt(v.blocks, idx, { ...b, note });
      else pushNote(v, ev, note);
      return;
    }
    case 'critique_generated':
      pushNote(v, ev, { type: 'critique', data: ev.data });
      return;
    case 'refining':
      pushNote(v, ev, { type: 'refining', iteration: ev.data.iteration });
      return;
    case 'replay_divergence':
      pushNote(v, ev, { type: 'divergence', data: ev.data });
      return;
    case 'sources': {
      v.sources = [...v.sources, ...(ev.data.sources ?? [])];
      return;
    }
    case 'chart': {
      const d = ev.data;
      v.blocks = [...v.blocks, { kind: 'chart', id: ev.id || `ch${ev.seq}`, stageId: ev.stage_id, title: d.title ?? '', spec: d.spec }];
      return;
    }
    case 'artifact': {
      v.blocks = [...v.blocks, { kind: 'artifact', id: ev.id || `ar${ev.seq}`, stageId: ev.stage_id, data: ev.data }];
      return;
    }
    case 'code_run': {
      v.blocks = [...v.blocks, { kind: 'coderun', id: ev.id || `cr${ev.seq}`, stageId: ev.stage_id, data: ev.data }];
      return;
    }
    case 'stage_start': {
      const d = ev.data;
      const stageId = d.stage_id || ev.stage_id;
      v.stageId = stageId;
      v.blocks = [
        ...v.blocks,
        { kind: 'stage', id: ev.id || `s${ev.seq}`, stageId, name: d.stage, agent: d.agent, phase: d.phase, final: d.final || undefined },
      ];
      return;
    }
    case 'stage_end': {
      const r = ev.data;
      const stageId = r.id || ev.stage_id;
      const idx = v.blocks.findIndex((b) => b.kind === 'stage' && b.stageId === stageId);
      if (idx >= 0) {
        const b = v.blocks[idx]!;
        if (b.kind === 'stage') v.blocks = replaceAt(v.blocks, idx, { ...b, result: r });
      } else {
        v.blocks = [
          ...v.blocks,
          { kind: 'stage', id: ev.id || `s${ev.seq}`, stageId, name: r.name, agent: r.agent, phase: r.phase, result: r },
        ];
      }
      if (v.stageId === stageId) v.stageId = '';
      v.blocks = settleThinking(v.blocks, stageId);
      return;
    }
    case 'error': {
      const d = ev.data;
      v.blocks = [
        ...v.blocks,
        {
          kind: 'error',
          id: ev.id || `e${ev.seq}`,
          stageId: ev.stage_id,
          data: { source: d.source || 'internal', message: d.message || 'The turn failed.' },
        },
      ];
      v.state = 'failed';
      endCall(v);
      return;
    }
    case 'final_answer': {
      const text = ev.data.text ?? '';
      v.finalText = text;
      endCall(v);
      // A replayed or non-streaming answer has no tokens: show it as the answer.
      if (text && !v.blocks.some((b) => b.kind === 'text' && b.text.trim())) {
        v.blocks = [...v.blocks, { kind: 'text', id: ev.id || `f${ev.seq}`, stageId: ev.stage_id, text }];
      }
      return;
    }
    case 'cancelled': {
      const partial = ev.data.partial_text ?? '';
      v.state = 'cancelled';
      endCall(v);
      if (!v.finalText) v.finalText = partial;
      return;
    }
    case 'turn_completed': {
      const r = ev.data;
      Object.assign(v, withResult(v, r));
      endCall(v);
      // Tools still "running" at the end never reported back (Stop, limits).
      v.blocks = v.blocks.map((b) =>
        b.kind === 'tool' && b.status === 'running' ? { ...b, status: 'error', error: b.error ?? 'Did not finish.' } : b,
      );
      return;
    }
    case 'live_from':
      // A re-run from a step: above, the original's recordings; below, live.
      v.blocks = [...v.blocks, { kind: 'livefrom', id: ev.id || `lf${ev.seq}`, stageId: ev.stage_id, data: ev.data }];
      return;
    case 'revision_completed':
      return; // unrendered
    default: {
      // Every type has its case: this does not compile while one lacks it.
      // An event of a type newer than this build gets here and is skipped.
      const _unknown: never = ev;
      return _unknown;
    }
  }
}

/** The event types after which nothing of the turn runs any more. */
const ENDS_TURN = new Set<EventType>(['error', 'cancelled', 'final_answer', 'turn_completed']);

// The turn ended: no call is in flight, no thinking streams.
function endCall(v: TurnView) {
  v.thinking = false;
  v.callStartedAt = '';
  v.blocks = settleThinking(v.blocks);
}

/** The thinking block a stage's call is streaming into, or -1. */
function openThinking(blocks: readonly Block[], stageId: string): number {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    if (b.kind === 'thinking' && !b.done && b.stageId === stageId) return i;
  }
  return -1;
}

/**
 * Marks the thinking of a stage's call (of every stage when none is
 * named) as done: the call moved on. Returns the same array when nothing
 * changed, so an answer's tokens cost no copy.
 */
function settleThinking(blocks: Block[], stageId?: string): Block[] {
  let out: Block[] | null = null;
  blocks.forEach((b, i) => {
    if (b.kind !== 'thinking' || b.done || (stageId !== undefined && b.stageId !== stageId)) return;
    out ??= blocks.slice();
    out[i] = { ...b, done: true };
  });
  return out ?? blocks;
}

function replaceAt(blocks: Block[], idx: number, b: Block): Block[] {
  const out = blocks.slice();
  out[idx] = b;
  return out;
}

function findTool(blocks: readonly Block[], callId: string): number {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    if (b.kind === 'tool' && b.callId === callId) return i;
  }
  return -1;
}

/**
 * The tool card an event is about: the call its parent_id names (the
 * backend sets it on every result, error and guard), else, for events
 * without one, the latest call with its call_id. Models may reuse a call
 * id across steps ("call_0" every time), so the id alone can pick the
 * wrong card.
 */
function toolOf(blocks: readonly Block[], ev: AgentEvent, callId: string): number {
  if (ev.parent_id) {
    const idx = blocks.findIndex((b) => b.kind === 'tool' && b.id === ev.parent_id);
    if (idx >= 0) return idx;
  }
  return callId ? findTool(blocks, callId) : -1;
}

function updateTool(v: TurnView, ev: AgentEvent, callId: string, name: string, patch: Partial<ToolBlock>) {
  const idx = toolOf(v.blocks, ev, callId);
  const b = v.blocks[idx];
  if (b?.kind === 'tool') {
    v.blocks = replaceAt(v.blocks, idx, { ...b, ...patch });
    return;
  }
  // A call refused before it ran has a result but no call event.
  v.blocks = [
    ...v.blocks,
    { kind: 'tool', id: ev.id || `r${ev.seq}`, stageId: ev.stage_id, callId, name, args: undefined, guards: [], status: 'ok', ...patch },
  ];
}

function pushNote(v: TurnView, ev: AgentEvent, note: NoteBlock['note']) {
  v.blocks = [...v.blocks, { kind: 'note', id: ev.id || `n${ev.seq}`, stageId: ev.stage_id, note }];
}

function lastNote(blocks: readonly Block[], pred: (n: NoteBlock['note']) => boolean): number {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    if (b.kind === 'note' && pred(b.note)) return i;
  }
  return -1;
}

function setStep(v: TurnView, index: number, status: PlanStep['status'], title?: string) {
  const plan = v.plan.slice();
  while (plan.length <= index) plan.push({ title: '', status: 'pending' });
  const cur = plan[index]!;
  plan[index] = { title: cur.title || title || `Step ${index + 1}`, status };
  v.plan = plan;
}
