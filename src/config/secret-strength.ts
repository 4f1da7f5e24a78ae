/**
 * Is a secret guessable? A rough, deliberately simple estimate of the bits an attacker must guess,
 * for refusing secrets like "aaaa…" or "changeme-changeme-…" at start in production (ADR 0114). It
 * is no password meter: it cannot know that a phrase of dictionary words is weak. It catches what
 * a human typing a "long enough" secret does: repeating characters, counting along the keyboard or
 * the alphabet, repeating a block.
 *
 * The estimate reads the text left to right:
 * - a character that continues a run (the same step as the two before it, of -1, 0 or +1: "aaa",
 *   "abc", "321") costs nothing;
 * - a stretch of 3 or more characters that already appeared earlier costs one reference:
 *   log2(position) bits (where to copy from), like a compressor would;
 * - every other character is a literal: the literals together cost their Shannon entropy (of their
 *   own frequencies) times their number.
 * A secret needs at least MIN_SECRET_BITS. The estimate undercounts random text (a random string has
 * repeats too): 32 random hex characters (128 bits) estimate at 80 or more (the lowest of 100,000
 * draws), 48 random bytes in base64 (`openssl rand -base64 48`) at 295 or more, the development
 * secrets (48 bytes base64url, 32 bytes hex) at 200 or more; the human-made examples above at 40 or
 * less. The floor sits between: it refuses what a person typed, it does not prove a secret strong.
 */
export const MIN_SECRET_BITS = 64;

/** Where a long secret stops being read (the estimate is quadratic in the length). */
const MAX_READ = 1024;
const MIN_MATCH = 3;

export function estimateSecretBits(secret: string): number {
  const chars = Array.from(secret.slice(0, MAX_READ), (c) => c.codePointAt(0)!);
  const literals: number[] = [];
  let referenceBits = 0;
  for (let i = 0; i < chars.length;) {
    if (continuesRun(chars, i)) {
      i++;
      continue;
    }
    const match = longestEarlierMatch(chars, i);
    if (match >= MIN_MATCH) {
      referenceBits += Math.log2(i);
      i += match;
      continue;
    }
    literals.push(chars[i]);
    i++;
  }
  return shannonBits(literals) + referenceBits;
}

export function isGuessableSecret(secret: string): boolean {
  return estimateSecretBits(secret) < MIN_SECRET_BITS;
}

function continuesRun(chars: number[], i: number): boolean {
  if (i < 2) return false;
  const step = chars[i] - chars[i - 1];
  return Math.abs(step) <= 1 && step === chars[i - 1] - chars[i - 2];
}

/** The longest stretch from i that also starts at an earlier position (it may overlap i, as in LZ77). */
function longestEarlierMatch(chars: number[], i: number): number {
  let best = 0;
  for (let start = 0; start < i; start++) {
    let n = 0;
    while (i + n < chars.length && chars[start + n] === chars[i + n]) n++;
    if (n > best) best = n;
  }
  return best;
}

function shannonBits(symbols: number[]): number {
  const counts = new Map<number, number>();
  for (const s of symbols) counts.set(s, (counts.get(s) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= n * Math.log2(n / symbols.length);
  return bits;
}
