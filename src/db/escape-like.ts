/** Search terms are literal text: a % or _ typed by an admin matches itself, not "anything". */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
