/**
 * Peak memory of the streaming attachment reader (issue 4): `readAttachment` against read-all-then-encode
 * (`readFileSync(path).toString("base64")`, the usual Node idiom), on the same
 * large file, each in a fresh Node process. Peak = the process's peak resident set size (`VmHWM` in /proc/self/status)
 * minus its resident set size just before the read; reported in MiB and as a ratio to the file size.
 *
 * `bench/run.ts` calls {@link benchAttachment}; this module prints nothing unless run as its own child process.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readAttachment } from "../src/attachment.js";

const CHILD_FLAG = "--pixfit-attachment-child";
const MiB = 1024 * 1024;

interface ChildReport {
  peakBytes: number;
  ms: number;
  length: number;
}

async function child(mode: string, path: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  let length: number;
  if (mode === "streaming") {
    const part = await readAttachment(path, { maxInputBytes: Infinity });
    length = part.data.length;
  } else {
    // The usual Node idiom: the whole file, then Node's own base64.
    length = readFileSync(path).toString("base64").length;
  }
  const ms = performance.now() - t0;
  // VmHWM (peak resident set of this process image). Not resourceUsage().maxRSS: Linux keeps ru_maxrss across
  // execve, so a child spawned by a large parent (the rest of `npm run bench`) would report the parent's peak.
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  const peakBytes = (hwm ? Number(hwm[1]) * 1024 : process.resourceUsage().maxRSS * 1024) - before;
  const report: ChildReport = { peakBytes, ms, length };
  process.stdout.write(JSON.stringify(report));
}

function runChild(mode: string, path: string): ChildReport {
  const self = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", self, CHILD_FLAG, mode, path], { encoding: "utf8", maxBuffer: 1 << 20 });
  return JSON.parse(out) as ChildReport;
}

/**
 * Writes a 96 MiB file starting with a PDF signature, reads it both ways in child processes and returns
 * `{ fileMiB, streamingPeakMiB, streamingPeakRatio, streamingMs, readAllPeakMiB, readAllPeakRatio, readAllMs }`
 * (ratios = peak / file size; the base64 text alone is 1.33). Prints nothing.
 */
export async function benchAttachment(sizeMiB = 96): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "pixfit-bench-"));
  const path = join(dir, "large.pdf");
  try {
    const size = sizeMiB * MiB;
    const bytes = new Uint8Array(size);
    let s = 12345;
    for (let i = 0; i < size; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      bytes[i] = s >>> 24;
    }
    bytes.set(new TextEncoder().encode("%PDF-1.7\n"));
    writeFileSync(path, bytes);
    const streaming = runChild("streaming", path);
    const readAll = runChild("read-all", path);
    if (streaming.length !== readAll.length) throw new Error("the two readers disagree on the base64 length");
    const r = (x: number) => Math.round(x * 100) / 100;
    return {
      fileMiB: sizeMiB,
      streamingPeakMiB: r(streaming.peakBytes / MiB),
      streamingPeakRatio: r(streaming.peakBytes / size),
      streamingMs: r(streaming.ms),
      readAllPeakMiB: r(readAll.peakBytes / MiB),
      readAllPeakRatio: r(readAll.peakBytes / size),
      readAllMs: r(readAll.ms),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes(CHILD_FLAG)) {
  const i = process.argv.indexOf(CHILD_FLAG);
  await child(process.argv[i + 1], process.argv[i + 2]);
}
