/**
 * Checks that every relative link and #anchor in the project's Markdown resolves (part of npm run
 * lint): README.md, CONTRIBUTING.md, CHANGELOG.md and docs/**\/*.md. Offline on purpose: links with a
 * scheme (https:, mailto:) are not fetched, so the lint never depends on the network.
 *
 *   npx tsx scripts/check-doc-links.ts      lists each broken link as file:line, exit 1 if any
 *
 * Anchors are the heading slugs GitHub renders (lower case, punctuation dropped, spaces to hyphens,
 * -1/-2 for repeats) plus explicit `<a id="...">` / `<a name="...">`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

/** The Markdown files whose links are checked, relative to the repository root. */
export function markdownFiles(root = repoRoot): string[] {
  const top = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'].filter((f) => fs.existsSync(path.join(root, f)));
  return [...top, ...walk(root, 'docs')].sort();
}

function walk(root: string, dir: string): string[] {
  const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
  return entries.flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return walk(root, relative);
    return entry.name.endsWith('.md') ? [relative] : [];
  });
}

/** Lines outside fenced code blocks, with inline code spans blanked (links in code are examples). */
function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) lines.push({ line: index + 1, text: raw.replace(/`+[^`]*`+/g, '``') });
  });
  return lines;
}

/** GitHub's heading slug (github-slugger): lower case, keep letters, digits, `-`, `_` and spaces. */
export function slug(heading: string): string {
  const plain = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading counts by its text
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a Markdown file offers. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  // Headings are read from the raw lines outside fences (inline code in a heading keeps its text).
  let fence: string | null = null;
  for (const raw of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of raw.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
  }
  return anchors;
}

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** The broken relative links and anchors of one file (path relative to root). */
export function brokenLinks(file: string, root = repoRoot): BrokenLink[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const broken: BrokenLink[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    const targets = [
      ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
      ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
    ];
    for (const target of targets) {
      const reason = checkTarget(file, text, target, root);
      if (reason) broken.push({ file, line, target, reason });
    }
  }
  return broken;
}

function checkTarget(file: string, ownText: string, target: string, root: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto:: not checked offline
  const [rawPath = '', anchor] = target.split('#', 2);
  const linkPath = decodeURIComponent(rawPath);
  if (linkPath.startsWith('/')) return 'absolute path (use a relative link)';
  const resolved = linkPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), linkPath));
  const absolute = path.join(root, resolved);
  if (!fs.existsSync(absolute)) return `no such file: ${resolved}`;
  if (anchor === undefined || anchor === '') return null;
  if (!resolved.endsWith('.md')) return null; // anchors into source files are line anchors on GitHub
  const text = linkPath === '' ? ownText : fs.readFileSync(absolute, 'utf8');
  return anchorsOf(text).has(decodeURIComponent(anchor)) ? null : `no heading #${anchor} in ${resolved}`;
}

function main(): void {
  const broken = markdownFiles().flatMap((file) => brokenLinks(file));
  for (const link of broken) console.error(`${link.file}:${link.line}: ${link.target}: ${link.reason}`);
  if (broken.length > 0) {
    console.error(`${broken.length} broken link(s) in the documentation`);
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
