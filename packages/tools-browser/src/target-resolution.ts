import { fileURLToPath } from 'node:url';
import { quoteArgument, type Workspace, type WorkspacePath } from '@assistant-kit/tool-core';
import { type AppManifest, findAppManifest } from './app/app-manifest.js';
import { browserError } from './errors.js';

/** What a browser_open / browser_navigate target turned out to be. */
export type ResolvedTarget =
  | { kind: 'url'; url: string }
  | { kind: 'workspace'; relative: string; isDirectory: boolean; suffix: string }
  | { kind: 'app'; manifest: AppManifest };

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

async function resolveWorkspacePath(
  workspace: Workspace,
  input: string,
): Promise<{ path: WorkspacePath; suffix: string }> {
  const direct = await workspace.resolve(input);
  if (direct.kind !== 'missing') return { path: direct, suffix: '' };
  // "page.html?tab=2" or "docs/#intro": a query or fragment after an existing path.
  const split = /^([^?#]+)([?#].*)$/.exec(input);
  if (split !== null) {
    const withoutSuffix = await workspace.resolve(split[1]!);
    if (withoutSuffix.kind !== 'missing') return { path: withoutSuffix, suffix: split[2]! };
  }
  throw browserError(
    'PATH_NOT_FOUND',
    `"${input}" is neither an existing workspace file or folder nor an http(s) URL.`,
    { details: { target: input } },
  );
}

/**
 * Classifies a target: an http(s) URL (checked against the network policy by the caller), a
 * workspace file or folder (served by the static server), or, when `allowApps`, an app manifest.
 * `file:` URLs are treated as workspace paths, so they are confined like any other path.
 */
export async function resolveTarget(
  workspace: Workspace,
  rawTarget: string,
  options: { allowApps: boolean },
): Promise<ResolvedTarget> {
  const target = rawTarget.trim();
  if (target === '') throw browserError('TARGET_INVALID', 'The target is empty.');
  const scheme = SCHEME.exec(target)?.[1]?.toLowerCase();
  let pathInput = target;
  // One-letter "schemes" are Windows drive letters, which are paths, not URLs.
  if (scheme !== undefined && scheme.length > 1) {
    if (scheme === 'http' || scheme === 'https') {
      try {
        return { kind: 'url', url: new URL(target).href };
      } catch (error) {
        throw browserError('TARGET_INVALID', `"${quoteArgument(target)}" is not a valid URL.`, {
          cause: error,
        });
      }
    }
    if (target === 'about:blank') return { kind: 'url', url: 'about:blank' };
    if (scheme === 'file') {
      try {
        pathInput = fileURLToPath(target);
      } catch (error) {
        throw browserError('TARGET_INVALID', `"${quoteArgument(target)}" is not a valid file URL.`, {
          cause: error,
        });
      }
    } else {
      throw browserError(
        'TARGET_INVALID',
        `The "${scheme}:" scheme is not supported; open a workspace path, an http(s) URL or about:blank.`,
        { details: { scheme } },
      );
    }
  }
  const resolved = await resolveWorkspacePath(workspace, pathInput);
  const kind = resolved.path.kind as 'file' | 'directory';
  if (options.allowApps) {
    const manifest = await findAppManifest(workspace, resolved.path.relative, kind);
    if (manifest !== undefined) return { kind: 'app', manifest };
  }
  return {
    kind: 'workspace',
    relative: resolved.path.relative,
    isDirectory: kind === 'directory',
    suffix: resolved.suffix,
  };
}
