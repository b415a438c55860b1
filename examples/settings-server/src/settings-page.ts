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
}

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
    });
  }
  return controls;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function controlHtml(control: PageControl): string {
  const id = escapeHtml(control.id);
  const label = `<label for="${id}">${escapeHtml(control.label)}</label>`;
  const data = `data-field="${escapeHtml(control.field)}"${control.thinking ? ` data-thinking="${control.thinking}"` : ''}`;
  switch (control.kind) {
    case 'select':
      return `${label}<select id="${id}" ${data}>${(control.options ?? [])
        .map((option) => `<option value="${escapeHtml(option)}">${escapeHtml(option)}</option>`)
        .join('')}</select>`;
    case 'toggle':
      return `<label class="toggle" for="${id}"><input type="checkbox" id="${id}" ${data}> ${escapeHtml(control.label)}</label>`;
    case 'number':
      return `${label}<input type="number" id="${id}" ${data}${control.integer ? ' step="1"' : ' step="any"'}${
        control.nullable ? ' placeholder="provider default"' : ''
      }>`;
    case 'credential':
      return `${label}<span class="credential"><input type="password" id="${id}" ${data} autocomplete="off" spellcheck="false">
        <span class="key-status" id="${id}Status" aria-live="polite"></span>
        <button type="button" class="remove-key" data-remove-for="${id}">Remove key</button></span>`;
    default:
      return `${label}<input type="text" id="${id}" ${data}>`;
  }
}

/** The settings page: plain HTML, controls generated from the schema, behaviour in settings.js. */
export function settingsPageHtml(): string {
  const controls = pageControls();
  const sections = new Map<string, PageControl[]>();
  for (const control of controls)
    sections.set(control.section, [...(sections.get(control.section) ?? []), control]);
  const body = [...sections]
    .map(
      ([name, list]) =>
        `<fieldset><legend>${escapeHtml(name)}</legend>${list.map((control) => `<div class="row">${controlHtml(control)}</div>`).join('\n')}</fieldset>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Settings · assistant-kit</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; max-width: 760px; margin: 2rem auto; padding: 0 1rem; }
  fieldset { margin: 1rem 0; border: 1px solid #ccc; border-radius: 6px; }
  .row { display: grid; grid-template-columns: 14rem 1fr; gap: .5rem; align-items: center; margin: .35rem 0; }
  .row .toggle { grid-column: 1 / 3; }
  .credential { display: flex; gap: .5rem; align-items: center; }
  .unavailable { opacity: .45; }
  #status.error { color: #b00020; }
  #problems li { color: #b00020; }
</style>
</head>
<body>
<h1>Settings</h1>
<p>Signed in as <strong id="accountName"></strong> · <button type="button" id="signOutButton">Sign out</button></p>
<form id="settingsForm" autocomplete="off">
${body}
<p><button type="submit" id="saveButton">Save</button> <span id="status" role="status"></span></p>
<ul id="problems"></ul>
</form>
<script type="application/json" id="controls">${JSON.stringify(controls).replace(/</g, '\\u003c')}</script>
<script src="/settings.js" defer></script>
</body>
</html>
`;
}
