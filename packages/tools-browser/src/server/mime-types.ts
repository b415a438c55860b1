import path from 'node:path';

const TEXT = (type: string) => `${type}; charset=utf-8`;

/** MIME types by lower-case extension, for what web pages load. */
const MIME_TYPES: Record<string, string> = {
  '.html': TEXT('text/html'),
  '.htm': TEXT('text/html'),
  '.xhtml': TEXT('application/xhtml+xml'),
  '.css': TEXT('text/css'),
  '.js': TEXT('text/javascript'),
  '.mjs': TEXT('text/javascript'),
  '.cjs': TEXT('text/javascript'),
  '.json': TEXT('application/json'),
  '.map': TEXT('application/json'),
  '.webmanifest': TEXT('application/manifest+json'),
  '.xml': TEXT('application/xml'),
  '.txt': TEXT('text/plain'),
  '.md': TEXT('text/markdown'),
  '.csv': TEXT('text/csv'),
  '.svg': TEXT('image/svg+xml'),
  '.png': 'image/png',
  '.apng': 'image/apng',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.bmp': 'image/bmp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.pdf': 'application/pdf',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.ogg': 'audio/ogg',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
};

/** The Content-Type a static server sends for a file name; unknown types are plain bytes. */
export function mimeTypeOf(fileName: string): string {
  return MIME_TYPES[path.extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}
