/** A foreign key from `child` (the referencing table) to `parent` (the referenced one), as pg_constraint has it. */
export interface ForeignKeyEdge {
  child: string;
  parent: string;
}

/**
 * Tables in an order that loads parents before children (a topological sort of the foreign keys;
 * alphabetical among tables that are free at the same time, so the order is stable). A table that
 * references itself is fine (its rows come in one COPY); a cycle between tables cannot be loaded
 * table by table without deferring constraints, and is refused.
 */
export function restoreOrder(tables: string[], edges: ForeignKeyEdge[]): string[] {
  const included = new Set(tables);
  const parents = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  for (const { child, parent } of edges) {
    if (child === parent || !included.has(child) || !included.has(parent)) continue;
    parents.get(child)!.add(parent);
  }
  const order: string[] = [];
  const placed = new Set<string>();
  while (order.length < tables.length) {
    const ready = tables.filter((t) => !placed.has(t) && [...parents.get(t)!].every((p) => placed.has(p))).sort();
    if (ready.length === 0) {
      const stuck = tables.filter((t) => !placed.has(t)).sort();
      throw new Error(`foreign keys form a cycle between ${stuck.join(', ')}: cannot order them for a restore`);
    }
    for (const t of ready) {
      order.push(t);
      placed.add(t);
    }
  }
  return order;
}

/** The first table (if any) that `order` puts before one of its parents, judged by `edges`. */
export function firstOrderViolation(order: string[], edges: ForeignKeyEdge[]): ForeignKeyEdge | undefined {
  const position = new Map(order.map((t, i) => [t, i]));
  return edges.find(({ child, parent }) => {
    const c = position.get(child);
    const p = position.get(parent);
    return child !== parent && c !== undefined && p !== undefined && p > c;
  });
}
