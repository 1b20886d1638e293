/**
 * Room made beyond the need when the columns grow, and the share of slots removed fragments may
 * hold before they are reclaimed (at least MIN_COMPACT chunks): the memory budget counts the
 * live vectors, and the columns stay within about 1.25 / 0.75 of that (each growth or
 * compaction copies the workspace's vectors once: a few milliseconds per 10,000 chunks).
 */
const GROWTH = 1.25;
const COMPACT_SHARE = 0.25;
const MIN_COMPACT = 256;

/**
 * The chunk vectors of one workspace and one dimension, stored column by column:
 * `data[d * capacity + c]` is component d of chunk c, and a fragment's chunks are consecutive.
 * A query then reads each of its non-zero components as one sequential run over all chunks: a
 * sparse query (the built-in provider's: a few dozen of 384 components) touches a few percent
 * of the memory, where a vector per fragment made every chunk a handful of cache misses (at
 * 15,000 chunks, 1 ms of the scan was memory latency for a one-word query). A dense query
 * reads everything once, sequentially, like a row layout. A removed or replaced fragment
 * leaves its slots until they are a quarter of all, then the columns are compacted.
 */
export class VectorColumns {
  private capacity = 0;
  /** Chunk slots in use, removed fragments' included. */
  private used = 0;
  private removedChunks = 0;
  private data = new Float32Array(0);
  /** Per fragment slot: its id ('' once removed), first chunk and chunk count. */
  private ids: string[] = [];
  private firsts: number[] = [];
  private counts: number[] = [];
  private readonly slotOf = new Map<string, number>();

  constructor(readonly dim: number) {}

  /** Live chunks held. */
  get chunks(): number {
    return this.used - this.removedChunks;
  }

  get fragments(): number {
    return this.slotOf.size;
  }

  /** Holds a fragment's chunk vectors (unit length, packed one after the other), replacing what it held. */
  set(fragmentId: string, vectors: Float32Array): void {
    const dim = this.dim;
    const n = vectors.length / dim;
    if (!Number.isInteger(n) || n === 0)
      throw new Error(`vectors of ${vectors.length} floats are not chunks of ${dim}`);
    this.remove(fragmentId);
    this.reserve(this.used + n);
    const first = this.used;
    for (let k = 0; k < n; k++)
      for (let d = 0; d < dim; d++) this.data[d * this.capacity + first + k] = vectors[k * dim + d]!;
    this.slotOf.set(fragmentId, this.ids.length);
    this.ids.push(fragmentId);
    this.firsts.push(first);
    this.counts.push(n);
    this.used += n;
  }

  remove(fragmentId: string): void {
    const slot = this.slotOf.get(fragmentId);
    if (slot === undefined) return;
    this.slotOf.delete(fragmentId);
    this.ids[slot] = '';
    this.removedChunks += this.counts[slot]!;
    if (this.removedChunks >= MIN_COMPACT && this.removedChunks > this.used * COMPACT_SHARE)
      this.compact(this.capacity);
  }

  /**
   * Calls `visit` with each held fragment whose best chunk's dot product with `q` (a unit
   * vector of this dimension) reaches `threshold`. Zero components of `q` are skipped, so a
   * sparse query reads only its own columns. Sums are kept in doubles, like SQL's cosine.
   */
  scan(q: Float32Array, threshold: number, visit: (fragmentId: string, similarity: number) => void): void {
    const used = this.used;
    const capacity = this.capacity;
    const data = this.data;
    const sums = new Float64Array(used);
    // The non-zero components, four columns per pass: one load and store of each sum per four
    // products (a dense query ran 1.6x slower than a row layout one column at a time).
    const components: number[] = [];
    for (let d = 0; d < this.dim; d++) if (q[d] !== 0) components.push(d);
    let k = 0;
    for (; k + 4 <= components.length; k += 4) {
      const [d0, d1, d2, d3] = [components[k]!, components[k + 1]!, components[k + 2]!, components[k + 3]!];
      const [w0, w1, w2, w3] = [q[d0]!, q[d1]!, q[d2]!, q[d3]!];
      const [o0, o1, o2, o3] = [d0 * capacity, d1 * capacity, d2 * capacity, d3 * capacity];
      for (let c = 0; c < used; c++)
        sums[c]! += data[o0 + c]! * w0 + data[o1 + c]! * w1 + data[o2 + c]! * w2 + data[o3 + c]! * w3;
    }
    for (; k < components.length; k++) {
      const d = components[k]!;
      const w = q[d]!;
      const offset = d * capacity;
      for (let c = 0; c < used; c++) sums[c]! += data[offset + c]! * w;
    }
    const ids = this.ids;
    for (let slot = 0; slot < ids.length; slot++) {
      const id = ids[slot]!;
      if (id === '') continue;
      const first = this.firsts[slot]!;
      const end = first + this.counts[slot]!;
      let best = sums[first]!;
      for (let c = first + 1; c < end; c++) if (sums[c]! > best) best = sums[c]!;
      if (best >= threshold) visit(id, best);
    }
  }

  private reserve(chunks: number): void {
    if (chunks <= this.capacity) return;
    // Reclaiming removed slots may be enough; otherwise grow.
    const live = this.used - this.removedChunks;
    this.compact(Math.max(Math.ceil((live + chunks - this.used) * GROWTH), 16));
  }

  /** Copies the live fragments' chunks, in order, into columns of `capacity` slots. */
  private compact(capacity: number): void {
    const dim = this.dim;
    const data = new Float32Array(dim * capacity);
    const ids: string[] = [];
    const firsts: number[] = [];
    const counts: number[] = [];
    let used = 0;
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot]!;
      if (id === '') continue;
      const first = this.firsts[slot]!;
      const n = this.counts[slot]!;
      for (let d = 0; d < dim; d++)
        data.set(this.data.subarray(d * this.capacity + first, d * this.capacity + first + n), d * capacity + used);
      this.slotOf.set(id, ids.length);
      ids.push(id);
      firsts.push(used);
      counts.push(n);
      used += n;
    }
    this.data = data;
    this.capacity = capacity;
    this.ids = ids;
    this.firsts = firsts;
    this.counts = counts;
    this.used = used;
    this.removedChunks = 0;
  }
}
