// The view of one turn, built by folding its events (reducer.ts). Blocks are
// in the order things happened, so critiques, handoffs and compressions
// show inline where they happened.
import type {
  CompressedData,
  CritiqueData,
  ErrorData,
  GuardData,
  PlanStep,
  ReplayDivergenceData,
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
  result?: StageResult;
}

export interface ChartBlock {
  kind: 'chart';
  id: string;
  title: string;
  spec: unknown;
}

export interface PlanBlock {
  kind: 'plan';
  id: string;
}

export interface NoteBlock {
  kind: 'note';
  id: string;
  note:
    | { type: 'critique'; data: CritiqueData }
    | { type: 'reflection'; iteration: number; score?: number; passed?: boolean; done: boolean }
    | { type: 'refining'; iteration: number }
    | { type: 'handoff'; from: string; to: string; done: boolean; outcome?: string }
    | { type: 'divergence'; data: ReplayDivergenceData }
    | { type: 'compressed'; data: CompressedData }
    | { type: 'memory'; count: number }
    | { type: 'guard'; data: GuardData };
}

export interface ErrorBlock {
  kind: 'error';
  id: string;
  data: ErrorData;
}

export type Block = TextBlock | ToolBlock | StageBlock | ChartBlock | PlanBlock | NoteBlock | ErrorBlock;

export interface TurnView {
  id: string;
  sessionId: string;
  seq: number;
  userMessage: string;
  state: TurnState;
  model: string;
  workflow: string;
  startedAt: string;
  completedAt: string | null;
  /** The last applied event's seq. */
  lastSeq: number;
  blocks: Block[];
  plan: PlanStep[];
  /** A model call is in flight. */
  thinking: boolean;
  /** The stage running now, if any. */
  stageId: string;
  finalText: string;
  termination: Termination | null;
  result: Result | null;
  /** True once the turn's detail or first events arrived. */
  loaded: boolean;
}

export function emptyTurn(id: string, over: Partial<TurnView> = {}): TurnView {
  return {
    id,
    sessionId: '',
    seq: 0,
    userMessage: '',
    state: 'running',
    model: '',
    workflow: '',
    startedAt: '',
    completedAt: null,
    lastSeq: 0,
    blocks: [],
    plan: [],
    thinking: false,
    stageId: '',
    finalText: '',
    termination: null,
    result: null,
    loaded: false,
    ...over,
  };
}

/** The answer text shown for the turn: the blocks' text, else the final text. */
export function answerText(t: TurnView): string {
  const parts = t.blocks.filter((b): b is TextBlock => b.kind === 'text').map((b) => b.text);
  const joined = parts.join('\n\n').trim();
  return joined || t.finalText;
}
