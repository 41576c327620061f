/**
 * HTTP client for an OpenAI-compatible Chat Completions endpoint, on the global `fetch` only, so it runs in Node,
 * Bun, Deno, workerd and browsers.
 */
import type { VisionConfig } from "./config.js";
import { VisionError, redact } from "./errors.js";
import type { ChatCompletionRequest, ChatCompletionResponse } from "./request.js";

/** Sends one request body and returns the parsed answer. The tool depends on this interface only, so tests and other transports can stand in. */
export interface VisionClient {
  complete(body: ChatCompletionRequest, options?: { signal?: AbortSignal }): Promise<ChatCompletionResponse>;
}

/** Options for {@link createVisionClient}. */
export interface VisionClientOptions {
  /** The `fetch` to use; defaults to `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/** Characters of an error body kept in a message when it is not the usual `{ error: { message } }` JSON. */
const MAX_ERROR_TEXT = 300;

/**
 * Makes a {@link VisionClient} that POSTs JSON to `config.endpoint` with `Authorization: Bearer <apiKey>`.
 *
 * A deadline of `config.timeoutMs` milliseconds covers the whole exchange (connect, send, wait, read the body) and
 * applies even when no signal is given; the caller's `signal` is honoured as well.
 *
 * @throws VisionError
 * - `http` with `status` for a non-2xx answer; the message carries the status and the API's own error message
 *   (`error.message` of the JSON body, else the start of the body), with `Retry-After` when the API sent it;
 * - `http` without `status` when the endpoint cannot be reached (DNS, refused connection, TLS);
 * - `timeout` when the deadline passes; `aborted` when the caller's signal fires (checked first, so an abort is
 *   never reported as a timeout);
 * - `response` when a 2xx body is not a JSON object.
 * No message contains the API key: text from the endpoint is passed through {@link redact}.
 */
export function createVisionClient(config: VisionConfig, options: VisionClientOptions = {}): VisionClient {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const clean = (text: string) => redact(text, config.apiKey);

  return {
    async complete(body, { signal } = {}) {
      if (signal?.aborted) throw abortedError(signal);
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, config.timeoutMs);
      const onAbort = () => controller.abort();
      signal?.addEventListener("abort", onAbort, { once: true });

      try {
        let res: Response;
        let text: string;
        try {
          res = await doFetch(config.endpoint, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json",
              authorization: `Bearer ${config.apiKey}`,
            },
            body: JSON.stringify(body),
            signal: controller.signal,
          });
          text = await res.text();
        } catch (err) {
          if (signal?.aborted) throw abortedError(signal);
          if (timedOut)
            throw new VisionError("timeout", `The vision model did not answer within ${config.timeoutMs} ms (VISION_TIMEOUT_MS).`, { cause: err });
          const detail = err instanceof Error ? `${err.message}${causeText(err)}` : String(err);
          throw new VisionError("http", clean(`Could not reach the vision endpoint ${config.endpoint}: ${detail}`), { cause: err });
        }

        if (!res.ok) {
          const retry = res.headers.get("retry-after");
          const apiMessage = errorMessageOf(text);
          const hint = res.status === 401 || res.status === 403 ? " Check VISION_API_KEY." : res.status === 429 ? " Rate limited; wait and retry." : "";
          throw new VisionError(
            "http",
            clean(`The vision endpoint answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}: ${apiMessage}${retry ? ` (Retry-After: ${retry})` : ""}.${hint}`),
            { status: res.status },
          );
        }

        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new VisionError("response", clean(`The vision endpoint answered HTTP ${res.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, MAX_ERROR_TEXT))}`));
        }
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
          throw new VisionError("response", "The vision endpoint answered with JSON that is not an object.");
        return parsed as ChatCompletionResponse;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}

function abortedError(signal: AbortSignal): VisionError {
  return new VisionError("aborted", "The vision call was aborted.", { cause: signal.reason });
}

/** `error.message` of an OpenAI-style error body, else `message`, else the start of the text. */
function errorMessageOf(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (j && typeof j === "object") {
      if (typeof j.error === "object" && j.error && typeof j.error.message === "string") return j.error.message;
      if (typeof j.error === "string") return j.error;
      if (typeof j.message === "string") return j.message;
    }
  } catch {
    // not JSON: fall through
  }
  const t = text.trim();
  return t === "" ? "(empty body)" : t.slice(0, MAX_ERROR_TEXT);
}

/** Node's fetch puts the network reason (ECONNREFUSED, ...) in `cause`. */
function causeText(err: Error): string {
  const c = (err as { cause?: unknown }).cause;
  if (c instanceof Error) return ` (${(c as { code?: string }).code ?? c.message})`;
  return "";
}
