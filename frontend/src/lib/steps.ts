// A stored turn's steps as the window shows them (backend/timeline): their
// labels, and which block of a turn's timeline is which step.
import type { TimelineStep } from './types';
import type { Block, TurnView } from './stores/turnview';

/** A step as a person reads it, as timeline.Step.Label: "Tool result 2: search_knowledge". */
export function stepLabel(s: Pick<TimelineStep, 'kind' | 'n' | 'stage' | 'tool'>): string {
  const where = s.stage ? ` (${s.stage})` : '';
  switch (s.kind) {
    case 'stage':
      return `Stage ${s.n}${where}`;
    case 'call':
      return `Model call ${s.n}${where}`;
    case 'tool':
      return `Tool result ${s.n}: ${s.tool || 'tool'}${where}`;
    default:
      return 'Start of the turn';
  }
}

/** The same label in a sentence ("tool result 2: search_knowledge"): the first letter lowered. */
export function stepPhrase(s: Pick<TimelineStep, 'kind' | 'n' | 'stage' | 'tool'>): string {
  if (s.kind === 'start') return 'the start of the turn';
  const l = stepLabel(s);
  return l.charAt(0).toLowerCase() + l.slice(1);
}

/** A step named by its id alone, while its turn's steps are not read: "tool result 2". */
export function phraseOfId(id: string, steps: readonly TimelineStep[] = []): string {
  const s = steps.find((x) => x.id === id);
  if (s) return stepPhrase(s);
  const m = /^(stage|call|tool)(\d+)$/.exec(id);
  if (!m) return id === 'start' ? 'the start of the turn' : id;
  return `${{ stage: 'stage', call: 'model call', tool: 'tool result' }[m[1] as 'stage' | 'call' | 'tool']} ${m[2]}`;
}

/** What an edit kind is called in the timeline ("tool result"); '' for none. */
export function editName(kind: string | undefined): string {
  const names: Record<string, string> = {
    message: 'message',
    system_prompt: 'system prompt',
    tool_result: 'tool result',
    reply: 'reply',
    settings: 'settings',
    stage: 'stage settings',
  };
  return kind ? (names[kind] ?? kind) : '';
}

/** Which step each block of a turn's timeline is, by block id. */
export function stepsOfBlocks(view: Pick<TurnView, 'blocks'>, steps: readonly TimelineStep[]): Map<string, TimelineStep> {
  const out = new Map<string, TimelineStep>();
  const blocks = view.blocks;
  const taken = new Set<string>();
  for (const s of steps) {
    if (s.kind === 'stage') {
      const b = blocks.find((x) => x.kind === 'stage' && x.id === s.event_id);
      if (b) out.set(b.id, s);
    } else if (s.kind === 'call') {
      const b = lastOf(blocks, (x) => (x.kind === 'text' || x.kind === 'thinking') && !!x.call && x.call === s.event_id);
      if (b) out.set(b.id, s);
    } else if (s.kind === 'tool') {
      // Models may reuse a call id across calls: the k-th result with an
      // id is the k-th card with it.
      const b = blocks.find((x) => x.kind === 'tool' && x.callId === (s.call_id ?? '') && !taken.has(x.id));
      if (b) {
        taken.add(b.id);
        out.set(b.id, s);
      }
    }
  }
  return out;
}

/** The stage step of a stage (by its stage id), for a workflow's section. */
export function stageStep(steps: readonly TimelineStep[], stageId: string): TimelineStep | undefined {
  return steps.find((s) => s.kind === 'stage' && s.stage_id === stageId);
}

function lastOf(blocks: readonly Block[], pred: (b: Block) => boolean): Block | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) if (pred(blocks[i]!)) return blocks[i];
  return undefined;
}
