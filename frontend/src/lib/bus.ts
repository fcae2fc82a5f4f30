// The bus: everything the backend pushes to a UI (app/bus.go) arrives as
// one tagged message, {kind, data}: in the window as the one Wails event
// BUS_EVENT, in a browser as the messages of the /api/events stream. Both
// backends of api.ts hand each message to dispatch, which calls the
// handler of its kind; the union is discriminated by kind, so nothing is
// cast.
//
// A new kind of message: its kind and payload in Go (app/bus.go and the
// file that publishes it; the payload type in frontend/typegen's roots,
// then `make types`, which adds it to the generated Envelope union), then
// here its handler in BusHandlers and its case in dispatch. Nothing in api.ts or the fakes
// changes; a store passes the handler to subscribe.
// The payloads straight from the generated types, so a new one needs no
// line in types.ts.
import type { Envelope, EvalProgress, EventBatch, ExporterStatus, MessageKind, PendingApproval, TurnsChanged } from './generated';

/**
 * A message of the bus: its kind, and the payload of that kind. Generated
 * from app/bus.go's Envelope (frontend/typegen's unions), so a kind Go does
 * not have, or a payload of another kind's shape, does not compile.
 */
export type BusMessage = Envelope;

/** The one Wails event the window gets: app/desktop.go's BusEvent. */
export const BUS_EVENT = 'agentdeck:bus';

/** What a subscriber hears, by kind; every handler is optional. */
export interface BusHandlers {
  /** Live events of running turns, coalesced (kind events). */
  onEvents?: (batch: EventBatch) => void;
  /** A tool call waits for the person's answer (kind approval). */
  onApproval?: (p: PendingApproval) => void;
  /**
   * Events may have been missed: the backend dropped what this subscriber
   * fell behind on (kind resync), or the browser's stream reconnected after
   * a drop. Catch up from the last seq held.
   */
  onResync?: () => void;
  /** Turns whose state changed with no event: a dead process's turn marked interrupted (kind turns_changed). */
  onTurnsChanged?: (changes: TurnsChanged) => void;
  /** An evaluation run started from a window, as each case ends (kind eval_progress). */
  onEvalProgress?: (p: EvalProgress) => void;
  /** The OpenTelemetry export's state changed: sent, dropped, failing (kind traces). */
  onTraces?: (s: ExporterStatus) => void;
}

/** Every kind, once: a kind missing here or unknown to Go does not compile. */
const kinds: Record<MessageKind, true> = {
  events: true,
  approval: true,
  turns_changed: true,
  eval_progress: true,
  resync: true,
  traces: true,
};

/** Whether v, as decoded from the wire, is a message of a kind this page knows. */
export function isBusMessage(v: unknown): v is BusMessage {
  return typeof v === 'object' && v !== null && 'kind' in v && typeof v.kind === 'string' && Object.hasOwn(kinds, v.kind) && 'data' in v;
}

/** Calls the handler of msg's kind with its payload. */
export function dispatch(h: BusHandlers, msg: BusMessage): void {
  switch (msg.kind) {
    case 'events':
      h.onEvents?.(Array.isArray(msg.data) ? msg.data : []);
      break;
    case 'approval':
      if (msg.data) h.onApproval?.(msg.data);
      break;
    case 'turns_changed':
      if (Array.isArray(msg.data) && msg.data.length > 0) h.onTurnsChanged?.(msg.data);
      break;
    case 'eval_progress':
      if (msg.data) h.onEvalProgress?.(msg.data);
      break;
    case 'resync':
      h.onResync?.();
      break;
    case 'traces':
      if (msg.data?.status) h.onTraces?.(msg.data.status);
      break;
    default: {
      const _unknown: never = msg;
      void _unknown;
    }
  }
}
