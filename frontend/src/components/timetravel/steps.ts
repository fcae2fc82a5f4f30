// The steps of the turn a timeline shows, for its blocks: TurnItem puts
// them in the Svelte context, and a block's "Re-run from here" asks which
// step it is. None while the turn runs, or where re-running is not offered.
import { getContext, setContext } from 'svelte';
import type { TimelineStep } from '../../lib/types';

export interface TurnSteps {
  readonly turnId: string;
  /** The step a block of the timeline is (by block id), if any. */
  of(blockId: string): TimelineStep | undefined;
  /** The stage step of a workflow's stage (by stage id), if any. */
  stage(stageId: string): TimelineStep | undefined;
  /** Opens the editor at a step. */
  open(step: TimelineStep): void;
}

const key = Symbol('turn-steps');

export function setTurnSteps(s: TurnSteps) {
  setContext(key, s);
}

export function useTurnSteps(): TurnSteps | undefined {
  return getContext<TurnSteps | undefined>(key);
}
