import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openEventStream, type EventSink } from './embed-events.js';

let app: FastifyInstance;
let base: string;
let sink: EventSink | undefined;

beforeAll(async () => {
  app = Fastify();
  // A turn that works without sending anything (a model thinking), with a short keep-alive.
  app.get('/quiet', (_request, reply) => {
    sink = openEventStream(reply, {}, 20);
    sink.send({ event: 'conversation', data: { conversationId: 'c1', stateless: false } });
  });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  sink?.end();
  await app.close();
});

it('sends keep-alive comments while a turn is quiet, so a client can tell it from a dead connection', async () => {
  const res = await fetch(`${base}/quiet`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while ((text.match(/^: keep-alive$/gm) ?? []).length < 2) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  sink!.end();
  for (;;) if ((await reader.read()).done) break;
  expect(text.startsWith('event: conversation\ndata: {"conversationId":"c1","stateless":false}\n\n')).toBe(true);
  const after = text.split('\n\n').filter(Boolean).slice(1);
  expect(after.length).toBeGreaterThanOrEqual(2);
  expect(new Set(after)).toEqual(new Set([': keep-alive']));
});
