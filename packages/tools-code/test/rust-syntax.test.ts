import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyzeText } from '../src/syntax/analyze-file.js';
import {
  callOk,
  type FixtureSession,
  openFixtureProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

// On dtolnay/anyhow (fetched for the probe, not kept), every Rust file answered
// LANGUAGE_NOT_SUPPORTED ("No grammar or language server covers src/context.rs"), code_find_definition
// of `Context` found nothing, and the map's module lines were bare paths. The rust-crate fixture
// has anyhow's shapes: a crate root declaring its modules, a trait implemented for a foreign type,
// an error struct with its impl blocks, a module in a folder of its own, a macro, an integration test.
describe('Rust from syntax trees (rust-crate fixture)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('rust-crate');
  });
  afterAll(() => session?.close());

  it('outlines traits, impl blocks under their type, structs, enums, constants and statics', async () => {
    expect((await callOk(session, 'file_outline', { path: 'src/context.rs' })).text).toBe(
      [
        'src/context.rs (Rust, 25 lines, 7 symbols, engine: syntax)',
        'L4  interface Context (exported)',
        'L5    method context (exported)',
        'L7    method with_context (exported)',
        'L11  method Option.context',
        'L15  method Option.with_context',
        'L23  constant MAX_CHAIN (exported)',
        'L24  variable GREETING',
      ].join('\n'),
    );
    expect((await callOk(session, 'file_outline', { path: 'src/error.rs' })).text).toBe(
      [
        'src/error.rs (Rust, 38 lines, 11 symbols, engine: syntax)',
        'L3  struct Error (exported)',
        'L4    field message (exported)',
        'L5    field chain',
        'L8  enum Kind (exported)',
        'L9    enum_member Message',
        'L10    enum_member Wrapped',
        'L14  method Error.msg (exported)',
        'L18  method Error.chain (exported)',
        'L22  method Error.kind',
        'L28  method Error.fmt',
        'L34  method Error.fmt',
      ].join('\n'),
    );
  });

  it('lists a crate root’s modules, its exported macro, and no function nested in another', async () => {
    expect((await callOk(session, 'file_outline', { path: 'src/lib.rs' })).text).toBe(
      [
        'src/lib.rs (Rust, 19 lines, 5 symbols, engine: syntax)',
        'L2  module context',
        'L3  module error',
        'L4  module fmt',
        'L10  type Result (exported)',
        'L14  function bail (exported)',
      ].join('\n'),
    );
    expect((await callOk(session, 'file_outline', { path: 'src/fmt/inner.rs' })).data.symbols).toHaveLength(
      1,
    );
  });

  it('counts the names used in type aliases, constants, statics, signatures and macros', async () => {
    const analysis = (await analyzeText(
      'src/lib.rs',
      [
        'pub type Result<T> = core::result::Result<T, Failure>;',
        'const LIMIT: Budget = Budget::new();',
        'static NAME: Label = Label::EMPTY;',
        'pub trait Source { fn read(&self) -> Chunk; }',
        'macro_rules! fail { () => { Failure::default() } }',
      ].join('\n'),
    ))!;
    for (const name of ['Failure', 'Budget', 'Label', 'Chunk'])
      expect(analysis.identifiers.has(name), name).toBe(true);
  });

  it('finds definitions and member uses by name', async () => {
    const definition = await callOk(session, 'code_find_definition', { symbol: 'Context' });
    expect(definition.text).toBe(
      '1 definition (engine: syntax tree, by name)\nsrc/context.rs:4:11 interface',
    );
    const references = await callOk(session, 'code_find_references', { symbol: 'Error.msg' });
    expect(references.text.split('\n').slice(0, 4)).toEqual([
      '3 references (engine: syntax tree, by name)',
      'src/context.rs:12:35  self.ok_or_else(|| Error::msg(message))',
      'src/context.rs:18:20  Error::msg(&message)',
      'src/error.rs:14:12  pub fn msg(message: &str) -> Self {',
    ]);
  });

  it('links a module file to the file declaring it, in a folder of its own too', async () => {
    const { data } = await callOk(session, 'repo_map', { include: ['entrypoints', 'next_files'] });
    expect(data.entrypoints).toEqual([{ path: 'src/lib.rs', reason: 'conventional entry file name' }]);
    const next = new Map(
      (data.next_files as Structured[]).map((entry) => [entry.path, entry.reason as string]),
    );
    // `mod fmt;` in src/lib.rs is src/fmt.rs; `mod inner;` in src/fmt.rs is src/fmt/inner.rs.
    expect(next.get('src/fmt.rs')).toMatch(/^imported by 1;/);
    expect(next.get('src/fmt/inner.rs')).toMatch(/^imported by 1;/);
    expect(next.get('src/error.rs')).toMatch(/^imported by 1;/);
  });

  it('says its diagnostics are syntax only', async () => {
    const { text } = await callOk(session, 'code_diagnostics', {});
    expect(text.split('\n')[0]).toMatch(/all for syntax only: no language server checks Rust here/);
  });
});
