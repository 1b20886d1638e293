// Generated notes for the benchmarks: Markdown with headings, lists and paragraphs of varying
// length, over a vocabulary of deterministic pseudo-words plus real technical terms drawn
// from a Zipf-like distribution, so that (as on real notes) a common word is in a good share
// of the documents and a rare one in a handful: full-text queries are selective. Everything
// is seeded: the same run size gives the same corpus and the same queries.

/** A small fast seeded PRNG (mulberry32): numbers in [0, 1). */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const TECH = (
  'postgres postgresql index query vector search cluster kubernetes deploy deployment latency cache memory graph entity token session invoice customer support ' +
  'backlog sprint review benchmark python rust typescript javascript golang java kotlin swift network storage backup replica shard schema migration feature ' +
  'flag experiment metric dashboard alert pager onboarding hiring contract privacy incident outage postmortem runbook rollback canary rollout release ' +
  'roadmap milestone docker container image registry helm terraform ansible prometheus grafana loki tempo jaeger opentelemetry tracing logging nginx envoy ' +
  'istio linkerd ingress gateway proxy loadbalancer dns certificate tls oauth oidc saml jwt webhook queue kafka rabbitmq nats jetstream redis memcached ' +
  'elasticsearch opensearch qdrant pgvector embedding tokenizer transformer llm prompt inference finetuning dataset pipeline airflow dagster spark flink ' +
  'snowflake bigquery redshift clickhouse duckdb parquet avro protobuf grpc graphql rest openapi swagger fastify nestjs express react nextjs svelte vue ' +
  'tailwind webpack vite esbuild swc babel eslint prettier vitest jest playwright cypress selenium github gitlab bitbucket jenkins circleci buildkite ' +
  'argocd flux kustomize namespace pod daemonset statefulset cronjob configmap secret vault kms iam rbac acl firewall vpc subnet peering nat bastion ' +
  'ssh sftp s3 minio gcs azure aws gcp lambda fargate ec2 rds aurora dynamodb cosmos spanner cockroachdb yugabyte sqlite pglite wal vacuum autovacuum ' +
  'checkpoint replication failover quorum raft paxos consensus leader follower partition rebalance throughput backpressure ratelimit retry idempotency ' +
  'deduplication outbox saga transaction isolation deadlock mutex semaphore goroutine thread coroutine async await promise callback eventloop heap stack ' +
  'garbage allocator profiler flamegraph cpu gpu cuda numa hugepages kernel syscall epoll io_uring filesystem ext4 xfs zfs btrfs raid ssd nvme iops ' +
  'bandwidth jitter packet tcp udp quic http2 http3 websocket sse cors csrf xss sqli owasp pentest audit compliance gdpr soc2 hipaa retention encryption ' +
  'hashing bcrypt argon2 sha256 hmac signature keypair rotation secretbox budget forecast revenue churn cohort funnel conversion pricing discount ' +
  'subscription billing refund chargeback stripe ledger reconciliation payroll expense procurement vendor legal trademark patent licensing ' +
  'apache mit gpl changelog semver monorepo nx bazel gradle maven cargo npm pnpm yarn lockfile dependency vulnerability cve sbom supplychain sigstore ' +
  'accessibility localization translation timezone unicode utf8 markdown frontmatter wiki notion confluence jira linear slack standup retro okr kpi'
).split(' ');

const STOP =
  'the a an and of to in for on with is are was be this that it as by from at or we our not but can will should when which into about after before then also'.split(
    ' ',
  );
const ONSETS = [
  'b',
  'br',
  'c',
  'ch',
  'd',
  'dr',
  'f',
  'fl',
  'g',
  'gr',
  'h',
  'j',
  'k',
  'kr',
  'l',
  'm',
  'n',
  'p',
  'pl',
  'qu',
  'r',
  's',
  'sk',
  'st',
  't',
  'tr',
  'v',
  'w',
  'z',
];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou', 'y'];
const CODAS = ['', '', '', 'n', 'r', 'l', 's', 'x', 'th', 'nd', 'rk'];

/** Pseudo-words: 2-3 syllables, deterministic and unique (never an English stop word). */
function pseudoWords(count, random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const seen = new Set([...TECH, ...STOP]);
  const out = [];
  while (out.length < count) {
    const syllables = 2 + Math.floor(random() * 2);
    let word = '';
    for (let i = 0; i < syllables; i++) word += pick(ONSETS) + pick(NUCLEI) + (i === syllables - 1 ? pick(CODAS) : '');
    if (!seen.has(word)) {
      seen.add(word);
      out.push(word);
    }
  }
  return out;
}

/**
 * The vocabulary by rank (0 = most frequent), technical terms spread over all ranks, and a
 * sampler with P(rank r) proportional to 1 / (r + 1)^s.
 */
export function vocabulary({ size = 4000, s = 1.0, seed = 7 } = {}) {
  const random = rng(seed);
  const words = [...pseudoWords(size - TECH.length, random), ...TECH];
  for (let i = words.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [words[i], words[j]] = [words[j], words[i]];
  }
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let r = 0; r < words.length; r++) cumulative[r] = total += 1 / (r + 1) ** s;
  const sampleRank = (u) => {
    const target = u * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { words, sampleRank, isTech: (w) => TECH.includes(w) };
}

/** A generator of notes: `next()` gives {title, content, summary, tags}; seeded, so reproducible. */
export function notes({ seed = 42, vocab = vocabulary() } = {}) {
  const random = rng(seed);
  const { words, sampleRank } = vocab;
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const cap = (w) => w[0].toUpperCase() + w.slice(1);
  return {
    next() {
      // A note keeps returning to its few topic words, as a real note does.
      // Topic words are drawn log-uniformly over the ranks: mostly mid-frequency and rare words.
      const topic = Array.from({ length: 4 }, () => words[Math.floor(Math.exp(random() * Math.log(words.length)))]);
      const word = () => (random() < 0.15 ? topic[int(0, topic.length - 1)] : words[sampleRank(random())]);
      const phrase = (n) =>
        Array.from({ length: n }, (_, i) =>
          i > 0 && random() < 0.35 ? `${STOP[int(0, STOP.length - 1)]} ${word()}` : word(),
        ).join(' ');
      const sentence = () => {
        let text = phrase(int(4, 16));
        if (random() < 0.1) text += ` \`${word()}\``;
        return `${cap(text)}.`;
      };
      const paragraph = () => Array.from({ length: int(1, 5) }, sentence).join(' ');
      const list = () => {
        const ordered = random() < 0.3;
        return Array.from(
          { length: int(2, 6) },
          (_, i) => `${ordered ? `${i + 1}.` : '-'} ${cap(phrase(int(2, 9)))}`,
        ).join('\n');
      };
      // Note length is skewed: most are short, a few are long (several chunks).
      const blocks = Math.min(24, 1 + Math.floor(-Math.log(1 - random()) * 2));
      const parts = [];
      for (let b = 0; b < blocks; b++) {
        if (b > 0 && random() < 0.25) parts.push(`## ${cap(phrase(int(2, 5)))}`);
        parts.push(random() < 0.3 ? list() : paragraph());
      }
      const title = cap(`${topic[0]} ${phrase(int(2, 6))}`);
      return { title, content: parts.join('\n\n'), summary: sentence(), tags: [topic[0], topic[1]] };
    },
  };
}

/**
 * Search queries mixing common, mid-frequency and rare terms, alone and in pairs
 * (websearch_to_tsquery: all terms must match). Ranks refer to the vocabulary above.
 */
export function queries(count, { seed = 99, vocab = vocabulary() } = {}) {
  const random = rng(seed);
  const { words } = vocab;
  const at = (lo, hi) => words[lo + Math.floor(random() * (hi - lo))];
  const common = () => at(5, 60);
  const mid = () => at(200, 900);
  const rare = () => at(1500, words.length);
  const shapes = [
    () => common(),
    () => mid(),
    () => rare(),
    () => `${common()} ${mid()}`,
    () => `${common()} ${rare()}`,
    () => `${mid()} ${mid()}`,
    () => `${common()} ${common()}`,
  ];
  return Array.from({ length: count }, (_, i) => shapes[i % shapes.length]());
}

/**
 * Sentence-long questions (10-30 words) over the corpus's vocabulary, as agents ask them: a few
 * function words around mid-frequency and rare terms.
 */
export function sentenceQueries(count, { seed = 23, vocab = vocabulary() } = {}) {
  const random = rng(seed);
  return Array.from({ length: count }, () => {
    const length = 10 + Math.floor(random() * 21);
    const parts = [];
    for (let i = 0; i < length; i++) parts.push(queryWord(random, vocab.words));
    return parts.join(' ');
  });
}

/**
 * Pasted passages (a page, an argument whose like is wanted): 75-100% of maxChars (the longest
 * query search takes, SEARCH_QUERY_MAX) in the words of sentenceQueries.
 */
export function passageQueries(count, { seed = 29, vocab = vocabulary(), maxChars = 8_000 } = {}) {
  const random = rng(seed);
  return Array.from({ length: count }, () => {
    const target = maxChars * (0.75 + random() * 0.25);
    const parts = [];
    let length = -1;
    for (;;) {
      const word = queryWord(random, vocab.words);
      if (length + 1 + word.length > target) return parts.join(' ');
      parts.push(word);
      length += 1 + word.length;
    }
  });
}

const GLUE = ['how', 'does', 'the', 'of', 'in', 'for', 'what', 'is', 'with', 'and', 'when', 'to', 'a', 'about'];

/** A word of a question: glue 40% of the time, else a vocabulary word, log-uniform by rank (most are rare). */
function queryWord(random, words) {
  return random() < 0.4
    ? GLUE[Math.floor(random() * GLUE.length)]
    : words[Math.floor(Math.exp(Math.log(5) + random() * (Math.log(words.length) - Math.log(5))))];
}
