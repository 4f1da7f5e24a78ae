#!/usr/bin/env node
// Readiness gate for systemd (ExecStartPost of systemd/staff-crm.service): polls the readiness endpoint of
// the `crm-admin serve` just started until it answers 200, so `systemctl start` returns only once the
// service can serve. Exit 1 when it never gets ready within the deadline (the unit then fails).
//   wait-ready.mjs [url] [--timeout-ms N]     default url: http://HOST:PORT/api/health/ready from the env
// A sync-only worker (`serve --no-api`) answers readiness too, on its own PORT/--port; CRM_READY_URL=none skips the check.
const args = process.argv.slice(2);
const timeoutIndex = args.indexOf('--timeout-ms');
const timeoutMs = timeoutIndex >= 0 ? Number(args.splice(timeoutIndex, 2)[1]) : 85_000;
const url = args[0] ?? process.env.CRM_READY_URL ?? defaultUrl();

if (url === 'none') process.exit(0);

function defaultUrl() {
  const host = process.env.HOST || '127.0.0.1';
  // A wildcard listener is reachable on loopback; IPv6 literals need brackets in a URL.
  const target = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${target}:${process.env.PORT || '3000'}/api/health/ready`;
}

const deadline = Date.now() + timeoutMs;
let last = 'no answer yet';
while (Date.now() < deadline) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    if (res.status === 200) process.exit(0);
    last = `HTTP ${res.status}`;
  } catch (err) {
    last = err?.cause?.code ?? err?.message ?? String(err);
  }
  await new Promise((resolve) => setTimeout(resolve, 250));
}
process.stderr.write(`staff-crm not ready after ${timeoutMs} ms at ${url}: ${last}\n`);
process.exit(1);
