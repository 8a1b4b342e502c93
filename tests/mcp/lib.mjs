// lib.mjs - what every interop test needs: the real daemon on a socket of its
// own (as tests/testlib.c starts it), the real bridge connected to it through
// the SDK's Client + StdioClientTransport, and a direct line-mode client of
// the daemon to check what the bridge did there.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, "../..");
export const daemonBin = process.env.SANDBOXD_BIN || join(root, "bin/sandboxd");
export const bridgeBin = process.env.SANDBOXD_MCP_BIN || join(root, "bin/sandboxd-mcp");
export const upstreamScript = join(here, "upstream.mjs");

// Resolves once path exists, checking again each time dir changes (the
// event), with a deadline so a test never hangs. The watch starts before
// the first look, so a file made in between is not missed.
function waitForFile(dir, path, ms) {
	return new Promise((res, rej) => {
		const done = (err) => {
			w.close();
			clearTimeout(t);
			err ? rej(err) : res();
		};
		const w = watch(dir, () => {
			if (existsSync(path))
				done();
		});
		const t = setTimeout(() => done(new Error(`${path} did not appear within ${ms} ms`)), ms);
		if (existsSync(path))
			done();
	});
}

// Starts bin/sandboxd on a socket in a new /tmp/sandboxd-test-* directory,
// with its script cache and uid-lock file there too (so it never meets the
// machine's daemons or another suite's), and resolves once it has sent
// READY=1 to NOTIFY_SOCKET. Node has no Unix datagram sockets, so socat
// (a dependency of `make deps`) receives the notification.
export async function startDaemon(extra = []) {
	const dir = mkdtempSync("/tmp/sandboxd-test-");
	const sock = join(dir, "s.sock");
	const notify = join(dir, "notify");
	const logPath = join(dir, "log");
	const recv = spawn("socat", ["-u", `UNIX-RECV:${notify}`, "STDOUT"], { stdio: ["ignore", "pipe", "inherit"] });
	// socat goes whatever happens: a child left running would keep the
	// test file's process alive.
	try {
		const recvFailed = new Promise((_, rej) => recv.on("error", (e) => rej(new Error(`socat: ${e.message}`))));
		await Promise.race([waitForFile(dir, notify, 10000), recvFailed]);
		let out = "";
		const ready = new Promise((res) =>
			recv.stdout.on("data", (b) => {
				out += b;
				if (out.includes("READY=1"))
					res();
			}),
		);
		const args = ["--socket", sock];
		if (!extra.includes("--cache-dir") && !extra.includes("--no-cache"))
			args.push("--cache-dir", join(dir, "scripts"));
		if (!extra.includes("--uid-lock"))
			args.push("--uid-lock", join(dir, "uids.lock"));
		args.push(...extra);
		const logFd = openSync(logPath, "w");
		const proc = spawn(daemonBin, args, {
			stdio: ["ignore", "ignore", logFd],
			env: { ...process.env, NOTIFY_SOCKET: notify },
		});
		closeSync(logFd);
		const d = { dir, sock, log: logPath, proc, exited: null };
		d.exited = new Promise((res) => proc.on("exit", (code, sig) => res({ code, sig })));
		const failed = new Promise((_, rej) => {
			proc.on("error", (e) => rej(new Error(`${daemonBin}: ${e.message}`)));
			d.exited.then(({ code, sig }) =>
				rej(new Error(`daemon exited at start (${code ?? sig}): ${readFileSync(logPath, "utf8")}`)),
			);
		});
		failed.catch(() => {});
		try {
			await within(Promise.race([ready, failed]), 10000, "the daemon did not become ready");
		} catch (e) {
			proc.kill("SIGKILL");
			throw e;
		}
		return d;
	} finally {
		recv.kill();
	}
}

// SIGTERM, wait for the exit, remove the directory. Resolves to the exit.
export async function stopDaemon(d) {
	if (!d)
		return null;
	if (d.proc.exitCode === null && d.proc.signalCode === null)
		d.proc.kill("SIGTERM");
	const st = await d.exited;
	if (d.dir.startsWith("/tmp/sandboxd-test-"))
		rmSync(d.dir, { recursive: true, force: true });
	return st;
}

// One request to the daemon in line mode, on a connection of its own;
// resolves to the final reply (events are collected in reply.events).
export function daemonRequest(sock, req) {
	return new Promise((res, rej) => {
		const c = createConnection(sock);
		let buf = "";
		const events = [];
		c.on("error", rej);
		c.on("connect", () => c.write(JSON.stringify(req) + "\n"));
		c.on("data", (b) => {
			buf += b;
			let nl;
			while ((nl = buf.indexOf("\n")) >= 0) {
				const msg = JSON.parse(buf.slice(0, nl));
				buf = buf.slice(nl + 1);
				if ("event" in msg) {
					events.push(msg);
					continue;
				}
				msg.events = events;
				c.end();
				res(msg);
			}
		});
		c.on("end", () => rej(new Error(`daemon closed before answering ${JSON.stringify(req)}`)));
	});
}

// Starts bin/sandboxd-mcp --socket d.sock ARGS under the SDK's client and
// completes initialize (opts.env: more environment; opts.beforeConnect(t):
// called with the transport first). Returns {client, transport, stderr()}: stderr() is
// what the bridge logged so far (for failure messages).
export async function connectBridge(d, args = [], opts = {}) {
	if (!existsSync(bridgeBin))
		throw new Error(`${bridgeBin} does not exist (build it with make bin/sandboxd-mcp)`);
	const transport = new StdioClientTransport({
		command: bridgeBin,
		args: ["--socket", d.sock, ...args],
		env: { ...process.env, ...(opts.env || {}) },
		stderr: "pipe",
	});
	let err = "";
	transport.stderr?.on("data", (b) => {
		err += b;
	});
	const client = new Client({ name: "sandboxd-interop", version: "1.0.0" }, { capabilities: {} });
	opts.beforeConnect?.(transport);
	await client.connect(transport);
	return { client, transport, stderr: () => err };
}

// promise, or a rejection saying what did not happen within ms; the timer
// is cleared either way, so it does not keep the test's process alive.
export function within(promise, ms, what) {
	let t;
	const timeout = new Promise((_, rej) => {
		t = setTimeout(() => rej(new Error(`${what} within ${ms} ms`)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(t));
}

// The first text block of a tool result, or "".
export function text(result) {
	const b = (result.content || []).find((c) => c.type === "text");
	return b ? b.text : "";
}

// Writes the code-mode config of the interop tests into dir and returns its
// path: the upstream server as "up", its secret_tool denied.
export function writeConfig(dir, { name = "mcp.json", log, page, env = {}, extraServers = {} } = {}) {
	const path = join(dir, name);
	const cfg = {
		mcpServers: {
			up: {
				command: process.execPath,
				args: [upstreamScript],
				env: {
					UPSTREAM_LOG: log || join(dir, "upstream.log"),
					UPSTREAM_GREETING: "${SANDBOXD_INTEROP_GREETING:-fallback greeting}",
					...(page ? { UPSTREAM_PAGE: String(page) } : {}),
					...env,
				},
				cwd: here,
			},
			...extraServers,
		},
		sandboxd: { servers: { up: { deny: ["secret*"] } } },
	};
	writeFileSync(path, JSON.stringify(cfg, null, 2));
	return path;
}

// Resolves once the upstream server's event log (path) holds more than
// `after` events and one of those is event: watched, not polled.
export function waitForUpstreamEvent(path, event, after, ms) {
	const has = () =>
		upstreamEvents(path)
			.slice(after)
			.some((e) => e.event === event);
	return new Promise((res, rej) => {
		const done = (err) => {
			w.close();
			clearTimeout(t);
			err ? rej(err) : res();
		};
		const w = watch(dirname(path), () => {
			if (has())
				done();
		});
		const t = setTimeout(() => done(new Error(`the upstream server logged no "${event}" within ${ms} ms`)), ms);
		if (has())
			done();
	});
}

// The lines of the upstream server's event log ("PID EVENT"), [] when none.
export function upstreamEvents(path) {
	if (!existsSync(path))
		return [];
	return readFileSync(path, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((l) => {
			const sp = l.indexOf(" ");
			return { pid: Number(l.slice(0, sp)), event: l.slice(sp + 1) };
		});
}
