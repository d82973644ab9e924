import type { AssetKind } from './asset.schema';
import type { ByteRange } from './asset-storage';

/** A file name without any path: no separator, no control character, not `.` or `..`. */
// Control characters are exactly what the pattern refuses.
// eslint-disable-next-line no-control-regex
export const FILE_NAME_PATTERN = /^(?!\.{1,2}$)[^/\\\u0000-\u001f\u007f]+$/;

/** Declared types that name the same thing as the sniffed one under another, older name. */
const ALIASES: Record<string, string> = {
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-flac': 'audio/flac',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'video/x-m4v': 'video/mp4',
};

/** The declared type in the form sniffing answers: lower case, no parameters, the usual name. */
export function normalMimeType(mimeType: string): string {
  const bare = mimeType.split(';')[0].trim().toLowerCase();
  return ALIASES[bare] ?? bare;
}

/**
 * Whether the bytes agree with what the creator declared. `sniffed` is the type read from the bytes
 * (null: no binary signature, as plain text has none). A text asset has no signature to read: its
 * bytes must have none and hold no NUL byte (`looksLikeText`). Any other kind needs a signature of its
 * own family (an `audio/*` kind for audio; `audio/webm` sniffs as `video/webm`, a container both use)
 * equal to the declared type.
 */
export function typeAgrees(kind: AssetKind, declared: string, sniffed: string | null, looksLikeText: boolean): boolean {
  const wanted = normalMimeType(declared);
  if (kind === 'text') return sniffed === null && looksLikeText && wanted.startsWith('text/');
  if (sniffed === null) return false;
  const family = sniffed.split('/')[0];
  if (sniffed === wanted)
    return family === kind || (kind === 'audio' && (sniffed === 'video/webm' || sniffed === 'video/ogg'));
  // Containers sniffed under their video name hold audio as often (webm, ogg, mp4).
  const sameContainer = wanted.split('/')[1] === sniffed.split('/')[1] && wanted.split('/')[0] === kind;
  return kind === 'audio' && sameContainer && family === 'video';
}

/**
 * `Content-Disposition` for a stored file name: an ASCII `filename` with every character a client
 * could misread replaced, and the exact name as RFC 8187 `filename*` (RFC 6266). Names are checked
 * to hold no path when the asset is created; the separators are replaced here once more.
 */
export function contentDisposition(fileName: string, type: 'inline' | 'attachment' = 'inline'): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is replaced
  const clean = fileName.replace(/[\u0000-\u001f\u007f/\\]/g, '_');
  const ascii = clean.replace(/[^\x20-\x7e]/g, '_').replace(/["%;]/g, '_') || 'file';
  const encoded = encodeURIComponent(clean).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Types a browser only displays, never runs: the only bytes served `inline`. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'text/plain']);

/**
 * How a stored type leaves the service: raster images, audio, video and plain text as they are,
 * `inline` (a player or an `<img>` shows them); anything else (SVG, HTML, XML, scripts, every other
 * type, an unknown one) as an `attachment` of `application/octet-stream`, so no user's bytes ever
 * run as a document of the service's origin, whatever the browser or the link that opens them.
 */
export function deliveryOf(contentType: string | null): { contentType: string; disposition: 'inline' | 'attachment' } {
  const bare = contentType ? normalMimeType(contentType) : '';
  const family = bare.split('/')[0];
  if (contentType && (INLINE_TYPES.has(bare) || family === 'audio' || family === 'video'))
    return { contentType, disposition: 'inline' };
  return { contentType: 'application/octet-stream', disposition: 'attachment' };
}

/**
 * The one range a `Range` header asks of `size` bytes: undefined for no (or an unsupported: several
 * ranges, another unit) header, which is answered whole; `unsatisfiable` for a range outside the file (416).
 */
export function requestedRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** Whether a sample of bytes reads as text: no NUL byte (UTF-16 or binary data has them). */
export function looksLikeText(sample: Buffer): boolean {
  return !sample.includes(0);
}
