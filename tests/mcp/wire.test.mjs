// wire.test.mjs - bin/sandboxd-mcp's JSON-RPC as the bytes on its stdio:
// what no SDK would send (lines that are not JSON, batches, ids of both
// types, versions it does not speak) and its end when stdin closes.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { bridgeBin, daemonRequest, startDaemon, stopDaemon, within } from "./lib.mjs";

const MODERN = "2026-07-28";
const META = "io.modelcontextprotocol/protocolVersion";
// What a 2026-07-28 request carries in params._meta besides its version.
const ENVELOPE = {
	"io.modelcontextprotocol/clientCapabilities": {},
	"io.modelcontextprotocol/clientInfo": { name: "wire", version: "1" },
};

let d;
before(async () => {
	d = await startDaemon();
});
after(async () => {
	await stopDaemon(d);
});

// The bridge as a child: send(obj or raw line) and next() for the next line
// it writes (parsed; a line that is not JSON fails the test: stdout is MCP only).
function bridge(args = []) {
	const p = spawn(bridgeBin, ["--socket", d.sock, ...args], { stdio: ["pipe", "pipe", "pipe"] });
	let buf = "";
	let err = "";
	const lines = [];
	const waiters = [];
	p.stderr.on("data", (x) => {
		err += x;
	});
	p.stdout.on("data", (x) => {
		buf += x;
		let nl;
		while ((nl = buf.indexOf("\n")) >= 0) {
			const line = buf.slice(0, nl);
			buf = buf.slice(nl + 1);
			let msg;
			try {
				msg = JSON.parse(line);
			} catch {
				msg = { notJson: line };
			}
			if (waiters.length)
				waiters.shift()(msg);
			else
				lines.push(msg);
		}
	});
	const exited = new Promise((res) => p.on("exit", (code, sig) => res({ code, sig })));
	return {
		proc: p,
		exited,
		stderr: () => err,
		send(m) {
			p.stdin.write((typeof m === "string" ? m : JSON.stringify(m)) + "\n");
		},
		next(ms = 10000) {
			if (lines.length)
				return Promise.resolve(lines.shift());
			return new Promise((res, rej) => {
				const t = setTimeout(() => rej(new Error(`no line from the bridge in ${ms} ms; stderr: ${err}`)), ms);
				waiters.push((m) => {
					clearTimeout(t);
					res(m);
				});
			});
		},
		// The next message that is not a notification.
		async reply(ms) {
			for (;;) {
				const m = await this.next(ms);
				assert.equal(m.notJson, undefined, `stdout holds only JSON-RPC: ${m.notJson}`);
				assert.equal(m.jsonrpc, "2.0");
				if ("id" in m)
					return m;
			}
		},
	};
}

async function initialized(br, version = "2025-11-25", id = 0) {
	br.send({
		jsonrpc: "2.0",
		id,
		method: "initialize",
		params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "wire", version: "1" } },
	});
	const r = await br.reply();
	br.send({ jsonrpc: "2.0", method: "notifications/initialized" });
	return r;
}

test("a line that is not JSON: -32700 with id null; the bridge goes on", async () => {
	const br = bridge();
	try {
		br.send("this is not json");
		const r = await br.reply();
		assert.equal(r.id, null);
		assert.equal(r.error.code, -32700);
		const init = await initialized(br);
		assert.equal(init.result.protocolVersion, "2025-11-25");
	} finally {
		br.proc.stdin.end();
		await br.exited;
	}
});

test("a batch gets one -32600 with id null", async () => {
	const br = bridge();
	try {
		br.send([
			{ jsonrpc: "2.0", id: 1, method: "ping" },
			{ jsonrpc: "2.0", id: 2, method: "ping" },
		]);
		const r = await br.reply();
		assert.equal(r.id, null);
		assert.equal(r.error.code, -32600);
		br.send({ jsonrpc: "2.0", id: 3, method: "ping" });
		assert.equal((await br.reply()).id, 3, "one reply for the batch, then the next request's");
	} finally {
		br.proc.stdin.end();
		await br.exited;
	}
});

test("ids of either type are echoed exactly; -32601, -32602, -32600", async () => {
	const br = bridge();
	try {
		const init = await initialized(br, "2025-11-25", "init-ß-1");
		assert.equal(init.id, "init-ß-1");
		br.send({ jsonrpc: "2.0", id: 12345678901, method: "ping" });
		const p = await br.reply();
		assert.equal(p.id, 12345678901);
		assert.deepEqual(p.result, {});
		br.send({ jsonrpc: "2.0", id: "m", method: "no/such/method" });
		assert.equal((await br.reply()).error.code, -32601);
		br.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "nope", arguments: {} } });
		const u = await br.reply();
		assert.equal(u.id, 5);
		assert.equal(u.error.code, -32602);
		br.send({ jsonrpc: "1.0", id: 6, method: "ping" });
		assert.equal((await br.reply()).error.code, -32600);
	} finally {
		br.proc.stdin.end();
		await br.exited;
	}
});

test("version negotiation: each supported version, and the latest for an unknown one", async () => {
	for (const v of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
		const br = bridge();
		try {
			const r = await initialized(br, v);
			assert.equal(r.result.protocolVersion, v);
			assert.ok(r.result.capabilities.tools, "tools capability");
			assert.ok(r.result.serverInfo.name);
		} finally {
			br.proc.stdin.end();
			await br.exited;
		}
	}
	const br = bridge();
	try {
		const r = await initialized(br, "1999-01-01");
		assert.equal(r.result.protocolVersion, "2025-11-25");
	} finally {
		br.proc.stdin.end();
		await br.exited;
	}
});

test(`${MODERN}: server/discover, per-request version, resultType, ttlMs/cacheScope, -32022`, async () => {
	const br = bridge();
	try {
		br.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { [META]: MODERN, ...ENVELOPE } } });
		const disc = await br.reply();
		assert.equal(disc.error, undefined, JSON.stringify(disc));
		assert.ok(JSON.stringify(disc.result).includes(MODERN), `discover names ${MODERN}: ${JSON.stringify(disc)}`);

		br.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: { [META]: MODERN, ...ENVELOPE } } });
		const list = await br.reply();
		assert.equal(list.error, undefined, JSON.stringify(list));
		assert.ok(Array.isArray(list.result.tools));
		assert.ok(list.result.tools.some((t) => t.name === "execute"));
		assert.equal(typeof list.result.resultType, "string", "resultType");
		assert.equal(typeof list.result.ttlMs, "number", "ttlMs");
		assert.equal(typeof list.result.cacheScope, "string", "cacheScope");

		br.send({
			jsonrpc: "2.0",
			id: 3,
			method: "tools/call",
			params: { name: "execute", arguments: { code: "return 6 * 7" }, _meta: { [META]: MODERN, ...ENVELOPE } },
		});
		const call = await br.reply(30000);
		assert.equal(call.error, undefined, JSON.stringify(call));
		assert.equal(call.result.structuredContent.value, 42);
		assert.equal(typeof call.result.resultType, "string");

		br.send({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: { [META]: "2099-01-01", ...ENVELOPE } } });
		const bad = await br.reply();
		assert.equal(bad.error?.code, -32022, JSON.stringify(bad));
		assert.equal(bad.error.data.requested, "2099-01-01");
		assert.ok(bad.error.data.supported.includes(MODERN), JSON.stringify(bad.error.data));
	} finally {
		br.proc.stdin.end();
		await br.exited;
	}
});

test("the bridge exits when stdin closes, cancelling the executions it started", async () => {
	const marker = `stdin-close-${process.pid}`;
	const br = bridge();
	await initialized(br);
	br.send({
		jsonrpc: "2.0",
		id: 9,
		method: "tools/call",
		params: {
			name: "execute",
			arguments: { code: `// ${marker}\nconsole.log("running"); while (true) {}`, timeout_ms: 60000 },
			_meta: { progressToken: "pt" },
		},
	});
	// Its first progress notification says it runs in the daemon.
	for (;;) {
		const m = await br.next();
		assert.notEqual(m.id, 9, `no reply before the end: ${JSON.stringify(m)}`);
		if (m.method === "notifications/progress")
			break;
	}
	const list = await daemonRequest(d.sock, { op: "list", states: ["running"], limit: 50 });
	const e = list.executions?.find((x) => x.code_preview.includes(marker));
	assert.ok(e, "the execution runs in the daemon");
	br.proc.stdin.end();
	const st = await within(br.exited, 10000, "the bridge did not exit");
	assert.equal(st.code, 0, `exit status; stderr: ${br.stderr()}`);
	const s = await daemonRequest(d.sock, { op: "status", execution_id: e.execution_id, wait: true, wait_ms: 10000 });
	assert.equal(s.state, "cancelled");
});
