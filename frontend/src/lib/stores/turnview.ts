// The view of one turn, built by folding its events (reducer.ts). Blocks are
// in the order things happened, so critiques, handoffs and compressions
// show inline where they happened.
import type {
  ArtifactData,
  CodeRunData,
  Copied,
  CompressedData,
  CritiqueData,
  ErrorData,
  ModelRetryData,
  GuardData,
  LiveFromData,
  PlanStep,
  ReplayDivergenceData,
  Source,
  Result,
  StageResult,
  Termination,
  TurnState,
} from '../types';

export interface TextBlock {
  kind: 'text';
  id: string;
  stageId: string;
  text: string;
  /** The think_start event id of the model call that streamed it ('' when unknown): its step (timetravel). */
  call?: string;
}

/**
 * The reasoning one model call streamed before its answer or its tool
 * calls: shown live while it streams, then collapsed to how long it took.
 * It is never part of the answer (textOf reads text blocks only).
 */
export interface ThinkingBlock {
  kind: 'thinking';
  id: string;
  stageId: string;
  text: string;
  /** When the first and the last piece of reasoning came (RFC 3339; '' when unknown). */
  firstAt: string;
  lastAt: string;
  /** The call moved on (an answer token, a tool call, its end, the turn's end). */
  done: boolean;
  /** The think_start event id of its model call ('' when unknown). */
  call?: string;
}

export interface ToolBlock {
  kind: 'tool';
  id: string;
  stageId: string;
  callId: string;
  name: string;
  args: unknown;
  status: 'running' | 'ok' | 'error';
  output?: string;
  error?: string;
  durationMs?: number;
  guards: GuardData[];
}

export interface StageBlock {
  kind: 'stage';
  id: string;
  stageId: string;
  name: string;
  agent: string;
  phase: string;
  /** The workflow said at its start that this stage's reply is the answer. */
  final?: boolean;
  result?: StageResult;
}

export interface ChartBlock {
  kind: 'chart';
  id: string;
  stageId: string;
  title: string;
  spec: unknown;
}

export interface PlanBlock {
  kind: 'plan';
  id: string;
  stageId: string;
}

export interface NoteBlock {
  kind: 'note';
  id: string;
  stageId: string;
  note:
    | { type: 'critique'; data: CritiqueData }
    | { type: 'reflection'; iteration: number; score?: number; passed?: boolean; done: boolean }
    | { type: 'refining'; iteration: number }
    | { type: 'handoff'; from: string; to: string; done: boolean; outcome?: string }
    | { type: 'divergence'; data: ReplayDivergenceData }
    | { type: 'compressed'; data: CompressedData }
    | { type: 'memory'; count: number }
    | { type: 'guard'; data: GuardData }
    | { type: 'retry'; data: ModelRetryData };
}

export interface ErrorBlock {
  kind: 'error';
  id: string;
  stageId: string;
  data: ErrorData;
}

/**
 * Where a re-run from a step (time travel) stops being served from the
 * original's recordings and runs live: its live_from event.
 */
export interface LiveFromBlock {
  kind: 'livefrom';
  id: string;
  stageId: string;
  data: LiveFromData;
}

/** One version of an artifact (an HTML page or SVG image): its artifact event. */
export interface ArtifactBlock {
  kind: 'artifact';
  id: string;
  stageId: string;
  data: ArtifactData;
}

/** One run of a run_code script: its code_run event. */
export interface CodeRunBlock {
  kind: 'coderun';
  id: string;
  stageId: string;
  data: CodeRunData;
}

export type Block =
  | TextBlock
  | ThinkingBlock
  | ToolBlock
  | StageBlock
  | ChartBlock
  | PlanBlock
  | NoteBlock
  | ErrorBlock
  | LiveFromBlock
  | ArtifactBlock
  | CodeRunBlock;

export interface TurnView {
  id: string;
  sessionId: string;
  seq: number;
  userMessage: string;
  /** The images sent with the message (fetched to show by id: getImage). */
  userImages: UserImage[];
  /** It continues the answer of the turn it follows: shown as part of that answer. */
  continues: boolean;
  /** Copied from elsewhere (a fork's branch, an import): its cost is shown, but counted where it ran. '' when it ran here. */
  copied: Copied | '';
  /** The app another app's history was imported from ('ChatGPT'); such a turn has no recordings to replay. '' otherwise. */
  importedFrom: string;
  /** The turn it follows ('' for a first message, or not known yet). */
  parentId: string;
  state: TurnState;
  model: string;
  workflow: string;
  startedAt: string;
  completedAt: string | null;
  /** The last applied event's seq. */
  lastSeq: number;
  blocks: Block[];
  plan: PlanStep[];
  /** What tools gave the model to cite ([n]), in the order given (the sources events). */
  sources: Source[];
  /** A model call is in flight. */
  thinking: boolean;
  /** The stage running now, if any. */
  stageId: string;
  /** When the model call in flight started (its think_start), '' when none is. */
  callStartedAt: string;
  /** The think_start event id of the latest model call ('' before any): what its text and reasoning blocks name. */
  callEvent: string;
  /** The model call in flight has received nothing yet (model_waiting), until it does. */
  waiting: WaitingCall | null;
  finalText: string;
  termination: Termination | null;
  result: Result | null;
  /** True once the turn's detail or first events arrived. */
  loaded: boolean;
  /** Tokens counted while the turn runs, before its result has the totals. */
  live: LiveUsage;
}

/**
 * An image of the person's message, as the turn names it. The id is the
 * stored image's, or, for a message just sent, one the page made up for
 * the thumbnail it already has (see app.ts).
 */
export interface UserImage {
  id: string;
  name: string;
  mime: string;
  width: number;
  height: number;
  /** Bytes. */
  size: number;
}

/** A model call that has received nothing yet: a local server may be loading the model. */
export interface WaitingCall {
  stageId: string;
  /** When the call started (RFC 3339). */
  since: string;
  /** How long it had waited when it said so: the least to show whatever the clocks say. */
  waitedMs: number;
}

/** How long a thinking block's reasoning streamed, in ms (0 when unknown). */
export function thinkingMs(b: Pick<ThinkingBlock, 'firstAt' | 'lastAt'>): number {
  const ms = Date.parse(b.lastAt) - Date.parse(b.firstAt);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/**
 * A running count of a turn's tokens: the exact counts of the model calls
 * that ended (think_end), and an estimate of the call streaming now from
 * the characters it has sent (about four to a token).
 */
export interface LiveUsage {
  inputTokens: number;
  outputTokens: number;
  /** Characters streamed by the call in flight. */
  streamingChars: number;
}

/** The live count as numbers to show: input, and output with the call in flight estimated. */
export function liveTokens(l: LiveUsage): { input: number; output: number; estimated: boolean } {
  const pending = Math.ceil(l.streamingChars / 4);
  return { input: l.inputTokens, output: l.outputTokens + pending, estimated: pending > 0 };
}

export function emptyTurn(id: string, over: Partial<TurnView> = {}): TurnView {
  return {
    id,
    sessionId: '',
    seq: 0,
    userMessage: '',
    userImages: [],
    continues: false,
    copied: '',
    importedFrom: '',
    parentId: '',
    state: 'running',
    model: '',
    workflow: '',
    startedAt: '',
    completedAt: null,
    lastSeq: 0,
    blocks: [],
    plan: [],
    sources: [],
    thinking: false,
    stageId: '',
    callStartedAt: '',
    callEvent: '',
    waiting: null,
    finalText: '',
    termination: null,
    result: null,
    loaded: false,
    live: { inputTokens: 0, outputTokens: 0, streamingChars: 0 },
    ...over,
  };
}

/**
 * The turn's answer, for Copy and the compare view: the text the turn
 * stored as its own (a workflow's final output, never a draft or a
 * critique), else, while nothing is stored yet, the text of the stage
 * that gives the answer.
 */
export function answerText(t: TurnView): string {
  if (t.finalText.trim()) return t.finalText;
  const stages = t.blocks.filter((b) => b.kind === 'stage').length;
  const ans = stages > 1 ? answerStageId(t) : null;
  if (stages > 1 && ans === null) return '';
  return textOf(ans === null ? t.blocks : t.blocks.filter((b) => b.stageId === ans));
}

/** The text blocks' text, joined. */
export function textOf(blocks: readonly Block[]): string {
  return blocks
    .filter((b): b is TextBlock => b.kind === 'text')
    .map((b) => b.text)
    .join('\n\n')
    .trim();
}

/**
 * The stage whose reply is the turn's answer: the one the result names,
 * else the one the workflow marked final when it started, else (an older
 * turn whose result names none) the last stage whose text is the stored
 * answer. Null while it is not known.
 */
export function answerStageId(t: TurnView): string | null {
  const named = t.result?.final_stage_id;
  if (named) return named;
  const stages = t.blocks.filter((b): b is StageBlock => b.kind === 'stage');
  const marked = stages.find((b) => b.final);
  if (marked) return marked.stageId;
  const answer = t.finalText.trim();
  if (!answer) return null;
  for (let i = stages.length - 1; i >= 0; i--) {
    const id = stages[i]!.stageId;
    if (textOf(t.blocks.filter((b) => b.stageId === id)) === answer) return id;
  }
  return null;
}
