import { CLIENT_SETTINGS_FIELDS, ClientSettings } from '@assistant-kit/settings-schema';

/** How the page edits one field. */
export interface PageControl {
  field: string;
  id: string;
  label: string;
  kind: 'select' | 'toggle' | 'text' | 'number' | 'credential';
  options?: string[];
  nullable?: boolean;
  integer?: boolean;
  /** Thinking controls save immediately from their change handler (SPEC 4.3). */
  thinking?: 'main' | 'coding';
  section: string;
  /** One line under the label saying what the field does. */
  help: string;
  minimum?: number;
  maximum?: number;
}

/** Short help for each field the page edits, shown under its label and read with the control. */
const HELP: Record<string, string> = {
  permissionMode: 'What the assistant may do without asking first.',
  permissionsEnabled: 'Ask before tools change files or run commands.',
  completionSoundEnabled: 'Play a sound when a long answer finishes.',
  themeId: 'Colours of this page and the chat. System follows your device.',
  transcriptView: 'How much of tool calls and thinking the chat shows.',
  mainProvider: 'The service that answers your messages.',
  baseUrl: 'Endpoint of an OpenAI-compatible API; leave empty for the provider default.',
  apiKey: 'Kept encrypted on the server; it is never shown again after saving.',
  searchApiKey: 'Lets the assistant search the web.',
  model: 'Model name as the provider spells it, e.g. gpt-5.1.',
  temperature: 'Higher is more varied, lower more focused. Empty uses the provider default.',
  enableThinking: 'Let models that can think show their reasoning first.',
  reasoningControl: 'How the thinking budget is sent to the provider.',
  reasoningEffort: 'How hard the model thinks before answering.',
  codingProvider: 'The service used for coding tasks; "main" reuses the main model.',
  codingBaseUrl: 'Endpoint for coding tasks; empty uses the provider default.',
  codingApiKey: 'Key for the coding provider when it differs from the main one.',
  codingModel: 'Model for coding tasks; empty uses the main model.',
  codingTemperature: 'Temperature for coding tasks. Empty uses the provider default.',
  codingEnableThinking: 'Let the coding model think before answering.',
  codingReasoningControl: 'How the coding thinking budget is sent.',
  codingReasoningEffort: 'How hard the coding model thinks.',
  classifierProvider: 'A small, fast model that routes requests.',
  classifierBaseUrl: 'Endpoint of the classifier; empty uses the provider default.',
  classifierApiKey: 'Key for the classifier provider.',
  decisionsEnabled: 'Ask a second model to review important decisions.',
  decisionsProvider: 'The service that reviews decisions.',
  decisionsApiKey: 'Key for the decisions provider.',
  decisionsAltBaseUrl: 'Endpoint of the alternative decisions model.',
  decisionsAltApiKey: 'Key for the alternative decisions model.',
  maxParallelAgents: 'How many helper agents may work at once.',
  stageRepairAttempts: 'How often a failed step is retried before giving up.',
  chatDirectory: 'Folder on the server where conversations are kept.',
  maxAttachmentChars: 'Longest attachment the chat accepts, in characters.',
  docAgentThreshold: 'Documents longer than this are handed to the document agent.',
  contextTokenLimit: 'Most tokens of conversation sent with each message.',
  maxOutputTokens: 'Longest answer in tokens. Empty uses the provider default.',
  compactionThresholdPercent: 'Summarise older messages when the context is this full.',
};

/** Page sections in display order, each with one line of help. */
export const PAGE_SECTIONS: ReadonlyArray<{ name: string; help: string }> = [
  { name: 'General', help: 'Appearance and how the assistant asks for permission.' },
  { name: 'Main model', help: 'The model that answers your messages, and its key.' },
  { name: 'Coding', help: 'A separate model for coding tasks, if you want one.' },
  { name: 'Classifier', help: 'The small model that routes each request.' },
  { name: 'Decisions', help: 'A second opinion on important decisions.' },
  { name: 'Limits', help: 'Sizes and counts that bound each conversation.' },
];

/**
 * Controls beyond SPEC 2.1's table: the model fields (needed to switch models) and the Coding
 * thinking preference, which SPEC 4.3 says the page saves from its change handlers.
 */
const EXTRA_CONTROLS: Record<string, string> = {
  model: '#modelInput',
  codingModel: '#codingModelInput',
  enableThinking: '#enableThinkingToggle',
  codingEnableThinking: '#codingEnableThinkingToggle',
  codingReasoningControl: '#codingReasoningControlSelect',
  codingReasoningEffort: '#codingReasoningEffortSelect',
};

const THINKING: Record<string, 'main' | 'coding'> = {
  enableThinking: 'main',
  reasoningControl: 'main',
  reasoningEffort: 'main',
  codingEnableThinking: 'coding',
  codingReasoningControl: 'coding',
  codingReasoningEffort: 'coding',
};

function sectionOf(field: string): string {
  if (field.startsWith('decisions')) return 'Decisions';
  if (field.startsWith('coding')) return 'Coding';
  if (field.startsWith('classifier')) return 'Classifier';
  if (['mainProvider', 'baseUrl', 'apiKey', 'model', 'temperature', 'searchApiKey'].includes(field))
    return 'Main model';
  if (['enableThinking', 'reasoningControl', 'reasoningEffort'].includes(field)) return 'Main model';
  if (
    ['permissionMode', 'permissionsEnabled', 'completionSoundEnabled', 'themeId', 'transcriptView'].includes(
      field,
    )
  ) {
    return 'General';
  }
  return 'Limits';
}

// Words that read better in their usual spelling than split from camelCase.
const LABEL_WORDS: Record<string, string> = { api: 'API', url: 'URL', id: '', llm: 'LLM' };

function labelOf(field: string): string {
  const words = field
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .split(' ')
    .map((word) => LABEL_WORDS[word] ?? word)
    .filter((word) => word !== '');
  const sentence = words.join(' ');
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/** Every page control, derived from the schema's field metadata (ids are SPEC 2.1's). */
export function pageControls(): PageControl[] {
  const properties = (ClientSettings as unknown as { properties: Record<string, Record<string, unknown>> })
    .properties;
  const controls: PageControl[] = [];
  for (const field of CLIENT_SETTINGS_FIELDS) {
    const selector = field.control ?? EXTRA_CONTROLS[field.name];
    if (!selector) continue;
    const schema = properties[field.name]!;
    const variants = (schema.anyOf as Array<Record<string, unknown>> | undefined) ?? [schema];
    const main = variants.find((variant) => variant.type !== 'null') ?? schema;
    const nullable = variants.some((variant) => variant.type === 'null');
    let kind: PageControl['kind'];
    if (field.credential) kind = 'credential';
    else if (Array.isArray(main.enum)) kind = 'select';
    else if (main.type === 'boolean') kind = 'toggle';
    else if (main.type === 'number' || main.type === 'integer') kind = 'number';
    else kind = 'text';
    controls.push({
      field: field.name,
      id: selector.replace(/^#/, ''),
      label: labelOf(field.name),
      kind,
      section: sectionOf(field.name),
      ...(Array.isArray(main.enum) ? { options: main.enum as string[] } : {}),
      ...(nullable ? { nullable: true } : {}),
      ...(main.type === 'integer' ? { integer: true } : {}),
      ...(THINKING[field.name] ? { thinking: THINKING[field.name] } : {}),
      help: HELP[field.name] ?? '',
      ...(typeof main.minimum === 'number' ? { minimum: main.minimum } : {}),
      ...(typeof main.maximum === 'number' ? { maximum: main.maximum } : {}),
    });
  }
  return controls;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

// Option values are stable ids (SPEC 2.1); people read words. The value stays the id.
const OPTION_LABELS: Record<string, string> = {
  'app-dark': 'Dark',
  'app-light': 'Light',
  system: 'Match system',
  'high-contrast-dark': 'High contrast dark',
  'high-contrast-light': 'High contrast light',
};

function optionLabel(option: string): string {
  const label = OPTION_LABELS[option] ?? option.replace(/[-_]/g, ' ');
  return label.charAt(0).toUpperCase() + label.slice(1);
}

function inputHtml(control: PageControl, describedBy: string): string {
  const id = escapeHtml(control.id);
  const common = `id="${id}" name="${escapeHtml(control.field)}" data-field="${escapeHtml(control.field)}"${
    control.thinking ? ` data-thinking="${control.thinking}"` : ''
  } aria-describedby="${describedBy}"`;
  switch (control.kind) {
    case 'select':
      return `<select ${common}>${(control.options ?? [])
        .map((option) => `<option value="${escapeHtml(option)}">${escapeHtml(optionLabel(option))}</option>`)
        .join('')}</select>`;
    case 'toggle':
      return `<input type="checkbox" role="switch" class="switch" ${common}>`;
    case 'number': {
      const range = `${control.minimum === undefined ? '' : ` min="${control.minimum}"`}${
        control.maximum === undefined ? '' : ` max="${control.maximum}"`
      }`;
      return `<input type="number" inputmode="decimal" ${common}${control.integer ? ' step="1"' : ' step="any"'}${range}${
        control.nullable ? ' placeholder="Provider default"' : ''
      }>`;
    }
    case 'credential':
      return `<div class="credential">
        <span class="badge" id="${id}Status" data-state="unset">Not set</span>
        <input type="password" ${common} autocomplete="off" spellcheck="false" placeholder="Paste a key">
        <button type="button" class="button quiet remove-key" id="${id}Remove" data-remove-for="${id}" aria-label="Remove ${escapeHtml(control.label)}" disabled>Remove</button>
      </div>`;
    default:
      return `<input type="text" ${common} spellcheck="false">`;
  }
}

function rowHtml(control: PageControl): string {
  const id = escapeHtml(control.id);
  const helpId = `${id}Help`;
  const errorId = `${id}Error`;
  const label = `<label for="${id}">${escapeHtml(control.label)}</label>`;
  return `<div class="row kind-${control.kind}" data-row-for="${id}">
    <div class="row-text">${label}<p class="help" id="${helpId}">${escapeHtml(control.help)}</p></div>
    <div class="row-control">${inputHtml(control, `${helpId} ${errorId}`)}
      <p class="field-error" id="${errorId}" role="alert"></p></div>
  </div>`;
}

/** Every directive of the page's Content-Security-Policy: no inline script or style at all. */
export const PAGE_CONTENT_SECURITY_POLICY: Record<string, string[]> = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** Options of {@link settingsPageHtml}. */
export interface SettingsPageOptions {
  /**
   * Same-origin scripts loaded after the page's own (e.g. `/chat-panel.js`). A script finds its
   * mount point in `<section id="chat-panel">`, which is empty and hidden until it fills it
   * (remove the `hidden` attribute); the layout already leaves it a column beside the settings.
   */
  extraScripts?: readonly string[];
}

/**
 * The settings page: HTML generated from the schema (controls keep SPEC 2.1's ids), styles in
 * `/page.css`, behaviour in `/settings.js`. No inline script or style, so the page works under
 * a strict CSP (the controls list is a JSON data block, which CSP does not execute).
 */
export function settingsPageHtml(options: SettingsPageOptions = {}): string {
  const controls = pageControls();
  const body = PAGE_SECTIONS.map(({ name, help }) => {
    const list = controls.filter((control) => control.section === name);
    if (list.length === 0) return '';
    const slug = name.toLowerCase().replace(/[^a-z]+/g, '-');
    return `<section class="card" id="section-${slug}" aria-labelledby="heading-${slug}">
  <header><h2 id="heading-${slug}">${escapeHtml(name)}</h2><p class="help">${escapeHtml(help)}</p></header>
  ${list.map(rowHtml).join('\n  ')}
</section>`;
  }).join('\n');
  const nav = PAGE_SECTIONS.filter(({ name }) => controls.some((control) => control.section === name))
    .map(
      ({ name }) =>
        `<li><a href="#section-${name.toLowerCase().replace(/[^a-z]+/g, '-')}">${escapeHtml(name)}</a></li>`,
    )
    .join('');
  const extra = (options.extraScripts ?? [])
    .map((src) => `<script src="${escapeHtml(src)}" defer></script>`)
    .join('\n');
  return `<!doctype html>
<html lang="en" data-theme="app-dark">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<title>Settings · assistant-kit</title>
<link rel="stylesheet" href="/page.css">
</head>
<body>
<a class="skip-link" href="#settingsForm">Skip to settings</a>
<header class="topbar">
  <div class="brand"><span class="logo" aria-hidden="true">◆</span> assistant-kit</div>
  <div class="account"><span class="who-label">Signed in as</span> <strong id="accountName"></strong>
    <button type="button" class="button quiet" id="signOutButton">Sign out</button></div>
</header>
<div class="layout">
<nav class="sections" aria-label="Settings sections"><ul>${nav}</ul></nav>
<main>
<h1>Settings</h1>
<p class="lead">Changes apply to new conversations. Keys are stored encrypted and never shown again.</p>
<form id="settingsForm" autocomplete="off" novalidate>
${body}
<div class="savebar" id="saveBar" data-dirty="false">
  <p id="status" role="status" aria-live="polite">All changes saved</p>
  <ul id="problems" class="problems"></ul>
  <div class="savebar-actions">
    <button type="button" class="button quiet" id="reloadButton" hidden>Reload settings</button>
    <button type="button" class="button quiet" id="discardButton" disabled>Discard changes</button>
    <button type="submit" class="button primary" id="saveButton">Save</button>
  </div>
</div>
</form>
</main>
<!-- Chat panel mount point: empty and hidden until a script from extraScripts fills it. -->
<section id="chat-panel" class="chat-panel" aria-label="Chat" hidden></section>
</div>
<script type="application/json" id="controls">${JSON.stringify(controls).replace(/</g, '\\u003c')}</script>
<script src="/settings.js" defer></script>
${extra}
</body>
</html>
`;
}
