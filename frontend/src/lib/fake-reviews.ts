// The fake backend's human reviews: store.SaveReview, ReviewsFor,
// ListReviewed and ReviewLabels over the fake's turns, with the rules the
// store keeps (one review per turn and step; an empty one is removed;
// labels lower-cased, sorted, each once).
import { BackendError } from './api';
import type { LabelCount, Review, ReviewFilter, ReviewedTurn, Session, TurnDetail } from './types';

const empty = (r: Review) => !r.thumb && !r.score && !(r.labels ?? []).length && !r.note;

export function normalizeLabels(labels: readonly string[] | null | undefined): string[] {
  const out = new Set<string>();
  for (const l of labels ?? []) {
    const n = l.toLowerCase().split(/\s+/).filter(Boolean).join(' ');
    if (n) out.add(n);
  }
  return [...out].sort();
}

export class FakeReviews {
  private byKey = new Map<string, Review>();
  private n = 0;

  constructor(
    private turns: () => Map<string, TurnDetail>,
    private sessions: () => Session[],
  ) {}

  save(r: Review): Review {
    if (!this.turns().has(r.turn_id)) throw new BackendError('not_found', `There is no turn ${r.turn_id}: it may have been deleted.`);
    if (r.thumb < -1 || r.thumb > 1) throw new BackendError('invalid', `Thumb must be 1 (up), -1 (down) or 0, not ${r.thumb}.`);
    if (r.score < 0 || r.score > 5) throw new BackendError('invalid', `Score must be 1 to 5, or 0 for none, not ${r.score}.`);
    const key = `${r.turn_id}/${r.step}`;
    const now = new Date().toISOString();
    const clean: Review = { ...r, note: r.note.trim(), labels: normalizeLabels(r.labels) };
    if (empty(clean)) {
      this.byKey.delete(key);
      return { ...clean, id: '' };
    }
    const before = this.byKey.get(key);
    const saved: Review = { ...clean, id: before?.id ?? `review-${++this.n}`, created_at: before?.created_at ?? now, updated_at: now };
    this.byKey.set(key, saved);
    return structuredClone(saved);
  }

  of(turnIds: readonly string[]): Review[] {
    const ids = new Set(turnIds);
    return [...this.byKey.values()]
      .filter((r) => ids.has(r.turn_id))
      .sort((a, b) => a.turn_id.localeCompare(b.turn_id) || a.step.localeCompare(b.step))
      .map((r) => structuredClone(r));
  }

  list(f: ReviewFilter): ReviewedTurn[] {
    const sessions = new Map(this.sessions().map((s) => [s.id, s]));
    const label = normalizeLabels(f.label ? [f.label] : [])[0];
    const out: ReviewedTurn[] = [];
    const turns = [...this.turns().values()].sort((a, b) => b.started_at.localeCompare(a.started_at));
    for (const t of turns) {
      const s = sessions.get(t.session_id);
      if (!s || t.state === 'running' || (!f.evals && s.kind === 'eval')) continue;
      if (f.session_id && t.session_id !== f.session_id) continue;
      if (f.project && (f.project === '-' ? s.project_id : s.project_id !== f.project)) continue;
      if (f.since && t.started_at < f.since) continue;
      if (f.until && t.started_at >= f.until) continue;
      const reviews = this.of([t.id]);
      const match = reviews.filter(
        (r) =>
          (f.rated !== 'up' || r.thumb === 1) &&
          (f.rated !== 'down' || r.thumb === -1) &&
          (!f.min_score || r.score >= f.min_score) &&
          (!f.max_score || (r.score >= 1 && r.score <= f.max_score)) &&
          (!label || (r.labels ?? []).includes(label)),
      );
      const narrowed = f.rated === 'up' || f.rated === 'down' || f.min_score || f.max_score || label;
      if (f.rated === 'unreviewed' && reviews.length) continue;
      if ((f.rated === 'reviewed' || narrowed) && !match.length) continue;
      out.push({
        turn_id: t.id,
        session_id: t.session_id,
        session_title: s.title,
        project_id: s.project_id ?? '',
        seq: t.seq,
        state: t.state,
        model: t.model,
        workflow: t.workflow,
        started_at: t.started_at,
        user_message: t.user_message,
        answer: t.final_text.length > 600 ? t.final_text.slice(0, 600) + '…' : t.final_text,
        reviews,
      });
      if (out.length >= (f.limit || 200)) break;
    }
    return out;
  }

  labels(prefix: string): LabelCount[] {
    const p = prefix.trim().toLowerCase();
    const counts = new Map<string, number>();
    for (const r of this.byKey.values()) for (const l of r.labels ?? []) if (l.startsWith(p)) counts.set(l, (counts.get(l) ?? 0) + 1);
    return [...counts]
      .map(([label, count]) => ({ label, count }))
      .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label))
      .slice(0, 20);
  }
}
