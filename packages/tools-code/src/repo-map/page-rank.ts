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
 * A graph over nodes 0…count-1 in compressed rows: the edges of node `n` are
 * `targets[offsets[n]…offsets[n+1]]` with the matching `shares` (weights divided by the node's
 * total outgoing weight).
 */
export interface CompressedGraph {
  count: number;
  offsets: Int32Array;
  targets: Int32Array;
  shares: Float64Array;
}

/** Builds the compressed form from per-node weighted edge maps (kept in insertion order). */
export function compressGraph(
  count: number,
  edges: readonly (Map<number, number> | undefined)[],
): CompressedGraph {
  let total = 0;
  for (const targets of edges) total += targets?.size ?? 0;
  const offsets = new Int32Array(count + 1);
  const targets = new Int32Array(total);
  const shares = new Float64Array(total);
  let position = 0;
  for (let node = 0; node < count; node++) {
    offsets[node] = position;
    const nodeEdges = edges[node];
    if (nodeEdges === undefined || nodeEdges.size === 0) continue;
    let sum = 0;
    for (const weight of nodeEdges.values()) sum += weight;
    for (const [to, weight] of nodeEdges) {
      targets[position] = to;
      shares[position] = weight / sum;
      position++;
    }
  }
  offsets[count] = position;
  return { count, offsets, targets, shares };
}

/**
 * Weighted PageRank (damping 0.85) over a compressed graph: a node is central when central nodes
 * depend on it. Rank of nodes without outgoing edges is spread evenly, so the ranks sum to 1.
 */
export function pageRankCompressed(graph: CompressedGraph, iterations = 30, damping = 0.85): Float64Array {
  const { count, offsets, targets, shares } = graph;
  let current = new Float64Array(count).fill(1 / count);
  let next = new Float64Array(count);
  for (let iteration = 0; iteration < iterations; iteration++) {
    next.fill(0);
    let dangling = 0;
    for (let node = 0; node < count; node++) {
      const start = offsets[node]!;
      const end = offsets[node + 1]!;
      const rank = current[node]!;
      if (start === end) {
        dangling += rank;
        continue;
      }
      for (let edge = start; edge < end; edge++) next[targets[edge]!]! += rank * shares[edge]!;
    }
    const base = (1 - damping) / count + (damping * dangling) / count;
    for (let node = 0; node < count; node++) next[node] = base + damping * next[node]!;
    [current, next] = [next, current];
  }
  return current;
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
  const rank = new Map<string, number>();
  if (nodes.length === 0) return rank;
  const index = new Map(nodes.map((node, position) => [node, position]));
  const edges = nodes.map((node) => {
    const indexed = new Map<number, number>();
    for (const [to, weight] of graph.get(node) ?? []) {
      const target = index.get(to);
      if (target !== undefined) indexed.set(target, weight);
    }
    return indexed;
  });
  const ranks = pageRankCompressed(compressGraph(nodes.length, edges), iterations, damping);
  for (const [position, node] of nodes.entries()) rank.set(node, ranks[position]!);
  return rank;
}
