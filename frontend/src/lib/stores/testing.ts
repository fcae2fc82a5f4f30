// Helpers for the stores' tests (imported by tests only).
import { get } from 'svelte/store';
import type { Backend } from '../api';
import type { Turn } from '../types';
import type { App } from './app';
import { createConversation } from './conversation';
import { createSessions } from './sessions';
import { TurnStore } from './turns.svelte';

/** The open session's turns as stored rows, oldest first. */
export function rowsOf(app: Pick<App, 'conversation' | 'turns'>): Turn[] {
  return get(app.conversation).ids.map((id) => app.turns.summary(id)!);
}

/** A conversation with its own sessions and turn stores. */
export function conversationOf(b: Backend) {
  const turns = new TurnStore(b);
  const conversation = createConversation(b, createSessions(b), turns);
  return { conversation, turns, rows: () => rowsOf({ conversation, turns }) };
}
