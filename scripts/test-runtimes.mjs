#!/usr/bin/env node
/**
 * `npm run test:runtimes`: runs the shared runtime checks (test/runtimes/checks.js) in Node, Bun, Deno,
 * Cloudflare workerd (through miniflare, on wrangler's own bundle) and Chromium (esbuild bundle served on
 * 127.0.0.1, driven by playwright-core), plus per-runtime end-to-end cases:
 *   - Bun: `bun build --compile` of the CLI, run from another directory on a large WEBP and a large JPEG;
 *   - workerd: a Worker that receives an image in a POST and returns the prepared image;
 *   - Chromium: a page that prepares images it fetches;
 * each of whose output bytes must equal what Node's pixfit produces for the same input.
 * Prints per-runtime results and, last, exactly `N passed, M failed`; exits 1 on any failure.
 *
 * Options: --update  regenerate test/runtimes/fixtures.js (expected values) from Node first
 *          --only=node,bun,deno,workerd,chromium   run a subset
 *          --verbose  print passing checks too
 * Environment: CHROMIUM=/path (default /usr/bin/chromium); PIXFIT_LARGE_WEBP, PIXFIT_LARGE_JPEG override
 * the two large inputs (defaults from Debian's gnome-backgrounds and mate-backgrounds packages).
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const args = process.argv.slice(2);
const verbose = args.includes("--verbose");
const only = (args.find((a) => a.startsWith("--only=")) ?? "--only=node,bun,deno,workerd,chromium").slice(7).split(",");
const COMPAT_DATE = "2026-04-26"; // the workerd build that miniflare 4.20260426 ships
const largeWebp = process.env.PIXFIT_LARGE_WEBP ?? "/usr/share/backgrounds/gnome/adwaita-l.webp";
const largeJpeg = process.env.PIXFIT_LARGE_JPEG ?? "/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg";
const work = mkdtempSync(join(tmpdir(), "pixfit-runtimes-"));
const timings = {};

/** runtime → [{ name, ok, detail }] */
const report = {};
const record = (runtime, name, ok, detail) => (report[runtime] ??= []).push({ name, ok, detail });

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { cwd: root, encoding: "utf8", maxBuffer: 1 << 28, ...opts });
  return { code: r.status, out: r.stdout ?? "", err: (r.stderr ?? "") + (r.error ? String(r.error) : "") };
}

/** Runs one stage, timing it; a runtime stage that throws is recorded as a failure of that runtime. */
async function timed(label, fn) {
  const t0 = performance.now();
  try {
    return await fn();
  } catch (err) {
    if (!["node", "bun", "deno", "workerd", "chromium"].includes(label)) throw err;
    record(label, "runner", false, String(err && err.stack ? err.stack : err).slice(0, 1500));
  } finally {
    timings[label] = Math.round(performance.now() - t0);
  }
}

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** Bun's npm package links its binary in a postinstall script; run it when the install skipped scripts. */
function ensureBun() {
  const exe = join(root, "node_modules", "bun", "bin", "bun.exe");
  if (existsSync(exe) && statSync(exe).size < 1_000_000) {
    console.log("bun: the npm package's postinstall did not run (install scripts blocked); running it now");
    const r = run(process.execPath, ["install.js"], { cwd: join(root, "node_modules", "bun") });
    if (r.code !== 0) throw new Error(`bun postinstall failed: ${r.err}`);
  }
}

/** Parses the last stdout line of an entry run as { results }. */
function collect(runtime, r) {
  const line = r.out.trim().split("\n").pop() ?? "";
  let parsed;
  try {
    parsed = JSON.parse(line);
  } catch {
    record(runtime, "load pixfit and run the checks", false, `exit ${r.code}: ${(r.err || r.out).slice(0, 1500)}`);
    return;
  }
  console.log(`${runtime} ${parsed.version}`);
  for (const x of parsed.results) record(runtime, x.name, x.ok, x.detail);
}

// ---------------------------------------------------------------------------------------------------------
// Build, expected values, and Node's own output for the end-to-end inputs.

await timed("build", async () => {
  const r = run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"]);
  if (r.code !== 0) console.log(`warning: tsc build reported errors (output still written):\n${r.out.split("\n").slice(0, 10).join("\n")}`);
  if (!existsSync(join(root, "dist/src/index.js"))) throw new Error("dist/src/index.js missing after the build");
});
if (args.includes("--update")) {
  const r = run(process.execPath, ["--import", "tsx", "scripts/runtimes/generate-fixtures.mjs"], { stdio: "inherit" });
  if (r.code !== 0) process.exit(1);
}

const large = [largeWebp, largeJpeg].filter((p) => existsSync(p));
for (const p of [largeWebp, largeJpeg]) if (!existsSync(p)) record("setup", `large input ${p}`, false, "missing (install gnome-backgrounds and mate-backgrounds, or set PIXFIT_LARGE_WEBP / PIXFIT_LARGE_JPEG)");
/** A 2400 × 1000 JPEG made here (pixfit's encoder, a gradient): inside the Workers decode budget, but resized. */
let within;
/** Node's prepare() of each large input, from the built package: what every runtime must reproduce. */
const nodeLarge = await timed("node reference (large inputs)", async () => {
  const px = await import(pathToFileURL(join(root, "dist/src/index.js")).href);
  const w = 2400, h = 1000, data = new Uint8Array(w * h * 4);
  for (let i = 0, y = 0; y < h; y++) for (let x = 0; x < w; x++, i += 4) data.set([(x * 255) / w, (y * 255) / h, (x ^ y) & 255, 255], i);
  const bytes = await px.codecs.find((c) => c.format === "jpeg").encode({ width: w, height: h, data }, { quality: 85 });
  const r = await px.prepare(bytes);
  within = { bytes, expected: `${r.mediaType} ${r.width}x${r.height} ${r.bytes.length}B ${sha256(r.bytes)}` };
  const out = {};
  for (const p of large) {
    const r = await px.prepare(new Uint8Array(readFileSync(p)));
    out[p] = { mediaType: r.mediaType, width: r.width, height: r.height, bytes: r.bytes.length, sha: sha256(r.bytes) };
  }
  return out;
});
const describeLarge = (p) => {
  const n = nodeLarge[p];
  return `${n.mediaType} ${n.width}x${n.height} ${n.bytes}B ${n.sha}`;
};

// ---------------------------------------------------------------------------------------------------------
// Node, Bun, Deno: the same entry file, importing "pixfit" by name.

if (only.includes("node")) await timed("node", async () => collect("node", run(process.execPath, ["test/runtimes/entry.mjs"])));

if (only.includes("bun"))
  await timed("bun", async () => {
    ensureBun();
    collect("bun", run(bin("bun"), ["test/runtimes/entry.mjs"]));
    // A single-file executable of the CLI, run from a directory far from the build machine's tree.
    const exeDir = join(work, "bun-compiled");
    const exe = join(exeDir, "pixfit");
    const b = run(bin("bun"), ["build", "--compile", "dist/src/cli.js", "--outfile", exe]);
    if (b.code !== 0 || !existsSync(exe)) {
      record("bun", "bun build --compile of the CLI", false, b.err.slice(0, 1500));
      return;
    }
    record("bun", "bun build --compile of the CLI", true, `${(statSync(exe).size / 1048576).toFixed(0)} MiB executable`);
    const cwd = mkdtempSync(join(tmpdir(), "pixfit-elsewhere-"));
    for (const p of large) {
      const r = run(exe, ["--json", "--out", "out", p], { cwd });
      const name = `compiled CLI on ${basename(p)}`;
      let j;
      try {
        j = JSON.parse(r.out.trim().split("\n").pop());
      } catch {
        record("bun", name, false, `exit ${r.code}: ${(r.err || r.out).slice(0, 800)}`);
        continue;
      }
      const written = join(cwd, "out", readdirSync(join(cwd, "out")).find((f) => f.startsWith(basename(p).replace(/\.[^.]+$/, "."))) ?? "-");
      const got = existsSync(written) ? readFileSync(written) : new Uint8Array();
      const value = `${j.mediaType} ${j.width}x${j.height} ${got.length}B ${sha256(got)}`;
      record("bun", name, r.code === 0 && value === describeLarge(p), value === describeLarge(p) ? `${value.slice(0, 60)}... same bytes as Node, ${j.ms} ms` : `expected ${describeLarge(p)}, got ${value} (exit ${r.code})`);
    }
    rmSync(cwd, { recursive: true, force: true });
  });

if (only.includes("deno"))
  // No permission flags: the core needs no file, network or environment access.
  await timed("deno", async () => collect("deno", run(bin("deno"), ["run", "--quiet", "test/runtimes/entry.mjs"], { env: { ...process.env, NO_COLOR: "1" } })));

// ---------------------------------------------------------------------------------------------------------
// workerd: wrangler bundles the Worker (it picks pixfit's `workerd` import condition by itself), miniflare runs it.

/**
 * Bundles test/runtimes/worker/<config>'s Worker with wrangler (`deploy --dry-run`) and starts it in miniflare.
 * Returns null (and records why) when wrangler fails or does not ship the .wasm module.
 */
async function startWorker(config, label) {
  const outdir = join(work, `wrangler-${label}`);
  const w = run(bin("wrangler"), ["deploy", "--dry-run", "--outdir", outdir, "--config", config], {
    cwd: join(root, "test/runtimes/worker"),
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_LOG_PATH: join(work, "wrangler-logs"), NO_COLOR: "1", CI: "1" },
  });
  const files = existsSync(outdir) ? readdirSync(outdir) : [];
  const js = files.find((f) => f.endsWith(".js"));
  const wasm = files.find((f) => f.endsWith(".wasm"));
  const name = `wrangler bundles the ${label} Worker (no configuration)`;
  if (w.code !== 0 || !js) {
    record("workerd", name, false, (w.err || w.out).slice(0, 1500));
    return null;
  }
  record("workerd", name, Boolean(wasm), wasm ? `${js} ${statSync(join(outdir, js)).size} B + ${wasm.replace(/^[0-9a-f]{40}-/, "")} (the workerd branch of #webp-wasm)` : "no .wasm module: wrangler did not take the workerd branch");
  if (!wasm) return null;
  const { Miniflare } = await import("miniflare");
  const modules = [
    { type: "ESModule", path: join(outdir, js) },
    { type: "CompiledWasm", path: join(outdir, wasm) },
  ];
  return new Miniflare({ modulesRoot: outdir, modules, compatibilityDate: COMPAT_DATE });
}

if (only.includes("workerd"))
  await timed("workerd", async () => {
    // The Worker of README.md, section "Runtimes", as written there.
    const minimal = await startWorker("wrangler.minimal.toml", "minimal");
    if (minimal)
      try {
        const small = readFileSync(join(root, "test/runtimes/fixtures.js"), "utf8").match(/"jpeg\/ycbcr-32x32": "([^"]+)"/)[1];
        const input = Buffer.from(small, "base64");
        const r = await minimal.dispatchFetch("http://localhost/", { method: "POST", body: input });
        const got = Buffer.from(await r.arrayBuffer());
        record("workerd", "minimal Worker passes a small JPEG through", r.status === 200 && got.equals(input), `${r.status} ${r.headers.get("content-type")} ${got.length}B`);
        const m = await minimal.dispatchFetch("http://localhost/", { method: "POST", body: within.bytes });
        const mb = new Uint8Array(await m.arrayBuffer());
        const mv = `${m.headers.get("content-type")} ? ${mb.length}B ${sha256(mb)}`;
        const want = within.expected.replace(/ \d+x\d+ /, " ? ");
        record("workerd", "minimal Worker resizes a 2400x1000 JPEG (inside the budget)", m.status === 200 && mv === want, m.status === 200 && mv === want ? `${mv.slice(0, 60)}... same bytes as Node` : `expected ${within.expected}, got ${m.status} ${mv}`);
        for (const p of large) {
          const q = await minimal.dispatchFetch("http://localhost/", { method: "POST", body: readFileSync(p) });
          if (p.endsWith(".jpg")) {
            // 5640 x 3172 shrinks on load to 2820 x 1586 (4.5 MP): inside the default Workers decode budget.
            const got = new Uint8Array(await q.arrayBuffer());
            const value = `${q.headers.get("content-type")} ? ${got.length}B ${sha256(got)}`;
            const want = describeLarge(p).replace(/ \d+x\d+ /, " ? ");
            record("workerd", `minimal Worker prepares ${basename(p)} (shrink-on-load keeps it inside the decode budget)`, q.status === 200 && value === want, q.status === 200 ? value.slice(0, 60) : `${q.status} ${new TextDecoder().decode(got).slice(0, 120)}`);
          } else {
            const text = await q.text();
            const code = q.status === 422 ? JSON.parse(text).error : `HTTP ${q.status}`;
            record("workerd", `minimal Worker refuses ${basename(p)} over the default decode budget`, code === "TOO_MANY_PIXELS", `${q.status} ${text.slice(0, 120)}`);
          }
        }
      } finally {
        await minimal.dispose();
      }
    // The check Worker: every check inside workerd, and large images compared byte for byte with Node.
    const mf = await startWorker("wrangler.toml", "check");
    if (!mf) return;
    try {
      const res = await mf.dispatchFetch("http://localhost/checks");
      const body = await res.text();
      try {
        const j = JSON.parse(body);
        console.log("workerd (miniflare)");
        for (const x of j.results) record("workerd", x.name, x.ok, x.detail);
      } catch {
        record("workerd", "load pixfit and run the checks", false, `HTTP ${res.status}: ${body.slice(0, 1500)}`);
      }
      // Without the decode budget (miniflare does not enforce 128 MB), the bytes must equal Node's.
      for (const p of large) {
        const r = await mf.dispatchFetch("http://localhost/prepare?maxDecodePixels=1000000000", { method: "POST", body: readFileSync(p) });
        const got = new Uint8Array(await r.arrayBuffer());
        const facts = JSON.parse(r.headers.get("x-pixfit") ?? "{}");
        const value = `${r.headers.get("content-type")} ${facts.width}x${facts.height} ${got.length}B ${sha256(got)}`;
        const ok = r.status === 200 && value === describeLarge(p);
        record("workerd", `POST /prepare ${basename(p)}`, ok, ok ? `${value.slice(0, 60)}... same bytes as Node` : `HTTP ${r.status}: expected ${describeLarge(p)}, got ${r.status === 200 ? value : new TextDecoder().decode(got).slice(0, 300)}`);
      }
    } finally {
      await mf.dispose();
    }
  });

// ---------------------------------------------------------------------------------------------------------
// Chromium: an esbuild bundle of a page, served on 127.0.0.1, driven by playwright-core.

if (only.includes("chromium"))
  await timed("chromium", async () => {
    const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
    if (!existsSync(executablePath)) {
      record("chromium", "launch Chromium", false, `${executablePath} not found (Debian: apt-get install chromium)`);
      return;
    }
    const esbuild = await import("esbuild");
    const bundle = await esbuild.build({
      entryPoints: [join(root, "test/runtimes/browser/page.mjs")],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "silent",
    });
    const js = bundle.outputFiles[0].contents;
    const html = `<!doctype html><meta charset="utf-8"><title>running</title><script type="module" src="/page.js"></script>`;
    const names = large.map((p) => basename(p));
    const server = createServer((req, res) => {
      const url = new URL(req.url, "http://x");
      const send = (type, body) => res.writeHead(200, { "content-type": type }).end(body);
      if (url.pathname === "/") return send("text/html", html);
      if (url.pathname === "/page.js") return send("text/javascript", js);
      if (url.pathname === "/images") return send("application/json", JSON.stringify(names));
      const m = /^\/image\/(.+)$/.exec(url.pathname);
      const path = m && large.find((p) => basename(p) === decodeURIComponent(m[1]));
      if (path) return send("application/octet-stream", readFileSync(path));
      res.writeHead(404).end();
    });
    await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    });
    try {
      const page = await browser.newPage();
      const logs = [];
      page.on("pageerror", (e) => logs.push(String(e)));
      await page.goto(`http://127.0.0.1:${server.address().port}/`);
      await page.waitForFunction(() => document.title !== "running", null, { timeout: 240_000 });
      const r = await page.evaluate(() => window.__pixfit);
      if (!r || r.error) {
        record("chromium", "load pixfit and run the checks", false, (r?.error ?? "no result") + logs.join(" | "));
        return;
      }
      console.log(`chromium ${/Chrome\/[\d.]+/.exec(r.version)?.[0] ?? r.version} (${(js.length / 1024).toFixed(0)} KiB bundle)`);
      for (const x of r.results) record("chromium", x.name, x.ok, x.detail);
      for (const x of r.prepared) {
        const p = large.find((q) => basename(q) === x.name);
        const ok = x.value === describeLarge(p);
        record("chromium", `page prepares ${x.name}`, ok, ok ? `${x.value.slice(0, 60)}... same bytes as Node` : `expected ${describeLarge(p)}, got ${x.value}`);
      }
    } finally {
      await browser.close();
      server.close();
    }
  });

// ---------------------------------------------------------------------------------------------------------

rmSync(work, { recursive: true, force: true });
rmSync(join(root, "test/runtimes/worker/.wrangler"), { recursive: true, force: true }); // wrangler's scratch folder
let passed = 0;
let failed = 0;
for (const [runtime, results] of Object.entries(report)) {
  const bad = results.filter((x) => !x.ok);
  passed += results.length - bad.length;
  failed += bad.length;
  console.log(`\n${runtime}: ${results.length - bad.length}/${results.length} passed${timings[runtime] ? ` in ${(timings[runtime] / 1000).toFixed(1)} s` : ""}`);
  for (const x of results) if (verbose || !x.ok) console.log(`  ${x.ok ? "ok  " : "FAIL"} ${x.name}: ${x.detail}`);
}
console.log(`\ntimings (ms): ${JSON.stringify(timings)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
