/**
 * `npm run bench`: per-stage figures for the main job on real large images (Debian's mate-backgrounds and
 * gnome-backgrounds), with pica's own lanczos3 beside the Mitchell resize in the same run.
 * Prints megapixels per second (of the stage's input) and writes the figures to bench/results/latest.json.
 * A benchmark, not a test: nothing here asserts a time.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codecFor } from "../codecs/index.js";
import { prepare } from "../src/prepare.js";
import { probe } from "../src/probe.js";
import { fitWithin, resize } from "../src/resize.js";
import type { Raster } from "../src/types.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const images = [
  "/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg",
  "/usr/share/backgrounds/mate/abstract/Arc-Colors-Transparent-Wallpaper.png",
  "/usr/share/backgrounds/gnome/adwaita-l.webp",
].filter((p) => existsSync(p));

/** Median wall time in ms of `rounds` runs of `fn`, and its last result. */
async function time<T>(fn: () => T | Promise<T>, rounds = ROUNDS): Promise<{ ms: number; value: T }> {
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    value = await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[times.length >> 1], value };
}

const mps = (pixels: number, ms: number) => (pixels / 1e6 / (ms / 1000)).toFixed(1);
const results: Record<string, Record<string, number>> = {};
let peers: unknown = null;

if (images.length === 0) console.log("No benchmark images: apt-get install mate-backgrounds gnome-backgrounds");
for (const path of images) {
  const name = path.split("/").pop()!;
  const bytes = new Uint8Array(readFileSync(path));
  const codec = codecFor(bytes)!;
  const info = probe(bytes);
  const px = info.width * info.height;
  const r: Record<string, number> = { width: info.width, height: info.height, bytes: bytes.length };

  r.probeMs = (await time(() => probe(bytes), 50)).ms;
  const size = fitWithin(info.width, info.height, 2000, 2000);
  r.decodeFullMs = (await time(() => codec.decode!(bytes, { maxPixels: 1e9 }))).ms;
  // What prepare() does: decode with the output size as a hint (JPEG shrink-on-load decodes at 1/2, 1/4 or 1/8).
  const dec = await time(() => codec.decode!(bytes, { maxPixels: 1e9, targetWidth: size.width, targetHeight: size.height }));
  r.decodeMs = dec.ms;
  const src: Raster = dec.value;
  r.decodedWidth = src.width;
  r.decodedHeight = src.height;
  r.resizeMitchellMs = (await time(() => resize(src, size.width, size.height))).ms;
  const small = await resize(src, size.width, size.height);
  r.resizePicaLanczos3Ms = (await time(() => resize(src, size.width, size.height, { filter: "lanczos3" }))).ms;
  const out = codec.encode ? codec : codecFor(new Uint8Array([0xff, 0xd8, 0xff]))!;
  r.encodeMs = (await time(() => out.encode!(small, { quality: 80 }))).ms;
  const whole = await time(() => prepare(bytes));
  r.prepareMs = whole.ms;
  r.outputBytes = whole.value.bytes.length;
  results[name] = r;

  const outPx = size.width * size.height;
  console.log(`\n${name}: ${info.width}x${info.height} ${codec.format}, ${(bytes.length / 1e6).toFixed(2)} MB → ${size.width}x${size.height} ${out.format}, ${(r.outputBytes / 1e6).toFixed(2)} MB`);
  console.log(`  probe            ${r.probeMs.toFixed(3).padStart(9)} ms`);
  console.log(`  decode (full)    ${r.decodeFullMs.toFixed(1).padStart(9)} ms  ${mps(px, r.decodeFullMs).padStart(6)} MP/s`);
  console.log(`  decode (hinted)  ${r.decodeMs.toFixed(1).padStart(9)} ms  ${mps(px, r.decodeMs).padStart(6)} MP/s → ${src.width}x${src.height}`);
  const srcPx = src.width * src.height;
  console.log(`  resize mitchell  ${r.resizeMitchellMs.toFixed(1).padStart(9)} ms  ${mps(srcPx, r.resizeMitchellMs).padStart(6)} MP/s (input MP)`);
  console.log(`  resize lanczos3  ${r.resizePicaLanczos3Ms.toFixed(1).padStart(9)} ms  ${mps(srcPx, r.resizePicaLanczos3Ms).padStart(6)} MP/s (pica, WASM)  mitchell/lanczos3 time ratio ${(r.resizeMitchellMs / r.resizePicaLanczos3Ms).toFixed(2)}`);
  console.log(`  encode           ${r.encodeMs.toFixed(1).padStart(9)} ms  ${mps(outPx, r.encodeMs).padStart(6)} MP/s (output MP)`);
  console.log(`  prepare (all)    ${r.prepareMs.toFixed(1).padStart(9)} ms  ${mps(px, r.prepareMs).padStart(6)} MP/s`);
}

// Peers in the same run: sharp (native libvips), photon (Rust→WASM), jimp (pure JS); one child process per run.
// BENCH_SKIP_PEERS=1 leaves them out; BENCH_PEERS=pixfit,sharp limits them (bench/peers.ts).
if (process.env.BENCH_SKIP_PEERS !== "1") {
  const { benchPeers } = await import("./peers.js");
  peers = await benchPeers();
}

// Streaming attachment reader (issue 4), when present.
try {
  const mod = (await import("./attachment.js")) as { benchAttachment?: () => Promise<Record<string, number>> };
  if (mod.benchAttachment) {
    results.attachment = await mod.benchAttachment();
    console.log("\nreadAttachment:", results.attachment);
  }
} catch (err) {
  if ((err as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw err;
}

mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
writeFileSync(join(import.meta.dirname, "results", "latest.json"), JSON.stringify({ date: new Date().toISOString(), node: process.version, rounds: ROUNDS, results, peers }, null, 2) + "\n");
console.log("\nwrote bench/results/latest.json");
