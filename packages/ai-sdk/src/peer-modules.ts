import { importOptional } from '@assistant-kit/kernel';
import { AiSdkAdapterError } from './errors.js';

/** The peer packages the adapter loads on first use. */
export type PeerPackage =
  | 'ai'
  | '@ai-sdk/openai'
  | '@ai-sdk/anthropic'
  | '@ai-sdk/google'
  | '@ai-sdk/openai-compatible';

type PeerModules = {
  ai: typeof import('ai');
  '@ai-sdk/openai': typeof import('@ai-sdk/openai');
  '@ai-sdk/anthropic': typeof import('@ai-sdk/anthropic');
  '@ai-sdk/google': typeof import('@ai-sdk/google');
  '@ai-sdk/openai-compatible': typeof import('@ai-sdk/openai-compatible');
};

const PEER_RANGES: Readonly<Record<PeerPackage, string>> = {
  ai: 'ai@^6',
  '@ai-sdk/openai': '@ai-sdk/openai@^3',
  '@ai-sdk/anthropic': '@ai-sdk/anthropic@^3',
  '@ai-sdk/google': '@ai-sdk/google@^3',
  '@ai-sdk/openai-compatible': '@ai-sdk/openai-compatible@^2',
};

// Each importer is a literal `import()` so bundlers and type checkers see the specifier.
const IMPORTERS: { [Name in PeerPackage]: () => Promise<PeerModules[Name]> } = {
  ai: () => import('ai'),
  '@ai-sdk/openai': () => import('@ai-sdk/openai'),
  '@ai-sdk/anthropic': () => import('@ai-sdk/anthropic'),
  '@ai-sdk/google': () => import('@ai-sdk/google'),
  '@ai-sdk/openai-compatible': () => import('@ai-sdk/openai-compatible'),
};

/**
 * Imports a peer package on first use, so that an application pays only for the providers it
 * calls. A missing package becomes PEER_DEPENDENCY_MISSING naming the install command.
 */
export async function loadPeer<Name extends PeerPackage>(
  name: Name,
  importer: () => Promise<PeerModules[Name]> = IMPORTERS[name],
): Promise<PeerModules[Name]> {
  return importOptional<PeerModules[Name]>(importer, {
    packageName: name,
    // A package that is installed but fails inside is passed on as it is: reinstalling would not help.
    onFailure: (failure, cause) =>
      failure === 'missing'
        ? new AiSdkAdapterError(
            'PEER_DEPENDENCY_MISSING',
            `The package "${name}" is not installed; install it with \`pnpm add ${PEER_RANGES[name]}\` (or npm install).`,
            { package: name },
          )
        : cause instanceof Error
          ? cause
          : new Error(String(cause)),
  });
}
