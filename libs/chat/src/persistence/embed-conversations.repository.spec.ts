import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migratedTestDatabase, type MigratedTestDatabase } from '../../../../test/support/postgres.js';
import { describeWith } from '../../../../test/support/services.js';
import { EmbedConversationsRepository } from './embed-conversations.repository.js';

/**
 * A stored conversation's turns on real Postgres with a pool of several connections: turns
 * stored at the same instant get consecutive sequence numbers, each turn whole, and the history
 * reads back in order.
 */
describeWith(['postgres'], 'embed conversations (stored turns)', () => {
  let pool: pg.Pool;
  let database: MigratedTestDatabase<'control'>;
  let repository: EmbedConversationsRepository;
  const configId = randomUUID();
  const userId = randomUUID();

  beforeAll(async () => {
    database = await migratedTestDatabase('kw_embed_turns', 'control', 6);
    pool = database.pool;
    await pool.query(
      `INSERT INTO control.embed_configs (id, created_by, workspace_id, name, updated_at) VALUES ($1, $2, $3, 'c', now())`,
      [configId, userId, randomUUID()],
    );
    repository = new EmbedConversationsRepository({} as never, { pool });
  });
  afterAll(() => database?.close());

  const turn = (label: string) => [
    { id: randomUUID(), role: 'user', message: { role: 'user', content: `${label}?` } },
    { id: randomUUID(), role: 'assistant', message: { role: 'assistant', content: `${label}!` } },
  ];

  it('stores turns racing on one conversation one after the other, each whole and in order', async () => {
    const id = randomUUID();
    expect(await repository.append({ id, configId, userId, create: true }, turn('t0'))).toBe(true);
    const labels = ['t1', 't2', 't3', 't4', 't5'];
    const answers = await Promise.all(
      labels.map((label) => repository.append({ id, configId, userId, create: false }, turn(label))),
    );
    expect(answers).toEqual([true, true, true, true, true]);
    const { rows } = await pool.query(
      'SELECT seq, message FROM control.embed_messages WHERE conversation_id = $1 ORDER BY seq',
      [id],
    );
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // Each turn's question is directly followed by its answer.
    for (let i = 0; i < rows.length; i += 2)
      expect(rows[i + 1].message.content).toBe(rows[i].message.content.replace('?', '!'));
    const history = await repository.messages(id, 4);
    expect(history.map((m) => m.id)).toHaveLength(4);
    expect(history.map((m) => (m.message as { content: string }).content)).toEqual(
      rows.slice(-4).map((r) => r.message.content),
    );
    expect(await repository.exists(configId, userId, id)).toBe(true);
    expect(await repository.exists(configId, randomUUID(), id)).toBe(false);
  });

  it('writes nothing for a conversation that is gone', async () => {
    const id = randomUUID();
    expect(await repository.append({ id, configId, userId, create: false }, turn('x'))).toBe(false);
    const { rows } = await pool.query(
      'SELECT count(*)::int AS n FROM control.embed_messages WHERE conversation_id = $1',
      [id],
    );
    expect(rows[0].n).toBe(0);
  });
});
