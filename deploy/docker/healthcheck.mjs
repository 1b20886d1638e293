// Container HEALTHCHECK: /readyz of the process. Its port opens once the process is ready and
// closes at SIGTERM, so while it starts or drains the connection is refused (unhealthy), as it
// is for a 503 (a NATS connection down). The gateway and the leaf serve it on their HTTP port,
// every other component on its metrics port.
const app = process.env.APP ?? 'gateway';
const port = app === 'gateway' || app === 'leaf' ? process.env.PORT || 3000 : process.env.METRICS_PORT || 9464;
try {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(4000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
