import { createRequire } from 'node:module';

/** The package's name and version, read once from its package.json (src/ and dist/ sit beside it). */
const packageJson = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const SERVER_NAME = packageJson.name;
export const SERVER_VERSION = packageJson.version;
