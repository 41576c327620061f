/**
 * The Chromium page: bundled with esbuild (platform "browser"), served on 127.0.0.1 by
 * scripts/test-runtimes.mjs. Runs the shared checks, then prepares the image the server offers at
 * /image (the same bytes the runner prepares in Node), and leaves everything on `window.__pixfit`.
 */
import * as px from "pixfit";
import { runChecks, sha256 } from "../checks.js";

async function main() {
  const results = await runChecks(px);
  // What a browser-based agent UI does with a user's file: bytes in, prepared bytes out.
  const prepared = [];
  for (const name of (await (await fetch("/images")).json())) {
    const bytes = new Uint8Array(await (await fetch(`/image/${encodeURIComponent(name)}`)).arrayBuffer());
    try {
      const r = await px.prepare(bytes);
      prepared.push({ name, value: `${r.mediaType} ${r.width}x${r.height} ${r.bytes.length}B ${await sha256(r.bytes)}` });
    } catch (err) {
      prepared.push({ name, value: `threw ${err && err.code ? err.code : String(err)}` });
    }
  }
  return { runtime: "chromium", version: navigator.userAgent, results, prepared };
}

main().then(
  (r) => {
    window.__pixfit = r;
    document.title = "done";
  },
  (err) => {
    window.__pixfit = { error: String(err && err.stack ? err.stack : err) };
    document.title = "failed";
  },
);
