// R8 / ProGuard mapping files (`mapping.txt`), as far as deobfuscating a stack frame needs them:
//
//   # compiler: R8                                          header comments; pg_map_id is the id
//   # pg_map_id: 5b46fdc                                     of the build the mapping belongs to
//   com.shop.Cart -> a.b:                                    class: original -> obfuscated
//   # {"id":"sourceFile","fileName":"Cart.kt"}               the class's source file (R8 metadata)
//       java.util.List items -> a                            field: skipped
//       1:4:void add(int):20:23 -> a                         method lines 1..4 were 20..23 of add
//       5:5:void com.shop.Stock.check(int):40:40 -> a        lines 5..5: check (inlined, innermost)
//       5:5:void add(int):24 -> a                              ... called from add, line 24
//       void clear() -> b                                    no line information
//
// A method line is `[start:end:]type [class.]name(args)[:origStart[:origEnd]] -> obfuscated`. R8
// writes an inlined call as several lines with the same range and obfuscated name, innermost
// first; the outer ones name the call site, often as a single original line. A frame's line inside
// a range maps to origStart + (line - start) when the original range has the same length, else to
// origStart; without an original range the line is unchanged (ProGuard without line mapping).
// Other metadata lines (`# {"id":"com.android.tools.r8.synthesized"}`, outlines, residual
// signatures) are skipped: a frame still gets its original class, method and line.

export interface ProguardLocation {
  /** The original class and method: `com.shop.Cart.add`. */
  function: string;
  file: string;
  line: number | null;
}

interface MemberLine {
  start: number | null;
  end: number | null;
  /** The original class when the method came from another class (inlined), else null. */
  owner: string | null;
  method: string;
  origStart: number | null;
  origEnd: number | null;
}

interface ClassMapping {
  original: string;
  sourceFile: string | null;
  /** Method lines by obfuscated name, in file order. */
  methods: Map<string, MemberLine[]>;
}

export interface ProguardMapping {
  /** The mapping's `pg_map_id`, when its header names one. */
  readonly mapId: string | null;
  hasClass(obfuscated: string): boolean;
  /**
   * The original frames of obfuscated `cls.method` at `line` (null: no line), innermost first; more
   * than one when R8 inlined calls into that line. Null when the class or method is not in the
   * mapping, or the name stands for several original methods and the line cannot tell which.
   */
  lookup(cls: string, method: string, line: number | null, fileExtension: string): ProguardLocation[] | null;
}

const CLASS_LINE = /^(\S+) -> (\S+):$/;
// [start:end:]type name(args)[:origStart[:origEnd]] -> obfuscated
const METHOD_LINE = /^(?:(\d+):(\d+):)?(\S+) ([^\s(]+)\(([^)]*)\)(?::(\d+)(?::(\d+))?)? -> (\S+)$/;
const MAP_ID = /^#\s*pg_map_id:\s*(\S+)/;
const SOURCE_FILE = /^#\s*(\{.*"id"\s*:\s*"sourceFile".*\})\s*$/;

/** The `pg_map_id` and whether there is any class line, from the start of a mapping file. */
export function describeProguard(head: string): { mapId: string | null; hasClass: boolean } {
  let mapId: string | null = null;
  for (const line of head.split(/\r?\n/)) {
    const id = MAP_ID.exec(line);
    if (id && mapId === null) mapId = id[1]!;
    if (CLASS_LINE.test(line.trimEnd())) return { mapId, hasClass: true };
  }
  return { mapId, hasClass: false };
}

function num(value: string | undefined): number | null {
  return value === undefined ? null : Number(value);
}

/** Malformed lines are skipped, never fatal: a mapping that names no class maps nothing. */
export function parseProguard(text: string): ProguardMapping {
  const classes = new Map<string, ClassMapping>();
  const byOriginal = new Map<string, ClassMapping>();
  let mapId: string | null = null;
  let current: ClassMapping | null = null;

  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const id = MAP_ID.exec(line);
      if (id && mapId === null) mapId = id[1]!;
      const source = SOURCE_FILE.exec(line.trim());
      if (source && current) {
        try {
          const meta = JSON.parse(source[1]!) as { fileName?: unknown };
          if (typeof meta.fileName === 'string') current.sourceFile = meta.fileName;
        } catch {
          // Not JSON: no source file for this class.
        }
      }
      continue;
    }
    if (!/^\s/.test(line)) {
      const cls = CLASS_LINE.exec(line);
      current = null;
      if (cls) {
        current = { original: cls[1]!, sourceFile: null, methods: new Map() };
        classes.set(cls[2]!, current);
        byOriginal.set(cls[1]!, current);
      }
      continue;
    }
    if (!current) continue;
    const m = METHOD_LINE.exec(line.trim());
    if (!m) continue; // a field, or something this reader does not know
    const qualified = m[4]!;
    const dot = qualified.lastIndexOf('.');
    const member: MemberLine = {
      start: num(m[1]),
      end: num(m[2]),
      owner: dot > 0 ? qualified.slice(0, dot) : null,
      method: dot > 0 ? qualified.slice(dot + 1) : qualified,
      origStart: num(m[6]),
      origEnd: num(m[7]),
    };
    const list = current.methods.get(m[8]!);
    if (list) list.push(member);
    else current.methods.set(m[8]!, [member]);
  }

  /** A class's source file: R8's metadata, else its outermost class's simple name. */
  const sourceFileOf = (cls: string, extension: string) => {
    const known = byOriginal.get(cls)?.sourceFile;
    if (known) return known;
    const simple = cls.slice(cls.lastIndexOf('.') + 1).split('$')[0] || cls;
    return `${simple}.${extension}`;
  };

  return {
    mapId,
    hasClass: (obfuscated) => classes.has(obfuscated),
    lookup(cls, method, line, extension) {
      const mapping = classes.get(cls);
      const members = mapping?.methods.get(method);
      if (!mapping || !members) return null;
      const locate = (member: MemberLine, at: number | null): ProguardLocation => {
        const owner = member.owner ?? mapping.original;
        return {
          function: `${owner}.${member.method}`,
          file: sourceFileOf(owner, extension),
          line: originalLine(member, at),
        };
      };
      if (line !== null) {
        const index = members.findIndex((m) => m.start !== null && m.start <= line && line <= m.end!);
        if (index >= 0) {
          // The inline chain: the following lines with the same range, innermost first.
          const first = members[index]!;
          const chain = [first];
          for (const next of members.slice(index + 1)) {
            if (next.start !== first.start || next.end !== first.end) break;
            chain.push(next);
          }
          return chain.map((m) => locate(m, line));
        }
      }
      // No line, or a line no range covers: only an unambiguous name is an answer.
      const candidates = members.filter((m) => line === null || m.start === null);
      const pool = candidates.length > 0 ? candidates : members;
      const names = new Set(pool.map((m) => `${m.owner ?? mapping.original}.${m.method}`));
      if (names.size !== 1) return null;
      const only = pool.find((m) => m.start === null) ?? pool[0]!;
      return [{ ...locate(only, line), line: only.start === null ? line : null }];
    },
  };
}

function originalLine(member: MemberLine, line: number | null): number | null {
  if (member.start === null || line === null) return member.origStart ?? line;
  if (member.origStart === null) return line;
  if (member.origEnd !== null && member.origEnd - member.origStart === member.end! - member.start) {
    return member.origStart + (line - member.start);
  }
  return member.origStart;
}
