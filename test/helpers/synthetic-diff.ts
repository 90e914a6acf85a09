/**
 * A deterministic, realistic large pull request for the tests and the benchmark (not used by the
 * service): ordinary source changes, one huge new file (one hunk larger than any chunk), one file
 * of many hunks larger than a chunk, lock files, generated and vendored code, binaries, deletions,
 * renames with and without changes, and deletion-only edits.
 */
export interface SyntheticDiffOptions {
  files: number;
  /** Added + deleted lines over the whole diff, exactly. */
  changedLines: number;
  seed?: number;
}

type Kind = 'normal' | 'huge-new' | 'many-hunks' | 'lock' | 'generated' | 'vendored' | 'binary' | 'deleted' | 'pure-rename' | 'rename' | 'deletion-only';

/** Share of the changed lines taken by the special files; ordinary files share the rest. */
const SPECIAL: Array<{ kind: Kind; per2000: number; lineShare: number }> = [
  { kind: 'huge-new', per2000: 1, lineShare: 0.12 },
  { kind: 'many-hunks', per2000: 1, lineShare: 0.08 },
  { kind: 'lock', per2000: 12, lineShare: 0.1 },
  { kind: 'generated', per2000: 40, lineShare: 0.05 },
  { kind: 'vendored', per2000: 20, lineShare: 0.03 },
  { kind: 'deleted', per2000: 30, lineShare: 0.02 },
  { kind: 'deletion-only', per2000: 20, lineShare: 0.01 },
  { kind: 'rename', per2000: 30, lineShare: 0.01 },
  { kind: 'binary', per2000: 10, lineShare: 0 },
  { kind: 'pure-rename', per2000: 30, lineShare: 0 },
];

export function generateSyntheticDiff(options: SyntheticDiffOptions): string {
  const random = mulberry32(options.seed ?? 42);
  const kinds: Kind[] = [];
  const budgets: number[] = [];
  let specialLines = 0;
  for (const special of SPECIAL) {
    const count = Math.max(1, Math.round((special.per2000 * options.files) / 2000));
    const lines = Math.floor(options.changedLines * special.lineShare);
    for (let index = 0; index < count && kinds.length < options.files; index++) {
      kinds.push(special.kind);
      const share = special.lineShare === 0 ? 0 : Math.floor(lines / count);
      budgets.push(share);
      specialLines += share;
    }
  }
  const normalCount = options.files - kinds.length;
  let remaining = options.changedLines - specialLines;
  for (let index = 0; index < normalCount; index++) {
    const left = normalCount - index;
    const lines = left === 1 ? remaining : Math.min(remaining - (left - 1), Math.max(1, Math.round((remaining / left) * (0.4 + random() * 1.2))));
    kinds.push('normal');
    budgets.push(lines);
    remaining -= lines;
  }
  // Interleave special files with ordinary ones, as in a real tree, keeping the result deterministic.
  const order = kinds.map((_, index) => index).sort((a, b) => ((a * 7919) % kinds.length) - ((b * 7919) % kinds.length));
  const writer = new LineWriter(random);
  const parts: string[] = [];
  order.forEach((fileIndex, position) => parts.push(writer.file(kinds[fileIndex]!, budgets[fileIndex]!, position)));
  return parts.join('');
}

class LineWriter {
  constructor(private readonly random: () => number) {}

  file(kind: Kind, lines: number, index: number): string {
    const dir = DIRS[index % DIRS.length]!;
    switch (kind) {
      case 'huge-new':
        return this.added(`src/${dir}/huge-table-${index}.ts`, lines);
      case 'many-hunks':
        return this.modified(`src/${dir}/big-module-${index}.ts`, lines, 40);
      case 'lock':
        return this.modified(`packages/p${index}/${LOCKS[index % LOCKS.length]}`, lines, 30);
      case 'generated':
        return this.modified(GENERATED[index % GENERATED.length]!(dir, index), lines, 12);
      case 'vendored':
        return this.modified(`vendor/github.com/acme/lib${index}/lib.go`, lines, 12);
      case 'deleted':
        return this.deleted(`src/${dir}/legacy-${index}.ts`, lines);
      case 'deletion-only':
        return this.modified(`src/${dir}/trimmed-${index}.ts`, lines, 12, true);
      case 'rename':
        return this.modified(`src/${dir}/renamed-${index}.ts`, lines, 12, false, `src/${dir}/old-name-${index}.ts`);
      case 'binary':
        return `diff --git a/assets/${dir}/image-${index}.png b/assets/${dir}/image-${index}.png\nnew file mode 100644\nindex 0000000..3f2a1bc\nBinary files /dev/null and b/assets/${dir}/image-${index}.png differ\n`;
      case 'pure-rename':
        return `diff --git a/src/${dir}/moved-${index}.ts b/lib/${dir}/moved-${index}.ts\nsimilarity index 100%\nrename from src/${dir}/moved-${index}.ts\nrename to lib/${dir}/moved-${index}.ts\n`;
      case 'normal':
        return this.modified(`src/${dir}/${NAMES[index % NAMES.length]}-${index}.${EXTENSIONS[index % EXTENSIONS.length]}`, lines, 18);
    }
  }

  private added(path: string, lines: number): string {
    const body = Array.from({ length: lines }, () => `+${this.line()}\n`).join('');
    return `diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000..a1b2c3d\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines} @@\n${body}`;
  }

  private deleted(path: string, lines: number): string {
    const body = Array.from({ length: lines }, () => `-${this.line()}\n`).join('');
    return `diff --git a/${path} b/${path}\ndeleted file mode 100644\nindex a1b2c3d..0000000\n--- a/${path}\n+++ /dev/null\n@@ -1,${lines} +0,0 @@\n${body}`;
  }

  /** Hunks of about `perHunk` changed lines each, three context lines around, 70 % additions. */
  private modified(path: string, lines: number, perHunk: number, deletionsOnly = false, oldPath = path): string {
    const header =
      oldPath === path
        ? `diff --git a/${path} b/${path}\nindex 5d41402..7e8f9a0 100644\n`
        : `diff --git a/${oldPath} b/${path}\nsimilarity index 88%\nrename from ${oldPath}\nrename to ${path}\nindex 5d41402..7e8f9a0 100644\n`;
    const parts = [header, `--- a/${oldPath}\n+++ b/${path}\n`];
    const language = lineLanguage(path);
    // Go, Rust, Java and Python statements need a function around them (Java a class too), which
    // the head's file opens above the first hunk: two lines of room.
    let oldLine = 1 + Math.floor(this.random() * 20) + (language === 'ts' ? 0 : 2);
    let newLine = oldLine;
    for (let left = lines; left > 0; ) {
      const changed = Math.min(left, Math.max(1, Math.round(perHunk * (0.5 + this.random()))));
      left -= changed;
      const adds = deletionsOnly ? 0 : Math.max(1, Math.round(changed * 0.7));
      const dels = changed - adds;
      parts.push(`@@ -${oldLine},${dels + 6} +${newLine},${adds + 6} @@ ${this.heading()}\n`);
      for (let index = 0; index < 3; index++) parts.push(` ${this.line(language)}\n`);
      for (let index = 0; index < dels; index++) parts.push(`-${this.line(language)}\n`);
      for (let index = 0; index < adds; index++) parts.push(`+${this.line(language)}\n`);
      for (let index = 0; index < 3; index++) parts.push(` ${this.line(language)}\n`);
      const gap = 10 + Math.floor(this.random() * 60);
      oldLine += dels + 6 + gap;
      newLine += adds + 6 + gap;
    }
    return parts.join('');
  }

  private heading(): string {
    return `export async function ${this.identifier()}(${this.identifier()}: ${this.type()})`;
  }

  /** One line of code in the file's language, drawing the same random numbers whatever the language. */
  private line(language: LineLanguage = 'ts'): string {
    const drawn = '  '.repeat(1 + Math.floor(this.random() * 3));
    // Python's lines sit in one function body: one indentation, or the file would not parse.
    const indent = language === 'py' ? '    ' : drawn;
    const a = this.identifier();
    const b = this.identifier();
    switch (Math.floor(this.random() * 6)) {
      case 0: {
        const [method, argument, number] = [this.identifier(), this.identifier(), Math.floor(this.random() * 10_000)];
        return indent + { ts: `const ${a} = await ${b}.${method}(${argument}, ${number});`, go: `${a} := ${b}.${method}(${argument}, ${number})`, py: `${a} = ${b}.${method}(${argument}, ${number})`, rs: `let ${a} = ${b}.${method}(${argument}, ${number}).await;`, java: `var ${a} = ${b}.${method}(${argument}, ${number});` }[language];
      }
      case 1: {
        const type = this.type();
        return indent + { ts: `if (!${a} || ${a}.${b} === undefined) throw new ${type}Error('${a} is missing');`, go: `if ${a} == nil || ${a}.${b} == nil { panic(New${type}Error("${a} is missing")) }`, py: `if not ${a} or ${a}.${b} is None: raise ${type}Error("${a} is missing")`, rs: `if ${a}.is_none() || ${a}.${b}.is_none() { return Err(${type}Error::new("${a} is missing")); }`, java: `if (${a} == null || ${a}.${b} == null) throw new ${type}Error("${a} is missing");` }[language];
      }
      case 2: {
        const text = `${a} must be ${b} before the ${this.identifier()} step runs, see #${Math.floor(this.random() * 5000)}`;
        return `${indent}${language === 'py' ? '#' : '//'} ${text}`;
      }
      case 3: {
        const [list, field] = [this.identifier(), this.identifier()];
        return indent + { ts: `return { ${a}, ${b}: ${list}.map((item) => item.${field}) };`, go: `return map[string]any{"${a}": ${a}, "${b}": ${list}.${field}}`, py: `return {"${a}": ${a}, "${b}": [item.${field} for item in ${list}]}`, rs: `return Output { ${a}, ${b}: ${list}.iter().map(|item| item.${field}).collect() };`, java: `return Map.of("${a}", ${a}, "${b}", ${list}.stream().map(item -> item.${field}).toList());` }[language];
      }
      case 4: {
        const [value, fallback] = [this.identifier(), this.identifier()];
        return indent + { ts: `${a}.${b} = ${value} ?? ${JSON.stringify(fallback)};`, go: `${a}.${b} = orDefault(${value}, "${fallback}")`, py: `${a}.${b} = ${value} or "${fallback}"`, rs: `${a}.${b} = ${value}.unwrap_or("${fallback}");`, java: `${a}.${b} = ${value} != null ? ${value} : "${fallback}";` }[language];
      }
      default: {
        const [field, factor] = [this.identifier(), (this.random() * 10).toFixed(2)];
        return indent + { ts: `for (const ${a} of ${b}) total += ${a}.${field} * ${factor};`, go: `for _, ${a} := range ${b} { total += ${a}.${field} * ${factor} }`, py: `for ${a} in ${b}: total += ${a}.${field} * ${factor}`, rs: `for ${a} in ${b} { total += ${a}.${field} * ${factor}; }`, java: `for (var ${a} : ${b}) total += ${a}.${field} * ${factor};` }[language];
      }
    }
  }

  private identifier(): string {
    const count = 2 + Math.floor(this.random() * 2);
    let name = '';
    for (let index = 0; index < count; index++) {
      const syllable = SYLLABLES[Math.floor(this.random() * SYLLABLES.length)]!;
      name += index === 0 ? syllable : syllable[0]!.toUpperCase() + syllable.slice(1);
    }
    return name;
  }

  private type(): string {
    const name = this.identifier();
    return name[0]!.toUpperCase() + name.slice(1);
  }
}

/** The languages a file's lines are written in: each file's own, as in a real pull request (TypeScript for the rest). */
type LineLanguage = 'ts' | 'go' | 'py' | 'rs' | 'java';

function lineLanguage(path: string): LineLanguage {
  const extension = path.slice(path.lastIndexOf('.') + 1);
  return extension === 'go' || extension === 'py' || extension === 'rs' || extension === 'java' ? extension : 'ts';
}

const DIRS = ['api', 'billing', 'auth', 'workers', 'ui/components', 'db', 'lib', 'review', 'search', 'notifications'];
const NAMES = ['service', 'handler', 'repository', 'controller', 'util', 'client', 'schema', 'mapper'];
const EXTENSIONS = ['ts', 'ts', 'tsx', 'go', 'py', 'java', 'rs'];
const LOCKS = ['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'go.sum', 'poetry.lock'];
const GENERATED: Array<(dir: string, index: number) => string> = [
  (dir, index) => `proto/${dir}/service${index}.pb.go`,
  (dir, index) => `dist/${dir}/bundle${index}.js`,
  (dir, index) => `src/${dir}/__snapshots__/view${index}.test.ts.snap`,
  (dir, index) => `python/${dir}/messages${index}_pb2.py`,
];
const SYLLABLES = ['user', 'acct', 'inv', 'order', 'ship', 'cart', 'pay', 'tok', 'sess', 'repo', 'ret', 'lim', 'quota', 'cache', 'key', 'val', 'item', 'batch', 'queue', 'job', 'diff', 'hunk', 'line', 'node', 'edge', 'sum', 'max', 'min', 'id', 'ref', 'sha', 'tree'];

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
