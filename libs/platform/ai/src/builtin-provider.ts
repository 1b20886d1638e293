import type { AiProvider, GraphExtraction } from './ai-provider.js';
import { hashEmbedding } from './feature-hashing.js';
import { extractGraphByPatterns } from './pattern-entities.js';
import { contentWords, sentences } from './text-analysis.js';

const SUMMARY_SENTENCES = 3;
const SUMMARY_MAX_CHARS = 500;

/**
 * The default provider: no network, no model, deterministic. Extractive summary (sentences
 * with the most frequent content words, in text order), keyword tags (hashtags first, then
 * frequent content words), feature-hashing embeddings and pattern-based entities.
 */
export class BuiltinAiProvider implements AiProvider {
  readonly name = 'builtin';

  async summarize(text: string): Promise<string> {
    const all = sentences(text);
    if (all.length <= SUMMARY_SENTENCES) return clip(all.join(' '), SUMMARY_MAX_CHARS);
    const frequency = countWords(contentWords(text));
    const scored = all.map((sentence, index) => {
      const ws = contentWords(sentence);
      const score = ws.reduce((sum, w) => sum + (frequency.get(w) ?? 0), 0) / Math.sqrt(ws.length + 1);
      return { sentence, index, score: score + (index === 0 ? 0.5 : 0) };
    });
    const chosen = [...scored].sort((a, b) => b.score - a.score || a.index - b.index).slice(0, SUMMARY_SENTENCES);
    return clip(
      chosen
        .sort((a, b) => a.index - b.index)
        .map((s) => s.sentence)
        .join(' '),
      SUMMARY_MAX_CHARS,
    );
  }

  async generateTags(text: string, max: number): Promise<string[]> {
    const hashtags = [...text.matchAll(/(?<![\w#])#([\p{L}][\p{L}\p{N}_-]{1,49})/gu)].map((m) => m[1].toLowerCase());
    const frequency = countWords(contentWords(text.replace(/https?:\/\/\S+/g, ' ')));
    // A "word" of more than 50 characters (a key, a hash, a blob) is not a topic.
    const keywords = [...frequency.entries()]
      .filter(([w]) => w.length <= 50)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([w]) => w);
    return [...new Set([...hashtags, ...keywords])].slice(0, max);
  }

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => hashEmbedding(t));
  }

  async extractGraph(text: string): Promise<GraphExtraction> {
    return extractGraphByPatterns(text);
  }
}

function countWords(list: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of list) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}
