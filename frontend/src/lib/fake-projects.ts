// Projects for the fake backend (tests and `npm run dev`): the session
// list's filters and the settings' layers, computed as
// backend/store/project.go and backend/turn/settings.go do.
import type { Page, Resolved, RunSettings, Session } from './types';

/** One layer for resolveLayers: turn.Layer. */
export interface Layer {
  name: string;
  settings: RunSettings;
}

/** Whether a session passes a list's filters (Page), archived ones hidden unless asked for. */
export function passes(s: Session, p: Partial<Page>): boolean {
  if (p.project === '-' ? !!s.project_id : p.project && s.project_id !== p.project) return false;
  if (p.tag && !(s.tags ?? []).some((t) => t.toLowerCase() === p.tag!.replace(/^#/, '').trim().toLowerCase())) return false;
  if (p.archived_only) return !!s.archived_at;
  return !!p.archived || !s.archived_at;
}

const scalar = ['provider', 'model', 'workflow', 'instructions', 'temperature', 'top_p', 'max_tokens', 'seed', 'reasoning_effort'] as const;
const limitKeys = ['max_steps', 'max_tool_calls', 'token_budget', 'timeout', 'stall_threshold', 'max_tool_output'] as const;

/** Stacks layers, lowest first: turn.Resolve. */
export function resolveLayers(layers: Layer[]): Resolved {
  const out: RunSettings = {};
  const from: Record<string, string> = {};
  const set = out as Record<string, unknown>;
  for (const { name, settings: s } of layers) {
    const get = s as Record<string, unknown>;
    for (const k of scalar) {
      const v = get[k];
      if (v !== undefined && v !== null && v !== '') {
        set[k] = v;
        from[k] = name;
      }
    }
    for (const k of ['stop', 'mcp_servers'] as const) {
      if (s[k]) {
        out[k] = [...s[k]!];
        from[k] = name;
      }
    }
    for (const k of limitKeys) {
      const v = s.limits?.[k];
      if (v) {
        out.limits = {
          max_steps: 0,
          max_tool_calls: 0,
          token_budget: 0,
          timeout: 0,
          stall_threshold: 0,
          max_tool_output: 0,
          ...out.limits,
          [k]: v,
        };
        from[`limits.${k}`] = name;
      }
    }
  }
  return { settings: out, from };
}
