/**
 * The peers section of `npm run bench` (issue 6): the main job and the PNG/WEBP cases through pixfit and, in the
 * same run, through sharp (native libvips, Mitchell kernel), photon (`@silvia-odwyer/photon-node`, Rust→WASM,
 * Lanczos3) and jimp (pure JS, its default bilinear `scaleToFit`), all dev dependencies for the benchmark only.
 *
 * Each (peer, case) runs in its own fresh Node process, so the peak resident set (`VmHWM` from /proc/self/status,
 * read after the job) is that peer's alone; the peers alternate within a round, and each figure is the median of
 * `BENCH_PEER_ROUNDS` (default 5) rounds. Time is the job alone (bytes in memory → encoded bytes out), not process
 * start-up or module loading. The pixfit child also reports its stages (decode, orient+resize, encode), each timed
 * once after the whole job. Fidelity (bench/fidelity.ts): PSNR of each output against a float Mitchell reference.
 *
 * `PIXFIT_PREPARE=<module path>` swaps in another build of `prepare`; `PIXFIT_BASELINE=<module path>` adds it as the
 * extra peer "pixfit@base" (e.g. `git archive HEAD | tar -x -C /tmp/base`, then `/tmp/base/src/prepare.ts`), so a
 * change is measured against the last commit in the same run. `BENCH_PEERS=pixfit,sharp` limits the peers.
 *
 * `bench/run.ts` calls {@link benchPeers}; `node --import tsx bench/peers.ts` runs it alone. Figures go to
 * bench/results/peers.json. A benchmark, not a test: nothing asserts a time.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CHILD_FLAG = "--pixfit-peer-child";
const ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 5);
const OUT_DIR = join(tmpdir(), "pixfit-bench-peers");

/** One benchmark case: an input file and the output format the job produces. */
interface Case {
  name: string;
  path: string;
  out: "jpeg" | "png";
}

/** The cases of issue 6 (Debian's mate-backgrounds and gnome-backgrounds). */
export const cases: Case[] = [
  { name: "main job: 5640x3172 progressive JPEG → 2000 JPEG q80", path: "/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg", out: "jpeg" },
  { name: "2140x1200 RGBA PNG → 2000 PNG", path: "/usr/share/backgrounds/mate/abstract/Arc-Colors-Transparent-Wallpaper.png", out: "png" },
  { name: "4096² WEBP → 2000 JPEG q80", path: "/usr/share/backgrounds/gnome/adwaita-l.webp", out: "jpeg" },
];

export const peers = ["pixfit", "sharp", "photon", "jimp"] as const;
/** "pixfit@base": the `prepare` module named by PIXFIT_BASELINE (e.g. a checkout of the last commit), same run. */
type Peer = (typeof peers)[number] | "pixfit@base";

/** What a child reports. */
interface ChildReport {
  ms: number;
  /** Peak resident set of the child process, bytes (VmHWM). */
  peakBytes: number;
  outBytes: number;
  width: number;
  height: number;
  /** Per-stage times in ms (pixfit), or the decode-only time (sharp). */
  stages?: Record<string, number>;
  error?: string;
}

function vmHWM(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) * 1024 : NaN;
}

const MAX = 2000;
const QUALITY = 80;

function prepareModule(peer: Peer): string {
  if (peer === "pixfit@base") return process.env.PIXFIT_BASELINE!;
  return process.env.PIXFIT_PREPARE ?? "../src/prepare.js";
}

/** Runs one job in this (child) process; returns the encoded output and per-stage figures. */
async function runJob(peer: Peer, c: Case, bytes: Uint8Array): Promise<{ out: Uint8Array; width: number; height: number; stages?: Record<string, number> }> {
  if (peer === "pixfit" || peer === "pixfit@base") {
    const { prepare } = (await import(prepareModule(peer))) as typeof import("../src/prepare.js");
    const r = await prepare(bytes, { maxWidth: MAX, maxHeight: MAX, jpegQuality: QUALITY });
    return { out: r.bytes, width: r.width, height: r.height };
  }
  if (peer === "sharp") {
    const sharp = (await import("sharp")).default;
    let p = sharp(bytes, { limitInputPixels: false }).resize(MAX, MAX, { fit: "inside", withoutEnlargement: true, kernel: "mitchell" });
    p = c.out === "jpeg" ? p.jpeg({ quality: QUALITY }) : p.png();
    const { data, info } = await p.toBuffer({ resolveWithObject: true });
    return { out: new Uint8Array(data), width: info.width, height: info.height };
  }
  if (peer === "photon") {
    const photon = await import("@silvia-odwyer/photon-node");
    const img = photon.PhotonImage.new_from_byteslice(bytes);
    const w = img.get_width(), h = img.get_height();
    const s = Math.min(1, MAX / w, MAX / h);
    const dw = Math.max(1, Math.round(w * s)), dh = Math.max(1, Math.round(h * s));
    const small = s < 1 ? photon.resize(img, dw, dh, photon.SamplingFilter.Lanczos3) : img;
    const out = c.out === "jpeg" ? small.get_bytes_jpeg(QUALITY) : small.get_bytes();
    return { out, width: dw, height: dh };
  }
  const { Jimp } = await import("jimp");
  const img = await Jimp.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  if (img.bitmap.width > MAX || img.bitmap.height > MAX) img.scaleToFit({ w: MAX, h: MAX });
  const out = c.out === "jpeg" ? await img.getBuffer("image/jpeg", { quality: QUALITY }) : await img.getBuffer("image/png");
  return { out: new Uint8Array(out), width: img.bitmap.width, height: img.bitmap.height };
}

/** Per-stage times (ms) of the pixfit pipeline, run once after the job (decode, orient + resize, encode). */
async function pixfitStages(bytes: Uint8Array): Promise<Record<string, number>> {
  const { identify } = await import("../src/detect.js");
  const { fitWithin, resize } = await import("../src/resize.js");
  const { applyOrientation, orientedSize } = await import("../src/orient.js");
  const { codecByMediaType } = await import("../codecs/index.js");
  const codec = identify(bytes);
  const info = codec.probe!(bytes);
  let t = performance.now();
  const lap = () => {
    const n = performance.now();
    const d = n - t;
    t = n;
    return d;
  };
  codec.probe!(bytes);
  const probe = lap();
  const up = orientedSize(info.width, info.height, info.orientation);
  const size = fitWithin(up.width, up.height, MAX, MAX);
  const swap = info.orientation >= 5;
  const hint = { targetWidth: swap ? size.height : size.width, targetHeight: swap ? size.width : size.height };
  lap();
  let r = await codec.decode!(bytes, { maxPixels: 1e9, ...hint });
  const decode = lap();
  const decodedWidth = r.width;
  r = applyOrientation(r, info.orientation);
  r = await resize(r, size.width, size.height);
  const resizeMs = lap();
  const out = codec.encode ? codec : codecByMediaType("image/jpeg")!;
  await out.encode!(r, { quality: QUALITY });
  const encode = lap();
  return { probe, decode, decodedWidth, resize: resizeMs, encode };
}

async function child(peer: Peer, caseIndex: number, outPath: string): Promise<void> {
  const c = cases[caseIndex];
  const bytes = new Uint8Array(readFileSync(c.path));
  // Load the peer's modules before the clock starts (jimp and photon instantiate WASM / plugins on import).
  if (peer === "pixfit" || peer === "pixfit@base") await import(prepareModule(peer));
  else if (peer === "sharp") await import("sharp");
  else if (peer === "photon") await import("@silvia-odwyer/photon-node");
  else await import("jimp");
  const report: ChildReport = { ms: NaN, peakBytes: NaN, outBytes: 0, width: 0, height: 0 };
  try {
    const t0 = performance.now();
    const r = await runJob(peer, c, bytes);
    report.ms = performance.now() - t0;
    report.peakBytes = vmHWM();
    report.outBytes = r.out.length;
    report.width = r.width;
    report.height = r.height;
    writeFileSync(outPath, r.out);
    if (peer === "pixfit" && process.env.BENCH_PEER_STAGES !== "0") report.stages = await pixfitStages(bytes);
    if (peer === "sharp") {
      const sharp = (await import("sharp")).default;
      const t1 = performance.now();
      await sharp(bytes, { limitInputPixels: false }).raw().toBuffer();
      report.stages = { decodeFull: performance.now() - t1 };
    }
  } catch (err) {
    report.error = String((err as Error)?.message ?? err).slice(0, 300);
    report.peakBytes = vmHWM();
  }
  process.stdout.write(JSON.stringify(report));
}

function median(xs: number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[s.length >> 1] : NaN;
}

/** Figures for one (case, peer): medians over the rounds. */
export interface PeerFigure {
  ms: number;
  msAll: number[];
  ratioToSharp: number;
  peakMB: number;
  outBytes: number;
  width: number;
  height: number;
  psnr: number;
  stages?: Record<string, number>;
  error?: string;
}

/**
 * Runs every case through every peer, alternating, `BENCH_PEER_ROUNDS` rounds; prints a table per case (median time,
 * ratio to sharp, peak RSS, output bytes, PSNR against the float Mitchell reference) and writes
 * bench/results/peers.json. Returns the figures keyed by case name then peer.
 */
export async function benchPeers(): Promise<Record<string, Record<string, PeerFigure>>> {
  const self = fileURLToPath(import.meta.url);
  mkdirSync(OUT_DIR, { recursive: true });
  const { referenceFor, psnrAgainst } = await import("./fidelity.js");
  const all: Record<string, Record<string, PeerFigure>> = {};
  const only = process.env.BENCH_PEERS?.split(",") as Peer[] | undefined;
  const list: Peer[] = only ?? [...peers];
  if (process.env.PIXFIT_BASELINE && !list.includes("pixfit@base")) list.splice(1, 0, "pixfit@base");
  for (const [ci, c] of cases.entries()) {
    if (!existsSync(c.path)) {
      console.log(`\n${c.name}: ${c.path} missing (apt-get install mate-backgrounds gnome-backgrounds)`);
      continue;
    }
    const runs: Record<string, ChildReport[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const peer of list) {
        const outPath = join(OUT_DIR, `${peer}-${ci}.${c.out}`);
        let rep: ChildReport;
        try {
          const stdout = execFileSync(process.execPath, ["--import", "tsx", self, CHILD_FLAG, peer, String(ci), outPath], {
            encoding: "utf8", maxBuffer: 1 << 20, stdio: ["ignore", "pipe", "pipe"],
            env: { ...process.env, BENCH_PEER_STAGES: round === ROUNDS - 1 ? "1" : "0" },
          });
          rep = JSON.parse(stdout) as ChildReport;
        } catch (err) {
          rep = { ms: NaN, peakBytes: NaN, outBytes: 0, width: 0, height: 0, error: String((err as Error).message).split("\n")[0] };
        }
        (runs[peer] ??= []).push(rep);
      }
    }
    const fig: Record<string, PeerFigure> = {};
    const sharpMs = runs.sharp ? median(runs.sharp.map((r) => r.ms)) : NaN;
    for (const peer of list) {
      const rs = runs[peer];
      const ok = rs.filter((r) => !r.error);
      const last = ok[ok.length - 1] ?? rs[rs.length - 1];
      const ms = median(rs.map((r) => r.ms));
      let psnr = NaN;
      if (!last.error && last.width > 0) {
        const ref = await referenceFor(c.path, last.width, last.height);
        psnr = await psnrAgainst(new Uint8Array(readFileSync(join(OUT_DIR, `${peer}-${ci}.${c.out}`))), ref);
      }
      const stages = rs.find((r) => r.stages)?.stages;
      fig[peer] = {
        ms, msAll: rs.map((r) => Math.round(r.ms)), ratioToSharp: ms / sharpMs, peakMB: median(rs.map((r) => r.peakBytes)) / 1048576,
        outBytes: last.outBytes, width: last.width, height: last.height, psnr, stages, error: ok.length ? undefined : last.error,
      };
    }
    all[c.name] = fig;
    console.log(`\n${c.name}  (median of ${ROUNDS}, one process per run)`);
    console.log(`  ${"peer".padEnd(11)} ${"time ms".padStart(9)} ${"× sharp".padStart(8)} ${"peak MB".padStart(8)} ${"out KB".padStart(8)} ${"size".padStart(10)} ${"PSNR dB".padStart(8)}  stages / runs`);
    for (const peer of list) {
      const f = fig[peer];
      if (f.error) {
        console.log(`  ${peer.padEnd(11)} failed: ${f.error}`);
        continue;
      }
      const st = f.stages ? Object.entries(f.stages).map(([k, v]) => `${k} ${k === "probe" ? v.toFixed(2) : v.toFixed(0)}`).join(", ") : "";
      console.log(
        `  ${peer.padEnd(11)} ${f.ms.toFixed(0).padStart(9)} ${f.ratioToSharp.toFixed(2).padStart(8)} ${f.peakMB.toFixed(0).padStart(8)} ${(f.outBytes / 1024).toFixed(0).padStart(8)} ${`${f.width}x${f.height}`.padStart(10)} ${f.psnr.toFixed(2).padStart(8)}  ${st}${st ? "; " : ""}[${f.msAll.join(" ")}]`,
      );
    }
  }
  mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
  writeFileSync(join(import.meta.dirname, "results", "peers.json"), JSON.stringify({ date: new Date().toISOString(), node: process.version, rounds: ROUNDS, results: all }, null, 2) + "\n");
  console.log("\nwrote bench/results/peers.json");
  return all;
}

if (process.argv[2] === CHILD_FLAG) {
  await child(process.argv[3] as Peer, Number(process.argv[4]), process.argv[5]);
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchPeers();
}
