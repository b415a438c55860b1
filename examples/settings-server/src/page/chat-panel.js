// The settings page's chat panel (issue 15): sends a coding turn to POST /api/turns, shows its
// server-sent events (thinking, answer, tool calls and results) as they arrive, and undoes the
// last turn through POST /api/turns/undo. A same-origin script with no inline code or style, so
// it runs under the page's strict Content-Security-Policy; every value from the server is shown
// through textContent, never parsed as HTML.
(() => {
  const mount = document.getElementById('chat-panel');
  if (!mount) return;

  // What the model is told about its job; sent as the conversation's first message.
  const INSTRUCTIONS =
    "You are a coding assistant working in the user's workspace folder through the tools you are given. " +
    'Paths are relative to the workspace root. Make the change the user asks for with the tools, ' +
    'then say in one or two sentences what you changed.';

  const stylesheet = document.createElement('link');
  stylesheet.rel = 'stylesheet';
  stylesheet.href = '/chat-panel.css';
  document.head.append(stylesheet);

  let csrfToken = '';
  let running = null; // AbortController of the turn in progress
  const history = [{ role: 'system', content: INSTRUCTIONS }];

  function element(tag, attributes = {}, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const heading = element('h2', { id: 'chatHeading' }, 'Chat');
  const intro = element(
    'p',
    { class: 'help' },
    'Ask for a change in your workspace. The turn uses the saved settings; each turn can be undone.',
  );
  const log = element('ol', { id: 'chatLog', class: 'chat-log', role: 'log', 'aria-live': 'polite' });
  const form = element('form', { id: 'chatForm', class: 'chat-form' });
  const label = element('label', { for: 'chatInput', class: 'visually-hidden' }, 'Message');
  const input = element('textarea', {
    id: 'chatInput',
    rows: '3',
    placeholder: 'Create hello.txt that says hello',
  });
  const actions = element('div', { class: 'chat-actions' });
  const sendButton = element(
    'button',
    { type: 'submit', id: 'chatSendButton', class: 'button primary' },
    'Send',
  );
  const stopButton = element(
    'button',
    { type: 'button', id: 'chatStopButton', class: 'button quiet' },
    'Stop',
  );
  const undoButton = element(
    'button',
    { type: 'button', id: 'chatUndoButton', class: 'button quiet' },
    'Undo last turn',
  );
  stopButton.hidden = true;
  const status = element('p', { id: 'chatStatus', class: 'chat-status', role: 'status' }, '');
  actions.append(sendButton, stopButton, undoButton);
  form.append(label, input, actions);
  mount.setAttribute('aria-labelledby', 'chatHeading');
  mount.append(heading, intro, log, form, status);
  mount.hidden = false;

  function setRunning(controller) {
    running = controller;
    sendButton.disabled = controller !== null;
    undoButton.disabled = controller !== null;
    stopButton.hidden = controller === null;
  }

  function addEntry(kind, text) {
    const item = element('li', { class: `chat-entry chat-${kind}` });
    if (text !== undefined) item.textContent = text;
    log.append(item);
    item.scrollIntoView({ block: 'nearest' });
    return item;
  }

  async function session() {
    const response = await fetch('/api/session', { credentials: 'same-origin' });
    if (!response.ok) throw new Error('Sign in again to chat.');
    csrfToken = (await response.json()).csrfToken;
  }

  function errorText(body, fallback) {
    return body?.error?.message ? `${body.error.message} (${body.error.code})` : fallback;
  }

  // Splits a server-sent event stream into { event, data } records as its bytes arrive.
  async function* events(response) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (data !== undefined) yield { event, data: JSON.parse(data) };
        end = buffer.indexOf('\n\n');
      }
    }
  }

  function showTurn(data) {
    const mode = data.workspace?.permissionMode ?? '';
    const line = `${data.provider} · ${data.model}${mode ? ` · ${mode} mode` : ''}${data.keySent ? '' : ' · no key sent'}`;
    addEntry('meta', line);
    for (const warning of data.warnings ?? []) addEntry('warning', warning.message);
  }

  async function runTurn(text) {
    history.push({ role: 'user', content: text });
    addEntry('user', text);
    const controller = new AbortController();
    setRunning(controller);
    status.textContent = 'Working…';
    let answer = null;
    let answerText = '';
    let thinking = null;
    const toolEntries = new Map();
    try {
      if (!csrfToken) await session();
      const response = await fetch('/api/turns', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: JSON.stringify({ messages: history }),
        signal: controller.signal,
      });
      if (!response.ok) {
        const body = await response.json().catch(() => null);
        addEntry('error', errorText(body, `The turn was refused (${response.status}).`));
        status.textContent = 'Not sent.';
        history.pop();
        return;
      }
      for await (const { event, data } of events(response)) {
        if (event === 'turn') showTurn(data);
        else if (event === 'reasoning') {
          if (!thinking) {
            const item = addEntry('thinking');
            const details = element('details');
            details.append(element('summary', {}, 'Thinking'), element('p'));
            item.append(details);
            thinking = details.querySelector('p');
          }
          thinking.textContent += data.text;
        } else if (event === 'delta') {
          answer ??= addEntry('assistant', '');
          answerText += data.text;
          answer.textContent = answerText;
        } else if (event === 'tool-call') {
          const item = addEntry('tool');
          item.append(element('span', { class: 'tool-name' }, data.name), element('code', {}, data.args));
          toolEntries.set(data.id, item);
          answer = null; // text after a tool call starts a new bubble
        } else if (event === 'tool-result') {
          const item = toolEntries.get(data.id) ?? addEntry('tool');
          item.classList.add(data.isError ? 'tool-failed' : 'tool-ok');
          const details = element('details');
          details.append(
            element('summary', {}, data.isError ? `failed${data.code ? ` (${data.code})` : ''}` : 'result'),
            element('pre', {}, data.truncated ? `${data.text}\n…` : data.text),
          );
          item.append(details);
        } else if (event === 'compaction') {
          addEntry(
            'meta',
            `Compacted ${data.compactedResults} old tool result(s) to stay within the context limit.`,
          );
        } else if (event === 'done') {
          status.textContent = `Done (${data.toolCalls} tool call${data.toolCalls === 1 ? '' : 's'}).`;
        } else if (event === 'error') {
          addEntry('error', `${data.message} (${data.code})`);
          status.textContent = 'The turn ended with an error.';
        }
      }
      if (answerText) history.push({ role: 'assistant', content: answerText });
    } catch (error) {
      if (controller.signal.aborted) status.textContent = 'Stopped.';
      else {
        addEntry('error', error instanceof Error ? error.message : 'The turn failed.');
        status.textContent = 'The turn failed.';
      }
    } finally {
      setRunning(null);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || running) return;
    input.value = '';
    void runTurn(text);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  stopButton.addEventListener('click', () => running?.abort());
  undoButton.addEventListener('click', async () => {
    undoButton.disabled = true;
    status.textContent = 'Undoing the last turn…';
    try {
      if (!csrfToken) await session();
      const response = await fetch('/api/turns/undo', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'x-csrf-token': csrfToken },
      });
      const body = await response.json().catch(() => null);
      if (response.ok) {
        addEntry('meta', body?.message ?? 'The last turn was undone.');
        status.textContent = 'Last turn undone.';
      } else {
        addEntry('error', errorText(body, `Undo failed (${response.status}).`));
        status.textContent = 'Nothing was undone.';
      }
    } finally {
      undoButton.disabled = running !== null;
    }
  });
})();
