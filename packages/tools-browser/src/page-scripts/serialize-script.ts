/** Calls a function result (with no arguments) and awaits it, so `() => ...` works as an expression. */
export const CALL_IF_FUNCTION_SCRIPT =
  'async (value) => (typeof value === "function" ? await value() : value)';

/**
 * Turns any page value into JSON-safe data, run inside the page: DOM nodes become short
 * descriptions, functions and symbols their names, cycles "[Circular]"; depth, keys and string
 * lengths are bounded so one evaluation cannot produce megabytes.
 */
export const SERIALIZE_SCRIPT = String.raw`(value) => {
  const MAX_DEPTH = 6, MAX_KEYS = 100, MAX_ITEMS = 200, MAX_STRING = 10000;
  const seen = new WeakSet();
  const describeNode = (node) => {
    if (node.nodeType === 1) {
      const id = node.id ? '#' + node.id : '';
      const classes = typeof node.className === 'string' && node.className.trim() ? '.' + node.className.trim().split(/\s+/).join('.') : '';
      return '<' + node.localName + id + classes + '>';
    }
    if (node.nodeType === 3) return '#text ' + JSON.stringify((node.textContent || '').slice(0, 200));
    if (node.nodeType === 9) return '#document';
    return '#node(' + node.nodeName + ')';
  };
  const typeName = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof Node !== 'undefined' && v instanceof Node ? 'node' : typeof v);
  const convert = (v, depth) => {
    switch (typeof v) {
      case 'undefined': return { $undefined: true };
      case 'string': return v.length > MAX_STRING ? v.slice(0, MAX_STRING) + '… [' + (v.length - MAX_STRING) + ' characters cut]' : v;
      case 'number': return Number.isFinite(v) ? v : String(v);
      case 'boolean': return v;
      case 'bigint': return v.toString() + 'n';
      case 'symbol': return v.toString();
      case 'function': return '[Function ' + (v.name || 'anonymous') + ']';
    }
    if (v === null) return null;
    if (typeof Node !== 'undefined' && v instanceof Node) return describeNode(v);
    if (v === window) return '[Window]';
    if (seen.has(v)) return '[Circular]';
    if (v instanceof Date) return isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
    if (v instanceof RegExp) return v.toString();
    if (v instanceof Error) return { name: v.name, message: v.message, stack: (v.stack || '').split('\n').slice(0, 5).join('\n') };
    if (depth >= MAX_DEPTH) return Array.isArray(v) ? '[Array(' + v.length + ')]' : '[Object]';
    seen.add(v);
    if (v instanceof Map) return { $map: convert([...v.entries()].slice(0, MAX_ITEMS), depth + 1), size: v.size };
    if (v instanceof Set) return { $set: convert([...v.values()].slice(0, MAX_ITEMS), depth + 1), size: v.size };
    if (typeof NodeList !== 'undefined' && (v instanceof NodeList || v instanceof HTMLCollection)) v = [...v];
    if (Array.isArray(v) || ArrayBuffer.isView(v)) {
      const items = Array.prototype.slice.call(v, 0, MAX_ITEMS).map((item) => convert(item, depth + 1));
      if (v.length > MAX_ITEMS) items.push('… ' + (v.length - MAX_ITEMS) + ' more items');
      return items;
    }
    const result = {};
    let keys;
    try { keys = Object.keys(v); } catch { return '[Object]'; }
    for (const key of keys.slice(0, MAX_KEYS)) {
      let item;
      try { item = v[key]; } catch (error) { item = '[Getter threw ' + (error && error.message) + ']'; }
      result[key] = convert(item, depth + 1);
    }
    if (keys.length > MAX_KEYS) result['…'] = (keys.length - MAX_KEYS) + ' more keys';
    return result;
  };
  return { type: typeName(value), value: convert(value, 0) };
}`;
