// chaind explorer: a single-page app over the node's public faces (JSON-RPC + WebSocket, CometBFT RPC, REST).
// Every value that comes from the chain is attacker-chosen (memos, token names, revert strings): it is only
// ever put in the page as text (text nodes, textContent), never parsed as HTML.
"use strict";

const PAGE_SIZE = 10;            // rows of latest blocks and txs
const MAX_DRAWN_FRAMES = 2000;   // a call tree larger than this is not drawn; the struct log is offered
const STEPS_PER_PAGE = 50;       // struct log rows per page
const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const APPROVAL = "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925";

let config = null;
let clockSkewMs = 0;             // the chain's clock less the browser's: a dev chain's time controls move it
let displayUnits = new Map();    // base denom -> {exponent, symbol}: its metadata's display unit
let rpcId = 0;
let cleanups = [];               // what the current page must undo when the user leaves it (live sockets)

// -- DOM: elements built from parts, data always as text ---------------------------------------------------

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "href") node.setAttribute("href", route(value));
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function route(href) {
  // Links stay inside the app: only "#/..." routes, each part URI-encoded by the caller.
  const text = String(href);
  return text.startsWith("#/") ? text : "#/";
}

const link = (href, text, cls) => el("a", {href, class: cls}, text);
const blockLink = (height) => link(`#/block/${encodeURIComponent(height)}`, String(height));
const txLink = (hash, text) => link(`#/tx/${encodeURIComponent(hash)}`, text || hash, "hash");
const addressLink = (address) => link(`#/address/${encodeURIComponent(address)}`, address, "hash");
const chip = (text, cls) => el("span", {class: `chip ${cls || ""}`}, text);
const card = (title, ...children) => el("section", {class: "card"}, title ? el("h2", {}, title) : null, children);
const kv = (rows) => el("table", {class: "kv"}, el("tbody", {}, rows.filter(Boolean).map(
  ([key, value]) => el("tr", {}, el("th", {}, key), el("td", {}, value)))));

function table(headers, rows) {
  // `rows`: a list of <tr>, or a <tbody> the caller keeps filling (live lists).
  const body = rows instanceof HTMLTableSectionElement ? rows : el("tbody", {}, rows);
  return el("table", {}, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))), body);
}

function show(...children) {
  const main = document.getElementById("main");
  main.replaceChildren();
  append(main, children);
  return main;
}

function notFound(what, detail) {
  return show(el("section", {class: "card notfound", id: "not-found"},
                 el("h1", {}, what), detail ? el("p", {class: "muted"}, detail) : null,
                 el("p", {}, link("#/", "Back to the latest blocks"))));
}

// -- clients of the node's faces ------------------------------------------------------------------------

class FaceError extends Error {
  constructor(message, code) { super(message); this.code = code; }
}

async function evm(method, params = []) {
  if (!config.jsonRpc) throw new FaceError("this node serves no JSON-RPC");
  const response = await fetch(config.jsonRpc, {
    method: "POST", headers: {"content-type": "application/json"},
    body: JSON.stringify({jsonrpc: "2.0", id: ++rpcId, method, params}),
  });
  const body = await response.json();
  if (body.error) throw new FaceError(body.error.message, body.error.code);
  return body.result;
}

async function comet(name, args = {}) {
  if (!config.cometbft) throw new FaceError("this node serves no CometBFT RPC");
  const query = Object.entries(args).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");
  const response = await fetch(`${config.cometbft}/${name}${query ? "?" + query : ""}`);
  const body = await response.json();
  if (body.error) throw new FaceError(body.error.data || body.error.message, body.error.code);
  return body.result;
}

async function rest(path) {
  if (!config.rest) throw new FaceError("this node serves no REST");
  const response = await fetch(config.rest + path);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new FaceError(body.message || response.statusText, response.status);
  return body;
}

const quoted = (text) => `"${text}"`;                           // a CometBFT URI string argument

async function txSearch(query, perPage = PAGE_SIZE) {
  const result = await comet("tx_search", {query: quoted(query), per_page: perPage, order_by: quoted("desc")});
  return result.txs || [];
}

// -- values ---------------------------------------------------------------------------------------------

const strip0x = (hex) => (hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex);
const isHash = (text) => /^(0x)?[0-9a-fA-F]{64}$/.test(text);
const isHexAddress = (text) => /^0x[0-9a-fA-F]{40}$/.test(text);
const big = (hex) => (hex === null || hex === undefined || hex === "0x" ? 0n : BigInt(hex));
const short = (hash, n = 10) => (hash.length > 2 * n + 3 ? `${hash.slice(0, n + 2)}…${hash.slice(-n + 2)}` : hash);

function units(value, decimals) {
  const v = BigInt(value);
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return (negative ? "-" : "") + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (fraction ? "." + fraction : "");
}

function coin(amount, denom) {
  // In the display unit of the denom's metadata (bank's denoms_metadata), else in base units.
  const unit = displayUnits.get(denom) || (denom === config.denom
    ? {exponent: config.decimals, symbol: config.denom.replace(/^a/, "").toUpperCase()} : null);
  return unit ? `${units(amount, unit.exponent)} ${unit.symbol}` : `${BigInt(amount).toLocaleString("en-US")} ${denom}`;
}

async function loadDisplayUnits() {
  const found = new Map();
  const body = await rest("/cosmos/bank/v1beta1/denoms_metadata?pagination.limit=1000").catch(() => ({}));
  for (const metadata of body.metadatas || []) {
    const display = (metadata.denom_units || []).find((unit) => unit.denom === metadata.display);
    if (!display || !display.exponent) continue;
    found.set(metadata.base, {exponent: display.exponent, symbol: metadata.symbol || metadata.display});
  }
  displayUnits = found;
}

async function syncClock() {
  // The node's clock, which a dev chain's evm_increaseTime or evm_setNextBlockTimestamp moves: "ago" counts on it.
  try {
    const sent = Date.now();
    const answer = await (await fetch("clock.json", {cache: "no-store"})).json();
    clockSkewMs = answer.now - (sent + Date.now()) / 2;
  } catch (error) {
    clockSkewMs = 0;             // the browser's clock, then
  }
}

const chainNow = () => Date.now() + clockSkewMs;

// A denom in a narrow column: IBC vouchers shortened, the whole denom in the tooltip.
const denomView = (denom) => el("span", {class: "hash", title: denom}, denom.startsWith("ibc/") ? short(denom, 8) : denom);
const amountOf = (amount, denom) => coin(amount, denom);

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const seconds = Math.round((chainNow() - date.getTime()) / 1000);
  const ago = seconds < 60 ? `${Math.max(seconds, 0)} s ago` : seconds < 3600 ? `${Math.round(seconds / 60)} min ago`
    : `${Math.round(seconds / 3600)} h ago`;
  return `${date.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")} (${ago})`;
}

function ago(iso) {
  // Short, for lists: the time of day and how long ago.
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const seconds = Math.max(0, Math.round((chainNow() - date.getTime()) / 1000));
  return `${date.toISOString().slice(11, 19)} · ${seconds < 60 ? seconds + " s" : Math.round(seconds / 60) + " min"} ago`;
}

function eventValue(events, type, key) {
  for (const event of events || []) {
    if (event.type !== type) continue;
    for (const attribute of event.attributes || []) if (attribute.key === key) return attribute.value;
  }
  return null;
}

// ABI: words of 32 bytes in hex.
const word = (hex, i) => strip0x(hex).slice(64 * i, 64 * i + 64);
const topicAddress = (topic) => "0x" + strip0x(topic).slice(24);

function abiString(hex) {
  const data = strip0x(hex || "");
  if (data.length < 128) return null;
  const offset = Number(BigInt("0x" + word(data, 0)));
  const length = Number(BigInt("0x" + data.slice(offset * 2, offset * 2 + 64)));
  const bytes = data.slice(offset * 2 + 64, offset * 2 + 64 + length * 2);
  if (bytes.length !== length * 2) return null;
  const raw = new Uint8Array(bytes.match(/../g)?.map((b) => parseInt(b, 16)) || []);
  return new TextDecoder("utf-8", {fatal: false}).decode(raw);
}

function revertString(hex) {
  // Error(string): 0x08c379a0 then an ABI string.
  const data = strip0x(hex || "");
  return data.startsWith("08c379a0") ? abiString(data.slice(8)) : null;
}

// bech32 (BIP-173), to show an address both ways.
const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

function polymod(values) {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >> i) & 1) chk ^= gen[i];
  }
  return chk;
}

const hrpExpand = (hrp) => [...hrp].map((c) => c.charCodeAt(0) >> 5).concat([0], [...hrp].map((c) => c.charCodeAt(0) & 31));

function convertBits(data, from, to, pad) {
  let acc = 0, bits = 0;
  const out = [];
  for (const value of data) {
    acc = (acc << from) | value;
    bits += from;
    while (bits >= to) { bits -= to; out.push((acc >> bits) & ((1 << to) - 1)); }
  }
  if (pad && bits > 0) out.push((acc << (to - bits)) & ((1 << to) - 1));
  else if (!pad && (bits >= from || ((acc << (to - bits)) & ((1 << to) - 1)))) return null;
  return out;
}

function toBech32(hex) {
  const bytes = strip0x(hex).match(/../g).map((b) => parseInt(b, 16));
  const data = convertBits(bytes, 8, 5, true);
  const values = hrpExpand(config.bech32Prefix).concat(data, [0, 0, 0, 0, 0, 0]);
  const mod = polymod(values) ^ 1;
  const checksum = [0, 1, 2, 3, 4, 5].map((i) => (mod >> (5 * (5 - i))) & 31);
  return config.bech32Prefix + "1" + data.concat(checksum).map((v) => BECH32[v]).join("");
}

function fromBech32(text) {
  const lower = text.toLowerCase();
  if (lower !== text && text.toUpperCase() !== text) return null;
  const at = lower.lastIndexOf("1");
  if (at < 1 || lower.slice(0, at) !== config.bech32Prefix) return null;
  const values = [...lower.slice(at + 1)].map((c) => BECH32.indexOf(c));
  if (values.length < 7 || values.includes(-1)) return null;
  if (polymod(hrpExpand(lower.slice(0, at)).concat(values)) !== 1) return null;
  const bytes = convertBits(values.slice(0, -6), 5, 8, false);
  if (!bytes || bytes.length !== 20) return null;
  return "0x" + bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
}

// -- pages ----------------------------------------------------------------------------------------------

const ROUTES = [
  [/^#?\/?$/, homePage],
  [/^#\/block\/([^/]+)$/, blockPage],
  [/^#\/tx\/([^/]+)$/, txPage],
  [/^#\/address\/([^/]+)$/, addressPage],
  [/^#\/trace\/([^/]+)$/, tracePage],
  [/^#\/search\/(.*)$/, searchPage],
];

async function render() {
  for (const undo of cleanups.splice(0)) undo();
  const hash = location.hash || "#/";
  for (const [pattern, page] of ROUTES) {
    const match = hash.match(pattern);
    if (!match) continue;
    show(el("p", {class: "muted"}, "Loading…"));
    try {
      await syncClock();
      await page(match[1] === undefined ? undefined : decodeURIComponent(match[1]));
    } catch (error) {
      show(el("section", {class: "card notice", id: "error"}, el("h1", {}, "The node could not answer"),
              el("p", {}, String(error.message || error))));
    }
    return;
  }
  notFound("No such page", `Nothing is served at ${hash}.`);
}

// Home: the latest blocks and txs, new blocks pushed by the EVM WebSocket (newHeads).

async function homePage() {
  const status = await comet("status");
  const head = Number(status.sync_info.latest_block_height);
  const blocksBody = el("tbody", {id: "latest-blocks"});
  const txsBody = el("tbody", {id: "latest-txs"});
  const live = chip("connecting", "");
  show(el("h1", {}, "Latest", live),
       el("div", {class: "grid"},
          card("Blocks", table(["Height", "Hash", "Time", "Txs"], blocksBody)),
          card("Transactions", table(["Hash", "Height", "Kind", "Result"], txsBody))));
  const metas = head > 0 ? (await comet("blockchain", {minHeight: Math.max(1, head - PAGE_SIZE + 1), maxHeight: head})).block_metas : [];
  for (const meta of metas) blocksBody.append(blockRow(meta));
  await refreshTxs(txsBody);
  follow(blocksBody, txsBody, live);
}

function blockRow(meta, fresh) {
  const header = meta.header;
  return el("tr", {class: fresh ? "row-new" : null, "data-height": header.height},
            el("td", {}, blockLink(header.height)), el("td", {class: "hash nowrap"}, short(meta.block_id.hash, 8)),
            el("td", {class: "nowrap"}, ago(header.time)), el("td", {}, meta.num_txs));
}

async function refreshTxs(body) {
  const txs = await txSearch("tx.height > 0");
  body.replaceChildren(...(txs.length ? txs.map(txRow)
    : [el("tr", {}, el("td", {colspan: 4, class: "muted"}, "No transactions yet."))]));
}

function txRow(tx) {
  const evmHash = eventValue(tx.tx_result.events, "ethereum_tx", "ethereumTxHash");
  const ok = tx.tx_result.code === 0;
  return el("tr", {}, el("td", {class: "nowrap"}, txLink(evmHash || tx.hash, short(evmHash || tx.hash, 8))),
            el("td", {}, blockLink(tx.height)), el("td", {}, evmHash ? "EVM" : "native"),
            el("td", {}, chip(ok ? "success" : `code ${tx.tx_result.code}`, ok ? "ok" : "bad")));
}

function follow(blocksBody, txsBody, live) {
  if (!config.websocket) { live.textContent = "not live (no WebSocket)"; return; }
  const socket = new WebSocket(config.websocket);
  cleanups.push(() => socket.close());
  socket.onopen = () => socket.send(JSON.stringify({jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"]}));
  socket.onmessage = async (message) => {
    const data = JSON.parse(message.data);
    if (data.id === 1 && data.result) { live.textContent = "live"; live.className = "chip live"; return; }
    if (data.method !== "eth_subscription") return;
    const height = Number(BigInt(data.params.result.number));
    const [metas] = await Promise.all([comet("blockchain", {minHeight: height, maxHeight: height})
      .then((result) => result.block_metas), syncClock()]);
    if (!metas.length || blocksBody.querySelector(`tr[data-height="${height}"]`)) return;
    blocksBody.prepend(blockRow(metas[0], true));
    while (blocksBody.children.length > PAGE_SIZE) blocksBody.lastChild.remove();
    if (Number(metas[0].num_txs) > 0) await refreshTxs(txsBody);
  };
  socket.onclose = () => { live.textContent = "disconnected"; live.className = "chip bad"; };
}

// A block: header, proposer, its txs (EVM and native) and FinalizeBlock's events.

async function blockPage(id) {
  let height = id;
  if (isHash(id)) {
    const found = await comet("block_by_hash", {hash: "0x" + strip0x(id)}).catch(() => null);
    if (!found || !found.block) return notFound("No such block", `No block has the hash ${id}.`);
    height = found.block.header.height;
  } else if (!/^\d+$/.test(id)) {
    return notFound("Not a block", `"${id}" is neither a height nor a block hash.`);
  }
  let block;
  try {
    block = await comet("block", {height});
  } catch (error) {
    return notFound(`No block at height ${height}`, String(error.message));
  }
  const header = block.block.header;
  const [results, txs, evmBlock] = await Promise.all([
    comet("block_results", {height}).catch(() => null),
    txSearch(`tx.height = ${height}`, 100).catch(() => []),
    evm("eth_getBlockByNumber", ["0x" + Number(height).toString(16), false]).catch(() => null),
  ]);
  const h = Number(height);
  show(el("h1", {}, `Block ${height}`, h > 1 ? link(`#/block/${h - 1}`, "← previous", "small") : null,
          link(`#/block/${h + 1}`, "next →", "small")),
       card("Header", kv([
         ["Height", header.height], ["Hash", el("span", {class: "hash"}, block.block_id.hash)],
         ["Time", when(header.time)], ["Proposer", el("span", {class: "hash"}, header.proposer_address)],
         ["Chain", header.chain_id], ["App hash", el("span", {class: "hash"}, header.app_hash)],
         ["Transactions", String(block.block.data.txs.length)],
         evmBlock && ["EVM gas used", `${Number(BigInt(evmBlock.gasUsed)).toLocaleString()} of ${Number(BigInt(evmBlock.gasLimit)).toLocaleString()}`],
         evmBlock && evmBlock.baseFeePerGas && ["Base fee", `${BigInt(evmBlock.baseFeePerGas)} ${config.denom}/gas`],
       ])),
       card("Transactions", txs.length ? table(["Hash", "Kind", "Result", "Gas used"], txs.map((tx) => {
         const evmHash = eventValue(tx.tx_result.events, "ethereum_tx", "ethereumTxHash");
         const ok = tx.tx_result.code === 0;
         return el("tr", {}, el("td", {}, txLink(evmHash || tx.hash)), el("td", {}, evmHash ? "EVM" : "native"),
                   el("td", {}, chip(ok ? "success" : `code ${tx.tx_result.code}`, ok ? "ok" : "bad")),
                   el("td", {}, tx.tx_result.gas_used));
       })) : el("p", {class: "muted"}, "No transactions in this block.")),
       card("FinalizeBlock events", results && (results.finalize_block_events || []).length
         ? events(results.finalize_block_events) : el("p", {class: "muted"}, "No block events.")));
}

function events(list) {
  return el("div", {class: "events"}, list.map((event) => [
    el("div", {class: "type"}, event.type),
    table(["Key", "Value"], (event.attributes || []).map((a) => el("tr", {}, el("td", {class: "mono"}, a.key),
                                                                    el("td", {class: "hash"}, a.value ?? "")))),
  ]));
}

// A tx: found by its EVM hash or its native (CometBFT) hash.

async function txPage(id) {
  if (!isHash(id)) return notFound("Not a transaction hash", `"${id}" is not a 32-byte hex hash.`);
  const hex = strip0x(id).toLowerCase();
  let evmTx = await evm("eth_getTransactionByHash", ["0x" + hex]).catch(() => null);
  let native = null;
  if (evmTx) {
    native = (await txSearch(`ethereum_tx.ethereumTxHash = '0x${hex}'`, 1).catch(() => []))[0] || null;
  } else {
    native = await comet("tx", {hash: "0x" + hex}).catch(() => null);
    const evmHash = native && eventValue(native.tx_result.events, "ethereum_tx", "ethereumTxHash");
    if (evmHash) evmTx = await evm("eth_getTransactionByHash", [evmHash]).catch(() => null);
  }
  if (!evmTx && !native) {
    const block = await comet("block_by_hash", {hash: "0x" + hex}).catch(() => null);
    if (block && block.block) { location.replace(`#/block/${block.block.header.height}`); return; }
    return notFound("Transaction not found", `No transaction or block on this chain has the hash ${id}.`);
  }
  const [receipt, body] = await Promise.all([
    evmTx ? evm("eth_getTransactionReceipt", [evmTx.hash]) : null,
    native ? rest(`/cosmos/tx/v1beta1/txs/${native.hash}`).catch(() => null) : null,
  ]);
  const result = native ? native.tx_result : null;
  const ok = receipt ? receipt.status === "0x1" : result.code === 0;
  const memo = body && body.tx ? body.tx.body.memo : "";
  const fee = body && body.tx ? body.tx.auth_info.fee : null;
  // An EVM tx pays gas used x effective gas price (its receipt's figure, and the `tx` event's); its wrapper's
  // fee, gas limit x max fee, is only what it could have cost.
  const paid = receipt ? coin((BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)).toString(), config.denom)
    : fee && ((fee.amount || []).map((c) => coin(c.amount, c.denom)).join(", ") || "none");
  const parts = [
    el("h1", {}, "Transaction", chip(ok ? "success" : "failed", ok ? "ok" : "bad"),
       evmTx ? link(`#/trace/${encodeURIComponent(evmTx.hash)}`, "Trace it", "chip") : null),
    card("Summary", kv([
      evmTx && ["EVM hash", el("span", {class: "hash", id: "evm-hash"}, evmTx.hash)],
      native && ["Native hash", el("span", {class: "hash", id: "native-hash"}, native.hash)],
      ["Block", blockLink(native ? native.height : Number(BigInt(evmTx.blockNumber)))],
      result && ["Result", result.code === 0 ? "ok" : `code ${result.code}${result.codespace ? " (" + result.codespace + ")" : ""}: ${result.log}`],
      result && ["Gas", `${result.gas_used} used of ${result.gas_wanted}`],
      paid && ["Fee", paid],
      memo !== "" && ["Memo", el("span", {id: "memo"}, memo)],
    ])),
  ];
  if (evmTx) parts.push(card("EVM", kv([
    ["From", addressLink(evmTx.from)],
    ["To", evmTx.to ? addressLink(evmTx.to) : el("span", {}, "contract creation ",
      receipt && receipt.contractAddress ? addressLink(receipt.contractAddress) : null)],
    ["Value", coin(big(evmTx.value).toString(), config.denom)],
    ["Nonce", String(Number(BigInt(evmTx.nonce)))],
    ["Gas", receipt ? `${Number(BigInt(receipt.gasUsed)).toLocaleString()} used of ${Number(BigInt(evmTx.gas)).toLocaleString()}` : String(BigInt(evmTx.gas))],
    receipt && ["Gas price", `${BigInt(receipt.effectiveGasPrice)} ${config.denom}`],
    ["Input", el("pre", {}, evmTx.input)],
  ])));
  if (receipt) parts.push(card(`Logs (${receipt.logs.length})`, receipt.logs.length
    ? el("div", {id: "logs"}, await Promise.all(receipt.logs.map(logView)))
    : el("p", {class: "muted"}, "No logs.")));
  if (body && body.tx) parts.push(card("Messages", body.tx.body.messages.map((message) =>
    el("div", {}, el("div", {class: "mono"}, message["@type"]), el("pre", {}, JSON.stringify(message, null, 2))))));
  if (result) parts.push(card("Events", events(result.events || [])));
  show(parts);
}

const tokens = new Map();    // contract address -> Promise of {symbol, decimals}

function token(address) {
  if (!tokens.has(address)) {
    const call = (data) => evm("eth_call", [{to: address, data}, "latest"]).catch(() => null);
    tokens.set(address, Promise.all([call("0x95d89b41"), call("0x313ce567")]).then(([symbol, decimals]) => ({
      symbol: abiString(symbol) || "?", decimals: decimals && decimals !== "0x" ? Number(BigInt(decimals)) : 0,
    })));
  }
  return tokens.get(address);
}

async function logView(log) {
  const topic = (log.topics[0] || "").toLowerCase();
  let decoded = null;
  if ((topic === TRANSFER || topic === APPROVAL) && log.topics.length === 3) {
    const info = await token(log.address);
    const amount = units(big(log.data).toString(), info.decimals);
    decoded = el("div", {class: "decoded"}, el("b", {}, topic === TRANSFER ? "Transfer" : "Approval"), " ",
                 amount, " ", el("span", {class: "token"}, info.symbol), topic === TRANSFER ? " from " : " by owner ",
                 addressLink(topicAddress(log.topics[1])), topic === TRANSFER ? " to " : " to spender ",
                 addressLink(topicAddress(log.topics[2])));
  }
  return el("div", {class: "log"}, decoded, kv([
    ["Contract", addressLink(log.address)], ["Log index", String(Number(BigInt(log.logIndex)))],
    ["Topics", el("div", {}, log.topics.map((t) => el("div", {class: "hash"}, t)))],
    ["Data", el("pre", {}, log.data)],
  ]));
}

// An account, by 0x or bech32 address.

async function addressPage(id) {
  let hex = isHexAddress(id) ? id.toLowerCase() : fromBech32(id);
  if (!hex) return notFound("Not an address", `"${id}" is neither a 0x address nor a ${config.bech32Prefix}1… address.`);
  const b32 = toBech32(hex);
  const [balance, nonce, code, balances, pairs, delegations, sent, received] = await Promise.all([
    evm("eth_getBalance", [hex, "latest"]), evm("eth_getTransactionCount", [hex, "latest"]),
    evm("eth_getCode", [hex, "latest"]),
    rest(`/cosmos/bank/v1beta1/balances/${b32}`).then((r) => r.balances).catch(() => []),
    rest("/evmos/erc20/v1/token_pairs").then((r) => r.token_pairs || []).catch(() => []),
    rest(`/cosmos/staking/v1beta1/delegations/${b32}`).then((r) => r.delegation_responses || []).catch(() => []),
    txSearch(`message.sender = '${b32}'`).catch(() => []),
    txSearch(`transfer.recipient = '${b32}'`).catch(() => []),
  ]);
  const pairBalances = await Promise.all(pairs.map(async (pair) => {
    const data = "0x70a08231" + strip0x(hex).padStart(64, "0");
    const value = await evm("eth_call", [{to: pair.erc20_address, data}, "latest"]).catch(() => "0x");
    return [pair, big(value)];
  }));
  const seen = new Set();
  const recent = [...sent, ...received].filter((tx) => !seen.has(tx.hash) && seen.add(tx.hash))
    .sort((a, b) => Number(b.height) - Number(a.height) || b.index - a.index).slice(0, PAGE_SIZE);
  const codeSize = (strip0x(code).length / 2);
  const empty = big(balance) === 0n && big(nonce) === 0n && codeSize === 0 && !balances.length && !recent.length;
  show(el("h1", {}, codeSize ? "Contract" : "Account"),
       empty ? el("section", {class: "card notice", id: "unknown-address"},
                  "This address has no balance, code or transactions on this chain yet.") : null,
       card("Address", kv([
         ["EVM", el("span", {class: "hash"}, hex)], ["Bech32", el("span", {class: "hash"}, b32)],
         ["Nonce", String(Number(BigInt(nonce)))], ["Code size", `${codeSize} bytes`],
       ])),
       el("div", {class: "grid"},
          card("Balances", balances.length ? table(["Denom", "Amount"], balances.map((c) =>
            el("tr", {}, el("td", {}, denomView(c.denom)), el("td", {}, amountOf(c.amount, c.denom)))))
            : el("p", {class: "muted"}, "No balances.")),
          card("ERC-20 pairs", pairBalances.length ? table(["Denom", "ERC-20", "Balance"], pairBalances.map(([p, v]) =>
            el("tr", {}, el("td", {}, denomView(p.denom)), el("td", {}, link(`#/address/${encodeURIComponent(p.erc20_address)}`,
               short(p.erc20_address, 8), "hash nowrap")), el("td", {}, v.toLocaleString("en-US"))))) : el("p", {class: "muted"}, "No token pairs registered."))),
       card("Delegations", delegations.length ? table(["Validator", "Amount"], delegations.map((d) =>
         el("tr", {}, el("td", {class: "hash"}, d.delegation.validator_address),
            el("td", {}, coin(d.balance.amount, d.balance.denom))))) : el("p", {class: "muted"}, "No delegations.")),
       card("Recent transactions", recent.length ? table(["Hash", "Height", "Kind", "Result"], recent.map(txRow))
         : el("p", {class: "muted"}, "No transactions found in the event index.")));
}

// A trace: callTracer's call tree, a flame graph of gas by frame, the struct log of a frame in pages.

async function tracePage(id) {
  if (!isHash(id)) return notFound("Not a transaction hash", `"${id}" is not a 32-byte hex hash.`);
  const hash = "0x" + strip0x(id).toLowerCase();
  let root;
  try {
    root = await evm("debug_traceTransaction", [hash, {tracer: "callTracer", tracerConfig: {withLog: true}}]);
  } catch (error) {
    if (error.code === -32601) {
      return notFound("Tracing is off on this node", "Its JSON-RPC does not serve the debug namespace ([json-rpc] api).");
    }
    return notFound("Transaction not found", `It cannot be traced: ${error.message}`);
  }
  const frames = [];
  (function number(frame, depth) {     // pre-order, as the struct log's tracer counts call frames
    frame.index = frames.length;
    frame.depth = depth;
    frames.push(frame);
    for (const child of frame.calls || []) number(child, depth + 1);
  })(root, 0);
  const steps = el("div", {id: "struct-log"}, el("p", {class: "muted"},
    "Pick a frame (“struct log”) to page through its opcodes."));
  const head = el("h1", {}, "Trace", txLink(hash, short(hash)),
                  chip(root.error ? "reverted" : "success", root.error ? "bad" : "ok"),
                  chip(`${frames.length} frame${frames.length === 1 ? "" : "s"}`));
  if (frames.length > MAX_DRAWN_FRAMES) {
    show(head, card("Too large to draw", el("p", {}, `This call tree has ${frames.length} frames; at most `,
                    `${MAX_DRAWN_FRAMES} are drawn. The struct log of the top frame can still be paged.`)),
         card("Struct log", steps));
    return structLog(steps, hash, root);
  }
  const tree = el("div", {id: "call-tree"}, frameView(root, hash, steps));
  show(head, card("Gas by frame", flame(frames, root)), card("Call tree", tree), card("Struct log", steps));
}

function frameView(frame, hash, steps) {
  const reverted = Boolean(frame.error);
  const reason = frame.revertReason || revertString(frame.output);
  const details = el("details", {class: `frame${reverted ? " reverted" : ""}`, id: `frame-${frame.index}`,
                                 "data-frame": frame.index, open: frame.depth < 4 ? "" : null},
    el("summary", {},
       el("span", {class: "kind"}, frame.type), addressLink(frame.from), " → ",
       frame.to ? el("span", {class: "to"}, addressLink(frame.to)) : "(create)", " ",
       chip(`${Number(big(frame.gasUsed)).toLocaleString()} gas`), " ",
       big(frame.value) > 0n ? chip(coin(big(frame.value).toString(), config.denom)) : null, " ",
       reverted ? chip("reverted", "bad") : null),
    el("div", {class: "detail"}, kv([
      ["Input", el("span", {class: "hash"}, frame.input && frame.input.length > 10
        ? `${frame.input.slice(0, 10)} (${(frame.input.length - 10) / 2} bytes of arguments)` : frame.input || "0x")],
      ["Gas", `${Number(big(frame.gasUsed)).toLocaleString()} used of ${Number(big(frame.gas)).toLocaleString()}`],
      frame.output && frame.output !== "0x" && ["Output", el("span", {class: "hash"}, frame.output)],
      reverted && ["Error", el("span", {class: "reason"}, frame.error)],
      reason && ["Revert reason", el("span", {class: "reason revert-reason"}, reason)],
      frame.logs && frame.logs.length && ["Logs", `${frame.logs.length} (emitted by this frame)`],
    ]), el("button", {class: "small", type: "button", onclick: () => structLog(steps, hash, frame)}, "struct log")),
    (frame.calls || []).map((child) => frameView(child, hash, steps)));
  return details;
}

function flame(frames, root) {
  const total = Number(big(root.gasUsed)) || 1;
  const rowHeight = 24;
  const box = el("div", {class: "flame", id: "flame"});
  let depth = 0;
  (function place(frame, left, width) {
    depth = Math.max(depth, frame.depth);
    const label = `${frame.type} ${frame.to ? short(frame.to, 6) : "create"} · ${Number(big(frame.gasUsed)).toLocaleString()} gas`;
    const bar = el("div", {class: `bar${frame.error ? " reverted" : ""}`, title: label + (frame.error ? ` · ${frame.error}` : ""),
                           onclick: () => select(frame.index)}, width > 4 ? label : "");
    bar.style.left = `${left}%`;
    bar.style.width = `${Math.max(width, 0.3)}%`;
    bar.style.top = `${frame.depth * rowHeight + 4}px`;
    box.append(bar);
    let offset = left;
    for (const child of frame.calls || []) {
      const share = width * Number(big(child.gasUsed)) / (Number(big(frame.gasUsed)) || 1);
      place(child, offset, Math.min(share, left + width - offset));
      offset += share;
    }
  })(root, 0, 100);
  box.style.height = `${(depth + 1) * rowHeight + 8}px`;
  return [box, el("div", {class: "legend"}, `Each bar is a call frame, as wide as its share of the ${total.toLocaleString()} gas `,
                  "the transaction used; children sit under their caller. Red: reverted. Click a bar to find it in the tree.")];
}

function select(index) {
  for (const old of document.querySelectorAll(".frame.selected")) old.classList.remove("selected");
  const target = document.getElementById(`frame-${index}`);
  if (!target) return;
  for (let node = target; node; node = node.parentElement.closest("details.frame")) node.open = true;
  target.classList.add("selected");
  target.scrollIntoView({block: "center", behavior: "smooth"});
}

// The struct log of one frame, one page at a time: a JavaScript tracer on the node keeps only that page's
// steps of that frame, so a huge trace is never sent whole. Its numbers are the only values put in its source.
function pageTracer(frame, skip, size) {
  return `{frames: [0], next: 1, seen: 0, rows: [],
    enter: function() { this.frames.push(this.next++); }, exit: function() { this.frames.pop(); },
    step: function(log) {
      if (this.frames[this.frames.length - 1] !== ${Number(frame)}) return;
      var n = this.seen++;
      if (n < ${Number(skip)} || n >= ${Number(skip) + Number(size)}) return;
      var stack = [];
      for (var i = 0; i < Math.min(3, log.stack.length()); i++) stack.push(log.stack.peek(i).toString(16));
      this.rows.push({step: n, pc: log.getPC(), op: log.op.toString(), gas: log.getGas(), cost: log.getCost(),
                      depth: log.getDepth(), stack: stack});
    },
    fault: function() {}, result: function() { return {total: this.seen, rows: this.rows}; }}`;
}

async function structLog(box, hash, frame, page = 0) {
  box.replaceChildren(el("p", {class: "muted"}, `Loading the struct log of frame ${frame.index}…`));
  let result;
  try {
    result = await evm("debug_traceTransaction", [hash, {tracer: pageTracer(frame.index, page * STEPS_PER_PAGE, STEPS_PER_PAGE)}]);
  } catch (error) {
    box.replaceChildren(el("p", {class: "reason"}, `The struct log could not be made: ${error.message}`));
    return;
  }
  const pages = Math.max(1, Math.ceil(result.total / STEPS_PER_PAGE));
  box.replaceChildren(
    el("p", {}, `Frame ${frame.index}: ${frame.type} to `, frame.to ? addressLink(frame.to) : "(create)",
       ` · ${result.total.toLocaleString()} steps`),
    el("div", {class: "pager"},
       el("button", {class: "small", type: "button", disabled: page === 0 ? "" : null,
                     onclick: () => structLog(box, hash, frame, page - 1)}, "← previous"),
       el("span", {class: "muted"}, `page ${page + 1} of ${pages}`),
       el("button", {class: "small", type: "button", disabled: page + 1 >= pages ? "" : null,
                     onclick: () => structLog(box, hash, frame, page + 1)}, "next →")),
    table(["Step", "PC", "Op", "Gas", "Cost", "Depth", "Stack (top first)"], result.rows.map((row) =>
      el("tr", {}, el("td", {}, row.step), el("td", {}, row.pc), el("td", {class: "mono"}, row.op),
         el("td", {}, row.gas), el("td", {}, row.cost), el("td", {}, row.depth),
         el("td", {class: "hash"}, row.stack.map((v) => "0x" + v).join("  "))))));
}

// Search: a height, a tx or block hash (EVM or native), or an address.

async function searchPage(query) {
  const q = query.trim();
  if (/^\d+$/.test(q)) return location.replace(`#/block/${q}`);
  if (isHash(q)) return location.replace(`#/tx/${encodeURIComponent(q)}`);
  if (isHexAddress(q) || fromBech32(q)) return location.replace(`#/address/${encodeURIComponent(q)}`);
  return notFound("Nothing matches", `"${q}" is not a height, a 32-byte hash or an address.`);
}

// -- start ----------------------------------------------------------------------------------------------

async function start() {
  config = await (await fetch("config.json")).json();
  document.getElementById("chain").textContent = `${config.chainId} · EVM ${config.evmChainId}`;
  document.getElementById("search").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = document.getElementById("search-input");
    location.hash = `#/search/${encodeURIComponent(input.value.trim())}`;
    input.blur();
  });
  window.addEventListener("hashchange", render);
  await loadDisplayUnits();
  await render();
}

start();
