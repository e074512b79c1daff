// Package browser reaches the WebGPU of a web browser, the third
// implementation beside wgpu-native and Dawn: a page embedded in the
// binary runs the jobs the Go side hands it and posts their results back
// over HTTP. It starts no other work: it serves one page to one tab, runs
// nothing a request asks for, and writes nothing the page sends anywhere
// but into the value the caller gets back.
//
// # Protocol
//
// The Server listens on 127.0.0.1 on a free port (another address only
// when the caller asks for it; the CLI warns). Its URL carries a one-time
// token: http://127.0.0.1:PORT/?t=TOKEN. The page, and every request it
// makes, carries that token (the page and its script in the query, the
// API calls in the X-Wgpu-Prof-Token header):
//
//	GET  /?t=TOKEN          the page (HTML); its script tag names page.js?t=TOKEN
//	GET  /page.js?t=TOKEN   the page's script
//	POST /api/hello         {"userAgent": "..."} → {"session": "..."}: the one tab
//	                        this server talks to; a second tab gets 409
//	POST /api/beat          heartbeat, every 500 ms, while the tab lives
//	GET  /api/job           the next job, {"id": 1, "kind": "adapter",
//	                        "params": {...}}; 204 after 1 s without one
//	                        (the page asks again), 410 once the server closes
//	POST /api/result        {"id": 1, "ok": true, "result": {...}} or
//	                        {"id": 1, "ok": false, "error": "..."}
//
// After the hello, the API calls also carry X-Wgpu-Prof-Session. The Go
// side owns the jobs: Server.Do queues one (a kind the page knows and its
// parameters as JSON), waits for its result and decodes it. The page runs
// only the kinds its script defines ("adapter" so far: Describe) and
// nothing else. A closed tab or a hung browser ends the wait when no
// heartbeat came for HeartbeatTimeout (3 s): Do returns ErrPageLost.
// Before the hello, Do waits at most Options.ConnectTimeout for a page to
// connect (ErrNoPage).
//
// # Security rules
//
//   - Every request without the token, or with another one, is refused with
//     403 before anything else is looked at; nothing runs for it. The token is
//     32 bytes from crypto/rand, compared in constant time, and lives only as
//     long as the Server.
//   - On the loopback address a request whose Host is not the server's own
//     (DNS rebinding) is refused with 403 too; a request with an Origin other
//     than the server's is refused.
//   - Responses carry Cross-Origin-Opener-Policy: same-origin and
//     Cross-Origin-Embedder-Policy: require-corp (the page is cross-origin
//     isolated, so performance.now() has its fine resolution), a
//     Content-Security-Policy that allows only the server's own script and
//     connections, Referrer-Policy: no-referrer (the token does not leave in
//     a Referer) and Cache-Control: no-store.
//   - Request bodies are limited (Options.MaxBody); results are decoded into
//     typed values, and every string in them is cleaned of control and
//     format characters and cut to a length (Clean) before the caller sees
//     it, so a page cannot write escape sequences to the terminal.
//   - Nothing the page sends is logged or written to a file.
//
// The Launcher starts headless Chromium (chromium, chromium-browser or
// google-chrome on PATH) on the URL with a temporary profile, in its own
// process group, and ends the group and removes the profile on Close.
package browser
