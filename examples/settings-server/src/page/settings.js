// The settings page. Loads settings from the GET endpoint and saves the whole object through the
// POST endpoint. Credential inputs never show a value: only whether a key is set.

const SETTINGS_URL = '/api/system-settings/client-defaults';
const controls = JSON.parse(document.getElementById('controls').textContent);
const controlByField = new Map(controls.map((control) => [control.field, control]));
let saved = null; // the last object the server answered with (credentials as references)
let csrfToken = '';
const removals = new Set(); // credential fields the user asked to remove

function element(control) {
  return document.getElementById(control.id);
}

function setStatus(text, isError = false) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.className = isError ? 'error' : '';
}

function showProblems(problems) {
  const list = document.getElementById('problems');
  list.replaceChildren(
    ...(problems || []).map((problem) => {
      const item = document.createElement('li');
      item.textContent = `${problem.path || '(body)'}: ${problem.message}`;
      return item;
    }),
  );
}

function isReference(value) {
  return typeof value === 'string' && value.startsWith('akref1.');
}

function showCredential(control) {
  const input = element(control);
  const status = document.getElementById(`${control.id}Status`);
  const set = isReference(saved[control.field]) && !removals.has(control.field);
  input.value = '';
  input.placeholder = set ? 'Key set; type to replace' : 'No key set';
  input.dataset.keySet = set ? 'true' : 'false';
  status.textContent = removals.has(control.field) ? 'will be removed on save' : set ? 'Key set' : 'Not set';
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

async function post(settings) {
  const response = await fetch(SETTINGS_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
    body: JSON.stringify(settings),
    credentials: 'same-origin',
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = body.error || { code: 'UNKNOWN', message: `HTTP ${response.status}` };
    showProblems(error.problems);
    setStatus(`Not saved: ${error.message}`, true);
    if (response.status === 401) window.location.href = '/login';
    return null;
  }
  showProblems([]);
  return body;
}

async function saveAll(event) {
  event.preventDefault();
  setStatus('Saving…');
  const result = await post(collect());
  if (!result) return;
  saved = result;
  removals.clear();
  fill(saved);
  setStatus('Saved');
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
  setStatus('Thinking preference saved');
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

async function start() {
  const session = await fetch('/api/session', { credentials: 'same-origin' });
  if (!session.ok) {
    window.location.href = '/login';
    return;
  }
  const info = await session.json();
  csrfToken = info.csrfToken;
  document.getElementById('accountName').textContent = info.username;
  const response = await fetch(SETTINGS_URL, { credentials: 'same-origin' });
  if (!response.ok) {
    setStatus('Could not load settings', true);
    return;
  }
  saved = await response.json();
  fill(saved);
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
      removals.add(control.field);
      showCredential(control);
    });
  }
  document.getElementById('settingsForm').addEventListener('submit', saveAll);
  document.getElementById('signOutButton').addEventListener('click', async () => {
    await fetch('/api/session', { method: 'DELETE', headers: { 'x-csrf-token': csrfToken } });
    window.location.href = '/login';
  });
  await Promise.all([refreshCapabilities('main'), refreshCapabilities('coding')]);
  document.body.dataset.ready = 'true';
}

start();
