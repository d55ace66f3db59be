// `node deploy/healthcheck.mjs <url>`: exit 0 when <url> answers 2xx within 3 s, else 1. The
// images' HEALTHCHECK and docker-compose.yml's health checks run it: the images carry Node, not curl.
const [url] = process.argv.slice(2);
if (!url) {
  console.error('usage: node deploy/healthcheck.mjs <url>');
  process.exit(2);
}
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
  if (!res.ok) console.error(`${url}: ${res.status}`);
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  console.error(`${url}: ${err.cause?.code ?? err.message}`);
  process.exit(1);
}
