import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserHarness, createHarness, errorCode, selectorFor, structured, textOf } from './helpers.js';

let harness: BrowserHarness;
const call = (name: string, args: Record<string, unknown> = {}) => harness.runtime.call(name, args);
const evaluate = async (expression: string) =>
  structured(await call('browser_evaluate', { expression })).value;

beforeAll(async () => {
  harness = await createHarness({ evaluateTimeoutCapMs: 2_000 });
});
afterAll(async () => {
  await harness.close();
});

describe('a workspace app in a real Chromium session', () => {
  let snapshot = '';

  it('opens a workspace file through the loopback static server', async () => {
    const result = await call('browser_open', { target: 'index.html', width: 1024, height: 768 });
    const facts = structured(result);
    expect(facts).toMatchObject({
      status: 200,
      title: 'Test App',
      viewport: { width: 1024, height: 768 },
      origin: 'browser',
    });
    expect(facts.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/index\.html$/);
    expect(result._meta).toMatchObject({ origin: 'browser' });
    // The stylesheet and script loaded with their MIME types (nosniff would refuse them otherwise).
    expect(await evaluate('getComputedStyle(document.body).fontFamily')).toBe('sans-serif');
    expect(await evaluate('typeof document.getElementById("submit").onclick')).toBe('object');
  });

  it('snapshots roles, names, values and states with a unique selector per actionable element', async () => {
    const result = await call('browser_snapshot');
    snapshot = textOf(result);
    expect(snapshot).toContain('heading "Sign up" [level=1]');
    expect(snapshot).toMatch(/textbox "Name": "initial" -> #name/);
    expect(snapshot).toMatch(/combobox "Plan": "Free" -> #plan/);
    expect(snapshot).toMatch(/checkbox "I agree" \[unchecked\] -> #agree/);
    expect(snapshot).toMatch(/paragraph \[offscreen\]: "The end"/);
    expect(structured(result)).toMatchObject({ truncated: false, title: 'Test App' });
    const twins = snapshot.split('\n').filter((line) => line.includes('button "Twin"'));
    expect(twins).toHaveLength(2);
    const twinSelectors = twins.map((line) => line.slice(line.lastIndexOf(' -> ') + 4));
    expect(new Set(twinSelectors).size).toBe(2);
    for (const selector of twinSelectors) {
      expect(await evaluate(`document.querySelectorAll(${JSON.stringify(selector)}).length`)).toBe(1);
    }
  });

  it('types, selects, checks and clicks through snapshot selectors', async () => {
    const nameField = selectorFor(snapshot, /textbox "Name"/);
    const typed = structured(
      await call('browser_interact', { action: 'type', selector: nameField, text: 'Ann Lee', clear: true }),
    );
    expect(typed.value).toBe('Ann Lee');
    await call('browser_interact', { action: 'type', selector: nameField, text: '!' });
    expect(await evaluate('document.getElementById("name").value')).toBe('Ann Lee!');
    const selected = structured(
      await call('browser_interact', {
        action: 'select',
        selector: selectorFor(snapshot, /combobox "Plan"/),
        values: ['Team'],
      }),
    );
    expect(selected.selected).toEqual(['team']);
    structured(
      await call('browser_interact', {
        action: 'set_checked',
        selector: selectorFor(snapshot, /checkbox "I agree"/),
      }),
    );
    structured(
      await call('browser_interact', { action: 'click', selector: selectorFor(snapshot, /button "Submit"/) }),
    );
    expect(await evaluate('document.getElementById("output").textContent')).toBe(
      'submitted Ann Lee! team true',
    );
    structured(await call('browser_interact', { action: 'set_checked', selector: '#agree', checked: false }));
    expect(await evaluate('document.getElementById("agree").checked')).toBe(false);
  });

  it('presses keys and chords, and refuses unknown key names', async () => {
    structured(await call('browser_interact', { action: 'press_key', key: 'Control+A' }));
    expect(await evaluate('document.getElementById("keys").textContent')).toBe('key Control+A');
    structured(await call('browser_interact', { action: 'press_key', key: 'Escape', selector: '#name' }));
    expect(await evaluate('document.getElementById("keys").textContent')).toBe('key Escape');
    expect(errorCode(await call('browser_interact', { action: 'press_key', key: 'NotAKey' }))).toBe(
      'KEY_INVALID',
    );
  });

  it('drags an element onto a drop target', async () => {
    const result = structured(
      await call('browser_interact', {
        action: 'drag',
        selector: '#drag-source',
        target_selector: '#drop-zone',
      }),
    );
    expect(result.action).toBe('drag');
    expect(await evaluate('document.getElementById("output").textContent')).toBe('dropped in zone');
    structured(
      await call('browser_interact', { action: 'drag', selector: '#drag-source', to_x: 900, to_y: 100 }),
    );
    expect(await evaluate('document.getElementById("output").textContent')).toBe('dropped outside');
  });

  it('scrolls by delta, to an edge and into view', async () => {
    const byDelta = structured(await call('browser_interact', { action: 'scroll', delta_y: 500 }));
    expect(byDelta.scroll).toMatchObject({ y: 500 });
    const toBottom = structured(await call('browser_interact', { action: 'scroll', edge: 'bottom' }));
    expect((toBottom.scroll as { y: number }).y).toBeGreaterThan(2000);
    structured(await call('browser_interact', { action: 'scroll', edge: 'top' }));
    expect(await evaluate('window.scrollY')).toBe(0);
    structured(await call('browser_interact', { action: 'scroll', selector: '#bottom', into_view: true }));
    expect(await evaluate('window.scrollY')).toBeGreaterThan(2000);
    structured(await call('browser_interact', { action: 'scroll', edge: 'top' }));
  });

  it('clicks at page pixels and with offsets, and hovers', async () => {
    structured(await call('browser_interact', { action: 'click', x: 5, y: 5 }));
    structured(
      await call('browser_interact', { action: 'click', selector: '#submit', x: 2, y: 2, click_count: 2 }),
    );
    structured(await call('browser_interact', { action: 'hover', selector: '#thrower' }));
    expect(await evaluate('document.querySelector("#thrower").matches(":hover")')).toBe(true);
  });

  it('explains selectors that match nothing, several elements or are not CSS', async () => {
    const ambiguous = await call('browser_interact', { action: 'click', selector: '.twin' });
    expect(errorCode(ambiguous)).toBe('SELECTOR_AMBIGUOUS');
    expect(textOf(ambiguous)).toContain('matches 2 elements');
    expect(ambiguous.structuredContent?.error).toMatchObject({ details: { count: 2 } });
    const missing = await call('browser_interact', { action: 'click', selector: '#does-not-exist' });
    expect(errorCode(missing)).toBe('SELECTOR_NOT_FOUND');
    expect(errorCode(await call('browser_interact', { action: 'click', selector: 'button[' }))).toBe(
      'SELECTOR_INVALID',
    );
  });

  it('refuses arguments that do not fit the action', async () => {
    const cases: Record<string, unknown>[] = [
      { action: 'click' },
      { action: 'click', selector: '#submit', text: 'x' },
      { action: 'click', x: 1 },
      { action: 'type', selector: '#name' },
      { action: 'type', text: 'x' },
      { action: 'drag', selector: '#drag-source' },
      { action: 'drag', target_selector: '#drop-zone' },
      { action: 'press_key' },
      { action: 'select', selector: '#plan' },
      { action: 'scroll' },
      { action: 'scroll', into_view: true },
    ];
    for (const args of cases) {
      expect(errorCode(await call('browser_interact', args)), JSON.stringify(args)).toBe(
        'INTERACTION_ARGUMENTS_INVALID',
      );
    }
  });

  it('records the uncaught exception of a button and reports new errors after the interaction', async () => {
    const result = await call('browser_interact', { action: 'click', selector: '#thrower' });
    expect(structured(result).newErrorCounts).toMatchObject({ uncaught_exception: 1 });
    expect(textOf(result)).toContain('New errors: 1 uncaught exception');
  });

  it('waits for durations, selectors, text and URLs, and says what was not met', async () => {
    expect(structured(await call('browser_wait', { duration_ms: 10 })).waitedMs).toBeGreaterThanOrEqual(10);
    await evaluate(
      'setTimeout(() => { const p = document.createElement("p"); p.id = "late"; p.textContent = "Arrived late"; document.body.append(p); }, 200)',
    );
    const met = structured(
      await call('browser_wait', {
        selector: '#late',
        text: 'Arrived late',
        url_contains: 'index.html',
        timeout_ms: 10_000,
      }),
    );
    expect(met.conditions).toHaveLength(3);
    structured(await call('browser_wait', { selector: '#late', state: 'attached' }));
    await evaluate('document.getElementById("late").remove()');
    structured(await call('browser_wait', { selector: '#late', state: 'detached' }));
    structured(await call('browser_wait', { selector: '#drop-zone', state: 'visible' }));
    structured(await call('browser_wait', {}));
    const missed = await call('browser_wait', { selector: '#never', timeout_ms: 200 });
    expect(errorCode(missed)).toBe('WAIT_TIMEOUT');
    expect(textOf(missed)).toContain('#never is not visible');
  });

  it('resizes the viewport without reloading', async () => {
    await evaluate('window.marker = 42');
    const result = structured(await call('browser_resize', { width: 500, height: 400 }));
    expect(result.window).toEqual({ width: 500, height: 400 });
    expect(await evaluate('window.marker')).toBe(42);
  });

  it('evaluates expressions: values, promises, functions, DOM nodes, exceptions, timeouts', async () => {
    const object = structured(
      await call('browser_evaluate', {
        expression: '({ list: [1, "two", null], node: document.body, date: new Date(0) })',
      }),
    );
    expect(object).toMatchObject({
      ok: true,
      type: 'object',
      value: { list: [1, 'two', null], node: '<body>', date: '1970-01-01T00:00:00.000Z' },
    });
    expect(await evaluate('new Promise((resolve) => setTimeout(() => resolve("later"), 20))')).toBe('later');
    expect(await evaluate('() => document.title')).toBe('Test App');
    expect(await evaluate('typeof page')).toBe('undefined');
    const cyclic = structured(await call('browser_evaluate', { expression: 'const a = {}; a.self = a; a' }));
    expect(cyclic.value).toEqual({ self: '[Circular]' });
    const thrown = await call('browser_evaluate', { expression: 'null.property' });
    const thrownFacts = structured(thrown);
    expect(thrownFacts.ok).toBe(false);
    expect(thrownFacts.error).toMatchObject({ kind: 'exception' });
    expect(textOf(thrown)).toMatch(/^Errors before the evaluation: .*\nok: false/);
  });

  it('terminates a runaway evaluation at the configured cap and keeps the page usable', async () => {
    const result = await call('browser_evaluate', { expression: 'while (true) {}', timeout_ms: 600_000 });
    const facts = structured(result);
    expect(facts).toMatchObject({ ok: false, timeoutMs: 2_000, error: { kind: 'timeout' } });
    expect(textOf(result)).toContain('capped to the configured 2000');
    expect(await evaluate('1 + 1')).toBe(2);
  });

  it('saves screenshots in the hidden shots folder and at a deliverable path', async () => {
    const hidden = await call('browser_screenshot', {});
    const hiddenFacts = structured(hidden);
    expect(hiddenFacts).toMatchObject({ deliverable: false, fullPage: true });
    expect(hiddenFacts.path).toMatch(/^\.assistant-kit\/shots\/shot-.*\.png$/);
    expect(hiddenFacts.height as number).toBeGreaterThan(3000);
    const image = hidden.content.find((part) => part.type === 'image');
    expect(image).toMatchObject({ mimeType: 'image/png' });
    const onDisk = await readFile(path.join(harness.root, hiddenFacts.path as string));
    expect(onDisk.subarray(1, 4).toString()).toBe('PNG');
    expect(await readFile(path.join(harness.root, '.assistant-kit/.gitignore'), 'utf8')).toBe('*\n');

    const deliverable = structured(
      await call('browser_screenshot', { path: 'preview.png', full_page: false }),
    );
    expect(deliverable).toMatchObject({
      path: 'preview.png',
      deliverable: true,
      replaced: false,
      width: 500,
      height: 400,
    });
    expect((await stat(path.join(harness.root, 'preview.png'))).size).toBe(deliverable.bytes);
    expect(structured(await call('browser_screenshot', { path: 'preview.png' })).replaced).toBe(true);

    expect(errorCode(await call('browser_screenshot', { path: 'preview.jpg' }))).toBe(
      'SCREENSHOT_PATH_INVALID',
    );
    expect(errorCode(await call('browser_screenshot', { path: '../escape.png' }))).toBe(
      'PATH_OUTSIDE_WORKSPACE',
    );
    expect(errorCode(await call('browser_screenshot', { path: 'sub' }))).toBe('SCREENSHOT_PATH_INVALID');
    // Paths go through the Workspace: version-control metadata and the service's hidden folder are refused.
    expect(errorCode(await call('browser_screenshot', { path: '.git/shot.png' }))).toBe('PATH_PROTECTED');
    expect(errorCode(await call('browser_screenshot', { path: '.assistant-kit/shots/mine.png' }))).toBe(
      'PATH_PROTECTED',
    );
  });

  it('navigates within the session while the ledger persists', async () => {
    const result = structured(
      await call('browser_navigate', { target: 'sub/page2.html', wait_until: 'networkidle2' }),
    );
    expect(result).toMatchObject({ title: 'Page Two', status: 200 });
    expect((result.errorCounts as { uncaught_exception: number }).uncaught_exception).toBe(1);
    const folder = structured(await call('browser_navigate', { target: 'sub', wait_until: 'networkidle0' }));
    expect(folder.url).toMatch(/\/sub\/$/);
    expect(textOf(await call('browser_snapshot'))).toContain('link "page2.html"');
    const missing = await call('browser_navigate', { target: 'missing.html' });
    expect(errorCode(missing)).toBe('PATH_NOT_FOUND');
    structured(await call('browser_navigate', { target: 'index.html', wait_until: 'domcontentloaded' }));
  });

  it('reports errors with a verifiable log receipt, and clears the index on request', async () => {
    const first = await call('browser_errors');
    const report = structured(first);
    const visit = report.entrypointVisit as { valid: boolean; reasons: string[] };
    expect(visit.valid).toBe(false);
    const errors = report.errors as {
      counts: Record<string, number>;
      entries: { kind: string; message: string }[];
    };
    expect(errors.counts.uncaught_exception).toBe(1);
    expect(errors.counts.request_blocked).toBeGreaterThanOrEqual(1);
    expect(
      errors.entries.some(
        (entry) => entry.kind === 'uncaught_exception' && entry.message.includes('boom from button'),
      ),
    ).toBe(true);
    const blocked = errors.entries.find((entry) => entry.kind === 'request_blocked');
    expect(blocked?.message).toContain('203.0.113.7');
    // Secrets in query strings never reach the ledger.
    expect(textOf(first)).not.toContain('abc123');
    const receipt = report.diagnosticLog as {
      path: string;
      entries: number;
      sha256: string;
      complete: boolean;
    };
    expect(receipt.complete).toBe(true);
    const log = await readFile(path.join(harness.root, receipt.path));
    expect(sha256Hex(log)).toBe(receipt.sha256);
    expect(log.toString('utf8').trim().split('\n')).toHaveLength(receipt.entries);
    expect(log.toString('utf8')).not.toContain('abc123');

    const cleared = structured(await call('browser_errors', { clear: true }));
    expect(cleared.cleared).toBe(true);
    const after = structured(await call('browser_errors'));
    expect((after.errors as { total: number }).total).toBe(0);
    expect((after.entrypointVisit as { valid: boolean }).valid).toBe(true);
  });

  it('dismisses dialogs instead of hanging, and records them', async () => {
    expect(await evaluate('(alert("hello"), confirm("sure?"))')).toBe(false);
  });

  it('closes the session with the final index and receipt', async () => {
    const result = await call('browser_close', { reason: 'test finished' });
    const facts = structured(result);
    expect(facts).toMatchObject({ closed: true, reason: 'test finished' });
    const receipt = facts.diagnosticLog as { path: string; sha256: string };
    const log = await readFile(path.join(harness.root, receipt.path), 'utf8');
    expect(sha256Hex(log)).toBe(receipt.sha256);
    expect(log).toContain('Session closed: test finished');
    expect(log).toContain('dialog dismissed automatically: hello');
    expect(errorCode(await call('browser_snapshot'))).toBe('BROWSER_NOT_OPEN');
    expect(errorCode(await call('browser_errors'))).toBe('BROWSER_NOT_OPEN');
  });

  it('refuses targets that escape the workspace or use other schemes', async () => {
    expect(errorCode(await call('browser_open', { target: '../outside.html' }))).toBe(
      'PATH_OUTSIDE_WORKSPACE',
    );
    expect(errorCode(await call('browser_open', { target: '/etc/passwd' }))).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(errorCode(await call('browser_open', { target: 'file:///etc/passwd' }))).toBe(
      'PATH_OUTSIDE_WORKSPACE',
    );
    expect(errorCode(await call('browser_open', { target: 'javascript:alert(1)' }))).toBe('TARGET_INVALID');
    expect(errorCode(await call('browser_open', { target: 'chrome://settings' }))).toBe('TARGET_INVALID');
    expect(errorCode(await call('browser_open', { target: 'nope.html' }))).toBe('PATH_NOT_FOUND');
  });

  it('opens a folder, a file URL inside the workspace, and a path with a fragment', async () => {
    expect(structured(await call('browser_open', { target: '.' })).title).toBe('Test App');
    const fileUrl = structured(
      await call('browser_open', { target: `file://${harness.root}/sub/page2.html` }),
    );
    expect(fileUrl.title).toBe('Page Two');
    const withFragment = structured(await call('browser_open', { target: 'index.html#bottom', wait_ms: 10 }));
    expect(withFragment.url).toMatch(/index\.html#bottom$/);
  });
});
