// A model provider for the chat benchmark: the OpenAI wire format with fixed answers and no
// work, so what is measured is the path, not the model. Prints its port as its first line.
//   node bench/baselines/model-stand-in.mjs serve
import http from 'node:http';

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1700000000,
  model: 'bench-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello world' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
});
const chunk = (delta, finish = null, usage) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'bench-model',
    choices: finish === 'usage' ? [] : [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  })}\n\n`;
const STREAM = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Hello' }),
  chunk({ content: ' world' }),
  chunk({}, 'stop'),
  chunk({}, 'usage', { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }),
  'data: [DONE]\n\n',
];
const MODELS = JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model', owned_by: 'bench' }] });

const server = http.createServer((req, res) => {
  const parts = [];
  req.on('data', (d) => parts.push(d));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(MODELS);
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const stream = Buffer.concat(parts).includes('"stream":true');
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of STREAM.slice(0, -1)) res.write(event);
    res.end(STREAM[STREAM.length - 1]);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
