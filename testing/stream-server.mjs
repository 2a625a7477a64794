// A loopback HTTP server for the web layer's fetch tests: streams a body in timed chunks.
// GET /chunks?count=N&delayMs=D sends N lines "chunk i\n", one per write, D ms apart, and
// records whether the client went away before the end (GET /__last reports it).
import http from "node:http";

const port = Number(process.env.PORT);
let last = { finished: false, closedEarly: false, sent: 0 };

const cors = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
};

http
  .createServer((request, response) => {
    const url = new URL(request.url, "http://127.0.0.1");
    if (request.method === "OPTIONS") {
      response.writeHead(204, cors).end();
      return;
    }
    if (url.pathname === "/__last") {
      response.writeHead(200, { ...cors, "content-type": "application/json" });
      response.end(JSON.stringify(last));
      return;
    }
    if (url.pathname !== "/chunks") {
      response.writeHead(404, cors).end("not found");
      return;
    }
    const count = Math.min(Number(url.searchParams.get("count") ?? 5), 10000);
    const delayMs = Math.min(Number(url.searchParams.get("delayMs") ?? 50), 10000);
    const state = { finished: false, closedEarly: false, sent: 0 };
    last = state;
    response.writeHead(200, { ...cors, "content-type": "text/plain", "cache-control": "no-store" });
    const timer = setInterval(() => {
      if (state.sent === count) {
        clearInterval(timer);
        state.finished = true;
        response.end();
        return;
      }
      response.write(`chunk ${state.sent}\n`);
      state.sent += 1;
    }, delayMs);
    response.on("close", () => {
      if (!state.finished) state.closedEarly = true;
      clearInterval(timer);
    });
  })
  .listen(port, "127.0.0.1");
