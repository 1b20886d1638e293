/**
 * How files search ranks extracted text: Okapi BM25 over each chunk (a file scores by its best
 * chunk), with the k1 and b of BEIR's and Anserini's BM25 baselines, the values workspace search
 * uses for fragments. Chunks are cut to about the same size, so length normalisation matters less
 * here than for fragments, but a file's last, short chunk should not win by being short alone.
 */
export const CHUNK_BM25_K1 = 0.9;
export const CHUNK_BM25_B = 0.4;
