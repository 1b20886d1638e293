import type { MessageInitShape } from '@bufbuild/protobuf';
import type { TokenUses, TokenUsesSchema } from '@kw/contracts';

/** Uses of one token gathered in memory: the latest one, and a count per UTC day (YYYY-MM-DD). */
export interface TokenUse {
  lastAt: Date;
  lastIp: string;
  requestsPerDay: Map<string, number>;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function toTokenUsesMessage(tokenId: string, use: TokenUse): MessageInitShape<typeof TokenUsesSchema> {
  return {
    tokenId,
    lastUsedAt: use.lastAt.toISOString(),
    lastUsedIp: use.lastIp,
    requestsPerDay: [...use.requestsPerDay].map(([day, requests]) => ({ day, requests })),
  };
}

/** The uses a gateway reported, or undefined when the message does not describe any. */
export function fromTokenUsesMessage(message: TokenUses): TokenUse | undefined {
  const lastAt = new Date(message.lastUsedAt);
  const days = message.requestsPerDay.filter((d) => DAY.test(d.day) && d.requests > 0);
  if (Number.isNaN(lastAt.getTime()) || days.length === 0) return undefined;
  return { lastAt, lastIp: message.lastUsedIp, requestsPerDay: new Map(days.map((d) => [d.day, d.requests])) };
}
