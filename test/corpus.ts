/**
 * The conformance corpus, for tests. Uses ../shared/corpus when it is there (CI has it), else the
 * permissively licensed subset copied into test/fixtures/corpus/ (same layout; one MANIFEST.<format>.tsv per format).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const shared = join(here, "..", "..", "shared", "corpus");
const fixtures = join(here, "fixtures", "corpus");

/** True when the whole shared corpus is available. */
export const fullCorpus = existsSync(join(shared, "MANIFEST.tsv"));
/** The corpus root in use. */
export const corpusRoot = fullCorpus ? shared : fixtures;

export interface CorpusRow {
  /** Path relative to the corpus root, e.g. "png/pngsuite/basn0g01.png". */
  path: string;
  format: string;
  license: string;
  /** The manifest's note. */
  note: string;
  /** The part of the note after "expected: ", or "" when there is none. */
  expected: string;
}

function parse(text: string): CorpusRow[] {
  const rows: CorpusRow[] = [];
  for (const line of text.split("\n").slice(1)) {
    if (!line.trim()) continue;
    const f = line.split("\t");
    const note = f[6] ?? "";
    const i = note.indexOf("expected: ");
    rows.push({ path: f[0], format: f[1], license: f[5] ?? "", note, expected: i >= 0 ? note.slice(i + 10) : "" });
  }
  return rows;
}

let cache: CorpusRow[] | undefined;
/** All manifest rows of the corpus in use. */
export function corpusRows(): CorpusRow[] {
  if (cache) return cache;
  if (fullCorpus) cache = parse(readFileSync(join(shared, "MANIFEST.tsv"), "utf8"));
  else {
    cache = [];
    if (existsSync(fixtures))
      for (const f of readdirSync(fixtures).filter((n) => /^MANIFEST.*\.tsv$/.test(n)).sort())
        cache.push(...parse(readFileSync(join(fixtures, f), "utf8")));
  }
  return cache;
}

/** The bytes of a corpus file (path relative to the corpus root). */
export function corpusFile(path: string): Uint8Array {
  return new Uint8Array(readFileSync(join(corpusRoot, path)));
}

/** True when a corpus file exists (reference renderings are not all copied into fixtures). */
export function corpusHas(path: string): boolean {
  return existsSync(join(corpusRoot, path));
}
