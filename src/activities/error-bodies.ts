/**
 * The body of an error response, read within a bound (docs/semantics.md, "Bounds on hostile
 * input"). The openai package reads an error's body whole (`response.text()`) to build its error, and
 * troupe keeps 500 characters of its message: an endpoint answering HTTP 500 with a body without end
 * would otherwise fill the worker's memory until the call's deadline. This fetch hands the package
 * the first {@link MAX_ERROR_BODY_BYTES} of such a body and stops reading there.
 */

/** The fetch signature the openai package takes (`ClientOptions.fetch`). */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The most bytes of an error response's body that are read. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** `body` cut after `maxBytes`: the source is cancelled there, never read to its end. */
function cutAfter(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      const room = maxBytes - sent;
      if (value.byteLength < room) {
        sent += value.byteLength;
        controller.enqueue(value);
        return;
      }
      controller.enqueue(value.subarray(0, room));
      sent = maxBytes;
      controller.close();
      reader.cancel().catch(() => undefined);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** A fetch whose error responses (any status but 2xx) carry at most `maxBytes` of their body. */
export function cappedErrorBodies(fetchImpl: Fetch, maxBytes: number = MAX_ERROR_BODY_BYTES): Fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (response.ok || !response.body) return response;
    return new Response(cutAfter(response.body, maxBytes), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
