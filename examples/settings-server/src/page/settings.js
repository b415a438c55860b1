// The settings page. Loads settings from the GET endpoint and saves the whole object through the
// POST endpoint with If-Match set to the revision it loaded, so a save over someone else's newer
// save fails with 409 instead of silently winning. Credential inputs never show a value: only
// whether a key is set.

const SETTINGS_URL = '/api/system-settings/client-defaults';
const controls = JSON.parse(document.getElementById('controls').textContent);
const controlByField = new Map(controls.map((control) => [control.field, control]));
let saved = null; // the last object the server answered with (credentials as references)
let revisionTag = null; // ETag of `saved`; sent as If-Match
let csrfToken = '';
const removals = new Set(); // credential fields the user asked to remove

const byId = (id) => document.getElementById(id);
const element = (control) => byId(control.id);

function applyTheme(themeId) {
  document.documentElement.dataset.theme = themeId || 'app-dark';
}

function setStatus(text, kind = '') {
  const status = byId('status');
  status.textContent = text;
  status.dataset.kind = kind;
}

function isReference(value) {
  return typeof value === 'string' && value.startsWith('akref1.');
}

function clearFieldErrors() {
  for (const control of controls) {
    byId(`${control.id}Error`).textContent = '';
    element(control).removeAttribute('aria-invalid');
  }
  byId('problems').replaceChildren();
}

/** Puts each problem next to its field; problems without a field go to the save bar's list. */
function showProblems(problems) {
  clearFieldErrors();
  const general = [];
  let first = null;
  for (const problem of problems || []) {
    const field = String(problem.path || '')
      .replace(/^\//, '')
      .split('/')[0];
    const control = controlByField.get(field);
    if (!control) {
      general.push(`${problem.path || 'Settings'}: ${problem.message}`);
      continue;
    }
    const slot = byId(`${control.id}Error`);
    slot.textContent = slot.textContent ? `${slot.textContent} ${problem.message}` : problem.message;
    element(control).setAttribute('aria-invalid', 'true');
    first ??= element(control);
  }
  byId('problems').replaceChildren(
    ...general.map((text) => {
      const item = document.createElement('li');
      item.textContent = text;
      return item;
    }),
  );
  if (first) {
    first.focus({ preventScroll: true });
    first.scrollIntoView({ block: 'center' });
  }
}

function showCredential(control) {
  const input = element(control);
  const badge = byId(`${control.id}Status`);
  const remove = byId(`${control.id}Remove`);
  const stored = isReference(saved[control.field]);
  const removing = removals.has(control.field);
  input.value = '';
  input.placeholder = stored && !removing ? 'Type a new key to replace it' : 'Paste a key';
  input.dataset.keySet = stored && !removing ? 'true' : 'false';
  badge.textContent = removing ? 'Will be removed' : stored ? 'Set' : 'Not set';
  badge.dataset.state = removing ? 'removing' : stored ? 'set' : 'unset';
  remove.disabled = !stored;
  remove.textContent = removing ? 'Keep' : 'Remove';
  remove.setAttribute('aria-label', `${removing ? 'Keep' : 'Remove'} ${control.label}`);
  remove.setAttribute('aria-pressed', removing ? 'true' : 'false');
}

function fill(settings) {
  for (const control of controls) {
    const input = element(control);
    const value = settings[control.field];
    if (control.kind === 'credential') showCredential(control);
    else if (control.kind === 'toggle') input.checked = value === true;
    else if (control.kind === 'number')
      input.value = value === null || value === undefined ? '' : String(value);
    else input.value = value ?? '';
  }
  applyTheme(settings.themeId);
  updateDirty();
}

function readControl(control) {
  const input = element(control);
  if (control.kind === 'toggle') return input.checked;
  if (control.kind === 'number') {
    if (input.value.trim() === '') return control.nullable ? null : Number.NaN;
    return Number(input.value);
  }
  return input.value;
}

function isChanged(control) {
  if (control.kind === 'credential') return element(control).value !== '' || removals.has(control.field);
  const current = readControl(control);
  const before = saved[control.field] ?? (control.kind === 'toggle' ? false : control.nullable ? null : '');
  return !(current === before || (Number.isNaN(current) && before === ''));
}

/** Marks changed rows and shows the count of unsaved changes in the save bar. */
function updateDirty() {
  if (!saved) return;
  let changed = 0;
  for (const control of controls) {
    const isDirty = isChanged(control);
    element(control).closest('.row').classList.toggle('changed', isDirty);
    if (isDirty) changed += 1;
  }
  byId('saveBar').dataset.dirty = changed > 0 ? 'true' : 'false';
  byId('discardButton').disabled = changed === 0;
  if (changed > 0) setStatus(`${changed} unsaved change${changed === 1 ? '' : 's'}`, 'dirty');
  else if (byId('status').dataset.kind === 'dirty') setStatus('All changes saved', 'ok');
  return changed;
}

/** The whole object to save: the last saved object with every control's value laid over it. */
function collect() {
  const settings = { ...saved };
  for (const control of controls) {
    if (control.kind === 'credential') {
      const typed = element(control).value;
      if (typed !== '') settings[control.field] = typed;
      else if (removals.has(control.field)) settings[control.field] = '';
      else if (isReference(saved[control.field])) settings[control.field] = saved[control.field];
      else settings[control.field] = '';
      continue;
    }
    settings[control.field] = readControl(control);
  }
  return settings;
}

/** Checks what the browser can check (number ranges, steps) before asking the server. */
function localProblems() {
  const problems = [];
  for (const control of controls) {
    const input = element(control);
    if (control.kind === 'number' && !input.validity.valid) {
      problems.push({ path: `/${control.field}`, message: input.validationMessage });
    } else if (control.kind === 'number' && !control.nullable && input.value.trim() === '') {
      problems.push({ path: `/${control.field}`, message: 'Enter a number.' });
    }
  }
  return problems;
}

async function post(settings) {
  const response = await fetch(SETTINGS_URL, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-csrf-token': csrfToken,
      ...(revisionTag ? { 'if-match': revisionTag } : {}),
    },
    body: JSON.stringify(settings),
    credentials: 'same-origin',
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = body.error || { code: 'UNKNOWN', message: `HTTP ${response.status}` };
    if (response.status === 401) window.location.href = '/login';
    showProblems(error.problems);
    byId('reloadButton').hidden = error.code !== 'SAVE_CONFLICT';
    setStatus(`Not saved: ${error.message}`, 'error');
    return null;
  }
  revisionTag = response.headers.get('etag');
  byId('reloadButton').hidden = true;
  return body;
}

async function saveAll(event) {
  event.preventDefault();
  const problems = localProblems();
  if (problems.length > 0) {
    showProblems(problems);
    setStatus(
      `Not saved: ${problems.length} field${problems.length === 1 ? ' needs' : 's need'} attention.`,
      'error',
    );
    return;
  }
  clearFieldErrors();
  setStatus('Saving…');
  byId('saveButton').disabled = true;
  try {
    const result = await post(collect());
    if (!result) return;
    saved = result;
    removals.clear();
    fill(saved);
    setStatus('Saved', 'ok');
  } catch {
    setStatus('Not saved: the server could not be reached. Your changes are still here.', 'error');
  } finally {
    byId('saveButton').disabled = false;
  }
}

/**
 * Thinking controls save their own value right away (SPEC 4.3): the last saved object plus
 * this one change, so other unsaved edits stay in the form untouched.
 */
async function saveThinking(control) {
  const value = readControl(control);
  setStatus('Saving thinking preference…');
  const result = await post({ ...saved, [control.field]: value });
  if (!result) return;
  saved = result;
  if (updateDirty() === 0) setStatus('Thinking preference saved', 'ok');
}

/**
 * Capability discovery only changes availability: controls a model cannot use are greyed out,
 * their values (the user's preference) are never changed, so they survive model switches.
 */
async function refreshCapabilities(role) {
  const providerField = role === 'main' ? 'mainProvider' : 'codingProvider';
  const modelField = role === 'main' ? 'model' : 'codingModel';
  let provider = readControl(controlByField.get(providerField));
  if (provider === 'main') provider = readControl(controlByField.get('mainProvider'));
  const model =
    readControl(controlByField.get(modelField)) ||
    (role === 'coding' ? readControl(controlByField.get('model')) : '');
  const query = new URLSearchParams({ provider, model });
  let capabilities = { thinking: 'unknown' };
  try {
    const response = await fetch(`/api/models/capabilities?${query}`, { credentials: 'same-origin' });
    if (response.ok) capabilities = await response.json();
  } catch {
    // Discovery is advisory: on failure everything stays available.
  }
  const unavailable = capabilities.thinking === 'none';
  for (const control of controls) {
    if (control.thinking !== role) continue;
    const input = element(control);
    input.disabled = unavailable;
    input.closest('.row').classList.toggle('unavailable', unavailable);
    input.title = unavailable ? 'This model does not think; your preference is kept for other models.' : '';
  }
}

async function load() {
  const response = await fetch(SETTINGS_URL, { credentials: 'same-origin' });
  if (!response.ok) {
    setStatus('Could not load settings; reload the page to try again.', 'error');
    return false;
  }
  revisionTag = response.headers.get('etag');
  saved = await response.json();
  removals.clear();
  clearFieldErrors();
  fill(saved);
  return true;
}

async function start() {
  const session = await fetch('/api/session', { credentials: 'same-origin' });
  if (!session.ok) {
    window.location.href = '/login';
    return;
  }
  const info = await session.json();
  csrfToken = info.csrfToken;
  byId('accountName').textContent = info.username;
  if (!(await load())) return;
  setStatus('All changes saved');
  const form = byId('settingsForm');
  form.addEventListener('input', updateDirty);
  form.addEventListener('change', updateDirty);
  element(controlByField.get('themeId')).addEventListener('change', (event) =>
    applyTheme(event.target.value),
  );
  for (const control of controls) {
    if (control.thinking) element(control).addEventListener('change', () => saveThinking(control));
  }
  for (const field of ['mainProvider', 'model']) {
    element(controlByField.get(field)).addEventListener('change', () => {
      refreshCapabilities('main');
      refreshCapabilities('coding');
    });
  }
  for (const field of ['codingProvider', 'codingModel']) {
    element(controlByField.get(field)).addEventListener('change', () => refreshCapabilities('coding'));
  }
  for (const button of document.querySelectorAll('.remove-key')) {
    button.addEventListener('click', () => {
      const control = controls.find((candidate) => candidate.id === button.dataset.removeFor);
      if (removals.has(control.field)) removals.delete(control.field);
      else removals.add(control.field);
      showCredential(control);
      updateDirty();
    });
  }
  byId('discardButton').addEventListener('click', () => {
    removals.clear();
    clearFieldErrors();
    fill(saved);
    setStatus('Changes discarded');
  });
  byId('reloadButton').addEventListener('click', async () => {
    if (await load()) setStatus('Reloaded the current settings', 'ok');
    byId('reloadButton').hidden = true;
  });
  form.addEventListener('submit', saveAll);
  window.addEventListener('beforeunload', (event) => {
    if (byId('saveBar').dataset.dirty === 'true') event.preventDefault();
  });
  byId('signOutButton').addEventListener('click', async () => {
    await fetch('/api/session', { method: 'DELETE', headers: { 'x-csrf-token': csrfToken } });
    window.location.href = '/login';
  });
  await Promise.all([refreshCapabilities('main'), refreshCapabilities('coding')]);
  document.body.dataset.ready = 'true';
}

start();
