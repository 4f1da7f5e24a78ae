/** Room for long descriptive names while keeping headers, logs and UI lists sane. */
export const MAX_FILE_NAME_LENGTH = 200;

/**
 * The client's file name as it may be shown and offered for download: no path components (either
 * separator; old browsers send C:\...\name), no control or invisible format characters (U+202E can
 * disguise "fdp.exe" as "exe.pdf"), no leading dots, bounded length. Letters of any script stay.
 * It is only ever a label: files are stored under generated keys.
 */
export function sanitiseFileName(raw: string): string {
  let name = raw.normalize('NFC');
  name = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  // Tabs and line breaks become spaces first, so "a\tb" stays two words; other controls just go.
  name = name.replace(/\s+/gu, ' ');
  name = name.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '');
  name = name.replace(/ {2,}/g, ' ');
  // Leading dots make hidden files (and "..");  trailing dots and spaces are dropped by Windows anyway.
  name = name.replace(/^[.\s]+/u, '').replace(/[.\s]+$/u, '');
  return truncateKeepingExtension(name, MAX_FILE_NAME_LENGTH);
}

/** The lower-case extension without the dot, or '' when the name has none. */
export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
}

/** An ASCII stand-in for the plain `filename=` parameter: "Výkaz č.pdf" becomes "Vykaz c.pdf", not "V?kaz ?.pdf". */
export function asciiFallbackName(fileName: string): string {
  return fileName
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, '_');
}

function truncateKeepingExtension(name: string, max: number): string {
  const chars = Array.from(name); // code points, so a surrogate pair is never cut in half
  if (chars.length <= max) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? Array.from(name.slice(dot)) : [];
  if (extension.length >= max / 2) return chars.slice(0, max).join('');
  const base = chars.slice(0, chars.length - extension.length);
  return (
    base
      .slice(0, max - extension.length)
      .join('')
      .trimEnd() + extension.join('')
  );
}
