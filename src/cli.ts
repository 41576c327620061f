#!/usr/bin/env node
/**
 * The `pixfit` command line: `pixfit [options] <file>...`. Node-only (runs in Bun and Deno too).
 * Exit codes: 0 all files succeeded, 1 any file failed, 2 bad usage.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { isPixfitError } from "./errors.js";
import { prepareFile } from "./node.js";
import type { PrepareOptions, PreparedMedia } from "./prepare.js";
import { resizeFilters, type ResizeFilter } from "./resize.js";
import type { MediaType } from "./types.js";


/** File extension written for each output media type. */
export const extensions: Record<MediaType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/bmp": "bmp",
  "image/webp": "webp",
  "application/pdf": "pdf",
};

const USAGE = `Usage: pixfit [options] <file>...

Prepares images and PDFs for large language models: detects the type from magic bytes,
passes files that already fit through untouched, else decodes, turns upright (EXIF),
resizes to fit (Mitchell filter) and re-encodes.

Options:
  --out DIR        write each result to DIR/<input base name>.<ext of the output type>
                   (a repeated base name gets -2, -3, ...)
  --json           print one JSON object per input, one per line
  --max WxH        fit inside W x H pixels (default 2000x2000)
  --quality N      JPEG quality 1-100 for re-encoded JPEGs (default 80)
  --filter NAME    ${resizeFilters.join(", ")} (default mitchell)
  -h, --help       show this help

Exit code: 0 when every file succeeded, 1 when any failed, 2 on bad usage.`;

/** Parsed command line. */
export interface CliArgs {
  files: string[];
  out?: string;
  json: boolean;
  options: PrepareOptions;
}

/** Parses argv (without the node and script entries). Throws `Error` with a usage message on bad usage. */
export function parseArgs(input: readonly string[]): CliArgs | "help" {
  const args: CliArgs = { files: [], json: false, options: {} };
  // "--max=800x600" is the same as "--max 800x600" (only before "--").
  const end = input.indexOf("--");
  const argv = (end < 0 ? input : input.slice(0, end)).flatMap((a) => (/^--[a-z]+=/.test(a) ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a]));
  if (end >= 0) argv.push(...input.slice(end));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "-h" || a === "--help") return "help";
    else if (a === "--json") args.json = true;
    else if (a === "--out") args.out = value();
    else if (a === "--max") {
      const m = /^(\d+)x(\d+)$/i.exec(value());
      if (!m || +m[1] < 1 || +m[2] < 1) throw new Error("--max takes WxH, e.g. 2000x2000");
      args.options.maxWidth = +m[1];
      args.options.maxHeight = +m[2];
    } else if (a === "--quality") {
      const q = Number(value());
      if (!Number.isInteger(q) || q < 1 || q > 100) throw new Error("--quality takes a whole number from 1 to 100");
      args.options.jpegQuality = q;
    } else if (a === "--filter") {
      const f = value() as ResizeFilter;
      if (!resizeFilters.includes(f)) throw new Error(`--filter takes one of: ${resizeFilters.join(", ")}`);
      args.options.filter = f;
    } else if (a === "--") args.files.push(...argv.slice(i + 1)), (i = argv.length);
    else if (a.startsWith("-") && a !== "-") throw new Error(`unknown option ${a}`);
    else args.files.push(a);
  }
  if (args.files.length === 0) throw new Error("no input files");
  return args;
}

function kb(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

function describe(input: string, r: PreparedMedia, ms: number): string {
  const o = r.original;
  const size = (w: number, h: number) => (w ? ` ${w}x${h}` : "");
  const untouched = !r.resized && !r.transcoded && r.orientation === 1 && r.bytes.length === o.byteLength;
  const how = untouched ? " (passed through)" : r.resized ? " (resized)" : "";
  return `${input}: ${o.mediaType}${size(o.width, o.height)} ${kb(o.byteLength)} -> ${r.mediaType}${size(r.width, r.height)} ${kb(r.bytes.length)}${how} in ${ms.toFixed(0)} ms`;
}

/**
 * `DIR/<input base name>.<ext>`; when two inputs of one run share a base name ("a/s.pdf", "b/s.pdf"), the later ones
 * get "-2", "-3", ... before the extension instead of overwriting the first.
 */
function outputPath(dir: string, input: string, ext: string, taken: Set<string>): string {
  const stem = basename(input, extname(input));
  let name = `${stem}.${ext}`;
  for (let n = 2; taken.has(name); n++) name = `${stem}-${n}.${ext}`;
  taken.add(name);
  return join(dir, name);
}

/** Runs the CLI; returns the exit code. `write` receives each output line. */
export async function main(argv: readonly string[], write: (line: string) => void = (l) => console.log(l), writeErr: (line: string) => void = (l) => console.error(l)): Promise<number> {
  let args: CliArgs | "help";
  try {
    args = parseArgs(argv);
  } catch (err) {
    writeErr(`pixfit: ${(err as Error).message}\nRun 'pixfit --help' for usage.`);
    return 2;
  }
  if (args === "help") {
    write(USAGE);
    return 0;
  }
  if (args.out) await mkdir(args.out, { recursive: true });
  let failed = 0;
  const written = new Set<string>();
  for (const input of args.files) {
    const t0 = performance.now();
    try {
      const r = await prepareFile(input, args.options);
      const ms = Math.round((performance.now() - t0) * 10) / 10;
      if (args.out) {
        await writeFile(outputPath(args.out, input, extensions[r.mediaType], written), r.bytes);
      }
      if (args.json)
        write(JSON.stringify({ input, mediaType: r.mediaType, width: r.width, height: r.height, byteLength: r.bytes.length, resized: r.resized, transcoded: r.transcoded, orientation: r.orientation, original: r.original, ms }));
      else write(describe(input, r, ms));
    } catch (err) {
      failed++;
      const code = isPixfitError(err) ? err.code : "READ_FAILED";
      const message = isPixfitError(err) ? err.message : `cannot read ${input}: ${(err as Error).message}`;
      if (args.json) write(JSON.stringify({ input, error: { code, message } }));
      else writeErr(`${input}: error ${code}: ${message}`);
    }
  }
  return failed ? 1 : 0;
}

// Run when executed directly (node dist/src/cli.js, the bin shim, bun, deno), not when imported by tests.
const entry = typeof process !== "undefined" ? process.argv[1] ?? "" : "";
if (/(^|[\\/])(cli\.(js|ts)|pixfit)$/.test(entry)) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
