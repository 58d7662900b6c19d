// What the store keeps: the chat list, the badge, the orders list's first
// page, and the most recently shown chats and orders. Past a kind's limit
// the least recently shown go first.

export const defaultLimits = { chats: 1, badge: 1, orders: 1, chat: 30, order: 30 };

/**
 * The topics to delete from `entries` (`{topic, shownAt}`) so that each kind
 * keeps at most its limit; a kind without a limit keeps nothing.
 */
export function evictions(entries, limits = defaultLimits) {
  const byKind = new Map();
  for (const entry of entries) {
    const kind = entry.topic.split(":")[0];
    if (!byKind.has(kind)) byKind.set(kind, []);
    byKind.get(kind).push(entry);
  }
  const evicted = [];
  for (const [kind, kept] of byKind) {
    kept.sort((a, b) => b.shownAt - a.shownAt);
    for (const entry of kept.slice(limits[kind] ?? 0)) evicted.push(entry.topic);
  }
  return evicted;
}
