/**
 * Runtime checks for Node, Bun and Deno: pixfit is imported as its users import it, by package name
 * (the package's own "exports", i.e. the built dist/), then every check in ./checks.js runs.
 * Prints one JSON line: { runtime, version, results }.
 */
import * as px from "pixfit";
import { runChecks } from "./checks.js";

const runtime = typeof Deno !== "undefined" ? "deno" : typeof Bun !== "undefined" ? "bun" : "node";
const version = runtime === "deno" ? Deno.version.deno : runtime === "bun" ? Bun.version : process.versions.node;
const results = await runChecks(px);
console.log(JSON.stringify({ runtime, version, results }));
