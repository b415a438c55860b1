import { randomBytes } from 'node:crypto';

/** One file's part of a previewed edit. */
export interface PreviewedFileEdit {
  path: string;
  /** SHA-256 of the file when the preview was made; the apply requires it unchanged. */
  expectedHash: string;
  newText: string;
  edits: { line: number; character: number; end_line: number; end_character: number; new_text: string }[];
}

export type PreviewKind = 'rename' | 'action' | 'format';

export interface EditPreview {
  kind: PreviewKind;
  /** The preview's `path` argument (workspace-relative). */
  path: string;
  actionId?: string;
  files: PreviewedFileEdit[];
  createdAt: number;
}

/** Tokens live this long; an older token must be previewed again. */
export const EDIT_TOKEN_LIFETIME_MS = 30 * 60_000;
const MAX_TOKENS = 500;

/**
 * Edit tokens of code_intelligence previews. A token is an unguessable id bound to exactly one
 * preview: its operation, path, action and the edits with each touched file's content hash. It is
 * used at most once.
 */
export class EditTokenStore {
  readonly #previews = new Map<string, EditPreview>();

  issue(preview: Omit<EditPreview, 'createdAt'>): string {
    const token = `edit_${randomBytes(18).toString('base64url')}`;
    if (this.#previews.size >= MAX_TOKENS) {
      const oldest = this.#previews.keys().next().value;
      if (oldest !== undefined) this.#previews.delete(oldest);
    }
    this.#previews.set(token, { ...preview, createdAt: Date.now() });
    return token;
  }

  /** Removes and returns the preview of a live token, or undefined. */
  take(token: string): EditPreview | undefined {
    const preview = this.#previews.get(token);
    if (preview === undefined) return undefined;
    this.#previews.delete(token);
    if (Date.now() - preview.createdAt > EDIT_TOKEN_LIFETIME_MS) return undefined;
    return preview;
  }

  /** Looks at a token without consuming it. */
  peek(token: string): EditPreview | undefined {
    return this.#previews.get(token);
  }

  clear(): void {
    this.#previews.clear();
  }
}
