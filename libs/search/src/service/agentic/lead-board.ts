export interface Lead {
  fragmentId: string;
  title: string;
  why: string;
  score: number;
}

/**
 * Collects candidates from several retrievals: one entry per fragment, scores summed, reasons
 * listed once. A search hit comes without its title (the leads' texts are read once, for the
 * best); a graph reference brings one.
 */
export class LeadBoard {
  private readonly leads = new Map<string, { title: string; score: number; reasons: string[] }>();

  get size(): number {
    return this.leads.size;
  }

  add(fragment: { id: string; title?: string }, score: number, reason: string): void {
    const lead = this.leads.get(fragment.id) ?? { title: '', score: 0, reasons: [] };
    lead.title ||= fragment.title ?? '';
    lead.score += score;
    if (!lead.reasons.includes(reason)) lead.reasons.push(reason);
    this.leads.set(fragment.id, lead);
  }

  /** Every fragment on the board. */
  ids(): string[] {
    return [...this.leads.keys()];
  }

  /** Takes a fragment off the board (one the query excludes). */
  remove(id: string): void {
    this.leads.delete(id);
  }

  /** The best leads, by score then title and id (stable for equal scores). */
  top(limit: number): Lead[] {
    return [...this.leads]
      .map(([fragmentId, l]) => ({
        fragmentId,
        title: l.title,
        why: l.reasons.join('; '),
        score: Math.round(l.score * 1000) / 1000,
      }))
      .sort((a, b) => b.score - a.score || a.title.localeCompare(b.title) || a.fragmentId.localeCompare(b.fragmentId))
      .slice(0, limit);
  }
}
