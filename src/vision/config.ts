/**
 * Configuration of the vision tool, read from environment variables. Defaults are plain data
 * ({@link visionDefaults}) so callers and docs can read them.
 */
import { VisionError } from "./errors.js";

/**
 * How the thinking switch is written into the request body.
 * - `"deepseek"`: `thinking: { type: "enabled" | "disabled" }`, always sent. DeepSeek documents this field for its
 *   OpenAI-format Chat Completions endpoint, and thinking is ON there unless it is sent as disabled
 *   (https://api-docs.deepseek.com/guides/thinking_mode, "Thinking Mode Toggle", read 2026).
 * - `"none"`: nothing is sent; for endpoints that reject unknown fields or have no switch (thinking then only
 *   changes the advice in error messages).
 */
export type ThinkingFormat = "deepseek" | "none";

/** Resolved configuration. Build it with {@link loadVisionConfig}, or write it out directly. */
export interface VisionConfig {
  /** Bearer token sent as `Authorization: Bearer <apiKey>`. Never appears in an error message. */
  apiKey: string;
  /** Base URL of an OpenAI-compatible API, without a trailing slash, e.g. `https://api.deepseek.com`. */
  baseUrl: string;
  /** The full Chat Completions URL the client posts to: `baseUrl + "/chat/completions"` (or `baseUrl` itself when it already ends so). */
  endpoint: string;
  /** Model id sent as `model`. */
  model: string;
  /** Tokens: sent as `max_tokens`. With thinking on, reasoning tokens count toward it. */
  maxTokens: number;
  /** Milliseconds: deadline for one request, from sending it to having read the whole answer. */
  timeoutMs: number;
  /** Default for the tool's `thinking` parameter. */
  thinking: boolean;
  /** How `thinking` is written into the request body. */
  thinkingFormat: ThinkingFormat;
}

/**
 * Defaults for {@link loadVisionConfig}.
 * - `baseUrl`: DeepSeek's OpenAI-format base URL, as listed on https://api-docs.deepseek.com/quick_start/pricing
 *   ("BASE URL (OpenAI Format)", read 2026).
 * - `model`: `deepseek-v4-flash`, the model id on that page. That page does not say the model accepts images;
 *   set `VISION_MODEL` to a vision-capable model of your endpoint.
 * - `maxTokens`: 8192 tokens, enough for a long description plus some reasoning when thinking is on.
 * - `timeoutMs`: 120 000 ms; vision answers with thinking on can take a minute.
 * - `thinking`: off (the default; DeepSeek's own default is on, so pixfit sends it as disabled).
 */
export const visionDefaults = {
  baseUrl: "https://api.deepseek.com",
  model: "deepseek-v4-flash",
  maxTokens: 8192,
  timeoutMs: 120_000,
  thinking: false,
  thinkingFormat: "deepseek" as ThinkingFormat,
} as const;

/** Upper bounds that catch typos (an extra zero) rather than encode any API's limit. */
const LIMITS = { maxTokens: 1_000_000, timeoutMs: 3_600_000 } as const;

/** Environment variables read by {@link loadVisionConfig}; any object with string values works (`process.env`, Deno.env.toObject(), a worker's `env`). */
export type VisionEnv = Readonly<Record<string, string | undefined>>;

/**
 * Reads the vision configuration from environment variables:
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | `VISION_API_KEY` | bearer token (required) | — |
 * | `VISION_BASE_URL` | OpenAI-compatible base URL (`http:` or `https:`) | `https://api.deepseek.com` |
 * | `VISION_MODEL` | model id | `deepseek-v4-flash` |
 * | `VISION_MAX_TOKENS` | integer 1–1 000 000, sent as `max_tokens` | 8192 |
 * | `VISION_TIMEOUT_MS` | integer 1–3 600 000 milliseconds | 120 000 |
 * | `VISION_THINKING` | `true/false`, `1/0`, `yes/no`, `on/off` (any case) | off |
 * | `VISION_THINKING_FORMAT` | `deepseek` or `none` (see {@link ThinkingFormat}) | `deepseek` |
 *
 * Empty or whitespace-only values count as unset.
 * @param env the variables, e.g. `process.env`.
 * @throws VisionError category `config`, naming the variable, when `VISION_API_KEY` is missing or a value does not parse.
 */
export function loadVisionConfig(env: VisionEnv): VisionConfig {
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const apiKey = get("VISION_API_KEY");
  if (!apiKey) throw new VisionError("config", "VISION_API_KEY is not set; the vision tool needs an API key for an OpenAI-compatible endpoint.");

  const baseUrl = parseBaseUrl(get("VISION_BASE_URL") ?? visionDefaults.baseUrl);
  const endpoint = /\/chat\/completions$/.test(baseUrl) ? baseUrl : `${baseUrl}/chat/completions`;
  return {
    apiKey,
    baseUrl,
    endpoint,
    model: get("VISION_MODEL") ?? visionDefaults.model,
    maxTokens: parseInteger("VISION_MAX_TOKENS", get("VISION_MAX_TOKENS"), visionDefaults.maxTokens, LIMITS.maxTokens),
    timeoutMs: parseInteger("VISION_TIMEOUT_MS", get("VISION_TIMEOUT_MS"), visionDefaults.timeoutMs, LIMITS.timeoutMs),
    thinking: parseBoolean("VISION_THINKING", get("VISION_THINKING"), visionDefaults.thinking),
    thinkingFormat: parseThinkingFormat(get("VISION_THINKING_FORMAT")),
  };
}

function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new VisionError("config", `VISION_BASE_URL is not a URL: ${JSON.stringify(value)}. Expected e.g. https://api.deepseek.com.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new VisionError("config", `VISION_BASE_URL must use http: or https:, not ${url.protocol} (${JSON.stringify(value)}).`);
  if (url.username || url.password)
    throw new VisionError("config", "VISION_BASE_URL must not contain credentials; put the key in VISION_API_KEY.");
  if (url.search || url.hash)
    throw new VisionError("config", `VISION_BASE_URL must not have a query or fragment (${JSON.stringify(value)}).`);
  return url.href.replace(/\/+$/, "");
}

function parseInteger(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value))
    throw new VisionError("config", `${name} must be a whole number, got ${JSON.stringify(value)}.`);
  const n = Number(value);
  if (n < 1 || n > max) throw new VisionError("config", `${name} must be between 1 and ${max}, got ${value}.`);
  return n;
}

function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  const v = value.toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new VisionError("config", `${name} must be true/false, 1/0, yes/no or on/off, got ${JSON.stringify(value)}.`);
}

function parseThinkingFormat(value: string | undefined): ThinkingFormat {
  if (value === undefined) return visionDefaults.thinkingFormat;
  const v = value.toLowerCase();
  if (v === "deepseek" || v === "none") return v;
  throw new VisionError("config", `VISION_THINKING_FORMAT must be "deepseek" or "none", got ${JSON.stringify(value)}.`);
}
