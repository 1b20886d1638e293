import type { ExtractedEntity, ExtractedRelation, GraphExtraction } from './ai-provider.js';
import { paragraphs } from './text-analysis.js';

const TECHNOLOGIES = [
  'TypeScript',
  'JavaScript',
  'Node.js',
  'Python',
  'Rust',
  'Go',
  'Java',
  'Kotlin',
  'Swift',
  'Ruby',
  'PHP',
  'C#',
  'C++',
  'React',
  'Vue',
  'Angular',
  'Svelte',
  'Next.js',
  'NestJS',
  'Express',
  'Django',
  'Flask',
  'Rails',
  'Spring',
  'PostgreSQL',
  'Postgres',
  'MySQL',
  'SQLite',
  'MongoDB',
  'Redis',
  'Elasticsearch',
  'Qdrant',
  'pgvector',
  'Kafka',
  'NATS',
  'RabbitMQ',
  'Docker',
  'Kubernetes',
  'Terraform',
  'AWS',
  'Azure',
  'GCP',
  'Linux',
  'GraphQL',
  'gRPC',
  'Protobuf',
  'OpenAI',
  'Prisma',
  'Git',
  'GitHub',
];
const TECH_PATTERN = new RegExp(
  `(?<![\\w.#+-])(${TECHNOLOGIES.map((t) => t.replace(/[.+#]/g, (c) => `\\${c}`)).join('|')})(?![\\w#+-])`,
  'g',
);

const PATTERNS: Array<{ kind: ExtractedEntity['kind']; pattern: RegExp }> = [
  { kind: 'email', pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g },
  { kind: 'url', pattern: /\bhttps?:\/\/[^\s<>()"']+[^\s<>()"'.,;:!?]/g },
  { kind: 'handle', pattern: /(?<![\w@.])@[A-Za-z0-9_]{2,39}\b/g },
  { kind: 'hashtag', pattern: /(?<![\w#])#[\p{L}][\p{L}\p{N}_-]{1,49}/gu },
  // Two or more capitalised words: "Ada Lovelace", "Knowledge Workspace Platform".
  { kind: 'name', pattern: /\b\p{Lu}[\p{Ll}\p{N}]+(?:[ \t]+\p{Lu}[\p{Ll}\p{N}]+)+\b/gu },
];

/** The key an entity is deduplicated on (graph_entities.normalized_name). */
export function normalizeEntityName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, ' ');
}

function entitiesIn(text: string): ExtractedEntity[] {
  const found = new Map<string, ExtractedEntity>();
  const keep = (entity: ExtractedEntity) => {
    const key = `${entity.kind}\u0000${normalizeEntityName(entity.name)}`;
    if (!found.has(key)) found.set(key, entity);
  };
  // URLs and e-mails first; their text is blanked so a domain is not also read as a handle.
  let rest = text;
  for (const { kind, pattern } of PATTERNS) {
    for (const match of rest.matchAll(pattern)) keep({ kind, name: match[0] });
    if (kind === 'email' || kind === 'url') rest = rest.replace(pattern, (m) => ' '.repeat(m.length));
  }
  for (const match of rest.matchAll(TECH_PATTERN)) keep({ kind: 'technology', name: match[1] });
  return [...found.values()];
}

const MAX_ENTITIES_PER_PARAGRAPH = 12;

/**
 * Pattern-based graph extraction: entities by pattern, and a `co_occurs` relation between
 * entities of the same paragraph (capped per paragraph so a long list does not explode).
 */
export function extractGraphByPatterns(text: string): GraphExtraction {
  const all = new Map<string, ExtractedEntity>();
  const relations = new Map<string, ExtractedRelation>();
  for (const paragraph of paragraphs(text)) {
    const entities = entitiesIn(paragraph).slice(0, MAX_ENTITIES_PER_PARAGRAPH);
    for (const e of entities)
      all.set(
        `${e.kind}\u0000${normalizeEntityName(e.name)}`,
        all.get(`${e.kind}\u0000${normalizeEntityName(e.name)}`) ?? e,
      );
    for (let i = 0; i < entities.length; i++) {
      for (let j = i + 1; j < entities.length; j++) {
        const [source, target] = [entities[i], entities[j]].sort((a, b) =>
          `${a.kind}:${normalizeEntityName(a.name)}`.localeCompare(`${b.kind}:${normalizeEntityName(b.name)}`),
        );
        const key = `${source.kind}:${normalizeEntityName(source.name)}|${target.kind}:${normalizeEntityName(target.name)}`;
        if (!relations.has(key)) relations.set(key, { source, target, kind: 'co_occurs' });
      }
    }
  }
  return { entities: [...all.values()], relations: [...relations.values()] };
}
