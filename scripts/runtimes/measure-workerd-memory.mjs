#!/usr/bin/env node
/**
 * How large a JPEG the Worker path (test/runtimes/worker: POST image → prepare() → prepared image) can
 * handle in workerd within Cloudflare's 128 MB per-isolate memory limit, for README.md, section "Runtimes".
 *
 * A Worker cannot read /proc (no file system in workerd), so memory is read from outside: the workerd
 * process that miniflare starts, `VmHWM` (peak resident set) in /proc/<pid>/status. For each input a fresh
 * workerd runs: warm-up request with a tiny JPEG (loads code, compiles the decoders), baseline = VmHWM then,
 * then the large POST; "cost" = peak after − baseline, an upper bound on what the request added to the
 * isolate (freed-but-retained heap pages count too). Inputs are JPEGs of a given pixel count, resized with
 * ImageMagick (/usr/bin/convert) from Debian's mate-backgrounds photo (5640 × 3172), quality 90.
 * Inputs wider than 2000 pixels, so none passes through untouched; the Worker's decode budget is lifted for the
 * measurement (`?maxDecodePixels=1000000000`).
 *   node scripts/runtimes/measure-workerd-memory.mjs [WxH ...]   (after npm run build)
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const photo = process.env.PIXFIT_LARGE_JPEG ?? "/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg";
const given = process.argv.slice(2).filter((a) => /^\d+x\d+$/.test(a));
const dims = (given.length ? given : ["2100x600", "2400x1000", "2400x1350", "2667x1500", "3000x2000", "4000x3000", "5333x3000", "6000x4000"]).map((d) => d.split("x").map(Number));
const work = mkdtempSync(join(tmpdir(), "pixfit-mem-"));

const outdir = join(work, "bundle");
const w = spawnSync(join(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", outdir], {
  cwd: join(root, "test/runtimes/worker"),
  env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_LOG_PATH: join(work, "logs"), CI: "1" },
  encoding: "utf8",
});
if (w.status !== 0) throw new Error(w.stderr);
rmSync(join(root, "test/runtimes/worker/.wrangler"), { recursive: true, force: true });
const wasm = readdirSync(outdir).find((f) => f.endsWith(".wasm"));
const modules = [{ type: "ESModule", path: join(outdir, "worker.js") }, { type: "CompiledWasm", path: join(outdir, wasm) }];

/** pids of workerd processes whose parent is this process. */
function workerdPids() {
  const pids = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm.startsWith("workerd") && ppid === process.pid) pids.push(Number(d));
    } catch {}
  }
  return pids;
}
const kib = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);

function jpegOf(width, height) {
  const path = join(work, `${width}x${height}.jpg`);
  if (!existsSync(path)) execFileSync("/usr/bin/convert", [photo, "-resize", `${width}x${height}!`, "-quality", "90", path]);
  return { path, width, height };
}

const tiny = readFileSync(jpegOf(2100, 20).path);
console.log("megapixels  WxH           input MB  baseline MB  peak MB  cost MB  B/pixel  status  ms");
for (const [w, h] of dims) {
  const { path, width, height } = jpegOf(w, h);
  const mp = ((w * h) / 1e6).toFixed(2);
  const body = readFileSync(path);
  const mf = new Miniflare({ modulesRoot: outdir, modules, compatibilityDate: "2026-04-26" });
  try {
    await (await mf.dispatchFetch("http://localhost/prepare", { method: "POST", body: tiny })).arrayBuffer();
    const [pid] = workerdPids();
    const base = kib(pid, "VmHWM");
    const t0 = performance.now();
    const res = await mf.dispatchFetch("http://localhost/prepare?maxDecodePixels=1000000000", { method: "POST", body });
    await res.arrayBuffer();
    const ms = Math.round(performance.now() - t0);
    const peak = kib(pid, "VmHWM");
    const mb = (k) => (k / 1024).toFixed(0).padStart(7);
    console.log(`${String(mp).padStart(10)}  ${`${width}x${height}`.padEnd(12)} ${(body.length / 1048576).toFixed(1).padStart(8)}  ${mb(base)}      ${mb(peak)}  ${mb(peak - base)}  ${(((peak - base) * 1024) / (width * height)).toFixed(1).padStart(7)}  ${res.status}    ${ms}`);
  } finally {
    await mf.dispose();
  }
}
rmSync(work, { recursive: true, force: true });
