// Module hooks of bench/cli-start-counter.mjs: every file loaded as an ES module, one URL per line.
import fs from 'node:fs';

let out;

export function initialize(data) {
  out = data.out;
}

export async function load(url, context, nextLoad) {
  if (out && url.startsWith('file:')) fs.appendFileSync(out, `${url}\n`);
  return nextLoad(url, context);
}
