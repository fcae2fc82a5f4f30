// How a turn of several stages is laid out: the work that led to the answer
// (drafts, critiques, reflections, steps) as sections, each under a label
// that says what it was, and the answer apart, marked as the answer. A turn
// of one stage is shown as it streamed.
import type { CritiqueData, StageResult } from '../types';
import { answerStageId, textOf, type Block, type StageBlock, type TurnView } from './turnview';

export interface Section {
  stageId: string;
  /** The stage's name in the workflow ("critique 1"). */
  name: string;
  agent: string;
  /** What the section was, for a person: "Draft 2", "Critique 1". */
  label: string;
  /** The verdict or outcome beside the label: "needs work, 40%". */
  verdict: string;
  /** Passed, failed or neither, for the verdict's colour. */
  tone: 'ok' | 'warn' | 'fail' | '';
  result?: StageResult;
  /** Everything the stage did, in order, without its stage marker. */
  blocks: Block[];
  running: boolean;
  /** Tool calls in the section, named in its summary so none is hidden. */
  toolCalls: number;
}

export interface Layout {
  /** More than one stage: sections and a marked answer. */
  staged: boolean;
  /** Blocks that belong to no stage (a plan made before any stage). */
  loose: Block[];
  /** The stages that led to the answer, in order. */
  work: Section[];
  /** The stage whose reply is the answer, once known. */
  answer: Section | null;
}

/** Lays out a turn's blocks by stage. */
export function layoutOf(v: TurnView): Layout {
  const stages = v.blocks.filter((b): b is StageBlock => b.kind === 'stage');
  if (stages.length < 2) return { staged: false, loose: v.blocks, work: [], answer: null };

  const byId = new Map<string, Section>();
  const order: Section[] = [];
  const counts = new Map<string, number>();
  const loose: Block[] = [];
  let current: Section | null = null;
  for (const b of v.blocks) {
    if (b.kind === 'stage') {
      current = section(b, v, counts);
      byId.set(b.stageId, current);
      order.push(current);
      continue;
    }
    // A block names its stage; one that does not belongs where it happened.
    const owner = (b.stageId && byId.get(b.stageId)) || current;
    if (!owner) {
      loose.push(b);
      continue;
    }
    owner.blocks.push(b);
    if (b.kind === 'tool') owner.toolCalls++;
    if (b.kind === 'note' && b.note.type === 'critique') describeCritique(owner, b.note.data);
    if (b.kind === 'note' && b.note.type === 'reflection' && b.note.done) {
      owner.verdict = verdictText(b.note.passed ? 'passed' : 'not yet', b.note.score);
      owner.tone = b.note.passed ? 'ok' : 'warn';
    }
  }
  const answerId = answerStageId(v);
  const answer = order.find((s) => s.stageId === answerId) ?? null;
  return { staged: true, loose, work: order.filter((s) => s !== answer), answer };
}

/** The text a section's Copy gives. */
export function sectionText(s: Section): string {
  return textOf(s.blocks);
}

function section(b: StageBlock, v: TurnView, counts: Map<string, number>): Section {
  const r = b.result;
  const failed = r && r.outcome && r.outcome !== 'succeeded';
  return {
    stageId: b.stageId,
    name: b.name,
    agent: b.agent,
    label: labelOf(b.name, counts),
    verdict: failed ? r.outcome : '',
    tone: failed ? 'fail' : '',
    result: r,
    blocks: [],
    running: !r && v.state === 'running',
    toolCalls: 0,
  };
}

/**
 * Names a stage for a person. Critique-revise writes, critiques and
 * revises: write is Draft 1 and revise n writes Draft n+1. Reflection
 * generates (Attempt n) and reflects. Plan-execute plans, runs steps and
 * finishes. Other stages keep their names, capitalised.
 */
function labelOf(name: string, counts: Map<string, number>): string {
  const n = (counts.get(kindOf(name)) ?? 0) + 1;
  counts.set(kindOf(name), n);
  const num = /\s(\d+)$/.exec(name)?.[1];
  if (name === 'write') return 'Draft 1';
  if (/^revise \d+$/.test(name)) return `Draft ${Number(num) + 1}`;
  if (/^critique \d+$/.test(name)) return `Critique ${num}`;
  if (/^reflect \d+$/.test(name)) return `Reflection ${num}`;
  if (name === 'generate') return `Attempt ${n}`;
  return name ? name.charAt(0).toUpperCase() + name.slice(1) : 'Stage';
}

function kindOf(name: string): string {
  return name.replace(/\s\d+$/, '');
}

function describeCritique(s: Section, d: CritiqueData) {
  s.verdict = verdictText(d.passed ? 'passed' : 'needs work', d.score);
  s.tone = d.passed ? 'ok' : 'warn';
}

function verdictText(word: string, score: number | undefined): string {
  if (score === undefined || score === null) return word;
  return `${word}, ${score <= 1 ? `${Math.round(score * 100)}%` : String(score)}`;
}
