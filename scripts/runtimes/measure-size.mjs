#!/usr/bin/env node
/**
 * Bundle sizes of pixfit for README.md, section "Runtimes": esbuild (minified, ES2022, tree-shaken) of what a user
 * imports, raw and gzip -9, in bytes. Builds from the package as users get it (dist/ through "exports").
 *   node scripts/runtimes/measure-size.mjs      (after npm run build)
 * Rows:
 *   - `prepare` only, default condition: the core with the WEBP decoder's wasm embedded as base64;
 *   - the same without the WEBP wasm (its base64 module replaced by an empty string): the JavaScript alone;
 *   - `prepare` with the workerd condition: JavaScript + the .wasm shipped as a separate module;
 *   - the whole package root (`import * as px from "pixfit"`): what the runtime checks bundle;
 *   - wrangler's own bundle (--minify) of test/runtimes/worker/minimal.mjs: what a Worker uploads.
 */
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const noWebpWasm = {
  name: "no-webp-wasm",
  setup(b) {
    b.onLoad({ filter: /webp-wasm\.js$/ }, () => ({ contents: 'export const wasmModule = undefined; export const wasmBase64 = "";', loader: "js" }));
  },
};

async function size(label, contents, { conditions = [], plugins = [] } = {}) {
  const r = await build({
    stdin: { contents, resolveDir: root, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    conditions,
    plugins,
    write: false,
    external: ["*.wasm"],
    logLevel: "silent",
  });
  const js = r.outputFiles[0].contents;
  const row = { label, minified: js.length, gzip: gzipSync(js, { level: 9 }).length };
  console.log(`${label.padEnd(58)} ${String(row.minified).padStart(9)} B min  ${String(row.gzip).padStart(8)} B gzip`);
  return row;
}

const prepareOnly = 'export { prepare } from "pixfit";';
await size("prepare (default: WEBP wasm embedded as base64)", prepareOnly);
await size("prepare without the WEBP wasm (JavaScript only)", prepareOnly, { plugins: [noWebpWasm] });
await size("prepare, workerd condition (JS; .wasm separate)", prepareOnly, { conditions: ["workerd", "worker"] });
await size("detect + probe only", 'export { detect, probe } from "pixfit";');
await size('everything: import * as px from "pixfit"', 'import * as px from "pixfit"; export default px;');
const wasm = readFileSync(join(root, "node_modules/@jsquash/webp/codec/dec/webp_dec.wasm"));
console.log(`${"webp_dec.wasm (the workerd module)".padEnd(58)} ${String(wasm.length).padStart(9)} B      ${String(gzipSync(wasm, { level: 9 }).length).padStart(8)} B gzip`);

const out = mkdtempSync(join(tmpdir(), "pixfit-size-"));
const worker = join(root, "test/runtimes/worker");
const w = spawnSync(join(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--minify", "--outdir", out, "--config", "wrangler.minimal.toml"], {
  cwd: worker,
  env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_LOG_PATH: join(out, "logs"), CI: "1" },
  encoding: "utf8",
});
rmSync(join(worker, ".wrangler"), { recursive: true, force: true });
if (w.status !== 0) console.log(`wrangler failed: ${w.stderr}`);
else
  for (const f of readdirSync(out).filter((f) => /\.(js|wasm)$/.test(f))) {
    const b = readFileSync(join(out, f));
    console.log(`${("wrangler --minify minimal Worker: " + f.replace(/^[0-9a-f]{40}-/, "")).padEnd(58)} ${String(b.length).padStart(9)} B      ${String(gzipSync(b, { level: 9 }).length).padStart(8)} B gzip`);
  }
rmSync(out, { recursive: true, force: true });
