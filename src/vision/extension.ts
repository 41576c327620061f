/**
 * Registration of the `vision` tool in an agent with a pi-style extension API (`pi.registerTool(definition)`).
 */
import { loadVisionConfig, type VisionEnv } from "./config.js";
import { isVisionError } from "./errors.js";
import { createVisionTool, type VisionToolDefinition, type VisionToolOptions } from "./tool.js";

/** The part of pi's `ExtensionAPI` this module calls. */
export interface ExtensionApiLike {
  registerTool(definition: VisionToolDefinition): void;
}

/** Options for {@link registerVisionTool}. */
export interface RegisterVisionOptions extends VisionToolOptions {
  /** Variables to read; default `process.env` where it exists, else `{}`. */
  env?: VisionEnv;
  /** Where the one-line notice goes when nothing is registered; default `console.warn`. */
  warn?: (message: string) => void;
}

/**
 * Reads the configuration from `env` and registers the `vision` tool.
 *
 * Without `VISION_API_KEY`, or when a variable does not parse, it registers nothing, calls `warn` once with the
 * reason (naming the variable), and returns undefined: a missing vision setup never stops the agent.
 * @returns the registered tool, or undefined.
 * @throws only what `api.registerTool` throws.
 */
export function registerVisionTool(api: ExtensionApiLike, options: RegisterVisionOptions = {}): VisionToolDefinition | undefined {
  const env = options.env ?? (globalThis as { process?: { env?: VisionEnv } }).process?.env ?? {};
  const warn = options.warn ?? ((message: string) => console.warn(message));
  let tool: VisionToolDefinition;
  try {
    tool = createVisionTool(loadVisionConfig(env), options);
  } catch (err) {
    if (!isVisionError(err, "config")) throw err;
    warn(`pixfit/vision: the vision tool is not registered. ${err.message}`);
    return undefined;
  }
  api.registerTool(tool);
  return tool;
}

/**
 * A pi extension factory: `export { default } from "pixfit/vision/extension"`-style use, or call it from your own
 * factory. Same as `registerVisionTool(pi)` with `process.env`.
 */
export default function visionExtension(pi: ExtensionApiLike): void {
  registerVisionTool(pi);
}
