// Friendly names of tools for their cards, with what they were asked
// when it says more than the arguments' JSON: "Searched the documents for
// “revenue 2024”". A tool not here shows its name only.
type Args = Record<string, unknown>;

const LABELS: Record<string, (a: Args) => string> = {
  search_knowledge: (a) => (typeof a.query === 'string' && a.query ? `Search documents for “${clip(a.query)}”` : 'Search documents'),
  fetch_url: (a) => (typeof a.url === 'string' && a.url ? `Read web page ${clip(a.url)}` : 'Read web page'),
};

/** The card's label for a call of tool name with args ('' for a tool without one). */
export function toolLabel(name: string, args: unknown): string {
  const f = LABELS[name];
  if (!f) return '';
  let a: unknown = args;
  if (typeof a === 'string') {
    try {
      a = JSON.parse(a);
    } catch {
      a = {};
    }
  }
  return f(a && typeof a === 'object' ? (a as Args) : {});
}

function clip(s: string): string {
  return s.length > 80 ? s.slice(0, 79) + '…' : s;
}
