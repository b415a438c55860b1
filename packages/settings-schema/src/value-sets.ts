// Allowed values of the enumerated settings fields. SPEC 2.1 leaves them open; the choices and their
// meaning are documented in the package README and docs/decisions/settings-core.md.

// Permission modes are shared with the tool group, so they live in the kernel both groups import.
import { PERMISSION_MODES, type PermissionMode } from '@assistant-kit/kernel';

export { PERMISSION_MODES, type PermissionMode };

/** Model providers a connection can name. `custom` is any OpenAI-compatible server at `baseUrl`. */
export const PROVIDERS = [
  'custom',
  'openai',
  'anthropic',
  'google',
  'openrouter',
  'mistral',
  'deepseek',
  'xai',
  'groq',
  'ollama',
  'lmstudio',
  'vllm',
] as const;
/** One of {@link PROVIDERS}. */
export type Provider = (typeof PROVIDERS)[number];

/** Providers of a secondary role: `main` reuses the main connection, otherwise one of {@link PROVIDERS}. */
export const ROLE_PROVIDERS = ['main', ...PROVIDERS] as const;
/** One of {@link ROLE_PROVIDERS}. */
export type RoleProvider = (typeof ROLE_PROVIDERS)[number];

/** Providers of the decisions connection; the first option, `main`, is the default. */
export const DECISIONS_PROVIDERS = ROLE_PROVIDERS;
/** Providers of the coding connection (`main` by default). */
export const CODING_PROVIDERS = ROLE_PROVIDERS;
/** Providers of the classifier connection (`main` by default). */
export const CLASSIFIER_PROVIDERS = ROLE_PROVIDERS;

/** Which decisions connection is active: `jev` (the primary decisions connection) or `alt` (the decisionsAlt* one). */
export const DECISIONS_ACTIVE_VALUES = ['jev', 'alt'] as const;
/** One of {@link DECISIONS_ACTIVE_VALUES}. */
export type DecisionsActive = (typeof DECISIONS_ACTIVE_VALUES)[number];

/**
 * How thinking is requested: `auto` lets the server pick the model's own mechanism; `effort` sends an
 * effort level (OpenAI-style `reasoning_effort`, Gemini 3 thinking level); `budget` sends a token budget
 * (Anthropic `thinking`, Gemini 2.5 `thinkingBudget`); `toggle` only switches thinking on or off
 * (`enable_thinking`); `none` sends no thinking field at all.
 */
export const REASONING_CONTROLS = ['auto', 'effort', 'budget', 'toggle', 'none'] as const;
/** One of {@link REASONING_CONTROLS}. */
export type ReasoningControl = (typeof REASONING_CONTROLS)[number];

/** Thinking effort, from none to the most the model offers. `off` turns thinking off. */
export const REASONING_EFFORTS = ['off', 'minimal', 'low', 'medium', 'high', 'max'] as const;
/** One of {@link REASONING_EFFORTS}. */
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** Which connection the skill matcher uses: one of the roles, or `custom` with its own URL, key and model. */
export const SKILL_MATCHER_PROFILES = ['classifier', 'main', 'coding', 'custom'] as const;
/** One of {@link SKILL_MATCHER_PROFILES}. */
export type SkillMatcherProfile = (typeof SKILL_MATCHER_PROFILES)[number];

/** Colour themes of the settings page and chat. `system` follows the operating system. */
export const THEME_IDS = [
  'app-dark',
  'app-light',
  'system',
  'high-contrast-dark',
  'high-contrast-light',
] as const;
/** One of {@link THEME_IDS}. */
export type ThemeId = (typeof THEME_IDS)[number];

/** Transcript density: `compact` hides tool details, `detailed` shows tool calls and thinking in full. */
export const TRANSCRIPT_VIEWS = ['normal', 'compact', 'detailed'] as const;
/** One of {@link TRANSCRIPT_VIEWS}. */
export type TranscriptView = (typeof TRANSCRIPT_VIEWS)[number];

/** Animation used when the document agent edits a document. */
export const DOC_EDIT_ANIMATIONS = ['morph', 'typewriter', 'fade', 'none'] as const;
/** One of {@link DOC_EDIT_ANIMATIONS}. */
export type DocEditAnimation = (typeof DOC_EDIT_ANIMATIONS)[number];
