/**
 * The page-side half of browser_snapshot, kept as source text: it runs inside the page with
 * `page.evaluate`, and a string keeps transpilers from injecting helpers the page does not have.
 *
 * It walks the light DOM once, skipping hidden subtrees, and emits one line per meaningful node:
 * `- role "name" [states]: value -> selector`. Elements without a role are transparent; an element
 * with nothing notable inside is emitted as one line with its text. Actionable elements get a CSS
 * selector that matches exactly that element (checked with querySelectorAll). Output stops at the
 * character cap; the rest of the document is only counted.
 */
export const SNAPSHOT_SCRIPT = String.raw`(options) => {
  const cap = options.characterCap;
  const NAME_CAP = 100;
  const TEXT_CAP = 200;
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base', 'slot']);
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'tab', 'option', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'checkbox', 'radio', 'switch', 'cell', 'columnheader', 'rowheader', 'tooltip', 'treeitem']);
  const ACTIONABLE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'textbox', 'searchbox', 'combobox', 'listbox', 'slider',
    'spinbutton', 'treeitem', 'scrollbar']);
  const NOTABLE = 'a[href],button,input,select,textarea,summary,details,img,svg[role],canvas,iframe,video,audio,' +
    'h1,h2,h3,h4,h5,h6,ul,ol,li,table,form,nav,main,header,footer,aside,dialog,fieldset,label,p,section[aria-label],' +
    'section[aria-labelledby],progress,meter,hr,[role],[tabindex],[contenteditable],[onclick],[draggable="true"]';
  const lines = [];
  let used = 0;
  let cut = false;
  let shownElements = 0;
  let actionableShown = 0;
  let omittedElements = 0;
  let omittedActionable = 0;
  const viewportWidth = window.innerWidth;
  const viewportHeight = window.innerHeight;

  const collapse = (text) => (text || '').replace(/\s+/g, ' ').trim();
  const clip = (text, max) => (text.length > max ? text.slice(0, max - 1) + '…' : text);
  const quote = (text) => JSON.stringify(text);

  function isVisible(element) {
    if (element.getAttribute('aria-hidden') === 'true') return false;
    if (typeof element.checkVisibility === 'function') {
      return element.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true });
    }
    const style = getComputedStyle(element);
    return style.display !== 'none' && style.visibility !== 'hidden';
  }

  function inputType(element) {
    return (element.getAttribute('type') || 'text').toLowerCase();
  }

  function implicitRole(element) {
    const tag = element.localName;
    switch (tag) {
      case 'a': case 'area': return element.hasAttribute('href') ? 'link' : null;
      case 'button': return 'button';
      case 'input': {
        const type = inputType(element);
        if (type === 'hidden') return 'hidden';
        if (['button', 'submit', 'reset', 'image', 'file'].includes(type)) return 'button';
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'range') return 'slider';
        if (type === 'number') return 'spinbutton';
        if (element.hasAttribute('list')) return 'combobox';
        if (type === 'search') return 'searchbox';
        return 'textbox';
      }
      case 'select': return element.multiple || element.size > 1 ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'img': return element.getAttribute('alt') === '' ? null : 'img';
      case 'svg': return null;
      case 'canvas': return 'canvas';
      case 'video': return 'video';
      case 'audio': return 'audio';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'header': return element.closest('article,aside,main,nav,section') ? null : 'banner';
      case 'footer': return element.closest('article,aside,main,nav,section') ? null : 'contentinfo';
      case 'form': return 'form';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'th': return 'columnheader';
      case 'td': return 'cell';
      case 'dialog': return 'dialog';
      case 'summary': return 'button';
      case 'details': case 'fieldset': return 'group';
      case 'option': return 'option';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'section': return element.hasAttribute('aria-label') || element.hasAttribute('aria-labelledby') ? 'region' : null;
      case 'p': return 'paragraph';
      case 'iframe': return 'iframe';
      case 'hr': return 'separator';
      default: return null;
    }
  }

  function roleOf(element) {
    const explicit = (element.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit === 'none' || explicit === 'presentation') return null;
    if (explicit) return explicit;
    return implicitRole(element);
  }

  function isActionable(element, role) {
    if (role && ACTIONABLE_ROLES.has(role)) return true;
    const tag = element.localName;
    if (tag === 'input' || tag === 'button' || tag === 'select' || tag === 'textarea' || tag === 'summary') return true;
    if (tag === 'a' && element.hasAttribute('href')) return true;
    if (element.isContentEditable && !(element.parentElement && element.parentElement.isContentEditable)) return true;
    const tabIndex = element.getAttribute('tabindex');
    if (tabIndex !== null && Number(tabIndex) >= 0) return true;
    return element.hasAttribute('onclick') || element.getAttribute('draggable') === 'true';
  }

  function contentText(element) {
    let text = collapse(element.innerText !== undefined ? element.innerText : element.textContent);
    if (text === '') {
      const image = element.querySelector('img[alt],[aria-label]');
      if (image) text = collapse(image.getAttribute('alt') || image.getAttribute('aria-label'));
    }
    return text;
  }

  function textOfIds(ids) {
    return collapse(ids.split(/\s+/).map((id) => {
      const target = document.getElementById(id);
      return target ? (target.innerText !== undefined ? target.innerText : target.textContent) : '';
    }).join(' '));
  }

  function nameOf(element, role) {
    const labelledBy = element.getAttribute('aria-labelledby');
    if (labelledBy) { const text = textOfIds(labelledBy); if (text) return text; }
    const label = collapse(element.getAttribute('aria-label'));
    if (label) return label;
    const tag = element.localName;
    if ((tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'meter' || tag === 'progress') && element.labels && element.labels.length > 0) {
      const text = collapse([...element.labels].map((item) => item.innerText).join(' '));
      if (text) return text;
    }
    if (tag === 'input') {
      const type = inputType(element);
      if (type === 'submit' || type === 'reset' || type === 'button') return collapse(element.value) || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      if (type === 'image') return collapse(element.getAttribute('alt')) || 'Submit';
    }
    if (tag === 'img' || tag === 'area') { const alt = collapse(element.getAttribute('alt')); if (alt) return alt; }
    if (tag === 'fieldset') { const legend = element.querySelector(':scope > legend'); if (legend) return collapse(legend.innerText); }
    if (tag === 'table') { const caption = element.querySelector(':scope > caption'); if (caption) return collapse(caption.innerText); }
    if (tag === 'details') { const summary = element.querySelector(':scope > summary'); if (summary) return collapse(summary.innerText); }
    if (role && NAME_FROM_CONTENT.has(role)) { const text = contentText(element); if (text) return text; }
    const placeholder = collapse(element.getAttribute('placeholder'));
    if (placeholder) return placeholder;
    return collapse(element.getAttribute('title'));
  }

  function valueOf(element, role) {
    const tag = element.localName;
    if (tag === 'input') {
      const type = inputType(element);
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'hidden'].includes(type)) return null;
      if (type === 'password') return element.value ? '[' + element.value.length + ' characters hidden]' : '';
      if (type === 'file') return element.files && element.files.length ? [...element.files].map((file) => file.name).join(', ') : '';
      return element.value;
    }
    if (tag === 'textarea') return element.value;
    if (tag === 'select') return [...element.selectedOptions].map((option) => collapse(option.label || option.text)).join(', ');
    if (tag === 'progress' || tag === 'meter') return String(element.value);
    if (element.isContentEditable && role !== 'button') return contentText(element);
    const valueNow = element.getAttribute('aria-valuenow');
    return valueNow === null ? null : valueNow;
  }

  function statesOf(element, role) {
    const states = [];
    const tag = element.localName;
    if (role === 'heading') {
      const level = element.getAttribute('aria-level') || (/^h[1-6]$/.test(tag) ? tag.slice(1) : null);
      if (level) states.push('level=' + level);
    }
    if (tag === 'input' && (inputType(element) === 'checkbox' || inputType(element) === 'radio')) {
      states.push(element.indeterminate ? 'mixed' : element.checked ? 'checked' : 'unchecked');
    } else if (element.hasAttribute('aria-checked')) {
      const checked = element.getAttribute('aria-checked');
      states.push(checked === 'true' ? 'checked' : checked === 'mixed' ? 'mixed' : 'unchecked');
    }
    if (element.disabled === true || element.getAttribute('aria-disabled') === 'true') states.push('disabled');
    if (tag === 'details') states.push(element.open ? 'expanded' : 'collapsed');
    const expanded = element.getAttribute('aria-expanded');
    if (expanded !== null) states.push(expanded === 'true' ? 'expanded' : 'collapsed');
    if (element.getAttribute('aria-pressed') === 'true') states.push('pressed');
    if ((tag === 'option' && element.selected) || element.getAttribute('aria-selected') === 'true') states.push('selected');
    if (element.required === true || element.getAttribute('aria-required') === 'true') states.push('required');
    if (element.readOnly === true || element.getAttribute('aria-readonly') === 'true') states.push('readonly');
    if (element.getAttribute('aria-invalid') === 'true') states.push('invalid');
    if (document.activeElement === element && element !== document.body) states.push('focused');
    if (tag === 'a' && element.hasAttribute('href')) states.push('href=' + clip(element.getAttribute('href'), 120));
    if (tag === 'input' && (inputType(element) === 'range' || inputType(element) === 'number')) {
      if (element.min !== '') states.push('min=' + element.min);
      if (element.max !== '') states.push('max=' + element.max);
    }
    const rect = element.getBoundingClientRect();
    if (rect.bottom < 0 || rect.top > viewportHeight || rect.right < 0 || rect.left > viewportWidth) states.push('offscreen');
    return states;
  }

  function unique(selector) {
    try { return document.querySelectorAll(selector).length === 1; } catch { return false; }
  }
  const SELECTOR_ATTRIBUTES = ['data-testid', 'data-test', 'data-cy', 'data-qa', 'name', 'aria-label', 'placeholder', 'title', 'alt'];
  function attributeSelector(tag, attribute, value) {
    if (!value || value.length > 80 || /[\u0000-\u001f]/.test(value)) return null;
    return tag + '[' + attribute + '=' + JSON.stringify(value) + ']';
  }
  function selectorOf(element) {
    const tag = CSS.escape(element.localName);
    if (element.id) { const byId = '#' + CSS.escape(element.id); if (unique(byId)) return byId; }
    for (const attribute of SELECTOR_ATTRIBUTES) {
      const candidate = attributeSelector(tag, attribute, element.getAttribute(attribute));
      if (candidate && unique(candidate)) return candidate;
    }
    if (tag === 'input' && element.name && element.value !== undefined) {
      const candidate = attributeSelector(tag, 'name', element.name);
      const withValue = candidate && attributeSelector('', 'value', element.getAttribute('value') || '');
      if (candidate && withValue && unique(candidate + withValue)) return candidate + withValue;
    }
    if (tag === 'a') {
      const candidate = attributeSelector(tag, 'href', element.getAttribute('href'));
      if (candidate && unique(candidate)) return candidate;
    }
    const parts = [];
    let node = element;
    while (node && node.nodeType === 1 && node !== document.documentElement) {
      if (node !== element && node.id) {
        const anchor = '#' + CSS.escape(node.id);
        if (unique(anchor)) { parts.unshift(anchor); break; }
      }
      let part = CSS.escape(node.localName);
      const parent = node.parentElement;
      if (parent) {
        const sameTag = [...parent.children].filter((child) => child.localName === node.localName);
        if (sameTag.length > 1) part += ':nth-of-type(' + (sameTag.indexOf(node) + 1) + ')';
      }
      parts.unshift(part);
      const candidate = parts.join(' > ');
      if (parts.length > 1 || node !== element) { if (unique(candidate)) return candidate; }
      node = parent;
    }
    return parts.join(' > ');
  }

  function emit(depth, text) {
    const line = '  '.repeat(depth) + text;
    if (used + line.length + 1 > cap) { cut = true; return false; }
    lines.push(line);
    used += line.length + 1;
    return true;
  }

  function countRest(element) {
    if (SKIP.has(element.localName)) return;
    omittedElements += 1;
    if (isActionable(element, roleOf(element))) omittedActionable += 1;
    for (const child of element.children) countRest(child);
  }

  function describe(element, role, name, text) {
    let line = '- ' + (role || 'generic');
    if (name) line += ' ' + quote(clip(name, NAME_CAP));
    const states = statesOf(element, role);
    if (states.length) line += ' [' + states.join(', ') + ']';
    const value = valueOf(element, role);
    if (value !== null && value !== undefined) line += ': ' + quote(clip(String(value), TEXT_CAP));
    else if (text) line += ': ' + quote(clip(text, TEXT_CAP));
    return line;
  }

  function walk(element, depth) {
    if (cut) { countRest(element); return; }
    const tag = element.localName;
    if (SKIP.has(tag)) return;
    if (!isVisible(element)) return;
    const role = roleOf(element);
    if (role === 'hidden') return;
    const actionable = isActionable(element, role);
    const hasNotable = element.querySelector(NOTABLE) !== null;
    if (!role && !actionable) {
      if (!hasNotable && tag !== 'body') {
        const text = contentText(element);
        if (text) { shownElements += 1; emit(depth, '- text: ' + quote(clip(text, TEXT_CAP))); }
        return;
      }
      for (const node of element.childNodes) {
        if (cut) { if (node.nodeType === 1) countRest(node); continue; }
        if (node.nodeType === 1) walk(node, depth);
        else if (node.nodeType === 3) { const text = collapse(node.textContent); if (text) emit(depth, '- text: ' + quote(clip(text, TEXT_CAP))); }
      }
      return;
    }
    const name = nameOf(element, role);
    const leaf = !hasNotable || (role && NAME_FROM_CONTENT.has(role) && element.querySelector('a[href],button,input,select,textarea,[role],[tabindex]') === null);
    const text = leaf && !(role && NAME_FROM_CONTENT.has(role)) && !['textbox', 'searchbox', 'combobox', 'listbox'].includes(role) ? contentText(element) : '';
    let line = describe(element, role, name, text && text !== name ? text : '');
    if (actionable) line += ' -> ' + selectorOf(element);
    if (!leaf) line += ':';
    if (!emit(depth, line)) { countRest(element); return; }
    shownElements += 1;
    if (actionable) actionableShown += 1;
    if (leaf || role === 'listbox' || role === 'combobox') return;
    const before = lines.length;
    for (const node of element.childNodes) {
      if (cut) { if (node.nodeType === 1) countRest(node); continue; }
      if (node.nodeType === 1) walk(node, depth + 1);
      else if (node.nodeType === 3) { const childText = collapse(node.textContent); if (childText && childText !== name) emit(depth + 1, '- text: ' + quote(clip(childText, TEXT_CAP))); }
    }
    if (lines.length === before && lines[before - 1] === line) {
      lines[before - 1] = line.slice(0, -1);
      used -= 1;
    }
  }

  walk(document.body || document.documentElement, 0);
  const scrolling = document.scrollingElement || document.documentElement;
  return {
    url: location.href,
    title: document.title,
    viewport: { width: viewportWidth, height: viewportHeight },
    scroll: { x: Math.round(window.scrollX), y: Math.round(window.scrollY) },
    documentSize: { width: scrolling.scrollWidth, height: scrolling.scrollHeight },
    lines,
    cut,
    shownElements,
    actionableShown,
    omittedElements,
    omittedActionable,
  };
}`;

/** What the page script returns. */
export interface PageSnapshot {
  url: string;
  title: string;
  viewport: { width: number; height: number };
  scroll: { x: number; y: number };
  documentSize: { width: number; height: number };
  lines: string[];
  cut: boolean;
  shownElements: number;
  actionableShown: number;
  omittedElements: number;
  omittedActionable: number;
}
