/** A weighted directed graph of files: `edges.get(from).get(to)` is the weight of from → to. */
export type FileGraph = Map<string, Map<string, number>>;

export function addEdge(graph: FileGraph, from: string, to: string, weight: number): void {
  if (from === to) return;
  let targets = graph.get(from);
  if (targets === undefined) {
    targets = new Map();
    graph.set(from, targets);
  }
  targets.set(to, (targets.get(to) ?? 0) + weight);
}

/**
 * Weighted PageRank (damping 0.85) over `nodes`: a file is central when central files depend on
 * it. Rank of files without outgoing edges is spread evenly, so the ranks sum to 1.
 */
export function pageRank(
  nodes: readonly string[],
  graph: FileGraph,
  iterations = 30,
  damping = 0.85,
): Map<string, number> {
  const count = nodes.length;
  const rank = new Map<string, number>();
  if (count === 0) return rank;
  const index = new Map(nodes.map((node, position) => [node, position]));
  const outgoing: { to: number; share: number }[][] = nodes.map((node) => {
    const targets = [...(graph.get(node) ?? [])].filter(([to]) => index.has(to));
    const total = targets.reduce((sum, [, weight]) => sum + weight, 0);
    return targets.map(([to, weight]) => ({ to: index.get(to)!, share: weight / total }));
  });
  let current = new Float64Array(count).fill(1 / count);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const next = new Float64Array(count);
    let dangling = 0;
    for (let node = 0; node < count; node++) {
      const edges = outgoing[node]!;
      if (edges.length === 0) {
        dangling += current[node]!;
        continue;
      }
      for (const edge of edges) next[edge.to]! += current[node]! * edge.share;
    }
    const base = (1 - damping) / count + (damping * dangling) / count;
    for (let node = 0; node < count; node++) next[node] = base + damping * next[node]!;
    current = next;
  }
  for (const [position, node] of nodes.entries()) rank.set(node, current[position]!);
  return rank;
}
