// Projects for the fake backend (tests and `npm run dev`): the session
// list's filters and the settings' layers, computed as
// backend/store/project.go and backend/turn/settings.go do.
import type { Page, Session } from './types';

export { resolveLayers, type Layer } from './runsettings';

/** Whether a session passes a list's filters (Page), archived ones hidden unless asked for. */
export function passes(s: Session, p: Partial<Page>): boolean {
  if (p.project === '-' ? !!s.project_id : p.project && s.project_id !== p.project) return false;
  if (p.tag && !(s.tags ?? []).some((t) => t.toLowerCase() === p.tag!.replace(/^#/, '').trim().toLowerCase())) return false;
  if (p.archived_only) return !!s.archived_at;
  return !!p.archived || !s.archived_at;
}
